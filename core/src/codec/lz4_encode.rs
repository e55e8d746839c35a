//! The LZ4 *block* format encoder (`lz4.rs` is its decoder and describes the format), over a
//! caller's whole input and into output windows of any size: no allocation, no buffer of its
//! own beyond the caller's hash table, in safe Rust.
//!
//! A block's literal runs are unbounded (a token and the run's length come before its bytes),
//! so an encoder that had only a window of the input would have to hold a run of literals as
//! long as the input. This one is given the whole input (the caller's slice) and writes each
//! sequence as it finds it, resuming mid-sequence when an output window fills: the output
//! streams, the input is only read.
//!
//! Greedy, like `LZ4_compress_fast` at acceleration 1: one probe a position, by a hash of its
//! next five bytes, into a table of [`HASH_ENTRIES`], matches extended forwards and back over pending literals, the
//! search stepping further the longer nothing matches. It keeps the format's end rules (the
//! last match starts at least 12 bytes and ends at least 5 bytes before the end), so
//! `LZ4_decompress_safe` accepts every block.

/// How many entries the encoder's table holds (16 KiB of the caller's `u32`s).
pub const HASH_ENTRIES: usize = 1 << HASH_LOG;
const HASH_LOG: u32 = 12;
const MIN_MATCH: usize = 4;
/// The last match starts at least this far from the end ...
const MF_LIMIT: usize = 12;
/// ... and ends at least this far from it.
const LAST_LITERALS: usize = 5;
const MAX_OFFSET: usize = u16::MAX as usize;

/// One sequence: literals, then a match (none in the last sequence).
#[derive(Debug, Clone, Copy, Default)]
struct Sequence {
    lit_start: usize,
    lit_len: usize,
    offset: u16,
    /// 0 in the last sequence.
    match_len: usize,
}

/// Where the writing of a sequence stands.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Step {
    #[default]
    Token,
    LiteralLength,
    Literals,
    Offset,
    MatchLength,
}

/// A sequence being written out: which part, and how far into it.
#[derive(Debug, Clone, Copy, Default)]
struct Pending {
    seq: Sequence,
    step: Step,
    /// Length bytes still to write (as a count beyond 15), literal bytes copied, or offset
    /// bytes written, by step.
    count: usize,
}

/// An LZ4 block under way. Start each block with [`Lz4Encoder::new`] (or [`Self::reset`]).
#[derive(Debug, Clone, Default)]
pub struct Lz4Encoder {
    /// Where the search stands, and where the literals not yet in a sequence start.
    ip: usize,
    anchor: usize,
    /// Positions tried since the last match (the search's step grows with them).
    misses: usize,
    pending: Option<Pending>,
    /// The table was cleared for this block.
    started: bool,
    /// The last sequence was made: once it is written the block is done.
    last_made: bool,
    done: bool,
}

/// `src[at..at + 4]` as a little-endian `u32` (the caller keeps `at + 4 <= src.len()`).
fn read4(src: &[u8], at: usize) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&src[at..at + 4]);
    u32::from_le_bytes(b)
}

/// Where the match that reaches `end` (its bytes equal to those `offset` before them) stops,
/// at most `limit`: eight bytes compared at a time, the first that differs found by the
/// trailing zeros of their difference (the words are little-endian), then byte by byte.
fn match_length_end(src: &[u8], mut end: usize, offset: usize, limit: usize) -> usize {
    while end + 8 <= limit {
        let (mut a, mut b) = ([0u8; 8], [0u8; 8]);
        a.copy_from_slice(&src[end..end + 8]);
        b.copy_from_slice(&src[end - offset..end - offset + 8]);
        let differ = u64::from_le_bytes(a) ^ u64::from_le_bytes(b);
        if differ != 0 {
            return end + (differ.trailing_zeros() / 8) as usize;
        }
        end += 8;
    }
    while end < limit && src[end] == src[end - offset] {
        end += 1;
    }
    end
}

