//! The chunk grid, regular or rectilinear, and which chunks a selection touches.

use core::num::NonZeroU64;

use crate::LayoutError;
use crate::axis::Axis;
use crate::order::MemoryOrder;
use crate::region::Region;
use crate::runs::Runs;
use crate::shape::{Dims, MAX_DIMS, dims, product, same_ndim};

/// An array cut into chunks: of one fixed shape, as Zarr's `regular` chunk grid, or with edges
/// of their own along each dimension, as zarr-extensions' `rectilinear` grid ([`Axis`]).
///
/// Chunks on the far edge of a dimension may stick out past the array: their region in the array
/// is clipped ([`ChunkGrid::chunk_region`]), but in storage they keep their full shape
/// ([`ChunkGrid::chunk_shape_at`]), against which the byte runs of a piece are computed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkGrid {
    array_shape: Dims,
    axes: heapless::Vec<Axis, MAX_DIMS>,
    /// The chunk shape of a regular grid; of a rectilinear one, the longest edge along each
    /// dimension among the chunks that cover the array.
    chunk_shape: Dims,
    regular: bool,
    grid_shape: Dims,
    num_chunks: u64,
}

impl ChunkGrid {
    /// A grid over an array of `array_shape` with chunks of `chunk_shape`.
    ///
    /// # Errors
    /// [`LayoutError::DimsMismatch`] if the shapes differ in length, [`LayoutError::ZeroChunkEdge`]
    /// for a zero chunk edge, [`LayoutError::TooManyDims`] past [`MAX_DIMS`](crate::MAX_DIMS), and
    /// [`LayoutError::Overflow`] if the number of chunks does not fit a `u64`.
    pub fn new(array_shape: &[u64], chunk_shape: &[u64]) -> Result<Self, LayoutError> {
        same_ndim(array_shape.len(), chunk_shape.len())?;
        let mut axes = heapless::Vec::<Axis, MAX_DIMS>::new();
        for (dim, &c) in chunk_shape.iter().enumerate() {
            let c = NonZeroU64::new(c).ok_or(LayoutError::ZeroChunkEdge { dim })?;
            axes.push(Axis::Regular(c))
                .map_err(|_| LayoutError::TooManyDims {
                    ndim: chunk_shape.len(),
                    max: MAX_DIMS,
                })?;
        }
        Self::with_axes(array_shape, &axes)
    }

    /// A grid over an array of `array_shape` cut along each dimension as `axes` says (a
    /// `rectilinear` grid, or a regular one).
    ///
    /// # Errors
    /// [`LayoutError::DimsMismatch`], [`LayoutError::TooManyDims`],
    /// [`LayoutError::EdgesShort`] where edges end before the array does, and
    /// [`LayoutError::Overflow`] if the number of chunks does not fit a `u64`.
    pub fn with_axes(array_shape: &[u64], axes: &[Axis]) -> Result<Self, LayoutError> {
        same_ndim(array_shape.len(), axes.len())?;
        let array_shape = dims(array_shape)?;
        let (mut grid_shape, mut chunk_shape) = (Dims::new(), Dims::new());
        for (dim, (&a, axis)) in array_shape.iter().zip(axes).enumerate() {
            // Cannot fail: same capacity as `array_shape`.
            let _ = grid_shape.push(axis.chunks_covering(a, dim)?);
            let _ = chunk_shape.push(axis.longest_edge(a));
        }
        let num_chunks = product(&grid_shape)?;
        Ok(Self {
            array_shape,
            axes: axes.iter().cloned().collect(),
            chunk_shape,
            regular: axes.iter().all(|a| matches!(a, Axis::Regular(_))),
            grid_shape,
            num_chunks,
        })
    }

    /// Whether every chunk has one shape ([`Self::chunk_shape`]).
    pub fn is_regular(&self) -> bool {
        self.regular
    }

    /// How each dimension is cut.
    pub fn axes(&self) -> &[Axis] {
        &self.axes
    }

