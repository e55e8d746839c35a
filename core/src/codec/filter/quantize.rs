//! numcodecs `quantize` (`Quantize(digits, dtype, astype)`): floats rounded to a number of
//! decimal digits when written; decoding is the cast [`astype::decode`](super::astype::decode).

use super::spec::EncodeRun;
use super::spec::{FilterAux, FilterCodec, FromFilterConfig, decode_error, read_elem};
use super::{Elem, FilterError};
use crate::codec::config::{Config, Reader};
use crate::codec::{ChainError, CodecName, DecodeError};

/// numcodecs `quantize`, configured: floats stored as the float type `enc`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quantize {
    /// The array's element.
    pub dec: Elem,
    /// The stored element.
    pub enc: Elem,
}

impl Quantize {
    pub(crate) const NAMES: &'static [&'static str] = &["numcodecs.quantize"];
    pub(crate) const V2_ID: Option<&'static str> = Some("quantize");
}

impl FromFilterConfig for Quantize {
    fn from_config<C: Config + ?Sized>(
        r: &Reader<'_, C>,
        decoded: Option<Elem>,
    ) -> Result<Self, ChainError> {
        let dec = read_elem(r, "dtype", decoded)?;
        let enc = read_elem(r, "astype", Some(dec))?;
        // The encoder's rounding; decoding is a cast. Checked, not kept.
        r.int("digits")?;
        for e in [dec, enc] {
            if !e.ty.is_float() {
                return Err(r.error("dtype", "of quantize must be a float type"));
            }
        }
        Ok(Self { dec, enc })
    }
}

impl FilterCodec for Quantize {
    fn elems(&self) -> Option<(Elem, Elem)> {
        Some((self.dec, self.enc))
    }

    fn elems_mut(&mut self) -> Option<(&mut Elem, &mut Elem)> {
        Some((&mut self.dec, &mut self.enc))
    }

    fn encoded_len(&self, n: usize, _: usize) -> Option<usize> {
        n.checked_mul(self.enc.size())
    }

    fn keeps_elements(&self) -> bool {
        true
    }

    fn is_bytes_to_bytes(&self) -> bool {
        false
    }

    fn needs_spare(&self) -> bool {
        false
    }

    fn decode(&self, buf: &mut [u8], n: usize, _: &mut FilterAux<'_>) -> Result<(), DecodeError> {
        super::astype::decode(buf, n, self.dec, self.enc).map_err(decode_error(CodecName::Quantize))
    }

    fn encodes(&self) -> Result<(), &'static str> {
        Err(
            "zinto reads it but does not encode it yet (its rounding of digits is a task of its own)",
        )
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
            "{}({} stored as {})",
            CodecName::Quantize,
            self.dec.ty.name(),
            self.enc.ty.name()
        )
    }
}
