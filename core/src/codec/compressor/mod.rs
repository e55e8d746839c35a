//! The bytes-to-bytes compressors: one file each, and the trait each file implements.
//!
//! A compressor's file holds everything zinto knows of it: its names (v3 name and aliases,
//! v2 id), reading its configuration ([`FromConfig`]), its facts (can its decoder move a
//! window, the smallest window, the largest expansion ratio, how to probe its decoded size)
//! and its decoder, whole and windowed ([`CompressorCodec`]). The list of compressors is
//! `codec/registry.rs`; the chain, the chunk decoder, the std reader and the metadata parser
//! ask a [`Compressor`] through this trait and know no compressor by name.
//!
//! The write path adds the encoder beside the decoder in each file (`start_encode`,
//! `encode`, with the same [`Status`](super::Status) values).

mod base64;
mod blosc;
mod by_backend;
mod bz2;
mod gzip;
mod lz4;
mod lzma;
mod pcodec;
mod zfpy;
mod zlib;
mod zstd;

pub use base64::Base64;
pub use bz2::Bz2;
pub use gzip::Gzip;
pub use lz4::{Lz4, Lz4ChunkEncoder};
pub use lzma::{LZMA_MAX_DICT_SIZE, Lzma, LzmaFormat, LzmaRawFilter};
pub use pcodec::Pcodec;
pub use zfpy::Zfpy;
pub use zlib::Zlib;
pub use zstd::Zstd;

use super::config::{Config, Reader};
use super::decoders::Decoders;
pub(crate) use super::decoders::NOT_STARTED;
use super::encode::{ConfigFor, ConfigSink, EncodeError, ZarrVersion};
#[cfg(feature = "alloc")]
use super::encode::{EncodeBackends, Encoder};
use super::{ChainError, CodecName, DecodeError, Progress};

/// Reads a compressor's configuration (the keys it knows; absent keys are `None`).
pub(crate) trait FromConfig: Sized {
    /// The configuration `r` holds, checked.
    fn from_config<C: Config + ?Sized>(r: &Reader<'_, C>) -> Result<Self, ChainError>;
}

/// What each compressor's file answers. Every method is required: a new codec states each
/// fact, or does not build.
pub(crate) trait CompressorCodec: core::fmt::Debug {
    /// The most one stored byte can decode to, rounded up: the reader refuses a chunk whose
    /// stored size cannot hold what metadata claims before it allocates for it.
    fn max_ratio(&self) -> u64;

    /// Whether its own decoder, used on its own, goes on in a new destination window after
    /// [`Status::NeedsOutput`](super::Status::NeedsOutput) (see [`Compressor::moves_window`]).
    fn moves_window(&self) -> bool;

    /// Whether it turns the array's numbers into bytes itself (pcodec): in a v3 chain it may
    /// then stand where the array-to-bytes codec does (as numcodecs.zarr3 registers it), its
    /// numbers in the machine's byte order.
    fn serializes_numbers(&self) -> bool;

    /// Whether zinto-core's own decoder decodes it through a window
    /// ([`ChunkDecoder::start_windowed`](super::ChunkDecoder::start_windowed)).
    fn can_window(&self) -> bool;

    /// The smallest window its windowed decoder takes, for a payload that begins with `head`,
    /// of `payload_len` bytes (`None` if the stored chunk is shorter than its checksums), that
    /// decodes to `decoded_len` bytes.
    fn min_window(
        &self,
        head: &[u8],
        payload_len: Option<u64>,
        decoded_len: usize,
    ) -> Result<usize, DecodeError>;

    /// Which bytes of a payload of `payload_len` bytes tell its decoded size, counted from the
    /// payload's start; [`DecodeError::SizeUnknown`] if the stream does not say.
    fn size_probe(&self, payload_len: u64) -> Result<SizeProbe, DecodeError>;

    /// The decoded size, from the `head` and `tail` bytes [`CompressorCodec::size_probe`]
    /// names (`head` is `None` if fewer bytes were given than it asks).
    fn decoded_len(&self, head: Option<&[u8]>, tail: &[u8]) -> Result<u64, DecodeError>;

    /// zinto-core's own decoder of it as a [`Backend`](super::Backend), where it decodes this
    /// codec through that trait as the std crate's backends do (zstd's ruzstd); `None` where
    /// the methods below decode it.
    #[cfg(feature = "alloc")]
    fn builtin_backend(&self) -> Option<alloc::boxed::Box<dyn super::Backend>>;

    /// Starts a stream of `encoded_len` bytes that decodes to `decoded_len` bytes, into a
    /// whole destination or (`windowed`) through a window.
    fn start(
        &self,
        d: &mut Decoders,
        encoded_len: u64,
        decoded_len: usize,
        windowed: bool,
    ) -> Result<(), DecodeError>;

    /// Decodes the next piece of the stream into `dst[pos..]`.
    fn decode(
        &self,
        d: &mut Decoders,
        input: &[u8],
        dst: &mut [u8],
        pos: usize,
    ) -> Result<Progress, DecodeError>;

