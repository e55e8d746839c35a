//! The codec chain of a chunk, built from metadata and validated.

use super::bytes::Endian;
use super::shard::{IndexLocation, ShardLayout};
use super::{ChainError, CodecName};
use crate::MemoryOrder;
use crate::shape::{Dims, dims};

/// Most nested `sharding_indexed` levels a chain may hold (the outer chunk counts as one).
pub const MAX_LEVELS: usize = 4;
/// Most `crc32c` codecs in one level.
pub const MAX_CRC32C: usize = 4;

/// One codec as metadata lists it, with its configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
#[allow(clippy::large_enum_variant)] // built once per array; boxing would need `alloc`
pub enum Codec {
    /// `transpose` with its `order`.
    Transpose(MemoryOrder),
    /// `bytes` with its `endian` (may be absent for one-byte elements).
    Bytes(Option<Endian>),
    /// `sharding_indexed`; its inner codecs come as a separate [`CodecChain`].
    ShardingIndexed {
        /// Shape of the inner chunks.
        chunk_shape: Dims,
        /// Where the index sits.
        index_location: IndexLocation,
        /// Whether the index codecs end in `crc32c` (they must otherwise be `bytes` little).
        index_crc32c: bool,
    },
    /// `crc32c`.
    Crc32c,
    /// `gzip` (any level).
    Gzip,
    /// `zlib` (any level).
    Zlib,
    /// `zstd` (any level).
    Zstd,
}

/// A bytes-to-bytes compressor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compressor {
    /// RFC 1952.
    Gzip,
    /// RFC 1950.
    Zlib,
    /// RFC 8878.
    Zstd,
}

impl Compressor {
    /// Its codec name.
    pub fn name(self) -> CodecName {
        match self {
            Self::Gzip => CodecName::Gzip,
            Self::Zlib => CodecName::Zlib,
            Self::Zstd => CodecName::Zstd,
        }
    }
}

/// How many `crc32c` codecs follow a compressor: 0 to [`MAX_CRC32C`], and nothing else (a
/// decoder keeps room for that many checksums, so a larger count cannot be made).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Crc32cCount(u8);

impl Crc32cCount {
    /// No checksum.
    pub const NONE: Self = Self(0);
    /// One checksum.
    pub const ONE: Self = Self(1);

    /// `n` checksums, if `n` is at most [`MAX_CRC32C`].
    pub const fn new(n: usize) -> Option<Self> {
        if n <= MAX_CRC32C {
            // At most MAX_CRC32C (4): fits a u8.
            #[allow(clippy::cast_possible_truncation)]
            Some(Self(n as u8))
        } else {
            None
        }
    }

    /// The count.
    pub const fn get(self) -> usize {
        self.0 as usize
    }

    /// One more, if that is at most [`MAX_CRC32C`].
    pub const fn plus_one(self) -> Option<Self> {
        Self::new(self.get() + 1)
    }
}

/// The bytes-to-bytes part of a level: at most one compressor, then `crc32c` checksums.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BytesCodecs {
    /// The compressor, if any.
    pub compressor: Option<Compressor>,
    /// How many `crc32c` codecs follow it (outermost last).
    pub crc32c: Crc32cCount,
}

/// How a level turns bytes into its chunk's elements.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(clippy::large_enum_variant)] // built once per array; boxing would need `alloc`
pub enum ArrayToBytes {
    /// `bytes`: elements stored in the given byte order (`None` for one-byte elements).
    Bytes(Option<Endian>),
    /// `sharding_indexed`: inner chunks with an index; the next level decodes them.
    Sharding(ShardLayout),
}

/// One level of a chain: the chunk it decodes, its memory order, how it stores elements, and
/// the bytes-to-bytes codecs around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainLevel {
    /// Shape of the chunk this level decodes (for the outer level, the stored chunk).
    pub chunk_shape: Dims,
    /// Memory order of the decoded chunk (the composition of its `transpose` codecs).
    pub order: MemoryOrder,
    /// The array-to-bytes codec.
    pub array_to_bytes: ArrayToBytes,
    /// The bytes-to-bytes codecs.
    pub bytes_codecs: BytesCodecs,
}

/// A validated codec chain: one level, or several for (nested) sharding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodecChain {
    levels: heapless::Vec<ChainLevel, MAX_LEVELS>,
}

