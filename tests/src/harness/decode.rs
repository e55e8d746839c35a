//! The chunk decoders: hostile streams, encoder round trips, and the two zstd backends
//! compared.

use std::io::Write;

use zinto::core::codec::{
    BytesCodecs, Checksums, ChunkDecoder, Compressor, DecodeError, FrameHeader, LITERAL_STREAMS,
    MAX_FRAME_HEADER_LEN, RING_MIN, Status, crc32c,
};

use super::input::Input;
use crate::alloc::with_cap;
use crate::guard::Guarded;

/// Raw bytes with a crc32c trailer.
pub const CRC32C: BytesCodecs = BytesCodecs {
    compressor: None,
    checksums: Checksums::CRC32C,
};
/// gzip.
pub const GZIP: BytesCodecs = BytesCodecs {
    compressor: Some(Compressor::GZIP),
    checksums: Checksums::NONE,
};
/// zlib.
pub const ZLIB: BytesCodecs = BytesCodecs {
    compressor: Some(Compressor::ZLIB),
    checksums: Checksums::NONE,
};
/// zstd (through ruzstd, the pure-Rust decoder in zinto-core).
pub const ZSTD: BytesCodecs = BytesCodecs {
    compressor: Some(Compressor::ZSTD),
    checksums: Checksums::NONE,
};

/// The heap ruzstd (0.9) may take for a frame whose window is `window` bytes, under hostile
/// input (docs/memory.md, term `D`), as its source and these fuzz targets show: a ring buffer
/// that holds the window plus one block plus one sequence's overshoot (ruzstd checks a block's
/// size after each sequence), grown by doubling and reallocated (old and new live at once), so
/// up to about 3 × (window + 384 KiB) + 256 KiB; a sequence buffer a block header can make it
/// reserve up to the format's maximum count (98,303 sequences of 12 bytes, 1.2 MiB); tables.
pub fn ruzstd_bound(window: usize) -> usize {
    3 * window + (4 << 20)
}

/// The heap one chunk decode may take: with ruzstd, [`ruzstd_bound`] of its window (the
/// destination rounded up to a power of two, the default cap); gzip, zlib and crc32c take
/// none.
fn heap_bound(codecs: &BytesCodecs, dst_len: usize) -> usize {
    match codecs.compressor {
        Some(Compressor::Zstd(_)) => ruzstd_bound(dst_len.max(1024).next_power_of_two()),
        _ => 0,
    }
}

/// Starts `decoder` and feeds it `stored` in pieces of `piece` bytes.
fn feed_all(
    decoder: &mut ChunkDecoder,
    codecs: &BytesCodecs,
    stored: &[u8],
    piece: usize,
    dst: &mut [u8],
) -> Result<Status, DecodeError> {
    decoder.start(codecs, stored.len() as u64, dst.len())?;
    let mut status = decoder.feed(&[], dst)?.status;
    for p in stored.chunks(piece.max(1)) {
        status = decoder.feed(p, dst)?.status;
    }
    Ok(status)
}

/// `[piece, dst_len: u16, stored...]`: `stored` through a [`ChunkDecoder`] for `codecs`, fed
/// in pieces of `piece` bytes, into a guarded destination of `dst_len` bytes. Allocation
/// bounded (none for gzip, zlib and crc32c; [`ruzstd_bound`] of the destination rounded up to
/// a power of two for zstd); a finished stream filled the destination exactly. The same
/// through a window; for gzip and zlib, the same with zlib-rs inflating.
pub fn decode(codecs: BytesCodecs, data: &[u8]) {
    let mut input = Input::new(data);
    let piece = usize::from(input.u8());
    let dst_len = usize::from(input.u16());
    let stored = input.rest();
    let mut out = Guarded::new(dst_len);
    let mut decoder = ChunkDecoder::new();
    let result = with_cap(heap_bound(&codecs, dst_len), || {
        feed_all(&mut decoder, &codecs, stored, piece, out.dst())
    });
    out.check();
    if result == Ok(Status::Done) {
        assert_eq!(
            decoder.written(),
            dst_len,
            "done before filling the destination"
        );
    }
    // Through a window: the same outcome, within the same heap (the window is the caller's).
    let window = window_for(&codecs, piece, stored, dst_len);
    let whole = result.map(|s| (s == Status::Done).then(|| out.bytes().to_vec()));
    let windowed = with_cap(heap_bound(&codecs, dst_len) + window + dst_len, || {
        feed_windowed(&mut decoder, &codecs, stored, piece, dst_len, window)
    });
    assert_same_outcome(&whole, &windowed);
    // gzip and zlib: zlib-rs in place of miniz_oxide decodes the same, whole and windowed.
    #[cfg(feature = "zlib-rs")]
    if matches!(
        codecs.compressor,
        Some(Compressor::Gzip(_) | Compressor::Zlib(_))
    ) {
        let mut other = ChunkDecoder::new();
        other.set_inflater(zinto::backend::ZlibRs::boxed);
        let mut out = Guarded::new(dst_len);
        let result = feed_all(&mut other, &codecs, stored, piece, out.dst());
        out.check();
        let by_zlib_rs = result.map(|s| (s == Status::Done).then(|| out.bytes().to_vec()));
        assert_same_outcome(&whole, &by_zlib_rs);
        let windowed = feed_windowed(&mut other, &codecs, stored, piece, dst_len, window);
        assert_same_outcome(&whole, &windowed);
    }
}

