//! Keys rewritten in place as sort-order integers, and the sorts that work on them.
//!
//! Reading a key in its stored form costs a type and byte-order dispatch per comparison.
//! Instead, one pass rewrites every record's key field as its order integer
//! ([`RecordLayout::order_key`], a bijection) in native byte order; the sort then compares
//! plain integers; a last pass restores the original bits. Each pass touches every record
//! once, sequentially. The functions here are public so that a caller can split the work
//! (prepare, partition, sort the parts on several threads, restore); between
//! [`prepare_keys`] and [`restore_keys`] the key fields hold order integers, not the data.

use super::view::RecordView;

use super::{RecordError, RecordLayout};

/// Rewrites every record's key as its order integer, native byte order. Undo with
/// [`restore_keys`].
///
/// # Errors
/// [`RecordError::PartialRecord`] if `bytes` is not a whole number of records (nothing is
/// changed).
pub fn prepare_keys(bytes: &mut [u8], layout: &RecordLayout) -> Result<(), RecordError> {
    layout.count(bytes.len())?;
    for record in bytes.chunks_exact_mut(layout.record_size()) {
        layout.prepare(record)?;
    }
    Ok(())
}

/// Restores the keys [`prepare_keys`] rewrote.
///
/// # Errors
/// [`RecordError::PartialRecord`] if `bytes` is not a whole number of records.
pub fn restore_keys(bytes: &mut [u8], layout: &RecordLayout) -> Result<(), RecordError> {
    layout.count(bytes.len())?;
    for record in bytes.chunks_exact_mut(layout.record_size()) {
        layout.restore(record)?;
    }
    Ok(())
}

/// Sorts prepared records by key, unstable, in place; allocates nothing.
///
/// Record sizes that are multiples of 4 up to 64 bytes go to the standard library's
/// pattern-defeating quicksort over `[[u8; N]]`; others to a heapsort. Neither keeps more
/// than one record aside. (An in-place MSD radix sort was tried here: no faster on 10 million
/// 24-byte records, so not kept.)
///
/// # Errors
/// [`RecordError::PartialRecord`] if `bytes` is not a whole number of records.
pub fn sort_prepared(bytes: &mut [u8], layout: &RecordLayout) -> Result<(), RecordError> {
    layout.count(bytes.len())?;
    dispatch(bytes, layout, Sort)
}

/// An operation on prepared records, specialised for fixed record sizes.
trait FixedOp {
    type Output;
    /// On `[[u8; N]]`, reading keys with `key`.
    fn fixed<const N: usize>(
        self,
        records: &mut [[u8; N]],
        key: impl Fn(&[u8; N]) -> u64 + Copy,
    ) -> Result<Self::Output, RecordError>;
    /// On any record size.
    fn any(self, records: &mut RecordView<'_>) -> Result<Self::Output, RecordError>;
}

/// Runs `op` on `bytes` (a whole number of records) as `[[u8; N]]` when the record size is a
/// multiple of 4 up to 64, else on a [`RecordView`]. The key offset stays a run-time value but
/// its width does not: one load per key.
fn dispatch<O: FixedOp>(
    bytes: &mut [u8],
    layout: &RecordLayout,
    op: O,
) -> Result<O::Output, RecordError> {
    fn with_key<const N: usize, O: FixedOp>(
        bytes: &mut [u8],
        layout: &RecordLayout,
        op: O,
    ) -> Result<O::Output, RecordError> {
        let (records, rest) = bytes.as_chunks_mut::<N>();
        let at = layout.key_offset();
        let width = layout.key_type().width();
        // `RecordLayout::new` checked both (the key inside the record, `N` its size, `bytes`
        // whole records); checked again here, once, because the key closures below cannot
        // return an error: with these two facts their fallback value is never produced.
        if !rest.is_empty() || at.checked_add(width).is_none_or(|end| end > N) {
            return Err(RecordError::Internal {
                what: "the fixed-size sort was given a layout or buffer that does not fit it",
            });
        }
        if width == 4 {
            op.fixed(records, move |r: &[u8; N]| {
                let field = r.get(at..).and_then(<[u8]>::first_chunk::<4>);
                debug_assert!(field.is_some(), "key field checked to fit in a record");
                field.map_or(0, |b| u64::from(u32::from_ne_bytes(*b)))
            })
        } else {
            op.fixed(records, move |r: &[u8; N]| {
                let field = r.get(at..).and_then(<[u8]>::first_chunk::<8>);
                debug_assert!(field.is_some(), "key field checked to fit in a record");
                field.map_or(0, |b| u64::from_ne_bytes(*b))
            })
        }
    }
    macro_rules! fixed_sizes {
        ($($n:literal)*) => {
            match layout.record_size() {
                $($n => with_key::<$n, O>(bytes, layout, op),)*
                _ => op.any(&mut RecordView::new(bytes, layout)?),
            }
        };
    }
    fixed_sizes!(4 8 12 16 20 24 28 32 36 40 44 48 52 56 60 64)
}

struct Sort;

impl FixedOp for Sort {
    type Output = ();
    fn fixed<const N: usize>(
        self,
        records: &mut [[u8; N]],
        key: impl Fn(&[u8; N]) -> u64 + Copy,
    ) -> Result<(), RecordError> {
        records.sort_unstable_by_key(key);
        Ok(())
    }
    fn any(self, records: &mut RecordView<'_>) -> Result<(), RecordError> {
        heapsort(records)
    }
}

struct Partition {
    pivot: u64,
}

impl FixedOp for Partition {
    type Output = usize;
    fn fixed<const N: usize>(
        self,
        records: &mut [[u8; N]],
        key: impl Fn(&[u8; N]) -> u64 + Copy,
    ) -> Result<usize, RecordError> {
        hoare_partition(&mut Fixed { records, key }, self.pivot)
    }
    fn any(self, records: &mut RecordView<'_>) -> Result<usize, RecordError> {
        hoare_partition(records, self.pivot)
    }
}

/// Records that can be compared by key and swapped by index. An index past the end is a bug
/// in the algorithm, reported as [`RecordError::Internal`].
trait Keyed {
    fn len(&self) -> usize;
    fn key(&self, i: usize) -> Result<u64, RecordError>;
    fn swap(&mut self, i: usize, j: usize) -> Result<(), RecordError>;
}

/// What [`Fixed`] reports for an index past the end (a bug).
const FIXED_OUT_OF_RANGE: RecordError = RecordError::Internal {
    what: "a record index past the end of the buffer",
};

struct Fixed<'a, const N: usize, K> {
    records: &'a mut [[u8; N]],
    key: K,
}

