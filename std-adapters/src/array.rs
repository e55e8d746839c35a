//! An array in a store: open it, read a selection into a buffer you own.

use zinto_core::codec::{
    ArrayToBytes, BytesCodecs, ChunkDecoder, DecodeError, Status, to_native_in_place,
};
use zinto_core::{LayoutError, MemoryOrder, Region, Runs, product};

use crate::error::{Error, ErrorKind, MetadataError};
use crate::metadata::{ArrayMetadata, parse_v2, parse_v3};
use crate::store::{Store, StoreError};

/// Metadata documents larger than this are refused rather than read (they are a few KB).
const MAX_METADATA_LEN: u64 = 16 << 20;
/// Compressed chunks stream from the store in blocks of this size.
pub const BLOCK_LEN: usize = 1 << 20;

/// A Zarr array (v3 or v2) in a [`Store`], ready to read.
///
/// ```
/// use zinto::{Array, MemoryStore, Region};
///
/// // A 4x4 uint8 array in 2x2 chunks, v3, uncompressed; only chunk (0, 1) is written.
/// let mut store = MemoryStore::new();
/// store.insert("a/zarr.json", br#"{"zarr_format": 3, "node_type": "array",
///     "shape": [4, 4], "data_type": "uint8", "fill_value": 7,
///     "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 2]}},
///     "chunk_key_encoding": {"name": "default"},
///     "codecs": [{"name": "bytes"}]}"#.to_vec());
/// store.insert("a/c/0/1", vec![1, 2, 3, 4]);
///
/// let array = Array::open(&store, "a")?;
/// let mut out = vec![0u8; 2 * 3];
/// array.read_into(&Region::new(&[0, 1], &[2, 3])?, &mut out)?;
/// assert_eq!(out, [7, 1, 2, 7, 3, 4]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Array<S> {
    store: S,
    path: String,
    meta: ArrayMetadata,
}

/// Buffers a read reuses from chunk to chunk.
#[derive(Debug, Default)]
struct ReadContext {
    decoder: ChunkDecoder,
    scratch: Vec<u8>,
    block: Vec<u8>,
}

/// Where one piece of a chunk comes from and goes to.
struct Target<'a> {
    key: &'a str,
    out_shape: &'a [u64],
}

impl<S: Store> Array<S> {
    /// Opens the array at `path` (`""` for the store's root): reads `zarr.json`, or `.zarray`
    /// (with `.zattrs`) for Zarr v2, and validates everything needed to read it.
    ///
    /// # Errors
    /// [`ErrorKind::Metadata`] if no metadata is found, it does not parse, or it asks for
    /// something unsupported (named in the error); [`ErrorKind::Store`] if the store fails.
    pub fn open(store: S, path: &str) -> Result<Self, Error> {
        let path = path.trim_matches('/').to_owned();
        let err = |kind| Error::new(&path, None, kind);
        let key = |name: &str| {
            if path.is_empty() {
                name.to_owned()
            } else {
                format!("{path}/{name}")
            }
        };
        let meta = if let Some(json) = read_small(&store, &key("zarr.json")).map_err(&err)? {
            parse_v3(&json)
        } else if let Some(json) = read_small(&store, &key(".zarray")).map_err(&err)? {
            let attrs = read_small(&store, &key(".zattrs")).map_err(&err)?;
            parse_v2(&json, attrs.as_deref())
        } else {
            Err(MetadataError::Missing)
        }
        .map_err(|e| err(ErrorKind::Metadata(e)))?;
        let outer = meta.chain.outer();
        if matches!(outer.array_to_bytes, ArrayToBytes::Sharding(_))
            && outer.bytes_codecs != BytesCodecs::default()
        {
            return Err(err(ErrorKind::Metadata(MetadataError::Unsupported(
                "bytes-to-bytes codecs around sharding_indexed".into(),
            ))));
        }
        Ok(Self { store, path, meta })
    }

    /// The validated metadata.
    pub fn metadata(&self) -> &ArrayMetadata {
        &self.meta
    }