/// `stored` through `decoder` started for a window ([`ChunkDecoder::start_windowed`]), fed in
/// pieces of `piece` bytes, through a window of `window` bytes: the bytes each call produced,
/// in order, or the error; `Ok(None)` if the stream ended unfinished. Asserts what the window
/// contract promises: progress on every call, produced ranges inside the window, no more
/// bytes than the chunk's.
pub fn feed_windowed(
    decoder: &mut ChunkDecoder,
    codecs: &BytesCodecs,
    stored: &[u8],
    piece: usize,
    dst_len: usize,
    window: usize,
) -> Result<Option<Vec<u8>>, DecodeError> {
    decoder.start_windowed(codecs, stored.len() as u64, dst_len)?;
    let mut ring = vec![0u8; window];
    let mut out = Vec::with_capacity(dst_len);
    let mut status = Status::NeedsInput;
    for p in std::iter::once(&[][..]).chain(stored.chunks(piece.max(1))) {
        let mut at = 0;
        let mut stalls = 0;
        loop {
            let r = decoder.feed_window(&p[at..], &mut ring)?;
            at += r.consumed;
            let bytes = ring.get(r.produced.clone()).unwrap_or_else(|| {
                panic!("produced {:?} outside a window of {window}", r.produced)
            });
            if r.consumed == 0 && bytes.is_empty() {
                stalls += 1;
                assert!(stalls < 3, "no progress through a window: {:?}", r.status);
            }
            assert!(
                out.len() + bytes.len() <= dst_len,
                "more bytes through the window than the chunk holds"
            );
            out.extend_from_slice(bytes);
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
        return Ok(None);
    }
    assert_eq!(
        out.len(),
        dst_len,
        "done through a window before the chunk's end"
    );
    Ok(Some(out))
}

/// A window for a fuzz input's `piece` byte: a DEFLATE ring (32 or 64 KiB), or for other
/// codecs 1 to 4033 bytes (Blosc: at least its block, which [`ChunkDecoder::min_window`] says).
pub fn window_for(codecs: &BytesCodecs, piece: usize, stored: &[u8], dst_len: usize) -> usize {
    match codecs.compressor {
        Some(Compressor::Gzip(_) | Compressor::Zlib(_)) => RING_MIN << (piece & 1),
        _ => {
            let least =
                ChunkDecoder::min_window(codecs, stored, stored.len() as u64, dst_len).unwrap_or(1);
            least.max((piece % 64) * 64 + 1)
        }
    }
}

/// The outcome of a whole decode and of a windowed one agree: both decode, to the same bytes,
/// or neither does.
pub fn assert_same_outcome(
    whole: &Result<Option<Vec<u8>>, DecodeError>,
    windowed: &Result<Option<Vec<u8>>, DecodeError>,
) {
    match (whole, windowed) {
        (Ok(Some(a)), Ok(Some(b))) => assert!(a == b, "a window decoded other bytes"),
        (Ok(Some(_)), other) => panic!("decoded whole, but through a window: {other:?}"),
        (other, Ok(Some(_))) => panic!("decoded through a window, but whole: {other:?}"),
        _ => {}
    }
}

/// The zstd decoders to compare: ruzstd, and the C library when built with `zstd-c`.
fn zstd_backends() -> Vec<(&'static str, ChunkDecoder)> {
    #[allow(unused_mut)] // without `zstd-c` there is only one
    let mut backends = vec![("ruzstd", ChunkDecoder::new())];
    #[cfg(feature = "zstd-c")]
    if let Ok(c) = zinto::CZstd::new() {
        let mut decoder = ChunkDecoder::new();
        decoder.set_backend(Box::new(c));
        backends.push(("C zstd", decoder));
    }
    backends
}

fn encode(
    codecs: &BytesCodecs,
    plain: &[u8],
    level: u8,
    streamed: bool,
    checksum: bool,
) -> Vec<u8> {
    let deflate_level = flate2::Compression::new(u32::from(level % 10));
    let mut stored = match codecs.compressor {
        None => plain.to_vec(),
        Some(Compressor::Gzip(_)) => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), deflate_level);
            e.write_all(plain).expect("writing to a Vec");
            e.finish().expect("writing to a Vec")
        }
        Some(Compressor::Zlib(_)) => {
            let mut e = flate2::write::ZlibEncoder::new(Vec::new(), deflate_level);
            e.write_all(plain).expect("writing to a Vec");
            e.finish().expect("writing to a Vec")
        }
        Some(other) => {
            assert!(
                matches!(other, Compressor::Zstd(_)),
                "no encoder for {other}"
            );
            let level = i32::from(level % 12) - 1; // -1 (fast) to 10
            let mut e = zstd::stream::Encoder::new(Vec::new(), level).expect("zstd encoder");
            e.include_checksum(checksum).expect("zstd parameter");
            if !streamed {
                e.set_pledged_src_size(Some(plain.len() as u64))
                    .expect("zstd parameter");
            }
            e.write_all(plain).expect("writing to a Vec");
            e.finish().expect("writing to a Vec")
        }
    };
    for _ in 0..codecs.checksums.len() {
        let sum = crc32c(&stored);
        stored.extend(sum.to_le_bytes());
    }
    stored
}

