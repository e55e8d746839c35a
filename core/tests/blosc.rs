//! Blosc: hostile headers are named errors, real chunks (written by numcodecs / c-blosc 1.21)
//! decode the same whole, in pieces and through moving windows.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_possible_truncation
)]

use zinto_core::codec::blosc::{BloscCname, BloscShuffle};
use zinto_core::codec::{
    BloscConfig, BloscDecoder, BytesCodecs, ChunkDecoder, Compressor, DecodeError, LzInner, Status,
};

fn fixture(array: &str, chunk: &str) -> Vec<u8> {
    let path = format!(
        "{}/../tests/fixtures/data/{array}/{chunk}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

const BLOSC: BytesCodecs = BytesCodecs::compressed(Some(Compressor::Blosc(BloscConfig {
    cname: Some(BloscCname::Lz4),
    clevel: Some(5),
    shuffle: Some(BloscShuffle::Shuffle),
    typesize: None,
    blocksize: None,
})));

/// Decodes a whole stored chunk through a [`ChunkDecoder`], fed in pieces of `piece` bytes.
fn decode(stored: &[u8], len: usize, piece: usize) -> Result<Vec<u8>, DecodeError> {
    let mut d = ChunkDecoder::new();
    d.start(&BLOSC, stored.len() as u64, len)?;
    let mut out = vec![0u8; len];
    let mut status = Status::NeedsInput;
    for p in stored.chunks(piece.max(1)) {
        status = d.feed(p, &mut out)?.status;
    }
    if stored.is_empty() {
        status = d.feed(&[], &mut out)?.status;
    }
    assert_eq!(status, Status::Done);
    Ok(out)
}

fn nbytes(chunk: &[u8]) -> usize {
    u32::from_le_bytes(chunk[4..8].try_into().unwrap()) as usize
}

/// A memcpyed chunk of `data` (flags 0x02), typesize 1, one block.
fn memcpyed(data: &[u8]) -> Vec<u8> {
    let n = data.len() as u32;
    let mut c = vec![2u8, 1, 0x02, 1];
    for v in [n, n, n + 16] {
        c.extend(v.to_le_bytes());
    }
    c.extend(data);
    c
}

/// A compressed-format chunk of `data` (lz4 code, no shuffle, typesize 1) whose blocks of
/// `blocksize` are each one stream stored raw (stream size = block length).
fn raw_streams(data: &[u8], blocksize: usize) -> Vec<u8> {
    let blocks: Vec<&[u8]> = data.chunks(blocksize).collect();
    let table_end = 16 + 4 * blocks.len();
    let mut body = vec![];
    let mut starts = vec![];
    for b in &blocks {
        starts.push((table_end + body.len()) as u32);
        body.extend((b.len() as u32).to_le_bytes());
        body.extend(*b);
    }
    let mut c = vec![2u8, 1, 0x10 | 0x20, 1];
    let cbytes = (table_end + body.len()) as u32;
    for v in [data.len() as u32, blocksize as u32, cbytes] {
        c.extend(v.to_le_bytes());
    }
    for s in starts {
        c.extend(s.to_le_bytes());
    }
    c.extend(body);
    c
}

#[test]
fn real_chunks_decode_the_same_in_any_pieces() {
    for (array, chunk) in [
        ("nc_v2_blosc_bs256_lz4_shuffle", "0"),
        ("nc_v2_blosc_mixed_blosclz_bitshuffle", "0"),
        ("nc_v2_blosc_auto_multiblock_split_lz4", "0"),
        ("nc_v2_blosc_zlib_shuffle", "0.0"),
        ("nc_v2_blosc_zstd_bitshuffle", "0.0"),
        ("nc_v2_blosc_clevel0_zstd_shuffle", "0.0"),
        ("nc_v2_blosc_odd_chunk_int64_blosclz_bitshuffle", "0.0"),
    ] {
        let stored = fixture(array, chunk);
        let len = nbytes(&stored);
        let whole = decode(&stored, len, stored.len()).unwrap();
        for piece in [1, 3, 7, 100, 1000] {
            assert_eq!(
                decode(&stored, len, piece).unwrap(),
                whole,
                "{array} in {piece}s"
            );
        }
        // Through a window of one block, and of a block and a half, in pieces: the same.
        let least = ChunkDecoder::min_window(&BLOSC, &stored, stored.len() as u64, len).unwrap();
        for window in [least, least + least / 2] {
            for piece in [1, 7, 1000, stored.len()] {
                assert_eq!(
                    windowed(&stored, len, piece, window).unwrap(),
                    whole,
                    "{array} in {piece}s through {window}"
                );
            }
        }
    }
}

/// Decodes a stored chunk through a window of `window` bytes, fed in pieces of `piece` bytes.
fn windowed(
    stored: &[u8],
    len: usize,
    piece: usize,
    window: usize,
) -> Result<Vec<u8>, DecodeError> {
    let mut d = ChunkDecoder::new();
    d.start_windowed(&BLOSC, stored.len() as u64, len)?;
    let mut w = vec![0u8; window];
    let mut out = Vec::new();
    let mut status = Status::NeedsInput;
    for p in stored.chunks(piece.max(1)) {
        let mut at = 0;
        loop {
            let r = d.feed_window(&p[at..], &mut w)?;
            at += r.consumed;
            out.extend_from_slice(&w[r.produced]);
            status = r.status;
            if status == Status::Done || (status == Status::NeedsInput && at == p.len()) {
                break;
            }
        }
    }
    assert_eq!(status, Status::Done);
    Ok(out)
}

#[test]
fn hand_made_chunks_decode() {
    let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 251) as u8).collect();
    assert_eq!(decode(&memcpyed(&data), 1000, 13).unwrap(), data);
    assert_eq!(decode(&raw_streams(&data, 256), 1000, 13).unwrap(), data);
    // An empty buffer is its header alone.
    let mut empty = vec![2u8, 1, 0x02, 1];
    for v in [0u32, 0, 16] {
        empty.extend(v.to_le_bytes());
    }
    assert_eq!(decode(&empty, 0, 4).unwrap(), Vec::<u8>::new());
}

