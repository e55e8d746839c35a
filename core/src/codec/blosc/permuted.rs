//! Block tables out of order. Older multithreaded c-blosc stored each block where its thread
//! finished it, so a table may read 208, 32, 533, 373 (numcodecs' `blosc/codec.00/array.03`);
//! c-blosc reads such chunks, and so does zinto. They cannot be decoded as they stream in: the
//! blocks are gathered whole (scratch of at most one stored chunk: the header's `cbytes` is
//! checked against the stored length first) and decoded in their order from there.
//!
//! Every check of the in-order path holds, and two more: no block starts inside the header or
//! the table, and no block reaches into the bytes of another (each is bounded by the next start
//! in the table, found in a sorted copy of it).

use super::{
    BloscDecoder, BloscHeader, HEADER_LEN, InnerDecompress, Phase, Scratch, ShuffleMode,
    corrupt_block, decode_stream, room_for_block, stream_size, to_usize, unshuffle_block,
};
use crate::codec::DecodeError;
use crate::codec::error::{OUTPUT_OVERRUN, SCRATCH_OVERRUN, TABLE_OVERRUN};

/// Entry `i` of a block table.
pub(super) fn entry(table: &[u8], i: usize) -> Result<u32, DecodeError> {
    let at = i.checked_mul(4).ok_or(TABLE_OVERRUN)?;
    table
        .get(at..)
        .and_then(<[u8]>::first_chunk::<4>)
        .map(|e| u32::from_le_bytes(*e))
        .ok_or(TABLE_OVERRUN)
}

/// Whether the table's starts increase: the blocks are stored in order and decode as they
/// stream in.
pub(super) fn in_order(table: &[u8]) -> bool {
    let mut prev: Option<u32> = None;
    for e in table.chunks_exact(4) {
        let Some(&e) = e.first_chunk::<4>() else {
            return false;
        };
        let start = u32::from_le_bytes(e);
        if prev.is_some_and(|p| start <= p) {
            return false;
        }
        prev = Some(start);
    }
    true
}

/// Where a permuted chunk's scratch goes: the table, a sorted copy of it, one block, then
/// the stream after the table.
struct Layout {
    table: usize,
    block: usize,
    /// Where the stream after the table starts in the chunk.
    stream_at: u32,
    stream: usize,
}

impl Layout {
    fn of(h: &BloscHeader) -> Result<Self, DecodeError> {
        let table = to_usize(u64::from(h.nblocks()) * 4)?;
        let table_end = HEADER_LEN as u64 + u64::from(h.nblocks()) * 4;
        // The header check puts the table inside `cbytes`.
        let stream = u64::from(h.cbytes)
            .checked_sub(table_end)
            .ok_or(TABLE_OVERRUN)?;
        Ok(Self {
            table,
            block: to_usize(h.blocksize.into())?,
            stream_at: u32::try_from(table_end).map_err(|_| TABLE_OVERRUN)?,
            stream: to_usize(stream)?,
        })
    }

    fn total(&self) -> Result<usize, DecodeError> {
        self.table
            .checked_mul(2)
            .and_then(|n| n.checked_add(self.block))
            .and_then(|n| n.checked_add(self.stream))
            .ok_or(SCRATCH_OVERRUN)
    }
}

/// The parts of a permuted chunk's scratch: (table, sorted table, block, stream).
type Parts<'s> = (&'s mut [u8], &'s mut [u8], &'s mut [u8], &'s mut [u8]);

fn parts<'s>(scratch: &'s mut [u8], l: &Layout) -> Result<Parts<'s>, DecodeError> {
    let (table, rest) = scratch
        .split_at_mut_checked(l.table)
        .ok_or(SCRATCH_OVERRUN)?;
    let (sorted, rest) = rest.split_at_mut_checked(l.table).ok_or(SCRATCH_OVERRUN)?;
    let (block, rest) = rest.split_at_mut_checked(l.block).ok_or(SCRATCH_OVERRUN)?;
    let stream = rest.get_mut(..l.stream).ok_or(SCRATCH_OVERRUN)?;
    Ok((table, sorted, block, stream))
}

impl<S: Scratch> BloscDecoder<S> {
    /// Makes room for a permuted chunk and sorts a copy of its table.
    pub(super) fn start_permuted(&mut self) -> Result<(), DecodeError> {
        let l = Layout::of(&self.header_ref()?)?;
        let scratch = self.scratch.reserve(l.total()?)?;
        let (table, sorted, ..) = parts(scratch, &l)?;
        sorted.copy_from_slice(table);
        sort_entries(sorted)?;
        self.have = 0;
        Ok(())
    }

    /// Gathers the stream after the table; once whole, the blocks are decoded from it.
    pub(super) fn gather_blocks(&mut self, rest: &[u8]) -> Result<Option<usize>, DecodeError> {
        let l = Layout::of(&self.header_ref()?)?;
        let scratch = self.scratch.reserve(l.total()?)?;
        let (.., stream) = parts(scratch, &l)?;
        let step = if self.have < l.stream {
            Self::gather(stream, &mut self.have, rest)?
        } else {
            Some(0)
        };
        if self.have == l.stream {
            self.have = 0;
            self.block = 0;
            self.phase = Phase::Replay;
        }
        Ok(step)
    }

