//! Fill values, as the specs write them in JSON, turned into native-endian element bytes.

#![allow(clippy::cast_possible_truncation)] // f64 to f32 rounding is the intended conversion; integer casts are range-checked

use serde_json::Value;

use super::DataType;

/// The bytes of one element, native byte order, at most 16.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FillValue {
    bytes: [u8; 16],
    len: usize,
}

impl FillValue {
    /// Zero bytes of `dtype`'s size (the v2 `null` fill value).
    pub fn zero(dtype: DataType) -> Self {
        Self {
            bytes: [0; 16],
            len: dtype.size(),
        }
    }

    /// The element's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or_default()
    }

    fn from_slice(b: &[u8]) -> Self {
        let mut bytes = [0u8; 16];
        let len = b.len().min(16);
        if let (Some(dst), Some(src)) = (bytes.get_mut(..len), b.get(..len)) {
            dst.copy_from_slice(src);
        }
        Self { bytes, len }
    }

    /// Parses a JSON fill value for `dtype`: numbers, booleans, `"NaN"`, `"Infinity"`,
    /// `"-Infinity"`, hex bit patterns (`"0x7fc00000"`), `[re, im]` for complex, and `null`
    /// (zero, as zarr-python reads v2 arrays without a fill value).
    ///
    /// # Errors
    /// A description of what does not fit the type.
    pub fn parse(dtype: DataType, v: &Value) -> Result<Self, String> {
        use DataType as T;
        if v.is_null() {
            return Ok(Self::zero(dtype));
        }
        let bad = || format!("fill value {v} does not fit {dtype}");
        let bytes: Vec<u8> = match dtype {
            T::Bool => match v {
                Value::Bool(b) => vec![u8::from(*b)],
                Value::Number(n) if n.as_u64() == Some(0) || n.as_u64() == Some(1) => {
                    vec![u8::from(n.as_u64() == Some(1))]
                }
                _ => return Err(bad()),
            },
            T::Int8 | T::Int16 | T::Int32 | T::Int64 => {
                let i = int(v).ok_or_else(bad)?;
                let size = dtype.size();
                let bits = 8 * size as u32;
                let min = if bits == 64 {
                    i64::MIN
                } else {
                    -(1i64 << (bits - 1))
                };
                let max = if bits == 64 {
                    i64::MAX
                } else {
                    (1i64 << (bits - 1)) - 1
                };
                if i < i128::from(min) || i > i128::from(max) {
                    return Err(bad());
                }
                native_int(i64::try_from(i).map_err(|_| bad())?, size)
            }
            T::UInt8 | T::UInt16 | T::UInt32 | T::UInt64 => {
                let i = int(v).ok_or_else(bad)?;
                let size = dtype.size();
                let max = if size == 8 {
                    u64::MAX
                } else {
                    (1u64 << (8 * size)) - 1
                };
                if i < 0 || i > i128::from(max) {
                    return Err(bad());
                }
                native_uint(u64::try_from(i).map_err(|_| bad())?, size)
            }
            T::Float16 => hex(v, 2)
                .or_else(|| float(v).map(|f| f16_bits(f).to_ne_bytes().to_vec()))
                .ok_or_else(bad)?,
            T::Float32 => hex(v, 4)
                .or_else(|| float(v).map(|f| (f as f32).to_ne_bytes().to_vec()))
                .ok_or_else(bad)?,
            T::Float64 => hex(v, 8)
                .or_else(|| float(v).map(|f| f.to_ne_bytes().to_vec()))
                .ok_or_else(bad)?,
            T::Complex64 | T::Complex128 => {
                let half = dtype.size() / 2;
                let part = |p: &Value| -> Option<Vec<u8>> {
                    hex(p, half).or_else(|| {
                        float(p).map(|f| {
                            if half == 4 {
                                (f as f32).to_ne_bytes().to_vec()
                            } else {
                                f.to_ne_bytes().to_vec()
                            }
                        })
                    })
                };
                match v {
                    Value::Array(parts) if parts.len() == 2 => {
                        let mut out = part(&parts[0]).ok_or_else(bad)?;
                        out.extend(part(&parts[1]).ok_or_else(bad)?);
                        out
                    }
                    _ => return Err(bad()),
                }
            }
        };
        if bytes.len() != dtype.size() {
            return Err(bad());
        }
        Ok(Self::from_slice(&bytes))
    }
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

/// A `"0x..."` bit pattern of exactly `size` bytes, as native-endian bytes.
fn hex(v: &Value, size: usize) -> Option<Vec<u8>> {
    let s = v.as_str()?.strip_prefix("0x")?;
    if s.len() != 2 * size {
        return None;
    }
    let bits = u64::from_str_radix(s, 16).ok()?;
    Some(native_uint(bits, size))
}

fn native_uint(v: u64, size: usize) -> Vec<u8> {
    let le = v.to_le_bytes();
    let mut b = le.get(..size).unwrap_or_default().to_vec();
    if cfg!(target_endian = "big") {
        b.reverse();
    }
    b
}

fn native_int(v: i64, size: usize) -> Vec<u8> {
    native_uint(u64::from_ne_bytes(v.to_ne_bytes()), size)
}

/// Rounds an `f64` to the nearest IEEE half-precision bit pattern.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
fn f16_bits(f: f64) -> u16 {
    let x = f as f32;
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    if x.is_nan() {
        return sign | 0x7E00;
    }
    let a = x.abs();
    if a.is_infinite() || a >= 65520.0 {
        return sign | 0x7C00;
    }
    if a < 6.103_515_6e-5 {
        // Subnormal: units of 2^-24.
        let m = (a * 16_777_216.0).round_ties_even() as u16;
        return sign | m;
    }
    let exp = ((bits >> 23) & 0xFF) as i32 - 127 + 15;
    let mant = bits & 0x7F_FFFF;
    let mut h = ((exp as u32) << 10) | (mant >> 13);
    let rest = mant & 0x1FFF;
    if rest > 0x1000 || (rest == 0x1000 && h & 1 == 1) {
        h += 1;
    }
    sign | h as u16
}
