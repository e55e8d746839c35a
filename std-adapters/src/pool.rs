//! Fan-out: worker threads take the pieces of a selection from a shared queue and write into
//! disjoint parts of the one output buffer.
//!
//! When every piece is one contiguous span of the output (chunks that cover whole rows of the
//! selection, the common case for whole-array reads), the output is handed out safely with
//! `split_at_mut`, span by span in order. When pieces interleave in the output, workers share it
//! through [`DisjointOutput`](crate::disjoint::DisjointOutput): each worker claims its piece's
//! region, and every byte range it writes is checked against that region.

use std::num::NonZeroUsize;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use zinto_core::{MemoryOrder, Piece, Pieces, Region, Runs};

use crate::disjoint::DisjointOutput;
use crate::error::{Error, ErrorKind};
use crate::reader::{PieceOut, ReadContext};

/// Reusable per-worker contexts, kept between reads.
#[derive(Debug, Default)]
pub(crate) struct ContextPool {
    free: Mutex<Vec<ReadContext>>,
}

impl ContextPool {
    fn take(&self) -> Option<ReadContext> {
        self.free.lock().ok()?.pop()
    }

    fn give(&self, ctx: ReadContext) {
        if let Ok(mut free) = self.free.lock() {
            free.push(ctx);
        }
    }
}

/// The contiguous byte span of `piece` in a C-order output of `out_shape`, if it has one.
fn span(piece: &Piece, elem: usize, out_shape: &[u64]) -> Option<(usize, usize)> {
    let region: &Region = &piece.in_output;
    let order = MemoryOrder::c(region.ndim()).ok()?;
    let whole = Region::whole(region.shape()).ok()?;
    let mut runs = Runs::new(elem, region.shape(), &order, &whole, out_shape, region).ok()?;
    if !runs.is_single_run() {
        return None;
    }
    runs.next().map(|r| (r.dst, r.len))
}

/// The work of one piece: given a worker's context, the piece's index (pieces are handed out
/// in index order), the piece, and where its bytes go.
pub(crate) type Job<'f> =
    dyn Fn(&mut ReadContext, u64, &Piece, &mut PieceOut<'_, '_>) -> Result<(), Error> + Sync + 'f;

/// Runs `job` on every piece of `pieces`, on up to `threads` workers, writing into `out`.
/// Returns the first error; once one occurs, no new piece is started.
#[allow(clippy::too_many_arguments)]
pub(crate) fn for_each_piece(
    path: &str,
    pieces: &Pieces<'_>,
    threads: NonZeroUsize,
    elem: usize,
    out_shape: &[u64],
    out: &mut [u8],
    contexts: &ContextPool,
    new_context: &(dyn Fn() -> Result<ReadContext, Error> + Sync),
    job: &Job<'_>,
) -> Result<(), Error> {
    let count = pieces
        .chunk_count()
        .map_err(|e| Error::new(path, None, ErrorKind::Layout(e)))?;
    if count == 0 {
        return Ok(());
    }
    let workers = usize::try_from(count)
        .unwrap_or(usize::MAX)
        .min(threads.get());
    let contiguous = (0..count).all(|i| {
        pieces
            .get(i)
            .is_some_and(|p| span(&p, elem, out_shape).is_some())
    });
    let first_error = FirstError::default();
    let record = |e: Error| first_error.record(e);

    if contiguous {
        // Safe split: spans come in increasing output order; hand them out one by one.
        let queue = Mutex::new((0u64, 0usize, out));
        let worker = || {
            let mut ctx = match contexts.take().map_or_else(new_context, Ok) {
                Ok(c) => c,
                Err(e) => return record(e),
            };
            while !first_error.failed() {
                let next = {
                    let Ok(mut q) = queue.lock() else { break };
                    let (index, consumed, rest) = &mut *q;
                    if *index >= count {
                        break;
                    }
                    let inconsistent = || {
                        let what = "a piece's span changed since it was checked";
                        Error::new(path, None, ErrorKind::Internal { what })
                    };
                    let Some(piece) = pieces.get(*index) else {
                        break;
                    };
                    // Spans were all checked above and come in increasing order.
                    let Some((start, len)) = span(&piece, elem, out_shape) else {
                        record(inconsistent());
                        break;
                    };
                    let at = *index;
                    *index += 1;
                    let Some(skip) = start.checked_sub(*consumed) else {
                        record(inconsistent());
                        break;
                    };
                    let taken = std::mem::take(rest);
                    let (_, taken) = taken.split_at_mut(skip.min(taken.len()));
                    let (mine, after) = taken.split_at_mut(len.min(taken.len()));
                    *rest = after;
                    *consumed = start + mine.len();
                    (at, piece, start, mine)
                };
                let (at, piece, base, slice) = next;
                let mut target = PieceOut::Span { base, slice };
                if let Err(e) = job(&mut ctx, at, &piece, &mut target) {
                    record(e);
                }
            }
            contexts.give(ctx);
        };
        run_workers(workers, &worker);
    } else {
        let shared = DisjointOutput::new(out, out_shape, elem)
            .map_err(|kind| Error::new(path, None, kind))?;
        let next = AtomicU64::new(0);
        let worker = || {
            let mut ctx = match contexts.take().map_or_else(new_context, Ok) {
                Ok(c) => c,
                Err(e) => return record(e),
            };
            while !first_error.failed() {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(piece) = pieces.get(index) else {
                    break;
                };
                let result = shared
                    .claim(&piece.in_output)
                    .map_err(|kind| Error::new(path, None, kind))
                    .and_then(|claim| job(&mut ctx, index, &piece, &mut PieceOut::Shared(claim)));
                if let Err(e) = result {
                    record(e);
                }
            }
            contexts.give(ctx);
        };
        run_workers(workers, &worker);
    }
    first_error.into_result()
}

