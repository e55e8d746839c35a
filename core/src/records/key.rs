//! Key types and the total order they sort in, as one unsigned integer per key.

use core::fmt;

use crate::dtype::Number;

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
    /// Every key type.
    pub const ALL: [KeyType; 6] = [
        Self::F32,
        Self::F64,
        Self::I32,
        Self::I64,
        Self::U32,
        Self::U64,
    ];

    /// Width of the key in bytes.
    pub const fn width(self) -> usize {
        self.number().size()
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

    /// The number type it is.
    pub const fn number(self) -> Number {
        match self {
            Self::F32 => Number::Float32,
            Self::F64 => Number::Float64,
            Self::I32 => Number::Int32,
            Self::I64 => Number::Int64,
            Self::U32 => Number::UInt32,
            Self::U64 => Number::UInt64,
        }
    }

    /// The key type of `number`, if records can be sorted by it (4- and 8-byte integers and
    /// floats).
    pub fn from_number(number: Number) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.number() == number)
    }

    /// The key type named `name` (`f32`, `f64`, `i32`, `i64`, `u32`, `u64`).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Maps the key's raw bits (zero-extended to 64) to an unsigned integer of the same
    /// width whose order is the sort order. A bijection: [`Self::bits_from_order`] undoes it,
    /// which lets a sort rewrite keys in place and restore them afterwards.
    #[inline(always)]
    pub(crate) fn order_bits(self, bits: u64) -> u64 {
        match self {
            Self::U32 | Self::U64 => bits,
            Self::I32 => bits ^ (1 << 31),
            Self::I64 => bits ^ (1 << 63),
            Self::F32 => FloatBits::F32.order(bits),
            Self::F64 => FloatBits::F64.order(bits),
        }
    }

    /// The inverse of [`Self::order_bits`].
    #[inline(always)]
    pub(crate) fn bits_from_order(self, order: u64) -> u64 {
        match self {
            Self::U32 | Self::U64 | Self::I32 | Self::I64 => self.order_bits(order),
            Self::F32 => FloatBits::F32.unorder(order),
            Self::F64 => FloatBits::F64.unorder(order),
        }
    }
}

impl fmt::Display for KeyType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The total order of IEEE 754 floats used here, as a bijection on bit patterns:
///
/// - numbers by value, `-0.0` before `+0.0`;
/// - then NaNs with the sign bit clear, by bit pattern;
/// - then NaNs with the sign bit set, by bit pattern.
///
/// The usual trick (flip all bits of negatives, set the sign of positives) orders numbers but
/// puts negative NaNs first; shifting everything down by the number of negative NaNs (`nans`)
/// and keeping negative NaNs' own bits puts them last and stays a bijection.
struct FloatBits {
    /// The sign bit.
    sign: u64,
    /// All bits of the type.
    mask: u64,
    /// Bit pattern of negative infinity: everything above it is a negative NaN.
    neg_inf: u64,
    /// Number of negative NaN patterns (mask - neg_inf).
    nans: u64,
}

impl FloatBits {
    const F32: Self = Self::new(32, 0xff80_0000);
    const F64: Self = Self::new(64, 0xfff0_0000_0000_0000);

    const fn new(width: u32, neg_inf: u64) -> Self {
        let mask = u64::MAX >> (64 - width);
        Self {
            sign: 1 << (width - 1),
            mask,
            neg_inf,
            nans: mask - neg_inf,
        }
    }

    #[inline(always)]
    fn order(&self, bits: u64) -> u64 {
        let bits = bits & self.mask;
        if bits > self.neg_inf {
            return bits; // negative NaN: the top `nans` values, in their own order
        }
        let flipped = if bits & self.sign != 0 {
            !bits & self.mask
        } else {
            bits | self.sign
        };
        flipped.wrapping_sub(self.nans) & self.mask
    }

    #[inline(always)]
    fn unorder(&self, order: u64) -> u64 {
        let order = order & self.mask;
        if order > self.neg_inf {
            return order;
        }
        let flipped = order.wrapping_add(self.nans) & self.mask;
        if flipped & self.sign != 0 {
            flipped ^ self.sign
        } else {
            !flipped & self.mask
        }
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
    extern crate std;
    use super::*;
    use std::vec;

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
        let nans = [
            f64::from_bits(0x7ff0_0000_0000_0001),
            f64::NAN,
            f64::from_bits(0x7fff_ffff_ffff_ffff),
            f64::from_bits(0xfff0_0000_0000_0001),
            -f64::NAN,
            f64::from_bits(0xffff_ffff_ffff_ffff),
        ];
        assert!(f64::INFINITY.order_key() < nans[0].order_key());
        for pair in nans.windows(2) {
            assert!(pair[0].order_key() < pair[1].order_key(), "{pair:?}");
        }
        assert!((-0.0f32).order_key() < 0.0f32.order_key());
        assert!(f32::INFINITY.order_key() < (-f32::NAN).order_key());
        assert!(f32::NEG_INFINITY.order_key() < (-1.0f32).order_key());
    }

    #[test]
    fn order_bits_is_a_bijection_on_edges_and_samples() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut samples = vec![
            0,
            1,
            u64::MAX,
            1 << 63,
            (1 << 63) - 1,
            1 << 31,
            (1 << 32) - 1,
        ];
        samples.extend([
            0x7ff0_0000_0000_0000,
            0xfff0_0000_0000_0000,
            0xfff0_0000_0000_0001,
        ]);
        samples.extend([
            0x7f80_0000,
            0xff80_0000,
            0xff80_0001,
            0x8000_0000,
            0x7fff_ffff,
        ]);
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            samples.push(x);
        }
        for t in KeyType::ALL {
            let mask = if t.width() == 4 {
                0xffff_ffff
            } else {
                u64::MAX
            };
            for &b in &samples {
                let b = b & mask;
                let o = t.order_bits(b);
                assert_eq!(o & !mask, 0, "{t} {b:#x}");
                assert_eq!(t.bits_from_order(o), b, "{t} {b:#x}");
            }
        }
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
        for t in KeyType::ALL {
            assert_eq!(KeyType::from_name(t.name()), Some(t));
        }
        assert_eq!(KeyType::from_name("f16"), None);
        for n in Number::ALL {
            let key = KeyType::from_number(n);
            assert_eq!(key.map(KeyType::number), key.is_some().then_some(n));
            assert_eq!(
                key.is_some(),
                matches!(n.size(), 4 | 8) && n.kind() != 'c',
                "{n}"
            );
        }
    }
}
