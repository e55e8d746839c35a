//! How large a stored chunk decodes, read from a few of its bytes without decoding it.
//!
//! A raw chunk decodes to its own length; a zstd frame to the content size its header declares
//! (refused when absent); a gzip member to its ISIZE trailer (the size modulo 2³², so a hint:
//! the decoder verifies it); a Blosc chunk to its header's `nbytes`; a numcodecs LZ4 chunk to
//! its leading size. zlib and bz2 streams say nothing of their size and are refused. A caller
//! concatenating variable-size chunks sizes its buffer exactly with these, then decodes each
//! chunk into its own part of it.

use super::chain::BytesCodecs;
pub use super::compressor::SizeProbe;
use super::{CodecName, DecodeError};

fn payload_range(codecs: &BytesCodecs, encoded_len: u64) -> Result<(u64, u64), DecodeError> {
    let start = codecs.checksums.before();
    encoded_len
        .checked_sub(codecs.checksums.after())
        .and_then(|end| end.checked_sub(start))
        .map(|len| (start, len))
        .ok_or(DecodeError::Truncated {
            codec: codecs
                .checksums
                .iter()
                .last()
                .map_or(CodecName::Crc32c, |c| c.name()),
        })
}

/// Which bytes of a chunk of `encoded_len` stored bytes tell its decoded size.
///
/// # Errors
/// [`DecodeError::Truncated`] if the chunk is too short to hold its checksums or the
/// compressor's fixed fields; [`DecodeError::SizeUnknown`] for zlib.
pub fn size_probe(codecs: &BytesCodecs, encoded_len: u64) -> Result<SizeProbe, DecodeError> {
    let (start, payload) = payload_range(codecs, encoded_len)?;
    let Some(compressor) = codecs.compressor else {
        return Ok(SizeProbe {
            head_len: 0,
            tail_offset: 0,
            tail_len: 0,
        });
    };
    let p = compressor.codec().size_probe(payload)?;
    let beyond = DecodeError::Truncated {
        codec: compressor.name(),
    };
    Ok(SizeProbe {
        head_len: usize::try_from(start)
            .ok()
            .and_then(|s| s.checked_add(p.head_len))
            .ok_or(beyond)?,
        tail_offset: start.checked_add(p.tail_offset).ok_or(beyond)?,
        tail_len: p.tail_len,
    })
}

/// The decoded size of a chunk of `encoded_len` stored bytes, from the `head` and `tail` bytes
/// its [`size_probe`] names.
///
/// ```
/// use zinto_core::codec::{BytesCodecs, Compressor, decoded_len, size_probe};
///
/// let data = vec![7u8; 10_000];
/// let frame = zstd::bulk::compress(&data, 3)?; // a one-shot frame states its content size
/// let codecs = BytesCodecs::compressed(Some(Compressor::ZSTD));
/// let probe = size_probe(&codecs, frame.len() as u64)?;
/// let head = &frame[..probe.head_len];
/// assert_eq!(decoded_len(&codecs, frame.len() as u64, head, &[])?, 10_000);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`DecodeError::Truncated`] if `head` or `tail` is shorter than the probe asks;
/// [`DecodeError::Corrupt`] for a wrong magic number; [`DecodeError::SizeUnknown`] for a zstd
/// frame without a content size, or zlib.
pub fn decoded_len(
    codecs: &BytesCodecs,
    encoded_len: u64,
    head: &[u8],
    tail: &[u8],
) -> Result<u64, DecodeError> {
    let probe = size_probe(codecs, encoded_len)?;
    let (start, payload) = payload_range(codecs, encoded_len)?;
    let head = usize::try_from(start)
        .ok()
        .and_then(|s| head.get(s..probe.head_len));
    match codecs.compressor {
        None => Ok(payload),
        Some(c) => c.codec().decoded_len(head, tail),
    }
}
