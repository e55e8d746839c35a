//! A filter as metadata configures it: which one, its element types and parameters, and its
//! decode over a chunk's elements.

use super::super::config::{Config, Reader};
use super::super::shuffle::unshuffle;
use super::super::{ChainError, CodecName, DecodeError, Endian};
use super::{Elem, FilterError, astype, delta, scale_offset};

/// A numcodecs filter, configured. Decoding undoes it in place over a chunk's elements.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Filter {
    /// `delta`: elements stored as differences from the one before, as `enc`.
    Delta {
        /// The array's element.
        dec: Elem,
        /// The stored element.
        enc: Elem,
    },
    /// `fixedscaleoffset`: `stored = round((x - offset) * scale)` as `enc`.
    FixedScaleOffset {
        /// The scale.
        scale: f64,
        /// The offset.
        offset: f64,
        /// The array's element.
        dec: Elem,
        /// The stored element.
        enc: Elem,
    },
    /// `astype` (and `quantize`, whose decode is the same cast): elements stored as `enc`.
    AsType {
        /// Which of the two codecs.
        codec: CodecName,
        /// The array's element.
        dec: Elem,
        /// The stored element.
        enc: Elem,
    },
    /// `bitround`: mantissas rounded when written; decoding is the identity.
    BitRound,
    /// `shuffle`: the bytes of `elementsize`-byte elements grouped by significance, over the
    /// whole chunk.
    Shuffle {
        /// Bytes per element as the shuffle saw them.
        elementsize: usize,
    },
}

impl PartialEq for Filter {
    fn eq(&self, other: &Self) -> bool {
        use Filter::*;
        match (self, other) {
            (Delta { dec: a, enc: b }, Delta { dec: c, enc: d }) => a == c && b == d,
            (
                FixedScaleOffset {
                    scale: s1,
                    offset: o1,
                    dec: a,
                    enc: b,
                },
                FixedScaleOffset {
                    scale: s2,
                    offset: o2,
                    dec: c,
                    enc: d,
                },
            ) => s1.to_bits() == s2.to_bits() && o1.to_bits() == o2.to_bits() && a == c && b == d,
            (
                AsType {
                    codec: k1,
                    dec: a,
                    enc: b,
                },
                AsType {
                    codec: k2,
                    dec: c,
                    enc: d,
                },
            ) => k1 == k2 && a == c && b == d,
            (BitRound, BitRound) => true,
            (Shuffle { elementsize: a }, Shuffle { elementsize: b }) => a == b,
            _ => false,
        }
    }
}

impl Eq for Filter {}

fn filter_error(codec: CodecName, error: FilterError) -> ChainError {
    match error {
        FilterError::UnsupportedDtype { .. } => ChainError::Config {
            codec,
            key: "dtype",
            what: "is a type the filters do not decode (float16, complex, bool)",
        },
        _ => ChainError::Config {
            codec,
            key: "dtype",
            what: "is not a NumPy type string",
        },
    }
}

