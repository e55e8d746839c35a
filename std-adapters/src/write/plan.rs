//! What a write needs of an array's codecs, checked once before any chunk is written: the
//! compressor, the checksums, the byte swap and the fill value. What the write path does not
//! write yet is refused here, by name, before the store is touched.

use zinto_core::MemoryOrder;
use zinto_core::codec::{
    ArrayToBytes, ChecksumKind, Compressor, EncodeError, Endian, Location, ShardLayout,
};

use zinto_core::codec::Filter;

use super::filters::FilterStage;
use crate::backend::Encoders;
use crate::error::ErrorKind;
use crate::metadata::filter_elem;
use crate::metadata::{ArrayMetadata, MetadataError};

/// An array's chunk encoding, as the write path runs it.
#[derive(Debug, Clone)]
pub(crate) struct WritePlan {
    /// The compressor, if the chunks are compressed.
    pub(crate) compressor: Option<Compressor>,
    /// The compressor must be given each chunk whole, in one slice (numcodecs' LZ4).
    pub(crate) whole_input: bool,
    /// `crc32c` codecs after it.
    pub(crate) crc32c: usize,
    /// Bytes to swap each scalar by (0: stored in the machine's order).
    pub(crate) swap: usize,
    /// Bytes of one element.
    pub(crate) elem: usize,
    /// Bytes of one element as the compressor is given it: after the filters (numcodecs'
    /// Blosc takes its typesize from the filtered array), `elem` without filters.
    pub(crate) stored_elem: usize,
    /// One element of fill value, native byte order.
    pub(crate) fill: Vec<u8>,
    /// Bytes of one whole chunk.
    pub(crate) chunk_len: usize,
    /// Bytes of one whole chunk after its filters (`chunk_len` when it has none): what the
    /// compressor is given.
    pub(crate) stored_len: usize,
    /// The chunk's filters, if it has any (numcodecs' `delta`, `fixedscaleoffset`, `astype`).
    pub(crate) filters: Option<FilterStage>,
    /// The chunks' memory order (`transpose`, v2 `order`): C order streams whole chunks from
    /// the input; any other goes through the scratch, laid out in it.
    pub(crate) order: MemoryOrder,
    /// The shape of a chunk as encoded (the innermost chunk, in a sharded array).
    pub(crate) chunk_shape: Vec<u64>,
    /// The shards' layouts, outermost first, for a sharded array (none for one that is not):
    /// its outer chunks are shards of inner chunks (or, nested, of shards), each encoded as
    /// above, then the index.
    pub(crate) shards: Vec<ShardLayout>,
}

fn unsupported(what: &str) -> ErrorKind {
    ErrorKind::Metadata(MetadataError::Unsupported(format!(
        "writing {what} (not yet)"
    )))
}

/// The stage that runs `filters` (in encoding order) over the array's elements, `None` for
/// none; or what zinto does not encode among them.
fn filter_stage(
    meta: &ArrayMetadata,
    filters: &[Filter],
) -> Result<Option<FilterStage>, ErrorKind> {
    if filters.is_empty() {
        return Ok(None);
    }
    let from = filter_elem(meta.dtype, None)
        .ok_or_else(|| unsupported(&format!("filters over {} data", meta.dtype)))?;
    let mut elem = from;
    for f in filters {
        f.encodes()
            .map_err(|why| unsupported(&format!("the {} filter {why}", f.name())))?;
        match f.decoded_elem() {
            Some(dec) if dec.ty == elem.ty => {}
            _ => {
                return Err(unsupported(&format!(
                    "the {} filter over {} elements it does not decode to",
                    f.name(),
                    elem.ty.name()
                )));
            }
        }
        elem = f.encoded_elem().unwrap_or(elem);
    }
    Ok(Some(FilterStage::new(
        filters.to_vec(),
        from,
        meta.fill_value.as_bytes(),
    )))
}

/// Whether this build writes compressor `c` for chunks of `stored_len` bytes of `elem`-byte
/// elements, and whether it needs each chunk whole in one slice; refused before any chunk is
/// written (or removed), not at the first chunk. Begun on one chunk, so that a chunk the
/// compressor refuses (a Blosc chunk over 2 GiB) is refused here too.
fn check_compressor(
    c: &Compressor,
    (elem, stored_len): (usize, usize),
    streams_in_parts: bool,
    crc32c: usize,
) -> Result<bool, ErrorKind> {
    let encode = |e: EncodeError| ErrorKind::Encode(e.to_string());
    let mut encoder = c.encoder(elem, &Encoders).map_err(encode)?;
    let head = encoder.begin(stored_len as u64).map_err(encode)?;
    // Chunks reach a compressor that needs them whole only as one slice of the input or of
    // the scratch: not through filters, a byte swap or a shard's parts.
    let whole_input = encoder.whole_input();
    if whole_input && streams_in_parts {
        return Err(unsupported(&format!(
            "{c} after filters, in another byte order or inside shards"
        )));
    }
    // A head (Blosc's header) is written last, so no checksum can run over it as it streams.
    if head > 0 && crc32c > 0 {
        return Err(unsupported(&format!(
            "a crc32c checksum after {}",
            c.name()
        )));
    }
    Ok(whole_input)
}

/// How many `crc32c` checksums end a chunk of `level`: the only checksums the write path writes.
fn trailing_crc32c(level: &zinto_core::codec::ChainLevel) -> Result<usize, ErrorKind> {
    let mut crc32c = 0;
    for sum in level.bytes_codecs.checksums.iter() {
        match (sum.kind, sum.location) {
            (ChecksumKind::Crc32c, Location::End) => crc32c += 1,
            (kind, _) => return Err(unsupported(&format!("the {} checksum", kind.name()))),
        }
    }
    Ok(crc32c)
}

