//! Blosc chunks written in c-blosc 1.x's format (what numcodecs, zarr-python and tensorstore
//! decode): the chunk's bytes gathered a block at a time, each block shuffled as the
//! configuration says and compressed on its own. The header and the table of where each block
//! starts come first in the chunk but are known only at its end: the stream reserves room for
//! them ([`Encoder::begin`]'s head) and fills it last ([`Encoder::head`]).
//!
//! An encoder holds one block gathered, one shuffled and one compressed: three blocks of
//! scratch (256 KiB each by default), never the chunk. Blocks are never split into byte
//! streams (header flag 0x10). A block its compressor does not make smaller is stored as it
//! is, as c-blosc stores it. LZ4 and LZ4HC blocks come from zinto-core's LZ4 encoder (the same
//! block format: an LZ4HC chunk is written at LZ4's ratio), BloscLZ from its BloscLZ encoder,
//! zstd and zlib from the std crate's backends ([`EncodeBackends`]). Snappy is refused by name.

use alloc::boxed::Box;
use alloc::vec::Vec;

use super::{BloscCname, BloscConfig, BloscShuffle};
use super::{BloscHeader, HEADER_LEN, InnerCodec, MAX_BLOCKSIZE, ShuffleMode, WrittenSizes};
use crate::codec::blosclz;
use crate::codec::encode::{BlockCompress, EncodeBackends, EncodeError, Encoder, status};
use crate::codec::lz4_encode::{self, Lz4Encoder};
use crate::codec::shuffle::{bitshuffle, shuffle};
use crate::codec::{CodecName, Progress};

/// The block size when the configuration leaves it to the writer (0): c-blosc's choice for
/// float32 at its default level, and small enough for three blocks per worker.
pub const AUTO_BLOCK: u32 = 256 << 10;

/// The largest chunk c-blosc 1.x takes (`BLOSC_MAX_BUFFERSIZE`).
const MAX_NBYTES: u64 = i32::MAX as u64 - HEADER_LEN as u64;

/// How one block is compressed.
enum Inner {
    /// zinto-core's LZ4 block encoder and its hash table.
    Lz4(Box<[u32; lz4_encode::HASH_ENTRIES]>),
    /// zinto-core's BloscLZ encoder and its hash table.
    BloscLz(Box<[u32; blosclz::HASH_ENTRIES]>),
    /// A backend's (zstd, zlib).
    Backend(Box<dyn BlockCompress>),
}

impl Inner {
    /// `src` compressed into `dst`; `None` where it does not fit (the block is then stored as
    /// it is).
    fn compress(&mut self, src: &[u8], dst: &mut [u8]) -> Option<usize> {
        match self {
            Self::Lz4(table) => match Lz4Encoder::new().encode(src, dst, table)? {
                (n, true) => Some(n),
                (_, false) => None,
            },
            Self::BloscLz(table) => blosclz::compress(src, dst, table),
            Self::Backend(b) => b.compress(src, dst),
        }
    }
}

/// A Blosc chunk under way.
pub struct BloscEncoder {
    inner: Inner,
    code: InnerCodec,
    /// 0: blocks stored as they are (c-blosc's level 0).
    clevel: u8,
    shuffle: ShuffleMode,
    typesize: u8,
    /// The configured block size (0: [`AUTO_BLOCK`]).
    blocksize_conf: u64,
    sizes: WrittenSizes,
    nblocks: u32,
    /// The block being gathered, the same shuffled, and the one compressed (its length
    /// first) with how much of it went out.
    block: Vec<u8>,
    shuffled: Vec<u8>,
    staged: Vec<u8>,
    drained: usize,
    blocks_done: u32,
    /// Where each block starts, from the chunk's first byte.
    bstarts: Vec<u32>,
    /// The header and block table, made at the end.
    head: Vec<u8>,
}

fn refused(what: &'static str) -> EncodeError {
    EncodeError::Unsupported {
        codec: CodecName::Blosc,
        what,
    }
}

fn too_large(len: u64, max: u64) -> EncodeError {
    EncodeError::TooLarge {
        codec: CodecName::Blosc,
        len,
        max,
    }
}

