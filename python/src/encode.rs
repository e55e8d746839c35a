//! The chunks of a write into a store zinto does not write itself (zarr-python's
//! `MemoryStore`, `ZipStore`, an fsspec store), encoded here and handed back for zarr-python to
//! store.

use std::sync::Arc;

use numpy::PyReadonlyArray1;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;

use crate::array::AnyStore;
use crate::write::{Write, WriteSettings, write, write_vlen};

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
#[pyo3(signature = (array, old, region, input, settings=None))]
pub fn encode_chunks<'py>(
    py: Python<'py>,
    array: (u8, PyBackedBytes),
    old: std::collections::HashMap<String, Vec<u8>>,
    region: (Vec<u64>, Vec<u64>),
    input: PyReadonlyArray1<'_, u8>,
    settings: Option<WriteSettings>,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    let w = Write::new((&region.0, &region.1), &input, settings)?;
    encoded_chunks(py, (array.0, &array.1), old, |array| write(py, array, &w))
}

/// [`encode_chunks`] for a variable-length array (strings, bytes): element `i` of the region
/// is `values[offsets[i]..offsets[i + 1]]`, as `RsArray.write_vlen` takes them.
#[pyfunction]
#[pyo3(signature = (array, old, region, elements, settings=None))]
pub fn encode_vlen_chunks<'py>(
    py: Python<'py>,
    array: (u8, PyBackedBytes),
    old: std::collections::HashMap<String, Vec<u8>>,
    region: (Vec<u64>, Vec<u64>),
    elements: (PyReadonlyArray1<'_, u64>, PyReadonlyArray1<'_, u8>),
    settings: Option<WriteSettings>,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    let (offsets, values) = elements;
    let w = Write::new((&region.0, &region.1), &values, settings)?;
    let offsets = crate::write::offsets(&offsets)?;
    encoded_chunks(py, (array.0, &array.1), old, |array| {
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
