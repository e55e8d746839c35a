//! zstd through the C library, decoding straight into the destination.
//!
//! The decompression context is put in "stable output buffer" mode: the destination slice is
//! the window, so the library allocates no window of its own and copies nothing out of one. It
//! buffers at most one block of input (128 KiB).
//!
//! The library decodes; zinto holds it to the same rules as the pure-Rust backend, so that the
//! same input gives the same bytes or the same kind of error on both:
//! - the frame header is parsed here too (from the first bytes, however the input is split), and
//!   [`FrameHeader::check_destination`] refuses a dictionary, a declared size larger than the
//!   destination or a window above
//!   [`MAX_DECLARED_WINDOW`](zinto_core::codec::MAX_DECLARED_WINDOW) before the library decides;
//! - the block structure of the bytes it consumed is walked ([`BlockWalker`]): its streaming
//!   path is more lenient than the RFC;
//! - the declared size is checked against what was decoded (the library's streaming path does
//!   not always do so: found by the `zstd_differential` fuzz target); either way a frame that
//!   decodes to other than it declares is [`DecodeError::Corrupt`], as the library reports it;
//! - the content checksum is verified here, not by the library, so that a mismatch is a
//!   [`DecodeError::ChecksumMismatch`] with both values, as ruzstd reports it;
//! - the library's own errors are classified by their error code, never by their message.

use std::hash::Hasher;
use zinto_core::codec::{
    Backend, BlockWalker, CodecName, Compressor, DecodeError, FrameHeader, MAX_FRAME_HEADER_LEN,
    OTHER_THAN_DECLARED, Progress, Status,
};
use zstd_safe::zstd_sys::ZSTD_ErrorCode;

use zstd_safe::{DCtx, DParameter, InBuffer, OutBuffer, ResetDirective};

/// The C library's streaming decoder, reusable across chunks.
pub struct CZstd {
    dctx: DCtx<'static>,
    /// The context for frames decoded through a window, made on first use: without a stable
    /// output the library keeps the frame's window itself.
    window_dctx: Option<DCtx<'static>>,
    /// In window mode: what the frame may write in all, what it wrote so far, and the running
    /// content checksum of it.
    windowed: Option<Windowed>,
    /// zinto's own reading of the frame's structure, kept up with the bytes the library took.
    follower: Follower,
    /// An overflow inside a raw block, reported once the block's content is all in (see
    /// [`CZstd::overflowed`]).
    held_back: Option<DecodeError>,
    done: bool,
}

impl std::fmt::Debug for CZstd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CZstd")
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

/// A frame decoded through a window.
struct Windowed {
    capacity: u64,
    written: u64,
    hash: twox_hash::XxHash64,
}

/// The frame's structure, read as ruzstd reads it: the header (gathered until it parses, then
/// checked against the destination) and the blocks' headers ([`BlockWalker`]).
#[derive(Debug, Clone, Copy)]
struct Follower {
    /// The frame's first bytes, gathered until the header parses.
    head: [u8; MAX_FRAME_HEADER_LEN],
    head_len: usize,
    /// The parsed header, once the first bytes held it, and the walk over the blocks after it.
    header: Option<(FrameHeader, BlockWalker)>,
}

impl Follower {
    const NEW: Self = Self {
        head: [0; MAX_FRAME_HEADER_LEN],
        head_len: 0,
        header: None,
    };

    /// Follows `bytes`, the frame's next; with `one_block`, no further than the end of the
    /// first block that ends in them. Returns how many it followed.
    ///
    /// # Errors
    /// What [`FrameHeader::parse`], [`FrameHeader::check_destination`] (for a destination of
    /// `capacity` bytes) and [`BlockWalker::walk`] refuse.
    fn follow(
        &mut self,
        bytes: &[u8],
        capacity: u64,
        one_block: bool,
    ) -> Result<usize, DecodeError> {
        let mut used = 0;
        if self.header.is_none() {
            let take = (MAX_FRAME_HEADER_LEN - self.head_len).min(bytes.len());
            if let (Some(slot), Some(taken)) = (
                self.head.get_mut(self.head_len..self.head_len + take),
                bytes.get(..take),
            ) {
                slot.copy_from_slice(taken);
            }
            let gathered = self.head.get(..self.head_len + take).unwrap_or(&[]);
            let Some(header) = FrameHeader::parse(gathered)? else {
                self.head_len += take;
                return Ok(take);
            };
            header.check_destination(capacity)?;
            // Bytes gathered past the header are the first block's.
            used = header.header_len - self.head_len;
            self.header = Some((header, BlockWalker::new(&header)));
        }
        let rest = bytes.get(used..).unwrap_or(&[]);
        if let Some((_, walker)) = &mut self.header {
            used += if one_block {
                walker.walk_block(rest)?
            } else {
                walker.walk(rest)?
            };
        }
        Ok(used)
    }

