//! Reads of selections other than one hyper-rectangle (`zinto_core::selection`: lists of
//! indices in any order with repeats, masks, points): each chunk that holds a selected element
//! is read once, the box of it the selection needs put into the worker's scratch (at most one
//! chunk, an inner chunk of a shard), and only the selected elements gathered into place in
//! the caller's buffer.
//!
//! What a chunk is here is what decodes as one: the array's chunk, or in a sharded array the
//! inner chunk (its shard's index is read for it). An uncompressed chunk gives only the box
//! the selection touches (the store reads those byte ranges alone); a compressed one is
//! decoded whole straight into the scratch (decoding it is the cost anyway), never through a
//! second buffer. Workers write through [`OwnedOutput`], which checks every run against the
//! chunk that owns its elements. A selection that is a hyper-rectangle after all (lists that
//! are runs) is read as one, straight into the output.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use zinto_core::codec::{ArrayToBytes, BytesCodecs, IndexLocation};
use zinto_core::selection::{GatherRuns, Plan, SelPiece, Selection};
use zinto_core::{ChunkGrid, LayoutError, Piece, Region};

use super::chunk::{ChunkReader, Found, on_one_version};
use super::context::ReadContext;
use super::disjoint::{OwnedClaim, OwnedOutput};
use super::out::PieceOut;
use crate::Array;
use crate::error::{Error, ErrorKind};
use crate::options::ReadOptions;
use crate::store::{FetchOrder, FirstBytes, Opened, PieceSource, Store, StoreError};
use crate::workers::{Crew, Work};

