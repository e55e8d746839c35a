//! Chunks decoded through a window ([`ChunkDecoder::start_windowed`]) give the same bytes as
//! whole decodes, for every codec that can, in any pieces and windows; corrupt chunks fail
//! the same way; the window is all the output memory the caller needs.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_possible_truncation
)]

use std::io::Write;

use proptest::prelude::*;
use zinto_core::codec::{
    BytesCodecs, Checksums, ChunkDecoder, Compressor, DecodeError, RING_MIN, Status, crc32c,
};

/// Smooth, compressible bytes with some noise.
fn sample(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if (i / 500) % 4 == 0 {
                (x >> 40) as u8
            } else {
                (i / 97) as u8
            }
        })
        .collect()
}

fn encode(codecs: &BytesCodecs, data: &[u8]) -> Vec<u8> {
    let mut stored = match codecs.compressor {
        None => data.to_vec(),
        Some(Compressor::Gzip(_)) => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(5));
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        Some(Compressor::Zlib(_)) => {
            let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(1));
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        Some(Compressor::Zstd(_)) => {
            // A small window (16 KiB), so that frames are not single-segment: ruzstd keeps
            // the window, not the chunk.
            let mut e = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
            e.set_parameter(zstd::stream::raw::CParameter::WindowLog(14))
                .unwrap();
            e.include_checksum(true).unwrap();
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        _ => unreachable!("not a codec of these tests"),
    };
    if codecs.checksums.len() == 1 {
        let sum = crc32c(&stored);
        stored.extend(sum.to_le_bytes());
    }
    stored
}

/// Decodes whole, fed in pieces of `piece` bytes.
fn whole(
    codecs: &BytesCodecs,
    stored: &[u8],
    len: usize,
    piece: usize,
) -> Result<Vec<u8>, DecodeError> {
    let mut d = ChunkDecoder::new();
    d.start(codecs, stored.len() as u64, len)?;
    let mut out = vec![0u8; len];
    let mut status = d.feed(&[], &mut out)?.status;
    for p in stored.chunks(piece.max(1)) {
        status = d.feed(p, &mut out)?.status;
    }
    if status != Status::Done {
        return Err(DecodeError::Truncated {
            codec: zinto_core::codec::CodecName::Bytes,
        });
    }
    Ok(out)
}

/// Decodes through a window of `window` bytes, fed in pieces of `piece` bytes: the bytes each
/// call produced, in order.
fn windowed(
    codecs: &BytesCodecs,
    stored: &[u8],
    len: usize,
    piece: usize,
    window: usize,
) -> Result<Vec<u8>, DecodeError> {
    let mut d = ChunkDecoder::new();
    d.start_windowed(codecs, stored.len() as u64, len)?;
    drain(&mut d, stored, piece, window)
}

/// As [`windowed`], for a chunk started with no size but a bound,
/// [`ChunkDecoder::start_windowed_at_most`].
fn windowed_at_most(
    codecs: &BytesCodecs,
    stored: &[u8],
    at_most: usize,
    piece: usize,
    window: usize,
) -> Result<Vec<u8>, DecodeError> {
    let mut d = ChunkDecoder::new();
    d.start_windowed_at_most(codecs, stored.len() as u64, at_most)?;
    drain(&mut d, stored, piece, window)
}

/// Feeds `stored` to `d` in pieces through a window: the bytes each call produced, in order.
fn drain(
    d: &mut ChunkDecoder,
    stored: &[u8],
    piece: usize,
    window: usize,
) -> Result<Vec<u8>, DecodeError> {
    let mut ring = vec![0u8; window];
    let mut out = Vec::new();
    let mut status = Status::NeedsInput;
    for p in std::iter::once(&[][..]).chain(stored.chunks(piece.max(1))) {
        let mut at = 0;
        loop {
            let r = d.feed_window(&p[at..], &mut ring)?;
            assert!(
                r.consumed > 0 || !r.produced.is_empty() || r.status != Status::NeedsOutput,
                "NeedsOutput without progress"
            );
            at += r.consumed;
            out.extend_from_slice(&ring[r.produced]);
            status = r.status;
            if status == Status::Done || (status == Status::NeedsInput && at == p.len()) {
                break;
            }
        }
        if status == Status::Done {
            break;
        }
    }
    if status != Status::Done {
        return Err(DecodeError::Truncated {
            codec: zinto_core::codec::CodecName::Bytes,
        });
    }
    assert_eq!(out.len(), d.written());
    Ok(out)
}

fn codecs(compressor: Option<Compressor>, crc: bool) -> BytesCodecs {
    BytesCodecs {
        compressor,
        checksums: if crc {
            Checksums::CRC32C
        } else {
            Checksums::NONE
        },
    }
}

const COMPRESSORS: [Option<Compressor>; 4] = [
    None,
    Some(Compressor::GZIP),
    Some(Compressor::ZLIB),
    Some(Compressor::ZSTD),
];

fn window_for(c: &BytesCodecs, small: usize) -> usize {
    match c.compressor {
        Some(Compressor::Gzip(_) | Compressor::Zlib(_)) => RING_MIN << (small % 3),
        _ => small.max(1),
    }
}

