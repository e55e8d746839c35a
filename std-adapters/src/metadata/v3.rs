//! Zarr v3 `zarr.json`.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use zinto_core::codec::filter::Elem;
use zinto_core::codec::{
    ArrayToBytes, ChainError, Codec, CodecChain, CodecName, Endian, IndexLocation,
};

use super::codecs::{configured, elem_after, filter_elem, only_fields};
use zinto_core::{Axis, ChunkGrid, MemoryOrder, dims};

use super::document::{Known, kind_of_raw, top_level};
use super::{ArrayMetadata, ChunkKeyEncoding, DataType, FillValue, ZarrFormat};
use super::{Attributes, MetadataError};

/// A codec, chunk grid or chunk key encoding: `{"name": ..., "configuration": {...}}`, or
/// its name alone where it has no configuration (the spec allows the short form; the zarrs
/// crate writes `"crc32c"` so).
#[derive(Deserialize, serde::Serialize)]
#[serde(from = "NamedForm")]
struct Named {
    name: String,
    /// Optional in the spec (an extension without parameters may omit it): empty if absent.
    configuration: serde_json::Map<String, Value>,
}

/// The two forms a [`Named`] is written in.
#[derive(Deserialize)]
#[serde(
    untagged,
    expecting = "a name, or an object of \"name\" and an optional \"configuration\""
)]
enum NamedForm {
    Name(String),
    Object {
        name: String,
        #[serde(default)]
        configuration: serde_json::Map<String, Value>,
    },
}

impl From<NamedForm> for Named {
    fn from(form: NamedForm) -> Self {
        match form {
            NamedForm::Name(name) => Self {
                name,
                configuration: serde_json::Map::new(),
            },
            NamedForm::Object {
                name,
                configuration,
            } => Self {
                name,
                configuration,
            },
        }
    }
}

/// A `zarr.json` array document. Every field without `#[serde(default)]` is required by the
/// spec, so its absence is a "missing field" error naming it; only the spec's optional fields
/// default, each saying so.
#[derive(Deserialize)]
struct V3<'a> {
    zarr_format: u64,
    node_type: String,
    shape: Vec<u64>,
    data_type: Value,
    chunk_grid: Named,
    chunk_key_encoding: Named,
    fill_value: Value,
    codecs: Vec<Named>,
    /// Optional: `None` if absent. Checked only when asked for (see
    /// [`ArrayMetadata::attributes`]), so that bad attributes do not stop the data being read.
    #[serde(default, borrow, deserialize_with = "present")]
    attributes: Option<&'a RawValue>,
    /// Optional: none if absent.
    #[serde(default)]
    storage_transformers: Vec<Value>,
    /// Optional: `None` if absent. A name per dimension, each a string or `null`.
    #[serde(default)]
    dimension_names: Option<Vec<Option<String>>>,
}

/// A field that is present, whatever its value (`null` included, unlike a plain `Option`),
/// as its text in the document.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&'de RawValue>::deserialize(d).map(Some)
}

fn unsupported(what: impl Into<String>) -> MetadataError {
    MetadataError::Unsupported(what.into())
}

