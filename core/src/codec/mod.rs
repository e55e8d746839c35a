//! Decoders that write only into the caller's `&mut [u8]`, and the codec chain they serve.
//!
//! - [`CodecChain`]: a chain built from metadata ([`Codec`] items in metadata order), validated.
//! - [`ChunkDecoder`]: a stored chunk's bytes-to-bytes codecs (crc32c, gzip, zlib, zstd), fed
//!   in pieces of any size, decoded straight into the destination.
//! - [`to_native_in_place`]: the `bytes` codec's byte order, fixed in the destination.
//! - [`ShardLayout`] / [`ShardIndex`]: the `sharding_indexed` index, validated.
//! - [`FrameHeader`]: a zstd frame's declared sizes, read without decoding.
//! - [`size_probe`] / [`decoded_len`]: a stored chunk's decoded size from a few of its bytes.
//!
//! `transpose` has no decoder: it is the chunk's [`MemoryOrder`](crate::MemoryOrder), which the
//! byte runs follow.

mod bytes;
mod chain;
mod crc;
mod decoded_size;
mod deflate;
mod error;
mod name;
mod progress;
mod shard;
mod stream;
#[cfg(feature = "alloc")]
mod zstd;
mod zstd_blocks;
mod zstd_frame;

pub use bytes::{Endian, to_native_in_place};
pub use chain::{
    ArrayToBytes, BytesCodecs, ChainLevel, Codec, CodecChain, Compressor, Crc32cCount, MAX_CRC32C,
    MAX_LEVELS,
};
pub use crc::{CRC32, CRC32C, Crc32, Crc32Kind, checksum};
pub use decoded_size::{SizeProbe, decoded_len, size_probe};
pub use deflate::{DeflateDecoder, DeflateFormat};
pub use error::{ChainError, DecodeError};
pub use name::CodecName;
pub use progress::{Progress, Status};
pub use shard::{ByteRange, IndexLocation, ShardError, ShardIndex, ShardLayout};
pub use stream::{ChunkDecoder, crc32c};
#[cfg(feature = "alloc")]
pub use zstd::{MAX_WINDOW_CAP, OTHER_THAN_DECLARED, ZstdBackend, ZstdDecoder};
pub use zstd_blocks::{BlockWalker, MAX_BLOCK_SIZE, literals_size, sequence_modes};
pub use zstd_frame::{FrameHeader, MAX_DECLARED_WINDOW, MAX_FRAME_HEADER_LEN, ZSTD_MAGIC};
