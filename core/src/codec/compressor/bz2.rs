//! numcodecs `bz2`: zinto-core has no bzip2 decoder; the std crate `zinto` plugs one in as a
//! [`Backend`](crate::codec::Backend), which decodes it wherever it appears.

use super::{CompressorCodec, FromConfig, NOT_STARTED, level, no_window};
use crate::codec::config::{Config, Reader};
use crate::codec::decoded_size::SizeProbe;
use crate::codec::decoders::Decoders;
use crate::codec::{ChainError, CodecName, DecodeError, Progress};

/// The most one byte of bzip2 decodes to, rounded up (runs of runs: about 45 899 236).
const MAX_RATIO: u64 = 45_899_236;

/// numcodecs BZ2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bz2 {
    /// Compression level (1-9), if stated.
    pub level: Option<u8>,
}

impl Bz2 {
    pub(crate) const NAMES: &'static [&'static str] = &["numcodecs.bz2"];
    pub(crate) const V2_ID: Option<&'static str> = Some("bz2");
}

impl FromConfig for Bz2 {
    fn from_config<C: Config + ?Sized>(r: &Reader<'_, C>) -> Result<Self, ChainError> {
        Ok(Self {
            level: level(r, 9)?,
        })
    }
}

impl CompressorCodec for Bz2 {
    fn max_ratio(&self) -> u64 {
        MAX_RATIO
    }

    fn moves_window(&self) -> bool {
        false
    }

    /// A backend says for itself ([`Backend::windowed`](crate::codec::Backend::windowed)).
    fn serializes_numbers(&self) -> bool {
        false
    }

    fn can_window(&self) -> bool {
        false
    }

    fn min_window(&self, _: &[u8], _: Option<u64>, _: usize) -> Result<usize, DecodeError> {
        Ok(1)
    }

    /// A bzip2 stream says nothing of its decoded size.
    fn size_probe(&self, _: u64) -> Result<SizeProbe, DecodeError> {
        Err(DecodeError::SizeUnknown {
            codec: CodecName::Bz2,
        })
    }

    fn decoded_len(&self, _: Option<&[u8]>, _: &[u8]) -> Result<u64, DecodeError> {
        Err(DecodeError::SizeUnknown {
            codec: CodecName::Bz2,
        })
    }

    #[cfg(feature = "alloc")]
    fn builtin_backend(&self) -> Option<alloc::boxed::Box<dyn crate::codec::Backend>> {
        None
    }

    fn start(&self, _: &mut Decoders, _: u64, _: usize, _: bool) -> Result<(), DecodeError> {
        Err(DecodeError::Unsupported {
            codec: CodecName::Bz2,
            what: "bz2 without a backend (the std crate `zinto` provides one)",
        })
    }

    fn decode(
        &self,
        _: &mut Decoders,
        _: &[u8],
        _: &mut [u8],
        _: usize,
    ) -> Result<Progress, DecodeError> {
        Err(NOT_STARTED)
    }

    fn decode_window(
        &self,
        _: &mut Decoders,
        _: &[u8],
        _: &mut [u8],
        _: usize,
    ) -> Result<(Progress, usize), DecodeError> {
        Err(no_window(CodecName::Bz2))
    }

    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(Self::NAMES[0])
    }
}
