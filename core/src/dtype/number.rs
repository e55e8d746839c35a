//! The fixed-width numbers NumPy and Zarr share.

/// A fixed-width number type: bool, the eight integers, three floats, two complex types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Number {
    /// One byte, 0 or 1.
    Bool,
    /// `int8`.
    Int8,
    /// `int16`.
    Int16,
    /// `int32`.
    Int32,
    /// `int64`.
    Int64,
    /// `uint8`.
    UInt8,
    /// `uint16`.
    UInt16,
    /// `uint32`.
    UInt32,
    /// `uint64`.
    UInt64,
    /// IEEE 754 half precision.
    Float16,
    /// IEEE 754 single precision.
    Float32,
    /// IEEE 754 double precision.
    Float64,
    /// Two `Float32`: real, imaginary.
    Complex64,
    /// Two `Float64`: real, imaginary.
    Complex128,
}

/// Each number with its name (Zarr v3's and NumPy's), NumPy kind letter and size in bytes.
const TABLE: [(Number, &str, char, u8); 14] = [
    (Number::Bool, "bool", 'b', 1),
    (Number::Int8, "int8", 'i', 1),
    (Number::Int16, "int16", 'i', 2),
    (Number::Int32, "int32", 'i', 4),
    (Number::Int64, "int64", 'i', 8),
    (Number::UInt8, "uint8", 'u', 1),
    (Number::UInt16, "uint16", 'u', 2),
    (Number::UInt32, "uint32", 'u', 4),
    (Number::UInt64, "uint64", 'u', 8),
    (Number::Float16, "float16", 'f', 2),
    (Number::Float32, "float32", 'f', 4),
    (Number::Float64, "float64", 'f', 8),
    (Number::Complex64, "complex64", 'c', 8),
    (Number::Complex128, "complex128", 'c', 16),
];

impl Number {
    /// Every number type.
    pub const ALL: [Number; 14] = {
        let mut all = [Number::Bool; 14];
        let mut i = 0;
        while i < TABLE.len() {
            all[i] = TABLE[i].0;
            i += 1;
        }
        all
    };

    const fn row(self) -> (Number, &'static str, char, u8) {
        TABLE[self as usize]
    }

    /// Its name: `"bool"`, `"int8"`, ..., `"float64"`, `"complex128"` (Zarr v3's `data_type`
    /// and NumPy's name alike).
    pub const fn name(self) -> &'static str {
        self.row().1
    }

    /// NumPy's kind letter: `'b'`, `'i'`, `'u'`, `'f'` or `'c'`.
    pub const fn kind(self) -> char {
        self.row().2
    }

    /// The size of one element in bytes.
    pub const fn size(self) -> usize {
        self.row().3 as usize
    }

    /// [`size`](Number::size), as the `u8` it fits in (at most 16).
    pub const fn size_u8(self) -> u8 {
        self.row().3
    }

    /// The size of the unit a byte order applies to: half the size for complex numbers.
    pub const fn scalar_size(self) -> usize {
        match self {
            Number::Complex64 | Number::Complex128 => self.size() / 2,
            _ => self.size(),
        }
    }

    /// Whether it is one of the eight integer types.
    pub const fn is_integer(self) -> bool {
        matches!(self.kind(), 'i' | 'u')
    }

    /// The type named exactly `name` ([`name`](Number::name)).
    pub fn from_name(name: &str) -> Option<Number> {
        TABLE.iter().find(|t| t.1 == name).map(|t| t.0)
    }

    /// The type of a NumPy name: [`from_name`](Number::from_name)'s, and NumPy's aliases
    /// `"float"` and `"double"` (`float64`), `"single"` (`float32`), `"half"` (`float16`),
    /// `"int"` (`int64`, NumPy 2 on 64-bit platforms) and `"complex"` (`complex128`).
    pub fn from_numpy_name(name: &str) -> Option<Number> {
        match name {
            "float" | "double" => Some(Number::Float64),
            "single" => Some(Number::Float32),
            "half" => Some(Number::Float16),
            "int" => Some(Number::Int64),
            "complex" => Some(Number::Complex128),
            _ => Self::from_name(name),
        }
    }

    /// The type of NumPy kind `kind` (`'b'` or `'?'`, `'i'`, `'u'`, `'f'`, `'c'`) and `size`
    /// bytes.
    pub fn from_kind_size(kind: char, size: usize) -> Option<Number> {
        let kind = if kind == '?' { 'b' } else { kind };
        TABLE
            .iter()
            .find(|t| t.2 == kind && usize::from(t.3) == size)
            .map(|t| t.0)
    }
}

impl core::fmt::Display for Number {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_in_the_order_of_the_enum() {
        for (i, n) in Number::ALL.into_iter().enumerate() {
            assert_eq!(n as usize, i);
            assert_eq!(Number::from_name(n.name()), Some(n));
            assert_eq!(Number::from_kind_size(n.kind(), n.size()), Some(n));
        }
    }

    #[test]
    fn numpy_aliases() {
        assert_eq!(Number::from_numpy_name("double"), Some(Number::Float64));
        assert_eq!(Number::from_numpy_name("half"), Some(Number::Float16));
        assert_eq!(Number::from_name("half"), None);
        assert_eq!(Number::from_kind_size('?', 1), Some(Number::Bool));
        assert_eq!(Number::from_kind_size('f', 16), None);
        assert_eq!(Number::Complex64.scalar_size(), 4);
    }
}
