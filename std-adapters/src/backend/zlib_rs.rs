//! Raw DEFLATE through zlib-rs (by way of flate2), in place of miniz_oxide for every gzip and
//! zlib stream: zinto-core still reads the wrappers and checks their checksums
//! ([`RawInflate`]), so both inflaters report the same faults alike. zlib-rs keeps its own
//! 32 KiB window (allocated once per decoder, about 40 KiB in all) and writes straight into the
//! destination.

use flate2::{Decompress, FlushDecompress, Status};
use zinto_core::codec::{CodecName, DecodeError, RawInflate, RawStatus};

/// zlib-rs's inflater, raw DEFLATE, reusable across streams.
pub struct ZlibRs {
    inflate: Decompress,
}

impl std::fmt::Debug for ZlibRs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZlibRs").finish_non_exhaustive()
    }
}

impl Default for ZlibRs {
    fn default() -> Self {
        Self::new()
    }
}

impl ZlibRs {
    /// An inflater for raw DEFLATE streams (no zlib or gzip wrapper).
    pub fn new() -> Self {
        Self {
            inflate: Decompress::new(false),
        }
    }

    /// A boxed one, for [`ChunkDecoder::set_inflater`](zinto_core::codec::ChunkDecoder::set_inflater).
    pub fn boxed() -> Box<dyn RawInflate> {
        Box::new(Self::new())
    }
}

impl RawInflate for ZlibRs {
    fn reset(&mut self) {
        self.inflate.reset(false);
    }

    fn inflate(
        &mut self,
        input: &[u8],
        dst: &mut [u8],
        pos: usize,
    ) -> Result<(usize, usize, RawStatus), DecodeError> {
        let out = dst.get_mut(pos..).ok_or(DecodeError::Internal {
            what: "an inflate position past the destination",
        })?;
        let room = out.len();
        let (in_before, out_before) = (self.inflate.total_in(), self.inflate.total_out());
        let status = self
            .inflate
            .decompress(input, out, FlushDecompress::None)
            .map_err(|_| DecodeError::Corrupt {
                // zinto-core names the stream's codec (gzip or zlib) in its place.
                codec: CodecName::Zlib,
                reason: "invalid DEFLATE data",
            })?;
        let consumed = usize::try_from(self.inflate.total_in() - in_before).map_err(|_| {
            DecodeError::Internal {
                what: "zlib-rs consumed more than its input",
            }
        })?;
        let written = usize::try_from(self.inflate.total_out() - out_before).map_err(|_| {
            DecodeError::Internal {
                what: "zlib-rs wrote more than its output",
            }
        })?;
        let state = match status {
            Status::StreamEnd => RawStatus::Done,
            Status::Ok | Status::BufError if written == room => RawStatus::OutputFull,
            Status::Ok | Status::BufError => RawStatus::NeedsInput,
        };
        Ok((consumed, written, state))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::cast_possible_truncation)]
mod tests {
    use std::io::Write;

    use zinto_core::codec::{BytesCodecs, ChunkDecoder, Compressor, DecodeError, RING_MIN, Status};

    use super::ZlibRs;

