//! A stored chunk decoded whole ([`decode_stored`]) or through a window as it streams from the
//! store in blocks ([`decode_windowed`]), and the checks made before a buffer is sized by what a
//! chunk claims ([`check_plausible`], [`most_decoded`]). Used by array reads (`chunk.rs`),
//! variable-length reads, concatenation and the writes that keep an old chunk's values.

use std::ops::ControlFlow;

use zinto_core::LayoutError;
use zinto_core::codec::{BytesCodecs, ChunkDecoder, CodecName, Compressor, DecodeError, Status};

use crate::error::ErrorKind;
use crate::store::Store;

use super::context::ReadContext;

/// Compressed chunks stream from the store in blocks of this size.
pub const BLOCK_LEN: usize = 512 << 10;
/// Chunks landing in pieces are decoded through a window of this size (a power of two, as
/// DEFLATE's ring needs), or one Blosc block if that is larger.
pub const WINDOW_LEN: usize = 512 << 10;

/// A size past `usize` or `u64`: the read path's one layout overflow.
pub(super) const OVERFLOW: ErrorKind = ErrorKind::Layout(LayoutError::Overflow);

/// Where a chunk's stored bytes are: `key[offset..offset + len]`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stored<'k> {
    /// The key holding them.
    pub(crate) key: &'k str,
    /// Where they start in it.
    pub(crate) offset: u64,
    /// How many there are.
    pub(crate) len: u64,
}

impl Stored<'_> {
    /// The `len` bytes `offset` bytes into these (an inner chunk of a shard).
    pub(crate) fn within(self, offset: u64, len: u64) -> Self {
        Self {
            offset: self.offset + offset,
            len,
            ..self
        }
    }
}

/// Decodes the bytes stored `at` into `dst` (exactly its size): read straight into `dst` when
/// there is nothing to decode, else streamed from the store in blocks of [`BLOCK_LEN`] through
/// the decoders (the stored chunk is never held whole).
pub(crate) fn decode_stored<S: Store + ?Sized>(
    store: &S,
    ctx: &mut ReadContext,
    at: Stored<'_>,
    codecs: &BytesCodecs,
    dst: &mut [u8],
) -> Result<(), ErrorKind> {
    let Stored { key, offset, len } = at;
    if *codecs == BytesCodecs::default() {
        if len != dst.len() as u64 {
            return Err(ErrorKind::Decode(DecodeError::SizeMismatch {
                codec: CodecName::Bytes,
                expected: dst.len() as u64,
                got: len,
            }));
        }
        return store.read_into(key, offset, dst).map_err(ErrorKind::Store);
    }
    ctx.decoder
        .start(codecs, len, dst.len())
        .map_err(ErrorKind::Decode)?;
    let block_len = usize::try_from(len).unwrap_or(usize::MAX).min(BLOCK_LEN);
    if ctx.block.len() < block_len {
        grow(&mut ctx.block, block_len)?;
    }
    let ReadContext { decoder, block, .. } = ctx;
    let buf = block
        .get_mut(..block_len)
        .ok_or_else(|| ErrorKind::Internal {
            what: "a block longer than the read buffer",
        })?;
    let mut status = Status::NeedsInput;
    read_blocks(store, key, offset, len, buf, &mut |bytes| {
        status = decoder.feed(bytes, dst).map_err(ErrorKind::Decode)?.status;
        Ok(())
    })?;
    if len == 0 {
        status = decoder.feed(&[], dst).map_err(ErrorKind::Decode)?.status;
    }
    if status != Status::Done {
        return Err(ErrorKind::Decode(DecodeError::Truncated {
            codec: codecs.compressor.map_or(CodecName::Bytes, |c| c.name()),
        }));
    }
    Ok(())
}

/// [`Store::read_blocks`] with a consumer that may fail: its first error stops the read and is
/// the read's error.
fn read_blocks<S: Store + ?Sized>(
    store: &S,
    key: &str,
    offset: u64,
    len: u64,
    buf: &mut [u8],
    each: &mut dyn FnMut(&[u8]) -> Result<(), ErrorKind>,
) -> Result<(), ErrorKind> {
    let mut failed = None;
    let read = store.read_blocks(key, offset, len, buf, &mut |block| match each(block) {
        Ok(()) => ControlFlow::Continue(()),
        Err(e) => {
            failed = Some(e);
            ControlFlow::Break(())
        }
    });
    match failed {
        Some(e) => Err(e),
        None => read.map_err(ErrorKind::Store),
    }
}

/// How many bytes a stored chunk decodes to.
#[derive(Debug, Clone, Copy)]
pub(crate) enum DecodedSize {
    /// Exactly this many (from the chunk's shape, or its stored header).
    Exact(usize),
    /// At most this many: the stream does not state its size (zlib, bz2, lzma).
    AtMost(usize),
}

