//! One chunk written: which path it takes, by how it meets the region (see the module above).

use zinto_core::{Piece, Region, Runs};

use zinto_core::codec::Encoder;

use super::stream::{ChunkStream, StreamError, Windows};
use super::{ChunkPart, WRITE_WINDOW, WriteJob, WritePlan};
use crate::backend::Encoders;
use crate::error::{Error, ErrorKind};
use crate::store::{ObjectWriter, Store};
use crate::{ReadOptions, buffer};

/// One chunk's shape as stored and its `(chunk_len, stored_len)` ([`WritePlan::lens_of`]).
#[derive(Clone, Copy)]
struct Sized<'s> {
    shape: &'s [u64],
    lens: (usize, usize),
}

/// A worker's state, kept from chunk to chunk: its compressor, its windows, and the chunk of
/// scratch for chunks the region cuts (made on first use).
pub(crate) struct Worker {
    encoder: Option<Box<dyn Encoder>>,
    windows: Windows,
    /// One chunk (an inner chunk, in a sharded array).
    pub(super) scratch: Vec<u8>,
    /// One shard's part inside the array, for shards the region cuts.
    pub(super) shard_scratch: Vec<u8>,
}

/// `e`, from a chunk's stream, as the error kind it is.
pub(super) fn stream_kind(e: StreamError) -> ErrorKind {
    match e {
        StreamError::Store(e) => ErrorKind::Store(e),
        StreamError::Encode(e) => ErrorKind::Encode(e.to_string()),
        StreamError::Filter(why) => ErrorKind::Encode(why),
    }
}

fn internal(what: &'static str) -> ErrorKind {
    ErrorKind::Internal { what }
}

/// Whether `bytes` are all `fill`, element by element (bit for bit: a NaN of another payload
/// is not the fill value).
pub(super) fn is_fill(bytes: &[u8], fill: &[u8]) -> bool {
    if fill.iter().all(|&b| b == 0) {
        return bytes.iter().all(|&b| b == 0);
    }
    !fill.is_empty()
        && bytes.len().is_multiple_of(fill.len())
        && bytes.chunks_exact(fill.len()).all(|e| e == fill)
}

/// Read options for reading one chunk's old values on a worker: one thread, no pool of its own.
pub(super) fn one_worker() -> ReadOptions<'static> {
    ReadOptions {
        threads: Some(std::num::NonZeroUsize::MIN),
        ..ReadOptions::default()
    }
}

/// `scratch` made `len` bytes long (kept when it already is), every element the fill value.
pub(super) fn lay_fill(
    scratch: &mut Vec<u8>,
    len: usize,
    plan: &WritePlan,
) -> Result<(), ErrorKind> {
    // Chunks of one size reuse the buffer; on a rectilinear grid a smaller chunk keeps the
    // larger one's room (at most the longest chunk's).
    if scratch.capacity() < len {
        *scratch = buffer::zeroed_buffer(len)
            .ok_or_else(|| ErrorKind::OutOfMemory { bytes: len as u64 })?;
    } else {
        scratch.resize(len, 0);
    }
    fill_elements(scratch, &plan.fill);
    Ok(())
}

/// Every element of `bytes` set to `fill`.
fn fill_elements(bytes: &mut [u8], fill: &[u8]) {
    for e in bytes.chunks_exact_mut(fill.len().max(1)) {
        e.copy_from_slice(fill);
    }
}

/// Copies each run's bytes of `from` (at the run's `dst`) into `to` (at its `src`): a region's
/// values laid into a chunk or shard buffer.
pub(super) fn overlay(runs: Runs, from: &[u8], to: &mut [u8]) -> Result<(), ErrorKind> {
    for r in runs {
        let src = from
            .get(r.dst..r.dst + r.len)
            .ok_or_else(|| internal("a run outside its source"))?;
        to.get_mut(r.src..r.src + r.len)
            .ok_or_else(|| internal("a run outside its buffer"))?
            .copy_from_slice(src);
    }
    Ok(())
}

impl Worker {
    /// A worker for `plan`: its compressor made now, so that one this build cannot write is
    /// refused before any chunk is.
    pub(crate) fn new(plan: &WritePlan) -> Result<Self, ErrorKind> {
        let encoder = match &plan.compressor {
            Some(c) => Some(
                c.encoder(plan.stored_elem, &Encoders)
                    .map_err(|e| ErrorKind::Encode(e.to_string()))?,
            ),
            None => None,
        };
        let window = |used: bool| {
            if used {
                vec![0u8; WRITE_WINDOW]
            } else {
                Vec::new()
            }
        };
        Ok(Self {
            encoder,
            windows: Windows {
                out: window(true),
                swap: window(plan.swap > 0),
                filters: plan.filters.clone(),
            },
            scratch: Vec::new(),
            shard_scratch: Vec::new(),
        })
    }

