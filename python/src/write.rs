//! Creating arrays (`zinto.create`) and writing into them from NumPy arrays
//! (`Array.write`), with the GIL released and Ctrl-C honoured between chunks.

use std::num::NonZeroUsize;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use zinto::{ArrayBuilder, ChunkOrder, DataType, Store, WriteOptions, ZarrFormat};

use crate::array::{AnyStore, RsArray};
use crate::{errors, interruptible};

/// A new array, as `zinto.create` states it (a dict; the Python side fills every key).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct NewArray {
    shape: Vec<u64>,
    /// NumPy's name of the type (`"float32"`, `"bool"`), or `"string"`, `"bytes"`.
    dtype: String,
    big_endian: bool,
    chunks: Vec<u64>,
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
/// URL; `anonymous` sends unsigned requests) and opens it.
#[pyfunction]
#[pyo3(signature = (path, spec, anonymous = false))]
pub fn create(
    py: Python<'_>,
    path: std::path::PathBuf,
    spec: NewArray,
    anonymous: bool,
) -> PyResult<RsArray> {
    let builder = spec.builder()?;
    let (store, shown) = store_at(&path, anonymous)?;
    py.detach(|| builder.create(store, ""))
        .map(RsArray::new)
        .map_err(|e| errors::to_py_at(&shown, &e))
}

/// The store to create an array in, and how to name it in messages.
fn store_at(path: &std::path::Path, anonymous: bool) -> PyResult<(AnyStore, String)> {
    if let Some(url) = path.to_str().filter(|p| p.contains("://")) {
        let shown = zinto::redact::printable_url(url);
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
    let store: AnyStore = Arc::new(zinto::FileStore::new(path));
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

/// `threads` as the Rust options take it: at least 1, or `None` for one per core.
pub fn threads(threads: Option<usize>) -> PyResult<Option<NonZeroUsize>> {
    threads
        .map(|t| {
            NonZeroUsize::new(t).ok_or_else(|| PyValueError::new_err("threads must be at least 1"))
        })
        .transpose()
}

/// How a write runs, as the Python calls state it: a dict; `write_empty_chunks` is required,
/// the others optional.
#[derive(FromPyObject, Default)]
#[pyo3(from_item_all)]
pub struct WriteSettings {
    /// Store chunks that are all fill value too.
    write_empty_chunks: bool,
    /// Worker threads; `None` for one per core.
    #[pyo3(default)]
    threads: Option<usize>,
    /// The order of a shard's inner chunks: zarr-python's `subchunk_write_order` names,
    /// `"lexicographic"` (the default), `"unordered"` (laid lexicographically, as
    /// zarr-python 3.4 lays it), `"colexicographic"` or `"morton"`.
    #[pyo3(default)]
    inner_chunk_order: Option<String>,
}

/// The [`ChunkOrder`] zarr-python's `subchunk_write_order` names.
fn chunk_order(name: Option<&str>) -> PyResult<ChunkOrder> {
    match name {
        None | Some("lexicographic" | "unordered") => Ok(ChunkOrder::Lexicographic),
        Some("colexicographic") => Ok(ChunkOrder::Colexicographic),
        Some("morton") => Ok(ChunkOrder::Morton),
        Some(other) => Err(PyValueError::new_err(format!(
            "unknown inner chunk order {other:?}: expected \"lexicographic\", \"unordered\", \
             \"colexicographic\" or \"morton\""
        ))),
    }
}

/// How `RsArray.write_from` writes.
pub struct Write<'a> {
    pub region: zinto::Region,
    pub input: &'a [u8],
    pub threads: Option<NonZeroUsize>,
    pub write_empty_chunks: bool,
    pub inner_chunk_order: ChunkOrder,
}

impl<'a> Write<'a> {
    /// The write of `input` (C-contiguous) into the region `start`/`shape`, as the Python
    /// calls state it.
    pub fn new(
        (start, shape): (&[u64], &[u64]),
        input: &'a PyReadonlyArray1<'_, u8>,
        settings: Option<WriteSettings>,
    ) -> PyResult<Self> {
        let settings = settings.unwrap_or_default();
        Ok(Self {
            region: crate::array::region(start, shape)?,
            input: self::input(input)?,
            threads: self::threads(settings.threads)?,
            write_empty_chunks: settings.write_empty_chunks,
            inner_chunk_order: chunk_order(settings.inner_chunk_order.as_deref())?,
        })
    }

    /// The options of this write, cancelled by `cancel`.
    fn options<'c>(&self, cancel: &'c AtomicBool) -> WriteOptions<'c> {
        WriteOptions {
            threads: self.threads,
            cancel: Some(cancel),
            write_empty_chunks: self.write_empty_chunks,
            inner_chunk_order: self.inner_chunk_order,
            ..WriteOptions::default()
        }
    }
}

