//! Variable-length writes (`Array::write_vlen`) against a model: random regions of random
//! strings and bytes written into arrays of each chain zinto writes them with (v3 and v2,
//! edge chunks, fill-value chunks, cut chunks), each write followed by a read of the whole
//! array compared with the model; then the input refused, by element, before anything is
//! written.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a panic is a failed test

use std::path::Path;

use zinto::core::codec::blosc::{BloscCname, BloscShuffle};
use zinto::core::codec::{Compressor, IndexLocation, Lz4};
use zinto::{
    Array, ArrayBuilder, DataType, ErrorKind, FileStore, Region, WriteOptions, ZarrFormat,
};
use zinto_tests::files::{chunk_files, temp_dir, walk};
use zinto_tests::rng::Rng;

const SHAPE: [u64; 2] = [13, 8];
const CHUNKS: [u64; 2] = [4, 3];
/// Shards of two by two chunks: the last row and column of shards at the array's edge.
const SHARDS: [u64; 2] = [8, 6];

/// A random value: text of 0 to 9 characters, some of several bytes, or (one in four) the fill
/// value, so that chunks become all fill and are removed.
fn value(rng: &mut Rng, fill: &[u8]) -> Vec<u8> {
    if rng.below(4) == 0 {
        return fill.to_vec();
    }
    let alphabet = ["a", "b", "ç", "ō", "東", "🦀", " ", "z"];
    let n = rng.below(10);
    (0..n)
        .flat_map(|_| alphabet[rng.below(alphabet.len() as u64) as usize].bytes())
        .collect()
}

fn random_region(rng: &mut Rng) -> Region {
    let mut start = [0u64; 2];
    let mut shape = [0u64; 2];
    for d in 0..2 {
        start[d] = rng.below(SHAPE[d]);
        shape[d] = 1 + rng.below(SHAPE[d] - start[d]);
    }
    Region::new(&start, &shape).unwrap()
}

