//! The BloscLZ decoder: the default codec inside Blosc chunks, as c-blosc 1.21 writes it
//! (`blosc/blosclz.c`, BloscLZ 2.5.1, `BLOSC_BLOSCLZ_VERSION_FORMAT` 1; `blosclz_decompress`
//! is the same from c-blosc 1.21.0 to 1.21.7.dev, the version numcodecs 0.16.6 bundles),
//! writing into a caller-owned buffer, with no allocation, in safe Rust.
//!
//! A BloscLZ stream (one per split of a Blosc block) is a FastLZ-style run of items, each
//! starting with a control byte `c`:
//!
//! - `c >> 5 == 0`: a literal run of `(c & 31) + 1` bytes, which follow.
//! - otherwise a match. Its length is `(c >> 5) + 2` (3 to 8); when `c >> 5 == 7` it is 9
//!   plus the extra length bytes that follow (each added; a byte of 255 means another
//!   follows). Then one byte `d`: the match starts `((c & 31) << 8) + d + 1` bytes back
//!   (1 to 8191). When `c & 31 == 31` and `d == 255` the match is *far*: two more bytes
//!   follow, a big-endian `u16` `f`, and the match starts `f + 8192` bytes back (8192 to
//!   73727).
//!
//! The first control byte has its top three bits set to `001` by the encoder (a marker) and
//! is always read as a literal run (`c & 31`). A match may overlap its own output (a run when
//! it starts 1 byte back), copied byte by byte in effect.
//!
//! How this follows `blosclz_decompress`: c-blosc returns 0 (which its caller treats as a
//! failure) where this returns an error — a literal run or match past the end of the output,
//! a literal run past the end of the input, a match reaching before the start of the
//! output, a length or distance cut off by the end of the input. c-blosc also requires a
//! match to be followed by at least one more byte: it checks that 2 bytes remain before
//! reading a match's distance byte or each of its extra length bytes, and when a match's
//! bytes (after a length extension or a far distance) end exactly at the end of the input,
//! it stops *without* copying the match and returns a short length. Here every match must be
//! followed by at least one byte, or it is [`BloscLzError::Truncated`]; since Blosc rejects a
//! stream whose decoded length differs from the block's, both accept exactly the same
//! streams. An empty input is [`BloscLzError::EmptyInput`] (c-blosc returns 0 for it).
//! Lengths are added with checked arithmetic (c-blosc adds them in an `int32_t`).
//!
//! Checked against c-blosc through numcodecs 0.16.6 (each stream wrapped in a one-block Blosc
//! chunk) on 100 000 mutated streams: both accept the same streams and decode them alike.
//! Bytes of `dst` past the returned length may have been overwritten (whole 16- or 32-byte
//! chunk copies when `dst` has room).

use core::fmt;

use super::lz_copy::copy_match;

/// Why a BloscLZ stream could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BloscLzError {
    /// The input is empty (a stream starts with a literal run).
    EmptyInput,
    /// The input ends inside an item, or right after a match (which c-blosc requires to be
    /// followed by at least one more byte).
    Truncated {
        /// Where in the input the missing bytes were expected to start.
        at: usize,
    },
    /// A literal run or a match would end past the end of the output buffer.
    OutputOverflow {
        /// The output buffer's length.
        capacity: usize,
        /// How long the output would have to be for the literal run or match to fit.
        needed: usize,
    },
    /// A match starts before the start of the output.
    DistanceTooFar {
        /// Where in the input the match's control byte is.
        at: usize,
        /// How far back the match starts.
        distance: usize,
        /// How many bytes had been written when the match started.
        written: usize,
    },
    /// A match length does not fit in a `usize`.
    LengthOverflow {
        /// Where in the input the match's control byte is.
        at: usize,
    },
}

