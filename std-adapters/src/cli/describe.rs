//! Human-readable descriptions of metadata for `zinto info`.

use crate::core::codec::{ArrayToBytes, ChainLevel, CodecChain, Endian, IndexLocation, Location};
use crate::{DataType, FillValue};

/// The codec chain of an array of `dtype` as one line, outermost first; nested sharding shows
/// its inner chains. A variable-length type's chain starts with its `vlen-*` codec (the chain
/// proper sees its encoding as bytes).
pub fn codecs(dtype: DataType, chain: &CodecChain) -> String {
    let first = match dtype {
        DataType::String => Some("vlen-utf8"),
        DataType::Bytes => Some("vlen-bytes"),
        _ => None,
    };
    chain
        .levels()
        .iter()
        .map(|l| level(l, first))
        .collect::<Vec<_>>()
        .join(" | inner: ")
}

/// One level of the chain; `array_to_bytes` names its array-to-bytes codec instead of `bytes`.
fn level(l: &ChainLevel, array_to_bytes: Option<&str>) -> String {
    let mut parts = vec![];
    if !l.order.is_c() {
        parts.push(format!("transpose{:?}", l.order.axes().collect::<Vec<_>>()));
    }
    for f in &l.filters {
        parts.push(f.to_string());
    }
    parts.push(match &l.array_to_bytes {
        ArrayToBytes::Bytes(_) if array_to_bytes.is_some() => {
            array_to_bytes.unwrap_or("bytes").to_owned()
        }
        ArrayToBytes::Bytes(None) => "bytes".to_owned(),
        ArrayToBytes::Bytes(Some(Endian::Little)) => "bytes(little)".to_owned(),
        ArrayToBytes::Bytes(Some(Endian::Big)) => "bytes(big)".to_owned(),
        ArrayToBytes::Sharding(s) => format!(
            "sharding_indexed(inner chunks {:?}, index at {})",
            s.grid().chunk_shape(),
            match s.location() {
                IndexLocation::Start => "start",
                IndexLocation::End => "end",
            }
        ),
    });
    if let Some(c) = l.bytes_codecs.compressor {
        parts.push(c.to_string());
    }
    for c in l.bytes_codecs.checksums.iter() {
        parts.push(match c.location {
            Location::Start => format!("{}(at the start)", c.name()),
            Location::End => c.name().to_string(),
        });
    }
    parts.join(" -> ")
}

/// The fill value as a number (or bits, for float16). A fill value holds exactly its data
/// type's size (`metadata::fill`); were it not so, or for types shown otherwise, its bytes are
/// shown.
pub fn fill_value(dtype: DataType, fill: &FillValue) -> String {
    fn ne<const N: usize>(b: &[u8]) -> Option<[u8; N]> {
        b.try_into().ok()
    }
    let b = fill.as_bytes();
    let shown = match dtype {
        DataType::Bool => ne::<1>(b).map(|[x]| (x != 0).to_string()),
        DataType::Int8 => ne(b).map(|a| i8::from_ne_bytes(a).to_string()),
        DataType::UInt8 => ne(b).map(|a| u8::from_ne_bytes(a).to_string()),
        DataType::Int16 => ne(b).map(|a| i16::from_ne_bytes(a).to_string()),
        DataType::UInt16 => ne(b).map(|a| u16::from_ne_bytes(a).to_string()),
        DataType::Float16 => {
            ne(b).map(|a| format!("0x{:04x} (float16 bits)", u16::from_ne_bytes(a)))
        }
        DataType::Int32 => ne(b).map(|a| i32::from_ne_bytes(a).to_string()),
        DataType::UInt32 => ne(b).map(|a| u32::from_ne_bytes(a).to_string()),
        DataType::Float32 => ne(b).map(|a| f32::from_ne_bytes(a).to_string()),
        DataType::Int64 => ne(b).map(|a| i64::from_ne_bytes(a).to_string()),
        DataType::UInt64 => ne(b).map(|a| u64::from_ne_bytes(a).to_string()),
        DataType::Float64 => ne(b).map(|a| f64::from_ne_bytes(a).to_string()),
        DataType::Complex64 => ne::<8>(b).map(|[a, b, c, d, e, f, g, h]| {
            let (re, im) = (
                f32::from_ne_bytes([a, b, c, d]),
                f32::from_ne_bytes([e, f, g, h]),
            );
            format!("{re}+{im}j")
        }),
        DataType::Complex128 => ne::<16>(b).and_then(|a| {
            let (re, im) = a.split_at(8);
            Some(format!(
                "{}+{}j",
                f64::from_ne_bytes(ne(re)?),
                f64::from_ne_bytes(ne(im)?)
            ))
        }),
        DataType::DateTime64(unit) => ne(b).map(|a| {
            crate::cli::dates::datetime_iso(i64::from_ne_bytes(a), unit)
                .unwrap_or_else(|| "NaT".to_owned())
        }),
        DataType::TimeDelta64(unit) => ne(b).map(|a| match i64::from_ne_bytes(a) {
            i64::MIN => "NaT".to_owned(),
            n => format!("{n} x {unit}"),
        }),
        DataType::FixedUtf32 { .. } => {
            let s: Option<String> = b
                .chunks_exact(4)
                .map(|c| ne::<4>(c).map(u32::from_ne_bytes))
                .take_while(|c| *c != Some(0))
                .map(|c| c.and_then(char::from_u32))
                .collect();
            s.map(|s| format!("{s:?}"))
        }
        DataType::String => std::str::from_utf8(b).ok().map(|s| format!("{s:?}")),
        // Fixed-width bytes are NUL-padded (NumPy strips the padding); variable-length bytes
        // are exactly themselves.
        DataType::FixedBytes { .. } => {
            let end = b.iter().rposition(|&x| x != 0).map_or(0, |i| i + 1);
            Some(format!("b\"{}\"", b[..end].escape_ascii()))
        }
        DataType::Bytes => Some(format!("b\"{}\"", b.escape_ascii())),
    };
    shown.unwrap_or_else(|| format!("{b:02x?}"))
}
