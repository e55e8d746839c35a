//! The block structure of a zstd frame (RFC 8878, section 3.1.1.2), walked without decoding.
//!
//! The C library's streaming decoder is lenient where its one-shot decoder and the RFC are
//! not: it takes a compressed block of size zero as an empty block (found by the
//! `zstd_differential` fuzz target). Walking the block headers of the bytes it consumed holds
//! every backend to the same rules: no reserved block type, no empty compressed block, no
//! block larger than `min(window, 128 KiB)`.

use super::zstd_frame::FrameHeader;
use super::{CodecName, DecodeError};

/// The largest a block may be, whatever the window (RFC 8878, Block_Maximum_Size).
pub const MAX_BLOCK_SIZE: u64 = 128 * 1024;

/// Where the walk stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Reading a 3-byte block header; `have` bytes of it so far.
    BlockHeader { have: u8, bytes: [u8; 3] },
    /// Skipping `left` bytes of block content; `last` if this is the last block; `literal`
    /// if it is a raw or RLE block.
    BlockContent {
        left: u32,
        last: bool,
        literal: bool,
    },
    /// Reading the 4-byte content checksum; `have` bytes of it so far.
    Checksum { have: u8, bytes: [u8; 4] },
    /// The frame has ended (with the checksum it stored, if it has one).
    Done { checksum: Option<u32> },
}

/// Follows the blocks of one frame as its bytes (after the frame header) go by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockWalker {
    stage: Stage,
    max_block: u64,
    has_checksum: bool,
}

fn corrupt(reason: &'static str) -> DecodeError {
    DecodeError::Corrupt {
        codec: CodecName::Zstd,
        reason,
    }
}

impl BlockWalker {
    /// A walk over the blocks that follow `header`.
    pub fn new(header: &FrameHeader) -> Self {
        Self {
            stage: Stage::BlockHeader {
                have: 0,
                bytes: [0; 3],
            },
            max_block: header.window_size.min(MAX_BLOCK_SIZE),
            has_checksum: header.has_checksum,
        }
    }

    /// Whether the frame (its last block and checksum) has been seen whole.
    pub fn is_done(&self) -> bool {
        matches!(self.stage, Stage::Done { .. })
    }

    /// The content checksum the frame stores (the low 32 bits of the XXH64 of its content),
    /// once the walk has passed it; `None` before, or if the frame has none.
    pub fn stored_checksum(&self) -> Option<u32> {
        match self.stage {
            Stage::Done { checksum } => checksum,
            _ => None,
        }
    }

    /// Walks over `input`, the frame's next bytes; returns how many belong to the frame (fewer
    /// than `input.len()` only when the frame ended inside it).
    ///
    /// # Errors
    /// [`DecodeError::Corrupt`] for a reserved block type, an empty compressed block, or a
    /// block larger than the frame allows.
    pub fn walk(&mut self, input: &[u8]) -> Result<usize, DecodeError> {
        self.walk_some(input, false)
    }

    /// As [`BlockWalker::walk`], but stops where the first block that ends in `input` ends
    /// (or the checksum, if the walk is in it): a decoder fed no further than that can only
    /// have failed inside that block.
    ///
    /// # Errors
    /// As [`BlockWalker::walk`].
    pub fn walk_block(&mut self, input: &[u8]) -> Result<usize, DecodeError> {
        self.walk_some(input, true)
    }