    /// Decodes the next piece of a windowed stream into `window`, of which `written` bytes
    /// were decoded before; returns the progress and where in `window` the new bytes start.
    fn decode_window(
        &self,
        d: &mut Decoders,
        input: &[u8],
        window: &mut [u8],
        written: usize,
    ) -> Result<(Progress, usize), DecodeError>;

    /// Its encoder, for elements of `elem` bytes, from its own file or from `backends`; or
    /// why zinto does not write it (a codec it only decodes says so).
    #[cfg(feature = "alloc")]
    fn encoder(
        &self,
        elem: usize,
        backends: &dyn EncodeBackends,
    ) -> Result<alloc::boxed::Box<dyn Encoder>, EncodeError>;

    /// Writes its configuration for metadata as `to` says (the keys only: the registry names
    /// it), or says why zinto does not write it there.
    fn write_config(&self, to: ConfigFor, sink: &mut dyn ConfigSink) -> Result<(), EncodeError>;

    /// Its configuration as the CLI shows it (`zstd(level 3)`).
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result;
}

/// The bytes of a stored chunk that [`decoded_len`](crate::codec::decoded_len) needs: `head_len` bytes from the start and
/// `tail_len` bytes from `tail_offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SizeProbe {
    /// How many bytes from the start of the stored chunk.
    pub head_len: usize,
    /// Where the tail starts in the stored chunk.
    pub tail_offset: u64,
    /// How many bytes from `tail_offset`.
    pub tail_len: usize,
}

/// A level in `0..=max`, if stated.
pub(crate) fn level<C: Config + ?Sized>(
    r: &Reader<'_, C>,
    max: i64,
) -> Result<Option<u8>, ChainError> {
    // In range 0..=max (at most 9), so it fits a u8.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Ok(r.int_in("level", 0, max)?.map(|l| l as u8))
}

/// A DEFLATE `level` (gzip, zlib): 0 to 9, or -1, zlib's `Z_DEFAULT_COMPRESSION`, which
/// numcodecs writes for "the library's default" and which reads as no stated level.
pub(crate) fn deflate_level<C: Config + ?Sized>(
    r: &Reader<'_, C>,
) -> Result<Option<u8>, ChainError> {
    match r.int_in("level", -1, 9)? {
        Some(-1) | None => Ok(None),
        Some(_) => level(r, 9),
    }
}

/// An `i32` setting, if stated.
pub(crate) fn int32<C: Config + ?Sized>(
    r: &Reader<'_, C>,
    key: &'static str,
) -> Result<Option<i32>, ChainError> {
    // In i32 range.
    #[allow(clippy::cast_possible_truncation)]
    Ok(r.int_in(key, i64::from(i32::MIN), i64::from(i32::MAX))?
        .map(|l| l as i32))
}

/// A size probe of the first `len` bytes of a payload of `payload_len`, or `Truncated`.
pub(crate) fn head_probe(
    codec: CodecName,
    payload_len: u64,
    len: usize,
) -> Result<SizeProbe, DecodeError> {
    if payload_len < len as u64 {
        return Err(DecodeError::Truncated { codec });
    }
    Ok(SizeProbe {
        head_len: len,
        tail_offset: 0,
        tail_len: 0,
    })
}

/// The first four bytes of `head` as a little-endian `u32`'s bytes, or `Truncated`.
pub(crate) fn four_bytes(
    codec: CodecName,
    head: Option<&[u8]>,
    at: usize,
) -> Result<[u8; 4], DecodeError> {
    head.and_then(|h| h.get(at..at.checked_add(4)?))
        .and_then(|b| b.try_into().ok())
        .ok_or(DecodeError::Truncated { codec })
}

/// For a codec that is started whole only, the error a window asks get.
pub(crate) fn no_window(codec: CodecName) -> DecodeError {
    DecodeError::Unsupported {
        codec,
        what: "decoding through a window",
    }
}

/// A codec that zinto-core decodes only with the `alloc` feature, asked to start without it.
#[cfg_attr(feature = "alloc", allow(dead_code))]
pub(crate) fn without_alloc(codec: CodecName) -> DecodeError {
    DecodeError::Unsupported {
        codec,
        what: "this codec through ChunkDecoder without the `alloc` feature",
    }
}

/// What a codec that zinto only decodes answers when asked to encode or to be written.
pub(crate) fn decode_only(codec: CodecName) -> EncodeError {
    EncodeError::Unsupported {
        codec,
        what: DECODE_ONLY,
    }
}

/// Why a codec zinto only decodes is not written.
pub(crate) const DECODE_ONLY: &str =
    "zinto only decodes it (it writes zstd, gzip, zlib, lz4 and blosc)";

