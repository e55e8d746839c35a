//! Memory bounds of a read, asserted with a counting global allocator (see docs/memory.md).
//!
//! For whole-chunk reads no allocation is as large as a chunk, and the live heap a read adds
//! stays within `threads * (BLOCK_LEN + decoder state) + small`; a second read reuses the
//! first read's buffers. (The C zstd library's own context, about 100 KiB per worker, is
//! allocated by C and bounded by a unit test of `zstd_c` instead.) With the pure-Rust zstd
//! decoder (`--no-default-features`), each worker also holds ruzstd's window, which is as large
//! as the frame's declared window (capped at the destination size): the bounds say so.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a panic is a failed test
#![allow(clippy::cast_possible_truncation)]

use std::io::Write;
use std::num::NonZeroUsize;

use serde_json::json;
use std::sync::atomic::{AtomicU64, Ordering::SeqCst};

use zinto::{Array, BLOCK_LEN, COALESCE_GAP, MemoryStore, ReadOptions, Region, Store, StoreError};
use zinto_tests::alloc::{Counting, measure};

#[global_allocator]
static ALLOC: Counting = Counting;

/// The counters are global: tests take turns so that one test's allocations never land in
/// another's measurement (nextest runs each in its own process anyway; `cargo test` does not).
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    TURN.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

const SHAPE: [u64; 3] = [16, 512, 512];
const CHUNK: [u64; 3] = [4, 512, 512];
const CHUNK_LEN: usize = 4 * 512 * 512 * 4; // 4 MiB of float32

/// Extra per-worker memory of a zstd chunk: none with the C library (it decodes into the
/// destination; its context is C-allocated), ruzstd's window plus a block with ruzstd.
fn zstd_window(name: &str) -> usize {
    if name == "zstd" && cfg!(not(feature = "zstd-c")) {
        CHUNK_LEN + 256 * 1024
    } else {
        0
    }
}

fn field() -> Vec<u8> {
    (0..SHAPE.iter().product::<u64>())
        .flat_map(|i| ((i % 1000) as f32 * 0.5).to_le_bytes())
        .collect()
}

/// Writes the field as a v3 array with `codecs` after `bytes`, chunk by chunk.
fn array(codecs: &[serde_json::Value], encode: impl Fn(&[u8]) -> Vec<u8>) -> MemoryStore {
    let mut all = vec![json!({"name": "bytes", "configuration": {"endian": "little"}})];
    all.extend_from_slice(codecs);
    let meta = json!({
        "zarr_format": 3, "node_type": "array", "shape": SHAPE, "data_type": "float32",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": CHUNK}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0.0, "codecs": all,
    });
    let mut store = MemoryStore::new();
    store.insert("a/zarr.json", serde_json::to_vec(&meta).unwrap());
    for (i, chunk) in field().chunks(CHUNK_LEN).enumerate() {
        store.insert(format!("a/c/{i}/0/0"), encode(chunk));
    }
    store
}

fn cases() -> Vec<(&'static str, MemoryStore)> {
    vec![
        ("uncompressed", array(&[], <[u8]>::to_vec)),
        (
            "zstd",
            array(
                &[json!({"name": "zstd", "configuration": {"level": 0}})],
                |c| zstd::bulk::compress(c, 0).unwrap(),
            ),
        ),
        (
            "gzip+crc32c",
            array(
                &[
                    json!({"name": "gzip", "configuration": {"level": 1}}),
                    json!({"name": "crc32c"}),
                ],
                |c| {
                    let mut e =
                        flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                    e.write_all(c).unwrap();
                    let mut v = e.finish().unwrap();
                    let crc = zinto::core::codec::crc32c(&v);
                    v.extend(crc.to_le_bytes());
                    v
                },
            ),
        ),
    ]
}

#[test]
fn whole_chunk_reads_stay_within_the_memory_model() {
    let _turn = one_at_a_time();
    let expected = field();
    let threads = 2;
    // Per worker: one input block, the chunk decoder (miniz_oxide's state lives in it), and
    // bookkeeping; plus the context pool and chunk keys.
    for (name, store) in cases() {
        let per_worker = BLOCK_LEN + 64 * 1024 + zstd_window(name);
        let bound = threads * per_worker + 64 * 1024;
        let array = Array::open(&store, "a").unwrap();
        let whole = Region::whole(array.shape()).unwrap();
        let mut out = vec![0u8; expected.len()];
        let options = ReadOptions {
            threads: NonZeroUsize::new(threads),
            ..ReadOptions::default()
        };
        let (result, largest, extra) = measure(|| array.read_into_with(&whole, &mut out, &options));
        result.unwrap();
        assert!(out == expected, "{name}: wrong bytes");
        assert!(
            largest < CHUNK_LEN,
            "{name}: allocated {largest} bytes at once"
        );
        assert!(
            extra <= bound,
            "{name}: read added {extra} live bytes, bound {bound}"
        );

        // Later reads reuse the workers' buffers: once a worker has read a chunk, reading it
        // again allocates nothing of size. (Which of the two pooled workers a one-thread read
        // gets is not fixed, so the second one-thread read is the one measured.)
        let one = ReadOptions {
            threads: NonZeroUsize::new(1),
            ..ReadOptions::default()
        };
        array.read_into_with(&whole, &mut out, &one).unwrap();
        let (result, _, extra) = measure(|| array.read_into_with(&whole, &mut out, &one));
        result.unwrap();
        assert!(
            extra <= 16 * 1024,
            "{name}: a repeated read added {extra} live bytes"
        );
    }
}

