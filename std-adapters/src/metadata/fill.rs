//! Fill values, as the specs write them in JSON, turned into native-endian element bytes.

#![allow(clippy::cast_possible_truncation)] // f64 to f32 rounding is intended; f64 to i128 only for whole numbers below 1.8e19

use serde_json::Value;

use super::DataType;

/// The bytes of one element, native byte order: exactly the data type's size, or for the
/// variable-length types the value's own bytes (UTF-8 for strings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FillValue {
    bytes: Vec<u8>,
}

/// `$v` (an `i128`) as a `$t` in native byte order, if it fits: the range check is the
/// conversion, so each integer type's bounds and width come from the type itself.
macro_rules! ne_int {
    ($t:ty, $v:expr) => {
        <$t>::try_from($v).ok().map(|x| x.to_ne_bytes().to_vec())
    };
}

impl FillValue {
    /// Zero bytes of `dtype`'s size (the v2 `null` fill value); empty for the
    /// variable-length types (the empty string).
    pub fn zero(dtype: DataType) -> Self {
        Self {
            bytes: vec![0; dtype.fixed_size().unwrap_or(0)],
        }
    }

    /// The element's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The fill value as metadata states it, for a number, bool, date, duration or
    /// variable-length value of `dtype` (floats not finite as `"NaN"`, `"Infinity"`,
    /// `"-Infinity"`; a NaN of another payload as its hex bits; complex as `[re, im]`; NaT as
    /// `"NaT"`; strings as themselves, bytes as base64, fixed-length ones without their
    /// trailing NULs); `None` for bytes of another size, or UTF-32 that is not text. Parsed
    /// back by [`FillValue::parse`] to the same bytes.
    pub fn to_json(&self, dtype: DataType) -> Option<Value> {
        use DataType as T;
        let b = self.bytes.as_slice();
        fn float(x: f64, bits: String, canonical_nan: bool) -> Value {
            match x {
                x if x.is_nan() && canonical_nan => Value::from("NaN"),
                x if x.is_nan() => Value::from(bits),
                f64::INFINITY => Value::from("Infinity"),
                f64::NEG_INFINITY => Value::from("-Infinity"),
                x => Value::from(x),
            }
        }
        let f32_of = |b: &[u8]| -> Option<Value> {
            let x = f32::from_ne_bytes(b.try_into().ok()?);
            let canonical = x.to_bits() == f32::NAN.to_bits();
            Some(float(
                f64::from(x),
                format!("0x{:08x}", x.to_bits()),
                canonical,
            ))
        };
        let f64_of = |b: &[u8]| -> Option<Value> {
            let x = f64::from_ne_bytes(b.try_into().ok()?);
            let canonical = x.to_bits() == f64::NAN.to_bits();
            Some(float(x, format!("0x{:016x}", x.to_bits()), canonical))
        };
        Some(match dtype {
            T::Bool => Value::from(*b.first()? != 0),
            T::Int8 => Value::from(i8::from_ne_bytes(b.try_into().ok()?)),
            T::Int16 => Value::from(i16::from_ne_bytes(b.try_into().ok()?)),
            T::Int32 => Value::from(i32::from_ne_bytes(b.try_into().ok()?)),
            T::Int64 => Value::from(i64::from_ne_bytes(b.try_into().ok()?)),
            T::UInt8 => Value::from(u8::from_ne_bytes(b.try_into().ok()?)),
            T::UInt16 => Value::from(u16::from_ne_bytes(b.try_into().ok()?)),
            T::UInt32 => Value::from(u32::from_ne_bytes(b.try_into().ok()?)),
            T::UInt64 => Value::from(u64::from_ne_bytes(b.try_into().ok()?)),
            T::Float16 => {
                let bits = u16::from_ne_bytes(b.try_into().ok()?);
                let x = half::f16::from_bits(bits);
                let canonical = bits == 0x7e00;
                float(x.to_f64(), format!("0x{bits:04x}"), canonical)
            }
            T::Float32 => f32_of(b)?,
            T::Float64 => f64_of(b)?,
            T::Complex64 => Value::from(vec![f32_of(b.get(..4)?)?, f32_of(b.get(4..)?)?]),
            T::Complex128 => Value::from(vec![f64_of(b.get(..8)?)?, f64_of(b.get(8..)?)?]),
            T::DateTime64(_) | T::TimeDelta64(_) => match i64::from_ne_bytes(b.try_into().ok()?) {
                i64::MIN => Value::from("NaT"),
                count => Value::from(count),
            },
            T::String => Value::from(std::str::from_utf8(b).ok()?),
            T::Bytes => {
                use base64::Engine;
                Value::from(base64::engine::general_purpose::STANDARD.encode(b))
            }
            // Trailing NULs are padding, as NumPy and zarr-python drop them; parsing pads
            // them back.
            T::FixedUtf32 { .. } | T::FixedBytes { .. } if Some(b.len()) != dtype.fixed_size() => {
                return None;
            }
            T::FixedUtf32 { .. } => {
                let units = b.chunks_exact(4).map(|u| {
                    let unit = u32::from_ne_bytes(u.try_into().ok()?);
                    char::from_u32(unit)
                });
                let mut text = units.collect::<Option<String>>()?;
                text.truncate(text.trim_end_matches('\0').len());
                Value::from(text)
            }
            T::FixedBytes { .. } => {
                use base64::Engine;
                let end = b.iter().rposition(|&x| x != 0).map_or(0, |i| i + 1);
                Value::from(base64::engine::general_purpose::STANDARD.encode(b.get(..end)?))
            }
        })
    }

