//! The write path against a model: random regions of random values written into arrays of
//! each codec chain zinto writes (v3 and v2, both byte orders, edge chunks, fill-value
//! chunks), each write followed by a read of the whole array compared with a C-order model
//! kept in memory. Then what a failed write leaves: the old chunk, whole, and no temporary file.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a panic is a failed test

use std::num::NonZeroUsize;
use std::path::Path;

use zinto::core::MemoryOrder;
use zinto::core::codec::Endian;
use zinto::core::codec::blosc::{BloscCname, BloscShuffle};
use zinto::{
    ArrayBuilder, DataType, ErrorKind, FileStore, ObjectWriter, Region, Store, StoreError,
    WriteOptions, ZarrFormat,
};
use zinto_tests::files::{chunk_files, temp_dir, walk};
use zinto_tests::rng::Rng;

const SHAPE: [u64; 3] = [13, 17, 5];
const CHUNKS: [u64; 3] = [4, 6, 5];

/// Blosc with `cname` at level 5 in blocks of `blocksize` bytes: small blocks, so a chunk holds
/// several and a short last one.
fn blosc(
    cname: BloscCname,
    shuffle: BloscShuffle,
    blocksize: u64,
) -> zinto::core::codec::Compressor {
    zinto::core::codec::Compressor::Blosc(zinto::core::codec::BloscConfig {
        cname: Some(cname),
        clevel: Some(5),
        shuffle: Some(shuffle),
        typesize: None,
        blocksize: Some(blocksize),
    })
}

/// Every chain zinto writes, in both formats where the format has it.
fn chains() -> Vec<(&'static str, ArrayBuilder)> {
    let b = |dtype| ArrayBuilder::new(&SHAPE, dtype, &CHUNKS).overwrite(true);
    let v2 = |dtype| b(dtype).zarr_format(ZarrFormat::V2);
    let all = vec![
        ("v3 raw f32", b(DataType::Float32)),
        ("v3 zstd f64", b(DataType::Float64).zstd(3)),
        ("v3 gzip i16", b(DataType::Int16).gzip(1)),
        ("v3 zstd crc32c u8", b(DataType::UInt8).zstd(1).crc32c()),
        (
            "v3 raw big-endian i32 crc32c x2",
            b(DataType::Int32).endian(Endian::Big).crc32c().crc32c(),
        ),
        (
            "v3 zstd big-endian complex64",
            b(DataType::Complex64).zstd(5).endian(Endian::Big),
        ),
        ("v3 raw bool", b(DataType::Bool)),
        (
            "v3 gzip u64 fill 7",
            b(DataType::UInt64).gzip(9).fill_value(serde_json::json!(7)),
        ),
        (
            "v3 zstd fixed_length_utf32[3] big-endian",
            b(DataType::FixedUtf32 { chars: 3 })
                .zstd(1)
                .endian(Endian::Big),
        ),
        (
            "v3 raw null_terminated_bytes[5]",
            b(DataType::FixedBytes { len: 5 }),
        ),
        ("v2 raw f32", v2(DataType::Float32)),
        ("v2 zstd <U2", v2(DataType::FixedUtf32 { chars: 2 }).zstd(1)),
        ("v2 zlib u16", v2(DataType::UInt16).zlib(6)),
        (
            "v2 gzip big-endian f64",
            v2(DataType::Float64).gzip(5).endian(Endian::Big),
        ),
        (
            "v2 zstd i8 fill -1",
            v2(DataType::Int8).zstd(3).fill_value(serde_json::json!(-1)),
        ),
        (
            "v3 transposed f32 zstd",
            b(DataType::Float32)
                .order(MemoryOrder::permutation(&[2, 0, 1]).unwrap())
                .zstd(1),
        ),
        (
            "v3 F order u16 raw big-endian",
            b(DataType::UInt16)
                .order(MemoryOrder::f(3).unwrap())
                .endian(Endian::Big),
        ),
        (
            "v2 F order f64 zlib",
            v2(DataType::Float64)
                .order(MemoryOrder::f(3).unwrap())
                .zlib(1),
        ),
        (
            "v3 sharded f32 zstd",
            b(DataType::Float32).shards(&[8, 12, 5]).zstd(1),
        ),
        (
            "v3 sharded u8 raw crc32c",
            b(DataType::UInt8).shards(&[4, 18, 10]).crc32c(),
        ),
        (
            "v3 blosc lz4 shuffle f32, blocks of 100 B",
            b(DataType::Float32).compressor(blosc(BloscCname::Lz4, BloscShuffle::Shuffle, 100)),
        ),
        (
            "v2 blosc zstd bitshuffle u16, blocks of 64 B",
            v2(DataType::UInt16).compressor(blosc(BloscCname::Zstd, BloscShuffle::BitShuffle, 64)),
        ),
        (
            "v3 blosc lz4hc noshuffle f64",
            b(DataType::Float64).blosc(BloscCname::Lz4Hc, 9, BloscShuffle::NoShuffle),
        ),
        (
            "v2 blosc zlib shuffle i32",
            v2(DataType::Int32).blosc(BloscCname::Zlib, 5, BloscShuffle::Shuffle),
        ),
        (
            "v3 sharded blosc lz4 bitshuffle u8",
            b(DataType::UInt8).shards(&[8, 12, 5]).blosc(
                BloscCname::Lz4,
                5,
                BloscShuffle::BitShuffle,
            ),
        ),
        (
            "v3 sharded index at start f32 zstd",
            b(DataType::Float32)
                .shards(&[8, 12, 5])
                .shard_index(zinto::core::codec::IndexLocation::Start)
                .zstd(1),
        ),
        (
            "v3 sharded transposed i16 gzip",
            b(DataType::Int16)
                .shards(&[8, 6, 5])
                .order(MemoryOrder::f(3).unwrap())
                .gzip(1),
        ),
    ];
    // Chains this build does not write (`--no-default-features`: no zstd, no DEFLATE) are left out.
    all.into_iter()
        .filter(|(name, _)| zinto_tests::build_writes(name))
        .collect()
}

