//! Zarr v2 `.zarray`.

use super::codecs::{configured, elem_after, filter_elem, filter_table};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use zinto_core::codec::Filter;
use zinto_core::codec::{Codec, CodecChain, CodecName, Endian};
use zinto_core::{ChunkGrid, MemoryOrder};

use super::document::{Known, MAX_FIELD_LEN, top_level};
use super::{ArrayMetadata, ChunkKeyEncoding, DataType, FillValue, ZarrFormat};
use super::{Attributes, MetadataError};

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

/// The fields of a `.zarray`, none of them large.
const KNOWN: Known<'static> = Known {
    fields: &[
        "zarr_format",
        "shape",
        "chunks",
        "dtype",
        "compressor",
        "fill_value",
        "order",
        "filters",
        "dimension_separator",
    ],
    large: &[],
};

/// Parses and validates a `.zarray` document, with the `.zattrs` beside it if given (parsed,
/// or its error kept: attributes are not needed to read the data).
pub(crate) fn parse(json: &[u8], attrs: Option<&[u8]>) -> Result<ArrayMetadata, MetadataError> {
    // Each field within its bound before any is parsed into a tree (see `top_level`); fields
    // v2 does not know are ignored, as zarr-python ignores them.
    top_level(json, &KNOWN)?;
    let m: V2 = serde_json::from_slice(json).map_err(MetadataError::Json)?;
    if m.zarr_format != 2 {
        return Err(unsupported(format!("zarr_format {}", m.zarr_format)));
    }
    // `null` filters are none, by the spec.
    let filters: &[Value] = m.filters.as_deref().unwrap_or(&[]);
    let (object, filters) = object_type(&m.dtype, filters)?;
    // Codecs first: a filter zinto does not know is named even on a type it does not read.
    for f in filters {
        let (id, _) = numcodecs_id(f, "filter")?;
        if CodecName::from_v2_id(id).is_none() {
            return Err(unsupported(format!("v2 filter {id:?}")));
        }
    }
    if object.is_some() && !filters.is_empty() {
        return Err(unsupported(
            "filters after an object codec (vlen-utf8, vlen-bytes)",
        ));
    }
    let (dtype, endian) = match (object, &m.dtype) {
        (Some(t), _) => (t, None),
        (None, Value::String(s)) => {
            let (t, endian) =
                DataType::from_v2_str(s).ok_or_else(|| unsupported(format!("data type {s}")))?;
            (t.bounded().map_err(super::v3::type_error)?, endian)
        }
        (None, other) => return Err(unsupported(format!("structured data type {other}"))),
    };
    let grid = ChunkGrid::new(&m.shape, &m.chunks).map_err(MetadataError::Layout)?;
    let separator = match m.dimension_separator.as_deref() {
        None | Some(".") => '.',
        Some("/") => '/',
        Some(other) => return Err(unsupported(format!("dimension_separator {other:?}"))),
    };
    let V2Codecs {
        codecs,
        names,
        tables,
    } = codecs_of(&m, dtype, endian, object.is_some(), filters)?;
    let chain = CodecChain::with_scalar_size(
        &m.chunks,
        dtype.fixed_size().unwrap_or(1),
        dtype.scalar_size(),
        &codecs,
        None,
    )
    .map_err(MetadataError::Chain)?;
    let fill_value = FillValue::parse(dtype, &v2_string_fill(dtype, &m.fill_value))
        .map_err(MetadataError::FillValue)?;
    let (attributes, dimension_names) = attributes_of(attrs, m.shape.len());
    Ok(ArrayMetadata {
        format: ZarrFormat::V2,
        dtype,
        grid,
        chain,
        fill_value,
        key_encoding: ChunkKeyEncoding::V2 {
            separator,
            stated: m.dimension_separator.is_some(),
        },
        codec_names: names,
        filter_tables: tables,
        dimension_names,
        attributes,
    })
}