#[test]
fn every_codec_decodes_the_same_through_windows() {
    for (i, compressor) in COMPRESSORS.into_iter().enumerate() {
        for crc in [false, true] {
            let c = codecs(compressor, crc);
            for len in [0, 1, 1000, 200_000] {
                let data = sample(len, 7 + i as u64);
                let stored = encode(&c, &data);
                for piece in [1usize, 4096, 1 << 20] {
                    if piece == 1 && len > 1000 {
                        continue;
                    }
                    for small in [1usize, 1000, 65_536] {
                        let w = window_for(&c, small);
                        let got = windowed(&c, &stored, len, piece, w).unwrap_or_else(|e| {
                            panic!("{c:?} len {len} piece {piece} window {w}: {e}")
                        });
                        assert!(
                            got == data,
                            "{c:?} len {len} piece {piece} window {w}: other bytes"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn a_deflate_ring_of_another_size_is_refused() {
    let c = codecs(Some(Compressor::GZIP), false);
    let stored = encode(&c, &sample(100, 1));
    for w in [RING_MIN - 1, RING_MIN + 1, 1000] {
        assert!(matches!(
            windowed(&c, &stored, 100, 4096, w),
            Err(DecodeError::Internal { .. })
        ));
    }
}

#[test]
fn whole_and_windowed_modes_do_not_mix() {
    let c = codecs(Some(Compressor::ZSTD), false);
    let stored = encode(&c, &sample(100, 1));
    let mut d = ChunkDecoder::new();
    d.start_windowed(&c, stored.len() as u64, 100).unwrap();
    let mut out = [0u8; 100];
    assert!(matches!(
        d.feed(&stored, &mut out),
        Err(DecodeError::Internal { .. })
    ));
    d.start(&c, stored.len() as u64, 100).unwrap();
    assert!(matches!(
        d.feed_window(&stored, &mut out),
        Err(DecodeError::Internal { .. })
    ));
}

#[test]
fn numcodecs_lz4_cannot_be_windowed_and_says_so() {
    let c = codecs(
        Some(Compressor::Lz4(zinto_core::codec::Lz4 {
            acceleration: None,
        })),
        false,
    );
    let d = ChunkDecoder::new();
    assert!(!d.can_window(&c));
    let mut d = ChunkDecoder::new();
    assert!(matches!(
        d.start_windowed(&c, 10, 10),
        Err(DecodeError::Unsupported { .. })
    ));
}

/// `stored` with each `(at, x)` of `flips` xored in at `at` (modulo its length), then cut at
/// `cut` (modulo its length) if one is given. An empty chunk is left as it is.
fn corrupted(mut stored: Vec<u8>, flips: &[(usize, u8)], cut: Option<usize>) -> Vec<u8> {
    let n = stored.len();
    if n == 0 {
        return stored;
    }
    for &(at, x) in flips {
        stored[at % n] ^= x;
    }
    if let Some(cut) = cut {
        stored.truncate(cut % n);
    }
    stored
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Corrupt chunks: what one mode decodes, the other decodes to the same bytes; what one
    /// refuses, the other refuses.
    #[test]
    fn corrupt_chunks_fail_the_same_in_both_modes(
        which in 0usize..4,
        crc: bool,
        len in 0usize..20_000,
        flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..4),
        cut in any::<usize>(),
        cut_it: bool,
        piece in 1usize..5000,
        small in 1usize..3000,
        claimed in 0usize..25_000,
    ) {
        let c = codecs(COMPRESSORS[which], crc);
        let data = sample(len, 3);
        let stored = corrupted(encode(&c, &data), &flips, cut_it.then_some(cut));
        let len = if claimed % 3 == 0 { claimed } else { len };
        let a = whole(&c, &stored, len, piece);
        let b = windowed(&c, &stored, len, piece, window_for(&c, small));
        match (&a, &b) {
            (Ok(x), Ok(y)) => prop_assert!(x == y, "decoded to different bytes"),
            (Err(_), Err(_)) => {}
            _ => prop_assert!(false, "whole {:?}, windowed {:?}", a.as_ref().map(Vec::len), b.as_ref().map(Vec::len)),
        }
    }

    /// A chunk started with only a bound decodes to what a whole decode of its true size
    /// gives, and a bound below that size is an overflow, for every windowed codec.
    #[test]
    fn a_bound_instead_of_a_size_decodes_the_same(
        which in 0usize..4,
        crc: bool,
        len in 0usize..20_000,
        slack in 0usize..3,
        piece in 1usize..5000,
        small in 1usize..3000,
    ) {
        let c = codecs(COMPRESSORS[which], crc);
        let data = sample(len, 5);
        let stored = encode(&c, &data);
        let window = window_for(&c, small);
        let at_most = len + slack;
        let got = windowed_at_most(&c, &stored, at_most, piece, window);
        prop_assert_eq!(got.as_ref().ok(), Some(&data));
        if len > 0 {
            let over = windowed_at_most(&c, &stored, len - 1, piece, window);
            prop_assert!(
                matches!(over, Err(DecodeError::OutputOverflow { .. })),
                "a bound one short: {:?}", over.map(|v| v.len())
            );
        }
    }

    /// Corrupt chunks, decoded with only a bound: what decodes is what a whole decode of that
    /// size gives; what a whole decode of the true size gives, it decodes too.
    #[test]
    fn corrupt_chunks_with_a_bound_agree_with_whole_decodes(
        which in 0usize..4,
        crc: bool,
        len in 0usize..20_000,
        flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..4),
        cut in any::<usize>(),
        cut_it: bool,
        piece in 1usize..5000,
        small in 1usize..3000,
    ) {
        let c = codecs(COMPRESSORS[which], crc);
        let data = sample(len, 7);
        let stored = corrupted(encode(&c, &data), &flips, cut_it.then_some(cut));
        let bounded = windowed_at_most(&c, &stored, 40_000, piece, window_for(&c, small));
        if let Ok(b) = &bounded {
            let again = whole(&c, &stored, b.len(), piece).ok();
            prop_assert_eq!(again.as_ref(), Some(b));
        }
        if let Ok(w) = whole(&c, &stored, len, piece) {
            prop_assert_eq!(bounded.ok(), Some(w));
        }
    }
}
