//! Fixed-width records in a byte buffer, sorted in place by one key field.
//!
//! A record is `record_size` bytes; its key is a scalar at `key_offset` ([`KeyType`], either
//! byte order). Keys compare in a total order: integers by value; floats by value with
//! `-0.0` before `+0.0` and every NaN after every number.
//!
//! - [`sort_records_by_key`]: unstable, in place, allocates nothing and keeps no record-sized
//!   temporary beyond one record.
//! - [`sort_records_by_key_stable`]: stable, in place, with a scratch buffer the caller sizes
//!   (any size, even empty; bigger is faster).
//! - [`prepare_keys`], [`partition_prepared`], [`sort_prepared`], [`restore_keys`]: the steps
//!   of the sort, for callers that sort parts on separate threads.
//! - [`sort_rows_by_column`]: the same for typed rows such as `&mut [[f64; 3]]`.
//!
//! Besides the errors each function lists, the byte-buffer sorts return
//! [`RecordError::Internal`] if one of their own invariants fails (a bug in zinto): a record
//! index past the end or a key field outside its record is reported, never read as key zero
//! or skipped.
//!
//! ```
//! use zinto_core::codec::Endian;
//! use zinto_core::records::{KeyType, RecordLayout, sort_records_by_key};
//!
//! // Records of (u32 id, f32 m/z), little endian, sorted by m/z.
//! let mut bytes = Vec::new();
//! for (id, mz) in [(0u32, 300.5f32), (1, 120.25), (2, f32::NAN), (3, 120.0)] {
//!     bytes.extend(id.to_le_bytes());
//!     bytes.extend(mz.to_le_bytes());
//! }
//! let layout = RecordLayout::new(8, 4, KeyType::F32, Endian::Little)?;
//! sort_records_by_key(&mut bytes, &layout)?;
//! let ids: Vec<u32> = bytes.chunks(8).map(|r| u32::from_le_bytes(r[..4].try_into().unwrap())).collect();
//! assert_eq!(ids, [3, 1, 0, 2]);
//! # Ok::<(), zinto_core::records::RecordError>(())
//! ```

mod error;
mod key;
mod layout;
mod prepared;
mod rows;
mod stable;
mod unstable;
mod view;

pub use error::RecordError;
pub use key::{KeyType, OrderKey};
pub use layout::RecordLayout;
pub use prepared::{partition_prepared, prepare_keys, prepared_key, restore_keys, sort_prepared};
pub use rows::sort_rows_by_column;
pub use stable::sort_records_by_key_stable;
pub use unstable::sort_records_by_key;
