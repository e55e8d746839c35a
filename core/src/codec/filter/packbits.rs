//! numcodecs `packbits`: a boolean array's elements as bits, eight to a byte, after one byte
//! that counts the bits padding the last byte. Bits go most significant first (NumPy's
//! `packbits`); numcodecs views whatever it is given as bools, so each of the chunk's bytes
//! is one bit, and decodes to 0 or 1.
//!
//! It is the only filter whose stored bytes are not whole elements
//! ([`Filter::keeps_elements`](crate::codec::Filter::keeps_elements)): it stores `1 + ceil(bytes / 8)` bytes for a chunk of
//! `bytes`, and may be followed (in encoding order) only by compressors and checksums.

use super::spec::{EncodeRun, FilterAux, FilterCodec, FromFilterConfig, decode_error};
use super::{Elem, FilterError};
use crate::codec::config::{Config, Reader};
use crate::codec::{ChainError, CodecName, DecodeError};

/// numcodecs `packbits`, configured by the element it packs (it has no configuration).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackBits {
    /// Bytes of the element it decodes to: each of them is a bit.
    pub elem_size: usize,
}

impl PackBits {
    pub(crate) const NAMES: &'static [&'static str] = &["numcodecs.packbits"];
    pub(crate) const V2_ID: Option<&'static str> = Some("packbits");
}

impl FromFilterConfig for PackBits {
    fn from_config<C: Config + ?Sized>(
        r: &Reader<'_, C>,
        decoded: Option<Elem>,
    ) -> Result<Self, ChainError> {
        let elem = decoded.ok_or(ChainError::Config {
            codec: r.codec,
            key: "dtype",
            what: "is not a number or bool type, whose bytes packbits could unpack",
        })?;
        Ok(Self {
            elem_size: elem.size(),
        })
    }
}

/// Unpacks, in place, the `1 + ceil(bits / 8)` bytes at the start of `buf` into `bits` bytes
/// of 0 or 1 there. Each stored byte is read before the eight bytes it becomes are written,
/// last first, and those never reach a stored byte still unread (`1 + g < 8 * (g + 1)`).
///
/// # Errors
/// [`FilterError::BufferTooSmall`] if `buf` holds fewer bytes than either side needs,
/// [`FilterError::BadPadding`] if the first byte is not the count of bits padding the last.
pub fn unpack(buf: &mut [u8], bits: usize) -> Result<(), FilterError> {
    let packed = bits.div_ceil(8);
    let needed = bits.max(packed + 1);
    if buf.len() < needed {
        return Err(FilterError::BufferTooSmall {
            needed,
            len: buf.len(),
        });
    }
    // Below 8, so it fits a u8.
    #[allow(clippy::cast_possible_truncation)]
    let expected = (packed * 8 - bits) as u8;
    let stated = buf.first().copied().unwrap_or(0);
    if stated != expected {
        return Err(FilterError::BadPadding { stated, expected });
    }
    for g in (0..packed).rev() {
        let byte = buf.get(1 + g).copied().unwrap_or(0);
        let end = bits.min(8 * g + 8);
        for (k, out) in buf.get_mut(8 * g..end).into_iter().flatten().enumerate() {
            *out = (byte >> (7 - k)) & 1;
        }
    }
    Ok(())
}

impl FilterCodec for PackBits {
    fn elems(&self) -> Option<(Elem, Elem)> {
        None
    }

    fn elems_mut(&mut self) -> Option<(&mut Elem, &mut Elem)> {
        None
    }

    fn encoded_len(&self, _: usize, decoded: usize) -> Option<usize> {
        decoded.div_ceil(8).checked_add(1)
    }

    fn keeps_elements(&self) -> bool {
        false
    }

    fn is_bytes_to_bytes(&self) -> bool {
        false
    }

    fn needs_spare(&self) -> bool {
        false
    }

    fn decode(&self, buf: &mut [u8], n: usize, _: &mut FilterAux<'_>) -> Result<(), DecodeError> {
        let bits = n
            .checked_mul(self.elem_size)
            .ok_or(FilterError::SizeOverflow {
                count: n,
                elem_size: self.elem_size,
            })
            .map_err(decode_error(CodecName::PackBits))?;
        unpack(buf, bits).map_err(decode_error(CodecName::PackBits))
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
        f.write_str(Self::NAMES[0])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// numcodecs 0.16.6: `PackBits().encode(np.array(bits, bool))` for these lengths.
    #[test]
    fn unpacks_what_numcodecs_packs() {
        let bits = [1u8, 0, 1, 1, 0, 0, 0, 1, 1, 1, 0];
        let cases: [(usize, &[u8]); 5] = [
            (0, &[0]),
            (1, &[7, 0x80]),
            (8, &[0, 0xb1]),
            (9, &[7, 0xb1, 0x80]),
            (11, &[5, 0xb1, 0xc0]),
        ];
        for (n, stored) in cases {
            let mut buf = [0xaau8; 16];
            buf[..stored.len()].copy_from_slice(stored);
            unpack(&mut buf[..n.max(stored.len())], n).unwrap();
            assert_eq!(buf[..n], bits[..n], "{n}");
        }
    }

    #[test]
    fn wrong_padding_and_short_buffers_are_errors() {
        let mut buf = [6u8, 0xb1, 0x80, 0, 0, 0, 0, 0, 0];
        assert_eq!(
            unpack(&mut buf, 9),
            Err(FilterError::BadPadding {
                stated: 6,
                expected: 7
            })
        );
        assert_eq!(
            unpack(&mut [7u8, 0xb1], 9),
            Err(FilterError::BufferTooSmall { needed: 9, len: 2 })
        );
        assert_eq!(
            unpack(&mut [7u8], 1),
            Err(FilterError::BufferTooSmall { needed: 2, len: 1 })
        );
    }
}