/// The table slot of the five bytes at the low end of `long` (as lz4_flex and LZ4's 64-bit
/// path hash them: fewer collisions than four bytes on numbers).
fn hash5(long: u64) -> usize {
    ((long << 24).wrapping_mul(889_523_592_379) >> (64 - HASH_LOG)) as usize
}

impl Lz4Encoder {
    /// A new block.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts a new block (the table is cleared by the first call of [`Self::encode`]).
    pub fn reset(&mut self) {
        *self = Self::default();
    }

    /// Writes what it can of the block of `src` (the whole input, the same slice at every
    /// call) into `out`; returns the bytes written and whether the block is complete. A
    /// call that returns incomplete filled `out`. `table` is the caller's, kept between the
    /// calls of one block. `src` of 2^32 - 1 bytes or more is `None` (positions are `u32`).
    pub fn encode(
        &mut self,
        src: &[u8],
        out: &mut [u8],
        table: &mut [u32; HASH_ENTRIES],
    ) -> Option<(usize, bool)> {
        if u32::try_from(src.len()).ok()? == u32::MAX {
            return None;
        }
        if !self.started {
            table.fill(0);
            self.started = true;
        }
        let mut at = 0;
        while !self.done {
            if let Some(p) = &mut self.pending {
                if !write_pending(p, src, out, &mut at) {
                    return Some((at, false));
                }
                self.pending = None;
                self.done = self.last_made;
                continue;
            }
            let seq = self.next_match(src, table).unwrap_or_else(|| {
                self.last_made = true;
                Sequence {
                    lit_start: self.anchor,
                    lit_len: src.len() - self.anchor,
                    offset: 0,
                    match_len: 0,
                }
            });
            if write_whole(&seq, src, out, &mut at) {
                self.done = self.last_made;
                continue;
            }
            self.pending = Some(Pending {
                seq,
                ..Pending::default()
            });
        }
        Some((at, true))
    }

    /// The next match from where the search stands, with the literals before it; `None` when
    /// no match can start before the end rules' limit.
    fn next_match(&mut self, src: &[u8], table: &mut [u32; HASH_ENTRIES]) -> Option<Sequence> {
        let len = src.len();
        if len < MF_LIMIT + 1 {
            return None;
        }
        let (search_end, match_end) = (len - MF_LIMIT, len - LAST_LITERALS);
        let mut ip = self.ip;
        while ip < search_end {
            let mut b = [0u8; 8];
            b.copy_from_slice(&src[ip..ip + 8]);
            let long = u64::from_le_bytes(b);
            // The low four bytes.
            #[allow(clippy::cast_possible_truncation)]
            let word = long as u32;
            let slot = &mut table[hash5(long)];
            // An empty slot reads as position 0, which the comparison of its bytes then
            // accepts or refuses as any other candidate.
            let mut cand = *slot as usize;
            // `encode` refused inputs of 2^32 - 1 bytes or more, so `ip` fits.
            #[allow(clippy::cast_possible_truncation)]
            {
                *slot = ip as u32;
            }
            if cand < ip && ip - cand <= MAX_OFFSET && read4(src, cand) == word {
                let mut start = ip;
                while start > self.anchor && cand > 0 && src[start - 1] == src[cand - 1] {
                    start -= 1;
                    cand -= 1;
                }
                let end = match_length_end(src, ip + MIN_MATCH, start - cand, match_end);
                let seq = Sequence {
                    lit_start: self.anchor,
                    lit_len: start - self.anchor,
                    offset: u16::try_from(start - cand).ok()?,
                    match_len: end - start,
                };
                (self.ip, self.anchor, self.misses) = (end, end, 0);
                return Some(seq);
            }
            self.misses += 1;
            ip += 1 + (self.misses >> 5);
        }
        self.ip = ip;
        None
    }
}

