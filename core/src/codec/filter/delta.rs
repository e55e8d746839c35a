//! numcodecs `delta` decode: `Delta(dtype, astype)`, in place.
//!
//! numcodecs 0.16.6 decodes with `np.cumsum(enc, out=dec)` where `enc` is the stored array of
//! type `astype` and `dec` an array of type `dtype`. With `out` given, NumPy accumulates in the
//! promoted type `L = np.result_type(dtype, astype)` ([`NumType::promote`]): the running sum is
//! kept in `L` and each partial sum is cast to `dtype` on its way out (it is *not* read back from
//! `out`, so rounding or truncation in `dtype` does not feed the next step). Hence:
//!
//! - integers: `L` is an integer type at least as wide as `dtype`, so `dec[i]` is the exact sum
//!   `enc[0] + ... + enc[i]` wrapped to `dtype` (two's complement); e.g. `astype="<i2"`,
//!   `dtype="<i4"` sums in `int32`, and `|i1` into `|u1` sums in `int16`;
//! - `uint64` with a signed type promotes to `float64`: the sum is a `float64` sum (exact only
//!   below 2^53), truncated into the integer `dtype`;
//! - floats: the sum is kept in `L` (`float32` only when both are `float32` or one is `float32`
//!   and the other an integer of at most 2 bytes, else `float64`) and each partial sum is cast
//!   to `dtype` ([`Value::cast`]: rounding to nearest into a float, truncation toward zero into
//!   an integer).
//!
//! - bool: the sum is an integer (NumPy's `cumsum` of bools counts them) cast to bool, so
//!   `dec[i]` is whether any of `enc[0..=i]` is true. numcodecs encodes bools with `np.diff`,
//!   an exclusive or, so its bool delta gives back only arrays that stay true once true; it is
//!   decoded here as numcodecs decodes it, which is what zarr-python reads.
//!
//! The first element is `enc[0]` cast to `L`, then to `dtype`; `n == 0` decodes nothing.
//! `Delta` has no parameter besides the two dtypes.

use super::numeric::Elem;
use super::spec::{EncodeRun, FilterAux, FilterCodec, FromFilterConfig, decode_error, read_elem};
use super::{FilterError, NumType, Value, check_sizes, elem_at, elem_at_mut, map_encode};
use crate::codec::config::{Config, Reader};
use crate::codec::{ChainError, CodecName, DecodeError};
use crate::dtype::{f16_from_f64, f16_to_f64};

/// The running sum, in NumPy's accumulation type.
#[derive(Debug, Clone, Copy)]
enum Acc {
    /// An integer sum, modulo 2^128 (congruent to NumPy's modulo 2^bits of any narrower type).
    Int(i128),
    /// A `float16` sum (its value, held exactly in an `f32`).
    F16(f32),
    /// A `float32` sum.
    F32(f32),
    /// A `float64` sum.
    F64(f64),
}

impl Acc {
    /// `v` (already cast to the accumulation type) as a first partial sum.
    #[allow(clippy::cast_possible_truncation)] // a `float32` value held in an `f64` is exact
    fn start(v: Value, loop_ty: NumType) -> Acc {
        match (v, loop_ty) {
            (Value::Int(i), _) => Acc::Int(i),
            (Value::Float(x), NumType::Float16) => Acc::F16(x as f32),
            (Value::Float(x), NumType::Float32) => Acc::F32(x as f32),
            (Value::Float(x), _) => Acc::F64(x),
        }
    }

    /// The sum plus `v` (already cast to the accumulation type).
    #[allow(clippy::cast_possible_truncation)] // as in `start`
    fn add(self, v: Value) -> Acc {
        match (self, v) {
            (Acc::Int(a), Value::Int(b)) => Acc::Int(a.wrapping_add(b)),
            // NumPy adds halves in `float32`, then rounds the sum to a half.
            (Acc::F16(a), Value::Float(b)) => {
                Acc::F16(f16_to_f64(f16_from_f64((a + b as f32).into())) as f32)
            }
            (Acc::F32(a), Value::Float(b)) => Acc::F32(a + b as f32),
            (Acc::F64(a), Value::Float(b)) => Acc::F64(a + b),
            // Not reached: values cast to one type are all `Int` or all `Float`.
            (acc, _) => acc,
        }
    }