#[test]
fn partial_chunk_reads_use_one_scratch_per_worker() {
    let _turn = one_at_a_time();
    let expected = field();
    let (name, store) = cases().swap_remove(1); // zstd: partial chunks decode into scratch
    let array = Array::open(&store, "a").unwrap();
    // Rows 1..15, a band of columns: every chunk is partial.
    let sel = Region::new(&[1, 100, 7], &[14, 300, 400]).unwrap();
    let mut out = vec![0u8; array.selection_len(&sel).unwrap()];
    let options = ReadOptions {
        threads: NonZeroUsize::new(2),
        ..ReadOptions::default()
    };
    let (result, _, extra) = measure(|| array.read_into_with(&sel, &mut out, &options));
    result.unwrap();
    let bound = 2 * (CHUNK_LEN + BLOCK_LEN + 64 * 1024 + zstd_window(name)) + 64 * 1024;
    assert!(
        extra <= bound,
        "{name}: read added {extra} live bytes, bound {bound}"
    );
    // Spot-check the values against the source.
    let at = |z: u64, y: u64, x: u64| {
        let i = ((z * 512 + y) * 512 + x) as usize * 4;
        expected[i..i + 4].to_vec()
    };
    assert_eq!(out[..4].to_vec(), at(1, 100, 7));
    let last = out.len() - 4;
    assert_eq!(out[last..].to_vec(), at(14, 399, 406));
}

/// A store that counts the chunk bytes read from it, and the reads.
struct Counted {
    inner: MemoryStore,
    bytes: AtomicU64,
    reads: AtomicU64,
}

impl Counted {
    fn new(inner: MemoryStore) -> Self {
        Self {
            inner,
            bytes: AtomicU64::new(0),
            reads: AtomicU64::new(0),
        }
    }

    /// Chunk bytes and reads since the last call.
    fn take(&self) -> (u64, u64) {
        (self.bytes.swap(0, SeqCst), self.reads.swap(0, SeqCst))
    }
}

impl Store for Counted {
    fn size(&self, key: &str) -> Result<Option<u64>, StoreError> {
        self.inner.size(key)
    }

    fn read_into(&self, key: &str, offset: u64, dst: &mut [u8]) -> Result<(), StoreError> {
        if key.contains("/c/") {
            self.bytes.fetch_add(dst.len() as u64, SeqCst);
            self.reads.fetch_add(1, SeqCst);
        }
        self.inner.read_into(key, offset, dst)
    }
}

#[test]
fn uncompressed_partial_reads_fetch_the_bytes_selected_and_no_more_than_the_gaps_merged() {
    let (_, store) = cases().swap_remove(0);
    let store = Counted::new(store);
    let array = Array::open(&store, "a").unwrap();
    let expected = field();
    let read = |sel: &Region| {
        let mut out = vec![0u8; array.selection_len(sel).unwrap()];
        array.read_into(sel, &mut out).unwrap();
        out
    };
    let row = 512 * 4; // bytes in a row of the array
    let plane = 512 * row; // bytes in a plane; a chunk holds 4

    // One row per plane: the rows are a plane apart, far more than the coalescing distance,
    // so each is its own read, straight into the output: exactly the bytes selected.
    assert!(plane - row > COALESCE_GAP);
    let sel = Region::new(&[0, 5, 0], &[16, 1, 512]).unwrap();
    let out = read(&sel);
    assert_eq!(store.take(), (out.len() as u64, 16));
    for (p, got) in out.chunks(row).enumerate() {
        let at = p * plane + 5 * row;
        assert!(got == &expected[at..at + row], "plane {p}");
    }

    // One column: the elements are a row apart (from a plane's last row to the next plane's
    // first, too), less than the coalescing distance, so each chunk's are one read from its
    // first selected byte to its last: the 4-byte elements and the gaps merged between them.
    assert!(row - 4 < COALESCE_GAP);
    let sel = Region::new(&[0, 0, 3], &[16, 512, 1]).unwrap();
    let out = read(&sel);
    let per_chunk = (4 * 512 - 1) * row + 4;
    assert_eq!(store.take(), (4 * per_chunk as u64, 4));
    for (k, v) in out.chunks(4).enumerate() {
        let i = (k * 512 + 3) * 4;
        assert_eq!(v, &expected[i..i + 4], "element {k}");
    }
}