/// Sets little-endian `v` at `at`.
fn put(c: &mut [u8], at: usize, v: u32) {
    c[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn hostile_headers_are_errors_naming_the_field() {
    let data: Vec<u8> = (0..1000u32).map(|i| (i % 13) as u8).collect();
    let good = raw_streams(&data, 256);
    let field = |e: DecodeError| match e {
        DecodeError::InvalidField { field, .. } => field,
        DecodeError::SizeMismatch { .. } => "nbytes",
        DecodeError::StoredSizeMismatch { .. } => "cbytes (stored)",
        DecodeError::Unsupported { .. } => "unsupported",
        DecodeError::Block { .. } => "block",
        DecodeError::Truncated { .. } => "truncated",
        other => panic!("unexpected {other:?}"),
    };
    type Mutation = fn(&mut Vec<u8>);
    let cases: [(&str, Mutation, &str); 13] = [
        ("version 1", |c| c[0] = 1, "format version"),
        ("an unknown version", |c| c[0] = 9, "format version"),
        ("inner version 2", |c| c[1] = 2, "inner compressor version"),
        ("the reserved flag", |c| c[2] |= 0x08, "flags"),
        ("typesize 0", |c| c[3] = 0, "typesize"),
        ("blocksize 0", |c| put(c, 8, 0), "blocksize"),
        ("blocksize past nbytes", |c| put(c, 8, 5000), "blocksize"),
        ("huge nbytes", |c| put(c, 4, u32::MAX), "nbytes"),
        (
            "cbytes larger than the chunk",
            |c| put(c, 12, 1 << 30),
            "cbytes (stored)",
        ),
        (
            "compressor code 5",
            |c| c[2] = 0xb0,
            "inner compressor code",
        ),
        (
            "a block start past the end",
            |c| put(c, 16 + 4, 1 << 20),
            "block",
        ),
        (
            "a negative stream size",
            |c| put(c, 16 + 4 * 4, u32::MAX),
            "block",
        ),
        (
            "a stream size past the block",
            |c| put(c, 16 + 4 * 4, 300),
            "block",
        ),
    ];
    for (what, mutate, expected) in cases {
        let mut c = good.clone();
        mutate(&mut c);
        let e = decode(&c, 1000, 64).expect_err(what);
        assert_eq!(field(e), expected, "{what}: {e}");
        // Every error reads as a sentence naming the codec.
        assert!(e.to_string().starts_with("blosc"), "{e}");
    }
    // cbytes too small for the block table, on a chunk that claims it.
    let mut c = good.clone();
    c.truncate(20);
    put(&mut c, 12, 20);
    assert_eq!(field(decode(&c, 1000, 64).unwrap_err()), "cbytes");
    // A memcpyed chunk whose cbytes is not nbytes + 16.
    let mut c = memcpyed(&data);
    c.push(0);
    put(&mut c, 12, 1017);
    assert_eq!(field(decode(&c, 1000, 64).unwrap_err()), "cbytes");
    // Truncated inside the table, a stream size, and a stream.
    for cut in [10, 18, 16 + 16 + 2, 16 + 16 + 4 + 100] {
        let mut c = good[..cut].to_vec();
        if cut >= 16 {
            put(&mut c, 12, cut as u32);
        }
        assert!(decode(&c, 1000, 7).is_err(), "cut at {cut}");
    }
}

#[test]
fn a_chunk_decodes_through_a_window_of_one_block_with_fixed_scratch() {
    let stored = fixture("nc_v2_blosc_bs256_lz4_shuffle", "0");
    let len = nbytes(&stored);
    let blocksize = u32::from_le_bytes(stored[8..12].try_into().unwrap()) as usize;
    assert!(len > 10 * blocksize, "the chunk has many blocks");
    let whole = decode(&stored, len, stored.len()).unwrap();

    // Scratch: the table and one block, on the stack; the window: one block, moved on.
    let mut scratch = [0u8; 4096];
    let mut d = BloscDecoder::new(&mut scratch[..]);
    d.start(stored.len() as u64, len as u64);
    let mut window = vec![0u8; blocksize];
    let mut got = vec![];
    let mut input = &stored[..];
    let mut pos = 0;
    loop {
        let p = d
            .decode(
                &input[..input.len().min(100)],
                &mut window,
                pos,
                &mut LzInner,
            )
            .unwrap();
        input = &input[p.consumed..];
        pos += p.written;
        match p.status {
            Status::NeedsOutput => {
                got.extend_from_slice(&window[..pos]);
                pos = 0;
            }
            Status::NeedsInput => assert!(!input.is_empty(), "ran out of input"),
            Status::Done => {
                got.extend_from_slice(&window[..pos]);
                break;
            }
        }
    }
    assert_eq!(got, whole);

    // Scratch that cannot hold the table and a block is refused, not overrun.
    let mut small = [0u8; 64];
    let mut d = BloscDecoder::new(&mut small[..]);
    d.start(stored.len() as u64, len as u64);
    let e = d
        .decode(&stored, &mut vec![0u8; len], 0, &mut LzInner)
        .unwrap_err();
    assert!(matches!(e, DecodeError::ScratchTooSmall { .. }), "{e:?}");
}

/// `raw_streams(data, blocksize)` with its blocks stored in `order` (block indices), as older
/// multithreaded c-blosc stored them, the table saying where each went.
fn permuted(data: &[u8], blocksize: usize, order: &[usize]) -> Vec<u8> {
    let c = raw_streams(data, blocksize);
    let n = data.len().div_ceil(blocksize);
    let entry = |c: &[u8], j: usize| {
        u32::from_le_bytes(c[16 + 4 * j..20 + 4 * j].try_into().unwrap()) as usize
    };
    let starts: Vec<usize> = (0..n).map(|j| entry(&c, j)).collect();
    let ends: Vec<usize> = starts[1..].iter().copied().chain([c.len()]).collect();
    let mut out = c[..16 + 4 * n].to_vec();
    for &j in order {
        let at = out.len() as u32;
        out[16 + 4 * j..20 + 4 * j].copy_from_slice(&at.to_le_bytes());
        out.extend_from_slice(&c[starts[j]..ends[j]]);
    }
    out
}

fn set_entry(c: &mut [u8], j: usize, start: u32) {
    c[16 + 4 * j..20 + 4 * j].copy_from_slice(&start.to_le_bytes());
}

/// Blocks stored out of order decode to the data, whole, in pieces and through windows of one
/// block; bytes stored after the stream are ignored either way (z5py's chunks carry 16).
#[test]
fn blocks_in_any_order_and_bytes_after_the_stream_decode_as_c_blosc_reads_them() {
    let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 251) as u8).collect();
    let order = [3, 0, 7, 1, 6, 2, 5, 4];
    let shuffled = permuted(&data, 128, &order);
    for stored in [shuffled.clone(), raw_streams(&data, 128)] {
        let mut with_tail = stored.clone();
        with_tail.extend([0xee; 16]);
        for s in [&stored, &with_tail] {
            for piece in [1, 7, 100, s.len()] {
                assert_eq!(decode(s, 1000, piece).unwrap(), data, "in {piece}s");
                for window in [128, 200] {
                    assert_eq!(windowed(s, 1000, piece, window).unwrap(), data, "{window}");
                }
            }
        }
    }
    // With fixed scratch: a permuted chunk needs room for its whole stream besides the table
    // and a block, and says how much when it lacks it.
    let mut scratch = [0u8; 8 * 4 + 128];
    let mut d = BloscDecoder::new(&mut scratch[..]);
    d.start(shuffled.len() as u64, 1000);
    let mut out = vec![0u8; 1000];
    let e = d.decode(&shuffled, &mut out, 0, &mut LzInner).unwrap_err();
    assert!(matches!(e, DecodeError::ScratchTooSmall { .. }), "{e}");
}

