//! Human-readable descriptions of metadata for `zinto info`.

use zinto::core::codec::{ArrayToBytes, ChainLevel, CodecChain, Endian, IndexLocation};
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
        parts.push(c.name().to_string());
    }
    for _ in 0..l.bytes_codecs.crc32c.get() {
        parts.push("crc32c".to_owned());
    }
    parts.join(" -> ")
}

/// The fill value as a number (or bits, for float16).
pub fn fill_value(dtype: DataType, fill: &FillValue) -> String {
    let b = fill.as_bytes();
    let arr = |n: usize| -> [u8; 16] {
        let mut a = [0u8; 16];
        a[..n.min(b.len())].copy_from_slice(&b[..n.min(b.len())]);
        a
    };
    let a = arr(b.len());
    match dtype {
        DataType::Bool => (a[0] != 0).to_string(),
        DataType::Int8 => i8::from_ne_bytes([a[0]]).to_string(),
        DataType::UInt8 => a[0].to_string(),
        DataType::Int16 => i16::from_ne_bytes([a[0], a[1]]).to_string(),
        DataType::UInt16 => u16::from_ne_bytes([a[0], a[1]]).to_string(),
        DataType::Float16 => format!("0x{:04x} (float16 bits)", u16::from_ne_bytes([a[0], a[1]])),
        DataType::Int32 => i32::from_ne_bytes([a[0], a[1], a[2], a[3]]).to_string(),
        DataType::UInt32 => u32::from_ne_bytes([a[0], a[1], a[2], a[3]]).to_string(),
        DataType::Float32 => f32::from_ne_bytes([a[0], a[1], a[2], a[3]]).to_string(),
        DataType::Int64 => i64::from_ne_bytes(a[..8].try_into().unwrap_or_default()).to_string(),
        DataType::UInt64 => u64::from_ne_bytes(a[..8].try_into().unwrap_or_default()).to_string(),
        DataType::Float64 => f64::from_ne_bytes(a[..8].try_into().unwrap_or_default()).to_string(),
        DataType::Complex64 => format!(
            "{}+{}j",
            f32::from_ne_bytes([a[0], a[1], a[2], a[3]]),
            f32::from_ne_bytes([a[4], a[5], a[6], a[7]])
        ),
        DataType::Complex128 => format!(
            "{}+{}j",
            f64::from_ne_bytes(a[..8].try_into().unwrap_or_default()),
            f64::from_ne_bytes(a[8..].try_into().unwrap_or_default())
        ),
        _ => format!("{b:02x?}"),
    }
}
