//! `blosc` (the c-blosc 1.x chunk format), decoded block by block by
//! [`BloscDecoder`](crate::codec::BloscDecoder) and encoded by
//! [`BloscEncoder`](crate::codec::blosc::BloscEncoder) (`codec/blosc/`); its configuration is
//! [`BloscConfig`].

use super::SizeProbe;
use super::{CompressorCodec, FromConfig, NOT_STARTED, four_bytes, head_probe};
#[cfg(feature = "alloc")]
use crate::codec::blosc::BloscEncoder;
use crate::codec::blosc::{BloscCname, BloscShuffle};
use crate::codec::blosc::{BloscConfig, BloscHeader, HEADER_LEN};
use crate::codec::config::{Config, Reader};
use crate::codec::decoders::Decoders;
use crate::codec::encode::{ConfigFor, ConfigSink, EncodeError, ZarrVersion};
#[cfg(feature = "alloc")]
use crate::codec::encode::{EncodeBackends, Encoder};
use crate::codec::error::SIZE_NOT_USIZE;
use crate::codec::{ChainError, CodecName, DecodeError, Progress};

impl BloscConfig {
    pub(crate) const NAMES: &'static [&'static str] = &["blosc", "numcodecs.blosc"];
    pub(crate) const V2_ID: Option<&'static str> = Some("blosc");
}

impl FromConfig for BloscConfig {
    fn from_config<C: Config + ?Sized>(r: &Reader<'_, C>) -> Result<Self, ChainError> {
        BloscConfig::from_config(r)
    }
}

impl CompressorCodec for BloscConfig {
    /// Its inner zstd's.
    fn max_ratio(&self) -> u64 {
        super::zstd::MAX_RATIO
    }

    /// Blocks are independent: a window must hold just one.
    fn moves_window(&self) -> bool {
        true
    }

    fn serializes_numbers(&self) -> bool {
        false
    }

    fn can_window(&self) -> bool {
        cfg!(feature = "alloc")
    }

    /// One block, as the header (the first 16 bytes of `head`) says.
    fn min_window(
        &self,
        head: &[u8],
        payload_len: Option<u64>,
        decoded_len: usize,
    ) -> Result<usize, DecodeError> {
        let truncated = DecodeError::Truncated {
            codec: CodecName::Blosc,
        };
        let header: &[u8; HEADER_LEN] = head
            .get(..HEADER_LEN)
            .and_then(|h| h.try_into().ok())
            .ok_or(truncated)?;
        let payload_len = payload_len.ok_or(truncated)?;
        let h = BloscHeader::parse(header, payload_len, decoded_len as u64)?;
        // A chunk of no bytes is not checked past its sizes: its block size says nothing.
        Ok(usize::try_from(h.blocksize.min(h.nbytes))
            .map_err(|_| SIZE_NOT_USIZE)?
            .max(1))
    }

    /// The header's `nbytes`.
    fn size_probe(&self, payload_len: u64) -> Result<SizeProbe, DecodeError> {
        head_probe(CodecName::Blosc, payload_len, HEADER_LEN)
    }

    fn decoded_len(&self, head: Option<&[u8]>, _: &[u8]) -> Result<u64, DecodeError> {
        Ok(u64::from(u32::from_le_bytes(four_bytes(
            CodecName::Blosc,
            head,
            4,
        )?)))
    }

    #[cfg(feature = "alloc")]
    fn builtin_backend(&self) -> Option<alloc::boxed::Box<dyn crate::codec::Backend>> {
        None
    }

    fn start(
        &self,
        d: &mut Decoders,
        encoded_len: u64,
        decoded_len: usize,
        _: bool,
    ) -> Result<(), DecodeError> {
        #[cfg(feature = "alloc")]
        {
            d.blosc().start(encoded_len, decoded_len as u64);
            Ok(())
        }
        #[cfg(not(feature = "alloc"))]
        {
            let _ = (d, encoded_len, decoded_len);
            Err(super::without_alloc(CodecName::Blosc))
        }
    }