/// Out of order, every check still holds: no block starts inside the header or table or past
/// the stream, none starts where another does, none reaches into the next one's bytes.
#[test]
fn blocks_out_of_order_may_not_overlap_or_point_outside_the_stream() {
    let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 251) as u8).collect();
    let good = permuted(&data, 128, &[3, 0, 7, 1, 6, 2, 5, 4]);
    let start = |j: usize| u32::from_le_bytes(good[16 + 4 * j..20 + 4 * j].try_into().unwrap());
    let cbytes = good.len() as u32;
    for (j, at, why) in [
        (0, 20, "inside the table"),
        (0, cbytes, "past the stream"),
        (2, start(5), "where another block starts"),
        (2, start(1) + 4, "inside another block"),
    ] {
        let mut bad = good.clone();
        set_entry(&mut bad, j, at);
        let e = decode(&bad, 1000, bad.len()).unwrap_err();
        assert!(matches!(e, DecodeError::Block { .. }), "{why}: {e}");
    }
    // More stated than stored is still refused.
    let mut short = good.clone();
    short.truncate(good.len() - 1);
    assert!(decode(&short, 1000, short.len()).is_err());
}

/// A chunk of `data` whose blocks are each one raw Snappy stream (inner code 2), as c-blosc
/// built with Snappy writes them; a stream may be longer than its block (Snappy's worst case
/// on incompressible bytes), which c-blosc allows.
fn snappy_streams(data: &[u8], blocksize: usize) -> Vec<u8> {
    let blocks: Vec<&[u8]> = data.chunks(blocksize).collect();
    let table_end = 16 + 4 * blocks.len();
    let (mut body, mut starts) = (vec![], vec![]);
    for b in &blocks {
        let s = snap::raw::Encoder::new().compress_vec(b).unwrap();
        starts.push((table_end + body.len()) as u32);
        body.extend((s.len() as u32).to_le_bytes());
        body.extend(s);
    }
    let mut c = vec![2u8, 1, 0x10 | 0x40, 1];
    for v in [
        data.len() as u32,
        blocksize as u32,
        (table_end + body.len()) as u32,
    ] {
        c.extend(v.to_le_bytes());
    }
    starts.iter().for_each(|s| c.extend(s.to_le_bytes()));
    c.extend(body);
    c
}

