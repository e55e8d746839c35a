//! One shard written in one pass: its inner chunks encoded in the order the write asks
//! ([`WriteOptions::inner_chunk_order`](super::WriteOptions): C order, or Morton order as
//! zarr-python 3.4 lays them) into the shard's object, each as soon as the one before it is
//! out, then the index (with its
//! CRC-32C, if its codecs say) at the end; or, for an index at the start, room for it first
//! and the index written there last ([`ObjectWriter::reserve`]). Inner chunks of fill value, and those past the
//! array's edge, are not stored (their index entry is empty); a shard with none stored is not
//! written, and an old one there is removed.
//!
//! A shard the region holds whole is encoded from the caller's slice. A shard the region cuts
//! is read as it stands (the read path, the shard's part inside the array) into one shard of
//! scratch per worker, the region's part copied over it, and encoded from there. A stored
//! shard past the array's edge is read whole, the cells past the shape included, and encoded
//! whole: those cells (kept when the array shrank) stay, as zarr-python keeps them, and show
//! again when the array grows.

use zinto_core::codec::{CRC32C, IndexLocation, ShardLayout, checksum};
use zinto_core::{Piece, Region, Runs};

use super::chunk::{Worker, is_fill, lay_fill, one_worker, overlay, stream_kind};
use super::{ChunkPart, WriteJob, WritePlan};
use crate::error::{Error, ErrorKind};
use crate::store::{ObjectWriter, Store};
use crate::{Array, buffer};

/// Where a shard's values are: a C-order buffer of `shape`, the shard's first element at
/// `origin` in it; `inside`, the extent of the shard's part inside the array (less than what
/// the source holds for a shard read whole past the array's edge).
struct Source<'s> {
    bytes: &'s [u8],
    shape: &'s [u64],
    origin: Vec<u64>,
    inside: &'s [u64],
}

impl Source<'_> {
    /// Whether `part` (in shard coordinates) lies wholly past the array's edge.
    fn past_edge(&self, part: &Region) -> bool {
        part.start().iter().zip(self.inside).any(|(s, n)| s >= n)
    }
}

/// A shard's index as its inner chunks are written: an entry per inner chunk in C order of
/// their coordinates (each empty until its chunk is written, in any order), offsets counted
/// from the shard's first byte (after `head` bytes of room for an index at the start).
struct IndexOut {
    /// Bytes of room for an index at the start (0 for an index at the end).
    head: usize,
    index: Vec<u8>,
    /// Where the next inner chunk goes in the shard.
    at: u64,
}

impl IndexOut {
    fn new(layout: &ShardLayout) -> Result<Self, ErrorKind> {
        let count = usize::try_from(layout.grid().num_chunks())
            .map_err(|_| internal("an index larger than memory"))?;
        let mut index: Vec<u8> = Vec::new();
        index
            .try_reserve_exact(count.saturating_mul(16).saturating_add(4))
            .map_err(|_| ErrorKind::OutOfMemory {
                bytes: count as u64 * 16,
            })?;
        // Every entry empty (offset and length all ones) until its chunk is written.
        index.resize(count.saturating_mul(16), 0xff);
        let head = match layout.location() {
            IndexLocation::Start => usize::try_from(layout.index_len())
                .map_err(|_| internal("an index larger than memory"))?,
            IndexLocation::End => 0,
        };
        Ok(Self {
            head,
            index,
            at: head as u64,
        })
    }

    /// The entry of inner chunk `i` (its C-order index): `stored` bytes just written after
    /// the chunk before, or `None` for an inner chunk not stored (its entry stays empty).
    fn entry(&mut self, i: u64, stored: Option<u64>) -> Result<(), ErrorKind> {
        let Some(len) = stored else {
            return Ok(());
        };
        let slot = usize::try_from(i)
            .ok()
            .and_then(|i| i.checked_mul(16))
            .and_then(|at| self.index.get_mut(at..at.checked_add(16)?))
            .ok_or_else(|| internal("an inner chunk past its shard's index"))?;
        slot[..8].copy_from_slice(&self.at.to_le_bytes());
        slot[8..].copy_from_slice(&len.to_le_bytes());
        self.at = self
            .at
            .checked_add(len)
            .ok_or_else(|| ErrorKind::Layout(zinto_core::LayoutError::Overflow))?;
        Ok(())
    }

    /// The index as stored, its CRC-32C after it if `layout` says.
    fn finish(mut self, layout: &ShardLayout) -> Vec<u8> {
        if layout.index_crc32c() {
            let crc = checksum(&CRC32C, &self.index).to_le_bytes();
            self.index.extend_from_slice(&crc);
        }
        self.index
    }
}

