//! The decode direction of numcodecs' array-to-array filters, in place and without allocation:
//! one file per filter, each a type the registry's [`Filter`](crate::codec::Filter) holds (see `spec.rs` for the
//! trait each implements).
//!
//! - [`delta`]: numcodecs `delta` (`Delta(dtype, astype)`).
//! - [`fixed_scale_offset`]: numcodecs `fixedscaleoffset` (`FixedScaleOffset(offset, scale, dtype,
//!   astype)`).
//! - [`scale_offset`]: v3 `scale_offset` (`ScaleOffset(offset, scale)` in the element's own
//!   type), decode and encode.
//! - [`cast_value`]: v3 `cast_value` (`CastValue(data_type, rounding, out_of_range,
//!   scalar_map)`), decode and encode.
//! - [`astype`]: numcodecs `astype` (`AsType(encode_dtype, decode_dtype)`), a cast.
//! - [`quantize`]: numcodecs `quantize` (`Quantize(digits, dtype, astype)`), whose decode is
//!   the same cast.
//! - [`bitround`]: numcodecs `bitround`, whose decode is the identity.
//! - [`shuffle`]: numcodecs `shuffle` over the whole chunk.
//! - [`packbits`]: numcodecs `packbits`, bools as bits.
//! - [`categorize`]: numcodecs `categorize`, strings as the codes of their labels.
//! - [`numeric`]: the element types ([`NumType`], [`Elem`], reading NumPy type strings through
//!   [`TypeStr`](crate::dtype::TypeStr)), one element's [`Value`], NumPy's `astype` casts and
//!   type promotion.
//!
//! Every decode takes `buf: &mut [u8]` holding `n` encoded elements (`n * enc.size()` bytes)
//! at its start and leaves `n` decoded elements (`n * dec.size()` bytes) at its start. The
//! buffer must have at least [`required_len`] bytes: `n * max(enc.size(), dec.size())`. Bytes
//! past the decoded elements are left with unspecified content.
//!
//! numcodecs configurations, as `get_config()` writes them in Zarr v2 (`filters` of `.zarray`;
//! dtypes are NumPy's `dtype.str`, which [`Elem::from_numpy`] reads):
//!
//! ```text
//! {"id": "delta", "dtype": "<i4", "astype": "<i2"}
//! {"id": "fixedscaleoffset", "scale": 10, "offset": 1000, "dtype": "<f8", "astype": "|u1"}
//! {"id": "astype", "encode_dtype": "<f4", "decode_dtype": "<f8"}
//! {"id": "quantize", "digits": 3, "dtype": "<f8", "astype": "<f4"}
//! {"id": "bitround", "keepbits": 10}
//! ```
//!
//! `astype` is always written (equal to `dtype` when not given); `scale` and `offset` keep the
//! JSON number kind they were given as (`10` or `10.0`). In Zarr v3 the codec is named
//! `numcodecs.<id>` and its `configuration` is the keyword arguments the writer passed, without
//! `id` and without normalising dtypes: `"int32"`, `"u1"`, `"<i2"` or `"f8"` may all appear,
//! `astype` may be missing (meaning: same as `dtype`), and a missing `dtype`
//! (`fixedscaleoffset`, `quantize`) or `decode_dtype` (`astype`) is filled in from the array's
//! data type as NumPy's name (`"float64"`). [`Elem::parse_numpy`] reads all of these.

pub mod astype;
pub mod bitround;
pub mod cast_value;
pub mod categorize;
pub mod delta;
pub mod fixed_scale_offset;
pub mod numeric;
pub mod packbits;
pub mod quantize;
pub mod scale_offset;
pub mod shuffle;

pub use astype::AsType;
pub use bitround::BitRound;
pub use cast_value::CastValue;
pub use categorize::Categorize;
pub use delta::Delta;
pub use fixed_scale_offset::FixedScaleOffset;
pub use numeric::{Elem, NumType, Value};
pub use packbits::PackBits;
pub use quantize::Quantize;
pub use scale_offset::ScaleOffset;
pub use shuffle::Shuffle;

