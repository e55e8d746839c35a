//! The read path: an array's selection into the caller's buffer ([`Array::read_into_with`]),
//! or variable-length values into offsets and bytes ([`Array::read_vlen_with`]).
//!
//! - `handout.rs` hands the selection's pieces and their parts of the output to the workers
//!   (`crate::workers`), through `disjoint.rs` (the one `unsafe` module) where pieces
//!   interleave;
//! - `chunk.rs` reads one piece of one chunk by the cheapest path its layout allows, writing
//!   where `out.rs` says, with the worker's buffers (`context.rs`);
//! - `decode.rs` decodes a stored chunk whole or through a window (also for concatenation,
//!   variable-length reads and the writes that keep an old chunk's values);
//! - `vlen.rs` reads strings and bytes; `element.rs` the types a typed read takes.

mod chunk;
pub(crate) mod context;
pub(crate) mod decode;
pub(crate) mod disjoint;
pub(crate) mod element;
mod gather;
mod handout;
mod kept;
mod many;
mod out;
pub(crate) mod vlen;

pub use chunk::{COALESCE_GAP, COALESCE_MAX};
pub use decode::{BLOCK_LEN, WINDOW_LEN};
pub(crate) use handout::ContextPool;

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use zinto_core::codec::{ArrayToBytes, IndexLocation};
use zinto_core::{Piece, Pieces, Region};

use crate::Array;
use crate::buffer::zeroed_buffer;
use crate::error::{Error, ErrorKind};
use crate::options::ReadOptions;
use crate::store::{FetchOrder, FirstBytes, PieceSource, Store, StoreError};

use chunk::{ChunkReader, Found};
use context::ReadContext;
use element::Element;
use handout::{Fanout, PieceJob, for_each_piece};
use out::PieceOut;
use vlen::VlenData;

/// Decoded bytes up to which a read is small ([`Array::is_small_read`]): about a millisecond of
/// decoding on one core.
pub const SMALL_READ_BYTES: u64 = 1 << 20;

impl<S: Store> Array<S> {
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
                    .begin(self.fetch_order(&pieces, total, out.len() as u64)?)
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
        // A small read on one worker: starting another costs more than its share.
        let threads = match options.threads {
            None if total > 1 && self.is_small_read(selection)? => NonZeroUsize::MIN,
            _ => self.workers(options),
        };
        let fanout = Fanout {
            path: &self.path,
            pieces: &pieces,
            threads,
            elem: self.meta.elem_size(),
            out_shape: selection.shape(),
            contexts: &self.contexts,
        };
        // A remote read's workers may all wait on a stalled server: a cancel then stops the
        // fetches at once (their requests dropped), not when a worker next looks.
        let cancel = options.cancel.filter(|_| job.fetches.is_some());
        crate::workers::watch_cancel(cancel, &|| job.stop(), || {
            for_each_piece(&fanout, out, &job)
        })
    }

    /// Every key `pieces` read, in the order the workers take them, for a store that reads
    /// ahead.
    fn fetch_order(
        &self,
        pieces: &Pieces<'_>,
        total: u64,
        output_len: u64,
    ) -> Result<FetchOrder, Error> {
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
        Ok(FetchOrder {
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
    /// memory is the two exact buffers and one decoded chunk. The first pass keeps the chunks
    /// it opened for the second (up to 64, of 8 MiB in all), so both read one version of each
    /// while writers replace it; a chunk that changed between the passes anyway starts the
    /// read again, up to [`crate::READ_TRIES`] times.
    ///
    /// # Errors
    /// [`ErrorKind::WrongType`] for a fixed-size data type (use [`Self::read_into`]);
    /// [`ErrorKind::Layout`] for a selection outside the array; store and decode errors naming
    /// the chunk key ([`ErrorKind::Decode`] for a malformed `vlen-*` chunk or a string that is
    /// not UTF-8; [`ErrorKind::ChunkChanged`] if a chunk was rewritten between the passes of
    /// every try).
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
        let hooks = crate::read::vlen::Hooks {
            cancel: options.cancel,
            absent: options.extra.absent,
            limit: options.decoded_chunk_limit(),
        };
        crate::read::vlen::read(&self.store, &self.meta, &key, selection, hooks)
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

    /// Whether reading `selection` is small: from a store that is not remote, decoding at
    /// most [`SMALL_READ_BYTES`] of chunks (inner chunks, in a sharded array), counted at the
    /// longest chunk shape. Such a read takes a millisecond or so: it runs on the calling
    /// thread alone (a worker started for it would cost more than its share of the work), and
    /// a caller may run it without watching for Ctrl-C (the Python package does).
    ///
    /// # Errors
    /// [`ErrorKind::Layout`] for a selection outside the array.
    pub fn is_small_read(&self, selection: &Region) -> Result<bool, Error> {
        if self.store.read_ahead().is_some() {
            return Ok(false);
        }
        let layout = |e| Error::new(&self.path, None, ErrorKind::Layout(e));
        let innermost = &self.meta.chain.innermost().chunk_shape;
        let chunks = match self.meta.chain.levels().len() {
            // Inner chunks are one regular grid over the array (shard edges hold whole ones).
            1 => self
                .meta
                .grid
                .pieces(selection)
                .and_then(|p| p.chunk_count()),
            _ => zinto_core::ChunkGrid::new(self.shape(), innermost)
                .and_then(|g| g.pieces(selection)?.chunk_count()),
        }
        .map_err(layout)?;
        let bytes = zinto_core::product(innermost)
            .ok()
            .and_then(|n| n.checked_mul(self.meta.elem_size() as u64))
            .and_then(|n| n.checked_mul(chunks));
        Ok(bytes.is_some_and(|n| n <= SMALL_READ_BYTES))
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
        let read = match self.fetches.map(|f| f.piece(index, &key)) {
            Some(Ok(store)) => self.read_from(&*store, ctx, &key, piece, target),
            // The fetch stage met a chunk replaced between its requests: read from the store.
            None | Some(Err(StoreError::Changed { .. })) => {
                self.read_from(&self.array.store, ctx, &key, piece, target)
            }
            Some(Err(e)) => Err(ErrorKind::Store(e)),
        };
        match read {
            Ok(Found::Stored) => {}
            Ok(Found::Absent) => {
                if let Some(absent) = self.options.extra.absent {
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
