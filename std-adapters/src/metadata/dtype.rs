//! Data types of array elements: numbers, dates and times, fixed- and variable-length strings.

use serde_json::Value;
use zinto_core::codec::Endian;
use zinto_core::dtype::{ByteOrder, Number, TypeStr};

/// An element type zinto reads.
///
/// Fixed-size types read into a flat buffer ([`Array::read_into`](crate::Array::read_into)):
/// numbers as themselves, [`DataType::DateTime64`] and [`DataType::TimeDelta64`] as `i64`
/// counts of their [`TimeUnit`] (`i64::MIN` is NaT, as in NumPy), [`DataType::FixedUtf32`] as
/// UTF-32 code units (zero-padded, native byte order) and [`DataType::FixedBytes`] as bytes
/// (zero-padded). Variable-length [`DataType::String`] and [`DataType::Bytes`] have no fixed
/// size: they read as offsets and values ([`Array::read_vlen`](crate::Array::read_vlen)).
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
    /// `numpy.datetime64`: an `i64` count of units since 1970-01-01T00:00, NaT `i64::MIN`.
    DateTime64(TimeUnit),
    /// `numpy.timedelta64`: an `i64` count of units, NaT `i64::MIN`.
    TimeDelta64(TimeUnit),
    /// A fixed number of UTF-32 code units (v3 `fixed_length_utf32`, NumPy `<U n`), padded
    /// with zeros.
    FixedUtf32 {
        /// Code units (characters) per element.
        chars: u32,
    },
    /// A fixed number of bytes (v3 `null_terminated_bytes`, NumPy `|S n`), padded with zeros.
    FixedBytes {
        /// Bytes per element.
        len: u32,
    },
    /// Variable-length UTF-8 strings (v3 `string` with `vlen-utf8`, v2 `|O` with `vlen-utf8`).
    String,
    /// Variable-length bytes (v3 `bytes` with `vlen-bytes`, v2 `|O` with `vlen-bytes`).
    Bytes,
}

/// The unit of a date or duration: `scale` of `unit` (NumPy's `datetime64[10s]` is 10 seconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TimeUnit {
    /// The base unit.
    pub unit: Unit,
    /// How many base units one count is (at least 1).
    pub scale: u32,
}

/// The base units NumPy's dates and durations count in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Unit {
    /// Years (`Y`).
    Year,
    /// Months (`M`).
    Month,
    /// Weeks (`W`).
    Week,
    /// Days (`D`).
    Day,
    /// Hours (`h`).
    Hour,
    /// Minutes (`m`).
    Minute,
    /// Seconds (`s`).
    Second,
    /// Milliseconds (`ms`).
    Millisecond,
    /// Microseconds (`us`).
    Microsecond,
    /// Nanoseconds (`ns`).
    Nanosecond,
    /// Picoseconds (`ps`).
    Picosecond,
    /// Femtoseconds (`fs`).
    Femtosecond,
    /// Attoseconds (`as`).
    Attosecond,
}

const UNITS: [(Unit, &str); 13] = [
    (Unit::Year, "Y"),
    (Unit::Month, "M"),
    (Unit::Week, "W"),
    (Unit::Day, "D"),
    (Unit::Hour, "h"),
    (Unit::Minute, "m"),
    (Unit::Second, "s"),
    (Unit::Millisecond, "ms"),
    (Unit::Microsecond, "us"),
    (Unit::Nanosecond, "ns"),
    (Unit::Picosecond, "ps"),
    (Unit::Femtosecond, "fs"),
    (Unit::Attosecond, "as"),
];

impl Unit {
    /// NumPy's code for the unit (`"ns"`, `"D"`, ...).
    pub fn code(self) -> &'static str {
        UNITS.iter().find(|u| u.0 == self).map_or("?", |u| u.1)
    }

    /// The unit with NumPy's code `code`.
    pub fn from_code(code: &str) -> Option<Self> {
        UNITS.iter().find(|u| u.1 == code).map(|u| u.0)
    }
}

impl TimeUnit {
    /// Parses NumPy's bracketed unit text: `ns`, `10s` (what `datetime64[...]` holds).
    pub fn parse_numpy(s: &str) -> Option<Self> {
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        let (scale, code) = s.split_at(digits);
        let scale = if scale.is_empty() {
            1
        } else {
            scale.parse().ok().filter(|&n| n > 0)?
        };
        Some(Self {
            unit: Unit::from_code(code)?,
            scale,
        })
    }
}

impl std::fmt::Display for TimeUnit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.scale != 1 {
            write!(f, "{}", self.scale)?;
        }
        f.write_str(self.unit.code())
    }
}

