//! Records sorted in place on several threads.
//!
//! Keys are rewritten as sort-order integers ([`prepare_keys`]) by all threads, each on its own
//! stretch of the buffer; partition passes around sampled medians split the buffer into a
//! segment per thread (smaller keys first), and each segment is sorted on its own
//! ([`sort_prepared`]); then the keys are restored, again by all threads. All of it on the
//! workers of the one pool (`workers.rs`). In place: no copy of the records (a few pointers
//! per thread are all that is allocated).

use std::num::NonZeroUsize;
use std::sync::Mutex;

use zinto_core::records::{
    RecordError, RecordLayout, partition_prepared, prepare_keys, prepared_key, restore_keys,
    sort_prepared, sort_records_by_key,
};

use crate::workers::run_workers;

/// Below this many records a buffer is sorted on one thread.
const PARALLEL_MIN_RECORDS: usize = 1 << 15;
/// Keys sampled to choose a pivot.
const SAMPLES: usize = 255;

/// Sorts the records in `bytes` by their key, in place, on up to `threads` threads. Unstable,
/// in the same order as [`sort_records_by_key`], which it falls back to for small buffers.
///
/// ```
/// use std::num::NonZeroUsize;
/// use zinto::core::codec::Endian;
/// use zinto::core::records::{KeyType, RecordLayout};
/// use zinto::sort_records_parallel;
///
/// // 100,000 (u64 id, f64 m/z) records, sorted by m/z on two threads.
/// let mut bytes: Vec<u8> = (0..100_000u64)
///     .flat_map(|i| [i.to_le_bytes(), (((i * 7919) % 100_003) as f64).to_le_bytes()])
///     .flatten()
///     .collect();
/// let layout = RecordLayout::new(16, 8, KeyType::F64, Endian::Little)?;
/// sort_records_parallel(&mut bytes, &layout, NonZeroUsize::new(2).unwrap())?;
/// let mz = |r: &[u8]| f64::from_le_bytes(r[8..16].try_into().unwrap());
/// assert!(bytes.chunks(16).zip(bytes.chunks(16).skip(1)).all(|(a, b)| mz(a) <= mz(b)));
/// # Ok::<(), zinto::core::records::RecordError>(())
/// ```
///
/// # Errors
/// [`RecordError::PartialRecord`] if `bytes` is not a whole number of records (nothing is
/// moved).
pub fn sort_records_parallel(
    bytes: &mut [u8],
    layout: &RecordLayout,
    threads: NonZeroUsize,
) -> Result<(), RecordError> {
    let n = layout.count(bytes.len())?;
    if threads.get() <= 1 || n < PARALLEL_MIN_RECORDS {
        return sort_records_by_key(bytes, layout);
    }
    on_stretches(bytes, layout, threads.get(), prepare_keys)?;
    sort_prepared_parallel(bytes, layout, threads)?;
    restore_keys_parallel(bytes, layout, threads)
}

/// Sorts records whose keys are already [prepared](prepare_keys) (for example chunk by chunk
/// as they were decoded, see [`ConcatPlan::read_into_and_then`](crate::ConcatPlan::read_into_and_then)),
/// on up to `threads` threads. The keys stay prepared: finish with [`restore_keys_parallel`].
///
/// # Errors
/// [`RecordError::PartialRecord`] if `bytes` is not a whole number of records.
pub fn sort_prepared_parallel(
    bytes: &mut [u8],
    layout: &RecordLayout,
    threads: NonZeroUsize,
) -> Result<(), RecordError> {
    layout.count(bytes.len())?;
    sort_on(bytes, layout, threads.get())
}

/// [`restore_keys`] on up to `threads` threads.
///
/// # Errors
/// [`RecordError::PartialRecord`] if `bytes` is not a whole number of records.
pub fn restore_keys_parallel(
    bytes: &mut [u8],
    layout: &RecordLayout,
    threads: NonZeroUsize,
) -> Result<(), RecordError> {
    layout.count(bytes.len())?;
    on_stretches(bytes, layout, threads.get(), restore_keys)
}