/// The inner compressor `cname` names, at `clevel`, and the code the header gives it.
fn inner(
    cname: BloscCname,
    clevel: u8,
    backends: &dyn EncodeBackends,
) -> Result<(Inner, InnerCodec), EncodeError> {
    Ok(match cname {
        BloscCname::Lz4 | BloscCname::Lz4Hc => (
            Inner::Lz4(Box::new([0; lz4_encode::HASH_ENTRIES])),
            InnerCodec::Lz4,
        ),
        BloscCname::BloscLz => (
            Inner::BloscLz(Box::new([0; blosclz::HASH_ENTRIES])),
            InnerCodec::BloscLz,
        ),
        // c-blosc's level for `clevel`: `2 clevel - 1`, the library's maximum from 9.
        BloscCname::Zstd => {
            let level = match clevel {
                9.. => backends.zstd_max_level(),
                n => 2 * i32::from(n) - 1,
            };
            (
                Inner::Backend(backends.zstd_block(level)?),
                InnerCodec::Zstd,
            )
        }
        BloscCname::Zlib => (
            Inner::Backend(backends.zlib_block(clevel)?),
            InnerCodec::Zlib,
        ),
        BloscCname::Snappy => return Err(refused("snappy inside (zinto only decodes it)")),
    })
}

/// The shuffle `stated` means for elements of `typesize` bytes (numcodecs' automatic choice:
/// bits for one-byte elements, bytes otherwise).
pub(crate) fn resolve_shuffle(stated: Option<BloscShuffle>, typesize: u64) -> ShuffleMode {
    match stated.unwrap_or(BloscShuffle::Shuffle) {
        BloscShuffle::NoShuffle => ShuffleMode::None,
        BloscShuffle::Shuffle => ShuffleMode::Byte,
        BloscShuffle::BitShuffle => ShuffleMode::Bit,
        BloscShuffle::Auto if typesize == 1 => ShuffleMode::Bit,
        BloscShuffle::Auto => ShuffleMode::Byte,
    }
}

/// `block` shuffled as `mode` says (into `spare`), or as it is.
fn shuffled<'a>(
    mode: ShuffleMode,
    typesize: u8,
    block: &'a [u8],
    spare: &'a mut Vec<u8>,
) -> Result<&'a [u8], EncodeError> {
    let unshufflable = EncodeError::Internal {
        what: "a Blosc block of another size than its shuffle buffer",
    };
    let len = block.len();
    match mode {
        ShuffleMode::Byte if typesize > 1 => {
            spare.resize(len, 0);
            shuffle(block, spare, typesize.into()).map_err(|_| unshufflable)?;
            Ok(spare)
        }
        ShuffleMode::Bit if len >= usize::from(typesize) => {
            spare.resize(len, 0);
            bitshuffle(block, spare, typesize.into()).map_err(|_| unshufflable)?;
            Ok(spare)
        }
        ShuffleMode::None | ShuffleMode::Byte | ShuffleMode::Bit => Ok(block),
    }
}

impl BloscEncoder {
    /// An encoder for `config`, elements of `elem` bytes (the typesize unless it states one),
    /// its zstd and zlib from `backends`.
    ///
    /// # Errors
    /// [`EncodeError::Unsupported`] for Snappy inside, or a backend this build lacks.
    pub fn new(
        config: &BloscConfig,
        elem: usize,
        backends: &dyn EncodeBackends,
    ) -> Result<Self, EncodeError> {
        let clevel = config.clevel.unwrap_or(5).min(9);
        let (inner, code) = inner(config.cname.unwrap_or(BloscCname::Lz4), clevel, backends)?;
        // The stated typesize, else the element's size; c-blosc takes elements over 255 bytes
        // (and of none) as bytes: its header's typesize is one byte, 1 for those.
        let stated = config.typesize.unwrap_or(elem as u64);
        let typesize = u8::try_from(stated).ok().filter(|&t| t > 0).unwrap_or(1);
        Ok(Self {
            inner,
            code,
            clevel,
            shuffle: resolve_shuffle(config.shuffle, u64::from(typesize)),
            typesize,
            blocksize_conf: config.blocksize.unwrap_or(0),
            sizes: WrittenSizes {
                typesize,
                nbytes: 0,
                blocksize: 0,
                cbytes: 0,
            },
            nblocks: 0,
            block: Vec::new(),
            shuffled: Vec::new(),
            staged: Vec::new(),
            drained: 0,
            blocks_done: 0,
            bstarts: Vec::new(),
            head: Vec::new(),
        })
    }

    /// The block size for a chunk of `nbytes`: as configured or [`AUTO_BLOCK`], at most the
    /// chunk, whole elements where a block holds more than one.
    fn blocksize(&self, nbytes: u32) -> u32 {
        let conf = match self.blocksize_conf {
            0 => AUTO_BLOCK,
            n => u32::try_from(n).unwrap_or(u32::MAX),
        };
        let ts = u32::from(self.typesize);
        let b = conf.min(nbytes).min(MAX_BLOCKSIZE);
        if b > ts { b / ts * ts } else { b.max(1) }
    }

