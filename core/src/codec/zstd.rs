//! `zstd`, decoded by the pure-Rust ruzstd (behind the `alloc` feature).
//!
//! ruzstd pulls its input through a reader and keeps its own window buffer, so this module
//! turns it into a push decoder the caller owns: it parses the frame header itself (refusing
//! large windows and dictionaries before anything is allocated), gathers each block whole
//! (a block is at most 128 KiB) before handing it over, drains decoded bytes into the caller's
//! destination, and checks what ruzstd does not: the content checksum, and that the frame
//! decoded to exactly its declared size.

use super::error::{INPUT_OVERRUN, OUTPUT_OVERRUN, SIZE_NOT_USIZE, STAGED_OVERRUN};
use alloc::vec::Vec;

use ruzstd::decoding::errors::{
    DecodeBlockContentError, DecompressBlockError, ExecuteSequencesError, FrameDecoderError,
};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};
use ruzstd::io::Read;

use super::zstd_blocks::{literals_size, sequence_count, sequence_modes};
use super::zstd_frame::{FrameHeader, MAX_FRAME_HEADER_LEN};
use super::{Backend, CodecName, Compressor, DecodeError, Progress, Status};

/// Why a frame that decodes to more or less than its declared content size is corrupt (both
/// backends say so; the C library reports it as data corruption).
pub const OTHER_THAN_DECLARED: &str = "frame decodes to other than its declared content size";

/// Largest block body zstd allows (RFC 8878, 3.1.1.2.4).
const MAX_BLOCK: usize = 128 * 1024;
/// The default and the absolute window cap.
pub const MAX_WINDOW_CAP: u64 = 128 * 1024 * 1024;

/// Where the frame parser stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Header,
    /// Gathering the next block (header included) into `block`.
    Block,
    /// Moving what ruzstd decoded out of its window, after a block; `last` if it was the
    /// frame's last, `checksum` if a content checksum follows it.
    Drain {
        last: bool,
        checksum: bool,
    },
    /// Gathering the content checksum after the last block.
    Checksum,
    Done,
}

/// A zstd block's 3-byte header: whether it is the frame's last, its type (raw 0, RLE 1,
/// compressed 2), its stated size, and the bytes of its body.
struct BlockHead {
    last: bool,
    kind: u32,
    size: usize,
    body: usize,
}

/// A streaming zstd decoder writing into the caller's destination; reusable across chunks.
pub struct ZstdDecoder {
    frame: FrameDecoder,
    phase: Phase,
    header: Option<FrameHeader>,
    /// Header bytes, then one block at a time (the last with the checksum that follows it):
    /// allocated once, at most a block plus its header and checksum.
    pending: Vec<u8>,
    window_cap: Option<u64>,
    /// The window ruzstd keeps for this frame (see `take_header`).
    window: u64,
    /// What the frame has decoded so far, when known (see `drain`): not while it is at most
    /// the window and none of it could be collected yet.
    decoded: Option<u64>,
    /// The error for decoding past what this frame may write.
    past_the_end: DecodeError,
    written: u64,
    /// In window mode ([`ZstdDecoder::reset_windowed`]), what the frame may write in all;
    /// otherwise the destination's length says it.
    windowed: Option<u64>,
}

/// Where decoded bytes go: the whole destination (its first `written` bytes already this
/// frame's), or a window that holds only this call's.
enum Target<'a> {
    Whole(&'a mut [u8]),
    Window { window: &'a mut [u8], at: usize },
}

impl core::fmt::Debug for ZstdDecoder {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ZstdDecoder")
            .field("phase", &self.phase)
            .field("header", &self.header)
            .field("written", &self.written)
            .finish_non_exhaustive()
    }
}

impl Default for ZstdDecoder {
    fn default() -> Self {
        Self::new()
    }
}

fn corrupt(reason: &'static str) -> DecodeError {
    DecodeError::Corrupt {
        codec: CodecName::Zstd,
        reason,
    }
}

impl ZstdDecoder {
    /// A decoder with the default window cap, [`MAX_WINDOW_CAP`]. Whatever a frame declares,
    /// the window ruzstd keeps is never larger than what the frame may write (its declared
    /// content size, or the destination): no match can reach further back than the start of
    /// the output.
    pub fn new() -> Self {
        Self {
            frame: FrameDecoder::new(),
            phase: Phase::Header,
            header: None,
            pending: Vec::new(),
            window_cap: None,
            window: 0,
            decoded: Some(0),
            past_the_end: past_the_end(None, 0),
            written: 0,
            windowed: None,
        }
    }

