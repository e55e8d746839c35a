//! numcodecs `lzma`: liblzma (through the `liblzma` crate, built from liblzma's own source), as
//! Python's `lzma` module is, decoding straight into the destination.
//!
//! liblzma keeps the stream's dictionary (up to 64 MiB for preset 9), so it lives in the std
//! crate, as a [`Backend`]. What a stream may make it allocate is bounded: `.xz` and `.lzma`
//! decoders run under a memory limit of [`MEMORY_LIMIT`], and a raw stream's dictionary is at
//! most [`LZMA_MAX_DICT_SIZE`] (checked with its configuration).

use liblzma::stream::{Action, Filters, LzmaOptions, Status as XzStatus, Stream};
use zinto_core::codec::{
    Backend, CodecName, Compressor, DecodeError, LZMA_MAX_DICT_SIZE, LzmaFormat, LzmaRawFilter,
    Progress,
};

use super::stepped::Stepped;

/// The most memory liblzma may use for an `.xz` or `.lzma` stream: 160 MiB, above what any
/// preset needs (64 MiB of dictionary and its state), below what a hostile header could ask.
pub const MEMORY_LIMIT: u64 = 160 << 20;

/// An LZMA stream decoder; a fresh liblzma stream per chunk.
#[derive(Default)]
pub struct Lzma {
    stream: Option<Stream>,
    done: bool,
}

impl std::fmt::Debug for Lzma {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lzma")
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl Lzma {
    /// A decoder with nothing started.
    pub fn new() -> Self {
        Self::default()
    }
}

fn corrupt(reason: &'static str) -> DecodeError {
    DecodeError::Corrupt {
        codec: CodecName::Lzma,
        reason,
    }
}

fn error(e: &liblzma::stream::Error) -> DecodeError {
    use liblzma::stream::Error as E;
    match e {
        E::Data => corrupt("invalid LZMA data"),
        E::Format => corrupt("not a stream of the configured format"),
        E::Options => corrupt("options liblzma does not support"),
        E::MemLimit | E::Mem => DecodeError::Unsupported {
            codec: CodecName::Lzma,
            what: "a stream that needs more than 160 MiB of memory",
        },
        E::UnsupportedCheck => DecodeError::Unsupported {
            codec: CodecName::Lzma,
            what: "an integrity check liblzma was built without",
        },
        E::NoCheck | E::Program => corrupt("a stream liblzma cannot go on with"),
    }
}

/// liblzma's decoder for a raw stream of `f`.
fn raw_decoder(f: LzmaRawFilter) -> Result<Stream, DecodeError> {
    let mut options =
        // No preset stated: liblzma's (and Python's) default, 6.
        LzmaOptions::new_preset(f.preset.unwrap_or(6).into()).map_err(|e| error(&e))?;
    if let Some(size) = f.dict_size {
        // Checked against LZMA_MAX_DICT_SIZE when the configuration was read.
        options.dict_size(size.min(LZMA_MAX_DICT_SIZE));
    }
    let mut filters = Filters::new();
    if f.lzma2 {
        filters.lzma2(&options);
    } else {
        filters.lzma1(&options);
    }
    Stream::new_raw_decoder(&filters).map_err(|e| error(&e))
}

impl Backend for Lzma {
    fn codec(&self) -> CodecName {
        CodecName::Lzma
    }

    fn start(&mut self, compressor: &Compressor, _: u64, _: usize) -> Result<(), DecodeError> {
        let Compressor::Lzma(config) = compressor else {
            return Err(DecodeError::Internal {
                what: "the lzma backend started for another codec",
            });
        };
        let stream = match config.format {
            LzmaFormat::Xz => Stream::new_stream_decoder(MEMORY_LIMIT, 0),
            LzmaFormat::Alone => Stream::new_lzma_decoder(MEMORY_LIMIT),
            LzmaFormat::Auto => Stream::new_auto_decoder(MEMORY_LIMIT, 0),
            LzmaFormat::Raw(f) => return self.started(raw_decoder(f)?),
        };
        self.started(stream.map_err(|e| error(&e))?)
    }

