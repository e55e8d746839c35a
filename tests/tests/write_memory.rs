//! Memory bounds of a write, asserted with a counting global allocator (docs/memory.md):
//! chunks the region holds whole stream from the caller's slice through one output window
//! per worker (`WRITE_WINDOW`), never a chunk-sized buffer; chunks the region cuts add one
//! chunk of scratch per worker. Each bound has a mutation check: the same write through a store
//! that buffers each object whole (a chunk-sized buffer on the path) goes over it.
//!
//! Not counted: C zstd's compression context (about 1-2 MiB at level 3, allocated by C), the
//! page cache the files go through.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a panic is a failed test

use std::num::NonZeroUsize;

use zinto::core::codec::blosc::{BloscCname, BloscShuffle};
use zinto::core::codec::{Compressor, Lz4};
use zinto::{
    Array, ArrayBuilder, BLOCK_LEN, DataType, FileStore, ObjectWriter, Region, Store, StoreError,
    WRITE_WINDOW, WriteOptions, ZarrFormat,
};
use zinto_tests::alloc::{Counting, measure, one_at_a_time};
use zinto_tests::files::temp_dir;

#[global_allocator]
static ALLOC: Counting = Counting;

const SHAPE: [u64; 3] = [8, 512, 512];
const CHUNK: [u64; 3] = [4, 512, 512];
const CHUNK_LEN: usize = 4 * 512 * 512 * 4; // 4 MiB of float32
const THREADS: usize = 2;
/// Headroom for the write's bookkeeping (keys, paths, the plan, thread handles).
const BOOKKEEPING: usize = 64 << 10;
/// zlib-rs' deflate state at level 5 (window, hash chains, pending buffer), with room.
const DEFLATE_STATE: usize = 1 << 20;
/// A Blosc worker's scratch (docs/memory.md): a block gathered, one shuffled, one compressed
/// (LZ4's worst case, 1.1 blocks), LZ4's hash table, the block table.
const BLOSC_STATE: usize = 3 * (256 << 10) + (64 << 10);

/// numcodecs' LZ4 encoder: its hash table.
const LZ4_STATE: usize = 16 << 10;

/// A smooth field with noise in its low bits, float32, C order: compressible, but not to
/// nothing.
fn field() -> Vec<u8> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    (0..SHAPE.iter().product::<u64>())
        .flat_map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Small values: exact in f32.
            #[allow(clippy::cast_precision_loss)]
            let smooth = ((i % 1000) as f32 * 0.5 + 1.0).to_bits();
            #[allow(clippy::cast_possible_truncation)]
            let noisy = smooth ^ (x as u32 & 0xFF);
            f32::from_bits(noisy).to_le_bytes()
        })
        .collect()
}

/// A store that holds each object whole before writing it: the mistake the bounds catch.
struct Buffering<S>(S);

struct BufferedWriter<'a> {
    inner: Box<dyn ObjectWriter + 'a>,
    held: Vec<u8>,
}

impl ObjectWriter for BufferedWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        if self.held.capacity() == 0 {
            self.held.reserve_exact(CHUNK_LEN);
        }
        self.held.extend_from_slice(bytes);
        Ok(())
    }
    fn reserve(&mut self, len: usize) -> Result<u64, StoreError> {
        let offset = self.held.len() as u64;
        self.write(&vec![0; len])?;
        Ok(offset)
    }
    fn fill(&mut self, offset: u64, bytes: &[u8]) -> Result<(), StoreError> {
        let at = offset as usize;
        self.held[at..at + bytes.len()].copy_from_slice(bytes);
        Ok(())
    }
    fn commit(mut self: Box<Self>) -> Result<(), StoreError> {
        self.inner.write(&self.held)?;
        self.inner.commit()
    }
}

