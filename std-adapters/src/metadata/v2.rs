//! Zarr v2 `.zarray`.

use std::sync::Arc;

use super::codecs::{configured, elem_after, filter_elem};
use serde::Deserialize;
use serde_json::Value;
use zinto_core::codec::{Codec, CodecChain, CodecName};
use zinto_core::{ChunkGrid, MemoryOrder};

use super::{ArrayMetadata, ChunkKeyEncoding, DataType, FillValue, ZarrFormat};
use crate::error::MetadataError;

/// A `.zarray` document. The spec requires every field but `dimension_separator`; `compressor`
/// and `filters` may be `null` but not absent, so they are read with [`nullable`] (a plain
/// `Option` field would silently read a missing one as `null`).
#[derive(Deserialize)]
struct V2 {
    zarr_format: u64,
    shape: Vec<u64>,
    chunks: Vec<u64>,
    dtype: Value,
    #[serde(deserialize_with = "nullable")]
    compressor: Option<serde_json::Map<String, Value>>,
    fill_value: Value,
    order: String,
    #[serde(deserialize_with = "nullable")]
    filters: Option<Vec<Value>>,
    /// Optional in the spec: `.` if absent.
    #[serde(default)]
    dimension_separator: Option<String>,
}

/// A required field that may be `null`: with `deserialize_with` and no `default`, serde
/// reports its absence as a missing field.
fn nullable<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d)
}

fn unsupported(what: impl Into<String>) -> MetadataError {
    MetadataError::Unsupported(what.into())
}

/// Parses and validates a `.zarray` document, with the `.zattrs` beside it if given (parsed,
/// or its error kept: attributes are not needed to read the data).
pub(crate) fn parse(json: &[u8], attrs: Option<&[u8]>) -> Result<ArrayMetadata, MetadataError> {
    let m: V2 = serde_json::from_slice(json).map_err(MetadataError::Json)?;
    if m.zarr_format != 2 {
        return Err(unsupported(format!("zarr_format {}", m.zarr_format)));
    }
    // Codecs first: a filter zinto does not know is named even on a type it does not read.
    for f in m.filters.iter().flatten() {
        let (id, _) = numcodecs_id(f, "filter")?;
        if CodecName::from_v2_id(id).is_none() {
            return Err(unsupported(format!("v2 filter {id:?}")));
        }
    }
    let (dtype, endian) = match &m.dtype {
        Value::String(s) => {
            DataType::from_v2_str(s).ok_or_else(|| unsupported(format!("data type {s}")))?
        }
        other => return Err(unsupported(format!("structured data type {other}"))),
    };
    let grid = ChunkGrid::new(&m.shape, &m.chunks).map_err(MetadataError::Layout)?;
    let separator = match m.dimension_separator.as_deref() {
        None | Some(".") => '.',
        Some("/") => '/',
        Some(other) => return Err(unsupported(format!("dimension_separator {other:?}"))),
    };
    let ndim = m.shape.len();
    let mut codecs = Vec::new();
    match m.order.as_str() {
        "C" => {}
        "F" => codecs.push(Codec::Transpose(
            MemoryOrder::f(ndim).map_err(MetadataError::Layout)?,
        )),
        other => return Err(MetadataError::Invalid(format!("order {other:?}"))),
    }
    let mut names = vec![];
    let mut elem = filter_elem(dtype, endian);
    for f in m.filters.iter().flatten() {
        let (id, config) = numcodecs_id(f, "filter")?;
        let name =
            CodecName::from_v2_id(id).ok_or_else(|| unsupported(format!("v2 filter {id:?}")))?;
        match configured(name, config, elem)? {
            Some(codec @ Codec::Filter(_)) => {
                elem = elem_after(&codec, elem);
                codecs.push(codec);
            }
            _ => {
                return Err(unsupported(format!(
                    "v2 filter {id:?} (a compressor or checksum as a filter)"
                )));
            }
        }
        names.push(id.to_owned());
    }
    codecs.push(Codec::Bytes(endian));
    if let Some(c) = &m.compressor {
        let (id, config) = numcodecs_id_map(c, "compressor")?;
        let name = CodecName::from_v2_id(id)
            .ok_or_else(|| unsupported(format!("v2 compressor {id:?}")))?;
        match configured(name, config, elem)? {
            Some(codec @ (Codec::Compressor(_) | Codec::Checksum(_))) => codecs.push(codec),
            _ => {
                return Err(unsupported(format!(
                    "v2 compressor {id:?} (a filter as the compressor)"
                )));
            }
        }
        names.push(id.to_owned());
    }
    let chain =
        CodecChain::new(&m.chunks, dtype.size(), &codecs, None).map_err(MetadataError::Chain)?;
    let fill_value = FillValue::parse(dtype, &m.fill_value).map_err(MetadataError::FillValue)?;
    // Not needed to read the data: an error is kept for when the attributes are asked for.
    let attributes = match attrs {
        Some(a) => serde_json::from_slice(a).map_err(|e| Arc::new(MetadataError::Json(e))),
        None => Ok(serde_json::Map::new()),
    };
    Ok(ArrayMetadata {
        format: ZarrFormat::V2,
        dtype,
        grid,
        chain,
        fill_value,
        key_encoding: ChunkKeyEncoding::V2 { separator },
        codec_names: names,
        attributes,
    })
}

/// A numcodecs object's `id` and the object itself.
fn numcodecs_id_map<'a>(
    obj: &'a serde_json::Map<String, Value>,
    what: &str,
) -> Result<(&'a str, &'a serde_json::Map<String, Value>), MetadataError> {
    let id = obj
        .get("id")
        .and_then(Value::as_str)
        .ok_or_else(|| MetadataError::Invalid(format!("{what} without a string \"id\"")))?;
    Ok((id, obj))
}

/// A v2 filter: a numcodecs object.
fn numcodecs_id<'a>(
    v: &'a Value,
    what: &str,
) -> Result<(&'a str, &'a serde_json::Map<String, Value>), MetadataError> {
    match v {
        Value::Object(obj) => numcodecs_id_map(obj, what),
        _ => Err(MetadataError::Invalid(format!("{what} is not an object"))),
    }
}