    /// Parses a JSON fill value for `dtype`: numbers, booleans, `"NaN"`, `"Infinity"`,
    /// `"-Infinity"`, hex bit patterns (`"0x7fc00000"`), `[re, im]` for complex, and `null`
    /// (zero, as zarr-python reads v2 arrays without a fill value). Dates and durations take
    /// an integer count of their unit or `"NaT"`; strings take a string (UTF-32 encoded and
    /// zero-padded for `fixed_length_utf32`); byte strings take base64 text (`"YWI="`), as
    /// both specs write them.
    ///
    /// # Errors
    /// A description of what does not fit the type.
    pub fn parse(dtype: DataType, v: &Value) -> Result<Self, String> {
        use DataType as T;
        if v.is_null() {
            // zarr-python reads a v2 `null` fill as NaT for dates and durations, zero otherwise.
            if matches!(dtype, T::DateTime64(_) | T::TimeDelta64(_)) {
                return Ok(Self {
                    bytes: i64::MIN.to_ne_bytes().to_vec(),
                });
            }
            return Ok(Self::zero(dtype));
        }
        let bytes = match dtype {
            T::Bool => match v {
                Value::Bool(b) => Some(vec![u8::from(*b)]),
                Value::Number(n) if n.as_u64() == Some(0) || n.as_u64() == Some(1) => {
                    Some(vec![u8::from(n.as_u64() == Some(1))])
                }
                _ => None,
            },
            T::Int8 => int(v).and_then(|i| ne_int!(i8, i)),
            T::Int16 => int(v).and_then(|i| ne_int!(i16, i)),
            T::Int32 => int(v).and_then(|i| ne_int!(i32, i)),
            T::Int64 => int(v).and_then(|i| ne_int!(i64, i)),
            T::UInt8 => int(v).and_then(|i| ne_int!(u8, i)),
            T::UInt16 => int(v).and_then(|i| ne_int!(u16, i)),
            T::UInt32 => int(v).and_then(|i| ne_int!(u32, i)),
            T::UInt64 => int(v).and_then(|i| ne_int!(u64, i)),
            T::Float16 => f16_bytes(v),
            T::Float32 => f32_bytes(v),
            T::Float64 => f64_bytes(v),
            T::Complex64 => complex(v, f32_bytes),
            T::Complex128 => complex(v, f64_bytes),
            T::DateTime64(_) | T::TimeDelta64(_) => match v {
                Value::String(s) if s == "NaT" => Some(i64::MIN.to_ne_bytes().to_vec()),
                _ => int(v).and_then(|i| ne_int!(i64, i)),
            },
            T::FixedUtf32 { chars } => v.as_str().and_then(|s| utf32_padded(s, chars)),
            T::FixedBytes { len } => v
                .as_str()
                .and_then(base64_decode)
                .filter(|b| b.len() <= len as usize)
                .map(|mut b| {
                    b.resize(len as usize, 0);
                    b
                }),
            T::String => v.as_str().map(|s| s.as_bytes().to_vec()),
            T::Bytes => v.as_str().and_then(base64_decode),
        }
        .ok_or_else(|| format!("fill value {v} does not fit {dtype}"))?;
        // Each arm above builds exactly its type's bytes; a mismatch means the type table
        // and this parser disagree, which is ours to fix, not the metadata's.
        if let Some(size) = dtype.fixed_size()
            && bytes.len() != size
        {
            return Err(format!(
                "fill value {v} parsed to {} bytes but {dtype} elements are {size} bytes; a bug in zinto",
                bytes.len(),
            ));
        }
        Ok(Self { bytes })
    }
}

