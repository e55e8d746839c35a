//! Decoding one stored chunk's bytes-to-bytes codecs, streamed, into the caller's destination.

use super::chain::{BytesCodecs, Checksums, MAX_CHECKSUMS};
use super::checksum::{Checksum, ChecksumKind, Location};
use super::crc::CRC32C;
#[cfg(feature = "alloc")]
use super::decoders::Backend;
use super::decoders::Decoders;
use super::error::OUT_OF_STEP;
use super::{CodecName, Compressor, DecodeError, Progress, Status};
#[cfg(feature = "alloc")]
use alloc::boxed::Box;

/// Decodes the bytes-to-bytes codecs of one chunk (`crc32c` checks, then a compressor, or a
/// plain copy) from input fed in pieces of any size, straight into a destination of exactly the
/// decoded size.
///
/// The caller owns this state and reuses it across chunks: [`ChunkDecoder::start`] resets it
/// for the next chunk without allocating (only the zstd decoder allocates, once, behind the
/// `alloc` feature). The encoded length must be known up front (a store knows the size of a key,
/// a shard index the size of an inner chunk); it is how trailing checksums are found without
/// buffering the stream.
///
/// ```
/// use zinto_core::codec::{BytesCodecs, Checksums, ChunkDecoder, Status};
///
/// // A chunk of four bytes stored uncompressed with a crc32c trailer.
/// let data = [1u8, 2, 3, 4];
/// let mut stored = data.to_vec();
/// stored.extend(zinto_core::codec::crc32c(&data).to_le_bytes());
///
/// let codecs = BytesCodecs { compressor: None, checksums: Checksums::crc32c(1).unwrap() };
/// let mut decoder = ChunkDecoder::new();
/// let mut out = [0u8; 4];
/// decoder.start(&codecs, stored.len() as u64, out.len())?;
/// let mut status = Status::NeedsInput;
/// for piece in stored.chunks(3) {
///     status = decoder.feed(piece, &mut out)?.status;
/// }
/// assert_eq!(status, Status::Done);
/// assert_eq!(out, data);
/// # Ok::<(), zinto_core::codec::DecodeError>(())
/// ```
pub struct ChunkDecoder {
    codecs: BytesCodecs,
    decoders: Decoders,
    /// One running checksum per checksum codec, innermost first.
    sums: [Checksum; MAX_CHECKSUMS],
    /// The stored checksums, four bytes each, innermost first.
    stored: [u8; 4 * MAX_CHECKSUMS],
    encoded_len: u64,
    /// Where the compressed (or plain) payload starts and ends in the stored bytes.
    payload_start: u64,
    payload_end: u64,
    seen: u64,
    decoded_len: usize,
    /// The address of the destination of this chunk's first `feed`: every later call must
    /// pass the same slice, which holds what was decoded so far.
    dst_addr: Option<usize>,
    written: usize,
    inner_done: bool,
    done: bool,
}

impl core::fmt::Debug for ChunkDecoder {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ChunkDecoder")
            .field("codecs", &self.codecs)
            .field("encoded_len", &self.encoded_len)
            .field("seen", &self.seen)
            .field("decoded_len", &self.decoded_len)
            .field("written", &self.written)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl Default for ChunkDecoder {
    fn default() -> Self {
        Self::new()
    }
}

/// The CRC-32C of `data` (Zarr's `crc32c` codec).
pub fn crc32c(data: &[u8]) -> u32 {
    super::crc::checksum(&CRC32C, data)
}

/// Where the checksum of layer `i` (innermost first) sits, and the stored bytes it covers.
struct Layer {
    /// The four checksum bytes.
    at: u64,
    /// What it covers: `covers.0..covers.1`.
    covers: (u64, u64),
}

fn layer(checksums: &Checksums, i: usize, encoded_len: u64) -> Layer {
    // Checksums outside layer `i` (index above it) sit further out: the start ones before
    // it, the end ones after it.
    let (mut before_out, mut after_out) = (0u64, 0u64);
    let mut own = Location::End;
    for (j, c) in checksums.iter().enumerate() {
        if j == i {
            own = c.location;
        } else if j > i {
            match c.location {
                Location::Start => before_out += 4,
                Location::End => after_out += 4,
            }
        }
    }
    let end = encoded_len.saturating_sub(after_out);
    match own {
        Location::Start => Layer {
            at: before_out,
            covers: (before_out + 4, end),
        },
        Location::End => Layer {
            at: end.saturating_sub(4),
            covers: (before_out, end.saturating_sub(4)),
        },
    }
}

impl ChunkDecoder {
    /// A decoder with nothing started.
    ///
    /// The decoder holds its decoders' state inline, miniz_oxide's inflater most of it: about
    /// 10.7 KiB on a 32-bit target (measured on a Cortex-M4, docs/embedded.md). On a small
    /// stack, keep it in a `static` or somewhere with room, and reuse it from chunk to chunk.
    pub fn new() -> Self {
        Self {
            codecs: BytesCodecs::default(),
            decoders: Decoders::default(),
            sums: [Checksum::new(ChecksumKind::Crc32c); MAX_CHECKSUMS],
            stored: [0; 4 * MAX_CHECKSUMS],
            encoded_len: 0,
            payload_start: 0,
            payload_end: 0,
            seen: 0,
            decoded_len: 0,
            dst_addr: None,
            written: 0,
            inner_done: false,
            done: true,
        }
    }

