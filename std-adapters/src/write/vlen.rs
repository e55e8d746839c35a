//! Variable-length values (strings, bytes) written from offsets and values, Arrow style
//! ([`Array::write_vlen`]), the mirror of [`Array::read_vlen`].
//!
//! Each chunk the region touches is stored as its `vlen-*` codec lays it out (a `u32` count,
//! then each element as a `u32` length and its bytes), gathered a window at a time into the
//! worker's compressor stream: no chunk-sized buffer, except for a compressor that takes a
//! chunk whole (numcodecs' LZ4), and the old values of a chunk the region cuts, decoded first
//! (one chunk per worker, as for fixed-size data). Edge chunks are padded with the fill value
//! and chunks left all fill value are not written (an old one is removed), as zarr-python does.

use zinto_core::codec::CodecName;
use zinto_core::{MemoryOrder, Piece, Region, Runs, product};

use super::chunk::{Worker, stream_kind};
use super::stream::{ChunkStream, StreamError};
use super::{ChunkPart, Pool, WRITE_WINDOW, WritePlan};
use crate::Array;
use crate::error::{Error, ErrorKind};
use crate::options::WriteOptions;
use crate::read::context::ReadContext;
use crate::read::decode::Stored;
use crate::read::vlen::{ChunkIn, ChunkItems, vlen_codec};
use crate::store::{ObjectWriter, Opened, Store};

fn refused(element: Option<usize>, why: &'static str) -> ErrorKind {
    ErrorKind::VlenInput {
        element: element.map(|i| i as u64),
        why,
    }
}

/// A region's values, checked: element `i` is `values[offsets[i]..offsets[i + 1]]`.
#[derive(Clone, Copy)]
struct Input<'a> {
    offsets: &'a [u64],
    values: &'a [u8],
}

impl<'a> Input<'a> {
    /// `offsets` and `values` for `elements` elements, each checked (in order, within the
    /// values, at most `u32::MAX` bytes, UTF-8 if `utf8`) before any chunk is written.
    fn check(
        offsets: &'a [u64],
        values: &'a [u8],
        elements: usize,
        utf8: bool,
    ) -> Result<Self, ErrorKind> {
        if elements.checked_add(1) != Some(offsets.len()) {
            return Err(refused(
                None,
                "the offsets are not one more than the region's elements",
            ));
        }
        for (i, pair) in offsets.windows(2).enumerate() {
            let (start, end) = (pair[0], pair[1]);
            if end < start {
                return Err(refused(Some(i), "an offset before the one preceding it"));
            }
            let item = usize::try_from(start)
                .ok()
                .zip(usize::try_from(end).ok())
                .and_then(|(s, e)| values.get(s..e))
                .ok_or_else(|| refused(Some(i), "an offset past the values"))?;
            if u32::try_from(item.len()).is_err() {
                return Err(refused(Some(i), "an element over 4 GiB (u32 lengths)"));
            }
            if utf8 && std::str::from_utf8(item).is_err() {
                return Err(refused(Some(i), "a string that is not UTF-8"));
            }
        }
        Ok(Self { offsets, values })
    }

    /// Element `i` (checked by [`Self::check`]).
    fn item(&self, i: usize) -> Result<&'a [u8], ErrorKind> {
        let at = |k: usize| self.offsets.get(k).and_then(|&o| usize::try_from(o).ok());
        at(i)
            .zip(at(i + 1))
            .and_then(|(s, e)| self.values.get(s..e))
            .ok_or_else(|| ErrorKind::Internal {
                what: "a variable-length element outside the checked input",
            })
    }
}

/// Where one element of a chunk being written comes from.
#[derive(Clone, Copy)]
enum Source {
    /// The fill value (outside the region, no old chunk).
    Fill,
    /// The old chunk's element at this index.
    Old(usize),
    /// The input's element at this index.
    Input(usize),
}

/// One write of variable-length values: what every worker shares.
pub(super) struct VlenJob<'a, S> {
    pub(super) array: &'a Array<S>,
    pub(super) plan: &'a WritePlan,
    pub(super) codec: CodecName,
    region: &'a Region,
    input: Input<'a>,
    pub(super) options: &'a WriteOptions<'a>,
}