/// Writes a length's extra bytes (`count` beyond the token's 15: 255s, then the rest) into
/// `out` from `at`; `true` once all are out.
fn write_length(count: &mut usize, out: &mut [u8], at: &mut usize) -> bool {
    while *at < out.len() {
        if *count >= 255 {
            out[*at] = 255;
            *count -= 255;
            *at += 1;
        } else {
            // `count` < 255 here.
            out[*at] = u8::try_from(*count).unwrap_or(u8::MAX);
            *at += 1;
            return true;
        }
    }
    false
}

/// Writes sequence `s` into `out` from `at` in one go where the rest of `out` holds its
/// longest form (the common case, without [`write_pending`]'s steps); `false`, writing
/// nothing, where it may not.
fn write_whole(s: &Sequence, src: &[u8], out: &mut [u8], at: &mut usize) -> bool {
    let ml = s.match_len.saturating_sub(MIN_MATCH);
    let longest = s.lit_len + s.lit_len / 255 + ml / 255 + 6;
    let Some(out) = out.get_mut(*at..).filter(|o| o.len() >= longest) else {
        return false;
    };
    let nib = |n: usize| u8::try_from(n.min(15)).unwrap_or(15);
    let match_nib = if s.match_len == 0 { 0 } else { nib(ml) };
    out[0] = (nib(s.lit_len) << 4) | match_nib;
    let mut n = 1;
    let length = |count: usize, out: &mut [u8], n: &mut usize| {
        let mut c = count;
        while c >= 255 {
            out[*n] = 255;
            (*n, c) = (*n + 1, c - 255);
        }
        out[*n] = u8::try_from(c).unwrap_or(u8::MAX);
        *n += 1;
    };
    if s.lit_len >= 15 {
        length(s.lit_len - 15, out, &mut n);
    }
    out[n..n + s.lit_len].copy_from_slice(&src[s.lit_start..s.lit_start + s.lit_len]);
    n += s.lit_len;
    if s.match_len != 0 {
        out[n..n + 2].copy_from_slice(&s.offset.to_le_bytes());
        n += 2;
        if ml >= 15 {
            length(ml - 15, out, &mut n);
        }
    }
    *at += n;
    true
}

