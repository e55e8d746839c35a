//! NumPy's type strings (`dtype.str`, `descr`): `"<f8"`, `">i4"`, `"|u1"`, `"<M8[ns]"`,
//! `"<U6"`, `"|S4"`. The one parser and printer of them; each reader adds its own strictness
//! on top ([`TypeStr::is_numpy_str`] is the exact form NumPy prints).

use core::fmt;

use super::Endian;
use super::Number;

/// The byte-order character of a type string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteOrder {
    /// `<`.
    Little,
    /// `>`.
    Big,
    /// `|`: the unit is one byte, order means nothing.
    NotApplicable,
    /// `=`: the machine's own order.
    Native,
}

impl ByteOrder {
    const CHARS: [(ByteOrder, char); 4] = [
        (ByteOrder::Little, '<'),
        (ByteOrder::Big, '>'),
        (ByteOrder::NotApplicable, '|'),
        (ByteOrder::Native, '='),
    ];

    /// Its character.
    pub fn char(self) -> char {
        Self::CHARS
            .iter()
            .find(|c| c.0 == self)
            .map_or('?', |c| c.1)
    }

    /// The order `<` or `>` states, `None` for `|` and `=`.
    pub fn endian(self) -> Option<Endian> {
        match self {
            ByteOrder::Little => Some(Endian::Little),
            ByteOrder::Big => Some(Endian::Big),
            ByteOrder::NotApplicable | ByteOrder::Native => None,
        }
    }
}

/// A NumPy type string taken apart: `[order] kind size [ "[" unit "]" ]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TypeStr<'a> {
    /// The byte-order character, if there is one.
    pub order: Option<ByteOrder>,
    /// The kind character: an ASCII letter (`i`, `u`, `f`, `c`, `b`, `M`, `m`, `U`, `S`, ...)
    /// or `?` (bool).
    pub kind: char,
    /// The number after the kind: bytes for numbers, dates and `S`, characters for `U`.
    pub size: u32,
    /// The bracketed unit of a date or duration (`ns`, `10s`), without its brackets.
    pub unit: Option<&'a str>,
}

impl<'a> TypeStr<'a> {
    /// Takes a type string apart. `None` unless it is an optional order character, one kind
    /// character, a size in decimal (no sign, no leading zero, at most `u32::MAX`) and, for
    /// kinds `M` and `m` only, an optional `[unit]` of ASCII letters and digits.
    pub fn parse(s: &'a str) -> Option<Self> {
        let mut chars = s.chars();
        let first = chars.clone().next()?;
        let order = ByteOrder::CHARS.iter().find(|c| c.1 == first).map(|c| c.0);
        if order.is_some() {
            chars.next();
        }
        let kind = chars
            .next()
            .filter(|&k| k.is_ascii_alphabetic() || k == '?')?;
        let rest = chars.as_str();
        let (digits, unit) = match rest.find('[') {
            Some(at) if matches!(kind, 'M' | 'm') => {
                let unit = rest.get(at + 1..)?.strip_suffix(']')?;
                let plain = !unit.is_empty() && unit.bytes().all(|b| b.is_ascii_alphanumeric());
                (rest.get(..at)?, Some(plain.then_some(unit)?))
            }
            Some(_) => return None,
            None => (rest, None),
        };
        let decimal = digits.bytes().all(|b| b.is_ascii_digit())
            && !digits.is_empty()
            && (digits == "0" || !digits.starts_with('0'));
        let size = digits.parse().ok().filter(|_| decimal)?;
        Some(Self {
            order,
            kind,
            size,
            unit,
        })
    }

