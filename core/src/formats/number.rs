//! Fixed-width numbers as NumPy names them (`<f8`, `>i4`, `|u1`, `|b1`).

use core::fmt;

use crate::records::KeyType;

/// A kind of fixed-width number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberKind {
    /// `b`: one byte, 0 or 1.
    Bool,
    /// `i`: two's complement.
    Int,
    /// `u`: unsigned.
    Uint,
    /// `f`: IEEE 754.
    Float,
}

/// A fixed-width number type: its kind, size and byte order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NumberType {
    /// Its kind.
    pub kind: NumberKind,
    /// Its size in bytes: 1, 2, 4 or 8 (floats 2, 4 or 8; bool 1).
    pub size: u8,
    /// Big-endian (`>`), rather than little-endian or single-byte.
    pub big_endian: bool,
}

impl NumberType {
    /// Reads a NumPy type string (`descr`): an optional byte order (`<`, `>`, `|`, `=`; `=`
    /// is taken as little-endian, NumPy writes the explicit order), a kind letter and a size.
    /// `None` for anything else (structured types, strings, objects, dates, complex numbers).
    pub fn parse(descr: &str) -> Option<Self> {
        let b = descr.as_bytes();
        let (order, rest) = match b.first() {
            Some(&c @ (b'<' | b'>' | b'|' | b'=')) => (c, b.get(1..)?),
            _ => (b'=', b),
        };
        let (&kind, size) = rest.split_first()?;
        let size = match size {
            [d] if d.is_ascii_digit() => d - b'0',
            _ => return None,
        };
        let kind = match kind {
            b'b' | b'?' => NumberKind::Bool,
            b'i' => NumberKind::Int,
            b'u' => NumberKind::Uint,
            b'f' => NumberKind::Float,
            _ => return None,
        };
        let valid = match kind {
            NumberKind::Bool => size == 1,
            NumberKind::Int | NumberKind::Uint => matches!(size, 1 | 2 | 4 | 8),
            NumberKind::Float => matches!(size, 2 | 4 | 8),
        };
        (valid && !(order == b'|' && size > 1)).then_some(Self {
            kind,
            size,
            big_endian: order == b'>' && size > 1,
        })
    }

    /// The sort key type of this number, where records can be sorted by it.
    pub fn key_type(&self) -> Option<KeyType> {
        match (self.kind, self.size) {
            (NumberKind::Float, 4) => Some(KeyType::F32),
            (NumberKind::Float, 8) => Some(KeyType::F64),
            (NumberKind::Int, 4) => Some(KeyType::I32),
            (NumberKind::Int, 8) => Some(KeyType::I64),
            (NumberKind::Uint, 4) => Some(KeyType::U32),
            (NumberKind::Uint, 8) => Some(KeyType::U64),
            _ => None,
        }
    }
}

impl fmt::Display for NumberType {
    /// As NumPy's `descr`: `<f8`, `>i4`, `|u1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let order = if self.size == 1 {
            '|'
        } else if self.big_endian {
            '>'
        } else {
            '<'
        };
        let kind = match self.kind {
            NumberKind::Bool => 'b',
            NumberKind::Int => 'i',
            NumberKind::Uint => 'u',
            NumberKind::Float => 'f',
        };
        write!(f, "{order}{kind}{}", self.size)
    }
}
