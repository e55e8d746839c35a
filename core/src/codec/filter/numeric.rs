//! Element types of numcodecs' filters (a subset of [`Number`], their type strings read through
//! [`TypeStr`]), reading and writing one element, NumPy's `astype` casts and NumPy's type
//! promotion.
//!
//! One element's value is a [`Value`]: [`Value::Int`] holds any integer type's value exactly
//! in an `i128`, [`Value::Float`] holds a `float32` or `float64` value exactly in an `f64`.
//!
//! Casts ([`Value::cast`]) are NumPy's `astype` for every value NumPy defines:
//! - integer to integer wraps (two's complement truncation, as C's conversions do);
//! - float to integer truncates toward zero;
//! - integer to float, and `float64` to `float32`, round to nearest, ties to even;
//! - `float32` to `float64` is exact.
//!
//! A float that is NaN, infinite or out of the target integer's range has no defined result in
//! NumPy (C leaves it undefined; on x86-64 NumPy gives e.g. `300.0 -> 44` and `NaN -> 0` for
//! `int8`, `INT_MIN` for `int32`/`int64`). Here such a cast **saturates** as Rust's `as` does:
//! NaN gives 0, too-large values the type's maximum, too-small values its minimum.
//!
//! `float16` values are held exactly in the `f64` of [`Value::Float`]; a cast into `float16`
//! rounds once to nearest, ties to even ([`f16_from_f64`]), as NumPy's does.

use super::FilterError;
use crate::codec::Endian;
use crate::dtype::{ByteOrder, Number, TypeStr, f16_from_f64, f16_to_f64};

/// A NumPy numeric type the filters handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NumType {
    /// `bool` (`"|b1"`): one byte, 0 or 1 (any other byte reads as 1, as NumPy casts it).
    Bool,
    /// `int8` (`"|i1"`).
    Int8,
    /// `int16` (`"<i2"`, `">i2"`).
    Int16,
    /// `int32` (`"<i4"`, `">i4"`).
    Int32,
    /// `int64` (`"<i8"`, `">i8"`).
    Int64,
    /// `uint8` (`"|u1"`).
    UInt8,
    /// `uint16` (`"<u2"`, `">u2"`).
    UInt16,
    /// `uint32` (`"<u4"`, `">u4"`).
    UInt32,
    /// `uint64` (`"<u8"`, `">u8"`).
    UInt64,
    /// `float16` (`"<f2"`, `">f2"`).
    Float16,
    /// `float32` (`"<f4"`, `">f4"`).
    Float32,
    /// `float64` (`"<f8"`, `">f8"`).
    Float64,
}

impl NumType {
    /// Every type, for iteration.
    pub const ALL: [NumType; 12] = [
        NumType::Bool,
        NumType::Int8,
        NumType::Int16,
        NumType::Int32,
        NumType::Int64,
        NumType::UInt8,
        NumType::UInt16,
        NumType::UInt32,
        NumType::UInt64,
        NumType::Float16,
        NumType::Float32,
        NumType::Float64,
    ];

    /// The number type it is.
    pub const fn number(self) -> Number {
        match self {
            NumType::Bool => Number::Bool,
            NumType::Int8 => Number::Int8,
            NumType::Int16 => Number::Int16,
            NumType::Int32 => Number::Int32,
            NumType::Int64 => Number::Int64,
            NumType::UInt8 => Number::UInt8,
            NumType::UInt16 => Number::UInt16,
            NumType::UInt32 => Number::UInt32,
            NumType::UInt64 => Number::UInt64,
            NumType::Float16 => Number::Float16,
            NumType::Float32 => Number::Float32,
            NumType::Float64 => Number::Float64,
        }
    }

    /// The filters' type for `number`; `None` for the complex types.
    pub fn from_number(number: Number) -> Option<NumType> {
        NumType::ALL.into_iter().find(|t| t.number() == number)
    }

    /// The size of one element in bytes.
    pub const fn size(self) -> usize {
        self.number().size()
    }

