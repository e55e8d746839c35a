//! An array in a store: open it, read a selection into a buffer you own.

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use zinto_core::codec::{ArrayToBytes, BytesCodecs, IndexLocation};
use zinto_core::{LayoutError, Piece, Pieces, Region};

use crate::buffer::zeroed_buffer;
use crate::doc::{MAX_CONSOLIDATED_LEN, MAX_METADATA_LEN, join, read_doc};
use crate::element::Element;
use crate::error::{Error, ErrorKind, MetadataError};
use crate::group::Group;
use crate::metadata::{ArrayMetadata, ChunkKeyEncoding, DataType, ZarrFormat, parse_v2, parse_v3};
use crate::pool::{ContextPool, Fanout, PieceJob, for_each_piece};
use crate::reader::{ChunkReader, Found, OnAbsent, PieceOut, ReadContext};
use crate::store::{FirstBytes, PieceSource, ReadPlan, Store};
use crate::vlen::VlenData;

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
    store: S,
    path: String,
    meta: ArrayMetadata,
    /// Per-worker buffers kept between reads.
    contexts: ContextPool,
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

    /// Reads `selection` into `out` as a C-order array of the selection's shape, native byte
    /// order, with default options (one worker per available core). `out` must be exactly
    /// [`Self::selection_len`] bytes. Missing chunks read as the fill value.
    ///
    /// # Errors
    /// [`ErrorKind::OutputSize`] for a wrong buffer size, [`ErrorKind::Layout`] for a selection
    /// outside the array, and store, decode and shard errors naming the chunk key.
    pub fn read_into(&self, selection: &Region, out: &mut [u8]) -> Result<(), Error> {
        self.read_into_with(selection, out, &ReadOptions::default())
    }

    /// [`Self::read_into`] with explicit options (threads, progress).
    ///
    /// Each chunk takes the cheapest path its layout allows: read or decoded straight into
    /// `out` when it lands there whole and contiguously; otherwise decoded into a per-worker
    /// scratch buffer (kept between reads) and copied; uncompressed partial chunks read only the
    /// byte ranges needed. See `docs/memory.md` for the memory each path uses.
    ///
    /// # Errors
    /// As [`Self::read_into`]. The first error stops the read; `out` is then partly written.
    pub fn read_into_with(
        &self,
        selection: &Region,
        out: &mut [u8],
        options: &ReadOptions<'_>,
    ) -> Result<(), Error> {
        let expected = self.selection_len(selection)?;
        if out.len() != expected {
            return Err(Error::new(
                &self.path,
                None,
                ErrorKind::OutputSize {
                    expected: expected as u64,
                    got: out.len() as u64,
                },
            ));
        }
        let pieces = self
            .meta
            .grid
            .pieces(selection)
            .map_err(|e| Error::new(&self.path, None, ErrorKind::Layout(e)))?;
        let total = pieces
            .chunk_count()
            .map_err(|e| Error::new(&self.path, None, ErrorKind::Layout(e)))?;
        let fetches = match self.store.read_ahead() {
            Some(ahead) => Some(
                ahead
                    .begin(self.read_plan(&pieces, total, out.len() as u64)?)
                    .map_err(|e| Error::new(&self.path, None, ErrorKind::Store(e)))?,
            ),
            None => None,
        };
        let job = PieceReads {
            array: self,
            out_shape: selection.shape(),
            options,
            fetches: fetches.as_deref(),
            aborted: AtomicBool::new(false),
            done: AtomicU64::new(0),
            total,
        };
        let fanout = Fanout {
            path: &self.path,
            pieces: &pieces,
            threads: self.workers(options),
            elem: self.meta.elem_size(),
            out_shape: selection.shape(),
            contexts: &self.contexts,
        };
        for_each_piece(&fanout, out, &job)
    }

    /// Every key `pieces` read, in the order the workers take them, for a store that reads
    /// ahead.
    fn read_plan(
        &self,
        pieces: &Pieces<'_>,
        total: u64,
        output_len: u64,
    ) -> Result<ReadPlan, Error> {
        let first = match self.meta.chain.levels().first().map(|l| &l.array_to_bytes) {
            Some(ArrayToBytes::Sharding(layout)) => match layout.location() {
                IndexLocation::End => FirstBytes::Suffix(layout.index_len()),
                IndexLocation::Start => FirstBytes::Prefix(layout.index_len()),
            },
            _ => FirstBytes::Whole,
        };
        let mut keys = Vec::new();
        keys.try_reserve_exact(usize::try_from(total).unwrap_or(usize::MAX))
            .map_err(|_| {
                Error::new(
                    &self.path,
                    None,
                    ErrorKind::OutOfMemory {
                        bytes: total.saturating_mul(64),
                    },
                )
            })?;
        for i in 0..total {
            let piece = pieces.get(i).ok_or_else(|| {
                let what = "a piece of the selection missing from its own count";
                Error::new(&self.path, None, ErrorKind::Internal { what })
            })?;
            keys.push(self.chunk_key(&piece.chunk));
        }
        Ok(ReadPlan {
            keys,
            first,
            output_len,
        })
    }

    /// Reads `selection` into `out`, a slice of `T` (`f32`, `i64`, ...) of exactly the
    /// selection's element count, native byte order (see [`Self::read_into`]). `T` must be
    /// the data type's element: `i64` for dates and durations, `u8` for `bool`, `[f32; 2]` for
    /// `complex64`.
    ///
    /// ```
    /// use zinto::{Array, FileStore, Region};
    ///
    /// # let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/data/temperature.zarr");
    /// let array = Array::open(FileStore::new(dir), "")?;
    /// let selection = Region::from_ranges(&[10..200, 5..90])?;
    /// let mut out = vec![0f32; 190 * 85];
    /// array.read_into_typed(&selection, &mut out)?;
    /// assert!(out.iter().all(|t| (-40.0..40.0).contains(t)));
    /// // The wrong element type is an error, not a reinterpretation.
    /// assert!(array.read_into_typed(&selection, &mut vec![0f64; 190 * 85]).is_err());
    /// # Ok::<(), zinto::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`ErrorKind::WrongType`] if `T` is not the data type's element; then as
    /// [`Self::read_into`] ([`ErrorKind::OutputSize`] counts bytes).
    pub fn read_into_typed<T: Element>(
        &self,
        selection: &Region,
        out: &mut [T],
    ) -> Result<(), Error> {
        if !T::matches(self.meta.dtype) {
            return Err(Error::new(
                &self.path,
                None,
                ErrorKind::WrongType {
                    dtype: self.meta.dtype,
                    read_as: T::NAME,
                },
            ));
        }
        self.read_into(selection, bytemuck::cast_slice_mut(out))
    }

    /// Reads the variable-length (string or bytes) `selection` as offsets and values; see
    /// [`VlenData`]. Chunks are decoded twice (lengths, then values), one at a time, so the
    /// memory is the two exact buffers and one decoded chunk.
    ///
    /// # Errors
    /// [`ErrorKind::WrongType`] for a fixed-size data type (use [`Self::read_into`]);
    /// [`ErrorKind::Layout`] for a selection outside the array; store and decode errors naming
    /// the chunk key ([`ErrorKind::Decode`] for a malformed `vlen-*` chunk or a string that is
    /// not UTF-8; [`ErrorKind::ChunkChanged`] if a chunk was rewritten during the read).
    pub fn read_vlen(&self, selection: &Region) -> Result<VlenData, Error> {
        self.read_vlen_with(selection, &ReadOptions::default())
    }

    /// [`Self::read_vlen`] with options: of [`ReadOptions`], only `cancel` (checked before
    /// each chunk of each pass), `absent` and `decoded_chunk_limit` apply; the read is on one
    /// worker.
    ///
    /// # Errors
    /// As [`Self::read_vlen`]; [`ErrorKind::Cancelled`] once `cancel` is set;
    /// [`ErrorKind::DecodedTooLarge`] for a chunk past `decoded_chunk_limit`.
    pub fn read_vlen_with(
        &self,
        selection: &Region,
        options: &ReadOptions<'_>,
    ) -> Result<VlenData, Error> {
        let key = |coords: &[u64]| self.chunk_key(coords);
        let hooks = crate::vlen::Hooks {
            cancel: options.cancel,
            absent: options.absent,
            limit: options.decoded_chunk_limit(),
        };
        crate::vlen::read(&self.store, &self.meta, &key, selection, hooks)
            .map_err(|(chunk, kind)| Error::new(&self.path, chunk.as_deref(), kind))
    }

    /// The workers a read of this array with `options` asks for: `options.threads`, else one
    /// per available core, or from a remote store [`REMOTE_WORKERS_PER_CORE`](crate::REMOTE_WORKERS_PER_CORE) per core and at
    /// least [`REMOTE_WORKERS_MIN`](crate::REMOTE_WORKERS_MIN), at
    /// most its requests in flight (its workers also wait for the network: more of them keep
    /// more responses streaming).
    pub fn workers(&self, options: &ReadOptions<'_>) -> NonZeroUsize {
        match (options.threads, self.store.read_ahead()) {
            (None, Some(ahead)) => ahead.workers(options.workers()),
            _ => options.workers(),
        }
    }

    /// Reads `selection` into a new vector (see [`Self::read_into`]).
    ///
    /// # Errors
    /// As [`Self::read_into`], and [`ErrorKind::OutOfMemory`] if the vector cannot be allocated.
    pub fn read_to_vec(&self, selection: &Region) -> Result<Vec<u8>, Error> {
        let len = self.selection_len(selection)?;
        let mut out = zeroed_buffer(len).ok_or_else(|| {
            Error::new(
                &self.path,
                None,
                ErrorKind::OutOfMemory { bytes: len as u64 },
            )
        })?;
        self.read_into(selection, &mut out)?;
        Ok(out)
    }
}

