//! Byte runs: where each contiguous piece of a decoded chunk goes in the output.

use crate::LayoutError;
use crate::order::MemoryOrder;
use crate::region::Region;
use crate::shape::{MAX_DIMS, product, same_ndim};

/// One contiguous copy: `len` bytes from `src` in the decoded chunk to `dst` in the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    /// Byte offset in the decoded chunk.
    pub src: usize,
    /// Byte offset in the output.
    pub dst: usize,
    /// Length in bytes (never zero).
    pub len: usize,
}

/// An axis of the copy that could not be merged into the run: stepped by the odometer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Axis {
    extent: usize,
    src_stride: usize,
    dst_stride: usize,
}

/// Iterator over the [`Run`]s that copy a region of a chunk into a region of the output.
///
/// Axes are visited in the output's C order. Starting from the innermost, every axis whose source
/// and destination strides both equal the run length built so far is folded into the run, and
/// axes of extent 1 are dropped, so a chunk that lands contiguously in the output (whatever its
/// clipping at the array edge) is a single run. Construction does all checked arithmetic up
/// front: every offset the iterator produces is below the chunk's and the output's byte length,
/// which were both shown to fit a `usize`.
///
/// ```
/// use zinto_core::{ChunkGrid, MemoryOrder, Region};
///
/// // A 4x6 array of u16 in 2x3 chunks; read rows 1..3, columns 2..5.
/// let grid = ChunkGrid::new(&[4, 6], &[2, 3])?;
/// let selection = Region::new(&[1, 2], &[2, 3])?;
/// let order = MemoryOrder::c(2)?;
/// let mut copies = 0;
/// for piece in grid.pieces(&selection)? {
///     for run in piece.runs(&grid, 2, &order, selection.shape())? {
///         assert!(run.dst + run.len <= 2 * 3 * 2);
///         copies += 1;
///     }
/// }
/// assert_eq!(copies, 2 * 2); // four chunks touched, each contributes a row piece
/// # Ok::<(), zinto_core::LayoutError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Runs {
    outer: heapless::Vec<Axis, MAX_DIMS>,
    counter: heapless::Vec<usize, MAX_DIMS>,
    src: usize,
    dst: usize,
    len: usize,
    done: bool,
}

fn to_usize(v: u64) -> Result<usize, LayoutError> {
    usize::try_from(v).map_err(|_| LayoutError::Overflow)
}