    /// Caps the window ruzstd keeps, in bytes, in place of the default (still never above
    /// [`MAX_WINDOW_CAP`]). ruzstd reserves the whole window when a frame starts. The window
    /// is the smaller of what the frame declares and what it may write (its declared size, or
    /// the destination); a frame needing more than the cap is refused with
    /// [`DecodeError::WindowTooLarge`].
    pub fn set_window_cap(&mut self, cap: u64) {
        self.window_cap = Some(cap.min(MAX_WINDOW_CAP));
    }

    /// Makes the decoder ready for the next frame, keeping its buffers.
    pub fn reset(&mut self) {
        self.phase = Phase::Header;
        self.header = None;
        self.pending.clear();
        self.written = 0;
        self.decoded = Some(0);
        self.windowed = None;
    }

    /// Makes the decoder ready for the next frame, which may write `capacity` bytes in all,
    /// decoded through [`ZstdDecoder::decode_window`]: ruzstd keeps the frame's window (at most
    /// `capacity`), the caller's window can be any size.
    pub fn reset_windowed(&mut self, capacity: u64) {
        self.reset();
        self.windowed = Some(capacity);
    }

    /// The frame header, once it has been read.
    pub fn header(&self) -> Option<&FrameHeader> {
        self.header.as_ref()
    }

    /// Decodes as much of `input` as it can into `dst[pos..]` (`pos` is what this frame already
    /// wrote; the decoder counts it too and uses its own count).
    ///
    /// # Errors
    /// [`DecodeError::WindowTooLarge`] before any allocation for a window above the cap,
    /// [`DecodeError::OutputOverflow`] if the content size or the decoded data exceed `dst`,
    /// [`DecodeError::Corrupt`], [`DecodeError::ChecksumMismatch`],
    /// [`DecodeError::Corrupt`] ([`OTHER_THAN_DECLARED`]) if the frame decodes to other than
    /// its declared size,
    /// [`DecodeError::Unsupported`] for frames that need a dictionary.
    pub fn decode(
        &mut self,
        input: &[u8],
        dst: &mut [u8],
        _pos: usize,
    ) -> Result<Progress, DecodeError> {
        if self.windowed.is_some() {
            return Err(DecodeError::Internal {
                what: "a windowed zstd frame fed a whole destination",
            });
        }
        let capacity = dst.len() as u64;
        self.run(input, capacity, &mut Target::Whole(dst))
    }

    /// Decodes as much of `input` as it can into `window`, from its start, for a frame begun
    /// with [`ZstdDecoder::reset_windowed`]: the bytes written are `window[..written]`, the
    /// next of the frame. [`Status::NeedsOutput`] when the window is full and more is decoded:
    /// call again (with the rest of the input) once the window's bytes are used.
    ///
    /// # Errors
    /// As [`ZstdDecoder::decode`], for a destination of the capacity given at the reset.
    pub fn decode_window(
        &mut self,
        input: &[u8],
        window: &mut [u8],
    ) -> Result<Progress, DecodeError> {
        let Some(capacity) = self.windowed else {
            return Err(DecodeError::Internal {
                what: "a zstd frame fed a window without a windowed reset",
            });
        };
        self.run(input, capacity, &mut Target::Window { window, at: 0 })
    }