    fn decode(
        &mut self,
        input: &[u8],
        dst: &mut [u8],
        pos: usize,
    ) -> Result<Progress, DecodeError> {
        let capacity = dst.len();
        let out = dst.get_mut(pos..).ok_or(DecodeError::Internal {
            what: "lzma given a position past its destination",
        })?;
        let offered = out.len();
        self.step(input, out)?
            .whole(CodecName::Lzma, capacity, offered, input.len())
    }

    /// liblzma keeps the stream's dictionary, so a window is only somewhere to put what it
    /// decodes.
    fn windowed(&self) -> bool {
        true
    }

    fn start_windowed(
        &mut self,
        compressor: &Compressor,
        encoded_len: u64,
        decoded_len: usize,
    ) -> Result<(), DecodeError> {
        self.start(compressor, encoded_len, decoded_len)
    }

    fn decode_window(&mut self, input: &[u8], window: &mut [u8]) -> Result<Progress, DecodeError> {
        Ok(self.step(input, window)?.windowed(window.len()))
    }
}

impl Lzma {
    /// Decodes what it can of `input` into `out`.
    fn step(&mut self, input: &[u8], out: &mut [u8]) -> Result<Stepped, DecodeError> {
        if self.done {
            return Ok(Stepped::ENDED);
        }
        let stream = self.stream.as_mut().ok_or(DecodeError::Internal {
            what: "lzma fed before it was started",
        })?;
        let (in0, out0) = (stream.total_in(), stream.total_out());
        let status = stream
            .process(input, out, Action::Run)
            .map_err(|e| error(&e))?;
        let ended = status == XzStatus::StreamEnd;
        let stepped = Stepped::from_totals(
            (in0, stream.total_in(), input.len()),
            (out0, stream.total_out(), out.len()),
            ended,
        )?;
        self.done = ended;
        Ok(stepped)
    }

