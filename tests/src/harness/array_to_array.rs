//! zarr-python 3.4's array-to-array codecs, `scale_offset` and `cast_value`, configured from the
//! fuzzer's bytes: any stored bytes decode without a panic and without writing past the
//! buffer, each element as the codec's own value function says (the model: one element at a
//! time, no buffer); whatever encodes decodes back where the codec is exact (integers through
//! `scale_offset`, a widening `cast_value`), and encodes element by element as the model says.
//!
//! Input: `[codec, from type, to type, rounding, out_of_range, offset (8), scale (8), n,
//! payload...]`; the payload is both the stored bytes decoded and the elements encoded.

use zinto::core::codec::Filter;
use zinto::core::codec::filter::{CastValue, Elem, EncodeRun, FilterAux, NumType, Value};
use zinto::core::codec::{ChainError, CodecName, ConfigValue, Endian};

use super::input::Input;

const TYPES: [NumType; 11] = [
    NumType::Int8,
    NumType::Int16,
    NumType::Int32,
    NumType::Int64,
    NumType::UInt8,
    NumType::UInt16,
    NumType::UInt32,
    NumType::UInt64,
    NumType::Float16,
    NumType::Float32,
    NumType::Float64,
];
const ROUNDING: [&str; 5] = [
    "nearest-even",
    "towards-zero",
    "towards-positive",
    "towards-negative",
    "nearest-away",
];
/// Past the end of the buffer: must stay as it was.
const GUARD: u8 = 0xA5;

fn pick<T: Copy>(all: &[T], b: u8) -> T {
    all[usize::from(b) % all.len()]
}

/// The codec the header configures, or `None` where its configuration is refused.
fn codec(input: &mut Input<'_>) -> Option<Filter> {
    let which = input.u8();
    let (from, to) = (pick(&TYPES, input.u8()), pick(&TYPES, input.u8()));
    let rounding = pick(&ROUNDING, input.u8());
    let range = pick(&[None, Some("clamp"), Some("wrap")], input.u8());
    let (offset, scale) = (input.u64(), input.u64());
    let elem = Some(Elem::new(from, Endian::Little));
    let number = |bits: u64| {
        if from.is_float() {
            ConfigValue::Float(f64::from_bits(bits))
        } else {
            // Small integers, so that scales that divide are common.
            ConfigValue::Int(i64::from(bits as i8))
        }
    };
    let result: Result<Option<Filter>, ChainError> = if which.is_multiple_of(2) {
        let config = [("offset", number(offset)), ("scale", number(scale))];
        Filter::from_config(CodecName::ScaleOffset, &config[..], elem)
    } else {
        let mut config = vec![
            ("data_type", ConfigValue::Str(to.name())),
            ("rounding", ConfigValue::Str(rounding)),
        ];
        if let Some(r) = range {
            config.push(("out_of_range", ConfigValue::Str(r)));
        }
        Filter::from_config(CodecName::CastValue, &config[..], elem)
    };
    result.ok().flatten()
}

/// Each element decoded by the codec's value function, for stored elements `enc` read from
/// `stored`: the expected decoded bytes, or `None` where an element is refused.
fn model_decode(f: &Filter, stored: &[u8], n: usize) -> Option<Vec<u8>> {
    let (dec, enc) = (f.decoded_elem()?, f.encoded_elem()?);
    let mut out = vec![0u8; n * dec.size()];
    for i in 0..n {
        let x = enc.read(&stored[i * enc.size()..])?;
        let v = match f {
            Filter::ScaleOffset(c) => c.decode_value(x)?,
            Filter::CastValue(c) => c.decode_value(x)?,
            _ => return None,
        };
        dec.write(v, &mut out[i * dec.size()..])?;
    }
    Some(out)
}