/// How to run a read.
#[derive(Default, Clone, Copy)]
pub struct ReadOptions<'a> {
    /// Worker threads; `None` means one per available core ([`REMOTE_WORKERS_PER_CORE`](crate::REMOTE_WORKERS_PER_CORE) per
    /// core, at least [`REMOTE_WORKERS_MIN`](crate::REMOTE_WORKERS_MIN), for an array in a remote store). Never more than the chunks read.
    pub threads: Option<NonZeroUsize>,
    /// Called after each chunk with (chunks done, chunks in all), from the worker that did it.
    pub progress: Option<&'a (dyn Fn(u64, u64) + Sync)>,
    /// Called with a chunk's grid coordinates (a shard's, for a sharded array) when the
    /// chunk is absent from the store, from the worker that found it so; its part of the
    /// output is then the fill value. Once per chunk of the selection (a variable-length read
    /// too). zarr-python 3.4 reports absent chunks per chunk: this is how zinto knows them.
    pub absent: Option<OnAbsent<'a>>,
    /// Checked by a read's workers before each chunk (a concatenation's before each file):
    /// once it is `true`, no further chunk is read and the read returns
    /// [`ErrorKind::Cancelled`] (the output is then partly written). For Ctrl-C in the
    /// Python package, or a caller's timeout.
    pub cancel: Option<&'a AtomicBool>,
    /// The most one chunk of variable-length values (strings, bytes) may decode to, in bytes;
    /// `None` means [`DECODED_CHUNK_LIMIT`](crate::DECODED_CHUNK_LIMIT) (1 GiB). Such a chunk's
    /// decoded size is stated by no metadata, and a compressed one can claim or decode to
    /// millions of times its stored size: past the limit the read fails with
    /// [`ErrorKind::DecodedTooLarge`] having held no more than it. Fixed-size types need no
    /// limit (their chunks decode to the size the metadata gives).
    pub decoded_chunk_limit: Option<u64>,
}

