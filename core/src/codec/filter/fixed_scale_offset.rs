//! numcodecs `fixedscaleoffset` decode: `FixedScaleOffset(offset, scale, dtype, astype)`, in
//! place.
//!
//! numcodecs 0.16.6 encodes `round((x - offset) * scale)` (NumPy's `around`: halves to even)
//! cast to `astype`, and decodes with exactly
//!
//! ```text
//! dec = (enc / scale) + offset      # enc: the stored array of type astype
//! dec = dec.astype(dtype)
//! ```
//!
//! where `scale` and `offset` are Python numbers, which NumPy 2 (NEP 50) treats as "weak":
//! - `astype` an integer type: `enc / scale` is a true division, computed in `float64`, then
//!   `+ offset` in `float64`;
//! - `astype` `float64`: the same, in `float64`;
//! - `astype` `float32`: the whole expression is computed in **`float32`**: `scale` and `offset`
//!   are rounded to `float32`, then `float32` division and addition;
//! - `astype` `float16`: likewise in the array's type: `scale` and `offset` are rounded to
//!   halves, and each operation is NumPy's half arithmetic, done in `float32` and rounded to a
//!   half.
//!
//! The result is then cast to `dtype` ([`Value::cast`]: rounded to nearest into `float32`,
//! truncated toward zero into an integer `dtype`).
//!
//! numcodecs itself accepts any scale: zero gives infinities or NaN. Here a scale of zero, NaN
//! or infinity is refused ([`FilterError::BadScale`]), as no encoder makes usable data with it.

use super::numeric::Elem;
use super::spec::{EncodeRun, FilterAux, FilterCodec, FromFilterConfig, decode_error, read_elem};
use super::{FilterError, NumType, Value, map_encode, map_in_place, round_ties_even};
use crate::codec::config::{Config, Reader};
use crate::codec::{ChainError, CodecName, DecodeError};
use crate::dtype::{f16_from_f64, f16_to_f64};

/// Decodes numcodecs `FixedScaleOffset(offset, scale, dtype=dec, astype=enc)` in place.
///
/// `buf` holds `n` elements of `enc` at its start and receives `n` elements of `dec` there; it
/// must have at least [`required_len`](super::required_len)`(n, dec, enc)` bytes. Elements are
/// converted one by one, backwards when `dec` is larger than `enc`, so no scratch is used.
///
/// # Errors
/// [`FilterError::BadScale`] if `scale` is zero, NaN or infinite,
/// [`FilterError::SizeOverflow`] if `n` elements do not fit in `usize` bytes,
/// [`FilterError::BufferTooSmall`] if `buf` is shorter than needed.
#[allow(clippy::cast_possible_truncation)] // `float32` arithmetic is what NumPy does
pub fn decode(
    buf: &mut [u8],
    n: usize,
    scale: f64,
    offset: f64,
    dec: Elem,
    enc: Elem,
) -> Result<(), FilterError> {
    if scale == 0.0 || !scale.is_finite() {
        return Err(FilterError::BadScale {
            bits: scale.to_bits(),
        });
    }
    if enc.ty == NumType::Float16 {
        // NumPy takes the scalars into the array's type, and does each half operation in
        // `float32`, rounding its result to a half.
        let half = |x: f64| f16_to_f64(f16_from_f64(x)) as f32;
        let (scale, offset) = (half(scale), half(offset));
        return map_in_place(buf, n, dec, enc, |v| {
            let quotient = half(f64::from(v.to_f64() as f32 / scale));
            Value::Float(f64::from(half(f64::from(quotient + offset))))
        });
    }
    if enc.ty == NumType::Float32 {
        let (scale, offset) = (scale as f32, offset as f32);
        map_in_place(buf, n, dec, enc, |v| {
            Value::Float(f64::from(v.to_f64() as f32 / scale + offset))
        })
    } else {
        map_in_place(buf, n, dec, enc, |v| {
            Value::Float(v.to_f64() / scale + offset)
        })
    }
}

