//! Variable-length elements (strings, bytes) of a selection as offsets and values, Arrow style.
//!
//! A variable-length selection cannot go into one buffer sized up front: its size is the sum
//! of its elements' lengths, which only the chunks know. So it is read in two passes over the
//! chunks the selection touches:
//!
//! 1. each chunk is decoded into the worker's scratch and the length of every selected
//!    element is written into `offsets` (one `u64` per element, plus one), which is then
//!    turned into running sums;
//! 2. `values` is allocated at exactly the last offset, each chunk is decoded again and every
//!    selected element copied to its place.
//!
//! Each allocation is sized exactly; the chunks are decoded twice (the price of never holding
//! more than one decoded chunk). A chunk whose lengths differ between the passes (rewritten
//! during the read) is an error, not a silent mix.

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, Ordering};

use zinto_core::codec::{
    ArrayToBytes, BytesCodecs, ChainLevel, CodecName, DecodeError, ShardLayout, VlenItems,
    decoded_len, size_probe,
};
use zinto_core::{LayoutError, MemoryOrder, Piece, Region, Runs, product};

use super::chunk::{Found, on_one_version};
use super::context::ReadContext;
use super::decode::{
    DecodedSize, OVERFLOW, Stored, check_plausible, decode_stored, decode_windowed, grow,
    most_decoded,
};
use super::kept::Kept;
use crate::error::ErrorKind;
use crate::metadata::{ArrayMetadata, DataType};
use crate::options::OnAbsent;
use crate::store::{Opened, READ_TRIES, Store, StoreError};

/// Called with (output element index, the element's bytes) for every selected element.
type Visit<'v> = dyn FnMut(usize, &[u8]) -> Result<(), ErrorKind> + 'v;

/// A selection of variable-length elements, C order: element `i` is
/// `values[offsets[i]..offsets[i + 1]]`.
///
/// ```
/// use zinto::{Array, MemoryStore, Region};
///
/// let mut store = MemoryStore::new();
/// store.insert("s/zarr.json", br#"{"zarr_format": 3, "node_type": "array",
///     "shape": [3], "data_type": "string", "fill_value": "?",
///     "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
///     "chunk_key_encoding": {"name": "default"},
///     "codecs": [{"name": "vlen-utf8"}]}"#.to_vec());
/// // Chunk 0 holds ["ab", "ç"]; chunk 1 is missing, so element 2 is the fill value.
/// store.insert("s/c/0", [&2u32.to_le_bytes()[..], &2u32.to_le_bytes(), b"ab",
///     &2u32.to_le_bytes(), "ç".as_bytes()].concat());
///
/// let array = Array::open(&store, "s")?;
/// let strings = array.read_vlen(&Region::whole(&[3])?)?;
/// assert_eq!(strings.offsets(), [0, 2, 4, 5]);
/// assert_eq!(strings.get_str(1), Some("ç"));
/// assert_eq!(strings.iter().collect::<Vec<_>>(), [&b"ab"[..], "ç".as_bytes(), b"?"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VlenData {
    shape: Vec<u64>,
    offsets: Vec<u64>,
    values: Vec<u8>,
    utf8: bool,
}

impl VlenData {
    /// The selection's shape.
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    /// How many elements (the product of the shape).
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Whether the selection holds no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// One offset per element plus one: element `i` is `values[offsets[i]..offsets[i + 1]]`.
    pub fn offsets(&self) -> &[u64] {
        &self.offsets
    }

    /// The elements' bytes, end to end.
    pub fn values(&self) -> &[u8] {
        &self.values
    }

    /// Whether the elements are UTF-8 strings (checked as they were read).
    pub fn is_utf8(&self) -> bool {
        self.utf8
    }

