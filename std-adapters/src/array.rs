//! An array in a store: open it, read a selection into a buffer you own.

use zinto_core::codec::{ArrayToBytes, BytesCodecs};
use zinto_core::{LayoutError, Region};

use crate::doc::{MAX_CONSOLIDATED_LEN, MAX_METADATA_LEN, join, read_doc};
use crate::error::{Error, ErrorKind, MetadataError};
use crate::group::Group;
use crate::metadata::{ArrayMetadata, ChunkKeyEncoding, DataType, ZarrFormat, parse_v2, parse_v3};
use crate::read::ContextPool;
use crate::store::Store;

/// A Zarr array (v3 or v2) in a [`Store`], ready to read.
///
/// ```
/// use zinto::{Array, MemoryStore, Region};
///
/// // A 4x4 uint8 array in 2x2 chunks, v3, uncompressed; only chunk (0, 1) is written.
/// let mut store = MemoryStore::new();
/// store.insert("a/zarr.json", br#"{"zarr_format": 3, "node_type": "array",
///     "shape": [4, 4], "data_type": "uint8", "fill_value": 7,
///     "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 2]}},
///     "chunk_key_encoding": {"name": "default"},
///     "codecs": [{"name": "bytes"}]}"#.to_vec());
/// store.insert("a/c/0/1", vec![1, 2, 3, 4]);
///
/// let array = Array::open(&store, "a")?;
/// let mut out = vec![0u8; 2 * 3];
/// array.read_into(&Region::new(&[0, 1], &[2, 3])?, &mut out)?;
/// assert_eq!(out, [7, 1, 2, 7, 3, 4]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Array<S> {
    pub(crate) store: S,
    pub(crate) path: String,
    pub(crate) meta: ArrayMetadata,
    /// Per-worker buffers kept between reads (`read/`).
    pub(crate) contexts: ContextPool,
}

impl<S: Store> Array<S> {
    /// Opens the array at `path` (`""` for the store's root): reads `zarr.json`, or `.zarray`
    /// (with `.zattrs`) for Zarr v2, and validates everything needed to read it.
    ///
    /// # Errors
    /// [`ErrorKind::Metadata`] if no metadata is found, it does not parse, or it asks for
    /// something unsupported (named in the error); [`ErrorKind::Store`] if the store fails.
    pub fn open(store: S, path: &str) -> Result<Self, Error> {
        let path = path.trim_matches('/').to_owned();
        let err = |kind| Error::new(&path, None, kind);
        let key = |name: &str| join(&path, name);
        let meta = if let Some(json) =
            read_doc(&store, &key("zarr.json"), MAX_CONSOLIDATED_LEN).map_err(&err)?
        {
            parse_v3(&json)
        } else if let Some(json) =
            read_doc(&store, &key(".zarray"), MAX_METADATA_LEN).map_err(&err)?
        {
            // Attributes are not needed to read the data: a `.zattrs` that cannot be read (too
            // large, not a file, an I/O error) is reported by `attributes()`, not here.
            match read_doc(&store, &key(".zattrs"), MAX_METADATA_LEN) {
                Ok(attrs) => parse_v2(&json, attrs.as_deref()),
                Err(e) => parse_v2(&json, None).map(|mut meta| {
                    meta.set_attributes_error(MetadataError::Invalid(format!(
                        "cannot read .zattrs: {e}"
                    )));
                    meta
                }),
            }
        } else if store
            .size(&key(".zgroup"))
            .map_err(|e| err(ErrorKind::Store(e)))?
            .is_some()
        {
            Err(MetadataError::NotAnArray("group".to_owned()))
        } else {
            Err(MetadataError::Missing)
        };
        // A group is named with its members, so the caller sees what to open instead.
        let meta = match meta {
            Err(MetadataError::NotAnArray(kind)) if kind == "group" => {
                let members = match Group::open(&store, &path).and_then(|g| g.members()) {
                    Ok(m) if m.is_empty() => "no members".to_owned(),
                    Ok(m) => {
                        let names: Vec<String> = m.into_iter().map(|m| m.name).collect();
                        format!("members: {}", names.join(", "))
                    }
                    Err(e) => format!("members not listed: {}", e.kind()),
                };
                Err(MetadataError::NotAnArray(format!("group ({members})")))
            }
            other => other,
        }
        .map_err(|e| err(ErrorKind::Metadata(e)))?;
        Self::with_metadata(store, path, meta)
    }