    /// The shape of the chunk at `coords` as stored (an edge chunk's full shape).
    ///
    /// # Errors
    /// [`LayoutError::DimsMismatch`] or [`LayoutError::ChunkOutOfGrid`].
    pub fn chunk_shape_at(&self, coords: &[u64]) -> Result<Dims, LayoutError> {
        self.check_coords(coords)?;
        coords
            .iter()
            .zip(self.axes.iter())
            .map(|(&k, axis)| axis.chunk(k).map(|c| c.1).ok_or(LayoutError::Overflow))
            .collect()
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.array_shape.len()
    }

    /// Shape of the whole array.
    pub fn array_shape(&self) -> &[u64] {
        &self.array_shape
    }

    /// Shape of every chunk as stored (edge chunks included), for a regular grid. For a
    /// rectilinear one ([`Self::is_regular`] false), the longest edge along each dimension
    /// among the chunks covering the array: what a buffer for any one chunk needs. A chunk's
    /// own shape is [`Self::chunk_shape_at`].
    pub fn chunk_shape(&self) -> &[u64] {
        &self.chunk_shape
    }

    /// Number of chunks along each dimension.
    pub fn grid_shape(&self) -> &[u64] {
        &self.grid_shape
    }

    /// Number of chunks in all (1 for a 0-d array, 0 if any dimension has length 0).
    pub fn num_chunks(&self) -> u64 {
        self.num_chunks
    }

    fn check_coords(&self, coords: &[u64]) -> Result<(), LayoutError> {
        same_ndim(self.ndim(), coords.len())?;
        for (dim, (&i, &count)) in coords.iter().zip(self.grid_shape.iter()).enumerate() {
            if i >= count {
                return Err(LayoutError::ChunkOutOfGrid {
                    dim,
                    index: i,
                    count,
                });
            }
        }
        Ok(())
    }

    /// The C-order linear index of the chunk at `coords`.
    ///
    /// # Errors
    /// [`LayoutError::DimsMismatch`] or [`LayoutError::ChunkOutOfGrid`].
    pub fn linear_index(&self, coords: &[u64]) -> Result<u64, LayoutError> {
        self.check_coords(coords)?;
        let mut index = 0u64;
        for (&i, &count) in coords.iter().zip(self.grid_shape.iter()) {
            // Bounded by `num_chunks`, which fits: checked anyway.
            index = index
                .checked_mul(count)
                .and_then(|x| x.checked_add(i))
                .ok_or(LayoutError::Overflow)?;
        }
        Ok(index)
    }

    /// The chunk coordinates of C-order linear `index`: the inverse of [`Self::linear_index`].
    ///
    /// # Errors
    /// [`LayoutError::ChunkOutOfGrid`] if `index >= num_chunks()`.
    pub fn chunk_coords(&self, index: u64) -> Result<Dims, LayoutError> {
        if index >= self.num_chunks {
            return Err(LayoutError::ChunkOutOfGrid {
                dim: 0,
                index,
                count: self.num_chunks,
            });
        }
        let mut coords = Dims::new();
        let mut rest = index;
        for &count in self.grid_shape.iter().rev() {
            // `count` is non-zero here: `num_chunks` > index >= 0 means no extent is zero.
            let count = NonZeroU64::new(count).ok_or(LayoutError::Overflow)?;
            let _ = coords.push(rest % count);
            rest /= count;
        }
        coords.reverse();
        Ok(coords)
    }

    /// The region of the array that the chunk at `coords` covers, clipped to the array.
    ///
    /// # Errors
    /// [`LayoutError::DimsMismatch`] or [`LayoutError::ChunkOutOfGrid`].
    pub fn chunk_region(&self, coords: &[u64]) -> Result<Region, LayoutError> {
        self.check_coords(coords)?;
        let mut start = Dims::new();
        let mut shape = Dims::new();
        for ((&i, axis), &a) in coords
            .iter()
            .zip(self.axes.iter())
            .zip(self.array_shape.iter())
        {
            // i < the chunks covering `a`, so the chunk starts before `a`: the clip below is
            // the true extent.
            let (s, c) = axis.chunk(i).ok_or(LayoutError::Overflow)?;
            let _ = start.push(s);
            let _ = shape.push(c.min(a.saturating_sub(s)));
        }
        Region::new(&start, &shape)
    }