/// The model: the whole array, C order, native bytes.
struct Model {
    bytes: Vec<u8>,
    elem: usize,
}

impl Model {
    fn index(&self, at: &[u64]) -> usize {
        ((at[0] * SHAPE[1] + at[1]) * SHAPE[2] + at[2]) as usize * self.elem
    }

    /// Writes `values` (C order over `region`) into the model.
    fn write(&mut self, region: &Region, values: &[u8]) {
        let (s, n) = (region.start(), region.shape());
        let mut i = 0;
        for a in s[0]..s[0] + n[0] {
            for b in s[1]..s[1] + n[1] {
                for c in s[2]..s[2] + n[2] {
                    let at = self.index(&[a, b, c]);
                    self.bytes[at..at + self.elem].copy_from_slice(&values[i..i + self.elem]);
                    i += self.elem;
                }
            }
        }
    }
}

/// Random values for `len` elements of `dtype` (bools 0 or 1, as a bool is stored).
fn values(rng: &mut Rng, dtype: DataType, elems: usize, elem: usize) -> Vec<u8> {
    (0..elems * elem)
        .map(|_| match dtype {
            DataType::Bool => (rng.next_u64() & 1) as u8,
            _ => rng.next_u64() as u8,
        })
        .collect()
}

fn random_region(rng: &mut Rng) -> Region {
    let mut start = [0u64; 3];
    let mut shape = [0u64; 3];
    for d in 0..3 {
        start[d] = rng.below(SHAPE[d]);
        shape[d] = 1 + rng.below(SHAPE[d] - start[d]);
    }
    Region::new(&start, &shape).unwrap()
}