    /// The bytes of element `i` (C order), `None` past the end.
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        let start = usize::try_from(*self.offsets.get(i)?).ok()?;
        let end = usize::try_from(*self.offsets.get(i.checked_add(1)?)?).ok()?;
        self.values.get(start..end)
    }

    /// Element `i` as a string: `None` past the end, or if the elements are not strings.
    pub fn get_str(&self, i: usize) -> Option<&str> {
        if !self.utf8 {
            return None;
        }
        std::str::from_utf8(self.get(i)?).ok()
    }

    /// The elements' bytes in C order.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        (0..self.len()).map_while(|i| self.get(i))
    }

    /// The two buffers: `(offsets, values)`.
    pub fn into_parts(self) -> (Vec<u64>, Vec<u8>) {
        (self.offsets, self.values)
    }
}

/// An error with the chunk key it happened at, if any.
type KeyedError = (Option<String>, ErrorKind);

/// The `vlen-*` codec of a variable-length data type; `None` for a type of fixed size.
pub(crate) fn vlen_codec(dtype: DataType) -> Option<CodecName> {
    match dtype {
        DataType::String => Some(CodecName::VlenUtf8),
        DataType::Bytes => Some(CodecName::VlenBytes),
        _ => None,
    }
}

/// The most one chunk of variable-length values decodes to unless a read allows more
/// ([`ReadOptions::decoded_chunk_limit`](crate::ReadOptions::decoded_chunk_limit)): 1 GiB,
/// more than any real dataset's string chunk (zarr-python's default chunks hold a few MB).
pub const DECODED_CHUNK_LIMIT: u64 = 1 << 30;

/// What a variable-length read is told besides what to read.
#[derive(Clone, Copy)]
pub(crate) struct Hooks<'a> {
    /// Set to stop the read before its next chunk.
    pub(crate) cancel: Option<&'a AtomicBool>,
    /// Told of each absent chunk.
    pub(crate) absent: Option<OnAbsent<'a>>,
    /// The most one chunk may decode to, in bytes.
    pub(crate) limit: u64,
}

/// Reads the variable-length `selection` of the array `meta` describes (see [`VlenData`]).
pub(crate) fn read<S: Store>(
    store: &S,
    meta: &ArrayMetadata,
    chunk_key: &dyn Fn(&[u64]) -> String,
    selection: &Region,
    hooks: Hooks<'_>,
) -> Result<VlenData, KeyedError> {
    let Hooks {
        cancel,
        absent,
        limit,
    } = hooks;
    let at = |kind| (None, kind);
    let codec = vlen_codec(meta.dtype).ok_or_else(|| {
        at(ErrorKind::WrongType {
            dtype: meta.dtype,
            read_as: "variable-length values (use Array::read_into)",
        })
    })?;
    // The offsets first: a selection too large for them is refused before anything else is
    // allocated for it.
    let n = selection
        .num_elements()
        .and_then(|n| usize::try_from(n).map_err(|_| LayoutError::Overflow))
        .map_err(|e| at(ErrorKind::Layout(e)))?;
    let walk = Walk {
        store,
        meta,
        codec,
        chunk_key,
        out_shape: selection.shape(),
        pieces: meta
            .grid
            .pieces(selection)
            .map_err(|e| at(ErrorKind::Layout(e)))?
            .collect(),
        cancel,
        absent: RefCell::new(Vec::new()),
        kept: RefCell::default(),
        again: Cell::new(false),
    };
    let mut ctx = ReadContext::new().map_err(at)?;
    let mut chunk = ChunkItems::new(limit);
    // A chunk replaced between the two passes (its lengths then its values) starts the read
    // again, up to READ_TRIES times: a read gives each chunk's old version or its new one.
    let mut tries = 1;
    let (offsets, values) = loop {
        let offsets = zeroed_offsets(n).map_err(at)?;
        let read = walk
            .offsets(&mut ctx, &mut chunk, offsets)
            .and_then(|offsets| Ok((walk.values(&mut ctx, &mut chunk, &offsets)?, offsets)));
        match read {
            Err((_, ErrorKind::ChunkChanged)) if tries < READ_TRIES => {
                walk.again.set(true);
                tries += 1;
            }
            Err(e) => return Err(e),
            Ok((values, offsets)) => break (offsets, values),
        }
    };
    if let Some(absent) = absent {
        for &i in walk.absent.borrow().iter() {
            if let Some(piece) = walk.pieces.get(i) {
                absent(&piece.chunk);
            }
        }
    }
    Ok(VlenData {
        shape: selection.shape().to_vec(),
        offsets,
        values,
        utf8: codec == CodecName::VlenUtf8,
    })
}

