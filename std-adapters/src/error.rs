//! Errors of the std crate: what went wrong, and where (array path, chunk key).

use std::fmt;

use zinto_core::LayoutError;
use zinto_core::codec::{DecodeError, ShardError};

use crate::metadata::DataType;
pub use crate::metadata::MetadataError;
use crate::store::StoreError;

/// What went wrong, without the where.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading metadata failed or it was refused.
    Metadata(MetadataError),
    /// The store failed.
    Store(StoreError),
    /// A chunk did not decode.
    Decode(DecodeError),
    /// A shard index was invalid.
    Shard(ShardError),
    /// The selection or the layout math refused (selection outside the array, overflow).
    Layout(LayoutError),
    /// A stored chunk too small to decode to the size declared for it (by the array's
    /// metadata, or by the chunk's own header when concatenating), checked before any buffer of
    /// that size is allocated.
    ChunkTooLarge {
        /// Bytes the chunk should decode to.
        decoded: u64,
        /// Bytes stored.
        stored: u64,
    },
    /// A chunk whose decoded size no metadata states (variable-length values) decodes, or says
    /// it decodes, to more than the limit a read allows one such chunk
    /// ([`ReadOptions::decoded_chunk_limit`](crate::ReadOptions::decoded_chunk_limit)); no more
    /// than the limit was held.
    DecodedTooLarge {
        /// The limit in force, in bytes.
        limit: u64,
    },
    /// A buffer could not be allocated.
    OutOfMemory {
        /// Bytes asked for.
        bytes: u64,
    },
    /// A bug in zinto: an invariant its own code should have kept did not hold (for example
    /// a byte run outside the piece of the output it belongs to). Nothing was written out of
    /// place; please report it with the message.
    Internal {
        /// Which invariant, in a few words.
        what: &'static str,
    },
    /// The array's data type cannot be read the way asked (a string array into a flat
    /// buffer, numbers as variable-length values, `f64` from an `int32` array).
    WrongType {
        /// The array's data type.
        dtype: DataType,
        /// What it was asked to be read as.
        read_as: &'static str,
    },
    /// The read was cancelled through [`ReadOptions::cancel`](crate::ReadOptions::cancel).
    Cancelled,
    /// A chunk read twice in one read (variable-length data: lengths, then values) was not
    /// the same both times: it was rewritten during the read.
    ChunkChanged,
    /// A merge's segment file has a header that was refused.
    Segment(zinto_core::formats::FormatError),
    /// A Fortran-ordered segment (its columns stored one after another), which a merge does
    /// not transpose.
    FortranOrder {
        /// Its rows.
        rows: u64,
        /// Its columns.
        columns: u64,
    },
    /// A merge's segment holds another number type or another row shape than the first.
    SegmentsDisagree {
        /// The first segment's key.
        first: Box<str>,
        /// What the first holds (`<f8 rows of shape [3]`).
        first_holds: Box<str>,
        /// What this one holds.
        holds: Box<str>,
    },
    /// A chunk could not be encoded: a compressor this build does not write, or its
    /// library's error.
    Encode(String),
    /// Variable-length values given to [`Array::write_vlen`](crate::Array::write_vlen) were
    /// refused before anything was written: offsets of another count than the region's
    /// elements plus one, going backwards or past the values, an element over the format's
    /// 4 GiB, or a string that is not UTF-8.
    VlenInput {
        /// The element (C order in the region), if one is to blame.
        element: Option<u64>,
        /// What is wrong, in a few words.
        why: &'static str,
    },
    /// An array was to be created where something already is, and overwriting was not asked
    /// for ([`ArrayBuilder::overwrite`](crate::ArrayBuilder::overwrite)): nothing was written.
    Occupied {
        /// The metadata document of the array or group already there, if one is.
        node: Option<Box<str>>,
        /// The first few entries there, sorted.
        names: Box<[String]>,
        /// How many entries there are in all.
        total: usize,
    },
    /// A new array's chunks go in folders, and a file is where one of those folders belongs
    /// (`c/0` a file, for chunk `c/0/0`): not the array's, so not removed, even by an
    /// overwrite.
    InTheWay {
        /// The file's key.
        key: Box<str>,
    },
    /// An update of one chunk ([`Array::update_chunk`](crate::Array::update_chunk)) was given a
    /// region in more chunks than one.
    NotOneChunk {
        /// Chunks the region touches.
        chunks: u64,
    },
    /// The output buffer is not the size of the selection.
    OutputSize {
        /// Bytes the selection needs.
        expected: u64,
        /// Bytes given.
        got: u64,
    },
    /// A batch's selections ([`Array::read_many_into`](crate::Array::read_many_into)) are not
    /// one size.
    SelectionsDiffer {
        /// The first selection of another size (its index in the batch).
        index: u64,
        /// Its bytes.
        bytes: u64,
        /// The first selection's bytes.
        first: u64,
    },
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Metadata(e) => write!(f, "{e}"),
            Self::Store(e) => write!(f, "{e}"),
            Self::Decode(e) => write!(f, "{e}"),
            Self::Shard(e) => write!(f, "sharding_indexed: {e}"),
            Self::Layout(e) => write!(f, "{e}"),
            Self::ChunkTooLarge { decoded, stored } => write!(
                f,
                "a chunk of {stored} stored bytes cannot decode to the {decoded} bytes declared for it"
            ),
            Self::DecodedTooLarge { limit } => write!(
                f,
                "a chunk of variable-length values decodes to more than {limit} bytes, the limit for one \
                 (raise it with decoded_chunk_limit, or --decoded-chunk-limit on the command line)"
            ),
            Self::OutOfMemory { bytes } => write!(f, "cannot allocate {bytes} bytes"),
            Self::Internal { what } => write!(f, "internal error (a bug in zinto): {what}"),
            Self::WrongType { dtype, read_as } => {
                write!(
                    f,
                    "data type {dtype} cannot be read or written as {read_as}"
                )
            }
            Self::Cancelled => f.write_str("the read was cancelled"),
            Self::ChunkChanged => {
                f.write_str("the chunk changed between the two passes of a variable-length read")
            }
            Self::Segment(e) => write!(f, "{e}"),
            Self::FortranOrder { rows, columns } => write!(
                f,
                "a Fortran-ordered segment of {rows} rows and {columns} columns is not merged: save it C-ordered (np.ascontiguousarray)"
            ),
            Self::SegmentsDisagree {
                first,
                first_holds,
                holds,
            } => write!(f, "holds {holds}, but {first} holds {first_holds}"),
            Self::Encode(why) => f.write_str(why),
            Self::Occupied { node, names, total } => occupied(f, node.as_deref(), names, *total),
            Self::InTheWay { key } => write!(
                f,
                "{key} is a file where the new array's chunk folders go: it is not the array's, \
                 so it is not removed; move it"
            ),
            Self::NotOneChunk { chunks } => write!(
                f,
                "an update of one chunk was given a region in {chunks} chunks"
            ),
            Self::OutputSize { expected, got } => write!(
                f,
                "output buffer holds {got} bytes, the selection needs {expected}"
            ),
            Self::SelectionsDiffer {
                index,
                bytes,
                first,
            } => write!(
                f,
                "selection {index} of the batch holds {bytes} bytes, the first {first}: a \
                 batch's selections are one size"
            ),
            Self::VlenInput { element, why } => {
                write!(f, "variable-length input refused: {why}")?;
                match element {
                    Some(i) => write!(f, " (element {i} of the region, C order)"),
                    None => Ok(()),
                }
            }
        }
    }
}

