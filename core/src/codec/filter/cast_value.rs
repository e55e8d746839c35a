//! `cast_value` (zarr-extensions, zarr-python 3.4 with `cast-value-rs`): an array-to-array codec
//! that stores each element as another numeric type (`data_type`) and converts it back on
//! decode, rounding as configured and handling values out of the target's range as configured,
//! with explicit `scalar_map` entries taking precedence. Decode and encode, in place and without
//! allocation.
//!
//! As the spec and `cast-value-rs` 0.5.1 (which zarr-python 3.4.2 calls) convert one value:
//! 1. a `scalar_map` entry whose key is the value (NaN matches NaN; `0.0` matches `-0.0`) gives
//!    the result;
//! 2. into an integer type: NaN and infinities are refused; a float is rounded to an integer
//!    (`rounding`: `nearest-even`, the default, `towards-zero`, `towards-positive`,
//!    `towards-negative`, `nearest-away`); a result out of the type's range is refused, or
//!    with `out_of_range` `clamp` clamped, or `wrap` reduced modulo 2^bits (two's complement);
//! 3. into a float type: NaN and infinities stay what they are, signed zeros keep their sign,
//!    every other value is rounded once, exactly, to the type's precision (subnormals
//!    included) in the rounding mode; a rounded magnitude past the type's largest finite value
//!    is refused, or with `clamp` an infinity of its sign (`wrap` is refused at configuration
//!    for a float target).
//!
//! Decoding converts back the same way, from `data_type` to the type the codec was given, with
//! the `decode` entries of `scalar_map` and the same `rounding` and `out_of_range`.
//!
//! Types: the integers `int8` to `uint64` and `float16`, `float32`, `float64`; the spec's
//! `int2`, `int4`, `float8_*` and `bfloat16` are not types zinto has, and are refused by name.
//! `scalar_map` holds at most [`MAX_SCALAR_MAP`] entries each way (a filter value is small and
//! `Copy`); its keys and values are JSON numbers or `"NaN"`, `"Infinity"`, `"-Infinity"`, each
//! refused unless its type holds it.

use super::numeric::Elem;
use super::spec::{EncodeRun, FilterAux, FilterCodec, FromFilterConfig, decode_error};
use super::{FilterError, NumType, Value, map_encode, try_map_in_place};
use crate::codec::config::{Config, ConfigValue, Reader};
use crate::codec::{ChainError, CodecName, DecodeError, Endian};

/// The most `scalar_map` entries read for each direction.
pub const MAX_SCALAR_MAP: usize = 4;

/// How a value between two of the target type's is rounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounding {
    /// To the nearer, ties to the even one (the default).
    NearestEven,
    /// Towards zero (truncation).
    TowardsZero,
    /// Towards positive infinity (ceiling).
    TowardsPositive,
    /// Towards negative infinity (floor).
    TowardsNegative,
    /// To the nearer, ties away from zero.
    NearestAway,
}

/// What a value outside the target type's range becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutOfRange {
    /// Refused (no `out_of_range` configured).
    Refuse,
    /// The nearest end of the range (an infinity, for a float type).
    Clamp,
    /// Reduced modulo 2^bits into an integer type.
    Wrap,
}

/// One direction's `scalar_map`: `(key, value)` pairs as the bits of their types (an integer's
/// two's complement, a float's `f64` bits), so that the filter stays small.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScalarMap {
    entries: [(u64, u64); MAX_SCALAR_MAP],
    len: usize,
    /// The keys' type and the values'.
    from: NumType,
    to: NumType,
}

/// `v`, a value of `ty`, as bits.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // two's complement bits
fn bits_of(v: Value) -> u64 {
    match v {
        Value::Int(i) => i as u64,
        Value::Float(x) => x.to_bits(),
    }
}

/// The value of `ty` that `bits` holds.
#[allow(clippy::cast_possible_wrap)] // two's complement bits
fn value_of(bits: u64, ty: NumType) -> Value {
    match (ty.is_float(), ty.kind()) {
        (true, _) => Value::Float(f64::from_bits(bits)),
        (false, 'u') => Value::Int(i128::from(bits)),
        (false, _) => Value::Int(i128::from(bits as i64)),
    }
}

