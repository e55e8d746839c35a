//! Fixed-width numbers as a segment file's header names them (`<f8`, `>i4`, `|u1`, `|b1`).

use core::fmt;

use crate::codec::Endian;
use crate::dtype::{ByteOrder, Number, TypeStr};
use crate::records::KeyType;

/// A segment's element type: a number other than complex, and its byte order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NumberType {
    /// The number.
    pub number: Number,
    /// Big-endian (`>`), rather than little-endian or single-byte.
    pub big_endian: bool,
}

impl NumberType {
    /// Reads a NumPy type string (`descr`, see [`TypeStr`]): an optional byte order (`<`, `>`,
    /// `|`, `=`; `=` is taken as little-endian, NumPy writes the explicit order), a kind letter
    /// and a size. `None` for anything else (structured types, strings, objects, dates,
    /// complex numbers), and for `|` before a multi-byte number.
    pub fn parse(descr: &str) -> Option<Self> {
        let t = TypeStr::parse(descr)?;
        let number = t.number().filter(|n| n.kind() != 'c')?;
        let endian = match t.order {
            Some(ByteOrder::NotApplicable) if number.size() > 1 => return None,
            order => order.and_then(ByteOrder::endian).unwrap_or(Endian::Little),
        };
        Some(Self {
            number,
            big_endian: endian == Endian::Big && number.size() > 1,
        })
    }

    /// Bytes per element.
    pub fn size(&self) -> usize {
        self.number.size()
    }

    /// The sort key type of this number, where records can be sorted by it.
    pub fn key_type(&self) -> Option<KeyType> {
        KeyType::from_number(self.number)
    }
}

impl fmt::Display for NumberType {
    /// As NumPy's `descr`: `<f8`, `>i4`, `|u1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let endian = if self.big_endian {
            Endian::Big
        } else {
            Endian::Little
        };
        TypeStr::of_number(self.number, endian).fmt(f)
    }
}