/// [`ErrorKind::Occupied`], as a sentence.
fn occupied(
    f: &mut fmt::Formatter<'_>,
    node: Option<&str>,
    names: &[String],
    total: usize,
) -> fmt::Result {
    if let Some(doc) = node {
        return write!(
            f,
            "an array or group exists here ({doc}): overwrite to replace it"
        );
    }
    write!(f, "the destination already holds {}", names.join(", "))?;
    if total > names.len() {
        write!(f, " and {} more", total - names.len())?;
    }
    f.write_str(
        ", not a zarr array: create it in an empty folder, or overwrite, which keeps those \
         files and replaces only the array's metadata and chunk keys",
    )
}

/// An error with its context: the array's (or group's) path and, for chunk errors, the
/// chunk's key.
///
/// The one error type of the public read API: `?` works across [`Region`](crate::Region)
/// construction (a [`LayoutError`] converts), opening, and reading.
///
/// ```
/// use zinto::{Array, Error, FileStore, Region};
///
/// fn first_rows(dir: &str) -> Result<Vec<u8>, Error> {
///     let array = Array::open(FileStore::new(dir), "")?;
///     let selection = Region::from_ranges(&[0..2, 0..100])?; // a LayoutError, converted
///     array.read_to_vec(&selection)
/// }
/// # let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/data/temperature.zarr");
/// assert_eq!(first_rows(dir)?.len(), 2 * 100 * 4);
/// # Ok::<(), Error>(())
/// ```
#[derive(Debug)]
pub struct Error {
    /// `None` for errors outside any array (a key of [`concat_into`](crate::concat_into)).
    path: Option<String>,
    key: Option<String>,
    kind: ErrorKind,
    /// What the path names, for the message: `"array"` or `"group"` (or `""` for none).
    node: &'static str,
}

