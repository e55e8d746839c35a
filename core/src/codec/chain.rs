//! The codec chain of a chunk, built from metadata and validated.

use super::bytes::Endian;
use super::checksum::Location;
use super::registry::{ChecksumKind, Filter};
use super::shard::{IndexLocation, ShardLayout};
use super::{ChainError, CodecName, Compressor};
use crate::MemoryOrder;
use crate::shape::{Dims, dims};

/// Most nested `sharding_indexed` levels a chain may hold (the outer chunk counts as one).
pub const MAX_LEVELS: usize = 4;
/// Most checksum codecs in one level.
pub const MAX_CHECKSUMS: usize = 4;
/// Most filters (array-to-array codecs other than `transpose`) in one level.
pub const MAX_FILTERS: usize = 4;

/// The sizes [`ChainLevel::filter_lens`] gives: one before each filter and one after the last.
pub type FilterLens = heapless::Vec<usize, { MAX_FILTERS + 1 }>;

/// One codec as metadata lists it, with its configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
#[allow(clippy::large_enum_variant)] // built once per array; boxing would need `alloc`
pub enum Codec {
    /// `transpose` with its `order`.
    Transpose(MemoryOrder),
    /// A filter: an array-to-array codec (numcodecs `delta`, `astype`, ...), or numcodecs
    /// `shuffle`, wherever it is listed.
    Filter(Filter),
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
    /// A checksum (`crc32c`, numcodecs `crc32`, `adler32`, `fletcher32`).
    Checksum(ChecksumSpec),
    /// A compressor with its configuration.
    Compressor(Compressor),
}

/// A checksum codec: which checksum, and where its four bytes sit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChecksumSpec {
    /// The checksum.
    pub kind: ChecksumKind,
    /// Before or after the bytes it covers.
    pub location: Location,
}

impl ChecksumSpec {
    /// v3 `crc32c`: CRC-32C after the data.
    pub const CRC32C: Self = Self {
        kind: ChecksumKind::Crc32c,
        location: Location::End,
    };

    /// Its codec name.
    pub fn name(self) -> CodecName {
        self.kind.name()
    }

    /// The checksum `codec` with its `location` (numcodecs' default where absent; the v3
    /// `crc32c` codec has none and is always at the end), or `None` if `codec` is not one.
    ///
    /// # Errors
    /// [`ChainError::Config`] for a `location` other than `"start"` or `"end"`.
    pub fn from_config<C: super::Config + ?Sized>(
        codec: CodecName,
        config: &C,
    ) -> Result<Option<Self>, ChainError> {
        let Some(kind) = ChecksumKind::of(codec) else {
            return Ok(None);
        };
        let r = super::config::Reader { codec, config };
        let location = match r.str("location")? {
            None => kind.default_location(),
            Some(s) if kind.has_location_key() => Location::from_config(s)
                .ok_or(r.error("location", "is not \"start\" or \"end\""))?,
            Some(_) => return Err(r.error("location", "is not a setting of fletcher32")),
        };
        Ok(Some(Self { kind, location }))
    }
}

/// The checksums around a level's stored bytes, innermost (first applied when writing) first.
/// Each covers everything inside it: the payload and the checksums before it in this list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Checksums {
    list: [Option<ChecksumSpec>; MAX_CHECKSUMS],
}

impl Checksums {
    /// No checksum.
    pub const NONE: Self = Self {
        list: [None; MAX_CHECKSUMS],
    };

    /// One v3 `crc32c` checksum.
    pub const CRC32C: Self = {
        let mut list = [None; MAX_CHECKSUMS];
        list[0] = Some(ChecksumSpec::CRC32C);
        Self { list }
    };

    /// `n` v3 `crc32c` checksums, if `n` is at most [`MAX_CHECKSUMS`].
    pub fn crc32c(n: usize) -> Option<Self> {
        let mut c = Self::NONE;
        for _ in 0..n {
            c = c.with(ChecksumSpec::CRC32C)?;
        }
        Some(c)
    }