    fn run(
        &mut self,
        input: &[u8],
        capacity: u64,
        target: &mut Target<'_>,
    ) -> Result<Progress, DecodeError> {
        let start_written = self.written;
        let mut consumed = 0;
        while self.phase != Phase::Done {
            let rest = input.get(consumed..).ok_or(INPUT_OVERRUN)?;
            let used = match self.phase {
                Phase::Header => self.take_header(rest, capacity)?,
                Phase::Block => self.take_block(rest, capacity)?,
                Phase::Drain { last, checksum } => {
                    if !self.drain(target, capacity, last)? {
                        let written = usize::try_from(self.written - start_written)
                            .map_err(|_| SIZE_NOT_USIZE)?;
                        return Ok(Progress::with_status(
                            consumed,
                            written,
                            Status::NeedsOutput,
                        ));
                    }
                    if last {
                        // The declared size is checked once the last block is in, before the
                        // checksum arrives, as the C library checks it.
                        self.finish(None)?;
                        self.phase = if checksum {
                            Phase::Checksum
                        } else {
                            Phase::Done
                        };
                    } else {
                        self.phase = Phase::Block;
                    }
                    // Draining consumes no input, but the loop goes on.
                    continue;
                }
                Phase::Checksum => self.take_checksum(rest)?,
                Phase::Done => 0,
            };
            consumed += used;
            if used == 0 && self.phase != Phase::Done && !matches!(self.phase, Phase::Drain { .. })
            {
                break;
            }
        }
        let written = usize::try_from(self.written - start_written).unwrap_or(usize::MAX);
        Ok(Progress::new(consumed, written, self.phase == Phase::Done))
    }

    fn take_header(&mut self, input: &[u8], capacity: u64) -> Result<usize, DecodeError> {
        let before = self.pending.len();
        let want = MAX_FRAME_HEADER_LEN - before;
        let take = want.min(input.len());
        self.pending
            .extend_from_slice(input.get(..take).ok_or(INPUT_OVERRUN)?);
        let Some(header) = FrameHeader::parse(&self.pending)? else {
            return Ok(take);
        };
        header.check_destination(capacity)?;
        // No match reaches back past the start of the output, so a frame never needs more
        // window than it may write: its declared size, or the destination. ruzstd reserves the
        // window it is told, and keeps that many decoded bytes to itself until the frame ends:
        // tell it no more than that limit (a single-segment header with the limit as its
        // content size says exactly that), so that what it keeps is bounded by the output and
        // `take_block` can count what was decoded.
        let limit = header.content_size.unwrap_or(capacity);
        let window = header.window_size.min(limit);
        let cap = self.window_cap.unwrap_or(MAX_WINDOW_CAP);
        if window > cap {
            return Err(DecodeError::WindowTooLarge {
                window: header.window_size,
                cap,
            });
        }
        self.frame.set_max_window_size(cap);
        let mut single_segment = [0u8; 13];
        let header_bytes = if window < header.window_size {
            let (magic, rest) = single_segment.split_at_mut(4);
            magic.copy_from_slice(&super::ZSTD_MAGIC.to_le_bytes());
            let (descriptor, content_size) = rest.split_at_mut(1);
            // An 8-byte content size, single segment, the checksum flag kept, no dictionary.
            descriptor.fill(0xE0 | if header.has_checksum { 0x04 } else { 0 });
            content_size.copy_from_slice(&window.to_le_bytes());
            &single_segment[..]
        } else {
            self.pending
                .get(..header.header_len)
                .ok_or(STAGED_OVERRUN)?
        };
        self.frame
            .reset(header_bytes)
            .map_err(|_| corrupt("frame header refused"))?;
        self.window = window;
        self.past_the_end = past_the_end(header.content_size, capacity);
        // Bytes past the header that were copied in belong to the first block.
        let used = header.header_len - before;
        self.pending.clear();
        self.header = Some(header);
        self.phase = Phase::Block;
        Ok(used)
    }

    /// The 3 bytes of the next block's header: from what is pending, then from `input`;
    /// `None` if they are not all there yet.
    fn block_head_bytes(&self, input: &[u8]) -> Option<[u8; 3]> {
        let have = self.pending.len();
        let mut head = [0u8; 3];
        for (i, slot) in head.iter_mut().enumerate() {
            *slot = match self.pending.get(i) {
                Some(&b) => b,
                None => *input.get(i - have)?,
            };
        }
        Some(head)
    }

