//! `--format json`: a selection's values as nested lists, one level per dimension.
//!
//! Numbers are JSON numbers (NaN and infinities as the strings `"NaN"`, `"Infinity"`,
//! `"-Infinity"`, as Zarr writes fill values; `float16` widened to `float32`), complex numbers
//! `[re, im]`, dates ISO 8601 strings as NumPy prints them, durations integer counts of their
//! unit, NaT `null`, strings strings (trailing NUL padding removed), bytes base64.

use crate::{DataType, VlenData};
use serde_json::{Value, json};

use crate::cli::dates::datetime_iso;

/// Selections with more elements than this are refused: JSON is for looking, `.npy` for data.
pub const MAX_JSON_ELEMENTS: u64 = 1_000_000;

/// The values of a fixed-size selection (`bytes`, native order) nested to `shape`.
pub fn fixed(dtype: DataType, bytes: &[u8], shape: &[u64]) -> Result<Value, String> {
    let size = dtype
        .fixed_size()
        .ok_or_else(|| format!("{dtype} has no fixed size"))?;
    let flat = bytes
        .chunks_exact(size)
        .map(|e| element(dtype, e))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(nest(flat, shape))
}

/// The values of a variable-length selection nested to `shape`.
pub fn vlen(data: &VlenData, shape: &[u64]) -> Value {
    let flat = data
        .iter()
        .map(|item| match std::str::from_utf8(item) {
            Ok(s) if data.is_utf8() => json!(s),
            _ => json!(base64(item)),
        })
        .collect();
    nest(flat, shape)
}

fn ne<const N: usize>(b: &[u8]) -> Result<[u8; N], String> {
    b.try_into()
        .map_err(|_| format!("an element of {} bytes, expected {N}", b.len()))
}

fn float(f: f64) -> Value {
    if f.is_nan() {
        json!("NaN")
    } else if f.is_infinite() {
        json!(if f > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        json!(f)
    }
}

/// A single-precision value with its own shortest digits (`7.845223`, not the `f64` widening
/// `7.845223426818848`), as NumPy prints a `float32`.
fn float32(f: f32) -> Value {
    match f.to_string().parse::<f64>() {
        Ok(shortest) if f.is_finite() => float(shortest),
        _ => float(f64::from(f)),
    }
}

/// One element as JSON.
fn element(dtype: DataType, b: &[u8]) -> Result<Value, String> {
    use DataType as T;
    Ok(match dtype {
        T::Bool => json!(b.first().is_some_and(|&x| x != 0)),
        T::Int8 => json!(i8::from_ne_bytes(ne(b)?)),
        T::Int16 => json!(i16::from_ne_bytes(ne(b)?)),
        T::Int32 => json!(i32::from_ne_bytes(ne(b)?)),
        T::Int64 => json!(i64::from_ne_bytes(ne(b)?)),
        T::UInt8 => json!(u8::from_ne_bytes(ne(b)?)),
        T::UInt16 => json!(u16::from_ne_bytes(ne(b)?)),
        T::UInt32 => json!(u32::from_ne_bytes(ne(b)?)),
        T::UInt64 => json!(u64::from_ne_bytes(ne(b)?)),
        T::Float16 => float32(f16_to_f32(u16::from_ne_bytes(ne(b)?))),
        T::Float32 => float32(f32::from_ne_bytes(ne(b)?)),
        T::Float64 => float(f64::from_ne_bytes(ne(b)?)),
        T::Complex64 => {
            let (re, im) = b.split_at(4);
            json!([
                float32(f32::from_ne_bytes(ne(re)?)),
                float32(f32::from_ne_bytes(ne(im)?))
            ])
        }
        T::Complex128 => {
            let (re, im) = b.split_at(8);
            json!([
                float(f64::from_ne_bytes(ne(re)?)),
                float(f64::from_ne_bytes(ne(im)?))
            ])
        }
        T::DateTime64(unit) => match datetime_iso(i64::from_ne_bytes(ne(b)?), unit) {
            Some(s) => json!(s),
            None => Value::Null,
        },
        T::TimeDelta64(_) => match i64::from_ne_bytes(ne(b)?) {
            i64::MIN => Value::Null,
            n => json!(n),
        },
        T::FixedUtf32 { .. } => {
            let s: String = b
                .chunks_exact(4)
                .map(|c| ne::<4>(c).map(u32::from_ne_bytes))
                .collect::<Result<Vec<u32>, _>>()?
                .into_iter()
                .take_while(|&c| c != 0)
                .map(|c| char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER))
                .collect();
            json!(s)
        }
        T::FixedBytes { .. } => {
            let end = b.iter().rposition(|&x| x != 0).map_or(0, |i| i + 1);
            json!(base64(&b[..end]))
        }
        other => return Err(format!("no JSON form for {other}")),
    })
}

/// `flat` (C order) as nested lists of `shape`; a 0-d shape is the one value itself.
fn nest(flat: Vec<Value>, shape: &[u64]) -> Value {
    let Some((&outer, inner)) = shape.split_first() else {
        return flat.into_iter().next().unwrap_or(Value::Null);
    };
    if inner.is_empty() {
        return Value::Array(flat);
    }
    let per: usize = inner
        .iter()
        .map(|&n| usize::try_from(n).unwrap_or(usize::MAX))
        .fold(1usize, usize::saturating_mul);
    if per == 0 {
        return Value::Array((0..outer).map(|_| nest(Vec::new(), inner)).collect());
    }
    let mut rest = flat.into_iter();
    Value::Array(
        (0..outer)
            .map(|_| nest(rest.by_ref().take(per).collect(), inner))
            .collect(),
    )
}

/// IEEE half-precision bits as an `f32` (exact).
fn f16_to_f32(h: u16) -> f32 {
    half::f16::from_bits(h).to_f32()
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn base64_matches_the_rfc_vectors() {
        for (raw, text) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(raw.as_bytes()), text);
        }
    }

    #[test]
    fn half_precision_widens_exactly() {
        assert_eq!(f16_to_f32(0x3C00), 1.0);
        assert_eq!(f16_to_f32(0xC000), -2.0);
        assert_eq!(f16_to_f32(0x7BFF), 65504.0);
        assert_eq!(f16_to_f32(0x0001), 5.960_464_5e-8);
        assert!(f16_to_f32(0x7E00).is_nan());
        assert_eq!(f16_to_f32(0xFC00), f32::NEG_INFINITY);
    }

    #[test]
    fn nesting_follows_the_shape() {
        let flat: Vec<Value> = (0..6).map(|i| json!(i)).collect();
        assert_eq!(nest(flat.clone(), &[2, 3]), json!([[0, 1, 2], [3, 4, 5]]));
        assert_eq!(nest(flat[..1].to_vec(), &[]), json!(0));
        assert_eq!(nest(vec![], &[2, 0]), json!([[], []]));
        let floats: Vec<u8> = [1.5f32, f32::NAN]
            .iter()
            .flat_map(|f| f.to_ne_bytes())
            .collect();
        assert_eq!(
            fixed(DataType::Float32, &floats, &[2]).unwrap(),
            json!([1.5, "NaN"])
        );
        let tenth = 0.1f32.to_ne_bytes();
        assert_eq!(fixed(DataType::Float32, &tenth, &[]).unwrap(), json!(0.1));
    }
}
