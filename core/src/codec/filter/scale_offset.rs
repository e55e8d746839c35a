//! `scale_offset` (zarr-extensions, zarr-python 3.4): an array-to-array codec that stores
//! `(x - offset) * scale` and decodes `x / scale + offset`, in the arithmetic of the element
//! type it is given (the array's, or the one the codec before it in the chain makes), which it
//! keeps. Decode and encode, in place and without allocation.
//!
//! As zarr-python 3.4.2 computes it (`zarr/codecs/scale_offset.py`):
//! - floats: in the type's own width (NumPy does not promote: a `float32` array is scaled in
//!   `float32`, a `float16` one in halves, each operation through `float32` and rounded to a
//!   half); overflow to an infinity and `0 / 0` are values like any other;
//! - integers: exactly, refused where the result does not fit the type: on encode, a product
//!   out of range; on decode, a stored value `scale` does not divide (the spec asks for true
//!   division, exact in the type) or a sum out of range.
//!
//! Configuration: `{"offset": 10.0, "scale": 100.0}`, each a JSON number or, for floats, the
//! strings `"NaN"`, `"Infinity"`, `"-Infinity"` or `"0x..."` (the value's bits), as fill values
//! are written; `offset` defaults to 0 and `scale` to 1, and the whole `configuration` may be
//! absent. A `scale` of 0 is refused, as zarr-python refuses it.

use super::numeric::Elem;
use super::spec::{EncodeRun, FilterAux, FilterCodec, FromFilterConfig, decode_error};
use super::{FilterError, NumType, Value, map_encode, try_map_in_place};
use crate::codec::config::{Config, ConfigValue, Reader};
use crate::codec::{ChainError, CodecName, DecodeError};
use crate::dtype::{f16_from_f64, f16_to_f64};

/// `scale_offset`, configured for its element type.
#[derive(Debug, Clone, Copy)]
pub struct ScaleOffset {
    /// The element it is given (the array's, or the codec's before it) ...
    pub dec: Elem,
    /// ... and the one it stores: the same type, kept apart as every filter keeps them so that
    /// the chain can set the stored byte order.
    pub enc: Elem,
    /// Subtracted before scaling: `Int` for an integer type, `Float` for a float type.
    pub offset: Value,
    /// Multiplied by on encode, divided by on decode; never 0.
    pub scale: Value,
}

impl ScaleOffset {
    pub(crate) const NAMES: &'static [&'static str] = &["scale_offset"];
    pub(crate) const V2_ID: Option<&'static str> = None;

    /// `x` decoded: `x / scale + offset`, or `None` where an integer result is not exact or
    /// does not fit.
    #[must_use]
    pub fn decode_value(&self, x: Value) -> Option<Value> {
        let ty = self.dec.ty;
        match (x, self.scale, self.offset) {
            (Value::Int(x), Value::Int(s), Value::Int(o)) => {
                if x.checked_rem(s)? != 0 {
                    return None;
                }
                in_range(x.checked_div(s)?.checked_add(o)?, ty)
            }
            (Value::Float(x), Value::Float(s), Value::Float(o)) => Some(Value::Float(float_op(
                ty,
                float_op(ty, x, s, Op::Div),
                o,
                Op::Add,
            ))),
            // One `Elem` reads every element, and the configuration was read for it.
            _ => None,
        }
    }

    /// Why stored element `index`, `x`, has no decoded value: a remainder, or a result out of
    /// range.
    fn why_not(&self, x: Value, index: u64) -> FilterError {
        match (x, self.scale) {
            (Value::Int(x), Value::Int(s)) if x.checked_rem(s) != Some(0) => {
                FilterError::Inexact { index }
            }
            _ => FilterError::OutOfRange {
                index,
                ty: self.dec.ty,
            },
        }
    }

    /// `x` encoded: `(x - offset) * scale`, or `None` where an integer result does not fit.
    #[must_use]
    pub fn encode_value(&self, x: Value) -> Option<Value> {
        let ty = self.dec.ty;
        match (x, self.scale, self.offset) {
            (Value::Int(x), Value::Int(s), Value::Int(o)) => {
                in_range(x.checked_sub(o)?.checked_mul(s)?, ty)
            }
            (Value::Float(x), Value::Float(s), Value::Float(o)) => Some(Value::Float(float_op(
                ty,
                float_op(ty, x, o, Op::Sub),
                s,
                Op::Mul,
            ))),
            _ => None,
        }
    }
}

