//! numcodecs `shuffle` (`Shuffle(elementsize)`): the bytes of `elementsize`-byte elements
//! grouped by significance over the whole chunk ([`unshuffle`] undoes it).

use super::spec::EncodeRun;
use super::spec::{FilterAux, FilterCodec, FromFilterConfig};
use super::{Elem, FilterError};
use crate::codec::config::{Config, Reader};
use crate::codec::shuffle::unshuffle;
use crate::codec::{ChainError, CodecName, DecodeError};

/// numcodecs `shuffle`, configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shuffle {
    /// Bytes per element as the shuffle saw them (0 and 1 shuffle nothing).
    pub elementsize: usize,
}

impl Shuffle {
    pub(crate) const NAMES: &'static [&'static str] = &["numcodecs.shuffle"];
    pub(crate) const V2_ID: Option<&'static str> = Some("shuffle");
}

impl Shuffle {
    /// Whether it moves any byte: elements of 0 or 1 bytes are stored as they are.
    fn moves_bytes(&self) -> bool {
        self.elementsize > 1
    }
}

impl FromFilterConfig for Shuffle {
    fn from_config<C: Config + ?Sized>(
        r: &Reader<'_, C>,
        _: Option<Elem>,
    ) -> Result<Self, ChainError> {
        // numcodecs' own default, `Shuffle(elementsize=4)`; zarr-python writes the key in v3
        // (the array's element size) and numcodecs in v2. numcodecs shuffles nothing for
        // elements of 0 or 1 bytes (its `_shuffle` returns the bytes as they are).
        let size = r.int_in("elementsize", 0, 1 << 20)?.unwrap_or(4);
        Ok(Self {
            // In 0..=2^20.
            elementsize: usize::try_from(size)
                .map_err(|_| r.error("elementsize", "is out of range"))?,
        })
    }
}

impl FilterCodec for Shuffle {
    fn elems(&self) -> Option<(Elem, Elem)> {
        None
    }

    fn elems_mut(&mut self) -> Option<(&mut Elem, &mut Elem)> {
        None
    }

    fn encoded_len(&self, _: usize, decoded: usize) -> Option<usize> {
        Some(decoded)
    }

    fn keeps_elements(&self) -> bool {
        true
    }

    fn is_bytes_to_bytes(&self) -> bool {
        true
    }

    fn needs_spare(&self) -> bool {
        self.moves_bytes()
    }

    fn decode(&self, buf: &mut [u8], _: usize, aux: &mut FilterAux<'_>) -> Result<(), DecodeError> {
        let spare = &mut *aux.spare;
        if !self.moves_bytes() {
            return Ok(());
        }
        let len = buf.len();
        let have = spare.len() as u64;
        let copy = spare.get_mut(..len).ok_or(DecodeError::ScratchTooSmall {
            needed: len as u64,
            have,
        })?;
        copy.copy_from_slice(buf);
        unshuffle(copy, buf, self.elementsize).map_err(|_| DecodeError::Internal {
            what: "unshuffle given buffers of different lengths",
        })
    }

    fn encodes(&self) -> Result<(), &'static str> {
        Err("zinto reads it but does not encode it yet")
    }

    fn encode(
        &self,
        _: &mut EncodeRun,
        _: &[u8],
        _: Elem,
        _: &mut [u8],
    ) -> Result<usize, FilterError> {
        Err(FilterError::NoEncoder)
    }

    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{}(elementsize {})",
            CodecName::Shuffle,
            self.elementsize
        )
    }
}
