//! `merge`: variable-size chunk files decoded end to end into one NumPy array, allocated once
//! at its exact size, then sorted by a key field in place (`zinto merge` from Python).

use std::num::NonZeroUsize;
use std::path::PathBuf;

use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::{PyFileNotFoundError, PyValueError};
use pyo3::prelude::*;
use zinto::core::codec::{BytesCodecs, Checksums, Compressor};
use zinto::core::records::{RecordLayout, sort_records_by_key_stable};
use zinto::{ConcatPlan, FileStore, ReadOptions, SegmentFormat};

use crate::array::AnyStore;
use crate::{errors, interruptible};

/// Scratch for a stable sort: merges whose smaller side fits are one pass.
const STABLE_SCRATCH_LEN: usize = 16 << 20;

/// Merges `files` (stored `codec`: "raw", "zstd" or "gzip") into one `uint8` array of whole
/// `record_size`-byte records, sorted by `key` (`TYPE@OFFSET`, as `zinto merge --key`) if
/// given; `stable` keeps equal keys in file order.
#[pyfunction]
#[pyo3(signature = (files, record_size, key=None, codec="raw", stable=false, threads=None))]
pub fn merge<'py>(
    py: Python<'py>,
    files: Vec<PathBuf>,
    record_size: usize,
    key: Option<&str>,
    codec: &str,
    stable: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray1<u8>>> {
    let layout = key
        .map(|k| RecordLayout::parse(k, record_size))
        .transpose()
        .map_err(|e| PyValueError::new_err(format!("key {key:?}: {e}")))?;
    if record_size == 0 {
        return Err(PyValueError::new_err("record_size must be at least 1"));
    }
    let compressor = match codec {
        "raw" => None,
        "zstd" => Some(Compressor::ZSTD),
        "gzip" => Some(Compressor::GZIP),
        other => {
            return Err(PyValueError::new_err(format!(
                "codec {other:?}: one of raw, zstd, gzip"
            )));
        }
    };
    let codecs = BytesCodecs {
        compressor,
        checksums: Checksums::NONE,
    };
    let threads = worker_count(threads)?;
    let (store, keys) = store_and_keys(&files)?;
    let plan = ConcatPlan::new(&store, &keys, codecs).map_err(errors::to_py)?;
    if let Some(piece) = plan.pieces().iter().find(|p| p.len % record_size != 0) {
        return Err(PyValueError::new_err(format!(
            "{}: decodes to {} bytes, not a whole number of {record_size}-byte records",
            piece.key, piece.len
        )));
    }
    let out = read_and_sort(py, &store, &plan, layout.as_ref(), stable, threads)?;
    Ok(out)
}

/// Merges segment `files` (`format`: "npy" or "msgpack") into one `uint8` array of their rows,
/// sorted by `key` (`col=N` or `TYPE@OFFSET`) if given. Returns the array, the segments'
/// NumPy type string and the merged shape: the caller views the bytes as that.
#[pyfunction]
#[pyo3(signature = (files, format, key=None, stable=false, threads=None))]
pub fn merge_segments<'py>(
    py: Python<'py>,
    files: Vec<PathBuf>,
    format: &str,
    key: Option<&str>,
    stable: bool,
    threads: Option<usize>,
) -> PyResult<(Bound<'py, PyArray1<u8>>, String, Vec<u64>)> {
    let format = match format {
        "npy" => SegmentFormat::Npy,
        "msgpack" => SegmentFormat::MsgpackNumpy,
        other => {
            return Err(PyValueError::new_err(format!(
                "format {other:?}: one of npy, msgpack"
            )));
        }
    };
    let threads = worker_count(threads)?;
    let (store, keys) = store_and_keys(&files)?;
    let (plan, held) = ConcatPlan::segments(&store, &keys, format).map_err(errors::to_py)?;
    let held = held.ok_or_else(|| PyValueError::new_err("no files to merge"))?;
    let layout = key
        .map(|k| held.key_layout(k))
        .transpose()
        .map_err(PyValueError::new_err)?;
    let out = read_and_sort(py, &store, &plan, layout.as_ref(), stable, threads)?;
    Ok((out, held.dtype.to_string(), held.shape()))
}

