//! Memory bounds of a read, asserted with a counting global allocator (see docs/memory.md).
//!
//! One bound per codec and path, docs/memory.md's formula: for whole-chunk reads no allocation
//! is as large as a chunk, and the live heap a read adds stays within
//! `threads * (block + decoder state) + bookkeeping`; a second read reuses the first read's
//! buffers; partial and edge chunks add one window per worker (`WINDOW_LEN`), never a chunk.
//! Each bound has a companion test showing that a chunk-sized buffer on the path goes over it.
//! (The C zstd library's own context, about 100 KiB per worker, and for chunks decoded through a
//! window the frame's window it keeps, are allocated by C and bounded by unit tests of `zstd_c`
//! instead.) With the pure-Rust zstd decoder (`--no-default-features`), each worker also holds
//! ruzstd's window (at most the chunk): the bounds say so.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a panic is a failed test
#![allow(clippy::cast_possible_truncation)]

use std::io::Write;
use std::num::NonZeroUsize;

use serde_json::json;
use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
use std::sync::{Condvar, Mutex};
use std::thread::ThreadId;
use std::time::Duration;

use zinto::{
    Array, ArrayBuilder, BLOCK_LEN, COALESCE_GAP, COALESCE_MAX, DataType, MemoryStore, ReadOptions,
    Region, Store, StoreError, WINDOW_LEN,
};
use zinto_tests::alloc::{Counting, measure, one_at_a_time};

#[global_allocator]
static ALLOC: Counting = Counting;

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

