//! numcodecs `zfpy`: a zfp stream after zfp's full header, decoded by zfp-rs (a pure-Rust zfp
//! whose streams match LLNL's C library bit for bit, by the author of the zarrs crate).
//!
//! zfp reads its stream as 64-bit words and decodes it whole, so the stored chunk is gathered
//! first (as many bytes as are stored, in words, read in place). The header states the number
//! type and the dimensions; their byte count must be the destination's, and the numbers are
//! decoded straight into it when it is aligned for their type (through a buffer of the chunk
//! when it is not). zfpy decodes as zfp's stock build does (`ZFP_ROUND_NEVER`); a stream from
//! a zfp built to round otherwise reads slightly differently, as it would with zfpy.
//!
//! As with pcodec, only the byte count is checked: the header's type, not the array's, says
//! how the numbers decode (numcodecs would reinterpret them alike).

use zfp_rs::{
    ZfpBitStreamRef, ZfpConfig, ZfpDecompressionError, ZfpFieldMut, ZfpHeaderMask, ZfpScalar,
    ZfpScalarType,
};
use zinto_core::codec::{CodecName, DecodeError};

use super::whole::{Whole, whole_backend};

/// A zfpy decoder, reusable across chunks.
#[derive(Debug, Default)]
pub struct Zfpy {
    stored: Whole,
}

impl Zfpy {
    /// A decoder with nothing started.
    pub fn new() -> Self {
        Self::default()
    }
}

fn corrupt(reason: &'static str) -> DecodeError {
    DecodeError::Corrupt {
        codec: CodecName::Zfpy,
        reason,
    }
}

fn decompress_error(e: ZfpDecompressionError) -> DecodeError {
    match e {
        ZfpDecompressionError::Truncated { .. } => DecodeError::Truncated {
            codec: CodecName::Zfpy,
        },
        _ => corrupt("a zfp field this decoder cannot decode into"),
    }
}

/// Decodes a whole zfpy stream (header, then the blocks) into `dst`.
fn decode_stream(words: &[u64], dst: &mut [u8]) -> Result<(), DecodeError> {
    let mut stream = ZfpBitStreamRef::from_words(words);
    let header = stream
        .read_header(ZfpHeaderMask::FULL)
        .map_err(|_| corrupt("not a zfp stream with a full header (magic, field, mode)"))?;
    let (Some(field), Some(config)) = (header.metadata, header.config) else {
        return Err(corrupt("a zfp header without its field or mode"));
    };
    let decoded = field
        .dims
        .iter()
        .filter(|&&d| d > 0)
        .try_fold(field.scalar_type.size(), |n, &d| n.checked_mul(d))
        .ok_or(corrupt("a zfp field larger than memory"))?;
    if decoded != dst.len() {
        return Err(DecodeError::SizeMismatch {
            codec: CodecName::Zfpy,
            expected: dst.len() as u64,
            got: decoded as u64,
        });
    }
    let run = Run {
        stream,
        config,
        dims: field.dims,
    };
    match field.scalar_type {
        ZfpScalarType::I32 => run.into::<i32>(dst),
        ZfpScalarType::I64 => run.into::<i64>(dst),
        ZfpScalarType::F32 => run.into::<f32>(dst),
        ZfpScalarType::F64 => run.into::<f64>(dst),
    }
}

/// A stream past its header, with what the header said.
struct Run<'a> {
    stream: ZfpBitStreamRef<'a>,
    config: ZfpConfig,
    dims: [usize; 4],
}

impl Run<'_> {
    /// Decodes numbers of type `T` into `dst`, of exactly their size.
    fn into<T: ZfpScalar>(mut self, dst: &mut [u8]) -> Result<(), DecodeError> {
        if let Ok(typed) = bytemuck::try_cast_slice_mut::<u8, T>(dst) {
            return self.decode(typed);
        }
        // Not aligned for T: decode into a buffer of the chunk, then copy.
        let mut typed = vec![T::default(); dst.len() / size_of::<T>()];
        self.decode(&mut typed)?;
        dst.copy_from_slice(bytemuck::cast_slice(&typed));
        Ok(())
    }

    fn decode<T: ZfpScalar>(&mut self, typed: &mut [T]) -> Result<(), DecodeError> {
        let mut field = ZfpFieldMut::new(typed, self.dims)
            .map_err(|_| corrupt("a zfp field of dimensions zfp cannot decode"))?;
        self.stream
            .decompress(&self.config, &mut field)
            .map_err(decompress_error)?;
        Ok(())
    }
}

