//! How large a stored chunk decodes, read from a few of its bytes without decoding it.
//!
//! A raw chunk decodes to its own length; a zstd frame to the content size its header declares
//! (refused when absent); a gzip member to its ISIZE trailer (the size modulo 2³², so a hint:
//! the decoder verifies it); a Blosc chunk to its header's `nbytes`; a numcodecs LZ4 chunk to
//! its leading size. zlib and bz2 streams say nothing of their size and are refused. A caller
//! concatenating variable-size chunks sizes its buffer exactly with these, then decodes each
//! chunk into its own part of it.

use super::Compressor;
use super::blosc::HEADER_LEN as BLOSC_HEADER_LEN;
use super::chain::BytesCodecs;
use super::zstd_frame::{FrameHeader, MAX_FRAME_HEADER_LEN};
use super::{CodecName, DecodeError};

/// Smallest possible gzip member: 10-byte header, 2 bytes of DEFLATE, 8-byte trailer.
const MIN_GZIP_LEN: u64 = 20;

/// The bytes of a stored chunk that [`decoded_len`] needs: `head_len` bytes from the start and
/// `tail_len` bytes from `tail_offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SizeProbe {
    /// How many bytes from the start of the stored chunk.
    pub head_len: usize,
    /// Where the tail starts in the stored chunk.
    pub tail_offset: u64,
    /// How many bytes from `tail_offset`.
    pub tail_len: usize,
}

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

fn head_probe(
    start: u64,
    payload: u64,
    want: u64,
    codec: CodecName,
) -> Result<SizeProbe, DecodeError> {
    if payload < want {
        return Err(DecodeError::Truncated { codec });
    }
    Ok(SizeProbe {
        head_len: usize::try_from(start + want).map_err(|_| DecodeError::Truncated { codec })?,
        tail_offset: 0,
        tail_len: 0,
    })
}

/// Which bytes of a chunk of `encoded_len` stored bytes tell its decoded size.
///
/// # Errors
/// [`DecodeError::Truncated`] if the chunk is too short to hold its checksums or the
/// compressor's fixed fields; [`DecodeError::SizeUnknown`] for zlib.
pub fn size_probe(codecs: &BytesCodecs, encoded_len: u64) -> Result<SizeProbe, DecodeError> {
    let (start, payload) = payload_range(codecs, encoded_len)?;
    let none = SizeProbe {
        head_len: 0,
        tail_offset: 0,
        tail_len: 0,
    };
    match codecs.compressor {
        None => Ok(none),
        Some(Compressor::Zstd { .. }) => Ok(SizeProbe {
            head_len: usize::try_from(start + payload.min(MAX_FRAME_HEADER_LEN as u64))
                .unwrap_or(MAX_FRAME_HEADER_LEN),
            ..none
        }),
        Some(Compressor::Gzip { .. }) => {
            if payload < MIN_GZIP_LEN {
                return Err(DecodeError::Truncated {
                    codec: CodecName::Gzip,
                });
            }
            Ok(SizeProbe {
                head_len: usize::try_from(start + 2).unwrap_or(usize::MAX),
                tail_offset: start + payload - 4,
                tail_len: 4,
            })
        }
        Some(Compressor::Blosc(_)) => {
            head_probe(start, payload, BLOSC_HEADER_LEN as u64, CodecName::Blosc)
        }
        Some(Compressor::Lz4 { .. }) => head_probe(start, payload, 4, CodecName::Lz4),
        Some(c) => Err(DecodeError::SizeUnknown { codec: c.name() }),
    }
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
    let truncated = |codec| DecodeError::Truncated { codec };
    match codecs.compressor {
        None => Ok(payload),
        Some(Compressor::Zstd { .. }) => {
            let head = head.ok_or(truncated(CodecName::Zstd))?;
            FrameHeader::parse(head)?
                .ok_or(truncated(CodecName::Zstd))?
                .content_size
                .ok_or(DecodeError::SizeUnknown {
                    codec: CodecName::Zstd,
                })
        }
        Some(Compressor::Gzip { .. }) => {
            if head.ok_or(truncated(CodecName::Gzip))? != [0x1f, 0x8b] {
                return Err(DecodeError::Corrupt {
                    codec: CodecName::Gzip,
                    reason: "not a gzip member (bad magic number)",
                });
            }
            let isize: [u8; 4] = tail
                .get(..4)
                .and_then(|t| t.try_into().ok())
                .ok_or(truncated(CodecName::Gzip))?;
            Ok(u64::from(u32::from_le_bytes(isize)))
        }
        Some(Compressor::Blosc(_)) => {
            let nbytes: [u8; 4] = head
                .and_then(|h| h.get(4..8))
                .and_then(|t| t.try_into().ok())
                .ok_or(truncated(CodecName::Blosc))?;
            Ok(u64::from(u32::from_le_bytes(nbytes)))
        }
        Some(Compressor::Lz4 { .. }) => {
            let size: [u8; 4] = head
                .and_then(|h| h.get(..4))
                .and_then(|t| t.try_into().ok())
                .ok_or(truncated(CodecName::Lz4))?;
            u64::try_from(i32::from_le_bytes(size)).map_err(|_| DecodeError::Corrupt {
                codec: CodecName::Lz4,
                reason: "negative decoded size",
            })
        }
        Some(c) => Err(DecodeError::SizeUnknown { codec: c.name() }),
    }
}
