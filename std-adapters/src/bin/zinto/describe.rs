//! Human-readable descriptions of metadata for `zinto info`.

use zinto::core::codec::{ArrayToBytes, ChainLevel, CodecChain, Endian, IndexLocation, Location};
use zinto::{DataType, FillValue};

/// The codec chain as one line, outermost first; nested sharding shows its inner chains.
pub fn codecs(chain: &CodecChain) -> String {
    chain
        .levels()
        .iter()
        .map(level)
        .collect::<Vec<_>>()
        .join(" | inner: ")
}

fn level(l: &ChainLevel) -> String {
    let mut parts = vec![];
    if !l.order.is_c() {
        parts.push(format!("transpose{:?}", l.order.axes().collect::<Vec<_>>()));
    }
    for f in &l.filters {
        parts.push(f.to_string());
    }
    parts.push(match &l.array_to_bytes {
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
        _ => None,
    };
    shown.unwrap_or_else(|| format!("{b:02x?}"))
}
