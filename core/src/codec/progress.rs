//! What one call to a streaming decoder did.

/// Where a decoder stands after a call. Neither is an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The stream is not finished: call again with more input.
    NeedsInput,
    /// The stream is complete and verified.
    Done,
}

/// The result of one call: how much input was used, how much output written, and the status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Input bytes consumed by this call.
    pub consumed: usize,
    /// Output bytes written by this call.
    pub written: usize,
    /// Whether the stream is complete.
    pub status: Status,
}

impl Progress {
    /// A progress report; `done` selects [`Status::Done`] over [`Status::NeedsInput`].
    pub(crate) fn new(consumed: usize, written: usize, done: bool) -> Self {
        let status = if done {
            Status::Done
        } else {
            Status::NeedsInput
        };
        Self {
            consumed,
            written,
            status,
        }
    }
}
