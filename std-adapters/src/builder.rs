//! Creating arrays: [`ArrayBuilder`] states an array (shape, data type, chunks, codecs, fill
//! value, attributes, dimension names, Zarr v3 or v2) and writes its metadata document
//! (`zarr.json`, or `.zarray` and `.zattrs`), as zarr-python 3.1.6 writes them.

use serde_json::{Map, Value, json};
use zinto_core::MemoryOrder;
use zinto_core::codec::blosc::{BloscCname, BloscShuffle};
use zinto_core::codec::{BloscConfig, Compressor, Endian, Gzip, IndexLocation, Zlib, Zstd};
use zinto_core::codec::{ConfigFor, ConfigSink, ZarrVersion};

use crate::Array;
use crate::destination::{self, ChunkKeys};
use crate::error::{Error, ErrorKind};
use crate::metadata::{
    ChunkKeyEncoding, DataType, FillValue, MAX_ELEMENT_LEN, MetadataError, ZarrFormat,
};
use crate::store::Store;

/// A new array, stated; [`ArrayBuilder::create`] writes its metadata and opens it.
///
/// The chunks are stored as `bytes` (little endian unless [`ArrayBuilder::endian`] says),
/// then the compressor if one is set, then `crc32c` if asked. The fill value is 0 (`false`)
/// unless set; the chunk keys are v3's default (`c/0/1`) or v2's (`0.1`).
#[derive(Debug, Clone)]
pub struct ArrayBuilder {
    shape: Vec<u64>,
    dtype: DataType,
    chunks: Vec<u64>,
    format: ZarrFormat,
    compressor: Option<Compressor>,
    crc32c: bool,
    endian: Endian,
    fill_value: Option<Value>,
    attributes: Map<String, Value>,
    dimension_names: Option<Vec<Option<String>>>,
    order: Option<MemoryOrder>,
    shards: Option<Vec<u64>>,
    shard_index: IndexLocation,
    overwrite: bool,
    /// A rectilinear grid's edges, per dimension (`None`: regular, of `chunks`).
    edges: Option<Vec<Option<Vec<u64>>>>,
}

fn refused(what: String) -> ErrorKind {
    ErrorKind::Metadata(MetadataError::Unsupported(what))
}

/// Edges as a rectilinear grid lists them: an edge repeated is one `[edge, count]` run.
fn runs(edges: &[u64]) -> Vec<Value> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for &e in edges {
        match out.last_mut() {
            Some((edge, count)) if *edge == e => *count += 1,
            _ => out.push((e, 1)),
        }
    }
    out.into_iter()
        .map(|(e, n)| if n == 1 { json!(e) } else { json!([e, n]) })
        .collect()
}

impl ArrayBuilder {
    /// An array of `shape` and `dtype` in chunks of `chunks`: Zarr v3, uncompressed.
    pub fn new(shape: &[u64], dtype: DataType, chunks: &[u64]) -> Self {
        Self {
            shape: shape.to_vec(),
            dtype,
            chunks: chunks.to_vec(),
            format: ZarrFormat::V3,
            compressor: None,
            crc32c: false,
            endian: Endian::Little,
            fill_value: None,
            attributes: Map::new(),
            dimension_names: None,
            order: None,
            shards: None,
            shard_index: IndexLocation::End,
            overwrite: false,
            edges: None,
        }
    }