#[test]
fn uncompressed_partial_reads_fetch_only_what_they_need() {
    let _turn = one_at_a_time();
    let expected = field();
    let (_, store) = cases().swap_remove(0);
    let array = Array::open(&store, "a").unwrap();
    // One column through every chunk: rows are 2 KiB apart, so each chunk's ranges coalesce
    // into one read of at most one chunk's span; a single element per chunk row-plane.
    let sel = Region::new(&[0, 0, 3], &[16, 512, 1]).unwrap();
    let mut out = vec![0u8; array.selection_len(&sel).unwrap()];
    let options = ReadOptions {
        threads: NonZeroUsize::new(1),
        ..ReadOptions::default()
    };
    let (result, largest, _) = measure(|| array.read_into_with(&sel, &mut out, &options));
    result.unwrap();
    assert!(largest < CHUNK_LEN, "allocated {largest} bytes at once");
    for (k, v) in out.chunks(4).enumerate() {
        let i = (k * 512 + 3) * 4;
        assert_eq!(v, &expected[i..i + 4], "element {k}");
    }
}

/// Variable-size zstd chunks of 24-byte records, each sorted by its f64 key at offset 8.
fn spectra_chunks(records: usize, chunks: usize) -> (MemoryStore, Vec<String>, Vec<u8>) {
    let mut store = MemoryStore::new();
    let mut keys = Vec::new();
    let mut all = Vec::new();
    let mut start = 0;
    for c in 0..chunks {
        // Sizes from 0.5x to 1.5x the mean, summing to `records`.
        let n = if c + 1 == chunks {
            records - start
        } else {
            records / chunks / 2 + (c * 7919) % (records / chunks)
        };
        let mut chunk = Vec::with_capacity(n * 24);
        for i in 0..n {
            let mz = 100.0 + ((i * 1901 + c * 7) % n.max(1)) as f64 * 1900.0 / n.max(1) as f64;
            chunk.extend(((start + i) as f64).to_le_bytes());
            chunk.extend(mz.to_le_bytes());
            chunk.extend(1.0f64.to_le_bytes());
        }
        start += n;
        let key = format!("c{c:03}.zst");
        store.insert(key.clone(), zstd::bulk::compress(&chunk, 1).unwrap());
        keys.push(key);
        all.extend(chunk);
    }
    (store, keys, all)
}

#[test]
fn concatenate_and_sort_allocate_nothing_output_sized_but_the_output() {
    let _turn = one_at_a_time();
    use zinto::ConcatPlan;
    use zinto::core::codec::{BytesCodecs, Compressor, Crc32cCount, Endian};
    use zinto::core::records::{KeyType, RecordLayout};

    let (store, keys, all) = spectra_chunks(1_000_000, 100);
    let codecs = BytesCodecs {
        compressor: Some(Compressor::Zstd),
        crc32c: Crc32cCount::NONE,
    };
    let layout = RecordLayout::new(24, 8, KeyType::F64, Endian::Little).unwrap();
    let threads = NonZeroUsize::new(2).unwrap();
    let options = ReadOptions {
        threads: Some(threads),
        progress: None,
    };
    let (out, largest, peak) = measure(|| {
        let plan = ConcatPlan::new(&store, &keys, codecs).unwrap();
        let mut out = plan.read_to_vec(&store, &options).unwrap();
        zinto::sort_records_parallel(&mut out, &layout, threads).unwrap();
        out
    });
    let output = all.len();
    assert_eq!(out.len(), output);
    // Beyond the output: per worker a block and the decoder's state, and the plan's key list.
    let bound = 2 * (BLOCK_LEN + zstd_window_of(output / 100 * 2)) + 256 * 1024;
    assert!(
        largest <= output,
        "largest allocation {largest} exceeds the output {output}"
    );
    assert!(
        peak <= output + bound,
        "peak {peak} exceeds output {output} + bound {bound}"
    );
    assert!(
        bound < output / 4,
        "the bound must be small for this test to mean anything"
    );
    // Sorted, and a permutation of the input.
    let mz = |r: &[u8]| f64::from_le_bytes(r[8..16].try_into().unwrap());
    assert!(
        out.chunks(24)
            .zip(out.chunks(24).skip(1))
            .all(|(a, b)| mz(a) <= mz(b))
    );
    let ids = |b: &[u8]| {
        let mut v: Vec<u64> = b
            .chunks(24)
            .map(|r| f64::from_le_bytes(r[..8].try_into().unwrap()) as u64)
            .collect();
        v.sort_unstable();
        v
    };
    assert_eq!(ids(&out), ids(&all));
}

/// ruzstd's window for a chunk of at most `chunk` bytes (none with the C library).
fn zstd_window_of(chunk: usize) -> usize {
    if cfg!(feature = "zstd-c") {
        0
    } else {
        chunk.next_power_of_two() + 256 * 1024
    }
}

#[test]
fn a_realloc_counts_the_old_and_the_new_block_at_once() {
    // The counting allocator itself: growing a 1 MiB vector to 3 MiB has both blocks live for a
    // moment when the block moves (and is counted as if it did), so the peak above the start
    // is the new block's 3 MiB, not the 2 MiB it grew by.
    let _one = one_at_a_time();
    let mut v: Vec<u8> = Vec::with_capacity(1 << 20);
    v.push(1);
    let ((), _, peak) = measure(|| v.reserve_exact(3 << 20));
    assert!(v.capacity() >= 3 << 20);
    assert!(peak >= 3 << 20, "peak {peak}");
}