impl ReadOptions<'_> {
    /// The limit on a variable-length chunk's decoded size this read applies.
    pub fn decoded_chunk_limit(&self) -> u64 {
        self.decoded_chunk_limit
            .unwrap_or(crate::DECODED_CHUNK_LIMIT)
    }

    /// The worker count this read asks for: `threads`, or one per available core.
    pub fn workers(&self) -> NonZeroUsize {
        self.threads
            .unwrap_or_else(|| std::thread::available_parallelism().unwrap_or(NonZeroUsize::MIN))
    }
}

impl std::fmt::Debug for ReadOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadOptions")
            .field("threads", &self.threads)
            .field("progress", &self.progress.is_some())
            .field("absent", &self.absent.is_some())
            .field("cancel", &self.cancel)
            .field("decoded_chunk_limit", &self.decoded_chunk_limit)
            .finish()
    }
}

/// The reads of one [`Array::read_into_with`], piece by piece: the job the pool's workers run.
struct PieceReads<'a, S> {
    array: &'a Array<S>,
    out_shape: &'a [u64],
    options: &'a ReadOptions<'a>,
    /// The store's fetches under way, for a store that reads ahead.
    fetches: Option<&'a dyn PieceSource>,
    /// Whether the fetches were stopped (a piece failed, or the read was cancelled).
    aborted: AtomicBool,
    done: AtomicU64,
    total: u64,
}

