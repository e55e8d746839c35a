//! numcodecs `base64`: the bytes as standard base64 text (RFC 4648 alphabet `A-Z a-z 0-9 + /`,
//! `=` padding, no line breaks), as Python's `base64.standard_b64encode` writes it. Decoded
//! as it streams in, straight into the destination, without allocation: a group of four
//! characters split between two calls waits in the decoder's carry.
//!
//! Stricter than Python's `b64decode` (which drops characters outside the alphabet): any other
//! byte, padding anywhere but at the end, or a length that is not a whole number of groups is
//! an error. Like Python, bits past the last whole byte are ignored (`"YWJ="` is `ab`).

use super::SizeProbe;
use super::{CompressorCodec, FromConfig, no_window};
use crate::codec::config::{Config, Reader};
use crate::codec::decoders::Decoders;
use crate::codec::encode::{ConfigFor, ConfigSink, EncodeError};
#[cfg(feature = "alloc")]
use crate::codec::encode::{EncodeBackends, Encoder};
use crate::codec::error::{INPUT_OVERRUN, STAGED_OVERRUN};
use crate::codec::{ChainError, CodecName, DecodeError, Progress};

/// numcodecs `base64` (no configuration).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Base64;

impl Base64 {
    pub(crate) const NAMES: &'static [&'static str] = &["numcodecs.base64"];
    pub(crate) const V2_ID: Option<&'static str> = Some("base64");
}

impl FromConfig for Base64 {
    fn from_config<C: Config + ?Sized>(_: &Reader<'_, C>) -> Result<Self, ChainError> {
        Ok(Self)
    }
}

fn corrupt(reason: &'static str) -> DecodeError {
    DecodeError::Corrupt {
        codec: CodecName::Base64,
        reason,
    }
}

/// The 6 bits character `c` stands for.
fn sextet(c: u8) -> Result<u8, DecodeError> {
    match c {
        b'A'..=b'Z' => Ok(c - b'A'),
        b'a'..=b'z' => Ok(c - b'a' + 26),
        b'0'..=b'9' => Ok(c - b'0' + 52),
        b'+' => Ok(62),
        b'/' => Ok(63),
        _ => Err(corrupt("a character outside the base64 alphabet")),
    }
}

/// The bytes of one group of four characters, and how many there are (1 to 3: a group that
/// ends in `=` or `==` is the stream's last).
fn group(g: [u8; 4]) -> Result<([u8; 3], usize), DecodeError> {
    let pad = match g {
        [_, _, b'=', b'='] => 2,
        [_, _, _, b'='] => 1,
        _ => 0,
    };
    let mut bits = 0u32;
    for (i, &c) in g.iter().enumerate() {
        let v = if i >= 4 - pad { 0 } else { sextet(c)? };
        bits = bits << 6 | u32::from(v);
    }
    let [_, a, b, c] = bits.to_be_bytes();
    Ok(([a, b, c], 3 - pad))
}

impl CompressorCodec for Base64 {
    /// Four characters decode to at most three bytes.
    fn max_ratio(&self) -> u64 {
        1
    }

    fn moves_window(&self) -> bool {
        false
    }

    fn serializes_numbers(&self) -> bool {
        false
    }

    fn can_window(&self) -> bool {
        false
    }

    fn min_window(&self, _: &[u8], _: Option<u64>, _: usize) -> Result<usize, DecodeError> {
        Ok(1)
    }

    /// The decoded size depends on the padding at the end and the length together, which a
    /// probe of the last bytes does not carry.
    fn size_probe(&self, _: u64) -> Result<SizeProbe, DecodeError> {
        Err(DecodeError::SizeUnknown {
            codec: CodecName::Base64,
        })
    }

    fn decoded_len(&self, _: Option<&[u8]>, _: &[u8]) -> Result<u64, DecodeError> {
        Err(DecodeError::SizeUnknown {
            codec: CodecName::Base64,
        })
    }

    #[cfg(feature = "alloc")]
    fn builtin_backend(&self) -> Option<alloc::boxed::Box<dyn crate::codec::Backend>> {
        None
    }

    fn start(&self, _: &mut Decoders, _: u64, _: usize, _: bool) -> Result<(), DecodeError> {
        Ok(())
    }