    /// These checksums and one more outside them, if there is room.
    pub fn with(mut self, spec: ChecksumSpec) -> Option<Self> {
        let slot = self.list.iter_mut().find(|s| s.is_none())?;
        *slot = Some(spec);
        Some(self)
    }

    /// The checksums, innermost first.
    pub fn iter(&self) -> impl Iterator<Item = ChecksumSpec> + '_ {
        self.list.iter().map_while(|s| *s)
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.iter().count()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.list[0].is_none()
    }

    /// Bytes of checksums before the payload.
    pub fn before(&self) -> u64 {
        4 * self
            .iter()
            .filter(|c| c.location == Location::Start)
            .count() as u64
    }

    /// Bytes of checksums after the payload.
    pub fn after(&self) -> u64 {
        4 * self.iter().filter(|c| c.location == Location::End).count() as u64
    }
}

/// The bytes-to-bytes part of a level: at most one compressor, then checksums around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BytesCodecs {
    /// The compressor, if any.
    pub compressor: Option<Compressor>,
    /// The checksums around the compressed (or plain) bytes.
    pub checksums: Checksums,
}

impl BytesCodecs {
    /// Just a compressor (or nothing), no checksum.
    pub const fn compressed(compressor: Option<Compressor>) -> Self {
        Self {
            compressor,
            checksums: Checksums::NONE,
        }
    }
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

/// One level of a chain: the chunk it decodes, its memory order, its filters, how it stores
/// elements, and the bytes-to-bytes codecs around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainLevel {
    /// Shape of the chunk this level decodes (for the outer level, the stored chunk).
    pub chunk_shape: Dims,
    /// Memory order of the decoded chunk (the composition of its `transpose` codecs).
    pub order: MemoryOrder,
    /// Filters in metadata (encoding) order; decoding undoes them last to first, after the
    /// bytes-to-bytes codecs.
    pub filters: heapless::Vec<Filter, MAX_FILTERS>,
    /// Bytes of one element as the level's chunk holds it (the array's element size).
    pub elem_size: usize,
    /// The array-to-bytes codec.
    pub array_to_bytes: ArrayToBytes,
    /// The bytes-to-bytes codecs.
    pub bytes_codecs: BytesCodecs,
}

impl ChainLevel {
    /// The bytes a chunk of `elements` elements takes before each filter, in encoding order,
    /// and after the last: first the chunk's own `elements * elem_size`, last what the level's
    /// bytes-to-bytes codecs decode to. `None` if a size overflows.
    pub fn filter_lens(&self, elements: usize) -> Option<FilterLens> {
        let mut lens = heapless::Vec::new();
        let mut len = elements.checked_mul(self.elem_size)?;
        lens.push(len).ok()?;
        for f in &self.filters {
            len = f.encoded_len(elements, len)?;
            lens.push(len).ok()?;
        }
        Some(lens)
    }

    /// Bytes the level's bytes-to-bytes codecs decode a chunk of `elements` elements to.
    pub fn stored_len(&self, elements: u64) -> Option<u64> {
        let elements = usize::try_from(elements).ok()?;
        let lens = self.filter_lens(elements)?;
        lens.last().map(|&n| n as u64)
    }
}

/// A validated codec chain: one level, or several for (nested) sharding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodecChain {
    levels: heapless::Vec<ChainLevel, MAX_LEVELS>,
}

/// What [`CodecChain::new`] has seen so far of one level.
struct LevelBuilder {
    order: MemoryOrder,
    filters: heapless::Vec<Filter, MAX_FILTERS>,
    /// Element size the next filter decodes to.
    elem: usize,
    a2b: Option<ArrayToBytes>,
    b2b: BytesCodecs,
}

impl LevelBuilder {
    /// `transpose`: only before the array-to-bytes codec and any filter.
    fn transpose(&mut self, t: &MemoryOrder) -> Result<(), ChainError> {
        if self.a2b.is_some() || !self.filters.is_empty() {
            return Err(ChainError::Misplaced {
                codec: CodecName::Transpose,
            });
        }
        self.order = self.order.then(t)?;
        Ok(())
    }

