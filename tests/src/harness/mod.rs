//! One function per fuzz target. Each takes the fuzzer's bytes, drives one public entry point,
//! and asserts what must hold for any input: no panic (a panic is a finding), no write outside
//! the destination (guard bytes), no allocation over the bound that docs/memory.md documents
//! (a cap: going over aborts), and the target's own property. Input layouts are plain
//! (a few header bytes, then payload) so that seeds can be built from real fixtures
//! (`fuzz/make_seeds.py`).

#![allow(clippy::panic, clippy::expect_used, clippy::cast_possible_truncation)] // a panic is a finding

mod array;
mod array_to_array;
mod blosc;
mod concat;
mod decode;
mod input;
mod layout;
mod records;
mod rect_grid;
mod segment;
mod shard;
mod write;

pub use array::{array_read, metadata};
pub use array_to_array::array_to_array;
pub use blosc::{
    BLOSC, Reference, blosc_bound, blosc_differential, blosc_written, decode_blosc,
    decode_blosc_chunk, decode_blosclz, decode_lz4,
};
pub use concat::concat;
pub use decode::{decode, roundtrip, ruzstd_bound, zstd_differential, zstd_frame_header};
pub use layout::layout;
pub use records::records_sort;
pub use rect_grid::rect_grid;
pub use segment::segment_header;
pub use shard::shard_index;
pub use write::write_roundtrip;

/// A harness: the fuzzer's bytes in, a panic or an abort out when something is wrong.
pub type Harness = fn(&[u8]);

/// Every target by name, for replaying corpora.
pub const TARGETS: &[(&str, Harness)] = &[
    ("decode_crc32c", |d| decode(decode::CRC32C, d)),
    ("decode_gzip", |d| decode(decode::GZIP, d)),
    ("decode_zlib", |d| decode(decode::ZLIB, d)),
    ("decode_zstd", |d| decode(decode::ZSTD, d)),
    ("zstd_differential", zstd_differential),
    ("roundtrip", roundtrip),
    ("zstd_frame_header", zstd_frame_header),
    ("shard_index", shard_index),
    ("layout", layout),
    ("metadata", metadata),
    ("array_read", array_read),
    ("concat", concat),
    ("records_sort", records_sort),
    ("rect_grid", rect_grid),
    ("decode_blosc", decode_blosc),
    ("decode_lz4", decode_lz4),
    ("decode_blosclz", decode_blosclz),
    // c-blosc is linked by the fuzz crate only: here, zinto's side of the comparison.
    ("blosc_differential", |d| blosc_differential(d, None)),
    ("blosc_written", |d| blosc_written(d, None)),
    ("segment_header", segment_header),
    ("write_roundtrip", write_roundtrip),
    ("array_to_array", array_to_array),
];

pub use decode::{CRC32C, GZIP, ZLIB, ZSTD};