/// numcodecs 0.16.6's `FixedScaleOffset.encode` of one float element `x`:
/// `np.around((arr - offset) * scale)` in the array's own float type (NEP 50: the Python
/// numbers are weak, so a `float32` array computes in `float32` and a `float16` one in halves,
/// each operation through `float32`), ties to even; the caller casts it to `astype`.
#[allow(clippy::cast_possible_truncation)] // `float32` arithmetic is what NumPy does
fn scaled(x: f64, scale: f64, offset: f64, dec: NumType) -> f64 {
    let half = |x: f64| f16_to_f64(f16_from_f64(x));
    match dec {
        NumType::Float16 => {
            let (scale, offset) = (half(scale) as f32, half(offset) as f32);
            let shifted = half(f64::from(x as f32 - offset)) as f32;
            round_ties_even(half(f64::from(shifted * scale)))
        }
        NumType::Float32 => {
            let (scale, offset) = (scale as f32, offset as f32);
            // An f32 is exact in an f64, and its rounded value is an f32 again.
            round_ties_even(f64::from((x as f32 - offset) * scale))
        }
        _ => round_ties_even((x - offset) * scale),
    }
}

/// numcodecs `fixedscaleoffset`, configured: `stored = round((x - offset) * scale)` as `enc`.
#[derive(Debug, Clone, Copy)]
pub struct FixedScaleOffset {
    /// The scale.
    pub scale: f64,
    /// The offset.
    pub offset: f64,
    /// The array's element.
    pub dec: Elem,
    /// The stored element.
    pub enc: Elem,
}

impl FixedScaleOffset {
    pub(crate) const NAMES: &'static [&'static str] = &["numcodecs.fixedscaleoffset"];
    pub(crate) const V2_ID: Option<&'static str> = Some("fixedscaleoffset");
}

/// Equal when every parameter has the same bits (so a NaN offset equals itself).
impl PartialEq for FixedScaleOffset {
    fn eq(&self, o: &Self) -> bool {
        self.scale.to_bits() == o.scale.to_bits()
            && self.offset.to_bits() == o.offset.to_bits()
            && (self.dec, self.enc) == (o.dec, o.enc)
    }
}

impl Eq for FixedScaleOffset {}

impl FromFilterConfig for FixedScaleOffset {
    fn from_config<C: Config + ?Sized>(
        r: &Reader<'_, C>,
        decoded: Option<Elem>,
    ) -> Result<Self, ChainError> {
        let dec = read_elem(r, "dtype", decoded)?;
        let scale = r.float("scale")?.ok_or(r.error("scale", "is missing"))?;
        if scale == 0.0 || !scale.is_finite() {
            return Err(r.error("scale", "must be a finite number other than 0"));
        }
        Ok(Self {
            scale,
            offset: r.float("offset")?.ok_or(r.error("offset", "is missing"))?,
            dec,
            enc: read_elem(r, "astype", Some(dec))?,
        })
    }
}

impl FilterCodec for FixedScaleOffset {
    fn elems(&self) -> Option<(Elem, Elem)> {
        Some((self.dec, self.enc))
    }

    fn elems_mut(&mut self) -> Option<(&mut Elem, &mut Elem)> {
        Some((&mut self.dec, &mut self.enc))
    }

    fn encoded_len(&self, n: usize, _: usize) -> Option<usize> {
        n.checked_mul(self.enc.size())
    }

