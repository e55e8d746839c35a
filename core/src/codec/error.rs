//! Errors of codec chains and decoders.

use core::fmt;

use super::CodecName;
use crate::LayoutError;

/// Why a codec chain was refused when it was built from metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChainError {
    /// A codec in a place the chain does not allow (e.g. `transpose` after `bytes`).
    Misplaced {
        /// The codec.
        codec: CodecName,
    },
    /// The chain has no array-to-bytes codec (`bytes` or `sharding_indexed`).
    MissingArrayToBytes,
    /// `bytes` without an `endian`, for elements wider than one byte.
    MissingEndian {
        /// Element size in bytes.
        elem_size: usize,
    },
    /// A combination zinto does not decode.
    Unsupported {
        /// The codec.
        codec: CodecName,
        /// What about it.
        what: &'static str,
    },
    /// More codecs, checksums or nesting levels than the fixed capacity.
    TooMany {
        /// The codec that did not fit.
        codec: CodecName,
    },
    /// A shard shape that the inner chunk shape does not divide.
    ShardNotDivisible {
        /// The dimension.
        dim: usize,
        /// Shard (outer chunk) extent.
        shard: u64,
        /// Inner chunk extent.
        inner: u64,
    },
    /// The shapes or orders are inconsistent.
    Layout(LayoutError),
    /// A configuration value of the wrong kind or out of range.
    Config {
        /// The codec.
        codec: CodecName,
        /// The configuration key.
        key: &'static str,
        /// What is wrong with it.
        what: &'static str,
    },
    /// Two codecs whose element types do not meet (a filter's decoded type is not what the
    /// codec before it encodes).
    ElementMismatch {
        /// The codec whose input does not fit.
        codec: CodecName,
        /// Element size it decodes to.
        decodes_to: usize,
        /// Element size the codec before it (or the array) takes.
        expected: usize,
    },
}

impl From<LayoutError> for ChainError {
    fn from(e: LayoutError) -> Self {
        Self::Layout(e)
    }
}

impl fmt::Display for ChainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Misplaced { codec } => write!(f, "codec {codec} is out of place in the chain"),
            Self::MissingArrayToBytes => {
                f.write_str("codec chain has no array-to-bytes codec (bytes or sharding_indexed)")
            }
            Self::MissingEndian { elem_size } => write!(
                f,
                "bytes codec needs an endian for {elem_size}-byte elements"
            ),
            Self::Unsupported { codec, what } => {
                write!(f, "codec {codec}: {what} is not supported")
            }
            Self::TooMany { codec } => write!(f, "too many codecs: no room for {codec}"),
            Self::ShardNotDivisible { dim, shard, inner } => write!(
                f,
                "shard extent {shard} along dimension {dim} is not a multiple of the inner chunk extent {inner}"
            ),
            Self::Layout(e) => write!(f, "codec chain layout: {e}"),
            Self::Config { codec, key, what } => {
                write!(f, "codec {codec}: configuration {key:?} {what}")
            }
            Self::ElementMismatch {
                codec,
                decodes_to,
                expected,
            } => write!(
                f,
                "codec {codec} decodes to {decodes_to}-byte elements where {expected}-byte elements are needed"
            ),
        }
    }
}

impl core::error::Error for ChainError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::Layout(e) => Some(e),
            _ => None,
        }
    }
}