    fn walk_some(&mut self, input: &[u8], one_block: bool) -> Result<usize, DecodeError> {
        let mut at = 0;
        while at < input.len() {
            if one_block && at > 0 && matches!(self.stage, Stage::BlockHeader { have: 0, .. }) {
                break;
            }
            match &mut self.stage {
                Stage::BlockHeader { have, bytes } => {
                    if let (Some(slot), Some(&b)) =
                        (bytes.get_mut(usize::from(*have)), input.get(at))
                    {
                        *slot = b;
                    }
                    *have += 1;
                    at += 1;
                    if *have == 3 {
                        let bytes = *bytes;
                        self.stage = self.block(bytes)?;
                        if one_block && !matches!(self.stage, Stage::BlockContent { .. }) {
                            break; // an empty block, over
                        }
                    }
                }
                Stage::BlockContent { left, last, .. } => {
                    let take = usize::try_from(*left)
                        .unwrap_or(usize::MAX)
                        .min(input.len() - at);
                    at += take;
                    *left -= u32::try_from(take).unwrap_or(*left);
                    if *left == 0 {
                        let last = *last;
                        self.stage = self.after_block(last);
                        if one_block {
                            break;
                        }
                    }
                }
                Stage::Checksum { have, bytes } => {
                    if let (Some(slot), Some(&b)) =
                        (bytes.get_mut(usize::from(*have)), input.get(at))
                    {
                        *slot = b;
                    }
                    *have += 1;
                    at += 1;
                    if *have == 4 {
                        let checksum = Some(u32::from_le_bytes(*bytes));
                        self.stage = Stage::Done { checksum };
                    }
                }
                Stage::Done { .. } => break,
            }
        }
        Ok(at)
    }

    /// The stage after a block header.
    fn block(&self, header: [u8; 3]) -> Result<Stage, DecodeError> {
        let [a, b, c] = header;
        let value = u32::from(a) | (u32::from(b) << 8) | (u32::from(c) << 16);
        let last = value & 1 == 1;
        let size = value >> 3;
        let (stored, literal) = match (value >> 1) & 3 {
            0 => (size, true), // raw
            1 => (1, true),    // RLE: one byte, repeated `size` times
            2 if size == 0 => return Err(corrupt("empty compressed block")),
            2 => (size, false),
            _ => return Err(corrupt("reserved block type")),
        };
        // Both what the block stores (one byte for RLE) and what it decodes to.
        if u64::from(size.max(stored)) > self.max_block {
            return Err(corrupt("block larger than the frame allows"));
        }
        Ok(if stored == 0 {
            self.after_block(last)
        } else {
            Stage::BlockContent {
                left: stored,
                last,
                literal,
            }
        })
    }

    /// Whether the walk has passed the last block (it may be in the checksum after it).
    pub fn past_last_block(&self) -> bool {
        matches!(self.stage, Stage::Checksum { .. } | Stage::Done { .. })
    }

    /// Whether the walk is inside a raw or RLE block: its header has gone by, not all of its
    /// content. (The C library writes a raw block's content as it arrives; a decoder that
    /// gathers whole blocks first sees the block only once all of it is in.)
    pub fn in_literal_block(&self) -> bool {
        matches!(self.stage, Stage::BlockContent { literal: true, .. })
    }

    /// Walks `input` no further than the end of the current block's content; returns how much
    /// of it that was.
    pub fn walk_to_block_end(&mut self, input: &[u8]) -> usize {
        match self.stage {
            Stage::BlockContent { left, last, .. } => {
                let take = usize::try_from(left).unwrap_or(usize::MAX).min(input.len());
                let left = left - u32::try_from(take).unwrap_or(left);
                if left == 0 {
                    self.stage = self.after_block(last);
                } else if let Stage::BlockContent { left: l, .. } = &mut self.stage {
                    *l = left;
                }
                take
            }
            _ => 0,
        }
    }

    fn after_block(&self, last: bool) -> Stage {
        match (last, self.has_checksum) {
            (false, _) => Stage::BlockHeader {
                have: 0,
                bytes: [0; 3],
            },
            (true, true) => Stage::Checksum {
                have: 0,
                bytes: [0; 4],
            },
            (true, false) => Stage::Done { checksum: None },
        }
    }
}

