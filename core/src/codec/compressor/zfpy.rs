//! numcodecs `zfpy`: the array's numbers compressed by zfp (LLNL's lossy and reversible
//! compressor of 1 to 4-dimensional `int32`, `int64`, `float32` and `float64` arrays), after
//! zfp's full header, which states the number type, the dimensions and the mode. zinto-core
//! has no zfp decoder (its decoder reads the stream as 64-bit words and decodes it whole); the
//! std crate `zinto` plugs in zfp-rs (a pure-Rust zfp that writes the C library's streams bit
//! for bit) as a [`Backend`](crate::codec::Backend). The numbers decode in the machine's byte
//! order, as zfpy gives them.
//!
//! The configuration (`mode`, `tolerance`, `rate`, `precision`, `compression_kwargs`) is the
//! writer's: decoding reads everything from the header, so only `mode` is kept, for display.

use super::FromConfig;
use super::by_backend::ByBackend;
use crate::codec::config::{Config, ConfigValue, Reader};
use crate::codec::{ChainError, CodecName};

/// The most a stored byte decodes to, rounded up: a 4-dimensional block of 256 zero `float64`
/// (2 KiB) can cost a single bit, a ratio of 16 384.
const MAX_RATIO: u64 = 1 << 15;

/// zfp's compression modes, as `zfp_mode` numbers them (zfpy's `mode`).
const MODES: [&str; 6] = [
    "null",
    "expert",
    "fixed rate",
    "fixed precision",
    "fixed accuracy",
    "reversible",
];

/// numcodecs `zfpy`, configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Zfpy {
    /// The `zfp_mode` it was written with (0 to 5), if stated.
    pub mode: Option<u8>,
}

impl Zfpy {
    pub(crate) const NAMES: &'static [&'static str] = &["numcodecs.zfpy"];
    pub(crate) const V2_ID: Option<&'static str> = Some("zfpy");
}

impl FromConfig for Zfpy {
    fn from_config<C: Config + ?Sized>(r: &Reader<'_, C>) -> Result<Self, ChainError> {
        // The encoder's settings (zfpy writes -1 for those its mode does not use): the header
        // states what decoding needs. Checked, not kept.
        r.float("tolerance")?;
        r.float("rate")?;
        r.int("precision")?;
        r.object("compression_kwargs", &["tolerance", "rate", "precision"])?;
        for key in [
            "compression_kwargs/tolerance",
            "compression_kwargs/rate",
            "compression_kwargs/precision",
        ] {
            if !matches!(
                r.get(key),
                None | Some(ConfigValue::Int(_) | ConfigValue::UInt(_) | ConfigValue::Float(_))
            ) {
                return Err(r.error("compression_kwargs", "holds a setting that is not a number"));
            }
        }
        // In 0..=5, so it fits a u8.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Ok(Self {
            mode: r.int_in("mode", 0, 5)?.map(|m| m as u8),
        })
    }
}

impl ByBackend for Zfpy {
    const CODEC: CodecName = CodecName::Zfpy;
    const MAX_RATIO: u64 = MAX_RATIO;
    const SERIALIZES_NUMBERS: bool = true;
    const WITHOUT_BACKEND: &'static str =
        "zfpy without a backend (the std crate `zinto` provides one)";
    /// zinto only decodes it.
    const NOT_WRITTEN: &'static str = super::DECODE_ONLY;

    fn show(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mode = self.mode.and_then(|m| MODES.get(usize::from(m)));
        match mode {
            Some(m) => write!(f, "{}({m})", Self::NAMES[0]),
            None => f.write_str(Self::NAMES[0]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{ArrayToBytes, Codec, CodecChain, Compressor, Endian};

    /// numcodecs.zarr3 registers zfpy as an array-to-bytes codec: alone in a v3 chain it is
    /// one, numbers in the machine's order.
    #[test]
    fn zfpy_stands_as_a_v3_array_to_bytes_codec() {
        let zfpy = Compressor::Zfpy(Zfpy { mode: Some(4) });
        let chain = CodecChain::new(&[5, 5], 4, &[Codec::Compressor(zfpy)], None).unwrap();
        let level = &chain.levels()[0];
        assert_eq!(
            level.array_to_bytes,
            ArrayToBytes::Bytes(Some(Endian::NATIVE))
        );
        assert_eq!(level.bytes_codecs.compressor, Some(zfpy));
        let mut shown = heapless::String::<64>::new();
        core::fmt::write(&mut shown, format_args!("{zfpy}")).unwrap();
        assert_eq!(shown, "numcodecs.zfpy(fixed accuracy)");
    }
}