/// Writes `w.input` (the region's elements in C order, in the array's native-order type)
/// into `array`'s region, off the GIL, cancelled by Ctrl-C between chunks.
pub fn write<S: Store>(py: Python<'_>, array: &zinto::Array<S>, w: &Write<'_>) -> PyResult<()> {
    interruptible::run(py, |cancel| {
        let options = w.options(cancel);
        array
            .write_from_with(&w.region, w.input, &options)
            .map_err(errors::to_py)
    })
}

/// Writes variable-length values into `array`'s region: element `i` is
/// `w.input[offsets[i]..offsets[i + 1]]`, C order; off the GIL, cancelled by Ctrl-C between
/// chunks.
pub fn write_vlen<S: Store>(
    py: Python<'_>,
    array: &zinto::Array<S>,
    w: &Write<'_>,
    offsets: &[u64],
) -> PyResult<()> {
    interruptible::run(py, |cancel| {
        let options = w.options(cancel);
        array
            .write_vlen_with(&w.region, offsets, w.input, &options)
            .map_err(errors::to_py)
    })
}

/// Offsets and values, as NumPy arrays.
type VlenParts<'py> = (
    Bound<'py, numpy::PyArray1<u64>>,
    Bound<'py, numpy::PyArray1<u8>>,
);

/// How many elements [`vlen_parts`] reads between the times it lets go of the GIL.
const GIL_TURN: usize = 1 << 14;

/// The elements of `items` (any iterable: `array.flat` of a NumPy array) as `write_vlen`
/// takes them: offsets (one more than the elements) and the elements' bytes end to end. With
/// `text`, each element is a `str` (UTF-8; any other value but bytes as `str(x)`, as NumPy's
/// string assignment makes it); else bytes-like, `None` empty, as zarr-python stores it. One element at a time: no Python object per
/// element is kept, so the memory is the result.
#[pyfunction]
pub fn vlen_parts<'py>(
    py: Python<'py>,
    items: &Bound<'py, PyAny>,
    text: bool,
) -> PyResult<VlenParts<'py>> {
    use pyo3::types::{PyByteArray, PyBytes, PyString};
    let mut offsets = vec![0u64];
    let mut values: Vec<u8> = Vec::new();
    for (i, item) in items.try_iter()?.enumerate() {
        let item = item?;
        if i % GIL_TURN == GIL_TURN - 1 {
            // A thread waiting for the GIL gets its turn (the caller's, writing the previous
            // slab: its Ctrl-C checks and its return): this loop runs no bytecode, so Python
            // would not switch.
            py.detach(|| ());
        }
        // zarr-python stores None as empty bytes (numcodecs' VLenBytes); in a string array it
        // is "None", as NumPy's cast to its string type makes it (below).
        if !text && item.is_none() {
            offsets.push(values.len() as u64);
            continue;
        }
        let is_bytes = item.is_instance_of::<PyBytes>() || item.is_instance_of::<PyByteArray>();
        if text {
            if is_bytes {
                return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                    "a string array takes str, not {}",
                    item.get_type().name()?
                )));
            }
            let s = match item.cast::<PyString>() {
                Ok(s) => s.clone(),
                Err(_) => item.str()?,
            };
            values.extend_from_slice(s.to_cow()?.as_bytes());
        } else if is_bytes {
            values.extend_from_slice(&item.extract::<Vec<u8>>()?);
        } else {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "a bytes array takes bytes, not {}",
                item.get_type().name()?
            )));
        }
        offsets.push(values.len() as u64);
    }
    Ok((
        numpy::PyArray1::from_vec(py, offsets),
        numpy::PyArray1::from_vec(py, values),
    ))
}