impl ScalarMap {
    const fn empty(from: NumType, to: NumType) -> Self {
        Self {
            entries: [(0, 0); MAX_SCALAR_MAP],
            len: 0,
            from,
            to,
        }
    }

    /// The value the entry keyed by `x` gives, if there is one.
    fn lookup(&self, x: Value) -> Option<Value> {
        self.entries[..self.len]
            .iter()
            .find(|(k, _)| match (value_of(*k, self.from), x) {
                (Value::Float(k), Value::Float(x)) => (k.is_nan() && x.is_nan()) || k == x,
                (k, x) => k == x,
            })
            .map(|&(_, v)| value_of(v, self.to))
    }
}

/// `cast_value`, configured: elements of `dec` stored as `enc`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CastValue {
    /// The element it is given (the array's, or the codec's before it).
    pub dec: Elem,
    /// The element it stores (`data_type`).
    pub enc: Elem,
    /// How inexact values are rounded, both ways.
    pub rounding: Rounding,
    /// What values out of range become, both ways.
    pub out_of_range: OutOfRange,
    /// `scalar_map`'s `encode` entries (keys of `dec`, values of `enc`) ...
    pub encode_map: ScalarMap,
    /// ... and its `decode` entries (keys of `enc`, values of `dec`).
    pub decode_map: ScalarMap,
}

impl CastValue {
    pub(crate) const NAMES: &'static [&'static str] = &["cast_value"];
    pub(crate) const V2_ID: Option<&'static str> = None;

    /// `x` (of `dec`) as stored, or `None` where it is refused.
    #[must_use]
    pub fn encode_value(&self, x: Value) -> Option<Value> {
        let how = (self.rounding, self.out_of_range);
        self.encode_map
            .lookup(x)
            .or_else(|| convert(x, self.enc.ty, how))
    }

    /// Stored `x` (of `enc`) decoded, or `None` where it is refused.
    #[must_use]
    pub fn decode_value(&self, x: Value) -> Option<Value> {
        let how = (self.rounding, self.out_of_range);
        self.decode_map
            .lookup(x)
            .or_else(|| convert(x, self.dec.ty, how))
    }
}

