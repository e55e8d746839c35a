//! Reading one chunk's part of a selection into the output, by the cheapest path the layout
//! allows:
//!
//! 1. uncompressed chunk landing contiguously: the store reads straight into the output;
//! 2. compressed chunk landing contiguously: streamed from the store in blocks through the
//!    decoders straight into the output (the compressed chunk is never held whole);
//! 3. a compressed (or checksummed) chunk landing in pieces, edge chunks included: decoded
//!    through a window ([`ChunkDecoder::feed_window`]), each window's bytes copied to the runs
//!    they belong to as they are produced, in the chunk's order. Scratch per worker: the
//!    window ([`WINDOW_LEN`], or one Blosc block if larger), one I/O block, and the codec's
//!    own window (zstd's, which the decoder keeps; DEFLATE's is the window itself);
//! 3. (b) chunks no larger than a window, and what cannot stream (filters, runs that do not
//!    walk the chunk forwards, numcodecs LZ4, a zstd frame declaring a window larger than
//!    its chunk): decoded whole into the worker's reusable scratch, then the runs copied;
//! 4. uncompressed chunk landing in pieces: only the byte ranges the runs need are read,
//!    nearby ranges coalesced into reads of at most [`COALESCE_MAX`] through the worker's
//!    scratch, single ranges read straight into the output.
//!
//! Sharded chunks: only the index and the inner chunks the piece touches are read.

use zinto_core::codec::{
    ArrayToBytes, BytesCodecs, ChainLevel, CodecName, DecodeError, Endian, Filter, FilterAux,
    FilterLens, to_native_in_place,
};
use zinto_core::{MAX_DIMS, MemoryOrder, Piece, Region, Run, Runs, product};

use crate::error::ErrorKind;
use crate::metadata::ArrayMetadata;
use std::time::Instant;

use crate::store::{Opened, READ_TRIES, Store, StoreError, update_backoff};

use super::context::ReadContext;
use super::decode::{
    DecodedSize, OVERFLOW, Stored, WINDOW_LEN, check_plausible, decode_stored, decode_windowed,
    grow,
};
use super::out::PieceOut;

/// Uncompressed byte ranges closer than this are read as one range.
pub const COALESCE_GAP: usize = 64 << 10;
/// A range read as one (ranges coalesced) spans at most this many bytes: a raw chunk landing
/// in many runs of the output (a 3-d chunk read whole into a larger output) is read through a
/// worker's scratch of this size in steps, never a chunk-sized one. A single range longer than
/// this is read alone, straight into the output.
pub const COALESCE_MAX: usize = WINDOW_LEN;
/// Partial chunks of at most this many bytes decode whole into scratch (path 3b): the scratch is
/// then no larger than a window, and no second decoder state is needed (the C zstd library's
/// windowed context keeps buffers of its own). Larger ones stream through the window. Fuzz
/// builds stream every one, so that `array_read`, whose chunks are small, reaches that path.
const STREAM_ABOVE: usize = if cfg!(fuzzing) { 0 } else { WINDOW_LEN };

/// A chunk of elements being read: its level, byte order and stored bytes, its sizes decoded
/// and stored (filters may store elements smaller), and its filters.
struct Chunk<'l, 'k> {
    lv: &'l ChainLevel,
    endian: Option<Endian>,
    at: Stored<'k>,
    chunk_len: usize,
    stored_len: usize,
    filters: Filters<'l>,
}

/// The part of a chunk a read wants, where it lands in the output, and the chunk's shape as
/// stored (its level's, or on a rectilinear grid this chunk's own).
#[derive(Debug, Clone, Copy)]
struct Part<'r> {
    in_chunk: &'r Region,
    in_output: &'r Region,
    chunk_shape: &'r [u64],
}

impl<'r> Part<'r> {
    fn of(piece: &'r Piece, chunk_shape: &'r [u64]) -> Self {
        Self {
            in_chunk: &piece.in_chunk,
            in_output: &piece.in_output,
            chunk_shape,
        }
    }
}