/// A region's write for a store zinto does not write itself (zarr-python's `MemoryStore`,
/// `ZipStore`, an fsspec store): the chunks of the array `json` describes (v2 `.zarray` or v3
/// `zarr.json`, `zarr_format`) that the region `start`/`shape` touches, encoded from `input`
/// (as `RsArray.write_from` takes it) over the `old` chunks the region only partly covers
/// (`{key: bytes}`, keys relative to the array), returned as `{key: bytes}` for zarr-python
/// to store: only the chunks this write stored (an old chunk it did not touch is not in it, so
/// the results of writes of disjoint regions over the same `old` can be merged). A touched key
/// missing from the result is a chunk left all fill value: zarr-python removes it. Each chunk
/// is encoded once, in parallel, off the GIL; the result is handed over chunk by chunk, so at
/// most one chunk is held twice.
#[pyfunction]
#[pyo3(signature = (zarr_format, json, old, start, shape, input, settings=None))]
#[allow(clippy::too_many_arguments)] // zarr-python's write, as it hands it over
pub fn encode_chunks<'py>(
    py: Python<'py>,
    zarr_format: u8,
    json: &[u8],
    old: std::collections::HashMap<String, Vec<u8>>,
    start: Vec<u64>,
    shape: Vec<u64>,
    input: PyReadonlyArray1<'_, u8>,
    settings: Option<WriteSettings>,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    let w = Write::new((&start, &shape), &input, settings)?;
    encoded_chunks(py, (zarr_format, json), old, |array| write(py, array, &w))
}

/// [`encode_chunks`] for a variable-length array (strings, bytes): element `i` of the region
/// is `values[offsets[i]..offsets[i + 1]]`, as `RsArray.write_vlen` takes them.
#[pyfunction]
#[pyo3(signature = (zarr_format, json, old, start, shape, offsets, values, settings=None))]
#[allow(clippy::too_many_arguments)] // encode_chunks', with the offsets
pub fn encode_vlen_chunks<'py>(
    py: Python<'py>,
    zarr_format: u8,
    json: &[u8],
    old: std::collections::HashMap<String, Vec<u8>>,
    start: Vec<u64>,
    shape: Vec<u64>,
    offsets: PyReadonlyArray1<'_, u64>,
    values: PyReadonlyArray1<'_, u8>,
    settings: Option<WriteSettings>,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    let w = Write::new((&start, &shape), &values, settings)?;
    let offsets = self::offsets(&offsets)?;
    encoded_chunks(py, (zarr_format, json), old, |array| {
        write_vlen(py, array, &w, offsets)
    })
}

/// The chunks `write` stores into an array (`json`, `zarr_format`) over an in-memory store
/// seeded with `old`, as `{key: bytes}`: only those it stored (see [`encode_chunks`]).
fn encoded_chunks<'py>(
    py: Python<'py>,
    (zarr_format, json): (u8, &[u8]),
    old: std::collections::HashMap<String, Vec<u8>>,
    write: impl FnOnce(&zinto::Array<AnyStore>) -> PyResult<()>,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    let mut memory = zinto::MemoryStore::new();
    for (key, bytes) in old {
        memory.insert(key, bytes);
    }
    let memory = Arc::new(memory);
    // The old chunks as seeded: one the write leaves is the same allocation after it.
    let seeded: std::collections::HashMap<String, Arc<[u8]>> = memory
        .keys()
        .into_iter()
        .filter_map(|k| memory.get(&k).map(|b| (k, b)))
        .collect();
    let store: AnyStore = memory.clone();
    let array = crate::array::from_metadata(store, "", zarr_format, json)?;
    write(array.inner())?;
    drop(array);
    let chunks = pyo3::types::PyDict::new(py);
    for key in memory.keys() {
        let Some(bytes) = memory.take(&key) else {
            continue;
        };
        if !seeded.get(&key).is_some_and(|old| Arc::ptr_eq(old, &bytes)) {
            chunks.set_item(&key, pyo3::types::PyBytes::new(py, &bytes))?;
        }
    }
    Ok(chunks)
}

/// The offsets of a variable-length write, if C-contiguous.
pub fn offsets<'a>(offsets: &'a PyReadonlyArray1<'_, u64>) -> PyResult<&'a [u64]> {
    offsets
        .as_slice()
        .map_err(|_| PyValueError::new_err("the offsets must be C-contiguous"))
}

/// The input's bytes, if C-contiguous.
pub fn input<'a>(input: &'a PyReadonlyArray1<'_, u8>) -> PyResult<&'a [u8]> {
    input
        .as_slice()
        .map_err(|_| PyValueError::new_err("the value must be C-contiguous"))
}