/// The first error any worker hit; once set, workers start no new piece.
#[derive(Default)]
pub(crate) struct FirstError {
    failed: AtomicBool,
    first: Mutex<Option<Error>>,
}

impl FirstError {
    /// Keeps `e` if it is the first.
    pub(crate) fn record(&self, e: Error) {
        self.failed.store(true, Ordering::Relaxed);
        if let Ok(mut slot) = self.first.lock()
            && slot.is_none()
        {
            *slot = Some(e);
        }
    }

    /// Whether any worker failed.
    pub(crate) fn failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    /// The first error, if any.
    pub(crate) fn into_result(self) -> Result<(), Error> {
        match self.first.into_inner() {
            Ok(Some(e)) => Err(e),
            _ => Ok(()),
        }
    }
}

/// Runs `worker` on `n` threads (on the calling thread alone when `n` is 1).
pub(crate) fn run_workers(n: usize, worker: &(dyn Fn() + Sync)) {
    if n <= 1 {
        worker();
        return;
    }
    std::thread::scope(|s| {
        for _ in 1..n {
            s.spawn(worker);
        }
        worker();
    });
}

#[cfg(test)]
#[allow(clippy::cast_possible_truncation)] // test values are small
mod tests {
    //! End-to-end reads through both ways of sharing the output; run under Miri too
    //! (`cargo +nightly miri test -p zinto --no-default-features --lib`).

    use std::num::NonZeroUsize;

    use crate::{Array, FileStore, MemoryStore, ReadOptions, Region};

