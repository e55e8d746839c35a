//! numcodecs' LZ4 (v2 `lz4`, v3 `numcodecs.lz4`): the chunk's size as 4 little-endian bytes,
//! then one LZ4 block of the whole chunk, from zinto-core's streaming block encoder.
//!
//! One block's literal runs are unbounded, so the encoder is given the chunk whole, in one
//! slice ([`Encode::whole_input`]): a chunk contiguous in the caller's input is encoded
//! straight from it; any other goes through the worker's chunk of scratch, as a chunk the
//! region cuts does. The output streams through the window like every other compressor's.

use zinto_core::codec::Progress;
use zinto_core::codec::lz4_encode::{HASH_ENTRIES, Lz4Encoder};

use super::encode::{Encode, EncodeError, status};

/// A numcodecs LZ4 chunk under way.
pub(super) struct Lz4Encode {
    encoder: Lz4Encoder,
    table: Box<[u32; HASH_ENTRIES]>,
    /// The chunk's bytes, as `begin` was told.
    len: usize,
    /// The size header, and how much of it went out.
    header: ([u8; 4], usize),
    /// The block is all out.
    done: bool,
}

impl Lz4Encode {
    pub(super) fn new() -> Self {
        Self {
            encoder: Lz4Encoder::new(),
            table: Box::new([0; HASH_ENTRIES]),
            len: 0,
            header: ([0; 4], 0),
            done: false,
        }
    }
}

impl Encode for Lz4Encode {
    fn begin(&mut self, len: u64) -> Result<usize, EncodeError> {
        // numcodecs states the size as a C int.
        let size = i32::try_from(len).map_err(|_| {
            EncodeError::Unsupported(format!(
                "a numcodecs LZ4 chunk of {len} bytes (its header holds at most 2 GiB - 1)"
            ))
        })?;
        self.encoder.reset();
        self.len = size.unsigned_abs() as usize;
        self.header = (size.to_le_bytes(), 0);
        self.done = false;
        Ok(0)
    }

    fn head(&self) -> &[u8] {
        &[]
    }

    fn whole_input(&self) -> bool {
        true
    }

    fn encode(
        &mut self,
        input: &[u8],
        out: &mut [u8],
        last: bool,
    ) -> Result<Progress, EncodeError> {
        let (bytes, sent) = &mut self.header;
        let written = (4 - *sent).min(out.len());
        out[..written].copy_from_slice(&bytes[*sent..*sent + written]);
        *sent += written;
        if self.done || *sent < 4 {
            let done = self.done && last;
            return Ok(Progress {
                consumed: 0,
                written,
                status: status(done, written, out.len()),
            });
        }
        if input.len() != self.len {
            return Err(EncodeError::Library(format!(
                "numcodecs LZ4 was given {} bytes of a {}-byte chunk at once (it needs it whole)",
                input.len(),
                self.len
            )));
        }
        let (n, done) = self
            .encoder
            .encode(input, &mut out[written..], &mut self.table)
            .ok_or_else(|| EncodeError::Library("a chunk of 4 GiB or more".into()))?;
        self.done = done;
        let written = written + n;
        Ok(Progress {
            consumed: if done { input.len() } else { 0 },
            written,
            status: status(done && last, written, out.len()),
        })
    }
}