/// Writes what fits of `p` into `out` from `at`; `true` once the sequence is all out.
fn write_pending(p: &mut Pending, src: &[u8], out: &mut [u8], at: &mut usize) -> bool {
    let s = p.seq;
    let ml = s.match_len.saturating_sub(MIN_MATCH);
    loop {
        if *at == out.len() {
            return false;
        }
        match p.step {
            Step::Token => {
                let nib = |n: usize| u8::try_from(n.min(15)).unwrap_or(15);
                let match_nib = if s.match_len == 0 { 0 } else { nib(ml) };
                out[*at] = (nib(s.lit_len) << 4) | match_nib;
                *at += 1;
                (p.step, p.count) = if s.lit_len >= 15 {
                    (Step::LiteralLength, s.lit_len - 15)
                } else {
                    (Step::Literals, 0)
                };
            }
            Step::LiteralLength => {
                if !write_length(&mut p.count, out, at) {
                    return false;
                }
                (p.step, p.count) = (Step::Literals, 0);
            }
            Step::Literals => {
                let from = s.lit_start + p.count;
                let n = (s.lit_len - p.count).min(out.len() - *at);
                out[*at..*at + n].copy_from_slice(&src[from..from + n]);
                (*at, p.count) = (*at + n, p.count + n);
                if p.count < s.lit_len {
                    return false;
                }
                if s.match_len == 0 {
                    return true;
                }
                (p.step, p.count) = (Step::Offset, 0);
            }
            Step::Offset => {
                out[*at] = s.offset.to_le_bytes()[p.count];
                (*at, p.count) = (*at + 1, p.count + 1);
                if p.count == 2 {
                    if ml < 15 {
                        return true;
                    }
                    (p.step, p.count) = (Step::MatchLength, ml - 15);
                }
            }
            Step::MatchLength => return write_length(&mut p.count, out, at),
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::codec::lz4::decompress;
    use std::vec;
    use std::vec::Vec;

    /// Encodes `src` through output windows of `window` bytes; the block.
    fn encode_in(src: &[u8], window: usize) -> Vec<u8> {
        let mut table = [0u32; HASH_ENTRIES];
        let mut enc = Lz4Encoder::new();
        let mut block = Vec::new();
        let mut out = vec![0u8; window];
        loop {
            let (n, done) = enc.encode(src, &mut out, &mut table).unwrap();
            block.extend_from_slice(&out[..n]);
            if done {
                return block;
            }
            assert_eq!(n, window, "an incomplete call fills its window");
        }
    }

    fn inputs() -> Vec<Vec<u8>> {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut noise = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let random: Vec<u8> = (0..5000).map(|_| noise().to_le_bytes()[0]).collect();
        let smooth: Vec<u8> = (0..100_000u32)
            .flat_map(|i| ((i / 7) as f32).to_le_bytes())
            .collect();
        let mixed: Vec<u8> = (0..70_000)
            .map(|i| {
                if i % 1000 < 600 {
                    7
                } else {
                    noise().to_le_bytes()[1]
                }
            })
            .collect();
        vec![
            Vec::new(),
            vec![1],
            vec![0; 12],
            vec![0; 13],
            vec![9; 300_000],
            b"abcabcabcabcabcabcabcabcXYZabcabcabc".to_vec(),
            random,
            smooth,
            mixed,
        ]
    }

    #[test]
    fn blocks_decode_to_the_input_whatever_the_window() {
        for src in inputs() {
            let whole = encode_in(&src, 1 << 20);
            for window in [1, 2, 3, 7, 255, 4096] {
                assert_eq!(
                    encode_in(&src, window),
                    whole,
                    "window {window}, {} bytes",
                    src.len()
                );
            }
            let mut back = vec![0u8; src.len()];
            let n = decompress(&whole, &mut back).unwrap();
            assert_eq!(n, src.len());
            assert_eq!(back, src);
        }
    }

    #[test]
    fn repetitive_input_compresses_and_long_runs_take_length_bytes() {
        let src = vec![9u8; 300_000];
        let block = encode_in(&src, 1 << 20);
        assert!(block.len() < 2000, "{} bytes", block.len());
        let random = &inputs()[6];
        let block = encode_in(random, 1 << 20);
        // Incompressible: literals and their length bytes, nothing more.
        assert!(block.len() <= random.len() + random.len() / 255 + 16);
    }

    /// Each match of `block` as (start, end) in the decoded output.
    fn matches(block: &[u8]) -> Vec<(usize, usize)> {
        let (mut i, mut pos, mut found) = (0, 0, Vec::new());
        let length = |i: &mut usize, mut n: usize| {
            if n == 15 {
                loop {
                    let b = block[*i];
                    *i += 1;
                    n += usize::from(b);
                    if b != 255 {
                        break;
                    }
                }
            }
            n
        };
        while i < block.len() {
            let token = block[i];
            i += 1;
            let lits = length(&mut i, usize::from(token >> 4));
            i += lits;
            pos += lits;
            if i == block.len() {
                break;
            }
            i += 2;
            let len = length(&mut i, usize::from(token & 15)) + 4;
            found.push((pos, pos + len));
            pos += len;
        }
        found
    }

    #[test]
    fn the_end_rules_hold() {
        // LZ4_decompress_safe refuses a match starting within 12 bytes of the end or ending
        // within 5: none here.
        let mut seen = 0;
        for src in inputs() {
            for (start, end) in matches(&encode_in(&src, 1 << 20)) {
                assert!(start + MF_LIMIT < src.len() && end + LAST_LITERALS <= src.len());
                seen += 1;
            }
        }
        assert!(seen > 100, "the inputs hold matches ({seen})");
    }
}