    /// Writes the chunk of `piece`.
    pub(crate) fn write_piece<S: Store>(
        &mut self,
        job: &WriteJob<'_, S>,
        piece: &Piece,
    ) -> Result<(), Error> {
        let key = job.array.chunk_key(&piece.chunk);
        let at = |kind| Error::new(job.array.path(), Some(&key), kind);
        if let Some(layout) = job.plan.shard() {
            return self.write_shard(job, piece, layout, &key).map_err(at);
        }
        let grid = &job.array.metadata().grid;
        let order = &job.plan.order;
        let runs = piece
            .runs(grid, job.plan.elem, order, job.region.shape())
            .map_err(|e| at(ErrorKind::Layout(e)))?;
        // This chunk's shape and lengths: the plan's, but on a rectilinear grid.
        let shape = grid
            .chunk_shape_at(&piece.chunk)
            .map_err(|e| at(ErrorKind::Layout(e)))?;
        let sized = Sized {
            lens: job.plan.lens_of(&shape).map_err(at)?,
            shape: &shape,
        };
        // A transposed chunk's runs do not walk it forwards: it is laid out in the scratch,
        // as is one in many runs for a compressor that needs it in one slice.
        let one_slice = !job.plan.whole_input || runs.clone().nth(1).is_none();
        if piece.is_whole_chunk(grid) && order.is_c() && one_slice {
            self.whole(job, (&key, sized), runs).map_err(at)
        } else {
            self.cut(job, (&key, sized), piece, runs).map_err(at)
        }
    }

    /// A chunk the region holds whole: from the caller's slice, run by run.
    fn whole<S: Store>(
        &mut self,
        job: &WriteJob<'_, S>,
        (key, sized): (&str, Sized<'_>),
        runs: Runs,
    ) -> Result<(), ErrorKind> {
        let part = |r: &zinto_core::Run| {
            job.input
                .get(r.dst..r.dst + r.len)
                .ok_or_else(|| internal("a run outside the input"))
        };
        if !job.options.extra.write_empty_chunks {
            let mut all_fill = true;
            for r in runs.clone() {
                all_fill &= is_fill(part(&r)?, &job.plan.fill);
                if !all_fill {
                    break;
                }
            }
            if all_fill {
                return job.array.store().delete(key).map_err(ErrorKind::Store);
            }
        }
        self.store_chunk(job, (key, sized.lens.1), runs.map(|r| part(&r)))
    }

    /// A chunk the region cuts, or one at the array's edge: the old chunk (or the fill
    /// value) in scratch, the region's part over it, and that written.
    fn cut<S: Store>(
        &mut self,
        job: &WriteJob<'_, S>,
        at: (&str, Sized<'_>),
        piece: &Piece,
        runs: Runs,
    ) -> Result<(), ErrorKind> {
        let mut scratch = std::mem::take(&mut self.scratch);
        let result = self.cut_in(job, at, piece, runs, &mut scratch);
        self.scratch = scratch;
        result
    }

    fn cut_in<S: Store>(
        &mut self,
        job: &WriteJob<'_, S>,
        (key, sized): (&str, Sized<'_>),
        piece: &Piece,
        runs: Runs,
        scratch: &mut Vec<u8>,
    ) -> Result<(), ErrorKind> {
        let plan = job.plan;
        let part = ChunkPart::of(&job.array.metadata().grid, piece)?;
        // Guarded from the read of the old chunk to its replacement: a merge from a chunk
        // another writer has since replaced would lose that writer's part.
        super::update(job.array, (key, part.cut, job.options.cancel), |lock| {
            lay_fill(scratch, sized.lens.0, plan)?;
            if part.cut {
                read_old(job, (&part.in_array, sized.shape), scratch)?;
            }
            overlay(runs.clone(), job.input, scratch)?;
            // A conditional update cannot delete on its condition: it stores the fill.
            let empty = !job.options.extra.write_empty_chunks && is_fill(scratch, &plan.fill);
            if empty && !lock.is_conditional() {
                return job.array.store().delete(key).map_err(ErrorKind::Store);
            }
            self.store_chunk(job, (key, sized.lens.1), std::iter::once(Ok(&scratch[..])))
        })
    }

    /// A stream of one chunk's stored bytes into `writer`.
    pub(crate) fn stream<'w>(
        &'w mut self,
        plan: &WritePlan,
        writer: &'w mut dyn ObjectWriter,
    ) -> Result<ChunkStream<'w>, ErrorKind> {
        self.stream_of(plan.stored_len as u64, plan, writer)
    }

    /// A stream of `len` bytes, one chunk's, into `writer`: for chunks whose length their
    /// values decide (variable-length data), not the plan.
    pub(crate) fn stream_of<'w>(
        &'w mut self,
        len: u64,
        plan: &WritePlan,
        writer: &'w mut dyn ObjectWriter,
    ) -> Result<ChunkStream<'w>, ErrorKind> {
        let encoder = self.encoder.as_deref_mut().map(|e| e as &mut dyn Encoder);
        ChunkStream::new(
            encoder,
            &mut self.windows,
            (len, plan.swap, plan.crc32c),
            writer,
        )
        .map_err(stream_kind)
    }

    /// Writes one chunk, `parts` in order, as the object `key`.
    fn store_chunk<'p, S: Store>(
        &mut self,
        job: &WriteJob<'_, S>,
        (key, stored_len): (&str, usize),
        parts: impl Iterator<Item = Result<&'p [u8], ErrorKind>>,
    ) -> Result<(), ErrorKind> {
        let mut writer = job.array.store().writer(key).map_err(ErrorKind::Store)?;
        let mut stream = self.stream_of(stored_len as u64, job.plan, &mut *writer)?;
        for part in parts {
            stream.push(part?).map_err(stream_kind)?;
        }
        stream.finish().map_err(stream_kind)?;
        writer.commit().map_err(ErrorKind::Store)
    }
}

