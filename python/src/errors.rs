//! zinto's errors as Python exceptions: a `ZintoError` hierarchy, plus the built-in ones a
//! Python user expects (FileNotFoundError for a missing path, MemoryError).

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};
use zinto::ErrorKind;
use zinto::redact::scrub;

create_exception!(
    zinto,
    ZintoError,
    pyo3::exceptions::PyException,
    "Any error zinto raises about data it reads or writes."
);
create_exception!(
    zinto,
    MetadataError,
    ZintoError,
    "Metadata that is missing, malformed or asks for something unsupported."
);
create_exception!(
    zinto,
    StoreError,
    ZintoError,
    "The store failed: I/O, a short object, a directory where a file belongs."
);

/// `zinto.DecodeError` and `zinto.EncodeError`: `ZintoError`s that are also `ValueError`s, as
/// Python's own `UnicodeDecodeError` and `json.JSONDecodeError` are. zarr-python's codecs raise
/// `ValueError` for a value they cannot store or give back (`scale_offset`'s overflow), and its
/// callers and tests catch that; through zinto's pipeline the same call raises these.
static DECODE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static ENCODE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
/// `zinto.ExistsError`: a `MetadataError` (what it was before, for callers that catch that)
/// that is also Python's `FileExistsError`.
static EXISTS_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
const EXISTS_DOC: &str = "An array was to be created where something already is (an array, a \
                          group, the user's files), and overwrite was not asked for.";

const DECODE_DOC: &str = "A chunk did not decode (corrupt, truncated, wrong size, bad checksum, \
                          a value its type cannot hold).";
const ENCODE_DOC: &str = "A chunk could not be encoded for writing (a codec this build does not \
                          write, a value the stored type cannot hold).";

/// The class `name` deriving from `ZintoError` and `ValueError`, made once.
fn value_error_class<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyType>>,
    (name, doc): (&str, &str),
) -> PyResult<&'py Bound<'py, PyType>> {
    let bases = [py.get_type::<ZintoError>(), py.get_type::<PyValueError>()];
    two_bases_class(py, cell, (name, doc), bases)
}

/// The class `name` deriving from both of `bases`, made once.
fn two_bases_class<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyType>>,
    (name, doc): (&str, &str),
    bases: [Bound<'py, PyType>; 2],
) -> PyResult<&'py Bound<'py, PyType>> {
    cell.get_or_try_init(py, || {
        let bases = PyTuple::new(py, bases)?;
        let dict = PyDict::new(py);
        dict.set_item("__module__", "zinto")?;
        dict.set_item("__doc__", doc)?;
        let class = py
            .import("builtins")?
            .getattr("type")?
            .call1((name, bases, dict))?;
        Ok(class.cast_into::<PyType>()?.unbind())
    })
    .map(|c| c.bind(py))
}

fn decode_class(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    value_error_class(py, &DECODE_ERROR, ("DecodeError", DECODE_DOC))
}

fn encode_class(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    value_error_class(py, &ENCODE_ERROR, ("EncodeError", ENCODE_DOC))
}

fn exists_class(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    let bases = [
        py.get_type::<MetadataError>(),
        py.get_type::<pyo3::exceptions::PyFileExistsError>(),
    ];
    two_bases_class(py, &EXISTS_ERROR, ("ExistsError", EXISTS_DOC), bases)
}

/// An exception of `class` (made on first use) with `msg`, or the error making it raised.
fn raised(
    class: for<'py> fn(Python<'py>) -> PyResult<&'py Bound<'py, PyType>>,
    msg: String,
) -> PyErr {
    Python::attach(|py| match class(py) {
        Ok(c) => PyErr::from_type(c.clone(), msg),
        Err(e) => e,
    })
}
create_exception!(
    zinto,
    Cancelled,
    ZintoError,
    "A read or write stopped early, for a signal."
);

/// Adds the exception types to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("ZintoError", py.get_type::<ZintoError>())?;
    m.add("MetadataError", py.get_type::<MetadataError>())?;
    m.add("StoreError", py.get_type::<StoreError>())?;
    m.add("DecodeError", decode_class(py)?)?;
    m.add("EncodeError", encode_class(py)?)?;
    m.add("ExistsError", exists_class(py)?)?;
    m.add("Cancelled", py.get_type::<Cancelled>())?;
    Ok(())
}

/// The Python exception for a zinto error, its message the error's own (path, chunk, cause).
pub fn to_py(e: zinto::Error) -> PyErr {
    let msg = scrub(&e.to_string()).into_owned();
    of_kind(e.kind(), msg)
}

/// The Python exception for a zinto error about what the user named `shown` (a URL), its
/// message naming that instead of the node's path in the store.
pub fn to_py_at(shown: &str, e: &zinto::Error) -> PyErr {
    let msg = format!("{shown}: {}", e.kind());
    of_kind(e.kind(), scrub(&msg).into_owned())
}

/// The Python exception for an error of `kind`, with `msg`.
fn of_kind(kind: &ErrorKind, msg: String) -> PyErr {
    match kind {
        ErrorKind::Metadata(zinto::MetadataError::Missing) => {
            pyo3::exceptions::PyFileNotFoundError::new_err(msg)
        }
        ErrorKind::Metadata(_) => MetadataError::new_err(msg),
        ErrorKind::Store(zinto::StoreError::Missing) => {
            pyo3::exceptions::PyFileNotFoundError::new_err(msg)
        }
        // A store's count of its own bytes out of step is a bug in zinto, as an internal error
        // of the reader's is: not the store failing.
        ErrorKind::Store(zinto::StoreError::Internal { .. }) => raised(decode_class, msg),
        ErrorKind::Store(_) => StoreError::new_err(msg),
        ErrorKind::Layout(_)
        | ErrorKind::OutputSize { .. }
        | ErrorKind::SelectionsDiffer { .. }
        | ErrorKind::VlenInput { .. } => pyo3::exceptions::PyValueError::new_err(msg),
        ErrorKind::WrongType { .. } => pyo3::exceptions::PyTypeError::new_err(msg),
        ErrorKind::OutOfMemory { .. } => pyo3::exceptions::PyMemoryError::new_err(msg),
        ErrorKind::Cancelled => Cancelled::new_err(msg),
        ErrorKind::Encode(_) => raised(encode_class, msg),
        ErrorKind::Occupied { .. } | ErrorKind::InTheWay { .. } => raised(exists_class, msg),
        _ => raised(decode_class, msg),
    }
}
