//! Round trips against reference encoders, every input split, and bad input, for the chunk
//! decoders (crc32c, gzip, zlib, zstd) and the `bytes` codec.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a panic is a failed test
#![allow(clippy::cast_possible_truncation)] // test sizes are small

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::Write;

use zinto_core::codec::{
    BytesCodecs, Checksums, ChunkDecoder, CodecName, Compressor, DecodeError, Endian, FrameHeader,
    MAX_DECLARED_WINDOW, OTHER_THAN_DECLARED, Progress, Status, crc32c, to_native_in_place,
};

// ---------------------------------------------------------------------------------------------
// A global allocator that records, per thread, the largest single allocation.

struct Counting;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator unchanged; only records sizes in a thread-local
// `Cell` that has a const initialiser, so recording never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = LARGEST.try_with(|l| l.set(l.get().max(layout.size())));
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = LARGEST.try_with(|l| l.set(l.get().max(new_size)));
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn largest_allocation_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LARGEST.with(|l| l.set(0));
    let out = f();
    (out, LARGEST.with(Cell::get))
}

/// Feeds a whole zstd `frame` to a fresh decoder with a destination of `len` bytes; returns
/// the result and the largest allocation made meanwhile.
fn zstd_frame_into(len: usize, frame: &[u8]) -> (Result<Progress, DecodeError>, usize) {
    let mut out = vec![0u8; len];
    let mut d = ChunkDecoder::new();
    largest_allocation_during(|| {
        d.start(&codecs(Some(Compressor::ZSTD), 0), frame.len() as u64, len)?;
        d.feed(frame, &mut out)
    })
}

// ---------------------------------------------------------------------------------------------
// Inputs and encoders.

/// Deterministic data that is partly compressible, partly not.
fn sample(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if (i / 512) % 2 == 0 {
                (i % 251) as u8
            } else {
                x as u8
            }
        })
        .collect()
}

fn sizes() -> Vec<usize> {
    vec![0, 1, 7, 100, 4096, 65_536, 300_001]
}