/// Runs `step` on `threads` stretches of whole records at once.
fn on_stretches(
    bytes: &mut [u8],
    layout: &RecordLayout,
    threads: usize,
    step: fn(&mut [u8], &RecordLayout) -> Result<(), RecordError>,
) -> Result<(), RecordError> {
    let size = layout.record_size();
    let per = (bytes.len() / size).div_ceil(threads).max(1) * size;
    on_each(bytes.chunks_mut(per).collect(), threads, |stretch| {
        step(stretch, layout)
    })
}

/// Runs `work` on each of `segments` (disjoint parts of one buffer) on up to `threads`
/// workers of the pool (`workers.rs`): each takes the next segment until none is left or one
/// fails; the first error is the call's.
fn on_each<'b>(
    segments: Vec<&'b mut [u8]>,
    threads: usize,
    work: impl Fn(&'b mut [u8]) -> Result<(), RecordError> + Sync,
) -> Result<(), RecordError> {
    let workers = threads.min(segments.len()).max(1);
    let queue = Mutex::new(segments);
    let first_error = Mutex::new(None);
    let failed = || first_error.lock().map_or(true, |e| e.is_some());
    run_workers(workers, &|| {
        while !failed() {
            let Some(segment) = queue.lock().ok().and_then(|mut q| q.pop()) else {
                break;
            };
            if let Err(e) = work(segment) {
                if let Ok(mut first) = first_error.lock() {
                    first.get_or_insert(e);
                }
                break;
            }
        }
    });
    match first_error.into_inner() {
        Ok(Some(e)) => Err(e),
        Ok(None) => Ok(()),
        Err(_) => Err(RecordError::Internal {
            what: "a sort worker's error slot was poisoned",
        }),
    }
}

/// Sorts prepared records on `threads` threads: split around sampled medians, level by level
/// (each level's segments partitioned in parallel), until there is a segment per thread,
/// then each segment sorted on its own. Segments need no merge: every key of one is below
/// every key of the next.
fn sort_on(bytes: &mut [u8], layout: &RecordLayout, threads: usize) -> Result<(), RecordError> {
    let size = layout.record_size();
    if threads <= 1 || bytes.len() / size < PARALLEL_MIN_RECORDS {
        return sort_prepared(bytes, layout);
    }
    let mut whole = Vec::new(); // segments not split further
    let mut splitting = vec![bytes];
    while !splitting.is_empty() && whole.len() + splitting.len() < threads {
        let parts = Mutex::new(Vec::new());
        let done = Mutex::new(Vec::new());
        on_each(std::mem::take(&mut splitting), threads, |segment| {
            if segment.len() / size < PARALLEL_MIN_RECORDS {
                keep(segment, &done);
                return Ok(());
            }
            match split(segment, layout)? {
                Some(at) => {
                    let (low, high) = segment.split_at_mut(at * size);
                    keep(low, &parts);
                    keep(high, &parts);
                }
                None => keep(segment, &done),
            }
            Ok(())
        })?;
        whole.extend(into_vec(done)?);
        splitting = into_vec(parts)?;
    }
    whole.extend(splitting);
    on_each(whole, threads, |segment| sort_prepared(segment, layout))
}

/// Keeps `part` in a level's list (a poisoned list is refused when it is read).
fn keep<'b>(part: &'b mut [u8], into: &Mutex<Vec<&'b mut [u8]>>) {
    if let Ok(mut v) = into.lock() {
        v.push(part);
    }
}

/// The segments a level's workers kept.
fn into_vec<T>(kept: Mutex<Vec<T>>) -> Result<Vec<T>, RecordError> {
    kept.into_inner().map_err(|_| RecordError::Internal {
        what: "a sort worker's segment list was poisoned",
    })
}

