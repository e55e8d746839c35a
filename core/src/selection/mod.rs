//! Selections other than one hyper-rectangle: per axis a range, an index or a list of indices
//! in any order with repeats (orthogonal indexing, zarr-python's `oindex`, NumPy's for one
//! index array), and points over several axes at once (coordinate indexing, zarr-python's
//! `vindex`, NumPy's for several index arrays broadcast together). Boolean masks are lists of
//! the indices where they are true.
//!
//! A [`Selection`] is a list of groups in the order their output axes come: an [`AxisSel`] of
//! one array axis (a range or a list keeps an output axis, an index drops it), or
//! [`Points`] over several array axes (one output axis, a point each). Every array axis is in
//! exactly one group. [`Plan`] groups what is selected by the chunk that holds it,
//! and [`GatherRuns`] gives the byte runs that copy one chunk's part out of it.
//!
//! Indices are checked when the selection is made, against the array's shape: nothing is read
//! for a selection with an index out of bounds.

mod gather;
mod plan;

pub use gather::GatherRuns;
pub use plan::{AxisOwners, Plan, SelPiece};

use alloc::vec::Vec;

use crate::{Dims, LayoutError, MAX_DIMS, Region, dims};

/// What one array axis selects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AxisSel {
    /// `start..stop`, in order: an output axis of `stop - start`.
    Range {
        /// First coordinate.
        start: u64,
        /// One past the last.
        stop: u64,
    },
    /// One coordinate: the axis is dropped from the output.
    Index(u64),
    /// Coordinates in the order their output positions come (any order, repeats allowed):
    /// an output axis of their number.
    List(Vec<u64>),
}

impl AxisSel {
    /// Indices as NumPy takes them (negative ones count from the end), checked against the
    /// axis's `extent`. A list that is one increasing run (`[3, 4, 5]`) becomes a range.
    ///
    /// # Errors
    /// [`LayoutError::IndexOutOfBounds`] naming axis `dim` for an index outside it.
    pub fn from_signed(indices: &[i64], extent: u64, dim: usize) -> Result<Self, LayoutError> {
        let list = indices
            .iter()
            .map(|&i| resolve(i, extent, dim))
            .collect::<Result<Vec<u64>, _>>()?;
        Ok(Self::List(list).simplified())
    }

    /// The indices where `mask` (the axis's length) is true, in order.
    ///
    /// # Errors
    /// [`LayoutError::MaskLength`] if `mask` is not `extent` long.
    pub fn from_mask(mask: &[bool], extent: u64, dim: usize) -> Result<Self, LayoutError> {
        if mask.len() as u64 != extent {
            return Err(LayoutError::MaskLength {
                dim,
                len: mask.len() as u64,
                extent,
            });
        }
        let list = (0u64..).zip(mask).filter(|(_, m)| **m).map(|(i, _)| i);
        Ok(Self::List(list.collect()).simplified())
    }

    /// A list that is one increasing run of consecutive coordinates, as the range it is.
    #[must_use]
    pub fn simplified(self) -> Self {
        match &self {
            Self::List(list) => match (list.first(), list.len() as u64) {
                (Some(&first), n) if list.windows(2).all(|w| w[0].checked_add(1) == Some(w[1])) => {
                    Self::Range {
                        start: first,
                        stop: first + n,
                    }
                }
                _ => self,
            },
            _ => self,
        }
    }

    /// Whether it keeps an output axis (an index drops it).
    pub fn keeps_axis(&self) -> bool {
        !matches!(self, Self::Index(_))
    }

    /// How many coordinates it selects.
    pub fn len(&self) -> u64 {
        match self {
            Self::Range { start, stop } => stop.saturating_sub(*start),
            Self::Index(_) => 1,
            Self::List(list) => list.len() as u64,
        }
    }

