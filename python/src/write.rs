//! Writing into arrays from NumPy arrays (`Array.write`, and the chunks the pipeline encodes),
//! with the GIL released and Ctrl-C honoured between chunks: the settings a write takes from
//! Python, and the write itself.

use std::num::NonZeroUsize;
use std::sync::atomic::AtomicBool;

use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use zinto::{ChunkOrder, Store, WriteOptions};

use crate::{errors, interruptible};

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
            region: crate::selection::region(start, shape)?,
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
            extra: zinto::WriteExtra {
                write_empty_chunks: self.write_empty_chunks,
                inner_chunk_order: self.inner_chunk_order,
            },
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

/// Writes `w.input` into the elements `sel` picks (its region is not used), off the GIL,
/// cancelled by Ctrl-C between chunks.
pub fn write_selection<S: Store>(
    py: Python<'_>,
    array: &zinto::Array<S>,
    w: &Write<'_>,
    sel: &zinto::core::selection::Selection,
) -> PyResult<()> {
    interruptible::run(py, |cancel| {
        let options = w.options(cancel);
        array
            .write_selection_from_with(sel, w.input, &options)
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

/// A chunk update's read and write options: one worker (the guard is the calling thread's),
/// `settings` as given.
fn one_worker_options(
    settings: Option<WriteSettings>,
) -> PyResult<(zinto::ReadOptions<'static>, WriteOptions<'static>)> {
    let settings = settings.unwrap_or_default();
    let one = Some(NonZeroUsize::MIN);
    let write = WriteOptions {
        threads: one,
        extra: zinto::WriteExtra {
            write_empty_chunks: settings.write_empty_chunks,
            inner_chunk_order: chunk_order(settings.inner_chunk_order.as_deref())?,
        },
        ..WriteOptions::default()
    };
    let read = zinto::ReadOptions {
        threads: one,
        ..zinto::ReadOptions::default()
    };
    Ok((read, write))
}

/// Updates the one chunk the region `start`/`shape` lies in, under the chunk's update guard
/// ([`zinto::Array::update_chunk`]): `out` (the region's elements in C order, as bytes) read
/// from the array unless `read_old` is false, `lay()` called to put the caller's values into
/// `out`, and `out` written back whole; all again, from the read, when another writer
/// replaced the chunk first (a conditional write on S3, GCS, Azure). On this thread (the
/// guard is this thread's), the GIL released for the reads and writes; one chunk's update is
/// not cut short by Ctrl-C.
pub fn update_chunk<S: Store + Sync>(
    py: Python<'_>,
    array: &zinto::Array<S>,
    (start, shape): (&[u64], &[u64]),
    (out, read_old): (&Bound<'_, numpy::PyArray1<u8>>, bool),
    lay: &Bound<'_, PyAny>,
    settings: Option<WriteSettings>,
) -> PyResult<()> {
    use numpy::PyArrayMethods;
    let region = crate::selection::region(start, shape)?;
    let (read, write) = one_worker_options(settings)?;
    // A Python error inside the merge ends the update; it is raised as it was.
    let mut raised: Option<PyErr> = None;
    let mut stash = |e: PyErr| {
        raised = Some(e);
        zinto::Error::from(zinto::ErrorKind::Cancelled)
    };
    // The guard is taken without the GIL (another thread of this process may hold the
    // chunk's lock and need the GIL to finish); the GIL is taken back for the Python calls.
    let (out, lay) = (out.clone().unbind(), lay.clone().unbind());
    let result = py.detach(|| {
        array.update_chunk(&region, |lock| {
            Python::attach(|py| {
                let out = out.bind(py);
                if read_old {
                    let mut rw = out.try_readwrite().map_err(|e| stash(e.into()))?;
                    let slice = rw.as_slice_mut().map_err(|e| stash(e.into()))?;
                    py.detach(|| array.read_into_with(&region, slice, &read))?;
                }
                lay.bind(py).call0().map_err(&mut stash)?;
                let ro = out.try_readonly().map_err(|e| stash(e.into()))?;
                let slice = ro.as_slice().map_err(|e| stash(e.into()))?;
                // Under a conditional guard the chunk is stored even if all fill: no
                // conditional delete exists.
                let mut write = write;
                write.extra.write_empty_chunks |= lock.is_conditional();
                py.detach(|| array.write_from_with(&region, slice, &write))
            })
        })
    });
    match raised {
        Some(e) => Err(e),
        None => result.map_err(errors::to_py),
    }
}

/// [`update_chunk`] for strings and bytes: under the chunk's update guard, the region's old
/// elements read (`read_vlen`), handed to `merge(offsets, values)`, which gives back the
/// region's new elements as `(offsets, values)` (`vlen_parts`), written whole by
/// `write_vlen`; all again, from the read, when another writer replaced the chunk first.
pub fn update_vlen_chunk<S: Store + Sync>(
    py: Python<'_>,
    array: &zinto::Array<S>,
    (start, shape): (&[u64], &[u64]),
    merge: &Bound<'_, PyAny>,
    settings: Option<WriteSettings>,
) -> PyResult<()> {
    use numpy::PyArray1;
    let region = crate::selection::region(start, shape)?;
    let (read, write) = one_worker_options(settings)?;
    let mut raised: Option<PyErr> = None;
    let mut stash = |e: PyErr| {
        raised = Some(e);
        zinto::Error::from(zinto::ErrorKind::Cancelled)
    };
    // As in `update_chunk`: the guard taken without the GIL.
    let merge = merge.clone().unbind();
    let result = py.detach(|| {
        array.update_chunk(&region, |lock| {
            let old = array.read_vlen_with(&region, &read)?;
            Python::attach(|py| {
                // As `read_vlen` gives them: offsets, and the values as bytes.
                let old = (
                    PyArray1::from_slice(py, old.offsets()),
                    pyo3::types::PyBytes::new(py, old.values()),
                );
                let new = merge.bind(py).call1(old).map_err(&mut stash)?;
                let (offsets, values): (PyReadonlyArray1<'_, u64>, PyReadonlyArray1<'_, u8>) =
                    new.extract().map_err(&mut stash)?;
                let offsets = self::offsets(&offsets).map_err(&mut stash)?;
                let values = input(&values).map_err(&mut stash)?;
                // Under a conditional guard the chunk is stored even if all fill: no
                // conditional delete exists.
                let mut write = write;
                write.extra.write_empty_chunks |= lock.is_conditional();
                py.detach(|| array.write_vlen_with(&region, offsets, values, &write))
            })
        })
    });
    match raised {
        Some(e) => Err(e),
        None => result.map_err(errors::to_py),
    }
}
