//! numcodecs `pcodec`: pco's standalone format, decoded by pco itself (the pcodec authors'
//! Rust, which the Python package wraps).
//!
//! pco decodes a whole stream at once, so the stored chunk is gathered first (as many bytes as
//! are stored, nothing the stream claims). The numbers are then decoded 256 at a time into a
//! small buffer and written straight into the destination in the machine's byte order: no
//! buffer of the decoded chunk besides the destination.
//!
//! The stream states its number type, not the array's, and only the total byte count is
//! checked: a stream of `i32` in a `float32` array, or of twice as many `u16`, reads as those
//! bytes (numcodecs would do the same, reinterpreting the output).

use super::whole::{Whole, whole_backend};
use pco::FULL_BATCH_N;
use pco::data_types::{Number, NumberType};
use pco::standalone::{DecompressorItem, FileDecompressor};
use zinto_core::codec::{CodecName, DecodeError};

/// A pcodec decoder, reusable across chunks.
#[derive(Debug, Default)]
pub struct Pcodec {
    stored: Whole,
}

impl Pcodec {
    /// A decoder with nothing started.
    pub fn new() -> Self {
        Self::default()
    }
}

fn error(e: &pco::errors::PcoError) -> DecodeError {
    use pco::errors::ErrorKind as K;
    let reason = match e.kind {
        K::InsufficientData => {
            return DecodeError::Truncated {
                codec: CodecName::Pcodec,
            };
        }
        K::Corruption => "corrupt pco data (or a pco format newer than this decoder)",
        _ => "pco data this decoder cannot read",
    };
    DecodeError::Corrupt {
        codec: CodecName::Pcodec,
        reason,
    }
}

/// A number pco decodes, and its bytes in the machine's order.
trait NativeBytes: Number {
    fn put(self, dst: &mut [u8]);
}

macro_rules! native_bytes {
    ($($t:ty),*) => {$(
        impl NativeBytes for $t {
            fn put(self, dst: &mut [u8]) {
                dst.copy_from_slice(&self.to_ne_bytes());
            }
        }
    )*};
}
native_bytes!(u8, u16, u32, u64, i8, i16, i32, i64, f32, f64, half::f16);

/// Decodes every chunk of the standalone stream `src` (after its header) into `dst`, which
/// must be exactly what they decode to.
fn decode_into<T: NativeBytes>(
    fd: &FileDecompressor,
    mut src: &[u8],
    dst: &mut [u8],
) -> Result<(), DecodeError> {
    let size = std::mem::size_of::<T>();
    let mut at = 0usize;
    let mut batch = [T::default(); FULL_BATCH_N];
    while let DecompressorItem::Chunk(mut chunk) =
        fd.chunk_decompressor::<T, _>(src).map_err(|e| error(&e))?
    {
        loop {
            let progress = chunk.read(&mut batch).map_err(|e| error(&e))?;
            let numbers = batch
                .get(..progress.n_processed)
                .ok_or(DecodeError::Internal {
                    what: "pco reported more numbers than its batch holds",
                })?;
            for &n in numbers {
                let capacity = dst.len() as u64;
                let slot = dst
                    .get_mut(at..at + size)
                    .ok_or(DecodeError::OutputOverflow {
                        codec: CodecName::Pcodec,
                        capacity,
                    })?;
                n.put(slot);
                at += size;
            }
            if progress.finished {
                break;
            }
        }
        src = chunk.into_src();
    }
    if at != dst.len() {
        return Err(DecodeError::SizeMismatch {
            codec: CodecName::Pcodec,
            expected: dst.len() as u64,
            got: at as u64,
        });
    }
    Ok(())
}

