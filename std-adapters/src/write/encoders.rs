//! Streaming compressors for the write path, each over a caller's output window: input
//! piece by piece, compressed bytes into the window, with the read path's statuses
//! ([`Status::NeedsInput`], [`Status::NeedsOutput`], [`Status::Done`]).
//!
//! zstd comes from C zstd (the `zstd-c` feature) and gzip and zlib from zlib-rs (the
//! `zlib-rs` feature): both compress as fast as anything zinto could write, and both write
//! their output straight into the window. Without the feature, the compressor is refused by
//! name when a write begins (there is no pure-Rust encoder yet). Blosc is `blosc.rs`,
//! numcodecs' LZ4 `lz4.rs`; what every encoder is, `encode.rs`.

use zinto_core::codec::Compressor;

use super::encode::{Encode, EncodeError};

/// The encoder of `compressor`, or why this build has none. Every compressor is named: a new
/// one does not build until it is written here or refused.
pub(crate) fn encoder(
    compressor: &Compressor,
    elem: usize,
) -> Result<Box<dyn Encode>, EncodeError> {
    let refused = |why: &str| Err(EncodeError::Unsupported(format!("{compressor}: {why}")));
    match compressor {
        Compressor::Blosc(config) => Ok(Box::new(super::blosc::BloscEncode::new(config, elem)?)),
        #[cfg(feature = "zstd-c")]
        Compressor::Zstd(z) => Ok(Box::new(zstd::ZstdEncode::new(
            z.level.unwrap_or(0),
            z.checksum,
        )?)),
        #[cfg(feature = "zlib-rs")]
        Compressor::Gzip(g) => Ok(Box::new(deflate::DeflateEncode::gzip(g.level))),
        #[cfg(feature = "zlib-rs")]
        Compressor::Zlib(z) => Ok(Box::new(deflate::DeflateEncode::zlib(z.level))),
        #[cfg(not(feature = "zstd-c"))]
        Compressor::Zstd(_) => refused("this build has no zstd encoder (the zstd-c feature)"),
        #[cfg(not(feature = "zlib-rs"))]
        Compressor::Gzip(_) | Compressor::Zlib(_) => {
            refused("this build has no DEFLATE encoder (the zlib-rs feature)")
        }
        Compressor::Lz4(_) => Ok(Box::new(super::lz4::Lz4Encode::new())),
        Compressor::Bz2(_)
        | Compressor::Lzma(_)
        | Compressor::Pcodec(_)
        | Compressor::Zfpy(_)
        | Compressor::Base64(_) => {
            refused("zinto reads it, and writes zstd, gzip, zlib, lz4 and blosc")
        }
        // A compressor added to zinto-core after this list (the enum is non-exhaustive).
        _ => refused("not a compressor zinto writes"),
    }
}

#[cfg(feature = "zstd-c")]
mod zstd {
    use super::super::encode::status;
    use super::{Encode, EncodeError};
    use zinto_core::codec::Progress;
    use zstd_safe::{
        CCtx, CParameter, InBuffer, OutBuffer, ResetDirective, zstd_sys::ZSTD_EndDirective,
    };

    /// C zstd's streaming compressor, one context reused for every chunk.
    pub(super) struct ZstdEncode {
        cctx: CCtx<'static>,
    }

    // A `CCtx` is owned by one worker at a time; zstd's contexts may move between threads.
    fn lib(code: usize) -> EncodeError {
        EncodeError::Library(zstd_safe::get_error_name(code).to_owned())
    }

    impl ZstdEncode {
        pub(super) fn new(level: i32, checksum: bool) -> Result<Self, EncodeError> {
            let mut cctx = CCtx::try_create()
                .ok_or(EncodeError::Library("no memory for a zstd context".into()))?;
            cctx.set_parameter(CParameter::CompressionLevel(level))
                .map_err(lib)?;
            cctx.set_parameter(CParameter::ChecksumFlag(checksum))
                .map_err(lib)?;
            Ok(Self { cctx })
        }
    }

    impl Encode for ZstdEncode {
        fn begin(&mut self, len: u64) -> Result<usize, EncodeError> {
            self.cctx.reset(ResetDirective::SessionOnly).map_err(lib)?;
            // The frame then states its decoded size, as numcodecs' frames do.
            self.cctx
                .set_pledged_src_size(Some(len))
                .map(|_| 0)
                .map_err(lib)
        }

        fn head(&self) -> &[u8] {
            &[]
        }

        fn whole_input(&self) -> bool {
            false
        }