    /// NumPy's kind character: `'b'`, `'i'`, `'u'` or `'f'`.
    pub const fn kind(self) -> char {
        self.number().kind()
    }

    /// Whether this is `float16`, `float32` or `float64`.
    pub const fn is_float(self) -> bool {
        matches!(self, NumType::Float16 | NumType::Float32 | NumType::Float64)
    }

    /// NumPy's name: `"bool"`, `"int8"`, ..., `"uint64"`, `"float16"`, `"float32"`,
    /// `"float64"`.
    pub const fn name(self) -> &'static str {
        self.number().name()
    }

    /// The type of NumPy kind `kind` (`'i'`, `'u'`, `'f'`) and `size` bytes, if supported.
    pub fn from_kind_size(kind: char, size: usize) -> Option<NumType> {
        Number::from_kind_size(kind, size).and_then(NumType::from_number)
    }

    /// NumPy's result type of `self` and `other` (`np.result_type`, NumPy 2), the type in
    /// which NumPy computes a binary operation: the larger of two ints of one signedness;
    /// a signed int large enough for both of a signed and an unsigned int, or `float64` when
    /// `uint64` meets a signed int; the larger float; `float16` with a 1-byte int;
    /// `float16` or `float32` with an int of at most 2 bytes give `float32`; otherwise
    /// `float64`. `bool` with any type gives that type.
    pub const fn promote(self, other: NumType) -> NumType {
        let (a, b) = (self, other);
        if let NumType::Bool = a {
            return b;
        }
        if let NumType::Bool = b {
            return a;
        }
        let (sa, sb) = (a.size(), b.size());
        let larger = if sa >= sb { a } else { b };
        match (a.kind(), b.kind()) {
            ('f', 'f') => larger,
            ('f', _) | (_, 'f') => {
                let (f, int_size) = if a.is_float() { (a, sb) } else { (b, sa) };
                match (f, int_size) {
                    (NumType::Float16, 1) => NumType::Float16,
                    (NumType::Float16 | NumType::Float32, 1 | 2) => NumType::Float32,
                    _ => NumType::Float64,
                }
            }
            ('i', 'i') | ('u', 'u') => larger,
            _ => {
                let (s, u) = if a.kind() == 'i' { (sa, sb) } else { (sb, sa) };
                if s > u {
                    if a.kind() == 'i' { a } else { b }
                } else {
                    match u {
                        1 => NumType::Int16,
                        2 => NumType::Int32,
                        4 => NumType::Int64,
                        _ => NumType::Float64,
                    }
                }
            }
        }
    }

    /// The type of a NumPy name ([`Number::from_numpy_name`]: `"int8"` ... `"float64"` and
    /// NumPy's aliases such as `"double"`), if the filters handle it.
    pub fn from_name(s: &str) -> Option<NumType> {
        Number::from_numpy_name(s).and_then(NumType::from_number)
    }
}

/// One element's type and byte order as stored in a buffer.
///
/// For one-byte types the byte order means nothing; the parsers set it to
/// [`Endian::Little`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Elem {
    /// The numeric type.
    pub ty: NumType,
    /// The byte order of multi-byte types.
    pub endian: Endian,
}

/// The first `N` bytes of `src` in little-endian order.
fn le_bytes<const N: usize>(src: &[u8], endian: Endian) -> Option<[u8; N]> {
    let mut b = *src.first_chunk::<N>()?;
    if endian == Endian::Big {
        b.reverse();
    }
    Some(b)
}

/// Stores little-endian bytes `b` at the start of `dst` in `endian` order.
fn put_bytes<const N: usize>(mut b: [u8; N], dst: &mut [u8], endian: Endian) -> Option<()> {
    if endian == Endian::Big {
        b.reverse();
    }
    *dst.first_chunk_mut::<N>()? = b;
    Some(())
}

impl Elem {
    /// An element of type `ty` stored in `endian` order.
    pub const fn new(ty: NumType, endian: Endian) -> Self {
        Self { ty, endian }
    }

    /// The size of one element in bytes.
    pub const fn size(self) -> usize {
        self.ty.size()
    }