impl<const N: usize, K: Fn(&[u8; N]) -> u64> Keyed for Fixed<'_, N, K> {
    fn len(&self) -> usize {
        self.records.len()
    }
    fn key(&self, i: usize) -> Result<u64, RecordError> {
        self.records.get(i).map(&self.key).ok_or(FIXED_OUT_OF_RANGE)
    }
    fn swap(&mut self, i: usize, j: usize) -> Result<(), RecordError> {
        if i.max(j) >= self.records.len() {
            return Err(FIXED_OUT_OF_RANGE);
        }
        self.records.swap(i, j);
        Ok(())
    }
}

impl Keyed for RecordView<'_> {
    fn len(&self) -> usize {
        RecordView::len(self)
    }
    fn key(&self, i: usize) -> Result<u64, RecordError> {
        RecordView::key(self, i)
    }
    fn swap(&mut self, i: usize, j: usize) -> Result<(), RecordError> {
        RecordView::swap(self, i, j)
    }
}

/// Keys below `pivot` to the front, by swapping from both ends; returns how many.
fn hoare_partition(v: &mut impl Keyed, pivot: u64) -> Result<usize, RecordError> {
    let (mut lo, mut hi) = (0, v.len());
    loop {
        while lo < hi && v.key(lo)? < pivot {
            lo += 1;
        }
        while lo < hi && v.key(hi - 1)? >= pivot {
            hi -= 1;
        }
        if lo >= hi {
            return Ok(lo);
        }
        v.swap(lo, hi - 1)?;
        lo += 1;
        hi -= 1;
    }
}

/// Moves every prepared record whose key is less than `pivot` (an order integer) to the front
/// and returns how many there are. Sorting the two parts separately then sorts the whole.
///
/// # Errors
/// [`RecordError::PartialRecord`] if `bytes` is not a whole number of records.
pub fn partition_prepared(
    bytes: &mut [u8],
    layout: &RecordLayout,
    pivot: u64,
) -> Result<usize, RecordError> {
    layout.count(bytes.len())?;
    dispatch(bytes, layout, Partition { pivot })
}

/// The order integer of a prepared record's key (what [`partition_prepared`] compares).
///
/// # Errors
/// [`RecordError::NotOneRecord`] unless `record` is exactly one record long.
pub fn prepared_key(record: &[u8], layout: &RecordLayout) -> Result<u64, RecordError> {
    layout.check_one(record)?;
    layout.prepared_key(record)
}

fn heapsort(v: &mut RecordView<'_>) -> Result<(), RecordError> {
    let n = v.len();
    for start in (0..n / 2).rev() {
        sift_down(v, start, n)?;
    }
    for end in (1..n).rev() {
        v.swap(0, end)?;
        sift_down(v, 0, end)?;
    }
    Ok(())
}

fn sift_down(v: &mut RecordView<'_>, mut node: usize, end: usize) -> Result<(), RecordError> {
    loop {
        // node < end <= len <= isize::MAX (a slice holds at most isize::MAX bytes and a record
        // is at least one), so 2 * node + 2 fits a usize.
        let mut child = 2 * node + 1;
        if child >= end {
            return Ok(());
        }
        if child + 1 < end && v.key(child)? < v.key(child + 1)? {
            child += 1;
        }
        if v.key(node)? >= v.key(child)? {
            return Ok(());
        }
        v.swap(node, child)?;
        node = child;
    }
}