/// An object array's (`|O`) type, which its first filter says (and encodes its objects to
/// bytes), and the filters after that one; `None` and every filter for any other array.
fn object_type<'f>(
    dtype: &Value,
    filters: &'f [Value],
) -> Result<(Option<DataType>, &'f [Value]), MetadataError> {
    if dtype.as_str() != Some("|O") {
        return Ok((None, filters));
    }
    let Some((first, rest)) = filters.split_first() else {
        return Err(MetadataError::Invalid(
            "object array (|O) without an object codec filter".into(),
        ));
    };
    let (id, config) = numcodecs_id(first, "filter")?;
    let dtype = match id {
        "vlen-utf8" => DataType::String,
        "vlen-bytes" => DataType::Bytes,
        other => {
            return Err(unsupported(format!(
                "object array with filter {other:?} (only vlen-utf8 and vlen-bytes)"
            )));
        }
    };
    // Neither takes a setting: one would be ignored.
    super::codecs::only_fields(id, config, &["id"])?;
    Ok((Some(dtype), rest))
}

/// The codec chain `.zarray` describes (order, filters, the bytes codec, the compressor) and
/// the codecs' names as metadata gives them.
fn codecs_of(
    m: &V2,
    dtype: DataType,
    endian: Option<Endian>,
    object: bool,
    filters: &[Value],
) -> Result<V2Codecs, MetadataError> {
    let mut codecs = Vec::new();
    match m.order.as_str() {
        "C" => {}
        "F" => codecs.push(Codec::Transpose(
            MemoryOrder::f(m.shape.len()).map_err(MetadataError::Layout)?,
        )),
        other => return Err(MetadataError::Invalid(format!("order {other:?}"))),
    }
    let mut names = vec![];
    if object {
        names.push(dtype_codec(dtype).to_owned());
    }
    // numcodecs applies `filters` and then the compressor, whatever each is: zarr-python reads
    // a compressor or checksum among the filters, or a filter as the compressor. Here they are
    // one list, in that order, with the bytes codec before the first compressor or checksum;
    // the chain then refuses what does not fit it (a filter after a compressor, two
    // compressors) by name.
    let mut elem = filter_elem(dtype, endian);
    let compressor = m
        .compressor
        .as_ref()
        .map(|c| numcodecs_id_map(c, "compressor").map(|(id, config)| (id, config, "compressor")));
    let listed = filters
        .iter()
        .map(|f| numcodecs_id(f, "filter").map(|(id, config)| (id, config, "filter")));
    let mut bytes = Some(Codec::Bytes(endian));
    let mut tables = Vec::new();
    for step in listed.chain(compressor) {
        let (id, config, role) = step?;
        let name =
            CodecName::from_v2_id(id).ok_or_else(|| unsupported(format!("v2 {role} {id:?}")))?;
        let codec = configured(name, config, elem, &["id"])?
            .ok_or_else(|| unsupported(format!("v2 {role} {id:?} (not a numcodecs codec)")))?;
        if let Codec::Filter(f) = &codec {
            same_byte_order(f, endian.unwrap_or(Endian::NATIVE), id)?;
            let elem_size = dtype.fixed_size().unwrap_or(1);
            tables.push(filter_table(&codec, config, elem_size, tables.is_empty())?);
        } else {
            codecs.extend(bytes.take());
        }
        elem = elem_after(&codec, elem);
        codecs.push(codec);
        names.push(id.to_owned());
    }
    codecs.extend(bytes);
    Ok(V2Codecs {
        codecs,
        names,
        tables,
    })
}

/// Refuses a filter that states a byte order other than the array's for a type it reads or
/// stores: numcodecs then stores its elements in that order, while zinto's chain runs every
/// filter in the array's (a `>f8` array with `Delta(dtype=">f8", astype="<f8")` would read as
/// other numbers).
fn same_byte_order(f: &Filter, array: Endian, id: &str) -> Result<(), MetadataError> {
    for elem in [f.decoded_elem(), f.encoded_elem()].into_iter().flatten() {
        if elem.size() > 1 && elem.endian != array {
            return Err(unsupported(format!(
                "v2 filter {id:?} with {} in another byte order than the array's",
                elem.type_str()
            )));
        }
    }
    Ok(())
}

