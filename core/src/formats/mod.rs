//! Headers of the segment files a merge reads: how many bytes of data a file holds, where they
//! start, and what they are, read from a few bytes of it, without decoding or allocating.
//!
//! - [`npy`]: NumPy's `.npy` (versions 1.0, 2.0 and 3.0).
//! - [`msgpack_numpy`]: an array packed by msgpack-numpy (`{nd, type, kind, shape, data}`).
//!
//! Both give a [`SegmentHeader`]; their data is raw, C-ordered (unless
//! [`SegmentHeader::fortran_order`]) and can be read straight into place.

pub mod msgpack_numpy;
pub mod npy;

mod error;
mod number;

pub use error::FormatError;
pub use number::NumberType;

use crate::{Dims, product};

/// The most header bytes a segment may have before its data: 64 KiB, and the few bytes before.
pub const MAX_HEADER_LEN: usize = 64 * 1024;

/// What a segment file holds: an array of fixed-width numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentHeader {
    /// The element type.
    pub dtype: NumberType,
    /// The array's shape (rows first).
    pub shape: Dims,
    /// Whether the data is in Fortran (column-major) order.
    pub fortran_order: bool,
    /// Where the data starts in the file.
    pub data_offset: u64,
    /// How many bytes of data: the shape's product times the element size.
    pub data_len: u64,
}

impl SegmentHeader {
    /// Rows: the first dimension (1 for a 0-d array).
    pub fn rows(&self) -> u64 {
        self.shape.as_slice().first().copied().unwrap_or(1)
    }

    /// Elements per row: the product of the dimensions after the first (1 for 0-d and 1-d
    /// arrays).
    pub fn columns(&self) -> u64 {
        // Checked when the header was read: the whole shape's product fits.
        product(self.shape.as_slice().get(1..).unwrap_or(&[])).unwrap_or(u64::MAX)
    }

    /// Checks the data's size against the shape and the file: `data_offset + data_len` must
    /// be the file's length.
    fn new(
        dtype: NumberType,
        shape: &[u64],
        fortran_order: bool,
        data_offset: u64,
        file_len: u64,
    ) -> Result<Self, FormatError> {
        let shape = crate::dims(shape).map_err(|_| FormatError::Malformed {
            what: "more than 32 dimensions",
        })?;
        let data_len = product(shape.as_slice())
            .ok()
            .and_then(|n| n.checked_mul(dtype.size() as u64))
            .ok_or(FormatError::Malformed {
                what: "a shape whose size overflows",
            })?;
        let present = file_len.saturating_sub(data_offset);
        if data_offset > file_len || data_len != present {
            return Err(FormatError::DataSize {
                declared: data_len,
                present,
            });
        }
        Ok(Self {
            dtype,
            shape,
            fortran_order,
            data_offset,
            data_len,
        })
    }
}
