//! Snappy's raw format, as Blosc stores its `snappy` inner streams (`snappy_uncompress`): a
//! varint of the decoded length, then literals and back-references. Decoded into the caller's
//! slice, without allocation: c-blosc may be built with Snappy, and then writes such chunks,
//! which zarr-python 3.1.6 (its c-blosc built without it) cannot read.
//!
//! Format (google/snappy `format_description.txt`): each element starts with a tag byte whose
//! low two bits say what it is:
//! - `00` literal: its length minus one is the tag's top six bits if below 60, else the next
//!   1 to 4 bytes (little-endian, `tag >> 2` minus 59 of them);
//! - `01` copy: length `4 + (tag >> 2 & 7)`, offset `(tag >> 5) << 8 | next byte`;
//! - `10` copy: length `1 + (tag >> 2)`, offset the next 2 bytes (little-endian);
//! - `11` copy: length `1 + (tag >> 2)`, offset the next 4 bytes.
//!
//! A copy repeats `offset` bytes back, overlapping its own output where the offset is shorter
//! than the length. Offsets of 0 or past the start, lengths past the stated size, a stated
//! size other than the destination's, and input that ends inside an element are errors.

use super::lz_copy::copy_match;
use super::{CodecName, DecodeError};

fn corrupt(reason: &'static str) -> DecodeError {
    DecodeError::Corrupt {
        codec: CodecName::Snappy,
        reason,
    }
}

const TRUNCATED: DecodeError = DecodeError::Truncated {
    codec: CodecName::Snappy,
};

/// The decoded length the stream starts with, and where its elements start.
fn preamble(src: &[u8]) -> Result<(u64, usize), DecodeError> {
    let mut len = 0u64;
    for (i, &b) in src.iter().enumerate().take(5) {
        len |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Ok((len, i + 1));
        }
    }
    Err(if src.len() < 5 {
        TRUNCATED
    } else {
        corrupt("a decoded length longer than 32 bits")
    })
}

/// `n` little-endian bytes of `src` at `at`.
fn le(src: &[u8], at: usize, n: usize) -> Result<usize, DecodeError> {
    let bytes = src.get(at..at + n).ok_or(TRUNCATED)?;
    let v = bytes.iter().rev().fold(0u64, |v, &b| v << 8 | u64::from(b));
    usize::try_from(v).map_err(|_| corrupt("an offset or length past memory"))
}

/// Decodes the whole raw Snappy stream `src` into `dst`, which must be exactly the length the
/// stream states; returns it.
///
/// # Errors
/// [`DecodeError::SizeMismatch`] if the stated length is not `dst.len()`;
/// [`DecodeError::Truncated`] for input that ends inside an element or before the stated
/// length is written; [`DecodeError::Corrupt`] for a copy from before the output or at offset
/// 0, or elements that write past the stated length.
pub fn decompress(src: &[u8], dst: &mut [u8]) -> Result<usize, DecodeError> {
    let (stated, mut ip) = preamble(src)?;
    if stated != dst.len() as u64 {
        return Err(DecodeError::SizeMismatch {
            codec: CodecName::Snappy,
            expected: dst.len() as u64,
            got: stated,
        });
    }
    let mut op = 0usize;
    while ip < src.len() {
        let tag = *src.get(ip).ok_or(TRUNCATED)?;
        ip += 1;
        let upper = usize::from(tag >> 2);
        if tag & 3 == 0 {
            let len = if upper < 60 {
                upper + 1
            } else {
                let n = upper - 59;
                let len = le(src, ip, n)?
                    .checked_add(1)
                    .ok_or(corrupt("a literal length past memory"))?;
                ip += n;
                len
            };
            let from = src
                .get(ip..ip.checked_add(len).ok_or(TRUNCATED)?)
                .ok_or(TRUNCATED)?;
            dst.get_mut(op..op + len)
                .ok_or(corrupt("a literal past the stated length"))?
                .copy_from_slice(from);
            ip += len;
            op += len;
            continue;
        }
        let (len, offset, n) = match tag & 3 {
            1 => (
                4 + (upper & 7),
                usize::from(tag >> 5) << 8 | le(src, ip, 1)?,
                1,
            ),
            2 => (upper + 1, le(src, ip, 2)?, 2),
            _ => (upper + 1, le(src, ip, 4)?, 4),
        };
        ip += n;
        if offset == 0 || offset > op {
            return Err(corrupt("a copy from before the output, or from offset 0"));
        }
        if len > dst.len() - op {
            return Err(corrupt("a copy past the stated length"));
        }
        copy_match(dst, op - offset, op, len);
        op += len;
    }
    if op != dst.len() {
        return Err(TRUNCATED);
    }
    Ok(op)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    use super::*;

    /// What the `snap` crate (a port of google/snappy) writes decodes back, for data with
    /// literals, short and long copies and overlapping runs.
    #[test]
    fn decodes_what_snappy_writes() {
        let mut data: Vec<u8> = (0..70_000u32).map(|i| (i % 251) as u8).collect();
        data.extend(core::iter::repeat_n(7u8, 5000));
        data.extend((0..3000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8));
        for len in [0, 1, 5, 64, 1000, data.len()] {
            let src = snap::raw::Encoder::new()
                .compress_vec(&data[..len])
                .unwrap();
            let mut out = vec![0u8; len];
            assert_eq!(decompress(&src, &mut out), Ok(len));
            assert_eq!(out, data[..len]);
        }
    }

    #[test]
    fn hostile_streams_are_errors_naming_snappy() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i % 13) as u8).collect();
        let good = snap::raw::Encoder::new().compress_vec(&data).unwrap();
        let mut out = vec![0u8; 1000];
        // Every truncation is an error, never a panic.
        for cut in 0..good.len() {
            assert!(decompress(&good[..cut], &mut out).is_err(), "{cut}");
        }
        assert!(matches!(
            decompress(&good, &mut out[..999]),
            Err(DecodeError::SizeMismatch { .. })
        ));
        for bad in [
            &[3u8, 0x01, 0x00][..],       // a copy at offset 0
            &[3, 0x00, b'a', 0x05, 0x09], // a copy 9 back after one byte
            &[2, 0x04, b'a', b'b', b'c'], // a literal past the stated length
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
        ] {
            let mut out = vec![0u8; usize::from(bad[0] & 0x7f)];
            assert!(decompress(bad, &mut out).is_err(), "{bad:?}");
        }
    }
}