/// A shard's object being written, and its index: the object opened on the first inner chunk
/// stored (with room for an index at its start), an entry per inner chunk as it is written,
/// then the index (with its CRC-32C, if its codecs say) written and the object
/// committed; or, with nothing stored, the shard removed.
pub(super) struct ShardOut<'w> {
    writer: Option<Box<dyn ObjectWriter + 'w>>,
    index: IndexOut,
}

impl<'w> ShardOut<'w> {
    pub(super) fn new(layout: &ShardLayout) -> Result<Self, ErrorKind> {
        Ok(Self {
            writer: None,
            index: IndexOut::new(layout)?,
        })
    }

    /// The shard's object, opened (with room for an index at its start) on the first call.
    pub(super) fn writer<S: Store>(
        &mut self,
        store: &'w S,
        key: &str,
    ) -> Result<&mut (dyn ObjectWriter + 'w), ErrorKind> {
        if self.writer.is_none() {
            let mut w = store.writer(key).map_err(ErrorKind::Store)?;
            let head = self.index.head;
            if head > 0 && w.reserve(head).map_err(ErrorKind::Store)? != 0 {
                return Err(internal("a shard's index reserved past its start"));
            }
            self.writer = Some(w);
        }
        self.writer
            .as_deref_mut()
            .ok_or_else(|| internal("a shard without its writer"))
    }

    /// Inner chunk `i`'s entry (see [`IndexOut::entry`]).
    pub(super) fn entry(&mut self, i: u64, stored: Option<u64>) -> Result<(), ErrorKind> {
        self.index.entry(i, stored)
    }

    /// The index written and the object committed; with no inner chunk stored, the shard
    /// `key` removed, or with `keep_empty` (a conditional update, which cannot delete on its
    /// condition) stored as an index of empty entries.
    pub(super) fn finish<S: Store>(
        mut self,
        (store, key, keep_empty): (&'w S, &str, bool),
        layout: &ShardLayout,
    ) -> Result<(), ErrorKind> {
        if self.writer.is_none() {
            if !keep_empty {
                return store.delete(key).map_err(ErrorKind::Store);
            }
            self.writer(store, key)?;
        }
        let Some(mut w) = self.writer else {
            return Err(internal("a shard without its writer"));
        };
        let index = self.index.finish(layout);
        match layout.location() {
            IndexLocation::Start => w.fill(0, &index),
            IndexLocation::End => w.write(&index),
        }
        .map_err(ErrorKind::Store)?;
        w.commit().map_err(ErrorKind::Store)
    }
}

/// Where a shard's inner chunks (or, nested, shards) go: the object, opened when the first is
/// stored, and the shard's index.
trait ShardSink<'w> {
    /// The object the next inner chunk is written into, opened on first use with room for
    /// every enclosing index at its start.
    fn writer(&mut self) -> Result<&mut (dyn ObjectWriter + 'w), ErrorKind>;

    /// The entry of inner chunk `i` (C-order index), just written (`stored` bytes) or not
    /// stored (`None`).
    fn entry(&mut self, i: u64, stored: Option<u64>) -> Result<(), ErrorKind>;
}

/// The outermost shard: its own object, under `key`.
struct TopShard<'a, 'w, S> {
    out: &'a mut ShardOut<'w>,
    store: &'w S,
    key: &'a str,
}

impl<'w, S: Store> ShardSink<'w> for TopShard<'_, 'w, S> {
    fn writer(&mut self) -> Result<&mut (dyn ObjectWriter + 'w), ErrorKind> {
        self.out.writer(self.store, self.key)
    }

    fn entry(&mut self, i: u64, stored: Option<u64>) -> Result<(), ErrorKind> {
        self.out.entry(i, stored)
    }
}

/// A shard inside a shard: written into the enclosing shard's object where its next inner
/// chunk goes, its own index at its end (or reserved at its start and filled last), its
/// offsets counted from its own first byte.
struct NestedShard<'a, 'w> {
    parent: &'a mut dyn ShardSink<'w>,
    index: IndexOut,
    /// Whether its first inner chunk was stored (and room for an index at its start made).
    begun: bool,
    /// Where the room for an index at its start is in the object.
    index_at: Option<u64>,
}

impl<'a, 'w> NestedShard<'a, 'w> {
    fn new(parent: &'a mut dyn ShardSink<'w>, layout: &ShardLayout) -> Result<Self, ErrorKind> {
        Ok(Self {
            parent,
            index: IndexOut::new(layout)?,
            begun: false,
            index_at: None,
        })
    }

