//! Fixed-capacity lists of per-dimension numbers.

use crate::LayoutError;

/// The most dimensions an array may have. Zarr sets no limit; 32 matches NumPy's historical
/// maximum and keeps every dimension list on the stack.
pub const MAX_DIMS: usize = 32;

/// One `u64` per dimension: a shape, a start, or a coordinate. Lives on the stack.
pub type Dims = heapless::Vec<u64, MAX_DIMS>;

/// Copies `values` into a [`Dims`].
///
/// # Errors
/// [`LayoutError::TooManyDims`] if there are more than [`MAX_DIMS`] values.
pub fn dims(values: &[u64]) -> Result<Dims, LayoutError> {
    let mut out = Dims::new();
    for &v in values {
        out.push(v).map_err(|_| LayoutError::TooManyDims {
            ndim: values.len(),
            max: MAX_DIMS,
        })?;
    }
    Ok(out)
}

/// Product of `values`, or [`LayoutError::Overflow`]. The product of no values is 1 (a 0-d array
/// has one element).
///
/// # Errors
/// [`LayoutError::Overflow`] if the product does not fit a `u64`.
pub fn product(values: &[u64]) -> Result<u64, LayoutError> {
    values
        .iter()
        .try_fold(1u64, |acc, &v| acc.checked_mul(v))
        .ok_or(LayoutError::Overflow)
}

/// Checks that two dimension counts agree.
pub(crate) fn same_ndim(expected: usize, got: usize) -> Result<(), LayoutError> {
    if expected == got {
        Ok(())
    } else {
        Err(LayoutError::DimsMismatch { expected, got })
    }
}
