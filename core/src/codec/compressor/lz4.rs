//! numcodecs `lz4`: a little-endian `i32` decoded size, then one LZ4 block, decoded by
//! [`lz4::decompress`](crate::codec::lz4::decompress) once gathered whole, and encoded by
//! [`Lz4ChunkEncoder`] (here) over zinto-core's block encoder.

#[cfg(not(feature = "alloc"))]
use super::NOT_STARTED;
use super::SizeProbe;
use super::{CompressorCodec, FromConfig, four_bytes, head_probe, int32, no_window};
use crate::codec::config::{Config, Reader};
use crate::codec::decoders::Decoders;
#[cfg(feature = "alloc")]
use crate::codec::encode::EncodeBackends;
use crate::codec::encode::{ConfigFor, ConfigSink, EncodeError, Encoder, status};
#[cfg(feature = "alloc")]
use crate::codec::error::{INPUT_OVERRUN, SIZE_NOT_USIZE};
use crate::codec::lz4_encode::{HASH_ENTRIES, Lz4Encoder};
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

    /// [`Lz4ChunkEncoder`], this file's.
    #[cfg(feature = "alloc")]
    fn encoder(
        &self,
        _: usize,
        _: &dyn EncodeBackends,
    ) -> Result<alloc::boxed::Box<dyn Encoder>, EncodeError> {
        Ok(alloc::boxed::Box::new(Lz4ChunkEncoder::new()))
    }

    /// `acceleration` (1 when not stated); written in Zarr v2 arrays only.
    fn write_config(&self, to: ConfigFor, sink: &mut dyn ConfigSink) -> Result<(), EncodeError> {
        super::v2_only(CodecName::Lz4, to)?;
        sink.int("acceleration", i64::from(self.acceleration.unwrap_or(1)));
        Ok(())
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

/// A numcodecs LZ4 chunk under way: the chunk's size as 4 little-endian bytes, then one LZ4
/// block of the whole chunk from [`Lz4Encoder`] (acceleration 1, whatever the configuration
/// states: the block format is the same).
///
/// One block's literal runs are unbounded, so it is given the chunk whole, in one slice
/// ([`Encoder::whole_input`]); its output streams through any window. Its hash table is its
/// own (16 KiB), so it needs no allocation.
#[derive(Debug, Clone)]
pub struct Lz4ChunkEncoder {
    encoder: Lz4Encoder,
    table: [u32; HASH_ENTRIES],
    /// The chunk's bytes, as `begin` was told.
    len: usize,
    /// The size header, and how much of it went out.
    header: ([u8; 4], usize),
    /// The block is all out.
    done: bool,
}

impl Default for Lz4ChunkEncoder {
    fn default() -> Self {
        Self::new()
    }
}

impl Lz4ChunkEncoder {
    /// An encoder for a chunk; [`Encoder::begin`] starts each.
    #[must_use]
    pub fn new() -> Self {
        Self {
            encoder: Lz4Encoder::new(),
            table: [0; HASH_ENTRIES],
            len: 0,
            header: ([0; 4], 0),
            done: false,
        }
    }
}

impl Encoder for Lz4ChunkEncoder {
    /// numcodecs states the size as a C `int`: a chunk of 2 GiB or more is refused.
    fn begin(&mut self, len: u64) -> Result<usize, EncodeError> {
        let too_large = EncodeError::TooLarge {
            codec: CodecName::Lz4,
            len,
            max: i32::MAX as u64,
        };
        let size = i32::try_from(len).map_err(|_| too_large)?;
        self.len = usize::try_from(size.unsigned_abs()).map_err(|_| too_large)?;
        self.encoder.reset();
        self.header = (size.to_le_bytes(), 0);
        self.done = false;
        Ok(0)
    }

    fn head(&self) -> &[u8] {
        &[]
    }

    fn whole_input(&self) -> bool {
        true
    }

    fn encode(
        &mut self,
        input: &[u8],
        out: &mut [u8],
        last: bool,
    ) -> Result<Progress, EncodeError> {
        let (bytes, sent) = &mut self.header;
        let written = (4 - *sent).min(out.len());
        out[..written].copy_from_slice(&bytes[*sent..*sent + written]);
        *sent += written;
        if self.done || *sent < 4 {
            let done = self.done && last;
            return Ok(Progress {
                consumed: 0,
                written,
                status: status(done, written, out.len()),
            });
        }
        if input.len() != self.len {
            return Err(EncodeError::Internal {
                what: "numcodecs LZ4 given a chunk in pieces (it needs it whole)",
            });
        }
        let (n, done) = self
            .encoder
            .encode(input, &mut out[written..], &mut self.table)
            .ok_or(EncodeError::Internal {
                what: "an LZ4 block of 4 GiB or more",
            })?;
        self.done = done;
        let written = written + n;
        Ok(Progress {
            consumed: if done { input.len() } else { 0 },
            written,
            status: status(done && last, written, out.len()),
        })
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::codec::Status;
    use std::vec;
    use std::vec::Vec;

    /// A chunk encoded through windows of every size decodes to itself: the size header, then
    /// the block.
    #[test]
    fn a_chunk_streams_through_any_window_and_decodes_to_itself() {
        let data: Vec<u8> = (0..20_000u32).flat_map(|i| (i / 7).to_le_bytes()).collect();
        for window in [1, 3, 100, 1 << 20] {
            let mut e = Lz4ChunkEncoder::new();
            assert_eq!(e.begin(data.len() as u64), Ok(0));
            let (mut stored, mut w) = (Vec::new(), vec![0u8; window]);
            loop {
                let p = e.encode(&data, &mut w, true).unwrap();
                stored.extend_from_slice(&w[..p.written]);
                if p.status == Status::Done {
                    break;
                }
            }
            assert_eq!(
                stored[..4],
                i32::try_from(data.len()).unwrap().to_le_bytes()
            );
            let mut back = vec![0u8; data.len()];
            let n = crate::codec::lz4::decompress(&stored[4..], &mut back).unwrap();
            assert_eq!((n, &back[..]), (data.len(), &data[..]), "window {window}");
        }
        let mut e = Lz4ChunkEncoder::new();
        assert!(matches!(
            e.begin(1 << 31),
            Err(EncodeError::TooLarge { .. })
        ));
    }
}
