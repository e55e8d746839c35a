//! The 16-byte header of a Blosc chunk (c-blosc 1.x format version 2), validated field by field.
//!
//! Layout (all sizes little-endian):
//!
//! | bytes | field | rule here |
//! |---|---|---|
//! | 0 | format version | 2 (what c-blosc 1.x writes and reads) |
//! | 1 | inner compressor format version | 1 for every inner compressor |
//! | 2 | flags | bit 0 byte shuffle, bit 1 memcpyed, bit 2 bit shuffle, bit 3 reserved (must be 0), bit 4 blocks not split, bits 5-7 inner compressor |
//! | 3 | typesize | 1 to 255 |
//! | 4..8 | nbytes, the decoded size | the size the caller expects |
//! | 8..12 | blocksize | 1 to nbytes (any value when nbytes is 0) |
//! | 12..16 | cbytes, the stream's size | at most the stored length (bytes after it are ignored, as c-blosc does) |
//!
//! Then, unless memcpyed, a table of `nblocks` little-endian `i32` block starts, and the blocks.

use crate::codec::{CodecName, DecodeError};

/// Length of the header.
pub const HEADER_LEN: usize = 16;
/// The one format version c-blosc 1.x writes and reads.
pub const FORMAT_VERSION: u8 = 2;
/// The inner compressors' format version (1 for all of them in c-blosc 1.x).
pub const INNER_FORMAT_VERSION: u8 = 1;
/// Largest block c-blosc handles: `(i32::MAX - 255 * 4) / 3`.
pub const MAX_BLOCKSIZE: u32 = (i32::MAX as u32 - 255 * 4) / 3;
/// Most splits (streams) a block may have: c-blosc splits only for typesize up to 16.
pub const MAX_SPLITS: u32 = 16;
/// c-blosc splits a block only if it holds at least this many elements.
const MIN_SPLIT_ELEMENTS: u32 = 128;

const DOSHUFFLE: u8 = 0x01;
const MEMCPYED: u8 = 0x02;
const DOBITSHUFFLE: u8 = 0x04;
const RESERVED: u8 = 0x08;
const DONT_SPLIT: u8 = 0x10;

/// How a block's bytes were rearranged before compression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShuffleMode {
    /// Not at all.
    None,
    /// Byte shuffle: byte `j` of every element together.
    Byte,
    /// Bit shuffle: bit `i` of byte `j` of every element together.
    Bit,
}

/// The compressor inside a Blosc chunk, from the flags' top three bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InnerCodec {
    /// BloscLZ (code 0).
    BloscLz,
    /// LZ4 and LZ4HC (code 1; same block format).
    Lz4,
    /// Snappy (code 2): its raw format ([`snappy`](crate::codec::snappy)).
    Snappy,
    /// zlib (code 3): an RFC 1950 stream per split.
    Zlib,
    /// zstd (code 4): a zstd frame per split.
    Zstd,
}

impl InnerCodec {
    /// The codec that decodes its streams.
    pub fn codec(self) -> CodecName {
        match self {
            Self::BloscLz => CodecName::BloscLz,
            Self::Lz4 => CodecName::Lz4,
            Self::Snappy => CodecName::Snappy,
            Self::Zlib => CodecName::Zlib,
            Self::Zstd => CodecName::Zstd,
        }
    }
}

/// The sizes of a chunk being written ([`BloscHeader::written`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WrittenSizes {
    /// Bytes per element (1-255).
    pub typesize: u8,
    /// Decoded size.
    pub nbytes: u32,
    /// Block size.
    pub blocksize: u32,
    /// Stored size, header included.
    pub cbytes: u32,
}

/// A parsed, validated Blosc header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BloscHeader {
    /// The flags byte.
    pub flags: u8,
    /// Bytes per element (1-255).
    pub typesize: u8,
    /// Decoded size.
    pub nbytes: u32,
    /// Block size.
    pub blocksize: u32,
    /// Stored size, header included.
    pub cbytes: u32,
}

fn field(field: &'static str, value: u64, rule: &'static str) -> DecodeError {
    DecodeError::InvalidField {
        codec: CodecName::Blosc,
        field,
        value,
        rule,
    }
}

