//! `zstd` (RFC 8878), decoded by [`ZstdDecoder`](crate::codec::ZstdDecoder) (ruzstd's
//! decoding, behind the `alloc` feature) or a backend (the std crate's C zstd).

use super::{CompressorCodec, FromConfig, NOT_STARTED, int32};
use crate::codec::config::{Config, Reader};
use crate::codec::decoded_size::SizeProbe;
use crate::codec::decoders::Decoders;
use crate::codec::error::SIZE_NOT_USIZE;
use crate::codec::zstd_frame::{FrameHeader, MAX_FRAME_HEADER_LEN};
use crate::codec::{ChainError, CodecName, DecodeError, Progress};

/// The most one byte of zstd decodes to, rounded up: a 4-byte RLE block yields 128 KiB.
pub(crate) const MAX_RATIO: u64 = 32_768;

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

    fn start(
        &self,
        d: &mut Decoders,
        _: u64,
        decoded_len: usize,
        windowed: bool,
    ) -> Result<(), DecodeError> {
        #[cfg(feature = "alloc")]
        {
            let z = d.zstd();
            if windowed {
                z.reset_windowed(decoded_len as u64);
            } else {
                z.reset();
            }
            Ok(())
        }
        #[cfg(not(feature = "alloc"))]
        {
            let _ = (d, decoded_len, windowed);
            Err(super::without_alloc(CodecName::Zstd))
        }
    }

    fn decode(
        &self,
        d: &mut Decoders,
        input: &[u8],
        dst: &mut [u8],
        pos: usize,
    ) -> Result<Progress, DecodeError> {
        #[cfg(feature = "alloc")]
        return d.zstd.as_mut().ok_or(NOT_STARTED)?.decode(input, dst, pos);
        #[cfg(not(feature = "alloc"))]
        {
            let _ = (d, input, dst, pos);
            Err(NOT_STARTED)
        }
    }

    fn decode_window(
        &self,
        d: &mut Decoders,
        input: &[u8],
        window: &mut [u8],
        _: usize,
    ) -> Result<(Progress, usize), DecodeError> {
        #[cfg(feature = "alloc")]
        return Ok((
            d.zstd
                .as_mut()
                .ok_or(NOT_STARTED)?
                .decode_window(input, window)?,
            0,
        ));
        #[cfg(not(feature = "alloc"))]
        {
            let _ = (d, input, window);
            Err(NOT_STARTED)
        }
    }

    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.level {
            Some(l) => write!(f, "zstd(level {l})"),
            None => f.write_str("zstd"),
        }
    }
}
