//! The `sharding_indexed` index and codec chain validation.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a panic is a failed test

use zinto_core::MemoryOrder;
use zinto_core::codec::{
    ArrayToBytes, ByteRange, ChainError, ChecksumSpec, Checksums, Codec, CodecChain, CodecName,
    Compressor, Endian, IndexLocation, ShardError, ShardLayout, crc32c,
};
use zinto_core::dims;

fn index_bytes(entries: &[(u64, u64)], with_crc: bool) -> Vec<u8> {
    let mut out: Vec<u8> = entries
        .iter()
        .flat_map(|&(o, n)| o.to_le_bytes().into_iter().chain(n.to_le_bytes()))
        .collect();
    if with_crc {
        let c = crc32c(&out);
        out.extend(c.to_le_bytes());
    }
    out
}

const EMPTY: (u64, u64) = (u64::MAX, u64::MAX);

#[test]
fn shard_index_at_end_looks_up_inner_chunks() {
    // A 4x4 shard of 2x2 inner chunks: 4 entries, the third empty.
    let layout = ShardLayout::new(&[4, 4], &[2, 2], IndexLocation::End, true).unwrap();
    assert_eq!(layout.chunks_per_shard(), &[2, 2]);
    assert_eq!(layout.index_len(), 4 * 16 + 4);
    let shard_len = 100 + layout.index_len();
    let range = layout.index_range(shard_len).unwrap();
    assert_eq!(
        range,
        ByteRange {
            offset: 100,
            len: 68
        }
    );
    let idx = index_bytes(&[(0, 30), (30, 30), EMPTY, (60, 40)], true);
    let index = layout.parse(&idx, shard_len).unwrap();
    assert_eq!(
        index.get(&[0, 1]).unwrap(),
        Some(ByteRange {
            offset: 30,
            len: 30
        })
    );
    assert_eq!(index.get(&[1, 0]).unwrap(), None);
    assert_eq!(
        index.get(&[1, 1]).unwrap(),
        Some(ByteRange {
            offset: 60,
            len: 40
        })
    );
    assert_eq!(index.present(), 3);
    assert!(index.get(&[2, 0]).is_err());
}

#[test]
fn shard_index_at_start_sits_at_offset_zero() {
    let layout = ShardLayout::new(&[4], &[2], IndexLocation::Start, false).unwrap();
    assert_eq!(
        layout.index_range(64).unwrap(),
        ByteRange { offset: 0, len: 32 }
    );
    let idx = index_bytes(&[(32, 16), (48, 16)], false);
    let index = layout.parse(&idx, 64).unwrap();
    assert_eq!(
        index.get(&[1]).unwrap(),
        Some(ByteRange {
            offset: 48,
            len: 16
        })
    );
}

#[test]
fn shard_index_pointing_outside_the_shard_is_an_error() {
    let layout = ShardLayout::new(&[4], &[2], IndexLocation::End, false).unwrap();
    let idx = index_bytes(&[(0, 10), (5, 100)], false);
    assert_eq!(
        layout.parse(&idx, 64).unwrap_err(),
        ShardError::EntryOutOfShard {
            chunk: 1,
            offset: 5,
            nbytes: 100,
            shard_len: 64
        }
    );
    // An offset that overflows when the length is added.
    let idx = index_bytes(&[(u64::MAX - 1, 10), EMPTY], false);
    assert!(matches!(
        layout.parse(&idx, 64).unwrap_err(),
        ShardError::EntryOutOfShard { chunk: 0, .. }
    ));
    // Half an empty marker is not empty.
    let idx = index_bytes(&[(u64::MAX, 0), EMPTY], false);
    assert!(matches!(
        layout.parse(&idx, 64).unwrap_err(),
        ShardError::EntryOutOfShard { chunk: 0, .. }
    ));
}

#[test]
fn shard_index_with_a_bad_checksum_is_an_error() {
    let layout = ShardLayout::new(&[4], &[2], IndexLocation::End, true).unwrap();
    let mut idx = index_bytes(&[(0, 10), (10, 10)], true);
    let n = idx.len();
    idx[n - 1] ^= 1;
    assert!(matches!(
        layout.parse(&idx, 100).unwrap_err(),
        ShardError::IndexChecksum { .. }
    ));
}

#[test]
fn shard_smaller_than_its_index_is_an_error() {
    let layout = ShardLayout::new(&[4], &[2], IndexLocation::End, true).unwrap();
    assert_eq!(
        layout.index_range(10).unwrap_err(),
        ShardError::ShardTooSmall {
            shard_len: 10,
            index_len: 36
        }
    );
    assert_eq!(
        layout.parse(&[0; 10], 100).unwrap_err(),
        ShardError::IndexSize {
            expected: 36,
            got: 10
        }
    );
}

fn zstd_bytes_chain(shape: &[u64]) -> CodecChain {
    CodecChain::new(
        shape,
        4,
        &[
            Codec::Bytes(Some(Endian::Little)),
            Codec::Compressor(Compressor::ZSTD),
        ],
        None,
    )
    .unwrap()
}