/// `x` converted to type `to` as the module's steps 2 and 3 say, or `None` where refused.
pub fn convert(x: Value, to: NumType, (rounding, range): (Rounding, OutOfRange)) -> Option<Value> {
    match (x, to.is_float()) {
        (Value::Int(i), false) => int_to_int(i, to, range),
        (Value::Float(f), false) => {
            let (negative, magnitude, exponent) = exact(f)?;
            int_to_int(
                round_to_integer(negative, magnitude, exponent, rounding),
                to,
                range,
            )
        }
        (Value::Int(i), true) => to_float((i < 0, i.unsigned_abs(), 0), to, rounding, range),
        (Value::Float(f), true) if !f.is_finite() => Some(Value::Float(f)),
        (Value::Float(f), true) => to_float(exact(f)?, to, rounding, range),
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

/// Integer `v` into integer type `to`.
fn int_to_int(v: i128, to: NumType, range: OutOfRange) -> Option<Value> {
    let (lo, hi) = int_bounds(to);
    if (lo..=hi).contains(&v) {
        return Some(Value::Int(v));
    }
    match range {
        OutOfRange::Refuse => None,
        OutOfRange::Clamp => Some(Value::Int(v.clamp(lo, hi))),
        OutOfRange::Wrap => {
            let modulus = hi - lo + 1;
            let residue = v.rem_euclid(modulus);
            Some(Value::Int(if residue > hi {
                residue - modulus
            } else {
                residue
            }))
        }
    }
}

/// A finite `f` as `(negative, magnitude, exponent)`, its value exactly
/// `±magnitude × 2^exponent`; `None` for NaN and infinities.
fn exact(f: f64) -> Option<(bool, u128, i32)> {
    if !f.is_finite() {
        return None;
    }
    let bits = f.to_bits();
    // 11 bits of exponent fit an i32.
    #[allow(clippy::cast_possible_truncation)]
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = u128::from(bits & ((1 << 52) - 1));
    let (magnitude, exponent) = match biased {
        0 => (fraction, -1074),
        b => (fraction | 1 << 52, b - 1075),
    };
    Some((bits >> 63 == 1, magnitude, exponent))
}

/// `magnitude / 2^shift` rounded to an integer in `mode`, for a value of sign `negative`
/// (`magnitude` below 2^64).
fn shift_round(magnitude: u128, shift: u32, negative: bool, mode: Rounding) -> u128 {
    if shift == 0 {
        return magnitude;
    }
    // Past 100 bits the quotient is 0 and the remainder below one half.
    let (quotient, above_half, at_half, inexact) = if shift > 100 {
        (0, false, false, magnitude != 0)
    } else {
        let rem = magnitude & ((1 << shift) - 1);
        let half = 1 << (shift - 1);
        (magnitude >> shift, rem > half, rem == half, rem != 0)
    };
    let up = match mode {
        Rounding::NearestEven => above_half || (at_half && quotient & 1 == 1),
        Rounding::NearestAway => above_half || at_half,
        Rounding::TowardsZero => false,
        Rounding::TowardsPositive => inexact && !negative,
        Rounding::TowardsNegative => inexact && negative,
    };
    quotient + u128::from(up)
}

/// `±magnitude × 2^exponent` rounded to an integer in `mode`. A magnitude of 2^126 or more
/// (out of every integer type's range, and a multiple of 2^64) is given as ±2^126, which
/// every out-of-range mode treats alike.
#[allow(clippy::cast_possible_wrap)] // bounded by 2^126 below
fn round_to_integer(negative: bool, magnitude: u128, exponent: i32, mode: Rounding) -> i128 {
    let big = 1u128 << 126;
    let m = match exponent {
        e if e >= 0 => {
            let room = magnitude.leading_zeros();
            if e.unsigned_abs() >= room.saturating_sub(1) {
                big
            } else {
                (magnitude << e).min(big)
            }
        }
        e => shift_round(magnitude, e.unsigned_abs(), negative, mode),
    };
    if negative { -(m as i128) } else { m as i128 }
}

/// A float type's significand bits (with the implicit one), smallest normal exponent and
/// largest exponent.
fn format(ty: NumType) -> (i32, i32, i32) {
    match ty {
        NumType::Float16 => (11, -14, 15),
        NumType::Float32 => (24, -126, 127),
        _ => (53, -1022, 1023),
    }
}

/// `2^e` for `-1074 <= e <= 1023`, built from its bits.
#[allow(clippy::cast_sign_loss)] // both shifts are of non-negative counts
fn pow2(e: i32) -> f64 {
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1 << (e + 1074))
    }
}

/// `±magnitude × 2^exponent` rounded once to float type `to` in `mode`.
#[allow(clippy::cast_possible_wrap, clippy::cast_precision_loss)] // bits counts; exact below
fn to_float(
    (negative, magnitude, exponent): (bool, u128, i32),
    to: NumType,
    mode: Rounding,
    range: OutOfRange,
) -> Option<Value> {
    let sign = if negative { -1.0 } else { 1.0 };
    if magnitude == 0 {
        return Some(Value::Float(sign * 0.0));
    }
    let (precision, min_exp, max_exp) = format(to);
    let lead = (127 - magnitude.leading_zeros()) as i32 + exponent;
    // The weight of the last significand bit, never below the subnormal spacing.
    let quantum = (lead - precision + 1).max(min_exp - precision + 1);
    let digits = if exponent >= quantum {
        magnitude << (exponent - quantum).unsigned_abs()
    } else {
        shift_round(
            magnitude,
            (quantum - exponent).unsigned_abs(),
            negative,
            mode,
        )
    };
    if digits != 0 && (127 - digits.leading_zeros()) as i32 + quantum > max_exp {
        return match range {
            OutOfRange::Clamp => Some(Value::Float(sign * f64::INFINITY)),
            OutOfRange::Refuse | OutOfRange::Wrap => None,
        };
    }
    // At most 2^53 digits (exact in an f64) times a power of two inside the range: exact.
    Some(Value::Float(sign * digits as f64 * pow2(quantum)))
}

