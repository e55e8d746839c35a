//! `RsArray`: an opened array, its metadata, and reads into a NumPy array the caller allocated.

use numpy::{PyArray1, PyReadonlyArray1, PyReadwriteArray1};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};

use zinto::{Array, ReadOptions, Store};

use crate::selection::{self, Windows, region};
use crate::{errors, interruptible};

/// A store of any kind, shared.
pub type AnyStore = Arc<dyn Store>;

/// An array, as `zinto.open` found it (or as zarr-python's metadata describes it).
#[pyclass(frozen, module = "zinto._zinto")]
pub struct RsArray {
    inner: Array<AnyStore>,
}

impl RsArray {
    pub fn new(inner: Array<AnyStore>) -> Self {
        Self { inner }
    }

    /// The array.
    pub fn inner(&self) -> &Array<AnyStore> {
        &self.inner
    }
}

/// The array `path` in the directory `root`, described by the metadata document `json`
/// (zarr-python's codec pipeline hands it over): v3 `zarr.json` (`zarr_format` 3) or v2
/// `.zarray` (2).
#[pyfunction]
#[pyo3(signature = (root, path, zarr_format, json))]
pub fn array_in_directory(
    root: std::path::PathBuf,
    path: &str,
    zarr_format: u8,
    json: &[u8],
) -> PyResult<RsArray> {
    // zarr-python's LocalStore writes through links wherever they point: its pipeline does too.
    let store: AnyStore = Arc::new(zinto::FileStore::new(root).writing_through_links());
    from_metadata(store, path, zarr_format, json)
}

/// The array `path` below the object-store or HTTP URL `url` (zarr-python's store, when zinto
/// can address it), described by `json`; `config` holds the store's settings as object_store
/// names them (`endpoint`, `region`, `access_key_id`, `allow_http`, ...), over the
/// environment's.
#[pyfunction]
#[pyo3(signature = (url, path, zarr_format, json, config))]
pub fn array_at_url(
    url: &str,
    path: &str,
    zarr_format: u8,
    json: &[u8],
    config: Vec<(String, String)>,
) -> PyResult<RsArray> {
    from_metadata(
        Arc::new(remote_store(url, config)?),
        path,
        zarr_format,
        json,
    )
}

/// The array `path` below the object-store URL `url`, with `config` as for
/// [`array_at_url`], its metadata read from the store as it is now (the pipeline writes with
/// it: zarr-python may have resized the array since it made the pipeline).
#[pyfunction]
#[pyo3(signature = (url, path, config))]
pub fn open_at_url(
    py: Python<'_>,
    url: &str,
    path: &str,
    config: Vec<(String, String)>,
) -> PyResult<RsArray> {
    let store: AnyStore = Arc::new(remote_store(url, config)?);
    // Without the GIL: the server may be Python's own, in this process (moto's threaded
    // server in zarr-python's tests), which needs the GIL to answer.
    py.detach(|| Array::open(store, path))
        .map(RsArray::new)
        .map_err(errors::to_py)
}

fn remote_store(url: &str, config: Vec<(String, String)>) -> PyResult<zinto::store::RemoteStore> {
    let mut options = zinto::store::RemoteOptions::default();
    options.config = config;
    zinto::store::RemoteStore::from_url_with(url, options).map_err(|e| {
        crate::errors::StoreError::new_err(zinto::redact::scrub(&e.to_string()).into_owned())
    })
}

/// The array described by `json` whose chunks are the given `{key: bytes}` (fetched by
/// zarr-python from a store zinto does not read itself). Keys are relative to the array.
#[pyfunction]
pub fn array_of_chunks(
    zarr_format: u8,
    json: &[u8],
    chunks: std::collections::HashMap<String, pyo3::pybacked::PyBackedBytes>,
) -> PyResult<RsArray> {
    let store = crate::fetched::Fetched::new(chunks);
    from_metadata(Arc::new(store), "", zarr_format, json)
}