    /// Parses a NumPy type string exactly as numcodecs writes it in Zarr v2 (`dtype.str`,
    /// [`TypeStr::is_numpy_str`]): `"|i1"`, `"|u1"`, and `'<'` or `'>'` then kind and size for
    /// the others (`"<i4"`, `">f8"`, `"<u2"`). Anything else, `float16` (`"<f2"`) included,
    /// gives `None`; use [`Elem::parse_numpy`] to learn why, or to read the looser v3 spellings.
    pub fn from_numpy(s: &str) -> Option<Elem> {
        let t = TypeStr::parse(s).filter(TypeStr::is_numpy_str)?;
        let ty = NumType::from_number(t.number()?)?;
        let endian = t
            .order
            .and_then(ByteOrder::endian)
            .unwrap_or(Endian::Little);
        Some(Elem::new(ty, Self::order_for(ty, endian)))
    }

    /// Parses any common NumPy spelling of a supported type, as Zarr v3 configurations of
    /// numcodecs filters may hold it: a type string with or without a byte-order character
    /// (`"<i4"`, `">f8"`, `"|u1"`, `"=i2"`, `"i4"`, `"u1"`) or a name (`"int32"`, `"float64"`,
    /// `"uint8"`, see [`NumType::from_name`]). `default` is the byte order when the string
    /// names none (`'='`, `'|'` or no character: NumPy's native order).
    ///
    /// # Errors
    /// [`FilterError::UnsupportedDtype`] for a NumPy type of another kind or size
    /// (`"<c8"`, `">f16"`), [`FilterError::UnknownDtype`] otherwise.
    pub fn parse_numpy(s: &str, default: Endian) -> Result<Elem, FilterError> {
        let unknown = FilterError::UnknownDtype { len: s.len() };
        let supported = |n: Number| {
            NumType::from_number(n).ok_or(FilterError::UnsupportedDtype {
                kind: n.kind(),
                size: n.size(),
            })
        };
        if let Some(n) = Number::from_numpy_name(s) {
            let ty = supported(n)?;
            return Ok(Elem::new(ty, Self::order_for(ty, default)));
        }
        let t = TypeStr::parse(s)
            .filter(|t| t.unit.is_none())
            .ok_or(unknown)?;
        let ty = match t.number() {
            Some(n) => supported(n)?,
            // float128 and complex256: NumPy's, not the filters'.
            None => match (t.kind, t.size) {
                (kind @ 'f', 16) => return Err(FilterError::UnsupportedDtype { kind, size: 16 }),
                (kind @ 'c', 32) => return Err(FilterError::UnsupportedDtype { kind, size: 32 }),
                _ => return Err(unknown),
            },
        };
        let endian = t.order.and_then(ByteOrder::endian).unwrap_or(default);
        Ok(Elem::new(ty, Self::order_for(ty, endian)))
    }

    fn order_for(ty: NumType, endian: Endian) -> Endian {
        if ty.size() == 1 {
            Endian::Little
        } else {
            endian
        }
    }