    /// An array at `path` in `store` described by metadata the caller already holds: a v3
    /// `zarr.json` document, or a v2 `.zarray` (with its `.zattrs`, if any). For a caller that
    /// has parsed the metadata itself (zarr-python's codec pipeline hands it over) and should
    /// not read it again.
    ///
    /// # Errors
    /// As [`Self::open`], for the metadata given.
    pub fn from_metadata(
        store: S,
        path: &str,
        format: ZarrFormat,
        json: &[u8],
        attributes: Option<&[u8]>,
    ) -> Result<Self, Error> {
        let path = path.trim_matches('/').to_owned();
        let meta = match format {
            ZarrFormat::V3 => parse_v3(json),
            ZarrFormat::V2 => parse_v2(json, attributes),
        }
        .map_err(|e| Error::new(&path, None, ErrorKind::Metadata(e)))?;
        Self::with_metadata(store, path, meta)
    }

    /// The array over validated metadata; refuses what the read paths do not take.
    fn with_metadata(store: S, path: String, mut meta: ArrayMetadata) -> Result<Self, Error> {
        find_nested_chunks(&store, &path, &mut meta);
        // At every level of shards, the outermost and any nested inside it.
        let wrapped = meta.chain.levels().iter().any(|l| {
            matches!(l.array_to_bytes, ArrayToBytes::Sharding(_))
                && l.bytes_codecs != BytesCodecs::default()
        });
        if wrapped {
            return Err(Error::new(
                &path,
                None,
                ErrorKind::Metadata(MetadataError::Unsupported(
                    "bytes-to-bytes codecs around sharding_indexed".into(),
                )),
            ));
        }
        Ok(Self {
            store,
            path,
            meta,
            contexts: ContextPool::default(),
        })
    }

    /// This array seen without its edge: its shape rounded up to whole chunks (shards, for a
    /// sharded array), over the same store. A read of an edge shard whole through it includes
    /// the cells past the shape that the shard kept when the array shrank: zarr-python keeps
    /// them in a shard it rewrites, and they show again when the array grows.
    pub(crate) fn unclipped(&self) -> Result<Array<&S>, Error> {
        let grid = &self.meta.grid;
        let err = |e| Error::new(&self.path, None, ErrorKind::Layout(e));
        let shape = grid
            .grid_shape()
            .iter()
            .zip(grid.chunk_shape())
            .map(|(&n, &c)| n.checked_mul(c).ok_or(LayoutError::Overflow))
            .collect::<Result<Vec<u64>, _>>()
            .map_err(err)?;
        let mut meta = self.meta.clone();
        meta.grid = zinto_core::ChunkGrid::new(&shape, grid.chunk_shape()).map_err(err)?;
        Ok(Array {
            store: &self.store,
            path: self.path.clone(),
            meta,
            contexts: ContextPool::default(),
        })
    }

    /// The validated metadata.
    pub fn metadata(&self) -> &ArrayMetadata {
        &self.meta
    }

    /// The validated metadata, for the write path's updates of it.
    pub(crate) fn metadata_mut(&mut self) -> &mut ArrayMetadata {
        &mut self.meta
    }

