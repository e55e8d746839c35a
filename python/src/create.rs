//! `zinto.create`: a new array as the Python side states it, in a directory or an object store.

use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use zinto::{ArrayBuilder, DataType, ZarrFormat};

use crate::array::{AnyStore, RsArray};
use crate::errors;

/// A new array, as `zinto.create` states it (a dict; the Python side fills every key).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct NewArray {
    shape: Vec<u64>,
    /// NumPy's name of the type (`"float32"`, `"bool"`), or `"string"`, `"bytes"`.
    dtype: String,
    big_endian: bool,
    chunks: Vec<u64>,
    /// A rectilinear grid's chunk sizes per dimension (`None` for a regular one), or `None`.
    chunk_edges: Option<Vec<Option<Vec<u64>>>>,
    shards: Option<Vec<u64>>,
    /// Specs as `zinto create --codec` takes them (`"zstd:3"`, `"crc32c"`).
    codecs: Vec<String>,
    /// JSON text, as the metadata will state it.
    fill_value: Option<String>,
    zarr_format: u8,
    /// A JSON object's text.
    attributes: Option<String>,
    dimension_names: Option<Vec<Option<String>>>,
    /// `"C"` or `"F"`: each chunk's memory order.
    order: String,
    overwrite: bool,
}

/// Creates the array `spec` states at `path` (a directory, or an `s3://`, `gs://`, `az://`
/// URL; `anonymous` sends unsigned requests) and opens it. In a directory, writes never follow
/// a symbolic link out of it; `follow_symlinks = false` refuses every link inside it.
#[pyfunction]
#[pyo3(signature = (path, spec, anonymous = false, follow_symlinks = true))]
pub fn create(
    py: Python<'_>,
    path: std::path::PathBuf,
    spec: NewArray,
    anonymous: bool,
    follow_symlinks: bool,
) -> PyResult<RsArray> {
    let builder = spec.builder()?;
    let (store, shown) = store_at(&path, anonymous, follow_symlinks)?;
    py.detach(|| builder.create(store, ""))
        .map(RsArray::new)
        .map_err(|e| errors::to_py_at(&shown, &e))
}

/// The store to create an array in, and how to name it in messages.
fn store_at(
    path: &std::path::Path,
    anonymous: bool,
    follow_symlinks: bool,
) -> PyResult<(AnyStore, String)> {
    if let Some(url) = path.to_str().filter(|p| p.contains("://")) {
        let shown = zinto::redact::printable_url(url);
        if !follow_symlinks {
            return Err(crate::no_links_in_urls(&shown));
        }
        if !zinto::store::is_remote_url(url) {
            return Err(PyValueError::new_err(format!(
                "{shown}: not a store zinto writes (s3://, gs://, az://, or a directory)"
            )));
        }
        let mut options = zinto::store::RemoteOptions::default();
        options.anonymous = anonymous;
        let store = zinto::store::RemoteStore::from_url_with(url, options).map_err(|e| {
            PyValueError::new_err(zinto::redact::scrub(&e.to_string()).into_owned())
        })?;
        return Ok((Arc::new(store), shown));
    }
    let store = match follow_symlinks {
        true => zinto::FileStore::new(path),
        false => zinto::FileStore::new(path).without_symlinks(),
    };
    let store: AnyStore = Arc::new(store);
    Ok((store, path.display().to_string()))
}

impl NewArray {
    fn builder(&self) -> PyResult<ArrayBuilder> {
        let dtype = match self.dtype.as_str() {
            "string" => DataType::String,
            "bytes" => DataType::Bytes,
            name => fixed_length(name)
                .or_else(|| date_or_duration(name))
                .or_else(|| zinto::core::dtype::Number::from_name(name).map(DataType::from))
                .ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "dtype {name}: zinto creates arrays of numbers, bool, dates and durations with a unit (datetime64[s], timedelta64[10ms]), variable-length strings (str) and bytes (bytes), and fixed-length ones (U n, S n); not structured types"
                    ))
                })?,
        };
        let mut b = ArrayBuilder::new(&self.shape, dtype, &self.chunks).overwrite(self.overwrite);
        b = match self.zarr_format {
            3 => b,
            2 => b.zarr_format(ZarrFormat::V2),
            n => return Err(PyValueError::new_err(format!("zarr_format {n}: 2 or 3"))),
        };
        if self.big_endian {
            b = b.endian(zinto::core::codec::Endian::Big);
        }
        b = match self.order.as_str() {
            "C" => b,
            "F" => b.order(
                zinto::core::MemoryOrder::f(self.shape.len())
                    .map_err(|e| PyValueError::new_err(e.to_string()))?,
            ),
            other => return Err(PyValueError::new_err(format!("order {other:?}: C or F"))),
        };
        if let Some(shards) = &self.shards {
            b = b.shards(shards);
        }
        if let Some(edges) = &self.chunk_edges {
            b = b.chunk_edges(edges.clone());
        }
        b = b
            .codec_specs(&self.codecs)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        if let Some(fill) = &self.fill_value {
            b = b.fill_value(json(fill, "fill_value")?);
        }
        if let Some(attributes) = &self.attributes {
            match json(attributes, "attributes")? {
                serde_json::Value::Object(map) => b = b.attributes(map),
                _ => return Err(PyValueError::new_err("attributes: a dict")),
            }
        }
        if let Some(names) = &self.dimension_names {
            b = b.dimension_names(names.clone());
        }
        Ok(b)
    }
}

/// NumPy's fixed-length strings and bytes as `zinto.create` names them: `"U5"` (5 UTF-32
/// characters), `"S4"` (4 bytes); `None` for any other name.
fn fixed_length(name: &str) -> Option<DataType> {
    let digits = name
        .get(1..)
        .filter(|d| d.bytes().all(|b| b.is_ascii_digit()))?;
    let n = digits.parse::<u32>().ok().filter(|&n| n > 0)?;
    match name.as_bytes().first()? {
        b'U' => Some(DataType::FixedUtf32 { chars: n }),
        b'S' => Some(DataType::FixedBytes { len: n }),
        _ => None,
    }
}

/// NumPy's `datetime64[UNIT]` or `timedelta64[UNIT]` (a unit is needed: a generic
/// `datetime64` has no Zarr type).
fn date_or_duration(name: &str) -> Option<DataType> {
    let (kind, unit) = name.split_once('[')?;
    let unit = zinto::TimeUnit::parse_numpy(unit.strip_suffix(']')?)?;
    match kind {
        "datetime64" => Some(DataType::DateTime64(unit)),
        "timedelta64" => Some(DataType::TimeDelta64(unit)),
        _ => None,
    }
}

fn json(text: &str, what: &str) -> PyResult<serde_json::Value> {
    serde_json::from_str(text).map_err(|e| PyValueError::new_err(format!("{what}: {e}")))
}
