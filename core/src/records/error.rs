//! Why records could not be sorted.

use core::fmt;

/// Why a record layout or a buffer of records was refused. Nothing is sorted when this is
/// returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RecordError {
    /// A record size of zero.
    ZeroRecordSize,
    /// The key field does not fit inside the record.
    KeyOutsideRecord {
        /// Offset of the key in the record.
        key_offset: usize,
        /// Width of the key in bytes.
        key_width: usize,
        /// Size of a record.
        record_size: usize,
    },
    /// The buffer is not a whole number of records.
    PartialRecord {
        /// Length of the buffer in bytes.
        len: usize,
        /// Size of a record.
        record_size: usize,
    },
    /// A typed row has no such column.
    NoSuchColumn {
        /// The column asked for.
        column: usize,
        /// Columns in a row.
        columns: usize,
    },
    /// A slice given as one record (to read its key) is not one record long.
    NotOneRecord {
        /// Length of the slice in bytes.
        len: usize,
        /// Size of a record.
        record_size: usize,
    },
    /// A key given as text (`TYPE@OFFSET`, [`RecordLayout::parse`](super::RecordLayout::parse))
    /// that does not parse.
    KeySpec {
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An invariant of the sort did not hold: a bug in zinto, reported instead of a wrong
    /// order. The buffer may be partly sorted and its keys partly rewritten.
    Internal {
        /// Which invariant.
        what: &'static str,
    },
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::ZeroRecordSize => f.write_str("record size is zero"),
            Self::KeyOutsideRecord {
                key_offset,
                key_width,
                record_size,
            } => write!(
                f,
                "a {key_width}-byte key at offset {key_offset} does not fit in a {record_size}-byte record"
            ),
            Self::PartialRecord { len, record_size } => write!(
                f,
                "{len} bytes are not a whole number of {record_size}-byte records"
            ),
            Self::NoSuchColumn { column, columns } => {
                write!(f, "column {column} does not exist in rows of {columns}")
            }
            Self::NotOneRecord { len, record_size } => {
                write!(f, "a {len}-byte slice is not one {record_size}-byte record")
            }
            Self::KeySpec { reason } => f.write_str(reason),
            Self::Internal { what } => {
                write!(f, "an invariant of the sort did not hold: {what}; a bug")
            }
        }
    }
}

impl core::error::Error for RecordError {}
