//! `zinto._zinto`: the Rust half of the `zinto` Python package. The Python half
//! (`zinto/__init__.py`) turns NumPy indexing into regions, allocates the output once and hands
//! it here to be filled in place.

mod array;
mod errors;
mod group;
mod interruptible;
mod merge;

use pyo3::prelude::*;

/// Opens the array or group at `path` (a directory): returns `RsArray` or `RsGroup`.
#[pyfunction]
fn open(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Py<PyAny>> {
    if !path.exists() {
        return Err(pyo3::exceptions::PyFileNotFoundError::new_err(format!(
            "{}: no such directory",
            path.display()
        )));
    }
    if path.is_file() {
        return Err(pyo3::exceptions::PyNotADirectoryError::new_err(format!(
            "{} is a file; pass the directory of an array or group",
            path.display()
        )));
    }
    let store: array::AnyStore = std::sync::Arc::new(zinto::FileStore::new(&path));
    let node = zinto::Node::open(store, "").map_err(errors::to_py)?;
    Ok(match node {
        zinto::Node::Array(a) => Py::new(py, array::RsArray::new(a))?.into_any(),
        zinto::Node::Group(g) => Py::new(py, group::RsGroup::new(g))?.into_any(),
    })
}

/// The extension module.
#[pymodule]
fn _zinto(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_function(wrap_pyfunction!(array::array_in_directory, m)?)?;
    m.add_function(wrap_pyfunction!(array::array_of_chunks, m)?)?;
    m.add_function(wrap_pyfunction!(merge::merge, m)?)?;
    m.add_function(wrap_pyfunction!(merge::merge_segments, m)?)?;
    m.add_class::<array::RsArray>()?;
    m.add_class::<group::RsGroup>()?;
    errors::register(m)?;
    Ok(())
}
