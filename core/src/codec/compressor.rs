//! The bytes-to-bytes compressors, each a value with its configuration: the registry.
//!
//! Adding a compressor means its own file under `codec/` (configuration, decoder), a row in the
//! name table ([`CodecName`]), and one variant with its arms here and in `decoders.rs`: the
//! chain, the chunk decoder, the std reader and the metadata parser do not change.

use super::blosc::BloscConfig;
use super::config::{Config, Reader};
use super::{ChainError, CodecName};

/// A compressor as metadata configures it. The configuration is kept (the CLI shows it, and a
/// decoder checks a stream against it where the format allows), though most decoders read
/// everything they need from the stream itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Compressor {
    /// RFC 1952 gzip, with its `level` if stated.
    Gzip {
        /// Compression level (0-9), if stated.
        level: Option<u8>,
    },
    /// RFC 1950 zlib, with its `level` if stated.
    Zlib {
        /// Compression level (0-9), if stated.
        level: Option<u8>,
    },
    /// RFC 8878 zstd.
    Zstd {
        /// Compression level, if stated.
        level: Option<i32>,
        /// Whether frames carry a content checksum (they are verified whenever present).
        checksum: bool,
    },
    /// Blosc (the c-blosc 1.x chunk format).
    Blosc(BloscConfig),
    /// numcodecs LZ4: a little-endian `i32` decoded size, then one LZ4 block.
    Lz4 {
        /// The acceleration it was written with, if stated.
        acceleration: Option<i32>,
    },
    /// numcodecs BZ2 (decoded by a backend of the std crate).
    Bz2 {
        /// Compression level (1-9), if stated.
        level: Option<u8>,
    },
}

impl Compressor {
    /// gzip without a stated level.
    pub const GZIP: Self = Self::Gzip { level: None };
    /// zlib without a stated level.
    pub const ZLIB: Self = Self::Zlib { level: None };
    /// zstd without a stated level or checksum.
    pub const ZSTD: Self = Self::Zstd {
        level: None,
        checksum: false,
    };

    /// Its codec name.
    pub fn name(&self) -> CodecName {
        match self {
            Self::Gzip { .. } => CodecName::Gzip,
            Self::Zlib { .. } => CodecName::Zlib,
            Self::Zstd { .. } => CodecName::Zstd,
            Self::Blosc(_) => CodecName::Blosc,
            Self::Lz4 { .. } => CodecName::Lz4,
            Self::Bz2 { .. } => CodecName::Bz2,
        }
    }

    /// The compressor `codec` with its configuration, or `None` if `codec` is not a compressor.
    ///
    /// # Errors
    /// [`ChainError::Config`] for a configuration value of the wrong kind or out of range.
    pub fn from_config<C: Config + ?Sized>(
        codec: CodecName,
        config: &C,
    ) -> Result<Option<Self>, ChainError> {
        let r = Reader { codec, config };
        let level = |key, max| -> Result<Option<u8>, ChainError> {
            // In range 0..=max, so it fits a u8.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            Ok(r.int_in(key, 0, max)?.map(|l| l as u8))
        };
        Ok(Some(match codec {
            CodecName::Gzip => Self::Gzip {
                level: level("level", 9)?,
            },
            CodecName::Zlib => Self::Zlib {
                level: level("level", 9)?,
            },
            CodecName::Zstd => Self::Zstd {
                // In i32 range.
                #[allow(clippy::cast_possible_truncation)]
                level: r
                    .int_in("level", i64::from(i32::MIN), i64::from(i32::MAX))?
                    .map(|l| l as i32),
                checksum: r.bool("checksum")?.unwrap_or(false),
            },
            CodecName::Blosc => Self::Blosc(BloscConfig::from_config(&r)?),
            CodecName::Lz4 => Self::Lz4 {
                #[allow(clippy::cast_possible_truncation)]
                acceleration: r
                    .int_in("acceleration", i64::from(i32::MIN), i64::from(i32::MAX))?
                    .map(|a| a as i32),
            },
            CodecName::Bz2 => Self::Bz2 {
                level: level("level", 9)?,
            },
            _ => return Ok(None),
        }))
    }

    /// Whether its own decoder, used on its own ([`BloscDecoder`](super::BloscDecoder)), can
    /// go on in a new destination window after reporting
    /// [`Status::NeedsOutput`](super::Status::NeedsOutput): Blosc's blocks are independent, so a
    /// window must hold just one. The stream compressors refer back into what they wrote; they
    /// decode through a window only by way of
    /// [`ChunkDecoder::start_windowed`](super::ChunkDecoder::start_windowed), which keeps
    /// their window (DEFLATE's in a ring the caller passes, zstd's in the decoder).
    pub fn moves_window(&self) -> bool {
        matches!(self, Self::Blosc(_))
    }
}

impl core::fmt::Display for Compressor {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Blosc(c) => write!(f, "blosc({c})"),
            Self::Gzip { level: Some(l) } | Self::Zlib { level: Some(l) } => {
                write!(f, "{}(level {l})", self.name())
            }
            Self::Zstd { level: Some(l), .. } => write!(f, "zstd(level {l})"),
            other => f.write_str(other.name().name()),
        }
    }
}