    fn header(&self) -> Option<&FrameHeader> {
        self.header.as_ref().map(|(h, _)| h)
    }

    fn past_last_block(&self) -> bool {
        self.header
            .is_some_and(|(_, walker)| walker.past_last_block())
    }

    fn in_literal_block(&self) -> bool {
        self.header
            .is_some_and(|(_, walker)| walker.in_literal_block())
    }
}

/// The largest window log the library accepts (`ZSTD_WINDOWLOG_MAX`).
const MAX_WINDOW_LOG: u32 = if usize::BITS == 32 { 30 } else { 31 };

fn corrupt(reason: &'static str) -> DecodeError {
    DecodeError::Corrupt {
        codec: CodecName::Zstd,
        reason,
    }
}

/// Whether the library's result `code` is the error `which`. The library returns error `e` as
/// `(size_t)-e` (`ERROR(e)` in its sources); zstd-safe hands that value back unchanged.
fn is(code: usize, which: ZSTD_ErrorCode) -> bool {
    code.wrapping_neg() == which as usize
}

/// The library's error `code` as a [`DecodeError`], by its error code. The cases ruzstd reports
/// otherwise are decided before the library is asked (see the module docs); what is left is
/// corrupt data, or an output too small.
fn classify(code: usize) -> DecodeError {
    if is(code, ZSTD_ErrorCode::ZSTD_error_memory_allocation) {
        // The context was made before decoding, with a stable output it allocates no window.
        return corrupt("the library could not allocate");
    }
    corrupt(zstd_safe::get_error_name(code))
}

/// Whether the library's error `code` says the output is full.
fn is_overflow(code: usize) -> bool {
    is(code, ZSTD_ErrorCode::ZSTD_error_dstSize_tooSmall)
        || is(code, ZSTD_ErrorCode::ZSTD_error_noForwardProgress_destFull)
}

/// The error for a frame that decoded up to the end of where it may write: past its declared
/// size if it declares one (the library stops a frame there; `check_destination` made sure it
/// fits the destination), which is corrupt; else past the destination.
fn past_the_end(header: Option<&FrameHeader>, capacity: u64) -> DecodeError {
    if header.is_some_and(|h| h.content_size.is_some()) {
        return corrupt(OTHER_THAN_DECLARED);
    }
    DecodeError::OutputOverflow {
        codec: CodecName::Zstd,
        capacity,
    }
}

/// The content checksum zstd stores for `content`: the low 32 bits of its XXH64, seed 0.
fn content_checksum(content: &[u8]) -> u32 {
    let [a, b, c, d, ..] = twox_hash::XxHash64::oneshot(0, content).to_le_bytes();
    u32::from_le_bytes([a, b, c, d])
}

impl CZstd {
    /// A decoder; allocates the library's context (about 160 KiB).
    ///
    /// # Errors
    /// [`DecodeError::Corrupt`] if the library refuses the stable-output mode.
    pub fn new() -> Result<Self, DecodeError> {
        let mut dctx = DCtx::create();
        dctx.set_parameter(DParameter::StableOutBuffer(true))
            .map_err(classify)?;
        // With a stable output the library allocates no window, so the declared window only
        // has to be accepted: no match reaches past the output's start, which the library
        // checks. (Its default limit, 128 MiB, refused frames that ruzstd, given the output as
        // its window, decodes: found by the `zstd_differential` fuzz target.)
        dctx.set_parameter(DParameter::WindowLogMax(MAX_WINDOW_LOG))
            .map_err(classify)?;
        // The checksum is verified in `finish`, with the values ruzstd reports.
        dctx.set_parameter(DParameter::ForceIgnoreChecksum(true))
            .map_err(classify)?;
        Ok(Self {
            dctx,
            window_dctx: None,
            windowed: None,
            follower: Follower::NEW,
            held_back: None,
            done: false,
        })
    }