impl From<LayoutError> for Error {
    /// A layout error outside any array (building a selection).
    fn from(e: LayoutError) -> Self {
        Self {
            path: None,
            key: None,
            kind: ErrorKind::Layout(e),
            node: "",
        }
    }
}

impl From<ErrorKind> for Error {
    /// An error outside any array: what a caller's own step inside one of zinto's (an
    /// [`Array::update_chunk`](crate::Array::update_chunk) merge) ends it with.
    fn from(kind: ErrorKind) -> Self {
        Self {
            path: None,
            key: None,
            kind,
            node: "",
        }
    }
}

impl Error {
    pub(crate) fn new(path: &str, key: Option<&str>, kind: ErrorKind) -> Self {
        Self {
            path: Some(path.to_owned()),
            key: key.map(str::to_owned),
            kind,
            node: "array",
        }
    }

    /// An error about the node (array or group) at `path`, before knowing which it is.
    pub(crate) fn node(path: &str, kind: ErrorKind) -> Self {
        Self {
            node: "node",
            ..Self::new(path, None, kind)
        }
    }

    /// An error about the group at `path`.
    pub(crate) fn group(path: &str, kind: ErrorKind) -> Self {
        Self {
            node: "group",
            ..Self::new(path, None, kind)
        }
    }

    /// An error about a key that belongs to no array (concatenated chunks), or about none.
    pub(crate) fn outside_array(key: Option<&str>, kind: ErrorKind) -> Self {
        Self {
            path: None,
            key: key.map(str::to_owned),
            kind,
            node: "concatenation",
        }
    }

    /// The array's path in its store (empty for the root, and for errors outside any array).
    pub fn path(&self) -> &str {
        self.path.as_deref().unwrap_or("")
    }

    /// The chunk's key (relative to the store), if the error concerns a chunk.
    pub fn key(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// What went wrong, without the where (the write path puts its own where back).
    pub(crate) fn into_kind(self) -> ErrorKind {
        self.kind
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.path, &self.key) {
            (Some(path), key) => {
                let path = if path.is_empty() { "/" } else { path };
                write!(f, "{} {path}", self.node)?;
                if let Some(key) = key {
                    write!(f, ", chunk {key}")?;
                }
            }
            (None, Some(key)) => write!(f, "chunk {key}")?,
            (None, None) if self.node.is_empty() => return write!(f, "{}", self.kind),
            (None, None) => f.write_str(self.node)?,
        }
        write!(f, ": {}", self.kind)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Metadata(e) => Some(e),
            ErrorKind::Store(e) => Some(e),
            ErrorKind::Decode(e) => Some(e),
            ErrorKind::Shard(e) => Some(e),
            ErrorKind::Layout(e) => Some(e),
            ErrorKind::Segment(e) => Some(e),
            ErrorKind::OutputSize { .. }
            | ErrorKind::SelectionsDiffer { .. }
            | ErrorKind::VlenInput { .. }
            | ErrorKind::FortranOrder { .. }
            | ErrorKind::SegmentsDisagree { .. }
            | ErrorKind::ChunkTooLarge { .. }
            | ErrorKind::DecodedTooLarge { .. }
            | ErrorKind::OutOfMemory { .. }
            | ErrorKind::Internal { .. }
            | ErrorKind::WrongType { .. }
            | ErrorKind::ChunkChanged
            | ErrorKind::Encode(_)
            | ErrorKind::Occupied { .. }
            | ErrorKind::InTheWay { .. }
            | ErrorKind::NotOneChunk { .. }
            | ErrorKind::Cancelled => None,
        }
    }
}