/// What `.zarray` says of the codecs: the chain's codecs, their names as metadata gives them,
/// and the filters' tables (`ArrayMetadata::filter_tables`).
struct V2Codecs {
    codecs: Vec<Codec>,
    names: Vec<String>,
    tables: Vec<Vec<u8>>,
}

/// The one attribute a reader needs: xarray's dimension names. Every other attribute is
/// skipped unparsed.
#[derive(Deserialize)]
struct XarrayNames<'a> {
    #[serde(rename = "_ARRAY_DIMENSIONS", borrow)]
    names: Option<&'a RawValue>,
}

/// The `.zattrs` beside a `.zarray` (not needed to read the data: kept as text, an error when
/// the attributes are asked for), and the dimension names xarray's convention keeps there
/// (`_ARRAY_DIMENSIONS`, used only if it is one string per dimension).
fn attributes_of(attrs: Option<&[u8]>, ndim: usize) -> (Attributes, Option<Vec<Option<String>>>) {
    let Some(attrs) = attrs else {
        return (Attributes::none(), None);
    };
    let dimension_names = serde_json::from_slice::<XarrayNames<'_>>(attrs)
        .ok()
        .and_then(|x| x.names)
        .filter(|raw| raw.get().len() <= MAX_FIELD_LEN)
        .and_then(|raw| serde_json::from_str::<Vec<String>>(raw.get()).ok())
        .filter(|names| names.len() == ndim)
        .map(|names| names.into_iter().map(Some).collect());
    (Attributes::bytes(attrs), dimension_names)
}

/// The object codec filter of a variable-length type.
fn dtype_codec(dtype: DataType) -> &'static str {
    if dtype == DataType::String {
        "vlen-utf8"
    } else {
        "vlen-bytes"
    }
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