    /// A block header read and checked by the rules [`BlockWalker`] holds the C backend to,
    /// before the block is gathered.
    ///
    /// [`BlockWalker`]: super::BlockWalker
    fn block_head(&self, head: [u8; 3]) -> Result<BlockHead, DecodeError> {
        let bh = u32::from_le_bytes([head[0], head[1], head[2], 0]);
        let kind = (bh >> 1) & 3;
        let size = (bh >> 3) as usize;
        let body = match kind {
            0 | 2 => size,
            1 => 1,
            _ => return Err(corrupt("reserved block type")),
        };
        if kind == 2 && size == 0 {
            return Err(corrupt("empty compressed block"));
        }
        let max = self
            .header
            .map_or(MAX_BLOCK as u64, |h| h.window_size.min(MAX_BLOCK as u64));
        // Both what the block stores (one byte for RLE) and what it decodes to.
        if size.max(body) as u64 > max {
            return Err(corrupt("block larger than the frame allows"));
        }
        Ok(BlockHead {
            last: bh & 1 == 1,
            kind,
            size,
            body,
        })
    }

    /// Gathers one whole block (from `input` directly when it holds one), decodes it, drains.
    fn take_block(&mut self, input: &[u8], capacity: u64) -> Result<usize, DecodeError> {
        let have = self.pending.len();
        let Some(head) = self.block_head_bytes(input) else {
            self.pending.extend_from_slice(input);
            return Ok(input.len());
        };
        let BlockHead {
            last,
            kind,
            size,
            body,
        } = self.block_head(head)?;
        // ruzstd reads the content checksum right after the last block. It is handed four
        // placeholder bytes there (it keeps them, zinto does not use them) and the stored
        // checksum is gathered after, so the last block decodes as soon as it is whole, as the
        // C library decodes it.
        let placeholder = last && self.header.is_some_and(|h| h.has_checksum);
        let total = 3 + body;
        let used;
        let exact;
        if have == 0 && input.len() >= total && !placeholder {
            exact = self.decode_block(input.get(..total).ok_or(INPUT_OVERRUN)?)?;
            used = total;
        } else {
            let need = total - have;
            let take = need.min(input.len());
            if self.pending.capacity() < total + 4 {
                self.pending
                    .reserve_exact(3 + MAX_BLOCK + 4 - self.pending.len());
            }
            self.pending
                .extend_from_slice(input.get(..take).ok_or(INPUT_OVERRUN)?);
            if take < need {
                return Ok(take);
            }
            if placeholder {
                self.pending.extend_from_slice(&[0; 4]);
            }
            let block = core::mem::take(&mut self.pending);
            let result = self.decode_block(&block);
            self.pending = block;
            self.pending.clear();
            exact = result?;
            used = take;
        }
        // What a raw or RLE block decodes to is its header's size; a compressed block's is
        // not known ahead, unless it has no sequences: then it is its literals (found by
        // `zstd_differential`: an empty compressed block left the count unknown, and a later
        // block decoding to more than the block maximum went unnoticed).
        let block_size = (kind != 2).then_some(size as u64).or(exact);
        self.account(capacity, block_size)?;
        self.phase = Phase::Drain {
            last,
            checksum: placeholder,
        };
        Ok(used)
    }

    /// Gathers the content checksum after the last block, then checks the frame.
    fn take_checksum(&mut self, input: &[u8]) -> Result<usize, DecodeError> {
        let take = (4 - self.pending.len()).min(input.len());
        self.pending
            .extend_from_slice(input.get(..take).ok_or(INPUT_OVERRUN)?);
        if let Ok(stored) = <[u8; 4]>::try_from(self.pending.as_slice()) {
            self.pending.clear();
            self.finish(Some(u32::from_le_bytes(stored)))?;
            self.phase = Phase::Done;
        }
        Ok(take)
    }

