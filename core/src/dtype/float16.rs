//! float16 conversions: an `f64` to the nearest half, once; a half to `f64`, exactly.

/// Rounds an `f64` to the nearest IEEE half-precision bit pattern, once (ties to even), as
/// NumPy's `np.float16(x)` does; NaN gives the quiet NaN `0x7e00` with `f`'s sign.
///
/// Through `f32` first, 1.0004882812509095 would round twice (to the midpoint of two halves,
/// then to even): 0x3c00 where NumPy gives 0x3c01. So does the `half` crate's `from_f64`
/// (2.7: through `f32` where the CPU has F16C, and its fallback drops the low 32 bits of the
/// mantissa), which is why it is not used for this.
///
/// ```
/// assert_eq!(zinto_core::dtype::f16_from_f64(1.000_488_281_250_909_5), 0x3c01);
/// assert_eq!(zinto_core::dtype::f16_from_f64(-2.0), 0xc000);
/// ```
// The shifts and exponents are bounded by the checks above them.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
pub fn f16_from_f64(f: f64) -> u16 {
    let bits = f.to_bits();
    let sign = ((bits >> 48) & 0x8000) as u16;
    if f.is_nan() {
        return sign | 0x7e00;
    }
    if f.abs() >= 65520.0 {
        // At or past the midpoint of 65504 and the next step: infinity.
        return sign | 0x7c00;
    }
    let biased = ((bits >> 52) & 0x7ff) as i32;
    if biased == 0 {
        // Zero, or far below the smallest half.
        return sign;
    }
    // |f| = mantissa * 2^(e - 52), in [2^e, 2^(e + 1)).
    let e = biased - 1023;
    let mantissa = (bits & ((1 << 52) - 1)) | (1 << 52);
    // The step of halves at this magnitude: 2^(e - 10) for normal ones, 2^-24 below.
    let step = (e - 10).max(-24);
    let drop = step - (e - 52);
    if drop >= 54 {
        // Below half the smallest step: zero.
        return sign;
    }
    let kept = mantissa >> drop;
    let rest = mantissa & ((1 << drop) - 1);
    let midpoint = 1u64 << (drop - 1);
    let rounded = kept + u64::from(rest > midpoint || (rest == midpoint && kept & 1 == 1));
    // `rounded` steps of 2^step: a subnormal (step -24) is its count; a normal half's bits are
    // its exponent field then the count past 1024, which `(step + 24) * 1024 + rounded` is
    // (a carry to 2048 moves into the next exponent by itself).
    sign | ((step + 24) as u64 * 1024 + rounded) as u16
}

