//! Zarr metadata: v3 `zarr.json` and v2 `.zarray`, resolved into one [`ArrayMetadata`].

mod attributes;
pub(crate) use attributes::Attributes;
mod codecs;
pub(crate) use codecs::filter_elem;
mod document;
pub use document::MAX_FIELD_LEN;
mod dtype;
mod error;
mod fill;
mod grid;
pub(crate) mod group;
mod v2;
mod v3;

pub use dtype::{DataType, MAX_ELEMENT_LEN, TimeUnit, Unit};
pub use error::MetadataError;
pub use fill::FillValue;
pub use group::NodeKind;

use zinto_core::ChunkGrid;
use zinto_core::codec::CodecChain;

/// The Zarr format version of an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZarrFormat {
    /// Zarr v2 (`.zarray`).
    V2,
    /// Zarr v3 (`zarr.json`).
    V3,
}

/// How chunk coordinates become store keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChunkKeyEncoding {
    /// v3 `default`: `c` then the coordinates, joined by the separator (`c/1/2`).
    Default {
        /// `/` or `.`.
        separator: char,
    },
    /// v3 `v2` and Zarr v2: the coordinates joined by the separator (`1.2`), `0` for 0-d.
    V2 {
        /// `.` or `/`.
        separator: char,
        /// Whether metadata states it: a v2 `.zarray` without `dimension_separator` means
        /// `.`, but zarr-python 2's `NestedDirectoryStore` wrote such arrays with `/`, which
        /// [`Array::open`](crate::Array::open) then finds by looking for the first chunk.
        stated: bool,
    },
}

impl ChunkKeyEncoding {
    /// The key of the chunk at `coords`, relative to the array.
    pub fn key(&self, coords: &[u64]) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        match self {
            Self::Default { separator } => {
                s.push('c');
                for c in coords {
                    s.push(*separator);
                    let _ = write!(s, "{c}");
                }
            }
            Self::V2 { separator, .. } => {
                if coords.is_empty() {
                    s.push('0');
                }
                for (i, c) in coords.iter().enumerate() {
                    if i > 0 {
                        s.push(*separator);
                    }
                    let _ = write!(s, "{c}");
                }
            }
        }
        s
    }
}

/// Everything needed to read an array, validated.
#[derive(Debug, Clone)]
pub struct ArrayMetadata {
    /// v2 or v3.
    pub format: ZarrFormat,
    /// Element type.
    pub dtype: DataType,
    /// The chunk grid over the array (its chunk shape is the stored chunk: the shard, if sharded).
    pub grid: ChunkGrid,
    /// The codec chain of a stored chunk.
    pub chain: CodecChain,
    /// Native-endian fill value for missing chunks.
    pub fill_value: FillValue,
    /// How chunk keys are formed.
    pub key_encoding: ChunkKeyEncoding,
    /// The codecs as metadata lists them, for display.
    pub codec_names: Vec<String>,
    /// The tables the outer level's filters decode with, one per filter in order (empty for a
    /// filter that takes none, and no entries at all when none does): `categorize`'s labels,
    /// laid out once here from the metadata.
    pub(crate) filter_tables: Vec<Vec<u8>>,
    /// v3 `dimension_names`, or v2 xarray's `_ARRAY_DIMENSIONS` attribute; `None` if absent.
    pub dimension_names: Option<Vec<Option<String>>>,
    /// User attributes, or why they could not be read: see [`Self::attributes`].
    attributes: Attributes,
}

impl ArrayMetadata {
    /// The tables the filters of `level` decode with (see `filter_tables`): the outer
    /// level's, none for a shard's inner chunks (whose filters take no table).
    pub(crate) fn filter_tables(&self, level: &zinto_core::codec::ChainLevel) -> &[Vec<u8>] {
        if std::ptr::eq(level, self.chain.outer()) {
            &self.filter_tables
        } else {
            &[]
        }
    }

    /// Bytes per element as the codec chain sees them: the data type's size, or 1 for the
    /// variable-length types (whose chain works on the bytes of the `vlen-*` encoding).
    pub(crate) fn elem_size(&self) -> usize {
        self.dtype.fixed_size().unwrap_or(1)
    }

    /// User attributes (`attributes` in v3, `.zattrs` in v2); empty if there are none.
    ///
    /// Attributes are not needed to read the data, so bad ones do not stop
    /// [`Array::open`](crate::Array::open): the array opens and reads, and the error is
    /// reported here, when they are asked for. Opening keeps their text; the first call parses
    /// it (see [`MAX_FIELD_LEN`] for what opening may cost).
    ///
    /// # Errors
    /// [`MetadataError::Json`] if `.zattrs` is not a JSON object, [`MetadataError::Invalid`] if
    /// v3 `attributes` is not an object.
    pub fn attributes(
        &self,
    ) -> Result<&serde_json::Map<String, serde_json::Value>, &MetadataError> {
        self.attributes.get()
    }

    /// Bytes of the attributes' JSON text, if they have not been parsed yet: a tree of them
    /// ([`Self::attributes`]) takes about twenty times as much, so a caller that only shows
    /// them (`zinto info`) may check first.
    pub fn attributes_text_len(&self) -> Option<usize> {
        self.attributes.text_len()
    }

    /// Sets the attributes (after they were written to the store).
    pub(crate) fn set_attributes(
        &mut self,
        attributes: serde_json::Map<String, serde_json::Value>,
    ) {
        self.attributes = Attributes::tree(attributes);
    }

    /// Records why the attributes could not be read (see [`Self::attributes`]).
    pub(crate) fn set_attributes_error(&mut self, e: MetadataError) {
        self.attributes = Attributes::error(e);
    }
}

pub(crate) use v2::parse as parse_v2;
pub(crate) use v3::parse as parse_v3;