/// `threads` as a worker count: none for the default, at least one otherwise.
fn worker_count(threads: Option<usize>) -> PyResult<Option<NonZeroUsize>> {
    threads
        .map(|n| {
            NonZeroUsize::new(n).ok_or_else(|| PyValueError::new_err("threads must be at least 1"))
        })
        .transpose()
}

/// Reads `plan` from `store` into a new `uint8` array (allocated once, at its exact size) with
/// the GIL released and Ctrl-C heard, then sorts its records by `layout`, if given.
fn read_and_sort<'py>(
    py: Python<'py>,
    store: &AnyStore,
    plan: &ConcatPlan,
    layout: Option<&RecordLayout>,
    stable: bool,
    threads: Option<NonZeroUsize>,
) -> PyResult<Bound<'py, PyArray1<u8>>> {
    let out = PyArray1::<u8>::zeros(py, plan.len(), false);
    {
        let mut rw = out.readwrite();
        let buf = rw
            .as_slice_mut()
            .map_err(|_| errors::ZintoError::new_err("a new array is not contiguous (a bug)"))?;
        interruptible::run(py, |cancel| {
            let options = ReadOptions {
                threads,
                cancel: Some(cancel),
                ..ReadOptions::default()
            };
            plan.read_into(store, buf, &options)
                .map_err(errors::to_py)?;
            let Some(layout) = layout else {
                return Ok(());
            };
            sort(buf, layout, stable, options.workers())
        })?;
    }
    Ok(out)
}

/// Sorts `buf`'s records by `layout`: stable with bounded scratch, else in parallel.
fn sort(
    buf: &mut [u8],
    layout: &RecordLayout,
    stable: bool,
    threads: NonZeroUsize,
) -> PyResult<()> {
    let sorted = if stable {
        let mut scratch = vec![0u8; STABLE_SCRATCH_LEN.min(buf.len() / 2)];
        sort_records_by_key_stable(buf, layout, &mut scratch)
    } else {
        zinto::sort_records_parallel(buf, layout, threads)
    };
    sorted.map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The store `files` are in, and their keys: URLs (all on one bucket or server; `*` and `?`
/// in their last segment expanded by listing) in a remote store, or local files' absolute paths
/// in a store rooted at `/` (errors then name the file).
fn store_and_keys(files: &[PathBuf]) -> PyResult<(AnyStore, Vec<String>)> {
    let urls: Vec<&str> = files
        .iter()
        .filter_map(|f| f.to_str().filter(|s| s.contains("://")))
        .collect();
    if !urls.is_empty() {
        if urls.len() != files.len() {
            return Err(PyValueError::new_err(
                "a mix of local files and URLs: pass either",
            ));
        }
        let (store, keys) = zinto::store::objects(&urls, zinto::store::RemoteOptions::default())
            .map_err(|e| {
                let msg = zinto::redact::scrub(&e.to_string()).into_owned();
                match e {
                    zinto::StoreError::BadUrl { .. } => PyValueError::new_err(msg),
                    _ => errors::StoreError::new_err(msg),
                }
            })?;
        return Ok((std::sync::Arc::new(store), keys));
    }
    Ok((
        std::sync::Arc::new(FileStore::new("/")),
        absolute_keys(files)?,
    ))
}

/// The absolute paths of `files`, as keys of a store rooted at `/` (errors then name the file).
fn absolute_keys(files: &[PathBuf]) -> PyResult<Vec<String>> {
    let mut keys = Vec::with_capacity(files.len());
    for file in files {
        let path = std::fs::canonicalize(file)
            .map_err(|e| PyFileNotFoundError::new_err(format!("{}: {e}", file.display())))?;
        let key = path.to_str().ok_or_else(|| {
            PyValueError::new_err(format!("{}: path is not UTF-8", file.display()))
        })?;
        keys.push(key.to_owned());
    }
    Ok(keys)
}