    /// Every chunk that `selection` touches, in C order of chunk coordinates, each with the part
    /// of the chunk it needs and where that part lands in the selection-shaped output.
    ///
    /// Everything the iterator computes later is bounded here, with checked arithmetic: the
    /// selection's end and the chunks it touches along each dimension, and their count.
    ///
    /// # Errors
    /// [`LayoutError::DimsMismatch`] or [`LayoutError::OutOfBounds`] if the selection is not
    /// inside the array; [`LayoutError::Overflow`] if its end or its chunk count does not fit a
    /// `u64` (neither can for a selection that is inside the array).
    pub fn pieces<'a>(&'a self, selection: &'a Region) -> Result<Pieces<'a>, LayoutError> {
        selection.check_within(&self.array_shape)?;
        let overflow = LayoutError::Overflow;
        let mut bounds = heapless::Vec::new();
        for (dim, ((&start, &n), axis)) in selection
            .start()
            .iter()
            .zip(selection.shape())
            .zip(self.axes.iter())
            .enumerate()
        {
            let end = start.checked_add(n).ok_or(overflow)?;
            // Inside the array, which the axes cover: both are chunks of the grid.
            let (first, last) = if n == 0 {
                (0, 0)
            } else {
                let of = |x: u64| {
                    axis.chunk_of(x)
                        .ok_or(LayoutError::EdgesShort { dim, extent: x })
                };
                (of(start)?, of(end - 1)?)
            };
            // Chunks touched along `dim`; only read when the selection is not empty, when
            // end - 1 >= start and so last >= first.
            let count = last
                .saturating_sub(first)
                .checked_add(1)
                .and_then(NonZeroU64::new)
                .ok_or(overflow)?;
            let bound = SelectionDim {
                start,
                end,
                first,
                last,
                count,
            };
            bounds.push(bound).map_err(|_| LayoutError::TooManyDims {
                ndim: self.ndim(),
                max: MAX_DIMS,
            })?;
        }
        // At most `num_chunks`, which fits a u64; checked anyway.
        let count = if selection.is_empty() {
            0
        } else {
            bounds
                .iter()
                .try_fold(1u64, |acc, b| acc.checked_mul(b.count.get()))
                .ok_or(overflow)?
        };
        let next = (count > 0).then(|| bounds.iter().map(|b| b.first).collect());
        Ok(Pieces {
            grid: self,
            bounds,
            count,
            next,
        })
    }
}

/// What [`Pieces`] needs to know of the selection along one dimension, computed (with checked
/// arithmetic) once in [`ChunkGrid::pieces`].
#[derive(Debug, Clone)]
struct SelectionDim {
    /// The selection's first coordinate.
    start: u64,
    /// One past its last coordinate (fits: `Region` checked it).
    end: u64,
    /// First chunk touched: the one holding `start`.
    first: u64,
    /// Last chunk touched: the one holding `end - 1`.
    last: u64,
    /// `last - first + 1`.
    count: NonZeroU64,
}

/// The part of one chunk that a selection needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// Coordinates of the chunk in the grid.
    pub chunk: Dims,
    /// The needed part, in coordinates inside the chunk.
    pub in_chunk: Region,
    /// Where that part lands, in coordinates inside the selection-shaped output.
    pub in_output: Region,
}

impl Piece {
    /// The byte runs that copy this piece from a decoded chunk (of `grid.chunk_shape()`, laid out
    /// in `order`, elements of `elem_size` bytes) into a C-order output of `output_shape`.
    ///
    /// # Errors
    /// As [`Runs::new`].
    pub fn runs(
        &self,
        grid: &ChunkGrid,
        elem_size: usize,
        order: &MemoryOrder,
        output_shape: &[u64],
    ) -> Result<Runs, LayoutError> {
        Runs::new(
            elem_size,
            &grid.chunk_shape_at(&self.chunk)?,
            order,
            &self.in_chunk,
            output_shape,
            &self.in_output,
        )
    }

