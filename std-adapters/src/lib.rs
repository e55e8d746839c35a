//! # zinto
//!
//! Reads chunked, compressed N-dimensional arrays (Zarr v3 and v2) straight into a buffer the
//! caller owns. The layout math and decoders live in the `no_std` crate [`zinto_core`],
//! re-exported here as [`core`].
//!
//! - [`Store`]: a key-value store that reads into your slice ([`FileStore`], [`MemoryStore`]).
//! - [`Array::open`] validates metadata; [`Array::read_into`] reads a [`Region`] into your
//!   buffer, C order, native byte order.

mod array;
mod disjoint;
mod error;
pub mod metadata;
mod pool;
mod reader;
pub mod store;
#[cfg(feature = "zstd-c")]
mod zstd_c;

pub use array::{Array, ReadOptions};
pub use error::{Error, ErrorKind, MetadataError};
pub use metadata::{ArrayMetadata, DataType, FillValue, ZarrFormat};
pub use reader::{BLOCK_LEN, COALESCE_GAP};
pub use store::{FileStore, MemoryStore, Store, StoreError};
pub use zinto_core as core;
pub use zinto_core::Region;