    /// Its index written: the bytes it stored, or `None` if none of its inner chunks was.
    fn finish(self, layout: &ShardLayout) -> Result<Option<u64>, ErrorKind> {
        if !self.begun {
            return Ok(None);
        }
        let len_before_index = self.index.at;
        let index = self.index.finish(layout);
        let w = self.parent.writer()?;
        let len = match (layout.location(), self.index_at) {
            (IndexLocation::Start, Some(at)) => {
                w.fill(at, &index).map_err(ErrorKind::Store)?;
                len_before_index
            }
            (IndexLocation::Start, None) => {
                return Err(internal("a nested shard's index without its room"));
            }
            (IndexLocation::End, _) => {
                w.write(&index).map_err(ErrorKind::Store)?;
                len_before_index
                    .checked_add(index.len() as u64)
                    .ok_or_else(|| ErrorKind::Layout(zinto_core::LayoutError::Overflow))?
            }
        };
        Ok(Some(len))
    }
}

impl<'w> ShardSink<'w> for NestedShard<'_, 'w> {
    fn writer(&mut self) -> Result<&mut (dyn ObjectWriter + 'w), ErrorKind> {
        if !self.begun {
            let head = self.index.head;
            let w = self.parent.writer()?;
            if head > 0 {
                self.index_at = Some(w.reserve(head).map_err(ErrorKind::Store)?);
            }
            self.begun = true;
        }
        self.parent.writer()
    }

    fn entry(&mut self, i: u64, stored: Option<u64>) -> Result<(), ErrorKind> {
        self.index.entry(i, stored)
    }
}

pub(super) fn internal(what: &'static str) -> ErrorKind {
    ErrorKind::Internal { what }
}

impl Worker {
    /// Writes the shard of `piece` under `key`.
    pub(crate) fn write_shard<S: Store>(
        &mut self,
        job: &WriteJob<'_, S>,
        piece: &Piece,
        layout: &ShardLayout,
        key: &str,
    ) -> Result<(), ErrorKind> {
        let grid = &job.array.metadata().grid;
        let ChunkPart {
            in_array,
            cut,
            shape,
        } = ChunkPart::of(grid, piece)?;
        // On a rectilinear grid, this shard's own inner grid and index.
        let layout = &layout.for_shard(&shape).map_err(ErrorKind::Layout)?;
        let at_edge = in_array.shape() != shape.as_slice();
        if at_edge
            && job
                .array
                .store()
                .size(key)
                .map_err(ErrorKind::Store)?
                .is_some()
        {
            let unclipped = job.array.unclipped().map_err(Error::into_kind)?;
            let whole = (unclipped.metadata().grid)
                .chunk_region(&piece.chunk)
                .map_err(ErrorKind::Layout)?;
            return self.cut_shard(job, piece, (layout, &unclipped, &whole), key);
        }
        if !cut {
            let origin = piece.in_output.start().to_vec();
            let source = Source {
                bytes: job.input,
                shape: job.region.shape(),
                origin,
                inside: in_array.shape(),
            };
            return self.encode_shard(job, layout, in_array.shape(), &source, (key, false));
        }
        self.cut_shard(job, piece, (layout, job.array, &in_array), key)
    }

    /// A shard the region cuts (or one past the array's edge): the shard as it stands (its
    /// part `in_array` of `array`), the region's part over it, encoded.
    fn cut_shard<S: Store, R: Store>(
        &mut self,
        job: &WriteJob<'_, S>,
        piece: &Piece,
        shard: (&ShardLayout, &Array<R>, &Region),
        key: &str,
    ) -> Result<(), ErrorKind> {
        // Guarded from the read of the old shard to its replacement (see `Worker::cut`).
        let mut scratch = std::mem::take(&mut self.shard_scratch);
        let result = super::update(job.array, (key, true, job.options.cancel), |lock| {
            let to = (key, lock.is_conditional());
            self.cut_shard_in(job, piece, shard, &mut scratch, to)
        });
        self.shard_scratch = scratch;
        result
    }

