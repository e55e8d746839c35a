//! Blosc (the c-blosc 1.x chunk format that numcodecs and zarr-python write), decoded in pure
//! Rust, streamed, into the caller's buffer.
//!
//! The header and the block-start table come first, then the blocks; each block is one
//! stream, or `typesize` streams ("split"), each compressed by the inner compressor (BloscLZ,
//! LZ4/LZ4HC, Snappy, zlib or zstd) or stored as is. A block is decoded straight into its place
//! in the destination, or, when shuffled, into one block of scratch and unshuffled from there
//! into its place: every decoded byte is written to the destination once. When the table is in
//! order (as c-blosc writes it single-threaded) the stored chunk is never held whole: a stream
//! that arrives in pieces is gathered in the part of memory its decoding does not write (its
//! place in the destination when shuffled, the scratch otherwise; Snappy's, which may be longer
//! than its block, in scratch of its own). A table out of order (older multithreaded c-blosc)
//! makes the decoder gather the stream after the table whole first (`permuted.rs`).
//!
//! Scratch (supplied by the caller through [`Scratch`]): the block table (4 bytes a block) plus
//! one block; for Snappy, another `32 + blocksize + blocksize / 6` bytes; for a table out of
//! order, a second copy of the table and the stored bytes after it instead. All are bounded by
//! sizes already checked against the real stored and decoded lengths, never by the header
//! alone.
//!
//! Blocks are independent, so the decoder can fill a window of the output: when the window has
//! no room for the next block it reports [`Status::NeedsOutput`] and goes on in the next window.

#[cfg(feature = "alloc")]
mod encode;
mod header;
mod permuted;

#[cfg(feature = "alloc")]
pub use encode::{AUTO_BLOCK, BloscEncoder};
pub use header::{
    BloscHeader, FORMAT_VERSION, HEADER_LEN, INNER_FORMAT_VERSION, InnerCodec, MAX_BLOCKSIZE,
    ShuffleMode, WrittenSizes,
};

use super::config::{Config, Reader};
use super::error::{
    INPUT_OVERRUN, NO_HEADER, OUTPUT_OVERRUN, SCRATCH_OVERRUN, SIZE_NOT_USIZE, STAGED_OVERRUN,
    UNSHUFFLE_SIZES,
};
use super::shuffle::{bitunshuffle, unshuffle};
use super::{ChainError, CodecName, DecodeError, Progress, Status};

/// Blosc's `cname`: the inner compressor a writer asked for (the header says what was used).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BloscCname {
    /// `blosclz`.
    BloscLz,
    /// `lz4`.
    Lz4,
    /// `lz4hc`.
    Lz4Hc,
    /// `snappy`.
    Snappy,
    /// `zlib`.
    Zlib,
    /// `zstd`.
    Zstd,
}

impl BloscCname {
    const NAMES: [(Self, &'static str); 6] = [
        (Self::BloscLz, "blosclz"),
        (Self::Lz4, "lz4"),
        (Self::Lz4Hc, "lz4hc"),
        (Self::Snappy, "snappy"),
        (Self::Zlib, "zlib"),
        (Self::Zstd, "zstd"),
    ];

    /// The name metadata uses.
    pub fn name(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(c, _)| *c == self)
            .map_or("?", |(_, n)| n)
    }
}

/// Blosc's `shuffle` setting as metadata states it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BloscShuffle {
    /// `noshuffle` / 0.
    NoShuffle,
    /// `shuffle` / 1.
    Shuffle,
    /// `bitshuffle` / 2.
    BitShuffle,
    /// numcodecs' `AUTOSHUFFLE` (-1): bit shuffle for one-byte elements, byte shuffle otherwise.
    Auto,
}

