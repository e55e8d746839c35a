//! The stored stream gathered whole, for backends whose decoder takes a whole stream at once
//! (pco, zfp): as many bytes as are stored, never what the stream claims, kept in 64-bit words
//! so that zfp can read them in place and pco as bytes.

use zinto_core::codec::{DecodeError, Progress, Status};

/// One stored stream, gathered as its pieces arrive; reusable across chunks.
#[derive(Debug, Default)]
pub(super) struct Whole {
    words: Vec<u64>,
    filled: usize,
    len: usize,
    done: bool,
}

impl Whole {
    /// Ready for a stream of `encoded_len` bytes.
    pub(super) fn start(&mut self, encoded_len: u64) -> Result<(), DecodeError> {
        self.words.clear();
        self.filled = 0;
        self.len = usize::try_from(encoded_len).map_err(|_| DecodeError::Internal {
            what: "a stored chunk larger than memory",
        })?;
        self.done = false;
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
        self.words.resize(end.div_ceil(8), 0);
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
