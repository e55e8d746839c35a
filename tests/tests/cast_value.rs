//! `cast_value`'s conversion, value for value against cast-value-rs 0.5.1 (what zarr-python
//! 3.4.2 calls): for every pair of numeric types, rounding mode and out-of-range mode, the
//! inputs `tests/fixtures/generate_cast_value.py` drew (the same edge values, the same
//! splitmix64 draws) give the outcomes whose digest it recorded. And properties the spec states:
//! the rounding modes are ordered, a widening float cast is exact.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a panic is a failed test
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]
#![allow(clippy::cast_precision_loss)] // bits, as the generator takes them

use std::path::Path;

use proptest::prelude::*;
use sha2::{Digest, Sha256};
use zinto::core::codec::filter::cast_value::{OutOfRange, Rounding, convert};
use zinto::core::codec::filter::{NumType, Value};
use zinto::core::dtype::{f16_from_f64, f16_to_f64};

const RANDOM: usize = 48;
const INT_EDGES: &[i128] = &[
    0,
    1,
    -1,
    2,
    -2,
    127,
    128,
    -128,
    -129,
    255,
    256,
    32767,
    32768,
    -32768,
    -32769,
    65535,
    65536,
    (1 << 31) - 1,
    1 << 31,
    -(1 << 31),
    -(1 << 31) - 1,
    (1 << 32) - 1,
    1 << 32,
    (1 << 53) + 1,
    (1 << 63) - 1,
    -(1 << 63),
    (1 << 64) - 1,
    16_777_217,
    2049,
];
const FLOAT_EDGES: &[f64] = &[
    0.0,
    -0.0,
    0.5,
    -0.5,
    1.5,
    2.5,
    -2.5,
    0.499_999_999_999_999_94,
    127.5,
    128.0,
    -128.5,
    -129.0,
    255.5,
    256.0,
    65504.0,
    65520.0,
    65536.0,
    2_147_483_648.0,
    -2_147_483_649.0,
    9_223_372_036_854_775_808.0,
    18_446_744_073_709_551_616.0,
    1e300,
    -1e300,
    3.402_823_5e38,
    3.402_823_6e38,
    5e-324,
    1e-310,
    6e-8,
    3e-8,
    1.175_494_35e-38,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    0.1,
    16_777_217.0,
    2049.0,
    1.0 + 1.0 / 2048.0,
    1.0 + 1.0 / 16_777_216.0,
];

