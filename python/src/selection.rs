//! A region as Python states it (start and shape lists), checked as the library checks one.

use pyo3::prelude::*;

use zinto::Region;

use crate::errors;

/// The region of `shape` elements from `start`.
pub(crate) fn region(start: &[u64], shape: &[u64]) -> PyResult<Region> {
    Region::new(start, shape).map_err(|e| errors::to_py(e.into()))
}
