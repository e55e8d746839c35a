//! Hyper-rectangles: a start and a shape per dimension.

use crate::LayoutError;
use crate::shape::{Dims, dims, product, same_ndim};

/// A hyper-rectangle `start[d] .. start[d] + shape[d]` in every dimension `d`.
///
/// Used for selections of an array, the part of a chunk a selection touches, and where that part
/// lands in the output. Its end never overflows `u64`: [`Region::new`] checks it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    start: Dims,
    shape: Dims,
}

impl Region {
    /// A region from its start and shape.
    ///
    /// # Errors
    /// [`LayoutError::DimsMismatch`] if the lengths differ, [`LayoutError::TooManyDims`] past
    /// [`MAX_DIMS`](crate::MAX_DIMS), [`LayoutError::Overflow`] if `start + shape` overflows.
    pub fn new(start: &[u64], shape: &[u64]) -> Result<Self, LayoutError> {
        same_ndim(start.len(), shape.len())?;
        for (&s, &n) in start.iter().zip(shape) {
            s.checked_add(n).ok_or(LayoutError::Overflow)?;
        }
        Ok(Self {
            start: dims(start)?,
            shape: dims(shape)?,
        })
    }

    /// A region from one range per dimension, as a slice `a[10..200, 5..90]` reads.
    ///
    /// ```
    /// use zinto_core::Region;
    ///
    /// let r = Region::from_ranges(&[10..200, 5..90])?;
    /// assert_eq!((r.start(), r.shape()), (&[10, 5][..], &[190, 85][..]));
    /// # Ok::<(), zinto_core::LayoutError>(())
    /// ```
    ///
    /// # Errors
    /// [`LayoutError::BackwardsRange`] for a range that ends before it starts,
    /// [`LayoutError::TooManyDims`] past [`MAX_DIMS`](crate::MAX_DIMS).
    pub fn from_ranges(ranges: &[core::ops::Range<u64>]) -> Result<Self, LayoutError> {
        let mut start = Dims::new();
        let mut shape = Dims::new();
        for (dim, r) in ranges.iter().enumerate() {
            let n = r
                .end
                .checked_sub(r.start)
                .ok_or(LayoutError::BackwardsRange {
                    dim,
                    start: r.start,
                    end: r.end,
                })?;
            let too_many = LayoutError::TooManyDims {
                ndim: ranges.len(),
                max: crate::MAX_DIMS,
            };
            start.push(r.start).map_err(|_| too_many)?;
            shape.push(n).map_err(|_| too_many)?;
        }
        Ok(Self { start, shape })
    }

    /// A region whose caller has proven that `start + shape` fits a `u64` in every dimension
    /// and that both have the same length.
    pub(crate) fn from_parts(start: Dims, shape: Dims) -> Self {
        debug_assert_eq!(start.len(), shape.len());
        Self { start, shape }
    }

    /// The whole of an array of `shape`: starts at the origin.
    ///
    /// # Errors
    /// [`LayoutError::TooManyDims`] past [`MAX_DIMS`](crate::MAX_DIMS).
    pub fn whole(shape: &[u64]) -> Result<Self, LayoutError> {
        let shape = dims(shape)?;
        let mut start = Dims::new();
        for _ in 0..shape.len() {
            // Cannot fail: `start` has the same capacity as `shape`.
            let _ = start.push(0);
        }
        Ok(Self { start, shape })
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// First coordinate in each dimension.
    pub fn start(&self) -> &[u64] {
        &self.start
    }

    /// Extent in each dimension.
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    /// One past the last coordinate along `dim` (never overflows: checked at construction).
    pub fn end(&self, dim: usize) -> Option<u64> {
        let s = *self.start.get(dim)?;
        let n = *self.shape.get(dim)?;
        s.checked_add(n)
    }

    /// Number of elements: the product of the shape (1 for 0-d, 0 if any extent is 0).
    ///
    /// # Errors
    /// [`LayoutError::Overflow`] if the count does not fit a `u64`.
    pub fn num_elements(&self) -> Result<u64, LayoutError> {
        product(&self.shape)
    }

    /// True if any extent is zero, so the region holds no element.
    pub fn is_empty(&self) -> bool {
        self.shape.contains(&0)
    }

    /// Checks that the region lies inside an array of `shape`.
    ///
    /// # Errors
    /// [`LayoutError::DimsMismatch`] or [`LayoutError::OutOfBounds`] naming the first offending
    /// dimension.
    pub fn check_within(&self, shape: &[u64]) -> Result<(), LayoutError> {
        same_ndim(shape.len(), self.ndim())?;
        for (dim, (&extent, (&s, &n))) in shape
            .iter()
            .zip(self.start.iter().zip(self.shape.iter()))
            .enumerate()
        {
            let end = s.checked_add(n).ok_or(LayoutError::Overflow)?;
            if end > extent {
                return Err(LayoutError::OutOfBounds { dim, end, extent });
            }
        }
        Ok(())
    }
}