    /// The NumPy type string numcodecs writes for this element (`dtype.str`): `"|i1"`,
    /// `"|u1"`, `"<i4"`, `">f8"`, ...
    pub fn type_str(self) -> TypeStr<'static> {
        TypeStr::of_number(self.ty.number(), self.endian)
    }

    /// Reads the element at the start of `src`; `None` if `src` is shorter than
    /// [`size`](Elem::size).
    pub fn read(self, src: &[u8]) -> Option<Value> {
        let e = self.endian;
        Some(match self.ty {
            NumType::Bool => Value::Int(i128::from(*src.first()? != 0)),
            NumType::Int8 => Value::Int(i8::from_le_bytes(le_bytes(src, e)?).into()),
            NumType::Int16 => Value::Int(i16::from_le_bytes(le_bytes(src, e)?).into()),
            NumType::Int32 => Value::Int(i32::from_le_bytes(le_bytes(src, e)?).into()),
            NumType::Int64 => Value::Int(i64::from_le_bytes(le_bytes(src, e)?).into()),
            NumType::UInt8 => Value::Int(u8::from_le_bytes(le_bytes(src, e)?).into()),
            NumType::UInt16 => Value::Int(u16::from_le_bytes(le_bytes(src, e)?).into()),
            NumType::UInt32 => Value::Int(u32::from_le_bytes(le_bytes(src, e)?).into()),
            NumType::UInt64 => Value::Int(u64::from_le_bytes(le_bytes(src, e)?).into()),
            NumType::Float16 => Value::Float(f16_to_f64(u16::from_le_bytes(le_bytes(src, e)?))),
            NumType::Float32 => Value::Float(f32::from_le_bytes(le_bytes(src, e)?).into()),
            NumType::Float64 => Value::Float(f64::from_le_bytes(le_bytes(src, e)?)),
        })
    }

    /// Casts `v` to this element's type ([`Value::cast`]) and writes it at the start of `dst`;
    /// `None` (and nothing written) if `dst` is shorter than [`size`](Elem::size).
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // `cast` put it in range
    pub fn write(self, v: Value, dst: &mut [u8]) -> Option<()> {
        let e = self.endian;
        match (self.ty, v.cast(self.ty)) {
            (NumType::Bool, Value::Int(i)) => put_bytes([u8::from(i != 0)], dst, e),
            (NumType::Int8, Value::Int(i)) => put_bytes((i as i8).to_le_bytes(), dst, e),
            (NumType::Int16, Value::Int(i)) => put_bytes((i as i16).to_le_bytes(), dst, e),
            (NumType::Int32, Value::Int(i)) => put_bytes((i as i32).to_le_bytes(), dst, e),
            (NumType::Int64, Value::Int(i)) => put_bytes((i as i64).to_le_bytes(), dst, e),
            (NumType::UInt8, Value::Int(i)) => put_bytes((i as u8).to_le_bytes(), dst, e),
            (NumType::UInt16, Value::Int(i)) => put_bytes((i as u16).to_le_bytes(), dst, e),
            (NumType::UInt32, Value::Int(i)) => put_bytes((i as u32).to_le_bytes(), dst, e),
            (NumType::UInt64, Value::Int(i)) => put_bytes((i as u64).to_le_bytes(), dst, e),
            (NumType::Float16, Value::Float(x)) => put_bytes(f16_from_f64(x).to_le_bytes(), dst, e),
            (NumType::Float32, Value::Float(x)) => put_bytes((x as f32).to_le_bytes(), dst, e),
            (NumType::Float64, Value::Float(x)) => put_bytes(x.to_le_bytes(), dst, e),
            // `cast` returns `Int` for integer types and `Float` for float types.
            _ => None,
        }
    }
}

/// One element's value: integers exactly as `i128`, floats exactly as `f64`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// The value of an integer element (any of the eight integer types).
    Int(i128),
    /// The value of a `float32` or `float64` element.
    Float(f64),
}