    /// A rectilinear chunk grid (zarr-python 3.4's variable chunk sizes, Zarr v3): along each
    /// dimension given `Some(edges)`, chunks of those sizes in order (each at least 1, their
    /// sum at least the array's extent); a dimension given `None` stays regular, in chunks of
    /// the shape [`ArrayBuilder::new`] took (its entry for a dimension given edges is not
    /// used). zarr-python 3.4 spells it `chunks=[[10, 20, 30, 40], 25]`. With
    /// [`Self::shards`] the edges are the shards' (zarr-python's `shards=[[40, 60], 60]`), each
    /// a multiple of the inner chunk's; regular dimensions are then the shards' shape. Not in
    /// Zarr v2 (refused by [`ArrayBuilder::create`]).
    ///
    /// ```
    /// use zinto::{ArrayBuilder, DataType, MemoryStore, Region};
    ///
    /// let array = ArrayBuilder::new(&[100, 60], DataType::Float32, &[0, 25])
    ///     .chunk_edges(vec![Some(vec![10, 20, 30, 40]), None])
    ///     .create(MemoryStore::new(), "")?;
    /// // The second of 20 rows, the third column chunk (stored whole: 25, past the extent).
    /// assert_eq!(array.metadata().grid.chunk_shape_at(&[1, 2])?, [20, 25]);
    ///
    /// // Shards of 40 and 60 rows by 60 columns, of (20, 20) chunks.
    /// let sharded = ArrayBuilder::new(&[100, 60], DataType::Float32, &[20, 20])
    ///     .shards(&[0, 60])
    ///     .chunk_edges(vec![Some(vec![40, 60]), None])
    ///     .create(MemoryStore::new(), "")?;
    /// assert_eq!(sharded.metadata().grid.chunk_shape_at(&[1, 0])?, [60, 60]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn chunk_edges(mut self, edges: Vec<Option<Vec<u64>>>) -> Self {
        self.edges = Some(edges);
        self
    }

    /// The outer chunks' shape (the shards' where there are shards): on a rectilinear grid,
    /// the longest edge along each dimension given edges.
    fn outer_shape(&self) -> Vec<u64> {
        let mut outer = self.shards.clone().unwrap_or_else(|| self.chunks.clone());
        for (o, dim) in outer.iter_mut().zip(self.edges.iter().flatten()) {
            if let Some(longest) = dim.as_ref().and_then(|e| e.iter().max()) {
                *o = *longest;
            }
        }
        outer
    }

    /// What a rectilinear grid is refused for, if it is: its edges against the shape, and
    /// what zinto does not write on one.
    fn check_edges(&self) -> Result<(), ErrorKind> {
        let Some(edges) = &self.edges else {
            return Ok(());
        };
        let invalid = |what: String| ErrorKind::Metadata(MetadataError::Invalid(what));
        if edges.len() != self.shape.len() {
            return Err(invalid(format!(
                "chunk edges for {} dimensions, the array has {}",
                edges.len(),
                self.shape.len()
            )));
        }
        for (d, (dim, &extent)) in edges.iter().zip(&self.shape).enumerate() {
            let Some(dim) = dim else { continue };
            let sum = dim.iter().try_fold(0u64, |a, &e| a.checked_add(e));
            if dim.is_empty() || dim.contains(&0) || sum.is_none_or(|s| s < extent) {
                return Err(invalid(format!(
                    "chunk edges {dim:?} along dimension {d}: sizes of at least 1 that sum to \
                     at least its extent {extent}"
                )));
            }
        }
        if self.format == ZarrFormat::V2 {
            return Err(refused(
                "a rectilinear chunk grid in a Zarr v2 array".into(),
            ));
        }
        if let Some(shards) = &self.shards {
            for (d, (dim, &inner)) in edges.iter().zip(&self.chunks).enumerate() {
                let edge = dim
                    .iter()
                    .flatten()
                    .find(|&&e| inner == 0 || e % inner != 0);
                if let Some(edge) = edge {
                    return Err(invalid(format!(
                        "shard edge {edge} along dimension {d} is not a multiple of the inner \
                         chunk's {inner}"
                    )));
                }
            }
            if shards.len() != self.shape.len() {
                return Err(invalid(format!(
                    "shards of {} dimensions, the array has {}",
                    shards.len(),
                    self.shape.len()
                )));
            }
        }
        Ok(())
    }

    /// The v3 `chunk_grid` of `grid` (the outer chunks' shape): regular, or rectilinear with
    /// each dimension's edges as zarr-python writes them (repeats as `[edge, count]` runs, a
    /// regular dimension as its one size).
    fn grid_json(&self, grid: &[u64]) -> Value {
        let Some(edges) = &self.edges else {
            return json!({"name": "regular", "configuration": {"chunk_shape": grid}});
        };
        let shapes: Vec<Value> = edges
            .iter()
            .zip(grid)
            .map(|(dim, &regular)| match dim {
                None => json!(regular),
                Some(dim) => Value::Array(runs(dim)),
            })
            .collect();
        json!({"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": shapes}})
    }

    /// The bytes the array's chunks take once every one is stored, where that is known
    /// before writing: uncompressed chunks of a fixed-size type, each stored whole (edge
    /// chunks too), with their checksums and each shard's index. `None` for compressed chunks
    /// and variable-length values, whose stored size is known only once written. A caller
    /// checks free space with it first (`zinto create` and `convert` do); chunks left all
    /// fill value are not stored, so an array may take less. Saturates at `u64::MAX`.
    pub fn stored_len_bound(&self) -> Option<u64> {
        if self.compressor.is_some() {
            return None;
        }
        let elem = u64::try_from(self.dtype.fixed_size()?).ok()?;
        Some(self.whole_len(elem).unwrap_or(u64::MAX))
    }

    /// [`Self::stored_len_bound`] of `elem`-byte elements, `None` on overflow: along each
    /// dimension the outer chunks (shards) that start inside the extent, stored whole, hold
    /// `stored / inner` inner chunks; each inner chunk has its checksum, each shard an index
    /// entry per inner chunk and the index's CRC-32C.
    fn whole_len(&self, elem: u64) -> Option<u64> {
        let outer = self.outer_shape();
        let no_edges = vec![None; self.shape.len()];
        let edges = self.edges.as_deref().unwrap_or(&no_edges);
        let (mut elements, mut inner, mut outers) = (1u64, 1u64, 1u64);
        for (((dim, &extent), &o), &c) in
            edges.iter().zip(&self.shape).zip(&outer).zip(&self.chunks)
        {
            let (stored, count) = match dim {
                None => {
                    let n = extent.div_ceil(o.max(1));
                    (n.checked_mul(o)?, n)
                }
                Some(dim) => {
                    let (mut at, mut n) = (0u64, 0u64);
                    for &e in dim {
                        if at >= extent {
                            break;
                        }
                        (at, n) = (at.checked_add(e)?, n + 1);
                    }
                    (at, n)
                }
            };
            elements = elements.checked_mul(stored)?;
            outers = outers.checked_mul(count)?;
            inner = inner.checked_mul(match self.shards {
                Some(_) => stored.checked_div(c)?,
                None => count,
            })?;
        }
        let crc = if self.crc32c { 4 } else { 0 };
        let index = match self.shards {
            Some(_) => inner.checked_mul(16)?.checked_add(outers.checked_mul(4)?)?,
            None => 0,
        };
        elements
            .checked_mul(elem)?
            .checked_add(inner.checked_mul(crc)?)?
            .checked_add(index)
    }

    /// Zarr v2 (`.zarray`) or v3 (`zarr.json`, the default).
    #[must_use]
    pub fn zarr_format(mut self, format: ZarrFormat) -> Self {
        self.format = format;
        self
    }

    /// Compress the chunks with `compressor` (zstd, gzip; zlib in v2).
    #[must_use]
    pub fn compressor(mut self, compressor: Compressor) -> Self {
        self.compressor = Some(compressor);
        self
    }

    /// Compress the chunks with zstd at `level` (without a content checksum).
    #[must_use]
    pub fn zstd(self, level: i32) -> Self {
        self.compressor(Compressor::Zstd(Zstd {
            level: Some(level),
            checksum: false,
        }))
    }

    /// Compress the chunks with Blosc (c-blosc 1.x chunks): `cname` inside (`Lz4`, `Lz4Hc`,
    /// written as LZ4 blocks, `Zstd` or `Zlib`) at `clevel` (0 to 9), each block shuffled as
    /// `shuffle` says first. A v3 `blosc` codec (its typesize the element size) or v2's
    /// numcodecs compressor; blocks of 256 KiB (`blocksize` 0: the writer's choice).
    #[must_use]
    pub fn blosc(self, cname: BloscCname, clevel: u8, shuffle: BloscShuffle) -> Self {
        self.compressor(Compressor::Blosc(BloscConfig {
            cname: Some(cname),
            clevel: Some(clevel.min(9)),
            shuffle: Some(shuffle),
            typesize: None,
            blocksize: Some(0),
        }))
    }

    /// Compress the chunks with gzip at `level` (0 to 9).
    #[must_use]
    pub fn gzip(self, level: u8) -> Self {
        self.compressor(Compressor::Gzip(Gzip { level: Some(level) }))
    }

    /// Compress the chunks with zlib at `level` (0 to 9; a Zarr v2 compressor).
    #[must_use]
    pub fn zlib(self, level: u8) -> Self {
        self.compressor(Compressor::Zlib(Zlib { level: Some(level) }))
    }

    /// End each chunk with a CRC-32C of its stored bytes (v3 `crc32c`).
    #[must_use]
    pub fn crc32c(mut self) -> Self {
        self.crc32c = true;
        self
    }

    /// Lay each chunk's elements out in `order` (C order by default): a v3 `transpose` codec,
    /// or v2's `"order": "F"` (a v2 array takes C or F order only).
    #[must_use]
    pub fn order(mut self, order: MemoryOrder) -> Self {
        self.order = Some(order);
        self
    }

    /// Store the chunks in shards of `shape` (v3 `sharding_indexed`, its index at the end
    /// with a `crc32c`, as zarr-python writes it): the chunks are its inner chunks, each
    /// encoded with the codecs set here, and a shard is one object. Each dimension of `shape`
    /// must be a multiple of the chunk's.
    #[must_use]
    pub fn shards(mut self, shape: &[u64]) -> Self {
        self.shards = Some(shape.to_vec());
        self
    }

    /// Where each shard's index goes (with [`Self::shards`]): at the end (the default, as
    /// zarr-python writes it) or at the start, where it is written last, in room left for it
    /// (a file is rewritten in place; an object store holds the shard until its index is in).
    #[must_use]
    pub fn shard_index(mut self, location: IndexLocation) -> Self {
        self.shard_index = location;
        self
    }

    /// Store elements in this byte order (little endian by default).
    #[must_use]
    pub fn endian(mut self, endian: Endian) -> Self {
        self.endian = endian;
        self
    }

    /// The fill value as metadata states it (`0`, `1.5`, `"NaN"`, `true`, `[0.0, 1.0]`),
    /// checked against the data type when the array is created. Unstated: the type's zero,
    /// NaT for dates and durations (zarr-python's defaults).
    #[must_use]
    pub fn fill_value(mut self, value: Value) -> Self {
        self.fill_value = Some(value);
        self
    }

    /// User attributes (v3 `attributes`, v2 `.zattrs`).
    #[must_use]
    pub fn attributes(mut self, attributes: Map<String, Value>) -> Self {
        self.attributes = attributes;
        self
    }

    /// Dimension names (v3 `dimension_names`; in v2 xarray's `_ARRAY_DIMENSIONS` attribute).
    #[must_use]
    pub fn dimension_names(mut self, names: Vec<Option<String>>) -> Self {
        self.dimension_names = Some(names);
        self
    }

    /// Replace an array (or group) already at the path, or write beside other files there;
    /// by default anything at the path is refused, named. An overwrite removes only what zarr
    /// would read as the array's: the metadata documents and the keys that are chunk keys of
    /// the array that was there or of the new one (a stale chunk would read as data); every
    /// other file stays.
    #[must_use]
    pub fn overwrite(mut self, overwrite: bool) -> Self {
        self.overwrite = overwrite;
        self
    }

    /// Writes the metadata at `path` in `store` and opens the array there.
    ///
    /// # Errors
    /// [`ErrorKind::Metadata`] for what zinto cannot create (named: a data type or compressor
    /// it does not write yet, a fill value the type cannot hold, dimension names of another
    /// length), or anything at `path` without [`ArrayBuilder::overwrite`] (what is there is
    /// named); [`ErrorKind::Store`] if the store fails; then as [`Array::open`].
    pub fn create<S: Store>(&self, store: S, path: &str) -> Result<Array<S>, Error> {
        let path = path.trim_matches('/');
        let err = |kind| Error::new(path, None, kind);
        let docs = self.documents().map_err(err)?;
        let keys = ChunkKeys {
            encoding: match self.format {
                ZarrFormat::V3 => ChunkKeyEncoding::Default { separator: '/' },
                ZarrFormat::V2 => ChunkKeyEncoding::V2 {
                    separator: '.',
                    stated: true,
                },
            },
            ndim: self.shape.len(),
        };
        destination::prepare(&store, path, &keys, self.overwrite)
            .map_err(|(key, kind)| Error::new(path, key.as_deref(), kind))?;
        for (name, doc) in &docs {
            let bytes = serde_json::to_vec_pretty(doc)
                .map_err(|e| err(ErrorKind::Encode(e.to_string())))?;
            let key = crate::doc::join(path, name);
            store
                .write_from(&key, &bytes)
                .map_err(|e| Error::new(path, Some(&key), ErrorKind::Store(e)))?;
        }
        // The other version's documents, a group's, consolidated metadata: not this array's.
        for stale in destination::METADATA_DOCS {
            if docs.iter().any(|(name, _)| *name == stale) {
                continue;
            }
            let key = crate::doc::join(path, stale);
            let store_err = |e| Error::new(path, Some(&key), ErrorKind::Store(e));
            if store.size(&key).map_err(store_err)?.is_some() {
                store.delete(&key).map_err(store_err)?;
            }
        }
        Array::open(store, path)
    }

    /// The documents to write, by name.
    fn documents(&self) -> Result<Vec<(&'static str, Value)>, ErrorKind> {
        self.check_edges()?;
        if self.crc32c && matches!(self.compressor, Some(Compressor::Blosc(_))) {
            return Err(refused(
                "a crc32c checksum after blosc (a Blosc chunk's header is written last)".into(),
            ));
        }
        let other = matches!(
            self.dtype,
            DataType::DateTime64(_)
                | DataType::TimeDelta64(_)
                | DataType::FixedUtf32 { .. }
                | DataType::FixedBytes { .. }
        );
        if self.dtype.number().is_none() && self.vlen_codec().is_none() && !other {
            return Err(refused(format!(
                "creating arrays of {} (not yet: numbers, bool, dates, durations, strings and bytes)",
                self.dtype
            )));
        }
        // Refused now, not by the first open of metadata already written.
        if self.dtype.fixed_size().is_some_and(|n| n > MAX_ELEMENT_LEN) {
            return Err(refused(format!(
                "creating arrays of {}: elements larger than the {MAX_ELEMENT_LEN} bytes zinto reads",
                self.dtype
            )));
        }
        if self.vlen_codec().is_some() {
            self.check_vlen()?;
        }
        if let Some(names) = &self.dimension_names
            && names.len() != self.shape.len()
        {
            return Err(refused(format!(
                "{} dimension names for {} dimensions",
                names.len(),
                self.shape.len()
            )));
        }
        let fill = self.fill_json();
        FillValue::parse(self.dtype, &fill)
            .map_err(|why| refused(format!("fill value {fill}: {why}")))?;
        Ok(match self.format {
            ZarrFormat::V3 => vec![("zarr.json", self.v3(fill)?)],
            ZarrFormat::V2 => {
                let mut attrs = self.attributes.clone();
                if let Some(names) = &self.dimension_names {
                    attrs.insert("_ARRAY_DIMENSIONS".into(), json!(names));
                }
                vec![
                    (".zarray", self.v2(fill)?),
                    (".zattrs", Value::Object(attrs)),
                ]
            }
        })
    }

    /// The object codec of a variable-length type (`string`, `bytes`), as zarr-python names it.
    fn vlen_codec(&self) -> Option<&'static str> {
        match self.dtype {
            DataType::String => Some("vlen-utf8"),
            DataType::Bytes => Some("vlen-bytes"),
            _ => None,
        }
    }

    /// What a variable-length array cannot have: its elements have no byte order, memory
    /// order or size for `endian`, `order` or v3 Blosc's typesize to name (Zarr v2 Blosc,
    /// numcodecs' default for object arrays, shuffles bytes). Shards hold them as zarr-python
    /// writes them: `sharding_indexed` over the `vlen-*` codec and the compressor.
    fn check_vlen(&self) -> Result<(), ErrorKind> {
        let what = if self.order.as_ref().is_some_and(|o| !o.is_c()) {
            "a memory order other than C"
        } else if self.endian == Endian::Big {
            "a big-endian byte order"
        } else if self.format == ZarrFormat::V3
            && matches!(self.compressor, Some(Compressor::Blosc(_)))
        {
            "blosc in Zarr v3 (its typesize is an element's size)"
        } else {
            return Ok(());
        };
        Err(refused(format!(
            "{what} for an array of {} (variable-length)",
            self.dtype
        )))
    }

    /// The fill value as stated, or the type's zero (NaT for dates and durations, as
    /// zarr-python's default).
    fn fill_json(&self) -> Value {
        if let Some(v) = &self.fill_value {
            return v.clone();
        }
        match self.dtype {
            DataType::Bool => json!(false),
            DataType::Float16 | DataType::Float32 | DataType::Float64 => json!(0.0),
            DataType::Complex64 | DataType::Complex128 => json!([0.0, 0.0]),
            DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::UInt8
            | DataType::UInt16
            | DataType::UInt32
            | DataType::UInt64 => json!(0),
            // NaT, stated as zarr-python 3.1.6 states its default for dates and durations.
            DataType::DateTime64(_) | DataType::TimeDelta64(_) => json!(i64::MIN),
            DataType::FixedUtf32 { .. } | DataType::String => json!(""),
            DataType::FixedBytes { .. } | DataType::Bytes => json!(""),
        }
    }

    /// The metadata of compressor `c`, as its own file writes it: v3's name and
    /// configuration, or v2's id and keys. The element size is Blosc's typesize.
    fn compressor_json(&self, c: &Compressor, version: ZarrVersion) -> Result<Value, ErrorKind> {
        let to = ConfigFor {
            version,
            elem_size: self.dtype.fixed_size().unwrap_or(0),
        };
        let mut keys = JsonKeys::default();
        c.write_config(to, &mut keys)
            .map_err(|e| refused(format!("creating an array of {}: {e}", self.dtype)))?;
        let name = c.name();
        Ok(match version {
            ZarrVersion::V3 => json!({"name": name.name(), "configuration": keys.0}),
            ZarrVersion::V2 => {
                let id = name
                    .v2_id()
                    .ok_or(refused(format!("{name} in a Zarr v2 array")))?;
                let mut obj = serde_json::Map::from_iter([("id".to_owned(), json!(id))]);
                obj.extend(keys.0);
                Value::Object(obj)
            }
        })
    }

    fn v3(&self, fill: Value) -> Result<Value, ErrorKind> {
        let endian = match self.endian {
            Endian::Little => "little",
            Endian::Big => "big",
        };
        let mut codecs = vec![];
        if let Some(order) = self.order.as_ref().filter(|o| !o.is_c()) {
            let axes: Vec<usize> = order.axes().collect();
            codecs.push(json!({"name": "transpose", "configuration": {"order": axes}}));
        }
        codecs.push(match self.vlen_codec() {
            Some(vlen) => json!({"name": vlen, "configuration": {}}),
            // One-byte scalars (bool, int8, uint8, fixed-length bytes) have no byte order:
            // zarr-python states none.
            None if self.dtype.scalar_size() == 1 => json!({"name": "bytes"}),
            None => json!({"name": "bytes", "configuration": {"endian": endian}}),
        });
        if let Some(c) = &self.compressor {
            codecs.push(self.compressor_json(c, ZarrVersion::V3)?);
        }
        if self.crc32c {
            codecs.push(json!({"name": "crc32c"}));
        }
        let (grid, codecs) = match &self.shards {
            None => (&self.outer_shape(), codecs),
            Some(_) => {
                let index = [
                    json!({"name": "bytes", "configuration": {"endian": "little"}}),
                    json!({"name": "crc32c"}),
                ];
                let sharding = json!({"name": "sharding_indexed", "configuration": {
                "chunk_shape": self.chunks, "codecs": codecs,
                "index_codecs": index, "index_location": match self.shard_index {
                    IndexLocation::Start => "start",
                    IndexLocation::End => "end",
                }}});
                (&self.outer_shape(), vec![sharding])
            }
        };
        let mut doc = json!({
            "zarr_format": 3,
            "node_type": "array",
            "shape": self.shape,
            "data_type": self.data_type_v3(),
            "chunk_grid": self.grid_json(grid),
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": fill,
            "codecs": codecs,
            "attributes": self.attributes,
        });
        if let (Some(names), Some(obj)) = (&self.dimension_names, doc.as_object_mut()) {
            obj.insert("dimension_names".into(), json!(names));
        }
        Ok(doc)
    }

    /// The v3 `data_type`: a name, or for dates and durations the name with the unit.
    fn data_type_v3(&self) -> Value {
        match self.dtype {
            // zarr-python 3.1 names variable-length bytes so (zinto reads "bytes" too).
            DataType::Bytes => json!("variable_length_bytes"),
            DataType::DateTime64(u) | DataType::TimeDelta64(u) => json!({
                "name": self.dtype.name(),
                "configuration": {"unit": u.unit.code(), "scale_factor": u.scale},
            }),
            // As zarr-python 3.1.6 states them: the element's length in bytes.
            DataType::FixedUtf32 { chars } => json!({
                "name": self.dtype.name(),
                "configuration": {"length_bytes": chars.saturating_mul(4)},
            }),
            DataType::FixedBytes { len } => json!({
                "name": self.dtype.name(),
                "configuration": {"length_bytes": len},
            }),
            dtype => json!(dtype.name()),
        }
    }

    /// v2's `order`: C or F.
    fn v2_order(&self) -> Result<&'static str, ErrorKind> {
        let ndim = self.shape.len();
        match &self.order {
            None => Ok("C"),
            Some(o) if o.is_c() => Ok("C"),
            Some(o) if MemoryOrder::f(ndim).is_ok_and(|f| f == *o) => Ok("F"),
            Some(o) => Err(refused(format!(
                "the memory order {:?} in a Zarr v2 array (C or F)",
                o.axes().collect::<Vec<_>>()
            ))),
        }
    }

    fn v2(&self, fill: Value) -> Result<Value, ErrorKind> {
        if self.crc32c {
            return Err(refused("crc32c in a Zarr v2 array (a v3 codec)".into()));
        }
        if self.shards.is_some() {
            return Err(refused("shards in a Zarr v2 array (a v3 codec)".into()));
        }
        let native = match self.vlen_codec() {
            Some(_) => "|O".to_owned(),
            None => self
                .dtype
                .numpy_str()
                .ok_or(refused(format!("creating arrays of {}", self.dtype)))?,
        };
        let dtype = match (self.endian, native.as_bytes().first()) {
            (Endian::Big, Some(b'<')) => format!(">{}", &native[1..]),
            (Endian::Little, Some(b'>')) => format!("<{}", &native[1..]),
            _ => native,
        };
        let compressor = match &self.compressor {
            None => Value::Null,
            Some(c) => self.compressor_json(c, ZarrVersion::V2)?,
        };
        Ok(json!({
            "zarr_format": 2,
            "shape": self.shape,
            "chunks": self.chunks,
            "dtype": dtype,
            "compressor": compressor,
            "fill_value": fill,
            "order": self.v2_order()?,
            "filters": self.vlen_codec().map(|id| json!([{"id": id}])),
            "dimension_separator": ".",
        }))
    }
}

/// A codec's configuration keys, as JSON.
#[derive(Default)]
struct JsonKeys(serde_json::Map<String, Value>);

impl ConfigSink for JsonKeys {
    fn int(&mut self, key: &'static str, value: i64) {
        self.0.insert(key.to_owned(), json!(value));
    }

    fn str(&mut self, key: &'static str, value: &str) {
        self.0.insert(key.to_owned(), json!(value));
    }

    fn bool(&mut self, key: &'static str, value: bool) {
        self.0.insert(key.to_owned(), json!(value));
    }
}
