//! The `sharding_indexed` index: where each inner chunk sits in a shard.
//!
//! The index is `(offset, nbytes)` pairs of little-endian `u64`, one per inner chunk in C order,
//! optionally followed by a CRC-32C; `(u64::MAX, u64::MAX)` marks an inner chunk that was never
//! written. It sits at the start or the end of the shard. Every entry is validated against the
//! shard's length when the index is parsed, so a lookup can only return a range inside the shard.

use core::fmt;

use super::crc::{CRC32C, checksum};
use crate::{ChunkGrid, LayoutError};

/// Where the index sits in the shard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexLocation {
    /// First bytes of the shard.
    Start,
    /// Last bytes of the shard (zarr-python's default).
    End,
}

/// A byte range inside a shard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteRange {
    /// First byte, from the start of the shard.
    pub offset: u64,
    /// Length in bytes.
    pub len: u64,
}

/// Why a shard index was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShardError {
    /// The shard is shorter than its index.
    ShardTooSmall {
        /// Length of the shard.
        shard_len: u64,
        /// Length the index needs.
        index_len: u64,
    },
    /// The index bytes given are not the index's length.
    IndexSize {
        /// Expected length.
        expected: u64,
        /// Length given.
        got: u64,
    },
    /// The index's CRC-32C does not match.
    IndexChecksum {
        /// Checksum stored after the index.
        expected: u32,
        /// Checksum of the index.
        found: u32,
    },
    /// An entry points outside the shard.
    EntryOutOfShard {
        /// C-order index of the inner chunk.
        chunk: u64,
        /// Its offset.
        offset: u64,
        /// Its length.
        nbytes: u64,
        /// Length of the shard.
        shard_len: u64,
    },
    /// The entries together cover more bytes than the shard holds: some overlap (a shard
    /// being rewritten is refused so, rather than copied entry by entry many times over).
    EntriesOverlap {
        /// Bytes the entries cover, added up.
        covered: u64,
        /// Length of the shard.
        shard_len: u64,
    },
    /// Shapes or coordinates that do not fit the shard's grid.
    Layout(LayoutError),
}

impl From<LayoutError> for ShardError {
    fn from(e: LayoutError) -> Self {
        Self::Layout(e)
    }
}

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::ShardTooSmall {
                shard_len,
                index_len,
            } => write!(
                f,
                "shard of {shard_len} bytes is shorter than its {index_len}-byte index"
            ),
            Self::IndexSize { expected, got } => {
                write!(f, "shard index is {got} bytes, expected {expected}")
            }
            Self::IndexChecksum { expected, found } => write!(
                f,
                "shard index checksum mismatch, stored {expected:#010x}, computed {found:#010x}"
            ),
            Self::EntryOutOfShard {
                chunk,
                offset,
                nbytes,
                shard_len,
            } => write!(
                f,
                "index entry {chunk} (offset {offset}, {nbytes} bytes) lies outside the {shard_len}-byte shard"
            ),
            Self::EntriesOverlap { covered, shard_len } => write!(
                f,
                "index entries cover {covered} bytes of a {shard_len}-byte shard: they overlap"
            ),
            Self::Layout(e) => write!(f, "{e}"),
        }
    }
}

impl core::error::Error for ShardError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::Layout(e) => Some(e),
            _ => None,
        }
    }
}

/// The shape of a sharded chunk: inner chunks per shard and how the index is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardLayout {
    grid: ChunkGrid,
    location: IndexLocation,
    index_crc32c: bool,
    index_len: u64,
}

const ENTRY: u64 = 16;

impl ShardLayout {
    /// A shard of `shard_shape` holding inner chunks of `inner_shape`.
    ///
    /// # Errors
    /// [`LayoutError`] for mismatched or zero shapes, or an index size that overflows.
    pub fn new(
        shard_shape: &[u64],
        inner_shape: &[u64],
        location: IndexLocation,
        index_crc32c: bool,
    ) -> Result<Self, LayoutError> {
        let grid = ChunkGrid::new(shard_shape, inner_shape)?;
        let index_len = grid
            .num_chunks()
            .checked_mul(ENTRY)
            .and_then(|n| n.checked_add(if index_crc32c { 4 } else { 0 }))
            .ok_or(LayoutError::Overflow)?;
        Ok(Self {
            grid,
            location,
            index_crc32c,
            index_len,
        })
    }

    /// The same layout for a shard of `shard_shape` (on a rectilinear grid each shard has its
    /// own shape, its inner chunks and index the metadata's): `self` again when the shapes
    /// agree.
    ///
    /// # Errors
    /// [`LayoutError`] as for [`Self::new`].
    pub fn for_shard(&self, shard_shape: &[u64]) -> Result<Self, LayoutError> {
        if shard_shape == self.grid.array_shape() {
            return Ok(self.clone());
        }
        Self::new(
            shard_shape,
            self.grid.chunk_shape(),
            self.location,
            self.index_crc32c,
        )
    }

    /// Whether the index ends in a CRC-32C of its entries (its codecs end in `crc32c`).
    pub fn index_crc32c(&self) -> bool {
        self.index_crc32c
    }

    /// The grid of inner chunks inside one shard.
    pub fn grid(&self) -> &ChunkGrid {
        &self.grid
    }

    /// Inner chunks per shard along each dimension.
    pub fn chunks_per_shard(&self) -> &[u64] {
        self.grid.grid_shape()
    }

