//! Variable-length values (strings, bytes) written into shards: one pass over the shard's
//! inner chunks in C order of their coordinates, each streamed into the shard's object as
//! [`Array::write_vlen`](crate::Array::write_vlen) streams a chunk, then the index
//! ([`ShardOut`]).
//!
//! In a shard the region cuts, the old shard's index is read first. An inner chunk the region
//! touches but does not hold whole is decoded from the old shard (one inner chunk at a time,
//! as an unsharded chunk is), the region's elements laid over it; an inner chunk the region
//! does not touch is copied over as it is stored, through the worker's gathering window,
//! without decoding. Inner chunks all of fill value are not stored; a shard with none stored
//! is removed.

use zinto_core::codec::{ByteRange, ShardError, ShardLayout};
use zinto_core::{Piece, Region};

use super::ChunkPart;
use super::shard::{ShardOut, inner_box, internal};
use super::vlen::{VlenJob, VlenWorker, opened_parts};
use crate::error::ErrorKind;
use crate::read::decode::Stored;
use crate::read::vlen::ChunkIn;
use crate::store::{Opened, Store};

/// The shard stored at a key before this write: its length and index.
struct OldShard {
    len: u64,
    index: Vec<u8>,
}

impl OldShard {
    /// The shard stored as `key`, `len` bytes in `store` (one version of it), with its
    /// index read.
    fn read(
        store: &dyn Store,
        key: &str,
        len: u64,
        layout: &ShardLayout,
    ) -> Result<Self, ErrorKind> {
        let range = layout.index_range(len).map_err(ErrorKind::Shard)?;
        // The index's length is the metadata's inner grid's, not the stored shard's.
        let len_of_index =
            usize::try_from(range.len).map_err(|_| internal("an index larger than memory"))?;
        let mut index = Vec::new();
        index
            .try_reserve_exact(len_of_index)
            .map_err(|_| ErrorKind::OutOfMemory { bytes: range.len })?;
        index.resize(len_of_index, 0);
        store
            .read_into(key, range.offset, &mut index)
            .map_err(ErrorKind::Store)?;
        let parsed = layout.parse(&index, len).map_err(ErrorKind::Shard)?;
        // Inner chunks are copied entry by entry: entries that overlap would copy the shard
        // many times over.
        let covered = parsed.covered();
        if covered > len {
            return Err(ErrorKind::Shard(ShardError::EntriesOverlap {
                covered,
                shard_len: len,
            }));
        }
        Ok(Self { len, index })
    }
}

impl VlenWorker {
    /// Writes the shard of `piece` as `key`.
    pub(super) fn write_shard<S: Store>(
        &mut self,
        job: &VlenJob<'_, S>,
        piece: &Piece,
        layout: &ShardLayout,
        key: &str,
    ) -> Result<(), ErrorKind> {
        let ChunkPart {
            in_array,
            cut,
            shape,
        } = ChunkPart::of(&job.array.metadata().grid, piece)?;
        // On a rectilinear grid, this shard's own inner grid and index.
        let layout = &layout.for_shard(&shape).map_err(ErrorKind::Layout)?;
        // Guarded from the read of the old shard to its replacement (see `Worker::cut`).
        super::update(job.array, (key, cut, job.options.cancel), |lock| {
            let to = (key, lock.is_conditional());
            self.write_shard_in(job, (piece, layout, &in_array), cut, to)
        })
    }