/// A half-precision value: `"0x"` and 4 hex digits of bits, or a number rounded to nearest.
fn f16_bytes(v: &Value) -> Option<Vec<u8>> {
    hex(v, 4)
        .and_then(|s| u16::from_str_radix(s, 16).ok())
        .or_else(|| float(v).map(zinto_core::dtype::f16_from_f64))
        .map(|bits| bits.to_ne_bytes().to_vec())
}

/// A single-precision value: `"0x"` and 8 hex digits of bits, or a number rounded to nearest.
fn f32_bytes(v: &Value) -> Option<Vec<u8>> {
    hex(v, 8)
        .and_then(|s| u32::from_str_radix(s, 16).ok())
        .or_else(|| float(v).map(|f| (f as f32).to_bits()))
        .map(|bits| bits.to_ne_bytes().to_vec())
}

/// A double-precision value: `"0x"` and 16 hex digits of bits, or a number.
fn f64_bytes(v: &Value) -> Option<Vec<u8>> {
    hex(v, 16)
        .and_then(|s| u64::from_str_radix(s, 16).ok())
        .or_else(|| float(v).map(f64::to_bits))
        .map(|bits| bits.to_ne_bytes().to_vec())
}

/// `[re, im]`, each part read by `part`.
fn complex(v: &Value, part: fn(&Value) -> Option<Vec<u8>>) -> Option<Vec<u8>> {
    let Value::Array(parts) = v else {
        return None;
    };
    let [re, im] = parts.as_slice() else {
        return None;
    };
    let mut out = part(re)?;
    out.extend(part(im)?);
    Some(out)
}

/// `s` as `chars` UTF-32 code units in native byte order, zero-padded; `None` if longer.
fn utf32_padded(s: &str, chars: u32) -> Option<Vec<u8>> {
    if s.chars().count() > chars as usize {
        return None;
    }
    let mut out = Vec::with_capacity(chars as usize * 4);
    for c in s.chars() {
        out.extend(u32::from(c).to_ne_bytes());
    }
    out.resize(chars as usize * 4, 0);
    Some(out)
}

/// Standard base64 (RFC 4648, `+/`, `=` padding required to a multiple of 4); bits past the
/// last byte need not be zero (`"YWJ="` is `ab`), as Python's `b64decode` reads it.
fn base64_decode(s: &str) -> Option<Vec<u8>> {
    use base64::Engine;
    use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_allow_trailing_bits(true),
    );
    LENIENT.decode(s).ok()
}

fn int(v: &Value) -> Option<i128> {
    match v {
        Value::Number(n) => n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
            .or_else(|| {
                let f = n.as_f64()?;
                (f.fract() == 0.0 && f.abs() < 1.8e19).then_some(f as i128)
            }),
        _ => None,
    }
}

