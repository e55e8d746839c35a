//! One shard written in one pass: its inner chunks encoded in C order of their coordinates
//! into the shard's object, each as soon as the one before it is out, then the index (with its
//! CRC-32C, if its codecs say) at the end; or, for an index at the start, room for it first
//! and the index written there last ([`ObjectWriter::reserve`]). Inner chunks of fill value, and those past the
//! array's edge, are not stored (their index entry is empty); a shard with none stored is not
//! written, and an old one there is removed.
//!
//! A shard the region holds whole is encoded from the caller's slice. A shard the region cuts
//! is read as it stands (the read path, the shard's part inside the array) into one shard of
//! scratch per worker, the region's part copied over it, and encoded from there.

use zinto_core::codec::{CRC32C, IndexLocation, ShardLayout, checksum};
use zinto_core::{Piece, Region, Runs};

use super::chunk::{Worker, is_fill, lay_fill, one_worker, overlay, stream_kind};
use super::{ChunkPart, WriteJob, WritePlan};
use crate::buffer;
use crate::error::{Error, ErrorKind};
use crate::store::{ObjectWriter, Store};

/// Where a shard's values are: a C-order buffer of `shape`, the shard's first element at
/// `origin` in it.
struct Source<'s> {
    bytes: &'s [u8],
    shape: &'s [u64],
    origin: Vec<u64>,
}

/// A shard's object being written, and its index: the object opened on the first inner chunk
/// stored (with room for an index at its start), an entry per inner chunk in C order of their
/// coordinates, then the index (with its CRC-32C, if its codecs say) written and the object
/// committed; or, with nothing stored, the shard removed.
pub(super) struct ShardOut<'w> {
    writer: Option<Box<dyn ObjectWriter + 'w>>,
    /// Bytes of room for an index at the start (0 for an index at the end).
    head: usize,
    index: Vec<u8>,
    /// Where the next inner chunk goes in the object.
    at: u64,
}