pub(crate) fn from_metadata(
    store: AnyStore,
    path: &str,
    zarr_format: u8,
    json: &[u8],
) -> PyResult<RsArray> {
    let format = match zarr_format {
        2 => zinto::ZarrFormat::V2,
        3 => zinto::ZarrFormat::V3,
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "zarr_format {other}: 2 or 3"
            )));
        }
    };
    Array::from_metadata(store, path, format, json, None)
        .map(RsArray::new)
        .map_err(errors::to_py)
}

#[pymethods]
impl RsArray {
    /// The array's shape.
    #[getter]
    fn shape(&self) -> Vec<u64> {
        self.inner.shape().to_vec()
    }

    /// The NumPy type string in native byte order (`"<f4"`), or `"string"` / `"bytes"` for
    /// the variable-length types.
    #[getter]
    fn dtype(&self) -> String {
        let t = self.inner.dtype();
        t.numpy_str().unwrap_or_else(|| t.to_string())
    }

    /// The chunk shape (inside shards, if sharded).
    #[getter]
    fn chunks(&self) -> Vec<u64> {
        self.inner.chunk_shape().to_vec()
    }

    /// The shard shape, `None` if not sharded.
    #[getter]
    fn shards(&self) -> Option<Vec<u64>> {
        self.inner.shard_shape().map(<[u64]>::to_vec)
    }

    /// The codecs as the metadata names them.
    #[getter]
    fn codecs(&self) -> Vec<String> {
        self.inner.metadata().codec_names.clone()
    }

    /// 2 or 3.
    #[getter]
    fn zarr_format(&self) -> u8 {
        match self.inner.metadata().format {
            zinto::ZarrFormat::V2 => 2,
            zinto::ZarrFormat::V3 => 3,
        }
    }

    /// The dimension names, `None` if the array has none.
    #[getter]
    fn dimension_names(&self) -> Option<Vec<Option<String>>> {
        self.inner.dimension_names().map(<[_]>::to_vec)
    }

    /// The attributes as JSON text (`zinto.Array.attrs` parses it).
    fn attrs_json(&self) -> PyResult<String> {
        let attrs = self.inner.attributes().map_err(errors::to_py)?;
        serde_json::to_string(attrs)
            .map_err(|e| errors::ZintoError::new_err(format!("attributes: {e}")))
    }

    /// Reads the region `start`/`shape` into `out` (the output's bytes, viewed as a flat
    /// `uint8` array), with the GIL released and Ctrl-C honoured between chunks. Given a list
    /// `absent`, appends to it the grid coordinates (a tuple) of each chunk the read found
    /// absent (read as the fill value), in no particular order.
    #[pyo3(signature = (start, shape, out, threads=None, absent=None))]
    fn read_into(
        &self,
        py: Python<'_>,
        start: Vec<u64>,
        shape: Vec<u64>,
        mut out: PyReadwriteArray1<'_, u8>,
        threads: Option<usize>,
        absent: Option<&Bound<'_, PyList>>,
    ) -> PyResult<()> {
        let selection = region(&start, &shape)?;
        let out = out
            .as_slice_mut()
            .map_err(|_| pyo3::exceptions::PyValueError::new_err("out must be C-contiguous"))?;
        let threads = crate::write::threads(threads)?;
        let array = &self.inner;
        let found = AbsentChunks::default();
        let note = |coords: &[u64]| found.note(coords);
        let wanted = absent.is_some();
        // A small read (a millisecond or so) runs here, without the GIL and without a
        // thread to watch for Ctrl-C: starting one would cost more than the read.
        let small = array.is_small_read(&selection).map_err(errors::to_py)?;
        // On one worker, as the library runs it: said here so that it is not asked again.
        let threads = threads.or(small.then_some(std::num::NonZeroUsize::MIN));
        let mut run = |cancel: &AtomicBool, watch: &(dyn Fn(u64, u64) + Sync)| {
            let options = ReadOptions {
                threads,
                cancel: Some(cancel),
                progress: Some(watch),
                extra: zinto::ReadExtra {
                    absent: wanted.then_some(&note as &(dyn Fn(&[u64]) + Sync)),
                },
                ..ReadOptions::default()
            };
            array
                .read_into_with(&selection, out, &options)
                .map_err(errors::to_py)
        };
        if small {
            py.detach(|| run(&AtomicBool::new(false), &|_, _| {}))?;
        } else if array.store().read_ahead().is_some() {
            // A remote read's workers (this thread among them) may all wait on a stalled
            // server: signals are watched from here while the read runs on another thread,
            // and a Ctrl-C drops its requests at once.
            interruptible::run(py, |cancel| run(cancel, &|_, _| {}))?;
        } else {
            interruptible::run_here(py, run)?;
        }
        found.append_to(absent)
    }