    /// The array's shape.
    pub fn shape(&self) -> &[u64] {
        self.meta.grid.array_shape()
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// The array's path in the store.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The chunk shape: the inner chunks' if the array is sharded.
    pub fn chunk_shape(&self) -> &[u64] {
        match self.shard_shape() {
            Some(_) => &self.meta.chain.innermost().chunk_shape,
            None => self.meta.grid.chunk_shape(),
        }
    }

    /// The shard shape (the stored chunk holding inner chunks), `None` if not sharded.
    pub fn shard_shape(&self) -> Option<&[u64]> {
        (self.meta.chain.levels().len() > 1).then(|| self.meta.grid.chunk_shape())
    }

    /// The store key of the (outer) chunk at `coords`.
    pub fn chunk_key(&self, coords: &[u64]) -> String {
        join(&self.path, &self.meta.key_encoding.key(coords))
    }

    /// The data type.
    pub fn dtype(&self) -> DataType {
        self.meta.dtype
    }

    /// The dimension names (v3 `dimension_names`, or xarray's `_ARRAY_DIMENSIONS` attribute in
    /// v2), `None` if the array has none. A name may be `None` (v3 allows `null`).
    pub fn dimension_names(&self) -> Option<&[Option<String>]> {
        self.meta.dimension_names.as_deref()
    }

    /// The user attributes (v3 `attributes`, v2 `.zattrs`), empty if there are none.
    ///
    /// # Errors
    /// [`ErrorKind::Metadata`] if they could not be read or parsed: attributes are not needed
    /// to read the data, so a bad `.zattrs` is reported here, not by [`Self::open`].
    pub fn attributes(&self) -> Result<&serde_json::Map<String, serde_json::Value>, Error> {
        self.meta.attributes().map_err(|e| {
            Error::new(
                &self.path,
                None,
                ErrorKind::Metadata(MetadataError::Invalid(format!("attributes: {e}"))),
            )
        })
    }

    /// Bytes needed to hold `selection`.
    ///
    /// # Errors
    /// [`ErrorKind::Layout`] if the size overflows; [`ErrorKind::WrongType`] for a
    /// variable-length data type (read it with [`Self::read_vlen`]).
    pub fn selection_len(&self, selection: &Region) -> Result<usize, Error> {
        let layout = |e| Error::new(&self.path, None, ErrorKind::Layout(e));
        if self.meta.dtype.is_variable_length() {
            return Err(Error::new(
                &self.path,
                None,
                ErrorKind::WrongType {
                    dtype: self.meta.dtype,
                    read_as: "a flat buffer: its elements vary in length (use Array::read_vlen)",
                },
            ));
        }
        let n = selection
            .num_elements()
            .and_then(|n| {
                n.checked_mul(self.meta.elem_size() as u64)
                    .ok_or(LayoutError::Overflow)
            })
            .map_err(layout)?;
        usize::try_from(n).map_err(|_| layout(LayoutError::Overflow))
    }
}

/// A v2 array whose metadata states no `dimension_separator` has `.` between its chunk
/// coordinates, but zarr-python 2's `NestedDirectoryStore` wrote such arrays with `/` and read
/// them so: where the first chunk is absent under `0.0` and present under `0/0`, the array's
/// chunks are read under `/`, as that store read them (zarr-python 3 finds no chunk and reads
/// the fill value). One stat at open, two when the first chunk is absent; nothing for arrays
/// that state their separator, and for 1-dimensional ones, whose keys have no separator.
fn find_nested_chunks<S: Store>(store: &S, path: &str, meta: &mut ArrayMetadata) {
    let ChunkKeyEncoding::V2 {
        separator: '.',
        stated: false,
    } = meta.key_encoding
    else {
        return;
    };
    if meta.grid.array_shape().len() < 2 || meta.grid.num_chunks() == 0 {
        return;
    }
    let first = vec![0; meta.grid.array_shape().len()];
    let nested = ChunkKeyEncoding::V2 {
        separator: '/',
        stated: false,
    };
    // A probe: a store that cannot answer it (a bucket that refuses stats of missing keys with
    // 403, a flaky server) keeps the metadata's `.`, as zarr-python reads it; the read itself
    // then reports what the store says.
    let found = |key: String| store.size(&join(path, &key)).ok().flatten().is_some();
    if !found(meta.key_encoding.key(&first)) && found(nested.key(&first)) {
        meta.key_encoding = nested;
    }
}