impl<'w> ShardOut<'w> {
    pub(super) fn new(layout: &ShardLayout) -> Result<Self, ErrorKind> {
        let count = usize::try_from(layout.grid().num_chunks())
            .map_err(|_| internal("an index larger than memory"))?;
        let mut index: Vec<u8> = Vec::new();
        index
            .try_reserve_exact(count.saturating_mul(16).saturating_add(4))
            .map_err(|_| ErrorKind::OutOfMemory {
                bytes: count as u64 * 16,
            })?;
        let head = match layout.location() {
            IndexLocation::Start => usize::try_from(layout.index_len())
                .map_err(|_| internal("an index larger than memory"))?,
            IndexLocation::End => 0,
        };
        Ok(Self {
            writer: None,
            head,
            index,
            at: head as u64,
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
            if self.head > 0 && w.reserve(self.head).map_err(ErrorKind::Store)? != 0 {
                return Err(internal("a shard's index reserved past its start"));
            }
            self.writer = Some(w);
        }
        self.writer
            .as_deref_mut()
            .ok_or(internal("a shard without its writer"))
    }

    /// The next inner chunk's entry: `stored` bytes just written after the one before, or
    /// `None` for an inner chunk not stored.
    pub(super) fn entry(&mut self, stored: Option<u64>) -> Result<(), ErrorKind> {
        let (offset, len) = match stored {
            Some(len) => (self.at, len),
            None => (u64::MAX, u64::MAX),
        };
        self.at = self
            .at
            .checked_add(stored.unwrap_or(0))
            .ok_or(ErrorKind::Layout(zinto_core::LayoutError::Overflow))?;
        self.index.extend_from_slice(&offset.to_le_bytes());
        self.index.extend_from_slice(&len.to_le_bytes());
        Ok(())
    }

    /// The index written and the object committed; with no inner chunk stored, the shard
    /// `key` removed.
    pub(super) fn finish<S: Store>(
        mut self,
        (store, key): (&S, &str),
        layout: &ShardLayout,
    ) -> Result<(), ErrorKind> {
        let Some(mut w) = self.writer else {
            return store.delete(key).map_err(ErrorKind::Store);
        };
        if layout.index_crc32c() {
            let crc = checksum(&CRC32C, &self.index).to_le_bytes();
            self.index.extend_from_slice(&crc);
        }
        match layout.location() {
            IndexLocation::Start => w.fill(0, &self.index),
            IndexLocation::End => w.write(&self.index),
        }
        .map_err(ErrorKind::Store)?;
        w.commit().map_err(ErrorKind::Store)
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
        let ChunkPart { in_array, cut } = ChunkPart::of(&job.array.metadata().grid, piece)?;
        if !cut {
            let origin = piece.in_output.start().to_vec();
            let source = Source {
                bytes: job.input,
                shape: job.region.shape(),
                origin,
            };
            return self.encode_shard(job, layout, in_array.shape(), &source, key);
        }
        let mut scratch = std::mem::take(&mut self.shard_scratch);
        let result = self.cut_shard(job, piece, (layout, &in_array), &mut scratch, key);
        self.shard_scratch = scratch;
        result
    }

    /// A shard the region cuts: the shard as it stands, the region's part over it, encoded.
    fn cut_shard<S: Store>(
        &mut self,
        job: &WriteJob<'_, S>,
        piece: &Piece,
        (layout, in_array): (&ShardLayout, &Region),
        scratch: &mut Vec<u8>,
        key: &str,
    ) -> Result<(), ErrorKind> {
        let len = job
            .array
            .selection_len(in_array)
            .map_err(Error::into_kind)?;
        if scratch.len() != len {
            *scratch =
                buffer::zeroed_buffer(len).ok_or(ErrorKind::OutOfMemory { bytes: len as u64 })?;
        }
        job.array
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
        let source = Source {
            bytes: scratch,
            shape: in_array.shape(),
            origin: vec![0; in_array.ndim()],
        };
        self.encode_shard(job, layout, in_array.shape(), &source, key)
    }

    /// Encodes the inner chunks of a shard whose part inside the array has `extent`, from
    /// `source`, into the object `key` (opened at the first chunk stored).
    fn encode_shard<S: Store>(
        &mut self,
        job: &WriteJob<'_, S>,
        layout: &ShardLayout,
        extent: &[u64],
        source: &Source<'_>,
        key: &str,
    ) -> Result<(), ErrorKind> {
        let inner = layout.grid();
        let mut out = ShardOut::new(layout)?;
        for i in 0..inner.num_chunks() {
            let coords = inner.chunk_coords(i).map_err(ErrorKind::Layout)?;
            let stored = match inner_box(&coords, job.plan.chunk_shape.as_slice(), extent)? {
                Some(b) => self.encode_inner(job, source, &b, key, &mut out)?,
                None => None,
            };
            out.entry(stored)?;
        }
        out.finish((job.array.store(), key), layout)
    }

    /// Encodes one inner chunk (its part inside the array: `part`, in shard coordinates) into
    /// the shard's object; the bytes it stored, or `None` for a chunk of fill value.
    fn encode_inner<'w, S: Store>(
        &mut self,
        job: &'w WriteJob<'_, S>,
        source: &Source<'_>,
        part: &Region,
        key: &str,
        out: &mut ShardOut<'w>,
    ) -> Result<Option<u64>, ErrorKind> {
        let plan = job.plan;
        let runs = inner_runs(plan, source, part)?;
        let run_bytes = |r: &zinto_core::Run| {
            source
                .bytes
                .get(r.dst..r.dst + r.len)
                .ok_or(internal("a run outside the shard's source"))
        };
        let direct = part.shape() == plan.chunk_shape.as_slice() && plan.order.is_c();
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut empty = !job.options.write_empty_chunks;
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
            false => self.store_inner(job, key, out, |stream| match direct {
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
    fn store_inner<'w, S: Store>(
        &mut self,
        job: &'w WriteJob<'_, S>,
        key: &str,
        out: &mut ShardOut<'w>,
        push: impl FnOnce(&mut super::stream::ChunkStream<'_>) -> Result<(), ErrorKind>,
    ) -> Result<Option<u64>, ErrorKind> {
        let w = out.writer(job.array.store(), key)?;
        let mut stream = self.stream(job.plan, w)?;
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
            .ok_or(ErrorKind::Layout(zinto_core::LayoutError::Overflow))?;
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
            .ok_or(internal("a run outside the chunk"))?
            .copy_from_slice(run_bytes(&r)?);
    }
    Ok(())
}