impl fmt::Display for BloscLzError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::EmptyInput => write!(f, "the BloscLZ stream is empty"),
            Self::Truncated { at } => {
                write!(f, "the BloscLZ stream ends too early, at byte {at}")
            }
            Self::OutputOverflow { capacity, needed } => write!(
                f,
                "the BloscLZ stream decodes to at least {needed} bytes, more than the \
                 {capacity} the output holds"
            ),
            Self::DistanceTooFar {
                at,
                distance,
                written,
            } => write!(
                f,
                "the BloscLZ stream has a match at byte {at} starting {distance} bytes back, \
                 before the start of the output (only {written} bytes written)"
            ),
            Self::LengthOverflow { at } => {
                write!(
                    f,
                    "the BloscLZ stream has a match length that overflows at byte {at}"
                )
            }
        }
    }
}

/// The shortest distance of a far match (`MAX_DISTANCE + 1` in `blosclz.c`).
const FAR_BASE: usize = 8192;

/// Decodes one complete BloscLZ stream from `src` into `dst`; returns how many bytes it wrote.
///
/// The stream ends where `src` ends, which must be right after a literal run. `dst` may be
/// longer than the decoded data: Blosc passes the split's exact size and requires the
/// returned length to equal it. Bytes of `dst` past the returned length may have been
/// overwritten.
///
/// # Errors
/// [`BloscLzError::EmptyInput`] for an empty `src`; [`BloscLzError::Truncated`] when `src`
/// ends inside an item or right after a match; [`BloscLzError::OutputOverflow`] when the
/// data does not fit in `dst`; [`BloscLzError::DistanceTooFar`] for a match starting before
/// the output; [`BloscLzError::LengthOverflow`] for a match length that overflows `usize`.
pub fn decompress(src: &[u8], dst: &mut [u8]) -> Result<usize, BloscLzError> {
    let Some(&first) = src.first() else {
        return Err(BloscLzError::EmptyInput);
    };
    // The first control byte is a literal run whatever its top bits (the encoder's marker).
    let mut ctrl = first & 31;
    let mut at = Cursor { ip: 1, op: 0 };
    loop {
        if ctrl < 32 {
            literal_run(src, dst, ctrl, &mut at)?;
        } else {
            a_match(src, dst, ctrl, &mut at)?;
        }
        match src.get(at.ip) {
            Some(&c) => {
                ctrl = c;
                at.ip += 1;
            }
            None => return Ok(at.op),
        }
    }
}

/// Where decoding is: `ip` bytes of the stream read, `op` bytes of output written.
struct Cursor {
    ip: usize,
    op: usize,
}

/// A literal run of `ctrl + 1` bytes.
#[inline(always)]
fn literal_run(src: &[u8], dst: &mut [u8], ctrl: u8, at: &mut Cursor) -> Result<(), BloscLzError> {
    let len = usize::from(ctrl) + 1;
    let src_end = at.ip + len;
    let dst_end = at.op + len;
    if let (Some(s), Some(d)) = (
        src.get(at.ip..).and_then(|s| s.first_chunk::<32>()),
        dst.get_mut(at.op..).and_then(|d| d.first_chunk_mut::<32>()),
    ) {
        // Room for a whole 32-byte copy on both sides: the bytes past the run are rewritten
        // by what comes next.
        *d = *s;
    } else {
        let Some(s) = src.get(at.ip..src_end) else {
            return Err(BloscLzError::Truncated { at: src.len() });
        };
        let capacity = dst.len();
        let Some(d) = dst.get_mut(at.op..dst_end) else {
            return Err(BloscLzError::OutputOverflow {
                capacity,
                needed: dst_end,
            });
        };
        d.copy_from_slice(s);
    }
    at.ip = src_end;
    at.op = dst_end;
    Ok(())
}