/// `n + 1` zeroed offsets, or why not (refused, not aborting, when too many).
fn zeroed_offsets(n: usize) -> Result<Vec<u64>, ErrorKind> {
    let slots = n.checked_add(1).ok_or(OVERFLOW)?;
    let mut offsets = Vec::new();
    offsets
        .try_reserve_exact(slots)
        .map_err(|_| ErrorKind::OutOfMemory {
            bytes: (slots as u64).saturating_mul(8),
        })?;
    offsets.resize(slots, 0u64);
    Ok(offsets)
}

/// Which of a read's two passes over its chunks.
#[derive(Clone, Copy)]
enum Pass {
    /// The lengths (absent chunks are noted here).
    First,
    /// The values.
    Second,
}

/// The two passes of one read over the chunks its selection touches.
struct Walk<'a, S> {
    store: &'a S,
    meta: &'a ArrayMetadata,
    /// `vlen-utf8` or `vlen-bytes`.
    codec: CodecName,
    chunk_key: &'a dyn Fn(&[u64]) -> String,
    out_shape: &'a [u64],
    pieces: Vec<Piece>,
    cancel: Option<&'a AtomicBool>,
    /// The pieces whose chunks the last first pass found absent: told to the caller once
    /// the read is done.
    absent: RefCell<Vec<usize>>,
    /// The chunks the first pass opened, kept for the second: both read one version.
    kept: RefCell<Kept<'a>>,
    /// Whether the read started again (a chunk changed between its passes): the first pass
    /// then opens each chunk afresh ([`Store::reopen`]).
    again: Cell<bool>,
}