        fn encode(
            &mut self,
            input: &[u8],
            out: &mut [u8],
            last: bool,
        ) -> Result<Progress, EncodeError> {
            let mut inb = InBuffer::around(input);
            let mut outb = OutBuffer::around(out);
            let directive = if last {
                ZSTD_EndDirective::ZSTD_e_end
            } else {
                ZSTD_EndDirective::ZSTD_e_continue
            };
            let left = self
                .cctx
                .compress_stream2(&mut outb, &mut inb, directive)
                .map_err(lib)?;
            let (consumed, written) = (inb.pos(), outb.pos());
            let done = last && left == 0 && consumed == input.len();
            Ok(Progress {
                consumed,
                written,
                status: status(done, written, out.len()),
            })
        }
    }
}

#[cfg(feature = "zlib-rs")]
mod deflate {
    use super::super::encode::status;
    use super::{Encode, EncodeError};
    use flate2::{Compress, Compression, FlushCompress};
    use zinto_core::codec::Progress;
    use zinto_core::codec::{CRC32, Crc32};

    /// gzip's header as numcodecs writes it (no name, mtime 0) but for the OS byte (255,
    /// "unknown"); decoders ignore both.
    const GZIP_HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];

    /// zlib-rs' DEFLATE, raw inside gzip's framing (written here) or with zlib's own.
    pub(super) struct DeflateEncode {
        inner: Compress,
        /// gzip: the CRC-32 and length of what went in, for the trailer.
        gzip: Option<(Crc32, u32)>,
        /// Framing bytes still to go out (the header, or the trailer), and how many went.
        pending: ([u8; 10], usize, usize),
        /// The deflate stream ended (the trailer may still be pending).
        ended: bool,
    }

    impl DeflateEncode {
        fn level(level: Option<u8>) -> Compression {
            // zlib's default, as numcodecs' `-1`.
            level.map_or(Compression::default(), |l| Compression::new(u32::from(l)))
        }

        pub(super) fn gzip(level: Option<u8>) -> Self {
            let level = Self::level(level);
            Self {
                inner: Compress::new(level, false),
                gzip: Some((Crc32::new(&CRC32), 0)),
                pending: ([0; 10], 0, 0),
                ended: false,
            }
        }

        pub(super) fn zlib(level: Option<u8>) -> Self {
            let level = Self::level(level);
            Self {
                inner: Compress::new(level, true),
                gzip: None,
                pending: ([0; 10], 0, 0),
                ended: false,
            }
        }

        /// Copies pending framing bytes into `out`; how many.
        fn drain(&mut self, out: &mut [u8]) -> usize {
            let (bytes, at, end) = &mut self.pending;
            let n = (*end - *at).min(out.len());
            out[..n].copy_from_slice(&bytes[*at..*at + n]);
            *at += n;
            n
        }
    }

    impl Encode for DeflateEncode {
        fn begin(&mut self, _len: u64) -> Result<usize, EncodeError> {
            self.inner.reset();
            self.ended = false;
            self.pending = ([0; 10], 0, 0);
            if let Some(sum) = &mut self.gzip {
                *sum = (Crc32::new(&CRC32), 0);
                self.pending = (GZIP_HEADER, 0, GZIP_HEADER.len());
            }
            Ok(0)
        }

        fn head(&self) -> &[u8] {
            &[]
        }

        fn whole_input(&self) -> bool {
            false
        }

        fn encode(
            &mut self,
            input: &[u8],
            out: &mut [u8],
            last: bool,
        ) -> Result<Progress, EncodeError> {
            let mut written = self.drain(out);
            let mut consumed = 0;
            if !self.ended && written < out.len() {
                let (before_in, before_out) = (self.inner.total_in(), self.inner.total_out());
                let flush = if last {
                    FlushCompress::Finish
                } else {
                    FlushCompress::None
                };
                let s = self
                    .inner
                    .compress(input, &mut out[written..], flush)
                    .map_err(|e| EncodeError::Library(e.to_string()))?;
                // Bounded by `input` and `out`, which are slices.
                consumed =
                    usize::try_from(self.inner.total_in() - before_in).unwrap_or(input.len());
                written += usize::try_from(self.inner.total_out() - before_out).unwrap_or(0);
                if let Some((crc, len)) = &mut self.gzip {
                    crc.update(&input[..consumed]);
                    // ISIZE is the length modulo 2^32 (RFC 1952).
                    #[allow(clippy::cast_possible_truncation)]
                    {
                        *len = len.wrapping_add(consumed as u32);
                    }
                }
                if s == flate2::Status::StreamEnd {
                    self.ended = true;
                    if let Some((crc, len)) = &self.gzip {
                        let mut trailer = [0u8; 10];
                        trailer[..4].copy_from_slice(&crc.value().to_le_bytes());
                        trailer[4..8].copy_from_slice(&len.to_le_bytes());
                        self.pending = (trailer, 0, 8);
                    }
                    written += self.drain(&mut out[written..]);
                }
            }
            let (_, at, end) = self.pending;
            let done = self.ended && at == end;
            Ok(Progress {
                consumed,
                written,
                status: status(done, written, out.len()),
            })
        }
    }
}
