//! Fan-out: worker threads take the pieces of a selection from a shared queue and write into
//! disjoint parts of the one output buffer.
//!
//! When every piece is one contiguous span of the output (chunks that cover whole rows of the
//! selection, the common case for whole-array reads), the output is handed out safely with
//! `split_at_mut`, span by span in order. When pieces interleave in the output, workers share it
//! through [`DisjointOutput`](crate::read::disjoint::DisjointOutput): each worker claims its piece's
//! region, and every byte range it writes is checked against that region.

use std::num::NonZeroUsize;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use zinto_core::{MemoryOrder, Piece, Pieces, Region, Runs};

use super::context::ReadContext;
use super::out::PieceOut;
use crate::error::{Error, ErrorKind};
use crate::read::disjoint::DisjointOutput;
use crate::workers::{Crew, Work};

/// Reusable per-worker contexts, kept between reads.
#[derive(Debug, Default)]
pub(crate) struct ContextPool {
    free: Mutex<Vec<ReadContext>>,
}

impl ContextPool {
    pub(super) fn take(&self) -> Option<ReadContext> {
        self.free.lock().ok()?.pop()
    }

    pub(super) fn give(&self, ctx: ReadContext) {
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

/// One read's pieces and where they go: what the pool hands out.
pub(crate) struct Fanout<'a> {
    /// The array's path, for errors.
    pub(crate) path: &'a str,
    /// The selection's pieces, handed out in index order.
    pub(crate) pieces: &'a Pieces<'a>,
    /// The most workers to run.
    pub(crate) threads: NonZeroUsize,
    /// Bytes of one element.
    pub(crate) elem: usize,
    /// The output's shape (C order).
    pub(crate) out_shape: &'a [u64],
    /// Worker contexts kept between reads.
    pub(crate) contexts: &'a ContextPool,
}

/// The work of one piece: given a worker's context, the piece's index (pieces are handed out
/// in index order), the piece, and where its bytes go.
pub(crate) trait PieceJob: Sync {
    /// Reads `piece` (number `index`) into `target`.
    fn run(
        &self,
        ctx: &mut ReadContext,
        index: u64,
        piece: &Piece,
        target: &mut PieceOut<'_, '_>,
    ) -> Result<(), Error>;

    /// The read failed outside [`PieceJob::run`] (a piece could not be handed out): stop what
    /// the job started for pieces no worker will take (a remote read's fetches).
    fn stop(&self);
}

/// How the output is shared out: in spans, in order, when every piece is one contiguous span
/// (safe `split_at_mut`); else through [`DisjointOutput`], each piece claiming its region.
#[allow(clippy::large_enum_variant)] // one per read, on its stack
enum Handout<'o> {
    Spans(Mutex<SpanQueue<'o>>),
    Shared {
        out: DisjointOutput<'o>,
        next: AtomicU64,
    },
}

/// The spans not yet handed out: the next piece's index, the output offset `rest` starts at.
struct SpanQueue<'o> {
    index: u64,
    consumed: usize,
    rest: &'o mut [u8],
}

/// What a worker gets next.
#[allow(clippy::large_enum_variant)] // the piece is moved to its worker once either way
enum Next<'h, 'o> {
    Piece(u64, Piece, PieceOut<'h, 'o>),
    Done,
    Failed(Error),
}

impl<'o> Handout<'o> {
    fn new(fanout: &Fanout<'_>, count: u64, out: &'o mut [u8]) -> Result<Self, Error> {
        let Fanout {
            pieces,
            elem,
            out_shape,
            ..
        } = *fanout;
        let contiguous = (0..count).all(|i| {
            pieces
                .get(i)
                .is_some_and(|p| span(&p, elem, out_shape).is_some())
        });
        Ok(if contiguous {
            Self::Spans(Mutex::new(SpanQueue {
                index: 0,
                consumed: 0,
                rest: out,
            }))
        } else {
            Self::Shared {
                out: DisjointOutput::new(out, out_shape, elem)
                    .map_err(|kind| Error::new(fanout.path, None, kind))?,
                next: AtomicU64::new(0),
            }
        })
    }

    /// The next piece and its part of the output.
    fn next(&self, fanout: &Fanout<'_>) -> Next<'_, 'o> {
        let internal =
            |what| Next::Failed(Error::new(fanout.path, None, ErrorKind::Internal { what }));
        match self {
            Self::Shared { out, next } => {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(piece) = fanout.pieces.get(index) else {
                    return Next::Done;
                };
                match out.claim(&piece.in_output) {
                    Ok(claim) => Next::Piece(index, piece, PieceOut::Shared(claim)),
                    Err(kind) => Next::Failed(Error::new(fanout.path, None, kind)),
                }
            }
            Self::Spans(queue) => {
                let Ok(mut q) = queue.lock() else {
                    return internal("a worker panicked while taking a span");
                };
                let Some(piece) = fanout.pieces.get(q.index) else {
                    return Next::Done;
                };
                // Spans were all checked when the handout was made and come in increasing
                // order.
                let changed = "a piece's span changed since it was checked";
                let Some((start, len)) = span(&piece, fanout.elem, fanout.out_shape) else {
                    return internal(changed);
                };
                let Some(skip) = start.checked_sub(q.consumed) else {
                    return internal(changed);
                };
                let index = q.index;
                q.index += 1;
                let taken = std::mem::take(&mut q.rest);
                let (_, taken) = taken.split_at_mut(skip.min(taken.len()));
                let (mine, after) = taken.split_at_mut(len.min(taken.len()));
                q.rest = after;
                q.consumed = start + mine.len();
                Next::Piece(
                    index,
                    piece,
                    PieceOut::Span {
                        base: start,
                        slice: mine,
                    },
                )
            }
        }
    }
}

/// Runs `job` on every piece of `fanout`, on up to `fanout.threads` workers of the one pool
/// ([`Crew`]), writing into `out`. Returns the first error; once one occurs, no new piece is
/// started.
pub(crate) fn for_each_piece(
    fanout: &Fanout<'_>,
    out: &mut [u8],
    job: &dyn PieceJob,
) -> Result<(), Error> {
    let count = fanout
        .pieces
        .chunk_count()
        .map_err(|e| Error::new(fanout.path, None, ErrorKind::Layout(e)))?;
    if count == 0 {
        return Ok(());
    }
    let workers = usize::try_from(count)
        .unwrap_or(usize::MAX)
        .min(fanout.threads.get());
    let handout = Handout::new(fanout, count, out)?;
    let crew = Crew {
        threads: workers,
        // The job checks them itself, piece by piece (a remote read's fetches stop with it).
        cancel: None,
        progress: None,
        total: count,
        path: Some(fanout.path),
    };
    crew.run(&Work {
        new_worker: || {
            let made = fanout.contexts.take().map_or_else(ReadContext::new, Ok);
            made.map_err(|kind| Error::new(fanout.path, None, kind))
        },
        next: || match handout.next(fanout) {
            Next::Piece(index, piece, target) => Some(Ok((index, piece, target))),
            Next::Done => None,
            Next::Failed(e) => {
                job.stop();
                Some(Err(e))
            }
        },
        run: |ctx: &mut ReadContext, (index, piece, mut target): (u64, Piece, PieceOut<'_, '_>)| {
            job.run(ctx, index, &piece, &mut target)
        },
        retire: |ctx| fanout.contexts.give(ctx),
    })
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
