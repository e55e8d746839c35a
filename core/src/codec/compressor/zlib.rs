//! `zlib` (RFC 1950): a DEFLATE stream in a zlib wrapper, decoded by [`DeflateDecoder`].
//!
//! [`DeflateDecoder`]: crate::codec::DeflateDecoder

use super::SizeProbe;
use super::{CompressorCodec, FromConfig, deflate_level};
use crate::codec::config::{Config, Reader};
use crate::codec::decoders::Decoders;
use crate::codec::deflate::{self, DeflateFormat, RING_MIN};
#[cfg(feature = "alloc")]
use crate::codec::encode::DeflateFraming;
use crate::codec::encode::{ConfigFor, ConfigSink, EncodeError};
#[cfg(feature = "alloc")]
use crate::codec::encode::{EncodeBackends, Encoder};
use crate::codec::{ChainError, CodecName, DecodeError, Progress};

/// RFC 1950 zlib, with its `level` if stated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Zlib {
    /// Compression level (0-9), if stated (`-1`, zlib's default, is not a stated level).
    pub level: Option<u8>,
}

impl Zlib {
    pub(crate) const NAMES: &'static [&'static str] = &["zlib", "numcodecs.zlib"];
    pub(crate) const V2_ID: Option<&'static str> = Some("zlib");
}

impl FromConfig for Zlib {
    fn from_config<C: Config + ?Sized>(r: &Reader<'_, C>) -> Result<Self, ChainError> {
        Ok(Self {
            level: deflate_level(r)?,
        })
    }
}

impl CompressorCodec for Zlib {
    fn max_ratio(&self) -> u64 {
        deflate::MAX_RATIO
    }

    fn moves_window(&self) -> bool {
        false
    }

    fn serializes_numbers(&self) -> bool {
        false
    }

    fn can_window(&self) -> bool {
        true
    }

    fn min_window(&self, _: &[u8], _: Option<u64>, _: usize) -> Result<usize, DecodeError> {
        Ok(RING_MIN)
    }

    /// A zlib stream says nothing of its decoded size.
    fn size_probe(&self, _: u64) -> Result<SizeProbe, DecodeError> {
        Err(DecodeError::SizeUnknown {
            codec: CodecName::Zlib,
        })
    }

    fn decoded_len(&self, _: Option<&[u8]>, _: &[u8]) -> Result<u64, DecodeError> {
        Err(DecodeError::SizeUnknown {
            codec: CodecName::Zlib,
        })
    }

    #[cfg(feature = "alloc")]
    fn builtin_backend(&self) -> Option<alloc::boxed::Box<dyn crate::codec::Backend>> {
        None
    }

    fn start(&self, d: &mut Decoders, _: u64, _: usize, _: bool) -> Result<(), DecodeError> {
        d.reset_deflate(DeflateFormat::Zlib);
        Ok(())
    }

    fn decode(
        &self,
        d: &mut Decoders,
        input: &[u8],
        dst: &mut [u8],
        pos: usize,
    ) -> Result<Progress, DecodeError> {
        d.inflate(input, dst, pos)
    }

    fn decode_window(
        &self,
        d: &mut Decoders,
        input: &[u8],
        window: &mut [u8],
        written: usize,
    ) -> Result<(Progress, usize), DecodeError> {
        d.inflate_ring(input, window, written)
    }

    /// DEFLATE through the std crate's backend, in a zlib wrapper.
    #[cfg(feature = "alloc")]
    fn encoder(
        &self,
        _: usize,
        backends: &dyn EncodeBackends,
    ) -> Result<alloc::boxed::Box<dyn Encoder>, EncodeError> {
        backends.deflate(DeflateFraming::Zlib, self.level)
    }

    /// `level`: zlib's default, 6, when not stated; written in Zarr v2 arrays only.
    fn write_config(&self, to: ConfigFor, sink: &mut dyn ConfigSink) -> Result<(), EncodeError> {
        super::v2_only(CodecName::Zlib, to)?;
        sink.int("level", i64::from(self.level.unwrap_or(6)));
        Ok(())
    }

    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.level {
            Some(l) => write!(f, "zlib(level {l})"),
            None => f.write_str("zlib"),
        }
    }
}
