//! The order in which a chunk's elements sit in memory.

use crate::LayoutError;
use crate::shape::MAX_DIMS;

/// An axis permutation: `axes()[0]` varies slowest in memory, the last varies fastest.
///
/// C order is `0, 1, ..., n-1`; F order is `n-1, ..., 1, 0`. Zarr v3's `transpose` codec with
/// `order: [o0, o1, ...]` stores the chunk as the C-order array whose axis `i` is the decoded
/// axis `o_i`, which is exactly this permutation; Zarr v2's `order: "F"` is [`MemoryOrder::f`].
/// No buffer is ever transposed: the permutation only changes the source strides of the runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryOrder {
    axes: heapless::Vec<u8, MAX_DIMS>,
}

impl MemoryOrder {
    /// Row-major order for `ndim` dimensions.
    ///
    /// # Errors
    /// [`LayoutError::TooManyDims`] past [`MAX_DIMS`].
    pub fn c(ndim: usize) -> Result<Self, LayoutError> {
        Self::from_iter_checked(ndim, 0..ndim)
    }

    /// Column-major order for `ndim` dimensions.
    ///
    /// # Errors
    /// [`LayoutError::TooManyDims`] past [`MAX_DIMS`].
    pub fn f(ndim: usize) -> Result<Self, LayoutError> {
        Self::from_iter_checked(ndim, (0..ndim).rev())
    }

    /// An explicit permutation, slowest axis first.
    ///
    /// # Errors
    /// [`LayoutError::NotAPermutation`] unless every axis `0..axes.len()` appears exactly once;
    /// [`LayoutError::TooManyDims`] past [`MAX_DIMS`].
    pub fn permutation(axes: &[usize]) -> Result<Self, LayoutError> {
        let ndim = axes.len();
        let mut seen = [false; MAX_DIMS];
        if ndim > MAX_DIMS {
            return Err(LayoutError::TooManyDims {
                ndim,
                max: MAX_DIMS,
            });
        }
        for &a in axes {
            match seen.get_mut(a) {
                Some(slot) if a < ndim && !*slot => *slot = true,
                _ => return Err(LayoutError::NotAPermutation { ndim }),
            }
        }
        Self::from_iter_checked(ndim, axes.iter().copied())
    }

    fn from_iter_checked(
        ndim: usize,
        axes: impl Iterator<Item = usize>,
    ) -> Result<Self, LayoutError> {
        let too_many = LayoutError::TooManyDims {
            ndim,
            max: MAX_DIMS,
        };
        if ndim > MAX_DIMS {
            return Err(too_many);
        }
        let mut out = heapless::Vec::new();
        for a in axes {
            let a = u8::try_from(a).map_err(|_| too_many)?;
            out.push(a).map_err(|_| too_many)?;
        }
        Ok(Self { axes: out })
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.axes.len()
    }

    /// The axes, slowest-varying first.
    pub fn axes(&self) -> impl DoubleEndedIterator<Item = usize> + ExactSizeIterator + '_ {
        self.axes.iter().map(|&a| usize::from(a))
    }

    /// True for row-major order.
    pub fn is_c(&self) -> bool {
        self.axes().enumerate().all(|(i, a)| i == a)
    }

    /// Composes two orders: the result stores what `self` stores, after `inner` was applied.
    ///
    /// Zarr applies `transpose` codecs in sequence; the chunk ends up in the order of their
    /// composition. With `self = [a0, a1, ...]` applied first and `then = [b0, b1, ...]` applied
    /// to the already permuted array, the stored axis `i` is `a[b[i]]`.
    ///
    /// # Errors
    /// [`LayoutError::DimsMismatch`] if the two orders have different dimensions.
    pub fn then(&self, then: &MemoryOrder) -> Result<Self, LayoutError> {
        crate::shape::same_ndim(self.ndim(), then.ndim())?;
        let mut out = heapless::Vec::new();
        for &b in &then.axes {
            let a = *self
                .axes
                .get(usize::from(b))
                .ok_or(LayoutError::NotAPermutation { ndim: self.ndim() })?;
            let _ = out.push(a);
        }
        Ok(Self { axes: out })
    }
}
