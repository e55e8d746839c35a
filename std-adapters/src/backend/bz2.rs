//! numcodecs `bz2`: one bzip2 stream, decoded by libbz2-rs (a pure-Rust port of libbzip2,
//! through the `bzip2` crate) straight into the destination.
//!
//! bzip2 keeps its own block buffers (up to 900 kB of block, about 3.6 MB of state while a
//! stream is decoded), so it lives in the std crate, as a [`Backend`].

use bzip2::{Decompress, Status as BzStatus};
use zinto_core::codec::{Backend, CodecName, Compressor, DecodeError, Progress, Status};

/// A bzip2 stream decoder, reusable across chunks.
pub struct Bz2 {
    state: Option<Decompress>,
    done: bool,
}

impl std::fmt::Debug for Bz2 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bz2")
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl Default for Bz2 {
    fn default() -> Self {
        Self::new()
    }
}

impl Bz2 {
    /// A decoder with nothing started.
    pub fn new() -> Self {
        Self {
            state: None,
            done: false,
        }
    }
}

fn corrupt(reason: &'static str) -> DecodeError {
    DecodeError::Corrupt {
        codec: CodecName::Bz2,
        reason,
    }
}

impl Backend for Bz2 {
    fn codec(&self) -> CodecName {
        CodecName::Bz2
    }

    fn start(
        &mut self,
        _: &Compressor,
        _encoded_len: u64,
        _decoded_len: usize,
    ) -> Result<(), DecodeError> {
        // A fresh state per stream: libbzip2's decompressor cannot be reset.
        self.state = Some(Decompress::new(false));
        self.done = false;
        Ok(())
    }

    fn decode(
        &mut self,
        input: &[u8],
        dst: &mut [u8],
        pos: usize,
    ) -> Result<Progress, DecodeError> {
        if self.done {
            return Ok(Progress {
                consumed: 0,
                written: 0,
                status: Status::Done,
            });
        }
        let state = self.state.as_mut().ok_or(DecodeError::Internal {
            what: "bz2 fed before it was started",
        })?;
        let capacity = dst.len() as u64;
        let out = dst.get_mut(pos..).ok_or(DecodeError::Internal {
            what: "bz2 given a position past its destination",
        })?;
        let (in0, out0) = (state.total_in(), state.total_out());
        let status = state.decompress(input, out).map_err(|e| match e {
            bzip2::Error::DataMagic => corrupt("not a bzip2 stream (bad magic number)"),
            bzip2::Error::Data => corrupt("invalid bzip2 data"),
            _ => corrupt("bzip2 decoder misuse"),
        })?;
        // Both deltas are bounded by the slices just passed.
        let consumed = usize::try_from(state.total_in() - in0).unwrap_or(usize::MAX);
        let written = usize::try_from(state.total_out() - out0).unwrap_or(usize::MAX);
        let status = match status {
            BzStatus::StreamEnd => {
                self.done = true;
                Status::Done
            }
            _ if pos + written == dst.len() && consumed < input.len() => {
                // Output full, input left: the stream decodes to more than the destination.
                return Err(DecodeError::OutputOverflow {
                    codec: CodecName::Bz2,
                    capacity,
                });
            }
            _ => Status::NeedsInput,
        };
        Ok(Progress {
            consumed,
            written,
            status,
        })
    }
}
