//! What a streaming compressor of the write path is ([`Encode`]) and how it fails
//! ([`EncodeError`]): each encodes over a caller's output window, input piece by piece, with
//! the read path's statuses. The encoders themselves are `encoders.rs` (zstd, gzip, zlib and
//! the dispatch), `blosc.rs` and `lz4.rs`.

use zinto_core::codec::Progress;

/// Why a compressor could not encode.
#[derive(Debug)]
pub(crate) enum EncodeError {
    /// This build does not write this compressor (named, with why).
    Unsupported(String),
    /// The library reported an error.
    Library(String),
    /// A filter refused an element (named, with why).
    Filter(String),
}

impl std::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unsupported(what) => write!(f, "zinto does not write {what}"),
            Self::Library(why) => write!(f, "the compressor failed: {why}"),
            Self::Filter(why) => write!(f, "{why}"),
        }
    }
}

/// A streaming compressor.
pub(crate) trait Encode: Send {
    /// Starts a new stream of `len` bytes (kept settings, reused state). Returns the length of
    /// its head: bytes that come first in the stream but are known only at its end (a Blosc
    /// chunk's header and block table), which the caller reserves before the output and
    /// fills with [`Encode::head`] once the stream is done; 0 for none.
    fn begin(&mut self, len: u64) -> Result<usize, EncodeError>;

    /// The head, once [`Encode::encode`] said [`Status::Done`](zinto_core::codec::Status).
    fn head(&self) -> &[u8];

    /// Whether it must be given each chunk whole, in one slice, at every call until it has
    /// consumed it (numcodecs' LZ4: one block, whose literal runs are unbounded).
    fn whole_input(&self) -> bool;

    /// Compresses what it can of `input` into `out`; `last` says nothing follows `input`.
    /// [`Status::Done`] only once `last` was given and every byte is out.
    fn encode(&mut self, input: &[u8], out: &mut [u8], last: bool)
    -> Result<Progress, EncodeError>;
}

/// The status of a call that wrote `written` bytes into a window of `out_len`, where `done`
/// says the stream ended: a full window needs output, anything else more input (or, after the
/// last input, another call).
pub(super) fn status(done: bool, written: usize, out_len: usize) -> zinto_core::codec::Status {
    use zinto_core::codec::Status;
    match (done, written == out_len) {
        (true, _) => Status::Done,
        (false, true) => Status::NeedsOutput,
        (false, false) => Status::NeedsInput,
    }
}
