//! The stored stream gathered whole, for backends whose decoder takes a whole stream at once
//! (pco, zfp): as many bytes as are stored, never what the stream claims, kept in 64-bit words
//! so that zfp can read them in place and pco as bytes.
//!
//! A stored stream may be at most twice what it decodes to, plus 1 MiB ([`max_stored`]):
//! neither pco nor zfp expands data by more than a few percent, so a larger one (a file, or a
//! server's `Content-Length`, claiming a terabyte) is refused before anything is gathered, and
//! memory that cannot be had is an error, not an abort.

use zinto_core::codec::{CodecName, DecodeError, Progress, Status};

/// The most a stream that decodes to `decoded` bytes may be stored in.
pub(super) fn max_stored(decoded: usize) -> u64 {
    (decoded as u64).saturating_mul(2).saturating_add(1 << 20)
}

/// One stored stream, gathered as its pieces arrive; reusable across chunks.
#[derive(Debug, Default)]
pub(super) struct Whole {
    words: Vec<u64>,
    filled: usize,
    len: usize,
    done: bool,
    /// The codec of the stream started, for errors.
    codec: Option<CodecName>,
}

impl Whole {
    /// Ready for a stream of `codec`, stored in `encoded_len` bytes, that decodes to
    /// `decoded_len` bytes.
    ///
    /// # Errors
    /// [`DecodeError::Corrupt`] for a stored size past [`max_stored`].
    pub(super) fn start(
        &mut self,
        codec: CodecName,
        encoded_len: u64,
        decoded_len: usize,
    ) -> Result<(), DecodeError> {
        self.words.clear();
        self.filled = 0;
        self.done = false;
        self.codec = Some(codec);
        let too_large = DecodeError::Corrupt {
            codec,
            reason: "a stored chunk over twice (plus 1 MiB) what it decodes to",
        };
        if encoded_len > max_stored(decoded_len) {
            return Err(too_large);
        }
        self.len = usize::try_from(encoded_len).map_err(|_| too_large)?;
        Ok(())
    }

    /// The stream's bytes.
    pub(super) fn bytes(&self) -> &[u8] {
        let all: &[u8] = bytemuck::cast_slice(&self.words);
        all.get(..self.filled).unwrap_or(all)
    }

    /// The stream's whole 64-bit words, in the machine's order; a last partial word is left
    /// out (as zfp's C `stream_open` leaves it).
    pub(super) fn words(&self) -> &[u64] {
        self.words.get(..self.filled / 8).unwrap_or(&self.words)
    }

    /// Gathers `input` and, once the whole stream is here, decodes it with `decode` into
    /// `dst[pos..]`, which must be exactly what the stream decodes to.
    pub(super) fn feed(
        &mut self,
        input: &[u8],
        dst: &mut [u8],
        pos: usize,
        decode: impl FnOnce(&Self, &mut [u8]) -> Result<(), DecodeError>,
    ) -> Result<Progress, DecodeError> {
        if self.done {
            return Ok(progress(0, 0, Status::Done));
        }
        let take = (self.len - self.filled).min(input.len());
        let end = self.filled + take;
        let words = end.div_ceil(8);
        self.words
            .try_reserve(words.saturating_sub(self.words.len()))
            .map_err(|_| match self.codec {
                Some(codec) => DecodeError::Unsupported {
                    codec,
                    what: "a stored chunk larger than the memory left",
                },
                None => DecodeError::Internal {
                    what: "a gathered stream fed before it was started",
                },
            })?;
        self.words.resize(words, 0);
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut self.words);
        let (Some(slot), Some(piece)) = (bytes.get_mut(self.filled..end), input.get(..take)) else {
            return Err(DecodeError::Internal {
                what: "a gathered stream took more input than it was given",
            });
        };
        slot.copy_from_slice(piece);
        self.filled = end;
        if self.filled < self.len {
            return Ok(progress(take, 0, Status::NeedsInput));
        }
        let out = dst.get_mut(pos..).ok_or(DecodeError::Internal {
            what: "a gathered stream given a position past its destination",
        })?;
        decode(self, out)?;
        self.done = true;
        Ok(progress(take, out.len(), Status::Done))
    }
}

fn progress(consumed: usize, written: usize, status: Status) -> Progress {
    Progress {
        consumed,
        written,
        status,
    }
}

/// Implements [`Backend`](zinto_core::codec::Backend) for `$ty`, a decoder of `$codec` holding
/// its stream in a field `stored: Whole`, that decodes the gathered stream with `$decode`
/// (`fn(&Whole, &mut [u8]) -> Result<(), DecodeError>`, the destination exactly its size).
macro_rules! whole_backend {
    ($ty:ty, $codec:expr, $decode:expr) => {
        impl zinto_core::codec::Backend for $ty {
            fn codec(&self) -> zinto_core::codec::CodecName {
                $codec
            }

            fn start(
                &mut self,
                _: &zinto_core::codec::Compressor,
                encoded_len: u64,
                decoded_len: usize,
            ) -> Result<(), zinto_core::codec::DecodeError> {
                self.stored.start($codec, encoded_len, decoded_len)
            }

            fn decode(
                &mut self,
                input: &[u8],
                dst: &mut [u8],
                pos: usize,
            ) -> Result<zinto_core::codec::Progress, zinto_core::codec::DecodeError> {
                self.stored.feed(input, dst, pos, $decode)
            }
        }
    };
}
pub(super) use whole_backend;