impl<S: Store> Array<S> {
    /// Bytes of the output of `selection` (elements selected times the element size).
    ///
    /// # Errors
    /// [`ErrorKind::Layout`] for a selection of another array's shape, or one whose size
    /// overflows; [`ErrorKind::WrongType`] for a variable-length data type.
    pub fn selected_len(&self, selection: &Selection) -> Result<usize, Error> {
        let err = |kind| Error::new(&self.path, None, kind);
        self.check_selection(selection)?;
        let elem = self.meta.dtype.fixed_size().ok_or_else(|| {
            err(ErrorKind::WrongType {
                dtype: self.meta.dtype,
                read_as: "a buffer gathered from a selection (strings: one region at a time)",
            })
        })?;
        selection
            .len()
            .ok()
            .and_then(|n| n.checked_mul(elem as u64))
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| err(ErrorKind::Layout(LayoutError::Overflow)))
    }

    /// Reads `selection` (lists of indices, masks, points: see [`Selection`]) into `out`, a
    /// C-order array of the selection's output shape in native byte order, with default
    /// options; `out` must be [`Self::selected_len`] bytes.
    ///
    /// ```
    /// use zinto::{Array, FileStore};
    /// use zinto::core::selection::{AxisSel, Selection};
    ///
    /// # let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/data/temperature.zarr");
    /// let array = Array::open(FileStore::new(dir), "")?;
    /// // Rows 300, 5 and 300 again (any order, repeats), every second column of the first ten.
    /// let rows = AxisSel::from_signed(&[300, 5, -60], array.shape()[0], 0)?;
    /// let cols = AxisSel::from_signed(&[0, 2, 4, 6, 8], array.shape()[1], 1)?;
    /// let selection = Selection::orthogonal(vec![rows, cols], array.shape())?;
    /// let mut out = vec![0f32; 3 * 5];
    /// array.read_selection_into(&selection, bytemuck::cast_slice_mut(&mut out))?;
    /// assert_eq!(out[..5], out[10..]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Self::read_into`]; [`ErrorKind::WrongType`] for strings and bytes.
    pub fn read_selection_into(&self, selection: &Selection, out: &mut [u8]) -> Result<(), Error> {
        self.read_selection_into_with(selection, out, &ReadOptions::default())
    }

    /// [`Self::read_selection_into`] with options (threads, progress, cancel, absent chunks).
    ///
    /// # Errors
    /// As [`Self::read_selection_into`]; the first error stops the read, `out` then partly
    /// written.
    pub fn read_selection_into_with(
        &self,
        selection: &Selection,
        out: &mut [u8],
        options: &ReadOptions<'_>,
    ) -> Result<(), Error> {
        let err = |kind| Error::new(&self.path, None, kind);
        let expected = self.selected_len(selection)?;
        if out.len() != expected {
            return Err(err(ErrorKind::OutputSize {
                expected: expected as u64,
                got: out.len() as u64,
            }));
        }
        if let Some((region, _)) = selection.as_region() {
            return self.read_into_with(&region, out, options);
        }
        let units = Units::of(self).map_err(|e| err(ErrorKind::Layout(e)))?;
        let plan = Plan::new(selection, &units.grid).map_err(|e| err(ErrorKind::Layout(e)))?;
        let count = plan.count();
        if count == 0 {
            return Ok(());
        }
        let owners = plan.owners().map_err(|e| err(ErrorKind::Layout(e)))?;
        let out_shape = selection
            .output_shape()
            .map_err(|e| err(ErrorKind::Layout(e)))?;
        let elem = self.meta.elem_size();
        let shared = OwnedOutput::new(out, &out_shape, elem, owners).map_err(err)?;
        let fetches = match self.store.read_ahead() {
            Some(ahead) => Some(
                ahead
                    .begin(self.gather_order(&plan, &units, expected as u64)?)
                    .map_err(|e| err(ErrorKind::Store(e)))?,
            ),
            None => None,
        };
        let job = Gathers {
            array: self,
            plan: &plan,
            padded: selection
                .groups()
                .iter()
                .map(|g| g.output_len().unwrap_or(1))
                .collect(),
            units: &units,
            out: &shared,
            options,
            fetches: fetches.as_deref(),
            aborted: AtomicBool::new(false),
            done: AtomicU64::new(0),
        };
        let threads = usize::try_from(count)
            .unwrap_or(usize::MAX)
            .min(self.workers(options).get());
        let cancel = options.cancel.filter(|_| job.fetches.is_some());
        crate::workers::watch_cancel(cancel, &|| job.stop(), || job.run(threads))
    }

    /// The selection is of this array's shape.
    fn check_selection(&self, selection: &Selection) -> Result<(), Error> {
        let (a, b) = (self.shape(), selection.array_shape());
        if a == b {
            return Ok(());
        }
        let kind = match (0..a.len().min(b.len())).find(|&d| a[d] != b[d]) {
            Some(dim) => LayoutError::ShapeMismatch {
                dim,
                src: b[dim],
                dst: a[dim],
            },
            None => LayoutError::DimsMismatch {
                expected: a.len(),
                got: b.len(),
            },
        };
        Err(Error::new(&self.path, None, ErrorKind::Layout(kind)))
    }

    /// The keys the pieces of `plan` read, in order, for a store that reads ahead.
    fn gather_order(
        &self,
        plan: &Plan<'_>,
        units: &Units,
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
        for i in 0..plan.count() {
            let piece = plan.piece(i).ok_or_else(|| {
                let what = "a piece of the plan missing from its own count";
                Error::new(&self.path, None, ErrorKind::Internal { what })
            })?;
            let (stored, _) = units
                .stored(self, &piece)
                .map_err(|e| Error::new(&self.path, None, ErrorKind::Layout(e)))?;
            keys.push(self.chunk_key(&stored.chunk));
        }
        Ok(FetchOrder {
            keys,
            first,
            output_len,
        })
    }
}

/// Gathered runs at least this long on average are read from an uncompressed chunk straight
/// into the output, one read each; shorter ones through the chunk's box in scratch (a read a
/// run costs more than copying it).
pub const DIRECT_RUN_LEN: usize = 512;

/// What decodes as one: the array's chunks, or a sharded array's inner chunks; and how a
/// unit's part is read.
struct Units {
    /// The grid of units over the array.
    grid: ChunkGrid,
    /// Units are inner chunks of shards.
    inner: bool,
    /// Units are read whole into scratch: compressed (or filtered, or checksummed: the box
    /// would cost as much to decode), or laid out in another order than C.
    whole: bool,
    /// Units are uncompressed chunks of C order in a local store: runs may be read from them
    /// straight into the output.
    direct: bool,
}

impl Units {
    fn of<S: Store>(array: &Array<S>) -> Result<Self, LayoutError> {
        let chain = &array.meta.chain;
        let innermost = chain.innermost();
        let plain =
            innermost.bytes_codecs == BytesCodecs::default() && innermost.filters.is_empty();
        let whole = !plain || !innermost.order.is_c();
        if chain.levels().len() == 1 {
            return Ok(Self {
                grid: array.meta.grid.clone(),
                inner: false,
                whole,
                direct: !whole && array.store.read_ahead().is_none(),
            });
        }
        // Shard edges hold whole inner chunks (checked when the metadata was read), so the
        // inner chunks are one regular grid over the array.
        Ok(Self {
            grid: ChunkGrid::new(array.shape(), &innermost.chunk_shape)?,
            inner: true,
            whole,
            direct: false,
        })
    }