/// Parses and validates a `zarr.json` document, in memory proportional to it (see
/// [`top_level`]): no tree of the whole document is built, and the attributes are kept as text.
pub(crate) fn parse(json: &[u8]) -> Result<ArrayMetadata, MetadataError> {
    let known = Known {
        fields: &KNOWN_FIELDS,
        large: &["attributes"],
    };
    let top = top_level(json, &known)?;
    // A group (or any other node) is said to be one before the fields only arrays have are
    // missed: `zinto info group.zarr` is "a group, not an array", not "missing data_type".
    if let Some(kind) = top.node_type
        && kind != "array"
    {
        return Err(MetadataError::NotAnArray(kind));
    }
    if let Some(key) = top.not_understood {
        return Err(unsupported(format!(
            "metadata field {key:?} (an extension this reader must understand)"
        )));
    }
    let m: V3<'_> = serde_json::from_slice(json).map_err(MetadataError::Json)?;
    if m.zarr_format != 3 {
        return Err(unsupported(format!("zarr_format {}", m.zarr_format)));
    }
    if m.node_type != "array" {
        return Err(MetadataError::NotAnArray(m.node_type));
    }
    if !m.storage_transformers.is_empty() {
        return Err(unsupported("storage transformers"));
    }
    let dtype = DataType::from_v3(&m.data_type).map_err(type_error)?;
    if let Some(names) = &m.dimension_names
        && names.len() != m.shape.len()
    {
        return Err(MetadataError::Invalid(format!(
            "{} dimension_names for {} dimensions",
            names.len(),
            m.shape.len()
        )));
    }
    let grid = super::grid::parse(&m.chunk_grid.name, &m.chunk_grid.configuration, &m.shape)?;
    // The chain's outer chunks: on a rectilinear grid, the longest edges (each chunk's own
    // shape is the grid's to say).
    let chunk_shape = grid.chunk_shape().to_vec();
    let key_encoding = key_encoding(&m.chunk_key_encoding)?;
    // Filters' byte order is set by the chain from the `bytes` codec.
    let chain = match dtype.fixed_size() {
        Some(size) => chain(
            &m.codecs,
            &chunk_shape,
            (size, dtype.scalar_size()),
            filter_elem(dtype, None),
        )?,
        None => vlen_chain(dtype, &m.codecs, &chunk_shape)?,
    };
    shards_fit_edges(&grid, &chain)?;
    // After the chain: a type used without its codec is named for that first.
    let fill_value = FillValue::parse(dtype, &m.fill_value).map_err(MetadataError::FillValue)?;
    Ok(ArrayMetadata {
        format: ZarrFormat::V3,
        dtype,
        grid,
        chain,
        fill_value,
        key_encoding,
        codec_names: m.codecs.iter().map(|c| c.name.clone()).collect(),
        filter_tables: Vec::new(),
        dimension_names: m.dimension_names,
        attributes: match m.attributes {
            None => Attributes::none(),
            Some(raw) if raw.get().starts_with('{') => Attributes::text(raw.get()),
            Some(other) => Attributes::error(MetadataError::Invalid(format!(
                "attributes must be an object, not {}",
                kind_of_raw(other)
            ))),
        },
    })
}

/// The chunk key encoding `default` (separator `/` unless stated) or `v2` (`.`).
fn key_encoding(named: &Named) -> Result<ChunkKeyEncoding, MetadataError> {
    only_fields(&named.name, &named.configuration, &["separator"])?;
    let sep = |default: char| -> Result<char, MetadataError> {
        match optional_str(&named.configuration, "separator")? {
            None => Ok(default),
            Some("/") => Ok('/'),
            Some(".") => Ok('.'),
            Some(other) => Err(unsupported(format!("chunk key separator {other:?}"))),
        }
    };
    Ok(match named.name.as_str() {
        "default" => ChunkKeyEncoding::Default {
            separator: sep('/')?,
        },
        "v2" => ChunkKeyEncoding::V2 {
            separator: sep('.')?,
            stated: true,
        },
        other => return Err(unsupported(format!("chunk key encoding {other}"))),
    })
}

/// A data type error as a metadata error.
pub(crate) fn type_error(e: super::dtype::TypeError) -> MetadataError {
    match e {
        super::dtype::TypeError::Unsupported(what) => MetadataError::Unsupported(what),
        super::dtype::TypeError::Invalid(what) => MetadataError::Invalid(what),
    }
}

/// The chain of a variable-length type: its `vlen-*` codec first (array to bytes), then
/// bytes-to-bytes codecs only; or one `sharding_indexed` whose inner chunks are such a chain
/// (zarr-python writes strings in shards so), with nothing after it. The chain proper sees
/// the `vlen-*` encoding as bytes (elements of one byte); the reader decodes the encoding
/// itself.
fn vlen_chain(
    dtype: DataType,
    codecs: &[Named],
    shape: &[u64],
) -> Result<CodecChain, MetadataError> {
    match codecs.split_first() {
        Some((first, rest)) if v3_codec(&first.name) == Some(CodecName::ShardingIndexed) => {
            if let Some(after) = rest.first() {
                return Err(unsupported(format!(
                    "codec {} after sharding_indexed over data type {dtype}",
                    after.name
                )));
            }
            let inner = vlen_as_bytes(dtype, &required_codecs(&first.configuration, "codecs")?)?;
            let mut configuration = first.configuration.clone();
            let inner = serde_json::to_value(inner)
                .map_err(|e| MetadataError::Invalid(format!("sharding codecs: {e}")))?;
            configuration.insert("codecs".to_owned(), inner);
            let shard = Named {
                name: first.name.clone(),
                configuration,
            };
            chain(&[shard], shape, (1, 1), None)
        }
        _ => chain(&vlen_as_bytes(dtype, codecs)?, shape, (1, 1), None),
    }
}

