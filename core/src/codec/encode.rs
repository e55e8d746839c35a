//! The encode direction of the compressors: what a streaming encoder is ([`Encoder`]), how it
//! fails ([`EncodeError`]), what the std crate plugs in for the encoders zinto-core does not
//! have ([`EncodeBackends`]: C zstd, zlib-rs' DEFLATE), and how a codec writes its own
//! configuration into metadata ([`ConfigSink`]).
//!
//! Each compressor's file answers `CompressorCodec::encoder` beside its
//! decoder: numcodecs' LZ4 and Blosc encode here, zstd, gzip and zlib through the backends,
//! and a codec zinto only decodes says so in its file. The statuses are the decoders' own
//! ([`Status`]).

use super::{CodecName, Progress, Status};

/// Why a compressor could not encode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodeError {
    /// zinto does not write `codec` this way (named, with why).
    Unsupported {
        /// The codec.
        codec: CodecName,
        /// What is not written, and why.
        what: &'static str,
    },
    /// A chunk larger than the format holds.
    TooLarge {
        /// The codec.
        codec: CodecName,
        /// The chunk's bytes.
        len: u64,
        /// The most the format holds.
        max: u64,
    },
    /// The library behind a backend failed (its own message).
    Library {
        /// The codec.
        codec: CodecName,
        /// The library's message.
        what: &'static str,
    },
    /// The encoder was called out of order (a bug in its caller).
    Internal {
        /// What went wrong.
        what: &'static str,
    },
}

impl core::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::Unsupported { codec, what } => write!(f, "zinto does not write {codec}: {what}"),
            Self::TooLarge { codec, len, max } => write!(
                f,
                "{codec}: a chunk of {len} bytes (the format holds at most {max})"
            ),
            Self::Library { codec, what } => write!(f, "the {codec} compressor failed: {what}"),
            Self::Internal { what } => write!(f, "internal error: {what}"),
        }
    }
}

/// A streaming compressor: one chunk at a time, input piece by piece, compressed bytes into
/// the caller's output windows.
pub trait Encoder: Send {
    /// Starts a new stream of `len` bytes (kept settings, reused state). Returns the length of
    /// its head: bytes that come first in the stream but are known only at its end (a Blosc
    /// chunk's header and block table), which the caller reserves before the output and
    /// fills with [`Encoder::head`] once the stream is done; 0 for none.
    ///
    /// # Errors
    /// [`EncodeError::TooLarge`] for a chunk its format cannot state.
    fn begin(&mut self, len: u64) -> Result<usize, EncodeError>;

    /// The head, once [`Encoder::encode`] said [`Status::Done`].
    fn head(&self) -> &[u8];

    /// Whether it must be given each chunk whole, in one slice, at every call until it has
    /// consumed it (numcodecs' LZ4: one block, whose literal runs are unbounded).
    fn whole_input(&self) -> bool;

    /// Compresses what it can of `input` into `out`; `last` says nothing follows `input`.
    /// [`Status::Done`] only once `last` was given and every byte is out.
    ///
    /// # Errors
    /// What its library reports, or a call out of order.
    fn encode(&mut self, input: &[u8], out: &mut [u8], last: bool)
    -> Result<Progress, EncodeError>;
}

/// The status of a call that wrote `written` bytes into a window of `out_len`, where `done`
/// says the stream ended: a full window needs output, anything else more input (or, after the
/// last input, another call).
#[must_use]
pub fn status(done: bool, written: usize, out_len: usize) -> Status {
    match (done, written == out_len) {
        (true, _) => Status::Done,
        (false, true) => Status::NeedsOutput,
        (false, false) => Status::NeedsInput,
    }
}

/// Compresses one block whole (an inner compressor of Blosc): the bytes written into `dst`,
/// or `None` where they do not fit (the block is then stored as it is).
pub trait BlockCompress: Send {
    /// `src` compressed into `dst`.
    fn compress(&mut self, src: &[u8], dst: &mut [u8]) -> Option<usize>;
}

/// How a DEFLATE stream is framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeflateFraming {
    /// RFC 1952 (`gzip`).
    Gzip,
    /// RFC 1950 (`zlib`).
    Zlib,
}

/// The encoders the std crate plugs in (C zstd, zlib-rs), one method for each: a build
/// without one answers [`EncodeError::Unsupported`] saying which feature it lacks. zinto-core's
/// codec files ask these; nothing else does.
#[cfg(feature = "alloc")]
pub trait EncodeBackends {
    /// A zstd stream at `level` (0: the library's default), with a content checksum if
    /// `checksum`; its frames state their content size.
    ///
    /// # Errors
    /// [`EncodeError::Unsupported`] without a zstd encoder.
    fn zstd(
        &self,
        level: i32,
        checksum: bool,
    ) -> Result<alloc::boxed::Box<dyn Encoder>, EncodeError>;

    /// A DEFLATE stream at `level` (`None`: zlib's default), framed as `framing` says.
    ///
    /// # Errors
    /// [`EncodeError::Unsupported`] without a DEFLATE encoder.
    fn deflate(
        &self,
        framing: DeflateFraming,
        level: Option<u8>,
    ) -> Result<alloc::boxed::Box<dyn Encoder>, EncodeError>;

    /// One zstd block at `level`, whole (Blosc's inner zstd).
    ///
    /// # Errors
    /// [`EncodeError::Unsupported`] without a zstd encoder.
    fn zstd_block(&self, level: i32) -> Result<alloc::boxed::Box<dyn BlockCompress>, EncodeError>;

    /// One zlib stream at `level`, whole (Blosc's inner zlib).
    ///
    /// # Errors
    /// [`EncodeError::Unsupported`] without a DEFLATE encoder.
    fn zlib_block(&self, level: u8) -> Result<alloc::boxed::Box<dyn BlockCompress>, EncodeError>;

    /// The highest zstd level its library takes (Blosc's level 9 asks for it).
    fn zstd_max_level(&self) -> i32;
}

/// Which metadata a codec writes its configuration for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZarrVersion {
    /// Zarr v2: `{"id": ..., key: value, ...}` in `.zarray`.
    V2,
    /// Zarr v3: `{"name": ..., "configuration": {key: value, ...}}` in `zarr.json`.
    V3,
}

/// Where a codec writes its configuration: key by key, each a JSON value of one kind. The std
/// crate writes them into the metadata's JSON object.
pub trait ConfigSink {
    /// An integer.
    fn int(&mut self, key: &'static str, value: i64);
    /// A string.
    fn str(&mut self, key: &'static str, value: &str);
    /// A boolean.
    fn bool(&mut self, key: &'static str, value: bool);
}

/// What a codec needs to know to write its configuration: the metadata it goes into and the
/// size of the elements it compresses (Blosc's `typesize`; 0 for variable-length elements).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConfigFor {
    /// Zarr v2 or v3.
    pub version: ZarrVersion,
    /// Bytes of one element.
    pub elem_size: usize,
}