impl<'a, S: Store> Walk<'a, S> {
    /// Calls `visit` for every selected element, chunk by chunk.
    /// Absent chunks are noted (`self.absent`) in the pass that says `Pass::First`.
    fn each(
        &self,
        (ctx, chunk): (&mut ReadContext, &mut ChunkItems),
        pass: Pass,
        visit: &mut Visit<'_>,
    ) -> Result<(), KeyedError> {
        if let Pass::First = pass {
            self.absent.borrow_mut().clear();
            self.kept.borrow_mut().clear();
        }
        for (i, piece) in self.pieces.iter().enumerate() {
            if self.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                return Err((None, ErrorKind::Cancelled));
            }
            let key = (self.chunk_key)(&piece.chunk);
            let found = self
                .visit_piece((ctx, chunk), (i, &key, piece), pass, visit)
                .map_err(|kind| (Some(key.clone()), kind))?;
            if let (Found::Absent, Pass::First) = (found, pass) {
                self.absent.borrow_mut().push(i);
            }
        }
        Ok(())
    }

    /// Pass 1: where each element starts in the values, and where the last ends, in
    /// `offsets` (one more than the elements, zeroed).
    fn offsets(
        &self,
        ctx: &mut ReadContext,
        chunk: &mut ChunkItems,
        mut offsets: Vec<u64>,
    ) -> Result<Vec<u64>, KeyedError> {
        let at = |kind| (None, kind);
        // Lengths, at offsets[i + 1], then their running sums.
        self.each((ctx, chunk), Pass::First, &mut |i, item| {
            let slot = offsets.get_mut(i + 1).ok_or_else(|| ErrorKind::Internal {
                what: "a variable-length element outside the selection",
            })?;
            *slot = item.len() as u64;
            Ok(())
        })?;
        let mut total = 0u64;
        for o in offsets.iter_mut() {
            total = total.checked_add(*o).ok_or(at(OVERFLOW))?;
            *o = total;
        }
        Ok(offsets)
    }

    /// Pass 2: the values, each element checked against the length pass 1 saw.
    fn values(
        &self,
        ctx: &mut ReadContext,
        chunk: &mut ChunkItems,
        offsets: &[u64],
    ) -> Result<Vec<u8>, KeyedError> {
        let at = |kind| (None, kind);
        let total = offsets.last().copied().ok_or_else(|| {
            at(ErrorKind::Internal {
                what: "variable-length offsets without their end",
            })
        })?;
        let total = usize::try_from(total).map_err(|_| at(OVERFLOW))?;
        let mut values = crate::buffer::zeroed_buffer(total).ok_or_else(|| {
            at(ErrorKind::OutOfMemory {
                bytes: total as u64,
            })
        })?;
        let utf8 = self.codec == CodecName::VlenUtf8;
        self.each((ctx, chunk), Pass::Second, &mut |i, item| {
            let (Some(&start), Some(&end)) = (offsets.get(i), offsets.get(i + 1)) else {
                return Err(ErrorKind::Internal {
                    what: "a variable-length element outside the selection",
                });
            };
            if end.checked_sub(start) != Some(item.len() as u64) {
                return Err(ErrorKind::ChunkChanged);
            }
            if utf8 && std::str::from_utf8(item).is_err() {
                return Err(ErrorKind::Decode(DecodeError::Corrupt {
                    codec: self.codec,
                    reason: "a string that is not UTF-8",
                }));
            }
            let dst = usize::try_from(start)
                .ok()
                .and_then(|s| values.get_mut(s..s.checked_add(item.len())?))
                .ok_or_else(|| ErrorKind::Internal {
                    what: "a variable-length element past the values buffer",
                })?;
            dst.copy_from_slice(item);
            Ok(())
        })?;
        Ok(values)
    }
    /// Calls `visit(output element, bytes)` for every element of `piece` (the read's piece
    /// `index`), from the chunk the first pass kept open, else opened now.
    fn visit_piece(
        &self,
        (ctx, chunk): (&mut ReadContext, &mut ChunkItems),
        (index, key, piece): (usize, &str, &Piece),
        pass: Pass,
        visit: &mut Visit<'_>,
    ) -> Result<Found, ErrorKind> {
        let kept = match pass {
            Pass::First => None,
            Pass::Second => self.kept.borrow_mut().take(index),
        };
        let opened = match kept {
            Some(opened) => opened,
            None if self.again.get() => self.store.reopen(key).map_err(ErrorKind::Store)?,
            None => self.store.open(key).map_err(ErrorKind::Store)?,
        };
        let (found, opened) = self.visit_version((ctx, chunk), (key, piece), opened, visit)?;
        if let Pass::First = pass {
            self.kept.borrow_mut().keep(index, opened);
        }
        Ok(found)
    }

    /// [`Self::visit_piece`] from the chunk `opened`, or if it changes during the read, the
    /// chunk opened afresh (see `ChunkReader::read_piece`): its length, a shard's index and
    /// its inner chunks from one version. Gives back the version read.
    fn visit_version(
        &self,
        (ctx, chunk): (&mut ReadContext, &mut ChunkItems),
        (key, piece): (&str, &Piece),
        opened: Opened<'a>,
        visit: &mut Visit<'_>,
    ) -> Result<(Found, Opened<'a>), ErrorKind> {
        let outer = self.meta.chain.outer();
        // The chunk's own shape: on a rectilinear grid, not the longest edges.
        let shape = self
            .meta
            .grid
            .chunk_shape_at(&piece.chunk)
            .map_err(ErrorKind::Layout)?;
        on_one_version((self.store, key), opened, |opened| {
            let (len, store): (_, &dyn Store) = match opened {
                Opened::Absent => {
                    return self
                        .visit_fill(&piece.in_output, visit)
                        .map(|()| Found::Absent);
                }
                Opened::Unpinned { len } => (*len, self.store),
                Opened::Pinned { len, object } => (*len, &**object),
            };
            let at = Stored {
                key,
                offset: 0,
                len,
            };
            match &outer.array_to_bytes {
                ArrayToBytes::Bytes(_) => self.visit_chunk(
                    (ctx, &mut *chunk),
                    (store, outer, &shape),
                    at,
                    (&piece.in_chunk, &piece.in_output),
                    visit,
                ),
                ArrayToBytes::Sharding(layout) => {
                    let layout = layout.for_shard(&shape).map_err(ErrorKind::Layout)?;
                    self.visit_shard((ctx, &mut *chunk), (store, &layout), at, piece, visit)
                }
            }
            .map(|()| Found::Stored)
        })
    }

    /// Calls `visit` with the fill value for every element of `in_output` (a missing chunk).
    fn visit_fill(&self, in_output: &Region, visit: &mut Visit<'_>) -> Result<(), ErrorKind> {
        let order = MemoryOrder::c(in_output.ndim()).map_err(ErrorKind::Layout)?;
        let whole = Region::whole(in_output.shape()).map_err(ErrorKind::Layout)?;
        let runs = Runs::new(
            1,
            in_output.shape(),
            &order,
            &whole,
            self.out_shape,
            in_output,
        )
        .map_err(ErrorKind::Layout)?;
        let fill = self.meta.fill_value.as_bytes();
        for run in runs {
            for k in 0..run.len {
                visit(run.dst + k, fill)?;
            }
        }
        Ok(())
    }

    /// Calls `visit` for the elements `in_chunk` of the chunk of `level` and `shape` stored
    /// `at` in `store`, which land at `in_output`.
    fn visit_chunk(
        &self,
        (ctx, chunk): (&mut ReadContext, &mut ChunkItems),
        (store, level, shape): (&dyn Store, &ChainLevel, &[u64]),
        at: Stored<'_>,
        (in_chunk, in_output): (&Region, &Region),
        visit: &mut Visit<'_>,
    ) -> Result<(), ErrorKind> {
        let runs = Runs::new(1, shape, &level.order, in_chunk, self.out_shape, in_output)
            .map_err(ErrorKind::Layout)?;
        let chunk_in = ChunkIn {
            at,
            codec: self.codec,
            level,
            shape,
        };
        chunk.load(&store, ctx, &chunk_in)?;
        for run in runs {
            for k in 0..run.len {
                visit(run.dst + k, chunk.item(run.src + k)?)?;
            }
        }
        Ok(())
    }

    /// Calls `visit` for every element of `piece` of the shard stored `at` in `store`: its
    /// index first, then each inner chunk the piece touches (missing ones as the fill value).
    fn visit_shard(
        &self,
        (ctx, chunk): (&mut ReadContext, &mut ChunkItems),
        (store, layout): (&dyn Store, &ShardLayout),
        at: Stored<'_>,
        piece: &Piece,
        visit: &mut Visit<'_>,
    ) -> Result<(), ErrorKind> {
        let inner = self
            .meta
            .chain
            .levels()
            .get(1)
            .ok_or_else(|| ErrorKind::Internal {
                what: "a shard without its inner chain level",
            })?;
        let range = layout.index_range(at.len).map_err(ErrorKind::Shard)?;
        // Bounded by `at.len`, the shard's actual stored size.
        let mut index = vec![0u8; usize::try_from(range.len).map_err(|_| OVERFLOW)?];
        store
            .read_into(at.key, at.offset + range.offset, &mut index)
            .map_err(ErrorKind::Store)?;
        let index = layout.parse(&index, at.len).map_err(ErrorKind::Shard)?;
        let pieces = layout
            .grid()
            .pieces(&piece.in_chunk)
            .map_err(ErrorKind::Layout)?;
        for i in 0..pieces.chunk_count().map_err(ErrorKind::Layout)? {
            let ip = pieces.get(i).ok_or_else(|| ErrorKind::Internal {
                what: "an inner piece missing from its own count",
            })?;
            let in_output = shifted(&piece.in_output, &ip.in_output)?;
            match index.get(&ip.chunk).map_err(ErrorKind::Shard)? {
                None => self.visit_fill(&in_output, visit)?,
                Some(r) => {
                    let stored = at.within(r.offset, r.len);
                    let part = (&ip.in_chunk, &in_output);
                    let level = (store, inner, inner.chunk_shape.as_slice());
                    self.visit_chunk((ctx, chunk), level, stored, part, visit)?;
                }
            }
        }
        Ok(())
    }
}