/// Blosc's configuration: what the writer asked for. The header of each chunk says what it
/// holds; decoding follows the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BloscConfig {
    /// Inner compressor, if stated.
    pub cname: Option<BloscCname>,
    /// Compression level 0-9, if stated.
    pub clevel: Option<u8>,
    /// Shuffle, if stated.
    pub shuffle: Option<BloscShuffle>,
    /// Element size for the shuffle (v3), if stated: the array's element size, as zarr-python
    /// states it, even over 255 bytes (fixed-length strings of 64 characters and more), where
    /// c-blosc shuffles bytes (its header's typesize is one byte: 1 for those).
    pub typesize: Option<u64>,
    /// Block size (0: automatic), if stated.
    pub blocksize: Option<u64>,
}

impl BloscConfig {
    /// Reads `cname`, `clevel`, `shuffle` (the v3 names or numcodecs' numbers), `typesize` and
    /// `blocksize`.
    pub(crate) fn from_config<C: Config + ?Sized>(r: &Reader<'_, C>) -> Result<Self, ChainError> {
        let cname = match r.str("cname")? {
            None => None,
            Some(name) => {
                let c = BloscCname::NAMES
                    .iter()
                    .find(|(_, n)| *n == name)
                    .map(|(c, _)| *c)
                    .ok_or(r.error("cname", "is not blosclz, lz4, lz4hc, snappy, zlib or zstd"))?;
                Some(c)
            }
        };
        let shuffle = match r.config.get("shuffle") {
            None | Some(super::ConfigValue::Null) => None,
            Some(super::ConfigValue::Str(s)) => Some(match s {
                "noshuffle" => BloscShuffle::NoShuffle,
                "shuffle" => BloscShuffle::Shuffle,
                "bitshuffle" => BloscShuffle::BitShuffle,
                _ => return Err(r.error("shuffle", "is not noshuffle, shuffle or bitshuffle")),
            }),
            Some(_) => Some(match r.int("shuffle")? {
                Some(0) => BloscShuffle::NoShuffle,
                Some(1) => BloscShuffle::Shuffle,
                Some(2) => BloscShuffle::BitShuffle,
                Some(-1) => BloscShuffle::Auto,
                _ => return Err(r.error("shuffle", "is not -1, 0, 1 or 2")),
            }),
        };
        // Ranges checked: the casts are exact.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Ok(Self {
            cname,
            clevel: r.int_in("clevel", 0, 9)?.map(|l| l as u8),
            shuffle,
            typesize: r.int_in("typesize", 1, i64::MAX)?.map(|t| t as u64),
            blocksize: r.int_in("blocksize", 0, i64::MAX)?.map(|b| b as u64),
        })
    }
}

impl core::fmt::Display for BloscConfig {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut sep = "";
        if let Some(c) = self.cname {
            write!(f, "{sep}{}", c.name())?;
            sep = ", ";
        }
        if let Some(l) = self.clevel {
            write!(f, "{sep}clevel {l}")?;
            sep = ", ";
        }
        if let Some(s) = self.shuffle {
            let s = match s {
                BloscShuffle::NoShuffle => "noshuffle",
                BloscShuffle::Shuffle => "shuffle",
                BloscShuffle::BitShuffle => "bitshuffle",
                BloscShuffle::Auto => "autoshuffle",
            };
            write!(f, "{sep}{s}")?;
        }
        Ok(())
    }
}

/// Memory a decoder may use besides the destination: a caller's fixed slice (`&mut [u8]`),
/// or, with the `alloc` feature, a `Vec<u8>` that grows to what is asked (the asks are
/// bounded by sizes already checked against the real stored and decoded lengths).
pub trait Scratch {
    /// The first `len` bytes of scratch.
    ///
    /// # Errors
    /// [`DecodeError::ScratchTooSmall`] if a fixed scratch is shorter than `len`.
    fn reserve(&mut self, len: usize) -> Result<&mut [u8], DecodeError>;
}

impl Scratch for &mut [u8] {
    fn reserve(&mut self, len: usize) -> Result<&mut [u8], DecodeError> {
        let have = self.len();
        self.get_mut(..len).ok_or(DecodeError::ScratchTooSmall {
            needed: len as u64,
            have: have as u64,
        })
    }
}