    /// Decodes one whole block (header included). Returns what a compressed block without
    /// sequences decodes to: its literals.
    fn decode_block(&mut self, block: &[u8]) -> Result<Option<u64>, DecodeError> {
        let compressed = block.first().is_some_and(|&b| (b >> 1) & 3 == 2);
        let mut exact = None;
        if compressed {
            let max = self
                .header
                .map_or(MAX_BLOCK as u64, |h| h.window_size.min(MAX_BLOCK as u64));
            let content = block.get(3..).ok_or(STAGED_OVERRUN)?;
            if content.is_empty() {
                return Err(corrupt("empty compressed block"));
            }
            // The whole block is here: a literals header running past it is corrupt.
            let literals =
                literals_size(content).map_err(|_| corrupt("literals header past the block"))?;
            if u64::from(literals) > max {
                return Err(corrupt("literals larger than a block"));
            }
            // The RFC reserves the modes byte's two low bits; ruzstd does not check them, the
            // C library does (found by `zstd_differential`).
            if sequence_modes(content).is_some_and(|modes| modes & 3 != 0) {
                return Err(corrupt(
                    "reserved bits set in the sequence compression modes",
                ));
            }
            if sequence_count(content) == Some(0) {
                exact = Some(u64::from(literals));
            }
        }
        let mut src = block;
        let past_the_end = self.past_the_end;
        self.frame
            .decode_blocks(&mut src, BlockDecodingStrategy::UptoBlocks(1))
            .map_err(|e| {
                if decodes_past_the_window(&e) {
                    // The window is at most what the frame may write (`take_header`): the C
                    // library reports such a block as writing past the end, too.
                    past_the_end
                } else if ends_literal_streams_early(&e) {
                    corrupt(LITERAL_STREAMS)
                } else {
                    corrupt("invalid block")
                }
            })?;
        if !src.is_empty() {
            return Err(corrupt("block shorter than its header says"));
        }
        Ok(exact)
    }

    /// Checks what a block decoded, before it is moved out.
    ///
    /// A frame that declares its content size may write no further (`check_destination` made
    /// sure that fits the destination): decoding past it is corrupt, as the C backend reports
    /// it. A frame that does not declare it may fill the destination (`capacity`), and
    /// overflows it past that.
    fn account(&mut self, capacity: u64, block_size: Option<u64>) -> Result<(), DecodeError> {
        let limit = self.limit(capacity);
        // What the frame has decoded in all, checked after every block as the C library checks
        // it: what was written, plus what ruzstd holds. Until the frame ends it holds the
        // window once it has decoded that much (a drain leaves it exactly the window, see
        // `drain`), plus what can be collected beyond it; at the end, everything left. Before
        // it has decoded a window's worth nothing can be past the limit: the window is at most
        // the limit (`take_header`).
        let held = self.frame.can_collect() as u64;
        let decoded = if self.frame.is_finished() {
            Some(self.written.saturating_add(held))
        } else if self.written > 0 || held > 0 {
            Some(
                self.written
                    .saturating_add(self.window)
                    .saturating_add(held),
            )
        } else {
            None
        };
        if decoded.is_some_and(|n| n > limit) {
            return Err(self.past_the_end);
        }
        // A compressed block may decode to no more than the block maximum; ruzstd 0.9 does not
        // count the literals left after the last sequence against it, the C library does
        // (found by `zstd_differential`). What the block decoded is the total now less the
        // total before it, which was at most the window when it was not known.
        let before = self.decoded.unwrap_or(self.window);
        let block_max = self
            .header
            .map_or(MAX_BLOCK as u64, |h| h.window_size.min(MAX_BLOCK as u64));
        if block_size.is_none() && decoded.is_some_and(|n| n.saturating_sub(before) > block_max) {
            return Err(corrupt("block decodes to more than the frame allows"));
        }
        // Known from ruzstd's count, or from the total before and a raw or RLE block's size.
        self.decoded = decoded.or_else(|| Some(self.decoded? + block_size?));
        Ok(())
    }

    /// What the frame may write in all: its declared size, or the destination.
    fn limit(&self, capacity: u64) -> u64 {
        self.header.and_then(|h| h.content_size).unwrap_or(capacity)
    }

    /// Moves decoded bytes from ruzstd's window into the target. Returns `false` if a window
    /// target filled up with more to move (never for a whole destination: it ends at the
    /// limit, and `account` made sure nothing lies past that).
    fn drain(
        &mut self,
        target: &mut Target<'_>,
        capacity: u64,
        last: bool,
    ) -> Result<bool, DecodeError> {
        let limit = self.limit(capacity);
        let overflow = self.past_the_end;
        loop {
            let room = limit.saturating_sub(self.written);
            let room = usize::try_from(room).unwrap_or(usize::MAX);
            let slot = match target {
                Target::Whole(dst) => {
                    let pos = usize::try_from(self.written).map_err(|_| overflow)?;
                    let end = pos.checked_add(room).ok_or(overflow)?;
                    dst.get_mut(pos..end).ok_or(overflow)?
                }
                Target::Window { window, at } => {
                    let end = window.len().min(at.saturating_add(room));
                    window.get_mut(*at..end).ok_or(OUTPUT_OVERRUN)?
                }
            };
            let window_full = slot.is_empty() && room > 0;
            let n = self
                .frame
                .read(slot)
                .map_err(|_| corrupt("decode buffer"))?;
            self.written += n as u64;
            if let Target::Window { at, .. } = target {
                *at += n;
            }
            if self.frame.can_collect() == 0 {
                break;
            }
            if n == 0 {
                if window_full {
                    return Ok(false);
                }
                break;
            }
        }
        // Once the last block is in, everything must have fit.
        if last && self.frame.can_collect() > 0 {
            return Err(overflow);
        }
        Ok(true)
    }

