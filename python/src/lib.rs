//! `zinto._zinto`: the Rust half of the `zinto` Python package. The Python half
//! (`zinto/__init__.py`) turns NumPy indexing into regions, allocates the output once and hands
//! it here to be filled in place.

mod array;
mod cli;
mod create;
mod encode;
mod errors;
mod fetched;
mod group;
mod interruptible;
mod merge;
mod selection;
mod slabs;
mod write;

use pyo3::prelude::*;

/// The settings of a remote store, as `open` takes them.
/// How a URL's store is reached, as `zinto.open` takes it.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
struct Reach {
    anonymous: bool,
    in_flight: Option<usize>,
    read_ahead: Option<u64>,
    /// Seconds.
    timeout: Option<f64>,
    /// Seconds.
    stall_timeout: Option<f64>,
}

/// `seconds` as a duration, if it is a positive number of them.
fn duration(seconds: f64, what: &str) -> PyResult<std::time::Duration> {
    std::time::Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err(format!(
                "{what} must be a positive number of seconds, not {seconds}"
            ))
        })
}

fn remote_options(reach: &Reach) -> PyResult<zinto::store::RemoteOptions> {
    let Reach {
        anonymous,
        in_flight,
        read_ahead,
        timeout,
        stall_timeout,
    } = *reach;
    let mut options = zinto::store::RemoteOptions::default();
    options.anonymous = anonymous;
    if let Some(n) = in_flight {
        options.in_flight = std::num::NonZeroUsize::new(n).ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err("in_flight must be at least 1")
        })?;
    }
    if let Some(bytes) = read_ahead {
        options.read_ahead = zinto::store::ReadAheadBudget::Bytes(bytes);
    }
    if let Some(s) = stall_timeout {
        options.stall_timeout = duration(s, "stall_timeout")?;
    }
    if let Some(s) = timeout {
        options = options.with_timeout(duration(s, "timeout")?);
    }
    Ok(options)
}

/// Opens the array or group at `path` (a directory, or a URL: `s3://`, `gs://`, `az://`,
/// `http(s)://`): returns `RsArray` or `RsGroup`. For URLs, `reach` (a dict) holds
/// `anonymous` (unsigned requests), `in_flight` (requests a read keeps in flight),
/// `read_ahead` (bytes of bodies it holds ahead of its workers), `timeout` and
/// `stall_timeout` (seconds); for a directory, `follow_symlinks = false` refuses symbolic
/// links inside it (refused for a URL, where it would do nothing).
#[pyfunction]
#[pyo3(signature = (path, reach = None, follow_symlinks = true))]
fn open(
    py: Python<'_>,
    path: std::path::PathBuf,
    reach: Option<Reach>,
    follow_symlinks: bool,
) -> PyResult<Py<PyAny>> {
    if let Some(url) = path.to_str().filter(|p| p.contains("://")) {
        if !zinto::store::is_remote_url(url) {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "{}: not a store zinto reads (s3://, gs://, az://, http(s)://, or a directory)",
                zinto::redact::printable_url(url)
            )));
        }
        if !follow_symlinks {
            return Err(no_links_in_urls(&zinto::redact::printable_url(url)));
        }
        let reach = reach.unwrap_or(Reach {
            anonymous: false,
            in_flight: None,
            read_ahead: None,
            timeout: None,
            stall_timeout: None,
        });
        let options = remote_options(&reach)?;
        let store = zinto::store::RemoteStore::from_url_with(url, options).map_err(|e| {
            pyo3::exceptions::PyValueError::new_err(
                zinto::redact::scrub(&e.to_string()).into_owned(),
            )
        })?;
        let store: array::AnyStore = std::sync::Arc::new(store);
        let shown = zinto::redact::printable_url(url);
        // Without the GIL: the metadata's requests may take up to the timeouts, and other
        // Python threads (a server on this machine among them) run meanwhile.
        let node = py
            .detach(|| zinto::Node::open(store, ""))
            .map_err(|e| errors::to_py_at(&shown, &e))?;
        return wrap(py, node);
    }
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
    let store = match follow_symlinks {
        true => zinto::FileStore::new(&path),
        false => zinto::FileStore::new(&path).without_symlinks(),
    };
    let store: array::AnyStore = std::sync::Arc::new(store);
    wrap(
        py,
        py.detach(|| zinto::Node::open(store, ""))
            .map_err(errors::to_py)?,
    )
}

/// `follow_symlinks=False` given with the URL `shown`, where it would do nothing.
pub(crate) fn no_links_in_urls(shown: &str) -> PyErr {
    pyo3::exceptions::PyValueError::new_err(format!(
        "{shown}: follow_symlinks=False applies to directories; a URL's store has no links"
    ))
}

/// The Python object of an opened node.
fn wrap(py: Python<'_>, node: zinto::Node<array::AnyStore>) -> PyResult<Py<PyAny>> {
    Ok(match node {
        zinto::Node::Array(a) => Py::new(py, array::RsArray::new(a))?.into_any(),
        zinto::Node::Group(g) => Py::new(py, group::RsGroup::new(g))?.into_any(),
    })
}

/// The extension module.
#[pymodule]
fn _zinto(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // The package's version: maturin builds the wheel with this crate's.
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("DECODED_CHUNK_LIMIT", zinto::DECODED_CHUNK_LIMIT)?;
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_function(wrap_pyfunction!(array::array_in_directory, m)?)?;
    m.add_function(wrap_pyfunction!(array::array_of_chunks, m)?)?;
    m.add_function(wrap_pyfunction!(array::array_at_url, m)?)?;
    m.add_function(wrap_pyfunction!(array::open_at_url, m)?)?;
    m.add_function(wrap_pyfunction!(merge::merge, m)?)?;
    m.add_function(wrap_pyfunction!(merge::merge_segments, m)?)?;
    m.add_function(wrap_pyfunction!(cli::run_cli, m)?)?;
    m.add_function(wrap_pyfunction!(slabs::slabs, m)?)?;
    m.add_function(wrap_pyfunction!(create::create, m)?)?;
    m.add_function(wrap_pyfunction!(encode::encode_chunks, m)?)?;
    m.add_function(wrap_pyfunction!(encode::encode_vlen_chunks, m)?)?;
    m.add_function(wrap_pyfunction!(write::vlen_parts, m)?)?;
    m.add_class::<array::RsArray>()?;
    m.add_class::<group::RsGroup>()?;
    m.add_class::<selection::Windows>()?;
    errors::register(m)?;
    Ok(())
}