    fn decode(
        &self,
        d: &mut Decoders,
        input: &[u8],
        dst: &mut [u8],
        pos: usize,
    ) -> Result<Progress, DecodeError> {
        #[cfg(feature = "alloc")]
        {
            let (blosc, mut inner) = d.blosc_and_inner().ok_or(NOT_STARTED)?;
            blosc.decode(input, dst, pos, &mut inner)
        }
        #[cfg(not(feature = "alloc"))]
        {
            let _ = (d, input, dst, pos);
            Err(NOT_STARTED)
        }
    }

    /// A block part-decoded is staged in the window after what was produced, so the window
    /// moves on only at a block's edge (after [`Status::NeedsOutput`]).
    ///
    /// [`Status::NeedsOutput`]: crate::codec::Status::NeedsOutput
    fn decode_window(
        &self,
        d: &mut Decoders,
        input: &[u8],
        window: &mut [u8],
        _: usize,
    ) -> Result<(Progress, usize), DecodeError> {
        #[cfg(feature = "alloc")]
        {
            let at = d.window_at;
            let (blosc, mut inner) = d.blosc_and_inner().ok_or(NOT_STARTED)?;
            let p = blosc.decode(input, window, at, &mut inner)?;
            d.window_at = if p.status == crate::codec::Status::NeedsOutput {
                0
            } else {
                at + p.written
            };
            Ok((p, at))
        }
        #[cfg(not(feature = "alloc"))]
        {
            let _ = (d, input, window);
            Err(NOT_STARTED)
        }
    }

    /// [`BloscEncoder`], its zstd and zlib from the backends.
    #[cfg(feature = "alloc")]
    fn encoder(
        &self,
        elem: usize,
        backends: &dyn EncodeBackends,
    ) -> Result<alloc::boxed::Box<dyn Encoder>, EncodeError> {
        Ok(alloc::boxed::Box::new(BloscEncoder::new(
            self, elem, backends,
        )?))
    }

    /// `cname` (lz4), `clevel` (5), `blocksize` (0: the writer's choice) and `shuffle`
    /// (byte), each as stated or as numcodecs' default. v2 numbers the shuffle (-1 for
    /// numcodecs' automatic choice); v3 names it, the automatic one as the shuffle it picks for
    /// the element size, and states the element size as `typesize` (over 255 bytes too, as
    /// zarr-python does; c-blosc then shuffles bytes).
    fn write_config(&self, to: ConfigFor, sink: &mut dyn ConfigSink) -> Result<(), EncodeError> {
        sink.str("cname", self.cname.unwrap_or(BloscCname::Lz4).name());
        sink.int("clevel", i64::from(self.clevel.unwrap_or(5)));
        let blocksize =
            i64::try_from(self.blocksize.unwrap_or(0)).map_err(|_| EncodeError::Unsupported {
                codec: CodecName::Blosc,
                what: "a block size over 2^63 bytes",
            })?;
        sink.int("blocksize", blocksize);
        let shuffle = self.shuffle.unwrap_or(BloscShuffle::Shuffle);
        match to.version {
            ZarrVersion::V2 => sink.int(
                "shuffle",
                match shuffle {
                    BloscShuffle::NoShuffle => 0,
                    BloscShuffle::Shuffle => 1,
                    BloscShuffle::BitShuffle => 2,
                    BloscShuffle::Auto => -1,
                },
            ),
            ZarrVersion::V3 => {
                if to.elem_size == 0 {
                    return Err(EncodeError::Unsupported {
                        codec: CodecName::Blosc,
                        what: "in a Zarr v3 array of variable-length elements (its typesize \
                               is an element's size)",
                    });
                }
                let name = match shuffle {
                    BloscShuffle::NoShuffle => "noshuffle",
                    BloscShuffle::Auto if to.elem_size == 1 => "bitshuffle",
                    BloscShuffle::Shuffle | BloscShuffle::Auto => "shuffle",
                    BloscShuffle::BitShuffle => "bitshuffle",
                };
                sink.str("shuffle", name);
                sink.int("typesize", i64::try_from(to.elem_size).unwrap_or(i64::MAX));
            }
        }
        Ok(())
    }

    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "blosc({self})")
    }
}