/// Why a filter could not decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FilterError {
    /// `count * elem_size` does not fit in `usize`.
    SizeOverflow {
        /// The number of elements.
        count: usize,
        /// The size of one element in bytes.
        elem_size: usize,
    },
    /// The buffer cannot hold the encoded or the decoded elements.
    BufferTooSmall {
        /// The bytes the decode needs.
        needed: usize,
        /// The bytes the buffer has.
        len: usize,
    },
    /// A `fixedscaleoffset` scale that cannot be divided by: zero, NaN or infinite.
    BadScale {
        /// The scale's bits (`f64::to_bits`).
        bits: u64,
    },
    /// A NumPy type these filters do not handle (complex, bool, ...).
    UnsupportedDtype {
        /// NumPy's kind character (`'f'`, `'c'`, `'b'`, ...).
        kind: char,
        /// The element size in bytes.
        size: usize,
    },
    /// A string that is not a NumPy type of a kind and size known here.
    UnknownDtype {
        /// The string's length in bytes.
        len: usize,
    },
    /// `categorize`'s label table is not one entry of the element's size per label.
    LabelTable {
        /// The table's bytes.
        len: usize,
        /// The bytes of one entry.
        width: usize,
    },
    /// `packbits`' first byte is not the count of bits padding its last byte.
    BadPadding {
        /// The count the stream states.
        stated: u8,
        /// The count its length implies.
        expected: u8,
    },
    /// `quantize` needs floating-point types on both sides.
    NotFloat {
        /// The type that is not floating-point.
        ty: NumType,
    },
    /// zinto has no encoder for this filter ([`Filter::encodes`](crate::codec::Filter::encodes) says why).
    NoEncoder,
    /// An encoder was given elements of another type than the filter decodes to.
    TypeMismatch {
        /// The filter's decoded type.
        expected: NumType,
        /// The type it was given.
        got: NumType,
    },
    /// A stored element decodes to a value outside its type's range (`scale_offset`'s
    /// integers).
    OutOfRange {
        /// The element's index in the chunk.
        index: u64,
        /// The decoded type.
        ty: NumType,
    },
    /// A stored integer the scale does not divide: the true division `scale_offset` decodes
    /// with has no exact result in the type.
    Inexact {
        /// The element's index in the chunk.
        index: u64,
    },
    /// An element encodes to a value its stored integer type cannot hold: NaN, an infinity,
    /// or a number out of range (NumPy's cast of those is undefined, so zinto refuses).
    Unrepresentable {
        /// The element's index in the chunk (in the order the filter sees it).
        index: u64,
        /// The stored type.
        ty: NumType,
    },
}

impl core::fmt::Display for FilterError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            FilterError::SizeOverflow { count, elem_size } => write!(
                f,
                "{count} elements of {elem_size} bytes take more bytes than memory can address"
            ),
            FilterError::BufferTooSmall { needed, len } => write!(
                f,
                "the filter needs a buffer of {needed} bytes but was given {len}"
            ),
            FilterError::BadScale { bits } => write!(
                f,
                "the scale {} cannot be divided by: it must be finite and not zero",
                f64::from_bits(bits)
            ),
            FilterError::UnsupportedDtype { kind, size } => write!(
                f,
                "the NumPy type of kind '{kind}' and {size} bytes is not supported by the filters"
            ),
            FilterError::UnknownDtype { len } => write!(
                f,
                "the {len}-byte string is not a NumPy type string of a known kind and size"
            ),
            FilterError::LabelTable { len, width } => write!(
                f,
                "categorize's label table of {len} bytes is not its labels in {width} bytes each"
            ),
            FilterError::BadPadding { stated, expected } => write!(
                f,
                "packbits states {stated} bits of padding where the chunk's size leaves {expected}"
            ),
            FilterError::NotFloat { ty } => write!(
                f,
                "quantize needs floating-point types but was given {}",
                ty.name()
            ),
            FilterError::NoEncoder => write!(f, "zinto has no encoder for this filter"),
            FilterError::TypeMismatch { expected, got } => write!(
                f,
                "the filter encodes {} elements but was given {}",
                expected.name(),
                got.name()
            ),
            FilterError::Unrepresentable { index, ty } => write!(
                f,
                "element {index} encodes to a value {0} cannot hold (NaN, infinite, or outside \
                 the range of dtype {0})",
                ty.name()
            ),
            FilterError::OutOfRange { index, ty } => write!(
                f,
                "element {index} decodes to a value outside the range of dtype {}",
                ty.name()
            ),
            FilterError::Inexact { index } => write!(
                f,
                "element {index} leaves a non-zero remainder when divided by the scale: its \
                 value is not exactly representable in the type"
            ),
        }
    }
}

/// `count * elem_size`, checked.
fn bytes_of(count: usize, elem_size: usize) -> Result<usize, FilterError> {
    count
        .checked_mul(elem_size)
        .ok_or(FilterError::SizeOverflow { count, elem_size })
}

/// The bytes a decode of `n` elements from `enc` to `dec` needs in its buffer:
/// `n * max(enc.size(), dec.size())`.
///
/// # Errors
/// [`FilterError::SizeOverflow`] if that does not fit in `usize`.
pub fn required_len(n: usize, dec: Elem, enc: Elem) -> Result<usize, FilterError> {
    bytes_of(n, dec.size().max(enc.size()))
}