    /// Whether it selects nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn check(&self, extent: u64, dim: usize) -> Result<(), LayoutError> {
        let bad = |index: u64| LayoutError::IndexOutOfBounds {
            dim,
            index: i64::try_from(index).unwrap_or(i64::MAX),
            extent,
        };
        match self {
            Self::Range { start, stop } if start > stop => Err(LayoutError::BackwardsRange {
                dim,
                start: *start,
                end: *stop,
            }),
            Self::Range { stop, .. } if *stop > extent => Err(LayoutError::OutOfBounds {
                dim,
                end: *stop,
                extent,
            }),
            Self::Index(i) if *i >= extent => Err(bad(*i)),
            Self::List(list) => match list.iter().find(|&&i| i >= extent) {
                Some(&i) => Err(bad(i)),
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }
}

/// A NumPy index (negative from the end) as a coordinate of an axis of `extent`.
fn resolve(i: i64, extent: u64, dim: usize) -> Result<u64, LayoutError> {
    let out = LayoutError::IndexOutOfBounds {
        dim,
        index: i,
        extent,
    };
    let x = if i < 0 {
        extent.checked_sub(i.unsigned_abs()).ok_or(out)?
    } else {
        i.unsigned_abs()
    };
    if x < extent { Ok(x) } else { Err(out) }
}

/// Points over some of an array's axes: point `p` is at `coords[p * axes.len() + j]` along
/// array axis `axes[j]`. One output axis, a position per point, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Points {
    axes: Vec<usize>,
    coords: Vec<u64>,
}

impl Points {
    /// Points from one list of indices per axis of `axes` (NumPy's, negative from the end),
    /// all as long, checked against `shape` (the array's).
    ///
    /// # Errors
    /// [`LayoutError::PointsDiffer`] for lists of different lengths;
    /// [`LayoutError::IndexOutOfBounds`] for an index outside its axis;
    /// [`LayoutError::DimsMismatch`] for an axis past the array's.
    pub fn from_signed(
        axes: &[usize],
        lists: &[&[i64]],
        shape: &[u64],
    ) -> Result<Self, LayoutError> {
        if lists.len() != axes.len() || axes.is_empty() {
            return Err(LayoutError::DimsMismatch {
                expected: axes.len(),
                got: lists.len(),
            });
        }
        let first = lists.first().map_or(0, |l| l.len());
        let mut coords = Vec::new();
        coords
            .try_reserve_exact(first.checked_mul(axes.len()).ok_or(LayoutError::Overflow)?)
            .map_err(|_| LayoutError::Overflow)?;
        for (&dim, list) in axes.iter().zip(lists) {
            if list.len() != first {
                return Err(LayoutError::PointsDiffer {
                    dim,
                    len: list.len() as u64,
                    first: first as u64,
                });
            }
        }
        for p in 0..first {
            for (&dim, list) in axes.iter().zip(lists) {
                let extent = *shape.get(dim).ok_or(LayoutError::DimsMismatch {
                    expected: shape.len(),
                    got: dim + 1,
                })?;
                let i = list.get(p).copied().ok_or(LayoutError::Overflow)?;
                coords.push(resolve(i, extent, dim)?);
            }
        }
        if axes.len() > MAX_DIMS {
            return Err(LayoutError::TooManyDims {
                ndim: axes.len(),
                max: MAX_DIMS,
            });
        }
        Ok(Self {
            axes: axes.to_vec(),
            coords,
        })
    }

    /// The array axes the points are over, in the order their coordinates are given.
    pub fn axes(&self) -> impl Iterator<Item = usize> + '_ {
        self.axes.iter().copied()
    }

    /// How many points.
    pub fn len(&self) -> u64 {
        match self.axes.len() {
            0 => 0,
            k => (self.coords.len() / k) as u64,
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Point `p`'s coordinates, one per axis of [`Self::axes`].
    pub fn point(&self, p: u64) -> Option<&[u64]> {
        let k = self.axes.len();
        let start = usize::try_from(p).ok()?.checked_mul(k)?;
        self.coords.get(start..start.checked_add(k)?)
    }

    fn check(&self, shape: &[u64]) -> Result<(), LayoutError> {
        for (j, dim) in self.axes().enumerate() {
            let extent = *shape.get(dim).ok_or(LayoutError::DimsMismatch {
                expected: shape.len(),
                got: dim + 1,
            })?;
            let k = self.axes.len();
            if let Some(&i) = self
                .coords
                .iter()
                .skip(j)
                .step_by(k)
                .find(|&&i| i >= extent)
            {
                return Err(LayoutError::IndexOutOfBounds {
                    dim,
                    index: i64::try_from(i).unwrap_or(i64::MAX),
                    extent,
                });
            }
        }
        Ok(())
    }
}

/// One group of a [`Selection`]: one array axis, or points over several.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Group {
    /// Array axis `dim`, selected by `sel`.
    Axis {
        /// The array axis.
        dim: usize,
        /// What it selects.
        sel: AxisSel,
    },
    /// Points over several array axes.
    Points(Points),
}