#[cfg(feature = "alloc")]
impl Scratch for alloc::vec::Vec<u8> {
    fn reserve(&mut self, len: usize) -> Result<&mut [u8], DecodeError> {
        if self.len() < len {
            self.resize(len, 0);
        }
        self.get_mut(..len).ok_or(SCRATCH_OVERRUN)
    }
}

/// Decompresses one whole inner stream: `src` must decode to exactly `dst.len()` bytes.
pub trait InnerDecompress {
    /// Decompresses `src` (a whole stream of `codec`: BloscLZ, LZ4, Snappy, zlib or zstd) into
    /// `dst`,
    /// returning the bytes written.
    ///
    /// # Errors
    /// The inner codec's [`DecodeError`], or [`DecodeError::Unsupported`] for a codec this
    /// implementation lacks (zstd without the `alloc` feature).
    fn decompress(
        &mut self,
        codec: CodecName,
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<usize, DecodeError>;
}

/// Where the decoder stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Header,
    /// Gathering the block-start table into scratch.
    Table,
    /// About to start block `block`.
    BlockStart,
    /// Gathering the 4-byte size of stream `stream` of the current block.
    StreamSize,
    /// Gathering (or decoding straight from the input) the current stream.
    Stream,
    /// A memcpyed chunk: copying the data as it comes.
    Copy,
    /// A block table out of order (older multithreaded c-blosc): gathering the blocks whole.
    Gather,
    /// Decoding block `block` of the gathered blocks.
    Replay,
    /// Skipping what is stored after the last block (c-blosc ignores it).
    Trailing,
    Done,
}

/// A streaming Blosc decoder; reusable across chunks with [`BloscDecoder::start`].
///
/// ```
/// use zinto_core::codec::{BloscDecoder, InnerDecompress, CodecName, DecodeError, Status};
///
/// // A memcpyed Blosc chunk (flags 0x02) of 4 bytes: the header, then the bytes.
/// let mut chunk = vec![2u8, 1, 0x02, 1];
/// for v in [4u32, 4, 20] { chunk.extend(v.to_le_bytes()); } // nbytes, blocksize, cbytes
/// chunk.extend([10, 20, 30, 40]);
///
/// struct NoInner;
/// impl InnerDecompress for NoInner {
///     fn decompress(&mut self, codec: CodecName, _: &[u8], _: &mut [u8]) -> Result<usize, DecodeError> {
///         Err(DecodeError::Unsupported { codec, what: "anything" })
///     }
/// }
/// let mut scratch = [0u8; 64];
/// let mut decoder = BloscDecoder::new(&mut scratch[..]);
/// decoder.start(chunk.len() as u64, 4);
/// let mut out = [0u8; 4];
/// let p = decoder.decode(&chunk, &mut out, 0, &mut NoInner)?;
/// assert_eq!((p.status, out), (Status::Done, [10, 20, 30, 40]));
/// # Ok::<(), DecodeError>(())
/// ```
#[derive(Debug)]
pub struct BloscDecoder<S> {
    scratch: S,
    phase: Phase,
    stored_len: u64,
    decoded_len: u64,
    header_buf: [u8; HEADER_LEN],
    header: Option<BloscHeader>,
    /// Stored bytes consumed so far.
    at: u64,
    /// Decoded bytes written so far (the chunk offset of the next block).
    produced: u64,
    /// Bytes gathered of the table, a stream size, or a stream.
    have: usize,
    block: u32,
    stream: u32,
    stream_len: usize,
    size_buf: [u8; 4],
}

fn corrupt_block(block: u32, what: &'static str, value: u64) -> DecodeError {
    DecodeError::Block {
        codec: CodecName::Blosc,
        block: block.into(),
        what,
        value,
    }
}

