//! Slabs: a region cut along its leading axis into runs of whole chunks, so that a read, write
//! or conversion larger than the memory it may use goes one slab at a time through one buffer.
//! The one place that cuts them: the command's `read --out`, `create` and `convert`, and the
//! Python package's writes in parts (`zinto._zinto.slabs`: the pipeline's writes into stores
//! zinto does not address, a scalar written over a region, strings).
//!
//! The leading axis is the first whose extent is over one: every axis before it has one
//! element, so each slab is one contiguous run of the region's C-order bytes. Slab edges fall
//! on the grid of the chunks given (in the array's coordinates), so none of those is cut by
//! two slabs. (A conversion that rechunks cuts the source's chunks on the destination's grid:
//! a source chunk across a slab edge is decoded once for each slab.)

use std::fmt;

use crate::Region;

/// The command's slab size when `--memory` is not given: 1 GiB, a target.
pub const DEFAULT_SLAB_BYTES: u64 = 1 << 30;

/// How many bytes a slab may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlabBudget {
    /// At most this: a region whose one chunk's extent of the axis takes more is refused
    /// ([`SlabError::TooSmall`]).
    Bound(u64),
    /// About this: a slab holds at least one chunk's extent of the axis, however large.
    Target(u64),
}

/// Why a region cannot be cut into slabs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlabError {
    /// A [`SlabBudget::Bound`] smaller than the least slab of whole chunks.
    TooSmall {
        /// The bound, in bytes.
        bound: u64,
        /// Bytes of the least slab: one chunk's extent of the axis (or the region's, if
        /// shorter).
        least: u64,
    },
    /// A size past `u64`, or a slab past this machine's address space.
    Overflow,
}

impl fmt::Display for SlabError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooSmall { bound, least } => write!(
                f,
                "one slab of whole chunks takes {least} bytes, more than the {bound} allowed"
            ),
            Self::Overflow => f.write_str("a slab's size overflows"),
        }
    }
}

impl std::error::Error for SlabError {}

/// A region cut into slabs.
#[derive(Debug, Clone)]
pub struct Slabs {
    region: Region,
    /// The leading axis (see the module's documentation).
    axis: usize,
    /// Elements of the axis per slab (a multiple of the chunk's); slabs start where the chunk
    /// grid does.
    step: u64,
    /// Bytes per element of the axis: the region's extents after it, times the element size.
    row_bytes: u64,
    /// What the slabs may take, as given.
    budget: SlabBudget,
    /// On a rectilinear grid, where the axis's chunks start (and one past the last): slabs
    /// end on these instead of on multiples of `step` ([`Self::along_edges`]).
    edges: Option<Vec<u64>>,
}

impl Slabs {
    /// `region` in slabs of whole chunks (`chunk_shape`, in the array's coordinates) of
    /// `elem_size`-byte elements, as many as `budget` holds.
    ///
    /// # Errors
    /// [`SlabError::TooSmall`] for a [`SlabBudget::Bound`] under one chunk's extent of the
    /// axis; [`SlabError::Overflow`] if a row's size overflows.
    pub fn new(
        region: &Region,
        chunk_shape: &[u64],
        elem_size: u64,
        budget: SlabBudget,
    ) -> Result<Self, SlabError> {
        let extents = region.shape();
        let axis = leading_axis(extents);
        let row_bytes = extents
            .iter()
            .skip(axis + 1)
            .try_fold(elem_size, |acc, &n| acc.checked_mul(n))
            .ok_or(SlabError::Overflow)?;
        let chunk = chunk_shape.get(axis).copied().unwrap_or(1).max(1);
        let chunk_bytes = chunk.saturating_mul(row_bytes);
        // The least a slab takes: one chunk's extent of the axis, or the region's if shorter.
        let extent = extents.get(axis).copied().unwrap_or(1);
        let least = chunk.min(extent).saturating_mul(row_bytes);
        let given = budget;
        let budget = match budget {
            SlabBudget::Bound(bound) if least > bound => {
                return Err(SlabError::TooSmall { bound, least });
            }
            SlabBudget::Bound(b) | SlabBudget::Target(b) => b,
        };
        let chunks = (budget / chunk_bytes.max(1)).max(1);
        Ok(Self {
            region: region.clone(),
            axis,
            step: chunk.saturating_mul(chunks),
            row_bytes,
            budget: given,
            edges: None,
        })
    }