/// `inner` (a region of `outer`'s own coordinates) moved to where `outer` starts.
fn shifted(outer: &Region, inner: &Region) -> Result<Region, ErrorKind> {
    let start = outer
        .start()
        .iter()
        .zip(inner.start())
        .map(|(a, b)| a.checked_add(*b).ok_or(OVERFLOW))
        .collect::<Result<Vec<u64>, ErrorKind>>()?;
    Region::new(&start, inner.shape()).map_err(ErrorKind::Layout)
}

/// A stored chunk of variable-length values, to decode.
pub(crate) struct ChunkIn<'a> {
    /// Where its stored bytes are.
    pub(crate) at: Stored<'a>,
    /// `vlen-utf8` or `vlen-bytes`.
    pub(crate) codec: CodecName,
    /// The chain level it is encoded by.
    pub(crate) level: &'a ChainLevel,
    /// Its shape as stored: the level's chunk shape, or on a rectilinear grid its own.
    pub(crate) shape: &'a [u64],
}

/// One decoded chunk and where each of its items starts (reused from chunk to chunk).
pub(crate) struct ChunkItems {
    bytes: Vec<u8>,
    /// `(start, len)` of each item in `bytes`, in storage order.
    spans: Vec<(usize, usize)>,
    /// The most a chunk may decode to, in bytes ([`DECODED_CHUNK_LIMIT`] unless raised).
    limit: u64,
}

