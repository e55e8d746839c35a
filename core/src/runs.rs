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
    /// Number of steps along the axis; at least 2 (axes of extent 1 are dropped).
    extent: usize,
    src_stride: usize,
    dst_stride: usize,
    /// `src_stride * (extent - 1)`: how far the source offset moves back when the axis rolls
    /// over (exactly what its steps added).
    src_span: usize,
    /// `dst_stride * (extent - 1)`, likewise.
    dst_span: usize,
}

/// Iterator over the [`Run`]s that copy a region of a chunk into a region of the output.
///
/// Axes are visited in the output's C order. Starting from the innermost, every axis whose source
/// and destination strides both equal the run length built so far is folded into the run, and
/// axes of extent 1 are dropped, so a chunk that lands contiguously in the output (whatever its
/// clipping at the array edge) is a single run. Construction does all checked arithmetic up
/// front: it bounds the largest offset any run starts at (the first run's plus every axis's
/// span) and checks that it, plus the run length, fits a `usize`; iterating then only adds a
/// stride below that bound or subtracts a span it added, so it cannot overflow.
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
    /// Runs in all (the product of the outer extents).
    count: usize,
    /// Largest source offset a run starts at; `src_max + len` fits a `usize`.
    src_max: usize,
    /// Largest destination offset a run starts at; `dst_max + len` fits a `usize`.
    dst_max: usize,
    done: bool,
}

fn to_usize(v: u64) -> Result<usize, LayoutError> {
    usize::try_from(v).map_err(|_| LayoutError::Overflow)
}

/// Byte strides of an array of `shape` whose elements are `elem` bytes and whose axes are laid
/// out in `axes` order (the fastest last), indexed by axis.
fn strides(
    elem: u64,
    shape: &[u64],
    axes: impl DoubleEndedIterator<Item = usize>,
) -> Result<[u64; MAX_DIMS], LayoutError> {
    let mut out = [0u64; MAX_DIMS];
    let mut stride = elem;
    for axis in axes.rev() {
        let (Some(slot), Some(&extent)) = (out.get_mut(axis), shape.get(axis)) else {
            return Err(LayoutError::NotAPermutation { ndim: shape.len() });
        };
        *slot = stride;
        stride = stride.checked_mul(extent).ok_or(LayoutError::Overflow)?;
    }
    Ok(out)
}

/// Bytes in an array of `shape` with `elem`-byte elements, checked to fit a `usize`.
fn byte_len(shape: &[u64], elem: u64) -> Result<usize, LayoutError> {
    to_usize(
        product(shape)?
            .checked_mul(elem)
            .ok_or(LayoutError::Overflow)?,
    )
}

/// Checks what [`Runs::new`] is given: a non-zero element size, shapes, order and regions of
/// one dimensionality, each region inside its shape, the two regions of one shape, and both
/// buffers' byte sizes within `usize`. Returns the element size as a `u64`.
fn check_layout(
    elem_size: usize,
    chunk_shape: &[u64],
    order: &MemoryOrder,
    (in_chunk, output_shape, in_output): (&Region, &[u64], &Region),
) -> Result<u64, LayoutError> {
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
    byte_len(chunk_shape, elem)?;
    byte_len(output_shape, elem)?;
    Ok(elem)
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
        let elem = check_layout(
            elem_size,
            chunk_shape,
            order,
            (in_chunk, output_shape, in_output),
        )?;
        if in_chunk.is_empty() {
            return Ok(Self {
                outer: heapless::Vec::new(),
                counter: heapless::Vec::new(),
                src: 0,
                dst: 0,
                len: 0,
                count: 0,
                src_max: 0,
                dst_max: 0,
                done: true,
            });
        }
        // Source strides from the memory order, destination strides C order.
        let src_stride = strides(elem, chunk_shape, order.axes())?;
        let dst_stride = strides(elem, output_shape, 0..chunk_shape.len())?;
        let (src, dst, mut outer) = axes(in_chunk, in_output, &src_stride, &dst_stride)?;

        // Fold contiguous inner axes into the run.
        let mut len = elem_size;
        while let Some(&axis) = outer.last() {
            if axis.src_stride == len && axis.dst_stride == len {
                len = len.checked_mul(axis.extent).ok_or(LayoutError::Overflow)?;
                outer.pop();
            } else {
                break;
            }
        }

        // The bound every later offset stays under: the first run plus every span.
        let overflow = LayoutError::Overflow;
        let (mut src_max, mut dst_max, mut count) = (src, dst, 1usize);
        for axis in &outer {
            src_max = src_max.checked_add(axis.src_span).ok_or(overflow)?;
            dst_max = dst_max.checked_add(axis.dst_span).ok_or(overflow)?;
            count = count.checked_mul(axis.extent).ok_or(overflow)?;
        }
        src_max.checked_add(len).ok_or(overflow)?;
        dst_max.checked_add(len).ok_or(overflow)?;

        let mut counter = heapless::Vec::new();
        for _ in 0..outer.len() {
            // Same capacity as `outer`.
            let _ = counter.push(0);
        }
        Ok(Self {
            outer,
            counter,
            src,
            dst,
            len,
            count,
            src_max,
            dst_max,
            done: false,
        })
    }

    /// True if the whole copy is one run: the piece is contiguous in both the chunk and the
    /// output, so a decoder can write straight into `output[dst..dst + len]`.
    pub fn is_single_run(&self) -> bool {
        !self.done && self.outer.is_empty()
    }

    /// Length in bytes of the runs the odometer steps through (0 if there is none). A run the
    /// iterator yields is this long, or a multiple of it where consecutive runs happened to
    /// continue one another (see [`Runs::run_count`]).
    pub fn run_len(&self) -> usize {
        if self.done { 0 } else { self.len }
    }

    /// Number of runs the odometer steps through, counted without iterating (0 once the
    /// iterator is exhausted). The iterator yields at most this many: runs that happen to
    /// continue one another in both the chunk and the output (in a transposed chunk, the last
    /// element of one row and the first of the next can be neighbours in both) are merged.
    pub fn run_count(&self) -> usize {
        if self.done { 0 } else { self.count }
    }
}

