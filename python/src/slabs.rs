//! `slabs`: a region cut into slabs of whole chunks by the library's one rule
//! ([`zinto::slabs`]), for the package's writes in parts.

use pyo3::prelude::*;

use zinto::Region;
use zinto::slabs::{SlabBudget, Slabs};

/// The slabs of the region `start`/`extent` in chunks of `chunk_shape` (the array's grid), for
/// elements of `elem_size` bytes, each about `target_bytes` (at least one chunk's extent of
/// the axis cut: the first whose extent is over one): `[(start, extent), ...]` in C order.
/// On a rectilinear grid `starts[d]` lists where dimension `d`'s chunks start (and one past
/// the last), None for a regular dimension; `chunk_shape` is then the longest edges.
#[pyfunction]
#[pyo3(signature = (start, extent, chunk_shape, elem_size, target_bytes, starts=None))]
pub fn slabs(
    start: Vec<u64>,
    extent: Vec<u64>,
    chunk_shape: Vec<u64>,
    elem_size: u64,
    target_bytes: u64,
    starts: Option<Vec<Option<Vec<u64>>>>,
) -> PyResult<Vec<(Vec<u64>, Vec<u64>)>> {
    let value_error =
        |e: &dyn std::fmt::Display| pyo3::exceptions::PyValueError::new_err(e.to_string());
    let region = Region::new(&start, &extent).map_err(|e| value_error(&e))?;
    let cut = Slabs::new(
        &region,
        &chunk_shape,
        elem_size,
        SlabBudget::Target(target_bytes),
    )
    .and_then(|cut| cut.along_edges(starts.as_deref().unwrap_or(&[])))
    .map_err(|e| value_error(&e))?;
    cut.iter()
        .map(|slab| {
            let (r, _) = slab.map_err(|e| value_error(&e))?;
            Ok((r.start().to_vec(), r.shape().to_vec()))
        })
        .collect()
}