    /// These slabs on a rectilinear grid: `starts[d]`, where given, lists where the chunks of
    /// dimension `d` start and one past the last (increasing); a dimension without is
    /// regular, of the chunk shape given to [`Self::new`]. Slabs then end on those edges,
    /// each at least one chunk thick.
    ///
    /// # Errors
    /// [`SlabError::TooSmall`] for a [`SlabBudget::Bound`] under the thickest chunk the region
    /// meets along the axis.
    pub fn along_edges(mut self, starts: &[Option<Vec<u64>>]) -> Result<Self, SlabError> {
        let Some(Some(edges)) = starts.get(self.axis) else {
            return Ok(self);
        };
        self.edges = Some(edges.clone());
        if let SlabBudget::Bound(bound) = self.budget {
            let least = self.thickest_chunk().saturating_mul(self.row_bytes);
            if least > bound {
                return Err(SlabError::TooSmall { bound, least });
            }
        }
        Ok(self)
    }

    /// The thickest chunk of the region along the axis (clipped to the region), on edges.
    fn thickest_chunk(&self) -> u64 {
        let (Some(&start), Some(end)) = (
            self.region.start().get(self.axis),
            self.region.end(self.axis),
        ) else {
            return 1;
        };
        let mut at = start;
        let mut thickest = 0;
        while at < end {
            let stop = self.stop_after(at, 0).min(end);
            thickest = thickest.max(stop - at);
            at = stop;
        }
        thickest
    }

    /// Where the slab that starts at `at` ends (before the region's end is applied): the
    /// next multiple of the step, or on edges the furthest edge within `rows` of `at` (at
    /// least the next one).
    fn stop_after(&self, at: u64, rows: u64) -> u64 {
        let Some(edges) = &self.edges else {
            // The next multiple of the step in the array's coordinates, so slabs after the
            // first start where chunks do.
            return (at / self.step + 1).saturating_mul(self.step);
        };
        let next = edges.partition_point(|&s| s <= at);
        let mut stop = edges.get(next).copied().unwrap_or(u64::MAX);
        for &edge in edges.iter().skip(next + 1) {
            if edge - at > rows {
                break;
            }
            stop = edge;
        }
        stop
    }

    /// Elements of the axis a slab on edges may hold: the budget's, or 0 (one chunk each).
    fn rows(&self) -> u64 {
        let (SlabBudget::Bound(b) | SlabBudget::Target(b)) = self.budget;
        b / self.row_bytes.max(1)
    }

    /// `region` in slabs one chunk's extent thick, for elements whose size is known only once
    /// read (strings): the slabs' byte lengths are 0.
    ///
    /// # Errors
    /// As [`Self::new`].
    pub fn one_chunk_each(region: &Region, chunk_shape: &[u64]) -> Result<Self, SlabError> {
        let mut slabs = Self::new(region, chunk_shape, 0, SlabBudget::Target(0))?;
        slabs.step = chunk_shape.get(slabs.axis).copied().unwrap_or(1).max(1);
        Ok(slabs)
    }

    /// The axis the slabs cut: the first whose extent is over one.
    pub fn axis(&self) -> usize {
        self.axis
    }

    /// Bytes of the largest slab: the buffer every slab fits in.
    ///
    /// # Errors
    /// [`SlabError::Overflow`] past this machine's address space.
    pub fn max_len(&self) -> Result<usize, SlabError> {
        if self.edges.is_some() {
            return self.iter().try_fold(0, |most, slab| Ok(most.max(slab?.1)));
        }
        let extent = self.region.shape().get(self.axis).copied().unwrap_or(1);
        self.len_of(self.step.min(extent))
    }