fn zstd_frame(data: &[u8], level: i32, checksum: bool) -> Vec<u8> {
    let mut c = zstd::bulk::Compressor::new(level).unwrap();
    c.include_checksum(checksum).unwrap();
    c.compress(data).unwrap()
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// gzip with every optional header field: extra, name, comment, header CRC.
fn gzip_all_fields(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::GzBuilder::new()
        .extra(vec![1, 2, 3, 4, 5])
        .filename("chunk.bin")
        .comment("written by a test")
        .operating_system(3)
        .write(Vec::new(), flate2::Compression::best());
    e.write_all(data).unwrap();
    let mut out = e.finish().unwrap();
    // flate2 does not write FHCRC: add it (flag bit 1, CRC-16 after the optional fields).
    let header_end = 10 + 2 + 5 + "chunk.bin".len() + 1 + "written by a test".len() + 1;
    out[3] |= 0x02;
    let crc = crc32fast(&out[..header_end]) as u16;
    out.splice(header_end..header_end, crc.to_le_bytes());
    out
}

fn crc32fast(data: &[u8]) -> u32 {
    let mut h = flate2::Crc::new();
    h.update(data);
    h.sum()
}

fn zlib(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn with_crc32c(mut stored: Vec<u8>, count: usize) -> Vec<u8> {
    for _ in 0..count {
        let c = crc32c(&stored);
        stored.extend(c.to_le_bytes());
    }
    stored
}

fn codecs(compressor: Option<Compressor>, crc: u8) -> BytesCodecs {
    BytesCodecs {
        compressor,
        checksums: Checksums::crc32c(usize::from(crc)).unwrap(),
    }
}

/// Decodes `stored` fed in pieces cut at `cuts` (piece lengths, cycled) into a destination of
/// `decoded_len` bytes that sits between guard bytes, and checks the guards.
fn decode_split(
    decoder: &mut ChunkDecoder,
    bc: &BytesCodecs,
    stored: &[u8],
    decoded_len: usize,
    cuts: &[usize],
) -> Result<Vec<u8>, DecodeError> {
    const GUARD: usize = 16;
    let mut buf = vec![0xA5u8; decoded_len + 2 * GUARD];
    let result = (|| {
        decoder.start(bc, stored.len() as u64, decoded_len)?;
        let dst = &mut buf[GUARD..GUARD + decoded_len];
        let mut at = 0;
        let mut status = Status::NeedsInput;
        let mut written = 0;
        for &cut in cuts.iter().cycle() {
            if at >= stored.len() {
                break;
            }
            let end = (at + cut.max(1)).min(stored.len());
            let p = decoder.feed(&stored[at..end], dst)?;
            assert_eq!(
                p.consumed,
                end - at,
                "a piece within the chunk is consumed whole"
            );
            written += p.written;
            status = p.status;
            at = end;
        }
        if stored.is_empty() {
            status = decoder.feed(&[], dst)?.status;
        }
        assert_eq!(status, Status::Done, "all input fed, stream must be done");
        assert_eq!(written, decoded_len);
        Ok(dst.to_vec())
    })();
    assert!(
        buf[..GUARD].iter().all(|&b| b == 0xA5),
        "write before the destination"
    );
    assert!(
        buf[GUARD + decoded_len..].iter().all(|&b| b == 0xA5),
        "write after the destination"
    );
    result
}

fn decode_whole(
    bc: &BytesCodecs,
    stored: &[u8],
    decoded_len: usize,
) -> Result<Vec<u8>, DecodeError> {
    decode_split(
        &mut ChunkDecoder::new(),
        bc,
        stored,
        decoded_len,
        &[usize::MAX],
    )
}

struct Case {
    name: String,
    codecs: BytesCodecs,
    stored: Vec<u8>,
    data: Vec<u8>,
}

fn cases() -> Vec<Case> {
    let mut out = vec![];
    for (i, len) in sizes().into_iter().enumerate() {
        let data = sample(len, i as u64);
        let mut push = |name: &str, c: Option<Compressor>, crc: u8, stored: Vec<u8>| {
            out.push(Case {
                name: format!("{name} len={len}"),
                codecs: codecs(c, crc),
                stored,
                data: data.clone(),
            });
        };
        push("raw", None, 0, data.clone());
        push("raw+crc32c", None, 1, with_crc32c(data.clone(), 1));
        push("raw+crc32c x2", None, 2, with_crc32c(data.clone(), 2));
        push(
            "zstd level 0",
            Some(Compressor::ZSTD),
            0,
            zstd_frame(&data, 0, false),
        );
        push(
            "zstd level 19 checksum",
            Some(Compressor::ZSTD),
            0,
            zstd_frame(&data, 19, true),
        );
        push(
            "zstd level -5",
            Some(Compressor::ZSTD),
            0,
            zstd_frame(&data, -5, true),
        );
        push(
            "zstd+crc32c",
            Some(Compressor::ZSTD),
            1,
            with_crc32c(zstd_frame(&data, 3, true), 1),
        );
        push("gzip", Some(Compressor::GZIP), 0, gzip(&data));
        push(
            "gzip all header fields",
            Some(Compressor::GZIP),
            0,
            gzip_all_fields(&data),
        );
        push("zlib", Some(Compressor::ZLIB), 0, zlib(&data));
        push(
            "zlib+crc32c",
            Some(Compressor::ZLIB),
            1,
            with_crc32c(zlib(&data), 1),
        );
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Round trips and splits.

#[test]
fn known_check_values() {
    assert_eq!(crc32c(b"123456789"), 0xE306_9283);
    assert_eq!(
        zinto_core::codec::checksum(&zinto_core::codec::CRC32, b"123456789"),
        0xCBF4_3926
    );
    assert_eq!(crc32c(b""), 0);
}

#[test]
fn round_trip_whole() {
    for c in cases() {
        let got = decode_whole(&c.codecs, &c.stored, c.data.len())
            .unwrap_or_else(|e| panic!("{}: {e}", c.name));
        assert!(got == c.data, "{}: wrong bytes", c.name);
    }
}

#[test]
fn round_trip_every_split_1_to_13() {
    let mut decoder = ChunkDecoder::new();
    for c in cases().into_iter().filter(|c| c.data.len() <= 4096) {
        for piece in 1..=13 {
            let got = decode_split(&mut decoder, &c.codecs, &c.stored, c.data.len(), &[piece])
                .unwrap_or_else(|e| panic!("{} piece={piece}: {e}", c.name));
            assert!(got == c.data, "{} piece={piece}: wrong bytes", c.name);
        }
    }
}

#[test]
fn round_trip_random_splits_reusing_one_decoder() {
    let mut decoder = ChunkDecoder::new();
    let mut x = 0x1234_5678u64;
    for c in cases() {
        for _ in 0..4 {
            let cuts: Vec<usize> = (0..17)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    1 + (x % 70_000) as usize
                })
                .collect();
            let got = decode_split(&mut decoder, &c.codecs, &c.stored, c.data.len(), &cuts)
                .unwrap_or_else(|e| panic!("{} cuts={cuts:?}: {e}", c.name));
            assert!(got == c.data, "{}: wrong bytes", c.name);
        }
    }
}

#[test]
fn zstd_streaming_frame_without_content_size() {
    let data = sample(200_000, 9);
    let mut e = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
    e.include_checksum(true).unwrap();
    e.write_all(&data).unwrap();
    let stored = e.finish().unwrap();
    let header = FrameHeader::parse(&stored).unwrap().unwrap();
    assert_eq!(header.content_size, None);
    assert!(header.has_checksum);
    // A streaming encoder declares its level's window (2 MiB here), larger than this output:
    // decoded with the window shrunk to the output (rounded up to a power of two), since no
    // match can reach further back than the output's start.
    let bc = codecs(Some(Compressor::ZSTD), 0);
    let (got, largest) = largest_allocation_during(|| decode_whole(&bc, &stored, data.len()));
    assert!(got.unwrap() == data);
    assert!(
        largest < 1 << 21,
        "allocated {largest} bytes for a 2 MiB declared window"
    );
    // Under a cap the caller set below the output, the same frame is refused.
    let mut d = ChunkDecoder::new();
    d.set_zstd_window_cap(1 << 16);
    assert_eq!(
        decode_split(&mut d, &bc, &stored, data.len(), &[777]).unwrap_err(),
        DecodeError::WindowTooLarge {
            window: header.window_size,
            cap: 1 << 16
        }
    );
    let mut d = ChunkDecoder::new();
    d.set_zstd_window_cap(header.window_size);
    let got = decode_split(&mut d, &bc, &stored, data.len(), &[777]).unwrap();
    assert!(got == data);
}

#[test]
fn zstd_frame_header_reports_content_size_before_decoding() {
    let data = sample(12_345, 1);
    let stored = zstd_frame(&data, 3, true);
    let h = FrameHeader::parse(&stored).unwrap().unwrap();
    assert_eq!(h.content_size, Some(12_345));
    assert!(h.has_checksum);
    assert_eq!(h.dictionary_id, None);
    assert!(h.window_size >= 12_345);
    // A prefix shorter than the header is "need more", not an error.
    assert_eq!(FrameHeader::parse(&stored[..3]).unwrap(), None);
}

// ---------------------------------------------------------------------------------------------
// The bytes codec.

#[test]
fn bytes_codec_swaps_foreign_endian_in_place() {
    let values: [u32; 3] = [0x0102_0304, 7, u32::MAX - 1];
    let foreign = if Endian::NATIVE == Endian::Little {
        Endian::Big
    } else {
        Endian::Little
    };
    // Build the stored bytes in the foreign order by construction.
    let mut stored: Vec<u8> = values
        .iter()
        .flat_map(|v| match foreign {
            Endian::Big => v.to_be_bytes(),
            Endian::Little => v.to_le_bytes(),
        })
        .collect();
    to_native_in_place(&mut stored, 4, foreign);
    let back: Vec<u32> = stored
        .chunks(4)
        .map(|c| u32::from_ne_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(back, values);

    // Native order is left alone, and so are 1-byte units.
    let mut native: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
    let copy = native.clone();
    to_native_in_place(&mut native, 4, Endian::NATIVE);
    assert_eq!(native, copy);
    to_native_in_place(&mut native, 1, foreign);
    assert_eq!(native, copy);
}

#[test]
fn bytes_codec_swaps_each_unit_of_every_width() {
    for unit in [2usize, 4, 8, 16] {
        let foreign = if Endian::NATIVE == Endian::Little {
            Endian::Big
        } else {
            Endian::Little
        };
        let mut buf: Vec<u8> = (0..unit as u8 * 3).collect();
        let expected: Vec<u8> = buf
            .chunks(unit)
            .flat_map(|c| c.iter().rev().copied())
            .collect();
        to_native_in_place(&mut buf, unit, foreign);
        assert_eq!(buf, expected, "unit {unit}");
    }
}

// ---------------------------------------------------------------------------------------------
// Bad input: one named test each.

fn err_of(bc: BytesCodecs, stored: &[u8], len: usize) -> DecodeError {
    decode_whole(&bc, stored, len).unwrap_err()
}

#[test]
fn truncated_streams_are_errors() {
    let data = sample(5000, 3);
    for (bc, stored) in [
        (
            codecs(Some(Compressor::ZSTD), 0),
            zstd_frame(&data, 3, true),
        ),
        (codecs(Some(Compressor::GZIP), 0), gzip(&data)),
        (codecs(Some(Compressor::ZLIB), 0), zlib(&data)),
    ] {
        for cut in [1, 4, stored.len() / 2, stored.len() - 1] {
            let e = err_of(bc, &stored[..stored.len() - cut], data.len());
            assert!(
                matches!(
                    e,
                    DecodeError::Truncated { .. } | DecodeError::Corrupt { .. }
                ),
                "{bc:?} cut {cut}: {e:?}"
            );
        }
    }
    let e = err_of(codecs(None, 1), &[1, 2], 0);
    assert_eq!(
        e,
        DecodeError::Truncated {
            codec: CodecName::Crc32c
        }
    );
}

#[test]
fn truncated_zstd_stream_says_truncated() {
    let data = sample(5000, 3);
    let stored = zstd_frame(&data, 3, true);
    let e = err_of(
        codecs(Some(Compressor::ZSTD), 0),
        &stored[..stored.len() - 2],
        data.len(),
    );
    assert_eq!(
        e,
        DecodeError::Truncated {
            codec: CodecName::Zstd
        }
    );
}

#[test]
fn raw_chunk_of_wrong_length_is_a_size_mismatch() {
    let e = err_of(codecs(None, 0), &[0u8; 10], 12);
    assert_eq!(
        e,
        DecodeError::SizeMismatch {
            codec: CodecName::Bytes,
            expected: 12,
            got: 10
        }
    );
}

#[test]
fn corrupted_payloads_are_errors() {
    let data = sample(20_000, 4);
    for (bc, stored) in [
        (
            codecs(Some(Compressor::ZSTD), 0),
            zstd_frame(&data, 3, true),
        ),
        (codecs(Some(Compressor::GZIP), 0), gzip(&data)),
        (codecs(Some(Compressor::ZLIB), 0), zlib(&data)),
    ] {
        for at in [stored.len() / 3, stored.len() / 2] {
            let mut bad = stored.clone();
            bad[at] ^= 0x5A;
            let e = err_of(bc, &bad, data.len());
            assert!(
                matches!(
                    e,
                    DecodeError::Corrupt { .. }
                        | DecodeError::ChecksumMismatch { .. }
                        | DecodeError::SizeMismatch { .. }
                        | DecodeError::OutputOverflow { .. }
                        | DecodeError::Truncated { .. }
                        | DecodeError::TrailingData { .. }
                ),
                "{bc:?}: {e:?}"
            );
        }
    }
}

#[test]
fn corrupted_crc32c_says_expected_and_found() {
    let data = sample(100, 5);
    let mut stored = with_crc32c(data.clone(), 1);
    let n = stored.len();
    stored[n - 1] ^= 0xFF;
    let e = err_of(codecs(None, 1), &stored, data.len());
    let right = crc32c(&data);
    assert_eq!(
        e,
        DecodeError::ChecksumMismatch {
            codec: CodecName::Crc32c,
            expected: right ^ 0xFF00_0000,
            found: right
        }
    );
}

#[test]
fn corrupted_gzip_crc_is_a_checksum_mismatch() {
    let data = sample(1000, 6);
    let mut stored = gzip(&data);
    let n = stored.len();
    stored[n - 8] ^= 1; // first byte of the CRC-32 trailer
    let e = err_of(codecs(Some(Compressor::GZIP), 0), &stored, data.len());
    assert!(
        matches!(
            e,
            DecodeError::ChecksumMismatch {
                codec: CodecName::Gzip,
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn corrupted_gzip_header_crc_is_a_checksum_mismatch() {
    let data = sample(1000, 6);
    let mut stored = gzip_all_fields(&data);
    let at = 10 + 2 + 5 + "chunk.bin".len() + 1 + "written by a test".len() + 1;
    stored[at] ^= 1;
    let e = err_of(codecs(Some(Compressor::GZIP), 0), &stored, data.len());
    assert!(
        matches!(
            e,
            DecodeError::ChecksumMismatch {
                codec: CodecName::Gzip,
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn wrong_gzip_isize_is_a_size_mismatch() {
    let data = sample(1000, 6);
    let mut stored = gzip(&data);
    let n = stored.len();
    stored[n - 4] ^= 1;
    let e = err_of(codecs(Some(Compressor::GZIP), 0), &stored, data.len());
    assert!(
        matches!(
            e,
            DecodeError::SizeMismatch {
                codec: CodecName::Gzip,
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn corrupted_zlib_adler32_is_a_checksum_mismatch() {
    let data = sample(1000, 7);
    let mut stored = zlib(&data);
    let n = stored.len();
    stored[n - 1] ^= 1;
    let e = err_of(codecs(Some(Compressor::ZLIB), 0), &stored, data.len());
    assert!(
        matches!(
            e,
            DecodeError::ChecksumMismatch {
                codec: CodecName::Zlib,
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn corrupted_zstd_checksum_is_a_checksum_mismatch() {
    let data = sample(1000, 8);
    let mut stored = zstd_frame(&data, 3, true);
    let n = stored.len();
    stored[n - 1] ^= 1;
    let e = err_of(codecs(Some(Compressor::ZSTD), 0), &stored, data.len());
    assert!(
        matches!(
            e,
            DecodeError::ChecksumMismatch {
                codec: CodecName::Zstd,
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn zstd_frame_declaring_the_wrong_content_size_is_corrupt() {
    // 100 bytes in a single-segment frame with a one-byte content size field; claim 101.
    let data = sample(100, 10);
    let mut stored = zstd_frame(&data, 3, false);
    let h = FrameHeader::parse(&stored).unwrap().unwrap();
    assert_eq!(h.content_size, Some(100));
    assert_eq!(h.header_len, 6, "expected magic + descriptor + 1-byte size");
    stored[5] = 101;
    let e = err_of(codecs(Some(Compressor::ZSTD), 0), &stored, 101);
    // The frame contradicts itself: corrupt, as the C library says too.
    assert_eq!(
        e,
        DecodeError::Corrupt {
            codec: CodecName::Zstd,
            reason: OTHER_THAN_DECLARED,
        }
    );
}

#[test]
fn trailing_bytes_after_a_stream_are_errors() {
    let data = sample(3000, 11);
    for (bc, mut stored) in [
        (
            codecs(Some(Compressor::ZSTD), 0),
            zstd_frame(&data, 3, true),
        ),
        (codecs(Some(Compressor::GZIP), 0), gzip(&data)),
        (codecs(Some(Compressor::ZLIB), 0), zlib(&data)),
    ] {
        stored.extend_from_slice(b"junk");
        let e = err_of(bc, &stored, data.len());
        assert!(
            matches!(e, DecodeError::TrailingData { extra: 4, .. }),
            "{bc:?}: {e:?}"
        );
    }
}

#[test]
fn output_larger_than_the_destination_is_an_overflow() {
    let data = sample(3000, 12);
    for (bc, stored) in [
        (
            codecs(Some(Compressor::ZSTD), 0),
            zstd_frame(&data, 3, true),
        ),
        (codecs(Some(Compressor::GZIP), 0), gzip(&data)),
        (codecs(Some(Compressor::ZLIB), 0), zlib(&data)),
    ] {
        let e = err_of(bc, &stored, data.len() - 1);
        assert!(
            matches!(e, DecodeError::OutputOverflow { .. }),
            "{bc:?}: {e:?}"
        );
    }
}

#[test]
fn zstd_frame_declaring_a_huge_content_size_allocates_nothing_of_that_size() {
    // Single segment, 8-byte content size of 1 TiB, then a raw block.
    let mut frame = vec![0x28, 0xB5, 0x2F, 0xFD, 0xE0];
    frame.extend((1u64 << 40).to_le_bytes());
    frame.extend([0x01 | (4 << 3), 0, 0]); // last raw block of 4 bytes
    frame.extend([1, 2, 3, 4]);
    let (e, largest) = zstd_frame_into(4096, &frame);
    let e = e.unwrap_err();
    assert_eq!(
        e,
        DecodeError::OutputOverflow {
            codec: CodecName::Zstd,
            capacity: 4096
        }
    );
    assert!(largest < 1 << 20, "allocated {largest} bytes");
}

#[test]
fn zstd_frame_declaring_a_huge_window_never_gets_it() {
    // Not single segment, window descriptor exponent 20: a 1 GiB window.
    let mut frame = vec![0x28, 0xB5, 0x2F, 0xFD, 0x00, 20 << 3];
    frame.extend([0x01, 0, 0]); // empty last raw block
    let (e, largest) = zstd_frame_into(1 << 20, &frame);
    // Decoded with the window shrunk to the destination: the frame is empty, so it ends short
    // of the destination's size, and nothing near the declared 1 GiB was allocated.
    assert!(matches!(e, Err(DecodeError::SizeMismatch { .. })), "{e:?}");
    assert!(largest <= 2 << 20, "allocated {largest} bytes");

    // A caller may lower the cap below the destination size.
    let data = sample(100_000, 13);
    let stored = zstd_frame(&data, 3, false);
    let mut d = ChunkDecoder::new();
    d.set_zstd_window_cap(4096);
    let e = decode_split(
        &mut d,
        &codecs(Some(Compressor::ZSTD), 0),
        &stored,
        data.len(),
        &[1000],
    )
    .unwrap_err();
    assert!(
        matches!(e, DecodeError::WindowTooLarge { cap: 4096, .. }),
        "{e:?}"
    );
}

#[test]
fn zstd_block_declaring_a_megabyte_of_literals_is_refused_before_allocating() {
    // Single segment, 200 bytes; one last compressed block whose literals section declares
    // 1,000,000 RLE literals (20-bit size) and no sequences: far above the block maximum.
    let n: u32 = 1_000_000;
    let mut frame = vec![0x28, 0xB5, 0x2F, 0xFD, 0x20, 200];
    let content = [
        1 | (3 << 2) | ((n & 0xf) << 4) as u8,
        ((n >> 4) & 0xff) as u8,
        ((n >> 12) & 0xff) as u8,
        0x41, // the repeated byte
        0,    // no sequences
    ];
    frame.extend([((content.len() as u8) << 3) | (2 << 1) | 1, 0, 0]);
    frame.extend(content);
    let (e, largest) = zstd_frame_into(200, &frame);
    assert_eq!(
        e.unwrap_err(),
        DecodeError::Corrupt {
            codec: CodecName::Zstd,
            reason: "literals larger than a block"
        }
    );
    assert!(largest < 256 << 10, "allocated {largest} bytes");
}

#[test]
fn zstd_frames_needing_a_dictionary_are_unsupported() {
    let frame = [0x28, 0xB5, 0x2F, 0xFD, 0x21, 7, 50, 0x01, 0, 0];
    let e = err_of(codecs(Some(Compressor::ZSTD), 0), &frame, 50);
    assert!(
        matches!(
            e,
            DecodeError::Unsupported {
                codec: CodecName::Zstd,
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn not_a_zstd_frame_is_corrupt() {
    let e = err_of(codecs(Some(Compressor::ZSTD), 0), b"this is not zstd", 10);
    assert!(
        matches!(
            e,
            DecodeError::Corrupt {
                codec: CodecName::Zstd,
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn not_a_gzip_stream_is_corrupt() {
    let e = err_of(codecs(Some(Compressor::GZIP), 0), b"this is not gzip", 10);
    assert!(
        matches!(
            e,
            DecodeError::Corrupt {
                codec: CodecName::Gzip,
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn full_chunk_decode_allocates_nothing_chunk_sized() {
    // Decoding into the caller's buffer: only the zstd block buffer and ruzstd's window are
    // allocated, never a chunk-sized copy. The window of a 4 MiB frame at level 1 is 512 KiB
    // or so; gzip and zlib allocate nothing at all once the decoder exists.
    let data = sample(4 << 20, 14);
    let mut out = vec![0u8; data.len()];
    for (bc, stored) in [
        (
            codecs(Some(Compressor::GZIP), 1),
            with_crc32c(gzip(&data), 1),
        ),
        (codecs(Some(Compressor::ZLIB), 0), zlib(&data)),
        (codecs(None, 1), with_crc32c(data.clone(), 1)),
    ] {
        let mut d = ChunkDecoder::new();
        d.start(&bc, stored.len() as u64, out.len()).unwrap();
        d.feed(&stored[..10], &mut out).unwrap();
        let (_, largest) = largest_allocation_during(|| {
            for piece in stored[10..].chunks(1 << 16) {
                d.feed(piece, &mut out).unwrap();
            }
        });
        assert_eq!(largest, 0, "{bc:?} allocated while decoding");
        assert!(out == data);
    }
    let mut c = zstd::bulk::Compressor::new(1).unwrap();
    c.set_parameter(zstd::stream::raw::CParameter::WindowLog(19))
        .unwrap();
    let stored = c.compress(&data).unwrap();
    let mut d = ChunkDecoder::new();
    let (_, largest) = largest_allocation_during(|| {
        d.start(
            &codecs(Some(Compressor::ZSTD), 0),
            stored.len() as u64,
            out.len(),
        )
        .unwrap();
        for piece in stored.chunks(1 << 16) {
            d.feed(piece, &mut out).unwrap();
        }
    });
    assert!(
        largest < data.len() / 4,
        "zstd allocated {largest} bytes at once"
    );
    assert!(out == data);
}

#[test]
fn a_chunk_fed_another_destination_midway_is_refused() {
    let data = sample(5000, 7);
    for stored in [gzip(&data), with_crc32c(data.clone(), 1)] {
        let c = if stored.len() == data.len() + 4 {
            codecs(None, 1)
        } else {
            codecs(Some(Compressor::GZIP), 0)
        };
        let mut d = ChunkDecoder::new();
        let (mut first, mut second) = (vec![0u8; data.len()], vec![0u8; data.len()]);
        d.start(&c, stored.len() as u64, data.len()).unwrap();
        d.feed(&stored[..100], &mut first).unwrap();
        assert_eq!(
            d.feed(&stored[100..], &mut second).unwrap_err(),
            DecodeError::DestinationChanged
        );
        // The same destination throughout decodes; a new chunk may use a new one.
        d.start(&c, stored.len() as u64, data.len()).unwrap();
        d.feed(&stored[..100], &mut second).unwrap();
        assert_eq!(
            d.feed(&stored[100..], &mut second).unwrap().status,
            Status::Done
        );
        assert!(second == data);
    }
}

#[test]
fn a_zstd_frame_declaring_a_window_above_2_gib_is_refused_before_decoding() {
    // Window descriptor 0xFF: 3.75 TiB; then one empty last raw block. The C library refuses
    // windows above 2 GiB, so ruzstd does too (found by `zstd_differential`).
    let frame = [0x28, 0xB5, 0x2F, 0xFD, 0x00, 0xFF, 0x01, 0x00, 0x00];
    let (result, _) = zstd_frame_into(0, &frame);
    assert!(
        matches!(
            result,
            Err(DecodeError::WindowTooLarge {
                cap: MAX_DECLARED_WINDOW,
                ..
            })
        ),
        "{result:?}"
    );
    // 2 GiB itself (descriptor 0xA8: exponent 21) is accepted, and decoded with a smaller cap.
    let frame = [0x28, 0xB5, 0x2F, 0xFD, 0x00, 0xA8, 0x01, 0x00, 0x00];
    assert_eq!(zstd_frame_into(0, &frame).0.unwrap().status, Status::Done);
}

/// z5py stores zlib streams under its `gzip` codec: read as zlib, with zlib's header check and
/// Adler-32, in any pieces; a first byte that is neither gzip's nor a zlib header's is still
/// bad gzip magic, and a zlib stream with a wrong Adler-32 is still refused.
#[test]
fn a_zlib_stream_under_the_gzip_codec_reads_as_zlib() {
    let data = sample(10_000, 7);
    let stored = zlib(&data);
    let gz = codecs(Some(Compressor::GZIP), 0);
    for cuts in [&[usize::MAX][..], &[1], &[3, 7]] {
        let got = decode_split(&mut ChunkDecoder::new(), &gz, &stored, data.len(), cuts);
        assert_eq!(got.unwrap(), data, "{cuts:?}");
    }
    let mut bad_sum = stored.clone();
    let last = bad_sum.len() - 1;
    bad_sum[last] ^= 1;
    assert!(matches!(
        decode_whole(&gz, &bad_sum, data.len()),
        Err(DecodeError::ChecksumMismatch { .. })
    ));
    let mut not_either = stored;
    not_either[0] = 0x07;
    let e = decode_whole(&gz, &not_either, data.len()).unwrap_err();
    assert!(e.to_string().contains("gzip magic"), "{e}");
}
