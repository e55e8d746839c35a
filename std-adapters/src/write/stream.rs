//! One chunk's stored bytes, made as they stream to the store: elements byte-swapped if the
//! array stores another byte order, compressed into the worker's window, checksums updated on
//! the way and appended at the end, each full window written out; a head the compressor knows
//! only at the end (Blosc's) reserved first and filled last. No chunk-sized buffer.

use zinto_core::codec::{CRC32C, Crc32, Status};

use super::WRITE_WINDOW;
use super::filters::FilterStage;
use zinto_core::codec::{EncodeError, Encoder};

/// Parts shorter than this gather in a window before they are fed to the compressor.
pub(crate) const GATHER_BELOW: usize = 64 << 10;
use crate::store::{ObjectWriter, StoreError};

/// Why a chunk's stream failed.
#[derive(Debug)]
pub(crate) enum StreamError {
    /// The store's.
    Store(StoreError),
    /// The compressor's.
    Encode(EncodeError),
    /// A filter's (named, with why).
    Filter(String),
}

impl From<StoreError> for StreamError {
    fn from(e: StoreError) -> Self {
        Self::Store(e)
    }
}

impl From<EncodeError> for StreamError {
    fn from(e: EncodeError) -> Self {
        Self::Encode(e)
    }
}

/// A worker's buffers for streaming chunks: the output window, the second window that
/// byte-swaps and gathers short parts (made on first use), and the array's filters with their
/// windows, if it has filters.
#[derive(Debug, Default)]
pub(crate) struct Windows {
    pub(crate) out: Vec<u8>,
    pub(crate) swap: Vec<u8>,
    pub(crate) filters: Option<FilterStage>,
}

/// The bytes one chunk is stored as, under way.
pub(crate) struct ChunkStream<'a> {
    encoder: Option<&'a mut dyn Encoder>,
    windows: &'a mut Windows,
    /// Bytes of the output window in use.
    filled: usize,
    /// Bytes gathered in the second window, not yet fed on.
    gathered: usize,
    /// Element size to byte-swap by (0: no swap).
    swap: usize,
    /// One running CRC-32C per `crc32c` codec, innermost first.
    sums: Vec<Crc32>,
    writer: &'a mut dyn ObjectWriter,
    /// Stored bytes written so far.
    written: u64,
    /// Where the encoder's head was reserved in the object, if it has one.
    head_at: Option<u64>,
}

impl<'a> ChunkStream<'a> {
    /// A stream of `len` bytes into `writer`, through `encoder` (none: stored as they are),
    /// elements swapped by `swap` bytes (0 for none), with `crc32c` checksums after.
    pub(crate) fn new(
        encoder: Option<&'a mut dyn Encoder>,
        windows: &'a mut Windows,
        (len, swap, crc32c): (u64, usize, usize),
        writer: &'a mut dyn ObjectWriter,
    ) -> Result<Self, StreamError> {
        let mut encoder = encoder;
        let head = match encoder.as_deref_mut() {
            Some(e) => e.begin(len)?,
            None => 0,
        };
        if head > 0 && crc32c > 0 {
            return Err(StoreError::Internal {
                what: "a checksum over a head written last",
            }
            .into());
        }
        let head_at = match head {
            0 => None,
            n => Some(writer.reserve(n)?),
        };
        if let Some(stage) = &mut windows.filters {
            stage.begin();
        }
        Ok(Self {
            encoder,
            windows,
            filled: 0,
            gathered: 0,
            swap,
            sums: (0..crc32c).map(|_| Crc32::new(&CRC32C)).collect(),
            writer,
            written: head as u64,
            head_at,
        })
    }

    /// The next bytes of the chunk, in order. Parts shorter than [`GATHER_BELOW`] (the rows
    /// of a chunk that is not contiguous in the input) gather in the worker's second window
    /// and go to the compressor a window at a time: one call per window, not per row.
    pub(crate) fn push(&mut self, part: &[u8]) -> Result<(), StreamError> {
        if let Some(mut stage) = self.windows.filters.take() {
            let result = self.push_filtered(&mut stage, part);
            self.windows.filters = Some(stage);
            return result;
        }
        if part.len() < GATHER_BELOW && (self.encoder.is_some() || self.swap > 1) {
            return self.gather(part);
        }
        self.flush_gathered()?;
        if self.swap > 1 {
            let mut swap = std::mem::take(&mut self.windows.swap);
            let result = self.push_swapped(part, &mut swap);
            self.windows.swap = swap;
            return result;
        }
        self.feed(part, false)
    }

    /// `part` through the filters, window by window, their output gathered in the second
    /// window (fed on when full). `part` is whole elements.
    fn push_filtered(&mut self, stage: &mut FilterStage, part: &[u8]) -> Result<(), StreamError> {
        let per = (WRITE_WINDOW / stage.widest()).max(1);
        let (step, out_max) = (per * stage.input_size(), per * stage.stored_size());
        if self.windows.swap.len() < WRITE_WINDOW {
            self.windows.swap = vec![0u8; WRITE_WINDOW];
        }
        for piece in part.chunks(step) {
            if self.gathered + out_max > self.windows.swap.len() {
                self.flush_gathered()?;
            }
            let dst = &mut self.windows.swap[self.gathered..];
            self.gathered += stage.encode(piece, dst).map_err(StreamError::Filter)?;
        }
        Ok(())
    }

