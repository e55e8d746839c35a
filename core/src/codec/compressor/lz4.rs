//! numcodecs `lz4`: a little-endian `i32` decoded size, then one LZ4 block, decoded by
//! [`lz4::decompress`](crate::codec::lz4::decompress) once gathered whole.

#[cfg(not(feature = "alloc"))]
use super::NOT_STARTED;
use super::{CompressorCodec, FromConfig, four_bytes, head_probe, int32, no_window};
use crate::codec::config::{Config, Reader};
use crate::codec::decoded_size::SizeProbe;
use crate::codec::decoders::Decoders;
#[cfg(feature = "alloc")]
use crate::codec::error::{INPUT_OVERRUN, SIZE_NOT_USIZE};
use crate::codec::{ChainError, CodecName, DecodeError, Progress};

/// The most one byte of an LZ4 block decodes to, rounded up (a run of 255-length bytes).
pub(crate) const MAX_RATIO: u64 = 256;

/// numcodecs LZ4.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lz4 {
    /// The acceleration it was written with, if stated.
    pub acceleration: Option<i32>,
}

impl Lz4 {
    pub(crate) const NAMES: &'static [&'static str] = &["numcodecs.lz4"];
    pub(crate) const V2_ID: Option<&'static str> = Some("lz4");
}

impl FromConfig for Lz4 {
    fn from_config<C: Config + ?Sized>(r: &Reader<'_, C>) -> Result<Self, ChainError> {
        Ok(Self {
            acceleration: int32(r, "acceleration")?,
        })
    }
}

impl CompressorCodec for Lz4 {
    fn max_ratio(&self) -> u64 {
        MAX_RATIO
    }

    fn moves_window(&self) -> bool {
        false
    }

    /// The block is decoded in one call once whole.
    fn serializes_numbers(&self) -> bool {
        false
    }

    fn can_window(&self) -> bool {
        false
    }

    fn min_window(&self, _: &[u8], _: Option<u64>, _: usize) -> Result<usize, DecodeError> {
        Ok(1)
    }

    /// The leading size.
    fn size_probe(&self, payload_len: u64) -> Result<SizeProbe, DecodeError> {
        head_probe(CodecName::Lz4, payload_len, 4)
    }

    fn decoded_len(&self, head: Option<&[u8]>, _: &[u8]) -> Result<u64, DecodeError> {
        let size = i32::from_le_bytes(four_bytes(CodecName::Lz4, head, 0)?);
        u64::try_from(size).map_err(|_| DecodeError::Corrupt {
            codec: CodecName::Lz4,
            reason: "negative decoded size",
        })
    }

    #[cfg(feature = "alloc")]
    fn builtin_backend(&self) -> Option<alloc::boxed::Box<dyn crate::codec::Backend>> {
        None
    }

    fn start(
        &self,
        d: &mut Decoders,
        encoded_len: u64,
        _: usize,
        _: bool,
    ) -> Result<(), DecodeError> {
        #[cfg(feature = "alloc")]
        {
            d.whole.clear();
            d.whole_len = usize::try_from(encoded_len).map_err(|_| SIZE_NOT_USIZE)?;
            // The stream is gathered whole: reserved once, so it is held once (grown by
            // doubling, its last step held both the old and the new buffer: up to three
            // times the stream). The reservation is sized by the output, the caller's: a
            // stream longer than LZ4 makes of its chunk (LZ4_compressBound, and the size
            // header) is refused before it is read.
            let bound = d
                .decoded_len
                .checked_add(d.decoded_len / 255 + 16 + 4)
                .ok_or(SIZE_NOT_USIZE)?;
            if d.whole_len > bound {
                return Err(DecodeError::Corrupt {
                    codec: CodecName::Lz4,
                    reason: "stored longer than LZ4 makes its chunk",
                });
            }
            d.whole.reserve_exact(d.whole_len);
            Ok(())
        }
        #[cfg(not(feature = "alloc"))]
        {
            let _ = (d, encoded_len);
            Err(super::without_alloc(CodecName::Lz4))
        }
    }

    /// Gathers the stream, then decodes it in one call.
    fn decode(
        &self,
        d: &mut Decoders,
        input: &[u8],
        dst: &mut [u8],
        _: usize,
    ) -> Result<Progress, DecodeError> {
        #[cfg(feature = "alloc")]
        return gather_and_decode(d, input, dst);
        #[cfg(not(feature = "alloc"))]
        {
            let _ = (d, input, dst);
            Err(NOT_STARTED)
        }
    }

    fn decode_window(
        &self,
        _: &mut Decoders,
        _: &[u8],
        _: &mut [u8],
        _: usize,
    ) -> Result<(Progress, usize), DecodeError> {
        Err(no_window(CodecName::Lz4))
    }

    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(Self::NAMES[0])
    }
}

#[cfg(feature = "alloc")]
fn gather_and_decode(
    d: &mut Decoders,
    input: &[u8],
    dst: &mut [u8],
) -> Result<Progress, DecodeError> {
    let left = d.whole_len.saturating_sub(d.whole.len());
    let take = left.min(input.len());
    d.whole
        .extend_from_slice(input.get(..take).ok_or(INPUT_OVERRUN)?);
    if d.whole.len() < d.whole_len {
        return Ok(Progress::new(take, 0, false));
    }
    let decoded_len = d.decoded_len;
    let mismatch = |got: u64| DecodeError::SizeMismatch {
        codec: CodecName::Lz4,
        expected: decoded_len as u64,
        got,
    };
    let (size, block) = d
        .whole
        .split_first_chunk::<4>()
        .ok_or(DecodeError::Truncated {
            codec: CodecName::Lz4,
        })?;
    let size = i32::from_le_bytes(*size);
    if i64::from(size) != decoded_len as i64 {
        // A negative size is as far from any length as can be.
        return Err(mismatch(u64::try_from(size).unwrap_or(u64::MAX)));
    }
    let written = if block.is_empty() && decoded_len == 0 {
        0
    } else {
        crate::codec::lz4::decompress(block, dst).map_err(crate::codec::decoders::lz4_error)?
    };
    if written != decoded_len {
        return Err(mismatch(written as u64));
    }
    Ok(Progress::new(take, written, true))
}
