//! Stable in-place sort of records with a scratch buffer of any size the caller chooses.
//!
//! A top-down merge sort. Each merge of two sorted neighbours that are already in order costs
//! one comparison (so runs that arrive sorted, such as concatenated sorted chunks, are cheap);
//! otherwise the smaller side is copied to the scratch and merged back when it fits, or the
//! merge is split in two by binary search and a rotation when it does not (O(n log² n) with no
//! scratch at all, O(n log n) when the scratch holds half the records).

use super::prepared::{prepare_keys, restore_keys};
use super::view::RecordView;
use super::{RecordError, RecordLayout};

/// Ranges this short are sorted by binary insertion.
const INSERTION_LEN: usize = 16;

/// Sorts the records in `bytes` by their key, in place, keeping records with equal keys in
/// their original order.
///
/// `scratch` is working space the caller owns: any length (whole records of it are used, so
/// less than one record means none). Allocates nothing. With no scratch, merging is by
/// rotation: correct but slower on large unsorted inputs; a scratch of half the buffer makes
/// every merge a single copy-and-merge pass.
///
/// # Errors
/// [`RecordError::PartialRecord`] if `bytes` is not a whole number of records (nothing is
/// moved).
pub fn sort_records_by_key_stable(
    bytes: &mut [u8],
    layout: &RecordLayout,
    scratch: &mut [u8],
) -> Result<(), RecordError> {
    let n = layout.count(bytes.len())?;
    prepare_keys(bytes, layout)?;
    let mut v = RecordView::new(bytes, layout)?;
    sort(&mut v, 0, n, scratch)?;
    restore_keys(bytes, layout)
}

fn sort(
    v: &mut RecordView<'_>,
    from: usize,
    to: usize,
    scratch: &mut [u8],
) -> Result<(), RecordError> {
    if to - from <= INSERTION_LEN {
        return insertion_sort(&mut v.sub(from, to)?);
    }
    let mid = from + (to - from) / 2;
    sort(v, from, mid, scratch)?;
    sort(v, mid, to, scratch)?;
    merge(&mut v.sub(from, to)?, mid - from, scratch)
}

fn insertion_sort(v: &mut RecordView<'_>) -> Result<(), RecordError> {
    let size = v.size();
    for i in 1..v.len() {
        let key = v.key(i)?;
        let at = upper_bound(v, 0, i, key)?;
        if at < i {
            // `at..=i` is at least two records long: rotating by one record is in range.
            v.range_mut(at, i + 1)?.rotate_right(size);
        }
    }
    Ok(())
}

/// First index in `from..to` whose key is greater than `key`.
fn upper_bound(
    v: &RecordView<'_>,
    mut from: usize,
    mut to: usize,
    key: u64,
) -> Result<usize, RecordError> {
    while from < to {
        let mid = from + (to - from) / 2;
        if v.key(mid)? <= key {
            from = mid + 1;
        } else {
            to = mid;
        }
    }
    Ok(from)
}

/// First index in `from..to` whose key is not less than `key`.
fn lower_bound(
    v: &RecordView<'_>,
    mut from: usize,
    mut to: usize,
    key: u64,
) -> Result<usize, RecordError> {
    while from < to {
        let mid = from + (to - from) / 2;
        if v.key(mid)? < key {
            from = mid + 1;
        } else {
            to = mid;
        }
    }
    Ok(from)
}

/// Merges sorted `v[..mid]` and `v[mid..]`, stably.
fn merge(v: &mut RecordView<'_>, mid: usize, scratch: &mut [u8]) -> Result<(), RecordError> {
    let n = v.len();
    if mid == 0 || mid == n || v.key(mid - 1)? <= v.key(mid)? {
        return Ok(());
    }
    let size = v.size();
    let (left, right) = (mid, n - mid);
    // The smaller side, if the scratch holds it, is copied out whole and merged back. Cutting
    // the scratch to exactly that side is the test, so the buffered merges get a buffer of
    // the right size by construction.
    let smaller = left.min(right).checked_mul(size);
    if let Some(buf) = smaller.and_then(|len| scratch.get_mut(..len)) {
        return if left <= right {
            merge_left_buffered(v, mid, buf)
        } else {
            merge_right_buffered(v, mid, buf)
        };
    }
    // Split: a cut in the longer side, its partner found by binary search, the middle rotated.
    let (cut_left, cut_right) = if left >= right {
        let cut_left = left / 2;
        (cut_left, lower_bound(v, mid, n, v.key(cut_left)?)?)
    } else {
        let cut_right = mid + right / 2;
        (upper_bound(v, 0, mid, v.key(cut_right)?)?, cut_right)
    };
    // cut_left <= mid <= cut_right (each cut is searched for on its own side of `mid`), so
    // the rotation stays inside the range.
    v.range_mut(cut_left, cut_right)?
        .rotate_left((mid - cut_left) * size);
    let new_mid = cut_left + (cut_right - mid);
    merge(&mut v.sub(0, new_mid)?, cut_left, scratch)?;
    merge(&mut v.sub(new_mid, n)?, cut_right - new_mid, scratch)
}

/// Left side copied out to `buf` (exactly `mid` records), merged forward.
fn merge_left_buffered(
    v: &mut RecordView<'_>,
    mid: usize,
    buf: &mut [u8],
) -> Result<(), RecordError> {
    let n = v.len();
    // Same length: `buf` was cut to `mid` records.
    buf.copy_from_slice(v.range_mut(0, mid)?);
    let buf = RecordView::new(buf, v.layout)?;
    let (mut i, mut j, mut out) = (0, mid, 0);
    while i < mid && j < n {
        if v.key(j)? < buf.key(i)? {
            v.copy_within(j, out)?;
            j += 1;
        } else {
            v.range_mut(out, out + 1)?.copy_from_slice(buf.record(i)?);
            i += 1;
        }
        out += 1;
    }
    if i < mid {
        v.range_mut(out, out + (mid - i))?
            .copy_from_slice(buf.range(i, mid)?);
    }
    Ok(())
}

/// Right side copied out to `buf` (exactly `n - mid` records), merged backward.
fn merge_right_buffered(
    v: &mut RecordView<'_>,
    mid: usize,
    buf: &mut [u8],
) -> Result<(), RecordError> {
    let n = v.len();
    let right = n - mid;
    // Same length: `buf` was cut to `n - mid` records.
    buf.copy_from_slice(v.range_mut(mid, n)?);
    let buf = RecordView::new(buf, v.layout)?;
    let (mut i, mut j, mut out) = (mid, right, n);
    while i > 0 && j > 0 {
        out -= 1;
        if v.key(i - 1)? > buf.key(j - 1)? {
            v.copy_within(i - 1, out)?;
            i -= 1;
        } else {
            v.range_mut(out, out + 1)?
                .copy_from_slice(buf.record(j - 1)?);
            j -= 1;
        }
    }
    if j > 0 {
        v.range_mut(0, j)?.copy_from_slice(buf.range(0, j)?);
    }
    Ok(())
}
