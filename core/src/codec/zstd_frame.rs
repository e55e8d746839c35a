//! The zstd frame header (RFC 8878, section 3.1.1.1), parsed without allocating.
//!
//! A caller sizing a buffer for a variable-length chunk reads the content size here before
//! decoding anything; the decoder reads the window size here to refuse huge windows before it
//! allocates.

use super::{CodecName, DecodeError};

/// Magic number opening every zstd frame.
pub const ZSTD_MAGIC: u32 = 0xFD2F_B528;

/// The largest window a frame may declare, in bytes: 2^31, the most the reference library
/// accepts on 64-bit targets (`ZSTD_WINDOWLOG_MAX`). The RFC allows declaring more, but no
/// encoder writes it, and every backend refuses it with [`DecodeError::WindowTooLarge`] so that
/// they agree (the C library cannot be told to accept more).
pub const MAX_DECLARED_WINDOW: u64 = 1 << 31;

/// The longest a frame header can be: magic 4, descriptor 1, window 1, dictionary 4, size 8.
pub const MAX_FRAME_HEADER_LEN: usize = 18;

/// What a zstd frame header declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameHeader {
    /// Decompressed size, when the frame states it.
    pub content_size: Option<u64>,
    /// Window size in bytes: the history the decoder must keep (for single-segment frames,
    /// the content size).
    pub window_size: u64,
    /// Whether the frame is one segment: no window descriptor; the window is the content size.
    pub single_segment: bool,
    /// Whether a 4-byte XXH64-derived checksum follows the last block.
    pub has_checksum: bool,
    /// Dictionary id, if the frame needs one.
    pub dictionary_id: Option<u32>,
    /// Length of the header in bytes, magic number included.
    pub header_len: usize,
}

fn corrupt(reason: &'static str) -> DecodeError {
    DecodeError::Corrupt {
        codec: CodecName::Zstd,
        reason,
    }
}

fn le(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .rev()
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
}

impl FrameHeader {
    /// Parses the frame header at the start of `input`.
    ///
    /// Returns `Ok(None)` if `input` is shorter than the header (feed more and try again).
    ///
    /// # Errors
    /// [`DecodeError::Corrupt`] for a wrong magic number (skippable frames included: a Zarr
    /// chunk is one zstd frame) or a reserved bit set.
    pub fn parse(input: &[u8]) -> Result<Option<FrameHeader>, DecodeError> {
        // The magic number's bytes are checked as they arrive, as the C library does: a
        // stream that cannot become a frame is refused now, not reported truncated later.
        let magic = ZSTD_MAGIC.to_le_bytes();
        if input.iter().zip(magic).any(|(&a, b)| a != b) {
            return Err(corrupt("not a zstd frame (bad magic number)"));
        }
        if input.len() < magic.len() {
            return Ok(None);
        }
        let Some(&fhd) = input.get(4) else {
            return Ok(None);
        };
        if fhd & 0x08 != 0 {
            return Err(corrupt("reserved bit set in frame header descriptor"));
        }
        let fcs_flag = fhd >> 6;
        let single_segment = fhd & 0x20 != 0;
        let has_checksum = fhd & 0x04 != 0;
        let dict_len = match fhd & 0x03 {
            0 => 0,
            1 => 1,
            2 => 2,
            _ => 4,
        };
        let fcs_len = match (fcs_flag, single_segment) {
            (0, false) => 0,
            (0, true) => 1,
            (1, _) => 2,
            (2, _) => 4,
            _ => 8,
        };
        let window_len = usize::from(!single_segment);
        let header_len = 5 + window_len + dict_len + fcs_len;
        let Some(rest) = input.get(5..header_len) else {
            return Ok(None);
        };
        let (window_byte, rest) = rest.split_at(window_len);
        let (dict, fcs) = rest.split_at(dict_len);
        let dictionary_id = match le(dict) {
            0 => None,
            // At most four bytes were read.
            id => Some(u32::try_from(id).map_err(|_| corrupt("dictionary id"))?),
        };
        let content_size = match fcs_len {
            0 => None,
            2 => Some(le(fcs) + 256),
            _ => Some(le(fcs)),
        };
        let window_size = match (window_byte.first(), content_size) {
            (Some(&w), _) => {
                let exponent = u32::from(w >> 3);
                let mantissa = u64::from(w & 7);
                let base = 1u64 << (10 + exponent); // at most 2^41
                base + (base / 8) * mantissa
            }
            // A single-segment frame's window is its content size, which it always declares.
            (None, Some(size)) => size,
            (None, None) => return Err(corrupt("single-segment frame without a content size")),
        };
        Ok(Some(FrameHeader {
            content_size,
            window_size,
            single_segment,
            has_checksum,
            dictionary_id,
            header_len,
        }))
    }
}

impl FrameHeader {
    /// Checks, before decoding, that this frame can be decoded into a destination of
    /// `capacity` bytes: no dictionary needed, no declared content size above `capacity`, and no
    /// declared window above [`MAX_DECLARED_WINDOW`]. Every zstd backend calls this first, so a
    /// frame they refuse is refused with the same error.
    ///
    /// # Errors
    /// [`DecodeError::Unsupported`] for a dictionary, [`DecodeError::OutputOverflow`] for a
    /// content size larger than `capacity`, [`DecodeError::WindowTooLarge`] for a window above
    /// [`MAX_DECLARED_WINDOW`].
    pub fn check_destination(&self, capacity: u64) -> Result<(), DecodeError> {
        if self.dictionary_id.is_some() {
            return Err(DecodeError::Unsupported {
                codec: CodecName::Zstd,
                what: "frames that need a dictionary",
            });
        }
        if self.content_size.is_some_and(|size| size > capacity) {
            return Err(DecodeError::OutputOverflow {
                codec: CodecName::Zstd,
                capacity,
            });
        }
        if self.window_size > MAX_DECLARED_WINDOW {
            return Err(DecodeError::WindowTooLarge {
                window: self.window_size,
                cap: MAX_DECLARED_WINDOW,
            });
        }
        Ok(())
    }
}
