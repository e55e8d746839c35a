//! numcodecs `bitround` (`BitRound(keepbits)`): float mantissas rounded when written; decoding
//! is the identity.

use super::spec::EncodeRun;
use super::spec::{FilterAux, FilterCodec, FromFilterConfig};
use super::{Elem, FilterError};
use crate::codec::config::{Config, Reader};
use crate::codec::{ChainError, CodecName, DecodeError};

/// numcodecs `bitround`, configured (its `keepbits` matters only to the writer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BitRound;

impl BitRound {
    pub(crate) const NAMES: &'static [&'static str] = &["numcodecs.bitround"];
    pub(crate) const V2_ID: Option<&'static str> = Some("bitround");
}

impl FromFilterConfig for BitRound {
    fn from_config<C: Config + ?Sized>(
        r: &Reader<'_, C>,
        _: Option<Elem>,
    ) -> Result<Self, ChainError> {
        // The encoder's mantissa bits (numcodecs takes 0 to 52); decoding is the identity.
        // Checked, not kept.
        r.int_in("keepbits", 0, 52)?;
        Ok(Self)
    }
}

impl FilterCodec for BitRound {
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
        false
    }

    fn needs_spare(&self) -> bool {
        false
    }

    fn decode(&self, _: &mut [u8], _: usize, _: &mut FilterAux<'_>) -> Result<(), DecodeError> {
        Ok(())
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
        write!(f, "{}", CodecName::BitRound)
    }
}