/// A worker's state, kept from chunk to chunk.
pub(super) struct VlenWorker {
    /// The compressor and its windows.
    chunk: Worker,
    /// Where the stored bytes gather before they go to the compressor (and, for a shard,
    /// where an old inner chunk is copied through).
    pub(super) gather: Vec<u8>,
    /// Each element of the chunk under way.
    sources: Vec<Source>,
    /// The old chunk, for a chunk the region cuts.
    old: ChunkItems,
    pub(super) ctx: ReadContext,
}

impl<S: Store> Array<S> {
    /// Writes variable-length values (a `string` or `bytes` array) into `region`, C order,
    /// Arrow style: element `i` is `values[offsets[i]..offsets[i + 1]]`, as
    /// [`Array::read_vlen`] gives them ([`VlenData::offsets`](crate::VlenData::offsets),
    /// [`VlenData::values`](crate::VlenData::values)). One worker per core.
    ///
    /// ```
    /// use zinto::{ArrayBuilder, DataType, MemoryStore, Region};
    ///
    /// let array = ArrayBuilder::new(&[5], DataType::String, &[2])
    ///     .zstd(3)
    ///     .create(MemoryStore::new(), "names")?;
    /// let (offsets, values) = ([0, 2, 2, 5], "abçd");
    /// array.write_vlen(&Region::from_ranges(&[1..4])?, &offsets, values.as_bytes())?;
    /// let back = array.read_vlen(&Region::whole(&[5])?)?;
    /// assert_eq!(back.iter().collect::<Vec<_>>(), [&b""[..], b"ab", b"", "çd".as_bytes(), b""]);
    /// # Ok::<(), zinto::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`ErrorKind::VlenInput`] for offsets that do not fit the region or the values, or a
    /// string that is not UTF-8 (nothing is written then); [`ErrorKind::WrongType`] for an
    /// array of fixed-size elements (use [`Array::write_from`]); otherwise as
    /// [`Array::write_from`].
    pub fn write_vlen(&self, region: &Region, offsets: &[u64], values: &[u8]) -> Result<(), Error> {
        self.write_vlen_with(region, offsets, values, &WriteOptions::default())
    }

    /// [`Self::write_vlen`] with explicit options (threads, progress, cancel, empty chunks).
    ///
    /// # Errors
    /// As [`Self::write_vlen`]; [`ErrorKind::Cancelled`] once `cancel` is set.
    pub fn write_vlen_with(
        &self,
        region: &Region,
        offsets: &[u64],
        values: &[u8],
        options: &WriteOptions<'_>,
    ) -> Result<(), Error> {
        let err = |kind| Error::new(self.path(), None, kind);
        let plan = WritePlan::of_vlen(self.metadata()).map_err(err)?;
        let codec = vlen_codec(self.dtype()).ok_or_else(|| {
            err(ErrorKind::Internal {
                what: "a variable-length plan for a fixed-size type",
            })
        })?;
        let elements = region
            .num_elements()
            .and_then(|n| usize::try_from(n).map_err(|_| zinto_core::LayoutError::Overflow))
            .map_err(|e| err(ErrorKind::Layout(e)))?;
        let utf8 = codec == CodecName::VlenUtf8;
        let input = Input::check(offsets, values, elements, utf8).map_err(err)?;
        let pool = Pool::new(self, region, options)?;
        let job = VlenJob {
            array: self,
            plan: &plan,
            codec,
            region,
            input,
            options,
        };
        pool.run(
            || VlenWorker::new(&plan, options.decoded_chunk_limit()),
            |worker, piece| {
                let key = self.chunk_key(&piece.chunk);
                worker
                    .write_piece(&job, piece, &key)
                    .map_err(|kind| Error::new(self.path(), Some(&key), kind))
            },
        )
    }
}

impl VlenWorker {
    fn new(plan: &WritePlan, limit: u64) -> Result<Self, ErrorKind> {
        Ok(Self {
            chunk: Worker::new(plan)?,
            gather: Vec::new(),
            sources: Vec::new(),
            old: ChunkItems::new(limit),
            ctx: ReadContext::new()?,
        })
    }

