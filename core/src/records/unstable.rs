//! Unstable in-place sort and partition of records.
//!
//! Common record sizes (multiples of 4 bytes up to 64) are sorted by the standard library's
//! pattern-defeating quicksort over `[[u8; N]]`, which needs no allocation; other sizes by a
//! heapsort over [`RecordView`]. Neither keeps more than one record aside.

use super::view::RecordView;
use super::{RecordError, RecordLayout};

/// Sorts the records in `bytes` by their key, in place. Equal keys end in no particular order.
///
/// Allocates nothing. See the [module docs](super) for the key order.
///
/// # Errors
/// [`RecordError::PartialRecord`] if `bytes` is not a whole number of records (nothing is
/// moved).
pub fn sort_records_by_key(bytes: &mut [u8], layout: &RecordLayout) -> Result<(), RecordError> {
    layout.count(bytes.len())?;
    macro_rules! fixed_sizes {
        ($($n:literal)*) => {
            match layout.record_size() {
                $($n => {
                    let (records, _) = bytes.as_chunks_mut::<$n>();
                    records.sort_unstable_by_key(|r| layout.order_key(r));
                })*
                _ => heapsort(&mut RecordView::new(bytes, layout)),
            }
        };
    }
    fixed_sizes!(4 8 12 16 20 24 28 32 36 40 44 48 52 56 60 64);
    Ok(())
}

/// Moves every record whose key orders before `pivot`'s to the front and returns how many
/// there are. `pivot` is a key in sort order ([`RecordLayout::order_key`]).
///
/// Sorting the two parts separately (on two threads, say) then sorts the whole.
///
/// # Errors
/// [`RecordError::PartialRecord`] if `bytes` is not a whole number of records.
pub fn partition_records(
    bytes: &mut [u8],
    layout: &RecordLayout,
    pivot: u64,
) -> Result<usize, RecordError> {
    let n = layout.count(bytes.len())?;
    let mut v = RecordView::new(bytes, layout);
    let (mut lo, mut hi) = (0, n);
    loop {
        while lo < hi && v.key(lo) < pivot {
            lo += 1;
        }
        while lo < hi && v.key(hi - 1) >= pivot {
            hi -= 1;
        }
        if lo >= hi {
            return Ok(lo);
        }
        v.swap(lo, hi - 1);
        lo += 1;
        hi -= 1;
    }
}

fn heapsort(v: &mut RecordView<'_>) {
    let n = v.len();
    for start in (0..n / 2).rev() {
        sift_down(v, start, n);
    }
    for end in (1..n).rev() {
        v.swap(0, end);
        sift_down(v, 0, end);
    }
}

fn sift_down(v: &mut RecordView<'_>, mut node: usize, end: usize) {
    loop {
        let mut child = 2 * node + 1;
        if child >= end {
            return;
        }
        if child + 1 < end && v.key(child) < v.key(child + 1) {
            child += 1;
        }
        if v.key(node) >= v.key(child) {
            return;
        }
        v.swap(node, child);
        node = child;
    }
}
