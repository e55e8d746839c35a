//! Decoding one stored chunk's bytes-to-bytes codecs, streamed, into the caller's destination.

use super::chain::{BytesCodecs, Checksums, MAX_CHECKSUMS};
use super::checksum::Location;
use super::crc::CRC32C;
#[cfg(feature = "alloc")]
use super::decoders::Backend;
use super::decoders::Decoders;
use super::error::{CHECKSUM_SLOT, INPUT_OVERRUN, OUTPUT_OVERRUN, SIZE_NOT_USIZE};
use super::registry::{Checksum, ChecksumKind};
use super::{CodecName, Compressor, DecodeError, Progress, Status, WindowProgress};
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
/// use zinto_core::codec::{BytesCodecs, Checksums, ChunkDecoder, Status};
///
/// // A chunk of four bytes stored uncompressed with a crc32c trailer.
/// let data = [1u8, 2, 3, 4];
/// let mut stored = data.to_vec();
/// stored.extend(zinto_core::codec::crc32c(&data).to_le_bytes());
///
/// let codecs = BytesCodecs { compressor: None, checksums: Checksums::crc32c(1).unwrap() };
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
    decoders: Decoders,
    /// One running checksum per checksum codec, innermost first.
    sums: [Checksum; MAX_CHECKSUMS],
    /// The stored checksums, four bytes each, innermost first.
    stored: [u8; 4 * MAX_CHECKSUMS],
    encoded_len: u64,
    /// Where the compressed (or plain) payload starts and ends in the stored bytes.
    payload_start: u64,
    payload_end: u64,
    seen: u64,
    /// The decoded size: exact, or (`!exact`) the most the chunk may decode to.
    decoded_len: usize,
    /// Whether `decoded_len` is the decoded size, not only its bound
    /// ([`ChunkDecoder::start_windowed_at_most`]).
    exact: bool,
    /// The address of the destination of this chunk's first `feed`: every later call must
    /// pass the same slice, which holds what was decoded so far.
    dst_addr: Option<usize>,
    written: usize,
    inner_done: bool,
    /// Whether the chunk is decoded through a window ([`ChunkDecoder::start_windowed`]).
    windowed: bool,
    /// In a window: the decoder filled the last one and has more to write.
    wants_output: bool,
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

/// Where the checksum of layer `i` (innermost first) sits, and the stored bytes it covers.
struct Layer {
    /// The four checksum bytes.
    at: u64,
    /// What it covers: `covers.0..covers.1`.
    covers: (u64, u64),
}

