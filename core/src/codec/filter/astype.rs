//! Cast-based decodes, in place: numcodecs `astype`, and the cast `quantize` decodes with
//! (`quantize.rs` holds that codec; `bitround.rs` the identity `bitround` decodes as).
//!
//! - `AsType(encode_dtype, decode_dtype)` decodes with `enc.astype(decode_dtype)`: a NumPy
//!   cast from the stored `encode_dtype` to `decode_dtype`, [`decode`]`(buf, n, dec =
//!   decode_dtype, enc = encode_dtype)`.
//! - `Quantize(digits, dtype, astype)` is lossy on encode (rounds to `2^-bits` with `bits =
//!   ceil(log2(10^digits))`) and decodes with `enc.astype(dtype)`: the cast from `astype` to
//!   `dtype`, both of which numcodecs requires to be floating-point ([`decode_quantize`]).
//!   `digits` plays no part in decoding.
//! - `BitRound(keepbits)` decodes as the **identity**: numcodecs only reinterprets the bytes
//!   (`int` to `float` of the same width) and copies them, so a caller treats it as a no-op and
//!   needs no function.
//!
//! Casts are [`Value::cast`](super::Value::cast): exact or rounded to nearest into floats, wrapping between
//! integers, truncating toward zero from floats into integers (saturating where NumPy's result
//! is undefined: NaN, infinities, out of range).

use super::numeric::Elem;
use super::spec::{EncodeRun, FilterAux, FilterCodec, FromFilterConfig, decode_error, read_elem};
use super::{FilterError, map_encode, map_in_place};
use crate::codec::config::{Config, Reader};
use crate::codec::{ChainError, CodecName, DecodeError};

/// Casts `n` elements of `enc` into `dec` in place, as NumPy's `astype(dec)`.
///
/// `buf` holds `n` elements of `enc` at its start and receives `n` elements of `dec` there; it
/// must have at least [`required_len`](super::required_len)`(n, dec, enc)` bytes. Elements are
/// converted one by one, backwards when `dec` is larger than `enc`, so no scratch is used.
///
/// # Errors
/// [`FilterError::SizeOverflow`] if `n` elements do not fit in `usize` bytes,
/// [`FilterError::BufferTooSmall`] if `buf` is shorter than needed.
pub fn decode(buf: &mut [u8], n: usize, dec: Elem, enc: Elem) -> Result<(), FilterError> {
    map_in_place(buf, n, dec, enc, |v| v)
}

/// Decodes numcodecs `Quantize(digits, dtype=dec, astype=enc)`: [`decode`] after checking that
/// both types are floating-point, as numcodecs' constructor does.
///
/// # Errors
/// [`FilterError::NotFloat`] if `dec` or `enc` is an integer type, else as [`decode`].
pub fn decode_quantize(buf: &mut [u8], n: usize, dec: Elem, enc: Elem) -> Result<(), FilterError> {
    for e in [dec, enc] {
        if !e.ty.is_float() {
            return Err(FilterError::NotFloat { ty: e.ty });
        }
    }
    decode(buf, n, dec, enc)
}

/// numcodecs `astype`, configured: elements stored as `enc`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AsType {
    /// The array's element.
    pub dec: Elem,
    /// The stored element.
    pub enc: Elem,
}

impl AsType {
    pub(crate) const NAMES: &'static [&'static str] = &["numcodecs.astype"];
    pub(crate) const V2_ID: Option<&'static str> = Some("astype");
}

impl FromFilterConfig for AsType {
    fn from_config<C: Config + ?Sized>(
        r: &Reader<'_, C>,
        decoded: Option<Elem>,
    ) -> Result<Self, ChainError> {
        Ok(Self {
            dec: read_elem(r, "decode_dtype", decoded)?,
            enc: read_elem(r, "encode_dtype", None)?,
        })
    }
}