impl Runs {
    /// Runs copying `in_chunk` of a decoded chunk of `chunk_shape` (laid out in `order`, elements
    /// of `elem_size` bytes) into `in_output` of a C-order output of `output_shape`.
    ///
    /// # Errors
    /// [`LayoutError::ZeroElementSize`], [`LayoutError::DimsMismatch`] if any of the shapes,
    /// regions or the order disagree in dimensions, [`LayoutError::OutOfBounds`] if a region
    /// leaves its shape, [`LayoutError::ShapeMismatch`] if the two regions differ in shape, and
    /// [`LayoutError::Overflow`] if the chunk or the output does not fit in a `usize` of bytes.
    pub fn new(
        elem_size: usize,
        chunk_shape: &[u64],
        order: &MemoryOrder,
        in_chunk: &Region,
        output_shape: &[u64],
        in_output: &Region,
    ) -> Result<Self, LayoutError> {
        if elem_size == 0 {
            return Err(LayoutError::ZeroElementSize);
        }
        let ndim = chunk_shape.len();
        same_ndim(ndim, order.ndim())?;
        same_ndim(ndim, output_shape.len())?;
        in_chunk.check_within(chunk_shape)?;
        in_output.check_within(output_shape)?;
        for (dim, (&src, &dst)) in in_chunk.shape().iter().zip(in_output.shape()).enumerate() {
            if src != dst {
                return Err(LayoutError::ShapeMismatch { dim, src, dst });
            }
        }
        let elem = u64::try_from(elem_size).map_err(|_| LayoutError::Overflow)?;
        let chunk_bytes = product(chunk_shape)?
            .checked_mul(elem)
            .ok_or(LayoutError::Overflow)?;
        let output_bytes = product(output_shape)?
            .checked_mul(elem)
            .ok_or(LayoutError::Overflow)?;
        // Every offset below is bounded by one of these two, so it fits a usize too.
        to_usize(chunk_bytes)?;
        to_usize(output_bytes)?;

        let mut done = Self {
            outer: heapless::Vec::new(),
            counter: heapless::Vec::new(),
            src: 0,
            dst: 0,
            len: 0,
            done: true,
        };
        if in_chunk.is_empty() {
            return Ok(done);
        }

        // Source strides from the memory order (fastest axis last), destination strides C order.
        let mut src_stride = [0u64; MAX_DIMS];
        let mut stride = elem;
        for axis in order.axes().rev() {
            let (Some(slot), Some(&extent)) = (src_stride.get_mut(axis), chunk_shape.get(axis))
            else {
                return Err(LayoutError::NotAPermutation { ndim });
            };
            *slot = stride;
            stride = stride.saturating_mul(extent);
        }
        let mut dst_stride = [0u64; MAX_DIMS];
        let mut stride = elem;
        for (slot, &extent) in dst_stride.iter_mut().zip(output_shape).rev() {
            *slot = stride;
            stride = stride.saturating_mul(extent);
        }

        // Base offsets; each axis with an extent above one becomes an odometer axis.
        let mut src = 0u64;
        let mut dst = 0u64;
        for d in 0..ndim {
            let (Some(&cs), Some(&os), Some(&n), Some(&ss), Some(&ds)) = (
                in_chunk.start().get(d),
                in_output.start().get(d),
                in_chunk.shape().get(d),
                src_stride.get(d),
                dst_stride.get(d),
            ) else {
                return Err(LayoutError::DimsMismatch {
                    expected: ndim,
                    got: d,
                });
            };
            src = cs
                .checked_mul(ss)
                .and_then(|x| x.checked_add(src))
                .ok_or(LayoutError::Overflow)?;
            dst = os
                .checked_mul(ds)
                .and_then(|x| x.checked_add(dst))
                .ok_or(LayoutError::Overflow)?;
            if n > 1 {
                // Strides of an axis with extent > 1 are below the byte totals: they fit.
                let _ = done.outer.push(Axis {
                    extent: to_usize(n)?,
                    src_stride: to_usize(ss)?,
                    dst_stride: to_usize(ds)?,
                });
            }
        }

        // Fold contiguous inner axes into the run.
        let mut len = elem_size;
        while let Some(&axis) = done.outer.last() {
            if axis.src_stride == len && axis.dst_stride == len {
                // extent * len is at most the region's byte size, which fits.
                len = len.checked_mul(axis.extent).ok_or(LayoutError::Overflow)?;
                done.outer.pop();
            } else {
                break;
            }
        }
        for _ in 0..done.outer.len() {
            let _ = done.counter.push(0);
        }
        done.src = to_usize(src)?;
        done.dst = to_usize(dst)?;
        done.len = len;
        done.done = false;
        Ok(done)
    }

    /// True if the whole copy is one run: the piece is contiguous in both the chunk and the
    /// output, so a decoder can write straight into `output[dst..dst + len]`.
    pub fn is_single_run(&self) -> bool {
        !self.done && self.outer.is_empty()
    }

    /// Length in bytes of every run (0 if there is none).
    pub fn run_len(&self) -> usize {
        if self.done { 0 } else { self.len }
    }

    /// Number of runs in all, counted without iterating.
    pub fn run_count(&self) -> usize {
        if self.done {
            return 0;
        }
        // The product is at most the number of elements in the region, which fits.
        self.outer
            .iter()
            .fold(1usize, |acc, a| acc.saturating_mul(a.extent))
    }
}

impl Iterator for Runs {
    type Item = Run;

    fn next(&mut self) -> Option<Run> {
        if self.done {
            return None;
        }
        let run = Run {
            src: self.src,
            dst: self.dst,
            len: self.len,
        };
        // Odometer over the outer axes, innermost first. An axis steps only when its next
        // position exists, so every offset formed is one of the piece's own (below the byte
        // totals checked in `new`) and none of this arithmetic can overflow, even for chunks
        // whose size is near `usize::MAX` (stepping past the end first, then back, did: found
        // by the `layout` fuzz target).
        let mut rolled_all = true;
        for (axis, count) in self.outer.iter().zip(self.counter.iter_mut()).rev() {
            if *count + 1 < axis.extent {
                *count += 1;
                self.src += axis.src_stride;
                self.dst += axis.dst_stride;
                rolled_all = false;
                break;
            }
            self.src -= axis.src_stride * *count;
            self.dst -= axis.dst_stride * *count;
            *count = 0;
        }
        self.done = rolled_all;
        Some(run)
    }
}