#[test]
fn chain_composes_transposes_and_collects_bytes_codecs() {
    let t = MemoryOrder::permutation(&[2, 0, 1]).unwrap();
    let chain = CodecChain::new(
        &[2, 3, 4],
        8,
        &[
            Codec::Transpose(t.clone()),
            Codec::Transpose(t),
            Codec::Bytes(Some(Endian::Big)),
            Codec::Compressor(Compressor::GZIP),
            Codec::Checksum(ChecksumSpec::CRC32C),
        ],
        None,
    )
    .unwrap();
    let level = chain.outer();
    // [2,0,1] then [2,0,1]: stored axis i is a[b[i]] = [1, 2, 0].
    assert_eq!(level.order.axes().collect::<Vec<_>>(), vec![1, 2, 0]);
    assert_eq!(level.array_to_bytes, ArrayToBytes::Bytes(Some(Endian::Big)));
    assert_eq!(level.bytes_codecs.compressor, Some(Compressor::GZIP));
    assert_eq!(level.bytes_codecs.checksums, Checksums::CRC32C);
}

#[test]
fn nested_sharding_is_three_levels() {
    let innermost = zstd_bytes_chain(&[2, 2]);
    let middle = CodecChain::new(
        &[4, 4],
        4,
        &[Codec::ShardingIndexed {
            chunk_shape: dims(&[2, 2]).unwrap(),
            index_location: IndexLocation::End,
            index_crc32c: true,
        }],
        Some(innermost),
    )
    .unwrap();
    let outer = CodecChain::new(
        &[8, 8],
        4,
        &[
            Codec::ShardingIndexed {
                chunk_shape: dims(&[4, 4]).unwrap(),
                index_location: IndexLocation::Start,
                index_crc32c: false,
            },
            Codec::Compressor(Compressor::ZSTD),
        ],
        Some(middle),
    )
    .unwrap();
    assert_eq!(outer.levels().len(), 3);
    assert!(matches!(
        outer.outer().array_to_bytes,
        ArrayToBytes::Sharding(_)
    ));
    assert_eq!(outer.innermost().chunk_shape.as_slice(), &[2, 2]);
}

#[test]
fn chain_errors_name_the_codec() {
    let le = Codec::Bytes(Some(Endian::Little));
    let t = Codec::Transpose(MemoryOrder::c(1).unwrap());
    let cases: Vec<(&str, Vec<Codec>, ChainError)> = vec![
        (
            "transpose after bytes",
            vec![le.clone(), t.clone()],
            ChainError::Misplaced {
                codec: CodecName::Transpose,
            },
        ),
        (
            "two array-to-bytes",
            vec![le.clone(), le.clone()],
            ChainError::Misplaced {
                codec: CodecName::Bytes,
            },
        ),
        (
            "compressor first",
            vec![Codec::Compressor(Compressor::ZSTD), le.clone()],
            ChainError::Misplaced {
                codec: CodecName::Zstd,
            },
        ),
        (
            "no array-to-bytes",
            vec![t],
            ChainError::MissingArrayToBytes,
        ),
        (
            "no endian",
            vec![Codec::Bytes(None)],
            ChainError::MissingEndian { elem_size: 4 },
        ),
        (
            "two compressors",
            vec![
                le.clone(),
                Codec::Compressor(Compressor::ZSTD),
                Codec::Compressor(Compressor::GZIP),
            ],
            ChainError::Unsupported {
                codec: CodecName::Gzip,
                what: "two compressors in one chain",
            },
        ),
        (
            "crc before compressor",
            vec![
                le.clone(),
                Codec::Checksum(ChecksumSpec::CRC32C),
                Codec::Compressor(Compressor::ZLIB),
            ],
            ChainError::Unsupported {
                codec: CodecName::Crc32c,
                what: "a checksum before a compressor",
            },
        ),
        (
            "too many crc32c",
            vec![
                le,
                Codec::Checksum(ChecksumSpec::CRC32C),
                Codec::Checksum(ChecksumSpec::CRC32C),
                Codec::Checksum(ChecksumSpec::CRC32C),
                Codec::Checksum(ChecksumSpec::CRC32C),
                Codec::Checksum(ChecksumSpec::CRC32C),
            ],
            ChainError::TooMany {
                codec: CodecName::Crc32c,
            },
        ),
    ];
    for (name, codecs, expected) in cases {
        assert_eq!(
            CodecChain::new(&[8], 4, &codecs, None).unwrap_err(),
            expected,
            "{name}"
        );
    }
}

#[test]
fn shard_not_divisible_and_missing_inner_are_errors() {
    let sharding = |inner: &[u64]| Codec::ShardingIndexed {
        chunk_shape: dims(inner).unwrap(),
        index_location: IndexLocation::End,
        index_crc32c: true,
    };
    assert_eq!(
        CodecChain::new(&[6], 4, &[sharding(&[4])], Some(zstd_bytes_chain(&[4]))).unwrap_err(),
        ChainError::ShardNotDivisible {
            dim: 0,
            shard: 6,
            inner: 4
        }
    );
    assert!(matches!(
        CodecChain::new(&[8], 4, &[sharding(&[4])], None).unwrap_err(),
        ChainError::Unsupported {
            codec: CodecName::ShardingIndexed,
            ..
        }
    ));
}

#[test]
fn codec_names_round_trip_through_the_table() {
    for name in [
        "bytes",
        "transpose",
        "sharding_indexed",
        "crc32c",
        "gzip",
        "zlib",
        "zstd",
        "blosc",
    ] {
        assert_eq!(CodecName::from_name(name).unwrap().name(), name);
    }
    assert_eq!(CodecName::from_name("lz4"), None);
}
