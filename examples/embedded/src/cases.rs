//! The cases: each decodes chunks from flash into a static buffer and checks the result.
//!
//! Every buffer is a fixed-size array (the output, Blosc's scratch, the decoder itself): the
//! core allocates nothing and the firmware links no allocator.

// Built with some cases left out (measure.sh), their helpers and constants go unused.
#![cfg_attr(
    not(all(
        feature = "gzip",
        feature = "zlib",
        feature = "crc32c",
        feature = "shard",
        feature = "blosc",
        feature = "region"
    )),
    allow(dead_code, unused_imports)
)]

use zinto_core::codec::{
    BloscDecoder, BytesCodecs, Checksums, ChunkDecoder, Compressor, IndexLocation, LzInner,
    ShardLayout, Status,
};
use zinto_core::{ChunkGrid, MemoryOrder, Region};

use crate::fnv1a64;

mod expected {
    include!("../data/expected.rs");
}

/// A case: its name and the function that runs it (`Err`: why it failed, in a few words).
pub type Case = (&'static str, fn() -> Result<(), &'static str>);

/// Every case built in (cargo features), in order.
pub const CASES: &[Case] = &[
    #[cfg(feature = "gzip")]
    ("gzip chunk (v3, int16 16x12)", gzip),
    #[cfg(feature = "zlib")]
    ("zlib chunk (v2, float64 x500)", zlib),
    #[cfg(feature = "crc32c")]
    ("crc32c-protected chunk (v3, uint32 x256)", crc32c),
    #[cfg(feature = "shard")]
    ("shard: index and 16 inner chunks (uint8 32x32)", shard),
    #[cfg(feature = "blosc")]
    ("Blosc-lz4 chunk (v2, float32 x1024)", blosc),
    #[cfg(feature = "region")]
    ("sub-region 5..35 x 7..25 across 9 gzip chunks", region),
];

/// A case that does nothing, for the stack the harness itself uses.
#[inline(never)]
pub fn baseline() -> Result<(), &'static str> {
    check(&[], 0, fnv1a64(&[]))
}

/// The sizes of the decoders' state, for docs/embedded.md.
pub fn state_sizes() -> [(&'static str, usize); 7] {
    use core::mem::size_of;
    [
        (
            "ChunkDecoder (gzip, zlib, checksums)",
            size_of::<ChunkDecoder>(),
        ),
        (
            "BloscDecoder<&mut [u8]> (plus its scratch)",
            size_of::<BloscDecoder<&mut [u8]>>(),
        ),
        ("ShardLayout", size_of::<ShardLayout>()),
        ("ChunkGrid", size_of::<ChunkGrid>()),
        ("Region", size_of::<Region>()),
        ("Piece", size_of::<zinto_core::Piece>()),
        ("Runs", size_of::<zinto_core::Runs>()),
    ]
}

/// Compares a result with the generating script's length and checksum.
fn check(got: &[u8], len: usize, fnv: u64) -> Result<(), &'static str> {
    if got.len() != len {
        return Err("wrong length");
    }
    if fnv1a64(got) != fnv {
        return Err("checksum differs from zarr-python's data");
    }
    Ok(())
}

/// Decodes a stored chunk through `ChunkDecoder`, fed in 64-byte pieces as from a slow flash
/// or a radio link, into `out` (exactly its decoded size).
fn decode(codecs: &BytesCodecs, stored: &[u8], out: &mut [u8]) -> Result<(), &'static str> {
    // About 11 KiB of state (miniz's inflater): the caller places it, here on the stack.
    let mut decoder = ChunkDecoder::new();
    decoder
        .start(codecs, stored.len() as u64, out.len())
        .map_err(|_| "the decoder refused the chunk")?;
    let mut status = Status::NeedsInput;
    for piece in stored.chunks(64) {
        status = decoder.feed(piece, out).map_err(|_| "decode error")?.status;
    }
    if status != Status::Done {
        return Err("the stream did not end");
    }
    Ok(())
}

const GZIP: BytesCodecs = BytesCodecs {
    compressor: Some(Compressor::GZIP),
    checksums: Checksums::NONE,
};

fn gzip() -> Result<(), &'static str> {
    let mut out = [0u8; expected::GRID_CHUNK_0_0_LEN];
    decode(
        &GZIP,
        include_bytes!("../data/chunks/grid_0_0.gz"),
        &mut out,
    )?;
    check(
        &out,
        expected::GRID_CHUNK_0_0_LEN,
        expected::GRID_CHUNK_0_0_FNV,
    )
}

fn zlib() -> Result<(), &'static str> {
    let codecs = BytesCodecs {
        compressor: Some(Compressor::ZLIB),
        checksums: Checksums::NONE,
    };
    // The output in a static (taken once), as firmware keeps large buffers.
    let out = cortex_m::singleton!(: [u8; expected::ZLIB_LEN] = [0; expected::ZLIB_LEN])
        .ok_or("the output buffer was taken twice")?;
    decode(&codecs, include_bytes!("../data/chunks/zlib_0.zlib"), out)?;
    check(out, expected::ZLIB_LEN, expected::ZLIB_FNV)
}

fn crc32c() -> Result<(), &'static str> {
    let codecs = BytesCodecs {
        compressor: None,
        checksums: Checksums::CRC32C,
    };
    let mut out = [0u8; expected::CRC32C_LEN];
    decode(
        &codecs,
        include_bytes!("../data/chunks/crc_0.crc32c"),
        &mut out,
    )?;
    check(&out, expected::CRC32C_LEN, expected::CRC32C_FNV)
}

