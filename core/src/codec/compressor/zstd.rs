//! `zstd` (RFC 8878), decoded through the [`Backend`](crate::codec::Backend) trait: by
//! [`ZstdDecoder`](crate::codec::ZstdDecoder) (ruzstd's decoding, behind the `alloc` feature),
//! or by one plugged in the same way (the std crate's C zstd).

use super::SizeProbe;
use super::{CompressorCodec, FromConfig, int32};
use crate::codec::config::{Config, Reader};
use crate::codec::decoders::Decoders;
use crate::codec::encode::ZarrVersion;
use crate::codec::encode::{ConfigFor, ConfigSink, EncodeError};
#[cfg(feature = "alloc")]
use crate::codec::encode::{EncodeBackends, Encoder};
use crate::codec::error::SIZE_NOT_USIZE;
use crate::codec::zstd_frame::{FrameHeader, MAX_FRAME_HEADER_LEN};
use crate::codec::{ChainError, CodecName, DecodeError, Progress};

/// The most one byte of zstd decodes to, rounded up: a 4-byte RLE block yields 128 KiB.
pub(crate) const MAX_RATIO: u64 = 32_768;

/// Without `alloc` zstd has no decoder; with it, its backend decodes it.
fn not_here() -> DecodeError {
    if cfg!(feature = "alloc") {
        DecodeError::Internal {
            what: "zstd decoded other than by its backend",
        }
    } else {
        super::without_alloc(CodecName::Zstd)
    }
}

/// RFC 8878 zstd.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Zstd {
    /// Compression level, if stated.
    pub level: Option<i32>,
    /// Whether frames carry a content checksum (they are verified whenever present).
    pub checksum: bool,
}

impl Zstd {
    pub(crate) const NAMES: &'static [&'static str] = &["zstd", "numcodecs.zstd"];
    pub(crate) const V2_ID: Option<&'static str> = Some("zstd");
}

impl FromConfig for Zstd {
    fn from_config<C: Config + ?Sized>(r: &Reader<'_, C>) -> Result<Self, ChainError> {
        Ok(Self {
            level: int32(r, "level")?,
            checksum: r.bool("checksum")?.unwrap_or(false),
        })
    }
}

impl CompressorCodec for Zstd {
    fn max_ratio(&self) -> u64 {
        MAX_RATIO
    }

    fn moves_window(&self) -> bool {
        false
    }

    fn serializes_numbers(&self) -> bool {
        false
    }

    fn can_window(&self) -> bool {
        cfg!(feature = "alloc")
    }

    /// The decoder keeps the frame's window itself: any window will do.
    fn min_window(&self, _: &[u8], _: Option<u64>, _: usize) -> Result<usize, DecodeError> {
        Ok(1)
    }

    /// The frame header, which states the content size (refused when it does not).
    fn size_probe(&self, payload_len: u64) -> Result<SizeProbe, DecodeError> {
        let len = payload_len.min(MAX_FRAME_HEADER_LEN as u64);
        Ok(SizeProbe {
            // At most MAX_FRAME_HEADER_LEN.
            head_len: usize::try_from(len).map_err(|_| SIZE_NOT_USIZE)?,
            tail_offset: 0,
            tail_len: 0,
        })
    }

    fn decoded_len(&self, head: Option<&[u8]>, _: &[u8]) -> Result<u64, DecodeError> {
        let truncated = DecodeError::Truncated {
            codec: CodecName::Zstd,
        };
        FrameHeader::parse(head.ok_or(truncated)?)?
            .ok_or(truncated)?
            .content_size
            .ok_or(DecodeError::SizeUnknown {
                codec: CodecName::Zstd,
            })
    }

    #[cfg(feature = "alloc")]
    fn builtin_backend(&self) -> Option<alloc::boxed::Box<dyn crate::codec::Backend>> {
        Some(alloc::boxed::Box::new(crate::codec::ZstdDecoder::new()))
    }

    // zstd is decoded by its backend (ruzstd's, or one plugged in) and never here.
    fn start(&self, _: &mut Decoders, _: u64, _: usize, _: bool) -> Result<(), DecodeError> {
        Err(not_here())
    }

    fn decode(
        &self,
        _: &mut Decoders,
        _: &[u8],
        _: &mut [u8],
        _: usize,
    ) -> Result<Progress, DecodeError> {
        Err(not_here())
    }

    fn decode_window(
        &self,
        _: &mut Decoders,
        _: &[u8],
        _: &mut [u8],
        _: usize,
    ) -> Result<(Progress, usize), DecodeError> {
        Err(not_here())
    }

    /// C zstd, through the std crate's backend.
    #[cfg(feature = "alloc")]
    fn encoder(
        &self,
        _: usize,
        backends: &dyn EncodeBackends,
    ) -> Result<alloc::boxed::Box<dyn Encoder>, EncodeError> {
        backends.zstd(self.level.unwrap_or(0), self.checksum)
    }

    /// `level` (0, the library's default, when not stated) and, in v3 always and in v2 only
    /// when set, `checksum` (numcodecs' default is none, and tensorstore refuses the key in
    /// v2).
    fn write_config(&self, to: ConfigFor, sink: &mut dyn ConfigSink) -> Result<(), EncodeError> {
        sink.int("level", i64::from(self.level.unwrap_or(0)));
        if to.version == ZarrVersion::V3 || self.checksum {
            sink.bool("checksum", self.checksum);
        }
        Ok(())
    }

    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.level {
            Some(l) => write!(f, "zstd(level {l})"),
            None => f.write_str("zstd"),
        }
    }
}