/// Why decoding stopped. Needing more input is not an error: see [`Status`](super::Status).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeError {
    /// The input ended before the encoded stream did.
    Truncated {
        /// The codec whose stream was cut short.
        codec: CodecName,
    },
    /// Bytes remain after the encoded stream ended.
    TrailingData {
        /// The codec whose stream ended early.
        codec: CodecName,
        /// How many bytes were left over.
        extra: u64,
    },
    /// The stream decodes to more bytes than the destination holds.
    OutputOverflow {
        /// The codec.
        codec: CodecName,
        /// Size of the destination.
        capacity: u64,
    },
    /// The stream decoded to a size other than the one expected.
    SizeMismatch {
        /// The codec.
        codec: CodecName,
        /// Size expected (destination, or the size the stream declared).
        expected: u64,
        /// Size found.
        got: u64,
    },
    /// A chunk of variable-length elements states a count other than its element count.
    CountMismatch {
        /// The codec.
        codec: CodecName,
        /// Elements the chunk's shape holds.
        expected: u64,
        /// Elements the chunk states.
        got: u64,
    },
    /// A checksum does not match the data.
    ChecksumMismatch {
        /// The codec whose checksum failed (crc32c; gzip CRC-32; zlib Adler-32; zstd XXH64).
        codec: CodecName,
        /// Checksum stored in the stream.
        expected: u32,
        /// Checksum of the data.
        found: u32,
    },
    /// The stream is not valid for its format.
    Corrupt {
        /// The codec.
        codec: CodecName,
        /// What is wrong, in a few words.
        reason: &'static str,
    },
    /// A zstd frame asks for a window larger than the cap.
    WindowTooLarge {
        /// Window the frame declares, in bytes.
        window: u64,
        /// The cap in force.
        cap: u64,
    },
    /// A feature of the stream zinto does not decode (e.g. a zstd dictionary).
    Unsupported {
        /// The codec.
        codec: CodecName,
        /// What.
        what: &'static str,
    },
    /// A shard index or a byte range computed from it is invalid.
    Shard(super::ShardError),
    /// A chunk was fed with another destination than the one its decoding began in: the
    /// bytes already decoded are in the first one, so the stream cannot go on in the second.
    DestinationChanged,
    /// A bug in zinto-core: a decoder's own count of its input or output went out of step
    /// (say, a slice it computed lies past the bytes it holds). Nothing was written out of
    /// place; please report it.
    Internal {
        /// Which count, in a few words.
        what: &'static str,
    },
    /// The stream does not say how large it decodes (a zstd frame without a content size, or
    /// any zlib stream), so it cannot be placed in a buffer sized up front.
    SizeUnknown {
        /// The codec.
        codec: CodecName,
    },
    /// A header field with a value the format does not allow.
    InvalidField {
        /// The codec.
        codec: CodecName,
        /// The field.
        field: &'static str,
        /// Its value.
        value: u64,
        /// The rule it breaks, as the end of a sentence ("must be 1 to 255").
        rule: &'static str,
    },
    /// The stream states a stored size other than the one the store has.
    StoredSizeMismatch {
        /// The codec.
        codec: CodecName,
        /// Stored size the stream states.
        stated: u64,
        /// Stored size the store has.
        stored: u64,
    },
    /// A block of a block-structured stream (Blosc) is invalid.
    Block {
        /// The codec.
        codec: CodecName,
        /// Which block (from 0).
        block: u64,
        /// What is wrong, as the end of a sentence.
        what: &'static str,
        /// The value at fault.
        value: u64,
    },
    /// A filter could not be undone.
    Filter {
        /// The filter.
        codec: CodecName,
        /// Why.
        error: super::filter::FilterError,
    },
    /// A fixed scratch buffer is smaller than the stream needs.
    ScratchTooSmall {
        /// Bytes needed.
        needed: u64,
        /// Bytes the scratch has.
        have: u64,
    },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Truncated { codec } => write!(f, "{codec}: input ends before the stream does"),
            Self::TrailingData { codec, extra } => {
                write!(
                    f,
                    "{codec}: {extra} bytes of trailing data after the stream"
                )
            }
            Self::OutputOverflow { codec, capacity } => write!(
                f,
                "{codec}: stream decodes to more than the destination's {capacity} bytes"
            ),
            Self::SizeMismatch {
                codec,
                expected,
                got,
            } => write!(f, "{codec}: decoded {got} bytes, expected {expected}"),
            Self::CountMismatch {
                codec,
                expected,
                got,
            } => write!(
                f,
                "{codec}: the chunk states {got} elements, its shape holds {expected}"
            ),
            Self::ChecksumMismatch {
                codec,
                expected,
                found,
            } => write!(
                f,
                "{codec}: checksum mismatch, stored {expected:#010x}, computed {found:#010x}"
            ),
            Self::Corrupt { codec, reason } => write!(f, "{codec}: corrupt stream: {reason}"),
            Self::WindowTooLarge { window, cap } => write!(
                f,
                "zstd: frame window of {window} bytes exceeds the cap of {cap} bytes"
            ),
            Self::Unsupported { codec, what } => write!(f, "{codec}: {what} is not supported"),
            Self::Shard(e) => write!(f, "sharding_indexed: {e}"),
            Self::DestinationChanged => f.write_str(
                "the destination changed in the middle of a chunk (feed it the same slice each call)",
            ),
            Self::Internal { what } => write!(f, "internal error (a bug in zinto): {what}"),
            Self::SizeUnknown { codec } => {
                write!(f, "{codec}: the stream does not declare its decoded size")
            }
            Self::InvalidField {
                codec,
                field,
                value,
                rule,
            } => write!(f, "{codec}: header field {field} = {value} {rule}"),
            Self::StoredSizeMismatch {
                codec,
                stated,
                stored,
            } => write!(
                f,
                "{codec}: the stream states {stated} stored bytes, but {stored} are stored"
            ),
            Self::Block {
                codec,
                block,
                what,
                value,
            } => write!(f, "{codec}: block {block} {what} ({value})"),
            Self::Filter { codec, error } => write!(f, "{codec}: {error}"),
            Self::ScratchTooSmall { needed, have } => write!(
                f,
                "the stream needs {needed} bytes of scratch, the scratch given has {have}"
            ),
        }
    }
}