fn int_bounds(ty: NumType) -> (i128, i128) {
    let bits = ty.size() * 8;
    if ty.kind() == 'u' {
        (0, (1 << bits) - 1)
    } else {
        (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    }
}

/// `x` as float type `ty` holds it (NumPy's cast: nearest, ties to even; infinities past it).
fn float_in(x: f64, ty: NumType) -> f64 {
    match ty {
        NumType::Float16 => f16_to_f64(f16_from_f64(x)),
        NumType::Float32 => f64::from(x as f32),
        _ => x,
    }
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The value of type `ty` whose bits are the low bits of `raw`.
fn from_bits(raw: u64, ty: NumType) -> Value {
    let bits = ty.size() * 8;
    let low = if bits == 64 {
        raw
    } else {
        raw & ((1 << bits) - 1)
    };
    match (ty, ty.kind()) {
        (NumType::Float16, _) => Value::Float(f16_to_f64(low as u16)),
        (NumType::Float32, _) => Value::Float(f64::from(f32::from_bits(low as u32))),
        (NumType::Float64, _) => Value::Float(f64::from_bits(low)),
        (_, 'u') => Value::Int(i128::from(low)),
        // Sign-extend the type's bits.
        _ => Value::Int(i128::from(((low << (64 - bits)) as i64) >> (64 - bits))),
    }
}

/// The inputs the generator drew for source type `name`.
fn inputs(name: &str, ty: NumType) -> Vec<Value> {
    let mut out: Vec<Value> = if ty.is_float() {
        FLOAT_EDGES
            .iter()
            .map(|&x| Value::Float(float_in(x, ty)))
            .collect()
    } else {
        let (lo, hi) = int_bounds(ty);
        INT_EDGES
            .iter()
            .filter(|x| (lo..=hi).contains(*x))
            .map(|&x| Value::Int(x))
            .collect()
    };
    let digest = Sha256::digest(name.as_bytes());
    let mut state = u64::from_le_bytes(digest[..8].try_into().unwrap());
    for i in 0..RANDOM {
        let r = splitmix64(&mut state);
        out.push(if ty.is_float() && i % 2 == 1 {
            let uniform = (r >> 11) as f64 / 9_007_199_254_740_992.0 * 2000.0 - 1000.0;
            Value::Float(float_in(uniform, ty))
        } else {
            from_bits(r, ty)
        });
    }
    out
}

/// An outcome as the generator records it.
fn record(outcome: Option<Value>) -> Vec<u8> {
    let Some(v) = outcome else {
        return vec![0];
    };
    let bits = match v {
        Value::Int(i) => i as u64,
        Value::Float(x) if x.is_nan() => 0x7ff8_0000_0000_0000,
        Value::Float(x) => x.to_bits(),
    };
    let mut out = vec![1];
    out.extend_from_slice(&bits.to_le_bytes());
    out
}

fn rounding(name: &str) -> Rounding {
    match name {
        "nearest-even" => Rounding::NearestEven,
        "towards-zero" => Rounding::TowardsZero,
        "towards-positive" => Rounding::TowardsPositive,
        "towards-negative" => Rounding::TowardsNegative,
        "nearest-away" => Rounding::NearestAway,
        other => panic!("rounding {other}"),
    }
}

fn range(name: &str) -> OutOfRange {
    match name {
        "refuse" => OutOfRange::Refuse,
        "clamp" => OutOfRange::Clamp,
        "wrap" => OutOfRange::Wrap,
        other => panic!("out_of_range {other}"),
    }
}

#[test]
fn every_conversion_is_what_cast_value_rs_makes_of_it() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/cast_value_vectors.txt");
    let text = std::fs::read_to_string(path).unwrap();
    let (mut checked, mut failures) = (0, vec![]);
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split(' ').collect();
        let [from, to, round, out_of_range, n, want] = f[..] else {
            panic!("{line}")
        };
        let (src, dst) = (
            NumType::from_name(from).unwrap(),
            NumType::from_name(to).unwrap(),
        );
        let xs = inputs(from, src);
        assert_eq!(
            xs.len(),
            n.parse::<usize>().unwrap(),
            "{line}: other inputs"
        );
        let how = (rounding(round), range(out_of_range));
        let mut h = Sha256::new();
        for &x in &xs {
            h.update(record(convert(x, dst, how)));
        }
        let got: String = h.finalize()[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        if got != want {
            failures.push(line.to_owned());
        }
        checked += 1;
    }
    assert_eq!(checked, 1650);
    assert!(
        failures.is_empty(),
        "{} of {checked} configurations differ from cast-value-rs:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn any_float() -> impl Strategy<Value = f64> {
    prop_oneof![any::<f64>(), -1e6f64..1e6, -300.0f64..300.0]
}

proptest! {
    /// towards-negative <= every other mode <= towards-positive, where all give a value.
    #[test]
    fn rounding_modes_are_ordered(x in any_float(), to in prop::sample::select(vec![
        NumType::Int8, NumType::UInt8, NumType::Int32, NumType::Int64, NumType::UInt64,
        NumType::Float16, NumType::Float32,
    ])) {
        let modes = [
            Rounding::TowardsNegative, Rounding::TowardsZero, Rounding::NearestEven,
            Rounding::NearestAway, Rounding::TowardsPositive,
        ];
        let num = |v: Option<Value>| match v {
            Some(Value::Int(i)) => Some(i as f64),
            Some(Value::Float(f)) if !f.is_nan() => Some(f),
            _ => None,
        };
        let got: Vec<Option<f64>> =
            modes.iter().map(|&m| num(convert(Value::Float(x), to, (m, OutOfRange::Clamp)))).collect();
        if let (Some(lo), Some(hi)) = (got[0], got[4]) {
            for v in got.iter().flatten() {
                prop_assert!(lo <= *v && *v <= hi, "{x} -> {to:?}: {got:?}");
            }
        }
    }

    /// float32 into float64 and back is the identity, NaN aside, in every mode.
    #[test]
    fn widening_and_back_is_exact(bits in any::<u32>(), m in 0usize..5) {
        let mode = [
            Rounding::NearestEven, Rounding::TowardsZero, Rounding::TowardsPositive,
            Rounding::TowardsNegative, Rounding::NearestAway,
        ][m];
        let x = f64::from(f32::from_bits(bits));
        let how = (mode, OutOfRange::Refuse);
        let wide = convert(Value::Float(x), NumType::Float64, how).unwrap();
        let back = convert(wide, NumType::Float32, how).unwrap();
        prop_assert!(back.same_bits(Value::Float(x)) || x.is_nan());
    }
}