/// Fuzz target `array_to_array`.
pub fn array_to_array(data: &[u8]) {
    let mut input = Input::new(data);
    let Some(f) = codec(&mut input) else {
        return;
    };
    let n = usize::from(input.u8());
    let payload = input.rest();
    let (dec, enc) = (f.decoded_elem().unwrap(), f.encoded_elem().unwrap());
    let n = n.min(payload.len() / enc.size());
    // Decode: stored bytes in place, in a buffer of exactly the bytes it needs, then guards.
    let need = n * dec.size().max(enc.size());
    let mut buf = vec![GUARD; need + 16];
    buf[..n * enc.size()].copy_from_slice(&payload[..n * enc.size()]);
    let model = model_decode(&f, &payload[..n * enc.size()], n);
    let mut aux = FilterAux {
        spare: &mut [],
        table: &[],
    };
    let decoded = f.decode(&mut buf[..need], n, &mut aux);
    assert!(
        buf[need..].iter().all(|&b| b == GUARD),
        "{f}: wrote past its buffer"
    );
    match (decoded, model) {
        (Ok(()), Some(want)) => assert_eq!(&buf[..want.len()], &want[..], "{f}: other values"),
        (Err(_), None) => {}
        (got, want) => panic!(
            "{f}: decoded {got:?} where the model says {}",
            want.is_some()
        ),
    }
    // Encode: the payload's elements as the decoded type, element by element as the model.
    let m = payload.len() / dec.size();
    let mut stored = vec![0u8; m * enc.size()];
    let mut run = EncodeRun::default();
    if let Ok(k) = f.encode(&mut run, &payload[..m * dec.size()], dec, &mut stored) {
        assert_eq!(k, m);
        for i in 0..m {
            let x = dec.read(&payload[i * dec.size()..]).unwrap();
            let s = enc.read(&stored[i * enc.size()..]).unwrap();
            let want = match &f {
                Filter::ScaleOffset(c) => c.encode_value(x),
                Filter::CastValue(c) => c.encode_value(x),
                _ => unreachable!("only these two are configured"),
            };
            let want = want.map(|w| {
                enc.read(&{
                    let mut b = vec![0u8; enc.size()];
                    enc.write(w, &mut b).unwrap();
                    b
                })
            });
            assert_eq!(
                want.flatten().map(|w| w.same_bits(s)),
                Some(true),
                "{f}: element {i}"
            );
            round_trip(&f, x, s);
        }
    }
}

/// Where the codec is exact, what encoded decodes back to itself (a NaN to a NaN).
fn round_trip(f: &Filter, x: Value, stored: Value) {
    let back = match f {
        Filter::ScaleOffset(c) if !c.dec.ty.is_float() => c.decode_value(stored),
        Filter::CastValue(c) if widens(c) => c.decode_value(stored),
        _ => return,
    };
    // A NaN comes back a NaN (the spec propagates NaN, not its payload).
    let nan = |v: Value| matches!(v, Value::Float(x) if x.is_nan());
    let same = |b: Value| b.same_bits(x) || (nan(b) && nan(x));
    assert!(back.is_some_and(same), "{f}: {x:?} came back as {back:?}");
}

/// Whether every value of `c`'s decoded type is exactly a value of its stored type, with no
/// scalar map in the way.
fn widens(c: &CastValue) -> bool {
    use NumType::{Float16, Float32, Float64, Int8, Int16, Int32, UInt8, UInt16, UInt32};
    let (from, to) = (c.dec.ty, c.enc.ty);
    let bounds = |t: NumType| {
        let bits = t.size() * 8;
        if t.kind() == 'u' {
            (0i128, (1i128 << bits) - 1)
        } else {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        }
    };
    match (from, to) {
        (Float16, Float32 | Float64)
        | (Float32, Float64)
        | (Int8 | Int16 | UInt8 | UInt16, Float32 | Float64)
        | (Int32 | UInt32, Float64)
        | (Int8 | UInt8, Float16) => true,
        _ if !from.is_float() && !to.is_float() => {
            let ((a, b), (lo, hi)) = (bounds(from), bounds(to));
            lo <= a && b <= hi
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    /// A few inputs of each codec run through the harness.
    #[test]
    fn the_harness_runs_both_codecs() {
        for codec in 0..4u8 {
            for from in 0..11u8 {
                let mut data = vec![codec, from, 10 - from, codec, codec % 3];
                data.extend_from_slice(&3u64.to_le_bytes());
                data.extend_from_slice(&((from as u64 % 5) + 1).to_le_bytes());
                data.push(16);
                data.extend((0..128u8).map(|b| b.wrapping_mul(37)));
                super::array_to_array(&data);
            }
        }
    }
}