    /// `bytes`: its byte order is needed for scalars wider than a byte (a fixed-length byte
    /// string, `elem_size` one-byte scalars, needs none).
    fn bytes(
        &mut self,
        endian: Option<Endian>,
        elem_size: usize,
        scalar_size: usize,
    ) -> Result<(), ChainError> {
        if self.a2b.is_some() {
            return Err(ChainError::Misplaced {
                codec: CodecName::Bytes,
            });
        }
        let byte_scalars = scalar_size == 1 && self.elem == elem_size;
        if endian.is_none() && self.elem > 1 && !byte_scalars {
            return Err(ChainError::MissingEndian {
                elem_size: self.elem,
            });
        }
        self.a2b = Some(ArrayToBytes::Bytes(endian));
        Ok(())
    }

    /// `sharding_indexed`: shards of `chunk_shape` divided into inner chunks of `inner_shape`,
    /// with the index where `index` says (and whether it carries a CRC-32C), decoded by the
    /// `inner` chain, whose levels it returns.
    fn sharding(
        &mut self,
        chunk_shape: &[u64],
        inner_shape: &[u64],
        index: (IndexLocation, bool),
        inner: Option<CodecChain>,
    ) -> Result<heapless::Vec<ChainLevel, MAX_LEVELS>, ChainError> {
        let codec = CodecName::ShardingIndexed;
        if self.a2b.is_some() {
            return Err(ChainError::Misplaced { codec });
        }
        if !self.filters.is_empty() {
            return Err(ChainError::Unsupported {
                codec,
                what: "filters before sharding_indexed",
            });
        }
        if !self.order.is_c() {
            return Err(ChainError::Unsupported {
                codec: CodecName::Transpose,
                what: "transpose before sharding_indexed",
            });
        }
        let layout = ShardLayout::new(chunk_shape, inner_shape, index.0, index.1)?;
        for (dim, (&shard, &inner)) in chunk_shape.iter().zip(inner_shape).enumerate() {
            if shard % inner != 0 {
                return Err(ChainError::ShardNotDivisible { dim, shard, inner });
            }
        }
        let Some(chain) = inner else {
            return Err(ChainError::Unsupported {
                codec,
                what: "sharding without inner codecs",
            });
        };
        if chain.outer().chunk_shape.as_slice() != inner_shape {
            return Err(ChainError::Layout(crate::LayoutError::DimsMismatch {
                expected: inner_shape.len(),
                got: chain.outer().chunk_shape.len(),
            }));
        }
        self.a2b = Some(ArrayToBytes::Sharding(layout));
        Ok(chain.levels)
    }

    fn filter(&mut self, f: &Filter) -> Result<(), ChainError> {
        if self.b2b.compressor.is_some() || !self.b2b.checksums.is_empty() {
            return Err(ChainError::Misplaced { codec: f.name() });
        }
        if self.a2b.is_some() && !f.is_bytes_to_bytes() {
            return Err(ChainError::Misplaced { codec: f.name() });
        }
        // After packbits' bits, only compressors and checksums.
        if self
            .filters
            .last()
            .is_some_and(|last| !last.keeps_elements())
        {
            return Err(ChainError::Misplaced { codec: f.name() });
        }
        if let Some(dec) = f.decoded_size()
            && dec != self.elem
        {
            return Err(ChainError::ElementMismatch {
                codec: f.name(),
                decodes_to: dec,
                expected: self.elem,
            });
        }
        // The element the next filter decodes to: what this one stores, where that is still
        // whole elements (packbits' bits are not, and nothing but compressors follows them).
        if f.keeps_elements() {
            self.elem = f
                .encoded_len(1, self.elem)
                .ok_or(ChainError::Layout(crate::LayoutError::Overflow))?;
        }
        self.filters
            .push(*f)
            .map_err(|_| ChainError::TooMany { codec: f.name() })
    }

    fn checksum(&mut self, c: ChecksumSpec) -> Result<(), ChainError> {
        if self.a2b.is_none() {
            return Err(ChainError::Misplaced { codec: c.name() });
        }
        self.b2b.checksums = self
            .b2b
            .checksums
            .with(c)
            .ok_or(ChainError::TooMany { codec: c.name() })?;
        Ok(())
    }