/// A match: its length (the control byte's top bits, extended by 255s), its distance (near,
/// or far past [`FAR_BASE`]), the copy.
#[inline(always)]
fn a_match(src: &[u8], dst: &mut [u8], ctrl: u8, at: &mut Cursor) -> Result<(), BloscLzError> {
    let ctrl_at = at.ip - 1;
    let mut len = usize::from(ctrl >> 5) + 2;
    if len == 9 {
        loop {
            let Some(&b) = src.get(at.ip) else {
                return Err(BloscLzError::Truncated { at: at.ip });
            };
            at.ip += 1;
            len = len
                .checked_add(usize::from(b))
                .ok_or(BloscLzError::LengthOverflow { at: ctrl_at })?;
            if b != 255 {
                break;
            }
        }
    }
    let Some(&code) = src.get(at.ip) else {
        return Err(BloscLzError::Truncated { at: at.ip });
    };
    at.ip += 1;
    let high = usize::from(ctrl & 31);
    let distance = if code == 255 && high == 31 {
        let Some(&[hi, lo]) = src.get(at.ip..at.ip + 2) else {
            return Err(BloscLzError::Truncated { at: at.ip });
        };
        at.ip += 2;
        usize::from(u16::from_be_bytes([hi, lo])) + FAR_BASE
    } else {
        (high << 8) + usize::from(code) + 1
    };
    let op = at.op;
    let end = op
        .checked_add(len)
        .ok_or(BloscLzError::LengthOverflow { at: ctrl_at })?;
    if end > dst.len() {
        return Err(BloscLzError::OutputOverflow {
            capacity: dst.len(),
            needed: end,
        });
    }
    let Some(start) = op.checked_sub(distance) else {
        return Err(BloscLzError::DistanceTooFar {
            at: ctrl_at,
            distance,
            written: op,
        });
    };
    if at.ip >= src.len() {
        // c-blosc stops here without copying the match (or fails earlier).
        return Err(BloscLzError::Truncated { at: at.ip });
    }
    copy_match(dst, start, op, len);
    at.op = end;
    Ok(())
}

/// How many entries the encoder's table holds ([`compress`]'s `table`: 16 KiB of the
/// caller's).
pub const HASH_ENTRIES: usize = 1 << HASH_LOG;
const HASH_LOG: u32 = 12;
/// The farthest a near match reaches back (a distance of 8192 would read as a far match).
const MAX_NEAR: usize = FAR_BASE - 1;
/// The farthest a far match reaches back.
const MAX_FAR: usize = FAR_BASE + u16::MAX as usize;
/// The shortest match the encoder writes (it finds them by hashing 4 bytes).
const MIN_MATCH: usize = 4;
/// A far match takes two more bytes than a near one: shorter ones are left as literals.
const MIN_FAR_MATCH: usize = 6;

/// Compresses `src` into `dst` as one BloscLZ stream (the format [`decompress`] reads, which
/// c-blosc 1.21 decodes); returns the stream's length, or `None` when it does not fit in
/// `dst` or `src` is empty (Blosc then stores the block as it is).
///
/// Greedy: at each byte the 4 bytes there are hashed into `table` (the caller's scratch,
/// cleared here); a match found there is extended as far as it goes, else the byte becomes a
/// literal, and the longer a literal run grows the further the search steps (so data that
/// does not compress passes quickly). The stream ends with a literal run, as the decoders
/// require. Positions are kept as `u32`: a `src` of 4 GiB or more is `None`.
pub fn compress(src: &[u8], dst: &mut [u8], table: &mut [u32; HASH_ENTRIES]) -> Option<usize> {
    if src.is_empty() || u32::try_from(src.len()).is_err() {
        return None;
    }
    table.fill(0);
    let mut out = Out { dst, at: 0 };
    let (mut anchor, mut ip) = (0, 0);
    // A match is followed by at least one byte: none reaches the last one.
    let limit = src.len() - 1;
    while ip + MIN_MATCH <= limit {
        let word = read4(src, ip);
        let slot = &mut table[hash(word)];
        // Stored as position + 1 (0: empty); positions fit (checked above).
        let candidate = (*slot as usize).checked_sub(1);
        *slot = u32::try_from(ip + 1).ok()?;
        if let Some(c) = candidate.filter(|&c| ip - c <= MAX_FAR && read4(src, c) == word) {
            let len = MIN_MATCH + common(src, c + MIN_MATCH, ip + MIN_MATCH, limit);
            let dist = ip - c;
            if dist <= MAX_NEAR || len >= MIN_FAR_MATCH {
                out.literals(&src[anchor..ip])?;
                out.a_match(len, dist)?;
                ip += len;
                anchor = ip;
                continue;
            }
        }
        ip += 1 + ((ip - anchor) >> 6);
    }
    out.literals(&src[anchor..])?;
    // c-blosc's marker in the first control byte (read as a literal run whatever it holds).
    out.dst[0] |= 1 << 5;
    Some(out.at)
}