    fn sample(len: usize) -> Vec<u8> {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        (0..len)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if (i / 400) % 3 == 0 {
                    (x >> 32) as u8
                } else {
                    (i / 50) as u8
                }
            })
            .collect()
    }

    fn compress(gzip: bool, data: &[u8], level: u32) -> Vec<u8> {
        let level = flate2::Compression::new(level);
        if gzip {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), level);
            e.write_all(data).unwrap();
            e.finish().unwrap()
        } else {
            let mut e = flate2::write::ZlibEncoder::new(Vec::new(), level);
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
    }

    /// The codecs of a gzip (or zlib) chunk, and a decoder inflating with zlib-rs (`zlib_rs`)
    /// or miniz_oxide.
    fn decoder(zlib_rs: bool, gzip: bool) -> (BytesCodecs, ChunkDecoder) {
        let compressor = if gzip {
            Compressor::GZIP
        } else {
            Compressor::ZLIB
        };
        let mut d = ChunkDecoder::new();
        if zlib_rs {
            d.set_inflater(ZlibRs::boxed);
        }
        (BytesCodecs::compressed(Some(compressor)), d)
    }

    /// Decodes whole with zlib-rs (`zlib_rs`) or miniz_oxide, in pieces of `piece` bytes.
    fn decode(
        zlib_rs: bool,
        gzip: bool,
        stored: &[u8],
        len: usize,
        piece: usize,
    ) -> Result<Vec<u8>, DecodeError> {
        let (codecs, mut d) = decoder(zlib_rs, gzip);
        d.start(&codecs, stored.len() as u64, len)?;
        let mut out = vec![0u8; len];
        let mut status = Status::NeedsInput;
        for p in stored.chunks(piece) {
            status = d.feed(p, &mut out)?.status;
        }
        if status != Status::Done {
            return Err(DecodeError::Truncated {
                codec: codecs.compressor.unwrap().name(),
            });
        }
        Ok(out)
    }

    /// The same through a ring of `RING_MIN` bytes.
    fn decode_windowed(
        zlib_rs: bool,
        gzip: bool,
        stored: &[u8],
        len: usize,
        piece: usize,
    ) -> Result<Vec<u8>, DecodeError> {
        let (codecs, mut d) = decoder(zlib_rs, gzip);
        d.start_windowed(&codecs, stored.len() as u64, len)?;
        let mut ring = vec![0u8; RING_MIN];
        let mut out = Vec::new();
        let mut status = Status::NeedsInput;
        for p in stored.chunks(piece) {
            let mut at = 0;
            loop {
                let r = d.feed_window(&p[at..], &mut ring)?;
                at += r.consumed;
                out.extend_from_slice(&ring[r.produced]);
                status = r.status;
                if status == Status::Done || (status == Status::NeedsInput && at == p.len()) {
                    break;
                }
            }
        }
        if status != Status::Done {
            return Err(DecodeError::Truncated {
                codec: codecs.compressor.unwrap().name(),
            });
        }
        Ok(out)
    }

    #[test]
    fn zlib_rs_and_miniz_decode_the_same_bytes_whole_and_windowed() {
        for gzip in [true, false] {
            for len in [0usize, 1, 70_000, 1_000_003] {
                let data = sample(len);
                for level in [0, 1, 6, 9] {
                    let stored = compress(gzip, &data, level);
                    for piece in [7usize, 65_536, usize::MAX] {
                        if piece == 7 && len > 70_000 {
                            continue;
                        }
                        for zlib_rs in [true, false] {
                            let what = format!(
                                "gzip {gzip} len {len} level {level} piece {piece} zlib-rs {zlib_rs}"
                            );
                            assert!(
                                decode(zlib_rs, gzip, &stored, len, piece).unwrap() == data,
                                "{what}"
                            );
                            assert!(
                                decode_windowed(zlib_rs, gzip, &stored, len, piece).unwrap()
                                    == data,
                                "{what}, windowed"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn corrupt_streams_fail_alike_on_both_inflaters() {
        let data = sample(50_000);
        for gzip in [true, false] {
            let stored = compress(gzip, &data, 6);
            let n = stored.len();
            // A flipped checksum byte: the same mismatch, found by zinto-core on both.
            let mut bad = stored.clone();
            bad[n - if gzip { 6 } else { 2 }] ^= 1;
            let a = decode(true, gzip, &bad, data.len(), 4096).unwrap_err();
            let b = decode(false, gzip, &bad, data.len(), 4096).unwrap_err();
            assert_eq!(a, b, "gzip {gzip}");
            assert!(matches!(a, DecodeError::ChecksumMismatch { .. }), "{a:?}");
            // Garbage in the body, a truncated stream, a destination one byte short: errors.
            let mut garbage = stored.clone();
            for b in &mut garbage[n / 2..n / 2 + 40] {
                *b = 0xFF;
            }
            for zlib_rs in [true, false] {
                assert!(decode(zlib_rs, gzip, &garbage, data.len(), 4096).is_err());
                assert!(decode(zlib_rs, gzip, &stored[..n - 9], data.len(), 4096).is_err());
                assert!(matches!(
                    decode(zlib_rs, gzip, &stored, data.len() - 1, 4096),
                    Err(DecodeError::OutputOverflow { .. })
                ));
                assert!(decode_windowed(zlib_rs, gzip, &stored, data.len() - 1, 4096).is_err());
            }
        }
    }
}
