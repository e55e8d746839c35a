//! The one place with `unsafe`: several workers writing disjoint parts of one output buffer
//! whose parts interleave (for example chunks split along the last axis, whose rows alternate in
//! the output), so that `split_at_mut` cannot hand them out.
//!
//! # Invariants
//! 1. A [`DisjointOutput`] is made from a `&'a mut [u8]` and keeps that borrow for `'a`: while it
//!    lives, nothing else can read or write the buffer.
//! 2. Every slice handed out lies inside the buffer: [`DisjointOutput::slice_mut`] checks the
//!    range against the length (a failed check is an error, not undefined behaviour).
//! 3. Slices that exist at the same time never overlap. This is the caller's obligation, stated
//!    on [`DisjointOutput::slice_mut`]; zinto meets it with the layout math: the pieces of a
//!    selection are disjoint regions of the output (one per chunk), each piece is handled by one
//!    worker at a time, and the byte runs of a piece (`zinto_core::Runs`) cover exactly the bytes
//!    of its region, once each (property-tested in `core/tests/layout_reference.rs`).
//!
//! Tests of this module run under Miri (`cargo +nightly miri test -p zinto --lib disjoint`),
//! which checks the aliasing model and data races across threads.

use std::marker::PhantomData;

/// An output buffer shared by workers that write disjoint ranges of it.
#[derive(Debug)]
pub(crate) struct DisjointOutput<'a> {
    ptr: *mut u8,
    len: usize,
    _borrow: PhantomData<&'a mut [u8]>,
}

// SAFETY: the buffer is plain bytes; sending or sharing the handle between threads only lets
// them create slices of disjoint ranges (invariant 3), which is what `&mut [u8]: Send` allows
// for the halves of `split_at_mut`.
unsafe impl Send for DisjointOutput<'_> {}
// SAFETY: as above; `&DisjointOutput` only gives access through `slice_mut`, whose contract
// forbids overlapping live slices, so no two threads touch the same byte.
unsafe impl Sync for DisjointOutput<'_> {}

impl<'a> DisjointOutput<'a> {
    /// Takes the whole buffer for the lifetime of the handle (invariant 1).
    pub(crate) fn new(buf: &'a mut [u8]) -> Self {
        Self {
            ptr: buf.as_mut_ptr(),
            len: buf.len(),
            _borrow: PhantomData,
        }
    }

    /// The bytes `start..start + len` of the buffer, or `None` if they are not inside it.
    ///
    /// # Safety
    /// While the returned slice lives, no other slice obtained from this handle may overlap
    /// `start..start + len` (invariant 3).
    #[allow(clippy::mut_from_ref)] // the point of the module: disjoint &mut from a shared handle
    pub(crate) unsafe fn slice_mut(&self, start: usize, len: usize) -> Option<&mut [u8]> {
        let end = start.checked_add(len)?;
        if end > self.len {
            return None;
        }
        // SAFETY: `start..end` lies inside the buffer (checked above), which is borrowed
        // mutably for `'a` (invariant 1), so the pointer arithmetic stays in one allocation and
        // the memory is valid and initialised `u8`s. No other live slice overlaps the range by
        // the caller's contract, so this `&mut` is unique for its lifetime.
        Some(unsafe { std::slice::from_raw_parts_mut(self.ptr.add(start), len) })
    }
}

#[cfg(test)]
mod tests {
    use super::DisjointOutput;

    /// Workers write interleaved rows (like chunks split along the last axis): each byte is
    /// written by exactly one thread.
    #[test]
    fn threads_write_interleaved_disjoint_runs() {
        const ROWS: usize = 6;
        const COLS: usize = 8;
        let mut buf = vec![0u8; ROWS * COLS];
        {
            let out = DisjointOutput::new(&mut buf);
            std::thread::scope(|s| {
                for worker in 0..2u8 {
                    let out = &out;
                    s.spawn(move || {
                        // Worker 0 owns columns 0..4 of every row, worker 1 columns 4..8.
                        for row in 0..ROWS {
                            let start = row * COLS + usize::from(worker) * COLS / 2;
                            // SAFETY: the two workers' column halves never overlap, and each
                            // slice is dropped before the next is made.
                            let run = unsafe { out.slice_mut(start, COLS / 2) }.unwrap();
                            run.fill(worker + 1);
                        }
                    });
                }
            });
        }
        for row in buf.chunks(COLS) {
            assert_eq!(row, [1, 1, 1, 1, 2, 2, 2, 2]);
        }
    }

    #[test]
    fn ranges_outside_the_buffer_are_refused() {
        let mut buf = vec![0u8; 10];
        let out = DisjointOutput::new(&mut buf);
        // SAFETY: no other slice of `out` is alive.
        unsafe {
            assert!(out.slice_mut(8, 3).is_none());
            assert!(out.slice_mut(usize::MAX, 2).is_none());
            assert_eq!(out.slice_mut(8, 2).map(|s| s.len()), Some(2));
        }
    }
}