    /// The library could not write all it decoded of `piece` (which the follower has not yet
    /// followed, and which ends no later than the block the library was in). ruzstd decodes
    /// whole blocks, so it sees that only once the block is all in; the library writes a raw
    /// block's content as it arrives. To report the same fault at the same point, an overflow
    /// inside a raw or RLE block whose content is not all in is held back until it is (and the
    /// stream is truncated if it never is). `at` is where `piece` starts in this call's input.
    fn overflowed(
        &mut self,
        piece: &[u8],
        at: usize,
        capacity: u64,
    ) -> Result<Progress, DecodeError> {
        self.follower.follow(piece, capacity, false)?;
        self.report_past_the_end(at + piece.len(), capacity)
    }

    /// As [`CZstd::overflowed`], once the follower has followed the `consumed` bytes.
    fn report_past_the_end(
        &mut self,
        consumed: usize,
        capacity: u64,
    ) -> Result<Progress, DecodeError> {
        let e = past_the_end(self.follower.header(), capacity);
        if self.follower.in_literal_block() {
            self.held_back = Some(e);
            return Ok(Progress {
                consumed,
                written: 0,
                status: Status::NeedsInput,
            });
        }
        Err(e)
    }

    /// Goes on with a held-back overflow: through the rest of its block, then the error.
    fn finish_held_back(&mut self, e: DecodeError, input: &[u8]) -> Result<Progress, DecodeError> {
        let Some((_, walker)) = &mut self.follower.header else {
            return Err(e);
        };
        let consumed = walker.walk_to_block_end(input);
        if walker.in_literal_block() {
            return Ok(Progress {
                consumed,
                written: 0,
                status: Status::NeedsInput,
            });
        }
        Err(e)
    }

    /// The library ended the frame having written `content`: it must have passed the last
    /// block, match the declared size and the stored checksum.
    fn finish(&mut self, content: &[u8]) -> Result<(), DecodeError> {
        self.finish_with(content.len() as u64, || content_checksum(content))
    }

    /// As [`CZstd::finish`], for a frame of `decoded` bytes whose checksum `checksum` gives.
    fn finish_with(
        &mut self,
        decoded: u64,
        checksum: impl FnOnce() -> u32,
    ) -> Result<(), DecodeError> {
        let Some((header, walker)) = self.follower.header.filter(|(_, w)| w.is_done()) else {
            return Err(corrupt("the library ended the frame before its last block"));
        };
        // The library's streaming path does not always check this (see the module docs).
        if header
            .content_size
            .is_some_and(|declared| declared != decoded)
        {
            return Err(corrupt(OTHER_THAN_DECLARED));
        }
        if let Some(expected) = walker.stored_checksum() {
            let found = checksum();
            if found != expected {
                return Err(DecodeError::ChecksumMismatch {
                    codec: CodecName::Zstd,
                    expected,
                    found,
                });
            }
        }
        self.done = true;
        Ok(())
    }
}

impl Backend for CZstd {
    fn codec(&self) -> CodecName {
        CodecName::Zstd
    }

    fn start(
        &mut self,
        _: &Compressor,
        _encoded_len: u64,
        _decoded_len: usize,
    ) -> Result<(), DecodeError> {
        // Resetting the session keeps the parameters (stable output).
        let _ = self.dctx.reset(ResetDirective::SessionOnly);
        self.follower = Follower::NEW;
        self.held_back = None;
        self.windowed = None;
        self.done = false;
        Ok(())
    }

    fn windowed(&self) -> bool {
        true
    }

    fn start_windowed(
        &mut self,
        _: &Compressor,
        _encoded_len: u64,
        decoded_len: usize,
    ) -> Result<(), DecodeError> {
        let dctx = match &mut self.window_dctx {
            Some(d) => d,
            None => {
                let mut d = DCtx::create();
                d.set_parameter(DParameter::WindowLogMax(MAX_WINDOW_LOG))
                    .map_err(classify)?;
                d.set_parameter(DParameter::ForceIgnoreChecksum(true))
                    .map_err(classify)?;
                self.window_dctx.insert(d)
            }
        };
        let _ = dctx.reset(ResetDirective::SessionOnly);
        self.follower = Follower::NEW;
        self.held_back = None;
        self.windowed = Some(Windowed {
            capacity: decoded_len as u64,
            written: 0,
            hash: twox_hash::XxHash64::with_seed(0),
        });
        self.done = false;
        Ok(())
    }