/// Equal when every parameter has the same bits (a NaN offset equals itself).
impl PartialEq for ScaleOffset {
    fn eq(&self, o: &Self) -> bool {
        (self.dec, self.enc) == (o.dec, o.enc)
            && self.offset.same_bits(o.offset)
            && self.scale.same_bits(o.scale)
    }
}

impl Eq for ScaleOffset {}

#[derive(Clone, Copy)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

/// `a op b` in float type `ty`: `float64` as it is, `float32` in `f32`, `float16` in `f32`
/// rounded to a half (NumPy's half loops).
#[allow(clippy::cast_possible_truncation)] // `float32` arithmetic is what NumPy does
fn float_op(ty: NumType, a: f64, b: f64, op: Op) -> f64 {
    let f32_op = |a: f32, b: f32| match op {
        Op::Add => a + b,
        Op::Sub => a - b,
        Op::Mul => a * b,
        Op::Div => a / b,
    };
    match ty {
        NumType::Float16 => f16_to_f64(f16_from_f64(f64::from(f32_op(a as f32, b as f32)))),
        NumType::Float32 => f64::from(f32_op(a as f32, b as f32)),
        _ => match op {
            Op::Add => a + b,
            Op::Sub => a - b,
            Op::Mul => a * b,
            Op::Div => a / b,
        },
    }
}

/// The smallest and largest value of integer type `ty`.
fn int_bounds(ty: NumType) -> (i128, i128) {
    let bits = ty.size() * 8;
    if ty.kind() == 'u' {
        (0, (1i128 << bits) - 1)
    } else {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    }
}

/// `v` as a value of integer type `ty`, if it is one.
fn in_range(v: i128, ty: NumType) -> Option<Value> {
    let (lo, hi) = int_bounds(ty);
    (lo..=hi).contains(&v).then_some(Value::Int(v))
}

/// Configuration key `key` as a value of `ty`, or `default` when absent.
fn read_value<C: Config + ?Sized>(
    r: &Reader<'_, C>,
    key: &'static str,
    ty: NumType,
    default: i8,
) -> Result<Value, ChainError> {
    let value = r.get(key);
    // The spec's fields are numbers: null is not "absent" (that would read another default).
    if value == Some(ConfigValue::Null) {
        return Err(r.error(key, "must be a number, not null"));
    }
    if ty.is_float() {
        let x = match value {
            None => f64::from(default),
            Some(ConfigValue::Str(s)) => special_float(s, ty)
                .ok_or(r.error(key, "is not a number, NaN, Infinity, -Infinity or 0x bits"))?,
            Some(_) => r.float(key)?.unwrap_or(f64::from(default)),
        };
        // The type's own value, as zarr-python takes the scalar into the array's type.
        return Ok(Value::Float(x).cast(ty));
    }
    let i = match value {
        None => i128::from(default),
        Some(ConfigValue::Int(i)) => i128::from(i),
        Some(ConfigValue::UInt(u)) => i128::from(u),
        Some(_) => return Err(r.error(key, "must be an integer for an integer type")),
    };
    in_range(i, ty).ok_or(r.error(key, "is out of the element type's range"))
}

/// `"NaN"`, `"Infinity"`, `"-Infinity"`, or `"0x"` and the bits of a `ty`.
fn special_float(s: &str, ty: NumType) -> Option<f64> {
    match s {
        "NaN" => Some(f64::NAN),
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ => {
            let hex = s.strip_prefix("0x")?;
            if hex.len() != ty.size() * 2 {
                return None;
            }
            let bits = u64::from_str_radix(hex, 16).ok()?;
            Some(match ty {
                NumType::Float16 => f16_to_f64(u16::try_from(bits).ok()?),
                NumType::Float32 => f64::from(f32::from_bits(u32::try_from(bits).ok()?)),
                _ => f64::from_bits(bits),
            })
        }
    }
}