impl ChunkItems {
    /// Empty, for chunks that decode to at most `limit` bytes.
    pub(crate) fn new(limit: u64) -> Self {
        Self {
            bytes: Vec::new(),
            spans: Vec::new(),
            limit,
        }
    }

    /// Decodes the stored chunk `chunk` and finds its items (as many as its chunk shape holds).
    pub(crate) fn load<S: Store>(
        &mut self,
        store: &S,
        ctx: &mut ReadContext,
        chunk: &ChunkIn<'_>,
    ) -> Result<(), ErrorKind> {
        let level = chunk.level;
        let elements = product(chunk.shape).map_err(ErrorKind::Layout)?;
        let codecs = &level.bytes_codecs;
        decode_whole(store, ctx, (chunk.at, codecs), self.limit, &mut self.bytes)?;
        self.spans.clear();
        let mut items =
            VlenItems::new(&self.bytes, chunk.codec, elements).map_err(ErrorKind::Decode)?;
        while let Some(item) = items.next() {
            let len = item.map_err(ErrorKind::Decode)?.len();
            self.spans.push((items.consumed() - len, len));
        }
        items.finish().map_err(ErrorKind::Decode)
    }

    /// Item `i` of the chunk loaded last, in storage order.
    pub(crate) fn item(&self, i: usize) -> Result<&[u8], ErrorKind> {
        let (start, len) = self
            .spans
            .get(i)
            .copied()
            .ok_or_else(|| ErrorKind::Internal {
                what: "a run past the chunk's items",
            })?;
        self.bytes
            .get(start..start + len)
            .ok_or_else(|| ErrorKind::Internal {
                what: "an item span past the decoded chunk",
            })
    }
}