#[test]
fn random_writes_read_back_as_the_model_says() {
    for (case, (name, builder)) in chains().into_iter().enumerate() {
        let dir = temp_dir("write", &format!("model-{case}"));
        // Every third chain through a store that syncs each file before its rename.
        let store = match case % 3 {
            0 => FileStore::new(&dir).with_fsync(),
            _ => FileStore::new(&dir),
        };
        let array = builder.create(store, "").unwrap();
        writes_follow_the_model(name, case, &array, &dir);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// Shards inside shards (as zarr-python's `ShardingCodec` nests them), both index locations
/// at each level, a CRC-32C over the inner chunks and over either level's index: written as
/// the model says.
#[test]
fn nested_shards_are_written_as_the_model_says() {
    if !zinto_tests::build_writes("zstd") {
        return;
    }
    for (case, (outer_index, middle_index)) in
        [("end", "start"), ("start", "end")].into_iter().enumerate()
    {
        let name = format!("nested shards, index at the {outer_index} of the {middle_index}");
        let dir = temp_dir("write", &format!("nested-{case}"));
        ArrayBuilder::new(&SHAPE, DataType::Int32, &CHUNKS)
            .shards(&[8, 12, 5])
            .create(FileStore::new(&dir), "")
            .unwrap();
        let meta_path = dir.join("zarr.json");
        let mut meta: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&meta_path).unwrap()).unwrap();
        // The second case checks the inner shards' index too.
        let little = serde_json::json!({"name": "bytes", "configuration": {"endian": "little"}});
        let middle_index_codecs = match case {
            0 => serde_json::json!([little]),
            _ => serde_json::json!([little, {"name": "crc32c"}]),
        };
        meta["codecs"] = serde_json::json!([{"name": "sharding_indexed", "configuration": {
            "chunk_shape": CHUNKS, "index_location": outer_index,
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
            "codecs": [{"name": "sharding_indexed", "configuration": {
                "chunk_shape": [2, 3, 5], "index_location": middle_index,
                "index_codecs": middle_index_codecs,
                "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                           {"name": "zstd", "configuration": {"level": 1, "checksum": false}},
                           {"name": "crc32c"}]}}]}}]);
        std::fs::write(&meta_path, serde_json::to_vec(&meta).unwrap()).unwrap();
        let array = zinto::Array::open(FileStore::new(&dir), "").unwrap();
        assert_eq!(array.metadata().chain.levels().len(), 3);
        writes_follow_the_model(&name, 100 + case, &array, &dir);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// Random regions of random values written into `array` (a fresh one, stored in `dir`), each
/// write followed by a read of the whole array compared with the model; then fill value
/// everywhere, which leaves no chunk, and written again with `write_empty_chunks`.
fn writes_follow_the_model(name: &str, case: usize, array: &zinto::Array<FileStore>, dir: &Path) {
    let elem = array.dtype().fixed_size().unwrap();
    let fill = array.metadata().fill_value.as_bytes().to_vec();
    let whole = Region::whole(&SHAPE).unwrap();
    let mut model = Model {
        bytes: fill.repeat(whole.num_elements().unwrap() as usize),
        elem,
    };
    let mut rng = Rng(0x2545_F491_4F6C_DD1D ^ case as u64);
    for step in 0..8 {
        let region = if step == 0 {
            whole.clone()
        } else {
            random_region(&mut rng)
        };
        let n = region.num_elements().unwrap() as usize;
        // Every fourth write is all fill value: its chunks are removed where it covers them.
        let data = if step % 4 == 3 {
            fill.repeat(n)
        } else {
            values(&mut rng, array.dtype(), n, elem)
        };
        let threads = NonZeroUsize::new(1 + step % 2);
        let options = WriteOptions {
            threads,
            ..WriteOptions::default()
        };
        array.write_from_with(&region, &data, &options).unwrap();
        model.write(&region, &data);
        let back = array.read_to_vec(&whole).unwrap();
        assert!(
            back == model.bytes,
            "{name}: step {step}, {region:?}: the array is not the model"
        );
        stored_chunks_hold_more_than_fill(array, dir, &model, &fill, name);
    }
    // Writing fill value everywhere leaves no chunk.
    array
        .write_from(&whole, &fill.repeat(model.bytes.len() / elem))
        .unwrap();
    assert_eq!(
        chunk_files(dir),
        0,
        "{name}: fill-value chunks were written or kept"
    );
    let opts = WriteOptions {
        extra: zinto::WriteExtra {
            write_empty_chunks: true,
            ..zinto::WriteExtra::default()
        },
        ..WriteOptions::default()
    };
    array
        .write_from_with(&whole, &fill.repeat(model.bytes.len() / elem), &opts)
        .unwrap();
    assert_eq!(
        chunk_files(dir),
        array.metadata().grid.num_chunks() as usize,
        "{name}: write_empty_chunks writes every chunk"
    );
}

/// A chunk (or shard) is stored exactly where its part of the model is not all fill value: one
/// all fill is removed, however it became so (padding left stale by a read-modify-write of an
/// edge chunk would keep it).
fn stored_chunks_hold_more_than_fill(
    array: &zinto::Array<FileStore>,
    dir: &Path,
    model: &Model,
    fill: &[u8],
    name: &str,
) {
    let grid = &array.metadata().grid;
    for i in 0..grid.num_chunks() {
        let coords = grid.chunk_coords(i).unwrap();
        let r = grid.chunk_region(&coords).unwrap();
        let (s, n) = (r.start(), r.shape());
        let mut all_fill = true;
        for a in s[0]..s[0] + n[0] {
            for b in s[1]..s[1] + n[1] {
                for c in s[2]..s[2] + n[2] {
                    let at = model.index(&[a, b, c]);
                    all_fill &= &model.bytes[at..at + model.elem] == fill;
                }
            }
        }
        let stored = dir.join(array.chunk_key(coords.as_slice())).exists();
        assert_eq!(
            stored, !all_fill,
            "{name}: chunk {coords:?} stored: {stored}, all fill: {all_fill}"
        );
    }
}

/// A store whose writers fail after `after` bytes.
struct FailingWrites<S> {
    inner: S,
    after: usize,
}

struct FailingWriter<'a> {
    inner: Box<dyn ObjectWriter + 'a>,
    left: usize,
}