    /// The array's shape.
    pub fn shape(&self) -> &[u64] {
        self.meta.grid.array_shape()
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// The array's path in the store.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The store key of the (outer) chunk at `coords`.
    pub fn chunk_key(&self, coords: &[u64]) -> String {
        let k = self.meta.key_encoding.key(coords);
        if self.path.is_empty() {
            k
        } else {
            format!("{}/{k}", self.path)
        }
    }

    /// Bytes needed to hold `selection`.
    ///
    /// # Errors
    /// [`ErrorKind::Layout`] if the size overflows.
    pub fn selection_len(&self, selection: &Region) -> Result<usize, Error> {
        let layout = |e| Error::new(&self.path, None, ErrorKind::Layout(e));
        let n = selection
            .num_elements()
            .and_then(|n| {
                n.checked_mul(self.meta.dtype.size() as u64)
                    .ok_or(LayoutError::Overflow)
            })
            .map_err(layout)?;
        usize::try_from(n).map_err(|_| layout(LayoutError::Overflow))
    }

    /// Reads `selection` into `out` as a C-order array of the selection's shape, native byte
    /// order. `out` must be exactly [`Self::selection_len`] bytes. Missing chunks read as the
    /// fill value; a chunk that lands whole and contiguously in `out` is decoded straight into
    /// it.
    ///
    /// # Errors
    /// [`ErrorKind::OutputSize`] for a wrong buffer size, [`ErrorKind::Layout`] for a selection
    /// outside the array, and store, decode and shard errors naming the chunk key.
    pub fn read_into(&self, selection: &Region, out: &mut [u8]) -> Result<(), Error> {
        let expected = self.selection_len(selection)?;
        if out.len() != expected {
            return Err(Error::new(
                &self.path,
                None,
                ErrorKind::OutputSize {
                    expected: expected as u64,
                    got: out.len() as u64,
                },
            ));
        }
        let grid = &self.meta.grid;
        let pieces = grid
            .pieces(selection)
            .map_err(|e| Error::new(&self.path, None, ErrorKind::Layout(e)))?;
        let mut ctx = ReadContext::default();
        for piece in pieces {
            let key = self.chunk_key(&piece.chunk);
            let target = Target {
                key: &key,
                out_shape: selection.shape(),
            };
            let err = |kind| Error::new(&self.path, Some(&key), kind);
            match self
                .store
                .size(&key)
                .map_err(|e| err(ErrorKind::Store(e)))?
            {
                None => self.fill(&target, &piece.in_output, out).map_err(err)?,
                Some(len) => self
                    .read_level(
                        &mut ctx,
                        0,
                        &target,
                        0,
                        len,
                        &piece.in_chunk,
                        &piece.in_output,
                        out,
                    )
                    .map_err(err)?,
            }
        }
        Ok(())
    }

    /// Reads `selection` into a new vector (see [`Self::read_into`]).
    ///
    /// # Errors
    /// As [`Self::read_into`].
    pub fn read_to_vec(&self, selection: &Region) -> Result<Vec<u8>, Error> {
        let mut out = vec![0u8; self.selection_len(selection)?];
        self.read_into(selection, &mut out)?;
        Ok(out)
    }

    /// Writes the fill value over `region` of the output.
    fn fill(&self, t: &Target<'_>, region: &Region, out: &mut [u8]) -> Result<(), ErrorKind> {
        let elem = self.meta.dtype.size();
        let order = MemoryOrder::c(region.ndim()).map_err(ErrorKind::Layout)?;
        let whole = Region::whole(region.shape()).map_err(ErrorKind::Layout)?;
        let runs = Runs::new(elem, region.shape(), &order, &whole, t.out_shape, region)
            .map_err(ErrorKind::Layout)?;
        let value = self.meta.fill_value.as_bytes();
        for run in runs {
            let dst = out
                .get_mut(run.dst..run.dst + run.len)
                .ok_or(ErrorKind::Layout(LayoutError::Overflow))?;
            match value.split_first() {
                Some((&b, rest)) if rest.iter().all(|&x| x == b) => dst.fill(b),
                _ => dst
                    .chunks_exact_mut(elem)
                    .for_each(|e| e.copy_from_slice(value)),
            }
        }
        Ok(())
    }

    /// Reads `in_chunk` of the chunk of chain level `level` stored at `key[offset..offset+len]`
    /// into `in_output` of the output.
    #[allow(clippy::too_many_arguments)]
    fn read_level(
        &self,
        ctx: &mut ReadContext,
        level: usize,
        t: &Target<'_>,
        offset: u64,
        len: u64,
        in_chunk: &Region,
        in_output: &Region,
        out: &mut [u8],
    ) -> Result<(), ErrorKind> {
        let elem = self.meta.dtype.size();
        let Some(lv) = self.meta.chain.levels().get(level) else {
            return Err(ErrorKind::Layout(LayoutError::Overflow));
        };
        match &lv.array_to_bytes {
            ArrayToBytes::Bytes(endian) => {
                let chunk_len = product(&lv.chunk_shape)
                    .ok()
                    .and_then(|n| n.checked_mul(elem as u64))
                    .and_then(|n| usize::try_from(n).ok())
                    .ok_or(ErrorKind::Layout(LayoutError::Overflow))?;
                let runs = Runs::new(
                    elem,
                    &lv.chunk_shape,
                    &lv.order,
                    in_chunk,
                    t.out_shape,
                    in_output,
                )
                .map_err(ErrorKind::Layout)?;
                let whole = in_chunk.start().iter().all(|&s| s == 0)
                    && in_chunk.shape() == lv.chunk_shape.as_slice();
                let unit = self.meta.dtype.scalar_size();
                if whole && runs.is_single_run() {
                    // The chunk lands contiguously: decode straight into the output.
                    let dst_at = runs.clone().next().map_or(0, |r| r.dst);
                    let dst = out
                        .get_mut(dst_at..dst_at + chunk_len)
                        .ok_or(ErrorKind::Layout(LayoutError::Overflow))?;
                    self.decode(ctx, t.key, offset, len, &lv.bytes_codecs, dst)?;
                    if let Some(e) = endian {
                        to_native_in_place(dst, unit, *e);
                    }
                } else {
                    let mut scratch = std::mem::take(&mut ctx.scratch);
                    scratch.resize(chunk_len, 0);
                    let result =
                        self.decode(ctx, t.key, offset, len, &lv.bytes_codecs, &mut scratch);
                    if result.is_ok() {
                        if let Some(e) = endian {
                            to_native_in_place(&mut scratch, unit, *e);
                        }
                        for run in runs {
                            let (Some(dst), Some(src)) = (
                                out.get_mut(run.dst..run.dst + run.len),
                                scratch.get(run.src..run.src + run.len),
                            ) else {
                                return Err(ErrorKind::Layout(LayoutError::Overflow));
                            };
                            dst.copy_from_slice(src);
                        }
                    }
                    ctx.scratch = scratch;
                    result?;
                }
                Ok(())
            }
            ArrayToBytes::Sharding(layout) => {
                let range = layout.index_range(len).map_err(ErrorKind::Shard)?;
                // Bounded by `len`, the shard's actual stored size.
                let mut index = vec![0u8; usize::try_from(range.len).unwrap_or(usize::MAX)];
                self.store
                    .read_into(t.key, offset + range.offset, &mut index)
                    .map_err(ErrorKind::Store)?;
                let index = layout.parse(&index, len).map_err(ErrorKind::Shard)?;
                let pieces = layout.grid().pieces(in_chunk).map_err(ErrorKind::Layout)?;
                for ip in pieces {
                    let start: Vec<u64> = in_output
                        .start()
                        .iter()
                        .zip(ip.in_output.start())
                        .map(|(a, b)| a + b)
                        .collect();
                    let region =
                        Region::new(&start, ip.in_output.shape()).map_err(ErrorKind::Layout)?;
                    match index.get(&ip.chunk).map_err(ErrorKind::Shard)? {
                        None => self.fill(t, &region, out)?,
                        Some(r) => self.read_level(
                            ctx,
                            level + 1,
                            t,
                            offset + r.offset,
                            r.len,
                            &ip.in_chunk,
                            &region,
                            out,
                        )?,
                    }
                }
                Ok(())
            }
        }
    }

    /// Decodes the stored bytes `key[offset..offset+len]` into `dst` (exactly its size): read
    /// straight into `dst` when there is nothing to decode, else streamed in blocks.
    fn decode(
        &self,
        ctx: &mut ReadContext,
        key: &str,
        offset: u64,
        len: u64,
        codecs: &BytesCodecs,
        dst: &mut [u8],
    ) -> Result<(), ErrorKind> {
        if *codecs == BytesCodecs::default() {
            if len != dst.len() as u64 {
                return Err(ErrorKind::Decode(DecodeError::SizeMismatch {
                    codec: zinto_core::codec::CodecName::Bytes,
                    expected: dst.len() as u64,
                    got: len,
                }));
            }
            return self
                .store
                .read_into(key, offset, dst)
                .map_err(ErrorKind::Store);
        }
        ctx.decoder
            .start(codecs, len, dst.len())
            .map_err(ErrorKind::Decode)?;
        let block_len = usize::try_from(len).unwrap_or(usize::MAX).min(BLOCK_LEN);
        ctx.block.resize(block_len, 0);
        let mut at = 0u64;
        let mut status = Status::NeedsInput;
        while at < len {
            let n = usize::try_from(len - at)
                .unwrap_or(usize::MAX)
                .min(block_len);
            let block = ctx
                .block
                .get_mut(..n)
                .ok_or(ErrorKind::Layout(LayoutError::Overflow))?;
            self.store
                .read_into(key, offset + at, block)
                .map_err(ErrorKind::Store)?;
            status = ctx
                .decoder
                .feed(block, dst)
                .map_err(ErrorKind::Decode)?
                .status;
            at += n as u64;
        }
        if len == 0 {
            status = ctx
                .decoder
                .feed(&[], dst)
                .map_err(ErrorKind::Decode)?
                .status;
        }
        if status != Status::Done {
            return Err(ErrorKind::Decode(DecodeError::Truncated {
                codec: codecs
                    .compressor
                    .map_or(zinto_core::codec::CodecName::Bytes, |c| c.name()),
            }));
        }
        Ok(())
    }
}

/// Reads a small object whole (metadata), refusing absurd sizes.
fn read_small<S: Store>(store: &S, key: &str) -> Result<Option<Vec<u8>>, ErrorKind> {
    let Some(len) = store.size(key).map_err(ErrorKind::Store)? else {
        return Ok(None);
    };
    if len > MAX_METADATA_LEN {
        return Err(ErrorKind::Metadata(MetadataError::Invalid(format!(
            "{key} is {len} bytes, more than the {MAX_METADATA_LEN} allowed for metadata"
        ))));
    }
    let mut buf = vec![0u8; usize::try_from(len).unwrap_or(0)];
    match store.read_into(key, 0, &mut buf) {
        Ok(()) => Ok(Some(buf)),
        Err(StoreError::Missing) => Ok(None),
        Err(e) => Err(ErrorKind::Store(e)),
    }
}