/// The first run's source and destination offsets, and one odometer axis for every
/// dimension with an extent above one.
fn axes(
    in_chunk: &Region,
    in_output: &Region,
    src_stride: &[u64; MAX_DIMS],
    dst_stride: &[u64; MAX_DIMS],
) -> Result<(usize, usize, heapless::Vec<Axis, MAX_DIMS>), LayoutError> {
    let overflow = LayoutError::Overflow;
    let (mut src, mut dst) = (0u64, 0u64);
    let mut outer = heapless::Vec::new();
    for ((((&cs, &os), &n), &ss), &ds) in in_chunk
        .start()
        .iter()
        .zip(in_output.start())
        .zip(in_chunk.shape())
        .zip(src_stride)
        .zip(dst_stride)
    {
        src = cs
            .checked_mul(ss)
            .and_then(|x| x.checked_add(src))
            .ok_or(overflow)?;
        dst = os
            .checked_mul(ds)
            .and_then(|x| x.checked_add(dst))
            .ok_or(overflow)?;
        if n > 1 {
            let steps = n - 1;
            let axis = Axis {
                extent: to_usize(n)?,
                src_stride: to_usize(ss)?,
                dst_stride: to_usize(ds)?,
                src_span: to_usize(ss.checked_mul(steps).ok_or(overflow)?)?,
                dst_span: to_usize(ds.checked_mul(steps).ok_or(overflow)?)?,
            };
            outer.push(axis).map_err(|_| LayoutError::TooManyDims {
                ndim: in_chunk.ndim(),
                max: MAX_DIMS,
            })?;
        }
    }
    Ok((to_usize(src)?, to_usize(dst)?, outer))
}

impl Iterator for Runs {
    type Item = Run;

    // Inlined into the copy loops of other crates (no LTO): a run can be 40 bytes, and a call
    // per run cost as much as its copy.
    #[inline]
    fn next(&mut self) -> Option<Run> {
        if self.done {
            return None;
        }
        let mut run = Run {
            src: self.src,
            dst: self.dst,
            len: self.len,
        };
        self.step();
        // Runs that continue this one in both the chunk and the output join it. `run.len` stays
        // below the distance from `run.src` to the current offset, at most `src_max`, plus
        // `len`, which `new` checked fits a `usize`.
        while !self.done && self.src == run.src + run.len && self.dst == run.dst + run.len {
            run.len += self.len;
            self.step();
        }
        Some(run)
    }
}

impl Runs {
    /// Moves the odometer to the next run's offsets, or marks the iterator done.
    #[inline]
    fn step(&mut self) {
        // Odometer over the outer axes, innermost first. None of this arithmetic can wrap:
        // - `*count + 1`: the counter is below the axis's extent, a `usize`;
        // - `+= stride`: the axis steps only while its counter is below `extent - 1`, so the
        //   new offset is at most the first run's plus every axis's span: `src_max`, which `new`
        //   checked (plus `len`) fits a `usize`;
        // - `-= span`: the axis rolls back from `extent - 1` steps, having added exactly its
        //   span on the way, so the offset stays at or above the first run's.
        let mut rolled_all = true;
        for (axis, count) in self.outer.iter().zip(self.counter.iter_mut()).rev() {
            if *count + 1 < axis.extent {
                *count += 1;
                self.src += axis.src_stride;
                self.dst += axis.dst_stride;
                rolled_all = false;
                break;
            }
            self.src -= axis.src_span;
            self.dst -= axis.dst_span;
            *count = 0;
        }
        debug_assert!(
            self.src <= self.src_max && self.dst <= self.dst_max,
            "a run offset past the bound checked in Runs::new"
        );
        self.done = rolled_all;
    }
}
