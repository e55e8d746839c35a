//! The buffers one read worker reuses from chunk to chunk and read to read: its decoder,
//! scratch, I/O block and window ([`ReadContext`]).

use zinto_core::codec::{BytesCodecs, ChunkDecoder};

use crate::error::ErrorKind;

/// The buffers one worker reuses from chunk to chunk and read to read.
#[derive(Debug)]
pub(crate) struct ReadContext {
    pub(super) decoder: ChunkDecoder,
    pub(super) scratch: Vec<u8>,
    pub(super) block: Vec<u8>,
    /// The window chunks landing in pieces are decoded through.
    pub(super) window: Vec<u8>,
    /// A second chunk-sized buffer, for numcodecs `shuffle` only.
    pub(super) spare: Vec<u8>,
}

impl ReadContext {
    /// Whether chunks stored with `codecs` decode through a window here.
    pub(crate) fn can_window(&self, codecs: &BytesCodecs) -> bool {
        self.decoder.can_window(codecs)
    }

    pub(crate) fn new() -> Result<Self, ErrorKind> {
        let mut decoder = ChunkDecoder::new();
        crate::backend::install(&mut decoder).map_err(ErrorKind::Decode)?;
        Ok(Self {
            decoder,
            scratch: Vec::new(),
            block: Vec::new(),
            window: Vec::new(),
            spare: Vec::new(),
        })
    }
}