impl<S: Store> Store for Buffering<S> {
    fn size(&self, key: &str) -> Result<Option<u64>, StoreError> {
        self.0.size(key)
    }
    fn read_into(&self, key: &str, offset: u64, dst: &mut [u8]) -> Result<(), StoreError> {
        self.0.read_into(key, offset, dst)
    }
    fn writer(&self, key: &str) -> Result<Box<dyn ObjectWriter + '_>, StoreError> {
        Ok(Box::new(BufferedWriter {
            inner: self.0.writer(key)?,
            held: Vec::new(),
        }))
    }
    fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.0.delete(key)
    }
}

/// The heap a write of `region` (from the field's values there) adds, after a first write
/// made the array and its chunks.
fn write_extra(store: impl Store, builder: &ArrayBuilder, region: &Region) -> usize {
    write_extra_into(&builder.create(store, "").unwrap(), region)
}

/// [`write_extra`] into an array already made.
fn write_extra_into(array: &Array<impl Store>, region: &Region) -> usize {
    let data = field();
    let options = WriteOptions {
        threads: NonZeroUsize::new(THREADS),
        ..WriteOptions::default()
    };
    array
        .write_from_with(&Region::whole(&SHAPE).unwrap(), &data, &options)
        .unwrap();
    let part = region_bytes(&data, region);
    let (result, _, extra) = measure(|| array.write_from_with(region, &part, &options));
    result.unwrap();
    let back = array.read_to_vec(&Region::whole(&SHAPE).unwrap()).unwrap();
    assert!(back == data, "the write changed values");
    extra
}

/// The C-order bytes of `region` of the field.
fn region_bytes(data: &[u8], region: &Region) -> Vec<u8> {
    let (s, n) = (region.start(), region.shape());
    let row = (SHAPE[2] * 4) as usize;
    let mut out = Vec::new();
    for a in s[0]..s[0] + n[0] {
        for b in s[1]..s[1] + n[1] {
            let at = ((a * SHAPE[1] + b) as usize) * row + (s[2] * 4) as usize;
            out.extend_from_slice(&data[at..at + (n[2] * 4) as usize]);
        }
    }
    out
}

fn cases() -> Vec<(&'static str, ArrayBuilder, usize)> {
    let b = || ArrayBuilder::new(&SHAPE, DataType::Float32, &CHUNK).overwrite(true);
    let all = vec![
        ("raw", b(), 0),
        ("zstd", b().zstd(3), 0),
        ("gzip", b().gzip(5), DEFLATE_STATE),
        ("zstd+crc32c", b().zstd(3).crc32c(), 0),
        (
            "blosc lz4 shuffle",
            b().blosc(BloscCname::Lz4, 5, BloscShuffle::Shuffle),
            BLOSC_STATE,
        ),
        (
            "blosc zstd bitshuffle",
            b().blosc(BloscCname::Zstd, 3, BloscShuffle::BitShuffle),
            BLOSC_STATE,
        ),
        // numcodecs' LZ4: the whole chunk, contiguous in the input, is its one slice; the
        // encoder holds only its 16 KiB table.
        (
            "v2 lz4",
            b().zarr_format(ZarrFormat::V2)
                .compressor(Compressor::Lz4(Lz4 {
                    acceleration: Some(1),
                })),
            LZ4_STATE,
        ),
    ];
    all.into_iter()
        .filter(|(name, _, _)| zinto_tests::build_writes(name))
        .collect()
}

/// The same array as one shard of both chunks: a whole shard streams its inner chunks from
/// the input one after the other, the index (32 bytes here) at the end.
fn sharded() -> Vec<(&'static str, ArrayBuilder, usize)> {
    let b = ArrayBuilder::new(&SHAPE, DataType::Float32, &CHUNK)
        .shards(&SHAPE)
        .overwrite(true);
    let all = vec![
        ("sharded raw", b.clone(), 0),
        ("sharded zstd", b.clone().zstd(3), 0),
        (
            "sharded blosc lz4",
            b.blosc(BloscCname::Lz4, 5, BloscShuffle::Shuffle),
            BLOSC_STATE,
        ),
    ];
    all.into_iter()
        .filter(|(name, _, _)| zinto_tests::build_writes(name))
        .collect()
}