fn to_usize(v: u64) -> Result<usize, DecodeError> {
    usize::try_from(v).map_err(|_| SIZE_NOT_USIZE)
}

impl<S: Scratch> BloscDecoder<S> {
    /// A decoder using `scratch`.
    pub fn new(scratch: S) -> Self {
        Self {
            scratch,
            phase: Phase::Done,
            stored_len: 0,
            decoded_len: 0,
            header_buf: [0; HEADER_LEN],
            header: None,
            at: 0,
            produced: 0,
            have: 0,
            block: 0,
            stream: 0,
            stream_len: 0,
            size_buf: [0; 4],
        }
    }

    /// Starts a chunk of `stored_len` bytes that decodes to `decoded_len` bytes.
    pub fn start(&mut self, stored_len: u64, decoded_len: u64) {
        self.phase = Phase::Header;
        self.stored_len = stored_len;
        self.decoded_len = decoded_len;
        self.header = None;
        self.at = 0;
        self.produced = 0;
        self.have = 0;
        self.block = 0;
        self.stream = 0;
    }

    /// The chunk's header, once read.
    pub fn header(&self) -> Option<&BloscHeader> {
        self.header.as_ref()
    }

    /// Scratch this chunk needs (known once the header is in): the table and one block.
    fn scratch_len(h: &BloscHeader) -> usize {
        if h.memcpyed() || h.nbytes == 0 {
            0
        } else {
            h.nblocks() as usize * 4 + h.blocksize as usize + snappy_stage_len(h)
        }
    }

    /// Decodes as much of `input` as it can into the window `dst`, from `dst[pos..]`.
    ///
    /// Returns [`Status::NeedsOutput`] when the window has no room for the next block (move it
    /// on: pass a new window and `pos` 0; a window must hold at least one block), and
    /// [`Status::Done`] once the last block is out.
    ///
    /// # Errors
    /// A [`DecodeError`] naming the header field, block or stream at fault; the inner
    /// compressor's errors; [`DecodeError::OutputOverflow`] for a window smaller than a block.
    pub fn decode(
        &mut self,
        input: &[u8],
        dst: &mut [u8],
        pos: usize,
        inner: &mut dyn InnerDecompress,
    ) -> Result<Progress, DecodeError> {
        let mut used = 0usize;
        let mut out = pos;
        loop {
            let rest = input.get(used..).ok_or(INPUT_OVERRUN)?;
            let step = match self.phase {
                Phase::Done => break,
                Phase::Header => self.read_header(rest)?,
                Phase::Table => self.read_table(rest)?,
                Phase::Copy => {
                    let left = self.decoded_len - self.produced;
                    if left > 0 && out >= dst.len() && !rest.is_empty() {
                        return Ok(Progress::with_status(used, out - pos, Status::NeedsOutput));
                    }
                    self.copy(rest, dst, &mut out)?
                }
                Phase::BlockStart => {
                    if self.start_block(dst.len(), out, pos)? {
                        return Ok(Progress::with_status(used, out - pos, Status::NeedsOutput));
                    }
                    Some(0)
                }
                Phase::StreamSize => self.read_stream_size(rest)?,
                Phase::Stream => self.read_stream(rest, dst, &mut out, inner)?,
                Phase::Gather => self.gather_blocks(rest)?,
                Phase::Replay => {
                    if self.replay_block(dst, &mut out, pos, inner)? {
                        return Ok(Progress::with_status(used, out - pos, Status::NeedsOutput));
                    }
                    Some(0)
                }
                Phase::Trailing => self.skip_trailing(rest)?,
            };
            match step {
                Some(n) => used += n,
                None => break,
            }
            self.at += match step {
                Some(n) => n as u64,
                None => 0,
            };
        }
        let status = if self.phase == Phase::Done {
            Status::Done
        } else {
            Status::NeedsInput
        };
        Ok(Progress::with_status(used, out - pos, status))
    }