impl ObjectWriter for FailingWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        if bytes.len() > self.left {
            let (now, _) = bytes.split_at(self.left);
            self.inner.write(now)?;
            return Err(StoreError::Io(std::io::Error::other("disk full (planted)")));
        }
        self.left -= bytes.len();
        self.inner.write(bytes)
    }
    fn reserve(&mut self, len: usize) -> Result<u64, StoreError> {
        self.inner.reserve(len)
    }
    fn fill(&mut self, offset: u64, bytes: &[u8]) -> Result<(), StoreError> {
        self.inner.fill(offset, bytes)
    }
    fn commit(self: Box<Self>) -> Result<(), StoreError> {
        self.inner.commit()
    }
}

impl<S: Store> Store for FailingWrites<S> {
    fn size(&self, key: &str) -> Result<Option<u64>, StoreError> {
        self.inner.size(key)
    }
    fn read_into(&self, key: &str, offset: u64, dst: &mut [u8]) -> Result<(), StoreError> {
        self.inner.read_into(key, offset, dst)
    }
    fn writer(&self, key: &str) -> Result<Box<dyn ObjectWriter + '_>, StoreError> {
        Ok(Box::new(FailingWriter {
            inner: self.inner.writer(key)?,
            left: self.after,
        }))
    }
    fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.inner.delete(key)
    }
}