/// The type a `data_type` name is, if zinto has it and `cast_value` takes it.
fn target_type(name: &str) -> Option<NumType> {
    NumType::from_name(name).filter(|t| *t != NumType::Bool)
}

/// A scalar map's key or value as `ty` holds it, if it does.
fn scalar(v: ConfigValue<'_>, ty: NumType) -> Option<Value> {
    if ty.is_float() {
        let x = match v {
            ConfigValue::Int(i) => Value::Int(i.into()).cast(NumType::Float64),
            ConfigValue::UInt(u) => Value::Int(u.into()).cast(NumType::Float64),
            ConfigValue::Float(f) => Value::Float(f),
            ConfigValue::Str("NaN") => Value::Float(f64::NAN),
            ConfigValue::Str("Infinity") => Value::Float(f64::INFINITY),
            ConfigValue::Str("-Infinity") => Value::Float(f64::NEG_INFINITY),
            _ => return None,
        };
        return Some(x.cast(ty));
    }
    let i = match v {
        ConfigValue::Int(i) => i128::from(i),
        ConfigValue::UInt(u) => i128::from(u),
        _ => return None,
    };
    let (lo, hi) = int_bounds(ty);
    (lo..=hi).contains(&i).then_some(Value::Int(i))
}

/// `scalar_map/<direction>`: pairs of a key of `from` and a value of `to`. `scalar_map` is an
/// object of `encode` and `decode` (either may be absent), each a list of `[key, value]` pairs;
/// any other shape is refused, never read as no entries.
fn read_map<C: Config + ?Sized>(
    r: &Reader<'_, C>,
    direction: &str,
    (from, to): (NumType, NumType),
) -> Result<ScalarMap, ChainError> {
    let mut map = ScalarMap::empty(from, to);
    if !r.object("scalar_map", &["encode", "decode"])? {
        return Ok(map);
    }
    let not_pairs = r.error(
        "scalar_map",
        "holds an encode or decode that is not a list of [key, value] pairs",
    );
    let bad = r.error(
        "scalar_map",
        "holds an entry that is not a [key, value] its types hold",
    );
    let mut key = heapless::String::<40>::new();
    let mut at = |args: core::fmt::Arguments<'_>| -> Result<Option<ConfigValue<'_>>, ChainError> {
        key.clear();
        core::fmt::write(&mut key, args).map_err(|_| bad)?;
        Ok(r.get(&key))
    };
    let n = match at(format_args!("scalar_map/{direction}"))? {
        None => return Ok(map),
        Some(ConfigValue::List(n)) => n,
        Some(_) => return Err(not_pairs),
    };
    if n > MAX_SCALAR_MAP {
        return Err(r.error("scalar_map", "has more than 4 entries a direction"));
    }
    for i in 0..n {
        if at(format_args!("scalar_map/{direction}/{i}"))? != Some(ConfigValue::List(2)) {
            return Err(not_pairs);
        }
        let k = at(format_args!("scalar_map/{direction}/{i}/0"))?.ok_or(bad)?;
        let v = at(format_args!("scalar_map/{direction}/{i}/1"))?.ok_or(bad)?;
        let (k, v) = (scalar(k, from).ok_or(bad)?, scalar(v, to).ok_or(bad)?);
        map.entries[i] = (bits_of(k), bits_of(v));
        map.len = i + 1;
    }
    Ok(map)
}

/// The spec's fields, none of which may be `null` (that would read as absent: a default).
const FIELDS: [&str; 4] = ["data_type", "rounding", "out_of_range", "scalar_map"];

