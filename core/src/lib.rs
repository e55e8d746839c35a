//! # zinto-core
//!
//! The part of zinto that needs no operating system: where the bytes of a chunked N-dimensional
//! array go, computed with checked arithmetic and no allocation.
//!
//! - [`ChunkGrid`]: a regular chunk grid; chunk coordinates, linear indices, clipped regions.
//! - [`Region`]: a hyper-rectangle, used for selections and for the parts of chunks they touch.
//! - [`ChunkGrid::pieces`]: for a selection, every chunk it touches with the part it needs.
//! - [`Runs`]: the `(src, dst, len)` byte copies of one piece, for any chunk [`MemoryOrder`].
//! - [`sizes_to_offsets`]: where variable-size pieces go when laid end to end.
//! - [`records`]: fixed-width records sorted in place by a key field.
//! - [`dtype`]: element types: numbers, NumPy type strings, float16 rounding.
//! - [`formats`]: the headers of `.npy` and msgpack-numpy segment files a merge reads.
//!
//! ```
//! use zinto_core::{ChunkGrid, MemoryOrder, Region};
//!
//! // A 5x4 array of f32 in 2x4 chunks (the last chunk row sticks out past the array).
//! let grid = ChunkGrid::new(&[5, 4], &[2, 4])?;
//! let whole = Region::whole(grid.array_shape())?;
//! let order = MemoryOrder::c(2)?;
//!
//! // Every chunk lands contiguously in a whole-array read: one run each.
//! let mut output_bytes = 0;
//! for piece in grid.pieces(&whole)? {
//!     let runs = piece.runs(&grid, 4, &order, whole.shape())?;
//!     assert!(runs.is_single_run());
//!     output_bytes += runs.run_len();
//! }
//! assert_eq!(output_bytes, 5 * 4 * 4);
//! # Ok::<(), zinto_core::LayoutError>(())
//! ```
#![no_std]
#![forbid(unsafe_code)]

#[cfg(feature = "alloc")]
extern crate alloc;

mod axis;
mod chunk_order;
pub mod codec;
mod concat;
pub mod dtype;
mod error;
pub mod formats;
mod grid;
mod order;
pub mod records;
mod region;
mod runs;
#[cfg(feature = "alloc")]
pub mod selection;
mod shape;

#[cfg(feature = "alloc")]
pub use axis::RunTable;
pub use axis::{Axis, EdgeRun};
pub use chunk_order::{ChunkOrder, ChunkWalk};
pub use concat::sizes_to_offsets;
pub use error::LayoutError;
pub use grid::{ChunkGrid, Piece, Pieces};
pub use order::MemoryOrder;
pub use region::Region;
pub use runs::{Run, Runs};
pub use shape::{Dims, MAX_DIMS, dims, product};