#[test]
fn a_failed_write_leaves_the_old_chunk_whole_and_no_temporary_file() {
    let dir = temp_dir("write", "failing");
    let builder = ArrayBuilder::new(&SHAPE, DataType::Float32, &CHUNKS).crc32c();
    let array = builder.create(FileStore::new(&dir), "").unwrap();
    let whole = Region::whole(&SHAPE).unwrap();
    let n = whole.num_elements().unwrap() as usize;
    let old: Vec<u8> = (0..n)
        .flat_map(|i| (i as f32 + 1.0).to_ne_bytes())
        .collect();
    array.write_from(&whole, &old).unwrap();
    let files_before = walk(&dir);

    let failing = zinto::Array::open(
        FailingWrites {
            inner: FileStore::new(&dir),
            after: 10,
        },
        "",
    )
    .unwrap();
    let new: Vec<u8> = (0..n)
        .flat_map(|i| (i as f32 * -2.0 - 1.0).to_ne_bytes())
        .collect();
    let e = failing.write_from(&whole, &new).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Store(StoreError::Io(_))),
        "{e}"
    );
    assert!(
        e.to_string().contains("c/"),
        "the error names the chunk's key: {e}"
    );
    assert_eq!(
        walk(&dir),
        files_before,
        "a temporary file was left, or a chunk removed"
    );
    assert!(array.read_to_vec(&whole).unwrap() == old, "a chunk is torn");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn what_the_write_path_does_not_write_is_refused_by_name() {
    let dir = temp_dir("write", "refused");
    let b = ArrayBuilder::new(&SHAPE, DataType::Float32, &CHUNKS);
    let e = b
        .clone()
        .zlib(3)
        .create(FileStore::new(&dir), "")
        .unwrap_err();
    assert!(e.to_string().contains("zlib"), "{e}");
    let e = b
        .clone()
        .zarr_format(ZarrFormat::V2)
        .crc32c()
        .create(FileStore::new(&dir), "")
        .unwrap_err();
    assert!(e.to_string().contains("crc32c"), "{e}");
    // A Blosc chunk's header is written last: no checksum can stream over it.
    let blosc_crc = b
        .clone()
        .blosc(BloscCname::Lz4, 5, BloscShuffle::Shuffle)
        .crc32c()
        .overwrite(true)
        .create(FileStore::new(&dir), "")
        .and_then(|a| {
            let whole = Region::whole(&SHAPE)?;
            a.write_from(&whole, &vec![0u8; 13 * 17 * 5 * 4])
        })
        .unwrap_err();
    assert!(
        blosc_crc
            .to_string()
            .contains("crc32c checksum after blosc"),
        "{blosc_crc}"
    );
    // Fixed-length strings over the 1 MiB element zinto reads: refused before any metadata.
    let huge = DataType::FixedUtf32 { chars: 300_000 };
    let e = ArrayBuilder::new(&SHAPE, huge, &CHUNKS)
        .create(FileStore::new(dir.join("huge")), "")
        .unwrap_err();
    assert!(e.to_string().contains("elements larger than"), "{e}");
    assert!(!dir.join("huge").exists());
    let e = b
        .clone()
        .fill_value(serde_json::json!("seven"))
        .create(FileStore::new(&dir), "")
        .unwrap_err();
    assert!(e.to_string().contains("fill value"), "{e}");
    b.create(FileStore::new(&dir), "").unwrap();
    let e = ArrayBuilder::new(&SHAPE, DataType::Float32, &CHUNKS)
        .create(FileStore::new(&dir), "")
        .unwrap_err();
    assert!(e.to_string().contains("exists"), "{e}");
    // A region of the wrong size, or outside the array.
    let array = zinto::Array::open(FileStore::new(&dir), "").unwrap();
    let e = array
        .write_from(&Region::whole(&SHAPE).unwrap(), &[0u8; 12])
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::OutputSize { .. }), "{e}");
    let e = array
        .write_from(&Region::new(&[12, 0, 0], &[2, 1, 1]).unwrap(), &[0u8; 8])
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Layout(_)), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A `MemoryStore` takes the same writes as a `FileStore`: the same keys, the same values.
#[test]
fn a_memory_store_is_written_as_a_file_store_is() {
    for (case, (name, builder)) in chains().into_iter().enumerate() {
        let dir = temp_dir("write", &format!("memory-{case}"));
        let on_disk = builder.create(FileStore::new(&dir), "").unwrap();
        let in_memory = builder.create(zinto::MemoryStore::new(), "").unwrap();
        let elem = on_disk.dtype().fixed_size().unwrap();
        let mut rng = Rng(0x1234_5678 ^ case as u64);
        for _ in 0..4 {
            let region = random_region(&mut rng);
            let n = region.num_elements().unwrap() as usize;
            let data = values(&mut rng, on_disk.dtype(), n, elem);
            on_disk.write_from(&region, &data).unwrap();
            in_memory.write_from(&region, &data).unwrap();
        }
        let whole = Region::whole(&SHAPE).unwrap();
        assert!(
            on_disk.read_to_vec(&whole).unwrap() == in_memory.read_to_vec(&whole).unwrap(),
            "{name}: the stores differ"
        );
        let mut files: Vec<String> = walk(&dir)
            .iter()
            .map(|p| {
                p.strip_prefix(&dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/")
            })
            // The file store's update locks (partial writes took them): no data.
            .filter(|k| k != zinto::LOCK_FILE)
            .collect();
        files.sort();
        assert_eq!(files, in_memory.store().keys(), "{name}: other keys");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// Attributes are updated in place (the store and the open node), and a group's consolidated
/// metadata lists what is below it, in both formats; zinto then lists members from it.
#[test]
fn attributes_update_and_consolidated_metadata_lists_the_hierarchy() {
    use zinto::{Group, Node};
    for format in [ZarrFormat::V3, ZarrFormat::V2] {
        let dir = temp_dir("write", &format!("consolidate-{format:?}"));
        let store = FileStore::new(&dir);
        let mut root = Group::create(store.clone(), "", format, serde_json::Map::new()).unwrap();
        Group::create(store.clone(), "inner", format, serde_json::Map::new()).unwrap();
        let b =
            |shape: &[u64]| ArrayBuilder::new(shape, DataType::Int16, shape).zarr_format(format);
        let mut a = b(&[3]).create(store.clone(), "a").unwrap();
        b(&[2, 2])
            .dimension_names(vec![Some("y".into()), Some("x".into())])
            .create(store.clone(), "inner/b")
            .unwrap();
        let mut attrs = serde_json::Map::new();
        attrs.insert("units".into(), "m".into());
        a.set_attributes(attrs.clone()).unwrap();
        assert_eq!(a.attributes().unwrap()["units"], "m");
        let reopened = zinto::Array::open(store.clone(), "a").unwrap();
        assert_eq!(reopened.attributes().unwrap()["units"], "m", "{format:?}");
        // v2 keeps the dimension names, which live among its attributes.
        let mut inner_b = zinto::Array::open(store.clone(), "inner/b").unwrap();
        inner_b.set_attributes(attrs.clone()).unwrap();
        let names = zinto::Array::open(store.clone(), "inner/b")
            .unwrap()
            .dimension_names()
            .map(<[_]>::to_vec);
        assert_eq!(
            names,
            Some(vec![Some("y".to_owned()), Some("x".to_owned())]),
            "{format:?}"
        );
        let mut title = serde_json::Map::new();
        title.insert("title".into(), "root".into());
        root.set_attributes(title).unwrap();

        root.consolidate().unwrap();
        let root = Group::open(store.clone(), "").unwrap();
        assert!(root.is_consolidated(), "{format:?}");
        assert_eq!(root.attributes().unwrap()["title"], "root");
        let members: Vec<String> = root
            .members()
            .unwrap()
            .into_iter()
            .map(|m| m.name)
            .collect();
        assert_eq!(members, ["a", "inner"], "{format:?}");
        // The listing comes from the consolidated metadata: a member removed from the store
        // behind its back is still listed.
        std::fs::remove_dir_all(dir.join("a")).unwrap();
        let members: Vec<String> = Group::open(store.clone(), "")
            .unwrap()
            .members()
            .unwrap()
            .into_iter()
            .map(|m| m.name)
            .collect();
        assert_eq!(
            members,
            ["a", "inner"],
            "{format:?}: not listed from the consolidated metadata"
        );
        let Node::Group(inner) = Node::open(store.clone(), "inner").unwrap() else {
            panic!("inner is a group")
        };
        assert_eq!(inner.members().unwrap().len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// An edge chunk turned all fill value by two writes that each cut it is removed: its padding
/// past the array's end is laid with the fill value too, not left as the old values.
#[test]
fn an_edge_chunk_made_all_fill_in_two_cuts_is_removed() {
    for (case, (name, builder)) in chains().into_iter().enumerate() {
        let dir = temp_dir("write", &format!("edge-{case}"));
        let array = builder.create(FileStore::new(&dir), "").unwrap();
        let elem = array.dtype().fixed_size().unwrap();
        let fill = array.metadata().fill_value.as_bytes().to_vec();
        let whole = Region::whole(&SHAPE).unwrap();
        let n = whole.num_elements().unwrap() as usize;
        let mut rng = Rng(0xED6E ^ case as u64);
        let data = values(&mut rng, array.dtype(), n, elem);
        array.write_from(&whole, &data).unwrap();
        let mut model = Model { bytes: data, elem };
        // The last column of chunks is five wide of six (17 = 2 x 6 + 5): the chunk at
        // (0, 2, 0), in two halves of its rows; its padding lies between its rows.
        for (start, shape) in [([0, 12, 0], [2, 5, 5]), ([2, 12, 0], [2, 5, 5])] {
            let region = Region::new(&start, &shape).unwrap();
            let zeros = fill.repeat(region.num_elements().unwrap() as usize);
            array.write_from(&region, &zeros).unwrap();
            model.write(&region, &zeros);
        }
        assert!(array.read_to_vec(&whole).unwrap() == model.bytes, "{name}");
        stored_chunks_hold_more_than_fill(&array, &dir, &model, &fill, name);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// The array of `store`'s `zarr.json` with its shape set to `shape`: the array as zarr-python
/// sees it after `resize`, which keeps the shards still inside the new shape as they are.
fn resized<'s>(
    store: &'s zinto::MemoryStore,
    shape: &[u64],
) -> zinto::Array<&'s zinto::MemoryStore> {
    let doc = store.get("zarr.json").unwrap();
    let mut doc: serde_json::Value = serde_json::from_slice(&doc).unwrap();
    doc["shape"] = serde_json::json!(shape);
    let json = serde_json::to_vec(&doc).unwrap();
    zinto::Array::from_metadata(store, "", ZarrFormat::V3, &json, None).unwrap()
}

/// zarr-python (3.1 and 3.4) keeps the cells of a shard past a shrunken shape when it rewrites
/// the shard, and they show again when the array grows (zarr-python 3.4's
/// `test_resize_sharded_keeps_cells_beyond_shape`); regular chunks are rewritten with the fill
/// value past the edge, as zarr-python rewrites them.
#[test]
fn a_shard_past_a_shrunken_shape_keeps_its_cells_there() {
    for inner in [1u64, 2, 4] {
        let store = zinto::MemoryStore::new();
        ArrayBuilder::new(&[4], DataType::Int16, &[inner])
            .shards(&[4])
            .create(&store, "")
            .unwrap();
        let values = |v: &[i16]| v.iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<u8>>();
        let four = Region::whole(&[4]).unwrap();
        let two = Region::whole(&[2]).unwrap();
        resized(&store, &[4])
            .write_from(&four, &values(&[1, 2, 3, 4]))
            .unwrap();
        resized(&store, &[2])
            .write_from(&two, &values(&[9, 9]))
            .unwrap();
        let back = resized(&store, &[4]).read_to_vec(&four).unwrap();
        assert_eq!(back, values(&[9, 9, 3, 4]), "inner chunks of {inner}");
        // Half of the kept cells written over, through a cut of the shrunken array.
        resized(&store, &[3])
            .write_from(&Region::new(&[2], &[1]).unwrap(), &values(&[7]))
            .unwrap();
        let back = resized(&store, &[4]).read_to_vec(&four).unwrap();
        assert_eq!(back, values(&[9, 9, 7, 4]), "inner chunks of {inner}");
    }
    // Regular chunks: the fill value past the edge, as zarr-python writes an edge chunk.
    let store = zinto::MemoryStore::new();
    ArrayBuilder::new(&[4], DataType::Int16, &[4])
        .create(&store, "")
        .unwrap();
    let four = Region::whole(&[4]).unwrap();
    let values = |v: &[i16]| v.iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<u8>>();
    resized(&store, &[4])
        .write_from(&four, &values(&[1, 2, 3, 4]))
        .unwrap();
    resized(&store, &[2])
        .write_from(&Region::whole(&[2]).unwrap(), &values(&[9, 9]))
        .unwrap();
    let back = resized(&store, &[4]).read_to_vec(&four).unwrap();
    assert_eq!(back, values(&[9, 9, 0, 0]));
}

/// Inner chunks laid in Morton order (as zarr-python 3.4 lays them) sit in the shard in that
/// order, its index pointing at each, and read back as laid in C order.
#[test]
fn inner_chunks_are_laid_in_the_order_the_write_asks() {
    use zinto::ChunkOrder;
    // A 3 x 2 grid of 2 x 2 inner chunks of one byte each: zarr-python 3.4.2's orders, as
    // C-order indices.
    let cases = [
        (ChunkOrder::Lexicographic, [0u64, 1, 2, 3, 4, 5]),
        (ChunkOrder::Colexicographic, [0, 2, 4, 1, 3, 5]),
        (ChunkOrder::Morton, [0, 2, 1, 3, 4, 5]),
    ];
    for (order, expected) in cases {
        let store = zinto::MemoryStore::new();
        let array = ArrayBuilder::new(&[6, 4], DataType::UInt8, &[2, 2])
            .shards(&[6, 4])
            .create(&store, "")
            .unwrap();
        let values: Vec<u8> = (1..=24).collect();
        let whole = Region::whole(&[6, 4]).unwrap();
        let options = WriteOptions {
            extra: zinto::WriteExtra {
                inner_chunk_order: order,
                ..zinto::WriteExtra::default()
            },
            ..WriteOptions::default()
        };
        array.write_from_with(&whole, &values, &options).unwrap();
        assert_eq!(array.read_to_vec(&whole).unwrap(), values, "{order:?}");
        drop(array);
        let shard = store.get("c/0/0").unwrap();
        let index = &shard[shard.len() - 6 * 16 - 4..shard.len() - 4];
        let offset = |i: u64| {
            let at = i as usize * 16;
            u64::from_le_bytes(index[at..at + 8].try_into().unwrap())
        };
        let mut laid: Vec<u64> = (0..6).collect();
        laid.sort_by_key(|&i| offset(i));
        assert_eq!(laid, expected, "{order:?}");
    }
}

/// The grid coordinates `read` reports absent through [`ReadOptions::absent`], sorted.
fn absent_of<S: Store>(array: &zinto::Array<S>, region: &Region, vlen: bool) -> Vec<Vec<u64>> {
    let found = std::sync::Mutex::new(Vec::new());
    let note = |c: &[u64]| found.lock().unwrap().push(c.to_vec());
    let options = zinto::ReadOptions {
        extra: zinto::ReadExtra {
            absent: Some(&note),
        },
        ..zinto::ReadOptions::default()
    };
    if vlen {
        array.read_vlen_with(region, &options).unwrap();
    } else {
        let mut out = vec![0u8; array.selection_len(region).unwrap()];
        array.read_into_with(region, &mut out, &options).unwrap();
    }
    let mut found = found.into_inner().unwrap();
    found.sort();
    found
}

/// A read reports each chunk of its selection that the store lacks (zarr-python 3.4's
/// per-chunk results come from this), once, and no other: for a sharded array the shards (an
/// inner chunk absent from a stored shard is the shard's business), for strings too.
#[test]
fn reads_report_the_chunks_they_found_absent() {
    for (shards, dtype) in [
        (None, DataType::Int32),
        (Some([4u64, 4]), DataType::Int32),
        (None, DataType::String),
        (Some([4, 4]), DataType::String),
    ] {
        let store = zinto::MemoryStore::new();
        let mut builder = ArrayBuilder::new(&[8, 8], dtype, &[2, 2]);
        if let Some(s) = shards {
            builder = builder.shards(&s);
        }
        let array = builder.create(&store, "").unwrap();
        let vlen = dtype == DataType::String;
        // One element at (1, 1) and one at (6, 2): chunks (0, 0) and (3, 1); shards (0, 0)
        // and (1, 0).
        for at in [[1u64, 1], [6, 2]] {
            let one = Region::new(&at, &[1, 1]).unwrap();
            if vlen {
                array.write_vlen(&one, &[0, 1], b"x").unwrap();
            } else {
                array.write_from(&one, &7i32.to_ne_bytes()).unwrap();
            }
        }
        let whole = Region::whole(&[8, 8]).unwrap();
        let expected: Vec<Vec<u64>> = match shards {
            None => (0..4)
                .flat_map(|i| (0..4).map(move |j| vec![i, j]))
                .filter(|c| *c != [0, 0] && *c != [3, 1])
                .collect(),
            Some(_) => vec![vec![0, 1], vec![1, 1]],
        };
        assert_eq!(
            absent_of(&array, &whole, vlen),
            expected,
            "{shards:?} {dtype}"
        );
        // A selection of stored chunks only: none.
        let stored = Region::new(&[0, 0], &[2, 2]).unwrap();
        assert!(
            absent_of(&array, &stored, vlen).is_empty(),
            "{shards:?} {dtype}"
        );
    }
}

/// A stored shard past the array's edge rewritten with `write_empty_chunks` stores only the
/// inner chunks that touch the array (as zarr-python does, and as its first write did), not
/// the fill-value ones wholly past the edge that it reads to keep the cells there.
#[test]
fn a_rewritten_edge_shard_stores_no_fill_past_the_edge() {
    let store = zinto::MemoryStore::new();
    // 11 elements in shards of 9, inner chunks of 3: the second shard's inner chunks 1 and 2
    // lie wholly past the edge.
    let array = ArrayBuilder::new(&[11], DataType::Int32, &[3])
        .shards(&[9])
        .create(&store, "")
        .unwrap();
    let whole = Region::whole(&[11]).unwrap();
    let values: Vec<u8> = (1..=11i32).flat_map(|v| v.to_ne_bytes()).collect();
    let options = WriteOptions {
        extra: zinto::WriteExtra {
            write_empty_chunks: true,
            ..zinto::WriteExtra::default()
        },
        ..WriteOptions::default()
    };
    let stored_inner = |store: &zinto::MemoryStore| {
        let shard = store.get("c/1").unwrap();
        let index = &shard[shard.len() - 3 * 16 - 4..shard.len() - 4];
        (0..3)
            .filter(|i| index[i * 16..i * 16 + 8] != [0xff; 8])
            .collect::<Vec<usize>>()
    };
    array.write_from_with(&whole, &values, &options).unwrap();
    assert_eq!(stored_inner(&store), [0], "the first write");
    array.write_from_with(&whole, &values, &options).unwrap();
    assert_eq!(stored_inner(&store), [0], "the rewrite");
    assert_eq!(array.read_to_vec(&whole).unwrap(), values);
}
