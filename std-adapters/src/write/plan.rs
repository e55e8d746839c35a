//! What a write needs of an array's codecs, checked once before any chunk is written: the
//! compressor, the checksums, the byte swap and the fill value. What the write path does not
//! write yet is refused here, by name, before the store is touched.

use zinto_core::MemoryOrder;
use zinto_core::codec::{ArrayToBytes, ChecksumKind, Compressor, Endian, Location, ShardLayout};

use crate::error::ErrorKind;
use crate::metadata::{ArrayMetadata, MetadataError};

/// An array's chunk encoding, as the write path runs it.
#[derive(Debug, Clone)]
pub(crate) struct WritePlan {
    /// The compressor, if the chunks are compressed.
    pub(crate) compressor: Option<Compressor>,
    /// `crc32c` codecs after it.
    pub(crate) crc32c: usize,
    /// Bytes to swap each scalar by (0: stored in the machine's order).
    pub(crate) swap: usize,
    /// Bytes of one element.
    pub(crate) elem: usize,
    /// One element of fill value, native byte order.
    pub(crate) fill: Vec<u8>,
    /// Bytes of one whole chunk.
    pub(crate) chunk_len: usize,
    /// The chunks' memory order (`transpose`, v2 `order`): C order streams whole chunks from
    /// the input; any other goes through the scratch, laid out in it.
    pub(crate) order: MemoryOrder,
    /// The shape of a chunk as encoded (the inner chunk, in a sharded array).
    pub(crate) chunk_shape: Vec<u64>,
    /// The shards' layout, for a sharded array: its outer chunks are shards of inner chunks,
    /// each encoded as above, then the index (at the end).
    pub(crate) shard: Option<ShardLayout>,
}

fn unsupported(what: &str) -> ErrorKind {
    ErrorKind::Metadata(MetadataError::Unsupported(format!(
        "writing {what} (not yet)"
    )))
}

impl WritePlan {
    /// The plan for `meta`, or what in it the write path does not write.
    pub(crate) fn of(meta: &ArrayMetadata) -> Result<Self, ErrorKind> {
        let Some(elem) = meta.dtype.fixed_size() else {
            return Err(unsupported(&format!(
                "variable-length data ({})",
                meta.dtype
            )));
        };
        let (shard, level) = match meta.chain.levels() {
            [level] => (None, level),
            [outer, inner] => match &outer.array_to_bytes {
                ArrayToBytes::Sharding(layout) => (Some(layout.clone()), inner),
                ArrayToBytes::Bytes(_) => {
                    return Err(ErrorKind::Internal {
                        what: "a second chain level under a level of bytes",
                    });
                }
            },
            _ => return Err(unsupported("shards inside shards")),
        };
        if !level.filters.is_empty() {
            return Err(unsupported("filters"));
        }
        let swap = match &level.array_to_bytes {
            ArrayToBytes::Bytes(Some(endian)) if *endian != Endian::NATIVE => {
                meta.dtype.scalar_size()
            }
            ArrayToBytes::Bytes(_) => 0,
            ArrayToBytes::Sharding(_) => return Err(unsupported("shards inside shards")),
        };
        let mut crc32c = 0;
        for sum in level.bytes_codecs.checksums.iter() {
            match (sum.kind, sum.location) {
                (ChecksumKind::Crc32c, Location::End) => crc32c += 1,
                (kind, _) => return Err(unsupported(&format!("the {} checksum", kind.name()))),
            }
        }
        let chunk_len = level
            .chunk_shape
            .iter()
            .try_fold(1u64, |n, &d| n.checked_mul(d))
            .and_then(|n| usize::try_from(n).ok())
            .and_then(|n| n.checked_mul(elem))
            .ok_or(ErrorKind::Layout(zinto_core::LayoutError::Overflow))?;
        if let Some(c) = &level.bytes_codecs.compressor {
            // Refused before any chunk is written (or removed), not at the first chunk.
            // Begun on one chunk, so that a chunk the compressor refuses (a Blosc chunk over
            // 2 GiB) is refused here too.
            let encode = |e: super::encoders::EncodeError| ErrorKind::Encode(e.to_string());
            super::encoders::encoder(c, elem)
                .map_err(encode)?
                .begin(chunk_len as u64)
                .map_err(encode)?;
            // A Blosc chunk's header is written last, so no checksum can run over it as it
            // streams.
            if matches!(c, Compressor::Blosc(_)) && crc32c > 0 {
                return Err(unsupported("a crc32c checksum after blosc"));
            }
        }
        Ok(Self {
            compressor: level.bytes_codecs.compressor,
            crc32c,
            swap: if swap > 1 { swap } else { 0 },
            elem,
            fill: meta.fill_value.as_bytes().to_vec(),
            chunk_len,
            order: level.order.clone(),
            chunk_shape: level.chunk_shape.to_vec(),
            shard,
        })
    }
}