/// A smooth field with noise in the low mantissa bits, so that a compressed 4 MiB chunk still
/// stores more than one `BLOCK_LEN` (the streaming block is really used).
fn field() -> Vec<u8> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    (0..SHAPE.iter().product::<u64>())
        .flat_map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let smooth = ((i % 1000) as f32 * 0.5).to_bits();
            f32::from_bits(smooth ^ (x as u32 & 0xFFFF)).to_le_bytes()
        })
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
            "blosc",
            array(
                &[json!({"name": "blosc", "configuration": {
                    "cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 4,
                    "blocksize": BLOSC_BLOCK}})],
                |c| zinto_tests::blosc_writer::blosc_lz4(c, 4, BLOSC_BLOCK, true),
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

/// The Blosc case's block size (c-blosc picks 256 KiB for float32 at clevel 5 with LZ4).
const BLOSC_BLOCK: usize = 256 * 1024;

/// Heap a worker holds besides its input block, per codec (docs/memory.md, term `D`):
/// zlib-rs's (or miniz_oxide's) inflate state for gzip; ruzstd's window and a block with the pure-Rust zstd
/// path; Blosc's scratch (one block and its block table); nothing of size otherwise (the C
/// library's context is allocated by C). Each with a little room for the worker's context and
/// bookkeeping.
fn decoder_state(name: &str) -> usize {
    let state = match name {
        // zlib-rs keeps its own 32 KiB window and tables (about 48 KiB); miniz_oxide's state
        // lives in the worker's context.
        "gzip+crc32c" if cfg!(feature = "zlib-rs") => 64 * 1024,
        "gzip+crc32c" => 16 * 1024,
        "blosc" => BLOSC_BLOCK + 4 * CHUNK_LEN.div_ceil(BLOSC_BLOCK),
        "zstd" => zstd_window(name),
        _ => 0,
    };
    state + 8 * 1024
}

/// The input block a compressed chunk streams through: `min(BLOCK_LEN, stored size)`, none
/// for an uncompressed one (docs/memory.md, term `B`).
fn block(name: &str, store: &MemoryStore) -> usize {
    if name == "uncompressed" {
        return 0;
    }
    let stored = (0..4)
        .map(|i| store.size(&format!("a/c/{i}/0/0")).unwrap().unwrap() as usize)
        .max()
        .unwrap();
    assert!(
        stored > BLOCK_LEN,
        "{name}: chunks of {stored} bytes do not fill a block"
    );
    BLOCK_LEN
}

/// Bookkeeping of a read (docs/memory.md, term `P`): the context pool, chunk keys, threads.
const BOOKKEEPING: usize = 64 * 1024;

/// The bound docs/memory.md gives a whole-chunk read of `name` on `threads` workers.
fn whole_read_bound(name: &str, store: &MemoryStore, threads: usize) -> usize {
    threads * (block(name, store) + decoder_state(name)) + BOOKKEEPING
}

/// Reads the whole array from `store` on `threads` workers: (extra live heap, largest single
/// allocation), checking the bytes.
fn whole_read(store: &(impl Store + 'static), threads: usize) -> (usize, usize) {
    let expected = field();
    let array = Array::open(store, "a").unwrap();
    let whole = Region::whole(array.shape()).unwrap();
    let mut out = vec![0u8; expected.len()];
    let options = ReadOptions {
        threads: NonZeroUsize::new(threads),
        ..ReadOptions::default()
    };
    let (result, largest, extra) = measure(|| array.read_into_with(&whole, &mut out, &options));
    result.unwrap();
    assert!(out == expected, "wrong bytes");
    (extra, largest)
}

/// A store that allocates `bytes` on every chunk read and copies through it: the mistake the
/// memory bounds exist to catch (a chunk-sized buffer on the read path).
struct Injecting<S> {
    inner: S,
    bytes: usize,
}

impl<S: Store> Store for Injecting<S> {
    fn size(&self, key: &str) -> Result<Option<u64>, StoreError> {
        self.inner.size(key)
    }

    fn read_into(&self, key: &str, offset: u64, dst: &mut [u8]) -> Result<(), StoreError> {
        if !key.contains("/c/") {
            return self.inner.read_into(key, offset, dst);
        }
        let mut buf = vec![0u8; self.bytes.max(dst.len())];
        let part = &mut buf[..dst.len()];
        self.inner.read_into(key, offset, part)?;
        dst.copy_from_slice(part);
        Ok(())
    }
}

#[test]
fn whole_chunk_reads_stay_within_each_codecs_bound() {
    let _turn = one_at_a_time();
    let threads = 2;
    for (name, store) in cases() {
        let bound = whole_read_bound(name, &store, threads);
        let store: &'static MemoryStore = Box::leak(Box::new(store));
        let (extra, largest) = whole_read(store, threads);
        eprintln!("{name}: {extra} bytes added, bound {bound}");
        assert!(
            largest < CHUNK_LEN || zstd_window(name) > 0,
            "{name}: allocated {largest} bytes at once"
        );
        assert!(
            extra <= bound,
            "{name}: read added {extra} live bytes, bound {bound}"
        );

        // Later reads reuse the workers' buffers: once a worker has read a chunk, reading it
        // again allocates nothing of size. (Which of the two pooled workers a one-thread read
        // gets is not fixed, so the second one-thread read is the one measured.)
        let array = Array::open(store, "a").unwrap();
        let whole = Region::whole(array.shape()).unwrap();
        let mut out = vec![0u8; CHUNK_LEN * 4];
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
fn whole_chunk_bounds_catch_a_chunk_sized_buffer() {
    // The mutation check of the test above, kept: the same reads through a store that
    // allocates one chunk's worth on each read go over every codec's bound.
    let _turn = one_at_a_time();
    let threads = 2;
    for (name, inner) in cases() {
        let bound = whole_read_bound(name, &inner, threads);
        let store: &'static Injecting<MemoryStore> = Box::leak(Box::new(Injecting {
            inner,
            bytes: CHUNK_LEN,
        }));
        let (extra, _) = whole_read(store, threads);
        assert!(
            extra > bound,
            "{name}: a chunk-sized buffer per read went unnoticed ({extra} <= {bound})"
        );
    }
}

/// A store whose first chunk read on each thread waits (up to 10 s) until `parties` threads
/// have made one: a read on `parties` workers then has every worker busy at once, holding its
/// buffers, instead of one worker happening to take every chunk.
struct Meeting<S> {
    inner: S,
    parties: usize,
    met: Mutex<HashSet<ThreadId>>,
    all_met: Condvar,
}

impl<S> Meeting<S> {
    fn new(inner: S, parties: usize) -> Self {
        Self {
            inner,
            parties,
            met: Mutex::new(HashSet::new()),
            all_met: Condvar::new(),
        }
    }

    fn threads_met(&self) -> usize {
        self.met.lock().unwrap().len()
    }
}

impl<S: Store> Store for Meeting<S> {
    fn size(&self, key: &str) -> Result<Option<u64>, StoreError> {
        self.inner.size(key)
    }

    fn read_into(&self, key: &str, offset: u64, dst: &mut [u8]) -> Result<(), StoreError> {
        if key.contains("/c/") {
            let mut met = self.met.lock().unwrap();
            if met.insert(std::thread::current().id()) {
                self.all_met.notify_all();
                let (_met, _) = self
                    .all_met
                    .wait_timeout_while(met, Duration::from_secs(10), |m| m.len() < self.parties)
                    .unwrap();
            }
        }
        self.inner.read_into(key, offset, dst)
    }
}

/// Rows 1..15, a band of columns: every one of the 4 chunks is partial.
fn partial_selection() -> Region {
    Region::new(&[1, 100, 7], &[14, 300, 400]).unwrap()
}

/// Reads the partial selection on 2 workers that both hold a chunk at once: extra live heap.
fn partial_read(store: &(impl Store + 'static)) -> usize {
    let array = Array::open(store, "a").unwrap();
    let sel = partial_selection();
    let mut out = vec![0u8; array.selection_len(&sel).unwrap()];
    let options = ReadOptions {
        threads: NonZeroUsize::new(2),
        ..ReadOptions::default()
    };
    let (result, _, extra) = measure(|| array.read_into_with(&sel, &mut out, &options));
    result.unwrap();
    let expected = field();
    let at = |z: u64, y: u64, x: u64| {
        let i = ((z * 512 + y) * 512 + x) as usize * 4;
        expected[i..i + 4].to_vec()
    };
    assert_eq!(out[..4].to_vec(), at(1, 100, 7));
    let last = out.len() - 4;
    assert_eq!(out[last..].to_vec(), at(14, 399, 406));
    extra
}

/// The bound docs/memory.md gives a read of partial `name` chunks on 2 workers: a window each
/// (path 3), besides a whole-chunk read's block and decoder state; never a chunk.
fn partial_read_bound(name: &str, store: &MemoryStore) -> usize {
    2 * (WINDOW_LEN + block(name, store) + decoder_state(name)) + BOOKKEEPING
}

/// The compressed cases: partial chunks stream through a window.
fn compressed_cases() -> Vec<(&'static str, MemoryStore)> {
    cases()
        .into_iter()
        .filter(|(name, _)| *name != "uncompressed")
        .collect()
}

#[test]
fn partial_chunk_reads_use_one_window_per_worker_not_a_chunk() {
    let _turn = one_at_a_time();
    for (name, store) in compressed_cases() {
        let bound = partial_read_bound(name, &store);
        let store: &'static Meeting<MemoryStore> = Box::leak(Box::new(Meeting::new(store, 2)));
        let extra = partial_read(store);
        eprintln!("partial {name}: {extra} bytes added, bound {bound}");
        // Both workers took chunks, and held their windows at the same time: the read did not
        // pass by one worker taking every chunk.
        assert_eq!(store.threads_met(), 2);
        assert!(
            extra >= 2 * WINDOW_LEN,
            "{name}: only {extra} bytes: one worker's window"
        );
        assert!(
            extra <= bound,
            "{name}: read added {extra} live bytes, bound {bound}"
        );
        // (ruzstd keeps the frame's window, here half the chunk, and grows it by doubling.)
        assert!(
            bound < 2 * CHUNK_LEN || zstd_window(name) > 0,
            "{name}: the bound allows a chunk per worker"
        );
    }
}

#[test]
fn partial_chunk_bound_catches_a_chunk_sized_buffer() {
    // The mutation check of the test above, kept: a chunk-sized buffer per chunk read goes over.
    let _turn = one_at_a_time();
    for (name, inner) in compressed_cases() {
        let bound = partial_read_bound(name, &inner);
        let injecting = Injecting {
            inner,
            bytes: CHUNK_LEN,
        };
        let store: &'static Meeting<Injecting<MemoryStore>> =
            Box::leak(Box::new(Meeting::new(injecting, 2)));
        let extra = partial_read(store);
        assert!(
            extra > bound,
            "{name}: a chunk-sized buffer per read went unnoticed ({extra} <= {bound})"
        );
    }
}

#[test]
fn an_edge_chunk_streams_its_tail_away_without_a_chunk_buffer() {
    // 15 rows in chunks of 4: the last chunk holds one row past the array's end. The three
    // whole chunks go straight into the output; the edge chunk through a window.
    let _turn = one_at_a_time();
    for (name, mut store) in compressed_cases() {
        let meta = store.get("a/zarr.json").unwrap().to_vec();
        let mut meta: serde_json::Value = serde_json::from_slice(&meta).unwrap();
        meta["shape"] = json!([15, 512, 512]);
        store.insert("a/zarr.json", serde_json::to_vec(&meta).unwrap());
        let bound = whole_read_bound(name, &store, 1) + WINDOW_LEN;
        let store: &'static MemoryStore = Box::leak(Box::new(store));
        let array = Array::open(store, "a").unwrap();
        let whole = Region::whole(array.shape()).unwrap();
        let mut out = vec![0u8; array.selection_len(&whole).unwrap()];
        let one = ReadOptions {
            threads: NonZeroUsize::new(1),
            ..ReadOptions::default()
        };
        let (result, largest, extra) = measure(|| array.read_into_with(&whole, &mut out, &one));
        result.unwrap();
        assert!(out[..] == field()[..out.len()], "{name}: wrong bytes");
        eprintln!("edge {name}: {extra} bytes added, bound {bound}");
        assert!(
            largest < CHUNK_LEN || zstd_window(name) > 0,
            "{name}: allocated {largest} bytes at once"
        );
        assert!(
            extra <= bound,
            "{name}: read added {extra} live bytes, bound {bound}"
        );
    }
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
    // first, too), less than the coalescing distance, so each chunk's are read from a selected
    // byte to a later one, the 4-byte elements and the gaps merged between them, in reads of
    // at most COALESCE_MAX: as many elements as fit, then the next read.
    assert!(row - 4 < COALESCE_GAP);
    let sel = Region::new(&[0, 0, 3], &[16, 512, 1]).unwrap();
    let out = read(&sel);
    let per_read = (COALESCE_MAX - 4) / row + 1; // elements a read holds
    let elements = 4 * 512; // in a chunk
    let (reads, bytes) = (0..elements)
        .step_by(per_read)
        .map(|first| (1, ((elements - first).min(per_read) - 1) * row + 4))
        .fold((0, 0), |(r, b), (n, len)| (r + n, b + len));
    assert!(reads > 1, "a chunk's column was one read");
    assert_eq!(store.take(), (4 * bytes as u64, 4 * reads));
    for (k, v) in out.chunks(4).enumerate() {
        let i = (k * 512 + 3) * 4;
        assert_eq!(v, &expected[i..i + 4], "element {k}");
    }
}

/// Half the columns of every plane, on 2 workers that both hold a chunk at once: rows of 1 KiB
/// with 1 KiB between them, every range of a chunk within the coalescing distance of the next
/// (the shape of a 3-d chunk read whole into a larger output). Extra live heap.
fn half_columns_read(store: &(impl Store + 'static)) -> usize {
    let array = Array::open(store, "a").unwrap();
    let sel = Region::new(&[0, 0, 0], &[16, 512, 256]).unwrap();
    let mut out = vec![0u8; array.selection_len(&sel).unwrap()];
    let options = ReadOptions {
        threads: NonZeroUsize::new(2),
        ..ReadOptions::default()
    };
    let (result, _, extra) = measure(|| array.read_into_with(&sel, &mut out, &options));
    result.unwrap();
    let expected = field();
    for (r, got) in out.chunks(256 * 4).enumerate() {
        let at = r * 512 * 4;
        assert!(got == &expected[at..at + 256 * 4], "row {r}");
    }
    extra
}

/// The bound docs/memory.md gives an uncompressed chunk landing in many runs, on 2 workers: one
/// coalesced read's scratch each, never a chunk.
const RAW_RUNS_BOUND: usize = 2 * COALESCE_MAX + BOOKKEEPING;

#[test]
fn raw_chunks_in_many_runs_read_through_a_bounded_scratch_not_a_chunk() {
    let _turn = one_at_a_time();
    let (_, store) = cases().swap_remove(0);
    let store: &'static Meeting<MemoryStore> = Box::leak(Box::new(Meeting::new(store, 2)));
    let extra = half_columns_read(store);
    eprintln!("raw chunks in runs: {extra} bytes added, bound {RAW_RUNS_BOUND}");
    assert_eq!(store.threads_met(), 2);
    // Both workers held a coalesced read's scratch: 255 rows and a half, 2 KiB apart.
    assert!(
        extra >= 2 * (255 * 2048 + 1024),
        "only {extra} bytes: the reads were not coalesced on both workers"
    );
    assert!(
        extra <= RAW_RUNS_BOUND,
        "read added {extra} live bytes, bound {RAW_RUNS_BOUND}"
    );
    const { assert!(RAW_RUNS_BOUND < CHUNK_LEN) };
}

#[test]
fn raw_chunks_in_many_runs_bound_catches_a_chunk_sized_buffer() {
    // The mutation check of the test above: a chunk-sized buffer per chunk read goes over (as
    // the coalesced read of a whole chunk's span did before COALESCE_MAX).
    let _turn = one_at_a_time();
    let (_, inner) = cases().swap_remove(0);
    let injecting = Injecting {
        inner,
        bytes: CHUNK_LEN,
    };
    let store: &'static Meeting<Injecting<MemoryStore>> =
        Box::leak(Box::new(Meeting::new(injecting, 2)));
    let extra = half_columns_read(store);
    assert!(
        extra > RAW_RUNS_BOUND,
        "a chunk-sized buffer per read went unnoticed ({extra} <= {RAW_RUNS_BOUND})"
    );
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
    assert!(largest <= COALESCE_MAX, "allocated {largest} bytes at once");
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
    use zinto::core::codec::{BytesCodecs, Checksums, Compressor, Endian};
    use zinto::core::records::{KeyType, RecordLayout};

    let (store, keys, all) = spectra_chunks(1_000_000, 100);
    let codecs = BytesCodecs {
        compressor: Some(Compressor::ZSTD),
        checksums: Checksums::NONE,
    };
    let layout = RecordLayout::new(24, 8, KeyType::F64, Endian::Little).unwrap();
    let threads = NonZeroUsize::new(2).unwrap();
    let options = ReadOptions {
        threads: Some(threads),
        progress: None,
        ..ReadOptions::default()
    };
    let (mut out, largest, peak) = measure(|| {
        let plan = ConcatPlan::new(&store, &keys, codecs).unwrap();
        plan.read_to_vec(&store, &options).unwrap()
    });
    // The sort on its own: threads' stacks and handles, nothing on the heap of any size.
    let (sorted, _, sort_peak) =
        measure(|| zinto::sort_records_parallel(&mut out, &layout, threads));
    sorted.unwrap();
    assert!(
        sort_peak <= 64 * 1024,
        "the parallel sort added {sort_peak} live bytes"
    );
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

/// `n` strings of 0 to 40 characters, some not ASCII, as a v3 `string` array in chunks of
/// `chunk` elements, compressed with `compressor` (`zstd`, else zlib); returns the store and the sum of the decoded chunks.
fn strings(n: usize, chunk: usize, compressor: &str) -> (MemoryStore, Vec<String>, usize) {
    let values: Vec<String> = (0..n)
        .map(|i| {
            let len = (i * 7919) % 41;
            let c = if i % 5 == 0 { 'é' } else { 'a' };
            std::iter::repeat_n(c, len).collect()
        })
        .collect();
    let codec = match compressor {
        "zstd" => json!({"name": "zstd", "configuration": {"level": 1}}),
        _ => json!({"name": "numcodecs.zlib", "configuration": {"level": 1}}),
    };
    let meta = json!({
        "zarr_format": 3, "node_type": "array", "shape": [n], "data_type": "string",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [chunk]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": "",
        "codecs": [{"name": "vlen-utf8"}, codec],
    });
    let mut store = MemoryStore::new();
    store.insert("s/zarr.json", serde_json::to_vec(&meta).unwrap());
    let mut decoded_total = 0;
    for (i, part) in values.chunks(chunk).enumerate() {
        let mut raw = (chunk as u32).to_le_bytes().to_vec();
        for k in 0..chunk {
            // The edge chunk is padded with the fill value, as zarr-python writes it.
            let s = part.get(k).map_or("", String::as_str);
            raw.extend((s.len() as u32).to_le_bytes());
            raw.extend(s.as_bytes());
        }
        decoded_total += raw.len();
        let stored = match compressor {
            "zstd" => zstd::bulk::compress(&raw, 1).unwrap(),
            _ => {
                use std::io::Write;
                let mut e =
                    flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(1));
                e.write_all(&raw).unwrap();
                e.finish().unwrap()
            }
        };
        store.insert(format!("s/c/{i}"), stored);
    }
    (store, values, decoded_total)
}

/// Variable-length reads allocate the offsets and values exactly, plus one chunk's scratch. A
/// zlib chunk states no decoded size: its scratch grows as it decodes (a vector's doubling,
/// up to twice the chunk) through the worker's window.
#[test]
fn variable_length_reads_allocate_the_exact_buffers_and_one_chunk() {
    let _turn = one_at_a_time();
    for compressor in ["zstd", "zlib"] {
        let (n, chunk) = (200_000usize, 10_000usize);
        let (store, values, decoded_total) = strings(n, chunk, compressor);
        let array = Array::open(&store, "s").unwrap();
        let whole = Region::whole(&[n as u64]).unwrap();
        let (data, _, peak) = measure(|| array.read_vlen(&whole).unwrap());
        assert!(data.iter().zip(&values).all(|(a, b)| a == b.as_bytes()));
        let exact = data.values().len() + data.offsets().len() * 8;
        assert_eq!(
            exact,
            values.iter().map(String::len).sum::<usize>() + (n + 1) * 8
        );
        // One worker's chunk scratch: the decoded chunk (count, lengths, bytes), where each
        // item starts (16 bytes an element), the streaming block (at most a stored chunk), and
        // the decoder; with the pure-Rust zstd decoder, its window (the decoded chunk)
        // besides; for zlib, the decoded chunk grown by doubling and the worker's window.
        let largest_chunk = decoded_total.div_ceil(n / chunk);
        let largest_stored = (0..n / chunk)
            .map(|i| store.get(&format!("s/c/{i}")).unwrap().len())
            .max()
            .unwrap();
        let (decoded, window) = match compressor {
            "zlib" => (2 * largest_chunk, WINDOW_LEN),
            _ if cfg!(feature = "zstd-c") => (largest_chunk, 0),
            _ => (largest_chunk, largest_chunk + 256 * 1024),
        };
        let scratch = decoded + 16 * chunk + largest_stored + window + (64 << 10);
        let bound = exact + exact / 10 + scratch;
        eprintln!(
            "vlen read ({compressor}): peak {peak} B, exact buffers {exact} B, scratch allowance {scratch} B, bound {bound} B, all decoded chunks {decoded_total} B"
        );
        assert!(
            peak <= bound,
            "{compressor}: peak {peak} bytes over 1.1 x {exact} (offsets + values) + {scratch} (one chunk's scratch)"
        );
        // The bound would catch a read that held every decoded chunk at once.
        assert!(
            exact + decoded_total > bound,
            "{compressor}: the bound is too loose to mean anything"
        );
    }
}

/// Writes `store`'s objects as files below a new temporary directory.
#[cfg(feature = "remote")]
fn to_files(store: &MemoryStore, name: &str) -> std::path::PathBuf {
    let name: String = name.chars().filter(char::is_ascii_alphanumeric).collect();
    let dir = std::env::temp_dir().join(format!("zinto-mem-{name}-{}", std::process::id()));
    for key in [
        "a/zarr.json",
        "a/c/0/0/0",
        "a/c/1/0/0",
        "a/c/2/0/0",
        "a/c/3/0/0",
    ] {
        let len = store.size(key).unwrap().unwrap() as usize;
        let mut bytes = vec![0u8; len];
        store.read_into(key, 0, &mut bytes).unwrap();
        let path = dir.join(key);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    dir
}

/// The largest buffer hyper (under object_store's reqwest) reads one response body into: its
/// read strategy's ceiling, 8 KiB + 100 x 4 KiB, which `BytesMut` may round up to twice that
/// when it grows (seen: 811 008 bytes).
#[cfg(feature = "remote")]
const HTTP_READ_BUFFER: usize = 2 * (8192 + 4096 * 100);

/// Heap one request in flight may hold (docs/memory.md, term `R`): the frames waiting for its
/// worker ([`zinto::store::FRAMES_AHEAD`]), the one being copied, and hyper's buffer being
/// filled, each at most [`HTTP_READ_BUFFER`]; and the test's own file server's 64 KiB
/// buffer for the connection (it runs in this process, so it counts).
#[cfg(feature = "remote")]
const PER_REQUEST: usize = (zinto::store::FRAMES_AHEAD + 2) * HTTP_READ_BUFFER + 64 * 1024;

/// What the first read through a new store sets up once: the runtime's worker state, the
/// connection pool, the keys of the read.
#[cfg(feature = "remote")]
const REMOTE_FIXED: usize = 1024 * 1024;

#[cfg(feature = "remote")]
#[test]
fn remote_reads_hold_a_few_frames_per_request_in_flight_not_a_chunk() {
    let _turn = one_at_a_time();
    for (name, store) in cases() {
        if name == "blosc" || name == "gzip+crc32c" {
            continue; // the codec's part of the bound is tested above; the transport is the same
        }
        let dir = to_files(&store, name);
        let server = zinto_tests::http::FileServer::start(&dir).unwrap();
        for in_flight in [1, 4] {
            let mut options = zinto::store::RemoteOptions::default();
            options.in_flight = NonZeroUsize::new(in_flight).unwrap();
            // The requests' own frames; the read-ahead budget is bounded by the next test.
            options.read_ahead = zinto::store::ReadAheadBudget::Bytes(0);
            let remote = zinto::store::RemoteStore::from_url_with(&server.url(), options).unwrap();
            for threads in [1, 2] {
                let (extra, largest) = whole_read(&remote, threads);
                eprintln!("{name}, {in_flight} in flight, {threads} workers: {extra} bytes");
                let bound = whole_read_bound(name, &store, threads)
                    + in_flight * PER_REQUEST
                    + REMOTE_FIXED;
                assert!(
                    extra <= bound,
                    "{name}, {in_flight} in flight, {threads} workers: {extra} bytes > {bound}"
                );
                assert!(
                    largest <= BLOCK_LEN.max(HTTP_READ_BUFFER),
                    "{name}: an allocation of {largest} bytes (chunks are {CHUNK_LEN})"
                );
            }
        }
        drop(server);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// Chunks of the read-ahead array: 16 MiB each, four of them, uncompressed bytes. Large next
/// to a request's few frames ([`PER_REQUEST`]), so one chunk held beyond the budget shows.
#[cfg(feature = "remote")]
const AHEAD_CHUNK: usize = 16 << 20;

/// Writes the read-ahead array (v3, uint8, four chunks of [`AHEAD_CHUNK`]) below a new
/// temporary directory: (the directory, the array's bytes).
#[cfg(feature = "remote")]
fn read_ahead_array() -> (std::path::PathBuf, Vec<u8>) {
    let dir = std::env::temp_dir().join(format!("zinto-mem-ahead-{}", std::process::id()));
    let len = 4 * AHEAD_CHUNK;
    let meta = json!({
        "zarr_format": 3, "node_type": "array", "shape": [len], "data_type": "uint8",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [AHEAD_CHUNK]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0, "codecs": [{"name": "bytes"}],
    });
    let bytes: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
    std::fs::create_dir_all(dir.join("a/c")).unwrap();
    std::fs::write(dir.join("a/zarr.json"), serde_json::to_vec(&meta).unwrap()).unwrap();
    for (i, chunk) in bytes.chunks(AHEAD_CHUNK).enumerate() {
        std::fs::write(dir.join(format!("a/c/{i}")), chunk).unwrap();
    }
    (dir, bytes)
}

/// Reads the read-ahead array over HTTP on one worker with all four requests in flight and
/// `budget` bytes of read-ahead, the worker pausing after its first chunk so that the other
/// bodies arrive meanwhile: the extra live heap of the read.
#[cfg(feature = "remote")]
fn read_ahead_extra(url: &str, expected: &[u8], budget: u64) -> usize {
    let mut options = zinto::store::RemoteOptions::default();
    options.in_flight = NonZeroUsize::new(4).unwrap();
    options.read_ahead = zinto::store::ReadAheadBudget::Bytes(budget);
    let remote = zinto::store::RemoteStore::from_url_with(url, options).unwrap();
    let array = Array::open(&remote, "a").unwrap();
    let whole = Region::whole(array.shape()).unwrap();
    let mut out = vec![0u8; expected.len()];
    let pause = |done: u64, _: u64| {
        if done == 1 {
            std::thread::sleep(Duration::from_millis(700));
        }
    };
    let read = ReadOptions {
        threads: NonZeroUsize::new(1),
        progress: Some(&pause),
        ..ReadOptions::default()
    };
    let (result, _, extra) = measure(|| array.read_into_with(&whole, &mut out, &read));
    result.unwrap();
    assert!(out == expected, "wrong bytes with a budget of {budget}");
    extra
}

#[cfg(feature = "remote")]
#[test]
fn remote_read_ahead_holds_bodies_within_its_budget_and_no_further() {
    let _turn = one_at_a_time();
    let (dir, bytes) = read_ahead_array();
    let server = zinto_tests::http::FileServer::start(&dir).unwrap();
    let none = read_ahead_extra(&server.url(), &bytes, 0);
    let budget = 8 << 20;
    let within = read_ahead_extra(&server.url(), &bytes, budget as u64);
    // The mutation: a read-ahead that ignores its budget (three chunks held ahead).
    let unbounded = read_ahead_extra(&server.url(), &bytes, 1 << 30);
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
    // docs/memory.md: the budget, and at most one frame beyond it (a frame waits for bytes
    // whole), on top of the requests' own frames.
    let base = BLOCK_LEN + BOOKKEEPING + 4 * PER_REQUEST + REMOTE_FIXED;
    let bound = base + budget + HTTP_READ_BUFFER;
    eprintln!(
        "read-ahead: {none} B without (bound {base}), {within} B with {budget} B (bound {bound}), {unbounded} B unbounded"
    );
    assert!(none <= base, "{none} bytes without read-ahead > {base}");
    assert!(
        within <= bound,
        "{within} bytes > {bound} with a budget of {budget}"
    );
    // The budget is really spent: the bodies arrived while the worker paused.
    assert!(
        within >= none + budget / 2,
        "{within} bytes with a budget of {budget}, {none} without: nothing read ahead"
    );
    // The bound would catch a read-ahead holding a chunk beyond its budget.
    assert!(
        base + AHEAD_CHUNK > bound && unbounded > bound,
        "{unbounded} <= {bound}"
    );
}

/// A v3 `string` array of one chunk of four strings, the first `big` bytes of `a`, stored as
/// `how` compresses it: `zstd` with the frame's content size, `zstd-stream` without it,
/// `zlib` (which never states it).
fn string_bomb(big: usize, how: &str) -> MemoryStore {
    let mut raw = 4u32.to_le_bytes().to_vec();
    for s in [vec![b'a'; big], b"b".to_vec(), Vec::new(), b"d".to_vec()] {
        raw.extend((s.len() as u32).to_le_bytes());
        raw.extend(s);
    }
    let (codec, stored) = match how {
        "zstd" => (
            json!({"name": "zstd"}),
            zstd::bulk::compress(&raw, 3).unwrap(),
        ),
        "zstd-stream" => {
            let mut e = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
            e.include_contentsize(false).unwrap();
            e.write_all(&raw).unwrap();
            (json!({"name": "zstd"}), e.finish().unwrap())
        }
        _ => {
            let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
            e.write_all(&raw).unwrap();
            (json!({"name": "numcodecs.zlib"}), e.finish().unwrap())
        }
    };
    let meta = json!({
        "zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "string",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": "",
        "codecs": [{"name": "vlen-utf8"}, codec],
    });
    let mut store = MemoryStore::new();
    store.insert("s/zarr.json", serde_json::to_vec(&meta).unwrap());
    store.insert("s/c/0", stored);
    store
}

/// A chunk of strings that decodes to far more than it stores (a decompression bomb) is
/// refused at `decoded_chunk_limit`, naming the chunk and the option, having held no more
/// than the limit: before any buffer when the frame states its size, as the bytes decode when
/// it does not. Raising the limit reads it, and the same bound then catches the chunk.
#[test]
fn a_string_chunk_past_the_decoded_chunk_limit_is_refused_holding_no_more_than_it() {
    let _turn = one_at_a_time();
    let (big, limit) = (48usize << 20, 1u64 << 20);
    for how in ["zstd", "zstd-stream", "zlib"] {
        let store = string_bomb(big, how);
        let stored = store.get("s/c/0").unwrap().len();
        assert!(stored < big / 1000, "{how}: {stored} bytes stored");
        let array = Array::open(&store, "s").unwrap();
        let whole = Region::whole(&[4]).unwrap();
        let read = |limit| {
            let options = ReadOptions {
                decoded_chunk_limit: Some(limit),
                ..ReadOptions::default()
            };
            measure(|| array.read_vlen_with(&whole, &options))
        };
        // The limit, half of it again while the buffer last doubled (a reallocation holds the
        // old block and the new one), the window it is decoded through, the stored chunk's
        // block, and bookkeeping; with the pure-Rust zstd decoder, its window besides (the
        // frame's: 2 MiB at level 3, and a block).
        let ruzstd = if how.starts_with("zstd") && cfg!(not(feature = "zstd-c")) {
            (2 << 20) + (512 << 10)
        } else {
            0
        };
        let bound = limit as usize * 3 / 2 + WINDOW_LEN + stored + ruzstd + (64 << 10);
        let (refused, largest, peak) = read(limit);
        let largest_allowed = (limit as usize).max(ruzstd);
        assert!(
            largest <= largest_allowed,
            "{how}: a buffer of {largest} bytes"
        );
        let e = refused.unwrap_err();
        assert!(
            matches!(e.kind(), zinto::ErrorKind::DecodedTooLarge { limit: l } if *l == limit),
            "{how}: {e}"
        );
        let msg = e.to_string();
        assert!(
            msg.contains("s/c/0") && msg.contains("decoded_chunk_limit"),
            "{msg}"
        );
        assert!(
            peak <= bound,
            "{how}: refused after holding {peak} bytes, bound {bound}"
        );
        // Mutation check: a read allowed the whole chunk holds it, over the bound.
        let (data, _, peak) = read(big as u64 * 2);
        let data = data.unwrap();
        assert_eq!(data.get(0).map(<[u8]>::len), Some(big), "{how}");
        assert_eq!(data.get(3), Some(&b"d"[..]), "{how}");
        assert!(
            peak > bound,
            "{how}: the bound {bound} would not catch {peak} bytes"
        );
    }
}

/// `zarr.json` of the `v3` float32 array below with `extra` as its last top-level fields: a
/// document of about `len` bytes, most of it the list of numbers `extra` is given.
fn numbers_document(len: usize, extra: impl Fn(&str) -> String) -> Vec<u8> {
    let numbers = format!("[{}1]", "1,".repeat(len / 2));
    format!(
        r#"{{"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "float32",
        "chunk_grid": {{"name": "regular", "configuration": {{"chunk_shape": [2]}}}},
        "chunk_key_encoding": {{"name": "default"}}, "fill_value": 0.0,
        "codecs": [{{"name": "bytes", "configuration": {{"endian": "little"}}}}], {}}}"#,
        extra(&numbers)
    )
    .into_bytes()
}

/// Opening an array whose `zarr.json` is 100 MB of numbers holds less than three times the
/// document: the document read, the attributes' text kept, no JSON tree (about twenty times
/// the text). Numbers where a small field belongs are refused before a tree is built; in an
/// extension that need not be understood they are skipped. Asking for such attributes builds
/// the tree, which the bound catches.
#[test]
fn a_metadata_document_of_numbers_opens_in_memory_proportional_to_it() {
    let _turn = one_at_a_time();
    let len = 100_000_000;
    // (where the numbers go, the fields that hold them, whether the array opens)
    type Case = (&'static str, fn(&str) -> String, bool);
    let cases: [Case; 4] = [
        (
            "attributes",
            |n| format!(r#""attributes": {{"n": {n}}}"#),
            true,
        ),
        (
            "extension",
            |n| format!(r#""x": {{"must_understand": false, "n": {n}}}"#),
            true,
        ),
        (
            "dimension_names",
            |n| format!(r#""dimension_names": {n}"#),
            false,
        ),
        (
            "storage_transformers",
            |n| format!(r#""storage_transformers": {n}"#),
            false,
        ),
    ];
    for (name, extra, opens) in cases {
        let doc = numbers_document(len, extra);
        let mut store = MemoryStore::new();
        store.insert("a/zarr.json", doc.clone());
        let started = std::time::Instant::now();
        let (array, _, peak) = measure(|| Array::open(&store, "a"));
        eprintln!(
            "{name}: {} bytes, peak {peak} bytes ({:.2}x), {:.2} s",
            doc.len(),
            peak as f64 / doc.len() as f64,
            started.elapsed().as_secs_f64()
        );
        assert_eq!(array.is_ok(), opens, "{name}: {:?}", array.err());
        assert!(peak < 3 * doc.len(), "{name}: opening held {peak} bytes");
        if name == "attributes" {
            // Mutation check: the tree of the numbers goes over the bound.
            let array = array.unwrap();
            let (attrs, _, peak) = measure(|| array.attributes().map(|a| a.len()));
            assert_eq!(attrs.unwrap(), 1);
            assert!(peak > 3 * doc.len(), "the tree took only {peak} bytes");
        }
    }
}

/// Rows of the chunks of the rectilinear case: 4 MiB, 2 MiB, 6 MiB and 4 MiB of float32.
const RECT_ROWS: [usize; 4] = [4, 2, 6, 4];
const ROW_LEN: usize = 512 * 512 * 4;

/// The field as a v3 array on a rectilinear grid (`[[4, 2, 6, 4], 512, 512]`), zstd.
fn rect_array() -> MemoryStore {
    let meta = json!({
        "zarr_format": 3, "node_type": "array", "shape": SHAPE, "data_type": "float32",
        "chunk_grid": {"name": "rectilinear", "configuration": {
            "kind": "inline", "chunk_shapes": [RECT_ROWS, 512, 512]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0.0,
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                   {"name": "zstd", "configuration": {"level": 0}}],
    });
    let mut store = MemoryStore::new();
    store.insert("a/zarr.json", serde_json::to_vec(&meta).unwrap());
    let field = field();
    let mut at = 0;
    for (i, rows) in RECT_ROWS.iter().enumerate() {
        let chunk = &field[at..at + rows * ROW_LEN];
        store.insert(
            format!("a/c/{i}/0/0"),
            zstd::bulk::compress(chunk, 0).unwrap(),
        );
        at += rows * ROW_LEN;
    }
    store
}

/// On a rectilinear grid a whole-chunk read holds what it holds on a regular one (the
/// regular zstd bound, no allocation as large as the smallest chunk); the same read through a
/// store that allocates the largest chunk (6 rows) on each read goes over it.
#[test]
fn rectilinear_reads_keep_the_regular_bound_and_catch_a_chunk_sized_buffer() {
    let _turn = one_at_a_time();
    let threads = 2;
    let smallest = 2 * ROW_LEN;
    let store: &'static MemoryStore = Box::leak(Box::new(rect_array()));
    let bound = whole_read_bound("zstd", store, threads);
    let (extra, largest) = whole_read(store, threads);
    eprintln!("rectilinear zstd: {extra} bytes added, bound {bound}");
    assert!(
        largest < smallest || zstd_window("zstd") > 0,
        "allocated {largest} bytes at once"
    );
    assert!(
        extra <= bound,
        "read added {extra} live bytes, bound {bound}"
    );
    // The largest chunk's buffer per read (6 rows): the smallest (2 rows) stays under a
    // bound that holds the pure-Rust decoder's windows.
    let injecting: &'static Injecting<MemoryStore> = Box::leak(Box::new(Injecting {
        inner: rect_array(),
        bytes: 6 * ROW_LEN,
    }));
    let (extra, _) = whole_read(injecting, threads);
    assert!(
        extra > bound,
        "a chunk-sized buffer per read went unnoticed ({extra} <= {bound})"
    );
}

/// The field in shards on a rectilinear grid (`[[4, 2, 6, 4], 512, 512]`) of one-row raw inner
/// chunks, each shard its own index, written by zinto into a MemoryStore.
fn rect_shard_array() -> MemoryStore {
    let rows = RECT_ROWS.iter().map(|&r| r as u64).collect();
    let array = ArrayBuilder::new(&SHAPE, DataType::Float32, &[1, 512, 512])
        .shards(&[0, 512, 512])
        .chunk_edges(vec![Some(rows), None, None])
        .create(MemoryStore::new(), "a")
        .unwrap();
    array
        .write_from(&Region::whole(&SHAPE).unwrap(), &field())
        .unwrap();
    array.store().clone()
}

/// Shards on a rectilinear grid read as regular shards do: each inner chunk straight into the
/// output, a shard's index the only allocation it adds (the uncompressed bound); the same read
/// through a store that allocates the largest shard (6 rows) on each read goes over it.
#[test]
fn rectilinear_shard_reads_keep_the_regular_bound_and_catch_a_shard_sized_buffer() {
    let _turn = one_at_a_time();
    let threads = 2;
    let store: &'static MemoryStore = Box::leak(Box::new(rect_shard_array()));
    let bound = whole_read_bound("uncompressed", store, threads);
    let (extra, largest) = whole_read(store, threads);
    assert!(largest < ROW_LEN, "allocated {largest} bytes at once");
    assert!(
        extra <= bound,
        "read added {extra} live bytes, bound {bound}"
    );
    let injecting: &'static Injecting<MemoryStore> = Box::leak(Box::new(Injecting {
        inner: rect_shard_array(),
        bytes: 6 * ROW_LEN,
    }));
    let (extra, _) = whole_read(injecting, threads);
    assert!(
        extra > bound,
        "a shard-sized buffer per read went unnoticed ({extra} <= {bound})"
    );
}

/// A (400, 400) float32 array in (100, 100) chunks of 40,000 bytes, zstd (raw in a build
/// without the zstd encoder), written by zinto into a MemoryStore: a loader's small windows.
fn small_chunks() -> MemoryStore {
    let mut builder = ArrayBuilder::new(&[400, 400], DataType::Float32, &[100, 100]);
    if zinto_tests::build_writes("zstd") {
        builder = builder.zstd(1);
    }
    let array = builder.create(MemoryStore::new(), "a").unwrap();
    let values: Vec<u8> = (0..160_000u32)
        .flat_map(|i| ((i % 977) as f32 * 0.25).to_ne_bytes())
        .collect();
    array
        .write_from(&Region::whole(&[400, 400]).unwrap(), &values)
        .unwrap();
    array.store().clone()
}

/// Bytes of one chunk of [`small_chunks`].
const SMALL_CHUNK: usize = 100 * 100 * 4;

/// The largest allocation and the live bytes added by reading a 100 x 100 window at `start`
/// into an output allocated beforehand, after one read of it has warmed the worker's context
/// (its scratch is kept between reads).
fn window_read(store: &(impl Store + 'static), start: [u64; 2]) -> (usize, usize) {
    let array = Array::open(store, "a").unwrap();
    let window = Region::new(&start, &[100, 100]).unwrap();
    assert!(array.is_small_read(&window).unwrap());
    let mut out = vec![0u8; SMALL_CHUNK];
    array.read_into(&window, &mut out).unwrap();
    let (result, largest, extra) = measure(|| array.read_into(&window, &mut out));
    result.unwrap();
    (largest, extra)
}

/// A small read (a loader's window: one chunk, or cutting four) allocates nothing chunk-sized
/// beyond its output once its worker's context is warm, on the calling thread: 16 KiB of
/// bookkeeping at most (with the pure-Rust zstd decoder, its window and block too); the same
/// read through a store that allocates a chunk-sized buffer per read goes over.
#[test]
fn small_reads_allocate_nothing_chunk_sized_beyond_their_output() {
    let _turn = one_at_a_time();
    let store: &'static MemoryStore = Box::leak(Box::new(small_chunks()));
    let c_zstd = cfg!(feature = "zstd-c") || !zinto_tests::build_writes("zstd");
    let bound = (16 << 10) + if c_zstd { 0 } else { SMALL_CHUNK + (256 << 10) };
    for start in [[100, 200], [50, 250]] {
        let (largest, extra) = window_read(store, start);
        eprintln!("window at {start:?}: largest {largest}, {extra} bytes added");
        assert!(extra <= bound, "{start:?}: added {extra} > {bound}");
        let injecting: &'static Injecting<MemoryStore> = Box::leak(Box::new(Injecting {
            inner: store.clone(),
            bytes: SMALL_CHUNK,
        }));
        let (_, more) = window_read(injecting, start);
        assert!(
            !c_zstd || more > bound,
            "{start:?}: a chunk-sized buffer went unnoticed ({more} <= {bound})"
        );
    }
}

/// Rows of every chunk in any order with repeats, a list of columns, a band of the last axis:
/// a selection the read gathers (issue 62).
fn gathered_selection(shape: &[u64]) -> zinto::core::selection::Selection {
    use zinto::core::selection::{AxisSel, Selection};
    let cols: Vec<i64> = (0..60)
        .map(|i| (i * 37 % 512) as i64)
        .chain([-1, 5, 5])
        .collect();
    Selection::orthogonal(
        vec![
            AxisSel::from_signed(&[15, 0, 3, 3, 9, -4, 1], shape[0], 0).unwrap(),
            AxisSel::from_signed(&cols, shape[1], 1).unwrap(),
            AxisSel::Range {
                start: 7,
                stop: 407,
            },
        ],
        shape,
    )
    .unwrap()
}

/// Points over the first and last axes (one element of a row each: runs too short to read
/// one by one), the middle axis whole; the points span the first and last rows of the two
/// chunks they touch, so each worker's box is a whole chunk (both held at once however the
/// workers' reads interleave).
fn gathered_points(shape: &[u64]) -> zinto::core::selection::Selection {
    use zinto::core::selection::{AxisSel, Group, Points, Selection};
    let rows: Vec<i64> = vec![15, 0, 3, 3, 12, 1];
    let cols: Vec<i64> = vec![0, 511, 5, 5, 7, 300];
    Selection::new(
        vec![
            Group::Points(Points::from_signed(&[0, 2], &[&rows, &cols], shape).unwrap()),
            Group::Axis {
                dim: 1,
                sel: AxisSel::Range {
                    start: 0,
                    stop: 512,
                },
            },
        ],
        shape,
    )
    .unwrap()
}

/// Reads the gathered selection (or, with `points`, the points) on 2 workers that both hold
/// a chunk at once: the extra live heap, the bytes checked against the field.
fn gathered_read(store: &(impl Store + 'static), points: bool) -> usize {
    let array = Array::open(store, "a").unwrap();
    let sel = if points {
        gathered_points(array.shape())
    } else {
        gathered_selection(array.shape())
    };
    let mut out = vec![0u8; array.selected_len(&sel).unwrap()];
    let options = ReadOptions {
        threads: NonZeroUsize::new(2),
        ..ReadOptions::default()
    };
    let (result, _, extra) = measure(|| array.read_selection_into_with(&sel, &mut out, &options));
    result.unwrap();
    let expected = field();
    let at = |z: u64, y: u64, x: u64| {
        let i = ((z * 512 + y) * 512 + x) as usize * 4;
        expected[i..i + 4].to_vec()
    };
    let last = out.len() - 4;
    if points {
        // Output (0, 0) is row 15, x 0, y 0; the last is row 1, x 300, y 511.
        assert_eq!(out.len(), 6 * 512 * 4);
        assert_eq!(out[..4].to_vec(), at(15, 0, 0));
        assert_eq!(out[last..].to_vec(), at(1, 511, 300));
    } else {
        // Output (0, 0, 0) is row 15, column 0, x 7; the last is row 1, column 5, x 406.
        assert_eq!(out[..4].to_vec(), at(15, 0, 7));
        assert_eq!(out[last..].to_vec(), at(1, 5, 406));
    }
    extra
}

/// The bound of a gathered read on 2 workers (docs/memory.md): per worker one chunk of
/// scratch (a compressed chunk decoded whole into it; an uncompressed one the rows of it the
/// piece needs), the block and the decoder's state; the plan's index arrays; never a second
/// chunk. Runs of an uncompressed chunk long enough are read straight into the output: no
/// scratch at all.
fn gathered_read_bound(name: &str, store: &MemoryStore, points: bool) -> usize {
    let index_arrays = 64 * 1024;
    let scratch = match (name, points) {
        ("uncompressed", false) => 0,
        // The chunk's rows read into scratch through the read path's block.
        ("uncompressed", true) => CHUNK_LEN + BLOCK_LEN,
        _ => CHUNK_LEN,
    };
    2 * (scratch + block(name, store) + decoder_state(name)) + index_arrays + BOOKKEEPING
}

/// Every case, and the uncompressed one again through its rows' box (points: runs too short).
fn gathered_cases() -> Vec<(&'static str, MemoryStore, bool)> {
    let mut all: Vec<_> = cases().into_iter().map(|(n, s)| (n, s, false)).collect();
    all.push(("uncompressed", array(&[], <[u8]>::to_vec), true));
    all
}

#[test]
fn gathered_reads_use_one_chunk_of_scratch_per_worker() {
    let _turn = one_at_a_time();
    for (name, store, points) in gathered_cases() {
        let bound = gathered_read_bound(name, &store, points);
        let store: &'static Meeting<MemoryStore> = Box::leak(Box::new(Meeting::new(store, 2)));
        let extra = gathered_read(store, points);
        eprintln!("gathered {name} (points: {points}): {extra} bytes added, bound {bound}");
        assert_eq!(store.threads_met(), 2);
        assert!(
            extra <= bound,
            "{name}: a gathered read added {extra} live bytes, bound {bound}"
        );
    }
}

#[test]
fn gathered_read_bound_catches_a_chunk_sized_buffer() {
    // The mutation check of the test above: a chunk-sized buffer per chunk read goes over.
    let _turn = one_at_a_time();
    for (name, inner, points) in gathered_cases() {
        let bound = gathered_read_bound(name, &inner, points);
        let injecting = Injecting {
            inner,
            bytes: CHUNK_LEN,
        };
        let store: &'static Meeting<Injecting<MemoryStore>> =
            Box::leak(Box::new(Meeting::new(injecting, 2)));
        let extra = gathered_read(store, points);
        assert!(
            extra > bound,
            "{name}: a chunk-sized buffer per read went unnoticed ({extra} <= {bound})"
        );
    }
}

/// One row of each chunk (`a[[0, 5, 10, 15]]` with chunks of 4 rows): every piece lands as a
/// rectangle of the output and is read straight into it as a region's partial chunk is, a
/// window per worker, no chunk of scratch.
fn rectangle_read(store: &(impl Store + 'static)) -> usize {
    use zinto::core::selection::{AxisSel, Selection};
    let array = Array::open(store, "a").unwrap();
    let shape = array.shape().to_vec();
    let sel = Selection::orthogonal(
        vec![
            AxisSel::List(vec![0, 5, 10, 15]),
            AxisSel::Range {
                start: 0,
                stop: 512,
            },
            AxisSel::Range {
                start: 3,
                stop: 500,
            },
        ],
        &shape,
    )
    .unwrap();
    let mut out = vec![0u8; array.selected_len(&sel).unwrap()];
    let options = ReadOptions {
        threads: NonZeroUsize::new(2),
        ..ReadOptions::default()
    };
    let (result, _, extra) = measure(|| array.read_selection_into_with(&sel, &mut out, &options));
    result.unwrap();
    let expected = field();
    let at = |z: u64, y: u64, x: u64| {
        let i = ((z * 512 + y) * 512 + x) as usize * 4;
        expected[i..i + 4].to_vec()
    };
    assert_eq!(out[..4].to_vec(), at(0, 0, 3));
    let last = out.len() - 4;
    assert_eq!(out[last..].to_vec(), at(15, 511, 499));
    extra
}

#[test]
fn gathered_rectangles_read_straight_into_the_output() {
    let _turn = one_at_a_time();
    for (name, store) in compressed_cases() {
        let bound = partial_read_bound(name, &store);
        let store: &'static Meeting<MemoryStore> = Box::leak(Box::new(Meeting::new(store, 2)));
        let extra = rectangle_read(store);
        eprintln!("rectangles {name}: {extra} bytes added, bound {bound}");
        assert_eq!(store.threads_met(), 2);
        assert!(extra <= bound, "{name}: {extra} bytes added, bound {bound}");
        // The mutation check: a chunk-sized buffer per chunk read goes over.
        let (_, inner) = cases().into_iter().find(|(n, _)| *n == name).unwrap();
        let injecting = Injecting {
            inner,
            bytes: CHUNK_LEN,
        };
        let store: &'static Meeting<Injecting<MemoryStore>> =
            Box::leak(Box::new(Meeting::new(injecting, 2)));
        let extra = rectangle_read(store);
        assert!(
            extra > bound,
            "{name}: a chunk-sized buffer went unnoticed ({extra})"
        );
    }
}