    /// Gathers up to `want` more bytes of `rest` into `buf[have..]`; `None` if `rest` is empty.
    fn gather(buf: &mut [u8], have: &mut usize, rest: &[u8]) -> Result<Option<usize>, DecodeError> {
        if rest.is_empty() {
            return Ok(None);
        }
        let want = buf.len().checked_sub(*have).ok_or(STAGED_OVERRUN)?;
        let n = want.min(rest.len());
        buf.get_mut(*have..*have + n)
            .ok_or(STAGED_OVERRUN)?
            .copy_from_slice(rest.get(..n).ok_or(INPUT_OVERRUN)?);
        *have += n;
        Ok(Some(n))
    }

    fn read_header(&mut self, rest: &[u8]) -> Result<Option<usize>, DecodeError> {
        let mut have = self.have;
        let step = Self::gather(&mut self.header_buf, &mut have, rest)?;
        self.have = have;
        if self.have == HEADER_LEN {
            let h = BloscHeader::parse(&self.header_buf, self.stored_len, self.decoded_len)?;
            self.scratch.reserve(Self::scratch_len(&h))?;
            self.header = Some(h);
            self.have = 0;
            self.phase = if h.nbytes == 0 {
                Phase::Trailing
            } else if h.memcpyed() {
                Phase::Copy
            } else {
                Phase::Table
            };
        }
        Ok(step)
    }

    fn header_ref(&self) -> Result<BloscHeader, DecodeError> {
        self.header.ok_or(NO_HEADER)
    }

    fn read_table(&mut self, rest: &[u8]) -> Result<Option<usize>, DecodeError> {
        let h = self.header_ref()?;
        let table_len = h.nblocks() as usize * 4;
        let table = self.scratch.reserve(table_len)?;
        let step = Self::gather(table, &mut self.have, rest)?;
        if self.have == table_len {
            self.have = 0;
            self.phase = if permuted::in_order(table) {
                Phase::BlockStart
            } else {
                self.start_permuted()?;
                Phase::Gather
            };
        }
        Ok(step)
    }

    fn copy(
        &mut self,
        rest: &[u8],
        dst: &mut [u8],
        out: &mut usize,
    ) -> Result<Option<usize>, DecodeError> {
        let left = to_usize(self.decoded_len - self.produced)?;
        if left == 0 {
            self.phase = Phase::Trailing;
            return Ok(Some(0));
        }
        let room = dst.len().saturating_sub(*out);
        let n = left.min(rest.len()).min(room);
        if n == 0 {
            return Ok(None);
        }
        dst.get_mut(*out..*out + n)
            .ok_or(OUTPUT_OVERRUN)?
            .copy_from_slice(rest.get(..n).ok_or(INPUT_OVERRUN)?);
        *out += n;
        self.produced += n as u64;
        Ok(Some(n))
    }

    /// Checks block `self.block` starts where the stream is; `true` if the window is full.
    fn start_block(&mut self, window: usize, out: usize, pos: usize) -> Result<bool, DecodeError> {
        let h = self.header_ref()?;
        if self.block == h.nblocks() {
            self.phase = Phase::Trailing;
            return Ok(false);
        }
        let j = self.block;
        let table = self.scratch.reserve(h.nblocks() as usize * 4)?;
        let start = u64::from(permuted::entry(table, j as usize)?);
        if start != self.at {
            return Err(corrupt_block(
                j,
                "starts elsewhere than where the block before it ends (blocks must be stored in order)",
                start,
            ));
        }
        if !room_for_block(&h, j, window, out, pos)? {
            return Ok(true);
        }
        self.stream = 0;
        self.have = 0;
        self.phase = Phase::StreamSize;
        Ok(false)
    }

    /// Skips what is stored after the last block (nothing, usually), then is done.
    fn skip_trailing(&mut self, rest: &[u8]) -> Result<Option<usize>, DecodeError> {
        let left = to_usize(self.stored_len - self.at)?;
        let n = left.min(rest.len());
        if n == left {
            self.phase = Phase::Done;
        }
        Ok((n > 0 || left == 0).then_some(n))
    }

