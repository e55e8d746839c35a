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

    /// The counts from the library's running totals before and after the call, each checked
    /// against the length of the slice the call was given: `(before, after, given)`.
    pub(crate) fn from_totals(
        (in0, in1, input_len): (u64, u64, usize),
        (out0, out1, out_len): (u64, u64, usize),
        ended: bool,
    ) -> Result<Self, DecodeError> {
        let delta = |a: u64, b: u64, given: usize| {
            b.checked_sub(a)
                .and_then(|d| usize::try_from(d).ok())
                .filter(|&d| d <= given)
                .ok_or(DecodeError::Internal {
                    what: "a backend reported more bytes than it was given",
                })
        };
        Ok(Self {
            consumed: delta(in0, in1, input_len)?,
            written: delta(out0, out1, out_len)?,
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use zinto_core::codec::{CodecName, DecodeError, Status};

    use super::Stepped;

    /// Counts past what the call was given, or totals that went back, are internal errors;
    /// a full destination with input left is an overflow, a full window asks to be drained.
    #[test]
    fn counts_are_checked_and_mapped() {
        let ok = Stepped::from_totals((10, 14, 4), (0, 8, 8), false).unwrap();
        assert_eq!((ok.consumed, ok.written), (4, 8));
        for bad in [
            Stepped::from_totals((10, 15, 4), (0, 8, 8), false),
            Stepped::from_totals((10, 14, 4), (0, 9, 8), false),
            Stepped::from_totals((10, 9, 4), (0, 8, 8), false),
        ] {
            assert!(matches!(bad, Err(DecodeError::Internal { .. })), "{bad:?}");
        }
        let overflow = Stepped::from_totals((0, 3, 5), (0, 8, 8), false)
            .unwrap()
            .whole(CodecName::Bz2, 20, 8, 5);
        assert!(
            matches!(
                overflow,
                Err(DecodeError::OutputOverflow { capacity: 20, .. })
            ),
            "{overflow:?}"
        );
        let all_in = Stepped::from_totals((0, 5, 5), (0, 8, 8), false).unwrap();
        assert_eq!(
            all_in.whole(CodecName::Bz2, 20, 8, 5).unwrap().status,
            Status::NeedsInput
        );
        assert_eq!(all_in.windowed(8).status, Status::NeedsOutput);
        assert_eq!(all_in.windowed(9).status, Status::NeedsInput);
        assert_eq!(Stepped::ENDED.windowed(8).status, Status::Done);
    }
}