    /// `part` into the gathering window, which is fed on when full.
    fn gather(&mut self, part: &[u8]) -> Result<(), StreamError> {
        if self.windows.swap.len() < WRITE_WINDOW {
            self.windows.swap = vec![0u8; WRITE_WINDOW];
        }
        if self.gathered + part.len() > self.windows.swap.len() {
            self.flush_gathered()?;
        }
        let end = self.gathered + part.len();
        let dst = self
            .windows
            .swap
            .get_mut(self.gathered..end)
            .ok_or(StoreError::Internal {
                what: "a part longer than the gathering window",
            })?;
        dst.copy_from_slice(part);
        self.gathered = end;
        Ok(())
    }

    /// Feeds the gathered bytes on (byte-swapped in place first, where the array says).
    fn flush_gathered(&mut self) -> Result<(), StreamError> {
        if self.gathered == 0 {
            return Ok(());
        }
        let mut window = std::mem::take(&mut self.windows.swap);
        let bytes = &mut window[..self.gathered];
        if self.swap > 1 {
            for e in bytes.chunks_exact_mut(self.swap) {
                e.reverse();
            }
        }
        let result = self.feed(bytes, false);
        self.windows.swap = window;
        self.gathered = 0;
        result
    }

    /// `part` byte-swapped element by element, through the swap window.
    fn push_swapped(&mut self, part: &[u8], swap: &mut [u8]) -> Result<(), StreamError> {
        let step = (swap.len() / self.swap).max(1) * self.swap;
        for piece in part.chunks(step) {
            let window = swap.get_mut(..piece.len()).ok_or(StoreError::Internal {
                what: "a swap window smaller than one element",
            })?;
            window.copy_from_slice(piece);
            for e in window.chunks_exact_mut(self.swap) {
                e.reverse();
            }
            self.feed(window, false)?;
        }
        Ok(())
    }

    /// Ends the chunk: the compressor's last bytes, then the checksums. Returns the stored
    /// bytes written; the caller commits the object (a shard holds many chunks).
    pub(crate) fn finish(mut self) -> Result<u64, StreamError> {
        self.flush_gathered()?;
        self.feed(&[], true)?;
        self.flush()?;
        if let (Some(at), Some(encoder)) = (self.head_at, self.encoder.as_deref()) {
            self.writer.fill(at, encoder.head())?;
        }
        for i in 0..self.sums.len() {
            let value = self.sums[i].value().to_le_bytes();
            for outer in &mut self.sums[i + 1..] {
                outer.update(&value);
            }
            self.writer.write(&value)?;
            self.written += 4;
        }
        Ok(self.written)
    }

    /// Compresses (or copies) `input` into the window, writing each full window out.
    fn feed(&mut self, input: &[u8], last: bool) -> Result<(), StreamError> {
        let Some(encoder) = self.encoder.take() else {
            return self.store_plain(input);
        };
        let result = self.compress(&mut *encoder, input, last);
        self.encoder = Some(encoder);
        result
    }

    /// [`Self::feed`] through `encoder`.
    fn compress(
        &mut self,
        encoder: &mut dyn Encoder,
        mut input: &[u8],
        last: bool,
    ) -> Result<(), StreamError> {
        loop {
            if self.filled == self.windows.out.len() {
                self.flush()?;
            }
            let out = &mut self.windows.out[self.filled..];
            let p = encoder.encode(input, out, last)?;
            input = &input[p.consumed..];
            self.filled += p.written;
            match p.status {
                Status::Done => return Ok(()),
                Status::NeedsInput if input.is_empty() && !last => return Ok(()),
                Status::NeedsInput if p.consumed == 0 && p.written == 0 => {
                    return Err(EncodeError::Internal {
                        what: "the compressor made no progress",
                    }
                    .into());
                }
                Status::NeedsInput | Status::NeedsOutput => {}
            }
        }
    }

    /// Uncompressed bytes: a part at least a window long goes to the store as it is (one
    /// write of the caller's slice); shorter ones gather in the window.
    fn store_plain(&mut self, input: &[u8]) -> Result<(), StreamError> {
        if input.len() >= self.windows.out.len() {
            self.flush()?;
            return self.emit_slice(input);
        }
        let room = self.windows.out.len() - self.filled;
        let (now, later) = input.split_at(input.len().min(room));
        self.windows.out[self.filled..self.filled + now.len()].copy_from_slice(now);
        self.filled += now.len();
        if !later.is_empty() {
            self.flush()?;
            self.windows.out[..later.len()].copy_from_slice(later);
            self.filled = later.len();
        }
        Ok(())
    }

    /// Writes the window's bytes out.
    fn flush(&mut self) -> Result<(), StreamError> {
        let window = std::mem::take(&mut self.windows.out);
        let result = self.emit_slice(&window[..self.filled]);
        self.windows.out = window;
        self.filled = 0;
        result
    }

    /// Stored bytes to the store, through the checksums.
    fn emit_slice(&mut self, bytes: &[u8]) -> Result<(), StreamError> {
        if bytes.is_empty() {
            return Ok(());
        }
        for sum in &mut self.sums {
            sum.update(bytes);
        }
        self.writer.write(bytes)?;
        self.written += bytes.len() as u64;
        Ok(())
    }
}