    fn compressor(&mut self, c: Compressor) -> Result<(), ChainError> {
        if self.a2b.is_none() {
            return Err(ChainError::Misplaced { codec: c.name() });
        }
        if self.b2b.compressor.is_some() {
            return Err(ChainError::Unsupported {
                codec: c.name(),
                what: "two compressors in one chain",
            });
        }
        if let Some(first) = self.b2b.checksums.iter().next() {
            return Err(ChainError::Unsupported {
                codec: first.name(),
                what: "a checksum before a compressor",
            });
        }
        self.b2b.compressor = Some(c);
        Ok(())
    }
}

impl CodecChain {
    /// Validates `codecs` (in metadata order) for chunks of `chunk_shape` with `elem_size`-byte
    /// elements. If the chain contains `sharding_indexed`, `inner` is the chain of its inner
    /// codecs, built for the inner chunk shape.
    ///
    /// # Errors
    /// [`ChainError`] naming the offending codec: out of place, missing, two compressors,
    /// a checksum before a compressor, `transpose` before sharding, filters whose element
    /// types do not meet, too deep nesting, a shard not divisible by its inner chunks, or
    /// dimensions that disagree.
    pub fn new(
        chunk_shape: &[u64],
        elem_size: usize,
        codecs: &[Codec],
        inner: Option<CodecChain>,
    ) -> Result<Self, ChainError> {
        Self::with_scalar_size(chunk_shape, elem_size, elem_size, codecs, inner)
    }

    /// [`Self::new`] for elements made of `scalar_size`-byte scalars (a fixed-length byte
    /// string is `elem_size` one-byte scalars): byte order is asked of the `bytes` codec only
    /// when the scalars it sees are wider than a byte.
    ///
    /// # Errors
    /// As [`Self::new`].
    pub fn with_scalar_size(
        chunk_shape: &[u64],
        elem_size: usize,
        scalar_size: usize,
        codecs: &[Codec],
        inner: Option<CodecChain>,
    ) -> Result<Self, ChainError> {
        let ndim = chunk_shape.len();
        let mut b = LevelBuilder {
            order: MemoryOrder::c(ndim)?,
            filters: heapless::Vec::new(),
            elem: elem_size,
            a2b: None,
            b2b: BytesCodecs::default(),
        };
        let mut inner = inner;
        let mut inner_levels = None;
        for codec in codecs {
            match codec {
                Codec::Transpose(t) => b.transpose(t)?,
                Codec::Filter(f) => b.filter(f)?,
                Codec::Bytes(endian) => b.bytes(*endian, elem_size, scalar_size)?,
                Codec::ShardingIndexed {
                    chunk_shape: inner_shape,
                    index_location,
                    index_crc32c,
                } => {
                    let index = (*index_location, *index_crc32c);
                    inner_levels =
                        Some(b.sharding(chunk_shape, inner_shape, index, inner.take())?);
                }
                Codec::Checksum(c) => b.checksum(*c)?,
                Codec::Compressor(c) => {
                    // pcodec in v3 is the array-to-bytes codec: numbers in the machine's order.
                    if b.a2b.is_none() && c.serializes_numbers() {
                        b.bytes(Some(Endian::NATIVE), elem_size, scalar_size)?;
                    }
                    b.compressor(*c)?;
                }
            }
        }
        let array_to_bytes = b.a2b.ok_or(ChainError::MissingArrayToBytes)?;
        // Filters write elements in the stored byte order; the reader converts at the end.
        let endian = match array_to_bytes {
            ArrayToBytes::Bytes(e) => e.unwrap_or(Endian::NATIVE),
            ArrayToBytes::Sharding(_) => Endian::NATIVE,
        };
        for f in &mut b.filters {
            f.set_endian(endian);
        }
        let mut levels = heapless::Vec::new();
        let too_deep = ChainError::TooMany {
            codec: CodecName::ShardingIndexed,
        };
        levels
            .push(ChainLevel {
                chunk_shape: dims(chunk_shape)?,
                order: b.order,
                filters: b.filters,
                elem_size,
                array_to_bytes,
                bytes_codecs: b.b2b,
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