    /// Decodes block `self.block` from the gathered stream into `dst[out..]`; `true` if the
    /// window has no room for it.
    pub(super) fn replay_block(
        &mut self,
        dst: &mut [u8],
        out: &mut usize,
        pos: usize,
        inner: &mut dyn InnerDecompress,
    ) -> Result<bool, DecodeError> {
        let h = self.header_ref()?;
        let j = self.block;
        if j == h.nblocks() {
            self.phase = Phase::Trailing;
            return Ok(false);
        }
        if !room_for_block(&h, j, dst.len(), *out, pos)? {
            return Ok(true);
        }
        let l = Layout::of(&h)?;
        let scratch = self.scratch.reserve(l.total()?)?;
        let (table, sorted, tmp, stream) = parts(scratch, &l)?;
        let (from, to) = extent(&h, j, entry(table, j as usize)?, sorted, l.stream_at)?;
        let src = stream.get(from..to).ok_or(TABLE_OVERRUN)?;
        let block_len = h.block_len(j) as usize;
        let block_dst = dst.get_mut(*out..*out + block_len).ok_or(OUTPUT_OVERRUN)?;
        decode_block(&h, j, src, tmp, block_dst, inner)?;
        *out += block_len;
        self.produced += block_len as u64;
        self.block += 1;
        Ok(false)
    }
}

/// The bytes of the gathered stream block `j` (starting at `start` in the chunk) may use:
/// from its start to the next block's, or to the end of the stream.
fn extent(
    h: &BloscHeader,
    j: u32,
    start: u32,
    sorted: &[u8],
    stream_at: u32,
) -> Result<(usize, usize), DecodeError> {
    if start < stream_at || start >= h.cbytes {
        return Err(corrupt_block(
            j,
            "starts inside the header or table, or past the stream",
            start.into(),
        ));
    }
    let n = sorted.len() / 4;
    // The first sorted entry past `start`; the one before it is `start` itself.
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if entry(sorted, mid)? <= start {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if lo >= 2 && entry(sorted, lo - 2)? == start {
        return Err(corrupt_block(
            j,
            "starts where another block starts",
            start.into(),
        ));
    }
    // A later start past the stream is refused with its own block; this one ends there.
    let end = if lo < n {
        entry(sorted, lo)?.min(h.cbytes)
    } else {
        h.cbytes
    };
    let rel = |at: u32| to_usize(u64::from(at - stream_at));
    Ok((rel(start)?, rel(end)?))
}

/// Decodes block `j`, whose streams are `src` (and must not reach past it), into `block_dst`.
fn decode_block(
    h: &BloscHeader,
    j: u32,
    src: &[u8],
    tmp: &mut [u8],
    block_dst: &mut [u8],
    inner: &mut dyn InnerDecompress,
) -> Result<(), DecodeError> {
    let block_len = block_dst.len();
    let streams = h.streams(j) as usize;
    let stream_decoded = block_len / streams;
    let shuffle = h.shuffle(h.block_len(j));
    let codec = h.inner()?.codec();
    let tmp = tmp.get_mut(..block_len).ok_or(SCRATCH_OVERRUN)?;
    let target = if shuffle == ShuffleMode::None {
        &mut *block_dst
    } else {
        &mut *tmp
    };
    let mut at = 0usize;
    for (k, slot) in target
        .chunks_exact_mut(stream_decoded)
        .take(streams)
        .enumerate()
    {
        let size_bytes = src
            .get(at..)
            .and_then(<[u8]>::first_chunk::<4>)
            .ok_or(corrupt_block(
                j,
                "has a stream that runs into the next block or past the stream",
                k as u64,
            ))?;
        let left = src.len().saturating_sub(at + 4) as u64;
        let size = stream_size(h, j, *size_bytes, left)?;
        let whole = src.get(at + 4..at + 4 + size).ok_or(TABLE_OVERRUN)?;
        decode_stream(inner, codec, whole, slot, j)?;
        at += 4 + size;
    }
    unshuffle_block(h, shuffle, tmp, block_dst)
}

/// Sorts a table's 4-byte entries in place (heapsort: no allocation, O(n log n) for any
/// table a header can state).
fn sort_entries(b: &mut [u8]) -> Result<(), DecodeError> {
    let n = b.len() / 4;
    for root in (0..n / 2).rev() {
        sift_down(b, root, n)?;
    }
    for end in (1..n).rev() {
        swap_entries(b, 0, end);
        sift_down(b, 0, end)?;
    }
    Ok(())
}

fn sift_down(b: &mut [u8], mut root: usize, end: usize) -> Result<(), DecodeError> {
    loop {
        let mut child = 2 * root + 1;
        if child >= end {
            return Ok(());
        }
        if child + 1 < end && entry(b, child)? < entry(b, child + 1)? {
            child += 1;
        }
        if entry(b, root)? >= entry(b, child)? {
            return Ok(());
        }
        swap_entries(b, root, child);
        root = child;
    }
}

fn swap_entries(b: &mut [u8], i: usize, j: usize) {
    for k in 0..4 {
        b.swap(4 * i + k, 4 * j + k);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_sort_and_order_is_told() {
        let mut t = [0u8; 20];
        for (i, v) in [208u32, 32, 533, 373, 32].into_iter().enumerate() {
            t[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
        assert!(!in_order(&t));
        sort_entries(&mut t).unwrap();
        let sorted: [u32; 5] = core::array::from_fn(|i| entry(&t, i).unwrap());
        assert_eq!(sorted, [32, 32, 208, 373, 533]);
        assert!(!in_order(&t), "equal starts are not in order");
        assert!(in_order(&t[4..]));
        assert!(in_order(&[]));
    }
}