    /// Writes the chunk (or shard) of `piece` as `key`.
    fn write_piece<S: Store>(
        &mut self,
        job: &VlenJob<'_, S>,
        piece: &Piece,
        key: &str,
    ) -> Result<(), ErrorKind> {
        if let Some(layout) = job.plan.shard() {
            return self.write_shard(job, piece, layout, key);
        }
        let meta = job.array.metadata();
        let ChunkPart { cut, shape, .. } = ChunkPart::of(&meta.grid, piece)?;
        // Guarded from the read of the old chunk to its replacement (see `Worker::cut`).
        super::update(job.array, (key, cut, job.options.cancel), |lock| {
            // The old chunk, where the region cuts the chunk and one is stored: its length and
            // bytes from one open of it.
            let opened = match cut {
                false => Opened::Absent,
                true => job.array.store().open(key).map_err(ErrorKind::Store)?,
            };
            let (old, from) = opened_parts(&opened, job.array.store());
            let old = old.map(|len| ChunkIn {
                at: Stored {
                    key,
                    offset: 0,
                    len,
                },
                codec: job.codec,
                level: meta.chain.outer(),
                shape: &shape,
            });
            let part = (&piece.in_chunk, &piece.in_output);
            self.lay_sources(job, (&shape, part), old.as_ref().map(|o| (from, o)))?;
            // A conditional update cannot delete on its condition: it stores the fill.
            if !lock.is_conditional() && self.all_fill(job)? {
                return job.array.store().delete(key).map_err(ErrorKind::Store);
            }
            let mut writer = job.array.store().writer(key).map_err(ErrorKind::Store)?;
            self.store_chunk(job, &mut *writer)?;
            writer.commit().map_err(ErrorKind::Store)
        })
    }