    /// The length of block `j`.
    fn block_len(&self, j: u32) -> usize {
        let WrittenSizes {
            nbytes, blocksize, ..
        } = self.sizes;
        let rest = nbytes - j.saturating_mul(blocksize).min(nbytes);
        rest.min(blocksize) as usize
    }

    /// Shuffles and compresses the gathered block into `staged`, its length first. The
    /// compressor is given room for the block's own length only: what does not shrink is
    /// stored as it is.
    fn compress_block(&mut self) -> Result<(), EncodeError> {
        let len = self.block.len();
        self.staged.clear();
        self.staged.resize(4 + len, 0);
        let src = shuffled(self.shuffle, self.typesize, &self.block, &mut self.shuffled)?;
        let dst = &mut self.staged[4..];
        let packed = match self.clevel {
            0 => None,
            _ => self.inner.compress(src, dst),
        };
        // A block no smaller compressed is stored as it is: its length says so.
        let csize = match packed {
            Some(n) if n < len => n,
            _ => {
                dst[..len].copy_from_slice(src);
                len
            }
        };
        self.staged.truncate(4 + csize);
        let csize32 = u32::try_from(csize).map_err(|_| too_large(len as u64, MAX_NBYTES))?;
        self.staged[..4].copy_from_slice(&csize32.to_le_bytes());
        let start = self.sizes.cbytes;
        self.bstarts.push(start);
        // c-blosc reads the stored size and the block starts as signed 32-bit numbers.
        self.sizes.cbytes = start
            .checked_add(4 + csize32)
            .filter(|&c| c <= i32::MAX as u32)
            .ok_or(too_large(u64::from(self.sizes.nbytes), MAX_NBYTES))?;
        self.drained = 0;
        self.block.clear();
        self.blocks_done += 1;
        Ok(())
    }

    /// The header and block table, once every block is out.
    fn make_head(&mut self) {
        let header = BloscHeader::written(self.shuffle, self.code, self.sizes);
        self.head.clear();
        self.head.extend_from_slice(&header.to_bytes());
        for s in &self.bstarts {
            self.head.extend_from_slice(&s.to_le_bytes());
        }
    }
}

impl Encoder for BloscEncoder {
    /// c-blosc 1.x takes chunks under 2 GiB.
    fn begin(&mut self, len: u64) -> Result<usize, EncodeError> {
        if len > MAX_NBYTES {
            return Err(too_large(len, MAX_NBYTES));
        }
        let nbytes = u32::try_from(len).map_err(|_| too_large(len, MAX_NBYTES))?;
        let blocksize = self.blocksize(nbytes);
        self.nblocks = match nbytes {
            0 => 0,
            n => n.div_ceil(blocksize),
        };
        let head = HEADER_LEN + 4 * self.nblocks as usize;
        self.sizes = WrittenSizes {
            typesize: self.typesize,
            nbytes,
            blocksize,
            cbytes: u32::try_from(head).map_err(|_| too_large(len, MAX_NBYTES))?,
        };
        self.bstarts.clear();
        self.block.clear();
        self.staged.clear();
        self.drained = 0;
        self.blocks_done = 0;
        Ok(head)
    }

    fn whole_input(&self) -> bool {
        false
    }

    fn head(&self) -> &[u8] {
        &self.head
    }

