//! zinto's errors as Python exceptions: a `ZintoError` hierarchy, plus the built-in ones a
//! Python user expects (FileNotFoundError for a missing path, MemoryError).

use pyo3::create_exception;
use pyo3::prelude::*;
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
create_exception!(
    zinto,
    DecodeError,
    ZintoError,
    "A chunk did not decode (corrupt, truncated, wrong size, bad checksum)."
);
create_exception!(
    zinto,
    EncodeError,
    ZintoError,
    "A chunk could not be encoded for writing."
);
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
    m.add("DecodeError", py.get_type::<DecodeError>())?;
    m.add("EncodeError", py.get_type::<EncodeError>())?;
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
        ErrorKind::Store(zinto::StoreError::Internal { .. }) => DecodeError::new_err(msg),
        ErrorKind::Store(_) => StoreError::new_err(msg),
        ErrorKind::Layout(_) | ErrorKind::OutputSize { .. } | ErrorKind::VlenInput { .. } => {
            pyo3::exceptions::PyValueError::new_err(msg)
        }
        ErrorKind::WrongType { .. } => pyo3::exceptions::PyTypeError::new_err(msg),
        ErrorKind::OutOfMemory { .. } => pyo3::exceptions::PyMemoryError::new_err(msg),
        ErrorKind::Cancelled => Cancelled::new_err(msg),
        ErrorKind::Encode(_) => EncodeError::new_err(msg),
        _ => DecodeError::new_err(msg),
    }
}