    /// True if this piece is the whole chunk as stored (no edge clipping, no partial selection).
    pub fn is_whole_chunk(&self, grid: &ChunkGrid) -> bool {
        self.in_chunk.start().iter().all(|&s| s == 0)
            && grid
                .chunk_shape_at(&self.chunk)
                .is_ok_and(|shape| self.in_chunk.shape() == shape.as_slice())
    }
}

/// Iterator over the [`Piece`]s of a selection; see [`ChunkGrid::pieces`].
#[derive(Debug, Clone)]
pub struct Pieces<'a> {
    /// The grid the pieces are of (where each chunk starts and ends).
    grid: &'a ChunkGrid,
    bounds: heapless::Vec<SelectionDim, MAX_DIMS>,
    /// Pieces in all (0 for an empty selection).
    count: u64,
    next: Option<Dims>,
}

impl Pieces<'_> {
    /// Number of chunks the selection touches (0 for an empty selection).
    ///
    /// # Errors
    /// None: the count was checked to fit a `u64` when the iterator was built (it is at most
    /// the grid's [`num_chunks`](ChunkGrid::num_chunks)).
    pub fn chunk_count(&self) -> Result<u64, LayoutError> {
        Ok(self.count)
    }

    /// The `index`-th piece in iteration order (C order of chunk coordinates), without
    /// iterating: lets workers share a selection by handing out indices.
    /// `None` if `index >= chunk_count()`.
    pub fn get(&self, index: u64) -> Option<Piece> {
        if index >= self.count {
            return None;
        }
        let mut coords = Dims::new();
        let mut rest = index;
        for b in self.bounds.iter().rev() {
            // first + (rest % count) <= first + count - 1 == last: no overflow.
            let _ = coords.push(b.first + rest % b.count);
            rest /= b.count;
        }
        coords.reverse();
        Some(self.piece_at(&coords))
    }

    /// The piece of the chunk at `chunk`, whose coordinates lie between `first` and `last` in
    /// every dimension (the iterator and [`Self::get`] form no others).
    fn piece_at(&self, chunk: &Dims) -> Piece {
        let mut c_start = Dims::new();
        let mut o_start = Dims::new();
        let mut shape = Dims::new();
        for ((&i, b), axis) in chunk
            .iter()
            .zip(self.bounds.iter())
            .zip(self.grid.axes.iter())
        {
            debug_assert!(b.first <= i && i <= b.last, "chunk {i} outside {b:?}");
            // i <= last, the chunk holding end - 1, so it starts at or before end - 1 (the
            // lookup cannot fail). The chunk's end may pass u64::MAX only when it also passes
            // the selection's end, so saturating it leaves `hi` exact.
            let looked_up = axis.chunk(i);
            debug_assert!(looked_up.is_some(), "chunk {i} of {b:?} has no place");
            let (chunk_start, c) = looked_up.unwrap_or((b.start, 1));
            let chunk_end = chunk_start.saturating_add(c);
            let lo = chunk_start.max(b.start);
            let hi = chunk_end.min(b.end);
            // i >= first = start / c gives chunk_end > start, and chunk_start < end: the
            // chunk overlaps the selection, so chunk_start, start <= lo < hi.
            debug_assert!(lo < hi, "chunk {i} does not overlap {b:?}");
            let _ = c_start.push(lo - chunk_start);
            let _ = o_start.push(lo - b.start);
            let _ = shape.push(hi - lo);
        }
        // In the chunk the part ends at `hi - chunk_start <= c`; in the output at
        // `hi - start <= selection extent`: both ends fit a u64.
        Piece {
            chunk: chunk.clone(),
            in_chunk: Region::from_parts(c_start, shape.clone()),
            in_output: Region::from_parts(o_start, shape),
        }
    }
}