    fn read_stream_size(&mut self, rest: &[u8]) -> Result<Option<usize>, DecodeError> {
        let mut buf = self.size_buf;
        let step = Self::gather(&mut buf, &mut self.have, rest)?;
        self.size_buf = buf;
        if self.have == 4 {
            let h = self.header_ref()?;
            let j = self.block;
            // The stream lies inside the stream's stated size; `self.at` does not count this
            // call's bytes yet.
            let left = u64::from(h.cbytes)
                .saturating_sub(self.at)
                .saturating_sub(step.map_or(0, |n| n as u64));
            let size = stream_size(&h, j, self.size_buf, left)?;
            self.stream_len = size;
            self.have = 0;
            self.phase = Phase::Stream;
        }
        Ok(step)
    }

    /// Gathers or directly decodes the current stream; when it is whole, decodes it, and when
    /// the block's last stream is done, unshuffles the block into place.
    fn read_stream(
        &mut self,
        rest: &[u8],
        dst: &mut [u8],
        out: &mut usize,
        inner: &mut dyn InnerDecompress,
    ) -> Result<Option<usize>, DecodeError> {
        if rest.is_empty() {
            return Ok(None);
        }
        let h = self.header_ref()?;
        let j = self.block;
        let block_len = h.block_len(j) as usize;
        let streams = h.streams(j) as usize;
        let stream_decoded = block_len / streams;
        let shuffle = h.shuffle(h.block_len(j));
        let table_len = h.nblocks() as usize * 4;
        let codec = h.inner()?.codec();
        let block_dst = dst.get_mut(*out..*out + block_len).ok_or(OUTPUT_OVERRUN)?;
        let snappy_stage = snappy_stage_len(&h);
        let scratch = self
            .scratch
            .reserve(table_len + h.blocksize as usize + snappy_stage)?;
        let (scratch, extra) = scratch
            .split_at_mut_checked(table_len + h.blocksize as usize)
            .ok_or(SCRATCH_OVERRUN)?;
        let tmp = scratch
            .get_mut(table_len..table_len + block_len)
            .ok_or(SCRATCH_OVERRUN)?;
        // Decoded into tmp when shuffled, else into place; a stream in pieces is gathered in
        // the other one (or, for Snappy, whose streams may be longer than a block, in scratch
        // of its own).
        let (target, stage) = if shuffle == ShuffleMode::None {
            (&mut *block_dst, &mut *tmp)
        } else {
            (&mut *tmp, &mut *block_dst)
        };
        let stage = if snappy_stage > 0 { extra } else { stage };
        let k = self.stream as usize;
        let slot = target
            .get_mut(k * stream_decoded..(k + 1) * stream_decoded)
            .ok_or(OUTPUT_OVERRUN)?;
        let taken;
        let whole: &[u8] = if self.have == 0 && rest.len() >= self.stream_len {
            taken = self.stream_len;
            rest.get(..taken).ok_or(INPUT_OVERRUN)?
        } else {
            let buf = stage.get_mut(..self.stream_len).ok_or(STAGED_OVERRUN)?;
            taken = Self::gather(buf, &mut self.have, rest)?.unwrap_or(0);
            if self.have < self.stream_len {
                return Ok(Some(taken));
            }
            stage.get(..self.stream_len).ok_or(STAGED_OVERRUN)?
        };
        decode_stream(inner, codec, whole, slot, j)?;
        self.have = 0;
        self.stream += 1;
        if self.stream as usize == streams {
            unshuffle_block(&h, shuffle, tmp, block_dst)?;
            *out += block_len;
            self.produced += block_len as u64;
            self.block += 1;
            self.phase = Phase::BlockStart;
        } else {
            self.phase = Phase::StreamSize;
        }
        Ok(Some(taken))
    }
}