/// Checks the buffer for a decode and returns `(n * enc.size(), n * dec.size())`.
fn check_sizes(
    buf_len: usize,
    n: usize,
    dec: Elem,
    enc: Elem,
) -> Result<(usize, usize), FilterError> {
    let enc_len = bytes_of(n, enc.size())?;
    let dec_len = bytes_of(n, dec.size())?;
    let needed = enc_len.max(dec_len);
    if buf_len < needed {
        return Err(FilterError::BufferTooSmall {
            needed,
            len: buf_len,
        });
    }
    Ok((enc_len, dec_len))
}

/// The `size` bytes of element `i` of a buffer (`None` past its end or on overflow).
fn elem_at(buf: &[u8], base: usize, i: usize, size: usize) -> Option<&[u8]> {
    let start = i.checked_mul(size)?.checked_add(base)?;
    buf.get(start..start.checked_add(size)?)
}

/// The `size` bytes of element `i` of a buffer, writable.
fn elem_at_mut(buf: &mut [u8], i: usize, size: usize) -> Option<&mut [u8]> {
    let start = i.checked_mul(size)?;
    buf.get_mut(start..start.checked_add(size)?)
}

/// Replaces element `i` (read as `enc`) by `f(value)` (written as `dec`) for every `i < n`, in
/// place: backwards when decoded elements are larger, so nothing is overwritten before it is
/// read, and forwards otherwise.
fn map_in_place(
    buf: &mut [u8],
    n: usize,
    dec: Elem,
    enc: Elem,
    mut f: impl FnMut(Value) -> Value,
) -> Result<(), FilterError> {
    try_map_in_place(buf, n, dec, enc, |_, v| Ok(f(v)))
}

/// [`map_in_place`] where `f(i, value)` may refuse element `i` by an error, which stops the
/// pass (elements before it are already replaced).
fn try_map_in_place(
    buf: &mut [u8],
    n: usize,
    dec: Elem,
    enc: Elem,
    mut f: impl FnMut(usize, Value) -> Result<Value, FilterError>,
) -> Result<(), FilterError> {
    let (enc_len, dec_len) = check_sizes(buf.len(), n, dec, enc)?;
    let short = FilterError::BufferTooSmall {
        needed: enc_len.max(dec_len),
        len: buf.len(),
    };
    let mut step = |i: usize| -> Result<(), FilterError> {
        let v = elem_at(buf, 0, i, enc.size())
            .and_then(|src| enc.read(src))
            .ok_or(short)?;
        let v = f(i, v)?;
        elem_at_mut(buf, i, dec.size())
            .and_then(|dst| dec.write(v, dst))
            .ok_or(short)
    };
    if dec.size() > enc.size() {
        (0..n).rev().try_for_each(&mut step)
    } else {
        (0..n).try_for_each(&mut step)
    }
}

/// Whether NumPy's cast of `v` to `ty` is defined: any value into a float or bool, integers
/// into integers (they wrap), and finite floats whose integer part is in the type's range.
#[allow(clippy::cast_precision_loss)] // powers of two up to 2^64 are exact in an `f64`
fn castable(v: Value, ty: NumType) -> bool {
    let Value::Float(x) = v else {
        return true;
    };
    if ty.is_float() || ty == NumType::Bool {
        return true;
    }
    // The range of the integer part as [lo, hi), powers of two and so exact in an `f64`.
    let bits = ty.size() * 8;
    let (lo, hi) = if ty.kind() == 'u' {
        (0.0, (1u128 << bits) as f64)
    } else {
        (
            -((1u128 << (bits - 1)) as f64),
            (1u128 << (bits - 1)) as f64,
        )
    };
    // trunc(x) >= lo for x in (lo - 1, lo) too; `lo - 1.0` rounds to `lo` for 64 bits.
    x.is_finite() && (x >= lo || x > lo - 1.0) && x < hi
}

/// `x` rounded to the nearest integer, ties to even (NumPy's `around`), without `std`:
/// adding and taking away 2^52 rounds in the current (nearest-even) mode.
#[must_use]
pub(crate) fn round_ties_even(x: f64) -> f64 {
    const BIG: f64 = 4_503_599_627_370_496.0; // 2^52: every f64 this large is an integer
    let a = if x < 0.0 { -x } else { x };
    if a.is_nan() || a >= BIG {
        return x; // integral already, or NaN or infinite
    }
    let r = (a + BIG) - BIG;
    if x.is_sign_negative() { -r } else { r }
}