impl Iterator for Pieces<'_> {
    type Item = Piece;

    fn next(&mut self) -> Option<Piece> {
        let mut coords = self.next.take()?;
        let piece = self.piece_at(&coords);
        // Advance the odometer, last dimension fastest; rolling over every dimension (also
        // the 0-d case, a single piece) ends the iteration.
        for (c, b) in coords.iter_mut().zip(self.bounds.iter()).rev() {
            if *c < b.last {
                *c += 1; // below `last`, a u64
                self.next = Some(coords);
                return Some(piece);
            }
            *c = b.first;
        }
        Some(piece)
    }
}

#[cfg(all(test, feature = "alloc"))]
#[allow(clippy::unwrap_used, clippy::panic)] // a panic is a failed test
mod tests {
    extern crate std;
    use super::*;
    use crate::axis::{EdgeRun, RunTable};
    use proptest::prelude::*;
    use std::vec::Vec;

    /// Edges as runs (a bare integer: a regular axis).
    fn axis(edges: &[(u64, u64)]) -> Axis {
        if let [(edge, 0)] = edges {
            return Axis::Regular(NonZeroU64::new(*edge).unwrap());
        }
        let runs: Vec<EdgeRun> = edges
            .iter()
            .map(|&(e, c)| EdgeRun {
                edge: NonZeroU64::new(e).unwrap(),
                count: NonZeroU64::new(c).unwrap(),
            })
            .collect();
        Axis::Runs(RunTable::new(&runs, 0).unwrap())
    }

    /// The chunk holding `x` and where it starts, by walking the edges one by one.
    fn model(edges: &[(u64, u64)], x: u64) -> (u64, u64, u64) {
        if let [(edge, 0)] = edges {
            return (x / edge, x / edge * edge, *edge);
        }
        let (mut k, mut start) = (0, 0);
        for &(e, c) in edges {
            for _ in 0..c {
                if x < start + e {
                    return (k, start, e);
                }
                (k, start) = (k + 1, start + e);
            }
        }
        panic!("{x} past the edges")
    }

    fn edges() -> impl Strategy<Value = Vec<(u64, u64)>> {
        prop_oneof![
            (1u64..6).prop_map(|e| std::vec![(e, 0)]),
            prop::collection::vec((1u64..6, 1u64..4), 1..5),
        ]
    }

    proptest! {
        /// Over rectilinear and regular axes alike, every element of a selection lies in the
        /// piece of the chunk the model finds for it, at the model's place in the chunk, and
        /// the pieces cover the selection exactly once.
        #[test]
        fn pieces_of_a_rectilinear_grid_are_the_models(
            dims in prop::collection::vec((edges(), 0u64..8, 0u64..8), 1..3),
        ) {
            // The array ends where its edges do (or inside, by the second draw).
            let shape: Vec<u64> = dims.iter().map(|(e, cut, _)| {
                let total: u64 = e.iter().map(|&(a, c)| a * c.max(1)).sum();
                total.saturating_sub(*cut % total.max(1)).max(1)
            }).collect();
            let axes: Vec<Axis> = dims.iter().map(|(e, _, _)| axis(e)).collect();
            let grid = ChunkGrid::with_axes(&shape, &axes).unwrap();
            let start: Vec<u64> = dims.iter().zip(&shape).map(|((_, _, s), &n)| s % n).collect();
            let extent: Vec<u64> = start.iter().zip(&shape).map(|(&s, &n)| n - s).collect();
            let sel = Region::new(&start, &extent).unwrap();
            let mut covered = 0u64;
            for piece in grid.pieces(&sel).unwrap() {
                let cshape = grid.chunk_shape_at(&piece.chunk).unwrap();
                for d in 0..shape.len() {
                    let (k, cstart, edge) = model(&dims[d].0, start[d] + piece.in_output.start()[d]);
                    prop_assert_eq!(piece.chunk[d], k);
                    prop_assert_eq!(cshape[d], edge);
                    prop_assert_eq!(cstart + piece.in_chunk.start()[d], start[d] + piece.in_output.start()[d]);
                    prop_assert!(piece.in_chunk.start()[d] + piece.in_chunk.shape()[d] <= edge);
                }
                covered += piece.in_output.shape().iter().product::<u64>();
            }
            prop_assert_eq!(covered, extent.iter().product::<u64>());
        }
    }
}