/// Whether a chunk a read asked for was in the store. A status, not an error: an absent
/// chunk reads as the fill value (zarr-python 3.4 reports it per chunk, and raises for it only
/// when asked to).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Found {
    /// The chunk (for a sharded array, the shard) was stored and read.
    Stored,
    /// The chunk was absent: its part of the output is the fill value.
    Absent,
}

/// Runs `read` on `opened`, the object `key` as `store` opened it; while `read` fails with
/// [`StoreError::Changed`] (a store that cannot hold one version open found it replaced
/// between two requests), again on the object as the store opens it afresh
/// ([`Store::reopen`]), up to [`READ_TRIES`] in all. `read` writes all of its part of the
/// output each time, so nothing of an earlier version stays. Gives back what `read` gave and
/// the object it read.
pub(crate) fn on_one_version<'s, S: Store + ?Sized, T>(
    (store, key): (&'s S, &str),
    mut opened: Opened<'s>,
    mut read: impl FnMut(&Opened<'s>) -> Result<T, ErrorKind>,
) -> Result<(T, Opened<'s>), ErrorKind> {
    let mut tries = 1;
    loop {
        let began = Instant::now();
        match read(&opened) {
            Err(ErrorKind::Store(StoreError::Changed { .. })) if tries < READ_TRIES => {
                std::thread::sleep(update_backoff(tries, began.elapsed()));
                tries += 1;
                opened = store.reopen(key).map_err(ErrorKind::Store)?;
            }
            Err(e) => return Err(e),
            Ok(done) => return Ok((done, opened)),
        }
    }
}

/// Reads pieces of chunks of one array into one output of shape `out_shape`.
pub(crate) struct ChunkReader<'a, S: ?Sized> {
    pub(crate) store: &'a S,
    pub(crate) meta: &'a ArrayMetadata,
    pub(crate) out_shape: &'a [u64],
}

