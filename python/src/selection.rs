//! A region as Python states it (start and shape lists), checked as the library checks one.

use pyo3::prelude::*;
use pyo3::types::slice::PySliceIndices;
use pyo3::types::{PyList, PySlice, PyTuple};

use numpy::PyReadonlyArray1;
use zinto::Region;
use zinto::core::selection::{AxisSel, Group, Points, Selection};

use crate::errors;

/// The region of `shape` elements from `start`.
pub(crate) fn region(start: &[u64], shape: &[u64]) -> PyResult<Region> {
    Region::new(start, shape).map_err(|e| errors::to_py(e.into()))
}

/// A loader's batch as NumPy states it: each key a tuple of one step-1 slice per dimension
/// of `shape`, all of one extent. The extent and each key's start, or `None` if any key is
/// not of that form (the caller's general path then reads it, or says what is wrong).
pub(crate) fn windows(keys: &Bound<'_, PyList>, shape: &[u64]) -> PyResult<Option<Windows>> {
    let mut found = Windows {
        extent: Vec::new(),
        starts: Vec::with_capacity(keys.len()),
    };
    for key in keys.iter() {
        let Ok(key) = key.cast::<PyTuple>() else {
            return Ok(None);
        };
        if key.len() != shape.len() {
            return Ok(None);
        }
        let mut start = Vec::with_capacity(shape.len());
        let mut extent = Vec::with_capacity(shape.len());
        for (k, &n) in key.iter().zip(shape) {
            let Ok(slice) = k.cast::<PySlice>() else {
                return Ok(None);
            };
            let Ok(n) = isize::try_from(n) else {
                return Ok(None);
            };
            let PySliceIndices {
                start: a,
                step,
                slicelength,
                ..
            } = slice.indices(n)?;
            if step != 1 {
                return Ok(None);
            }
            start.push(a.try_into()?);
            extent.push(slicelength.try_into()?);
        }
        if found.starts.is_empty() {
            found.extent = extent;
        } else if found.extent != extent {
            return Ok(None);
        }
        found.starts.push(start);
    }
    Ok(Some(found))
}

/// Selections of one extent, each from its own start: a batch for `read_many_into`.
#[pyclass(module = "zinto._zinto", frozen)]
pub(crate) struct Windows {
    pub(crate) extent: Vec<u64>,
    pub(crate) starts: Vec<Vec<u64>>,
}

#[pymethods]
impl Windows {
    /// The batch of `starts`, each selecting `extent` elements.
    #[new]
    fn new(starts: Vec<Vec<u64>>, extent: Vec<u64>) -> Self {
        Self { extent, starts }
    }

    /// The extent every selection has.
    #[getter]
    fn extent(&self) -> Vec<u64> {
        self.extent.clone()
    }

    /// Each selection's start.
    #[getter]
    fn starts(&self) -> Vec<Vec<u64>> {
        self.starts.clone()
    }
}

/// A selection as the Python side states it: one tuple per group, in output order,
/// `("range", dim, start, stop)`, `("index", dim, i)`, `("list", dim, indices)` (an `int64`
/// array, NumPy's indices: negative from the end) or `("points", dims, [indices, ...])` (one
/// `int64` array per axis, all as long), checked against `shape` as the library checks one.
pub(crate) fn groups(spec: &Bound<'_, PyList>, shape: &[u64]) -> PyResult<Selection> {
    let bad = |e: zinto::core::LayoutError| errors::to_py(e.into());
    let extent = |dim: usize| -> PyResult<u64> {
        shape.get(dim).copied().ok_or_else(|| {
            pyo3::exceptions::PyIndexError::new_err(format!(
                "axis {dim} of a {}-dimensional array",
                shape.len()
            ))
        })
    };
    let mut out = Vec::with_capacity(spec.len());
    for item in spec.iter() {
        let item = item.cast::<PyTuple>()?;
        let kind: String = item.get_item(0)?.extract()?;
        let group = match kind.as_str() {
            "range" => {
                let (_, dim, start, stop): (String, usize, u64, u64) = item.extract()?;
                Group::Axis {
                    dim,
                    sel: AxisSel::Range { start, stop },
                }
            }
            "index" => {
                let (_, dim, i): (String, usize, u64) = item.extract()?;
                Group::Axis {
                    dim,
                    sel: AxisSel::Index(i),
                }
            }
            "list" => {
                let (_, dim, list): (String, usize, PyReadonlyArray1<'_, i64>) = item.extract()?;
                let sel = AxisSel::from_signed(list.as_slice()?, extent(dim)?, dim).map_err(bad)?;
                Group::Axis { dim, sel }
            }
            "points" => {
                let (_, dims, lists): (String, Vec<usize>, Vec<PyReadonlyArray1<'_, i64>>) =
                    item.extract()?;
                let slices = lists
                    .iter()
                    .map(|l| l.as_slice())
                    .collect::<Result<Vec<&[i64]>, _>>()?;
                Group::Points(Points::from_signed(&dims, &slices, shape).map_err(bad)?)
            }
            other => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "selection group {other:?} (a bug in zinto's Python side)"
                )));
            }
        };
        out.push(group);
    }
    Selection::new(out, shape).map_err(bad)
}