    /// As [`CZstd::decode`], with the library keeping the frame's window and copying out of it
    /// into `window`. The library's window is the frame's: at most its declared content size
    /// (which `check_destination` holds to the capacity), or for a frame that does not declare
    /// one, its declared window, refused with [`DecodeError::WindowTooLarge`] above the capacity
    /// (or 1 KiB, if larger) before the library allocates it.
    fn decode_window(&mut self, input: &[u8], window: &mut [u8]) -> Result<Progress, DecodeError> {
        if self.done {
            return Ok(Progress {
                consumed: 0,
                written: 0,
                status: Status::Done,
            });
        }
        let (Some(state), Some(dctx)) = (&mut self.windowed, &mut self.window_dctx) else {
            return Err(DecodeError::Internal {
                what: "a zstd frame fed a window before a windowed start",
            });
        };
        let capacity = state.capacity;
        let mut out = OutBuffer::around(window);
        let mut at = 0;
        let mut finished = false;
        let mut full = false;
        let mut written_before = 0;
        loop {
            let rest = input.get(at..).unwrap_or(&[]);
            let mut ahead = self.follower;
            let (len, fault) = match ahead.follow(rest, capacity, true) {
                Ok(len) => (len, None),
                Err(e) => (0, Some(e)),
            };
            check_window(ahead.header(), capacity)?;
            let piece = rest.get(..len).unwrap_or(&[]);
            let mut inb = InBuffer::around(piece);
            match pump_window(dctx, &mut out, &mut inb)? {
                Pumped::Finished => finished = true,
                Pumped::Full => full = true,
                Pumped::Drained => {}
            }
            let used = inb.pos();
            self.follower
                .follow(piece.get(..used).unwrap_or(&[]), capacity, false)?;
            at += used;
            // No input taken and nothing written: stop here (the chunk decoder reports a
            // decoder that makes no progress) rather than ask again.
            let stalled = used == 0 && out.pos() == written_before;
            written_before = out.pos();
            let written = state.written + out.pos() as u64;
            if beyond_the_frame(&self.follower, written, capacity, finished) {
                return Err(past_the_end(self.follower.header(), capacity));
            }
            if let Some(e) = fault
                && !finished
            {
                return Err(e);
            }
            if full || finished || len == 0 || stalled {
                break;
            }
        }
        let end = out.pos();
        let new = window.get(..end).unwrap_or(&[]);
        state.hash.write(new);
        state.written += end as u64;
        let status = if finished {
            let (decoded, sum) = (state.written, state.hash.finish());
            let [a, b, c, d, ..] = sum.to_le_bytes();
            self.finish_with(decoded, || u32::from_le_bytes([a, b, c, d]))?;
            Status::Done
        } else if full {
            Status::NeedsOutput
        } else {
            Status::NeedsInput
        };
        Ok(Progress {
            consumed: at,
            written: end,
            status,
        })
    }

    /// Feeds the library one block at a time, each piece ending where the next block begins
    /// (or at the first fault zinto's own reading finds, which is reported once the library
    /// has taken everything before it): a failure is then known to lie in that block, as it
    /// would for ruzstd, which decodes whole blocks.
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
        if let Some(e) = self.held_back {
            return self.finish_held_back(e, input);
        }
        let capacity = dst.len() as u64;
        let mut out = OutBuffer::around_pos(dst, pos);
        let mut at = 0;
        let mut finished = false;
        while at < input.len() && !finished {
            let rest = input.get(at..).unwrap_or(&[]);
            let mut ahead = self.follower;
            let (len, fault) = match ahead.follow(rest, capacity, true) {
                Ok(len) => (len, None),
                Err(e) => (0, Some(e)),
            };
            let piece = rest.get(..len).unwrap_or(&[]);
            let mut inb = InBuffer::around(piece);
            match pump_whole(&mut self.dctx, &mut out, &mut inb, piece.len())? {
                Pumped::Finished => finished = true,
                Pumped::Full => return self.overflowed(piece, at, capacity),
                Pumped::Drained => {}
            }
            let used = inb.pos();
            self.follower
                .follow(piece.get(..used).unwrap_or(&[]), capacity, false)?;
            at += used;
            // The library checks a declared size only at the end of a last block that is not
            // empty; ruzstd, after every block (the C path's pieces are blocks): past it after
            // any block, or short of it after the last.
            let written = out.pos() as u64;
            if self
                .follower
                .header()
                .and_then(|h| h.content_size)
                .is_some_and(|declared| {
                    written > declared || (self.follower.past_last_block() && written != declared)
                })
            {
                return self.report_past_the_end(at, capacity);
            }
            if let Some(e) = fault
                && !finished
            {
                return Err(e);
            }
            if len == 0 {
                break;
            }
        }
        let end = out.pos();
        let status = if finished {
            // `dst` holds this frame's content from its start (see `Backend::decode`).
            self.finish(dst.get(..end).unwrap_or(&[]))?;
            Status::Done
        } else {
            Status::NeedsInput
        };
        Ok(Progress {
            consumed: at,
            written: end - pos,
            status,
        })
    }
}

