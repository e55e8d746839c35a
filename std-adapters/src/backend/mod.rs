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
//! - [`Encoders`]: the other direction, zinto-core's [`EncodeBackends`]: zstd from C zstd and
//!   gzip and zlib from zlib-rs, whole streams and Blosc's inner blocks.
//!
//! [`EncodeBackends`]: zinto_core::codec::EncodeBackends

mod bz2;
mod encoders;
mod lzma;
mod pcodec;
mod stepped;
mod whole;
mod zfpy;
#[cfg(feature = "zlib-rs")]
mod zlib_rs;
#[cfg(feature = "zstd-c")]
mod zstd_c;

pub use bz2::Bz2;
pub use encoders::Encoders;
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

/// What the backends' tests share: a windowed decode, fed in pieces.
#[cfg(test)]
pub(crate) mod tests {
    use zinto_core::codec::{BytesCodecs, ChunkDecoder, DecodeError, Status};

    /// The decoded size a windowed decode is started with.
    #[derive(Debug, Clone, Copy)]
    pub(crate) enum Size {
        Exact(usize),
        AtMost(usize),
    }

    /// Decodes `stored` through a window of `window` bytes, fed in pieces of `piece` bytes:
    /// the bytes produced, in order.
    pub(crate) fn drain_window(
        d: &mut ChunkDecoder,
        codecs: &BytesCodecs,
        stored: &[u8],
        size: Size,
        piece: usize,
        window: usize,
    ) -> Result<Vec<u8>, DecodeError> {
        let len = stored.len() as u64;
        match size {
            Size::Exact(n) => d.start_windowed(codecs, len, n)?,
            Size::AtMost(n) => d.start_windowed_at_most(codecs, len, n)?,
        }
        let mut ring = vec![0u8; window];
        let mut out = Vec::new();
        for p in stored.chunks(piece) {
            let mut at = 0;
            loop {
                let r = d.feed_window(&p[at..], &mut ring)?;
                at += r.consumed;
                out.extend_from_slice(&ring[r.produced]);
                match r.status {
                    Status::Done => return Ok(out),
                    Status::NeedsInput if at == p.len() => break,
                    _ => {}
                }
            }
        }
        Err(DecodeError::Truncated {
            codec: zinto_core::codec::CodecName::Bytes,
        })
    }
}
