//! Blosc chunks for the write path, in c-blosc 1.x's format (what numcodecs, zarr-python and
//! tensorstore decode): the chunk's bytes gathered a block at a time, each block shuffled as
//! the configuration says and compressed on its own. The header and the table of where each
//! block starts come first in the chunk but are known only at its end: the stream reserves
//! room for them ([`Encode::begin`]'s head) and fills it last ([`Encode::head`]).
//!
//! A worker holds one block gathered, one shuffled and one compressed: three blocks of scratch
//! (256 KiB each by default), never the chunk. Blocks are never split into byte streams
//! (header flag 0x10). A block its compressor does not make smaller is stored as it is, as
//! c-blosc stores it. LZ4 and LZ4HC blocks come from lz4_flex's compressor (the same block
//! format: an LZ4HC chunk is written at LZ4's ratio), BloscLZ from zinto-core's encoder, zstd
//! from C zstd (feature `zstd-c`) and zlib from zlib-rs (feature `zlib-rs`). Snappy is refused
//! by name.

use zinto_core::codec::blosc::{BloscCname, BloscShuffle};
use zinto_core::codec::blosc::{BloscHeader, HEADER_LEN, InnerCodec, ShuffleMode, WrittenSizes};
use zinto_core::codec::shuffle::{bitshuffle, shuffle};
use zinto_core::codec::{BloscConfig, Progress, blosclz};

use super::encode::{Encode, EncodeError, status};

/// The block size when the configuration leaves it to the writer (0): c-blosc's choice for
/// float32 at its default level, and small enough for three blocks per worker.
pub(crate) const AUTO_BLOCK: u32 = 256 << 10;

/// The largest chunk c-blosc 1.x takes (`BLOSC_MAX_BUFFERSIZE`).
const MAX_NBYTES: u64 = i32::MAX as u64 - HEADER_LEN as u64;