/// How far one piece of input went through the library.
enum Pumped {
    /// The frame ended.
    Finished,
    /// The output is full (a window: move it on; a whole destination: it overflowed).
    Full,
    /// The piece is taken as far as the library takes it without more input.
    Drained,
}

/// Runs `inb` through the library into a window, calling again while it makes progress: the
/// library may need several calls to drain what one piece produces.
fn pump_window(
    dctx: &mut DCtx<'static>,
    out: &mut OutBuffer<'_, [u8]>,
    inb: &mut InBuffer<'_>,
) -> Result<Pumped, DecodeError> {
    loop {
        let before = (inb.pos(), out.pos());
        match dctx.decompress_stream(out, inb) {
            Ok(0) => return Ok(Pumped::Finished),
            Ok(_) => {}
            Err(code) => return Err(classify(code)),
        }
        if out.pos() == out.capacity() {
            return Ok(Pumped::Full);
        }
        if (inb.pos(), out.pos()) == before {
            return Ok(Pumped::Drained);
        }
    }
}

/// Runs `inb` (a piece of `piece_len` bytes) through the library into a whole destination, as
/// [`pump_window`] does; a destination that takes no more with input left is [`Pumped::Full`].
fn pump_whole(
    dctx: &mut DCtx<'static>,
    out: &mut OutBuffer<'_, [u8]>,
    inb: &mut InBuffer<'_>,
    piece_len: usize,
) -> Result<Pumped, DecodeError> {
    loop {
        let before = (inb.pos(), out.pos());
        match dctx.decompress_stream(out, inb) {
            Ok(0) => return Ok(Pumped::Finished),
            Ok(_) => {}
            Err(code) if is_overflow(code) => return Ok(Pumped::Full),
            Err(code) => return Err(classify(code)),
        }
        if (inb.pos(), out.pos()) == before {
            return Ok(if inb.pos() == piece_len {
                Pumped::Drained
            } else {
                Pumped::Full
            });
        }
    }
}

/// Refuses a frame that declares no content size and a window larger than the chunk (or
/// 1 KiB, if larger): the library would keep that window; it is decoded whole instead.
fn check_window(header: Option<&FrameHeader>, capacity: u64) -> Result<(), DecodeError> {
    if let Some(h) = header
        && h.content_size.is_none()
    {
        let cap = capacity.max(1024);
        if h.window_size > cap {
            return Err(DecodeError::WindowTooLarge {
                window: h.window_size,
                cap,
            });
        }
    }
    Ok(())
}

/// Whether `written` bytes go past the frame: its declared content size (or the capacity,
/// without one), or short of the declared size once the last block is in.
fn beyond_the_frame(follower: &Follower, written: u64, capacity: u64, finished: bool) -> bool {
    let declared = follower.header().and_then(|h| h.content_size);
    let limit = declared.unwrap_or(capacity);
    written > limit
        || (declared.is_some() && follower.past_last_block() && finished && written != limit)
}

#[cfg(test)]
#[allow(clippy::cast_possible_truncation)] // test values are small
mod tests {
    use zinto_core::codec::{
        Backend, BytesCodecs, ChunkDecoder, CodecName, Compressor, DecodeError, FrameHeader, Status,
    };

    use super::CZstd;