/// Decodes the whole chunk stored `at` into `out`, sized from the stored chunk's own header
/// (zstd content size, gzip ISIZE, Blosc `nbytes`, LZ4's size prefix); a stream that does not
/// state its size (zlib, bz2, lzma, a zstd frame without its content size) is decoded as `out`
/// grows ([`decode_growing`]), if its codec decodes through a window (not base64). A chunk
/// that states, or decodes to, more than `limit` bytes is refused, holding no more than that.
fn decode_whole<S: Store>(
    store: &S,
    ctx: &mut ReadContext,
    (at, codecs): (Stored<'_>, &BytesCodecs),
    limit: u64,
    out: &mut Vec<u8>,
) -> Result<(), ErrorKind> {
    let decoded = if *codecs == BytesCodecs::default() {
        at.len
    } else {
        match stated_size(store, at, codecs) {
            Ok(n) => n,
            // zlib, bz2, lzma, a zstd frame without its content size: decoded as it grows,
            // where the codec decodes through a window.
            Err(ErrorKind::Decode(DecodeError::SizeUnknown { .. })) if ctx.can_window(codecs) => {
                return decode_growing(store, ctx, (at, codecs), limit, out);
            }
            Err(e) => return Err(e),
        }
    };
    if decoded > limit {
        return Err(ErrorKind::DecodedTooLarge { limit });
    }
    let decoded = usize::try_from(decoded).map_err(|_| OVERFLOW)?;
    check_plausible(codecs, at.len, decoded)?;
    grow(out, decoded)?;
    decode_stored(store, ctx, at, codecs, out)
}

/// The decoded size the chunk stored `at` states in its own header or trailer.
fn stated_size<S: Store>(
    store: &S,
    at: Stored<'_>,
    codecs: &BytesCodecs,
) -> Result<u64, ErrorKind> {
    let Stored { key, offset, len } = at;
    let probe = size_probe(codecs, len).map_err(ErrorKind::Decode)?;
    let mut head = vec![0u8; probe.head_len];
    let mut tail = vec![0u8; probe.tail_len];
    for (start, buf) in [(0, &mut head), (probe.tail_offset, &mut tail)] {
        if !buf.is_empty() {
            store
                .read_into(key, offset + start, buf)
                .map_err(|e| match e {
                    StoreError::Missing => ErrorKind::ChunkChanged,
                    e => ErrorKind::Store(e),
                })?;
        }
    }
    decoded_len(codecs, len, &head, &tail).map_err(ErrorKind::Decode)
}

/// Decodes the whole chunk stored `at` into `out`, for a stream that does not state its size:
/// through the worker's window, `out` growing by what each window holds, as far as the stored
/// size can decode to ([`most_decoded`]) and `limit` allow. Nothing is sized by what the
/// stream claims; the buffer holds what it decoded, and the vector's spare capacity, never
/// more than `limit` bytes of data.
fn decode_growing<S: Store>(
    store: &S,
    ctx: &mut ReadContext,
    (at, codecs): (Stored<'_>, &BytesCodecs),
    limit: u64,
    out: &mut Vec<u8>,
) -> Result<(), ErrorKind> {
    let most = usize::try_from(most_decoded(codecs, at.len)).unwrap_or(usize::MAX);
    let limit_len = usize::try_from(limit).unwrap_or(usize::MAX);
    out.clear();
    decode_windowed(
        store,
        ctx,
        at,
        codecs,
        DecodedSize::AtMost(most),
        |_, bytes| {
            let len = out.len().saturating_add(bytes.len());
            if len > limit_len {
                return Err(ErrorKind::DecodedTooLarge { limit });
            }
            if len > out.capacity() {
                // Doubling, as a vector grows, but never past the limit.
                let capacity = len.max(out.capacity().saturating_mul(2).min(limit_len));
                out.try_reserve_exact(capacity - out.len())
                    .map_err(|_| ErrorKind::OutOfMemory { bytes: len as u64 })?;
            }
            out.extend_from_slice(bytes);
            Ok(())
        },
    )
}
