//! The one list of codecs: every name zinto knows, and which file answers for it.
//!
//! Adding a compressor is one file under `codec/compressor/` (its names, configuration, facts
//! and decoder, as [`CompressorCodec`](super::compressor::CompressorCodec) asks) and one line
//! in `compressors` below. The macro turns the list into [`CodecName`], the name table, and
//! [`Compressor`] with its dispatch; every `match` it writes names each codec, so a codec
//! missing an answer is a compile error, never a default.
//!
//! Adding a filter is the same: one file under `codec/filter/` (names, configuration, decode,
//! as [`FilterCodec`](super::filter::FilterCodec) asks) and one line in `filters`, which makes
//! [`Filter`] and its dispatch.
//!
//! A checksum likewise: its file under `codec/checksum/` (names, v2 id, default location, its
//! running sum) and its line in `checksums`, which makes [`ChecksumKind`] and the running
//! state's dispatch.
//!
//! The other codecs (array-to-bytes, vlen) are named here with their metadata names; their
//! configuration is read by `chain.rs`.

mod checksum;
mod compressor;
mod filter;

pub use checksum::Checksum;

use super::ChainError;
use super::blosc::BloscConfig;
use super::checksum::adler32::Adler32;
use super::checksum::crc32::Crc32;
use super::checksum::crc32c::Crc32c;
use super::checksum::fletcher32::Fletcher32;
use super::checksum::{Facts, RunningSum};
use super::compressor::{
    Base64, Bz2, CompressorCodec, FromConfig, Gzip, Lz4, Lzma, Pcodec, Zfpy, Zlib, Zstd,
};
use super::config::{Config, Reader};
use super::filter::{
    AsType, BitRound, CastValue, Categorize, Delta, Elem, FilterCodec, FixedScaleOffset,
    FromFilterConfig, PackBits, Quantize, ScaleOffset, Shuffle,
};

