//! numcodecs `pcodec`: the array's numbers in pcodec's standalone format (pco), which states
//! their type (8 to 64-bit integers, float16/32/64). zinto-core has no pco decoder; the std
//! crate `zinto` plugs in pco itself (the pcodec authors' Rust) as a
//! [`Backend`](crate::codec::Backend). The numbers decode in the machine's byte order, as
//! numcodecs gives them.
//!
//! The configuration (`level`, `mode_spec`, `delta_spec`, `paging_spec`, ...) is the
//! writer's: decoding reads everything from the stream, so only `level` is kept, for display.

use super::FromConfig;
use super::by_backend::ByBackend;
use crate::codec::config::{Config, Reader};
use crate::codec::{ChainError, CodecName};

/// The most a stored byte decodes to, loosely: a page of up to 2^18 equal numbers costs a few
/// bytes, whatever their width.
const MAX_RATIO: u64 = 1 << 24;

/// numcodecs `pcodec`, configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pcodec {
    /// The compression level it was written with (0-12), if stated.
    pub level: Option<u8>,
}

impl Pcodec {
    pub(crate) const NAMES: &'static [&'static str] = &["numcodecs.pcodec"];
    pub(crate) const V2_ID: Option<&'static str> = Some("pcodec");
}

impl FromConfig for Pcodec {
    fn from_config<C: Config + ?Sized>(r: &Reader<'_, C>) -> Result<Self, ChainError> {
        // The encoder's settings: the stream states what decoding needs. Checked, not kept.
        for key in ["mode_spec", "delta_spec", "paging_spec"] {
            r.str(key)?;
        }
        r.int_in("delta_encoding_order", 0, 7)?;
        r.int_in("equal_pages_up_to", 1, i64::MAX)?;
        // In 0..=12, so it fits a u8.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Ok(Self {
            level: r.int_in("level", 0, 12)?.map(|l| l as u8),
        })
    }
}

impl ByBackend for Pcodec {
    const CODEC: CodecName = CodecName::Pcodec;
    const MAX_RATIO: u64 = MAX_RATIO;
    const SERIALIZES_NUMBERS: bool = true;
    const WITHOUT_BACKEND: &'static str =
        "pcodec without a backend (the std crate `zinto` provides one)";
    /// zinto only decodes it.
    const NOT_WRITTEN: &'static str = super::DECODE_ONLY;

    fn show(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.level {
            Some(l) => write!(f, "{}(level {l})", Self::NAMES[0]),
            None => f.write_str(Self::NAMES[0]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{ArrayToBytes, ChainError, Codec, CodecChain, Compressor, Endian};

    /// numcodecs.zarr3 registers pcodec as an array-to-bytes codec: alone in a v3 chain it is
    /// one, numbers in the machine's order; a compressor that does not serialize numbers is
    /// still out of place there.
    #[test]
    fn pcodec_stands_as_a_v3_array_to_bytes_codec() {
        let pcodec = Codec::Compressor(Compressor::Pcodec(Pcodec { level: Some(8) }));
        let chain = CodecChain::new(&[5, 5], 4, &[pcodec], None).unwrap();
        let level = &chain.levels()[0];
        assert_eq!(
            level.array_to_bytes,
            ArrayToBytes::Bytes(Some(Endian::NATIVE))
        );
        assert_eq!(
            level.bytes_codecs.compressor,
            Some(Compressor::Pcodec(Pcodec { level: Some(8) }))
        );
        let zstd = Codec::Compressor(Compressor::ZSTD);
        assert!(matches!(
            CodecChain::new(&[5, 5], 4, &[zstd], None),
            Err(ChainError::Misplaced {
                codec: CodecName::Zstd
            })
        ));
    }
}