    fn cut_shard_in<S: Store, R: Store>(
        &mut self,
        job: &WriteJob<'_, S>,
        piece: &Piece,
        (layout, array, in_array): (&ShardLayout, &Array<R>, &Region),
        scratch: &mut Vec<u8>,
        (key, keep_empty): (&str, bool),
    ) -> Result<(), ErrorKind> {
        let len = array.selection_len(in_array).map_err(Error::into_kind)?;
        if scratch.len() != len {
            *scratch = buffer::zeroed_buffer(len)
                .ok_or_else(|| ErrorKind::OutOfMemory { bytes: len as u64 })?;
        }
        array
            .read_into_with(in_array, scratch, &one_worker())
            .map_err(Error::into_kind)?;
        let order = zinto_core::MemoryOrder::c(in_array.ndim()).map_err(ErrorKind::Layout)?;
        let runs = Runs::new(
            job.plan.elem,
            in_array.shape(),
            &order,
            &piece.in_chunk,
            job.region.shape(),
            &piece.in_output,
        )
        .map_err(ErrorKind::Layout)?;
        overlay(runs, job.input, scratch)?;
        let inside = ChunkPart::of(&job.array.metadata().grid, piece)?.in_array;
        let source = Source {
            bytes: scratch,
            shape: in_array.shape(),
            origin: vec![0; in_array.ndim()],
            inside: inside.shape(),
        };
        self.encode_shard(job, layout, in_array.shape(), &source, (key, keep_empty))
    }

    /// Encodes the inner chunks of a shard whose part inside the array has `extent`, from
    /// `source`, into the object `key` (opened at the first chunk stored; with none, the shard
    /// deleted, or stored empty with `keep_empty`).
    fn encode_shard<S: Store>(
        &mut self,
        job: &WriteJob<'_, S>,
        layout: &ShardLayout,
        extent: &[u64],
        source: &Source<'_>,
        (key, keep_empty): (&str, bool),
    ) -> Result<(), ErrorKind> {
        let mut out = ShardOut::new(layout)?;
        let store = job.array.store();
        let mut top = TopShard {
            out: &mut out,
            store,
            key,
        };
        let origin = vec![0; extent.len()];
        self.encode_children(job, (0, layout), (&origin, extent), source, &mut top)?;
        out.finish((store, key, keep_empty), layout)
    }

    /// Encodes the children of a shard at `depth` in the plan's shards, laid out as `layout`
    /// (inner chunks, or shards while shards are nested deeper), each followed by its entry in
    /// `sink`. The shard's part inside the array starts at `origin` (in the outermost shard's
    /// coordinates) and has `extent`.
    fn encode_children<'w, S: Store>(
        &mut self,
        job: &WriteJob<'_, S>,
        (depth, layout): (usize, &ShardLayout),
        (origin, extent): (&[u64], &[u64]),
        source: &Source<'_>,
        sink: &mut dyn ShardSink<'w>,
    ) -> Result<(), ErrorKind> {
        let shards = &job.plan.shards;
        let grid = layout.grid();
        let walk = (job.options.extra.inner_chunk_order)
            .walk(grid.grid_shape())
            .map_err(ErrorKind::Layout)?;
        for i in walk {
            let coords = grid.chunk_coords(i).map_err(ErrorKind::Layout)?;
            let Some(part) = inner_box(&coords, grid.chunk_shape(), extent)? else {
                continue;
            };
            let part = shifted(&part, origin)?;
            let stored = match shards.get(depth + 1) {
                Some(nested) => {
                    let mut shard = NestedShard::new(&mut *sink, nested)?;
                    self.encode_children(
                        job,
                        (depth + 1, nested),
                        (part.start(), part.shape()),
                        source,
                        &mut shard,
                    )?;
                    shard.finish(nested)?
                }
                None => self.encode_inner(job, source, &part, &mut *sink)?,
            };
            sink.entry(i, stored)?;
        }
        Ok(())
    }

