//! Decoding one stored chunk's bytes-to-bytes codecs, streamed, into the caller's destination.

use super::chain::{BytesCodecs, Compressor, MAX_CRC32C};
use super::crc::{CRC32C, Crc32};
use super::deflate::{DeflateDecoder, DeflateFormat};
use super::error::OUT_OF_STEP;
#[cfg(feature = "alloc")]
use super::zstd::{ZstdBackend, ZstdDecoder};
use super::{CodecName, DecodeError, Progress, Status};
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
/// use zinto_core::codec::{BytesCodecs, ChunkDecoder, Crc32cCount, Status};
///
/// // A chunk of four bytes stored uncompressed with a crc32c trailer.
/// let data = [1u8, 2, 3, 4];
/// let mut stored = data.to_vec();
/// stored.extend(zinto_core::codec::crc32c(&data).to_le_bytes());
///
/// let codecs = BytesCodecs { compressor: None, crc32c: Crc32cCount::ONE };
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
    deflate: Option<DeflateDecoder>,
    /// Created on the first zstd chunk (ruzstd) unless the caller plugged in another backend.
    #[cfg(feature = "alloc")]
    zstd: Option<Box<dyn ZstdBackend>>,
    crcs: [Crc32; MAX_CRC32C],
    trailer: [u8; 4 * MAX_CRC32C],
    encoded_len: u64,
    payload_len: u64,
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

impl ChunkDecoder {
    /// A decoder with nothing started.
    pub fn new() -> Self {
        Self {
            codecs: BytesCodecs::default(),
            deflate: None,
            #[cfg(feature = "alloc")]
            zstd: None,
            crcs: [Crc32::new(&CRC32C); MAX_CRC32C],
            trailer: [0; 4 * MAX_CRC32C],
            encoded_len: 0,
            payload_len: 0,
            seen: 0,
            decoded_len: 0,
            dst_addr: None,
            written: 0,
            inner_done: false,
            done: true,
        }
    }

    /// Uses ruzstd with this window cap for zstd (see [`ZstdDecoder::set_window_cap`]).
    #[cfg(feature = "alloc")]
    pub fn set_zstd_window_cap(&mut self, cap: u64) {
        let mut d = ZstdDecoder::new();
        d.set_window_cap(cap);
        self.zstd = Some(Box::new(d));
    }

    /// Uses `backend` for zstd chunks instead of ruzstd.
    #[cfg(feature = "alloc")]
    pub fn set_zstd_backend(&mut self, backend: Box<dyn ZstdBackend>) {
        self.zstd = Some(backend);
    }

    /// Starts a chunk of `encoded_len` stored bytes that decodes to `decoded_len` bytes.
    ///
    /// # Errors
    /// [`DecodeError::Truncated`] if `encoded_len` cannot hold the checksums;
    /// [`DecodeError::SizeMismatch`] if an uncompressed chunk's length is not `decoded_len`;
    /// [`DecodeError::Unsupported`] for zstd without the `alloc` feature.
    pub fn start(
        &mut self,
        codecs: &BytesCodecs,
        encoded_len: u64,
        decoded_len: usize,
    ) -> Result<(), DecodeError> {
        let checksums = 4 * codecs.crc32c.get() as u64;
        let payload_len = encoded_len
            .checked_sub(checksums)
            .ok_or(DecodeError::Truncated {
                codec: CodecName::Crc32c,
            })?;
        match codecs.compressor {
            None if payload_len != decoded_len as u64 => {
                return Err(DecodeError::SizeMismatch {
                    codec: CodecName::Bytes,
                    expected: decoded_len as u64,
                    got: payload_len,
                });
            }
            None => {}
            Some(Compressor::Gzip) => self.reset_deflate(DeflateFormat::Gzip),
            Some(Compressor::Zlib) => self.reset_deflate(DeflateFormat::Zlib),
            #[cfg(feature = "alloc")]
            Some(Compressor::Zstd) => self
                .zstd
                .get_or_insert_with(|| Box::new(ZstdDecoder::new()))
                .start(),
            #[cfg(not(feature = "alloc"))]
            Some(Compressor::Zstd) => {
                return Err(DecodeError::Unsupported {
                    codec: CodecName::Zstd,
                    what: "zstd without the `alloc` feature",
                });
            }
        }
        self.codecs = *codecs;
        self.crcs = [Crc32::new(&CRC32C); MAX_CRC32C];
        self.encoded_len = encoded_len;
        self.payload_len = payload_len;
        self.seen = 0;
        self.decoded_len = decoded_len;
        self.dst_addr = None;
        self.written = 0;
        self.inner_done = false;
        self.done = false;
        Ok(())
    }