fn float(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => match s.as_str() {
            "NaN" => Some(f64::NAN),
            "Infinity" => Some(f64::INFINITY),
            "-Infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}

/// The digits of a `"0x..."` bit pattern with exactly `digits` hex digits (nothing else: no
/// sign, which `from_str_radix` would otherwise accept).
fn hex(v: &Value, digits: usize) -> Option<&str> {
    let s = v.as_str()?.strip_prefix("0x")?;
    (s.len() == digits && s.bytes().all(|b| b.is_ascii_hexdigit())).then_some(s)
}

#[cfg(test)]
mod tests {

    /// Every number type's fill value, written as JSON and read back, is the same bytes:
    /// random bit patterns (NaNs of any payload, infinities, subnormals included).
    #[test]
    fn to_json_reads_back_as_the_same_bytes() {
        use DataType as T;
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let types = [
            T::Bool,
            T::Int8,
            T::Int16,
            T::Int32,
            T::Int64,
            T::UInt8,
            T::UInt16,
            T::UInt32,
            T::UInt64,
            T::Float16,
            T::Float32,
            T::Float64,
            T::Complex64,
            T::Complex128,
        ];
        for dtype in types {
            let size = dtype.fixed_size().unwrap();
            for round in 0..2000 {
                let mut bytes: Vec<u8> = (0..size)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        x as u8
                    })
                    .collect();
                if round == 0 {
                    bytes.fill(0xff); // a NaN of every payload bit set
                }
                if round == 1 && size >= 4 {
                    // The canonical NaN, negated: not the "NaN" NumPy writes.
                    let at = if dtype == T::Float64 || dtype == T::Complex128 {
                        7
                    } else {
                        3
                    };
                    bytes.fill(0);
                    bytes[at] = 0xff;
                    bytes[at - 1] = if at == 7 { 0xf8 } else { 0xc0 };
                }
                if dtype == T::Bool {
                    bytes[0] &= 1;
                }
                let fill = FillValue {
                    bytes: bytes.clone(),
                };
                let json = fill.to_json(dtype).unwrap();
                let back = FillValue::parse(dtype, &json).unwrap();
                assert_eq!(back.as_bytes(), &bytes[..], "{dtype}: {json}");
            }
        }
        // The other types with a JSON form, each parsed back to the same bytes.
        let ns = super::super::dtype::TimeUnit {
            unit: super::super::dtype::Unit::Nanosecond,
            scale: 1,
        };
        for (dtype, bytes) in [
            (T::String, "çà ".as_bytes().to_vec()),
            (T::String, vec![]),
            (T::Bytes, vec![0, 255, 7]),
            (T::DateTime64(ns), i64::MIN.to_ne_bytes().to_vec()),
            (T::TimeDelta64(ns), (-5i64).to_ne_bytes().to_vec()),
            (T::FixedBytes { len: 4 }, vec![b'a', 0, b'b', 0]),
            (T::FixedBytes { len: 3 }, vec![0, 0, 0]),
            (
                T::FixedUtf32 { chars: 3 },
                ['ø', '–', '\0']
                    .iter()
                    .flat_map(|&c| u32::from(c).to_ne_bytes())
                    .collect(),
            ),
        ] {
            let fill = FillValue {
                bytes: bytes.clone(),
            };
            let json = fill.to_json(dtype).unwrap();
            assert_eq!(FillValue::parse(dtype, &json).unwrap().as_bytes(), bytes);
        }
        // Not UTF-8: no string states it.
        let bad = FillValue { bytes: vec![0xff] };
        assert!(bad.to_json(T::String).is_none());
        // A UTF-32 unit that is no character (a lone surrogate): none either.
        let bad = FillValue {
            bytes: 0xd800u32.to_ne_bytes().to_vec(),
        };
        assert!(bad.to_json(T::FixedUtf32 { chars: 1 }).is_none());
        // As zarr-python writes them: without the padding.
        let ab = FillValue {
            bytes: vec![b'a', b'b', 0, 0],
        };
        assert_eq!(ab.to_json(T::FixedBytes { len: 4 }), Some(json!("YWI=")));
        // Bytes of another size than the type's: none.
        assert!(ab.to_json(T::FixedBytes { len: 3 }).is_none());
        assert!(ab.to_json(T::FixedUtf32 { chars: 2 }).is_none());
    }

    use serde_json::json;

    use super::*;

    const ALL: [DataType; 14] = [
        DataType::Bool,
        DataType::Int8,
        DataType::Int16,
        DataType::Int32,
        DataType::Int64,
        DataType::UInt8,
        DataType::UInt16,
        DataType::UInt32,
        DataType::UInt64,
        DataType::Float16,
        DataType::Float32,
        DataType::Float64,
        DataType::Complex64,
        DataType::Complex128,
    ];

    #[test]
    fn every_type_parses_to_exactly_its_size() {
        for dtype in ALL {
            let v = match dtype {
                DataType::Complex64 | DataType::Complex128 => json!([1, 0]),
                _ => json!(1),
            };
            let fill = FillValue::parse(dtype, &v).unwrap();
            assert_eq!(Some(fill.as_bytes().len()), dtype.fixed_size(), "{dtype}");
            assert_eq!(
                Some(FillValue::zero(dtype).as_bytes().len()),
                dtype.fixed_size(),
                "{dtype}"
            );
        }
    }

    #[test]
    fn dates_strings_and_bytes() {
        use crate::metadata::dtype::{TimeUnit, Unit};
        let ns = DataType::DateTime64(TimeUnit {
            unit: Unit::Nanosecond,
            scale: 1,
        });
        let parse = |dtype, v: Value| FillValue::parse(dtype, &v).map(|f| f.as_bytes().to_vec());
        assert_eq!(parse(ns, json!("NaT")).unwrap(), i64::MIN.to_ne_bytes());
        // A v2 `null` fill is NaT for dates, as zarr-python reads it (zero for numbers).
        assert_eq!(parse(ns, json!(null)).unwrap(), i64::MIN.to_ne_bytes());
        assert_eq!(parse(ns, json!(-5)).unwrap(), (-5i64).to_ne_bytes());
        let u2 = DataType::FixedUtf32 { chars: 2 };
        let mut expected = u32::from('é').to_ne_bytes().to_vec();
        expected.extend([0; 4]);
        assert_eq!(parse(u2, json!("é")).unwrap(), expected);
        assert!(parse(u2, json!("abc")).is_err());
        let s4 = DataType::FixedBytes { len: 4 };
        assert_eq!(parse(s4, json!("YWI=")).unwrap(), b"ab\0\0");
        assert!(parse(s4, json!("YWJjZGU=")).is_err(), "5 bytes into 4");
        assert!(parse(s4, json!("YWI")).is_err(), "unpadded");
        assert_eq!(parse(DataType::String, json!("ø")).unwrap(), "ø".as_bytes());
        assert_eq!(parse(DataType::Bytes, json!("AAE=")).unwrap(), [0, 1]);
        assert_eq!(parse(DataType::String, json!(null)).unwrap(), b"");
    }

    #[test]
    fn base64_matches_the_rfc_vectors() {
        for (text, raw) in [
            ("", ""),
            ("Zg==", "f"),
            ("Zm8=", "fo"),
            ("Zm9v", "foo"),
            ("Zm9vYg==", "foob"),
            ("Zm9vYmE=", "fooba"),
            ("Zm9vYmFy", "foobar"),
            // Bits past the last byte that are not zero are ignored, as Python ignores them.
            ("YWJ=", "ab"),
            ("Zh==", "f"),
        ] {
            assert_eq!(base64_decode(text).unwrap(), raw.as_bytes(), "{text}");
        }
        for bad in ["Zg=", "Z===", "Zg==Zg==", "Zm9v!A==", "=Zg="] {
            assert_eq!(base64_decode(bad), None, "{bad}");
        }
    }

    #[test]
    fn hex_patterns_are_hex_digits_only() {
        // `from_str_radix` takes a leading '+': these were read as 0x0fff, 0x07fc0000, ...
        for (dtype, v) in [
            (DataType::Float16, "0x+fff"),
            (DataType::Float32, "0x+7fc0000"),
            (DataType::Float64, "0x+ff0000000000000"),
            (DataType::Float32, "0x7fc0000 "),
        ] {
            assert!(
                FillValue::parse(dtype, &json!(v)).is_err(),
                "{dtype} {v} was accepted"
            );
        }
        assert_eq!(
            FillValue::parse(DataType::Float32, &json!("0x7FC00000"))
                .unwrap()
                .as_bytes(),
            0x7fc0_0000u32.to_ne_bytes()
        );
    }

    #[test]
    fn integers_take_their_types_bounds() {
        let fits = |dtype, v: Value| FillValue::parse(dtype, &v).is_ok();
        assert!(fits(DataType::Int8, json!(-128)) && !fits(DataType::Int8, json!(128)));
        assert!(fits(DataType::Int64, json!(i64::MIN)) && !fits(DataType::Int64, json!(u64::MAX)));
        assert!(fits(DataType::UInt32, json!(u32::MAX)) && !fits(DataType::UInt32, json!(-1)));
        assert!(fits(DataType::UInt64, json!(1e19)) && !fits(DataType::UInt64, json!(2e19)));
        assert_eq!(
            FillValue::parse(DataType::Int32, &json!(-2))
                .unwrap()
                .as_bytes(),
            (-2i32).to_ne_bytes()
        );
    }

    #[test]
    fn complex_needs_exactly_two_parts() {
        for v in [json!([1.0]), json!([1.0, 2.0, 3.0]), json!({"re": 1.0})] {
            assert!(FillValue::parse(DataType::Complex128, &v).is_err(), "{v}");
        }
        let mut expected = 1f64.to_ne_bytes().to_vec();
        expected.extend(0x7ff8_0000_0000_0001u64.to_ne_bytes());
        assert_eq!(
            FillValue::parse(DataType::Complex128, &json!([1, "0x7ff8000000000001"]))
                .unwrap()
                .as_bytes(),
            expected
        );
    }

    /// 1.0004882812509095 lies just above the midpoint of 1.0 (0x3c00) and the next half
    /// (0x3c01); rounded through `f32` first it lands on the midpoint and ties to even, 0x3c00.
    /// NumPy (`np.float16(1.0004882812509095).view(np.uint16)`) gives 0x3c01.
    #[test]
    fn a_float16_fill_value_rounds_once_as_numpy_does() {
        let fill = FillValue::parse(DataType::Float16, &json!(1.000_488_281_250_909_5)).unwrap();
        assert_eq!(fill.as_bytes(), 0x3c01u16.to_ne_bytes());
        // Exactly the midpoint ties to even.
        let fill = FillValue::parse(DataType::Float16, &json!(1.000_488_281_25)).unwrap();
        assert_eq!(fill.as_bytes(), 0x3c00u16.to_ne_bytes());
    }
}