/// The value of the IEEE half-precision bit pattern `h`, exactly (every half is an `f64`);
/// NaN payloads are kept in the top mantissa bits.
///
/// ```
/// assert_eq!(zinto_core::dtype::f16_to_f64(0x3c01), 1.0009765625);
/// assert_eq!(zinto_core::dtype::f16_to_f64(0x0001), 2f64.powi(-24));
/// ```
pub fn f16_to_f64(h: u16) -> f64 {
    let sign = u64::from(h >> 15) << 63;
    let exp = u64::from(h >> 10 & 0x1f);
    let mant = u64::from(h & 0x3ff);
    let bits = match (exp, mant) {
        (0, 0) => sign,
        // Subnormal: mant * 2^-24, normalised into an f64 (which holds it exactly).
        (0, m) => {
            let shift = m.leading_zeros() - 53; // bits to move the top set bit to bit 10
            let m = (m << shift) & 0x3ff;
            let e = 1023 - 14 - u64::from(shift);
            sign | e << 52 | m << 42
        }
        (0x1f, m) => sign | 0x7ff << 52 | m << 42,
        (e, m) => sign | (e + 1023 - 15) << 52 | m << 42,
    };
    f64::from_bits(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every half widens to the value the `half` crate gives (its widening is exact), and
    /// rounds back to itself.
    #[test]
    fn every_half_widens_exactly_and_rounds_back() {
        for h in 0..=u16::MAX {
            let x = f16_to_f64(h);
            let want = half::f16::from_bits(h).to_f64();
            if x.is_nan() {
                assert!(want.is_nan(), "{h:#06x}");
                assert_eq!(f16_from_f64(x) & 0x7c00, 0x7c00, "{h:#06x}");
                continue;
            }
            assert_eq!(x.to_bits(), want.to_bits(), "{h:#06x} -> {x}");
            assert_eq!(f16_from_f64(x), h, "{h:#06x} -> {x}");
        }
        assert_eq!(f16_to_f64(0x7bff), 65504.0);
        assert_eq!(f16_to_f64(0xfc00), f64::NEG_INFINITY);
        assert_eq!(f16_to_f64(0x0200), 2f64.powi(-15));
    }

    /// 1.0004882812509095 lies just above the midpoint of 1.0 (0x3c00) and the next half
    /// (0x3c01); rounded through `f32` first it lands on the midpoint and ties to even, 0x3c00.
    /// NumPy (`np.float16(1.0004882812509095).view(np.uint16)`) gives 0x3c01.
    #[test]
    fn rounds_once_as_numpy_does() {
        assert_eq!(f16_from_f64(1.000_488_281_250_909_5), 0x3c01);
        // Exactly the midpoint ties to even.
        assert_eq!(f16_from_f64(1.000_488_281_25), 0x3c00);
        assert_eq!(f16_from_f64(65504.0), 0x7bff);
        assert_eq!(f16_from_f64(65519.99), 0x7bff);
        assert_eq!(f16_from_f64(-65520.0), 0xfc00);
        assert_eq!(f16_from_f64(f64::NAN), 0x7e00);
        assert_eq!(f16_from_f64(-0.0), 0x8000);
        assert_eq!(f16_from_f64(5.960_464_477_539_063e-8), 0x0001);
        assert_eq!(f16_from_f64(2.98e-8), 0x0000);
    }

    /// `x` as an exact integer count of 2^-82 (every f16 and every f64 of magnitude at least
    /// 2^-30 is one).
    fn scaled(mantissa: u64, exponent: i32) -> i128 {
        i128::from(mantissa) << (exponent + 82)
    }

    #[allow(clippy::cast_possible_truncation)]
    fn f64_scaled(f: f64) -> i128 {
        let bits = f.to_bits();
        let exp = ((bits >> 52) & 0x7ff) as i32;
        let mant = (bits & ((1 << 52) - 1)) | (1 << 52);
        let v = scaled(mant, exp - 1075);
        if f < 0.0 { -v } else { v }
    }

    /// The f16 nearest `f` by exact arithmetic over all the finite ones, ties to even, with
    /// `f`'s sign (a negative value that rounds to zero is -0).
    fn nearest_f16(f: f64) -> u16 {
        let sign = if f < 0.0 { 0x8000 } else { 0 };
        let target = f64_scaled(f.abs());
        let value = |h: u16| -> i128 {
            let exp = i32::from((h >> 10) & 0x1f);
            let mant = u64::from(h & 0x3ff);
            if exp == 0 {
                scaled(mant, -24)
            } else {
                scaled(mant | 0x400, exp - 25)
            }
        };
        let nearest = (0..0x7c00u16)
            .min_by_key(|&h| ((value(h) - target).abs(), h & 1, h))
            .unwrap_or(0);
        sign | nearest
    }

    proptest::proptest! {
        #[test]
        #[allow(clippy::cast_sign_loss)]
        fn rounds_to_the_nearest_half(
            mantissa in 0u64..(1 << 52),
            exponent in -30i32..16,
            negative in proptest::bool::ANY,
        ) {
            let f = f64::from_bits(((exponent + 1023) as u64) << 52 | mantissa);
            let f = if negative { -f } else { f };
            let got = f16_from_f64(f);
            // Past the largest half (65504) a value rounds to infinity from 65520 on.
            if f.abs() < 65520.0 {
                proptest::prop_assert_eq!(got, nearest_f16(f), "{}", f);
            } else {
                proptest::prop_assert_eq!(got & 0x7fff, 0x7c00, "{}", f);
            }
        }
    }
}