    fn sample(len: usize) -> Vec<u8> {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        (0..len)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if (i / 300) % 3 == 0 {
                    (x >> 32) as u8
                } else {
                    (i % 7) as u8
                }
            })
            .collect()
    }

    fn compress(data: &[u8], level: i32, checksum: bool) -> Vec<u8> {
        let mut c = zstd_safe::CCtx::create();
        c.set_parameter(zstd_safe::CParameter::CompressionLevel(level))
            .unwrap();
        c.set_parameter(zstd_safe::CParameter::ChecksumFlag(checksum))
            .unwrap();
        let mut out = vec![0u8; zstd_safe::compress_bound(data.len())];
        let n = c.compress2(&mut out[..], data).unwrap();
        out.truncate(n);
        out
    }

    const ZSTD: BytesCodecs = BytesCodecs::compressed(Some(Compressor::ZSTD));

    fn decode(
        c_backend: bool,
        stored: &[u8],
        len: usize,
        piece: usize,
    ) -> Result<Vec<u8>, DecodeError> {
        let mut d = ChunkDecoder::new();
        if c_backend {
            d.set_backend(Box::new(CZstd::new()?));
        } else {
            d.set_zstd_window_cap(1 << 27);
        }
        let mut out = vec![0u8; len];
        d.start(&ZSTD, stored.len() as u64, len)?;
        let mut status = Status::NeedsInput;
        for p in stored.chunks(piece.max(1)) {
            status = d.feed(p, &mut out)?.status;
        }
        assert_eq!(status, Status::Done);
        Ok(out)
    }

    #[test]
    fn a_frame_decoding_to_more_than_it_declares_is_refused_however_split() {
        // Single segment, content size 6; then raw blocks of 6 and (last) 12 bytes: 18 bytes.
        let mut frame = vec![0x28, 0xB5, 0x2F, 0xFD, 0x20, 6];
        frame.extend([6 << 3, 0, 0]);
        frame.extend([1u8; 6]);
        frame.extend([(12 << 3) | 1, 0, 0]);
        frame.extend([2u8; 12]);
        for piece in [1, 2, 7, usize::MAX] {
            for c_backend in [true, false] {
                // Corrupt on both (the reason names what each noticed first: a block larger
                // than the window, which a single-segment frame's content size sets, or
                // decoding past the declared size).
                let e = decode(c_backend, &frame, 18, piece).unwrap_err();
                assert!(
                    matches!(e, DecodeError::Corrupt { .. }),
                    "C {c_backend}, pieces of {piece}: {e:?}"
                );
            }
        }
    }

    #[test]
    fn an_empty_compressed_block_is_refused_by_both_backends() {
        // Single segment, content size 0, then a last compressed block of size 0: the RFC
        // requires a literals section, the C library's streaming path takes it as empty.
        let frame = [0x28, 0xB5, 0x2F, 0xFD, 0x20, 0, (2 << 1) | 1, 0, 0];
        for piece in [1, 4, usize::MAX] {
            for c_backend in [true, false] {
                let e = decode(c_backend, &frame, 0, piece).unwrap_err();
                assert!(
                    matches!(e, DecodeError::Corrupt { .. }),
                    "C {c_backend}, pieces of {piece}: {e:?}"
                );
            }
        }
    }

    #[test]
    fn c_library_and_ruzstd_produce_identical_bytes() {
        for len in [0usize, 1, 1000, 131_072, 1_000_003] {
            let data = sample(len);
            for (level, checksum) in [(0, false), (3, true), (19, true), (-3, false)] {
                let stored = compress(&data, level, checksum);
                let c = decode(true, &stored, len, 65_536).unwrap();
                let r = decode(false, &stored, len, 65_536).unwrap();
                assert!(c == data, "C len {len} level {level}");
                assert!(r == c, "ruzstd differs from C, len {len} level {level}");
            }
        }
    }

    #[test]
    fn c_backend_survives_every_small_split() {
        let data = sample(5000);
        let stored = compress(&data, 3, true);
        for piece in 1..=13 {
            assert!(
                decode(true, &stored, data.len(), piece).unwrap() == data,
                "piece {piece}"
            );
        }
    }

    #[test]
    fn c_backend_reports_bad_input() {
        let data = sample(20_000);
        let stored = compress(&data, 3, true);
        let e = decode(true, &stored[..stored.len() - 3], data.len(), 1000).unwrap_err();
        assert_eq!(
            e,
            DecodeError::Truncated {
                codec: CodecName::Zstd
            }
        );
        // A valid frame that decodes past the destination overflows it, on both backends,
        // with or without a declared size (a declared size past the destination is refused
        // from the header).
        let e = decode(true, &stored, data.len() - 1, 1000).unwrap_err();
        assert!(matches!(e, DecodeError::OutputOverflow { .. }), "{e:?}");
        assert_eq!(decode(false, &stored, data.len() - 1, 1000).unwrap_err(), e);
        let mut c = zstd_safe::CCtx::create();
        c.set_parameter(zstd_safe::CParameter::ContentSizeFlag(false))
            .unwrap();
        let mut frame = vec![0u8; zstd_safe::compress_bound(data.len())];
        let n = c.compress2(&mut frame[..], &data).unwrap();
        frame.truncate(n);
        assert_eq!(
            FrameHeader::parse(&frame).unwrap().unwrap().content_size,
            None
        );
        for piece in [7, 1000, usize::MAX] {
            for c_backend in [true, false] {
                let e = decode(c_backend, &frame, data.len() - 100, piece).unwrap_err();
                assert!(
                    matches!(
                        e,
                        DecodeError::OutputOverflow {
                            capacity: 19_900,
                            ..
                        }
                    ),
                    "C {c_backend}, pieces of {piece}: {e:?}"
                );
            }
        }
        let mut long = stored.clone();
        long.extend_from_slice(b"xyz");
        let e = decode(true, &long, data.len(), 1000).unwrap_err();
        assert!(
            matches!(e, DecodeError::TrailingData { extra: 3, .. }),
            "{e:?}"
        );
        let mut bad = stored.clone();
        let n = bad.len();
        bad[n - 1] ^= 1;
        let e = decode(true, &bad, data.len(), 1000).unwrap_err();
        let stored = u32::from_le_bytes(bad[n - 4..].try_into().unwrap());
        assert_eq!(
            e,
            DecodeError::ChecksumMismatch {
                codec: CodecName::Zstd,
                expected: stored,
                found: stored ^ (1 << 24),
            }
        );
        // ruzstd reports the same mismatch, with the same values.
        assert_eq!(decode(false, &bad, data.len(), 1000).unwrap_err(), e);
        // A frame declaring 1 TiB is refused before decoding.
        let mut frame = vec![0x28, 0xB5, 0x2F, 0xFD, 0xE0];
        frame.extend((1u64 << 40).to_le_bytes());
        frame.extend([0x01 | (4 << 3), 0, 0, 1, 2, 3, 4]);
        let e = decode(true, &frame, 4096, 1000).unwrap_err();
        assert!(
            matches!(e, DecodeError::OutputOverflow { capacity: 4096, .. }),
            "{e:?}"
        );
    }

    #[test]
    fn stable_output_keeps_no_window_buffer() {
        // Decoding 8 MiB straight into the destination: the context stays small, because the
        // destination is the window. (Without stable output it would hold a window of 1+ MiB.)
        let data = sample(8 << 20);
        let stored = compress(&data, 3, false);
        let mut z = CZstd::new().unwrap();
        z.start(&Compressor::ZSTD, 0, 0).unwrap();
        let mut out = vec![0u8; data.len()];
        let mut pos = 0;
        for p in stored.chunks(1 << 20) {
            pos += z.decode(p, &mut out, pos).unwrap().written;
        }
        assert_eq!(pos, data.len());
        assert!(out == data);
        let size = z.dctx.sizeof();
        assert!(size < 256 << 10, "decompression context holds {size} bytes");
    }

    #[test]
    fn a_huge_declared_window_is_decoded_without_a_window_buffer() {
        // Window descriptor 0x8c: 192 MiB, above the library's default limit; one raw block.
        let mut frame = vec![0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x8c];
        frame.extend([(5 << 3) | 1, 0, 0]);
        frame.extend(b"hello");
        for c_backend in [true, false] {
            assert_eq!(decode(c_backend, &frame, 5, 3).unwrap(), b"hello");
        }
        let mut z = CZstd::new().unwrap();
        z.start(&Compressor::ZSTD, 0, 0).unwrap();
        let mut out = [0u8; 5];
        z.decode(&frame, &mut out, 0).unwrap();
        let size = z.dctx.sizeof();
        assert!(size < 256 << 10, "decompression context holds {size} bytes");
    }

    /// Decodes through a window of `window` bytes, fed in pieces of `piece` bytes.
    fn decode_windowed(
        c_backend: bool,
        stored: &[u8],
        len: usize,
        piece: usize,
        window: usize,
    ) -> Result<Vec<u8>, DecodeError> {
        let mut d = ChunkDecoder::new();
        if c_backend {
            d.set_backend(Box::new(CZstd::new()?));
        }
        let mut w = vec![0u8; window];
        let mut out = Vec::new();
        d.start_windowed(&ZSTD, stored.len() as u64, len)?;
        let mut status = Status::NeedsInput;
        for p in stored.chunks(piece.max(1)) {
            let mut at = 0;
            loop {
                let r = d.feed_window(&p[at..], &mut w)?;
                at += r.consumed;
                out.extend_from_slice(&w[r.produced]);
                status = r.status;
                if status == Status::Done || (status == Status::NeedsInput && at == p.len()) {
                    break;
                }
            }
        }
        if status != Status::Done {
            return Err(DecodeError::Truncated {
                codec: CodecName::Zstd,
            });
        }
        Ok(out)
    }

    /// A frame compressed with a window of `2^log` bytes, not single-segment.
    fn compress_windowed(data: &[u8], log: u32, checksum: bool) -> Vec<u8> {
        let mut c = zstd_safe::CCtx::create();
        c.set_parameter(zstd_safe::CParameter::CompressionLevel(3))
            .unwrap();
        c.set_parameter(zstd_safe::CParameter::WindowLog(log))
            .unwrap();
        c.set_parameter(zstd_safe::CParameter::ChecksumFlag(checksum))
            .unwrap();
        let mut out = vec![0u8; zstd_safe::compress_bound(data.len())];
        let n = c.compress2(&mut out[..], data).unwrap();
        out.truncate(n);
        out
    }

    #[test]
    fn windowed_frames_decode_the_same_on_both_backends() {
        for len in [0usize, 1, 1000, 300_000] {
            let data = sample(len);
            for stored in [compress(&data, 3, true), compress_windowed(&data, 15, true)] {
                for (piece, window) in [(1 << 20, 1), (7, 1000), (4096, 65_536), (1 << 20, 1 << 20)]
                {
                    if piece == 7 && len > 1000 {
                        continue;
                    }
                    for c_backend in [true, false] {
                        let got = decode_windowed(c_backend, &stored, len, piece, window)
                            .unwrap_or_else(|e| panic!("C {c_backend} len {len}: {e}"));
                        assert!(got == data, "C {c_backend} len {len} piece {piece}");
                    }
                }
            }
        }
    }

    #[test]
    fn windowed_c_backend_keeps_the_frames_window_not_the_chunk() {
        // 8 MiB in a frame with a 128 KiB window, through a 64 KiB window: the library keeps
        // its window (about 128 KiB plus a block), not the chunk.
        let data = sample(8 << 20);
        let stored = compress_windowed(&data, 17, true);
        let mut z = CZstd::new().unwrap();
        z.start_windowed(&Compressor::ZSTD, stored.len() as u64, data.len())
            .unwrap();
        let mut w = vec![0u8; 65_536];
        let mut got = Vec::new();
        let mut at = 0;
        loop {
            let p = z.decode_window(&stored[at..], &mut w).unwrap();
            at += p.consumed;
            got.extend_from_slice(&w[..p.written]);
            if p.status == Status::Done {
                break;
            }
        }
        assert!(got == data);
        let size = z.window_dctx.as_ref().unwrap().sizeof();
        assert!(size < 1 << 20, "windowed context holds {size} bytes");
    }

    #[test]
    fn windowed_refusals() {
        let data = sample(20_000);
        let stored = compress(&data, 3, true);
        // Truncated, a flipped checksum, a destination too small: errors, as whole.
        assert!(decode_windowed(true, &stored[..stored.len() - 3], data.len(), 1000, 512).is_err());
        let mut bad = stored.clone();
        let n = bad.len();
        bad[n - 1] ^= 1;
        assert!(matches!(
            decode_windowed(true, &bad, data.len(), 1000, 512),
            Err(DecodeError::ChecksumMismatch { .. })
        ));
        assert!(decode_windowed(true, &stored, data.len() - 1, 1000, 512).is_err());
        assert!(decode_windowed(true, &stored, data.len() + 1, 1000, 512).is_err());
        // A frame without a content size declaring a window far above the chunk: refused
        // before the library allocates it.
        let mut frame = vec![0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x8c];
        frame.extend([(5 << 3) | 1, 0, 0]);
        frame.extend(b"hello");
        assert!(matches!(
            decode_windowed(true, &frame, 5, 100, 64),
            Err(DecodeError::WindowTooLarge { .. })
        ));
    }
}