impl FromFilterConfig for CastValue {
    fn from_config<C: Config + ?Sized>(
        r: &Reader<'_, C>,
        decoded: Option<Elem>,
    ) -> Result<Self, ChainError> {
        if let Some(&key) = FIELDS.iter().find(|k| r.get(k) == Some(ConfigValue::Null)) {
            return Err(r.error(key, "must not be null"));
        }
        let dec = decoded
            .filter(|e| e.ty != NumType::Bool)
            .ok_or(r.error("data_type", "must convert from an integer or float type"))?;
        let name = r
            .str("data_type")?
            .ok_or(r.error("data_type", "is missing"))?;
        let enc = target_type(name).ok_or(r.error(
            "data_type",
            "is not int8-64, uint8-64 or float16-64 (zinto has no int2, int4, float8 or bfloat16)",
        ))?;
        let rounding = match r.str("rounding")? {
            None | Some("nearest-even") => Rounding::NearestEven,
            Some("towards-zero") => Rounding::TowardsZero,
            Some("towards-positive") => Rounding::TowardsPositive,
            Some("towards-negative") => Rounding::TowardsNegative,
            Some("nearest-away") => Rounding::NearestAway,
            Some(_) => return Err(r.error("rounding", "is not a rounding mode of the spec")),
        };
        let out_of_range = match r.get("out_of_range") {
            None | Some(ConfigValue::Null) => OutOfRange::Refuse,
            Some(ConfigValue::Str("clamp")) => OutOfRange::Clamp,
            Some(ConfigValue::Str("wrap")) if !enc.is_float() => OutOfRange::Wrap,
            Some(_) => return Err(r.error("out_of_range", "is not clamp, or wrap into integers")),
        };
        Ok(Self {
            dec,
            // One-byte types have no byte order (the parsers say little).
            enc: Elem::new(
                enc,
                if enc.size() > 1 {
                    dec.endian
                } else {
                    Endian::Little
                },
            ),
            rounding,
            out_of_range,
            encode_map: read_map(r, "encode", (dec.ty, enc))?,
            decode_map: read_map(r, "decode", (enc, dec.ty))?,
        })
    }
}

impl FilterCodec for CastValue {
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