    fn value(self) -> Value {
        match self {
            Acc::Int(i) => Value::Int(i),
            Acc::F16(x) | Acc::F32(x) => Value::Float(x.into()),
            Acc::F64(x) => Value::Float(x),
        }
    }
}

/// Decodes numcodecs `Delta(dtype=dec, astype=enc)` in place.
///
/// `buf` holds `n` elements of `enc` at its start and receives `n` elements of `dec` there; it
/// must have at least [`required_len`](super::required_len)`(n, dec, enc)` bytes. When `dec`
/// is larger than `enc`, the encoded bytes are first moved to the end of that length, then the
/// sums are written from the start, which never overtakes the unread input; no scratch is used.
///
/// # Errors
/// [`FilterError::SizeOverflow`] if `n` elements do not fit in `usize` bytes,
/// [`FilterError::BufferTooSmall`] if `buf` is shorter than needed.
pub fn decode(buf: &mut [u8], n: usize, dec: Elem, enc: Elem) -> Result<(), FilterError> {
    let (enc_len, dec_len) = check_sizes(buf.len(), n, dec, enc)?;
    let short = FilterError::BufferTooSmall {
        needed: enc_len.max(dec_len),
        len: buf.len(),
    };
    // Where the encoded elements are read from. Writing element `i` ends at `(i + 1) * ds`,
    // at or before the start of encoded element `i + 1` at `base + (i + 1) * es`.
    let base = dec_len.saturating_sub(enc_len);
    if base > 0 {
        buf.copy_within(..enc_len, base);
    }
    let loop_ty = dec.ty.promote(enc.ty);
    let mut acc: Option<Acc> = None;
    for i in 0..n {
        let v = elem_at(buf, base, i, enc.size())
            .and_then(|src| enc.read(src))
            .ok_or(short)?
            .cast(loop_ty);
        let sum = match acc {
            None => Acc::start(v, loop_ty),
            Some(a) => a.add(v),
        };
        acc = Some(sum);
        elem_at_mut(buf, i, dec.size())
            .and_then(|dst| dec.write(sum.value(), dst))
            .ok_or(short)?;
    }
    Ok(())
}

/// numcodecs 0.16.6's `Delta.encode` of element `v` of type `dec`, given the element before
/// it: `enc[0] = arr[0]`, then `enc[1:] = np.diff(arr)`, each difference computed in `dec`
/// (integers wrap, floats round in their own width, `float16` through `float32` as NumPy's
/// half loops do, bools `!=` as `np.diff` takes them); the caller casts it to `astype`.
#[allow(clippy::cast_possible_truncation)] // `float32` arithmetic is what NumPy does
fn difference(v: Value, prev: Option<Value>, dec: NumType) -> Value {
    let Some(p) = prev else {
        return v;
    };
    match (v, p) {
        (Value::Int(a), Value::Int(b)) if dec == NumType::Bool => Value::Int(i128::from(a != b)),
        (Value::Int(a), Value::Int(b)) => Value::Int(a.wrapping_sub(b)).cast(dec),
        (Value::Float(a), Value::Float(b)) => Value::Float(match dec {
            NumType::Float16 => f16_to_f64(f16_from_f64(f64::from(a as f32 - b as f32))),
            NumType::Float32 => f64::from(a as f32 - b as f32),
            _ => a - b,
        }),
        // One `Elem` reads every element: all `Int` or all `Float`.
        (Value::Int(_), Value::Float(_)) | (Value::Float(_), Value::Int(_)) => v,
    }
}

/// numcodecs `delta`, configured: elements stored as differences from the one before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delta {
    /// The array's element.
    pub dec: Elem,
    /// The stored element.
    pub enc: Elem,
}

impl Delta {
    pub(crate) const NAMES: &'static [&'static str] = &["numcodecs.delta"];
    pub(crate) const V2_ID: Option<&'static str> = Some("delta");
}