    /// The stored chunk piece `p` reads and what of it, and the box the gather takes from
    /// (in the unit's coordinates): for a unit read whole, all of it; else the rows of it
    /// (along the first axis) the piece needs, whole, so that they are one range of its bytes
    /// read straight into the scratch.
    fn stored<S: Store>(
        &self,
        array: &Array<S>,
        p: &SelPiece,
    ) -> Result<(Piece, Region), LayoutError> {
        let unit = self.grid.chunk_region(&p.chunk)?;
        // The unit as stored: an edge chunk keeps its full shape.
        let full = self.grid.chunk_shape_at(&p.chunk)?;
        let boxed = match (self.whole, p.in_chunk.start().first(), full.split_first()) {
            (false, Some(&first), Some((_, rest))) => {
                let mut start = vec![first];
                start.extend(rest.iter().map(|_| 0));
                let mut shape = vec![p.in_chunk.shape().first().copied().unwrap_or(0)];
                shape.extend_from_slice(rest);
                Region::new(&start, &shape)?
            }
            _ => Region::whole(&full)?,
        };
        let (chunk, base) = if self.inner {
            // The shard holding the inner chunk, and where the inner chunk starts in it.
            let grid = &array.meta.grid;
            let mut shard = zinto_core::Dims::new();
            for (axis, &x) in grid.axes().iter().zip(unit.start()) {
                shard
                    .push(axis.chunk_of(x).ok_or(LayoutError::Overflow)?)
                    .map_err(|_| LayoutError::Overflow)?;
            }
            let origin = grid.chunk_region(&shard)?;
            let base: Vec<u64> = unit
                .start()
                .iter()
                .zip(origin.start())
                .map(|(x, o)| x - o)
                .collect();
            (shard, base)
        } else {
            (p.chunk.clone(), vec![0; unit.ndim()])
        };
        let start: Vec<u64> = base
            .iter()
            .zip(boxed.start())
            .map(|(b, s)| b.checked_add(*s).ok_or(LayoutError::Overflow))
            .collect::<Result<_, _>>()?;
        let piece = Piece {
            chunk,
            in_chunk: Region::new(&start, boxed.shape())?,
            in_output: Region::whole(boxed.shape())?,
        };
        Ok((piece, boxed))
    }
}

/// One read of a selection: the job its workers run, piece by piece.
struct Gathers<'a, S> {
    array: &'a Array<S>,
    plan: &'a Plan<'a>,
    /// The output's shape in the array's dimensions (a dropped axis of extent 1), for pieces
    /// read straight in.
    padded: Vec<u64>,
    units: &'a Units,
    out: &'a OwnedOutput<'a>,
    options: &'a ReadOptions<'a>,
    fetches: Option<&'a dyn PieceSource>,
    /// Whether the fetches were stopped (a piece failed, or the read was cancelled).
    aborted: AtomicBool,
    done: AtomicU64,
}

/// A worker's buffers: the read path's, and the box the selection's elements are taken from.
struct Worker {
    ctx: ReadContext,
    scratch: Vec<u8>,
}