    /// Checks the declared size and, if present, the checksum of everything written.
    fn finish(&mut self, stored: Option<u32>) -> Result<(), DecodeError> {
        if self
            .header
            .and_then(|h| h.content_size)
            .is_some_and(|declared| declared != self.written)
        {
            // As the C library reports it: the frame contradicts itself.
            return Err(corrupt(OTHER_THAN_DECLARED));
        }
        if let Some(expected) = stored {
            let found = self.frame.get_calculated_checksum().unwrap_or(!expected);
            if found != expected {
                return Err(DecodeError::ChecksumMismatch {
                    codec: CodecName::Zstd,
                    expected,
                    found,
                });
            }
        }
        Ok(())
    }
}

/// Why a block is corrupt when ruzstd refuses its literals section. ruzstd and libzstd read
/// Huffman-coded literals by different rules (ruzstd decodes each stream until its bits run
/// out and then checks the count and the padding; libzstd decodes the count the format gives
/// each stream and then checks the bits), so on some corrupt streams the two differ
/// (docs/reliability.md, findings 11 and 12).
pub const LITERAL_STREAMS: &str = "literals section ruzstd cannot decode";

/// Whether ruzstd refused a block's literals section.
fn ends_literal_streams_early(e: &FrameDecoderError) -> bool {
    matches!(
        e,
        FrameDecoderError::FailedToReadBlockBody(DecodeBlockContentError::DecompressBlockError(
            DecompressBlockError::DecompressLiteralsError(_)
        ))
    )
}

/// Whether ruzstd refused a block for decoding to more than its window (or 128 KiB).
fn decodes_past_the_window(e: &FrameDecoderError) -> bool {
    matches!(
        e,
        FrameDecoderError::FailedToReadBlockBody(DecodeBlockContentError::DecompressBlockError(
            DecompressBlockError::DecompressedSizeTooLarge { .. }
                | DecompressBlockError::ExecuteSequencesError(
                    ExecuteSequencesError::TooManyBytesGenerated { .. }
                )
        ))
    )
}

/// The error for a frame that would write past its end: its declared content size if it
/// declares one (`check_destination` made sure that fits the destination), which is corrupt;
/// else the destination of `capacity` bytes.
fn past_the_end(declared: Option<u64>, capacity: u64) -> DecodeError {
    match declared {
        Some(_) => corrupt(OTHER_THAN_DECLARED),
        None => DecodeError::OutputOverflow {
            codec: CodecName::Zstd,
            capacity,
        },
    }
}

/// ruzstd as the zstd [`Backend`]: the decoder zstd has unless the caller plugs in another
/// (the std crate's C zstd) through the same trait.
impl Backend for ZstdDecoder {
    fn codec(&self) -> CodecName {
        CodecName::Zstd
    }

    fn start(&mut self, _: &Compressor, _: u64, _: usize) -> Result<(), DecodeError> {
        self.reset();
        Ok(())
    }

    fn decode(
        &mut self,
        input: &[u8],
        dst: &mut [u8],
        pos: usize,
    ) -> Result<Progress, DecodeError> {
        ZstdDecoder::decode(self, input, dst, pos)
    }

    fn windowed(&self) -> bool {
        true
    }

    fn start_windowed(
        &mut self,
        _: &Compressor,
        _: u64,
        decoded_len: usize,
    ) -> Result<(), DecodeError> {
        self.reset_windowed(decoded_len as u64);
        Ok(())
    }

    fn decode_window(&mut self, input: &[u8], window: &mut [u8]) -> Result<Progress, DecodeError> {
        ZstdDecoder::decode_window(self, input, window)
    }
}