impl FromFilterConfig for Delta {
    fn from_config<C: Config + ?Sized>(
        r: &Reader<'_, C>,
        decoded: Option<Elem>,
    ) -> Result<Self, ChainError> {
        let dec = read_elem(r, "dtype", decoded)?;
        Ok(Self {
            dec,
            enc: read_elem(r, "astype", Some(dec))?,
        })
    }
}

impl FilterCodec for Delta {
    fn elems(&self) -> Option<(Elem, Elem)> {
        Some((self.dec, self.enc))
    }

    fn elems_mut(&mut self) -> Option<(&mut Elem, &mut Elem)> {
        Some((&mut self.dec, &mut self.enc))
    }

    fn encoded_len(&self, n: usize, _: usize) -> Option<usize> {
        n.checked_mul(self.enc.size())
    }

    fn keeps_elements(&self) -> bool {
        true
    }

    fn is_bytes_to_bytes(&self) -> bool {
        false
    }

    fn needs_spare(&self) -> bool {
        false
    }

    fn decode(&self, buf: &mut [u8], n: usize, _: &mut FilterAux<'_>) -> Result<(), DecodeError> {
        decode(buf, n, self.dec, self.enc).map_err(decode_error(CodecName::Delta))
    }

    fn encodes(&self) -> Result<(), &'static str> {
        Ok(())
    }

    fn encode(
        &self,
        run: &mut EncodeRun,
        src: &[u8],
        from: Elem,
        dst: &mut [u8],
    ) -> Result<usize, FilterError> {
        let (dec, enc) = (self.dec.ty, self.enc.ty);
        // No element is exempt from refusal here: a difference stored as something else
        // would shift every element the decoder sums after it (the fill value pads a 2-d
        // edge chunk's rows, with data after them).
        run.exempt = None;
        map_encode((src, from, self.dec), (dst, self.enc), run, |v, run| {
            // `enc[0] = arr[0]` is a scalar assignment: NumPy 2 raises OverflowError for an
            // integer out of a *signed* stored type's range; into an unsigned type it wraps,
            // as the differences (an array) do.
            let first_raises = run.prev.is_none()
                && matches!(v, Value::Int(_))
                && enc.kind() == 'i'
                && v.cast(enc) != v;
            let d = difference(v, run.prev, dec);
            if first_raises { Err(d) } else { Ok(d) }
        })
    }

    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{}({} stored as {})",
            CodecName::Delta,
            self.dec.ty.name(),
            self.enc.ty.name()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Endian;

    struct Case {
        dec: &'static str,
        enc: &'static str,
        n: usize,
        enc_bytes: &'static [u8],
        dec_bytes: &'static [u8],
    }

    // numcodecs 0.16.6 (NumPy 2.4.6): `Delta(dec, enc).decode(enc_bytes)` gives `dec_bytes`;
    // `enc_bytes` come from `encode` of typical data or are chosen to hit promotion rules.
    const CASES: &[Case] = &[
        // bool: numcodecs encodes with `np.diff` (an exclusive or) but decodes with `cumsum`
        // into bool (an inclusive or): not the inverse, and read here as numcodecs reads it.
        Case {
            dec: "|b1",
            enc: "|b1",
            n: 6,
            enc_bytes: &[1, 0, 0, 1, 1, 0],
            dec_bytes: &[1, 1, 1, 1, 1, 1],
        },
        Case {
            dec: "|b1",
            enc: "|u1",
            n: 7,
            enc_bytes: &[1, 0, 0, 1, 1, 0, 2],
            dec_bytes: &[1, 1, 1, 1, 1, 1, 1],
        },
        Case {
            dec: "|u1",
            enc: "|b1",
            n: 6,
            enc_bytes: &[1, 0, 0, 1, 1, 0],
            dec_bytes: &[1, 1, 1, 2, 3, 3],
        },
        Case {
            dec: "<i4",
            enc: "<i2",
            n: 9,
            enc_bytes: &[
                100, 0, 2, 0, 253, 255, 113, 254, 92, 118, 220, 138, 251, 255, 249, 255, 251, 255,
            ],
            dec_bytes: &[
                100, 0, 0, 0, 102, 0, 0, 0, 99, 0, 0, 0, 212, 254, 255, 255, 48, 117, 0, 0, 12, 0,
                0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 251, 255, 255, 255,
            ],
        },
        Case {
            dec: "<i8",
            enc: "<i8",
            n: 7,
            enc_bytes: &[
                0, 0, 0, 0, 0, 0, 0, 64, 0, 0, 0, 0, 0, 0, 0, 128, 255, 255, 255, 255, 255, 255,
                255, 191, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 128, 5, 0, 0, 0, 0, 0, 0, 0,
                250, 255, 255, 255, 255, 255, 255, 255,
            ],
            dec_bytes: &[
                0, 0, 0, 0, 0, 0, 0, 64, 0, 0, 0, 0, 0, 0, 0, 192, 255, 255, 255, 255, 255, 255,
                255, 127, 0, 0, 0, 0, 0, 0, 0, 128, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0,
                255, 255, 255, 255, 255, 255, 255, 255,
            ],
        },
        Case {
            dec: ">i2",
            enc: ">i4",
            n: 6,
            enc_bytes: &[
                0, 0, 0, 5, 0, 0, 127, 251, 255, 255, 255, 255, 255, 255, 128, 1, 0, 0, 3, 232,
                255, 255, 248, 48,
            ],
            dec_bytes: &[0, 5, 128, 0, 127, 255, 0, 0, 3, 232, 252, 24],
        },
        Case {
            dec: "<f8",
            enc: "<f4",
            n: 5,
            enc_bytes: &[
                205, 204, 204, 61, 154, 153, 25, 62, 249, 2, 21, 80, 249, 2, 21, 208, 171, 170,
                130, 64,
            ],
            dec_bytes: &[
                0, 0, 0, 160, 153, 153, 185, 63, 0, 0, 0, 8, 0, 0, 208, 63, 0, 0, 2, 32, 95, 160,
                2, 66, 0, 0, 0, 0, 0, 0, 208, 63, 0, 0, 0, 96, 85, 85, 17, 64,
            ],
        },
        Case {
            dec: "<f4",
            enc: "<i4",
            n: 5,
            enc_bytes: &[
                1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 249, 255, 255, 255,
            ],
            dec_bytes: &[
                0, 0, 128, 75, 1, 0, 128, 75, 2, 0, 128, 75, 3, 0, 128, 75, 255, 255, 127, 75,
            ],
        },
        Case {
            dec: "<i4",
            enc: "<f8",
            n: 5,
            enc_bytes: &[
                0, 0, 0, 0, 0, 0, 248, 63, 0, 0, 0, 0, 0, 0, 248, 63, 0, 0, 0, 0, 0, 0, 248, 63, 0,
                0, 0, 0, 0, 0, 208, 191, 0, 0, 0, 0, 0, 128, 37, 192,
            ],
            dec_bytes: &[
                1, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 250, 255, 255, 255,
            ],
        },
        Case {
            dec: "<i8",
            enc: "<u8",
            n: 4,
            enc_bytes: &[
                1, 0, 0, 0, 0, 0, 32, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0,
                0, 0, 0, 0, 64,
            ],
            dec_bytes: &[
                0, 0, 0, 0, 0, 0, 32, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0, 0, 0, 0, 0, 0, 32, 16, 0, 0,
                0, 0, 0, 0, 32, 80,
            ],
        },
        Case {
            dec: "|u1",
            enc: "|i1",
            n: 5,
            enc_bytes: &[255, 255, 5, 127, 127],
            dec_bytes: &[255, 254, 3, 130, 1],
        },
        Case {
            dec: ">f8",
            enc: "<i2",
            n: 4,
            enc_bytes: &[255, 255, 44, 1, 0, 128, 7, 0],
            dec_bytes: &[
                191, 240, 0, 0, 0, 0, 0, 0, 64, 114, 176, 0, 0, 0, 0, 0, 192, 223, 181, 64, 0, 0,
                0, 0, 192, 223, 179, 128, 0, 0, 0, 0,
            ],
        },
    ];

    fn run(case: &Case, slack: usize) {
        let dec = Elem::from_numpy(case.dec).unwrap();
        let enc = Elem::from_numpy(case.enc).unwrap();
        let len = crate::codec::filter::required_len(case.n, dec, enc).unwrap() + slack;
        let mut buf = [0xAAu8; 128];
        let buf = &mut buf[..len];
        buf[..case.enc_bytes.len()].copy_from_slice(case.enc_bytes);
        decode(buf, case.n, dec, enc).unwrap();
        assert_eq!(
            &buf[..case.dec_bytes.len()],
            case.dec_bytes,
            "{} <- {}",
            case.dec,
            case.enc
        );
    }

    #[test]
    fn matches_numcodecs() {
        for case in CASES {
            run(case, 0);
            run(case, 3);
        }
    }

    #[test]
    fn float32_sum_of_uint16_steps() {
        // numcodecs: Delta('<f4', '<u2').decode of 300 x 65535 sums in float32 (the promoted
        // type), so partial sums past 2^24 round: d[255], d[256], d[299] have these bits.
        let dec = Elem::new(NumType::Float32, Endian::Little);
        let enc = Elem::new(NumType::UInt16, Endian::Little);
        let mut buf = [0u8; 1200];
        for w in buf[..600].chunks_exact_mut(2) {
            w.copy_from_slice(&65535u16.to_le_bytes());
        }
        decode(&mut buf, 300, dec, enc).unwrap();
        let at = |i: usize| u32::from_le_bytes(buf[i * 4..i * 4 + 4].try_into().unwrap());
        assert_eq!(at(255), 0x4b7f_ff00);
        assert_eq!(at(256), 0x4b80_7f80);
        assert_eq!(at(299), 0x4b95_ff80);
    }

    #[test]
    fn sizes_are_checked() {
        let i2 = Elem::new(NumType::Int16, Endian::Little);
        let i8 = Elem::new(NumType::Int64, Endian::Big);
        let mut buf = [0u8; 15];
        assert_eq!(
            decode(&mut buf, 2, i8, i2),
            Err(FilterError::BufferTooSmall {
                needed: 16,
                len: 15
            })
        );
        assert_eq!(
            decode(&mut buf, 2, i2, i8),
            Err(FilterError::BufferTooSmall {
                needed: 16,
                len: 15
            })
        );
        assert_eq!(
            decode(&mut buf, usize::MAX, i2, i8),
            Err(FilterError::SizeOverflow {
                count: usize::MAX,
                elem_size: 8
            })
        );
        assert_eq!(decode(&mut [], 0, i8, i2), Ok(()));
        // One element is the element itself, cast.
        let mut one = [0xff, 0xfe, 0, 0, 0, 0, 0, 0];
        decode(&mut one, 1, i8, i2).unwrap();
        assert_eq!(one, (-257i64).to_be_bytes());
    }

    /// NumPy 2.4.6: `np.cumsum` of 12 float16 values (`default_rng(5)`, normal times 100),
    /// which adds in `float32` and rounds each partial sum to a half.
    #[test]
    fn float16_sums_round_as_numpy_does() {
        let enc: [u16; 12] = [
            54531, 55331, 52790, 20801, 22298, 18812, 53992, 54504, 21678, 22812, 20178, 55221,
        ];
        let want: [u16; 12] = [
            54531, 55972, 56171, 55835, 54556, 54380, 55264, 55908, 55309, 20540, 21413, 54213,
        ];
        let f2 = Elem::new(NumType::Float16, crate::codec::Endian::Little);
        let mut buf = [0u8; 24];
        for (b, h) in buf.chunks_exact_mut(2).zip(enc) {
            b.copy_from_slice(&h.to_le_bytes());
        }
        decode(&mut buf, 12, f2, f2).unwrap();
        for (b, h) in buf.chunks_exact(2).zip(want) {
            assert_eq!(b, h.to_le_bytes());
        }
    }

    extern crate std;
    use std::vec;
    use std::vec::Vec;

    fn le(ty: NumType) -> Elem {
        Elem::new(ty, Endian::Little)
    }

    #[test]
    fn encode_takes_differences_in_the_decoded_type_and_carries_them_across_windows() {
        let delta = Delta {
            dec: le(NumType::Int32),
            enc: Elem::new(NumType::Int16, Endian::Big),
        };
        let values: [i32; 5] = [5, 70_000, 3, -2, i32::MAX];
        let mut first_too_big = EncodeRun::default();
        assert_eq!(
            delta.encode(
                &mut first_too_big,
                &70_000i32.to_le_bytes(),
                le(NumType::Int32),
                &mut [0; 2]
            ),
            Err(FilterError::Unrepresentable {
                index: 0,
                ty: NumType::Int16
            }),
            "numcodecs raises OverflowError for a first element out of range"
        );
        // Into an unsigned type the first element wraps, as NumPy's setitem casts it.
        let to_u2 = Delta {
            dec: le(NumType::Int32),
            enc: le(NumType::UInt16),
        };
        let mut out = [0u8; 2];
        assert_eq!(
            to_u2.encode(
                &mut EncodeRun::default(),
                &(-1i32).to_le_bytes(),
                le(NumType::Int32),
                &mut out
            ),
            Ok(1)
        );
        assert_eq!(out, [0xff, 0xff]);
        let src: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        // The differences wrap in int32, then wrap again into int16 (NumPy's setitem cast).
        #[allow(clippy::cast_possible_truncation)]
        let want: Vec<u8> = [5i32, 69_995, 3 - 70_000, -5, i32::MAX.wrapping_sub(-2)]
            .iter()
            .flat_map(|&d| (d as i16).to_be_bytes())
            .collect();
        let mut whole = [0u8; 10];
        let mut run = EncodeRun::default();
        assert_eq!(
            delta.encode(&mut run, &src, le(NumType::Int32), &mut whole),
            Ok(5)
        );
        assert_eq!(&whole[..], &want[..]);
        // In two windows (2 elements, then 3): the same bytes.
        let (mut split, mut run) = ([0u8; 10], EncodeRun::default());
        let from = le(NumType::Int32);
        assert_eq!(
            delta.encode(&mut run, &src[..8], from, &mut split[..4]),
            Ok(2)
        );
        assert_eq!(
            delta.encode(&mut run, &src[8..], from, &mut split[4..]),
            Ok(3)
        );
        assert_eq!(split, whole);
        assert_eq!(run.done, 5);
    }

    #[test]
    fn encode_is_undone_by_decode_for_one_type() {
        for ty in [
            NumType::Int8,
            NumType::UInt16,
            NumType::Int64,
            NumType::UInt64,
        ] {
            let e = le(ty);
            let delta = Delta { dec: e, enc: e };
            let src: Vec<u8> = (0u8..64).map(|i| i.wrapping_mul(151) ^ 0x5a).collect();
            let n = src.len() / e.size();
            let mut buf = vec![0u8; src.len()];
            let mut run = EncodeRun::default();
            assert_eq!(delta.encode(&mut run, &src, e, &mut buf), Ok(n));
            decode(&mut buf, n, e, e).unwrap();
            assert_eq!(buf, src, "{ty:?}");
        }
    }

    #[test]
    fn encode_refuses_what_numpy_leaves_undefined_and_a_wrong_element() {
        let delta = Delta {
            dec: le(NumType::Float64),
            enc: le(NumType::Int8),
        };
        let src: Vec<u8> = [1.5f64, 100.0, 300.0, 0.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let mut dst = [0u8; 4];
        let mut run = EncodeRun::default();
        // 1.5 -> 1 and 98.5 -> 98 fit; 200 does not fit int8.
        assert_eq!(
            delta.encode(&mut run, &src, le(NumType::Float64), &mut dst),
            Err(FilterError::Unrepresentable {
                index: 2,
                ty: NumType::Int8
            })
        );
        assert_eq!(&dst[..2], &[1, 98]);
        assert_eq!(
            delta.encode(
                &mut EncodeRun::default(),
                &src,
                le(NumType::Int64),
                &mut dst
            ),
            Err(FilterError::TypeMismatch {
                expected: NumType::Float64,
                got: NumType::Int64
            })
        );
        assert!(matches!(
            delta.encode(
                &mut EncodeRun::default(),
                &src,
                le(NumType::Float64),
                &mut dst[..3]
            ),
            Err(FilterError::BufferTooSmall { needed: 4, len: 3 })
        ));
    }
}
