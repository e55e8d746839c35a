//! # zinto
//!
//! Reads chunked, compressed N-dimensional arrays (Zarr v3 and v2) straight into a buffer the
//! caller owns. The layout math and decoders live in the `no_std` crate [`zinto_core`],
//! re-exported here as [`core`].
//!
//! - [`Store`]: a key-value store that reads into your slice ([`FileStore`], [`MemoryStore`]).
//! - [`Array::open`] validates metadata; [`Array::read_into`] reads a [`Region`] into your
//!   buffer, C order, native byte order, with one worker per core
//!   ([`Array::read_into_with`] and [`ReadOptions`] to choose).
//! - [`ConcatPlan`] / [`concat_into`]: variable-size chunks decoded end to end into one exact
//!   buffer; [`sort_records_parallel`] then sorts its fixed-width records by a key field, in
//!   place (see [`core::records`]).
//!
//! ```
//! use zinto::{Array, FileStore, Region};
//!
//! # let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/data/temperature.zarr");
//! // let dir = "examples/data/temperature.zarr";
//! let array = Array::open(FileStore::new(dir), "")?;
//! let selection = Region::new(&[10, 5], &[190, 85])?;       // rows 10..200, columns 5..90
//! let mut out = vec![0u8; array.selection_len(&selection)?]; // you own the buffer
//! array.read_into(&selection, &mut out)?;                    // C order, native byte order
//! let first = f32::from_ne_bytes(out[..4].try_into()?);
//! assert!((-40.0..40.0).contains(&first));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod array;
pub mod backend;
mod buffer;
mod builder;
/// The `zinto` command: [`cli::run`] takes its arguments and returns its exit code.
#[cfg(feature = "cli")]
pub mod cli;
pub mod codec_spec;
mod concat;
mod consolidate;
mod destination;
mod doc;
mod error;
mod group;
pub mod metadata;
mod node;
mod options;
mod read;
mod records;
pub mod redact;
pub mod slabs;
pub mod store;
mod workers;
mod write;

pub use array::Array;
#[cfg(feature = "zstd-c")]
pub use backend::CZstd;
pub use buffer::zeroed_buffer;
pub use builder::ArrayBuilder;
pub use concat::{
    ConcatPiece, ConcatPlan, SegmentFormat, SegmentsHeld, concat_into, concat_to_vec,
};
pub use consolidate::MAX_CONSOLIDATE_DEPTH;
pub use error::{Error, ErrorKind, MetadataError};
pub use group::{Group, Member};
pub use metadata::{ArrayMetadata, DataType, FillValue, NodeKind, TimeUnit, Unit, ZarrFormat};
pub use node::Node;
pub use options::{OnAbsent, Options, ReadExtra, ReadOptions, WriteExtra, WriteOptions};
pub use read::element::Element;
pub use read::vlen::{DECODED_CHUNK_LIMIT, VlenData};
pub use read::{BLOCK_LEN, COALESCE_GAP, COALESCE_MAX, SMALL_READ_BYTES, WINDOW_LEN};
pub use records::{restore_keys_parallel, sort_prepared_parallel, sort_records_parallel};
pub use store::{
    ChunkUpdate, FileStore, LOCK_FILE, MemoryStore, ObjectWriter, Opened, READ_TRIES,
    REMOTE_WORKERS_MIN, REMOTE_WORKERS_PER_CORE, Store, StoreError, UPDATE_LOCK_WAIT, UPDATE_TRIES,
    UpdateLock, read_from_bytes,
};
pub use write::WRITE_WINDOW;
pub use zinto_core as core;
pub use zinto_core::{ChunkOrder, LayoutError, Region};

/// The README's Rust examples, run as doctests so they cannot drift from the code.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// docs/rust.md's examples, run as doctests as the README's are.
#[doc = include_str!("../../docs/rust.md")]
#[cfg(doctest)]
pub struct RustGuideDoctests;
