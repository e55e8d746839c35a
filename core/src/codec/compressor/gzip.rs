//! `gzip` (RFC 1952): a DEFLATE stream in a gzip member, decoded by [`DeflateDecoder`].
//!
//! [`DeflateDecoder`]: crate::codec::DeflateDecoder

use super::SizeProbe;
use super::{CompressorCodec, FromConfig, deflate_level, head_probe};
use crate::codec::config::{Config, Reader};
use crate::codec::decoders::Decoders;
use crate::codec::deflate::{self, DeflateFormat, RING_MIN};
#[cfg(feature = "alloc")]
use crate::codec::encode::DeflateFraming;
use crate::codec::encode::{ConfigFor, ConfigSink, EncodeError};
#[cfg(feature = "alloc")]
use crate::codec::encode::{EncodeBackends, Encoder};
use crate::codec::{ChainError, CodecName, DecodeError, Progress};

/// Smallest possible gzip member: 10-byte header, 2 bytes of DEFLATE, 8-byte trailer.
const MIN_GZIP_LEN: u64 = 20;

/// RFC 1952 gzip, with its `level` if stated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gzip {
    /// Compression level (0-9), if stated (`-1`, zlib's default, is not a stated level).
    pub level: Option<u8>,
}

impl Gzip {
    pub(crate) const NAMES: &'static [&'static str] = &["gzip", "numcodecs.gzip"];
    pub(crate) const V2_ID: Option<&'static str> = Some("gzip");
}

impl FromConfig for Gzip {
    fn from_config<C: Config + ?Sized>(r: &Reader<'_, C>) -> Result<Self, ChainError> {
        Ok(Self {
            level: deflate_level(r)?,
        })
    }
}

impl CompressorCodec for Gzip {
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

    /// The first two bytes (the magic number) and the ISIZE trailer: the size modulo 2³²,
    /// so a hint the decoder verifies.
    fn size_probe(&self, payload_len: u64) -> Result<SizeProbe, DecodeError> {
        if payload_len < MIN_GZIP_LEN {
            return Err(DecodeError::Truncated {
                codec: CodecName::Gzip,
            });
        }
        Ok(SizeProbe {
            tail_offset: payload_len - 4,
            tail_len: 4,
            ..head_probe(CodecName::Gzip, payload_len, 2)?
        })
    }

    fn decoded_len(&self, head: Option<&[u8]>, tail: &[u8]) -> Result<u64, DecodeError> {
        let truncated = DecodeError::Truncated {
            codec: CodecName::Gzip,
        };
        if head.ok_or(truncated)? != [0x1f, 0x8b] {
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

    #[cfg(feature = "alloc")]
    fn builtin_backend(&self) -> Option<alloc::boxed::Box<dyn crate::codec::Backend>> {
        None
    }

    fn start(&self, d: &mut Decoders, _: u64, _: usize, _: bool) -> Result<(), DecodeError> {
        d.reset_deflate(DeflateFormat::Gzip);
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

    /// DEFLATE through the std crate's backend, in a gzip member.
    #[cfg(feature = "alloc")]
    fn encoder(
        &self,
        _: usize,
        backends: &dyn EncodeBackends,
    ) -> Result<alloc::boxed::Box<dyn Encoder>, EncodeError> {
        backends.deflate(DeflateFraming::Gzip, self.level)
    }

    /// `level`: zlib's default, 6, when not stated.
    fn write_config(&self, _: ConfigFor, sink: &mut dyn ConfigSink) -> Result<(), EncodeError> {
        sink.int("level", i64::from(self.level.unwrap_or(6)));
        Ok(())
    }

    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.level {
            Some(l) => write!(f, "gzip(level {l})"),
            None => f.write_str("gzip"),
        }
    }
}