impl core::error::Error for DecodeError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::Shard(e) => Some(e),
            _ => None,
        }
    }
}

impl From<super::ShardError> for DecodeError {
    fn from(e: super::ShardError) -> Self {
        Self::Shard(e)
    }
}

/// The errors for a slice or size a decoder computed from its own counts that lies outside
/// what it holds: unreachable while the counts are right, an error (not an empty slice, not a
/// panic) if they are not, each naming the invariant that broke.
const fn broke(what: &'static str) -> DecodeError {
    DecodeError::Internal { what }
}

/// A decoder's count of the input it consumed went past the input it was given.
pub(crate) const INPUT_OVERRUN: DecodeError =
    broke("a decoder's count of its input went past the input it was given");
/// A decoder's count of its output went past the destination or window it writes.
pub(crate) const OUTPUT_OVERRUN: DecodeError =
    broke("a decoder's count of its output went past its destination");
/// Bytes staged for a stream (a Blosc stream, a zstd frame header or block) counted past the
/// stream's own length.
pub(crate) const STAGED_OVERRUN: DecodeError =
    broke("bytes staged for a stream counted past the stream's length");
/// A part of scratch past what was reserved for it.
pub(crate) const SCRATCH_OVERRUN: DecodeError = broke("a part of scratch past what was reserved");
/// A size already checked against a buffer in memory does not fit `usize`.
pub(crate) const SIZE_NOT_USIZE: DecodeError =
    broke("a size checked against a buffer in memory does not fit usize");
/// A checksum's slot past the chunk's checksums.
pub(crate) const CHECKSUM_SLOT: DecodeError = broke("a checksum slot past the chunk's checksums");
/// A Blosc block decoded before the chunk's header was read.
pub(crate) const NO_HEADER: DecodeError = broke("a Blosc block decoded before its header was read");
/// A Blosc block unshuffled between buffers of other sizes than the block's.
pub(crate) const UNSHUFFLE_SIZES: DecodeError =
    broke("a Blosc block unshuffled between buffers of other sizes");
/// A Blosc block-start entry read past the block table.
pub(crate) const TABLE_OVERRUN: DecodeError = broke("a block-start entry read past the table");