impl Filter {
    /// The filter `codec` configured by `config`, or `None` if `codec` is not a filter.
    /// `decoded` is the element type it decodes to (the array's, for the first filter), used
    /// where a v3 configuration leaves its `dtype` out.
    ///
    /// # Errors
    /// [`ChainError::Config`] for a missing or malformed type or parameter.
    pub fn from_config<C: Config + ?Sized>(
        codec: CodecName,
        config: &C,
        decoded: Option<Elem>,
    ) -> Result<Option<Self>, ChainError> {
        let r = Reader { codec, config };
        let elem = |key: &'static str, default: Option<Elem>| -> Result<Elem, ChainError> {
            match r.str(key)? {
                Some(s) => Elem::parse_numpy(s, Endian::NATIVE).map_err(|e| filter_error(codec, e)),
                None => {
                    default.ok_or(r.error(key, "is missing (and the array's type is not numeric)"))
                }
            }
        };
        Ok(Some(match codec {
            CodecName::Delta => {
                let dec = elem("dtype", decoded)?;
                Self::Delta {
                    dec,
                    enc: elem("astype", Some(dec))?,
                }
            }
            CodecName::FixedScaleOffset => {
                let dec = elem("dtype", decoded)?;
                let scale = r.float("scale")?.ok_or(r.error("scale", "is missing"))?;
                if scale == 0.0 || !scale.is_finite() {
                    return Err(r.error("scale", "must be a finite number other than 0"));
                }
                Self::FixedScaleOffset {
                    scale,
                    offset: r.float("offset")?.ok_or(r.error("offset", "is missing"))?,
                    dec,
                    enc: elem("astype", Some(dec))?,
                }
            }
            CodecName::AsType => Self::AsType {
                codec,
                dec: elem("decode_dtype", decoded)?,
                enc: elem("encode_dtype", None)?,
            },
            CodecName::Quantize => {
                let dec = elem("dtype", decoded)?;
                let enc = elem("astype", Some(dec))?;
                for e in [dec, enc] {
                    if !e.ty.is_float() {
                        return Err(r.error("dtype", "of quantize must be a float type"));
                    }
                }
                Self::AsType { codec, dec, enc }
            }
            CodecName::BitRound => Self::BitRound,
            CodecName::Shuffle => {
                // numcodecs' own default, `Shuffle(elementsize=4)`; zarr-python writes the key
                // in v3 (the array's element size) and numcodecs in v2.
                let size = r.int_in("elementsize", 1, 1 << 20)?.unwrap_or(4);
                Self::Shuffle {
                    // In 1..=2^20.
                    elementsize: usize::try_from(size)
                        .map_err(|_| r.error("elementsize", "is out of range"))?,
                }
            }
            _ => return Ok(None),
        }))
    }

    /// Its codec name.
    pub fn name(&self) -> CodecName {
        match self {
            Self::Delta { .. } => CodecName::Delta,
            Self::FixedScaleOffset { .. } => CodecName::FixedScaleOffset,
            Self::AsType { codec, .. } => *codec,
            Self::BitRound => CodecName::BitRound,
            Self::Shuffle { .. } => CodecName::Shuffle,
        }
    }

    /// Whether it works on bytes whatever their type (`shuffle`), so that it may also stand
    /// after the array-to-bytes codec in a v3 chain.
    pub fn is_bytes_to_bytes(&self) -> bool {
        matches!(self, Self::Shuffle { .. })
    }

    /// The element it decodes to, when it changes types.
    pub fn decoded_elem(&self) -> Option<Elem> {
        match *self {
            Self::Delta { dec, .. }
            | Self::FixedScaleOffset { dec, .. }
            | Self::AsType { dec, .. } => Some(dec),
            Self::BitRound | Self::Shuffle { .. } => None,
        }
    }

    /// The element it stores, when it changes types.
    pub fn encoded_elem(&self) -> Option<Elem> {
        match *self {
            Self::Delta { enc, .. }
            | Self::FixedScaleOffset { enc, .. }
            | Self::AsType { enc, .. } => Some(enc),
            Self::BitRound | Self::Shuffle { .. } => None,
        }
    }

    /// Bytes of the element it decodes to, if it has a type.
    pub fn decoded_size(&self) -> Option<usize> {
        self.decoded_elem().map(Elem::size)
    }

    /// Bytes of the element it stores, if it has a type.
    pub fn encoded_size(&self) -> Option<usize> {
        self.encoded_elem().map(Elem::size)
    }

    /// Makes it read and write multi-byte elements in `endian` order: the chunk's stored byte
    /// order, which the reader converts to the machine's after the last filter.
    pub(crate) fn set_endian(&mut self, endian: Endian) {
        let fix = |e: &mut Elem| {
            if e.ty.size() > 1 {
                e.endian = endian;
            }
        };
        match self {
            Self::Delta { dec, enc }
            | Self::FixedScaleOffset { dec, enc, .. }
            | Self::AsType { dec, enc, .. } => {
                fix(dec);
                fix(enc);
            }
            Self::BitRound | Self::Shuffle { .. } => {}
        }
    }

    /// Whether decoding needs `spare` bytes besides the chunk (only `shuffle` does: one chunk).
    pub fn needs_spare(&self) -> bool {
        matches!(self, Self::Shuffle { .. })
    }

    /// Undoes the filter over `n` elements at the start of `buf` (which must hold
    /// `n * max(stored, decoded)` element bytes); `spare` is used by `shuffle` only and must
    /// then hold the `n * size` bytes being unshuffled.
    ///
    /// # Errors
    /// [`DecodeError::Filter`] for a buffer too small or sizes that overflow;
    /// [`DecodeError::ScratchTooSmall`] for a short `spare`.
    pub fn decode(&self, buf: &mut [u8], n: usize, spare: &mut [u8]) -> Result<(), DecodeError> {
        let codec = self.name();
        let wrap = |error| DecodeError::Filter { codec, error };
        match *self {
            Self::Delta { dec, enc } => delta::decode(buf, n, dec, enc).map_err(wrap),
            Self::FixedScaleOffset {
                scale,
                offset,
                dec,
                enc,
            } => scale_offset::decode(buf, n, scale, offset, dec, enc).map_err(wrap),
            Self::AsType { dec, enc, .. } => astype::decode(buf, n, dec, enc).map_err(wrap),
            Self::BitRound => Ok(()),
            Self::Shuffle { elementsize } => {
                let len = buf.len();
                let have = spare.len() as u64;
                let copy = spare.get_mut(..len).ok_or(DecodeError::ScratchTooSmall {
                    needed: len as u64,
                    have,
                })?;
                copy.copy_from_slice(buf);
                unshuffle(copy, buf, elementsize).map_err(|_| DecodeError::Internal {
                    what: "unshuffle given buffers of different lengths",
                })
            }
        }
    }
}

impl core::fmt::Display for Filter {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let name = self.name();
        match *self {
            Self::Delta { dec, enc } | Self::AsType { dec, enc, .. } => {
                write!(f, "{name}({} stored as {})", dec.ty.name(), enc.ty.name())
            }
            Self::FixedScaleOffset {
                scale,
                offset,
                dec,
                enc,
            } => write!(
                f,
                "{name}({} stored as {}, scale {scale}, offset {offset})",
                dec.ty.name(),
                enc.ty.name()
            ),
            Self::BitRound => write!(f, "{name}"),
            Self::Shuffle { elementsize } => write!(f, "{name}(elementsize {elementsize})"),
        }
    }
}
