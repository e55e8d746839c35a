//! How large a stored chunk decodes, read from a few of its bytes without decoding it.
//!
//! A raw chunk decodes to its own length; a zstd frame to the content size its header declares
//! (refused when absent); a gzip member to its ISIZE trailer (the size modulo 2³², so a hint:
//! the decoder verifies it). zlib streams say nothing of their size and are refused. A caller
//! concatenating variable-size chunks sizes its buffer exactly with these, then decodes each
//! chunk into its own part of it.

use super::chain::{BytesCodecs, Compressor};
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

fn payload_len(codecs: &BytesCodecs, encoded_len: u64) -> Result<u64, DecodeError> {
    encoded_len
        .checked_sub(4 * codecs.crc32c.get() as u64)
        .ok_or(DecodeError::Truncated {
            codec: CodecName::Crc32c,
        })
}

/// Which bytes of a chunk of `encoded_len` stored bytes tell its decoded size.
///
/// # Errors
/// [`DecodeError::Truncated`] if the chunk is too short to hold its checksums or the
/// compressor's fixed fields; [`DecodeError::SizeUnknown`] for zlib.
pub fn size_probe(codecs: &BytesCodecs, encoded_len: u64) -> Result<SizeProbe, DecodeError> {
    let payload = payload_len(codecs, encoded_len)?;
    let none = SizeProbe {
        head_len: 0,
        tail_offset: 0,
        tail_len: 0,
    };
    match codecs.compressor {
        None => Ok(none),
        Some(Compressor::Zstd) => Ok(SizeProbe {
            head_len: usize::try_from(payload.min(MAX_FRAME_HEADER_LEN as u64))
                .unwrap_or(MAX_FRAME_HEADER_LEN),
            ..none
        }),
        Some(Compressor::Gzip) => {
            if payload < MIN_GZIP_LEN {
                return Err(DecodeError::Truncated {
                    codec: CodecName::Gzip,
                });
            }
            Ok(SizeProbe {
                head_len: 2,
                tail_offset: payload - 4,
                tail_len: 4,
            })
        }
        Some(Compressor::Zlib) => Err(DecodeError::SizeUnknown {
            codec: CodecName::Zlib,
        }),
    }
}

/// The decoded size of a chunk of `encoded_len` stored bytes, from the `head` and `tail` bytes
/// its [`size_probe`] names.
///
/// ```
/// use zinto_core::codec::{BytesCodecs, Compressor, Crc32cCount, decoded_len, size_probe};
///
/// let data = vec![7u8; 10_000];
/// let frame = zstd::bulk::compress(&data, 3)?; // a one-shot frame states its content size
/// let codecs = BytesCodecs { compressor: Some(Compressor::Zstd), crc32c: Crc32cCount::NONE };
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
    match codecs.compressor {
        None => payload_len(codecs, encoded_len),
        Some(Compressor::Zstd) => {
            let head = head.get(..probe.head_len).ok_or(DecodeError::Truncated {
                codec: CodecName::Zstd,
            })?;
            FrameHeader::parse(head)?
                .ok_or(DecodeError::Truncated {
                    codec: CodecName::Zstd,
                })?
                .content_size
                .ok_or(DecodeError::SizeUnknown {
                    codec: CodecName::Zstd,
                })
        }
        Some(Compressor::Gzip) => {
            let truncated = DecodeError::Truncated {
                codec: CodecName::Gzip,
            };
            if head.get(..2).ok_or(truncated)? != [0x1f, 0x8b] {
                return Err(DecodeError::Corrupt {
                    codec: CodecName::Gzip,
                    reason: "not a gzip member (bad magic number)",
                });
            }
            let isize: [u8; 4] = tail
                .get(..4)
                .and_then(|t| t.try_into().ok())
                .ok_or(truncated)?;
            Ok(u64::from(u32::from_le_bytes(isize)))
        }
        Some(Compressor::Zlib) => Err(DecodeError::SizeUnknown {
            codec: CodecName::Zlib,
        }),
    }
}
