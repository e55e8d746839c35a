//! Records sorted in place on several threads.
//!
//! Keys are rewritten as sort-order integers ([`prepare_keys`]) by all threads, each on its own
//! stretch of the buffer; one partition pass around a sampled median splits the buffer in two
//! (smaller keys first); each half is sorted (or split again) on its own thread
//! ([`sort_prepared`]); then the keys are restored, again by all threads. In place: no
//! allocation, no copy of the records.

use std::num::NonZeroUsize;

use zinto_core::records::{
    RecordError, RecordLayout, partition_prepared, prepare_keys, prepared_key, restore_keys,
    sort_prepared, sort_records_by_key,
};

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
    std::thread::scope(|s| {
        let handles: Vec<_> = bytes
            .chunks_mut(per)
            .map(|stretch| s.spawn(move || step(stretch, layout)))
            .collect();
        handles
            .into_iter()
            .try_for_each(|h| h.join().unwrap_or_else(rethrow))
    })
}

/// Sorts prepared records on `threads` threads.
fn sort_on(bytes: &mut [u8], layout: &RecordLayout, threads: usize) -> Result<(), RecordError> {
    let size = layout.record_size();
    let n = bytes.len() / size;
    if threads <= 1 || n < PARALLEL_MIN_RECORDS {
        return sort_prepared(bytes, layout);
    }
    let Some(split) = split(bytes, layout)? else {
        return sort_prepared(bytes, layout);
    };
    let (low, high) = bytes.split_at_mut(split * size);
    let low_threads = threads / 2;
    std::thread::scope(|s| {
        let low = s.spawn(|| sort_on(low, layout, low_threads));
        let high = sort_on(high, layout, threads - low_threads);
        low.join().unwrap_or_else(rethrow).and(high)
    })
}

/// Carries a sort thread's panic on to the caller, as if the sort had run on the caller's
/// thread. The steps never panic on any input, so a panic is a bug in zinto; it used to be
/// turned into `RecordError::ZeroRecordSize`, an error that says something false about the
/// caller's layout and hides the bug. No error variant would be honest here: the panic is.
fn rethrow(payload: Box<dyn std::any::Any + Send>) -> Result<(), RecordError> {
    std::panic::resume_unwind(payload)
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
}
