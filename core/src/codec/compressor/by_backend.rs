//! Compressors zinto-core knows by name and configuration but does not decode: bzip2, lzma,
//! pcodec and zfp need state or code a microcontroller should not carry (a dictionary of up to
//! 64 MiB, a whole-stream decoder), so the std crate `zinto` plugs each in as a
//! [`Backend`](crate::codec::Backend). Their files state only what differs ([`ByBackend`]);
//! the answers they share, that their streams state no decoded size and that without a
//! backend they are refused by name, are written once here.

use super::SizeProbe;
use super::{CompressorCodec, NOT_STARTED, no_window};
use crate::codec::decoders::Decoders;
use crate::codec::encode::{ConfigFor, ConfigSink, EncodeError};
#[cfg(feature = "alloc")]
use crate::codec::encode::{EncodeBackends, Encoder};
use crate::codec::{CodecName, DecodeError, Progress};

fn not_written<T: ByBackend>() -> EncodeError {
    EncodeError::Unsupported {
        codec: T::CODEC,
        what: T::NOT_WRITTEN,
    }
}

/// What a compressor decoded only by a backend states of itself.
pub(crate) trait ByBackend: core::fmt::Debug {
    /// Its name, which its errors carry.
    const CODEC: CodecName;
    /// The most one stored byte decodes to, rounded up ([`CompressorCodec::max_ratio`]).
    const MAX_RATIO: u64;
    /// Whether it turns the array's numbers into bytes itself
    /// ([`CompressorCodec::serializes_numbers`]).
    const SERIALIZES_NUMBERS: bool;
    /// What is refused when no backend is plugged in (`"bz2 without a backend ..."`).
    const WITHOUT_BACKEND: &'static str;
    /// Why zinto does not write it: each file says, since every codec decoded by a backend is
    /// decoded only.
    const NOT_WRITTEN: &'static str;

    /// Its configuration as the CLI shows it.
    fn show(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result;
}

impl<T: ByBackend> CompressorCodec for T {
    fn max_ratio(&self) -> u64 {
        T::MAX_RATIO
    }

    fn moves_window(&self) -> bool {
        false
    }

    fn serializes_numbers(&self) -> bool {
        T::SERIALIZES_NUMBERS
    }

    /// A backend says for itself ([`Backend::windowed`](crate::codec::Backend::windowed)).
    fn can_window(&self) -> bool {
        false
    }

    fn min_window(&self, _: &[u8], _: Option<u64>, _: usize) -> Result<usize, DecodeError> {
        Ok(1)
    }

    /// None of these streams states its decoded size where a probe could read it.
    fn size_probe(&self, _: u64) -> Result<SizeProbe, DecodeError> {
        Err(DecodeError::SizeUnknown { codec: T::CODEC })
    }

    fn decoded_len(&self, _: Option<&[u8]>, _: &[u8]) -> Result<u64, DecodeError> {
        Err(DecodeError::SizeUnknown { codec: T::CODEC })
    }

    #[cfg(feature = "alloc")]
    fn builtin_backend(&self) -> Option<alloc::boxed::Box<dyn crate::codec::Backend>> {
        None
    }

    fn start(&self, _: &mut Decoders, _: u64, _: usize, _: bool) -> Result<(), DecodeError> {
        Err(DecodeError::Unsupported {
            codec: T::CODEC,
            what: T::WITHOUT_BACKEND,
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
        Err(no_window(T::CODEC))
    }

    #[cfg(feature = "alloc")]
    fn encoder(
        &self,
        _: usize,
        _: &dyn EncodeBackends,
    ) -> Result<alloc::boxed::Box<dyn Encoder>, EncodeError> {
        Err(not_written::<T>())
    }

    fn write_config(&self, _: ConfigFor, _: &mut dyn ConfigSink) -> Result<(), EncodeError> {
        Err(not_written::<T>())
    }

    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.show(f)
    }
}
