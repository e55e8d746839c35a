//! Decoded sizes read from a few bytes of real zstd and gzip streams, and their refusals.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;

use zinto_core::codec::{
    BytesCodecs, Checksums, CodecName, Compressor, DecodeError, crc32c, decoded_len, size_probe,
};
use zinto_core::{LayoutError, sizes_to_offsets};

fn codecs(compressor: Option<Compressor>, crc32c: u8) -> BytesCodecs {
    let crc32c = Checksums::crc32c(usize::from(crc32c)).unwrap();
    BytesCodecs {
        compressor,
        checksums: crc32c,
    }
}

/// Reads the probe's bytes from `stored` and asks for the decoded size.
fn size_of(c: &BytesCodecs, stored: &[u8]) -> Result<u64, DecodeError> {
    let len = stored.len() as u64;
    let probe = size_probe(c, len)?;
    let head = &stored[..probe.head_len];
    let tail_at = usize::try_from(probe.tail_offset).unwrap();
    let tail = &stored[tail_at..tail_at + probe.tail_len];
    decoded_len(c, len, head, tail)
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

#[test]
fn sizes_of_real_streams() {
    for n in [0usize, 1, 17, 4096, 300_001] {
        let data: Vec<u8> = (0..n)
            .map(|i| u8::try_from(i * 31 % 251).unwrap())
            .collect();
        let zst = zstd::bulk::compress(&data, 3).unwrap();
        assert_eq!(
            size_of(&codecs(Some(Compressor::ZSTD), 0), &zst).unwrap(),
            n as u64
        );
        let gz = gzip(&data);
        assert_eq!(
            size_of(&codecs(Some(Compressor::GZIP), 0), &gz).unwrap(),
            n as u64
        );
        // A crc32c trailer after the compressor: the probe looks before it.
        let mut gz_crc = gz.clone();
        gz_crc.extend(crc32c(&gz).to_le_bytes());
        assert_eq!(
            size_of(&codecs(Some(Compressor::GZIP), 1), &gz_crc).unwrap(),
            n as u64
        );
        let mut raw_crc = data.clone();
        raw_crc.extend(crc32c(&data).to_le_bytes());
        assert_eq!(size_of(&codecs(None, 1), &raw_crc).unwrap(), n as u64);
    }
}

#[test]
fn refusals() {
    let zstd = codecs(Some(Compressor::ZSTD), 0);
    // A streamed frame does not state its content size.
    let mut enc = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
    enc.write_all(&[5u8; 1000]).unwrap();
    let streamed = enc.finish().unwrap();
    assert_eq!(
        size_of(&zstd, &streamed),
        Err(DecodeError::SizeUnknown {
            codec: CodecName::Zstd
        })
    );
    assert!(matches!(
        size_of(&zstd, b"not zstd at all"),
        Err(DecodeError::Corrupt { .. })
    ));
    assert_eq!(
        size_of(&zstd, &[0x28, 0xb5, 0x2f]),
        Err(DecodeError::Truncated {
            codec: CodecName::Zstd
        })
    );
    let gz = codecs(Some(Compressor::GZIP), 0);
    assert_eq!(
        size_of(&gz, &[0x1f; 10]),
        Err(DecodeError::Truncated {
            codec: CodecName::Gzip
        })
    );
    assert!(matches!(
        size_of(&gz, &[0u8; 40]),
        Err(DecodeError::Corrupt { .. })
    ));
    assert_eq!(
        size_probe(&codecs(Some(Compressor::ZLIB), 0), 100),
        Err(DecodeError::SizeUnknown {
            codec: CodecName::Zlib
        })
    );
    assert_eq!(
        size_probe(&codecs(None, 2), 7),
        Err(DecodeError::Truncated {
            codec: CodecName::Crc32c
        })
    );
    // Head shorter than the probe asked for.
    assert_eq!(
        decoded_len(&zstd, 100, &[0x28, 0xb5], &[]),
        Err(DecodeError::Truncated {
            codec: CodecName::Zstd
        })
    );
}

#[test]
fn offsets_are_checked() {
    let mut sizes = [u64::MAX - 1, 1, 1];
    assert_eq!(sizes_to_offsets(&mut sizes), Err(LayoutError::Overflow));
    let mut none: [u64; 0] = [];
    assert_eq!(sizes_to_offsets(&mut none), Ok(0));
}