/// Bytes of a chunk of `shape` as given (`elem` each) and as stored (`stored_elem` each, after
/// the filters).
fn lens(shape: &[u64], elem: usize, stored_elem: usize) -> Result<(usize, usize), ErrorKind> {
    let overflow = || ErrorKind::Layout(zinto_core::LayoutError::Overflow);
    let chunk_len = shape
        .iter()
        .try_fold(1u64, |n, &d| n.checked_mul(d))
        .and_then(|n| usize::try_from(n).ok())
        .and_then(|n| n.checked_mul(elem))
        .ok_or_else(overflow)?;
    // Elements of no bytes (none are stored) leave the length as it is.
    let stored_len = match chunk_len.checked_div(elem) {
        Some(n) => n.checked_mul(stored_elem).ok_or_else(overflow)?,
        None => chunk_len,
    };
    Ok((chunk_len, stored_len))
}

impl WritePlan {
    /// `(chunk_len, stored_len)` of a chunk of `shape`: the plan's own for a regular grid, each
    /// chunk's on a rectilinear one.
    pub(crate) fn lens_of(&self, shape: &[u64]) -> Result<(usize, usize), ErrorKind> {
        lens(shape, self.elem, self.stored_elem)
    }

    /// The outermost shards' layout, for a sharded array.
    pub(crate) fn shard(&self) -> Option<&ShardLayout> {
        self.shards.first()
    }

    /// The plan for `meta` written from a flat buffer ([`Array::write_from`](crate::Array::write_from)),
    /// or what in it the write path does not write.
    pub(crate) fn of(meta: &ArrayMetadata) -> Result<Self, ErrorKind> {
        let Some(elem) = meta.dtype.fixed_size() else {
            return Err(ErrorKind::Metadata(MetadataError::Unsupported(format!(
                "writing variable-length data ({}) from a flat buffer (Array::write_vlen writes it)",
                meta.dtype
            ))));
        };
        Self::with_elem(meta, elem)
    }

    /// The plan for `meta`, an array of variable-length values, written from offsets and
    /// values ([`Array::write_vlen`](crate::Array::write_vlen)): its chain sees the `vlen-*`
    /// encoding as bytes (elements of one byte), so `chunk_len` and `stored_len` count
    /// elements, not the bytes of a chunk, which each chunk's values decide.
    pub(crate) fn of_vlen(meta: &ArrayMetadata) -> Result<Self, ErrorKind> {
        if meta.dtype.fixed_size().is_some() {
            return Err(ErrorKind::WrongType {
                dtype: meta.dtype,
                read_as: "variable-length values (Array::write_from writes it)",
            });
        }
        let plan = Self::with_elem(meta, 1)?;
        if plan.shards.len() > 1 {
            return Err(unsupported(&format!(
                "variable-length data ({}) in shards inside shards",
                meta.dtype
            )));
        }
        if !plan.order.is_c() {
            return Err(unsupported(&format!(
                "variable-length data ({}) in a chunk order other than C",
                meta.dtype
            )));
        }
        Ok(plan)
    }

    /// The plan for `meta`, its elements `elem` bytes each as the chain sees them.
    fn with_elem(meta: &ArrayMetadata, elem: usize) -> Result<Self, ErrorKind> {
        let (level, outer) =
            meta.chain
                .levels()
                .split_last()
                .ok_or_else(|| ErrorKind::Internal {
                    what: "a chain without levels",
                })?;
        // Every level but the innermost is a shard, with no codecs around it (`Array` refuses
        // bytes-to-bytes codecs around any level of shards when it opens).
        let shards = outer
            .iter()
            .map(|l| match &l.array_to_bytes {
                ArrayToBytes::Sharding(layout) => Ok(layout.clone()),
                ArrayToBytes::Bytes(_) => Err(ErrorKind::Internal {
                    what: "a chain level under a level of bytes",
                }),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let filters = filter_stage(meta, &level.filters)?;
        let swap = match &level.array_to_bytes {
            // Filters write their elements in the stored byte order themselves.
            _ if filters.is_some() => 0,
            ArrayToBytes::Bytes(Some(endian)) if *endian != Endian::NATIVE => {
                meta.dtype.scalar_size()
            }
            ArrayToBytes::Bytes(_) => 0,
            ArrayToBytes::Sharding(_) => {
                return Err(ErrorKind::Internal {
                    what: "an innermost chain level of shards",
                });
            }
        };
        let crc32c = trailing_crc32c(level)?;
        let stored_elem = filters.as_ref().map_or(elem, FilterStage::stored_size);
        let (chunk_len, stored_len) = lens(&level.chunk_shape, elem, stored_elem)?;
        let streams_in_parts = filters.is_some() || swap > 1 || !shards.is_empty();
        let whole_input = match &level.bytes_codecs.compressor {
            Some(c) => check_compressor(c, (stored_elem, stored_len), streams_in_parts, crc32c)?,
            None => false,
        };
        Ok(Self {
            whole_input,
            compressor: level.bytes_codecs.compressor,
            crc32c,
            swap: if swap > 1 { swap } else { 0 },
            elem,
            stored_elem,
            fill: meta.fill_value.as_bytes().to_vec(),
            chunk_len,
            stored_len,
            filters,
            order: level.order.clone(),
            chunk_shape: level.chunk_shape.to_vec(),
            shards,
        })
    }
}
