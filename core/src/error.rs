//! Errors of the layout math.

use core::fmt;

/// Why a layout computation was refused.
///
/// Every variant carries the numbers that made it fail, so a caller can report them without
/// re-deriving anything. Nothing in the layout math panics or wraps: each of these is returned
/// instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LayoutError {
    /// More dimensions than [`MAX_DIMS`](crate::MAX_DIMS).
    TooManyDims {
        /// Dimensions asked for.
        ndim: usize,
        /// The fixed capacity.
        max: usize,
    },
    /// Two shapes or coordinates that must have the same number of dimensions do not.
    DimsMismatch {
        /// Dimensions expected (from the array or chunk grid).
        expected: usize,
        /// Dimensions given.
        got: usize,
    },
    /// A chunk edge of zero along `dim`.
    ZeroChunkEdge {
        /// The dimension.
        dim: usize,
    },
    /// A rectilinear grid's edges along `dim` end before the array's `extent` there.
    EdgesShort {
        /// The dimension.
        dim: usize,
        /// The array's extent along it.
        extent: u64,
    },
    /// A size, offset or count overflowed `u64` or `usize`.
    Overflow,
    /// A region reaches past the shape it lives in.
    OutOfBounds {
        /// The dimension.
        dim: usize,
        /// First coordinate past the region along `dim`.
        end: u64,
        /// Extent of the enclosing shape along `dim`.
        extent: u64,
    },
    /// A chunk coordinate or linear chunk index outside the grid.
    ChunkOutOfGrid {
        /// The dimension (0 for a linear index).
        dim: usize,
        /// The coordinate or index given.
        index: u64,
        /// Number of chunks along that dimension (or in all).
        count: u64,
    },
    /// A memory order that is not a permutation of `0..ndim`.
    NotAPermutation {
        /// Dimensions of the array.
        ndim: usize,
    },
    /// Source and destination regions of a copy differ in shape along `dim`.
    ShapeMismatch {
        /// The dimension.
        dim: usize,
        /// Extent in the source.
        src: u64,
        /// Extent in the destination.
        dst: u64,
    },
    /// An element size of zero bytes.
    ZeroElementSize,
    /// A range whose end is before its start.
    BackwardsRange {
        /// The dimension.
        dim: usize,
        /// The range's start.
        start: u64,
        /// The range's end.
        end: u64,
    },
    /// An index of a selection outside its axis (negative ones count from the end, as NumPy's).
    IndexOutOfBounds {
        /// The axis.
        dim: usize,
        /// The index, as given.
        index: i64,
        /// The axis's extent.
        extent: u64,
    },
    /// A boolean mask of another length than its axis.
    MaskLength {
        /// The axis.
        dim: usize,
        /// The mask's length.
        len: u64,
        /// The axis's extent.
        extent: u64,
    },
    /// A selection that names an axis twice, or leaves one out.
    AxisSelection {
        /// The axis.
        dim: usize,
        /// Named twice (else left out).
        twice: bool,
    },
    /// The index lists of a coordinate selection (points) have different lengths.
    PointsDiffer {
        /// The axis whose list differs from the first's.
        dim: usize,
        /// Its length.
        len: u64,
        /// The first list's length.
        first: u64,
    },
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::TooManyDims { ndim, max } => {
                write!(f, "{ndim} dimensions, more than the supported {max}")
            }
            Self::DimsMismatch { expected, got } => {
                write!(f, "expected {expected} dimensions, got {got}")
            }
            Self::ZeroChunkEdge { dim } => write!(f, "chunk edge along dimension {dim} is zero"),
            Self::EdgesShort { dim, extent } => write!(
                f,
                "the chunk edges along dimension {dim} end before the array's extent {extent}"
            ),
            Self::Overflow => f.write_str("size or offset overflows the integer type"),
            Self::OutOfBounds { dim, end, extent } => write!(
                f,
                "region ends at {end} along dimension {dim}, past the extent {extent}"
            ),
            Self::ChunkOutOfGrid { dim, index, count } => write!(
                f,
                "chunk index {index} along dimension {dim} is outside the grid of {count}"
            ),
            Self::NotAPermutation { ndim } => {
                write!(f, "memory order is not a permutation of 0..{ndim}")
            }
            Self::ShapeMismatch { dim, src, dst } => write!(
                f,
                "source extent {src} and destination extent {dst} differ along dimension {dim}"
            ),
            Self::ZeroElementSize => f.write_str("element size is zero"),
            Self::BackwardsRange { dim, start, end } => write!(
                f,
                "range {start}..{end} along dimension {dim} ends before it starts"
            ),
            Self::IndexOutOfBounds { dim, index, extent } => write!(
                f,
                "index {index} is out of bounds for axis {dim} with size {extent}"
            ),
            Self::MaskLength { dim, len, extent } => write!(
                f,
                "boolean index of length {len} for axis {dim} with size {extent}"
            ),
            Self::AxisSelection { dim, twice: true } => {
                write!(f, "axis {dim} is selected twice")
            }
            Self::AxisSelection { dim, twice: false } => {
                write!(f, "axis {dim} is not selected")
            }
            Self::PointsDiffer { dim, len, first } => write!(
                f,
                "coordinate selection: the indices for axis {dim} are {len}, the first axis's {first} (they must be as many)"
            ),
        }
    }
}

impl core::error::Error for LayoutError {}