    /// Uses ruzstd with this window cap for zstd (see [`ZstdDecoder::set_window_cap`]).
    ///
    /// [`ZstdDecoder::set_window_cap`]: super::ZstdDecoder::set_window_cap
    #[cfg(feature = "alloc")]
    pub fn set_zstd_window_cap(&mut self, cap: u64) {
        self.decoders.set_zstd_window_cap(cap);
    }

    /// Uses `backend` for its codec, wherever the codec appears (as a chunk's compressor and
    /// inside Blosc chunks), instead of zinto-core's own decoder.
    #[cfg(feature = "alloc")]
    pub fn set_backend(&mut self, backend: Box<dyn Backend>) {
        self.decoders.set_backend(backend);
    }

    /// Starts a chunk of `encoded_len` stored bytes that decodes to `decoded_len` bytes.
    ///
    /// # Errors
    /// [`DecodeError::Truncated`] if `encoded_len` cannot hold the checksums;
    /// [`DecodeError::SizeMismatch`] if an uncompressed chunk's length is not `decoded_len`;
    /// [`DecodeError::Unsupported`] for a codec this build cannot decode (zstd, Blosc or LZ4
    /// without the `alloc` feature, bz2 without a backend).
    pub fn start(
        &mut self,
        codecs: &BytesCodecs,
        encoded_len: u64,
        decoded_len: usize,
    ) -> Result<(), DecodeError> {
        let checksums = &codecs.checksums;
        let truncated = DecodeError::Truncated {
            codec: checksums
                .iter()
                .last()
                .map_or(CodecName::Crc32c, |c| c.name()),
        };
        let payload_start = checksums.before();
        let payload_end = encoded_len
            .checked_sub(checksums.after())
            .filter(|&e| e >= payload_start)
            .ok_or(truncated)?;
        let payload_len = payload_end - payload_start;
        match &codecs.compressor {
            None if payload_len != decoded_len as u64 => {
                return Err(DecodeError::SizeMismatch {
                    codec: CodecName::Bytes,
                    expected: decoded_len as u64,
                    got: payload_len,
                });
            }
            None => {}
            Some(c) => self.decoders.start(c, payload_len, decoded_len)?,
        }
        self.codecs = *codecs;
        for (sum, spec) in self.sums.iter_mut().zip(checksums.iter()) {
            *sum = Checksum::new(spec.kind);
        }
        self.encoded_len = encoded_len;
        self.payload_start = payload_start;
        self.payload_end = payload_end;
        self.seen = 0;
        self.decoded_len = decoded_len;
        self.dst_addr = None;
        self.written = 0;
        self.inner_done = false;
        self.done = false;
        Ok(())
    }

    fn codec(&self) -> CodecName {
        self.codecs
            .compressor
            .as_ref()
            .map_or(CodecName::Bytes, Compressor::name)
    }

    /// Bytes written into the destination so far.
    pub fn written(&self) -> usize {
        self.written
    }