    /// The type string NumPy prints for `number` (`"|b1"`, `"<i4"`, `">c16"`).
    pub fn of_number(number: Number, endian: Endian) -> TypeStr<'static> {
        let order = match (number.scalar_size(), endian) {
            (1, _) => ByteOrder::NotApplicable,
            (_, Endian::Little) => ByteOrder::Little,
            (_, Endian::Big) => ByteOrder::Big,
        };
        TypeStr {
            order: Some(order),
            kind: number.kind(),
            size: number.size_u8().into(),
            unit: None,
        }
    }

    /// The number it names (kinds `b`/`?`, `i`, `u`, `f`, `c` with their sizes).
    pub fn number(&self) -> Option<Number> {
        let size = usize::try_from(self.size).ok()?;
        Number::from_kind_size(self.kind, size).filter(|_| self.unit.is_none())
    }

    /// The size of the unit its byte order applies to: a number's scalar, 8 for dates and
    /// durations, 4 for `U` (UTF-32), 1 for `S` and `V`; `None` for kinds it does not know.
    pub fn unit_size(&self) -> Option<usize> {
        match self.kind {
            'M' | 'm' => Some(8),
            'U' => Some(4),
            'S' | 'V' => Some(1),
            _ => self.number().map(Number::scalar_size),
        }
    }

    /// Whether it is in the form NumPy's `dtype.str` prints: `|` when the unit is one byte,
    /// otherwise `<` or `>`, and the kind known.
    pub fn is_numpy_str(&self) -> bool {
        match (self.unit_size(), self.order) {
            (Some(1), Some(ByteOrder::NotApplicable)) => true,
            (Some(n), Some(ByteOrder::Little | ByteOrder::Big)) => n > 1,
            _ => false,
        }
    }
}

impl fmt::Display for TypeStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(order) = self.order {
            write!(f, "{}", order.char())?;
        }
        write!(f, "{}{}", self.kind, self.size)?;
        match self.unit {
            Some(unit) => write!(f, "[{unit}]"),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::format;

    use super::*;

    #[test]
    fn numbers_print_and_parse_back() {
        for n in Number::ALL {
            for endian in [Endian::Little, Endian::Big] {
                let t = TypeStr::of_number(n, endian);
                let s = format!("{t}");
                assert_eq!(TypeStr::parse(&s), Some(t), "{s}");
                assert!(t.is_numpy_str(), "{s}");
                assert_eq!(t.number(), Some(n));
            }
        }
        assert_eq!(
            format!("{}", TypeStr::of_number(Number::UInt8, Endian::Big)),
            "|u1"
        );
        assert_eq!(
            format!("{}", TypeStr::of_number(Number::Complex128, Endian::Big)),
            ">c16"
        );
    }

    #[test]
    fn its_parts() {
        let t = TypeStr::parse("=i2").unwrap();
        assert_eq!(
            (t.order, t.kind, t.size, t.unit),
            (Some(ByteOrder::Native), 'i', 2, None)
        );
        assert!(!t.is_numpy_str());
        let t = TypeStr::parse("u1").unwrap();
        assert_eq!((t.order, t.number()), (None, Some(Number::UInt8)));
        let t = TypeStr::parse("<U12").unwrap();
        assert_eq!((t.kind, t.size, t.unit_size()), ('U', 12, Some(4)));
        assert!(t.is_numpy_str());
        assert!(!TypeStr::parse("|U12").unwrap().is_numpy_str());
        assert!(!TypeStr::parse("<u1").unwrap().is_numpy_str());
        assert!(!TypeStr::parse("<x4").unwrap().is_numpy_str());
        let t = TypeStr::parse(">m8[10us]").unwrap();
        assert_eq!(
            (t.kind, t.size, t.unit, t.number()),
            ('m', 8, Some("10us"), None)
        );
        assert_eq!(TypeStr::parse("<M8").unwrap().unit, None);
    }

    #[test]
    fn refuses_what_is_not_a_type_string() {
        for s in [
            "",
            "<",
            "|",
            "<i",
            "<i+4",
            "<i-4",
            "<i04",
            "int32",
            "<i4x",
            "<\u{e9}4",
            "\u{e9}i4",
            "<i4[ns]",
            "<M8[]",
            "<M8[n s]",
            "<M8[ns",
            "<M[ns]",
            "<<i4",
            "<i99999999999999999999999",
        ] {
            assert_eq!(TypeStr::parse(s), None, "{s:?}");
        }
    }
}