    /// The slabs in order, each its region and its byte length (slab `k` follows slab `k - 1`
    /// in the region's C order). A 0-d region is one slab of one element.
    pub fn iter(&self) -> impl Iterator<Item = Result<(Region, usize), SlabError>> + '_ {
        let scalar = self.region.ndim() == 0;
        let (start, end) = match (
            self.region.start().get(self.axis),
            self.region.end(self.axis),
        ) {
            // An empty region (an extent of 0 anywhere) has nothing to cut.
            _ if self.region.is_empty() => (0, 0),
            (Some(&s), Some(e)) => (s, e),
            _ => (0, u64::from(scalar)),
        };
        let mut at = start;
        std::iter::from_fn(move || {
            if at >= end {
                return None;
            }
            if scalar {
                at = end;
                return Some(self.len_of(1).map(|len| (self.region.clone(), len)));
            }
            let stop = self.stop_after(at, self.rows()).min(end);
            let slab = self.slab(at, stop);
            at = stop;
            Some(slab)
        })
    }

    fn slab(&self, from: u64, to: u64) -> Result<(Region, usize), SlabError> {
        let mut start = self.region.start().to_vec();
        let mut shape = self.region.shape().to_vec();
        if let (Some(s), Some(n)) = (start.get_mut(self.axis), shape.get_mut(self.axis)) {
            (*s, *n) = (from, to - from);
        }
        let region = Region::new(&start, &shape).map_err(|_| SlabError::Overflow)?;
        Ok((region, self.len_of(to - from)?))
    }

    fn len_of(&self, elements: u64) -> Result<usize, SlabError> {
        elements
            .checked_mul(self.row_bytes)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or(SlabError::Overflow)
    }
}