/// Whether block `j` fits the window from `out`; an error if not even an empty window holds
/// it.
fn room_for_block(
    h: &BloscHeader,
    j: u32,
    window: usize,
    out: usize,
    pos: usize,
) -> Result<bool, DecodeError> {
    let block_len = h.block_len(j) as usize;
    if window.saturating_sub(out) < block_len {
        if out == pos && pos == 0 {
            return Err(DecodeError::OutputOverflow {
                codec: CodecName::Blosc,
                capacity: window as u64,
            });
        }
        return Ok(false);
    }
    if !block_len.is_multiple_of(h.streams(j) as usize) {
        return Err(corrupt_block(
            j,
            "is split, but its length is not a multiple of typesize",
            block_len as u64,
        ));
    }
    Ok(true)
}

/// Snappy's worst case for `n` bytes (`snappy_max_compressed_length`), which c-blosc lets a
/// Snappy stream reach.
fn snappy_most(n: u64) -> u64 {
    32 + n + n / 6
}

/// Scratch to gather a Snappy stream in, which may be longer than its block; 0 for other
/// inner compressors.
fn snappy_stage_len(h: &BloscHeader) -> usize {
    match h.inner() {
        Ok(InnerCodec::Snappy) => {
            let n = h.blocksize as usize;
            32 + n + n / 6
        }
        _ => 0,
    }
}

/// The size of a stream of block `j` as its 4 bytes state it, checked: positive, at most what
/// the stream decodes to (Snappy's worst case for Snappy), and within the `left` bytes of the
/// stream.
fn stream_size(h: &BloscHeader, j: u32, bytes: [u8; 4], left: u64) -> Result<usize, DecodeError> {
    let stream_decoded = u64::from(h.block_len(j) / h.streams(j));
    // c-blosc lets a Snappy stream grow to Snappy's worst case (`snappy_max_compressed_length`);
    // every other inner stream is at most what it decodes to.
    let most = match h.inner()? {
        InnerCodec::Snappy => snappy_most(stream_decoded),
        _ => stream_decoded,
    };
    let size = u32::try_from(i32::from_le_bytes(bytes))
        .ok()
        .filter(|&s| u64::from(s) <= most && u64::from(s) <= left)
        .ok_or(corrupt_block(
            j,
            "has a stream size that is negative, past the end, or larger than the stream decodes to",
            u32::from_le_bytes(bytes).into(),
        ))?;
    if size == 0 {
        return Err(corrupt_block(j, "has an empty stream", 0));
    }
    to_usize(size.into())
}

/// Decodes one whole stream of block `j` into `slot` (a stored stream as long as its slot is
/// its bytes as they are).
fn decode_stream(
    inner: &mut dyn InnerDecompress,
    codec: CodecName,
    whole: &[u8],
    slot: &mut [u8],
    j: u32,
) -> Result<(), DecodeError> {
    if whole.len() == slot.len() {
        slot.copy_from_slice(whole);
        return Ok(());
    }
    let n = inner.decompress(codec, whole, slot)?;
    if n != slot.len() {
        return Err(corrupt_block(
            j,
            "has a stream that decodes to other than its size",
            n as u64,
        ));
    }
    Ok(())
}

/// Undoes the block's shuffle from `tmp` into `block_dst` (nothing if it was not shuffled: the
/// streams were decoded into place).
fn unshuffle_block(
    h: &BloscHeader,
    shuffle: ShuffleMode,
    tmp: &[u8],
    block_dst: &mut [u8],
) -> Result<(), DecodeError> {
    match shuffle {
        ShuffleMode::None => Ok(()),
        ShuffleMode::Byte => {
            unshuffle(tmp, block_dst, h.typesize.into()).map_err(|_| UNSHUFFLE_SIZES)
        }
        ShuffleMode::Bit => bitunshuffle(tmp, block_dst, h.typesize.into(), FORMAT_VERSION)
            .map_err(|_| UNSHUFFLE_SIZES),
    }
}