impl Group {
    /// Whether the group has an output axis, and its length.
    pub fn output_len(&self) -> Option<u64> {
        match self {
            Self::Axis { sel, .. } if !sel.keeps_axis() => None,
            Self::Axis { sel, .. } => Some(sel.len()),
            Self::Points(p) => Some(p.len()),
        }
    }

    /// The array axes the group selects.
    fn dims(&self) -> &[usize] {
        match self {
            Self::Axis { dim, .. } => core::slice::from_ref(dim),
            Self::Points(p) => &p.axes,
        }
    }
}

/// A selection of an array of `shape`: groups in the order their output axes come, every
/// array axis in exactly one, every index checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    groups: Vec<Group>,
    shape: Dims,
}

impl Selection {
    /// Checks `groups` against the array's `shape`.
    ///
    /// # Errors
    /// [`LayoutError::AxisSelection`] for an axis in no group or in two; an index or range
    /// outside its axis.
    pub fn new(groups: Vec<Group>, shape: &[u64]) -> Result<Self, LayoutError> {
        let mut seen = [false; MAX_DIMS];
        for g in &groups {
            for &d in g.dims() {
                let slot = seen.get_mut(d).filter(|_| d < shape.len()).ok_or(
                    LayoutError::DimsMismatch {
                        expected: shape.len(),
                        got: d + 1,
                    },
                )?;
                if *slot {
                    return Err(LayoutError::AxisSelection {
                        dim: d,
                        twice: true,
                    });
                }
                *slot = true;
            }
            match g {
                Group::Axis { dim, sel } => sel.check(shape[*dim], *dim)?,
                Group::Points(p) => p.check(shape)?,
            }
        }
        if let Some(dim) = (0..shape.len()).find(|&d| !seen.get(d).copied().unwrap_or(false)) {
            return Err(LayoutError::AxisSelection { dim, twice: false });
        }
        Ok(Self {
            groups,
            shape: dims(shape)?,
        })
    }

    /// One [`AxisSel`] per array axis, in order (zarr-python's `oindex`).
    ///
    /// # Errors
    /// As [`Selection::new`].
    pub fn orthogonal(axes: Vec<AxisSel>, shape: &[u64]) -> Result<Self, LayoutError> {
        let groups = axes
            .into_iter()
            .enumerate()
            .map(|(dim, sel)| Group::Axis { dim, sel })
            .collect();
        Self::new(groups, shape)
    }

    /// The groups, in output order.
    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// The array's shape.
    pub fn array_shape(&self) -> &[u64] {
        &self.shape
    }

    /// The output's shape: one axis per group that keeps one.
    ///
    /// # Errors
    /// None in practice: there are at most as many groups as array axes.
    pub fn output_shape(&self) -> Result<Dims, LayoutError> {
        let lens: Vec<u64> = self.groups.iter().filter_map(Group::output_len).collect();
        dims(&lens)
    }

    /// Elements selected.
    ///
    /// # Errors
    /// [`LayoutError::Overflow`] if they overflow a `u64`.
    pub fn len(&self) -> Result<u64, LayoutError> {
        crate::product(&self.output_shape()?)
    }

    /// Whether it selects nothing.
    pub fn is_empty(&self) -> bool {
        self.len().is_ok_and(|n| n == 0)
    }

    /// The selection as the hyper-rectangle it is, if every group is a range or an index of
    /// one axis, in the array's axis order: the region, and which axes the output keeps.
    pub fn as_region(&self) -> Option<(Region, Dims)> {
        let mut start = Dims::new();
        let mut extent = Dims::new();
        let mut kept = Dims::new();
        for (d, g) in self.groups.iter().enumerate() {
            let (a, n, keep) = match g {
                Group::Axis { dim, sel } if *dim == d => match sel {
                    AxisSel::Range { start, stop } => (*start, stop - start, 1),
                    AxisSel::Index(i) => (*i, 1, 0),
                    AxisSel::List(_) => return None,
                },
                _ => return None,
            };
            start.push(a).ok()?;
            extent.push(n).ok()?;
            kept.push(keep).ok()?;
        }
        Some((Region::new(&start, &extent).ok()?, kept))
    }
}

#[cfg(test)]
#[allow(clippy::cast_possible_truncation)] // test arrays are small
mod tests;