whole_backend!(Zfpy, CodecName::Zfpy, |stored: &Whole, out: &mut [u8]| {
    decode_stream(stored.words(), out)
});

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use zfp_rs::{ZfpBitStream, ZfpField};
    use zinto_core::codec::{BytesCodecs, ChunkDecoder, Compressor, Status, Zfpy as Config};

    use super::*;

    const ZFPY: BytesCodecs =
        BytesCodecs::compressed(Some(Compressor::Zfpy(Config { mode: None })));

    /// zfp's reversible encoding of `values` (dims `[nx, ny]`), with the full header zfpy
    /// writes.
    fn encode<T: ZfpScalar>(values: &[T], dims: [usize; 2]) -> Vec<u8> {
        let field = ZfpField::new(values, dims).unwrap();
        let config = ZfpConfig::reversible();
        let capacity = config.maximum_size(T::SCALAR_TYPE, field.dims()).unwrap() + 64;
        let mut bs = ZfpBitStream::new(capacity).unwrap();
        bs.write_header(&config, &field.metadata(), ZfpHeaderMask::FULL)
            .unwrap();
        let size = bs.compress(&config, &field).unwrap();
        bs.as_bytes()[..size].to_vec()
    }

    fn decode(stored: &[u8], out: &mut [u8], piece: usize) -> Result<(), DecodeError> {
        let mut d = ChunkDecoder::new();
        d.set_backend(Box::new(Zfpy::new()));
        d.start(&ZFPY, stored.len() as u64, out.len())?;
        let mut status = Status::NeedsInput;
        for p in stored.chunks(piece) {
            status = d.feed(p, out)?.status;
        }
        assert_eq!(status, Status::Done);
        Ok(())
    }

    /// Reversible zfp gives back every number, of each type, fed in any pieces, into an
    /// aligned destination and one that is not.
    #[test]
    fn reversible_streams_decode_to_their_numbers() {
        let floats: Vec<f64> = (0..30 * 7).map(|i| f64::from(i).sin() * 1e3).collect();
        let stored = encode(&floats, [30, 7]);
        let want: Vec<u8> = floats.iter().flat_map(|f| f.to_ne_bytes()).collect();
        for piece in [1, 100, stored.len()] {
            let mut out = vec![0u64; want.len() / 8];
            decode(&stored, bytemuck::cast_slice_mut(&mut out), piece).unwrap();
            assert_eq!(bytemuck::cast_slice::<u64, u8>(&out), want);
        }
        let mut unaligned = vec![0u8; want.len() + 1];
        decode(&stored, &mut unaligned[1..], stored.len()).unwrap();
        assert_eq!(&unaligned[1..], want);
        let ints: Vec<i32> = (0..5 * 5).map(|i| i * i - 300).collect();
        let stored = encode(&ints, [5, 5]);
        let mut out = vec![0i32; 25];
        decode(&stored, bytemuck::cast_slice_mut(&mut out), 3).unwrap();
        assert_eq!(out, ints);
    }

    #[test]
    fn wrong_sizes_and_bad_streams_are_errors_naming_zfpy() {
        let floats: Vec<f32> = (0..64u16).map(f32::from).collect();
        let stored = encode(&floats, [8, 8]);
        for len in [4 * 63, 4 * 65] {
            let e = decode(&stored, &mut vec![0u8; len], stored.len()).unwrap_err();
            assert!(
                matches!(
                    e,
                    DecodeError::SizeMismatch {
                        codec: CodecName::Zfpy,
                        got: 256,
                        ..
                    }
                ),
                "{e}"
            );
        }
        let e = decode(&stored[..16], &mut [0u8; 256], 16).unwrap_err();
        assert!(
            matches!(
                e,
                DecodeError::Truncated {
                    codec: CodecName::Zfpy
                }
            ),
            "{e}"
        );
        for bad in [&b"not a zfp stream"[..], &[0u8; 3][..]] {
            let e = decode(bad, &mut [0u8; 256], bad.len()).unwrap_err();
            assert!(e.to_string().contains("zfpy"), "{e}");
        }
    }

    /// A stored chunk claiming far more bytes than it could decode from (a server's 1 TiB
    /// `Content-Length`) is refused at its start, before anything is gathered; one within twice
    /// plus 1 MiB is taken.
    #[test]
    fn a_stored_size_past_twice_the_decoded_is_refused_at_once() {
        let mut d = ChunkDecoder::new();
        d.set_backend(Box::new(Zfpy::new()));
        let e = d.start(&ZFPY, 1 << 40, 256).unwrap_err();
        assert!(
            matches!(
                e,
                DecodeError::Corrupt {
                    codec: CodecName::Zfpy,
                    ..
                }
            ),
            "{e}"
        );
        assert!(d.start(&ZFPY, (1 << 20) + 512, 256).is_ok());
    }
}
