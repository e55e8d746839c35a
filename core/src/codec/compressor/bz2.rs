//! numcodecs `bz2`: zinto-core has no bzip2 decoder; the std crate `zinto` plugs one in as a
//! [`Backend`](crate::codec::Backend), which decodes it wherever it appears.

use super::by_backend::ByBackend;
use super::{FromConfig, level};
use crate::codec::config::{Config, Reader};
use crate::codec::{ChainError, CodecName};

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

impl ByBackend for Bz2 {
    const CODEC: CodecName = CodecName::Bz2;
    const MAX_RATIO: u64 = MAX_RATIO;
    const SERIALIZES_NUMBERS: bool = false;
    const WITHOUT_BACKEND: &'static str =
        "bz2 without a backend (the std crate `zinto` provides one)";
    /// zinto only decodes it.
    const NOT_WRITTEN: &'static str = super::DECODE_ONLY;

    fn show(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(Self::NAMES[0])
    }
}
