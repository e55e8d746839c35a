//! Data types of array elements.

use zinto_core::codec::Endian;

/// An element type zinto reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DataType {
    /// One byte, 0 or 1.
    Bool,
    /// Signed integers.
    Int8,
    /// Signed integers.
    Int16,
    /// Signed integers.
    Int32,
    /// Signed integers.
    Int64,
    /// Unsigned integers.
    UInt8,
    /// Unsigned integers.
    UInt16,
    /// Unsigned integers.
    UInt32,
    /// Unsigned integers.
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

const TABLE: [(DataType, &str, char, usize); 14] = [
    (DataType::Bool, "bool", 'b', 1),
    (DataType::Int8, "int8", 'i', 1),
    (DataType::Int16, "int16", 'i', 2),
    (DataType::Int32, "int32", 'i', 4),
    (DataType::Int64, "int64", 'i', 8),
    (DataType::UInt8, "uint8", 'u', 1),
    (DataType::UInt16, "uint16", 'u', 2),
    (DataType::UInt32, "uint32", 'u', 4),
    (DataType::UInt64, "uint64", 'u', 8),
    (DataType::Float16, "float16", 'f', 2),
    (DataType::Float32, "float32", 'f', 4),
    (DataType::Float64, "float64", 'f', 8),
    (DataType::Complex64, "complex64", 'c', 8),
    (DataType::Complex128, "complex128", 'c', 16),
];

impl DataType {
    /// The type with this Zarr v3 name.
    pub fn from_v3_name(name: &str) -> Option<Self> {
        TABLE.iter().find(|t| t.1 == name).map(|t| t.0)
    }

    /// The type and byte order of a Zarr v2 (NumPy) type string such as `"<f4"` or `"|b1"`.
    /// One-byte types have no byte order (`None`).
    pub fn from_v2_str(s: &str) -> Option<(Self, Option<Endian>)> {
        let mut chars = s.chars();
        let endian = match chars.next()? {
            '<' => Some(Endian::Little),
            '>' => Some(Endian::Big),
            '|' => None,
            _ => return None,
        };
        let kind = chars.next()?;
        let size: usize = chars.as_str().parse().ok()?;
        let t = TABLE.iter().find(|t| t.2 == kind && t.3 == size)?.0;
        if size > 1 && endian.is_none() {
            return None;
        }
        Some((t, if size > 1 { endian } else { None }))
    }

    /// The Zarr v3 name.
    pub fn name(self) -> &'static str {
        TABLE.iter().find(|t| t.0 == self).map_or("?", |t| t.1)
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        TABLE.iter().find(|t| t.0 == self).map_or(1, |t| t.3)
    }

    /// Bytes per scalar: the unit the byte order applies to (half the size for complex types).
    pub fn scalar_size(self) -> usize {
        match self {
            Self::Complex64 | Self::Complex128 => self.size() / 2,
            _ => self.size(),
        }
    }
}

impl std::fmt::Display for DataType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