    fn encodes(&self) -> Result<(), &'static str> {
        if self.dec.ty.is_float() {
            Ok(())
        } else {
            Err(
                "over integers (NumPy's arithmetic there depends on whether scale and offset \
                 were written as integers or floats, which zinto does not keep)",
            )
        }
    }

    fn encode(
        &self,
        run: &mut EncodeRun,
        src: &[u8],
        from: Elem,
        dst: &mut [u8],
    ) -> Result<usize, FilterError> {
        self.encodes().map_err(|_| FilterError::NoEncoder)?;
        let (scale, offset, dec) = (self.scale, self.offset, self.dec.ty);
        map_encode((src, from, self.dec), (dst, self.enc), run, |v, _| {
            Ok(Value::Float(scaled(v.to_f64(), scale, offset, dec)))
        })
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
        decode(buf, n, self.scale, self.offset, self.dec, self.enc)
            .map_err(decode_error(CodecName::FixedScaleOffset))
    }

    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{}({} stored as {}, scale {}, offset {})",
            CodecName::FixedScaleOffset,
            self.dec.ty.name(),
            self.enc.ty.name(),
            self.scale,
            self.offset
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Endian;

    struct Case {
        scale: f64,
        offset: f64,
        dec: &'static str,
        enc: &'static str,
        n: usize,
        enc_bytes: &'static [u8],
        dec_bytes: &'static [u8],
    }

    // numcodecs 0.16.6 (NumPy 2.4.6): `FixedScaleOffset(offset, scale, dec, enc)`: `decode` of
    // `enc_bytes` (from `encode`, or chosen) gives `dec_bytes`.
    const CASES: &[Case] = &[
        Case {
            scale: 10.0,
            offset: 1000.0,
            dec: "<f8",
            enc: "|u1",
            n: 10,
            enc_bytes: &[0, 1, 2, 3, 4, 6, 7, 8, 9, 10],
            dec_bytes: &[
                0, 0, 0, 0, 0, 64, 143, 64, 205, 204, 204, 204, 204, 64, 143, 64, 154, 153, 153,
                153, 153, 65, 143, 64, 102, 102, 102, 102, 102, 66, 143, 64, 51, 51, 51, 51, 51,
                67, 143, 64, 205, 204, 204, 204, 204, 68, 143, 64, 154, 153, 153, 153, 153, 69,
                143, 64, 102, 102, 102, 102, 102, 70, 143, 64, 51, 51, 51, 51, 51, 71, 143, 64, 0,
                0, 0, 0, 0, 72, 143, 64,
            ],
        },
        Case {
            scale: 100.0,
            offset: -3.5,
            dec: "<f8",
            enc: "<i2",
            n: 6,
            enc_bytes: &[0, 0, 94, 1, 217, 1, 26, 140, 230, 20, 110, 40],
            dec_bytes: &[
                0, 0, 0, 0, 0, 0, 12, 192, 0, 0, 0, 0, 0, 0, 0, 0, 176, 71, 225, 122, 20, 174, 243,
                63, 51, 51, 51, 51, 51, 195, 114, 192, 0, 0, 0, 0, 0, 0, 73, 64, 0, 0, 0, 0, 0, 0,
                89, 64,
            ],
        },
        Case {
            scale: 1000.0,
            offset: 0.5,
            dec: ">f8",
            enc: ">i2",
            n: 4,
            enc_bytes: &[0, 0, 254, 135, 132, 44, 125, 200],
            dec_bytes: &[
                63, 224, 0, 0, 0, 0, 0, 0, 63, 191, 124, 237, 145, 104, 114, 176, 192, 63, 51, 51,
                51, 51, 51, 51, 64, 64, 89, 153, 153, 153, 153, 154,
            ],
        },
        Case {
            scale: 3.0,
            offset: 0.1,
            dec: "<f8",
            enc: "<f4",
            n: 5,
            enc_bytes: &[
                0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 224, 64, 16, 36, 116, 73, 160, 194, 162, 72,
            ],
            dec_bytes: &[
                0, 0, 0, 192, 187, 187, 219, 63, 0, 0, 0, 160, 136, 136, 232, 63, 0, 0, 0, 96, 119,
                119, 3, 64, 0, 0, 0, 0, 87, 88, 20, 65, 0, 0, 0, 160, 113, 32, 251, 64,
            ],
        },
        Case {
            scale: 0.5,
            offset: 5.0,
            dec: "<i4",
            enc: "|u1",
            n: 5,
            enc_bytes: &[0, 1, 48, 148, 0],
            dec_bytes: &[
                5, 0, 0, 0, 7, 0, 0, 0, 101, 0, 0, 0, 45, 1, 0, 0, 5, 0, 0, 0,
            ],
        },
        Case {
            scale: 1.0,
            offset: -0.3,
            dec: "<i2",
            enc: "<f8",
            n: 3,
            enc_bytes: &[
                102, 102, 102, 102, 102, 102, 254, 191, 51, 51, 51, 51, 51, 51, 7, 64, 154, 153,
                153, 153, 153, 153, 201, 63,
            ],
            dec_bytes: &[254, 255, 2, 0, 0, 0],
        },
        Case {
            scale: 4.0,
            offset: 1.5,
            dec: "<f4",
            enc: "<f8",
            n: 3,
            enc_bytes: &[
                154, 153, 153, 153, 153, 153, 185, 63, 51, 51, 51, 51, 51, 51, 29, 192, 85, 85, 85,
                85, 85, 213, 116, 64,
            ],
            dec_bytes: &[51, 51, 195, 63, 102, 102, 166, 190, 171, 170, 169, 66],
        },
        Case {
            scale: 3.0,
            offset: 0.25,
            dec: "<f4",
            enc: ">u4",
            n: 4,
            enc_bytes: &[0, 0, 0, 0, 0, 0, 0, 1, 255, 255, 255, 255, 0, 0, 48, 57],
            dec_bytes: &[
                0, 0, 128, 62, 85, 85, 21, 63, 171, 170, 170, 78, 0, 154, 128, 69,
            ],
        },
    ];

    fn run(case: &Case, slack: usize) {
        let dec = Elem::from_numpy(case.dec).unwrap();
        let enc = Elem::from_numpy(case.enc).unwrap();
        let len = crate::codec::filter::required_len(case.n, dec, enc).unwrap() + slack;
        let mut buf = [0x55u8; 128];
        let buf = &mut buf[..len];
        buf[..case.enc_bytes.len()].copy_from_slice(case.enc_bytes);
        decode(buf, case.n, case.scale, case.offset, dec, enc).unwrap();
        assert_eq!(
            &buf[..case.dec_bytes.len()],
            case.dec_bytes,
            "{} <- {}",
            case.dec,
            case.enc
        );
    }

    /// numcodecs 0.16.6 (NumPy 2.4.6): `FixedScaleOffset(offset=1.37, scale=10.3, dtype,
    /// astype='<f2')`, decoding halves (given as bits) into each float type (given as bits).
    #[test]
    fn halves_decode_in_half_arithmetic_as_numpy_does() {
        let halves: [[u16; 8]; 3] = [
            [24578, 25482, 22576, 25478, 23756, 24216, 25228, 24156],
            [24656, 19200, 25076, 24632, 23832, 25148, 23720, 24340],
            [22464, 24132, 23064, 23552, 25070, 23628, 24472, 25544],
        ];
        let f8: [u64; 8] = [
            4632400817494687744,
            4636389845680259072,
            4624286421681700864,
            4636376651540725760,
            4629471718518292480,
            4631156170332045312,
            4635523430517571584,
            4630953860192534528,
        ];
        let f4: [u32; 8] = [
            1113317376, 1076805632, 1117175808, 1113014272, 1107566592, 1117634560, 1106411520,
            1110802432,
        ];
        let f2: [u16; 8] = [19124, 20746, 19732, 20111, 21681, 20229, 21010, 22050];
        let enc = Elem::new(NumType::Float16, Endian::Little);
        let run = |stored: &[u16; 8], ty| {
            let mut buf = [0u8; 64];
            for (i, h) in stored.iter().enumerate() {
                buf[2 * i..2 * i + 2].copy_from_slice(&h.to_le_bytes());
            }
            decode(&mut buf, 8, 10.3, 1.37, Elem::new(ty, Endian::Little), enc).unwrap();
            buf
        };
        let got = run(&halves[0], NumType::Float64);
        for (i, b) in f8.iter().enumerate() {
            assert_eq!(got[8 * i..8 * i + 8], b.to_le_bytes(), "f8 {i}");
        }
        let got = run(&halves[1], NumType::Float32);
        for (i, b) in f4.iter().enumerate() {
            assert_eq!(got[4 * i..4 * i + 4], b.to_le_bytes(), "f4 {i}");
        }
        let got = run(&halves[2], NumType::Float16);
        for (i, b) in f2.iter().enumerate() {
            assert_eq!(got[2 * i..2 * i + 2], b.to_le_bytes(), "f2 {i}");
        }
    }

    #[test]
    fn matches_numcodecs() {
        for case in CASES {
            run(case, 0);
            run(case, 5);
        }
    }

    #[test]
    fn bad_scales_and_sizes_are_errors() {
        let f8 = Elem::new(NumType::Float64, Endian::Little);
        let u1 = Elem::new(NumType::UInt8, Endian::Little);
        let mut buf = [0u8; 16];
        for scale in [0.0, -0.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(
                decode(&mut buf, 2, scale, 0.0, f8, u1),
                Err(FilterError::BadScale {
                    bits: scale.to_bits()
                })
            );
        }
        assert_eq!(
            decode(&mut buf, 3, 10.0, 0.0, f8, u1),
            Err(FilterError::BufferTooSmall {
                needed: 24,
                len: 16
            })
        );
        assert_eq!(
            decode(&mut buf, usize::MAX / 2, 10.0, 0.0, f8, u1),
            Err(FilterError::SizeOverflow {
                count: usize::MAX / 2,
                elem_size: 8
            })
        );
        // Buffer untouched by a refused decode; a negative scale is fine.
        assert_eq!(buf, [0u8; 16]);
        buf[0] = 4;
        decode(&mut buf, 2, -2.0, 1.0, f8, u1).unwrap();
        assert_eq!(buf[..8], (-1.0f64).to_le_bytes());
        assert_eq!(buf[8..], 1.0f64.to_le_bytes());
    }

    #[test]
    fn encode_rounds_halves_to_even_in_the_array_type_and_refuses_what_does_not_fit() {
        let f8 = Elem::new(NumType::Float64, Endian::Little);
        let u1 = Elem::new(NumType::UInt8, Endian::Little);
        let fso = FixedScaleOffset {
            scale: 10.0,
            offset: 1000.0,
            dec: f8,
            enc: u1,
        };
        let mut src = [0u8; 40];
        for (d, v) in src
            .chunks_exact_mut(8)
            .zip([1000.25f64, 1000.75, 1000.0, 1025.5, 1030.0])
        {
            d.copy_from_slice(&v.to_le_bytes());
        }
        let mut dst = [0u8; 5];
        assert_eq!(
            fso.encode(&mut EncodeRun::default(), &src, f8, &mut dst),
            Err(FilterError::Unrepresentable {
                index: 4,
                ty: NumType::UInt8
            })
        );
        assert_eq!(&dst[..4], &[2, 8, 0, 255]);
        // The fill value (0 here, padding edge chunks) is stored as the saturating cast gives
        // it: -10000 as 0.
        let mut run = EncodeRun {
            exempt: Some(Value::Float(0.0)),
            ..EncodeRun::default()
        };
        let zeros = [0u8; 8];
        assert_eq!(fso.encode(&mut run, &zeros, f8, &mut dst), Ok(1));
        assert_eq!(dst[0], 0);
        // Only the fill value is exempt: another value out of range is still refused.
        assert!(
            fso.encode(&mut run, &2000.5f64.to_le_bytes(), f8, &mut dst)
                .is_err()
        );
        let nan = f64::NAN.to_le_bytes();
        assert!(matches!(
            fso.encode(&mut EncodeRun::default(), &nan, f8, &mut dst),
            Err(FilterError::Unrepresentable { index: 0, .. })
        ));
        // float32 data computes in float32: 0.1 rounds there first.
        let f4 = Elem::new(NumType::Float32, Endian::Little);
        let fso = FixedScaleOffset {
            scale: 3.0,
            offset: 0.5,
            dec: f4,
            enc: Elem::new(NumType::Int32, Endian::Big),
        };
        let src = 2.0f32.to_le_bytes();
        let mut dst = [0u8; 4];
        assert_eq!(
            fso.encode(&mut EncodeRun::default(), &src, f4, &mut dst),
            Ok(1)
        );
        assert_eq!(dst, 4i32.to_be_bytes()); // (2 - 0.5) * 3 = 4.5 -> 4
    }

    #[test]
    fn integers_are_not_encoded() {
        let i4 = Elem::new(NumType::Int32, Endian::Little);
        let fso = FixedScaleOffset {
            scale: 2.0,
            offset: 1.0,
            dec: i4,
            enc: i4,
        };
        assert!(fso.encodes().is_err());
        assert_eq!(
            fso.encode(&mut EncodeRun::default(), &[0; 4], i4, &mut [0; 4]),
            Err(FilterError::NoEncoder)
        );
    }

    #[test]
    fn round_ties_even_is_numpys_around() {
        let cases: [(f64, f64); 8] = [
            (0.5, 0.0),
            (1.5, 2.0),
            (2.5, 2.0),
            (-2.5, -2.0),
            (-0.3, -0.0),
            (2.499_999_999_999_999_6, 2.0),
            (4_503_599_627_370_497.0, 4_503_599_627_370_497.0),
            (1e300, 1e300),
        ];
        for (x, want) in cases {
            let got = round_ties_even(x);
            assert_eq!(got.to_bits(), want.to_bits(), "{x}");
        }
        assert!(round_ties_even(f64::NAN).is_nan());
        assert_eq!(round_ties_even(f64::NEG_INFINITY), f64::NEG_INFINITY);
    }
}