/// The first of a codec's names (the registry asserts at compile time that there is one).
const fn first_name(names: &[&'static str]) -> &'static str {
    match names {
        [first, ..] => first,
        [] => "",
    }
}

macro_rules! registry {
    (
        compressors { $( $(#[$cdoc:meta])* $cv:ident($cty:ty), )* }
        filters { $( $(#[$fdoc:meta])* $fv:ident($fty:ty), )* }
        checksums { $( $(#[$kdoc:meta])* $kv:ident($kty:ty), )* }
        others { $( $(#[$odoc:meta])* $ov:ident [$ofirst:literal $(, $orest:literal)*] $ov2:expr, )* }
    ) => {
        /// A codec zinto knows by name: what metadata calls it, and what errors name.
        ///
        /// Made from the one list in `codec/registry.rs`: [`CodecName::from_name`] finds a
        /// codec by any of its names (`"blosc"`, `"numcodecs.blosc"`), [`CodecName::name`]
        /// gives the first, and [`CodecName::from_v2_id`] reads a Zarr v2 (numcodecs) `id`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum CodecName {
            $( $(#[$cdoc])* $cv, )*
            $( $(#[$fdoc])* $fv, )*
            $( $(#[$kdoc])* $kv, )*
            $( $(#[$odoc])* $ov, )*
        }

        /// Each codec, the names metadata gives it (the first is the one errors use), and its
        /// Zarr v2 (numcodecs) `id`, if it has one.
        pub(crate) const TABLE: &[(CodecName, &[&str], Option<&str>)] = &[
            $( (CodecName::$cv, <$cty>::NAMES, <$cty>::V2_ID), )*
            $( (CodecName::$fv, <$fty>::NAMES, <$fty>::V2_ID), )*
            $( (CodecName::$kv, <$kty>::NAMES, <$kty>::V2_ID), )*
            $( (CodecName::$ov, &[$ofirst $(, $orest)*], $ov2), )*
        ];

        /// A bytes-to-bytes compressor as metadata configures it, one variant a codec of the
        /// registry. The configuration is kept (the CLI shows it, and a decoder checks a
        /// stream against it where the format allows), though most decoders read everything
        /// they need from the stream itself.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[non_exhaustive]
        pub enum Compressor {
            $( $(#[$cdoc])* $cv($cty), )*
        }

        impl Compressor {
            /// The codec's own file, which answers every question about it.
            pub(crate) fn codec(&self) -> &dyn CompressorCodec {
                match self {
                    $( Self::$cv(c) => c, )*
                }
            }

            /// Its codec name.
            pub fn name(&self) -> CodecName {
                match self {
                    $( Self::$cv(_) => CodecName::$cv, )*
                }
            }

            /// The compressor `codec` with its configuration, or `None` if `codec` is not a
            /// compressor.
            ///
            /// # Errors
            /// [`ChainError::Config`] for a configuration value of the wrong kind or out of
            /// range.
            pub fn from_config<C: Config + ?Sized>(
                codec: CodecName,
                config: &C,
            ) -> Result<Option<Self>, ChainError> {
                let r = Reader { codec, config };
                Ok(Some(match codec {
                    $( CodecName::$cv => Self::$cv(<$cty as FromConfig>::from_config(&r)?), )*
                    $( CodecName::$fv )|* => return Ok(None),
                    $( CodecName::$kv )|* => return Ok(None),
                    $( CodecName::$ov )|* => return Ok(None),
                }))
            }
        }

        /// A numcodecs filter as metadata configures it, one variant a filter of the registry.
        /// Decoding undoes it in place over a chunk's elements.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[non_exhaustive]
        pub enum Filter {
            $( $(#[$fdoc])* $fv($fty), )*
        }

        impl Filter {
            /// The filter's own file, which answers every question about it.
            pub(crate) fn codec(&self) -> &dyn FilterCodec {
                match self {
                    $( Self::$fv(c) => c, )*
                }
            }

            pub(crate) fn codec_mut(&mut self) -> &mut dyn FilterCodec {
                match self {
                    $( Self::$fv(c) => c, )*
                }
            }

            /// Its codec name.
            pub fn name(&self) -> CodecName {
                match self {
                    $( Self::$fv(_) => CodecName::$fv, )*
                }
            }

            /// The filter `codec` configured by `config`, or `None` if `codec` is not a
            /// filter. `decoded` is the element type it decodes to (the array's, for the first
            /// filter), used where a v3 configuration leaves its `dtype` out.
            ///
            /// # Errors
            /// [`ChainError::Config`] for a missing or malformed type or parameter.
            pub fn from_config<C: Config + ?Sized>(
                codec: CodecName,
                config: &C,
                decoded: Option<Elem>,
            ) -> Result<Option<Self>, ChainError> {
                let r = Reader { codec, config };
                Ok(Some(match codec {
                    $( CodecName::$fv => {
                        Self::$fv(<$fty as FromFilterConfig>::from_config(&r, decoded)?)
                    } )*
                    $( CodecName::$cv )|* => return Ok(None),
                    $( CodecName::$kv )|* => return Ok(None),
                    $( CodecName::$ov )|* => return Ok(None),
                }))
            }
        }

        // Every compressor and filter states at least one name: `CodecName::name` takes the
        // first.
        $( const _: () = assert!(!<$cty>::NAMES.is_empty()); )*
        $( const _: () = assert!(!<$fty>::NAMES.is_empty()); )*
        $( const _: () = assert!(!<$kty>::NAMES.is_empty()); )*

        /// Which of the checksum codecs (numcodecs' 32-bit checksums and v3 `crc32c`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum ChecksumKind {
            $( $(#[$kdoc])* $kv, )*
        }

        impl ChecksumKind {
            /// Every kind, for iteration.
            pub const ALL: [ChecksumKind; [$( stringify!($kv) ),*].len()] = [$( Self::$kv ),*];

            /// Its codec name.
            pub fn name(self) -> CodecName {
                match self {
                    $( Self::$kv => CodecName::$kv, )*
                }
            }

            /// The checksum `codec` is, if it is one.
            pub fn of(codec: CodecName) -> Option<Self> {
                match codec {
                    $( CodecName::$kv => Some(Self::$kv), )*
                    $( CodecName::$cv )|* => None,
                    $( CodecName::$fv )|* => None,
                    $( CodecName::$ov )|* => None,
                }
            }

            /// What its file states.
            pub(crate) fn facts(self) -> Facts {
                match self {
                    $( Self::$kv => Facts {
                        codec_id: <$kty>::CODEC_ID,
                        default_location: <$kty>::DEFAULT_LOCATION,
                        has_location_key: <$kty>::HAS_LOCATION_KEY,
                    }, )*
                }
            }
        }

        /// The running state of a [`Checksum`](super::checksum::Checksum), one variant a
        /// checksum of the registry.
        #[derive(Debug, Clone, Copy)]
        pub(crate) enum SumState {
            $( $kv($kty), )*
        }

        impl SumState {
            pub(crate) fn new(kind: ChecksumKind) -> Self {
                match kind {
                    $( ChecksumKind::$kv => Self::$kv(<$kty as RunningSum>::new()), )*
                }
            }

            pub(crate) fn update(&mut self, data: &[u8]) {
                match self {
                    $( Self::$kv(s) => s.update(data), )*
                }
            }

            pub(crate) fn value(&self) -> u32 {
                match self {
                    $( Self::$kv(s) => s.value(), )*
                }
            }
        }

        impl CodecName {
            /// The metadata name (the first of its names).
            pub fn name(self) -> &'static str {
                match self {
                    $( Self::$cv => first_name(<$cty>::NAMES), )*
                    $( Self::$fv => first_name(<$fty>::NAMES), )*
                    $( Self::$kv => first_name(<$kty>::NAMES), )*
                    $( Self::$ov => $ofirst, )*
                }
            }

            /// Whether this codec is a bytes-to-bytes compressor ([`Compressor`]).
            pub fn is_compressor(self) -> bool {
                match self {
                    $( Self::$cv )|* => true,
                    $( Self::$fv )|* => false,
                    $( Self::$kv )|* => false,
                    $( Self::$ov )|* => false,
                }
            }
        }

        $(
            impl From<$cty> for Compressor {
                fn from(c: $cty) -> Self {
                    Self::$cv(c)
                }
            }
        )*
        $(
            impl From<$fty> for Filter {
                fn from(c: $fty) -> Self {
                    Self::$fv(c)
                }
            }
        )*
    };
}

registry! {
    compressors {
        /// `gzip` (v3 and v2): RFC 1952.
        Gzip(Gzip),
        /// `zlib` (v2 compressor; numcodecs also registers it for v3): RFC 1950.
        Zlib(Zlib),
        /// `zstd` (v3 and v2): RFC 8878.
        Zstd(Zstd),
        /// `blosc` (c-blosc 1.x chunk format; v3 and v2).
        Blosc(BloscConfig),
        /// numcodecs `lz4`: an LZ4 block after its decoded size.
        Lz4(Lz4),
        /// numcodecs `bz2` (decoded by a backend of the std crate).
        Bz2(Bz2),
        /// numcodecs `base64`: the bytes as base64 text.
        Base64(Base64),
        /// numcodecs `lzma` (decoded by a backend of the std crate): liblzma's formats.
        Lzma(Lzma),
        /// numcodecs `pcodec` (decoded by a backend of the std crate): pco's numbers.
        Pcodec(Pcodec),
        /// numcodecs `zfpy` (decoded by a backend of the std crate): zfp's numbers.
        Zfpy(Zfpy),
    }
    filters {
        /// numcodecs `delta`: differences of consecutive elements.
        Delta(Delta),
        /// numcodecs `fixedscaleoffset`: floats stored as scaled, offset integers.
        FixedScaleOffset(FixedScaleOffset),
        /// numcodecs `astype`: elements stored as another type.
        AsType(AsType),
        /// numcodecs `quantize`: floats rounded to a number of digits (decoding is a cast).
        Quantize(Quantize),
        /// numcodecs `bitround`: float mantissas rounded (decoding is the identity).
        BitRound(BitRound),
        /// numcodecs `shuffle`: the bytes of the elements grouped by significance.
        Shuffle(Shuffle),
        /// numcodecs `packbits`: bools as bits, eight to a byte.
        PackBits(PackBits),
        /// numcodecs `categorize`: fixed-length strings as the codes of their labels.
        Categorize(Categorize),
        /// v3 `scale_offset`: `(x - offset) * scale` in the element's own type.
        ScaleOffset(ScaleOffset),
        /// v3 `cast_value`: elements stored as another numeric type, rounded as configured.
        CastValue(CastValue),
    }
    checksums {
        /// numcodecs `crc32`: zlib's CRC-32 (reflected polynomial 0xEDB88320).
        Crc32(Crc32),
        /// `crc32c` (v3, and numcodecs `crc32c`): CRC-32C (Castagnoli, reflected polynomial
        /// 0x82F63B78).
        Crc32c(Crc32c),
        /// numcodecs `adler32`: zlib's Adler-32, starting from 1.
        Adler32(Adler32),
        /// numcodecs `fletcher32`: HDF5's (and netCDF's) Fletcher-32 variant.
        Fletcher32(Fletcher32),
    }
    others {
        /// v3 `bytes`: the array-to-bytes codec with an endianness.
        Bytes ["bytes"] None,
        /// v3 `transpose`: an axis permutation.
        Transpose ["transpose"] None,
        /// v3 `sharding_indexed`: inner chunks packed in one stored object with an index.
        ShardingIndexed ["sharding_indexed"] None,
        /// BloscLZ, Blosc's own inner compressor (not a codec of its own in metadata).
        BloscLz ["blosclz"] None,
        /// Snappy, one of Blosc's inner compressors (not a codec of its own in metadata).
        Snappy ["snappy"] None,
        /// v2 `order`: the memory order of an uncompressed chunk (C or F).
        Order ["order"] None,
        /// numcodecs `vlen-utf8`: variable-length UTF-8 strings as length-prefixed items
        /// ([`VlenItems`](super::VlenItems)).
        VlenUtf8 ["vlen-utf8"] Some("vlen-utf8"),
        /// numcodecs `vlen-bytes`: variable-length byte strings, the same layout.
        VlenBytes ["vlen-bytes"] Some("vlen-bytes"),
    }
}