/// Encodes the whole elements of `src` (read as `from`, of the filter's decoded type `dec`)
/// into `dst` as `enc`, each through `f` (given the element and what the chunk's run so far
/// left); returns how many. `f` answers `Err(value)` where NumPy raises; a result that NumPy's
/// cast into `enc` leaves undefined, or an `Err`, is refused
/// ([`FilterError::Unrepresentable`]) unless the element is the run's `exempt` value, which is
/// then stored as [`Value::cast`] gives it.
fn map_encode(
    (src, from, dec): (&[u8], Elem, Elem),
    (dst, enc): (&mut [u8], Elem),
    run: &mut spec::EncodeRun,
    mut f: impl FnMut(Value, &spec::EncodeRun) -> Result<Value, Value>,
) -> Result<usize, FilterError> {
    if from.ty != dec.ty {
        return Err(FilterError::TypeMismatch {
            expected: dec.ty,
            got: from.ty,
        });
    }
    let n = src.len() / from.size();
    let needed = bytes_of(n, enc.size())?;
    let short = FilterError::BufferTooSmall {
        needed,
        len: dst.len(),
    };
    if dst.len() < needed {
        return Err(short);
    }
    for (s, d) in src
        .chunks_exact(from.size())
        .zip(dst.chunks_exact_mut(enc.size()))
    {
        let v = from.read(s).ok_or(short)?;
        let (out, defined) = match f(v, run) {
            Ok(out) => (out, castable(out, enc.ty)),
            Err(out) => (out, false),
        };
        if !defined && !run.exempt.is_some_and(|e| e.same_bits(v)) {
            return Err(FilterError::Unrepresentable {
                index: run.done,
                ty: enc.ty,
            });
        }
        enc.write(out, d).ok_or(short)?;
        run.prev = Some(v);
        run.done += 1;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::codec::Endian;
    use std::string::ToString;

    #[test]
    fn sizes_are_checked() {
        let i2 = Elem::new(NumType::Int16, Endian::Little);
        let f8 = Elem::new(NumType::Float64, Endian::Little);
        assert_eq!(required_len(3, i2, f8), Ok(24));
        assert_eq!(
            required_len(usize::MAX / 4, i2, f8),
            Err(FilterError::SizeOverflow {
                count: usize::MAX / 4,
                elem_size: 8
            })
        );
        assert_eq!(
            check_sizes(23, 3, i2, f8),
            Err(FilterError::BufferTooSmall {
                needed: 24,
                len: 23
            })
        );
        assert_eq!(check_sizes(24, 3, f8, i2), Ok((6, 24)));
    }

    #[test]
    fn no_panic_on_any_pair_length_or_bytes() {
        let fills = [0x00u8, 0xff, 0x7f, 0x80, 0x5a];
        for dt in NumType::ALL {
            for et in NumType::ALL {
                for (de, ee) in [(Endian::Little, Endian::Big), (Endian::Big, Endian::Little)] {
                    let (dec, enc) = (Elem::new(dt, de), Elem::new(et, ee));
                    for n in 0..4 {
                        let need = required_len(n, dec, enc).unwrap();
                        for len in 0..=need + 1 {
                            for fill in fills {
                                let mut buf = [fill; 33];
                                let buf = &mut buf[..len];
                                let results = [
                                    delta::decode(buf, n, dec, enc),
                                    fixed_scale_offset::decode(buf, n, 0.3, -7.0, dec, enc),
                                    astype::decode(buf, n, dec, enc),
                                ];
                                for r in results {
                                    if len < need {
                                        assert_eq!(
                                            r,
                                            Err(FilterError::BufferTooSmall { needed: need, len })
                                        );
                                    } else {
                                        assert_eq!(r, Ok(()));
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn display_reads_as_a_sentence() {
        assert_eq!(
            FilterError::BufferTooSmall { needed: 8, len: 4 }.to_string(),
            "the filter needs a buffer of 8 bytes but was given 4"
        );
        assert_eq!(
            FilterError::BadScale {
                bits: 0f64.to_bits()
            }
            .to_string(),
            "the scale 0 cannot be divided by: it must be finite and not zero"
        );
        assert_eq!(
            FilterError::UnsupportedDtype { kind: 'f', size: 2 }.to_string(),
            "the NumPy type of kind 'f' and 2 bytes is not supported by the filters"
        );
        assert_eq!(
            FilterError::NotFloat { ty: NumType::Int32 }.to_string(),
            "quantize needs floating-point types but was given int32"
        );
        assert!(
            FilterError::SizeOverflow {
                count: 5,
                elem_size: 8
            }
            .to_string()
            .starts_with("5 elements of 8 bytes")
        );
        assert!(
            FilterError::UnknownDtype { len: 3 }
                .to_string()
                .contains("3-byte")
        );
    }
}

mod spec;
pub use spec::{EncodeRun, FilterAux};
pub(crate) use spec::{FilterCodec, FromFilterConfig};
