//! The encoders the std crate plugs into zinto-core ([`Encoders`], its
//! [`EncodeBackends`]): zstd from C zstd (feature `zstd-c`), gzip and zlib from zlib-rs
//! (feature `zlib-rs`), as whole streams and as Blosc's inner compressors. Both compress as
//! fast as anything zinto could write and write straight into the caller's window. A build
//! without a feature refuses that codec by name when a write begins. Every other encoder is in
//! its codec's file in zinto-core.

#[cfg(not(all(feature = "zstd-c", feature = "zlib-rs")))]
use zinto_core::codec::CodecName;
use zinto_core::codec::encode::{BlockCompress, DeflateFraming};
use zinto_core::codec::{EncodeBackends, EncodeError, Encoder};

/// The encoders of this build.
#[derive(Debug, Clone, Copy, Default)]
pub struct Encoders;

#[cfg(not(feature = "zstd-c"))]
const NO_ZSTD: EncodeError = EncodeError::Unsupported {
    codec: CodecName::Zstd,
    what: "this build has no zstd encoder (the zstd-c feature)",
};

#[cfg(not(feature = "zlib-rs"))]
const NO_DEFLATE: EncodeError = EncodeError::Unsupported {
    codec: CodecName::Zlib,
    what: "this build has no DEFLATE encoder (the zlib-rs feature)",
};

impl EncodeBackends for Encoders {
    fn zstd(&self, level: i32, checksum: bool) -> Result<Box<dyn Encoder>, EncodeError> {
        #[cfg(feature = "zstd-c")]
        return Ok(Box::new(zstd::ZstdEncode::new(level, checksum)?));
        #[cfg(not(feature = "zstd-c"))]
        {
            let _ = (level, checksum);
            Err(NO_ZSTD)
        }
    }

    fn deflate(
        &self,
        framing: DeflateFraming,
        level: Option<u8>,
    ) -> Result<Box<dyn Encoder>, EncodeError> {
        #[cfg(feature = "zlib-rs")]
        return Ok(Box::new(match framing {
            DeflateFraming::Gzip => deflate::DeflateEncode::gzip(level),
            DeflateFraming::Zlib => deflate::DeflateEncode::zlib(level),
        }));
        #[cfg(not(feature = "zlib-rs"))]
        {
            let _ = (framing, level);
            Err(NO_DEFLATE)
        }
    }

    fn zstd_block(&self, level: i32) -> Result<Box<dyn BlockCompress>, EncodeError> {
        #[cfg(feature = "zstd-c")]
        return Ok(Box::new(zstd::ZstdBlock::new(level)?));
        #[cfg(not(feature = "zstd-c"))]
        {
            let _ = level;
            Err(NO_ZSTD)
        }
    }

    fn zlib_block(&self, level: u8) -> Result<Box<dyn BlockCompress>, EncodeError> {
        #[cfg(feature = "zlib-rs")]
        return Ok(Box::new(deflate::ZlibBlock(flate2::Compression::new(
            u32::from(level),
        ))));
        #[cfg(not(feature = "zlib-rs"))]
        {
            let _ = level;
            Err(NO_DEFLATE)
        }
    }

    fn zstd_max_level(&self) -> i32 {
        #[cfg(feature = "zstd-c")]
        return zstd_safe::max_c_level();
        // Without zstd, nothing asks.
        #[cfg(not(feature = "zstd-c"))]
        22
    }
}

#[cfg(feature = "zstd-c")]
mod zstd {
    use super::{BlockCompress, EncodeError, Encoder};
    use zinto_core::codec::encode::status;
    use zinto_core::codec::{CodecName, Progress};
    use zstd_safe::{
        CCtx, CParameter, InBuffer, OutBuffer, ResetDirective, zstd_sys::ZSTD_EndDirective,
    };

    /// C zstd's streaming compressor, one context reused for every chunk.
    pub(super) struct ZstdEncode {
        cctx: CCtx<'static>,
    }

    fn lib(code: usize) -> EncodeError {
        EncodeError::Library {
            codec: CodecName::Zstd,
            what: zstd_safe::get_error_name(code),
        }
    }

    fn context() -> Result<CCtx<'static>, EncodeError> {
        CCtx::try_create().ok_or(EncodeError::Library {
            codec: CodecName::Zstd,
            what: "no memory for a zstd context",
        })
    }

    /// One Blosc block at a time, whole, by one context at one level.
    pub(super) struct ZstdBlock {
        pub(super) cctx: CCtx<'static>,
        pub(super) level: i32,
    }

    impl ZstdBlock {
        pub(super) fn new(level: i32) -> Result<Self, EncodeError> {
            Ok(Self {
                cctx: context()?,
                level,
            })
        }
    }

    impl BlockCompress for ZstdBlock {
        fn compress(&mut self, src: &[u8], dst: &mut [u8]) -> Option<usize> {
            self.cctx.compress(dst, src, self.level).ok()
        }
    }

    impl ZstdEncode {
        pub(super) fn new(level: i32, checksum: bool) -> Result<Self, EncodeError> {
            let mut cctx = context()?;
            cctx.set_parameter(CParameter::CompressionLevel(level))
                .map_err(lib)?;
            cctx.set_parameter(CParameter::ChecksumFlag(checksum))
                .map_err(lib)?;
            Ok(Self { cctx })
        }
    }

    impl Encoder for ZstdEncode {
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
    use super::{BlockCompress, EncodeError, Encoder};
    use flate2::{Compress, Compression, FlushCompress};
    use zinto_core::codec::encode::status;
    use zinto_core::codec::{CRC32, CodecName, Crc32, Progress};

    /// One Blosc block at a time, whole, in a zlib stream at one level.
    pub(super) struct ZlibBlock(pub(super) Compression);

    impl BlockCompress for ZlibBlock {
        fn compress(&mut self, src: &[u8], dst: &mut [u8]) -> Option<usize> {
            let mut z = Compress::new(self.0, true);
            match z.compress(src, dst, FlushCompress::Finish) {
                Ok(flate2::Status::StreamEnd) => usize::try_from(z.total_out()).ok(),
                _ => None,
            }
        }
    }

    /// gzip's header as numcodecs writes it (no name, mtime 0) but for the OS byte (255,
    /// "unknown"); decoders ignore both.
    const GZIP_HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];

    /// zlib-rs' DEFLATE, raw inside gzip's framing (written here) or with zlib's own.
    pub(super) struct DeflateEncode {
        inner: Compress,
        codec: CodecName,
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
                codec: CodecName::Gzip,
                gzip: Some((Crc32::new(&CRC32), 0)),
                pending: ([0; 10], 0, 0),
                ended: false,
            }
        }

        pub(super) fn zlib(level: Option<u8>) -> Self {
            let level = Self::level(level);
            Self {
                inner: Compress::new(level, true),
                codec: CodecName::Zlib,
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

    impl Encoder for DeflateEncode {
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
                    .map_err(|_| EncodeError::Library {
                        codec: self.codec,
                        what: "zlib-rs refused the stream",
                    })?;
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