impl FromFilterConfig for ScaleOffset {
    fn from_config<C: Config + ?Sized>(
        r: &Reader<'_, C>,
        decoded: Option<Elem>,
    ) -> Result<Self, ChainError> {
        let elem = decoded
            .filter(|e| e.ty != NumType::Bool)
            .ok_or(r.error("data_type", "must be an integer or floating-point type"))?;
        let offset = read_value(r, "offset", elem.ty, 0)?;
        let scale = read_value(r, "scale", elem.ty, 1)?;
        if matches!(scale, Value::Int(0)) || matches!(scale, Value::Float(s) if s == 0.0) {
            return Err(r.error("scale", "must not be 0"));
        }
        Ok(Self {
            dec: elem,
            enc: elem,
            offset,
            scale,
        })
    }
}

impl FilterCodec for ScaleOffset {
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

    /// Each element in place: `x / scale + offset`.
    fn decode(&self, buf: &mut [u8], n: usize, _: &mut FilterAux<'_>) -> Result<(), DecodeError> {
        try_map_in_place(buf, n, self.dec, self.enc, |i, x| {
            self.decode_value(x)
                .ok_or_else(|| self.why_not(x, i as u64))
        })
        .map_err(decode_error(CodecName::ScaleOffset))
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
        map_encode((src, from, self.dec), (dst, self.enc), run, |v, _| {
            self.encode_value(v).ok_or(v)
        })
    }

    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let show = |v: Value, f: &mut core::fmt::Formatter<'_>| match v {
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => write!(f, "{x}"),
        };
        write!(
            f,
            "{}({}, offset ",
            CodecName::ScaleOffset,
            self.dec.ty.name()
        )?;
        show(self.offset, f)?;
        f.write_str(", scale ")?;
        show(self.scale, f)?;
        f.write_str(")")
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::codec::Filter;
    use crate::codec::{ConfigValue, Endian};
    use proptest::prelude::*;

    fn configured(ty: NumType, config: &[(&str, ConfigValue<'_>)]) -> Result<Filter, ChainError> {
        let elem = Some(Elem::new(ty, Endian::Little));
        Filter::from_config(CodecName::ScaleOffset, config, elem).map(Option::unwrap)
    }

    fn codec(ty: NumType, offset: ConfigValue<'_>, scale: ConfigValue<'_>) -> ScaleOffset {
        match configured(ty, &[("offset", offset), ("scale", scale)]).unwrap() {
            Filter::ScaleOffset(c) => c,
            other => panic!("{other:?}"),
        }
    }

    /// Absent keys are 0 and 1; a scale of 0, a float for an integer type, a value out of the
    /// type's range, a bool array and an unknown string are refused by key.
    #[test]
    fn configurations_are_read_for_the_element_type_and_checked() {
        use ConfigValue::{Float, Int, Str};
        let c = configured(NumType::Int16, &[]).unwrap();
        assert_eq!(
            c.decoded_elem(),
            Some(Elem::new(NumType::Int16, Endian::Little))
        );
        let refused = |ty, config: &[(&str, ConfigValue<'_>)], key: &str| {
            let e = configured(ty, config).unwrap_err();
            assert!(
                matches!(e, ChainError::Config { key: k, .. } if k == key),
                "{e:?}"
            );
        };
        refused(NumType::Float64, &[("scale", Float(0.0))], "scale");
        refused(NumType::Int32, &[("scale", Int(0))], "scale");
        refused(NumType::Int32, &[("offset", Float(1.5))], "offset");
        refused(NumType::Int8, &[("offset", Int(128))], "offset");
        refused(NumType::UInt8, &[("scale", Int(-1))], "scale");
        refused(NumType::Bool, &[], "data_type");
        refused(NumType::Float32, &[("offset", Str("nan"))], "offset");
        refused(NumType::Float32, &[("offset", Str("0x7fc0"))], "offset");
        let c = codec(NumType::Float32, Str("0x3fc00000"), Str("-Infinity"));
        assert_eq!(
            (c.offset, c.scale),
            (Value::Float(1.5), Value::Float(f64::NEG_INFINITY))
        );
        let c = codec(NumType::Float16, Str("NaN"), Float(0.1));
        assert!(matches!(c.offset, Value::Float(x) if x.is_nan()));
        // The scale as a half holds it.
        assert_eq!(c.scale, Value::Float(f16_to_f64(f16_from_f64(0.1))));
    }

    /// Values from zarr-python 3.4.2 (`ScaleOffset(offset=10, scale=100)` over float64, and
    /// `offset=-3, scale=0.1` over float32, whose arithmetic is `float32`'s).
    #[test]
    fn floats_are_scaled_in_their_own_width() {
        let c = codec(
            NumType::Float64,
            ConfigValue::Int(10),
            ConfigValue::Int(100),
        );
        assert_eq!(
            c.encode_value(Value::Float(10.25)),
            Some(Value::Float(25.0))
        );
        assert_eq!(
            c.decode_value(Value::Float(25.0)),
            Some(Value::Float(10.25))
        );
        let c = codec(
            NumType::Float32,
            ConfigValue::Int(-3),
            ConfigValue::Float(0.1),
        );
        // (1 + 3) * 0.1 in float32: 0.4000000059604645 (0.4 in float64 would be 0.4).
        let Some(Value::Float(x)) = c.encode_value(Value::Float(1.0)) else {
            panic!()
        };
        assert_eq!(x, f64::from(4.0f32 * 0.1f32));
        assert_ne!(x, 0.4);
    }

    fn int_types() -> impl Strategy<Value = NumType> {
        prop::sample::select(std::vec![
            NumType::Int8,
            NumType::Int16,
            NumType::Int32,
            NumType::Int64,
            NumType::UInt8,
            NumType::UInt16,
            NumType::UInt32,
            NumType::UInt64,
        ])
    }

    proptest! {
        /// Integers: whatever encodes decodes back to itself; an encode refused is a product
        /// out of the type's range; a stored value the scale does not divide is refused.
        #[test]
        fn integers_round_trip_exactly_or_are_refused(
            ty in int_types(), x in any::<i64>(), o in -1000i64..1000, s in -50i64..50,
        ) {
            prop_assume!(s != 0);
            let (lo, hi) = int_bounds(ty);
            let clamp = |v: i128| v.clamp(lo, hi);
            let (x, o) = (clamp(i128::from(x)), clamp(i128::from(o)));
            prop_assume!(in_range(i128::from(s), ty).is_some());
            let c = ScaleOffset {
                dec: Elem::new(ty, Endian::Little),
                enc: Elem::new(ty, Endian::Little),
                offset: Value::Int(o),
                scale: Value::Int(i128::from(s)),
            };
            let model = (x - o) * i128::from(s);
            match c.encode_value(Value::Int(x)) {
                Some(Value::Int(e)) => {
                    prop_assert_eq!(e, model);
                    prop_assert_eq!(c.decode_value(Value::Int(e)), Some(Value::Int(x)));
                }
                Some(v) => prop_assert!(false, "{:?}", v),
                None => prop_assert!(model < lo || model > hi),
            }
            if s.abs() > 1 {
                let stored = model.clamp(lo + 1, hi - 1);
                let odd = if stored.rem_euclid(i128::from(s)) == 0 { stored + 1 } else { stored };
                prop_assert_eq!(c.decode_value(Value::Int(odd)), None);
            }
        }

        /// float64: encode and decode are the model's expressions, NaN and infinities included.
        #[test]
        fn float64_is_the_models_arithmetic(x in any::<f64>(), o in any::<f64>(), s in any::<f64>()) {
            prop_assume!(s != 0.0);
            let c = ScaleOffset {
                dec: Elem::new(NumType::Float64, Endian::Little),
                enc: Elem::new(NumType::Float64, Endian::Little),
                offset: Value::Float(o),
                scale: Value::Float(s),
            };
            let same = |a: Option<Value>, b: f64| a.is_some_and(|a| a.same_bits(Value::Float(b)));
            prop_assert!(same(c.encode_value(Value::Float(x)), (x - o) * s));
            prop_assert!(same(c.decode_value(Value::Float(x)), x / s + o));
        }
    }
}