/// The largest element zinto reads: 1 MiB (a 262 144-character `fixed_length_utf32`). The
/// metadata declares the size, and fill values and scratch are sized from it, so it is bounded
/// before anything is allocated.
pub const MAX_ELEMENT_LEN: usize = 1 << 20;

/// Why a data type was not read: the caller wraps it in its metadata error.
pub(crate) enum TypeError {
    /// Valid, but not read by zinto (or not a type at all): the text names it.
    Unsupported(String),
    /// Against the spec: the text says what.
    Invalid(String),
}

impl DataType {
    /// The type of a Zarr v3 `data_type` field: a name (`"float32"`, `"string"`) or a named
    /// object with its configuration (`numpy.datetime64` with `unit` and `scale_factor`,
    /// `fixed_length_utf32` and `null_terminated_bytes` with `length_bytes`).
    pub(crate) fn from_v3(v: &Value) -> Result<Self, TypeError> {
        let unsupported = || TypeError::Unsupported(format!("data type {v}"));
        let (name, config) = match v {
            Value::String(s) => (s.as_str(), None),
            Value::Object(o) => match (o.get("name"), o.get("configuration")) {
                (Some(Value::String(s)), Some(Value::Object(c))) => (s.as_str(), Some(c)),
                (Some(Value::String(s)), None) => (s.as_str(), None),
                _ => return Err(unsupported()),
            },
            _ => return Err(unsupported()),
        };
        if let Some(n) = Number::from_name(name) {
            return Ok(n.into());
        }
        Self::from_v3_extension(name, config)?.bounded()
    }

    /// The parameterised and variable-length v3 types.
    fn from_v3_extension(
        name: &str,
        config: Option<&serde_json::Map<String, Value>>,
    ) -> Result<Self, TypeError> {
        let unsupported = || TypeError::Unsupported(format!("data type {name:?}"));
        let field = |key: &str| -> Result<&Value, TypeError> {
            config.and_then(|c| c.get(key)).ok_or_else(|| {
                TypeError::Invalid(format!("data type {name} lacks configuration {key:?}"))
            })
        };
        let positive = |key: &str| -> Result<u32, TypeError> {
            field(key)?
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .filter(|&n| n > 0)
                .ok_or_else(|| {
                    TypeError::Invalid(format!(
                        "data type {name}: {key} must be an integer from 1 to {}",
                        u32::MAX
                    ))
                })
        };
        match name {
            "string" => Ok(Self::String),
            "bytes" | "variable_length_bytes" => Ok(Self::Bytes),
            "numpy.datetime64" | "numpy.timedelta64" => {
                let code = field("unit")?.as_str().unwrap_or("");
                let unit = Unit::from_code(code).ok_or_else(|| {
                    TypeError::Unsupported(format!("data type {name} with unit {code:?}"))
                })?;
                let unit = TimeUnit {
                    unit,
                    scale: positive("scale_factor")?,
                };
                Ok(if name == "numpy.datetime64" {
                    Self::DateTime64(unit)
                } else {
                    Self::TimeDelta64(unit)
                })
            }
            "fixed_length_utf32" => {
                let bytes = positive("length_bytes")?;
                if bytes % 4 != 0 {
                    return Err(TypeError::Invalid(format!(
                        "data type {name}: length_bytes {bytes} is not a multiple of 4"
                    )));
                }
                Ok(Self::FixedUtf32 { chars: bytes / 4 })
            }
            "null_terminated_bytes" | "fixed_length_bytes" => Ok(Self::FixedBytes {
                len: positive("length_bytes")?,
            }),
            _ => Err(unsupported()),
        }
    }

    /// `self`, if its elements are at most [`MAX_ELEMENT_LEN`] bytes.
    pub(crate) fn bounded(self) -> Result<Self, TypeError> {
        match self.fixed_size() {
            Some(n) if n <= MAX_ELEMENT_LEN => Ok(self),
            None if self.is_variable_length() => Ok(self),
            _ => Err(TypeError::Unsupported(format!(
                "data type {self}: elements larger than the {MAX_ELEMENT_LEN} bytes zinto reads"
            ))),
        }
    }

