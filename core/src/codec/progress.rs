//! What one call to a streaming decoder did.

/// Where a decoder stands after a call. None of these is an error (as in miniz_oxide:
/// `NeedsMoreInput`, `HasMoreOutput`, `Done`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The stream is not finished: call again with more input.
    NeedsInput,
    /// The destination window is full and the stream has more to write: call again with the
    /// window moved on (or stop, if the rest is not wanted). Only decoders that can continue
    /// in a new window report it: Blosc's ([`Compressor::moves_window`](super::Compressor)),
    /// and every chunk begun with
    /// [`ChunkDecoder::start_windowed`](super::ChunkDecoder::start_windowed); a whole-chunk
    /// destination that fills up early is an
    /// [`OutputOverflow`](super::DecodeError::OutputOverflow).
    NeedsOutput,
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

    /// A progress report with a given status.
    pub(crate) fn with_status(consumed: usize, written: usize, status: Status) -> Self {
        Self {
            consumed,
            written,
            status,
        }
    }
}

/// The result of one call to [`ChunkDecoder::feed_window`](super::ChunkDecoder::feed_window).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowProgress {
    /// Input bytes consumed by this call.
    pub consumed: usize,
    /// Where in the window the bytes this call decoded lie: the chunk's next bytes.
    pub produced: core::ops::Range<usize>,
    /// Whether the chunk is complete, needs input, or needs the window emptied.
    pub status: Status,
}