    /// Whether the chunk laid out is all fill value and not to be written (zarr-python's
    /// `write_empty_chunks=False`, the default).
    pub(super) fn all_fill<S: Store>(&self, job: &VlenJob<'_, S>) -> Result<bool, ErrorKind> {
        if job.options.extra.write_empty_chunks {
            return Ok(false);
        }
        let fill = job.array.metadata().fill_value.as_bytes();
        for &source in &self.sources {
            if element(&self.old, job, source)? != fill {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Where each element of a chunk comes from: the region's input for `in_chunk` (the
    /// region's part, in the chunk's coordinates, landing at `in_output` of the region), else
    /// the `old` chunk (if given, with the store it is read from), else the fill value.
    pub(super) fn lay_sources<S: Store>(
        &mut self,
        job: &VlenJob<'_, S>,
        (shape, (in_chunk, in_output)): (&[u64], (&Region, &Region)),
        old: Option<(&dyn Store, &ChunkIn<'_>)>,
    ) -> Result<(), ErrorKind> {
        let elements = product(shape)
            .ok()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| ErrorKind::Layout(zinto_core::LayoutError::Overflow))?;
        self.sources.clear();
        self.sources
            .try_reserve_exact(elements)
            .map_err(|_| ErrorKind::OutOfMemory {
                bytes: (elements as u64).saturating_mul(16),
            })?;
        self.sources.resize(elements, Source::Fill);
        if let Some((from, old)) = old {
            self.old.load(&from, &mut self.ctx, old)?;
            for (i, s) in self.sources.iter_mut().enumerate() {
                *s = Source::Old(i);
            }
        }
        let order = MemoryOrder::c(shape.len()).map_err(ErrorKind::Layout)?;
        let runs = Runs::new(1, shape, &order, in_chunk, job.region.shape(), in_output)
            .map_err(ErrorKind::Layout)?;
        for run in runs {
            let slots = self
                .sources
                .get_mut(run.src..run.src + run.len)
                .ok_or_else(|| ErrorKind::Internal {
                    what: "a run outside its chunk's elements",
                })?;
            for (k, slot) in slots.iter_mut().enumerate() {
                *slot = Source::Input(run.dst + k);
            }
        }
        Ok(())
    }

    /// The chunk laid out, encoded into `writer`: the count, then each element's length and
    /// bytes, streamed. Returns the bytes stored.
    pub(super) fn store_chunk<S: Store>(
        &mut self,
        job: &VlenJob<'_, S>,
        writer: &mut dyn ObjectWriter,
    ) -> Result<u64, ErrorKind> {
        let count = u32::try_from(self.sources.len())
            .map_err(|_| refused(None, "a chunk of over 4 Gi elements (a u32 count)"))?;
        let mut total = 4u64;
        for &source in &self.sources {
            let len = element(&self.old, job, source)?.len() as u64;
            total = total
                .checked_add(4 + len)
                .ok_or_else(|| ErrorKind::Layout(zinto_core::LayoutError::Overflow))?;
        }
        let cap = if job.plan.whole_input {
            usize::try_from(total).map_err(|_| ErrorKind::OutOfMemory { bytes: total })?
        } else {
            WRITE_WINDOW
        };
        let mut gather = std::mem::take(&mut self.gather);
        gather.clear();
        if gather.capacity() < cap {
            gather
                .try_reserve_exact(cap)
                .map_err(|_| ErrorKind::OutOfMemory { bytes: cap as u64 })?;
        }
        let result = self.stream_chunk(job, writer, (count, total), &mut gather);
        self.gather = gather;
        result
    }

    fn stream_chunk<S: Store>(
        &mut self,
        job: &VlenJob<'_, S>,
        writer: &mut dyn ObjectWriter,
        (count, total): (u32, u64),
        gather: &mut Vec<u8>,
    ) -> Result<u64, ErrorKind> {
        let sources = std::mem::take(&mut self.sources);
        let result = (|| {
            let mut stream = Gather {
                cap: gather.capacity(),
                buf: gather,
                stream: self.chunk.stream_of(total, job.plan, writer)?,
            };
            stream.put(&count.to_le_bytes()).map_err(stream_kind)?;
            for &source in &sources {
                let item = element(&self.old, job, source)?;
                // Checked to fit a u32 (input) or read as one (old chunk, fill value).
                let len = u32::try_from(item.len())
                    .map_err(|_| refused(None, "an element over 4 GiB (u32 lengths)"))?;
                stream.put(&len.to_le_bytes()).map_err(stream_kind)?;
                stream.put(item).map_err(stream_kind)?;
            }
            stream.finish().map_err(stream_kind)
        })();
        self.sources = sources;
        result
    }
}

/// The bytes of the element `source` names: of the old chunk `old`, the job's input or its
/// array's fill value.
fn element<'s, S: Store>(
    old: &'s ChunkItems,
    job: &VlenJob<'s, S>,
    source: Source,
) -> Result<&'s [u8], ErrorKind> {
    match source {
        Source::Fill => Ok(job.array.metadata().fill_value.as_bytes()),
        Source::Old(i) => old.item(i),
        Source::Input(i) => job.input.item(i),
    }
}

/// A chunk's stored bytes gathered into a window (`cap` bytes) before they go on to the
/// stream, so that short elements are not fed to the compressor one by one.
struct Gather<'g, 's> {
    buf: &'g mut Vec<u8>,
    cap: usize,
    stream: ChunkStream<'s>,
}

impl Gather<'_, '_> {
    fn put(&mut self, bytes: &[u8]) -> Result<(), StreamError> {
        if self.buf.len() + bytes.len() > self.cap {
            self.flush()?;
        }
        if bytes.len() >= self.cap {
            return self.stream.push(bytes);
        }
        self.buf.extend_from_slice(bytes);
        Ok(())
    }

    fn flush(&mut self) -> Result<(), StreamError> {
        if !self.buf.is_empty() {
            self.stream.push(&self.buf[..])?;
            self.buf.clear();
        }
        Ok(())
    }

    /// The bytes stored.
    fn finish(mut self) -> Result<u64, StreamError> {
        self.flush()?;
        self.stream.finish()
    }
}

/// The length of the object `opened` (`None` if absent) and the store that reads that one
/// version of it: its pinned object, else `store`.
pub(super) fn opened_parts<'o, S: Store>(
    opened: &'o Opened<'_>,
    store: &'o S,
) -> (Option<u64>, &'o dyn Store) {
    match opened {
        Opened::Absent => (None, store),
        Opened::Unpinned { len } => (Some(*len), store),
        Opened::Pinned { len, object } => (Some(*len), &**object),
    }
}