    fn decode(
        &self,
        d: &mut Decoders,
        input: &[u8],
        dst: &mut [u8],
        pos: usize,
    ) -> Result<Progress, DecodeError> {
        let (mut consumed, mut written) = (0, 0);
        while d.carry.len < 4 {
            let Some(&c) = input.get(consumed) else { break };
            *d.carry.bytes.get_mut(d.carry.len).ok_or(STAGED_OVERRUN)? = c;
            d.carry.len += 1;
            consumed += 1;
        }
        if d.carry.len == 4 {
            let g = *d.carry.bytes.first_chunk::<4>().ok_or(STAGED_OVERRUN)?;
            d.carry.len = 0;
            if put(g, dst, pos, &mut written)? {
                return Ok(Progress::new(consumed, written, true));
            }
            let rest = input.get(consumed..).ok_or(INPUT_OVERRUN)?;
            let mut groups = rest.chunks_exact(4);
            for g in &mut groups {
                consumed += 4;
                let g = *g.first_chunk::<4>().ok_or(INPUT_OVERRUN)?;
                if put(g, dst, pos, &mut written)? {
                    return Ok(Progress::new(consumed, written, true));
                }
            }
            for &c in groups.remainder() {
                *d.carry.bytes.get_mut(d.carry.len).ok_or(STAGED_OVERRUN)? = c;
                d.carry.len += 1;
                consumed += 1;
            }
        }
        let done = d.carry.len == 0 && pos + written == d.decoded_len;
        Ok(Progress::new(consumed, written, done))
    }

    fn decode_window(
        &self,
        _: &mut Decoders,
        _: &[u8],
        _: &mut [u8],
        _: usize,
    ) -> Result<(Progress, usize), DecodeError> {
        Err(no_window(CodecName::Base64))
    }

    /// zinto only decodes it.
    #[cfg(feature = "alloc")]
    fn encoder(
        &self,
        _: usize,
        _: &dyn EncodeBackends,
    ) -> Result<alloc::boxed::Box<dyn Encoder>, EncodeError> {
        Err(super::decode_only(CodecName::Base64))
    }

    /// zinto only decodes it.
    fn write_config(&self, _: ConfigFor, _: &mut dyn ConfigSink) -> Result<(), EncodeError> {
        Err(super::decode_only(CodecName::Base64))
    }

    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(Self::NAMES[0])
    }
}

/// Writes group `g`'s bytes at `dst[pos + *written..]`; `true` if it was the padded last.
fn put(g: [u8; 4], dst: &mut [u8], pos: usize, written: &mut usize) -> Result<bool, DecodeError> {
    let (bytes, n) = group(g)?;
    let at = pos + *written;
    let overflow = DecodeError::OutputOverflow {
        codec: CodecName::Base64,
        capacity: dst.len() as u64,
    };
    let room = dst.get_mut(at..at + n).ok_or(overflow)?;
    room.copy_from_slice(bytes.get(..n).ok_or(STAGED_OVERRUN)?);
    *written += n;
    Ok(n < 3)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    use crate::codec::{BytesCodecs, ChunkDecoder, Compressor, DecodeError, Status};

    const BASE64: BytesCodecs = BytesCodecs::compressed(Some(Compressor::Base64(super::Base64)));

    /// Decodes `text` to `len` bytes, fed in pieces of `piece` bytes.
    fn decode(text: &[u8], len: usize, piece: usize) -> Result<Vec<u8>, DecodeError> {
        let mut d = ChunkDecoder::new();
        d.start(&BASE64, text.len() as u64, len)?;
        let mut out = vec![0u8; len];
        let mut status = Status::NeedsInput;
        for p in text.chunks(piece) {
            status = d.feed(p, &mut out)?.status;
        }
        if text.is_empty() {
            status = d.feed(&[], &mut out)?.status;
        }
        assert_eq!(status, Status::Done, "{text:?}");
        Ok(out)
    }

    /// Python's `base64.standard_b64encode` of these, in pieces of any size.
    #[test]
    fn decodes_what_python_encodes() {
        let cases: [(&[u8], &[u8]); 6] = [
            (b"", b""),
            (b"YQ==", b"a"),
            (b"YWI=", b"ab"),
            (b"YWJj", b"abc"),
            (b"AAECAwQFBgc=", &[0, 1, 2, 3, 4, 5, 6, 7]),
            (b"+/8A", &[0xfb, 0xff, 0x00]),
        ];
        for (text, bytes) in cases {
            for piece in [1, 2, 3, 5, 100] {
                assert_eq!(decode(text, bytes.len(), piece).unwrap(), bytes, "{text:?}");
            }
        }
        // Bits past the last byte are ignored, as Python ignores them.
        assert_eq!(decode(b"YWJ=", 2, 4).unwrap(), b"ab");
    }

    #[test]
    fn malformed_text_is_an_error_naming_base64() {
        for (text, len) in [
            (&b"YW\nI="[..], 2),
            (b"Y===", 1),
            (b"YQ==YQ==", 2),
            (b"YQ=a", 2),
            (b"YWJjZA", 4),
            (b"YWJj", 2),
        ] {
            let mut d = ChunkDecoder::new();
            d.start(&BASE64, text.len() as u64, len).unwrap();
            let mut out = vec![0u8; len];
            let e = d.feed(text, &mut out).and_then(|p| {
                if p.status == Status::Done {
                    Ok(())
                } else {
                    Err(DecodeError::Truncated {
                        codec: crate::codec::CodecName::Base64,
                    })
                }
            });
            let e = e.unwrap_err();
            assert!(std::format!("{e}").contains("base64"), "{text:?}: {e}");
        }
    }
}