    fn reset_deflate(&mut self, format: DeflateFormat) {
        match &mut self.deflate {
            Some(d) => d.reset(format),
            None => self.deflate = Some(DeflateDecoder::new(format)),
        }
    }

    fn codec(&self) -> CodecName {
        self.codecs
            .compressor
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
            if self.seen < self.payload_len {
                let left = self.payload_len - self.seen;
                let take = usize::try_from(left).unwrap_or(usize::MAX).min(rest.len());
                let part = rest.get(..take).ok_or(OUT_OF_STEP)?;
                let p = self.payload(part, dst)?;
                let n = self.codecs.crc32c.get();
                for crc in self.crcs.iter_mut().take(n) {
                    crc.update(part.get(..p.consumed).ok_or(OUT_OF_STEP)?);
                }
                self.seen += p.consumed as u64;
                consumed += p.consumed;
                written += p.written;
                self.written += p.written;
                if p.status == Status::Done {
                    self.inner_done = true;
                    if self.seen < self.payload_len {
                        return Err(DecodeError::TrailingData {
                            codec: self.codec(),
                            extra: self.payload_len - self.seen,
                        });
                    }
                } else if p.consumed == 0 {
                    return Err(DecodeError::Corrupt {
                        codec: self.codec(),
                        reason: "decoder made no progress",
                    });
                }
            } else {
                // Checksum trailer bytes.
                let at = usize::try_from(self.seen - self.payload_len).unwrap_or(usize::MAX);
                let left = usize::try_from(self.encoded_len - self.seen).unwrap_or(usize::MAX);
                let take = left.min(rest.len());
                if let (Some(slot), Some(src)) = (
                    self.trailer.get_mut(at..at.saturating_add(take)),
                    rest.get(..take),
                ) {
                    slot.copy_from_slice(src);
                }
                self.seen += take as u64;
                consumed += take;
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
            Some(Compressor::Gzip | Compressor::Zlib) => match &mut self.deflate {
                Some(d) => d.decode(part, dst, pos),
                None => Err(DecodeError::Corrupt {
                    codec: self.codec(),
                    reason: "decoder not started",
                }),
            },
            #[cfg(feature = "alloc")]
            Some(Compressor::Zstd) => match &mut self.zstd {
                Some(z) => z.decode(part, dst, pos),
                None => Err(DecodeError::Corrupt {
                    codec: CodecName::Zstd,
                    reason: "decoder not started",
                }),
            },
            #[cfg(not(feature = "alloc"))]
            Some(Compressor::Zstd) => Err(DecodeError::Unsupported {
                codec: CodecName::Zstd,
                what: "zstd without the `alloc` feature",
            }),
        }
    }

    /// All input is in: the stream must be complete, the checksums right, the size exact.
    fn finish(&mut self) -> Result<(), DecodeError> {
        if !self.inner_done && (self.decoded_len != 0 || self.payload_len != 0) {
            return Err(DecodeError::Truncated {
                codec: self.codec(),
            });
        }
        let n = self.codecs.crc32c.get();
        let mut before: &[u8] = &[];
        let stored = self.trailer.chunks_exact(4);
        for (crc, stored) in self.crcs.iter_mut().zip(stored).take(n) {
            // Each checksum covers the payload and the checksums before it.
            crc.update(before);
            let found = crc.value();
            let stored = u32::from_le_bytes([stored[0], stored[1], stored[2], stored[3]]);
            before = self
                .trailer
                .get(..before.len() + 4)
                .ok_or(DecodeError::Truncated {
                    codec: CodecName::Crc32c,
                })?;
            if stored != found {
                return Err(DecodeError::ChecksumMismatch {
                    codec: CodecName::Crc32c,
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