/// Decodes the bytes stored `at`, of `size` decoded, through the worker's window:
/// `sink(pos, bytes)` gets each window's bytes (the chunk's `pos..pos + bytes.len()`) in
/// order. Streamed from the store in blocks of [`BLOCK_LEN`].
pub(crate) fn decode_windowed<S: Store + ?Sized>(
    store: &S,
    ctx: &mut ReadContext,
    at: Stored<'_>,
    codecs: &BytesCodecs,
    size: DecodedSize,
    mut sink: impl FnMut(usize, &[u8]) -> Result<(), ErrorKind>,
) -> Result<(), ErrorKind> {
    let Stored { key, offset, len } = at;
    let block_len = usize::try_from(len).unwrap_or(usize::MAX).min(BLOCK_LEN);
    if ctx.block.len() < block_len {
        grow(&mut ctx.block, block_len)?;
    }
    let ReadContext {
        decoder,
        block,
        window,
        ..
    } = ctx;
    let mut started = false;
    let mut stalls = 0;
    let mut status = Status::NeedsInput;
    let buf = block
        .get_mut(..block_len)
        .ok_or_else(|| ErrorKind::Internal {
            what: "a block longer than the read buffer",
        })?;
    let mut feed = |bytes: &[u8]| -> Result<(), ErrorKind> {
        if !started {
            start_windowed(decoder, window, codecs, bytes, len, size)?;
            started = true;
        }
        let mut used = 0;
        loop {
            let rest = bytes.get(used..).ok_or_else(|| ErrorKind::Internal {
                what: "a decoder consumed past its input",
            })?;
            let before = decoder.written();
            let p = decoder
                .feed_window(rest, window)
                .map_err(ErrorKind::Decode)?;
            used += p.consumed;
            let out = window.get(p.produced).ok_or_else(|| ErrorKind::Internal {
                what: "decoded bytes outside the window",
            })?;
            if out.is_empty() && p.consumed == 0 {
                stalls += 1;
                if stalls > 2 {
                    return Err(ErrorKind::Internal {
                        what: "a decoder made no progress through a window",
                    });
                }
            } else {
                stalls = 0;
                sink(before, out)?;
            }
            status = p.status;
            if p.status == Status::Done || (p.status == Status::NeedsInput && used == bytes.len()) {
                return Ok(());
            }
        }
    };
    // A chunk of no stored bytes is fed once, empty.
    if len == 0 {
        feed(&[])?;
    } else {
        read_blocks(store, key, offset, len, buf, &mut feed)?;
    }
    if status != Status::Done {
        return Err(ErrorKind::Decode(DecodeError::Truncated {
            codec: codecs.compressor.map_or(CodecName::Bytes, |c| c.name()),
        }));
    }
    Ok(())
}

/// Starts `decoder` on a chunk of `len` stored bytes beginning with `head`, decoding to
/// `size` through `window`, which it makes large enough: a power of two (DEFLATE's ring) of
/// at least [`WINDOW_LEN`], holding a Blosc block.
fn start_windowed(
    decoder: &mut ChunkDecoder,
    window: &mut Vec<u8>,
    codecs: &BytesCodecs,
    head: &[u8],
    len: u64,
    size: DecodedSize,
) -> Result<(), ErrorKind> {
    let (DecodedSize::Exact(decoded_len) | DecodedSize::AtMost(decoded_len)) = size;
    let least =
        ChunkDecoder::min_window(codecs, head, len, decoded_len).map_err(ErrorKind::Decode)?;
    if least > WINDOW_LEN {
        check_plausible(codecs, len, least)?;
    }
    let want = least
        .max(WINDOW_LEN)
        .checked_next_power_of_two()
        .ok_or(OVERFLOW)?;
    if window.len() < want {
        *window = Vec::new();
        grow(window, want)?;
    }
    match size {
        DecodedSize::Exact(n) => decoder.start_windowed(codecs, len, n),
        DecodedSize::AtMost(n) => decoder.start_windowed_at_most(codecs, len, n),
    }
    .map_err(ErrorKind::Decode)
}

/// The most a chunk of `stored` bytes stored with `codecs` can decode to: uncompressed bytes
/// decode to themselves; a compressor states its own bound.
pub(crate) fn most_decoded(codecs: &BytesCodecs, stored: u64) -> u64 {
    let ratio = codecs.compressor.as_ref().map_or(1, Compressor::max_ratio);
    stored.saturating_mul(ratio).saturating_add(64)
}

/// Refuses a chunk whose stored size cannot decode to `decoded` bytes, before a buffer of that
/// size is allocated on the metadata's word.
pub(crate) fn check_plausible(
    codecs: &BytesCodecs,
    stored: u64,
    decoded: usize,
) -> Result<(), ErrorKind> {
    if decoded as u64 > most_decoded(codecs, stored) {
        return Err(ErrorKind::ChunkTooLarge {
            decoded: decoded as u64,
            stored,
        });
    }
    Ok(())
}

/// Resizes `buf` to `len`, reporting failure instead of aborting.
pub(crate) fn grow(buf: &mut Vec<u8>, len: usize) -> Result<(), ErrorKind> {
    if len > buf.len() {
        buf.try_reserve_exact(len - buf.len())
            .map_err(|_| ErrorKind::OutOfMemory { bytes: len as u64 })?;
    }
    buf.resize(len, 0);
    Ok(())
}