/// A shard of 4x4 inner chunks of 8x8 uint8, stored uncompressed, index (with its crc32c) at
/// the end: the index is validated, then every inner chunk copied to its place (an absent one
/// is the fill value, 0).
fn shard() -> Result<(), &'static str> {
    let stored: &[u8] = include_bytes!("../data/chunks/shard_0_0.shard");
    let layout = ShardLayout::new(&[32, 32], &[8, 8], IndexLocation::End, true)
        .map_err(|_| "shard layout")?;
    let range = layout
        .index_range(stored.len() as u64)
        .map_err(|_| "shard too small for its index")?;
    let index_bytes = stored
        .get(range.offset as usize..(range.offset + range.len) as usize)
        .ok_or("index outside the shard")?;
    let index = layout
        .parse(index_bytes, stored.len() as u64)
        .map_err(|_| "invalid shard index")?;
    let mut out = [0u8; expected::SHARD_LEN];
    let whole = Region::whole(&[32, 32]).map_err(|_| "region")?;
    let grid = layout.grid();
    let c = MemoryOrder::c(2).map_err(|_| "order")?;
    let mut absent = 0;
    for piece in grid.pieces(&whole).map_err(|_| "pieces")? {
        let runs = piece.runs(grid, 1, &c, &[32, 32]).map_err(|_| "runs")?;
        match index.get(&piece.chunk).map_err(|_| "index entry")? {
            None => absent += 1, // the fill value, 0: `out` starts zeroed
            Some(r) => {
                let inner = stored
                    .get(r.offset as usize..(r.offset + r.len) as usize)
                    .ok_or("inner chunk outside the shard")?;
                for run in runs {
                    let src = inner.get(run.src..run.src + run.len).ok_or("run")?;
                    out.get_mut(run.dst..run.dst + run.len)
                        .ok_or("run outside the output")?
                        .copy_from_slice(src);
                }
            }
        }
    }
    if absent != 1 {
        return Err("expected exactly one inner chunk absent (all fill value)");
    }
    check(&out, expected::SHARD_LEN, expected::SHARD_FNV)
}

/// Blosc scratch: the block table and one block (this chunk is one 4 KiB block).
const BLOSC_SCRATCH: usize = 8 * 1024;

fn blosc() -> Result<(), &'static str> {
    let stored: &[u8] = include_bytes!("../data/chunks/blosc_0.blosc");
    let mut scratch = [0u8; BLOSC_SCRATCH];
    let mut decoder = BloscDecoder::new(&mut scratch[..]);
    let mut out = [0u8; expected::BLOSC_LEN];
    decoder.start(stored.len() as u64, out.len() as u64);
    let (mut written, mut status) = (0, Status::NeedsInput);
    for piece in stored.chunks(256) {
        let p = decoder
            .decode(piece, &mut out, written, &mut LzInner)
            .map_err(|_| "blosc decode error")?;
        written += p.written;
        status = p.status;
    }
    if status != Status::Done || written != out.len() {
        return Err("the blosc stream did not end");
    }
    check(&out, expected::BLOSC_LEN, expected::BLOSC_FNV)
}

/// The stored chunks of the 40x30 int16 grid (chunks 16x12), by grid coordinates.
fn grid_chunk(coords: &[u64]) -> Option<&'static [u8]> {
    Some(match coords {
        [0, 0] => include_bytes!("../data/chunks/grid_0_0.gz"),
        [0, 1] => include_bytes!("../data/chunks/grid_0_1.gz"),
        [0, 2] => include_bytes!("../data/chunks/grid_0_2.gz"),
        [1, 0] => include_bytes!("../data/chunks/grid_1_0.gz"),
        [1, 1] => include_bytes!("../data/chunks/grid_1_1.gz"),
        [1, 2] => include_bytes!("../data/chunks/grid_1_2.gz"),
        [2, 0] => include_bytes!("../data/chunks/grid_2_0.gz"),
        [2, 1] => include_bytes!("../data/chunks/grid_2_1.gz"),
        [2, 2] => include_bytes!("../data/chunks/grid_2_2.gz"),
        _ => return None,
    })
}

/// Rows 5..35, columns 7..25 of the grid, C order: each chunk the selection touches is decoded
/// into one chunk-sized scratch and its part copied to the output by the byte runs the layout
/// core computes.
fn region() -> Result<(), &'static str> {
    let grid = ChunkGrid::new(&[40, 30], &[16, 12]).map_err(|_| "grid")?;
    let selection = Region::new(&[5, 7], &[30, 18]).map_err(|_| "selection")?;
    let c = MemoryOrder::c(2).map_err(|_| "order")?;
    let mut out = [0u8; expected::GRID_REGION_LEN];
    let mut chunk = [0u8; 16 * 12 * 2];
    let mut pieces = 0;
    for piece in grid.pieces(&selection).map_err(|_| "pieces")? {
        let stored = grid_chunk(&piece.chunk).ok_or("no such chunk")?;
        decode(&GZIP, stored, &mut chunk)?;
        for run in piece.runs(&grid, 2, &c, &[30, 18]).map_err(|_| "runs")? {
            let src = chunk
                .get(run.src..run.src + run.len)
                .ok_or("run outside the chunk")?;
            out.get_mut(run.dst..run.dst + run.len)
                .ok_or("run outside the output")?
                .copy_from_slice(src);
        }
        pieces += 1;
    }
    if pieces != 9 {
        return Err("the selection should touch 9 chunks");
    }
    check(&out, expected::GRID_REGION_LEN, expected::GRID_REGION_FNV)
}
