//! The one table of codec names.

/// A codec zinto knows by name: what metadata calls it, and what errors name.
///
/// This is the single table from metadata names to codecs; [`CodecName::from_name`] and
/// [`CodecName::name`] are inverses over it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CodecName {
    /// v3 `bytes`: the array-to-bytes codec with an endianness.
    Bytes,
    /// v3 `transpose`: an axis permutation.
    Transpose,
    /// v3 `sharding_indexed`: inner chunks packed in one stored object with an index.
    ShardingIndexed,
    /// v3 `crc32c`: a trailing CRC-32C checksum.
    Crc32c,
    /// `gzip` (v3 and v2).
    Gzip,
    /// `zlib` (v2 compressor; numcodecs also registers it for v3).
    Zlib,
    /// `zstd` (v3 and v2).
    Zstd,
    /// `blosc`: known by name so errors can say it is not supported yet.
    Blosc,
    /// v2 `order`: the memory order of an uncompressed chunk (C or F).
    Order,
}

const TABLE: [(CodecName, &str); 9] = [
    (CodecName::Bytes, "bytes"),
    (CodecName::Transpose, "transpose"),
    (CodecName::ShardingIndexed, "sharding_indexed"),
    (CodecName::Crc32c, "crc32c"),
    (CodecName::Gzip, "gzip"),
    (CodecName::Zlib, "zlib"),
    (CodecName::Zstd, "zstd"),
    (CodecName::Blosc, "blosc"),
    (CodecName::Order, "order"),
];

impl CodecName {
    /// The codec with this metadata name, if zinto knows it.
    pub fn from_name(name: &str) -> Option<Self> {
        TABLE.iter().find(|(_, n)| *n == name).map(|(c, _)| *c)
    }

    /// The metadata name.
    pub fn name(self) -> &'static str {
        TABLE
            .iter()
            .find(|(c, _)| *c == self)
            .map_or("unknown", |(_, n)| n)
    }
}

impl core::fmt::Display for CodecName {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}
