//! The one table of codec names.

/// A codec zinto knows by name: what metadata calls it, and what errors name.
///
/// This is the single table from metadata names to codecs: [`CodecName::from_name`] finds a
/// codec by any of its names (`"blosc"`, `"numcodecs.blosc"`), [`CodecName::name`] gives the
/// first, and [`CodecName::from_v2_id`] reads a Zarr v2 (numcodecs) `id`. What a codec's
/// configuration holds is read by its own file (see [`Compressor`](super::Compressor) and
/// [`Filter`](super::Filter)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CodecName {
    /// v3 `bytes`: the array-to-bytes codec with an endianness.
    Bytes,
    /// v3 `transpose`: an axis permutation.
    Transpose,
    /// v3 `sharding_indexed`: inner chunks packed in one stored object with an index.
    ShardingIndexed,
    /// `crc32c`: a CRC-32C checksum (v3, and numcodecs `crc32c`).
    Crc32c,
    /// numcodecs `crc32`: a zlib CRC-32 checksum.
    Crc32,
    /// numcodecs `adler32`: an Adler-32 checksum.
    Adler32,
    /// numcodecs `fletcher32`: HDF5's Fletcher-32 checksum.
    Fletcher32,
    /// `gzip` (v3 and v2).
    Gzip,
    /// `zlib` (v2 compressor; numcodecs also registers it for v3).
    Zlib,
    /// `zstd` (v3 and v2).
    Zstd,
    /// `blosc` (c-blosc 1.x chunk format; v3 and v2).
    Blosc,
    /// numcodecs `lz4`: an LZ4 block after its decoded size.
    Lz4,
    /// numcodecs `bz2`.
    Bz2,
    /// BloscLZ, Blosc's own inner compressor (not a codec of its own in metadata).
    BloscLz,
    /// numcodecs `delta`: differences of consecutive elements.
    Delta,
    /// numcodecs `fixedscaleoffset`: floats stored as scaled, offset integers.
    FixedScaleOffset,
    /// numcodecs `astype`: elements stored as another type.
    AsType,
    /// numcodecs `quantize`: floats rounded to a number of digits (decoding is a cast).
    Quantize,
    /// numcodecs `bitround`: float mantissas rounded (decoding is the identity).
    BitRound,
    /// numcodecs `shuffle`: the bytes of the elements grouped by significance.
    Shuffle,
    /// v2 `order`: the memory order of an uncompressed chunk (C or F).
    Order,
    /// numcodecs `vlen-utf8`: variable-length UTF-8 strings as length-prefixed items
    /// ([`VlenItems`](super::VlenItems)).
    VlenUtf8,
    /// numcodecs `vlen-bytes`: variable-length byte strings, the same layout.
    VlenBytes,
}

/// Each codec, the names metadata gives it (the first is the one errors use), and its Zarr v2
/// (numcodecs) `id`, if it has one.
const TABLE: [(CodecName, &[&str], Option<&str>); 23] = [
    (CodecName::Bytes, &["bytes"], None),
    (CodecName::Transpose, &["transpose"], None),
    (CodecName::ShardingIndexed, &["sharding_indexed"], None),
    (
        CodecName::Crc32c,
        &["crc32c", "numcodecs.crc32c"],
        Some("crc32c"),
    ),
    (CodecName::Crc32, &["numcodecs.crc32"], Some("crc32")),
    (CodecName::Adler32, &["numcodecs.adler32"], Some("adler32")),
    (
        CodecName::Fletcher32,
        &["numcodecs.fletcher32"],
        Some("fletcher32"),
    ),
    (CodecName::Gzip, &["gzip", "numcodecs.gzip"], Some("gzip")),
    (CodecName::Zlib, &["zlib", "numcodecs.zlib"], Some("zlib")),
    (CodecName::Zstd, &["zstd", "numcodecs.zstd"], Some("zstd")),
    (
        CodecName::Blosc,
        &["blosc", "numcodecs.blosc"],
        Some("blosc"),
    ),
    (CodecName::Lz4, &["numcodecs.lz4"], Some("lz4")),
    (CodecName::Bz2, &["numcodecs.bz2"], Some("bz2")),
    (CodecName::BloscLz, &["blosclz"], None),
    (CodecName::Delta, &["numcodecs.delta"], Some("delta")),
    (
        CodecName::FixedScaleOffset,
        &["numcodecs.fixedscaleoffset"],
        Some("fixedscaleoffset"),
    ),
    (CodecName::AsType, &["numcodecs.astype"], Some("astype")),
    (
        CodecName::Quantize,
        &["numcodecs.quantize"],
        Some("quantize"),
    ),
    (
        CodecName::BitRound,
        &["numcodecs.bitround"],
        Some("bitround"),
    ),
    (CodecName::Shuffle, &["numcodecs.shuffle"], Some("shuffle")),
    (CodecName::Order, &["order"], None),
    (CodecName::VlenUtf8, &["vlen-utf8"], Some("vlen-utf8")),
    (CodecName::VlenBytes, &["vlen-bytes"], Some("vlen-bytes")),
];

impl CodecName {
    /// The codec with this metadata name (any of its names), if zinto knows it.
    pub fn from_name(name: &str) -> Option<Self> {
        TABLE
            .iter()
            .find(|(_, names, _)| names.contains(&name))
            .map(|(c, _, _)| *c)
    }

    /// The codec with this Zarr v2 (numcodecs) `id`, if zinto knows it.
    pub fn from_v2_id(id: &str) -> Option<Self> {
        TABLE
            .iter()
            .find(|(_, _, v2)| *v2 == Some(id))
            .map(|(c, _, _)| *c)
    }

    /// The metadata name (the first of its names).
    pub fn name(self) -> &'static str {
        TABLE
            .iter()
            .find(|(c, _, _)| *c == self)
            .and_then(|(_, names, _)| names.first())
            .copied()
            .unwrap_or("unknown")
    }
}

impl core::fmt::Display for CodecName {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_finds_its_codec() {
        for (codec, names, v2) in TABLE {
            assert!(!names.is_empty(), "{codec:?} has no name");
            for n in names {
                assert_eq!(CodecName::from_name(n), Some(codec), "{n}");
            }
            if let Some(id) = v2 {
                assert_eq!(CodecName::from_v2_id(id), Some(codec), "{id}");
            }
            assert_eq!(CodecName::from_name(codec.name()), Some(codec));
        }
        assert_eq!(CodecName::from_name("categorize"), None);
    }
}
