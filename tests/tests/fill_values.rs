//! Fill values as the specs write them, turned into native-endian element bytes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a panic is a failed test

use serde_json::json;
use zinto::{DataType, FillValue};

fn bytes(dtype: DataType, v: serde_json::Value) -> Vec<u8> {
    FillValue::parse(dtype, &v)
        .unwrap_or_else(|e| panic!("{dtype} {v}: {e}"))
        .as_bytes()
        .to_vec()
}

#[test]
fn numbers_and_special_floats() {
    assert_eq!(bytes(DataType::Int16, json!(-7)), (-7i16).to_ne_bytes());
    assert_eq!(
        bytes(DataType::UInt64, json!(u64::MAX)),
        u64::MAX.to_ne_bytes()
    );
    assert_eq!(
        bytes(DataType::Float64, json!(-1.5)),
        (-1.5f64).to_ne_bytes()
    );
    assert_eq!(bytes(DataType::Float32, json!(1)), 1f32.to_ne_bytes());
    let nan = bytes(DataType::Float32, json!("NaN"));
    assert!(f32::from_ne_bytes(nan.try_into().unwrap()).is_nan());
    assert_eq!(
        bytes(DataType::Float64, json!("-Infinity")),
        f64::NEG_INFINITY.to_ne_bytes()
    );
    assert_eq!(
        bytes(DataType::Float32, json!("Infinity")),
        f32::INFINITY.to_ne_bytes()
    );
    assert_eq!(bytes(DataType::Bool, json!(true)), [1]);
}

#[test]
fn hex_bit_patterns_keep_their_bits() {
    // A signalling NaN payload that a float round trip would not preserve.
    assert_eq!(
        bytes(DataType::Float32, json!("0x7fa00001")),
        0x7fa0_0001u32.to_ne_bytes()
    );
    assert_eq!(
        bytes(DataType::Float16, json!("0x7c00")),
        0x7c00u16.to_ne_bytes()
    );
    assert_eq!(
        bytes(DataType::Float64, json!("0x3ff0000000000000")),
        1f64.to_ne_bytes()
    );
}

#[test]
fn float16_rounds_to_the_nearest_half() {
    assert_eq!(
        bytes(DataType::Float16, json!(1.0)),
        0x3c00u16.to_ne_bytes()
    );
    assert_eq!(
        bytes(DataType::Float16, json!(-2.5)),
        0xc100u16.to_ne_bytes()
    );
    assert_eq!(
        bytes(DataType::Float16, json!(65504.0)),
        0x7bffu16.to_ne_bytes()
    );
    assert_eq!(
        bytes(DataType::Float16, json!(1e6)),
        0x7c00u16.to_ne_bytes()
    );
    assert_eq!(
        bytes(DataType::Float16, json!(5.960_464_5e-8)),
        0x0001u16.to_ne_bytes()
    );
}

#[test]
fn complex_pairs() {
    let mut expected = 1f32.to_ne_bytes().to_vec();
    expected.extend(f32::NEG_INFINITY.to_ne_bytes());
    assert_eq!(
        bytes(DataType::Complex64, json!([1.0, "-Infinity"])),
        expected
    );
}

#[test]
fn null_is_zero() {
    assert_eq!(bytes(DataType::Float64, json!(null)), [0; 8]);
}

#[test]
fn values_that_do_not_fit_are_errors() {
    for (dtype, v) in [
        (DataType::UInt8, json!(256)),
        (DataType::Int8, json!(-129)),
        (DataType::UInt16, json!(-1)),
        (DataType::Int32, json!(1.5)),
        (DataType::Float32, json!("0x7fc0")),
        (DataType::Float32, json!("nan")),
        (DataType::Bool, json!(2)),
        (DataType::Complex64, json!(1.0)),
    ] {
        assert!(
            FillValue::parse(dtype, &v).is_err(),
            "{dtype} {v} was accepted"
        );
    }
}