/// Reads the chunk's part of the array as it stands (`in_array`: the chunk's region, clipped
/// to the array) into `scratch`, a whole chunk laid out in C order; a missing chunk reads as
/// the fill value already there.
fn read_old<S: Store>(
    job: &WriteJob<'_, S>,
    (in_array, chunk): (&Region, &[u64]),
    scratch: &mut [u8],
) -> Result<(), ErrorKind> {
    let one = one_worker();
    if in_array.shape() == chunk && job.plan.order.is_c() {
        return job
            .array
            .read_into_with(in_array, scratch, &one)
            .map_err(Error::into_kind);
    }
    if job.plan.order.is_c() {
        return read_old_edge(job, (in_array, chunk), scratch);
    }
    // A transposed chunk: its part inside the array in C order, then laid into the chunk in
    // the chunk's order.
    let len = job
        .array
        .selection_len(in_array)
        .map_err(Error::into_kind)?;
    let mut part =
        buffer::zeroed_buffer(len).ok_or_else(|| ErrorKind::OutOfMemory { bytes: len as u64 })?;
    job.array
        .read_into_with(in_array, &mut part, &one)
        .map_err(Error::into_kind)?;
    let zero =
        Region::new(&vec![0; in_array.ndim()], in_array.shape()).map_err(ErrorKind::Layout)?;
    let runs = Runs::new(
        job.plan.elem,
        chunk,
        &job.plan.order,
        &zero,
        in_array.shape(),
        &zero,
    )
    .map_err(ErrorKind::Layout)?;
    overlay(runs, &part, scratch)
}

/// An edge chunk in C order: its part inside the array read into the front of `scratch`, then
/// moved out to where it lies in the padded chunk, last run first (each run moves to an offset
/// at or past its own, so none overwrites one not yet moved), and the gaps laid with the fill
/// value. No second buffer.
fn read_old_edge<S: Store>(
    job: &WriteJob<'_, S>,
    (in_array, chunk): (&Region, &[u64]),
    scratch: &mut [u8],
) -> Result<(), ErrorKind> {
    let one = one_worker();
    let len = job
        .array
        .selection_len(in_array)
        .map_err(Error::into_kind)?;
    let front = scratch
        .get_mut(..len)
        .ok_or_else(|| internal("an edge larger than its chunk"))?;
    job.array
        .read_into_with(in_array, front, &one)
        .map_err(Error::into_kind)?;
    let zero =
        Region::new(&vec![0; in_array.ndim()], in_array.shape()).map_err(ErrorKind::Layout)?;
    let runs: Vec<zinto_core::Run> = Runs::new(
        job.plan.elem,
        chunk,
        &job.plan.order,
        &zero,
        in_array.shape(),
        &zero,
    )
    .map_err(ErrorKind::Layout)?
    .collect();
    for r in runs.iter().rev() {
        if r.src < r.dst || r.src + r.len > scratch.len() {
            return Err(internal("an edge run moving backwards"));
        }
        scratch.copy_within(r.dst..r.dst + r.len, r.src);
    }
    let fill = |gap: &mut [u8]| fill_elements(gap, &job.plan.fill);
    let mut end = 0;
    for r in &runs {
        fill(
            scratch
                .get_mut(end..r.src)
                .ok_or_else(|| internal("edge runs out of order"))?,
        );
        end = r.src + r.len;
    }
    fill(
        scratch
            .get_mut(end..)
            .ok_or_else(|| internal("an edge run past the chunk"))?,
    );
    Ok(())
}