#[test]
fn whole_chunk_writes_use_a_window_per_worker_not_a_chunk() {
    let _turn = one_at_a_time();
    let whole = Region::whole(&SHAPE).unwrap();
    for (name, builder, state) in cases().into_iter().chain(sharded()) {
        let bound = THREADS * (WRITE_WINDOW + state) + BOOKKEEPING;
        let extra = write_extra(
            FileStore::new(temp_dir("write-memory", name)),
            &builder,
            &whole,
        );
        assert!(
            extra <= bound,
            "{name}: {extra} bytes beyond the input > bound {bound}"
        );
        assert!(
            bound < CHUNK_LEN,
            "{name}: the bound must be below one chunk to mean anything"
        );
        let _ = std::fs::remove_dir_all(temp_dir("write-memory", name));
    }
}

#[test]
fn whole_chunk_bounds_catch_a_chunk_sized_buffer() {
    let _turn = one_at_a_time();
    let whole = Region::whole(&SHAPE).unwrap();
    for (name, builder, state) in cases().into_iter().chain(sharded()) {
        let bound = THREADS * (WRITE_WINDOW + state) + BOOKKEEPING;
        let dir = temp_dir("write-memory", &format!("{name}-buffering"));
        let extra = write_extra(Buffering(FileStore::new(&dir)), &builder, &whole);
        assert!(
            extra > bound,
            "{name}: a chunk-sized buffer went unnoticed ({extra} <= {bound})"
        );
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Rows 1..7 and a band of columns: both chunks are cut, read, merged and rewritten.
/// (The bound's block is the read path's: the old chunk is read through it.)
fn cut_region() -> Region {
    Region::new(&[1, 100, 7], &[6, 300, 400]).unwrap()
}

#[test]
fn cut_chunk_writes_use_one_chunk_of_scratch_per_worker() {
    let _turn = one_at_a_time();
    for (name, builder, state) in cases() {
        // The old chunk is read by the read path, which holds a block per worker, and for
        // Blosc its decoder's scratch: one Blosc block and the block table (docs/memory.md, D).
        let read_state = if name.starts_with("blosc") {
            (256 << 10) + (16 << 10)
        } else if name == "v2 lz4" {
            // The read path's numcodecs LZ4 (memory.md, 3b) gathers the stored chunk into one
            // slice, then decodes it into the scratch: the stored chunk once (at most
            // LZ4_compressBound and its header).
            CHUNK_LEN + CHUNK_LEN / 255 + 64
        } else {
            0
        };
        let bound =
            THREADS * (WRITE_WINDOW + state + read_state + CHUNK_LEN + BLOCK_LEN) + 4 * BOOKKEEPING;
        let dir = temp_dir("write-memory", &format!("{name}-cut"));
        let extra = write_extra(FileStore::new(&dir), &builder, &cut_region());
        assert!(
            extra <= bound,
            "{name}: {extra} bytes beyond the input > bound {bound}"
        );
        let buffering = temp_dir("write-memory", &format!("{name}-cut-buffering"));
        let more = write_extra(
            Buffering(FileStore::new(&buffering)),
            &builder,
            &cut_region(),
        );
        // The buffering store's extra chunk per write in flight goes over (raw chunks are whole
        // chunks; compressed ones at least a few hundred KiB, so the check is on raw).
        if name == "raw" {
            assert!(
                more > bound,
                "{name}: a chunk-sized buffer went unnoticed ({more} <= {bound})"
            );
        }
        let _ = std::fs::remove_dir_all(dir);
        let _ = std::fs::remove_dir_all(buffering);
    }
}

/// The field's array with numcodecs filters before its bytes (`astype` float32 to float64,
/// then `delta` over float64: exact both ways for these values), stored uncompressed, made by
/// writing its `zarr.json` (the builder makes no filters).
fn filtered(store: impl Store) -> Array<impl Store> {
    let meta = serde_json::json!({
        "zarr_format": 3, "node_type": "array", "shape": SHAPE, "data_type": "float32",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": CHUNK}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0.0,
        "codecs": [
            {"name": "numcodecs.astype",
             "configuration": {"encode_dtype": "<f8", "decode_dtype": "<f4"}},
            {"name": "numcodecs.delta", "configuration": {"dtype": "<f8"}},
            {"name": "bytes", "configuration": {"endian": "little"}},
        ],
    });
    let mut writer = store.writer("zarr.json").unwrap();
    writer.write(meta.to_string().as_bytes()).unwrap();
    writer.commit().unwrap();
    Array::open(store, "").unwrap()
}

/// Two filters run window by window: each worker holds its output window, the window the last
/// filter writes into, and one window for the first filter's output; the stored chunks (8 MiB,
/// float64) never whole.
#[test]
fn filtered_writes_use_a_window_per_filter_not_a_chunk() {
    let _turn = one_at_a_time();
    let whole = Region::whole(&SHAPE).unwrap();
    let bound = THREADS * 3 * WRITE_WINDOW + BOOKKEEPING;
    assert!(
        bound < CHUNK_LEN,
        "the bound must be below one chunk to mean anything"
    );
    let dir = temp_dir("write-memory", "filtered");
    let extra = write_extra_into(&filtered(FileStore::new(&dir)), &whole);
    assert!(
        extra <= bound,
        "filters: {extra} bytes beyond the input > bound {bound}"
    );
    let buffering = temp_dir("write-memory", "filtered-buffering");
    let more = write_extra_into(&filtered(Buffering(FileStore::new(&buffering))), &whole);
    assert!(
        more > bound,
        "filters: a chunk-sized buffer went unnoticed ({more} <= {bound})"
    );
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::remove_dir_all(buffering);
}

/// Strings: two chunks of `VLEN_PER_CHUNK` elements of 120 bytes (a stored chunk of 4 MB).
const VLEN_PER_CHUNK: u64 = 32 << 10;
const VLEN_ITEM: usize = 120;

/// The strings' offsets and values, each element different.
fn vlen_input() -> (Vec<u64>, Vec<u8>) {
    let n = 2 * VLEN_PER_CHUNK as usize;
    let mut values = Vec::with_capacity(n * VLEN_ITEM);
    let mut offsets = vec![0u64];
    for i in 0..n {
        let text = format!("{i:>width$}", width = VLEN_ITEM);
        values.extend_from_slice(text.as_bytes());
        offsets.push(values.len() as u64);
    }
    (offsets, values)
}

/// The heap a write of the whole of `array` from `offsets` and `values` adds; the values read
/// back after.
fn vlen_write_extra(array: &Array<impl Store>, (offsets, values): (&[u64], &[u8])) -> usize {
    let whole = Region::whole(array.shape()).unwrap();
    let options = WriteOptions {
        threads: NonZeroUsize::new(THREADS),
        ..WriteOptions::default()
    };
    let (result, _, extra) = measure(|| array.write_vlen_with(&whole, offsets, values, &options));
    result.unwrap();
    assert_eq!(array.read_vlen(&whole).unwrap().values(), values);
    extra
}

/// A variable-length chunk streams through the gathering window and the output window of
/// each worker, with a table of where each element comes from (16 bytes an element); never
/// the stored chunk whole (LZ4 aside, which needs it: memory.md). Mutation: the buffering
/// store's chunk goes over.
#[test]
fn vlen_writes_use_two_windows_and_an_element_table_per_worker_not_a_chunk() {
    let _turn = one_at_a_time();
    let (offsets, values) = vlen_input();
    let stored_chunk = VLEN_PER_CHUNK as usize * (4 + VLEN_ITEM);
    let bound = THREADS * (2 * WRITE_WINDOW + 16 * VLEN_PER_CHUNK as usize) + BOOKKEEPING;
    assert!(
        bound < stored_chunk,
        "the bound must be below one chunk to mean anything"
    );
    let shape = [2 * VLEN_PER_CHUNK];
    let cases = [("vlen raw", false), ("vlen zstd", true)];
    for (name, zstd) in cases
        .into_iter()
        .filter(|(name, _)| zinto_tests::build_writes(name))
    {
        let mut b = ArrayBuilder::new(&shape, DataType::String, &[VLEN_PER_CHUNK]);
        if zstd {
            b = b.zstd(3);
        }
        let dir = temp_dir("write-memory", name);
        let array = b.create(FileStore::new(&dir), "").unwrap();
        let extra = vlen_write_extra(&array, (&offsets, &values));
        assert!(
            extra <= bound,
            "{name}: {extra} bytes beyond the input > bound {bound}"
        );
        let buffering_dir = temp_dir("write-memory", &format!("{name}-buffering"));
        let array = b
            .create(Buffering(FileStore::new(&buffering_dir)), "")
            .unwrap();
        let more = vlen_write_extra(&array, (&offsets, &values));
        assert!(
            more > bound,
            "{name}: a chunk-sized buffer went unnoticed ({more} <= {bound})"
        );
        let _ = std::fs::remove_dir_all(dir);
        let _ = std::fs::remove_dir_all(buffering_dir);
    }
}

/// Strings in shards (two shards of two inner chunks of `VLEN_PER_CHUNK / 2` elements): a
/// whole write streams each inner chunk as an unsharded chunk streams, plus the shard's index;
/// a write that cuts one inner chunk (one worker) decodes that inner chunk whole from the old
/// shard (its bytes and a 16-byte span per element) and copies the other through the
/// gathering window. Never the shard whole. Mutation: the buffering store's object goes over.
#[test]
fn vlen_shard_writes_hold_one_inner_chunk_not_the_shard() {
    let _turn = one_at_a_time();
    let (offsets, values) = vlen_input();
    let inner = VLEN_PER_CHUNK / 2;
    let inner_stored = inner as usize * (4 + VLEN_ITEM);
    let whole_bound = THREADS * (2 * WRITE_WINDOW + 16 * inner as usize) + BOOKKEEPING;
    let cut_bound = 2 * WRITE_WINDOW + 2 * 16 * inner as usize + inner_stored + BOOKKEEPING;
    let options = WriteOptions {
        threads: NonZeroUsize::new(THREADS),
        ..WriteOptions::default()
    };
    let cases = [("vlen shards raw", false), ("vlen shards zstd", true)];
    for (name, zstd) in cases
        .into_iter()
        .filter(|(name, _)| zinto_tests::build_writes(name))
    {
        let mut b = ArrayBuilder::new(&[2 * VLEN_PER_CHUNK], DataType::String, &[inner])
            .shards(&[VLEN_PER_CHUNK]);
        if zstd {
            b = b.zstd(3);
        }
        for buffering in [false, true] {
            let dir = temp_dir("write-memory", &format!("{name}-{buffering}"));
            let (whole, cut) = if buffering {
                let array = b.create(Buffering(FileStore::new(&dir)), "").unwrap();
                shard_write_extras(&array, (&offsets, &values), &options)
            } else {
                let array = b.create(FileStore::new(&dir), "").unwrap();
                shard_write_extras(&array, (&offsets, &values), &options)
            };
            let within = whole <= whole_bound && cut <= cut_bound;
            assert_eq!(
                within, !buffering,
                "{name}, buffering {buffering}: whole {whole} (bound {whole_bound}), cut {cut} (bound {cut_bound})"
            );
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// The heap a whole write of the strings adds, then a write of one element (cutting an inner
/// chunk of the first shard); the array read back after.
fn shard_write_extras(
    array: &Array<impl Store>,
    input: (&[u64], &[u8]),
    options: &WriteOptions<'_>,
) -> (usize, usize) {
    let whole = vlen_write_extra(array, input);
    let one = Region::new(&[1], &[1]).unwrap();
    let (result, _, cut) = measure(|| array.write_vlen_with(&one, &[0, 3], b"new", options));
    result.unwrap();
    let back = array
        .read_vlen(&Region::whole(array.shape()).unwrap())
        .unwrap();
    assert_eq!(back.get(1), Some(&b"new"[..]));
    assert_eq!(back.get(2), input.1.get(2 * VLEN_ITEM..3 * VLEN_ITEM));
    (whole, cut)
}

/// The array as one shard of two shards (of `CHUNK`) of two zstd inner chunks each, made in
/// `dir`: zarr-python's nested `ShardingCodec`s.
fn nested_shards(dir: &std::path::Path) {
    ArrayBuilder::new(&SHAPE, DataType::Float32, &CHUNK)
        .shards(&SHAPE)
        .overwrite(true)
        .create(FileStore::new(dir), "")
        .unwrap();
    let path = dir.join("zarr.json");
    let mut meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let little = serde_json::json!({"name": "bytes", "configuration": {"endian": "little"}});
    meta["codecs"] = serde_json::json!([{"name": "sharding_indexed", "configuration": {
    "chunk_shape": CHUNK, "index_location": "end", "index_codecs": [little],
    "codecs": [{"name": "sharding_indexed", "configuration": {
        "chunk_shape": [2, 512, 512], "index_location": "start", "index_codecs": [little],
        "codecs": [little, {"name": "zstd", "configuration": {"level": 3, "checksum": false}}]
    }}]}}]);
    std::fs::write(&path, serde_json::to_vec(&meta).unwrap()).unwrap();
}

/// Shards inside shards stream as one level of shards does: each inner shard's inner chunks
/// go into the object as they are encoded, its index (reserved at its start) filled when it
/// ends. A store that holds the object whole goes over the same bound.
#[test]
fn nested_shard_writes_use_a_window_per_worker_not_a_shard() {
    let _turn = one_at_a_time();
    if !zinto_tests::build_writes("zstd") {
        return;
    }
    let whole = Region::whole(&SHAPE).unwrap();
    let bound = THREADS * WRITE_WINDOW + BOOKKEEPING;
    let dir = temp_dir("write-memory", "nested");
    nested_shards(&dir);
    let extra = write_extra_into(&Array::open(FileStore::new(&dir), "").unwrap(), &whole);
    eprintln!("nested shards: {extra} bytes beyond the input, bound {bound}");
    assert!(
        extra <= bound,
        "{extra} bytes beyond the input > bound {bound}"
    );
    let buffered = write_extra_into(
        &Array::open(Buffering(FileStore::new(&dir)), "").unwrap(),
        &whole,
    );
    assert!(
        buffered > bound,
        "a shard-sized buffer went unnoticed ({buffered} <= {bound})"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// The field's array on a rectilinear grid (rows cut [3, 5], raw or zstd), made by writing its
/// `zarr.json`.
fn rectilinear(store: impl Store, zstd: bool) -> Array<impl Store> {
    rectilinear_of(store, zstd, false)
}

/// [`rectilinear`], or with `sharded` its rows cut into shards of 3 and 5 rows of one-row
/// inner chunks.
fn rectilinear_of(store: impl Store, zstd: bool, sharded: bool) -> Array<impl Store> {
    let mut codecs =
        vec![serde_json::json!({"name": "bytes", "configuration": {"endian": "little"}})];
    if zstd {
        codecs.push(serde_json::json!({"name": "zstd", "configuration": {"level": 3}}));
    }
    if sharded {
        codecs = vec![
            serde_json::json!({"name": "sharding_indexed", "configuration": {
            "chunk_shape": [1, SHAPE[1], SHAPE[2]], "codecs": codecs,
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}),
        ];
    }
    let meta = serde_json::json!({
        "zarr_format": 3, "node_type": "array", "shape": SHAPE, "data_type": "float32",
        "chunk_grid": {"name": "rectilinear", "configuration": {
            "kind": "inline", "chunk_shapes": [[3, 5], [512], [512]]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0.0,
        "codecs": codecs,
    });
    let mut writer = store.writer("zarr.json").unwrap();
    writer.write(meta.to_string().as_bytes()).unwrap();
    writer.commit().unwrap();
    Array::open(store, "").unwrap()
}

/// On a rectilinear grid a write holds what it holds on a regular one: whole chunks a window
/// per worker, cut chunks one scratch of the chunk's own size (at most the longest, 5 rows:
/// 5 MiB) per worker; the same writes through a store that buffers each object go over.
#[test]
fn rectilinear_writes_keep_the_regular_bounds_and_catch_a_chunk_sized_buffer() {
    let _turn = one_at_a_time();
    let longest = CHUNK_LEN / 4 * 5;
    for zstd in [false, true] {
        let name = if zstd { "rect-zstd" } else { "rect-raw" };
        if zstd && !zinto_tests::build_writes("zstd") {
            continue;
        }
        let dir = temp_dir("write-memory", name);
        let whole = Region::whole(&SHAPE).unwrap();
        let extra = write_extra_into(&rectilinear(FileStore::new(&dir), zstd), &whole);
        let bound = THREADS * WRITE_WINDOW + BOOKKEEPING;
        assert!(
            extra <= bound,
            "{name}: whole chunks added {extra} > {bound}"
        );
        let extra = write_extra_into(&rectilinear(FileStore::new(&dir), zstd), &cut_region());
        let cut_bound = THREADS * (WRITE_WINDOW + longest + BLOCK_LEN) + 4 * BOOKKEEPING;
        assert!(
            extra <= cut_bound,
            "{name}: cut chunks added {extra} > {cut_bound}"
        );
        if !zstd {
            let buffering = temp_dir("write-memory", "rect-raw-buffering");
            let array = rectilinear(Buffering(FileStore::new(&buffering)), false);
            let more = write_extra_into(&array, &whole);
            assert!(
                more > bound,
                "a chunk-sized buffer went unnoticed ({more} <= {bound})"
            );
            let more = write_extra_into(&array, &cut_region());
            assert!(
                more > cut_bound,
                "a chunk-sized buffer went unnoticed ({more} <= {cut_bound})"
            );
            let _ = std::fs::remove_dir_all(buffering);
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Shards on a rectilinear grid (3 and 5 rows of one-row inner chunks, each shard its own
/// index) are written whole as regular shards are: a window per worker, not a shard or an
/// inner chunk; the same write through a store that buffers each object goes over.
#[test]
fn rectilinear_shard_writes_keep_the_regular_bound_and_catch_a_shard_sized_buffer() {
    let _turn = one_at_a_time();
    let whole = Region::whole(&SHAPE).unwrap();
    let bound = THREADS * WRITE_WINDOW + BOOKKEEPING;
    for zstd in [false, true] {
        if zstd && !zinto_tests::build_writes("zstd") {
            continue;
        }
        let dir = temp_dir("write-memory", &format!("rect-shards-{zstd}"));
        let extra = write_extra_into(&rectilinear_of(FileStore::new(&dir), zstd, true), &whole);
        assert!(extra <= bound, "zstd {zstd}: {extra} > {bound}");
        let _ = std::fs::remove_dir_all(dir);
    }
    let dir = temp_dir("write-memory", "rect-shards-buffering");
    let array = rectilinear_of(Buffering(FileStore::new(&dir)), false, true);
    let more = write_extra_into(&array, &whole);
    assert!(
        more > bound,
        "a shard-sized buffer went unnoticed ({more} <= {bound})"
    );
    let _ = std::fs::remove_dir_all(dir);
}
