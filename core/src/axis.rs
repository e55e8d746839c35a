//! How one dimension of a chunk grid is cut: chunks of one edge ([`Axis::Regular`], Zarr's
//! `regular` grid and a rectilinear grid's bare integer), or edges given one by one or as runs
//! of equal edges ([`Axis::Runs`], zarr-extensions' `rectilinear` grid: `[10, 20, [30, 4]]`).
//!
//! Runs are kept as runs: a dimension of 2^40 chunks written as one `[edge, count]` pair is one
//! entry, never 2^40. Each run knows where its first chunk starts and which chunk it is, so
//! finding the chunk that holds a coordinate, or where a chunk starts, is a binary search over
//! the runs. Every sum is checked.

use core::num::NonZeroU64;

use crate::LayoutError;

/// `count` chunks of `edge` elements each, one after the other along a dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EdgeRun {
    /// Each chunk's edge.
    pub edge: NonZeroU64,
    /// How many chunks.
    pub count: NonZeroU64,
}

/// A run placed along its dimension: where its first chunk starts, and that chunk's index.
#[cfg(feature = "alloc")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Placed {
    run: EdgeRun,
    start: u64,
    first: u64,
}

/// The edges of one dimension as placed runs (behind `alloc`: their number is the metadata's).
#[cfg(feature = "alloc")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunTable {
    runs: alloc::sync::Arc<[Placed]>,
    /// The chunks of all runs, and the elements they cover (both fit a `u64`: checked).
    chunks: u64,
    len: u64,
}

/// How one dimension is cut into chunks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Axis {
    /// Chunks of one edge, as many as cover the dimension.
    Regular(NonZeroU64),
    /// Edges one by one, as runs of equal edges.
    #[cfg(feature = "alloc")]
    Runs(RunTable),
}

#[cfg(feature = "alloc")]
impl RunTable {
    /// The runs `runs`, in order (adjacent runs of the same edge merged).
    ///
    /// # Errors
    /// [`LayoutError::Overflow`] if the chunks or the elements they cover do not fit a `u64`;
    /// [`LayoutError::ZeroChunkEdge`] for no runs at all (`dim` names the dimension).
    pub fn new(runs: &[EdgeRun], dim: usize) -> Result<Self, LayoutError> {
        let mut placed: alloc::vec::Vec<Placed> = alloc::vec::Vec::new();
        let (mut start, mut first) = (0u64, 0u64);
        for &run in runs {
            let len = run.edge.get().checked_mul(run.count.get());
            let next = len.and_then(|l| start.checked_add(l));
            let after = first.checked_add(run.count.get());
            let (Some(next), Some(after)) = (next, after) else {
                return Err(LayoutError::Overflow);
            };
            match placed.last_mut() {
                Some(last) if last.run.edge == run.edge => {
                    // The merged count is `after - last.first`, which fits.
                    last.run.count =
                        NonZeroU64::new(after - last.first).ok_or(LayoutError::Overflow)?;
                }
                _ => placed.push(Placed { run, start, first }),
            }
            (start, first) = (next, after);
        }
        if placed.is_empty() {
            return Err(LayoutError::ZeroChunkEdge { dim });
        }
        Ok(Self {
            runs: placed.into(),
            chunks: first,
            len: start,
        })
    }

    /// The elements all edges cover.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the table covers nothing (never: a table has a run).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many runs (the metadata's pairs and edges, adjacent equal ones merged).
    pub fn run_count(&self) -> usize {
        self.runs.len()
    }

    /// The runs, in order.
    pub fn runs(&self) -> impl Iterator<Item = EdgeRun> + '_ {
        self.runs.iter().map(|p| p.run)
    }

    /// The run holding chunk `k` (`k < chunks`).
    fn run_of_chunk(&self, k: u64) -> Option<&Placed> {
        let i = self.runs.partition_point(|p| p.first <= k).checked_sub(1)?;
        self.runs.get(i).filter(|_| k < self.chunks)
    }

    /// The run holding coordinate `x` (`x < len`).
    fn run_of_coord(&self, x: u64) -> Option<&Placed> {
        let i = self.runs.partition_point(|p| p.start <= x).checked_sub(1)?;
        self.runs.get(i).filter(|_| x < self.len)
    }
}