    /// Each element in place (backwards when the decoded type is wider).
    fn decode(&self, buf: &mut [u8], n: usize, _: &mut FilterAux<'_>) -> Result<(), DecodeError> {
        try_map_in_place(buf, n, self.dec, self.enc, |i, x| {
            self.decode_value(x).ok_or(FilterError::OutOfRange {
                index: i as u64,
                ty: self.dec.ty,
            })
        })
        .map_err(decode_error(CodecName::CastValue))
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
        write!(
            f,
            "{}({} stored as {}, {:?}, out of range {:?})",
            CodecName::CastValue,
            self.dec.ty.name(),
            self.enc.ty.name(),
            self.rounding,
            self.out_of_range
        )
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::codec::Filter;
    use ConfigValue::{Int, List, Object, Str};
    use std::string::String;
    use std::vec::Vec;

    /// `base` with a `scalar_map` laid out as a JSON document gives it: the object, each
    /// direction's list, each pair, then the key and value.
    fn with_map<'a>(
        base: &[(&'a str, ConfigValue<'a>)],
        map: &[(&str, &[(ConfigValue<'a>, ConfigValue<'a>)])],
    ) -> Vec<(String, ConfigValue<'a>)> {
        let mut c: Vec<(String, ConfigValue<'a>)> =
            base.iter().map(|(k, v)| ((*k).into(), *v)).collect();
        c.push(("scalar_map".into(), Object(map.len())));
        for (direction, pairs) in map {
            c.push((std::format!("scalar_map/{direction}"), List(pairs.len())));
            for (i, (k, v)) in pairs.iter().enumerate() {
                c.push((std::format!("scalar_map/{direction}/{i}"), List(2)));
                c.push((std::format!("scalar_map/{direction}/{i}/0"), *k));
                c.push((std::format!("scalar_map/{direction}/{i}/1"), *v));
            }
        }
        c
    }

    /// The configuration `with_map` made, as `Filter::from_config` takes it.
    fn view<'a>(c: &'a [(String, ConfigValue<'a>)]) -> Vec<(&'a str, ConfigValue<'a>)> {
        c.iter().map(|(k, v)| (k.as_str(), *v)).collect()
    }

    fn configured(
        from: NumType,
        config: &[(&str, ConfigValue<'_>)],
    ) -> Result<CastValue, ChainError> {
        let elem = Some(Elem::new(from, Endian::Little));
        match Filter::from_config(CodecName::CastValue, config, elem)? {
            Some(Filter::CastValue(c)) => Ok(c),
            other => panic!("{other:?}"),
        }
    }

    fn refused(from: NumType, config: &[(&str, ConfigValue<'_>)], key: &str) {
        let e = configured(from, config).unwrap_err();
        assert!(
            matches!(e, ChainError::Config { key: k, .. } if k == key),
            "{e:?}"
        );
    }

    /// What zarr-python refuses at creation is refused here by key: wrap into a float, a
    /// rounding mode or type the spec or zinto lacks, a scalar map entry its types cannot
    /// hold, more entries than a filter carries.
    #[test]
    fn configurations_are_checked_by_key() {
        let f8 = NumType::Float64;
        refused(f8, &[], "data_type");
        refused(f8, &[("data_type", Str("int4"))], "data_type");
        refused(f8, &[("data_type", Str("bool"))], "data_type");
        refused(NumType::Bool, &[("data_type", Str("int8"))], "data_type");
        refused(
            f8,
            &[("data_type", Str("int8")), ("rounding", Str("up"))],
            "rounding",
        );
        let wrap = [("data_type", Str("float32")), ("out_of_range", Str("wrap"))];
        refused(NumType::Int32, &wrap, "out_of_range");
        let int8 = [("data_type", Str("int8"))];
        let nan_key_for_int = with_map(&int8, &[("encode", &[(Str("NaN"), Int(0))])]);
        refused(NumType::Int32, &view(&nan_key_for_int), "scalar_map");
        let too_big = with_map(&int8, &[("encode", &[(Str("NaN"), Int(999))])]);
        refused(f8, &view(&too_big), "scalar_map");
        let pairs = [(Int(1), Int(1)); MAX_SCALAR_MAP + 1];
        refused(
            f8,
            &view(&with_map(&int8, &[("decode", &pairs)])),
            "scalar_map",
        );
        let fits = with_map(&int8, &[("decode", &pairs[..MAX_SCALAR_MAP])]);
        let c = configured(f8, &view(&fits)).unwrap();
        assert_eq!((c.decode_map.len, c.encode_map.len), (MAX_SCALAR_MAP, 0));
    }

    /// A scalar map of any other shape than an object of `encode` and `decode`, each a list of
    /// `[key, value]` pairs, is refused by name: never read as no entries (issue 61: a stored
    /// 5 read as 5.0 instead of the mapped 6.5). Each shape as a JSON document would give it.
    #[test]
    fn malformed_scalar_maps_are_refused() {
        let f4 = [("data_type", Str("float32"))];
        let valid = with_map(&f4, &[("decode", &[(Int(5), ConfigValue::Float(6.5))])]);
        let c = configured(NumType::Float64, &view(&valid)).unwrap();
        assert_eq!(c.decode_value(Value::Float(5.0)), Some(Value::Float(6.5)));
        let shapes: [&[(&str, ConfigValue<'_>)]; 8] = [
            // [[1], [5, 6.5]]: a pair of one
            &[
                ("scalar_map", Object(1)),
                ("scalar_map/decode", List(2)),
                ("scalar_map/decode/0", List(1)),
                ("scalar_map/decode/0/0", Int(1)),
                ("scalar_map/decode/1", List(2)),
                ("scalar_map/decode/1/0", Int(5)),
                ("scalar_map/decode/1/1", ConfigValue::Float(6.5)),
            ],
            // [5, 6.5, 9]: numbers, not pairs
            &[
                ("scalar_map", Object(1)),
                ("scalar_map/decode", List(3)),
                ("scalar_map/decode/0", Int(5)),
            ],
            // [[5, 6.5, 9]]: a triple
            &[
                ("scalar_map", Object(1)),
                ("scalar_map/decode", List(1)),
                ("scalar_map/decode/0", List(3)),
                ("scalar_map/decode/0/0", Int(5)),
                ("scalar_map/decode/0/1", ConfigValue::Float(6.5)),
            ],
            // decode is an object, or a string
            &[("scalar_map", Object(1)), ("scalar_map/decode", Object(1))],
            &[
                ("scalar_map", Object(1)),
                ("scalar_map/decode", Str("5:6.5")),
            ],
            // the map itself a list, or a string
            &[("scalar_map", List(1)), ("scalar_map/0", List(2))],
            &[("scalar_map", Str("[[5, 6.5]]"))],
            // an entry other than encode and decode
            &[("scalar_map", Object(1)), ("scalar_map/decoded", List(0))],
        ];
        for (i, shape) in shapes.iter().enumerate() {
            let mut c = std::vec![("data_type", Str("float32"))];
            c.extend_from_slice(shape);
            let e = configured(NumType::Float64, &c).map(|_| i).unwrap_err();
            assert!(
                matches!(
                    e,
                    ChainError::Config {
                        key: "scalar_map",
                        ..
                    }
                ),
                "shape {i}: {e:?}"
            );
        }
        for key in FIELDS {
            // The null first: the first entry of a key is the one read.
            let c = [(key, ConfigValue::Null), ("data_type", Str("float32"))];
            refused(NumType::Float64, &c, key);
        }
    }

    /// A scalar map entry comes before rounding and range, NaN matching NaN, and each
    /// direction uses its own entries.
    #[test]
    fn scalar_map_entries_come_first() {
        let c = with_map(
            &[("data_type", Str("int16"))],
            &[
                ("encode", &[(Str("NaN"), Int(-1))]),
                ("decode", &[(Int(-1), Str("-Infinity"))]),
            ],
        );
        let c = configured(NumType::Float32, &view(&c)).unwrap();
        assert_eq!(c.encode_value(Value::Float(f64::NAN)), Some(Value::Int(-1)));
        assert_eq!(c.encode_value(Value::Float(-1.0)), Some(Value::Int(-1)));
        assert_eq!(c.encode_value(Value::Float(f64::INFINITY)), None);
        assert_eq!(
            c.decode_value(Value::Int(-1)),
            Some(Value::Float(f64::NEG_INFINITY))
        );
        assert_eq!(c.decode_value(Value::Int(7)), Some(Value::Float(7.0)));
    }

    /// Decodes `n` elements of `stored` through `c`, in place.
    fn decode_through(c: &CastValue, stored: &mut [u8], n: usize) -> Result<(), DecodeError> {
        let mut aux = FilterAux {
            spare: &mut [],
            table: &[],
        };
        c.decode(stored, n, &mut aux)
    }

    /// The error decoding `n` elements of `stored` through `c` gives.
    fn decode_error_of(c: &CastValue, stored: &mut [u8], n: usize) -> FilterError {
        match decode_through(c, stored, n) {
            Err(DecodeError::Filter { error, .. }) => error,
            other => panic!("{other:?}"),
        }
    }

    /// A stored value the decoded type cannot hold (no `out_of_range` configured) is refused
    /// naming its element, whether the decoded type is narrower (a forward pass) or wider (a
    /// backward one).
    #[test]
    fn a_stored_value_out_of_range_is_refused_by_its_index() {
        let narrowing = configured(NumType::UInt8, &[("data_type", Str("int16"))]).unwrap();
        let mut stored: std::vec::Vec<u8> = [7i16, 300, -1]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let ty = NumType::UInt8;
        let refused = FilterError::OutOfRange { index: 1, ty };
        assert_eq!(decode_error_of(&narrowing, &mut stored, 3), refused);
        // int64 from stored float32: decoded backwards, in a buffer of the decoded length.
        let widening = configured(NumType::Int64, &[("data_type", Str("float32"))]).unwrap();
        let mut wide: std::vec::Vec<u8> = [1.5f32, f32::INFINITY]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        wide.resize(16, 0);
        let ty = NumType::Int64;
        let refused = FilterError::OutOfRange { index: 1, ty };
        assert_eq!(decode_error_of(&widening, &mut wide, 2), refused);
        let mut fine: std::vec::Vec<u8> =
            [7i16, 200].iter().flat_map(|v| v.to_le_bytes()).collect();
        decode_through(&narrowing, &mut fine, 2).unwrap();
        assert_eq!(fine[..2], [7, 200]);
    }
}