/// `[kind, level, piece, plain...]`: `plain` encoded by the reference encoders (flate2, the
/// zstd C library; `kind` picks the compressor, 0-2 crc32c trailers, zstd with or without
/// content size and checksum), then decoded by zinto (every zstd backend) in pieces of
/// `piece` bytes: it must come back exactly, within the allocation bound.
pub fn roundtrip(data: &[u8]) {
    let mut input = Input::new(data);
    let kind = input.u8();
    let level = input.u8();
    let piece = usize::from(input.u8());
    let plain = input.rest();
    let compressor = match kind & 3 {
        0 => None,
        1 => Some(Compressor::GZIP),
        2 => Some(Compressor::ZLIB),
        _ => Some(Compressor::ZSTD),
    };
    let codecs = BytesCodecs {
        compressor,
        checksums: Checksums::crc32c(usize::from((kind >> 2) % 3)).unwrap_or(Checksums::NONE),
    };
    let stored = encode(&codecs, plain, level, kind & 0x10 != 0, kind & 0x20 != 0);
    for (name, mut decoder) in zstd_backends() {
        let mut out = Guarded::new(plain.len());
        let status = with_cap(heap_bound(&codecs, plain.len()), || {
            feed_all(&mut decoder, &codecs, &stored, piece, out.dst())
        });
        out.check();
        assert_eq!(status, Ok(Status::Done), "{name} on {codecs:?}");
        assert!(
            out.bytes() == plain,
            "{name} decoded other bytes for {codecs:?}"
        );
    }
}

