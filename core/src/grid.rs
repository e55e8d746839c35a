//! The regular chunk grid, and which chunks a selection touches.

use core::num::NonZeroU64;

use crate::LayoutError;
use crate::order::MemoryOrder;
use crate::region::Region;
use crate::runs::Runs;
use crate::shape::{Dims, dims, product, same_ndim};

/// An array cut into chunks of one fixed shape, as Zarr's `regular` chunk grid.
///
/// Chunks on the far edge of a dimension may stick out past the array: their region in the array
/// is clipped ([`ChunkGrid::chunk_region`]), but in storage they keep the full chunk shape, so the
/// byte runs of a piece are always computed against [`ChunkGrid::chunk_shape`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkGrid {
    array_shape: Dims,
    chunk_shape: Dims,
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
        let array_shape = dims(array_shape)?;
        let chunk_shape = dims(chunk_shape)?;
        let mut grid_shape = Dims::new();
        for (dim, (&a, &c)) in array_shape.iter().zip(chunk_shape.iter()).enumerate() {
            let c = NonZeroU64::new(c).ok_or(LayoutError::ZeroChunkEdge { dim })?;
            // Cannot fail: same capacity as `array_shape`.
            let _ = grid_shape.push(a.div_ceil(c.get()));
        }
        let num_chunks = product(&grid_shape)?;
        Ok(Self {
            array_shape,
            chunk_shape,
            grid_shape,
            num_chunks,
        })
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.array_shape.len()
    }

    /// Shape of the whole array.
    pub fn array_shape(&self) -> &[u64] {
        &self.array_shape
    }

    /// Shape of every chunk as stored (edge chunks included).
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
        for ((&i, &c), &a) in coords
            .iter()
            .zip(self.chunk_shape.iter())
            .zip(self.array_shape.iter())
        {
            // i < ceil(a / c), so i * c < a: no overflow, and the clip below is the true extent.
            let s = i.checked_mul(c).ok_or(LayoutError::Overflow)?;
            let _ = start.push(s);
            let _ = shape.push(c.min(a - s));
        }
        Region::new(&start, &shape)
    }

    /// Every chunk that `selection` touches, in C order of chunk coordinates, each with the part
    /// of the chunk it needs and where that part lands in the selection-shaped output.
    ///
    /// # Errors
    /// [`LayoutError::DimsMismatch`] or [`LayoutError::OutOfBounds`] if the selection is not
    /// inside the array.
    pub fn pieces<'a>(&'a self, selection: &'a Region) -> Result<Pieces<'a>, LayoutError> {
        selection.check_within(&self.array_shape)?;
        let mut first = Dims::new();
        let mut last = Dims::new();
        for ((&s, &n), &c) in selection
            .start()
            .iter()
            .zip(selection.shape())
            .zip(self.chunk_shape.iter())
        {
            // `c` is non-zero (checked in `new`); `s + n` fits (checked by `Region::new`).
            let _ = first.push(s / c);
            let _ = last.push((s + n).saturating_sub(1) / c);
        }
        let next = if selection.is_empty() {
            None
        } else {
            Some(first.clone())
        };
        Ok(Pieces {
            grid: self,
            selection,
            first,
            last,
            next,
        })
    }
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
            grid.chunk_shape(),
            order,
            &self.in_chunk,
            output_shape,
            &self.in_output,
        )
    }

    /// True if this piece is the whole chunk as stored (no edge clipping, no partial selection).
    pub fn is_whole_chunk(&self, grid: &ChunkGrid) -> bool {
        self.in_chunk.start().iter().all(|&s| s == 0) && self.in_chunk.shape() == grid.chunk_shape()
    }
}

/// Iterator over the [`Piece`]s of a selection; see [`ChunkGrid::pieces`].
#[derive(Debug, Clone)]
pub struct Pieces<'a> {
    grid: &'a ChunkGrid,
    selection: &'a Region,
    first: Dims,
    last: Dims,
    next: Option<Dims>,
}

impl Pieces<'_> {
    /// Number of chunks the selection touches (0 for an empty selection).
    ///
    /// # Errors
    /// [`LayoutError::Overflow`] if the count does not fit a `u64`.
    pub fn chunk_count(&self) -> Result<u64, LayoutError> {
        if self.selection.is_empty() {
            return Ok(0);
        }
        self.first
            .iter()
            .zip(self.last.iter())
            .try_fold(1u64, |acc, (&f, &l)| acc.checked_mul(l - f + 1))
            .ok_or(LayoutError::Overflow)
    }

    /// The `index`-th piece in iteration order (C order of chunk coordinates), without
    /// iterating: lets workers share a selection by handing out indices.
    /// `None` if `index >= chunk_count()`.
    pub fn get(&self, index: u64) -> Option<Piece> {
        if index >= self.chunk_count().ok()? {
            return None;
        }
        let mut coords = self.first.clone();
        let mut rest = index;
        for ((c, &f), &l) in coords
            .iter_mut()
            .zip(self.first.iter())
            .zip(self.last.iter())
            .rev()
        {
            let extent = l - f + 1; // last >= first for a non-empty selection
            *c = f + rest % extent;
            rest /= extent;
        }
        Some(self.piece_at(&coords))
    }

    fn piece_at(&self, chunk: &Dims) -> Piece {
        let mut c_start = Dims::new();
        let mut o_start = Dims::new();
        let mut shape = Dims::new();
        for (dim, &i) in chunk.iter().enumerate() {
            let c = self.grid.chunk_shape.get(dim).copied().unwrap_or(1);
            let sel_start = self.selection.start().get(dim).copied().unwrap_or(0);
            let sel_end = self.selection.end(dim).unwrap_or(0);
            // The chunk lies inside the grid, so i * c < array extent <= u64::MAX; its end may
            // pass u64::MAX only when it also passes the selection end, hence the saturation.
            let chunk_start = i.saturating_mul(c);
            let chunk_end = chunk_start.saturating_add(c);
            let lo = chunk_start.max(sel_start);
            let hi = chunk_end.min(sel_end);
            let _ = c_start.push(lo - chunk_start);
            let _ = o_start.push(lo - sel_start);
            let _ = shape.push(hi - lo);
        }
        // In the chunk the part ends at `hi - chunk_start <= c`; in the output at
        // `hi - sel_start <= selection extent`: both ends fit a u64.
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
        let current = self.next.take()?;
        let piece = self.piece_at(&current);
        // Advance the odometer, last dimension fastest.
        let mut coords = current;
        let mut dim = coords.len();
        loop {
            if dim == 0 {
                // Rolled over every dimension: done (also the 0-d case, a single piece).
                return Some(piece);
            }
            dim -= 1;
            let (Some(c), Some(&l), Some(&f)) =
                (coords.get_mut(dim), self.last.get(dim), self.first.get(dim))
            else {
                return Some(piece);
            };
            if *c < l {
                *c += 1;
                break;
            }
            *c = f;
        }
        self.next = Some(coords);
        Some(piece)
    }
}