    /// Reads the selection `groups` states (see `selection::groups`: lists of indices, masks,
    /// points, in output order) into `out` (its bytes, a flat `uint8` array), each chunk
    /// read once and only the selected elements gathered, with the GIL released and Ctrl-C
    /// honoured; `absent` as for `read_into`.
    #[pyo3(signature = (groups, out, threads=None, absent=None))]
    fn read_selection_into(
        &self,
        py: Python<'_>,
        groups: &Bound<'_, PyList>,
        mut out: PyReadwriteArray1<'_, u8>,
        threads: Option<usize>,
        absent: Option<&Bound<'_, PyList>>,
    ) -> PyResult<()> {
        let array = &self.inner;
        let sel = selection::groups(groups, array.shape())?;
        let out = out
            .as_slice_mut()
            .map_err(|_| pyo3::exceptions::PyValueError::new_err("out must be C-contiguous"))?;
        let threads = crate::write::threads(threads)?;
        let found = AbsentChunks::default();
        let note = |coords: &[u64]| found.note(coords);
        let wanted = absent.is_some();
        let mut run = |cancel: &AtomicBool, watch: &(dyn Fn(u64, u64) + Sync)| {
            let options = ReadOptions {
                threads,
                cancel: Some(cancel),
                progress: Some(watch),
                extra: zinto::ReadExtra {
                    absent: wanted.then_some(&note as &(dyn Fn(&[u64]) + Sync)),
                },
                ..ReadOptions::default()
            };
            array
                .read_selection_into_with(&sel, out, &options)
                .map_err(errors::to_py)
        };
        if array.store().read_ahead().is_some() {
            // As `read_into`: a remote read's signals are watched from here, the read on
            // another thread (its workers may all wait on a stalled server).
            interruptible::run(py, |cancel| run(cancel, &|_, _| {}))?;
        } else {
            // A loader's batch of rows takes a few milliseconds: a thread started to watch
            // for Ctrl-C cost 0.1 ms a call (a tenth of a batch's time).
            interruptible::run_here(py, run)?;
        }
        found.append_to(absent)
    }

    /// `keys` (a list) parsed as a batch of windows, as `selection::windows` does.
    fn windows(&self, keys: &Bound<'_, PyList>) -> PyResult<Option<Windows>> {
        selection::windows(keys, self.inner.shape())
    }

    /// Reads the batch `windows` into `out` (their bytes end to end, viewed as a flat `uint8`
    /// array), the windows shared out to the workers, with the GIL released and Ctrl-C
    /// honoured between windows.
    #[pyo3(signature = (windows, out, threads=None))]
    fn read_many_into(
        &self,
        py: Python<'_>,
        windows: PyRef<'_, Windows>,
        mut out: PyReadwriteArray1<'_, u8>,
        threads: Option<usize>,
    ) -> PyResult<()> {
        let selections = windows
            .starts
            .iter()
            .map(|start| region(start, &windows.extent))
            .collect::<PyResult<Vec<_>>>()?;
        let out = out
            .as_slice_mut()
            .map_err(|_| pyo3::exceptions::PyValueError::new_err("out must be C-contiguous"))?;
        let threads = crate::write::threads(threads)?;
        let array = &self.inner;
        interruptible::run_here(py, |cancel, watch| {
            let options = ReadOptions {
                threads,
                cancel: Some(cancel),
                progress: Some(watch),
                ..ReadOptions::default()
            };
            array
                .read_many_into(&selections, out, &options)
                .map_err(errors::to_py)
        })
    }