fn read4(src: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([src[at], src[at + 1], src[at + 2], src[at + 3]])
}

fn hash(word: u32) -> usize {
    (word.wrapping_mul(2_654_435_761) >> (32 - HASH_LOG)) as usize
}

/// How many bytes from `a` equal those from `b` (`a < b`), up to `limit` for `b`: eight at a
/// time, then byte by byte.
fn common(src: &[u8], a: usize, b: usize, limit: usize) -> usize {
    let mut n = 0;
    while b + n + 8 <= limit {
        let (Some(p), Some(q)) = (
            src[a + n..].first_chunk::<8>(),
            src[b + n..].first_chunk::<8>(),
        ) else {
            break;
        };
        let diff = u64::from_le_bytes(*p) ^ u64::from_le_bytes(*q);
        if diff != 0 {
            return n + (diff.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    while b + n < limit && src[a + n] == src[b + n] {
        n += 1;
    }
    n
}

/// The stream being written into the caller's `dst`.
struct Out<'a> {
    dst: &'a mut [u8],
    at: usize,
}

impl Out<'_> {
    fn push(&mut self, byte: u8) -> Option<()> {
        *self.dst.get_mut(self.at)? = byte;
        self.at += 1;
        Some(())
    }

    /// Literal runs of at most 32 bytes each.
    fn literals(&mut self, bytes: &[u8]) -> Option<()> {
        for run in bytes.chunks(32) {
            // At most 32: the control byte says 0 to 31.
            self.push(u8::try_from(run.len() - 1).ok()?)?;
            let end = self.at + run.len();
            self.dst.get_mut(self.at..end)?.copy_from_slice(run);
            self.at = end;
        }
        Some(())
    }

    /// A match of `len` (at least 3) bytes starting `dist` (1 to [`MAX_FAR`]) back.
    fn a_match(&mut self, len: usize, dist: usize) -> Option<()> {
        let (high, code, far) = if dist <= MAX_NEAR {
            let d = dist - 1;
            let [code, high] = u16::try_from(d).ok()?.to_le_bytes();
            (high, code, None)
        } else {
            (
                31,
                255,
                Some(u16::try_from(dist - FAR_BASE).ok()?.to_be_bytes()),
            )
        };
        let short = len - 2;
        if short < 7 {
            self.push((u8::try_from(short).ok()? << 5) | high)?;
        } else {
            self.push((7 << 5) | high)?;
            let mut rest = len - 9;
            while rest >= 255 {
                self.push(255)?;
                rest -= 255;
            }
            self.push(u8::try_from(rest).ok()?)?;
        }
        self.push(code)?;
        if let Some([hi, lo]) = far {
            self.push(hi)?;
            self.push(lo)?;
        }
        Some(())
    }
}

#[cfg(test)]
#[allow(clippy::cast_possible_truncation)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec;
    use std::vec::Vec;

    /// The test vectors' data: xorshift32 (13, 17, 5) from `seed`, low byte of each state.
    fn xs(seed: u32, n: usize) -> Vec<u8> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                s as u8
            })
            .collect()
    }

    fn unhex(h: &str) -> Vec<u8> {
        (0..h.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
            .collect()
    }

    fn check(stream_hex: &str, want: &[u8]) {
        let stream = unhex(stream_hex);
        let mut out = vec![0u8; want.len()];
        assert_eq!(decompress(&stream, &mut out), Ok(want.len()));
        assert_eq!(out, want);
        // A roomier output decodes the same; a smaller one is an overflow.
        let mut out = vec![0u8; want.len() + 100];
        assert_eq!(decompress(&stream, &mut out), Ok(want.len()));
        assert_eq!(&out[..want.len()], want);
        let mut out = vec![0u8; want.len() - 1];
        assert!(matches!(
            decompress(&stream, &mut out),
            Err(BloscLzError::OutputOverflow { .. })
        ));
        // A truncated stream is an error, or (cut after a literal run) a shorter prefix.
        let mut out = vec![0u8; want.len()];
        for cut in 0..stream.len() {
            match decompress(&stream[..cut], &mut out) {
                Ok(n) => assert!(n < want.len() && out[..n] == want[..n], "cut at {cut}"),
                Err(e) => assert!(
                    matches!(e, BloscLzError::Truncated { .. } | BloscLzError::EmptyInput),
                    "cut at {cut}: {e}"
                ),
            }
        }
    }

    // Streams made by numcodecs 0.16.6 (c-blosc 1.21.7.dev):
    // `Blosc(cname='blosclz', clevel=..., shuffle=0).encode(np.frombuffer(data, np.uint8))`,
    // one block, one split; the stream is the block's bytes after its 4-byte size.

    #[test]
    fn literal_runs() {
        // Ten literal runs (32 bytes at most each), then a run of zeros (distance 1).
        let mut want = xs(2, 300);
        want.extend_from_slice(&[0; 100]);
        check(LITERALS, &want);
    }

    #[test]
    fn long_matches() {
        // Matches of 462 bytes 37 back and 297 bytes 524 back (extra length bytes).
        let period = xs(3, 37).repeat(30);
        let mut want = period[..500].to_vec();
        want.extend_from_slice(&xs(4, 50));
        want.extend_from_slice(&period[100..400]);
        check(LONG_MATCHES, &want);
    }

    #[test]
    fn runs_and_short_periods() {
        // Overlapping matches 1, 3 and 4 bytes back.
        let mut want = vec![5u8; 100];
        want.extend_from_slice(&[7; 3]);
        want.extend_from_slice(&[9; 50]);
        want.extend_from_slice(&xs(5, 10));
        want.extend_from_slice(&[0; 200]);
        want.extend_from_slice(&b"abc".repeat(40));
        check(RUNS, &want);
    }

    #[test]
    fn short_matches() {
        // Words from a small vocabulary: many matches of 3 to 8 bytes, near and overlapping.
        let words: [&[u8]; 6] = [b"zarr ", b"chunk ", b"blosc ", b"array ", b"of ", b"the "];
        let want: Vec<u8> = xs(7, 90)
            .iter()
            .flat_map(|&x| words[usize::from(x % 6)].iter().copied())
            .collect();
        check(WORDS, &want);
    }

    #[test]
    fn far_match() {
        // A 72 000-byte run (283 extra length bytes), then a far match 72 300 bytes back.
        let a = xs(1, 300);
        let mut want = a.clone();
        want.extend_from_slice(&[0; 72_000]);
        want.extend_from_slice(&a);
        want.extend_from_slice(&xs(6, 20));
        check(FAR, &want);
    }

    #[test]
    fn hand_made_items() {
        // The first control byte's top bits are a marker: 0x22 is a 3-byte literal run.
        let mut out = [0u8; 16];
        assert_eq!(decompress(&[0x22, 1, 2, 3], &mut out), Ok(3));
        assert_eq!(out[..3], [1, 2, 3]);
        // A 3-byte match 2 back (control 0x20 | 0, distance byte 1), then a literal.
        assert_eq!(decompress(&[0x01, 1, 2, 0x20, 1, 0x00, 9], &mut out), Ok(6));
        assert_eq!(out[..6], [1, 2, 1, 2, 1, 9]);
        // An 8-byte match (control 6 << 5), 1 back.
        assert_eq!(decompress(&[0x00, 4, 0xC0, 0, 0x00, 5], &mut out), Ok(10));
        assert_eq!(out[..10], [4, 4, 4, 4, 4, 4, 4, 4, 4, 5]);
        // A 9 + 255 + 2 byte match, 1 back.
        let mut big = [0u8; 300];
        assert_eq!(
            decompress(&[0x00, 4, 0xE0, 255, 2, 0, 0x00, 5], &mut big),
            Ok(268)
        );
        assert!(big[..267].iter().all(|&b| b == 4) && big[267] == 5);
        // Distance 8191: high bits 31, distance byte 254 (255 would be far).
        let mut long = vec![0u8; 8191 + 3 + 1];
        let mut stream = Vec::new();
        for i in 0..8191usize {
            if i % 32 == 0 {
                stream.push((8191 - i).min(32) as u8 - 1);
            }
            stream.push(i as u8);
        }
        stream.extend_from_slice(&[0x3F, 254, 0x00, 7]);
        assert_eq!(decompress(&stream, &mut long), Ok(8195));
        assert_eq!(long[8191..8194], [0, 1, 2]);
        assert_eq!(long[8194], 7);
    }

    /// `data` compressed and decoded again.
    fn round_trip(data: &[u8]) -> usize {
        let mut table = [0u32; HASH_ENTRIES];
        let mut stream = vec![0u8; data.len() + data.len() / 16 + 64];
        let n = compress(data, &mut stream, &mut table).unwrap();
        let mut out = vec![0u8; data.len()];
        assert_eq!(decompress(&stream[..n], &mut out), Ok(data.len()));
        assert_eq!(out, data);
        n
    }

    #[test]
    fn the_encoder_round_trips_runs_periods_far_matches_and_noise() {
        let noise = xs(9, 100_000);
        assert!(round_trip(&noise) > 100_000);
        assert!(round_trip(&[0u8; 100_000]) < 500);
        assert!(round_trip(&b"abcdefg".repeat(5000)) < 300);
        // A block repeated 9 000 bytes later: a far match where the table still holds it.
        let mut far = xs(10, 9000);
        far.extend_from_within(..9000);
        round_trip(&far);
        for len in 1..80 {
            round_trip(&xs(11, len));
            round_trip(&vec![7u8; len]);
        }
        // Every length extension boundary of a match.
        for len in [8, 9, 10, 263, 264, 265, 519, 520] {
            let mut d = xs(12, 40);
            d.extend(core::iter::repeat_n(1u8, len));
            d.extend_from_slice(&xs(13, 3));
            round_trip(&d);
        }
    }

    #[test]
    fn far_and_long_matches_are_written_as_the_decoder_reads_them() {
        let noise = xs(15, 70_000);
        for (len, dist) in [
            (3, 8191),
            (6, 8192),
            (9, 20_000),
            (300, 70_000),
            (1000, MAX_FAR),
        ] {
            let mut want = noise[..dist.min(70_000)].to_vec();
            while want.len() < dist {
                want.push(1);
            }
            let mut stream = vec![0u8; 200_000];
            let mut out = Out {
                dst: &mut stream,
                at: 0,
            };
            out.literals(&want).unwrap();
            out.a_match(len, dist).unwrap();
            out.literals(&[42]).unwrap();
            let n = out.at;
            let at = want.len() - dist;
            want.extend_from_within(at..at + len);
            want.push(42);
            let mut got = vec![0u8; want.len()];
            assert_eq!(decompress(&stream[..n], &mut got), Ok(want.len()));
            assert!(got == want, "len {len} dist {dist}");
        }
    }

    #[test]
    fn a_stream_that_does_not_fit_is_none() {
        let mut table = [0u32; HASH_ENTRIES];
        let noise = xs(14, 1000);
        let mut small = vec![0u8; 1000];
        assert_eq!(compress(&noise, &mut small, &mut table), None);
        assert_eq!(compress(&[], &mut small, &mut table), None);
        // Just enough room: what the stream needs, and not a byte less.
        let mut room = vec![0u8; 2000];
        let n = compress(&noise, &mut room, &mut table).unwrap();
        let mut exact = vec![0u8; n];
        assert_eq!(compress(&noise, &mut exact, &mut table), Some(n));
        assert_eq!(compress(&noise, &mut exact[..n - 1], &mut table), None);
    }

    #[test]
    fn errors() {
        let mut out = [0u8; 16];
        assert_eq!(decompress(&[], &mut out), Err(BloscLzError::EmptyInput));
        // A literal run cut short.
        assert_eq!(
            decompress(&[0x03, 1, 2], &mut out),
            Err(BloscLzError::Truncated { at: 3 })
        );
        // A literal run past the end of the output.
        assert_eq!(
            decompress(&[0x03, 1, 2, 3, 4], &mut out[..3]),
            Err(BloscLzError::OutputOverflow {
                capacity: 3,
                needed: 4
            })
        );
        // A match reaching before the start.
        assert_eq!(
            decompress(&[0x00, 1, 0x20, 1, 0x00, 9], &mut out),
            Err(BloscLzError::DistanceTooFar {
                at: 2,
                distance: 2,
                written: 1
            })
        );
        // A match past the end of the output.
        assert_eq!(
            decompress(&[0x00, 1, 0xC0, 0, 0x00, 9], &mut out[..8]),
            Err(BloscLzError::OutputOverflow {
                capacity: 8,
                needed: 9
            })
        );
        // A match with nothing after it (c-blosc fails or drops it), with and without an
        // extended length, and a far distance cut short.
        assert_eq!(
            decompress(&[0x00, 1, 0x20, 0], &mut out),
            Err(BloscLzError::Truncated { at: 4 })
        );
        assert_eq!(
            decompress(&[0x00, 1, 0xE0, 1, 0], &mut out),
            Err(BloscLzError::Truncated { at: 5 })
        );
        assert_eq!(
            decompress(&[0x00, 1, 0xE0, 255], &mut out),
            Err(BloscLzError::Truncated { at: 4 })
        );
        assert_eq!(
            decompress(&[0x00, 1, 0x3F, 255, 0], &mut out),
            Err(BloscLzError::Truncated { at: 4 })
        );
        // A far match needs 8192 bytes of history.
        assert_eq!(
            decompress(&[0x00, 1, 0x3F, 255, 0, 0, 0x00, 1], &mut out),
            Err(BloscLzError::DistanceTooFar {
                at: 2,
                distance: 8192,
                written: 1
            })
        );
    }

    #[test]
    fn garbage_never_panics() {
        let mut s = 0x9E37_79B9_u32;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            s
        };
        let real = unhex(WORDS);
        for round in 0..20_000 {
            let mut stream: Vec<u8> = if round % 2 == 0 {
                (0..next() % 64).map(|_| next() as u8).collect()
            } else {
                real.clone()
            };
            if round % 2 == 1 {
                let i = next() as usize % stream.len();
                stream[i] = next() as u8;
            }
            let mut out = vec![0u8; (next() % 1000) as usize];
            if let Ok(n) = decompress(&stream, &mut out) {
                assert!(n <= out.len());
            }
        }
    }

    #[test]
    fn display_reads_as_a_sentence() {
        let e = BloscLzError::DistanceTooFar {
            at: 4,
            distance: 8192,
            written: 10,
        };
        let s = std::format!("{e}");
        assert!(s.contains("8192") && s.contains("byte 4") && s.contains("10 bytes"));
    }

    /// clevel 5, 400 bytes decoded, 318 bytes.
    const LITERALS: &str = concat!(
        "3f420282061a2359b62a3bca3d09243efebfff359b88e88a99e764043520d9c3771fd17b3d6a22a7e5dd548515b62203",
        "5c344cf39a704caaf783607991f9cd8f7cc21f26308256198de773dc9e353b5d9ad1d60ca243aadd835351ef8e58b7ff",
        "b240421f4d483dc7bf2bed4481570a90c711ad08f527e412997972e355d5e79b155c41e91f639f9db03a6bdd427a7917",
        "9e2e36a6d21908a864f8a217cefcaec525394c2e4d1f2d808f38fe810753368a0b3e4618b20a8baccfe1af8cc6e6e7d0",
        "b4b7855bdef61fb992427358e0ba3b054d17165e4cc9a6ae82fe5858107f4974805df4296783441f4d275b1677a01ec2",
        "1f4c68d5d340f5762b1b099900e1e9e06e9990bb9cd373ee1ff648d01dd07766e105aa44e3e0e4c7fae47f5f21d188d5",
        "3cdb270e10de52598b0c5f013c1c93b8fb80e123336500e0570002000000",
    );

    /// clevel 7, 850 bytes decoded, 104 bytes.
    const LONG_MATCHES: &str = concat!(
        "3f63034749cbf343040f4f010a838acb4fb7f7a482bb5161d6154da1d1fbe7946304d053dd9ed8e0ffc6241fa4840404",
        "0c3467f953a045fcee2b748e7a5a2d98a98b21320e890835860146a112f47a2202c811ad3e5dc3751a1d6a672ab661d0",
        "e2ff210b02d1fbe7",
    );

    /// clevel 9, 483 bytes decoded, 45 bytes.
    const RUNS: &str = "2305050505e05603040507070709e027000b09a505c143e5b7e3e1853100e0bd000300616263e0690202616263";

    /// clevel 8, 460 bytes decoded, 195 bytes.
    const WORDS: &str = concat!(
        "2a6172726179206368756e6ba00580118005076f66207a61727220800d8025016f66a0286019600404626c6f7363a024",
        "02746865a009801560208039600a056f662074686580566010805b016f66a035a01f02746865a0668046e0070fe00635",
        "800e604f6004026f662080378018e00305e0001ae000c80374686520e0007fe00336604a80bb8041e004328018e00905",
        "e0006001746880c7026f6620c1486051806280388057e00305e0003ee0006ce0032fe00335604c0a6172726179207a61",
        "727220",
    );

    /// clevel 6, 72620 bytes decoded, 626 bytes.
    const FAR: &str = concat!(
        "3f2101c54fd1d01ab22574cb378aaef5b10808911933b9eb4ff229a5e4db3e57141f0128e0f4fae27e07f11a4327b7e9",
        "4554ad853bb3ccd5b4d4d454d38d6d2600c71f60b0d44aedcc8e911060dc0536cd9fd08514c6c0044c074f397b385dbf",
        "c9c0da1f9be190f7bca0480abbd3eaa17018650d79117190185a57a6aac69d40dcd69a2d1fda81c12d68ec600b2fee92",
        "94bc6e4b6eb6d5020af9fdee5de091c894dff72e591fa822a4ffa3cac632e765941615984fd8ae459eb821f9331b72f9",
        "1150d72f274f1f273ff6d6d3b802d385d4c92d6c12fab0786ec86007c2a670f576a8ed332e57231fb8263b2e37f5ad28",
        "e926d64be7db38422d5727962bfd0e0b8636fc67bb26fd3c1f79dea6cac372febdb335e6d8e65f72ead7c659222a4d3d",
        "865457305f87fcba900cf099220ef4587faefffa1ef200e0ffffffffffffffffffffffffffffffffffffffffffffffff",
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "ffffffffffffffffffffffffffffffffffff4f000000ffff23fffa6c14f2c606860a2e44a0e58a7e36d32250b084e5d2",
        "ad32",
    );
}