impl CodecChain {
    /// Validates `codecs` (in metadata order) for chunks of `chunk_shape` with `elem_size`-byte
    /// elements. If the chain contains `sharding_indexed`, `inner` is the chain of its inner
    /// codecs, built for the inner chunk shape.
    ///
    /// # Errors
    /// [`ChainError`] naming the offending codec: out of place, missing, two compressors,
    /// `crc32c` before a compressor, `transpose` before sharding, too deep nesting, a shard not
    /// divisible by its inner chunks, or dimensions that disagree.
    pub fn new(
        chunk_shape: &[u64],
        elem_size: usize,
        codecs: &[Codec],
        inner: Option<CodecChain>,
    ) -> Result<Self, ChainError> {
        let ndim = chunk_shape.len();
        let mut order = MemoryOrder::c(ndim)?;
        let mut a2b: Option<ArrayToBytes> = None;
        let mut b2b = BytesCodecs::default();
        let mut inner = inner;
        let mut inner_levels = None;
        for codec in codecs {
            match codec {
                Codec::Transpose(t) => {
                    if a2b.is_some() {
                        return Err(ChainError::Misplaced {
                            codec: CodecName::Transpose,
                        });
                    }
                    order = order.then(t)?;
                }
                Codec::Bytes(endian) => {
                    if a2b.is_some() {
                        return Err(ChainError::Misplaced {
                            codec: CodecName::Bytes,
                        });
                    }
                    if endian.is_none() && elem_size > 1 {
                        return Err(ChainError::MissingEndian { elem_size });
                    }
                    a2b = Some(ArrayToBytes::Bytes(*endian));
                }
                Codec::ShardingIndexed {
                    chunk_shape: inner_shape,
                    index_location,
                    index_crc32c,
                } => {
                    let codec = CodecName::ShardingIndexed;
                    if a2b.is_some() {
                        return Err(ChainError::Misplaced { codec });
                    }
                    if !order.is_c() {
                        return Err(ChainError::Unsupported {
                            codec: CodecName::Transpose,
                            what: "transpose before sharding_indexed",
                        });
                    }
                    let layout =
                        ShardLayout::new(chunk_shape, inner_shape, *index_location, *index_crc32c)?;
                    for (dim, (&shard, &inner)) in chunk_shape.iter().zip(inner_shape).enumerate() {
                        if shard % inner != 0 {
                            return Err(ChainError::ShardNotDivisible { dim, shard, inner });
                        }
                    }
                    let Some(chain) = inner.take() else {
                        return Err(ChainError::Unsupported {
                            codec,
                            what: "sharding without inner codecs",
                        });
                    };
                    if chain.outer().chunk_shape.as_slice() != inner_shape.as_slice() {
                        return Err(ChainError::Layout(crate::LayoutError::DimsMismatch {
                            expected: inner_shape.len(),
                            got: chain.outer().chunk_shape.len(),
                        }));
                    }
                    inner_levels = Some(chain.levels);
                    a2b = Some(ArrayToBytes::Sharding(layout));
                }
                Codec::Crc32c => {
                    if a2b.is_none() {
                        return Err(ChainError::Misplaced {
                            codec: CodecName::Crc32c,
                        });
                    }
                    b2b.crc32c = b2b.crc32c.plus_one().ok_or(ChainError::TooMany {
                        codec: CodecName::Crc32c,
                    })?;
                }
                Codec::Gzip | Codec::Zlib | Codec::Zstd => {
                    let c = match codec {
                        Codec::Gzip => Compressor::Gzip,
                        Codec::Zlib => Compressor::Zlib,
                        _ => Compressor::Zstd,
                    };
                    if a2b.is_none() {
                        return Err(ChainError::Misplaced { codec: c.name() });
                    }
                    if b2b.compressor.is_some() {
                        return Err(ChainError::Unsupported {
                            codec: c.name(),
                            what: "two compressors in one chain",
                        });
                    }
                    if b2b.crc32c != Crc32cCount::NONE {
                        return Err(ChainError::Unsupported {
                            codec: CodecName::Crc32c,
                            what: "crc32c before a compressor",
                        });
                    }
                    b2b.compressor = Some(c);
                }
            }
        }
        let array_to_bytes = a2b.ok_or(ChainError::MissingArrayToBytes)?;
        let mut levels = heapless::Vec::new();
        let too_deep = ChainError::TooMany {
            codec: CodecName::ShardingIndexed,
        };
        levels
            .push(ChainLevel {
                chunk_shape: dims(chunk_shape)?,
                order,
                array_to_bytes,
                bytes_codecs: b2b,
            })
            .map_err(|_| too_deep)?;
        for level in inner_levels.into_iter().flatten() {
            levels.push(level).map_err(|_| too_deep)?;
        }
        Ok(Self { levels })
    }

    /// The levels, outermost (the stored chunk) first.
    pub fn levels(&self) -> &[ChainLevel] {
        &self.levels
    }

    /// The outermost level: how the stored chunk is encoded.
    pub fn outer(&self) -> &ChainLevel {
        // A chain always has at least one level (`new` pushes it before returning).
        &self.levels[0]
    }

    /// The innermost level: where the elements are.
    pub fn innermost(&self) -> &ChainLevel {
        self.levels.last().unwrap_or(self.outer())
    }
}