/// A v2 fill value of `0` on a string type, as the zarr-python that reads it does: zarr-python
/// 2 wrote `0` for fixed-width `|S n` and `<U n` arrays and read it as zeros (the empty
/// string); zarr-python 3 reads `0` on a `vlen-utf8` array as the text `"0"`. Any other value
/// is the value itself.
fn v2_string_fill(dtype: DataType, v: &Value) -> Value {
    let zero = v.as_u64() == Some(0) && v.is_u64();
    match dtype {
        DataType::FixedBytes { .. } | DataType::FixedUtf32 { .. } if zero => Value::Null,
        DataType::String if zero => Value::String("0".into()),
        _ => v.clone(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn fill_of(dtype: &str, filters: &str, fill: &str) -> Vec<u8> {
        let json = format!(
            r#"{{"zarr_format": 2, "shape": [4], "chunks": [2], "dtype": "{dtype}",
                "compressor": null, "fill_value": {fill}, "filters": {filters}, "order": "C"}}"#
        );
        parse(json.as_bytes(), None)
            .unwrap()
            .fill_value
            .as_bytes()
            .to_vec()
    }

    /// zarr-python 2 wrote `fill_value: 0` on `|S` and `<U` arrays (its fixture/14 and 15) and
    /// read it as zeros; zarr-python 3 reads it on a vlen-utf8 array as "0".
    #[test]
    fn a_fill_value_of_0_on_strings_reads_as_the_zarr_python_that_reads_it() {
        assert_eq!(fill_of("|S1", "null", "0"), [0]);
        assert_eq!(fill_of("<U4", "null", "0"), [0; 16]);
        assert_eq!(fill_of("|O", r#"[{"id": "vlen-utf8"}]"#, "0"), b"0");
        // Other values are what they are, and numbers stay numbers.
        assert_eq!(fill_of("|S1", "null", r#""YQ==""#), b"a");
        assert_eq!(fill_of("<i4", "null", "0"), [0; 4]);
        let json = br#"{"zarr_format": 2, "shape": [4], "chunks": [2], "dtype": "|S1",
            "compressor": null, "fill_value": 1, "filters": null, "order": "C"}"#;
        assert!(parse(json, None).is_err());
    }

    fn chain_of(filters: &str, compressor: &str) -> Result<ArrayMetadata, MetadataError> {
        let json = format!(
            r#"{{"zarr_format": 2, "shape": [4], "chunks": [2], "dtype": "<i4",
                "compressor": {compressor}, "fill_value": 0, "filters": {filters},
                "order": "C"}}"#
        );
        parse(json.as_bytes(), None)
    }

    /// numcodecs applies the filters, then the compressor, whatever each is: a compressor or
    /// checksum among the filters, or a filter as the compressor, reads as that one list.
    #[test]
    fn compressors_among_the_filters_and_filters_as_the_compressor_read_in_numcodecs_order() {
        use zinto_core::codec::{ChecksumKind, Compressor, Filter};
        let zlib = r#"{"id": "zlib", "level": 1}"#;
        let delta = r#"{"id": "delta", "dtype": "<i4"}"#;
        let crc = r#"{"id": "crc32"}"#;
        let level = |m: ArrayMetadata| m.chain.outer().clone();
        let lv = level(chain_of(&format!("[{zlib}]"), "null").unwrap());
        assert!(matches!(
            lv.bytes_codecs.compressor,
            Some(Compressor::Zlib(_))
        ));
        let lv = level(chain_of(&format!("[{delta}, {zlib}]"), crc).unwrap());
        assert!(matches!(lv.filters.as_slice(), [Filter::Delta(_)]));
        assert!(matches!(
            lv.bytes_codecs.compressor,
            Some(Compressor::Zlib(_))
        ));
        assert_eq!(
            lv.bytes_codecs
                .checksums
                .iter()
                .map(|c| c.kind)
                .collect::<Vec<_>>(),
            [ChecksumKind::Crc32]
        );
        let lv = level(chain_of("null", delta).unwrap());
        assert!(matches!(lv.filters.as_slice(), [Filter::Delta(_)]));
        assert_eq!(lv.bytes_codecs.compressor, None);
        // What no chain can hold is refused by name: a filter after a compressor, two
        // compressors, a checksum inside a compressed stream.
        for (filters, compressor) in [
            (format!("[{zlib}]"), delta),
            (format!("[{zlib}]"), zlib),
            (format!("[{crc}]"), zlib),
        ] {
            let e = chain_of(&filters, compressor).unwrap_err().to_string();
            assert!(
                e.contains("zlib") || e.contains("delta") || e.contains("crc32"),
                "{e}"
            );
        }
    }

    fn categorized(dtype: &str, filters: &str) -> Result<ArrayMetadata, MetadataError> {
        let json = format!(
            r#"{{"zarr_format": 2, "shape": [4], "chunks": [2], "dtype": "{dtype}",
                "compressor": null, "fill_value": "", "filters": {filters}, "order": "C"}}"#
        );
        parse(json.as_bytes(), None)
    }

    /// categorize's labels become one table entry each, in the array's UTF-32 order, cut to
    /// its length; it must be the first filter, decode to the array's type, and be on `<U n`.
    #[test]
    fn categorize_lays_out_its_labels_once() {
        let cat = |dtype: &str| {
            format!(
                r#"{{"id": "categorize", "labels": ["ab", "watermelon"], "dtype": "{dtype}",
                    "astype": "|u1"}}"#
            )
        };
        let m = categorized(">U2", &format!("[{}]", cat(">U2"))).unwrap();
        let be =
            |s: &str| -> Vec<u8> { s.chars().flat_map(|c| u32::from(c).to_be_bytes()).collect() };
        assert_eq!(m.filter_tables, [[be("ab"), be("wa")].concat()]);
        let delta = r#"{"id": "delta", "dtype": "|u1"}"#;
        for (dtype, filters) in [
            ("<U3", format!("[{}]", cat("<U2"))),
            ("<U2", format!("[{delta}, {}]", cat("<U2"))),
            ("|O", format!("[{}]", cat("|O"))),
        ] {
            let e = categorized(dtype, &filters).unwrap_err().to_string();
            assert!(e.contains("categorize"), "{dtype} {filters}: {e}");
        }
    }
}