/// Where a step's decoded bytes go.
enum Out<'a> {
    /// The whole chunk's destination ([`ChunkDecoder::feed`]).
    Whole(&'a mut [u8]),
    /// A window the caller empties ([`ChunkDecoder::feed_window`]).
    Window(&'a mut [u8]),
}

/// What one [`ChunkDecoder::step`] did.
enum Stepped {
    /// Fed `offered` payload bytes to the compressor (or copied them): its progress, and
    /// where in a window its bytes start.
    Payload {
        progress: Progress,
        at: usize,
        offered: usize,
    },
    /// Took one checksum byte.
    Checksum,
    /// Had nothing to take.
    Nothing,
}

/// A feed's count of the input it consumed went past the input: a decoder reported more
/// consumed than it was given.
const CONSUMED_PAST_INPUT: DecodeError = DecodeError::Internal {
    what: "a decoder reported consuming more input than it was given",
};

fn layer(checksums: &Checksums, i: usize, encoded_len: u64) -> Layer {
    // Checksums outside layer `i` (index above it) sit further out: the start ones before
    // it, the end ones after it.
    let (mut before_out, mut after_out) = (0u64, 0u64);
    let mut own = Location::End;
    for (j, c) in checksums.iter().enumerate() {
        if j == i {
            own = c.location;
        } else if j > i {
            match c.location {
                Location::Start => before_out += 4,
                Location::End => after_out += 4,
            }
        }
    }
    let end = encoded_len.saturating_sub(after_out);
    match own {
        Location::Start => Layer {
            at: before_out,
            covers: (before_out + 4, end),
        },
        Location::End => Layer {
            at: end.saturating_sub(4),
            covers: (before_out, end.saturating_sub(4)),
        },
    }
}

impl ChunkDecoder {
    /// A decoder with nothing started.
    ///
    /// The decoder holds its decoders' state inline, miniz_oxide's inflater most of it: about
    /// 10.7 KiB on a 32-bit target (measured on a Cortex-M4, docs/embedded.md). On a small
    /// stack, keep it in a `static` or somewhere with room, and reuse it from chunk to chunk.
    pub fn new() -> Self {
        Self {
            codecs: BytesCodecs::default(),
            decoders: Decoders::default(),
            sums: [Checksum::new(ChecksumKind::Crc32c); MAX_CHECKSUMS],
            stored: [0; 4 * MAX_CHECKSUMS],
            encoded_len: 0,
            payload_start: 0,
            payload_end: 0,
            seen: 0,
            decoded_len: 0,
            exact: true,
            dst_addr: None,
            written: 0,
            inner_done: false,
            windowed: false,
            wants_output: false,
            done: true,
        }
    }

    /// Uses ruzstd with this window cap for zstd (see [`ZstdDecoder::set_window_cap`]): it
    /// becomes the zstd backend, replacing one plugged in before (C zstd); a later
    /// [`set_backend`](Self::set_backend) for zstd replaces it in turn.
    ///
    /// [`ZstdDecoder::set_window_cap`]: super::ZstdDecoder::set_window_cap
    #[cfg(feature = "alloc")]
    pub fn set_zstd_window_cap(&mut self, cap: u64) {
        self.decoders.set_zstd_window_cap(cap);
    }

    /// Inflates every gzip and zlib stream (Blosc's inner zlib included) with a raw DEFLATE
    /// decoder `make` makes, in place of miniz_oxide; zinto-core still reads the wrappers and
    /// checks their checksums. The std crate plugs in zlib-rs this way.
    #[cfg(feature = "alloc")]
    pub fn set_inflater(&mut self, make: super::decoders::MakeInflater) {
        self.decoders.set_inflater(make);
    }

    /// Uses `backend` for its codec, wherever the codec appears (as a chunk's compressor and
    /// inside Blosc chunks), instead of zinto-core's own decoder.
    #[cfg(feature = "alloc")]
    pub fn set_backend(&mut self, backend: Box<dyn Backend>) {
        self.decoders.set_backend(backend);
    }

    /// Starts a chunk of `encoded_len` stored bytes that decodes to `decoded_len` bytes.
    ///
    /// # Errors
    /// [`DecodeError::Truncated`] if `encoded_len` cannot hold the checksums;
    /// [`DecodeError::SizeMismatch`] if an uncompressed chunk's length is not `decoded_len`;
    /// [`DecodeError::Unsupported`] for a codec this build cannot decode (zstd, Blosc or LZ4
    /// without the `alloc` feature, bz2 without a backend).
    pub fn start(
        &mut self,
        codecs: &BytesCodecs,
        encoded_len: u64,
        decoded_len: usize,
    ) -> Result<(), DecodeError> {
        self.begin(codecs, encoded_len, decoded_len, false)
    }

    /// Whether chunks stored with `codecs` can be decoded through a window
    /// ([`ChunkDecoder::start_windowed`]): uncompressed, gzip, zlib, and with the `alloc`
    /// feature zstd and Blosc (a [`Backend`] decides for its codec). Not numcodecs LZ4, whose
    /// stream is decoded in one call, nor bz2 without a backend that can.
    pub fn can_window(&self, codecs: &BytesCodecs) -> bool {
        codecs
            .compressor
            .as_ref()
            .is_none_or(|c| self.decoders.can_window(c))
    }

    /// Starts a chunk, as [`ChunkDecoder::start`] does, to be decoded through a window that the
    /// caller empties after every call ([`ChunkDecoder::feed_window`]) rather than into one
    /// destination of the whole chunk: for a caller that wants only some of the chunk's bytes,
    /// or wants them scattered, with memory bounded by the codec's own window (DEFLATE 32 KiB,
    /// a zstd frame's window, one Blosc block) instead of the chunk.
    ///
    /// # Errors
    /// As [`ChunkDecoder::start`]; [`DecodeError::Unsupported`] where
    /// [`ChunkDecoder::can_window`] is false.
    pub fn start_windowed(
        &mut self,
        codecs: &BytesCodecs,
        encoded_len: u64,
        decoded_len: usize,
    ) -> Result<(), DecodeError> {
        self.begin(codecs, encoded_len, decoded_len, true)
    }

    /// Starts a chunk whose stream does not state its decoded size (zlib, bz2, lzma: a
    /// [`size_probe`](super::size_probe) says [`DecodeError::SizeUnknown`]) to be decoded through a
    /// window, as [`ChunkDecoder::start_windowed`] does, to at most `at_most` bytes: the
    /// decoded size is [`ChunkDecoder::written`] once the status is [`Status::Done`]. A caller
    /// learns the size this way, or appends each window's bytes to a buffer it grows.
    ///
    /// ```
    /// use zinto_core::codec::{BytesCodecs, ChunkDecoder, Compressor, Status};
    ///
    /// // A zlib stream of 1 000 zero bytes, as Python's zlib.compress writes it.
    /// let stored = [120, 156, 99, 96, 24, 5, 163, 96, 20, 12, 119, 0, 0, 3, 232, 0, 1];
    /// let codecs = BytesCodecs { compressor: Some(Compressor::ZLIB), ..BytesCodecs::default() };
    /// let mut decoder = ChunkDecoder::new();
    /// decoder.start_windowed_at_most(&codecs, stored.len() as u64, 1 << 20)?;
    /// let mut ring = vec![0u8; 32 * 1024];
    /// let mut out = Vec::new();
    /// let mut at = 0;
    /// loop {
    ///     let p = decoder.feed_window(&stored[at..], &mut ring)?;
    ///     at += p.consumed;
    ///     out.extend_from_slice(&ring[p.produced]);
    ///     if p.status == Status::Done {
    ///         break;
    ///     }
    /// }
    /// assert_eq!((decoder.written(), out), (1000, vec![0u8; 1000]));
    /// # Ok::<(), zinto_core::codec::DecodeError>(())
    /// ```
    ///
    /// # Errors
    /// As [`ChunkDecoder::start_windowed`]; [`DecodeError::OutputOverflow`] later, from
    /// [`ChunkDecoder::feed_window`], if the stream decodes to more than `at_most` bytes.
    pub fn start_windowed_at_most(
        &mut self,
        codecs: &BytesCodecs,
        encoded_len: u64,
        at_most: usize,
    ) -> Result<(), DecodeError> {
        if codecs.compressor.is_some() {
            self.begin(codecs, encoded_len, at_most, true)?;
            self.exact = false;
            return Ok(());
        }
        // Stored plain: the payload is the decoded size (`begin` refuses a chunk shorter than
        // its checksums).
        let payload = encoded_len
            .saturating_sub(codecs.checksums.before())
            .saturating_sub(codecs.checksums.after());
        let decoded_len = usize::try_from(payload)
            .ok()
            .filter(|&n| n <= at_most)
            .ok_or(DecodeError::OutputOverflow {
                codec: CodecName::Bytes,
                capacity: at_most as u64,
            })?;
        self.begin(codecs, encoded_len, decoded_len, true)?;
        Ok(())
    }

    /// The smallest window [`ChunkDecoder::feed_window`] takes for a chunk stored with
    /// `codecs` whose stored bytes begin with `head` (at least a Blosc header's 16 bytes past
    /// any leading checksums, for Blosc): [`RING_MIN`](super::RING_MIN) for gzip and zlib, whose window must
    /// also be a power of two; one block for Blosc; 1 otherwise.
    ///
    /// # Errors
    /// For Blosc, what [`BloscHeader::parse`](super::blosc::BloscHeader::parse) refuses, or
    /// [`DecodeError::Truncated`] if `head` is too short to hold the header.
    pub fn min_window(
        codecs: &BytesCodecs,
        head: &[u8],
        encoded_len: u64,
        decoded_len: usize,
    ) -> Result<usize, DecodeError> {
        let Some(compressor) = codecs.compressor else {
            return Ok(1);
        };
        let (before, after) = (codecs.checksums.before(), codecs.checksums.after());
        // `None`: shorter than its checksums (only a codec that reads a header minds).
        let payload_len = encoded_len.checked_sub(before + after);
        let head = usize::try_from(before)
            .ok()
            .and_then(|b| head.get(b..))
            .unwrap_or(&[]);
        compressor
            .codec()
            .min_window(head, payload_len, decoded_len)
    }

    fn begin(
        &mut self,
        codecs: &BytesCodecs,
        encoded_len: u64,
        decoded_len: usize,
        windowed: bool,
    ) -> Result<(), DecodeError> {
        let checksums = &codecs.checksums;
        let truncated = DecodeError::Truncated {
            codec: checksums
                .iter()
                .last()
                .map_or(CodecName::Crc32c, |c| c.name()),
        };
        let payload_start = checksums.before();
        let payload_end = encoded_len
            .checked_sub(checksums.after())
            .filter(|&e| e >= payload_start)
            .ok_or(truncated)?;
        let payload_len = payload_end - payload_start;
        match &codecs.compressor {
            None if payload_len != decoded_len as u64 => {
                return Err(DecodeError::SizeMismatch {
                    codec: CodecName::Bytes,
                    expected: decoded_len as u64,
                    got: payload_len,
                });
            }
            None => {}
            Some(c) => self.decoders.start(c, payload_len, decoded_len, windowed)?,
        }
        self.codecs = *codecs;
        for (sum, spec) in self.sums.iter_mut().zip(checksums.iter()) {
            *sum = Checksum::new(spec.kind);
        }
        self.encoded_len = encoded_len;
        self.payload_start = payload_start;
        self.payload_end = payload_end;
        self.seen = 0;
        self.decoded_len = decoded_len;
        self.exact = true;
        self.dst_addr = None;
        self.written = 0;
        self.inner_done = false;
        self.windowed = windowed;
        self.wants_output = false;
        self.done = false;
        Ok(())
    }

    fn codec(&self) -> CodecName {
        self.codecs
            .compressor
            .as_ref()
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
        if self.windowed {
            return Err(DecodeError::Internal {
                what: "a chunk started windowed fed a whole destination",
            });
        }
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
            let rest = input.get(consumed..).ok_or(CONSUMED_PAST_INPUT)?;
            if rest.is_empty() {
                break;
            }
            match self.step(rest, Out::Whole(dst))? {
                Stepped::Payload { progress: p, .. } => {
                    consumed += p.consumed;
                    written += p.written;
                    match p.status {
                        Status::Done => self.payload_done()?,
                        Status::NeedsOutput => {
                            return Err(DecodeError::OutputOverflow {
                                codec: self.codec(),
                                capacity: self.decoded_len as u64,
                            });
                        }
                        Status::NeedsInput if p.consumed == 0 => return Err(self.stalled()),
                        Status::NeedsInput => {}
                    }
                }
                Stepped::Checksum => consumed += 1,
                Stepped::Nothing => break,
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

    /// Feeds the next piece of a chunk begun with [`ChunkDecoder::start_windowed`], decoding
    /// into `window`: the bytes decoded by this call are `window[progress.produced]`, the
    /// chunk's next, and are the caller's to use before the next call (which may overwrite
    /// them). Call again with the input not yet consumed until it is all consumed, and always
    /// after [`Status::NeedsOutput`] (the window filled up: call with the rest of the input,
    /// possibly none). [`Status::Done`] once the last byte is in and verified, as
    /// [`ChunkDecoder::feed`] verifies it.
    ///
    /// Pass the same window on every call of one chunk: decoders keep state in it (for gzip
    /// and zlib it is a ring holding DEFLATE's window, so its length must be a power of two of
    /// at least [`RING_MIN`](super::RING_MIN) bytes; Blosc stages a block in it, so it must hold one, see
    /// [`ChunkDecoder::min_window`]).
    ///
    /// ```
    /// use zinto_core::codec::{BytesCodecs, ChunkDecoder, Compressor, Status};
    ///
    /// // A gzip chunk (as written by Python's gzip module) of 100 000 bytes, of which the
    /// // caller wants only the sum.
    /// # let mut stored = vec![31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 237, 193, 49, 1, 0, 0, 0, 194, 160];
    /// # stored.extend([245, 79, 109, 13, 15, 160]);
    /// # stored.resize(stored.len() + 96, 0);
    /// # stored.extend([128, 87, 3, 125, 149, 17, 212, 160, 134, 1, 0]);
    /// let codecs = BytesCodecs { compressor: Some(Compressor::GZIP), ..BytesCodecs::default() };
    /// let mut decoder = ChunkDecoder::new();
    /// decoder.start_windowed(&codecs, stored.len() as u64, 100_000)?;
    /// let mut ring = vec![0u8; 32 * 1024];
    /// let (mut at, mut sum) = (0, 0u64);
    /// loop {
    ///     let p = decoder.feed_window(&stored[at..], &mut ring)?;
    ///     at += p.consumed;
    ///     sum += ring[p.produced].iter().map(|&b| u64::from(b)).sum::<u64>();
    ///     if p.status == Status::Done {
    ///         break;
    ///     }
    /// }
    /// assert_eq!(decoder.written(), 100_000);
    /// assert_eq!(sum, 0);
    /// # Ok::<(), zinto_core::codec::DecodeError>(())
    /// ```
    ///
    /// # Errors
    /// As [`ChunkDecoder::feed`]; [`DecodeError::Internal`] for a chunk not begun windowed.
    pub fn feed_window(
        &mut self,
        input: &[u8],
        window: &mut [u8],
    ) -> Result<WindowProgress, DecodeError> {
        if !self.windowed {
            return Err(DecodeError::Internal {
                what: "a chunk not started windowed fed a window",
            });
        }
        if window.is_empty() {
            // It could hold nothing: every call would ask for output again.
            return Err(DecodeError::Internal {
                what: "an empty window",
            });
        }
        let mut consumed = 0usize;
        let mut produced = 0..0;
        while !self.done {
            let rest = input.get(consumed..).ok_or(CONSUMED_PAST_INPUT)?;
            match self.step(rest, Out::Window(window))? {
                Stepped::Payload {
                    progress: p,
                    at,
                    offered,
                } => {
                    consumed += p.consumed;
                    produced = at..at + p.written;
                    self.wants_output = p.status == Status::NeedsOutput;
                    match p.status {
                        Status::Done => self.payload_done()?,
                        Status::NeedsOutput => {
                            return Ok(WindowProgress {
                                consumed,
                                produced,
                                status: Status::NeedsOutput,
                            });
                        }
                        Status::NeedsInput if p.consumed == 0 && p.written == 0 && offered > 0 => {
                            return Err(self.stalled());
                        }
                        Status::NeedsInput => {}
                    }
                    if self.seen == self.encoded_len && self.inner_done {
                        self.finish()?;
                    }
                    if p.written > 0 {
                        break;
                    }
                }
                Stepped::Checksum => {
                    consumed += 1;
                    if self.seen == self.encoded_len {
                        self.finish()?;
                    }
                }
                Stepped::Nothing => break,
            }
        }
        if !self.done && self.seen == self.encoded_len && !self.wants_output {
            self.finish()?;
        }
        Ok(WindowProgress {
            consumed,
            produced,
            status: if self.done {
                Status::Done
            } else {
                Status::NeedsInput
            },
        })
    }

    /// One step through the stored bytes `rest` (this chunk's next): a part of the payload
    /// through the compressor (or copied) into `out`, or one byte of a checksum (or one a
    /// checksum covers outside the payload). Both feeds take their steps here; what a status
    /// means (an overflow of a whole destination, a full window) is theirs to say.
    fn step(&mut self, rest: &[u8], out: Out<'_>) -> Result<Stepped, DecodeError> {
        let in_payload = self.seen >= self.payload_start && self.seen < self.payload_end;
        if self.wants_output || (in_payload && !rest.is_empty()) {
            let left = self.payload_end - self.seen;
            let take = usize::try_from(left).unwrap_or(usize::MAX).min(rest.len());
            let (part, _) = rest.split_at(take);
            let (progress, at) = match out {
                Out::Whole(dst) => (self.payload(part, dst)?, 0),
                Out::Window(window) => self.payload_window(part, window)?,
            };
            let used = part.get(..progress.consumed).ok_or(CONSUMED_PAST_INPUT)?;
            let n = self.codecs.checksums.len();
            for sum in self.sums.iter_mut().take(n) {
                sum.update(used);
            }
            self.seen += progress.consumed as u64;
            let total = self.written.checked_add(progress.written);
            self.written =
                total
                    .filter(|&t| t <= self.decoded_len)
                    .ok_or(DecodeError::OutputOverflow {
                        codec: self.codec(),
                        capacity: self.decoded_len as u64,
                    })?;
            Ok(Stepped::Payload {
                progress,
                at,
                offered: part.len(),
            })
        } else if let Some(&byte) = rest.first() {
            self.checksum_byte(byte)?;
            self.seen += 1;
            Ok(Stepped::Checksum)
        } else {
            Ok(Stepped::Nothing)
        }
    }

    /// The compressor says its stream is done: no payload may be left.
    fn payload_done(&mut self) -> Result<(), DecodeError> {
        self.inner_done = true;
        if self.seen < self.payload_end {
            return Err(DecodeError::TrailingData {
                codec: self.codec(),
                extra: self.payload_end - self.seen,
            });
        }
        Ok(())
    }

    /// A decoder that took none of the input it was offered and wrote nothing.
    fn stalled(&self) -> DecodeError {
        DecodeError::Corrupt {
            codec: self.codec(),
            reason: "decoder made no progress",
        }
    }

    /// Runs the payload through the compressor into `window`, or copies it there. Returns the
    /// progress and where in `window` its bytes start.
    fn payload_window(
        &mut self,
        part: &[u8],
        window: &mut [u8],
    ) -> Result<(Progress, usize), DecodeError> {
        match self.codecs.compressor {
            None => {
                let n = part.len().min(window.len());
                window
                    .get_mut(..n)
                    .ok_or(OUTPUT_OVERRUN)?
                    .copy_from_slice(part.get(..n).ok_or(INPUT_OVERRUN)?);
                let status = if n < part.len() {
                    Status::NeedsOutput
                } else if self.written + n == self.decoded_len {
                    Status::Done
                } else {
                    Status::NeedsInput
                };
                Ok((Progress::with_status(n, n, status), 0))
            }
            Some(_) => self.decoders.decode_window(part, window, self.written),
        }
    }

    /// Byte `self.seen` of the stored chunk, outside the payload: stored as the checksum it is
    /// part of, and added to every checksum that covers it.
    fn checksum_byte(&mut self, byte: u8) -> Result<(), DecodeError> {
        let at = self.seen;
        for (i, _) in self.codecs.checksums.iter().enumerate() {
            let l = layer(&self.codecs.checksums, i, self.encoded_len);
            if (l.at..l.at + 4).contains(&at) {
                let k = 4 * i + usize::try_from(at - l.at).map_err(|_| SIZE_NOT_USIZE)?;
                *self.stored.get_mut(k).ok_or(CHECKSUM_SLOT)? = byte;
            } else if (l.covers.0..l.covers.1).contains(&at) {
                self.sums.get_mut(i).ok_or(CHECKSUM_SLOT)?.update(&[byte]);
            }
        }
        Ok(())
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
            Some(_) => self.decoders.decode(part, dst, pos),
        }
    }

    /// All input is in: the stream must be complete, the checksums right, the size exact.
    fn finish(&mut self) -> Result<(), DecodeError> {
        let payload_len = self.payload_end - self.payload_start;
        // A stream of unknown size must end itself, even an empty one.
        if !self.inner_done && (!self.exact || self.decoded_len != 0 || payload_len != 0) {
            return Err(DecodeError::Truncated {
                codec: self.codec(),
            });
        }
        for (i, spec) in self.codecs.checksums.iter().enumerate() {
            let found = self.sums.get(i).ok_or(CHECKSUM_SLOT)?.value();
            let bytes: [u8; 4] = self
                .stored
                .get(4 * i..4 * i + 4)
                .and_then(|b| b.try_into().ok())
                .ok_or(CHECKSUM_SLOT)?;
            let stored = u32::from_le_bytes(bytes);
            if stored != found {
                return Err(DecodeError::ChecksumMismatch {
                    codec: spec.name(),
                    expected: stored,
                    found,
                });
            }
        }
        if self.exact && self.written != self.decoded_len {
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