/// `codecs` (a variable-length type's, its `vlen-*` codec first, then bytes-to-bytes codecs
/// only) with the `vlen-*` codec as `bytes`.
fn vlen_as_bytes(dtype: DataType, codecs: &[Named]) -> Result<Vec<Named>, MetadataError> {
    let expected = if dtype == DataType::String {
        "vlen-utf8"
    } else {
        "vlen-bytes"
    };
    match codecs.split_first() {
        Some((first, rest)) if first.name == expected => {
            only_fields(expected, &first.configuration, &[])?;
            let mut list = vec![Named {
                name: "bytes".to_owned(),
                configuration: serde_json::Map::new(),
            }];
            for c in rest {
                if matches!(
                    v3_codec(&c.name),
                    Some(CodecName::Transpose | CodecName::ShardingIndexed | CodecName::Bytes)
                ) {
                    return Err(unsupported(format!(
                        "codec {} after {expected} (only bytes-to-bytes codecs may follow it)",
                        c.name
                    )));
                }
                list.push(Named {
                    name: c.name.clone(),
                    configuration: c.configuration.clone(),
                });
            }
            Ok(list)
        }
        Some((first, _)) if v3_codec(&first.name) == Some(CodecName::ShardingIndexed) => Err(
            unsupported(format!("data type {dtype} inside nested sharding_indexed")),
        ),
        _ => Err(MetadataError::Invalid(format!(
            "data type {dtype} needs {expected} as its first codec, not {:?}",
            codecs.first().map(|c| c.name.as_str())
        ))),
    }
}

/// What kind of JSON value `v` is, for messages that should not echo a large value.
fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// The string at `key` of a configuration, `None` if absent; any other type is invalid (not
/// read as absent, which would silently pick the default).
fn optional_str<'a>(
    cfg: &'a serde_json::Map<String, Value>,
    key: &str,
) -> Result<Option<&'a str>, MetadataError> {
    match cfg.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(MetadataError::Invalid(format!(
            "{key} must be a string, not {}",
            kind_of(other)
        ))),
    }
}

/// The list of codecs at `key` of a configuration, which the spec requires.
fn required_codecs(
    cfg: &serde_json::Map<String, Value>,
    key: &str,
) -> Result<Vec<Named>, MetadataError> {
    let v = cfg.get(key).ok_or_else(|| {
        MetadataError::Invalid(format!("sharding_indexed configuration lacks {key:?}"))
    })?;
    Vec::<Named>::deserialize(v).map_err(MetadataError::Json)
}

/// The codec named `name` in a `zarr.json`, if zinto knows it. The core name table also holds
/// `order`, which is a v2 `.zarray` field, not a v3 codec: in v3 it is unknown like any other
/// name, not "unsupported".
fn v3_codec(name: &str) -> Option<CodecName> {
    CodecName::from_name(name).filter(|c| *c != CodecName::Order)
}

/// Top-level fields this reader understands.
const KNOWN_FIELDS: [&str; 11] = [
    "zarr_format",
    "node_type",
    "shape",
    "data_type",
    "chunk_grid",
    "chunk_key_encoding",
    "fill_value",
    "codecs",
    "attributes",
    "dimension_names",
    "storage_transformers",
];

/// On a rectilinear grid of shards, every edge (those past the array's end too, as zarr-python
/// checks them) must hold whole inner chunks: each shard is its own grid of the metadata's inner
/// chunks. A regular grid's one shard shape was checked by the chain.
fn shards_fit_edges(grid: &ChunkGrid, chain: &CodecChain) -> Result<(), MetadataError> {
    let ArrayToBytes::Sharding(layout) = &chain.outer().array_to_bytes else {
        return Ok(());
    };
    for (dim, (axis, &inner)) in grid
        .axes()
        .iter()
        .zip(layout.grid().chunk_shape())
        .enumerate()
    {
        let Axis::Runs(table) = axis else {
            continue;
        };
        if let Some(run) = table.runs().find(|r| r.edge.get() % inner != 0) {
            return Err(MetadataError::Chain(ChainError::ShardNotDivisible {
                dim,
                shard: run.edge.get(),
                inner,
            }));
        }
    }
    Ok(())
}