/// Decodes a whole standalone pco stream into `dst`.
fn decode_stream(stored: &[u8], dst: &mut [u8]) -> Result<(), DecodeError> {
    let (fd, rest) = FileDecompressor::new(stored).map_err(|e| error(&e))?;
    let Some(number_type) = fd
        .peek_number_type_or_termination(rest)
        .map_err(|e| error(&e))?
    else {
        // A stream of no numbers.
        return match dst.len() {
            0 => Ok(()),
            n => Err(DecodeError::SizeMismatch {
                codec: CodecName::Pcodec,
                expected: n as u64,
                got: 0,
            }),
        };
    };
    match number_type {
        NumberType::U8 => decode_into::<u8>(&fd, rest, dst),
        NumberType::U16 => decode_into::<u16>(&fd, rest, dst),
        NumberType::U32 => decode_into::<u32>(&fd, rest, dst),
        NumberType::U64 => decode_into::<u64>(&fd, rest, dst),
        NumberType::I8 => decode_into::<i8>(&fd, rest, dst),
        NumberType::I16 => decode_into::<i16>(&fd, rest, dst),
        NumberType::I32 => decode_into::<i32>(&fd, rest, dst),
        NumberType::I64 => decode_into::<i64>(&fd, rest, dst),
        NumberType::F16 => decode_into::<half::f16>(&fd, rest, dst),
        NumberType::F32 => decode_into::<f32>(&fd, rest, dst),
        NumberType::F64 => decode_into::<f64>(&fd, rest, dst),
        // pco's list may grow; a type it adds is refused until zinto knows it.
        _ => Err(DecodeError::Unsupported {
            codec: CodecName::Pcodec,
            what: "a pco number type this version of zinto does not know",
        }),
    }
}

whole_backend!(
    Pcodec,
    CodecName::Pcodec,
    |stored: &Whole, out: &mut [u8]| { decode_stream(stored.bytes(), out) }
);

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use zinto_core::codec::{
        BytesCodecs, ChunkDecoder, Compressor, DecodeError, Pcodec as Config, Status,
    };

    use super::*;

    const PCODEC: BytesCodecs =
        BytesCodecs::compressed(Some(Compressor::Pcodec(Config { level: None })));

    fn decode(stored: &[u8], len: usize, piece: usize) -> Result<Vec<u8>, DecodeError> {
        let mut d = ChunkDecoder::new();
        d.set_backend(Box::new(Pcodec::new()));
        d.start(&PCODEC, stored.len() as u64, len)?;
        let mut out = vec![0u8; len];
        let mut status = Status::NeedsInput;
        for p in stored.chunks(piece) {
            status = d.feed(p, &mut out)?.status;
        }
        assert_eq!(status, Status::Done);
        Ok(out)
    }

    /// pco's own encoding of several number types, more than a batch of them, decodes to
    /// their bytes in the machine's order, fed in any pieces.
    #[test]
    fn pco_streams_decode_to_their_numbers() {
        let ints: Vec<i64> = (0..1000).map(|i| i * i - 500).collect();
        let floats: Vec<f32> = (0..777).map(|i| i as f32 / 7.0).collect();
        let stored = pco::standalone::simple_compress(&ints, &pco::ChunkConfig::default()).unwrap();
        let want: Vec<u8> = ints.iter().flat_map(|i| i.to_ne_bytes()).collect();
        for piece in [1, 100, stored.len()] {
            assert_eq!(decode(&stored, want.len(), piece).unwrap(), want);
        }
        let stored =
            pco::standalone::simple_compress(&floats, &pco::ChunkConfig::default()).unwrap();
        let want: Vec<u8> = floats.iter().flat_map(|f| f.to_ne_bytes()).collect();
        assert_eq!(decode(&stored, want.len(), stored.len()).unwrap(), want);
    }

    #[test]
    fn wrong_sizes_and_bad_streams_are_errors_naming_pcodec() {
        let ints: Vec<u32> = (0..300).collect();
        let stored = pco::standalone::simple_compress(&ints, &pco::ChunkConfig::default()).unwrap();
        let short = decode(&stored, 4 * 299, stored.len()).unwrap_err();
        assert!(
            matches!(
                short,
                DecodeError::OutputOverflow {
                    codec: CodecName::Pcodec,
                    ..
                }
            ),
            "{short}"
        );
        let long = decode(&stored, 4 * 301, stored.len()).unwrap_err();
        assert!(
            matches!(
                long,
                DecodeError::SizeMismatch {
                    codec: CodecName::Pcodec,
                    ..
                }
            ),
            "{long}"
        );
        for bad in [&b"not pco"[..], &stored[..stored.len() / 2]] {
            let e = decode(bad, 1200, bad.len()).unwrap_err();
            assert!(e.to_string().contains("pcodec"), "{e}");
        }
    }
}
