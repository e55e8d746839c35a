//! zinto-core without its `alloc` feature (`cargo test -p zinto-core --no-default-features`,
//! run by `scripts/test`): the decoders that need no heap work, and zstd, which does, is
//! refused by name rather than failing some other way.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;

use zinto_core::codec::{
    BytesCodecs, ChunkDecoder, Compressor, Crc32cCount, DecodeError, Status, crc32c,
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
        compressor: Some(Compressor::Gzip),
        crc32c: Crc32cCount::NONE,
    };
    assert!(decode(&gzip, &gz, data.len()).unwrap() == data);

    let mut zl = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    zl.write_all(&data).unwrap();
    let zl = zl.finish().unwrap();
    let zlib = BytesCodecs {
        compressor: Some(Compressor::Zlib),
        crc32c: Crc32cCount::NONE,
    };
    assert!(decode(&zlib, &zl, data.len()).unwrap() == data);

    let mut stored = data.clone();
    stored.extend(crc32c(&data).to_le_bytes());
    let checked = BytesCodecs {
        compressor: None,
        crc32c: Crc32cCount::ONE,
    };
    assert!(decode(&checked, &stored, data.len()).unwrap() == data);
}

#[test]
#[cfg(not(feature = "alloc"))]
fn zstd_is_refused_by_name_without_alloc() {
    use zinto_core::codec::CodecName;

    let zstd = BytesCodecs {
        compressor: Some(Compressor::Zstd),
        crc32c: Crc32cCount::NONE,
    };
    let frame = [0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x00, 0x01, 0x00, 0x00];
    assert_eq!(
        decode(&zstd, &frame, 0).unwrap_err(),
        DecodeError::Unsupported {
            codec: CodecName::Zstd,
            what: "zstd without the `alloc` feature",
        }
    );
}