impl<S: Store + ?Sized> ChunkReader<'_, S> {
    /// Reads `piece` of the chunk stored at `key`: whether the chunk was stored, or absent
    /// (its part of the output then the fill value).
    pub(crate) fn read_piece(
        &self,
        ctx: &mut ReadContext,
        key: &str,
        piece: &Piece,
        out: &mut PieceOut<'_, '_>,
    ) -> Result<Found, ErrorKind> {
        let shape = self
            .meta
            .grid
            .chunk_shape_at(&piece.chunk)
            .map_err(ErrorKind::Layout)?;
        let part = Part::of(piece, &shape);
        let at = |len| Stored {
            key,
            offset: 0,
            len,
        };
        // One version of the chunk, however often a writer replaces it meanwhile: its length,
        // a shard's index and its inner chunks all come from the one the store opened.
        let opened = self.store.open(key).map_err(ErrorKind::Store)?;
        on_one_version((self.store, key), opened, |opened| {
            match opened {
                Opened::Absent => return self.fill(part.in_output, out).map(|()| Found::Absent),
                Opened::Unpinned { len } => self.read_level(ctx, 0, at(*len), part, out)?,
                Opened::Pinned { len, object } => ChunkReader {
                    store: &**object,
                    meta: self.meta,
                    out_shape: self.out_shape,
                }
                .read_level(ctx, 0, at(*len), part, out)?,
            }
            Ok(Found::Stored)
        })
        .map(|(found, _)| found)
    }

    /// Writes the fill value over `region` of the output.
    fn fill(&self, region: &Region, out: &mut PieceOut<'_, '_>) -> Result<(), ErrorKind> {
        let elem = self.meta.elem_size();
        let order = MemoryOrder::c(region.ndim()).map_err(ErrorKind::Layout)?;
        let whole = Region::whole(region.shape()).map_err(ErrorKind::Layout)?;
        let runs = Runs::new(elem, region.shape(), &order, &whole, self.out_shape, region)
            .map_err(ErrorKind::Layout)?;
        let value = self.meta.fill_value.as_bytes();
        for run in runs {
            let dst = out.get(run.dst, run.len)?;
            match value.split_first() {
                Some((&b, rest)) if rest.iter().all(|&x| x == b) => dst.fill(b),
                _ => dst
                    .chunks_exact_mut(elem)
                    .for_each(|e| e.copy_from_slice(value)),
            }
        }
        Ok(())
    }

    /// Reads `part` of the chunk of chain level `level` stored `at` into the output.
    fn read_level(
        &self,
        ctx: &mut ReadContext,
        level: usize,
        at: Stored<'_>,
        part: Part<'_>,
        out: &mut PieceOut<'_, '_>,
    ) -> Result<(), ErrorKind> {
        let Stored { key, offset, len } = at;
        let Part {
            in_chunk,
            in_output,
            chunk_shape,
        } = part;
        let Some(lv) = self.meta.chain.levels().get(level) else {
            return Err(ErrorKind::Internal {
                what: "a shard level past the codec chain",
            });
        };
        match &lv.array_to_bytes {
            ArrayToBytes::Bytes(endian) => self.read_elements(ctx, lv, *endian, at, part, out),
            ArrayToBytes::Sharding(layout) => {
                // On a rectilinear grid, this shard's own inner grid and index.
                let layout = &layout.for_shard(chunk_shape).map_err(ErrorKind::Layout)?;
                let range = layout.index_range(len).map_err(ErrorKind::Shard)?;
                // Bounded by `len`, the shard's actual stored size.
                let mut index = vec![0u8; usize::try_from(range.len).map_err(|_| OVERFLOW)?];
                self.store
                    .read_into(key, offset + range.offset, &mut index)
                    .map_err(ErrorKind::Store)?;
                let index = layout.parse(&index, len).map_err(ErrorKind::Shard)?;
                let pieces = layout.grid().pieces(in_chunk).map_err(ErrorKind::Layout)?;
                let mut start = [0u64; MAX_DIMS];
                // Where an inner piece lands in the output: no allocation per piece.
                let mut region_of = |ip: &Piece| -> Result<Region, ErrorKind> {
                    let start = start.get_mut(..in_output.ndim()).ok_or(OVERFLOW)?;
                    for ((s, a), b) in start
                        .iter_mut()
                        .zip(in_output.start())
                        .zip(ip.in_output.start())
                    {
                        *s = a.checked_add(*b).ok_or(OVERFLOW)?;
                    }
                    Region::new(start, ip.in_output.shape()).map_err(ErrorKind::Layout)
                };
                // Missing inner chunks are filled now; the others are read in the order of
                // their bytes in the shard (zarr-python writes them in Morton order), one
                // forward pass that a remote store fetches in as few requests as it can.
                let count = pieces.chunk_count().map_err(ErrorKind::Layout)?;
                let missing_piece = || ErrorKind::Internal {
                    what: "an inner piece missing from its own count",
                };
                let mut present = Vec::new();
                for i in 0..count {
                    let ip = pieces.get(i).ok_or_else(missing_piece)?;
                    match index.get(&ip.chunk).map_err(ErrorKind::Shard)? {
                        None => self.fill(&region_of(&ip)?, out)?,
                        Some(r) => present.push((r, i)),
                    }
                }
                present.sort_unstable_by_key(|(r, _)| r.offset);
                let ranges: Vec<_> = present
                    .iter()
                    .map(|(r, _)| offset + r.offset..offset + r.offset + r.len)
                    .collect();
                self.store.will_read(key, &ranges);
                for (r, i) in present {
                    let ip = pieces.get(i).ok_or_else(missing_piece)?;
                    let region = region_of(&ip)?;
                    let inner = Part {
                        in_chunk: &ip.in_chunk,
                        in_output: &region,
                        chunk_shape: layout.grid().chunk_shape(),
                    };
                    self.read_level(ctx, level + 1, at.within(r.offset, r.len), inner, out)?;
                }
                Ok(())
            }
        }
    }

    /// Reads `part` of a chunk stored `at` with the `bytes` codec (after its bytes-to-bytes
    /// codecs, before its filters) into the output.
    fn read_elements(
        &self,
        ctx: &mut ReadContext,
        lv: &ChainLevel,
        endian: Option<Endian>,
        at: Stored<'_>,
        part: Part<'_>,
        out: &mut PieceOut<'_, '_>,
    ) -> Result<(), ErrorKind> {
        let Part {
            in_chunk,
            in_output,
            chunk_shape,
        } = part;
        let elem = self.meta.elem_size();
        let elements = product(chunk_shape).map_err(ErrorKind::Layout)?;
        let chunk_len = elements
            .checked_mul(elem as u64)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or(OVERFLOW)?;
        let stored_len = lv
            .stored_len(elements)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or(OVERFLOW)?;
        let runs = Runs::new(
            elem,
            chunk_shape,
            &lv.order,
            in_chunk,
            self.out_shape,
            in_output,
        )
        .map_err(ErrorKind::Layout)?;
        let whole = in_chunk.start().iter().all(|&s| s == 0) && in_chunk.shape() == chunk_shape;
        let filters = Filters {
            level: lv,
            elements: usize::try_from(elements).map_err(|_| OVERFLOW)?,
            tables: self.meta.filter_tables(lv),
        };
        let plain = lv.bytes_codecs == BytesCodecs::default() && lv.filters.is_empty();
        let chunk = Chunk {
            lv,
            endian,
            at,
            chunk_len,
            stored_len,
            filters,
        };
        if whole && runs.is_single_run() && filters.in_place() {
            // Paths 1 and 2: straight into the output, the one run being the chunk.
            self.decode_in_place(ctx, &chunk, runs, out)
        } else if plain && self.read_ranges(ctx, at, chunk_len, runs.clone(), endian, out)? {
            // Path 4: done by reading only the ranges needed.
            Ok(())
        } else if chunk_len > STREAM_ABOVE
            && lv.filters.is_empty()
            && walks_forwards(runs.clone())
            && ctx.decoder.can_window(&lv.bytes_codecs)
            && self.read_windowed(ctx, lv, at, chunk_len, runs.clone(), out)?
        {
            // Path 3: done through a window. The runs were in the chunk's order.
            if let Some(e) = endian {
                let unit = self.meta.dtype.scalar_size();
                for run in runs {
                    to_native_in_place(out.get(run.dst, run.len)?, unit, e);
                }
            }
            Ok(())
        } else {
            self.decode_into_scratch(ctx, &chunk, runs, out)
        }
    }

    /// Puts `buf`'s elements in native byte order.
    fn to_native(&self, buf: &mut [u8], endian: Option<Endian>) {
        if let Some(e) = endian {
            to_native_in_place(buf, self.meta.dtype.scalar_size(), e);
        }
    }

    /// Paths 1 and 2: decodes a whole chunk straight into the output, its one run.
    fn decode_in_place(
        &self,
        ctx: &mut ReadContext,
        chunk: &Chunk<'_, '_>,
        mut runs: Runs,
        out: &mut PieceOut<'_, '_>,
    ) -> Result<(), ErrorKind> {
        let run = runs
            .next()
            .filter(|run| run.len == chunk.chunk_len)
            .ok_or_else(|| ErrorKind::Internal {
                what: "a whole chunk's single run is not the chunk's length",
            })?;
        let dst = out.get(run.dst, run.len)?;
        let stored = dst
            .get_mut(..chunk.stored_len)
            .ok_or_else(|| ErrorKind::Internal {
                what: "filters that grow elements decoded into a smaller buffer",
            })?;
        decode_stored(self.store, ctx, chunk.at, &chunk.lv.bytes_codecs, stored)?;
        chunk.filters.undo(dst, &mut ctx.spare)?;
        self.to_native(dst, chunk.endian);
        Ok(())
    }

    /// Path 3b: decodes the chunk into the worker's scratch and copies the runs. The scratch
    /// is sized by the metadata: the stored bytes are checked to be able to decode to that
    /// much first.
    fn decode_into_scratch(
        &self,
        ctx: &mut ReadContext,
        chunk: &Chunk<'_, '_>,
        runs: Runs,
        out: &mut PieceOut<'_, '_>,
    ) -> Result<(), ErrorKind> {
        let codecs = &chunk.lv.bytes_codecs;
        check_plausible(codecs, chunk.at.len, chunk.stored_len)?;
        let mut scratch = std::mem::take(&mut ctx.scratch);
        grow(&mut scratch, chunk.filters.buffer_len()?)?;
        let result = scratch
            .get_mut(..chunk.stored_len)
            .ok_or_else(|| ErrorKind::Internal {
                what: "scratch shorter than the stored chunk",
            })
            .and_then(|stored| decode_stored(self.store, ctx, chunk.at, codecs, stored))
            .and_then(|()| chunk.filters.undo(&mut scratch, &mut ctx.spare))
            .and_then(|()| {
                let decoded =
                    scratch
                        .get_mut(..chunk.chunk_len)
                        .ok_or_else(|| ErrorKind::Internal {
                            what: "scratch shorter than the chunk",
                        })?;
                self.to_native(decoded, chunk.endian);
                out.copy_runs(runs, decoded, 0)
            });
        ctx.scratch = scratch;
        result
    }

    /// Path 3: decodes the chunk stored `at` (of `chunk_len` decoded
    /// bytes, with no filters) through the worker's window, copying each window's bytes to
    /// the `runs` (which walk the chunk forwards) they belong to. Returns `false`, having
    /// written nothing, for a zstd frame whose declared window is larger than the chunk (the
    /// C library would keep that window): the caller then decodes it whole.
    fn read_windowed(
        &self,
        ctx: &mut ReadContext,
        lv: &ChainLevel,
        at: Stored<'_>,
        chunk_len: usize,
        runs: Runs,
        out: &mut PieceOut<'_, '_>,
    ) -> Result<bool, ErrorKind> {
        // Nothing is allocated on the metadata's word here, but a stored chunk that cannot
        // decode to the chunk is refused as early, and by the same error, as on path 3b.
        check_plausible(&lv.bytes_codecs, at.len, chunk_len)?;
        let mut runs = runs.peekable();
        let mut at_run = 0usize;
        let result = decode_windowed(
            self.store,
            ctx,
            at,
            &lv.bytes_codecs,
            DecodedSize::Exact(chunk_len),
            |pos, bytes| {
                // `bytes` are the chunk's `pos..pos + bytes.len()`: copy what runs need.
                let end = pos + bytes.len();
                while let Some(run) = runs.peek() {
                    let from = (run.src + at_run).max(pos);
                    let to = (run.src + run.len).min(end);
                    if from >= end {
                        break;
                    }
                    if from < to {
                        let src =
                            bytes
                                .get(from - pos..to - pos)
                                .ok_or_else(|| ErrorKind::Internal {
                                    what: "a run outside the window's bytes",
                                })?;
                        out.get(run.dst + (from - run.src), to - from)?
                            .copy_from_slice(src);
                    }
                    if run.src + run.len <= end {
                        runs.next();
                        at_run = 0;
                    } else {
                        at_run = to.max(run.src) - run.src;
                        break;
                    }
                }
                Ok(())
            },
        );
        match result {
            Err(ErrorKind::Decode(DecodeError::WindowTooLarge { .. })) => Ok(false),
            Err(e) => Err(e),
            Ok(()) if runs.peek().is_some() => Err(ErrorKind::Internal {
                what: "a chunk decoded through a window ended before its runs",
            }),
            Ok(()) => Ok(true),
        }
    }

    /// Path 4: reads only the byte ranges `runs` need from an uncompressed chunk, coalescing
    /// ranges closer than [`COALESCE_GAP`] into reads of at most [`COALESCE_MAX`] bytes. Returns `false` (having read nothing) when the runs
    /// do not walk the chunk forwards (a transposed chunk): the caller then reads it whole.
    fn read_ranges(
        &self,
        ctx: &mut ReadContext,
        at: Stored<'_>,
        chunk_len: usize,
        runs: Runs,
        endian: Option<Endian>,
        out: &mut PieceOut<'_, '_>,
    ) -> Result<bool, ErrorKind> {
        let Stored { key, offset, len } = at;
        if len != chunk_len as u64 {
            return Err(ErrorKind::Decode(DecodeError::SizeMismatch {
                codec: CodecName::Bytes,
                expected: chunk_len as u64,
                got: len,
            }));
        }
        if !walks_forwards(runs.clone()) {
            return Ok(false);
        }
        let unit = self.meta.dtype.scalar_size();
        let swap = |buf: &mut [u8]| {
            if let Some(e) = endian {
                to_native_in_place(buf, unit, e);
            }
        };
        // Groups of runs: (iterator positioned at the group's first run, count, span).
        let mut group: Option<(Runs, usize, usize, usize)> = None;
        let mut rest = runs;
        loop {
            let here = rest.clone();
            let next: Option<Run> = rest.next();
            if let (Some((_, count, start, end)), Some(run)) = (&mut group, next)
                && run.src - *end <= COALESCE_GAP
                && run.src + run.len - *start <= COALESCE_MAX
            {
                *count += 1;
                *end = run.src + run.len;
                continue;
            }
            if let Some((first, count, start, end)) = group.take() {
                if count == 1 {
                    if let Some(run) = first.clone().next() {
                        let dst = out.get(run.dst, run.len)?;
                        self.store
                            .read_into(key, offset + run.src as u64, dst)
                            .map_err(ErrorKind::Store)?;
                        swap(dst);
                    }
                } else {
                    let mut scratch = std::mem::take(&mut ctx.scratch);
                    grow(&mut scratch, end - start)?;
                    let result = self
                        .store
                        .read_into(key, offset + start as u64, &mut scratch)
                        .map_err(ErrorKind::Store)
                        .and_then(|()| {
                            swap(&mut scratch);
                            out.copy_runs(first.take(count), &scratch, start)
                        });
                    ctx.scratch = scratch;
                    result?;
                }
            }
            match next {
                Some(run) => group = Some((here, 1, run.src, run.src + run.len)),
                None => return Ok(true),
            }
        }
    }
}