    /// The type and byte order of a Zarr v2 (NumPy) type string such as `"<f4"`, `"|b1"`,
    /// `"<M8[ns]"`, `"<U6"` or `"|S4"`. One-byte units have no byte order (`None`). `"|O"` (an
    /// object array) is not a type by itself: its filter says what the objects are.
    pub(crate) fn from_v2_str(s: &str) -> Option<(Self, Option<Endian>)> {
        // NumPy writes bool `|b1`; `?` is its spelling in code, not in `dtype.str`.
        let t = TypeStr::parse(s).filter(|t| t.kind != '?')?;
        let endian = match t.order? {
            ByteOrder::Native => return None,
            order => order.endian(),
        };
        let positive = || (t.size > 0).then_some(t.size);
        let ty = match t.kind {
            'M' | 'm' => {
                let unit = TimeUnit::parse_numpy(t.unit?).filter(|_| t.size == 8)?;
                if t.kind == 'M' {
                    Self::DateTime64(unit)
                } else {
                    Self::TimeDelta64(unit)
                }
            }
            'U' => Self::FixedUtf32 { chars: positive()? },
            'S' => Self::FixedBytes { len: positive()? },
            _ => t.number()?.into(),
        };
        let unit = t.unit_size()?;
        if unit > 1 && endian.is_none() {
            return None;
        }
        Some((ty, if unit > 1 { endian } else { None }))
    }

    /// The number it is, for the fixed-width number types.
    pub fn number(self) -> Option<Number> {
        Some(match self {
            Self::Bool => Number::Bool,
            Self::Int8 => Number::Int8,
            Self::Int16 => Number::Int16,
            Self::Int32 => Number::Int32,
            Self::Int64 => Number::Int64,
            Self::UInt8 => Number::UInt8,
            Self::UInt16 => Number::UInt16,
            Self::UInt32 => Number::UInt32,
            Self::UInt64 => Number::UInt64,
            Self::Float16 => Number::Float16,
            Self::Float32 => Number::Float32,
            Self::Float64 => Number::Float64,
            Self::Complex64 => Number::Complex64,
            Self::Complex128 => Number::Complex128,
            Self::DateTime64(_)
            | Self::TimeDelta64(_)
            | Self::FixedUtf32 { .. }
            | Self::FixedBytes { .. }
            | Self::String
            | Self::Bytes => return None,
        })
    }

    /// The Zarr v3 name (`"float32"`, `"numpy.datetime64"`, `"fixed_length_utf32"`, ...);
    /// [`Display`](std::fmt::Display) adds the parameters.
    pub fn name(self) -> &'static str {
        match self {
            Self::DateTime64(_) => "numpy.datetime64",
            Self::TimeDelta64(_) => "numpy.timedelta64",
            Self::FixedUtf32 { .. } => "fixed_length_utf32",
            Self::FixedBytes { .. } => "null_terminated_bytes",
            Self::String => "string",
            Self::Bytes => "bytes",
            _ => self.number().map_or("?", Number::name),
        }
    }

    /// Bytes per element in a flat buffer; `None` for the variable-length types.
    pub fn fixed_size(self) -> Option<usize> {
        match self {
            Self::DateTime64(_) | Self::TimeDelta64(_) => Some(8),
            Self::FixedUtf32 { chars } => usize::try_from(chars).ok()?.checked_mul(4),
            Self::FixedBytes { len } => usize::try_from(len).ok(),
            Self::String | Self::Bytes => None,
            _ => self.number().map(Number::size),
        }
    }

    /// Whether elements vary in length (and read as offsets and values).
    pub fn is_variable_length(self) -> bool {
        matches!(self, Self::String | Self::Bytes)
    }

    /// Bytes per scalar: the unit the byte order applies to (half the size for complex types,
    /// one code unit for UTF-32 strings, one byte for byte strings and variable-length types).
    pub fn scalar_size(self) -> usize {
        match self {
            Self::DateTime64(_) | Self::TimeDelta64(_) => 8,
            Self::FixedUtf32 { .. } => 4,
            Self::FixedBytes { .. } | Self::String | Self::Bytes => 1,
            _ => self.number().map_or(1, Number::scalar_size),
        }
    }

    /// The NumPy type string of this type in native byte order (`"<f4"` on a little-endian
    /// machine, `"|b1"`, `"<M8[ns]"`, `"<U6"`, `"|S4"`); `None` for the variable-length types,
    /// which have none of fixed width.
    pub fn numpy_str(self) -> Option<String> {
        let native = if cfg!(target_endian = "little") {
            Endian::Little
        } else {
            Endian::Big
        };
        let order = Some(match (self.scalar_size(), native) {
            (1, _) => ByteOrder::NotApplicable,
            (_, Endian::Little) => ByteOrder::Little,
            (_, Endian::Big) => ByteOrder::Big,
        });
        let (kind, size, unit) = match self {
            Self::DateTime64(u) => ('M', 8, Some(u.to_string())),
            Self::TimeDelta64(u) => ('m', 8, Some(u.to_string())),
            Self::FixedUtf32 { chars } => ('U', chars, None),
            Self::FixedBytes { len } => ('S', len, None),
            Self::String | Self::Bytes => return None,
            _ => {
                return self
                    .number()
                    .map(|n| TypeStr::of_number(n, native).to_string());
            }
        };
        let unit = unit.as_deref();
        Some(
            TypeStr {
                order,
                kind,
                size,
                unit,
            }
            .to_string(),
        )
    }
}