    /// A 4x6 uint8 array whose element (r, c) is 10 * r + c, in chunks of `chunk`.
    fn store(chunk: [u64; 2]) -> MemoryStore {
        let mut s = MemoryStore::new();
        let meta = format!(
            r#"{{"zarr_format": 3, "node_type": "array", "shape": [4, 6], "data_type": "uint8",
            "chunk_grid": {{"name": "regular", "configuration": {{"chunk_shape": [{}, {}]}}}},
            "chunk_key_encoding": {{"name": "default"}}, "fill_value": 0,
            "codecs": [{{"name": "bytes"}}]}}"#,
            chunk[0], chunk[1]
        );
        s.insert("a/zarr.json", meta.into_bytes());
        for cr in 0..4u64.div_ceil(chunk[0]) {
            for cc in 0..6u64.div_ceil(chunk[1]) {
                let mut bytes = vec![];
                for r in 0..chunk[0] {
                    for c in 0..chunk[1] {
                        let (r, c) = (cr * chunk[0] + r, cc * chunk[1] + c);
                        bytes.push(if r < 4 && c < 6 {
                            (10 * r + c) as u8
                        } else {
                            0
                        });
                    }
                }
                s.insert(format!("a/c/{cr}/{cc}"), bytes);
            }
        }
        s
    }

    fn read(chunk: [u64; 2], threads: usize) -> Vec<u8> {
        let s = store(chunk);
        let array = Array::open(&s, "a").unwrap();
        let mut out = vec![0u8; 24];
        let options = ReadOptions {
            threads: NonZeroUsize::new(threads),
            ..ReadOptions::default()
        };
        array
            .read_into_with(&Region::whole(&[4, 6]).unwrap(), &mut out, &options)
            .unwrap();
        out
    }

    fn expected() -> Vec<u8> {
        (0..4u8)
            .flat_map(|r| (0..6u8).map(move |c| 10 * r + c))
            .collect()
    }

    #[test]
    fn interleaved_chunks_through_the_shared_output() {
        // Column bands: every chunk's rows alternate with the other chunks' in the output.
        assert_eq!(read([4, 2], 2), expected());
        assert_eq!(read([3, 4], 2), expected());
    }

    /// Arrays written by zarr-python (tests/fixtures): gzip; zstd with a checksum and crc32c;
    /// every chunk missing (fill value); sharded with missing inner chunks (fill value again).
    /// Small enough for Miri, which runs these with the pure-Rust decoders.
    const FIXTURES: [&str; 4] = [
        "v3_gzip",
        "v3_zstd_checksum_crc32c",
        "v3_fill_int",
        "v3_shard_sparse",
    ];

    fn fixture(name: &str) -> (Array<FileStore>, serde_json::Value) {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures");
        let manifest: Vec<serde_json::Value> =
            serde_json::from_slice(&std::fs::read(format!("{dir}/manifest.json")).unwrap())
                .unwrap();
        let entry = manifest.into_iter().find(|e| e["name"] == name).unwrap();
        let array = Array::open(FileStore::new(format!("{dir}/data")), name).unwrap();
        (array, entry)
    }

    fn read_with(array: &Array<FileStore>, region: &Region, threads: usize) -> Vec<u8> {
        let mut out = vec![0u8; array.selection_len(region).unwrap()];
        let options = ReadOptions {
            threads: NonZeroUsize::new(threads),
            ..ReadOptions::default()
        };
        array.read_into_with(region, &mut out, &options).unwrap();
        out
    }

    /// Each fixture read whole on two workers (its chunks do not span whole rows: the shared
    /// output, each worker claiming its pieces' regions), checked against the SHA-256
    /// zarr-python recorded; then its first column of chunks (whole rows of that selection:
    /// split spans) and an unaligned window (shared), checked against the whole read.
    #[test]
    fn fixtures_through_both_ways_of_sharing_the_output() {
        use sha2::{Digest, Sha256};
        for name in FIXTURES {
            let (array, entry) = fixture(name);
            let shape = array.shape().to_vec();
            let chunk = array.metadata().grid.chunk_shape().to_vec();
            assert!(chunk[1] < shape[1], "{name}: chunks must split the rows");
            let elem = array.metadata().elem_size();
            let whole = read_with(&array, &Region::whole(&shape).unwrap(), 2);
            if cfg!(target_endian = "little") {
                let sha: String = Sha256::digest(&whole)
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                let recorded = entry["selections"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|s| s["shape"] == serde_json::json!(shape))
                    .unwrap();
                assert_eq!(sha, recorded["sha256"], "{name}");
            }
            let row = shape[1] as usize * elem;
            let sub = |start: [u64; 2], size: [u64; 2]| -> Vec<u8> {
                (start[0]..start[0] + size[0])
                    .flat_map(|r| {
                        let at = r as usize * row + start[1] as usize * elem;
                        whole[at..at + size[1] as usize * elem].to_vec()
                    })
                    .collect()
            };
            for (start, size) in [
                ([0, 0], [shape[0], chunk[1]]),
                ([1, 1], [shape[0] - 2, shape[1] - 2]),
            ] {
                let region = Region::new(&start, &size).unwrap();
                assert_eq!(
                    read_with(&array, &region, 2),
                    sub(start, size),
                    "{name} {start:?} {size:?}"
                );
            }
        }
    }

    #[test]
    fn contiguous_chunks_through_split_spans() {
        // Whole rows: each chunk is one span of the output.
        assert_eq!(read([1, 6], 2), expected());
        assert_eq!(read([3, 6], 3), expected());
    }
}