impl<S: Store> PieceReads<'_, S> {
    /// Reads `piece` from `store`; whether its chunk was stored.
    fn read_from(
        &self,
        store: &dyn Store,
        ctx: &mut ReadContext,
        key: &str,
        piece: &Piece,
        target: &mut PieceOut<'_, '_>,
    ) -> Result<Found, ErrorKind> {
        let reader = ChunkReader {
            store,
            meta: &self.array.meta,
            out_shape: self.out_shape,
        };
        reader.read_piece(ctx, key, piece, target)
    }
}

impl<S: Store> PieceJob for PieceReads<'_, S> {
    fn run(
        &self,
        ctx: &mut ReadContext,
        index: u64,
        piece: &Piece,
        target: &mut PieceOut<'_, '_>,
    ) -> Result<(), Error> {
        let path = &self.array.path;
        // A read that fails or is cancelled stops the other fetches.
        let abort = || self.stop();
        if self
            .options
            .cancel
            .is_some_and(|c| c.load(Ordering::Relaxed))
        {
            abort();
            return Err(Error::new(path, None, ErrorKind::Cancelled));
        }
        let key = self.array.chunk_key(&piece.chunk);
        let read = match self.fetches {
            Some(fetches) => fetches
                .piece(index, &key)
                .map_err(ErrorKind::Store)
                .and_then(|store| self.read_from(&*store, ctx, &key, piece, target)),
            None => self.read_from(&self.array.store, ctx, &key, piece, target),
        };
        match read {
            Ok(Found::Stored) => {}
            Ok(Found::Absent) => {
                if let Some(absent) = self.options.absent {
                    absent(&piece.chunk);
                }
            }
            Err(kind) => {
                // Once the fetches were stopped, a piece waiting for one fails for that reason:
                // the read's error is the one that stopped them (the pool keeps it over this).
                let kind = if self.fetches.is_some() && self.aborted.load(Ordering::Relaxed) {
                    ErrorKind::Cancelled
                } else {
                    abort();
                    kind
                };
                return Err(Error::new(path, Some(&key), kind));
            }
        }
        let n = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(progress) = self.options.progress {
            progress(n, self.total);
        }
        Ok(())
    }

    fn stop(&self) {
        self.aborted.store(true, Ordering::Relaxed);
        self.fetches.inspect(|f| f.abort());
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