impl<S: Store> Gathers<'_, S> {
    /// Runs every piece on up to `threads` workers.
    fn run(&self, threads: usize) -> Result<(), Error> {
        let path = &self.array.path;
        let next = AtomicU64::new(0);
        let crew = Crew {
            threads,
            // Checked piece by piece (a remote read's fetches stop with it).
            cancel: None,
            progress: None,
            total: self.plan.count(),
            path: Some(path),
        };
        crew.run(&Work {
            new_worker: || {
                let ctx = self.array.contexts.take().map_or_else(ReadContext::new, Ok);
                let ctx = ctx.map_err(|kind| Error::new(path, None, kind))?;
                Ok(Worker {
                    ctx,
                    scratch: Vec::new(),
                })
            },
            next: || {
                let i = next.fetch_add(1, Ordering::Relaxed);
                (i < self.plan.count()).then_some(Ok(i))
            },
            run: |w: &mut Worker, i: u64| self.piece(w, i),
            retire: |w: Worker| self.array.contexts.give(w.ctx),
        })
    }

    /// Stops the fetches: the read failed or was cancelled.
    fn stop(&self) {
        self.aborted.store(true, Ordering::Relaxed);
        if let Some(f) = self.fetches {
            f.abort();
        }
    }

    /// Reads piece `index` and gathers its elements.
    fn piece(&self, w: &mut Worker, index: u64) -> Result<(), Error> {
        let path = &self.array.path;
        if self
            .options
            .cancel
            .is_some_and(|c| c.load(Ordering::Relaxed))
        {
            self.stop();
            return Err(Error::new(path, None, ErrorKind::Cancelled));
        }
        let layout = |e| Error::new(path, None, ErrorKind::Layout(e));
        let mut piece = self.plan.piece(index).ok_or_else(|| {
            let what = "a piece of the plan missing from its own count";
            Error::new(path, None, ErrorKind::Internal { what })
        })?;
        let (stored, boxed) = self.units.stored(self.array, &piece).map_err(layout)?;
        let key = self.array.chunk_key(&stored.chunk);
        if let Some(out_box) = self.plan.output_box(&piece) {
            let found = self
                .straight(w, index, (&key, &stored, &boxed), (&piece, out_box))
                .map_err(|kind| self.failed(&key, kind))?;
            return self.done(&stored, found);
        }
        if self.units.direct
            && let Some(found) = self
                .direct(&key, &piece)
                .map_err(|kind| self.failed(&key, kind))?
        {
            return self.done(&stored, found);
        }
        let found = self
            .fill_box(w, index, (&key, &stored))
            .map_err(|kind| self.failed(&key, kind))?;
        piece.in_chunk = boxed;
        self.gather(&w.scratch, &piece)
            .map_err(|kind| Error::new(path, Some(&key), kind))?;
        self.done(&stored, found)
    }

    /// Reads `piece`, whose part of the output is the hyper-rectangle `out_box` (see
    /// `Plan::output_box`), straight into the output as a region's piece is read: no scratch.
    fn straight(
        &self,
        w: &mut Worker,
        index: u64,
        (key, stored, boxed): (&str, &Piece, &Region),
        (piece, out_box): (&SelPiece, Region),
    ) -> Result<Found, ErrorKind> {
        // The piece's own box in the stored chunk: `stored` starts at the unit's box, which
        // may start before the piece's (rows read whole).
        let start: Vec<u64> = stored
            .in_chunk
            .start()
            .iter()
            .zip(boxed.start())
            .zip(piece.in_chunk.start())
            .map(|((s, b), p)| s - b + p)
            .collect();
        let within = Piece {
            chunk: stored.chunk.clone(),
            in_chunk: Region::new(&start, piece.in_chunk.shape()).map_err(ErrorKind::Layout)?,
            in_output: out_box,
        };
        let mut target = PieceOut::Owned(self.out.claim(&self.output_owners(piece))?);
        let mut reader = |store: &dyn Store, ctx: &mut ReadContext| {
            ChunkReader {
                store,
                meta: &self.array.meta,
                out_shape: &self.padded,
            }
            .read_piece(ctx, key, &within, &mut target)
        };
        match self.fetches.map(|f| f.piece(index, key)) {
            Some(Ok(store)) => reader(&*store, &mut w.ctx),
            // The fetch stage met a chunk replaced between its requests: read from the store.
            None | Some(Err(StoreError::Changed { .. })) => reader(&self.array.store, &mut w.ctx),
            Some(Err(e)) => Err(ErrorKind::Store(e)),
        }
    }

    /// Reports a piece done (and its chunk absent, if it was).
    fn done(&self, stored: &Piece, found: Found) -> Result<(), Error> {
        if found == Found::Absent
            && let Some(absent) = self.options.extra.absent
        {
            absent(&stored.chunk);
        }
        let n = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(progress) = self.options.progress {
            progress(n, self.plan.count());
        }
        Ok(())
    }

    /// Reads `piece`'s runs from the uncompressed chunk at `key` straight into the output,
    /// one read each, if they are long enough on average ([`DIRECT_RUN_LEN`]); `None` (having
    /// read nothing) if not. An absent chunk's runs are the fill value.
    fn direct(&self, key: &str, piece: &SelPiece) -> Result<Option<Found>, ErrorKind> {
        let meta = &self.array.meta;
        let elem = meta.elem_size();
        let mut whole = piece.clone();
        whole.in_chunk = Region::whole(
            &self
                .units
                .grid
                .chunk_shape_at(&piece.chunk)
                .map_err(ErrorKind::Layout)?,
        )
        .map_err(ErrorKind::Layout)?;
        let runs = GatherRuns::new(self.plan, &whole, elem).map_err(ErrorKind::Layout)?;
        let (count, bytes) = runs.clone().fold((0usize, 0usize), |(n, b), r| {
            (n + 1, b.saturating_add(r.len))
        });
        if count == 0 || bytes / count < DIRECT_RUN_LEN {
            return Ok(None);
        }
        let endian = match meta.chain.outer().array_to_bytes {
            ArrayToBytes::Bytes(e) => e.filter(|&e| e != zinto_core::codec::Endian::NATIVE),
            ArrayToBytes::Sharding(_) => None,
        };
        let mut claim = self.out.claim(&self.output_owners(piece))?;
        // Every run from one version of the chunk (see `ChunkReader::read_piece`).
        let store = &self.array.store;
        let opened = store.open(key).map_err(ErrorKind::Store)?;
        let (found, _) = on_one_version((store, key), opened, |opened| {
            let from: Option<&dyn Store> = match opened {
                Opened::Absent => None,
                Opened::Unpinned { .. } => Some(&self.array.store),
                Opened::Pinned { object, .. } => Some(&**object),
            };
            for run in runs.clone() {
                let dst = claim.run_mut(run.dst, run.len)?;
                match from {
                    Some(from) => {
                        from.read_into(key, run.src as u64, dst)
                            .map_err(ErrorKind::Store)?;
                        if let Some(e) = endian {
                            let size = meta.dtype.scalar_size();
                            zinto_core::codec::to_native_in_place(dst, size, e);
                        }
                    }
                    None => fill(dst, meta.fill_value.as_bytes()),
                }
            }
            Ok(match from {
                Some(_) => Found::Stored,
                None => Found::Absent,
            })
        })?;
        Ok(Some(found))
    }

    /// The piece's owner along each output axis: its claim on the output.
    fn output_owners(&self, piece: &SelPiece) -> Vec<u64> {
        piece
            .owners
            .iter()
            .zip(self.plan.selection().groups())
            .filter(|(_, g)| g.output_len().is_some())
            .map(|(&o, _)| o)
            .collect()
    }

    /// The error of a piece that failed: a cancellation once the fetches were stopped (the
    /// read's own error is the one that stopped them), else `kind`, stopping the rest.
    fn failed(&self, key: &str, kind: ErrorKind) -> Error {
        let kind = if self.fetches.is_some() && self.aborted.load(Ordering::Relaxed) {
            ErrorKind::Cancelled
        } else {
            self.stop();
            kind
        };
        Error::new(&self.array.path, Some(key), kind)
    }

    /// Reads the box `stored` names of the chunk at `key` into the worker's scratch.
    fn fill_box(
        &self,
        w: &mut Worker,
        index: u64,
        (key, stored): (&str, &Piece),
    ) -> Result<Found, ErrorKind> {
        let shape = stored.in_output.shape();
        let len = zinto_core::product(shape)
            .ok()
            .and_then(|n| n.checked_mul(self.array.meta.elem_size() as u64))
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| ErrorKind::Layout(LayoutError::Overflow))?;
        w.scratch.clear();
        w.scratch
            .try_reserve_exact(len)
            .map_err(|_| ErrorKind::OutOfMemory { bytes: len as u64 })?;
        w.scratch.resize(len, 0);
        let mut target = PieceOut::Span {
            base: 0,
            slice: &mut w.scratch,
        };
        let mut read = |store: &dyn Store, ctx: &mut ReadContext| {
            let reader = ChunkReader {
                store,
                meta: &self.array.meta,
                out_shape: shape,
            };
            reader.read_piece(ctx, key, stored, &mut target)
        };
        match self.fetches {
            Some(fetches) => {
                let store = fetches.piece(index, key).map_err(ErrorKind::Store)?;
                read(&*store, &mut w.ctx)
            }
            None => read(&self.array.store, &mut w.ctx),
        }
    }

    /// Copies `piece`'s elements out of `scratch` (its box) into their places.
    fn gather(&self, scratch: &[u8], piece: &SelPiece) -> Result<(), ErrorKind> {
        let elem = self.array.meta.elem_size();
        let mut claim: OwnedClaim<'_, '_> = self.out.claim(&self.output_owners(piece))?;
        let runs = GatherRuns::new(self.plan, piece, elem).map_err(ErrorKind::Layout)?;
        for run in runs {
            let src = run
                .src
                .checked_add(run.len)
                .and_then(|end| scratch.get(run.src..end))
                .ok_or_else(|| ErrorKind::Internal {
                    what: "a gathered run outside its chunk's box",
                })?;
            claim.run_mut(run.dst, run.len)?.copy_from_slice(src);
        }
        Ok(())
    }
}