/// The axis slabs of a region of `extents` cut: the first whose extent is over one, so that
/// every axis before it has one element and each slab is one contiguous run of the region's
/// C-order bytes (the last axis if none is; none for a 0-d region, treated as axis 0).
fn leading_axis(extents: &[u64]) -> usize {
    extents
        .iter()
        .position(|&n| n > 1)
        .unwrap_or(extents.len().saturating_sub(1))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::{Region, SlabBudget, SlabError, Slabs};

    const NONE: SlabBudget = SlabBudget::Target(super::DEFAULT_SLAB_BYTES);

    fn cuts(slabs: &Slabs) -> Vec<(Vec<u64>, Vec<u64>, usize)> {
        slabs
            .iter()
            .map(|s| {
                let (r, len) = s.unwrap();
                (r.start().to_vec(), r.shape().to_vec(), len)
            })
            .collect()
    }

    #[test]
    fn slabs_follow_the_chunk_grid_of_the_leading_axis() {
        // Rows 5..23 of a (30, 4) region with 4-row chunks, 8-byte elements, two chunks
        // (2 x 4 rows x 32 bytes) per slab: edges at rows 8 and 16.
        let region = Region::new(&[5, 0], &[18, 4]).unwrap();
        let slabs = Slabs::new(&region, &[4, 4], 8, SlabBudget::Bound(256)).unwrap();
        assert_eq!(slabs.max_len().unwrap(), 256);
        assert_eq!(
            cuts(&slabs),
            [
                (vec![5, 0], vec![3, 4], 96),
                (vec![8, 0], vec![8, 4], 256),
                (vec![16, 0], vec![7, 4], 224),
            ]
        );
    }

    #[test]
    fn axes_of_one_element_are_skipped_and_the_slabs_stay_contiguous() {
        // An index in the first axis: slabs cut the second, each 3 x 2 elements of 4 bytes.
        let region = Region::new(&[7, 0, 0], &[1, 6, 2]).unwrap();
        let slabs = Slabs::new(&region, &[10, 3, 2], 4, SlabBudget::Bound(24)).unwrap();
        let got = cuts(&slabs);
        assert_eq!(got.len(), 2);
        assert_eq!(got[1], (vec![7, 3, 0], vec![1, 3, 2], 24));
    }

    #[test]
    fn a_region_one_element_thick_on_axis_0_is_cut_along_axis_1_within_its_target() {
        // (1, 1000, 10) of 4-byte elements in (1, 100, 10) chunks, 8 000 bytes a slab: not one
        // slab of the whole region (40 000 bytes), but five of two chunks each.
        let region = Region::new(&[3, 0, 0], &[1, 1000, 10]).unwrap();
        let slabs = Slabs::new(&region, &[1, 100, 10], 4, SlabBudget::Target(8_000)).unwrap();
        assert_eq!(slabs.axis(), 1);
        let got = cuts(&slabs);
        assert_eq!(got.len(), 5);
        assert!(
            got.iter()
                .all(|(_, shape, len)| shape[1] == 200 && *len == 8_000)
        );
        assert_eq!(got[4].0, vec![3, 800, 0]);
    }

    #[test]
    fn a_given_memory_is_a_bound_and_the_default_a_target() {
        let region = Region::whole(&[100, 1000]).unwrap();
        // One chunk's rows take 10 x 1000 x 8 = 80 000 bytes.
        let refused = Slabs::new(&region, &[10, 1000], 8, SlabBudget::Bound(79_999)).unwrap_err();
        assert!(
            refused
                == SlabError::TooSmall {
                    bound: 79_999,
                    least: 80_000
                },
            "{refused:?}"
        );
        let lenient = Slabs::new(&region, &[10, 1000], 8, NONE).unwrap();
        assert_eq!(cuts(&lenient).len(), 1);
        let huge = Region::whole(&[4, 1 << 30]).unwrap();
        let one_row = Slabs::new(&huge, &[1, 1 << 30], 2, NONE).unwrap();
        assert_eq!(
            cuts(&one_row).len(),
            4,
            "at least one chunk's rows per slab"
        );
    }

    #[test]
    fn a_scalar_is_one_slab_and_a_short_region_fits_a_memory_under_a_chunk() {
        let scalar = Region::whole(&[]).unwrap();
        let slabs = Slabs::new(&scalar, &[], 8, SlabBudget::Bound(8)).unwrap();
        assert_eq!(cuts(&slabs), [(vec![], vec![], 8)]);
        // Three rows of 1000-row chunks: 3 x 10 x 8 bytes fit 240 bytes, a chunk's rows not.
        let short = Region::new(&[5, 0], &[3, 10]).unwrap();
        let slabs = Slabs::new(&short, &[1000, 10], 8, SlabBudget::Bound(240)).unwrap();
        assert_eq!(cuts(&slabs), [(vec![5, 0], vec![3, 10], 240)]);
        assert!(Slabs::new(&short, &[1000, 10], 8, SlabBudget::Bound(239)).is_err());
    }

    #[test]
    fn on_a_rectilinear_grid_slabs_end_on_its_edges() {
        // Rows 3..40 of chunks [0, 5, 17, 37, 45), 10 bytes a row, 150 bytes a slab: the
        // first slab stops at 17 (the edge after 5 is 14 rows on), the 20-row chunk is one
        // slab over the budget, and the last ends with the region.
        let region = Region::new(&[3, 0], &[37, 5]).unwrap();
        let edges = vec![None, Some(vec![0, 5, 17, 37, 45]), None];
        let rows = vec![Some(vec![0, 5, 17, 37, 45]), None];
        let slabs = Slabs::new(&region, &[20, 5], 2, SlabBudget::Target(150))
            .unwrap()
            .along_edges(&rows)
            .unwrap();
        assert_eq!(
            cuts(&slabs),
            [
                (vec![3, 0], vec![14, 5], 140),
                (vec![17, 0], vec![20, 5], 200),
                (vec![37, 0], vec![3, 5], 30),
            ]
        );
        assert_eq!(slabs.max_len().unwrap(), 200);
        // Edges given for another axis leave these slabs as they were.
        let regular = Slabs::new(&region, &[20, 5], 2, SlabBudget::Target(150)).unwrap();
        let same = regular.clone().along_edges(&edges).unwrap();
        assert_eq!(cuts(&regular), cuts(&same));
        // A bound under the thickest chunk met (20 rows, 200 bytes) is refused.
        let refused = Slabs::new(&region, &[20, 5], 2, SlabBudget::Bound(199))
            .and_then(|s| s.along_edges(&rows))
            .unwrap_err();
        assert_eq!(
            refused,
            SlabError::TooSmall {
                bound: 199,
                least: 200
            }
        );
        // One chunk each.
        let each = Slabs::one_chunk_each(&region, &[20, 5])
            .unwrap()
            .along_edges(&rows)
            .unwrap();
        let starts: Vec<u64> = cuts(&each).iter().map(|c| c.0[0]).collect();
        assert_eq!(starts, [3, 5, 17, 37]);
    }

    #[test]
    fn empty_regions_have_no_slabs() {
        let region = Region::new(&[0, 0], &[0, 5]).unwrap();
        let slabs = Slabs::new(&region, &[2, 5], 1, NONE).unwrap();
        assert!(cuts(&slabs).is_empty());
    }
}