    fn encode(
        &mut self,
        input: &[u8],
        out: &mut [u8],
        last: bool,
    ) -> Result<Progress, EncodeError> {
        let (mut consumed, mut written) = (0, 0);
        loop {
            let n = (self.staged.len() - self.drained).min(out.len() - written);
            out[written..written + n].copy_from_slice(&self.staged[self.drained..self.drained + n]);
            (self.drained, written) = (self.drained + n, written + n);
            if self.drained < self.staged.len() {
                break;
            }
            if self.blocks_done == self.nblocks {
                if consumed < input.len() {
                    return Err(EncodeError::Internal {
                        what: "a Blosc chunk given more bytes than it began with",
                    });
                }
                if last {
                    self.make_head();
                    return Ok(Progress {
                        consumed,
                        written,
                        status: status(true, written, out.len()),
                    });
                }
                break;
            }
            let want = self.block_len(self.blocks_done) - self.block.len();
            let take = want.min(input.len() - consumed);
            self.block
                .extend_from_slice(&input[consumed..consumed + take]);
            consumed += take;
            if take == want {
                self.compress_block()?;
            } else if last {
                return Err(EncodeError::Internal {
                    what: "a Blosc chunk given fewer bytes than it began with",
                });
            } else {
                break;
            }
        }
        Ok(Progress {
            consumed,
            written,
            status: status(false, written, out.len()),
        })
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::codec::Status;
    use crate::codec::encode::DeflateFraming;
    use std::vec;

    /// A build with no backends: zstd and zlib are refused.
    struct NoBackends;

    impl EncodeBackends for NoBackends {
        fn zstd(&self, _: i32, _: bool) -> Result<Box<dyn Encoder>, EncodeError> {
            Err(refused("no zstd here"))
        }
        fn deflate(
            &self,
            _: DeflateFraming,
            _: Option<u8>,
        ) -> Result<Box<dyn Encoder>, EncodeError> {
            Err(refused("no deflate here"))
        }
        fn zstd_block(&self, _: i32) -> Result<Box<dyn BlockCompress>, EncodeError> {
            Err(refused("no zstd here"))
        }
        fn zlib_block(&self, _: u8) -> Result<Box<dyn BlockCompress>, EncodeError> {
            Err(refused("no zlib here"))
        }
        fn zstd_max_level(&self) -> i32 {
            22
        }
    }

    /// Encodes `data` whole through `e` in windows of 100 bytes: the chunk, head filled in.
    fn encode(e: &mut BloscEncoder, data: &[u8]) -> Vec<u8> {
        let head = e.begin(data.len() as u64).unwrap();
        let mut stored = vec![0u8; head];
        let mut window = [0u8; 100];
        let mut input = data;
        loop {
            let p = e.encode(input, &mut window, true).unwrap();
            input = &input[p.consumed..];
            stored.extend_from_slice(&window[..p.written]);
            if p.status == Status::Done {
                break;
            }
        }
        stored[..head].copy_from_slice(e.head());
        stored
    }

    fn config(cname: BloscCname, shuffle: BloscShuffle, blocksize: u64) -> BloscConfig {
        BloscConfig {
            cname: Some(cname),
            clevel: Some(5),
            shuffle: Some(shuffle),
            typesize: None,
            blocksize: Some(blocksize),
        }
    }

    #[test]
    fn compressible_blocks_are_compressed_and_the_header_says_what_is_there() {
        let data: Vec<u8> = (0..5000u32).flat_map(|i| (i % 50).to_le_bytes()).collect();
        for cname in [BloscCname::Lz4, BloscCname::Lz4Hc, BloscCname::BloscLz] {
            let c = config(cname, BloscShuffle::Shuffle, 4096);
            let mut e = BloscEncoder::new(&c, 4, &NoBackends).unwrap();
            let stored = encode(&mut e, &data);
            let head: &[u8; 16] = stored[..16].try_into().unwrap();
            let h = BloscHeader::parse(head, stored.len() as u64, data.len() as u64).unwrap();
            assert_eq!((h.nbytes, h.blocksize, h.typesize), (20_000, 4096, 4));
            assert_eq!(h.cbytes as usize, stored.len());
            assert_eq!(h.nblocks(), 5);
            assert!(stored.len() < data.len() / 4, "{cname:?}: {}", stored.len());
        }
    }

    #[test]
    fn a_block_that_does_not_shrink_is_stored_as_it_is() {
        let mut x = 1u32;
        let noise: Vec<u8> = (0..3000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x.to_le_bytes()[0]
            })
            .collect();
        let c = config(BloscCname::Lz4, BloscShuffle::NoShuffle, 0);
        let mut e = BloscEncoder::new(&c, 1, &NoBackends).unwrap();
        let stored = encode(&mut e, &noise);
        // Header, one block start, the block's length, the block as it is.
        assert_eq!(stored.len(), 16 + 4 + 4 + 3000);
        assert_eq!(&stored[24..], &noise[..]);
    }

    /// What has no encoder is refused by name when the encoder is made, and a chunk c-blosc
    /// cannot state when it begins.
    #[test]
    fn snappy_missing_backends_and_oversized_chunks_are_refused() {
        for cname in [BloscCname::Snappy, BloscCname::Zstd, BloscCname::Zlib] {
            let c = config(cname, BloscShuffle::Shuffle, 0);
            let e = BloscEncoder::new(&c, 4, &NoBackends).err().unwrap();
            assert!(matches!(
                e,
                EncodeError::Unsupported {
                    codec: CodecName::Blosc,
                    ..
                }
            ));
        }
        let c = config(BloscCname::Lz4, BloscShuffle::Shuffle, 0);
        let mut e = BloscEncoder::new(&c, 4, &NoBackends).unwrap();
        assert!(matches!(
            e.begin(1 << 31),
            Err(EncodeError::TooLarge { len, .. }) if len == 1 << 31
        ));
    }
}