type Chain = (&'static str, fn(ArrayBuilder) -> ArrayBuilder);

/// Every chain zinto writes variable-length data with. zlib's stream does not state its size:
/// a cut chunk is decoded as its buffer grows.
fn chains() -> Vec<Chain> {
    let all: Vec<Chain> = vec![
        ("v3 raw", |b| b),
        ("v3 zstd", |b| b.zstd(3)),
        ("v3 gzip crc32c", |b| b.gzip(1).crc32c()),
        ("v3 shards raw", |b| b.shards(&SHARDS)),
        ("v3 shards zstd index start", |b| {
            b.zstd(3).shards(&SHARDS).shard_index(IndexLocation::Start)
        }),
        ("v2 raw", |b| b.zarr_format(ZarrFormat::V2)),
        ("v2 zstd", |b| b.zarr_format(ZarrFormat::V2).zstd(3)),
        ("v2 zlib", |b| b.zarr_format(ZarrFormat::V2).zlib(1)),
        ("v2 blosc lz4 shuffle", |b| {
            b.zarr_format(ZarrFormat::V2)
                .blosc(BloscCname::Lz4, 5, BloscShuffle::Shuffle)
        }),
        ("v2 lz4 (whole chunks)", |b| {
            b.zarr_format(ZarrFormat::V2)
                .compressor(Compressor::Lz4(Lz4 {
                    acceleration: Some(1),
                }))
        }),
    ];
    // The chains this build writes (zstd and deflate need zinto's default features).
    all.into_iter()
        .filter(|(name, _)| zinto_tests::build_writes(name))
        .collect()
}

/// Uncompressed, written by every build.
const RAW: Chain = ("v3 raw", |b| b);

fn create(dir: &Path, dtype: DataType, chain: &Chain) -> Array<FileStore> {
    // "-" for both: base64 of it for bytes.
    let fill = if dtype == DataType::String {
        "-"
    } else {
        "LQ=="
    };
    let b = ArrayBuilder::new(&SHAPE, dtype, &CHUNKS).fill_value(serde_json::json!(fill));
    (chain.1)(b).create(FileStore::new(dir), "").unwrap()
}

/// The region's values as offsets and values.
fn flatten(items: &[Vec<u8>]) -> (Vec<u64>, Vec<u8>) {
    let mut offsets = vec![0u64];
    let mut values = vec![];
    for item in items {
        values.extend_from_slice(item);
        offsets.push(values.len() as u64);
    }
    (offsets, values)
}

/// Chunks (or shards, of `outer` shape) of the model holding a value other than the fill
/// value: the objects stored.
fn chunks_not_fill(model: &[Vec<u8>], fill: &[u8], outer: [u64; 2]) -> usize {
    let (rows, cols) = (SHAPE[0] as usize, SHAPE[1] as usize);
    let (cr, cc) = (outer[0] as usize, outer[1] as usize);
    let mut n = 0;
    for r0 in (0..rows).step_by(cr) {
        for c0 in (0..cols).step_by(cc) {
            let any = (r0..(r0 + cr).min(rows))
                .flat_map(|r| (c0..(c0 + cc).min(cols)).map(move |c| r * cols + c))
                .any(|i| model[i] != fill);
            n += usize::from(any);
        }
    }
    n
}

/// The inner chunks the shards under `dir` store: their index entries that are not empty
/// (each shard of `SHARDS` holds four inner chunks: 64 bytes of index and its CRC-32C).
fn inner_chunks_stored(dir: &Path, index_at_start: bool) -> usize {
    walk(dir)
        .iter()
        .filter(|p| !p.ends_with("zarr.json") && !p.ends_with(zinto::LOCK_FILE))
        .map(|p| {
            let shard = std::fs::read(p).unwrap();
            let index = if index_at_start {
                &shard[..64]
            } else {
                &shard[shard.len() - 68..shard.len() - 4]
            };
            index.chunks(16).filter(|e| *e != [0xFF; 16]).count()
        })
        .sum()
}

#[test]
fn random_vlen_writes_read_back_as_the_model_says() {
    let mut rng = Rng(0x5eed_0f5e_1f00_d5aa);
    for dtype in [DataType::String, DataType::Bytes] {
        let fill: &[u8] = b"-";
        for chain in chains() {
            let dir = temp_dir(
                "write-vlen",
                &format!("{}-{}", dtype, chain.0.replace(' ', "_")),
            );
            let array = create(&dir, dtype, &chain);
            let outer = if chain.0.contains("shards") {
                SHARDS
            } else {
                CHUNKS
            };
            let mut model = vec![fill.to_vec(); (SHAPE[0] * SHAPE[1]) as usize];
            for round in 0..12 {
                let region = random_region(&mut rng);
                let items: Vec<Vec<u8>> = (0..region.num_elements().unwrap())
                    .map(|_| value(&mut rng, fill))
                    .collect();
                let (offsets, values) = flatten(&items);
                let threads = std::num::NonZeroUsize::new(1 + round % 3);
                let options = WriteOptions {
                    threads,
                    ..WriteOptions::default()
                };
                array
                    .write_vlen_with(&region, &offsets, &values, &options)
                    .unwrap_or_else(|e| panic!("{dtype} {}: {e}", chain.0));
                let (s, sh) = (region.start(), region.shape());
                let mut k = 0;
                for r in s[0]..s[0] + sh[0] {
                    for c in s[1]..s[1] + sh[1] {
                        model[(r * SHAPE[1] + c) as usize] = items[k].clone();
                        k += 1;
                    }
                }
                let back = array.read_vlen(&Region::whole(&SHAPE).unwrap()).unwrap();
                let got: Vec<&[u8]> = back.iter().collect();
                let want: Vec<&[u8]> = model.iter().map(Vec::as_slice).collect();
                assert_eq!(got, want, "{dtype} {} round {round}", chain.0);
                assert_eq!(
                    chunk_files(&dir),
                    chunks_not_fill(&model, fill, outer),
                    "{dtype} {} round {round}: chunks all fill value are not stored",
                    chain.0
                );
                if chain.0.contains("shards") {
                    assert_eq!(
                        inner_chunks_stored(&dir, chain.0.contains("index start")),
                        chunks_not_fill(&model, fill, CHUNKS),
                        "{dtype} {} round {round}: inner chunks all fill value are not stored",
                        chain.0
                    );
                }
            }
            std::fs::remove_dir_all(&dir).ok();
        }
    }
}

#[test]
fn vlen_input_is_refused_by_element_before_anything_is_written() {
    let dir = temp_dir("write-vlen", "refused");
    let array = create(&dir, DataType::String, &RAW);
    let region = Region::from_ranges(&[0..1, 0..3]).unwrap();
    let cases: [(&[u64], &[u8], Option<u64>); 5] = [
        (&[0, 1, 2], b"abc", None),          // one offset short
        (&[0, 2, 1, 3], b"abc", Some(1)),    // backwards
        (&[0, 1, 2, 9], b"abc", Some(2)),    // past the values
        (&[0, 1, 2, 3], b"a\xffc", Some(1)), // not UTF-8
        (&[1, 1, 2, 3], b"abc", None),       // fine: Arrow slices may start past 0
    ];
    for (offsets, values, element) in cases {
        let result = array.write_vlen(&region, offsets, values);
        if offsets[0] == 1 {
            result.unwrap();
            continue;
        }
        let e = result.expect_err("refused");
        match e.kind() {
            ErrorKind::VlenInput { element: at, .. } => assert_eq!(*at, element, "{e}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(chunk_files(&dir), 0, "nothing written: {e}");
    }
    // Bytes need not be UTF-8.
    let bytes_dir = temp_dir("write-vlen", "bytes-any");
    let bytes = create(&bytes_dir, DataType::Bytes, &RAW);
    bytes.write_vlen(&region, &[0, 1, 2, 3], b"a\xffc").unwrap();
    let back = bytes.read_vlen(&region).unwrap();
    assert_eq!(back.values(), b"a\xffc");
    std::fs::remove_dir_all(&bytes_dir).ok();
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn each_write_call_refuses_the_other_kind_of_array() {
    let dir = temp_dir("write-vlen", "kinds");
    let strings = create(&dir, DataType::String, &RAW);
    let region = Region::from_ranges(&[0..1, 0..1]).unwrap();
    let e = strings.write_from(&region, &[0u8; 8]).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Metadata(_)), "{e}");
    assert!(e.to_string().contains("write_vlen"), "{e}");
    let numbers = ArrayBuilder::new(&SHAPE, DataType::Float32, &CHUNKS)
        .create(FileStore::new(dir.join("numbers")), "")
        .unwrap();
    let e = numbers.write_vlen(&region, &[0, 1], b"a").unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::WrongType { .. }), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn vlen_arrays_are_created_only_as_their_codec_lays_them_out() {
    let dir = temp_dir("write-vlen", "builder");
    for (what, builder) in [
        (
            "memory order",
            ArrayBuilder::new(&SHAPE, DataType::String, &CHUNKS)
                .order(zinto::core::MemoryOrder::f(2).unwrap()),
        ),
        (
            "big-endian",
            ArrayBuilder::new(&SHAPE, DataType::Bytes, &CHUNKS)
                .endian(zinto::core::codec::Endian::Big),
        ),
        (
            "blosc in Zarr v3",
            ArrayBuilder::new(&SHAPE, DataType::String, &CHUNKS).blosc(
                BloscCname::Zstd,
                5,
                BloscShuffle::NoShuffle,
            ),
        ),
    ] {
        let e = builder.create(FileStore::new(&dir), "").unwrap_err();
        assert!(e.to_string().contains(what), "{what}: {e}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
