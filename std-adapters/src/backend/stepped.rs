//! What one call into a streaming library that keeps its own history (libbzip2, liblzma)
//! did, and the [`Progress`] that means for a whole destination or for a window.

use zinto_core::codec::{CodecName, DecodeError, Progress, Status};

/// One call's counts: the bytes it consumed, the bytes it wrote, whether the stream ended.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stepped {
    pub(crate) consumed: usize,
    pub(crate) written: usize,
    pub(crate) ended: bool,
}

impl Stepped {
    /// A call after the stream ended: nothing consumed or written.
    pub(crate) const ENDED: Self = Self {
        consumed: 0,
        written: 0,
        ended: true,
    };

    /// The counts from the library's running totals before and after the call.
    pub(crate) fn from_totals(
        (in0, in1): (u64, u64),
        (out0, out1): (u64, u64),
        ended: bool,
    ) -> Result<Self, DecodeError> {
        // Both deltas are bounded by the slices the call was given.
        let delta = |a: u64, b: u64| {
            b.checked_sub(a)
                .and_then(|d| usize::try_from(d).ok())
                .ok_or(DecodeError::Internal {
                    what: "a backend reported more bytes than it was given",
                })
        };
        Ok(Self {
            consumed: delta(in0, in1)?,
            written: delta(out0, out1)?,
            ended,
        })
    }

    /// Into a destination of `capacity` bytes, `out_len` of them offered: full with input left
    /// means the stream decodes to more than the destination holds.
    pub(crate) fn whole(
        self,
        codec: CodecName,
        capacity: usize,
        out_len: usize,
        input_len: usize,
    ) -> Result<Progress, DecodeError> {
        let status = match self.ended {
            true => Status::Done,
            false if self.written == out_len && self.consumed < input_len => {
                return Err(DecodeError::OutputOverflow {
                    codec,
                    capacity: capacity as u64,
                });
            }
            false => Status::NeedsInput,
        };
        Ok(self.progress(status))
    }

    /// Into a window of `window_len` bytes: full means the caller should drain it.
    pub(crate) fn windowed(self, window_len: usize) -> Progress {
        let status = match self.ended {
            true => Status::Done,
            false if self.written == window_len => Status::NeedsOutput,
            false => Status::NeedsInput,
        };
        self.progress(status)
    }

    fn progress(self, status: Status) -> Progress {
        Progress {
            consumed: self.consumed,
            written: self.written,
            status,
        }
    }
}
