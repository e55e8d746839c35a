//! zinto-core without its `alloc` feature (`cargo test -p zinto-core --no-default-features`,
//! run by `scripts/test`): the decoders that need no heap work (Blosc too, with the caller's
//! scratch), and zstd, which does, is refused by name rather than failing some other way.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;

use zinto_core::codec::{
    BytesCodecs, Checksums, ChunkDecoder, Compressor, DecodeError, Status, crc32c,
};

fn decode(codecs: &BytesCodecs, stored: &[u8], len: usize) -> Result<Vec<u8>, DecodeError> {
    let mut d = ChunkDecoder::new();
    let mut out = vec![0u8; len];
    d.start(codecs, stored.len() as u64, len)?;
    let mut status = Status::NeedsInput;
    for piece in stored.chunks(7) {
        status = d.feed(piece, &mut out)?.status;
    }
    assert_eq!(status, Status::Done);
    Ok(out)
}

#[test]
fn gzip_zlib_and_crc32c_decode_without_a_heap() {
    let data: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&data).unwrap();
    let gz = gz.finish().unwrap();
    let gzip = BytesCodecs {
        compressor: Some(Compressor::GZIP),
        checksums: Checksums::NONE,
    };
    assert!(decode(&gzip, &gz, data.len()).unwrap() == data);

    let mut zl = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    zl.write_all(&data).unwrap();
    let zl = zl.finish().unwrap();
    let zlib = BytesCodecs {
        compressor: Some(Compressor::ZLIB),
        checksums: Checksums::NONE,
    };
    assert!(decode(&zlib, &zl, data.len()).unwrap() == data);

    let mut stored = data.clone();
    stored.extend(crc32c(&data).to_le_bytes());
    let checked = BytesCodecs {
        compressor: None,
        checksums: Checksums::CRC32C,
    };
    assert!(decode(&checked, &stored, data.len()).unwrap() == data);
}

#[test]
#[cfg(not(feature = "alloc"))]
fn zstd_is_refused_by_name_without_alloc() {
    use zinto_core::codec::CodecName;

    let zstd = BytesCodecs {
        compressor: Some(Compressor::ZSTD),
        checksums: Checksums::NONE,
    };
    let frame = [0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x00, 0x01, 0x00, 0x00];
    assert_eq!(
        decode(&zstd, &frame, 0).unwrap_err(),
        DecodeError::Unsupported {
            codec: CodecName::Zstd,
            what: "this codec through ChunkDecoder without the `alloc` feature",
        }
    );
}

#[test]
fn blosc_decodes_without_a_heap_into_the_callers_scratch() {
    use zinto_core::codec::{BloscDecoder, LzInner};
    for (array, chunk) in [
        ("nc_v2_blosc_lz4_shuffle", "0.0"),
        ("nc_v2_blosc_blosclz_bitshuffle", "0.0"),
        ("nc_v2_blosc_bs256_lz4_shuffle", "0"),
    ] {
        let path = format!(
            "{}/../tests/fixtures/data/{array}/{chunk}",
            env!("CARGO_MANIFEST_DIR")
        );
        let stored = std::fs::read(path).unwrap();
        let nbytes = u32::from_le_bytes(stored[4..8].try_into().unwrap()) as usize;
        // The scratch a firmware would keep: here, 8 KiB on the stack.
        let mut scratch = [0u8; 8192];
        let mut d = BloscDecoder::new(&mut scratch[..]);
        d.start(stored.len() as u64, nbytes as u64);
        let mut out = vec![0u8; nbytes];
        let mut status = Status::NeedsInput;
        let mut written = 0;
        for piece in stored.chunks(100) {
            let p = d.decode(piece, &mut out, written, &mut LzInner).unwrap();
            assert_eq!(p.consumed, piece.len(), "{array}");
            written += p.written;
            status = p.status;
        }
        assert_eq!((status, written), (Status::Done, nbytes), "{array}");
        // (The bytes are checked against zarr-python's reading by the conformance tests; here,
        // that they are the fixtures' floats: finite, and not all zero.)
        let floats: Vec<f64> = if array.contains("bs256") {
            out.chunks_exact(8)
                .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
                .collect()
        } else {
            out.chunks_exact(4)
                .map(|b| f64::from(f32::from_le_bytes(b.try_into().unwrap())))
                .collect()
        };
        assert!(floats.iter().all(|f| f.is_finite()), "{array}");
        assert!(floats.iter().any(|&f| f != 0.0), "{array}");
    }
}
