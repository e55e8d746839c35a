//! numcodecs `bz2`: one bzip2 stream, decoded by libbz2-rs (a pure-Rust port of libbzip2,
//! through the `bzip2` crate) straight into the destination.
//!
//! bzip2 keeps its own block buffers (up to 900 kB of block, about 3.6 MB of state while a
//! stream is decoded), so it lives in the std crate, as a [`Backend`].

use bzip2::{Decompress, Status as BzStatus};
use zinto_core::codec::{Backend, CodecName, Compressor, DecodeError, Progress};

use super::stepped::Stepped;

/// A bzip2 stream decoder, reusable across chunks.
pub struct Bz2 {
    state: Option<Decompress>,
    done: bool,
}

impl std::fmt::Debug for Bz2 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bz2")
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl Default for Bz2 {
    fn default() -> Self {
        Self::new()
    }
}

impl Bz2 {
    /// A decoder with nothing started.
    pub fn new() -> Self {
        Self {
            state: None,
            done: false,
        }
    }
}

fn corrupt(reason: &'static str) -> DecodeError {
    DecodeError::Corrupt {
        codec: CodecName::Bz2,
        reason,
    }
}

impl Backend for Bz2 {
    fn codec(&self) -> CodecName {
        CodecName::Bz2
    }

    fn start(
        &mut self,
        _: &Compressor,
        _encoded_len: u64,
        _decoded_len: usize,
    ) -> Result<(), DecodeError> {
        // A fresh state per stream: libbzip2's decompressor cannot be reset.
        self.state = Some(Decompress::new(false));
        self.done = false;
        Ok(())
    }

    fn decode(
        &mut self,
        input: &[u8],
        dst: &mut [u8],
        pos: usize,
    ) -> Result<Progress, DecodeError> {
        let capacity = dst.len();
        let out = dst.get_mut(pos..).ok_or(DecodeError::Internal {
            what: "bz2 given a position past its destination",
        })?;
        let offered = out.len();
        self.step(input, out)?
            .whole(CodecName::Bz2, capacity, offered, input.len())
    }

    /// bzip2 keeps its own block buffers, so a window is only somewhere to put what it decodes.
    fn windowed(&self) -> bool {
        true
    }

    fn start_windowed(
        &mut self,
        compressor: &Compressor,
        encoded_len: u64,
        decoded_len: usize,
    ) -> Result<(), DecodeError> {
        self.start(compressor, encoded_len, decoded_len)
    }

    fn decode_window(&mut self, input: &[u8], window: &mut [u8]) -> Result<Progress, DecodeError> {
        Ok(self.step(input, window)?.windowed(window.len()))
    }
}

impl Bz2 {
    /// Decodes what it can of `input` into `out`.
    fn step(&mut self, input: &[u8], out: &mut [u8]) -> Result<Stepped, DecodeError> {
        if self.done {
            return Ok(Stepped::ENDED);
        }
        let state = self.state.as_mut().ok_or(DecodeError::Internal {
            what: "bz2 fed before it was started",
        })?;
        let (in0, out0) = (state.total_in(), state.total_out());
        let status = state.decompress(input, out).map_err(|e| match e {
            bzip2::Error::DataMagic => corrupt("not a bzip2 stream (bad magic number)"),
            bzip2::Error::Data => corrupt("invalid bzip2 data"),
            bzip2::Error::Sequence | bzip2::Error::Param => DecodeError::Internal {
                what: "libbzip2 called out of sequence or with bad parameters",
            },
        })?;
        let ended = status == BzStatus::StreamEnd;
        let stepped = Stepped::from_totals(
            (in0, state.total_in(), input.len()),
            (out0, state.total_out(), out.len()),
            ended,
        )?;
        self.done = ended;
        Ok(stepped)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::io::Write;

    use zinto_core::codec::{BytesCodecs, Bz2 as Bz2Config, ChunkDecoder, Compressor, DecodeError};

    use super::Bz2;
    use crate::backend::tests::{Size, drain_window};

    /// Through a window (of any size, fed in any pieces) a stream decodes to what it was made
    /// from, with its size given or only bounded; a bound one byte short is an overflow, a
    /// stream cut short is an error.
    #[test]
    fn windowed_decodes_the_same_sized_or_bounded() {
        let data: Vec<u8> = (0..300_000u32)
            .flat_map(|i| (i / 11).to_le_bytes())
            .collect();
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(1));
        e.write_all(&data).unwrap();
        let stored = e.finish().unwrap();
        let codecs = BytesCodecs::compressed(Some(Compressor::Bz2(Bz2Config { level: None })));
        let run = |stored: &[u8], size, piece, window| {
            let mut d = ChunkDecoder::new();
            d.set_backend(Box::new(Bz2::new()));
            drain_window(&mut d, &codecs, stored, size, piece, window)
        };
        for (piece, window) in [(1, 7), (1000, 4096), (stored.len(), 1 << 22)] {
            for size in [
                Size::Exact(data.len()),
                Size::AtMost(data.len()),
                Size::AtMost(data.len() + 9),
            ] {
                let got = run(&stored, size, piece, window).unwrap();
                assert!(got == data, "{piece} {window} {size:?}");
            }
        }
        let short = run(&stored, Size::AtMost(data.len() - 1), 1000, 4096);
        assert!(
            matches!(short, Err(DecodeError::OutputOverflow { .. })),
            "{short:?}"
        );
        let cut = run(
            &stored[..stored.len() - 5],
            Size::AtMost(data.len()),
            1000,
            4096,
        );
        assert!(cut.is_err(), "{:?}", cut.map(|v| v.len()));
    }
}
