//! Key types and the total order they sort in, as one unsigned integer per key.

use core::fmt;

/// The scalar type of a record's key field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyType {
    /// IEEE 754 binary32.
    F32,
    /// IEEE 754 binary64.
    F64,
    /// Two's complement 32-bit.
    I32,
    /// Two's complement 64-bit.
    I64,
    /// Unsigned 32-bit.
    U32,
    /// Unsigned 64-bit.
    U64,
}

impl KeyType {
    /// Width of the key in bytes.
    pub const fn width(self) -> usize {
        match self {
            Self::F32 | Self::I32 | Self::U32 => 4,
            Self::F64 | Self::I64 | Self::U64 => 8,
        }
    }

    /// Its name as written on the command line (`f64`, `i32`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            Self::F32 => "f32",
            Self::F64 => "f64",
            Self::I32 => "i32",
            Self::I64 => "i64",
            Self::U32 => "u32",
            Self::U64 => "u64",
        }
    }

    /// The key type named `name` (`f32`, `f64`, `i32`, `i64`, `u32`, `u64`).
    pub fn from_name(name: &str) -> Option<Self> {
        [
            Self::F32,
            Self::F64,
            Self::I32,
            Self::I64,
            Self::U32,
            Self::U64,
        ]
        .into_iter()
        .find(|t| t.name() == name)
    }

    /// Maps the key's raw bits (zero-extended to 64) to an unsigned integer whose order is the
    /// sort order.
    #[inline(always)]
    pub(crate) fn order_bits(self, bits: u64) -> u64 {
        match self {
            Self::U32 | Self::U64 => bits,
            Self::I32 => bits ^ (1 << 31),
            Self::I64 => bits ^ (1 << 63),
            Self::F32 => float_order(bits, 32, bits & 0x7fff_ffff > 0x7f80_0000),
            Self::F64 => float_order(bits, 64, bits & (u64::MAX >> 1) > 0x7ff0_0000_0000_0000),
        }
    }
}

impl fmt::Display for KeyType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Negative floats reversed below positive ones (so `-0.0 < +0.0`); every NaN after every
/// number, NaNs equal to each other.
#[inline(always)]
fn float_order(bits: u64, width: u32, nan: bool) -> u64 {
    let sign = 1u64 << (width - 1);
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1 << width) - 1
    };
    if nan {
        u64::MAX
    } else if bits & sign != 0 {
        !bits & mask
    } else {
        bits | sign
    }
}

/// A scalar that sorts by a total order: the typed side of [`KeyType`].
pub trait OrderKey: Copy {
    /// An unsigned integer whose order is this value's sort order.
    fn order_key(self) -> u64;
}

macro_rules! order_key {
    ($($t:ty => $kind:ident, $bits:expr;)*) => {$(
        impl OrderKey for $t {
            #[inline(always)]
            fn order_key(self) -> u64 {
                #[allow(clippy::redundant_closure_call)]
                KeyType::$kind.order_bits(($bits)(self))
            }
        }
    )*};
}

order_key! {
    f32 => F32, |v: f32| u64::from(v.to_bits());
    f64 => F64, |v: f64| v.to_bits();
    i32 => I32, |v: i32| u64::from(v.cast_unsigned());
    i64 => I64, |v: i64| v.cast_unsigned();
    u32 => U32, u64::from;
    u64 => U64, |v: u64| v;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_in_total_order_with_nans_last() {
        let ordered = [
            f64::NEG_INFINITY,
            -1e300,
            -1.0,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            f64::MIN_POSITIVE,
            1.0,
            f64::INFINITY,
        ];
        for pair in ordered.windows(2) {
            assert!(pair[0].order_key() < pair[1].order_key(), "{pair:?}");
        }
        for nan in [f64::NAN, -f64::NAN, f64::from_bits(0x7ff0_0000_0000_0001)] {
            assert!(f64::INFINITY.order_key() < nan.order_key());
        }
        assert!((-0.0f32).order_key() < 0.0f32.order_key());
        assert!(f32::INFINITY.order_key() < (-f32::NAN).order_key());
        assert!(f32::NEG_INFINITY.order_key() < (-1.0f32).order_key());
    }

    #[test]
    fn integers_by_value() {
        assert!(i32::MIN.order_key() < (-1i32).order_key());
        assert!((-1i32).order_key() < 0i32.order_key());
        assert!(i64::MIN.order_key() < i64::MAX.order_key());
        assert!(0u64.order_key() < u64::MAX.order_key());
    }

    #[test]
    fn names_round_trip() {
        for t in [
            KeyType::F32,
            KeyType::F64,
            KeyType::I32,
            KeyType::I64,
            KeyType::U32,
            KeyType::U64,
        ] {
            assert_eq!(KeyType::from_name(t.name()), Some(t));
        }
        assert_eq!(KeyType::from_name("f16"), None);
    }
}
