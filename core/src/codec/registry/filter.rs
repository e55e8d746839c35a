//! What a [`Filter`] (the registry's enum of every filter) answers, each answer its filter's
//! own file's ([`FilterCodec`]).

use crate::codec::filter::{Elem, EncodeRun, FilterAux, FilterCodec, FilterError};
use crate::codec::{DecodeError, Endian};

use super::Filter;

impl Filter {
    /// The element it decodes to, when it changes types.
    pub fn decoded_elem(&self) -> Option<Elem> {
        self.codec().elems().map(|e| e.0)
    }

    /// The element it stores, when it changes types.
    pub fn encoded_elem(&self) -> Option<Elem> {
        self.codec().elems().map(|e| e.1)
    }

    /// Bytes of the element it decodes to, if it has a type.
    pub fn decoded_size(&self) -> Option<usize> {
        self.decoded_elem().map(Elem::size)
    }

    /// Bytes of the element it stores, if it has a type.
    pub fn encoded_size(&self) -> Option<usize> {
        self.encoded_elem().map(Elem::size)
    }

    /// Bytes it stores for `n` elements that take `decoded` bytes before it (in encoding
    /// order); `None` if that overflows.
    pub fn encoded_len(&self, n: usize, decoded: usize) -> Option<usize> {
        self.codec().encoded_len(n, decoded)
    }

    /// Whether what it stores is still whole elements (all but `packbits`), which a filter
    /// after it may work on.
    pub fn keeps_elements(&self) -> bool {
        self.codec().keeps_elements()
    }

    /// Whether it works on bytes whatever their type (`shuffle`), so that it may also stand
    /// after the array-to-bytes codec in a v3 chain.
    pub fn is_bytes_to_bytes(&self) -> bool {
        self.codec().is_bytes_to_bytes()
    }

    /// Makes it read and write multi-byte elements in `endian` order: the chunk's stored byte
    /// order, which the reader converts to the machine's after the last filter.
    pub(crate) fn set_endian(&mut self, endian: Endian) {
        if let Some((dec, enc)) = self.codec_mut().elems_mut() {
            for e in [dec, enc] {
                if e.ty.size() > 1 {
                    e.endian = endian;
                }
            }
        }
    }

    /// Whether decoding needs `spare` bytes besides the chunk (only `shuffle` does: one chunk).
    pub fn needs_spare(&self) -> bool {
        self.codec().needs_spare()
    }

    /// Whether zinto encodes this filter, or why not (`delta`, `fixedscaleoffset` over floats
    /// and `astype` do).
    ///
    /// # Errors
    /// The reason, as a phrase.
    pub fn encodes(&self) -> Result<(), &'static str> {
        self.codec().encodes()
    }

    /// Applies the filter as numcodecs' `encode` does to the whole elements of `src`, read as
    /// `from` (the filter's decoded type, in any byte order), writing as many stored elements
    /// (in the filter's stored byte order) at the start of `dst`; returns how many. A chunk
    /// may come window by window: `run` carries what one window leaves the next (start each
    /// chunk with `EncodeRun::default()`).
    ///
    /// # Errors
    /// [`FilterError::NoEncoder`] for a filter without one ([`Self::encodes`]),
    /// [`FilterError::TypeMismatch`] if `from` is not its decoded type,
    /// [`FilterError::BufferTooSmall`] for a short `dst`, and
    /// [`FilterError::Unrepresentable`] for an element whose encoded value its stored integer
    /// type cannot hold (NaN, an infinity, out of range: NumPy's cast of those is undefined).
    pub fn encode(
        &self,
        run: &mut EncodeRun,
        src: &[u8],
        from: Elem,
        dst: &mut [u8],
    ) -> Result<usize, FilterError> {
        self.codec().encode(run, src, from, dst)
    }

    /// Undoes the filter over `n` elements at the start of `buf` (which must hold
    /// `n * max(stored, decoded)` element bytes); `spare` is used by `shuffle` only and must
    /// then hold the `n * size` bytes being unshuffled.
    ///
    /// # Errors
    /// [`DecodeError::Filter`] for a buffer too small or sizes that overflow;
    /// [`DecodeError::ScratchTooSmall`] for a short `spare`.
    pub fn decode(
        &self,
        buf: &mut [u8],
        n: usize,
        aux: &mut FilterAux<'_>,
    ) -> Result<(), DecodeError> {
        self.codec().decode(buf, n, aux)
    }
}

impl core::fmt::Display for Filter {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        FilterCodec::fmt(self.codec(), f)
    }
}