fn le32(b: &[u8; HEADER_LEN], at: usize) -> u32 {
    let mut w = [0u8; 4];
    if let Some(src) = b.get(at..at + 4) {
        w.copy_from_slice(src);
    }
    u32::from_le_bytes(w)
}

impl BloscHeader {
    /// Parses and validates a header for a chunk of `stored_len` bytes that must decode to
    /// `decoded_len` bytes. Every field is checked before anything is sized from it.
    ///
    /// # Errors
    /// [`DecodeError::InvalidField`] naming the field and its value; [`DecodeError::SizeMismatch`]
    /// if `nbytes` is not `decoded_len`; [`DecodeError::StoredSizeMismatch`] if `cbytes` is more
    /// than `stored_len` (less is a stream with bytes after it, which are ignored);
    /// [`DecodeError::InvalidField`] for an unknown inner compressor.
    pub fn parse(
        b: &[u8; HEADER_LEN],
        stored_len: u64,
        decoded_len: u64,
    ) -> Result<Self, DecodeError> {
        let [version, inner_version, flags, typesize, ..] = *b;
        if version != FORMAT_VERSION {
            return Err(field(
                "format version",
                version.into(),
                "is not 2 (c-blosc 1.x)",
            ));
        }
        let h = Self {
            flags,
            typesize,
            nbytes: le32(b, 4),
            blocksize: le32(b, 8),
            cbytes: le32(b, 12),
        };
        if u64::from(h.nbytes) != decoded_len {
            return Err(DecodeError::SizeMismatch {
                codec: CodecName::Blosc,
                expected: decoded_len,
                got: h.nbytes.into(),
            });
        }
        // Bytes stored after the stream are ignored, as c-blosc ignores them (z5py's chunks
        // carry 16).
        if (h.cbytes as usize) < HEADER_LEN {
            return Err(field(
                "cbytes",
                h.cbytes.into(),
                "is less than the 16-byte header it counts",
            ));
        }
        if u64::from(h.cbytes) > stored_len {
            return Err(DecodeError::StoredSizeMismatch {
                codec: CodecName::Blosc,
                stated: h.cbytes.into(),
                stored: stored_len,
            });
        }
        if h.nbytes == 0 {
            // c-blosc stops here: an empty buffer is its header alone.
            return Ok(h);
        }
        h.check_fields()?;
        if h.memcpyed() {
            if u64::from(h.cbytes) != u64::from(h.nbytes) + HEADER_LEN as u64 {
                return Err(field(
                    "cbytes",
                    h.cbytes.into(),
                    "of a memcpyed chunk is not nbytes + 16",
                ));
            }
            return Ok(h);
        }
        h.check_compressed(inner_version)?;
        Ok(h)
    }

    /// The fields every chunk that holds bytes must have right: flags, typesize, blocksize.
    fn check_fields(&self) -> Result<(), DecodeError> {
        if self.flags & RESERVED != 0 {
            return Err(field(
                "flags",
                self.flags.into(),
                "has the reserved bit 0x08 set",
            ));
        }
        if self.typesize == 0 {
            return Err(field("typesize", 0, "must be 1 to 255"));
        }
        if self.blocksize == 0 || self.blocksize > self.nbytes.min(MAX_BLOCKSIZE) {
            return Err(field(
                "blocksize",
                self.blocksize.into(),
                "must be 1 to nbytes (and at most 715 827 540)",
            ));
        }
        Ok(())
    }

    /// What a compressed (not memcpyed) chunk must also have right: the inner format
    /// version, an inner compressor zinto decodes, room for the block table.
    fn check_compressed(&self, inner_version: u8) -> Result<(), DecodeError> {
        if inner_version != INNER_FORMAT_VERSION {
            return Err(field(
                "inner compressor version",
                inner_version.into(),
                "is not 1",
            ));
        }
        self.inner()?;
        let table_end = u64::from(self.nblocks()) * 4 + HEADER_LEN as u64;
        if table_end > u64::from(self.cbytes) {
            return Err(field(
                "cbytes",
                self.cbytes.into(),
                "cannot hold the header and the block table",
            ));
        }
        Ok(())
    }