/// Whether `runs` walk the chunk forwards: each starts at or after the end of the one before.
fn walks_forwards(runs: Runs) -> bool {
    let mut prev_end = 0usize;
    for run in runs {
        if run.src < prev_end {
            return false;
        }
        prev_end = run.src + run.len;
    }
    true
}

/// The filters of one chain level over one chunk of `elements` elements.
#[derive(Clone, Copy)]
struct Filters<'l> {
    level: &'l ChainLevel,
    elements: usize,
    /// The tables the level's filters decode with, by position (`categorize`'s labels).
    tables: &'l [Vec<u8>],
}

impl Filters<'_> {
    /// The chunk's bytes before each filter and after the last ([`ChainLevel::filter_lens`]).
    fn lens(&self) -> Result<FilterLens, ErrorKind> {
        self.level.filter_lens(self.elements).ok_or(OVERFLOW)
    }

    /// Whether they can be undone inside the chunk's own part of the output: the chunk is
    /// never larger than its elements on the way (no filter widens elements on encoding), and
    /// no filter needs a copy (`shuffle`).
    fn in_place(&self) -> bool {
        let Ok(lens) = self.lens() else {
            return false;
        };
        let own = lens.first().copied().unwrap_or(0);
        lens.iter().all(|&len| len <= own) && !self.level.filters.iter().any(Filter::needs_spare)
    }

    /// Bytes the buffer they are undone in needs: the chunk at its largest on the way.
    fn buffer_len(&self) -> Result<usize, ErrorKind> {
        Ok(self.lens()?.iter().copied().max().unwrap_or(0))
    }

    /// Undoes the filters, last first, over `buf` (the decoded stored bytes at its start).
    fn undo(&self, buf: &mut [u8], spare: &mut Vec<u8>) -> Result<(), ErrorKind> {
        let lens = self.lens()?;
        for (k, f) in self.level.filters.iter().enumerate().rev() {
            let (Some(&decoded), Some(&encoded)) = (lens.get(k), lens.get(k + 1)) else {
                return Err(ErrorKind::Internal {
                    what: "a filter without its sizes",
                });
            };
            let span = decoded.max(encoded);
            let part = buf.get_mut(..span).ok_or_else(|| ErrorKind::Internal {
                what: "a filter's buffer shorter than its elements",
            })?;
            if f.needs_spare() {
                grow(spare, span)?;
            }
            let mut aux = FilterAux {
                spare,
                table: self.tables.get(k).map_or(&[], Vec::as_slice),
            };
            f.decode(part, self.elements, &mut aux)
                .map_err(ErrorKind::Decode)?;
        }
        Ok(())
    }
}