/// What a codec that zinto writes only in Zarr v2 metadata answers for v3.
pub(crate) fn v2_only(codec: CodecName, to: ConfigFor) -> Result<(), EncodeError> {
    match to.version {
        ZarrVersion::V2 => Ok(()),
        ZarrVersion::V3 => Err(EncodeError::Unsupported {
            codec,
            what: "in a Zarr v3 array (zinto writes it in v2 arrays; v3 arrays take zstd, gzip \
                   or blosc)",
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Compressor;
    use crate::codec::NoConfig;
    use crate::codec::registry::TABLE;

    /// Walks the registry: every codec's names find it again, and every compressor reads an
    /// empty configuration and states each of its facts.
    #[test]
    fn every_codec_in_the_registry_is_named_and_states_its_facts() {
        let mut compressors = 0;
        for &(codec, names, v2) in TABLE {
            assert!(!names.is_empty(), "{codec:?} has no name");
            for n in names {
                assert_eq!(CodecName::from_name(n), Some(codec), "{n}");
            }
            if let Some(id) = v2 {
                assert_eq!(CodecName::from_v2_id(id), Some(codec), "{id}");
            }
            assert_eq!(CodecName::from_name(codec.name()), Some(codec));
            assert_eq!(names[0], codec.name());
            let c = Compressor::from_config(codec, &NoConfig).unwrap();
            assert_eq!(c.is_some(), codec.is_compressor(), "{codec:?}");
            let Some(c) = c else { continue };
            compressors += 1;
            assert_eq!(c.name(), codec);
            assert!(c.max_ratio() >= 1, "{codec:?} states no expansion ratio");
            // A window-moving decoder decodes through a window.
            assert!(!c.moves_window() || c.codec().can_window() || !cfg!(feature = "alloc"));
            // The display starts with the name.
            let mut s = heapless::String::<64>::new();
            core::fmt::write(&mut s, format_args!("{c}")).unwrap();
            assert!(s.starts_with(codec.name()), "{codec:?}: {s}");
            // A probe either names bytes inside the payload or says why not.
            match c.codec().size_probe(1 << 20) {
                Ok(p) => assert!(
                    p.head_len as u64 <= 1 << 20 && p.tail_offset + p.tail_len as u64 <= 1 << 20
                ),
                Err(e) => assert!(matches!(e, DecodeError::SizeUnknown { codec: n } if n == codec)),
            }
            // A built-in backend decodes the codec it is built in for, windowed if the codec says.
            #[cfg(feature = "alloc")]
            if let Some(b) = c.codec().builtin_backend() {
                assert_eq!(b.codec(), codec);
                assert_eq!(b.windowed(), c.codec().can_window(), "{codec:?}");
            }
            // Too short a payload is never probed past its end.
            if let Ok(p) = c.codec().size_probe(0) {
                assert_eq!((p.head_len, p.tail_len), (0, 0), "{codec:?}");
            }
        }
        assert_eq!(CodecName::from_name("categorize"), None);
        assert_eq!(compressors, 10);
    }

    /// gzip and zlib read `level: -1` (zlib's default, which numcodecs writes) as no stated
    /// level; levels past 9 or below -1 are refused by name.
    #[test]
    fn deflate_levels_take_zlibs_default() {
        use crate::codec::ConfigValue::Int;
        for codec in [CodecName::Gzip, CodecName::Zlib] {
            let read = |l: i64| Compressor::from_config(codec, &[("level", Int(l))][..]);
            let none = Compressor::from_config(codec, &NoConfig);
            assert_eq!(read(-1), none, "{codec:?}");
            assert!(matches!(read(9), Ok(Some(c)) if Some(c) != none.unwrap()));
            for bad in [-2, 10] {
                assert!(
                    matches!(read(bad), Err(ChainError::Config { key: "level", .. })),
                    "{codec:?} {bad}"
                );
            }
        }
    }

    /// The smallest window is the codec's to say: a stream codec does not look at the
    /// stored bytes at all, even a chunk too short to hold its checksums (its start refuses
    /// that); Blosc reads its header and says it is truncated.
    #[test]
    fn the_smallest_window_asks_only_codecs_that_read_a_header() {
        use crate::codec::{BytesCodecs, Checksums, ChunkDecoder, RING_MIN};
        let with_crc = |compressor| BytesCodecs {
            compressor: Some(compressor),
            checksums: Checksums::crc32c(1).unwrap(),
        };
        for (compressor, want) in [(Compressor::GZIP, RING_MIN), (Compressor::ZSTD, 1)] {
            let got = ChunkDecoder::min_window(&with_crc(compressor), &[0; 2], 2, 100);
            assert_eq!(got, Ok(want), "{compressor}");
        }
        let blosc = Compressor::from_config(CodecName::Blosc, &NoConfig)
            .unwrap()
            .unwrap();
        assert_eq!(
            ChunkDecoder::min_window(&with_crc(blosc), &[0; 2], 2, 100),
            Err(DecodeError::Truncated {
                codec: CodecName::Blosc
            })
        );
    }
}