impl Value {
    /// The value NumPy's `astype(ty)` gives (see the [module docs](self)): integers wrap,
    /// floats truncate toward zero into integers (saturating where NumPy is undefined), and
    /// conversions into floats round to nearest.
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss
    )] // truncation is the wrapping NumPy does; rounding into floats too
    pub fn cast(self, ty: NumType) -> Value {
        match self {
            Value::Int(i) => match ty {
                NumType::Bool => Value::Int(i128::from(i != 0)),
                NumType::Int8 => Value::Int((i as i8).into()),
                NumType::Int16 => Value::Int((i as i16).into()),
                NumType::Int32 => Value::Int((i as i32).into()),
                NumType::Int64 => Value::Int((i as i64).into()),
                NumType::UInt8 => Value::Int((i as u8).into()),
                NumType::UInt16 => Value::Int((i as u16).into()),
                NumType::UInt32 => Value::Int((i as u32).into()),
                NumType::UInt64 => Value::Int((i as u64).into()),
                NumType::Float16 => Value::Float(f16_to_f64(f16_from_f64(i as f64))),
                NumType::Float32 => Value::Float((i as f32).into()),
                NumType::Float64 => Value::Float(i as f64),
            },
            Value::Float(x) => match ty {
                // NaN is not zero: true, as in NumPy.
                NumType::Bool => Value::Int(i128::from(x != 0.0)),
                NumType::Int8 => Value::Int((x as i8).into()),
                NumType::Int16 => Value::Int((x as i16).into()),
                NumType::Int32 => Value::Int((x as i32).into()),
                NumType::Int64 => Value::Int((x as i64).into()),
                NumType::UInt8 => Value::Int((x as u8).into()),
                NumType::UInt16 => Value::Int((x as u16).into()),
                NumType::UInt32 => Value::Int((x as u32).into()),
                NumType::UInt64 => Value::Int((x as u64).into()),
                NumType::Float16 => Value::Float(f16_to_f64(f16_from_f64(x))),
                NumType::Float32 => Value::Float((x as f32).into()),
                NumType::Float64 => Value::Float(x),
            },
        }
    }

    /// Whether `self` and `other` are the same value bit for bit (a NaN is itself).
    #[must_use]
    pub fn same_bits(self, other: Value) -> bool {
        match (self, other) {
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
            (Value::Int(_), Value::Float(_)) | (Value::Float(_), Value::Int(_)) => false,
        }
    }

    /// The value as an `f64`: floats as they are, integers rounded to nearest.
    #[allow(clippy::cast_precision_loss)] // rounding is NumPy's int-to-float cast
    pub fn to_f64(self) -> f64 {
        match self {
            Value::Int(i) => i as f64,
            Value::Float(x) => x,
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::format;

    use super::*;

    #[test]
    fn numpy_strings_round_trip() {
        for ty in NumType::ALL {
            for endian in [Endian::Little, Endian::Big] {
                let e = Elem::new(ty, endian);
                let s = format!("{}", e.type_str());
                let back = Elem::from_numpy(&s).unwrap();
                assert_eq!(back.ty, ty);
                assert_eq!(back.size(), ty.size());
                if ty.size() > 1 {
                    assert_eq!(back, e);
                }
                assert_eq!(Elem::parse_numpy(&s, Endian::Big), Ok(back));
            }
        }
        assert_eq!(
            Elem::from_numpy(">f8"),
            Some(Elem::new(NumType::Float64, Endian::Big))
        );
        assert_eq!(
            Elem::from_numpy("<u2"),
            Some(Elem::new(NumType::UInt16, Endian::Little))
        );
    }

    #[test]
    fn strict_parser_refuses_other_spellings() {
        for s in [
            "", "<", "|", "i4", "=i4", "|i4", "<u1", ">i1", "int32", "<i3", "<i44", "<c8", "b1",
            "<x4", "<i", "<i+4", "\u{e9}i4", "<\u{e9}4",
        ] {
            assert_eq!(Elem::from_numpy(s), None, "{s:?}");
        }
    }

    #[test]
    fn loose_parser_reads_v3_spellings() {
        let le = Endian::Little;
        let big = Endian::Big;
        let cases = [
            ("int32", big, NumType::Int32, big),
            ("float64", le, NumType::Float64, le),
            ("uint8", big, NumType::UInt8, le),
            ("u1", big, NumType::UInt8, le),
            ("<u1", le, NumType::UInt8, le),
            ("f8", big, NumType::Float64, big),
            ("=i2", big, NumType::Int16, big),
            ("|i4", le, NumType::Int32, le),
            (">i2", le, NumType::Int16, big),
            ("float", le, NumType::Float64, le),
            ("int", le, NumType::Int64, le),
        ];
        for (s, default, ty, endian) in cases {
            assert_eq!(
                Elem::parse_numpy(s, default),
                Ok(Elem::new(ty, endian)),
                "{s}"
            );
        }
        for (s, kind, size) in [("<c8", 'c', 8), (">f16", 'f', 16)] {
            assert_eq!(
                Elem::parse_numpy(s, le),
                Err(FilterError::UnsupportedDtype { kind, size }),
                "{s}"
            );
        }
        for s in [
            "",
            "<",
            "x4",
            "<i",
            "i16",
            "int31",
            "<i-4",
            "<i99999999999999999999999",
            "é",
        ] {
            assert_eq!(
                Elem::parse_numpy(s, le),
                Err(FilterError::UnknownDtype { len: s.len() }),
                "{s}"
            );
        }
    }

    // np.result_type for every pair, NumPy 2.4.6: row type, then the result with each column
    // type in the order b1 i1 i2 i4 i8 u1 u2 u4 u8 f2 f4 f8.
    const PROMOTION: [&str; 12] = [
        "b1 b1 i1 i2 i4 i8 u1 u2 u4 u8 f2 f4 f8",
        "i1 i1 i1 i2 i4 i8 i2 i4 i8 f8 f2 f4 f8",
        "i2 i2 i2 i2 i4 i8 i2 i4 i8 f8 f4 f4 f8",
        "i4 i4 i4 i4 i4 i8 i4 i4 i8 f8 f8 f8 f8",
        "i8 i8 i8 i8 i8 i8 i8 i8 i8 f8 f8 f8 f8",
        "u1 u1 i2 i2 i4 i8 u1 u2 u4 u8 f2 f4 f8",
        "u2 u2 i4 i4 i4 i8 u2 u2 u4 u8 f4 f4 f8",
        "u4 u4 i8 i8 i8 i8 u4 u4 u4 u8 f8 f8 f8",
        "u8 u8 f8 f8 f8 f8 u8 u8 u8 u8 f8 f8 f8",
        "f2 f2 f2 f4 f8 f8 f2 f4 f8 f8 f2 f4 f8",
        "f4 f4 f4 f4 f8 f8 f4 f4 f8 f8 f4 f4 f8",
        "f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8",
    ];

    fn short(s: &str) -> NumType {
        Elem::parse_numpy(s, Endian::Little).unwrap().ty
    }

    #[test]
    fn promotion_matches_numpy() {
        for row in PROMOTION {
            let mut it = row.split(' ');
            let a = short(it.next().unwrap());
            for (b, want) in NumType::ALL.into_iter().zip(it) {
                assert_eq!(a.promote(b), short(want), "{a:?} with {b:?}");
            }
        }
    }

    #[test]
    fn read_and_write_every_type_both_orders() {
        let v = Value::Int(0x0102_0304_0506_0708);
        let mut buf = [0u8; 9];
        let le = Elem::new(NumType::Int32, Endian::Little);
        le.write(v, &mut buf).unwrap();
        assert_eq!(buf[..4], [8, 7, 6, 5]);
        let be = Elem::new(NumType::Int32, Endian::Big);
        be.write(v, &mut buf).unwrap();
        assert_eq!(buf[..4], [5, 6, 7, 8]);
        assert_eq!(be.read(&buf), Some(Value::Int(0x0506_0708)));
        let f = Elem::new(NumType::Float64, Endian::Big);
        f.write(Value::Float(1.5), &mut buf).unwrap();
        assert_eq!(buf[..8], 1.5f64.to_be_bytes());
        for ty in NumType::ALL {
            for endian in [Endian::Little, Endian::Big] {
                let e = Elem::new(ty, endian);
                let x = match ty {
                    NumType::Bool => Value::Int(1),
                    _ if ty.is_float() => Value::Float(-2.5),
                    _ => Value::Int(100),
                };
                e.write(x, &mut buf[1..]).unwrap();
                assert_eq!(e.read(&buf[1..]), Some(x), "{ty:?}");
                assert_eq!(e.read(&buf[..ty.size() - 1]), None);
                assert_eq!(e.write(x, &mut buf[..ty.size() - 1]), None);
            }
        }
    }

    /// A bool is its byte's being non-zero, written as 0 or 1; any number casts to it as
    /// `astype(bool)` does (NaN is true).
    #[test]
    fn bools_read_and_cast_as_numpy_does() {
        let b = Elem::new(NumType::Bool, Endian::Little);
        for (byte, want) in [(0u8, 0), (1, 1), (2, 1), (255, 1)] {
            assert_eq!(b.read(&[byte]), Some(Value::Int(want)), "{byte}");
        }
        let mut out = [9u8];
        for (v, want) in [
            (Value::Int(-3), 1),
            (Value::Int(0), 0),
            (Value::Float(0.5), 1),
            (Value::Float(-0.0), 0),
            (Value::Float(f64::NAN), 1),
        ] {
            b.write(v, &mut out).unwrap();
            assert_eq!(out, [want], "{v:?}");
        }
        assert_eq!(Value::Int(1).cast(NumType::Float16), Value::Float(1.0));
    }

    #[test]
    fn casts_follow_numpy() {
        use NumType::*;
        // int -> int wraps.
        assert_eq!(Value::Int(300).cast(UInt8), Value::Int(44));
        assert_eq!(Value::Int(40000).cast(Int16), Value::Int(-25536));
        assert_eq!(Value::Int(-1).cast(UInt64), Value::Int(u64::MAX.into()));
        assert_eq!(Value::Int(u64::MAX.into()).cast(Int64), Value::Int(-1));
        // float -> int truncates toward zero.
        assert_eq!(Value::Float(-2.9).cast(Int32), Value::Int(-2));
        assert_eq!(Value::Float(2.9).cast(UInt8), Value::Int(2));
        assert_eq!(Value::Float(-0.5).cast(UInt8), Value::Int(0));
        assert_eq!(
            Value::Float(9.2e18).cast(UInt64),
            Value::Int(9_200_000_000_000_000_000)
        );
        // Out of range or NaN saturates (NumPy's result is platform-defined there).
        assert_eq!(Value::Float(300.0).cast(Int8), Value::Int(127));
        assert_eq!(Value::Float(f64::NAN).cast(Int64), Value::Int(0));
        assert_eq!(Value::Float(-1.0).cast(UInt16), Value::Int(0));
        // int -> float rounds to nearest, ties to even.
        assert_eq!(
            Value::Int(16_777_217).cast(Float32),
            Value::Float(16_777_216.0)
        );
        assert_eq!(
            Value::Int(16_777_219).cast(Float32),
            Value::Float(16_777_220.0)
        );
        assert_eq!(
            Value::Int(u64::MAX.into()).cast(Float64),
            Value::Float(18_446_744_073_709_551_616.0)
        );
        assert_eq!(
            Value::Int((1 << 53) + 1).cast(Float64),
            Value::Float(9_007_199_254_740_992.0)
        );
        // f64 -> f32 rounds to nearest.
        assert_eq!(
            Value::Float(0.1).cast(Float32),
            Value::Float(f64::from(0.1f32))
        );
        assert_eq!(
            Value::Float(1e39).cast(Float32),
            Value::Float(f64::INFINITY)
        );
        assert_eq!(Value::Int(7).to_f64(), 7.0);
    }
}

#[cfg(test)]
mod float16_tests {
    use super::*;

    /// NumPy 2.4.6: `np.array([0.1, 1/3, 1e-8, 70000.0, -2.5]).astype(np.float16)`.
    #[test]
    fn float16_elements_cast_and_store_as_numpy() {
        let f2 = Elem::new(NumType::Float16, Endian::Little);
        let want = [11878u16, 13653, 0, 31744, 49408];
        for (x, bits) in [0.1, 1.0 / 3.0, 1e-8, 70000.0, -2.5].into_iter().zip(want) {
            let mut b = [0u8; 2];
            f2.write(Value::Float(x), &mut b).unwrap();
            assert_eq!(u16::from_le_bytes(b), bits, "{x}");
            assert_eq!(
                f2.read(&b),
                Some(Value::Float(crate::dtype::f16_to_f64(bits)))
            );
        }
        assert_eq!(
            Elem::from_numpy(">f2"),
            Some(Elem::new(NumType::Float16, Endian::Big))
        );
        assert_eq!(Elem::parse_numpy("float16", Endian::Little), Ok(f2));
    }
}