impl From<Number> for DataType {
    fn from(n: Number) -> Self {
        match n {
            Number::Bool => Self::Bool,
            Number::Int8 => Self::Int8,
            Number::Int16 => Self::Int16,
            Number::Int32 => Self::Int32,
            Number::Int64 => Self::Int64,
            Number::UInt8 => Self::UInt8,
            Number::UInt16 => Self::UInt16,
            Number::UInt32 => Self::UInt32,
            Number::UInt64 => Self::UInt64,
            Number::Float16 => Self::Float16,
            Number::Float32 => Self::Float32,
            Number::Float64 => Self::Float64,
            Number::Complex64 => Self::Complex64,
            Number::Complex128 => Self::Complex128,
        }
    }
}

impl std::fmt::Display for DataType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::DateTime64(u) => write!(f, "datetime64[{u}]"),
            Self::TimeDelta64(u) => write!(f, "timedelta64[{u}]"),
            Self::FixedUtf32 { chars } => write!(f, "fixed_length_utf32[{chars} chars]"),
            Self::FixedBytes { len } => write!(f, "null_terminated_bytes[{len}]"),
            _ => f.write_str(self.name()),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;

    use super::*;

    #[test]
    fn v2_strings() {
        let ns = TimeUnit {
            unit: Unit::Nanosecond,
            scale: 1,
        };
        assert_eq!(
            DataType::from_v2_str("<M8[ns]"),
            Some((DataType::DateTime64(ns), Some(Endian::Little)))
        );
        let ten_s = TimeUnit {
            unit: Unit::Second,
            scale: 10,
        };
        assert_eq!(
            DataType::from_v2_str(">m8[10s]"),
            Some((DataType::TimeDelta64(ten_s), Some(Endian::Big)))
        );
        assert_eq!(
            DataType::from_v2_str("<U6"),
            Some((DataType::FixedUtf32 { chars: 6 }, Some(Endian::Little)))
        );
        assert_eq!(
            DataType::from_v2_str("|S4"),
            Some((DataType::FixedBytes { len: 4 }, None))
        );
        for bad in [
            "<M8", "<M8[]", "<M8[0s]", "<M8[xs]", "|U6", "<U0", "|S", "|O", "|?1", "=f4", "f4",
            "<i04",
        ] {
            assert_eq!(DataType::from_v2_str(bad), None, "{bad}");
        }
    }

    #[test]
    fn v3_objects() {
        let t = DataType::from_v3(&json!({"name": "numpy.datetime64",
            "configuration": {"unit": "s", "scale_factor": 1}}));
        assert!(matches!(
            t,
            Ok(DataType::DateTime64(TimeUnit {
                unit: Unit::Second,
                scale: 1
            }))
        ));
        let t = DataType::from_v3(&json!({"name": "fixed_length_utf32",
            "configuration": {"length_bytes": 24}}));
        assert!(matches!(t, Ok(DataType::FixedUtf32 { chars: 6 })));
        for bad in [
            json!({"name": "fixed_length_utf32", "configuration": {"length_bytes": 5}}),
            json!({"name": "numpy.datetime64", "configuration": {"unit": "ns"}}),
            json!({"name": "numpy.datetime64", "configuration": {"unit": "ns", "scale_factor": 0}}),
        ] {
            assert!(
                matches!(DataType::from_v3(&bad), Err(TypeError::Invalid(_))),
                "{bad}"
            );
        }
        assert!(matches!(
            DataType::from_v3(&json!("float128")),
            Err(TypeError::Unsupported(_))
        ));
    }

    #[test]
    fn declared_element_sizes_are_bounded() {
        let huge = json!({"name": "fixed_length_utf32", "configuration": {"length_bytes": 4_000_000_000u64}});
        assert!(matches!(
            DataType::from_v3(&huge),
            Err(TypeError::Unsupported(_))
        ));
        let (t, _) = DataType::from_v2_str("|S4294967295").unwrap();
        assert!(t.bounded().is_err());
        let (t, _) = DataType::from_v2_str("<U262144").unwrap();
        assert!(t.bounded().is_ok(), "exactly 1 MiB");
    }

    #[test]
    fn numpy_strings_round_trip() {
        for s in [
            "<M8[ns]",
            "<m8[10ms]",
            "<U6",
            "|S4",
            "<f4",
            "|b1",
            "<c16",
            "|u1",
        ] {
            let (t, _) = DataType::from_v2_str(s).unwrap();
            let native = t.numpy_str().unwrap();
            if cfg!(target_endian = "little") {
                assert_eq!(native, s);
            }
        }
    }
}