    /// Encodes one inner chunk (its part inside the array: `part`, in shard coordinates) into
    /// the shard's object; the bytes it stored, or `None` for a chunk of fill value.
    fn encode_inner<'w, S: Store>(
        &mut self,
        job: &WriteJob<'_, S>,
        source: &Source<'_>,
        part: &Region,
        sink: &mut dyn ShardSink<'w>,
    ) -> Result<Option<u64>, ErrorKind> {
        let plan = job.plan;
        let runs = inner_runs(plan, source, part)?;
        let run_bytes = |r: &zinto_core::Run| {
            source
                .bytes
                .get(r.dst..r.dst + r.len)
                .ok_or_else(|| internal("a run outside the shard's source"))
        };
        let direct = part.shape() == plan.chunk_shape.as_slice() && plan.order.is_c();
        let mut scratch = std::mem::take(&mut self.scratch);
        // An inner chunk wholly past the array's edge (of a shard read whole to keep the cells
        // there) is stored only if it holds more than fill, whatever `write_empty_chunks` says:
        // zarr-python writes no inner chunk the selection does not touch.
        let mut empty = !job.options.extra.write_empty_chunks || source.past_edge(part);
        if direct {
            for r in runs.clone() {
                empty = empty && is_fill(run_bytes(&r)?, &plan.fill);
            }
        } else {
            lay_out(plan, runs.clone(), &run_bytes, &mut scratch)?;
            empty = empty && is_fill(&scratch, &plan.fill);
        }
        let result = match empty {
            true => Ok(None),
            false => self.store_inner(plan, sink, |stream| match direct {
                true => runs
                    .map(|r| run_bytes(&r))
                    .try_for_each(|b| stream.push(b?).map_err(stream_kind)),
                false => stream.push(&scratch).map_err(stream_kind),
            }),
        };
        self.scratch = scratch;
        result
    }

    /// Streams one inner chunk (`push` gives its bytes) into the shard's object, opened (with
    /// room for an index at its start) on the first one; the stored bytes.
    fn store_inner<'w>(
        &mut self,
        plan: &WritePlan,
        sink: &mut dyn ShardSink<'w>,
        push: impl FnOnce(&mut super::stream::ChunkStream<'_>) -> Result<(), ErrorKind>,
    ) -> Result<Option<u64>, ErrorKind> {
        let w = sink.writer()?;
        let mut stream = self.stream(plan, w)?;
        push(&mut stream)?;
        stream.finish().map_err(stream_kind).map(Some)
    }
}

/// The part of the inner chunk at `coords` (of `inner` shape) inside the array, in shard
/// coordinates, for a shard whose part inside the array has `extent`; `None` if it lies
/// wholly past the array's edge.
pub(super) fn inner_box(
    coords: &[u64],
    inner: &[u64],
    extent: &[u64],
) -> Result<Option<Region>, ErrorKind> {
    let mut start = Vec::with_capacity(coords.len());
    let mut shape = Vec::with_capacity(coords.len());
    for ((&c, &n), &e) in coords.iter().zip(inner).zip(extent) {
        let s = c
            .checked_mul(n)
            .ok_or_else(|| ErrorKind::Layout(zinto_core::LayoutError::Overflow))?;
        if s >= e {
            return Ok(None);
        }
        start.push(s);
        shape.push(n.min(e - s));
    }
    Region::new(&start, &shape)
        .map(Some)
        .map_err(ErrorKind::Layout)
}

/// `part` moved by `origin`: from a shard's own coordinates into the outermost shard's.
fn shifted(part: &Region, origin: &[u64]) -> Result<Region, ErrorKind> {
    let start = part
        .start()
        .iter()
        .zip(origin)
        .map(|(&p, &o)| p.checked_add(o))
        .collect::<Option<Vec<u64>>>()
        .ok_or_else(|| ErrorKind::Layout(zinto_core::LayoutError::Overflow))?;
    Region::new(&start, part.shape()).map_err(ErrorKind::Layout)
}

/// The runs copying the inner chunk's `part` (shard coordinates) out of `source` into the
/// chunk as it is laid out.
fn inner_runs(plan: &WritePlan, source: &Source<'_>, part: &Region) -> Result<Runs, ErrorKind> {
    let at: Vec<u64> = part
        .start()
        .iter()
        .zip(&source.origin)
        .map(|(&p, &o)| p + o)
        .collect();
    let in_source = Region::new(&at, part.shape()).map_err(ErrorKind::Layout)?;
    let zero = Region::new(&vec![0; part.ndim()], part.shape()).map_err(ErrorKind::Layout)?;
    let inner = plan.chunk_shape.as_slice();
    Runs::new(
        plan.elem,
        inner,
        &plan.order,
        &zero,
        source.shape,
        &in_source,
    )
    .map_err(ErrorKind::Layout)
}

/// The inner chunk laid out in `scratch`: the fill value, then `runs` of the source over it.
fn lay_out<'s>(
    plan: &WritePlan,
    runs: Runs,
    run_bytes: &dyn Fn(&zinto_core::Run) -> Result<&'s [u8], ErrorKind>,
    scratch: &mut Vec<u8>,
) -> Result<(), ErrorKind> {
    lay_fill(scratch, plan.chunk_len, plan)?;
    for r in runs {
        scratch
            .get_mut(r.src..r.src + r.len)
            .ok_or_else(|| internal("a run outside the chunk"))?
            .copy_from_slice(run_bytes(&r)?);
    }
    Ok(())
}