    /// Reads a variable-length region: `(offsets, values)`, a `uint64` array of one offset per
    /// element plus one, and the elements' bytes end to end. `absent` as for `read_into`;
    /// `limit` the most one chunk may decode to (`None`: `zinto.DECODED_CHUNK_LIMIT`).
    #[pyo3(signature = (start, shape, absent=None, limit=None))]
    fn read_vlen<'py>(
        &self,
        py: Python<'py>,
        start: Vec<u64>,
        shape: Vec<u64>,
        absent: Option<&Bound<'py, PyList>>,
        limit: Option<u64>,
    ) -> PyResult<(Bound<'py, PyArray1<u64>>, Bound<'py, PyBytes>)> {
        let selection = region(&start, &shape)?;
        let array = &self.inner;
        let found = AbsentChunks::default();
        let note = |coords: &[u64]| found.note(coords);
        let wanted = absent.is_some();
        let data = interruptible::run(py, |cancel| {
            let options = ReadOptions {
                cancel: Some(cancel),
                extra: zinto::ReadExtra {
                    absent: wanted.then_some(&note as &(dyn Fn(&[u64]) + Sync)),
                },
                decoded_chunk_limit: limit,
                ..ReadOptions::default()
            };
            array
                .read_vlen_with(&selection, &options)
                .map_err(errors::to_py)
        })?;
        found.append_to(absent)?;
        let (offsets, values) = data.into_parts();
        Ok((PyArray1::from_vec(py, offsets), PyBytes::new(py, &values)))
    }

    /// The array's path in its store.
    #[getter]
    fn path(&self) -> String {
        self.inner.path().to_owned()
    }

    /// Whether writers of different parts of one chunk at once are held off from each other
    /// on this array's store (local files: yes; a remote store: not yet).
    #[getter]
    fn serialises_updates(&self) -> bool {
        self.inner.store().serialises_updates()
    }

    /// Why zinto does not write this array (a codec, filter or type it does not write yet),
    /// or `None` if it does.
    fn write_refusal(&self) -> Option<String> {
        let checked = if self.inner.dtype().fixed_size().is_some() {
            self.inner.check_writable()
        } else {
            self.inner.check_vlen_writable()
        };
        checked.err().map(|e| e.to_string())
    }

    /// Writes `input` (the region's elements in C order and the array's type in native byte
    /// order, viewed as a flat `uint8` array) into the region `start`/`shape`: each chunk
    /// encoded once and written whole (a temporary name, renamed), with the GIL released and
    /// Ctrl-C honoured between chunks. `settings`, a dict, each key optional: `threads`,
    /// `write_empty_chunks` (chunks left all fill value are removed unless it is true),
    /// `inner_chunk_order` (a shard's inner chunks: `"lexicographic"`, the default, or
    /// `"morton"` as zarr-python 3.4 lays them, `"colexicographic"`, `"unordered"`).
    #[pyo3(signature = (start, shape, input, settings=None))]
    fn write_from(
        &self,
        py: Python<'_>,
        start: Vec<u64>,
        shape: Vec<u64>,
        input: PyReadonlyArray1<'_, u8>,
        settings: Option<crate::write::WriteSettings>,
    ) -> PyResult<()> {
        let w = crate::write::Write::new((&start, &shape), &input, settings)?;
        crate::write::write(py, &self.inner, &w)
    }

    /// Updates the one chunk the region `start`/`shape` lies in, under its update guard (the
    /// pipeline's index-list and mask writes): `out` (the region's elements in C order, a
    /// flat `uint8` view of the caller's scratch) read unless `read_old` is false, `lay()`
    /// called to put the new values into it, and `out` written back whole; again from the read
    /// when another writer replaced the chunk first.
    #[pyo3(signature = (start, shape, out, read_old, lay, settings=None))]
    #[allow(clippy::too_many_arguments)] // Python's call, stated once here
    fn update_chunk(
        &self,
        py: Python<'_>,
        start: Vec<u64>,
        shape: Vec<u64>,
        out: &Bound<'_, numpy::PyArray1<u8>>,
        read_old: bool,
        lay: &Bound<'_, PyAny>,
        settings: Option<crate::write::WriteSettings>,
    ) -> PyResult<()> {
        let at = (&start[..], &shape[..]);
        crate::write::update_chunk(py, &self.inner, at, (out, read_old), lay, settings)
    }

    /// `update_chunk` for a `string` or `bytes` array: `merge(offsets, values)` is given the
    /// region's old elements (as `read_vlen` gives them) and returns its new ones (as
    /// `write_vlen` takes them), written back whole under the chunk's update guard.
    #[pyo3(signature = (start, shape, merge, settings=None))]
    fn update_vlen_chunk(
        &self,
        py: Python<'_>,
        start: Vec<u64>,
        shape: Vec<u64>,
        merge: &Bound<'_, PyAny>,
        settings: Option<crate::write::WriteSettings>,
    ) -> PyResult<()> {
        let at = (&start[..], &shape[..]);
        crate::write::update_vlen_chunk(py, &self.inner, at, merge, settings)
    }

    /// Writes `input` (the selection's values in C order, native-order type, as bytes) into
    /// the elements the selection `groups` states (see `selection::groups`), each chunk it
    /// touches read, merged and written once; off the GIL, cancelled by Ctrl-C between chunks.
    #[pyo3(signature = (groups, input, settings=None))]
    fn write_selection_from(
        &self,
        py: Python<'_>,
        groups: &Bound<'_, PyList>,
        input: PyReadonlyArray1<'_, u8>,
        settings: Option<crate::write::WriteSettings>,
    ) -> PyResult<()> {
        let sel = selection::groups(groups, self.inner.shape())?;
        let w = crate::write::Write::new((&[], &[]), &input, settings)?;
        crate::write::write_selection(py, &self.inner, &w, &sel)
    }

    /// Writes variable-length values (a `string` or `bytes` array) into the region
    /// `start`/`shape`, C order, as `read_vlen` gives them: element `i` is
    /// `values[offsets[i]:offsets[i + 1]]` (UTF-8 for strings). Offsets that do not fit the
    /// region or the values, or a string that is not UTF-8, are refused (`ValueError`) before
    /// anything is written. Otherwise as `write_from`.
    #[pyo3(signature = (start, shape, offsets, values, settings=None))]
    fn write_vlen(
        &self,
        py: Python<'_>,
        start: Vec<u64>,
        shape: Vec<u64>,
        offsets: PyReadonlyArray1<'_, u64>,
        values: PyReadonlyArray1<'_, u8>,
        settings: Option<crate::write::WriteSettings>,
    ) -> PyResult<()> {
        let w = crate::write::Write::new((&start, &shape), &values, settings)?;
        let offsets = crate::write::offsets(&offsets)?;
        crate::write::write_vlen(py, &self.inner, &w, offsets)
    }
}

/// The chunks a read found absent, gathered from its workers (without the GIL), then handed
/// to the caller's list.
#[derive(Default)]
struct AbsentChunks(Mutex<Vec<Vec<u64>>>);

impl AbsentChunks {
    /// Notes one absent chunk (called from a read's workers).
    fn note(&self, coords: &[u64]) {
        // A worker that panicked while holding the lock left a whole list: keep it.
        let mut found = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        found.push(coords.to_vec());
    }

    /// Appends each chunk noted, as a tuple of its coordinates, to `list`, if given.
    fn append_to(self, list: Option<&Bound<'_, PyList>>) -> PyResult<()> {
        let Some(list) = list else {
            return Ok(());
        };
        let found = self.0.into_inner().unwrap_or_else(PoisonError::into_inner);
        for coords in found {
            list.append(PyTuple::new(list.py(), coords)?)?;
        }
        Ok(())
    }
}