/// Builds and validates the codec chain for chunks of `shape` (recursing into sharding), for
/// elements of `sizes.0` bytes made of `sizes.1`-byte scalars. `elem` is the element type
/// filters see (the array's, if numeric).
fn chain(
    codecs: &[Named],
    shape: &[u64],
    sizes: (usize, usize),
    elem: Option<Elem>,
) -> Result<CodecChain, MetadataError> {
    let mut list = Vec::with_capacity(codecs.len());
    let mut inner = None;
    let mut elem = elem;
    for c in codecs {
        let name = v3_codec(&c.name).ok_or_else(|| MetadataError::UnknownCodec(c.name.clone()))?;
        let cfg = &c.configuration;
        let codec = match name {
            CodecName::Bytes => Codec::Bytes(match bytes_endian(cfg)? {
                None => None,
                Some("little") => Some(Endian::Little),
                Some("big") => Some(Endian::Big),
                Some(other) => return Err(MetadataError::Invalid(format!("endian {other:?}"))),
            }),
            CodecName::Transpose => {
                only_fields("transpose", cfg, &["order"])?;
                let order = super::grid::shape_of(cfg.get("order"), "transpose order")?;
                let order: Vec<usize> = order
                    .iter()
                    .map(|&a| usize::try_from(a).unwrap_or(usize::MAX))
                    .collect();
                Codec::Transpose(MemoryOrder::permutation(&order).map_err(MetadataError::Layout)?)
            }
            CodecName::ShardingIndexed => {
                only_fields("sharding_indexed", cfg, &SHARDING_FIELDS)?;
                let inner_shape =
                    super::grid::shape_of(cfg.get("chunk_shape"), "sharding chunk_shape")?;
                let inner_codecs = required_codecs(cfg, "codecs")?;
                let index_codecs = required_codecs(cfg, "index_codecs")?;
                // Optional in the sharding spec, default "end".
                let index_location = match optional_str(cfg, "index_location")? {
                    None | Some("end") => IndexLocation::End,
                    Some("start") => IndexLocation::Start,
                    Some(other) => {
                        return Err(MetadataError::Invalid(format!("index_location {other:?}")));
                    }
                };
                let index_crc32c = index_codecs_have_crc(&index_codecs)?;
                // The inner chunk shape must divide the shard; checked by the core chain too.
                inner = Some(chain(&inner_codecs, &inner_shape, sizes, elem)?);
                Codec::ShardingIndexed {
                    chunk_shape: dims(&inner_shape).map_err(MetadataError::Layout)?,
                    index_location,
                    index_crc32c,
                }
            }
            // Its labels would need a table v3 arrays do not lay out yet.
            CodecName::Categorize => return Err(unsupported("codec numcodecs.categorize in v3")),
            other => configured(other, cfg, elem, &[])?
                .ok_or_else(|| unsupported(format!("codec {}", c.name)))?,
        };
        elem = elem_after(&codec, elem);
        list.push(codec);
    }
    CodecChain::with_scalar_size(shape, sizes.0, sizes.1, &list, inner)
        .map_err(MetadataError::Chain)
}

/// The fields of a `sharding_indexed` configuration.
const SHARDING_FIELDS: [&str; 4] = ["chunk_shape", "codecs", "index_codecs", "index_location"];

/// The `endian` of a `bytes` codec's configuration (its only field), if stated.
fn bytes_endian(cfg: &serde_json::Map<String, Value>) -> Result<Option<&str>, MetadataError> {
    only_fields("bytes", cfg, &["endian"])?;
    optional_str(cfg, "endian")
}

/// The index codecs must be `bytes` (little endian) optionally followed by `crc32c`, each
/// with no field but those.
fn index_codecs_have_crc(codecs: &[Named]) -> Result<bool, MetadataError> {
    let names: Vec<&str> = codecs.iter().map(|c| c.name.as_str()).collect();
    let little = match codecs.first() {
        Some(c) => bytes_endian(&c.configuration)? != Some("big"),
        None => false,
    };
    if let Some(crc) = codecs.get(1) {
        only_fields(&crc.name, &crc.configuration, &[])?;
    }
    match names.as_slice() {
        ["bytes"] if little => Ok(false),
        ["bytes", "crc32c"] if little => Ok(true),
        _ => Err(unsupported(format!(
            "sharding index codecs {names:?} (only bytes little-endian with optional crc32c)"
        ))),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)] // a panic is a failed test

    use super::*;

    fn doc(codecs: &str) -> String {
        format!(
            r#"{{"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "uint8",
            "chunk_grid": {{"name": "regular", "configuration": {{"chunk_shape": [2]}}}},
            "chunk_key_encoding": {{"name": "default"}}, "fill_value": 0,
            "codecs": {codecs}}}"#
        )
    }

    /// A codec without configuration may be its name alone (the zarrs crate writes
    /// `"crc32c"`): read as the object form; anything else is an error saying what it takes.
    #[test]
    fn a_codec_may_be_its_name_alone() {
        let short = parse(doc(r#"[{"name": "bytes"}, "crc32c"]"#).as_bytes()).unwrap();
        let long = parse(doc(r#"[{"name": "bytes"}, {"name": "crc32c"}]"#).as_bytes()).unwrap();
        assert_eq!(short.codec_names, ["bytes", "crc32c"]);
        assert_eq!(short.chain, long.chain);
        let e = parse(doc(r#"[{"name": "bytes"}, 5]"#).as_bytes()).unwrap_err();
        assert!(
            e.to_string().contains("an optional \"configuration\""),
            "{e}"
        );
    }
}