    /// Where the index sits.
    pub fn location(&self) -> IndexLocation {
        self.location
    }

    /// Length of the index in bytes (checksum included).
    pub fn index_len(&self) -> u64 {
        self.index_len
    }

    /// Where the index is in a shard of `shard_len` bytes.
    ///
    /// # Errors
    /// [`ShardError::ShardTooSmall`] if the shard cannot hold the index.
    pub fn index_range(&self, shard_len: u64) -> Result<ByteRange, ShardError> {
        if shard_len < self.index_len {
            return Err(ShardError::ShardTooSmall {
                shard_len,
                index_len: self.index_len,
            });
        }
        let offset = match self.location {
            IndexLocation::Start => 0,
            IndexLocation::End => shard_len - self.index_len,
        };
        Ok(ByteRange {
            offset,
            len: self.index_len,
        })
    }

    /// Validates `index` (the bytes at [`Self::index_range`]) for a shard of `shard_len` bytes.
    ///
    /// # Errors
    /// [`ShardError::IndexSize`], [`ShardError::IndexChecksum`], or
    /// [`ShardError::EntryOutOfShard`] for the first entry that points outside the shard.
    pub fn parse<'a>(
        &'a self,
        index: &'a [u8],
        shard_len: u64,
    ) -> Result<ShardIndex<'a>, ShardError> {
        self.index_range(shard_len)?;
        if index.len() as u64 != self.index_len {
            return Err(ShardError::IndexSize {
                expected: self.index_len,
                got: index.len() as u64,
            });
        }
        let entries_len = index.len() - if self.index_crc32c { 4 } else { 0 };
        let (entries, crc) = index.split_at(entries_len);
        if let [a, b, c, d] = *crc {
            let expected = u32::from_le_bytes([a, b, c, d]);
            let found = checksum(&CRC32C, entries);
            if expected != found {
                return Err(ShardError::IndexChecksum { expected, found });
            }
        }
        let parsed = ShardIndex {
            layout: self,
            entries,
        };
        for (chunk, entry) in parsed.raw_entries().enumerate() {
            let (offset, nbytes) = entry;
            if offset == u64::MAX && nbytes == u64::MAX {
                continue;
            }
            let end = offset.checked_add(nbytes);
            if end.is_none_or(|e| e > shard_len) {
                return Err(ShardError::EntryOutOfShard {
                    chunk: chunk as u64,
                    offset,
                    nbytes,
                    shard_len,
                });
            }
        }
        Ok(parsed)
    }
}

/// A validated shard index: every entry lies inside the shard.
#[derive(Debug, Clone, Copy)]
pub struct ShardIndex<'a> {
    layout: &'a ShardLayout,
    entries: &'a [u8],
}

impl ShardIndex<'_> {
    fn raw_entries(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.entries.chunks_exact(16).map(|e| {
            let mut off = [0u8; 8];
            let mut len = [0u8; 8];
            off.copy_from_slice(e.get(..8).unwrap_or(&[0; 8]));
            len.copy_from_slice(e.get(8..).unwrap_or(&[0; 8]));
            (u64::from_le_bytes(off), u64::from_le_bytes(len))
        })
    }

    /// The byte range of the inner chunk at C-order index `chunk`, or `None` if it is empty.
    ///
    /// # Errors
    /// [`ShardError::Layout`] if `chunk` is outside the shard's grid.
    pub fn get_linear(&self, chunk: u64) -> Result<Option<ByteRange>, ShardError> {
        let count = self.layout.grid.num_chunks();
        let out_of_grid = ShardError::Layout(LayoutError::ChunkOutOfGrid {
            dim: 0,
            index: chunk,
            count,
        });
        let i = usize::try_from(chunk).map_err(|_| out_of_grid)?;
        let e = self
            .entries
            .get(i.saturating_mul(16)..)
            .and_then(|e| e.get(..16))
            .ok_or(out_of_grid)?;
        let mut off = [0u8; 8];
        let mut len = [0u8; 8];
        off.copy_from_slice(e.get(..8).ok_or(out_of_grid)?);
        len.copy_from_slice(e.get(8..).ok_or(out_of_grid)?);
        let (offset, len) = (u64::from_le_bytes(off), u64::from_le_bytes(len));
        if offset == u64::MAX && len == u64::MAX {
            Ok(None)
        } else {
            Ok(Some(ByteRange { offset, len }))
        }
    }

    /// The byte range of the inner chunk at `coords` (inner-chunk coordinates within the shard).
    ///
    /// # Errors
    /// [`ShardError::Layout`] if `coords` are outside the shard's grid.
    pub fn get(&self, coords: &[u64]) -> Result<Option<ByteRange>, ShardError> {
        self.get_linear(self.layout.grid.linear_index(coords)?)
    }

    /// Number of inner chunks that hold data.
    pub fn present(&self) -> u64 {
        self.raw_entries()
            .filter(|&(o, n)| !(o == u64::MAX && n == u64::MAX))
            .count() as u64
    }

    /// Bytes the present entries cover, added up (saturating): more than the shard holds
    /// means some overlap.
    pub fn covered(&self) -> u64 {
        self.raw_entries()
            .filter(|&(o, n)| !(o == u64::MAX && n == u64::MAX))
            .fold(0u64, |sum, (_, n)| sum.saturating_add(n))
    }
}