/// Partitions around the median of sampled keys; `None` if that leaves one side empty (many
/// equal keys), when one thread sorting the whole is as good.
fn split(bytes: &mut [u8], layout: &RecordLayout) -> Result<Option<usize>, RecordError> {
    let size = layout.record_size();
    let n = bytes.len() / size;
    let mut samples = [0u64; SAMPLES];
    for (i, sample) in samples.iter_mut().enumerate() {
        // i < SAMPLES, so the index is below (SAMPLES - 1) * (n / SAMPLES) + n / SAMPLES <= n:
        // always a record of the buffer. Were it not, that is a bug, not a key of 0.
        let index = i * (n / SAMPLES) + n / (2 * SAMPLES);
        let record = bytes
            .chunks_exact(size)
            .nth(index)
            .ok_or(RecordError::Internal {
                what: "a pivot sample index past the end of the buffer",
            })?;
        *sample = prepared_key(record, layout)?;
    }
    samples.sort_unstable();
    let median = samples[SAMPLES / 2];
    // Keys below the median first; if none are below it, keys up to and including it.
    for pivot in [Some(median), median.checked_add(1)].into_iter().flatten() {
        let split = partition_prepared(bytes, layout, pivot)?;
        if split > 0 && split < n {
            return Ok(Some(split));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use zinto_core::codec::Endian;
    use zinto_core::records::KeyType;

    fn buggy_step(_: &mut [u8], _: &RecordLayout) -> Result<(), RecordError> {
        std::panic::panic_any("a bug in a sort step")
    }

    #[test]
    fn a_panicking_sort_thread_panics_the_caller_instead_of_posing_as_an_error() {
        let layout = RecordLayout::new(8, 0, KeyType::U64, Endian::Little).unwrap();
        let mut bytes = vec![0u8; 8 * 64];
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            on_stretches(&mut bytes, &layout, 4, buggy_step)
        }));
        // Used to become `RecordError::ZeroRecordSize`, a false statement about the layout.
        let payload = caught.expect_err("the thread's panic reaches the caller");
        assert_eq!(
            payload.downcast_ref::<&str>(),
            Some(&"a bug in a sort step"),
            "the original panic payload, not a new one"
        );
    }

    /// The records of `bytes` (16 bytes: a u64 id, then a u64 key), sorted by id: the same
    /// multiset whatever the sort did.
    fn ids(bytes: &[u8]) -> Vec<u64> {
        let mut ids: Vec<u64> = bytes
            .chunks_exact(16)
            .map(|r| u64::from_le_bytes(r[..8].try_into().unwrap()))
            .collect();
        ids.sort_unstable();
        ids
    }

    #[test]
    fn sorts_on_any_number_of_threads_with_distinct_equal_and_few_keys() {
        let layout = RecordLayout::new(16, 8, KeyType::U64, Endian::Little).unwrap();
        let n = 5 * PARALLEL_MIN_RECORDS as u64 + 7;
        type KeyOf = fn(u64) -> u64;
        let keys: [(&str, KeyOf); 3] = [
            ("distinct", |i| (i * 7919) % 1_000_003),
            ("all equal", |_| 42),
            ("three values", |i| i % 3),
        ];
        for (name, key) in keys {
            let records: Vec<u8> = (0..n)
                .flat_map(|i| [i.to_le_bytes(), key(i).to_le_bytes()])
                .flatten()
                .collect();
            for threads in [2, 3, 4, 8] {
                let mut bytes = records.clone();
                sort_records_parallel(&mut bytes, &layout, NonZeroUsize::new(threads).unwrap())
                    .unwrap();
                let sorted: Vec<u64> = bytes
                    .chunks_exact(16)
                    .map(|r| u64::from_le_bytes(r[8..].try_into().unwrap()))
                    .collect();
                assert!(
                    sorted.windows(2).all(|w| w[0] <= w[1]),
                    "{name}, {threads} threads: out of order"
                );
                assert_eq!(
                    ids(&bytes),
                    (0..n).collect::<Vec<_>>(),
                    "{name}, {threads} threads"
                );
            }
        }
    }
}