impl FilterCodec for AsType {
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
        decode(buf, n, self.dec, self.enc).map_err(decode_error(CodecName::AsType))
    }

    fn encodes(&self) -> Result<(), &'static str> {
        Ok(())
    }

    /// numcodecs' `arr.astype(encode_dtype)`: the cast, element by element.
    fn encode(
        &self,
        run: &mut EncodeRun,
        src: &[u8],
        from: Elem,
        dst: &mut [u8],
    ) -> Result<usize, FilterError> {
        map_encode((src, from, self.dec), (dst, self.enc), run, |v, _| Ok(v))
    }

    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{}({} stored as {})",
            CodecName::AsType,
            self.dec.ty.name(),
            self.enc.ty.name()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Endian;
    use crate::codec::filter::NumType;

    struct Case {
        dec: &'static str,
        enc: &'static str,
        n: usize,
        enc_bytes: &'static [u8],
        dec_bytes: &'static [u8],
    }

    // numcodecs 0.16.6 (NumPy 2.4.6): `AsType(encode_dtype=enc, decode_dtype=dec).decode`.
    const CASES: &[Case] = &[
        Case {
            dec: "<f8",
            enc: "<f4",
            n: 4,
            enc_bytes: &[
                205, 204, 204, 61, 171, 170, 170, 62, 202, 242, 73, 113, 0, 0, 32, 192,
            ],
            dec_bytes: &[
                0, 0, 0, 160, 153, 153, 185, 63, 0, 0, 0, 96, 85, 85, 213, 63, 0, 0, 0, 64, 89, 62,
                41, 70, 0, 0, 0, 0, 0, 0, 4, 192,
            ],
        },
        Case {
            dec: "<f4",
            enc: "<f8",
            n: 5,
            enc_bytes: &[
                154, 153, 153, 153, 153, 153, 185, 63, 85, 85, 85, 85, 85, 85, 213, 63, 29, 74,
                156, 244, 135, 130, 7, 72, 0, 0, 0, 0, 0, 0, 4, 192, 0, 0, 0, 16, 0, 0, 112, 65,
            ],
            dec_bytes: &[
                205, 204, 204, 61, 171, 170, 170, 62, 0, 0, 128, 127, 0, 0, 32, 192, 0, 0, 128, 75,
            ],
        },
        Case {
            dec: "<i8",
            enc: ">i2",
            n: 3,
            enc_bytes: &[255, 255, 1, 44, 128, 0],
            dec_bytes: &[
                255, 255, 255, 255, 255, 255, 255, 255, 44, 1, 0, 0, 0, 0, 0, 0, 0, 128, 255, 255,
                255, 255, 255, 255,
            ],
        },
        Case {
            dec: "|u1",
            enc: "<i4",
            n: 4,
            enc_bytes: &[44, 1, 0, 0, 255, 255, 255, 255, 255, 0, 0, 0, 1, 0, 1, 0],
            dec_bytes: &[44, 255, 255, 1],
        },
        Case {
            dec: ">i4",
            enc: "<f8",
            n: 3,
            enc_bytes: &[
                51, 51, 51, 51, 51, 51, 7, 192, 51, 51, 51, 51, 51, 51, 7, 64, 0, 0, 0, 0, 8, 106,
                248, 64,
            ],
            dec_bytes: &[255, 255, 255, 254, 0, 0, 0, 2, 0, 1, 134, 160],
        },
        Case {
            dec: "<f4",
            enc: "<u8",
            n: 3,
            enc_bytes: &[
                255, 255, 255, 255, 255, 255, 255, 255, 3, 0, 0, 1, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0,
                0, 0,
            ],
            dec_bytes: &[0, 0, 128, 95, 2, 0, 128, 75, 0, 0, 64, 64],
        },
    ];

    struct QCase {
        digits: u32,
        dec: &'static str,
        enc: &'static str,
        n: usize,
        enc_bytes: &'static [u8],
        dec_bytes: &'static [u8],
    }

    // numcodecs 0.16.6: `Quantize(digits, dtype=dec, astype=enc)`: `encode` of some data gives
    // `enc_bytes`, `decode` of those gives `dec_bytes`.
    const QCASES: &[QCase] = &[
        QCase {
            digits: 3,
            dec: "<f8",
            enc: "<f8",
            n: 5,
            enc_bytes: &[
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 208, 63, 0, 0, 0, 0, 0, 0, 224, 63, 0, 0,
                0, 0, 0, 0, 232, 63, 0, 0, 0, 0, 0, 0, 240, 63,
            ],
            dec_bytes: &[
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 208, 63, 0, 0, 0, 0, 0, 0, 224, 63, 0, 0,
                0, 0, 0, 0, 232, 63, 0, 0, 0, 0, 0, 0, 240, 63,
            ],
        },
        QCase {
            digits: 3,
            dec: "<f8",
            enc: "<f4",
            n: 5,
            enc_bytes: &[
                0, 0, 18, 62, 0, 0, 201, 62, 0, 128, 36, 63, 0, 128, 100, 63, 0, 64, 146, 63,
            ],
            dec_bytes: &[
                0, 0, 0, 0, 0, 64, 194, 63, 0, 0, 0, 0, 0, 32, 217, 63, 0, 0, 0, 0, 0, 144, 228,
                63, 0, 0, 0, 0, 0, 144, 236, 63, 0, 0, 0, 0, 0, 72, 242, 63,
            ],
        },
        QCase {
            digits: 2,
            dec: "<f4",
            enc: "<f8",
            n: 5,
            enc_bytes: &[
                0, 0, 0, 0, 0, 0, 194, 63, 0, 0, 0, 0, 0, 0, 217, 63, 0, 0, 0, 0, 0, 128, 228, 63,
                0, 0, 0, 0, 0, 128, 236, 63, 0, 0, 0, 0, 0, 64, 242, 63,
            ],
            dec_bytes: &[
                0, 0, 16, 62, 0, 0, 200, 62, 0, 0, 36, 63, 0, 0, 100, 63, 0, 0, 146, 63,
            ],
        },
        QCase {
            digits: 3,
            dec: ">f8",
            enc: ">f4",
            n: 3,
            enc_bytes: &[62, 170, 128, 0, 191, 42, 192, 0, 70, 95, 54, 219],
            dec_bytes: &[
                63, 213, 80, 0, 0, 0, 0, 0, 191, 229, 88, 0, 0, 0, 0, 0, 64, 203, 230, 219, 96, 0,
                0, 0,
            ],
        },
    ];

    fn run(dec: &str, enc: &str, n: usize, enc_bytes: &[u8], dec_bytes: &[u8], quantize: bool) {
        let dec = Elem::from_numpy(dec).unwrap();
        let enc = Elem::from_numpy(enc).unwrap();
        for slack in [0, 3] {
            let len = crate::codec::filter::required_len(n, dec, enc).unwrap() + slack;
            let mut buf = [0xC3u8; 128];
            let buf = &mut buf[..len];
            buf[..enc_bytes.len()].copy_from_slice(enc_bytes);
            if quantize {
                decode_quantize(buf, n, dec, enc).unwrap();
            } else {
                decode(buf, n, dec, enc).unwrap();
            }
            assert_eq!(&buf[..dec_bytes.len()], dec_bytes, "{dec:?} <- {enc:?}");
        }
    }

    #[test]
    fn astype_matches_numcodecs() {
        for c in CASES {
            run(c.dec, c.enc, c.n, c.enc_bytes, c.dec_bytes, false);
        }
    }

    #[test]
    fn quantize_matches_numcodecs() {
        for c in QCASES {
            assert!(c.digits > 0);
            run(c.dec, c.enc, c.n, c.enc_bytes, c.dec_bytes, true);
        }
    }

    #[test]
    fn quantize_needs_floats_and_sizes_are_checked() {
        let f8 = Elem::new(NumType::Float64, Endian::Big);
        let i4 = Elem::new(NumType::Int32, Endian::Little);
        let mut buf = [0u8; 8];
        assert_eq!(
            decode_quantize(&mut buf, 1, f8, i4),
            Err(FilterError::NotFloat { ty: NumType::Int32 })
        );
        assert_eq!(
            decode_quantize(&mut buf, 1, i4, f8),
            Err(FilterError::NotFloat { ty: NumType::Int32 })
        );
        assert_eq!(
            decode(&mut buf, 2, f8, i4),
            Err(FilterError::BufferTooSmall { needed: 16, len: 8 })
        );
        assert_eq!(
            decode(&mut buf, usize::MAX, i4, i4),
            Err(FilterError::SizeOverflow {
                count: usize::MAX,
                elem_size: 4
            })
        );
        // Same type, other byte order: a byte swap.
        let mut b = [1, 2, 3, 4];
        decode(&mut b, 1, Elem::new(NumType::Int32, Endian::Big), i4).unwrap();
        assert_eq!(b, [4, 3, 2, 1]);
    }
}