    fn started(&mut self, stream: Stream) -> Result<(), DecodeError> {
        self.stream = Some(stream);
        self.done = false;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use liblzma::stream::{Action, Filters, LzmaOptions, Status as XzStatus, Stream};
    use zinto_core::codec::{
        BytesCodecs, ChunkDecoder, CodecName, Compressor, DecodeError, Status,
    };

    use super::*;

    fn encode(mut s: Stream, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(data.len() + 1024);
        let mut input = data;
        loop {
            let before = s.total_in();
            let status = s.process_vec(input, &mut out, Action::Finish).unwrap();
            input = &input[usize::try_from(s.total_in() - before).unwrap()..];
            if status == XzStatus::StreamEnd {
                return out;
            }
            out.reserve(1 << 16);
        }
    }

    fn decode(
        c: Compressor,
        stored: &[u8],
        len: usize,
        piece: usize,
    ) -> Result<Vec<u8>, DecodeError> {
        let mut d = ChunkDecoder::new();
        d.set_backend(Box::new(Lzma::new()));
        d.start(&BytesCodecs::compressed(Some(c)), stored.len() as u64, len)?;
        let mut out = vec![0u8; len];
        let mut status = Status::NeedsInput;
        for p in stored.chunks(piece) {
            status = d.feed(p, &mut out)?.status;
        }
        assert_eq!(status, Status::Done);
        Ok(out)
    }

    fn data() -> Vec<u8> {
        (0..100_000u32)
            .flat_map(|i| (i / 7).to_le_bytes())
            .collect()
    }

    const XZ: Compressor = Compressor::Lzma(zinto_core::codec::Lzma {
        format: LzmaFormat::Xz,
        preset: None,
    });

    /// `.xz` and raw LZMA2 streams (as numcodecs' format 1 and format 3 with `{"id": 33,
    /// "preset": 1}` write them) decode in pieces of any size.
    #[test]
    fn xz_and_raw_streams_decode_in_any_pieces() {
        let data = data();
        let xz = encode(
            Stream::new_easy_encoder(6, liblzma::stream::Check::Crc64).unwrap(),
            &data,
        );
        let mut filters = Filters::new();
        filters.lzma2(&LzmaOptions::new_preset(1).unwrap());
        let raw = encode(Stream::new_raw_encoder(&filters).unwrap(), &data);
        let raw_config = Compressor::Lzma(zinto_core::codec::Lzma {
            format: LzmaFormat::Raw(LzmaRawFilter {
                lzma2: true,
                preset: Some(1),
                dict_size: None,
            }),
            preset: None,
        });
        for (c, stored) in [(XZ, &xz), (raw_config, &raw)] {
            for piece in [1, 1000, stored.len()] {
                assert_eq!(
                    decode(c, stored, data.len(), piece).unwrap(),
                    data,
                    "{c} in {piece}s"
                );
            }
        }
    }

    /// Through a window (of any size, fed in any pieces) a stream decodes to the same bytes, with
    /// its size given or only bounded; a bound one byte short is an overflow.
    #[test]
    fn windowed_decodes_the_same_sized_or_bounded() {
        let data = data();
        let xz = encode(
            Stream::new_easy_encoder(1, liblzma::stream::Check::Crc64).unwrap(),
            &data,
        );
        let codecs = BytesCodecs::compressed(Some(XZ));
        for (piece, window) in [(1, 7), (1000, 4096), (xz.len(), 1 << 20)] {
            for bound in [None, Some(data.len()), Some(data.len() + 9)] {
                let mut d = ChunkDecoder::new();
                d.set_backend(Box::new(Lzma::new()));
                let got = crate::backend::tests::drain_window(
                    &mut d,
                    &codecs,
                    &xz,
                    bound.map_or(
                        crate::backend::tests::Size::Exact(data.len()),
                        crate::backend::tests::Size::AtMost,
                    ),
                    piece,
                    window,
                );
                assert_eq!(got.unwrap(), data, "{piece} {window} {bound:?}");
            }
        }
        let mut d = ChunkDecoder::new();
        d.set_backend(Box::new(Lzma::new()));
        let short = crate::backend::tests::Size::AtMost(data.len() - 1);
        let e = crate::backend::tests::drain_window(&mut d, &codecs, &xz, short, 1000, 4096);
        assert!(
            matches!(e, Err(DecodeError::OutputOverflow { .. })),
            "{e:?}"
        );
    }

    #[test]
    fn bad_streams_are_errors_naming_lzma() {
        let data = data();
        let xz = encode(
            Stream::new_easy_encoder(1, liblzma::stream::Check::Crc64).unwrap(),
            &data,
        );
        let mut flipped = xz.clone();
        let mid = flipped.len() / 2;
        flipped[mid] ^= 0x55;
        let short = decode(XZ, &xz, data.len() - 1, xz.len()).unwrap_err();
        assert!(
            matches!(
                short,
                DecodeError::OutputOverflow {
                    codec: CodecName::Lzma,
                    ..
                }
            ),
            "{short}"
        );
        let bad = decode(XZ, &flipped, data.len(), 4096).unwrap_err();
        assert!(bad.to_string().contains("lzma"), "{bad}");
        let not_xz = decode(XZ, b"not an xz stream at all", 10, 100).unwrap_err();
        assert!(
            matches!(
                not_xz,
                DecodeError::Corrupt {
                    codec: CodecName::Lzma,
                    ..
                }
            ),
            "{not_xz}"
        );
    }

    /// A `.lzma` ("alone") header stating a 1 GiB dictionary: liblzma refuses it under the
    /// 160 MiB memory limit before allocating it, an error naming lzma and the limit; 128 MiB
    /// (within the limit) is taken, and only the bytes after it are found bad.
    #[test]
    fn a_dictionary_past_the_memory_limit_is_refused_before_it_is_allocated() {
        let alone = Compressor::Lzma(zinto_core::codec::Lzma {
            format: LzmaFormat::Alone,
            preset: None,
        });
        let header = |dict: u32| {
            let mut h = vec![0x5d];
            h.extend_from_slice(&dict.to_le_bytes());
            h.extend_from_slice(&u64::MAX.to_le_bytes());
            h.extend_from_slice(&[0xff; 32]);
            h
        };
        let e = decode(alone, &header(1 << 30), 100, 64).unwrap_err();
        assert!(
            matches!(
                e,
                DecodeError::Unsupported {
                    codec: CodecName::Lzma,
                    ..
                }
            ) && e.to_string().contains("160 MiB"),
            "{e}"
        );
        let e = decode(alone, &header(1 << 27), 100, 64).unwrap_err();
        assert!(!e.to_string().contains("160 MiB"), "{e}");
    }
}