impl Axis {
    /// Where chunk `k` starts and its edge, or `None` past the last chunk the edges give (a
    /// regular axis has no last chunk, but for one whose start overflows).
    pub fn chunk(&self, k: u64) -> Option<(u64, u64)> {
        match self {
            Self::Regular(edge) => Some((k.checked_mul(edge.get())?, edge.get())),
            #[cfg(feature = "alloc")]
            Self::Runs(t) => {
                let p = t.run_of_chunk(k)?;
                // Inside the run: (k - first) * edge < the run's length, which fits.
                let start = p.start + (k - p.first) * p.run.edge.get();
                Some((start, p.run.edge.get()))
            }
        }
    }

    /// The chunk that holds coordinate `x`, or `None` past the edges' end.
    pub fn chunk_of(&self, x: u64) -> Option<u64> {
        match self {
            Self::Regular(edge) => Some(x / edge.get()),
            #[cfg(feature = "alloc")]
            Self::Runs(t) => {
                let p = t.run_of_coord(x)?;
                Some(p.first + (x - p.start) / p.run.edge.get())
            }
        }
    }

    /// How many chunks cover `0..extent`.
    ///
    /// # Errors
    /// [`LayoutError::EdgesShort`] if the edges end before `extent` (`dim` names the dimension).
    pub fn chunks_covering(&self, extent: u64, dim: usize) -> Result<u64, LayoutError> {
        match extent {
            0 => Ok(0),
            n => self
                .chunk_of(n - 1)
                .and_then(|k| k.checked_add(1))
                .ok_or(LayoutError::EdgesShort { dim, extent }),
        }
    }

    /// The longest edge of the chunks that cover `0..extent` (at least 1): what a buffer for
    /// any one of them needs along this dimension.
    pub fn longest_edge(&self, extent: u64) -> u64 {
        match self {
            Self::Regular(edge) => {
                let _ = extent;
                edge.get()
            }
            #[cfg(feature = "alloc")]
            Self::Runs(t) => t
                .runs
                .iter()
                .take_while(|p| p.start < extent.max(1))
                .map(|p| p.run.edge.get())
                .max()
                .unwrap_or(1),
        }
    }
}

#[cfg(all(test, feature = "alloc"))]
#[allow(clippy::unwrap_used, clippy::panic)] // a panic is a failed test
mod tests {
    use super::*;

    fn run(edge: u64, count: u64) -> EdgeRun {
        EdgeRun {
            edge: NonZeroU64::new(edge).unwrap(),
            count: NonZeroU64::new(count).unwrap(),
        }
    }

    /// `[10, 20, [30, 2], 30, 5]`: lookups either way, the equal runs merged.
    #[test]
    fn runs_answer_where_a_chunk_starts_and_which_chunk_holds_a_coordinate() {
        let t = RunTable::new(
            &[run(10, 1), run(20, 1), run(30, 2), run(30, 1), run(5, 1)],
            0,
        )
        .unwrap();
        assert_eq!((t.len(), t.run_count()), (125, 4));
        let a = Axis::Runs(t);
        let starts = [(0, 10), (10, 20), (30, 30), (60, 30), (90, 30), (120, 5)];
        for (k, &want) in starts.iter().enumerate() {
            assert_eq!(a.chunk(k as u64), Some(want), "chunk {k}");
            assert_eq!(a.chunk_of(want.0), Some(k as u64));
            assert_eq!(a.chunk_of(want.0 + want.1 - 1), Some(k as u64));
        }
        assert_eq!((a.chunk(6), a.chunk_of(125)), (None, None));
        assert_eq!(a.chunks_covering(61, 0), Ok(4));
        assert_eq!(a.chunks_covering(125, 0), Ok(6));
        assert_eq!(
            a.chunks_covering(126, 0),
            Err(LayoutError::EdgesShort {
                dim: 0,
                extent: 126
            })
        );
        assert_eq!(a.longest_edge(30), 20);
        assert_eq!(a.longest_edge(125), 30);
    }

    /// 2^40 chunks as one run cost one entry; overflowing sums are refused.
    #[test]
    fn long_runs_stay_one_entry_and_overflow_is_refused() {
        let t = RunTable::new(&[run(3, 1 << 40), run(1, 1)], 0).unwrap();
        assert_eq!(t.run_count(), 2);
        let a = Axis::Runs(t);
        assert_eq!(a.chunk((1 << 40) - 1), Some((3 * ((1 << 40) - 1), 3)));
        assert_eq!(a.chunk_of(3 << 40), Some(1 << 40));
        assert_eq!(
            RunTable::new(&[run(u64::MAX, 2)], 0),
            Err(LayoutError::Overflow)
        );
        assert_eq!(
            RunTable::new(&[], 3),
            Err(LayoutError::ZeroChunkEdge { dim: 3 })
        );
    }
}