/// Fills `dst` with copies of the element `value`.
fn fill(dst: &mut [u8], value: &[u8]) {
    match value.split_first() {
        Some((&b, rest)) if rest.iter().all(|&x| x == b) => dst.fill(b),
        _ => dst
            .chunks_exact_mut(value.len().max(1))
            .for_each(|e| e.copy_from_slice(value)),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::cast_possible_truncation)] // test values are small
mod tests {
    //! Gathered reads on several threads through the owned output; run under Miri too (the
    //! CI step's filter takes tests named `disjoint`).

    use std::num::NonZeroUsize;

    use zinto_core::selection::{AxisSel, Group, Points, Selection};

    use crate::{Array, MemoryStore, ReadOptions};

    /// A 6 x 8 uint8 array whose element (r, c) is 10 * r + c, in chunks of 2 x 3, stored as
    /// `codecs` says.
    fn store(codecs: &str) -> MemoryStore {
        let mut s = MemoryStore::new();
        let meta = format!(
            r#"{{"zarr_format": 3, "node_type": "array", "shape": [6, 8], "data_type": "uint8",
            "chunk_grid": {{"name": "regular", "configuration": {{"chunk_shape": [2, 3]}}}},
            "chunk_key_encoding": {{"name": "default"}}, "fill_value": 0, "codecs": {codecs}}}"#
        );
        s.insert("a/zarr.json", meta.into_bytes());
        for cr in 0..3u64 {
            for cc in 0..3u64 {
                let bytes: Vec<u8> = (0..2u64)
                    .flat_map(|r| (0..3u64).map(move |c| (cr * 2 + r, cc * 3 + c)))
                    .map(|(r, c)| if c < 8 { (10 * r + c) as u8 } else { 0 })
                    .collect();
                s.insert(format!("a/c/{cr}/{cc}"), bytes);
            }
        }
        s
    }

    fn read(s: &MemoryStore, sel: &Selection) -> Vec<u8> {
        let array = Array::open(s, "a").unwrap();
        let mut out = vec![0u8; array.selected_len(sel).unwrap()];
        let options = ReadOptions {
            threads: NonZeroUsize::new(3),
            ..ReadOptions::default()
        };
        array
            .read_selection_into_with(sel, &mut out, &options)
            .unwrap();
        out
    }

    #[test]
    fn disjoint_owned_output_gathers_lists_and_points_on_threads() {
        let s = store(r#"[{"name": "bytes"}]"#);
        let shape = [6, 8];
        // Rows and columns in any order with repeats: pieces gathered, runs read straight
        // out of the uncompressed chunks, and rectangles (one row of a chunk).
        let rows = vec![5, 0, 3, 3];
        let cols = vec![7, 1, 2, 6];
        let sel = Selection::orthogonal(
            vec![AxisSel::List(rows.clone()), AxisSel::List(cols.clone())],
            &shape,
        )
        .unwrap();
        let want: Vec<u8> = rows
            .iter()
            .flat_map(|&r| cols.iter().map(move |&c| (10 * r + c) as u8))
            .collect();
        assert_eq!(read(&s, &sel), want);
        let band = Selection::orthogonal(
            vec![
                AxisSel::List(vec![4, 1]),
                AxisSel::Range { start: 2, stop: 7 },
            ],
            &shape,
        )
        .unwrap();
        let want: Vec<u8> = [4u8, 1]
            .iter()
            .flat_map(|&r| (2..7u8).map(move |c| 10 * r + c))
            .collect();
        assert_eq!(read(&s, &band), want);
        let points = Points::from_signed(&[0, 1], &[&[5, 0, 2], &[7, 1, 3]], &shape).unwrap();
        let sel = Selection::new(vec![Group::Points(points)], &shape).unwrap();
        assert_eq!(read(&s, &sel), [57, 1, 23]);
    }
}