/// `[piece, dst_len: u16, frame...]`: the same bytes through ruzstd and the C library into
/// destinations of `dst_len` bytes. Both succeed with the same bytes, or both fail with the
/// same kind of error (the same [`DecodeError`] variant; a corrupt stream's reason may differ).
/// ruzstd's window cap cannot differ here: by default it covers the destination, and frames
/// declaring more are decoded with the cap.
pub fn zstd_differential(data: &[u8]) {
    let mut input = Input::new(data);
    let piece = usize::from(input.u8());
    let dst_len = usize::from(input.u16());
    let frame = input.rest();
    let mut outcomes = Vec::new();
    for (name, mut decoder) in zstd_backends() {
        let mut out = Guarded::new(dst_len);
        let result = with_cap(heap_bound(&ZSTD, dst_len), || {
            feed_all(&mut decoder, &ZSTD, frame, piece, out.dst())
        });
        out.check();
        // Each backend through a window agrees with itself decoding whole.
        let window = window_for(&ZSTD, piece, frame, dst_len);
        let whole = result.map(|s| (s == Status::Done).then(|| out.bytes().to_vec()));
        let windowed = with_cap(heap_bound(&ZSTD, dst_len) + window + dst_len, || {
            feed_windowed(&mut decoder, &ZSTD, frame, piece, dst_len, window)
        });
        // The C library through a window refuses a frame without a content size whose window
        // is larger than the chunk (it would keep that window); a read then decodes it whole.
        if !matches!(windowed, Err(DecodeError::WindowTooLarge { .. })) {
            assert_same_outcome(&whole, &windowed);
        }
        let outcome = match result {
            Ok(Status::Done) => Ok(out.bytes().to_vec()),
            Ok(Status::NeedsInput | Status::NeedsOutput) => Err(None),
            Err(e) => Err(Some(e)),
        };
        outcomes.push((name, outcome));
    }
    if let [(_, rust), (_, c)] = &outcomes[..] {
        // Findings 11 and 12 (docs/reliability.md, open): ruzstd and libzstd read corrupt
        // Huffman-coded literal streams by different rules, after which anything downstream
        // (sequences, sizes, checksums) can differ. In a frame with such literals, the
        // comparison is therefore: what both decode is the same when a content checksum
        // vouches for it; what one refuses, the other may decode only if the refusal is
        // ruzstd's of the literals, or the frame has no checksum; two refusals agree whatever
        // their kinds. Every other frame is compared exactly.
        if let Some(checked) = huffman_literals(frame) {
            match (rust, c) {
                (Ok(a), Ok(b)) => assert!(
                    a == b || !checked,
                    "ruzstd and C zstd decoded a checked frame to different bytes"
                ),
                (Err(Some(DecodeError::Corrupt { reason, .. })), Ok(_))
                    if *reason == LITERAL_STREAMS => {}
                (Ok(_), Err(_)) | (Err(_), Ok(_)) => assert!(
                    !checked,
                    "one backend decoded what the other refused: {rust:?} / {c:?}"
                ),
                (Err(_), Err(_)) => {}
            }
            return;
        }
        match (rust, c) {
            (Ok(a), Ok(b)) => assert!(a == b, "ruzstd and C zstd decoded different bytes"),
            (Err(Some(a)), Err(Some(b))) => assert!(
                same_kind(a, b),
                "ruzstd and C zstd refused with different errors: {a:?} and {b:?}"
            ),
            (Err(a), Err(b)) => assert_eq!(a, b, "one backend wants more input"),
            (Ok(_), Err(e)) => panic!("C zstd refused ({e:?}) what ruzstd decoded"),
            (Err(e), Ok(_)) => panic!("ruzstd refused ({e:?}) what C zstd decoded"),
        }
    }
}

/// Whether two errors are the same kind: the same variant, and for all but a corrupt stream's
/// reason (which names what each backend noticed first), the same values.
///
/// One pair is also taken as the same fault: corrupt against an overflow of the destination.
/// Inside one corrupt compressed block, which check fails first (a literals or sequence section
/// that makes no sense, or one that would write past the destination) depends on the order in
/// which a decoder makes its checks, not on the stream. Frames that are valid but decode past
/// the destination are overflows on both backends: `zstd_c`'s unit tests hold that.
fn same_kind(a: &DecodeError, b: &DecodeError) -> bool {
    use DecodeError::{Corrupt, OutputOverflow};
    match (a, b) {
        (Corrupt { codec: x, .. }, Corrupt { codec: y, .. })
        | (Corrupt { codec: x, .. }, OutputOverflow { codec: y, .. })
        | (OutputOverflow { codec: x, .. }, Corrupt { codec: y, .. }) => x == y,
        _ => a == b,
    }
}

/// If `frame` has a compressed block whose literals are Huffman-coded (the frames in which
/// finding 11 allows ruzstd and libzstd to differ): whether it has a content checksum.
fn huffman_literals(frame: &[u8]) -> Option<bool> {
    let Ok(Some(header)) = FrameHeader::parse(frame) else {
        return None;
    };
    let mut at = header.header_len;
    while let Some(h) = frame.get(at..at + 3) {
        let h = u32::from(h[0]) | u32::from(h[1]) << 8 | u32::from(h[2]) << 16;
        let (last, kind, size) = (h & 1 == 1, (h >> 1) & 3, (h >> 3) as usize);
        if kind == 2 && frame.get(at + 3).is_some_and(|b| b & 3 >= 2) {
            return Some(header.has_checksum);
        }
        at += 3 + if kind == 1 { 1 } else { size };
        if last {
            break;
        }
    }
    None
}

/// Any bytes as a zstd frame header: a header it reports lies within the input and the
/// format's maximum length.
pub fn zstd_frame_header(data: &[u8]) {
    if let Ok(Some(header)) = with_cap(0, || FrameHeader::parse(data)) {
        assert!(header.header_len <= data.len().min(MAX_FRAME_HEADER_LEN));
    }
}