    /// The header of a chunk written by zinto: format version 2, inner format 1, never split
    /// into streams (flag 0x10, which c-blosc 1.x decoders honour), shuffled as `shuffle`
    /// says, its blocks compressed by `inner`.
    pub fn written(shuffle: ShuffleMode, inner: InnerCodec, sizes: WrittenSizes) -> Self {
        let shuffle = match shuffle {
            ShuffleMode::None => 0,
            ShuffleMode::Byte => DOSHUFFLE,
            ShuffleMode::Bit => DOBITSHUFFLE,
        };
        let code: u8 = match inner {
            InnerCodec::BloscLz => 0,
            InnerCodec::Lz4 => 1,
            InnerCodec::Snappy => 2,
            InnerCodec::Zlib => 3,
            InnerCodec::Zstd => 4,
        };
        Self {
            flags: shuffle | DONT_SPLIT | code << 5,
            typesize: sizes.typesize,
            nbytes: sizes.nbytes,
            blocksize: sizes.blocksize,
            cbytes: sizes.cbytes,
        }
    }

    /// The header's 16 bytes: version, inner version, flags, typesize, then `nbytes`,
    /// `blocksize` and `cbytes` little endian.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0] = FORMAT_VERSION;
        b[1] = INNER_FORMAT_VERSION;
        b[2] = self.flags;
        b[3] = self.typesize;
        b[4..8].copy_from_slice(&self.nbytes.to_le_bytes());
        b[8..12].copy_from_slice(&self.blocksize.to_le_bytes());
        b[12..16].copy_from_slice(&self.cbytes.to_le_bytes());
        b
    }

    /// Whether the data follows the header as is.
    pub fn memcpyed(&self) -> bool {
        self.flags & MEMCPYED != 0
    }

    /// The inner compressor.
    ///
    /// # Errors
    /// [`DecodeError::InvalidField`] for codes 5 to 7.
    pub fn inner(&self) -> Result<InnerCodec, DecodeError> {
        match self.flags >> 5 {
            0 => Ok(InnerCodec::BloscLz),
            1 => Ok(InnerCodec::Lz4),
            2 => Ok(InnerCodec::Snappy),
            3 => Ok(InnerCodec::Zlib),
            4 => Ok(InnerCodec::Zstd),
            code => Err(field(
                "inner compressor code",
                code.into(),
                "is not one of 0 (blosclz), 1 (lz4), 2 (snappy), 3 (zlib), 4 (zstd)",
            )),
        }
    }

    /// How block `block_len` bytes long were shuffled (c-blosc's rules: byte shuffle only for
    /// typesize above 1, bit shuffle only for blocks at least one element long).
    pub fn shuffle(&self, block_len: u32) -> ShuffleMode {
        if self.flags & DOSHUFFLE != 0 && self.typesize > 1 {
            ShuffleMode::Byte
        } else if self.flags & DOBITSHUFFLE != 0 && block_len >= u32::from(self.typesize) {
            ShuffleMode::Bit
        } else {
            ShuffleMode::None
        }
    }

    /// Number of blocks (the last may be short).
    pub fn nblocks(&self) -> u32 {
        if self.blocksize == 0 {
            return 0;
        }
        self.nbytes / self.blocksize + u32::from(!self.nbytes.is_multiple_of(self.blocksize))
    }

    /// Length of block `j` (the last holds what is left over).
    pub fn block_len(&self, j: u32) -> u32 {
        let leftover = self.nbytes % self.blocksize.max(1);
        if j + 1 == self.nblocks() && leftover != 0 {
            leftover
        } else {
            self.blocksize
        }
    }

    /// Number of streams block `j` is split into: `typesize` when splitting applies (not
    /// disabled by flag 0x10, typesize at most 16, at least 128 elements, not the leftover
    /// block), else 1.
    pub fn streams(&self, j: u32) -> u32 {
        let ts = u32::from(self.typesize);
        let leftover = self.block_len(j) != self.blocksize;
        if self.flags & DONT_SPLIT == 0
            && ts <= MAX_SPLITS
            && self.blocksize / ts >= MIN_SPLIT_ELEMENTS
            && !leftover
        {
            ts
        } else {
            1
        }
    }
}
