//! Faster or extra implementations of codecs, plugged into zinto-core's decoders through its
//! one mechanism for it ([`Backend`]): each decodes its codec wherever it appears, as a chunk's
//! compressor and inside Blosc chunks.
//!
//! - [`CZstd`] (feature `zstd-c`, default): zstd through the C library, straight into the
//!   destination.
//! - [`Bz2`]: bzip2, which zinto-core does not decode, through the pure-Rust libbz2-rs.
//! - [`Lzma`]: numcodecs `lzma`, which zinto-core does not decode, through liblzma.
//! - [`Pcodec`]: numcodecs `pcodec`, which zinto-core does not decode, through pco.
//! - [`Zfpy`]: numcodecs `zfpy`, which zinto-core does not decode, through zfp-rs.
//! - [`ZlibRs`] (feature `zlib-rs`, default): raw DEFLATE for gzip and zlib through zlib-rs,
//!   plugged in as zinto-core's inflater ([`ChunkDecoder::set_inflater`]) rather than as a
//!   backend: zinto-core keeps reading the wrappers.

mod bz2;
mod lzma;
mod pcodec;
mod whole;
mod zfpy;
#[cfg(feature = "zlib-rs")]
mod zlib_rs;
#[cfg(feature = "zstd-c")]
mod zstd_c;

pub use bz2::Bz2;
pub use lzma::Lzma;
pub use pcodec::Pcodec;
pub use zfpy::Zfpy;
#[cfg(feature = "zlib-rs")]
pub use zlib_rs::ZlibRs;
#[cfg(feature = "zstd-c")]
pub use zstd_c::CZstd;

use zinto_core::codec::{Backend, ChunkDecoder, DecodeError};

/// Every backend this build has, each plugged into `decoder`.
///
/// # Errors
/// [`DecodeError`] if a backend cannot be created (the C zstd context).
pub fn install(decoder: &mut ChunkDecoder) -> Result<(), DecodeError> {
    let backends: Vec<Box<dyn Backend>> = vec![
        Box::new(Bz2::new()),
        Box::new(Lzma::new()),
        Box::new(Pcodec::new()),
        Box::new(Zfpy::new()),
        #[cfg(feature = "zstd-c")]
        Box::new(CZstd::new()?),
    ];
    for b in backends {
        decoder.set_backend(b);
    }
    #[cfg(feature = "zlib-rs")]
    decoder.set_inflater(ZlibRs::boxed);
    Ok(())
}
