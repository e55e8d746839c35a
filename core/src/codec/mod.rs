//! Decoders that write only into the caller's `&mut [u8]`, and the codec chain they serve.
//!
//! - [`CodecChain`]: a chain built from metadata ([`Codec`] items in metadata order), validated.
//! - [`CodecName`]: the one list of codecs (`registry.rs`); [`Compressor`]: the
//!   bytes-to-bytes compressors, one file each under `compressor/`, and [`Filter`]: codecs as
//!   values with their configuration, read through [`Config`].
//! - [`ChunkDecoder`]: a stored chunk's bytes-to-bytes codecs (checksums, then a compressor:
//!   gzip, zlib, zstd, Blosc, LZ4, or a [`Backend`]'s), fed in pieces of any size, decoded
//!   straight into the destination; decoders report [`Status`]: needs input, needs output
//!   (a window of the destination is full), done.
//! - [`BloscDecoder`]: Blosc in pure Rust, block by block, into a window of the output.
//! - [`to_native_in_place`]: the `bytes` codec's byte order, fixed in the destination.
//! - [`ShardLayout`] / [`ShardIndex`]: the `sharding_indexed` index, validated.
//! - [`FrameHeader`]: a zstd frame's declared sizes, read without decoding.
//! - [`size_probe`] / [`decoded_len`]: a stored chunk's decoded size from a few of its bytes.
//! - [`VlenItems`]: the items of a decoded `vlen-utf8` / `vlen-bytes` chunk, bounds-checked.
//!
//! `transpose` has no decoder: it is the chunk's [`MemoryOrder`](crate::MemoryOrder), which the
//! byte runs follow.

pub mod blosc;
pub mod blosclz;
mod bytes;
mod chain;
pub mod checksum;
mod compressor;
mod config;
mod crc;
mod decoded_size;
mod decoders;
mod deflate;
pub mod encode;
mod error;
pub mod filter;
pub mod lz4;
pub mod lz4_encode;
mod lz_copy;
mod name;
mod progress;
mod registry;
mod shard;
pub mod shuffle;
pub mod snappy;
mod stream;
mod vlen;
#[cfg(feature = "alloc")]
mod zstd;
mod zstd_blocks;
mod zstd_frame;

pub use blosc::{BloscConfig, BloscDecoder, InnerDecompress, Scratch};
pub use bytes::{Endian, to_native_in_place};
pub use chain::{
    ArrayToBytes, BytesCodecs, ChainLevel, ChecksumSpec, Checksums, Codec, CodecChain, FilterLens,
    MAX_CHECKSUMS, MAX_FILTERS, MAX_LEVELS,
};
pub use checksum::Location;
pub use compressor::{
    Base64, Bz2, Gzip, LZMA_MAX_DICT_SIZE, Lz4, Lz4ChunkEncoder, Lzma, LzmaFormat, LzmaRawFilter,
    Pcodec, Zfpy, Zlib, Zstd,
};
pub use config::{Config, ConfigValue, NoConfig};
pub use crc::{CRC32, CRC32C, Crc32, Crc32Kind, checksum};
pub use decoded_size::{SizeProbe, decoded_len, size_probe};
pub use decoders::LzInner;
#[cfg(feature = "alloc")]
pub use decoders::{Backend, MakeInflater};
pub use deflate::{DeflateDecoder, DeflateFormat, MinizInflate, RING_MIN, RawInflate, RawStatus};
#[cfg(feature = "alloc")]
pub use encode::EncodeBackends;
pub use encode::{ConfigFor, ConfigSink, EncodeError, Encoder, ZarrVersion};
pub use error::{ChainError, DecodeError};
pub use filter::FilterAux;
pub use progress::{Progress, Status, WindowProgress};
pub use registry::{Checksum, ChecksumKind, CodecName, Compressor, Filter};
pub use shard::{ByteRange, IndexLocation, ShardError, ShardIndex, ShardLayout};
pub use stream::{ChunkDecoder, crc32c};
pub use vlen::VlenItems;
#[cfg(feature = "alloc")]
pub use zstd::{LITERAL_STREAMS, MAX_WINDOW_CAP, OTHER_THAN_DECLARED, ZstdDecoder};
pub use zstd_blocks::{BlockWalker, MAX_BLOCK_SIZE, literals_size, sequence_count, sequence_modes};
pub use zstd_frame::{FrameHeader, MAX_DECLARED_WINDOW, MAX_FRAME_HEADER_LEN, ZSTD_MAGIC};