/// The regenerated size of a compressed block's literals, from the literals section header at
/// the start of `content` (RFC 8878, section 3.1.1.3.1.1). A valid block's literals fit in the
/// block, so a caller refuses sizes above `min(window, 128 KiB)` before a decoder reserves
/// them (ruzstd 0.9 does not, for blocks without sequences: a 20-bit size, up to 1 MiB, from a
/// few bytes; found by the `decode_zstd` fuzz target).
///
/// # Errors
/// [`DecodeError::Truncated`] if `content` is shorter than the header.
pub fn literals_size(content: &[u8]) -> Result<u32, DecodeError> {
    let byte = |i: usize| {
        content
            .get(i)
            .map(|&b| u32::from(b))
            .ok_or(DecodeError::Truncated {
                codec: CodecName::Zstd,
            })
    };
    let b0 = byte(0)?;
    let size_format = (b0 >> 2) & 3;
    Ok(match (b0 & 3, size_format) {
        // Raw or RLE literals.
        (0 | 1, 0 | 2) => b0 >> 3,
        (0 | 1, 1) => (b0 >> 4) | (byte(1)? << 4),
        (0 | 1, _) => (b0 >> 4) | (byte(1)? << 4) | (byte(2)? << 12),
        // Compressed or treeless literals.
        (_, 0 | 1) => (b0 >> 4) | ((byte(1)? & 0x3f) << 4),
        (_, 2) => (b0 >> 4) | (byte(1)? << 4) | ((byte(2)? & 0x03) << 12),
        (_, _) => (b0 >> 4) | (byte(1)? << 4) | ((byte(2)? & 0x3f) << 12),
    })
}

/// The Symbol_Compression_Modes byte of a compressed block's sequences section (RFC 8878,
/// section 3.1.1.3.2.1), if the block's `content` holds one: after the literals section and
/// the sequence count, when that count is not zero. `None` if the sections are cut short or
/// there are no sequences.
pub fn sequence_modes(content: &[u8]) -> Option<u8> {
    let (count, modes_at) = sequences_header(content)?;
    if count == 0 {
        return None;
    }
    content.get(modes_at).copied()
}

/// The number of sequences of a compressed block's sequences section (RFC 8878, section
/// 3.1.1.3.2.1), if the block's `content` holds its header. A block of none decodes to its
/// literals alone.
pub fn sequence_count(content: &[u8]) -> Option<usize> {
    sequences_header(content).map(|(count, _)| count)
}

/// (sequence count, where the modes byte would be), from a compressed block's `content`.
fn sequences_header(content: &[u8]) -> Option<(usize, usize)> {
    let byte = |i: usize| content.get(i).map(|&b| usize::from(b));
    let b0 = byte(0)?;
    let size_format = (b0 >> 2) & 3;
    // The literals section: its header, then its content.
    let section = match (b0 & 3, size_format) {
        (kind @ (0 | 1), 0 | 2) => 1 + if kind == 0 { b0 >> 3 } else { 1 },
        (kind @ (0 | 1), 1) => {
            2 + if kind == 0 {
                (b0 >> 4) | (byte(1)? << 4)
            } else {
                1
            }
        }
        (kind @ (0 | 1), _) => {
            3 + if kind == 0 {
                (b0 >> 4) | (byte(1)? << 4) | (byte(2)? << 12)
            } else {
                1
            }
        }
        (_, 0 | 1) => 3 + ((byte(1)? >> 6) | (byte(2)? << 2)),
        (_, 2) => 4 + ((byte(2)? >> 2) | (byte(3)? << 6)),
        (_, _) => 5 + ((byte(2)? >> 6) | (byte(3)? << 2) | (byte(4)? << 10)),
    };
    let b = byte(section)?;
    Some(match b {
        0..128 => (b, section + 1),
        128..255 => (((b - 128) << 8) + byte(section + 1)?, section + 2),
        _ => (
            byte(section + 1)? + (byte(section + 2)? << 8) + 0x7F00,
            section + 3,
        ),
    })
}
