//! What a [`Compressor`] (the registry's enum of every compressor) answers, each answer its
//! codec's own file's ([`CompressorCodec`]).

use crate::codec::compressor::{CompressorCodec, Gzip, Zlib, Zstd};
use crate::codec::encode::{ConfigFor, ConfigSink, EncodeError};
#[cfg(feature = "alloc")]
use crate::codec::encode::{EncodeBackends, Encoder};

use super::Compressor;

impl Compressor {
    /// gzip without a stated level.
    pub const GZIP: Self = Self::Gzip(Gzip { level: None });
    /// zlib without a stated level.
    pub const ZLIB: Self = Self::Zlib(Zlib { level: None });
    /// zstd without a stated level or checksum.
    pub const ZSTD: Self = Self::Zstd(Zstd {
        level: None,
        checksum: false,
    });

    /// Whether its own decoder, used on its own ([`BloscDecoder`](crate::codec::BloscDecoder)), can
    /// go on in a new destination window after reporting
    /// [`Status::NeedsOutput`](crate::codec::Status::NeedsOutput): Blosc's blocks are independent, so a
    /// window must hold just one. The stream compressors refer back into what they wrote; they
    /// decode through a window only by way of
    /// [`ChunkDecoder::start_windowed`](crate::codec::ChunkDecoder::start_windowed), which keeps
    /// their window (DEFLATE's in a ring the caller passes, zstd's in the decoder).
    pub fn moves_window(&self) -> bool {
        self.codec().moves_window()
    }

    /// The most one stored byte of this compressor decodes to (DEFLATE about 1032, zstd and
    /// Blosc 32 768, LZ4 256, bzip2 45 899 236): a chunk stored in `n` bytes that metadata
    /// says decodes to more than `n * max_ratio()` (plus a little for headers) is refused
    /// before anything is allocated for it.
    pub fn max_ratio(&self) -> u64 {
        self.codec().max_ratio()
    }

    /// Whether it turns the array's numbers into bytes itself (pcodec), and so may stand as a
    /// v3 chain's array-to-bytes codec.
    pub fn serializes_numbers(&self) -> bool {
        self.codec().serializes_numbers()
    }
}

impl Compressor {
    /// Its encoder for elements of `elem` bytes (Blosc's typesize unless it states one), its
    /// own or one of `backends`'.
    ///
    /// # Errors
    /// [`EncodeError::Unsupported`] for a codec zinto only decodes, a configuration it does
    /// not write (Blosc with Snappy inside), or a backend this build lacks.
    #[cfg(feature = "alloc")]
    pub fn encoder(
        &self,
        elem: usize,
        backends: &dyn EncodeBackends,
    ) -> Result<alloc::boxed::Box<dyn Encoder>, EncodeError> {
        self.codec().encoder(elem, backends)
    }

    /// Writes its configuration's keys for the metadata `to` names into `sink` (its name or
    /// id is [`CodecName::name`](crate::codec::CodecName::name) or
    /// [`CodecName::v2_id`](crate::codec::CodecName::v2_id)).
    ///
    /// # Errors
    /// [`EncodeError::Unsupported`] where zinto does not write it in that metadata.
    pub fn write_config(
        &self,
        to: ConfigFor,
        sink: &mut dyn ConfigSink,
    ) -> Result<(), EncodeError> {
        self.codec().write_config(to, sink)
    }
}

impl core::fmt::Display for Compressor {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        CompressorCodec::fmt(self.codec(), f)
    }
}