/// How one block is compressed.
enum Inner {
    Lz4,
    /// zinto-core's BloscLZ encoder and its hash table.
    BloscLz(Box<[u32; blosclz::HASH_ENTRIES]>),
    #[cfg(feature = "zstd-c")]
    Zstd(zstd_safe::CCtx<'static>, i32),
    #[cfg(feature = "zlib-rs")]
    Zlib(flate2::Compression),
}

/// A Blosc chunk under way.
pub(super) struct BloscEncode {
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

fn refused(what: &str) -> EncodeError {
    EncodeError::Unsupported(format!("blosc: {what}"))
}

impl BloscEncode {
    /// An encoder for `config`, elements of `elem` bytes (the typesize unless it states one).
    pub(super) fn new(config: &BloscConfig, elem: usize) -> Result<Self, EncodeError> {
        let clevel = config.clevel.unwrap_or(5).min(9);
        let (inner, code) = match config.cname.unwrap_or(BloscCname::Lz4) {
            BloscCname::Lz4 | BloscCname::Lz4Hc => (Inner::Lz4, InnerCodec::Lz4),
            #[cfg(feature = "zstd-c")]
            BloscCname::Zstd => (zstd_inner(clevel)?, InnerCodec::Zstd),
            #[cfg(feature = "zlib-rs")]
            BloscCname::Zlib => (
                Inner::Zlib(flate2::Compression::new(u32::from(clevel))),
                InnerCodec::Zlib,
            ),
            #[cfg(not(feature = "zstd-c"))]
            BloscCname::Zstd => return Err(refused("zstd inside (this build has no zstd-c)")),
            #[cfg(not(feature = "zlib-rs"))]
            BloscCname::Zlib => return Err(refused("zlib inside (this build has no zlib-rs)")),
            BloscCname::BloscLz => (
                Inner::BloscLz(Box::new([0; blosclz::HASH_ENTRIES])),
                InnerCodec::BloscLz,
            ),
            BloscCname::Snappy => return Err(refused("snappy inside")),
            // A name added to zinto-core after this list (the enum is non-exhaustive).
            _ => return Err(refused("an inner compressor the write path does not know")),
        };
        // The stated typesize, else the element's size; c-blosc takes elements over 255 bytes
        // (and of none) as bytes: its header's typesize is one byte, 1 for those.
        let stated = config.typesize.unwrap_or(elem as u64);
        let typesize = u8::try_from(stated).ok().filter(|&t| t > 0).unwrap_or(1);
        let shuffle = match config.shuffle.unwrap_or(BloscShuffle::Shuffle) {
            BloscShuffle::NoShuffle => ShuffleMode::None,
            BloscShuffle::Shuffle => ShuffleMode::Byte,
            BloscShuffle::BitShuffle => ShuffleMode::Bit,
            BloscShuffle::Auto if typesize == 1 => ShuffleMode::Bit,
            BloscShuffle::Auto => ShuffleMode::Byte,
            _ => return Err(refused("a shuffle the write path does not know")),
        };
        Ok(Self {
            inner,
            code,
            clevel,
            shuffle,
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
        let b = conf
            .min(nbytes)
            .min(zinto_core::codec::blosc::MAX_BLOCKSIZE);
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

    /// Shuffles and compresses the gathered block into `staged`, its length first.
    fn compress_block(&mut self) -> Result<(), EncodeError> {
        let len = self.block.len();
        let src: &[u8] = match self.shuffle {
            ShuffleMode::Byte if self.typesize > 1 => {
                self.shuffled.resize(len, 0);
                shuffle(&self.block, &mut self.shuffled, self.typesize.into())
                    .map_err(|e| EncodeError::Library(e.to_string()))?;
                &self.shuffled
            }
            ShuffleMode::Bit if len >= usize::from(self.typesize) => {
                self.shuffled.resize(len, 0);
                bitshuffle(&self.block, &mut self.shuffled, self.typesize.into())
                    .map_err(|e| EncodeError::Library(e.to_string()))?;
                &self.shuffled
            }
            _ => &self.block,
        };
        self.staged.clear();
        self.staged.resize(4 + bound(len), 0);
        let dst = &mut self.staged[4..];
        let packed = match self.clevel {
            0 => None,
            _ => compress(&mut self.inner, src, dst),
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
        let csize32 = u32::try_from(csize).map_err(|_| refused("a block over 4 GiB"))?;
        self.staged[..4].copy_from_slice(&csize32.to_le_bytes());
        let start = self.sizes.cbytes;
        self.bstarts.push(start);
        // c-blosc reads the stored size and the block starts as signed 32-bit numbers.
        self.sizes.cbytes = start
            .checked_add(4 + csize32)
            .filter(|&c| c <= i32::MAX as u32)
            .ok_or(refused(
                "a chunk stored in over 2 GiB (c-blosc 1.x's limit)",
            ))?;
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

/// Room for a block of `len` bytes compressed by any inner compressor here: lz4_flex asks for
/// its own worst case (about 1.1 times the block) or refuses to start.
fn bound(len: usize) -> usize {
    lz4_flex::block::get_maximum_output_size(len).max(len + len / 255 + 64)
}

/// `src` compressed into `dst`; `None` where it does not fit (the block is stored as it is).
fn compress(inner: &mut Inner, src: &[u8], dst: &mut [u8]) -> Option<usize> {
    match inner {
        Inner::Lz4 => lz4_flex::block::compress_into(src, dst).ok(),
        Inner::BloscLz(table) => blosclz::compress(src, dst, table),
        #[cfg(feature = "zstd-c")]
        Inner::Zstd(cctx, level) => cctx.compress(dst, src, *level).ok(),
        #[cfg(feature = "zlib-rs")]
        Inner::Zlib(level) => {
            let mut z = flate2::Compress::new(*level, true);
            match z.compress(src, dst, flate2::FlushCompress::Finish) {
                Ok(flate2::Status::StreamEnd) => usize::try_from(z.total_out()).ok(),
                _ => None,
            }
        }
    }
}

/// C zstd's context at c-blosc's level for `clevel` (`2 clevel - 1`, the maximum from 9).
#[cfg(feature = "zstd-c")]
fn zstd_inner(clevel: u8) -> Result<Inner, EncodeError> {
    let cctx = zstd_safe::CCtx::try_create()
        .ok_or(EncodeError::Library("no memory for a zstd context".into()))?;
    let level = match clevel {
        9.. => zstd_safe::max_c_level(),
        n => 2 * i32::from(n) - 1,
    };
    Ok(Inner::Zstd(cctx, level))
}

impl Encode for BloscEncode {
    fn begin(&mut self, len: u64) -> Result<usize, EncodeError> {
        if len > MAX_NBYTES {
            return Err(refused("a chunk over 2 GiB (c-blosc 1.x's limit)"));
        }
        let nbytes = u32::try_from(len).map_err(|_| refused("a chunk over 2 GiB"))?;
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
            cbytes: u32::try_from(head).map_err(|_| refused("a block table over 4 GiB"))?,
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
                    return Err(EncodeError::Library("more bytes than the chunk".into()));
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
                return Err(EncodeError::Library("fewer bytes than the chunk".into()));
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
    use super::*;
    use zinto_core::codec::blosc::BloscHeader;

    /// Encodes `data` whole through `e` in windows of 100 bytes: the chunk, head filled in.
    fn encode(e: &mut BloscEncode, data: &[u8]) -> Vec<u8> {
        let head = e.begin(data.len() as u64).unwrap();
        let mut stored = vec![0u8; head];
        let mut window = [0u8; 100];
        let mut input = data;
        loop {
            let p = e.encode(input, &mut window, true).unwrap();
            input = &input[p.consumed..];
            stored.extend_from_slice(&window[..p.written]);
            if p.status == zinto_core::codec::Status::Done {
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
            let mut e = BloscEncode::new(&config(cname, BloscShuffle::Shuffle, 4096), 4).unwrap();
            let stored = encode(&mut e, &data);
            let head: &[u8; 16] = stored[..16].try_into().unwrap();
            let h = BloscHeader::parse(head, stored.len() as u64, data.len() as u64).unwrap();
            assert_eq!((h.nbytes, h.blocksize, h.typesize), (20_000, 4096, 4));
            assert_eq!(h.cbytes as usize, stored.len());
            assert_eq!(h.nblocks(), 5);
            assert!(
                stored.len() < data.len() / 4,
                "{cname:?}: {} bytes",
                stored.len()
            );
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
        let mut e =
            BloscEncode::new(&config(BloscCname::Lz4, BloscShuffle::NoShuffle, 0), 1).unwrap();
        let stored = encode(&mut e, &noise);
        // Header, one block start, the block's length, the block as it is.
        assert_eq!(stored.len(), 16 + 4 + 4 + 3000);
        assert_eq!(&stored[24..], &noise[..]);
    }
}