    /// Feeds the next piece of the stored chunk; `dst` is the whole destination (the same slice
    /// on every call: its address and length are checked), of exactly the decoded size.
    ///
    /// Input past the chunk's encoded length is not consumed. When the last byte is in,
    /// checksums and the decoded size are verified and the status is [`Status::Done`].
    ///
    /// # Errors
    /// Any [`DecodeError`]: corrupt or truncated data, trailing bytes inside the chunk, a checksum
    /// mismatch, output overflowing `dst`, a decoded size other than expected, or
    /// [`DecodeError::DestinationChanged`] for a `dst` other than the first call's.
    pub fn feed(&mut self, input: &[u8], dst: &mut [u8]) -> Result<Progress, DecodeError> {
        if dst.len() != self.decoded_len {
            return Err(DecodeError::SizeMismatch {
                codec: self.codec(),
                expected: self.decoded_len as u64,
                got: dst.len() as u64,
            });
        }
        // An address is only compared, never turned back into a pointer. An empty destination
        // holds nothing, so any empty slice will do.
        let addr = dst.as_ptr() as usize;
        if !dst.is_empty() && *self.dst_addr.get_or_insert(addr) != addr {
            return Err(DecodeError::DestinationChanged);
        }
        let mut consumed = 0usize;
        let mut written = 0usize;
        while !self.done {
            let rest = input.get(consumed..).ok_or(OUT_OF_STEP)?;
            if rest.is_empty() {
                break;
            }
            if self.seen >= self.payload_start && self.seen < self.payload_end {
                let left = self.payload_end - self.seen;
                let take = usize::try_from(left).unwrap_or(usize::MAX).min(rest.len());
                let part = rest.get(..take).ok_or(OUT_OF_STEP)?;
                let p = self.payload(part, dst)?;
                let n = self.codecs.checksums.len();
                for sum in self.sums.iter_mut().take(n) {
                    sum.update(part.get(..p.consumed).ok_or(OUT_OF_STEP)?);
                }
                self.seen += p.consumed as u64;
                consumed += p.consumed;
                written += p.written;
                self.written += p.written;
                match p.status {
                    Status::Done => {
                        self.inner_done = true;
                        if self.seen < self.payload_end {
                            return Err(DecodeError::TrailingData {
                                codec: self.codec(),
                                extra: self.payload_end - self.seen,
                            });
                        }
                    }
                    Status::NeedsOutput => {
                        return Err(DecodeError::OutputOverflow {
                            codec: self.codec(),
                            capacity: self.decoded_len as u64,
                        });
                    }
                    Status::NeedsInput if p.consumed == 0 => {
                        return Err(DecodeError::Corrupt {
                            codec: self.codec(),
                            reason: "decoder made no progress",
                        });
                    }
                    Status::NeedsInput => {}
                }
            } else {
                // A checksum byte, or a byte a checksum covers outside the payload (another
                // checksum): one at a time, there are at most 16.
                let byte = *rest.first().ok_or(OUT_OF_STEP)?;
                self.checksum_byte(byte)?;
                self.seen += 1;
                consumed += 1;
            }
            if self.seen == self.encoded_len {
                self.finish()?;
            }
        }
        if !self.done && self.seen == self.encoded_len {
            self.finish()?;
        }
        Ok(Progress::new(consumed, written, self.done))
    }

    /// Byte `self.seen` of the stored chunk, outside the payload: stored as the checksum it is
    /// part of, and added to every checksum that covers it.
    fn checksum_byte(&mut self, byte: u8) -> Result<(), DecodeError> {
        let at = self.seen;
        for (i, _) in self.codecs.checksums.iter().enumerate() {
            let l = layer(&self.codecs.checksums, i, self.encoded_len);
            if (l.at..l.at + 4).contains(&at) {
                let k = 4 * i + usize::try_from(at - l.at).map_err(|_| OUT_OF_STEP)?;
                *self.stored.get_mut(k).ok_or(OUT_OF_STEP)? = byte;
            } else if (l.covers.0..l.covers.1).contains(&at) {
                self.sums.get_mut(i).ok_or(OUT_OF_STEP)?.update(&[byte]);
            }
        }
        Ok(())
    }

    /// Runs the payload through the compressor, or copies it.
    fn payload(&mut self, part: &[u8], dst: &mut [u8]) -> Result<Progress, DecodeError> {
        let pos = self.written;
        match self.codecs.compressor {
            None => {
                let end = pos.saturating_add(part.len());
                let slot = dst.get_mut(pos..end).ok_or(DecodeError::OutputOverflow {
                    codec: CodecName::Bytes,
                    capacity: self.decoded_len as u64,
                })?;
                slot.copy_from_slice(part);
                Ok(Progress::new(
                    part.len(),
                    part.len(),
                    end == self.decoded_len,
                ))
            }
            Some(_) => self.decoders.decode(part, dst, pos),
        }
    }

    /// All input is in: the stream must be complete, the checksums right, the size exact.
    fn finish(&mut self) -> Result<(), DecodeError> {
        let payload_len = self.payload_end - self.payload_start;
        if !self.inner_done && (self.decoded_len != 0 || payload_len != 0) {
            return Err(DecodeError::Truncated {
                codec: self.codec(),
            });
        }
        for (i, spec) in self.codecs.checksums.iter().enumerate() {
            let found = self.sums.get(i).ok_or(OUT_OF_STEP)?.value();
            let bytes: [u8; 4] = self
                .stored
                .get(4 * i..4 * i + 4)
                .and_then(|b| b.try_into().ok())
                .ok_or(OUT_OF_STEP)?;
            let stored = u32::from_le_bytes(bytes);
            if stored != found {
                return Err(DecodeError::ChecksumMismatch {
                    codec: spec.name(),
                    expected: stored,
                    found,
                });
            }
        }
        if self.written != self.decoded_len {
            return Err(DecodeError::SizeMismatch {
                codec: self.codec(),
                expected: self.decoded_len as u64,
                got: self.written as u64,
            });
        }
        self.done = true;
        Ok(())
    }
}