/// Snappy inside Blosc decodes whole, in pieces and through windows, also where a stream is
/// longer than the block it decodes to.
#[test]
fn snappy_blocks_decode_even_when_longer_than_their_block() {
    let mut data: Vec<u8> = (0..3000u32).map(|i| (i % 17) as u8).collect();
    let mut x = 0x1234_5678u32;
    data.extend((0..1000).map(|_| {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x as u8
    }));
    let stored = snappy_streams(&data, 512);
    let longest = stored.len() - 16 - 4 * 8;
    assert!(longest > 0);
    for piece in [1, 7, 100, stored.len()] {
        assert_eq!(
            decode(&stored, data.len(), piece).unwrap(),
            data,
            "in {piece}s"
        );
        assert_eq!(
            windowed(&stored, data.len(), piece, 512).unwrap(),
            data,
            "{piece}"
        );
    }
}

/// A table out of order whose later start lies past the stream: each block ends at the stream's
/// end at most, and the block that starts past it is refused by name (not an internal error).
#[test]
fn a_start_past_the_stream_in_a_table_out_of_order_is_that_blocks_fault() {
    let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 251) as u8).collect();
    let mut bad = permuted(&data, 128, &[3, 0, 7, 1, 6, 2, 5, 4]);
    // Block 4 is stored last, so its extent ends at the next start: block 7's, now past the
    // stream; block 4 is decoded first.
    set_entry(&mut bad, 7, 50_000);
    let e = decode(&bad, 1000, bad.len()).unwrap_err();
    assert!(matches!(e, DecodeError::Block { block: 7, .. }), "{e}");
}