    /// [`Self::write_shard`] under its guard: the old shard read where the region cuts it,
    /// the shard written (with nothing in it, removed, or stored empty with `keep_empty`).
    fn write_shard_in<S: Store>(
        &mut self,
        job: &VlenJob<'_, S>,
        (piece, layout, in_array): (&Piece, &ShardLayout, &Region),
        cut: bool,
        (key, keep_empty): (&str, bool),
    ) -> Result<(), ErrorKind> {
        let store = job.array.store();
        // The old shard's length, index and inner chunks from one open of it.
        let opened = match cut {
            false => Opened::Absent,
            true => store.open(key).map_err(ErrorKind::Store)?,
        };
        let (old_len, from) = opened_parts(&opened, store);
        let old = match old_len {
            None => None,
            Some(len) => Some(OldShard::read(from, key, len, layout)?),
        };
        let old_index = match &old {
            Some(o) => Some(layout.parse(&o.index, o.len).map_err(ErrorKind::Shard)?),
            None => None,
        };
        let grid = layout.grid();
        // The inner chunks the region touches, in C order of their coordinates, as the loop
        // below meets them.
        let mut touched = grid
            .pieces(&piece.in_chunk)
            .map_err(ErrorKind::Layout)?
            .peekable();
        let mut out = ShardOut::new(layout)?;
        for i in 0..grid.num_chunks() {
            let coords = grid.chunk_coords(i).map_err(ErrorKind::Layout)?;
            let Some(part) = inner_box(&coords, &job.plan.chunk_shape, in_array.shape())? else {
                continue;
            };
            let was = match &old_index {
                Some(index) => index.get_linear(i).map_err(ErrorKind::Shard)?,
                None => None,
            };
            let stored = match touched.next_if(|p| p.chunk == coords) {
                Some(inner) => {
                    let cut = inner.in_chunk.shape() != part.shape();
                    let old_at = was.filter(|_| cut).map(|r| Stored {
                        key,
                        offset: r.offset,
                        len: r.len,
                    });
                    let old = old_at.map(|at| (from, at));
                    self.write_inner(job, (piece, &inner), old, (key, &mut out))?
                }
                None => match was {
                    Some(r) => Some(self.copy_inner(job, (from, key, r), &mut out)?),
                    None => None,
                },
            };
            out.entry(i, stored)?;
        }
        if touched.next().is_some() {
            return Err(internal("an inner piece out of C order"));
        }
        out.finish((store, key, keep_empty), layout)
    }

    /// Lays out the inner chunk `inner` (of the shard's `piece`) over its old stored bytes
    /// `old_at` (if the region cuts it and it was stored; with the store of the old shard's
    /// version) and streams it into the shard; the bytes stored, or `None` for an inner chunk
    /// all fill value.
    fn write_inner<'w, S: Store>(
        &mut self,
        job: &'w VlenJob<'_, S>,
        (piece, inner): (&Piece, &Piece),
        old_at: Option<(&dyn Store, Stored<'_>)>,
        (key, out): (&str, &mut ShardOut<'w>),
    ) -> Result<Option<u64>, ErrorKind> {
        let level = job
            .array
            .metadata()
            .chain
            .levels()
            .last()
            .ok_or(internal("a chain without levels"))?;
        let old = old_at.map(|(from, at)| {
            let chunk = ChunkIn {
                at,
                codec: job.codec,
                level,
                shape: &level.chunk_shape,
            };
            (from, chunk)
        });
        // The inner piece lands in the region where the shard's piece does, moved by where the
        // inner piece starts in the shard's piece.
        let start = piece
            .in_output
            .start()
            .iter()
            .zip(inner.in_output.start())
            .map(|(a, b)| a.checked_add(*b))
            .collect::<Option<Vec<u64>>>()
            .ok_or_else(|| ErrorKind::Layout(zinto_core::LayoutError::Overflow))?;
        let in_output = Region::new(&start, inner.in_output.shape()).map_err(ErrorKind::Layout)?;
        let part = (&inner.in_chunk, &in_output);
        let old = old.as_ref().map(|(from, chunk)| (*from, chunk));
        self.lay_sources(job, (&job.plan.chunk_shape, part), old)?;
        if self.all_fill(job)? {
            return Ok(None);
        }
        let writer = out.writer(job.array.store(), key)?;
        self.store_chunk(job, writer).map(Some)
    }

    /// Copies the inner chunk stored at `r` of the old shard `key` (the version `from` reads)
    /// into the new one as it is (through the gathering window); the bytes stored.
    fn copy_inner<'w, S: Store>(
        &mut self,
        job: &'w VlenJob<'_, S>,
        (from, key, r): (&dyn Store, &str, ByteRange),
        out: &mut ShardOut<'w>,
    ) -> Result<u64, ErrorKind> {
        let store = job.array.store();
        let window = super::WRITE_WINDOW;
        let mut buf = std::mem::take(&mut self.gather);
        if buf.len() < window {
            buf.clear();
            buf.try_reserve_exact(window)
                .map_err(|_| ErrorKind::OutOfMemory {
                    bytes: window as u64,
                })?;
            buf.resize(window, 0);
        }
        let result = (|| {
            let writer = out.writer(store, key)?;
            let mut done = 0u64;
            while done < r.len {
                let n = usize::try_from((r.len - done).min(window as u64))
                    .map_err(|_| internal("a window larger than memory"))?;
                let part = buf.get_mut(..n).ok_or(internal("a copy past its window"))?;
                from.read_into(key, r.offset + done, part)
                    .map_err(ErrorKind::Store)?;
                writer.write(part).map_err(ErrorKind::Store)?;
                done += n as u64;
            }
            Ok(r.len)
        })();
        buf.clear();
        self.gather = buf;
        result
    }
}
