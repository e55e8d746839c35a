//! NumPy's `.npy`: a magic string, a version, a header length, a Python dict literal
//! (`{'descr': '<f8', 'fortran_order': False, 'shape': (1000, 3), }`) padded with spaces and a
//! newline, then the data.
//!
//! ```
//! use zinto_core::{dtype::Number, formats::npy};
//!
//! let mut file = b"\x93NUMPY\x01\x00".to_vec();
//! let dict = b"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }";
//! let pad = 64 - (10 + dict.len() + 1) % 64;
//! file.extend(((dict.len() + pad + 1) as u16).to_le_bytes());
//! file.extend(dict);
//! file.extend(std::iter::repeat(b' ').take(pad));
//! file.push(b'\n');
//! file.extend([0u8; 48]); // 2 x 3 float64
//!
//! let h = npy::parse(&file, file.len() as u64)?;
//! assert_eq!((h.dtype.number, h.rows(), h.columns()), (Number::Float64, 2, 3));
//! assert_eq!((h.data_offset as usize, h.data_len), (file.len() - 48, 48));
//! # Ok::<(), zinto_core::formats::FormatError>(())
//! ```

use super::{FormatError, MAX_HEADER_LEN, NumberType, SegmentHeader};
use crate::MAX_DIMS;

/// The first six bytes of every `.npy` file.
pub const MAGIC: &[u8; 6] = b"\x93NUMPY";

fn malformed(what: &'static str) -> FormatError {
    FormatError::Malformed { what }
}

/// Reads the header of a `.npy` file of `file_len` bytes from `head`, its first bytes (at
/// least the whole header: `min(file_len, MAX_HEADER_LEN + 12)` bytes will do).
///
/// # Errors
/// [`FormatError::NotThisFormat`] without the magic string; [`FormatError::Version`] for
/// versions other than 1.0, 2.0, 3.0; [`FormatError::HeaderTooLong`] past
/// [`MAX_HEADER_LEN`]; [`FormatError::Truncated`] if `head` ends inside the header;
/// [`FormatError::Malformed`] for a header that does not parse; [`FormatError::UnsupportedType`]
/// for anything but a fixed-width number; [`FormatError::DataSize`] if the file does not hold
/// exactly the data the shape and type make.
pub fn parse(head: &[u8], file_len: u64) -> Result<SegmentHeader, FormatError> {
    let not_npy = FormatError::NotThisFormat { format: ".npy" };
    if head.len() < 8 {
        return Err(if head.starts_with(&MAGIC[..head.len().min(6)]) {
            FormatError::Truncated
        } else {
            not_npy
        });
    }
    if head.get(..6) != Some(&MAGIC[..]) {
        return Err(not_npy);
    }
    let (major, minor) = (head.get(6).copied(), head.get(7).copied());
    let (len_bytes, utf8) = match (major, minor) {
        (Some(1), Some(0)) => (2, false),
        (Some(2), Some(0)) => (4, false),
        (Some(3), Some(0)) => (4, true),
        (Some(major), Some(minor)) => return Err(FormatError::Version { major, minor }),
        _ => return Err(FormatError::Truncated),
    };
    let len_field = head.get(8..8 + len_bytes).ok_or(FormatError::Truncated)?;
    let header_len = len_field
        .iter()
        .rev()
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
    if header_len > MAX_HEADER_LEN as u64 {
        return Err(FormatError::HeaderTooLong {
            len: header_len,
            max: MAX_HEADER_LEN as u64,
        });
    }
    let start = 8 + len_bytes;
    // At most MAX_HEADER_LEN (checked above).
    let end = start + usize::try_from(header_len).map_err(|_| FormatError::Truncated)?;
    let text = head.get(start..end).ok_or(FormatError::Truncated)?;
    if !utf8 && !text.is_ascii() {
        return Err(malformed("a version 1 or 2 header that is not ASCII"));
    }
    let dict = Dict::parse(text)?;
    let descr = core::str::from_utf8(dict.descr).map_err(|_| malformed("descr is not UTF-8"))?;
    let dtype = NumberType::parse(descr).ok_or(FormatError::unsupported(dict.descr))?;
    SegmentHeader::new(
        dtype,
        dict.shape.get(..dict.ndim).unwrap_or(&[]),
        dict.fortran_order,
        end as u64,
        file_len,
    )
}

/// The three entries of the header dict.
struct Dict<'a> {
    descr: &'a [u8],
    fortran_order: bool,
    shape: [u64; MAX_DIMS],
    ndim: usize,
}

/// A cursor over the header text.
struct Cursor<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    /// Skips spaces, then takes `c`.
    fn expect(&mut self, c: u8, what: &'static str) -> Result<(), FormatError> {
        self.skip_space();
        if self.peek() != Some(c) {
            return Err(malformed(what));
        }
        self.at += 1;
        Ok(())
    }

    /// A quoted string (`'...'` or `"..."`, no escapes), its content.
    fn string(&mut self) -> Result<&'a [u8], FormatError> {
        self.skip_space();
        let quote = self
            .peek()
            .filter(|&q| q == b'\'' || q == b'"')
            .ok_or(malformed("expected a quoted string"))?;
        let start = self.at + 1;
        let len = self
            .text
            .get(start..)
            .and_then(|rest| rest.iter().position(|&c| c == quote))
            .ok_or(malformed("an unterminated string"))?;
        let s = self
            .text
            .get(start..start + len)
            .ok_or(malformed("a string"))?;
        if s.contains(&b'\\') {
            return Err(malformed("an escape in a string"));
        }
        self.at = start + len + 1;
        Ok(s)
    }

    /// `True` or `False`.
    fn boolean(&mut self) -> Result<bool, FormatError> {
        self.skip_space();
        let rest = self.text.get(self.at..).unwrap_or(&[]);
        for (word, value) in [(&b"True"[..], true), (&b"False"[..], false)] {
            if rest.starts_with(word) {
                self.at += word.len();
                return Ok(value);
            }
        }
        Err(malformed("fortran_order is not True or False"))
    }

    /// A non-negative integer (a Python 2 `L` suffix allowed).
    fn integer(&mut self) -> Result<u64, FormatError> {
        self.skip_space();
        let mut n: u64 = 0;
        let mut digits = 0;
        while let Some(c) = self.peek().filter(u8::is_ascii_digit) {
            n = n
                .checked_mul(10)
                .and_then(|n| n.checked_add(u64::from(c - b'0')))
                .ok_or(malformed("a dimension that overflows"))?;
            self.at += 1;
            digits += 1;
        }
        if digits == 0 {
            return Err(malformed("a dimension that is not a non-negative integer"));
        }
        if self.peek() == Some(b'L') {
            self.at += 1;
        }
        Ok(n)
    }
}

impl<'a> Dict<'a> {
    fn parse(text: &'a [u8]) -> Result<Self, FormatError> {
        let mut c = Cursor { text, at: 0 };
        c.expect(b'{', "expected a dict")?;
        let mut descr = None;
        let mut fortran_order = None;
        let mut shape = None;
        loop {
            c.skip_space();
            if c.peek() == Some(b'}') {
                c.at += 1;
                break;
            }
            let key = c.string()?;
            c.expect(b':', "expected ':' after a key")?;
            c.skip_space();
            match key {
                b"descr" if descr.is_none() => {
                    if c.peek() != Some(b'\'') && c.peek() != Some(b'"') {
                        // A list: a structured type.
                        let rest = c.text.get(c.at..).unwrap_or(&[]);
                        return Err(FormatError::unsupported(rest));
                    }
                    descr = Some(c.string()?);
                }
                b"fortran_order" if fortran_order.is_none() => {
                    fortran_order = Some(c.boolean()?);
                }
                b"shape" if shape.is_none() => shape = Some(Self::shape(&mut c)?),
                b"descr" | b"fortran_order" | b"shape" => {
                    return Err(malformed("a key given twice"));
                }
                _ => return Err(malformed("a key other than descr, fortran_order, shape")),
            }
            c.skip_space();
            match c.peek() {
                Some(b',') => c.at += 1,
                Some(b'}') => {}
                _ => return Err(malformed("expected ',' or '}' after a value")),
            }
        }
        c.skip_space();
        if c.at != text.len() {
            return Err(malformed("text after the dict"));
        }
        let (Some(descr), Some(fortran_order), Some((shape, ndim))) = (descr, fortran_order, shape)
        else {
            return Err(malformed("descr, fortran_order or shape missing"));
        };
        Ok(Self {
            descr,
            fortran_order,
            shape,
            ndim,
        })
    }

    /// `(a, b, ...)`, `(a,)` or `()`.
    fn shape(c: &mut Cursor<'_>) -> Result<([u64; MAX_DIMS], usize), FormatError> {
        c.expect(b'(', "shape is not a tuple")?;
        let mut shape = [0u64; MAX_DIMS];
        let mut ndim = 0;
        loop {
            c.skip_space();
            if c.peek() == Some(b')') {
                c.at += 1;
                return Ok((shape, ndim));
            }
            let slot = shape
                .get_mut(ndim)
                .ok_or(malformed("more than 32 dimensions"))?;
            *slot = c.integer()?;
            ndim += 1;
            c.skip_space();
            match c.peek() {
                Some(b',') => c.at += 1,
                Some(b')') => {}
                _ => return Err(malformed("expected ',' or ')' in shape")),
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::cast_possible_truncation)]
mod tests {
    extern crate std;
    use std::format;

    use super::{FormatError, MAX_HEADER_LEN, parse};
    use crate::dtype::Number;

    /// A version 1.0 file with this dict and `data` bytes of data (padded as NumPy pads).
    fn file(dict: &str, data: usize, out: &mut [u8]) -> usize {
        let mut n = 0;
        let mut put = |bytes: &[u8]| {
            out[n..n + bytes.len()].copy_from_slice(bytes);
            n += bytes.len();
        };
        put(b"\x93NUMPY\x01\x00");
        let pad = 64 - (10 + dict.len() + 1) % 64;
        put(&((dict.len() + pad + 1) as u16).to_le_bytes());
        put(dict.as_bytes());
        for _ in 0..pad {
            put(b" ");
        }
        put(b"\n");
        for _ in 0..data {
            put(&[0]);
        }
        n
    }

    #[test]
    fn headers_numpy_writes_parse() {
        let mut buf = [0u8; 512];
        for (dict, data, number, rows, cols, fortran) in [
            (
                "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 3), }",
                96,
                Number::Float64,
                4,
                3,
                false,
            ),
            (
                "{'descr': '>i4', 'fortran_order': True, 'shape': (5,), }",
                20,
                Number::Int32,
                5,
                1,
                true,
            ),
            (
                "{'descr': '|u1', 'fortran_order': False, 'shape': (), }",
                1,
                Number::UInt8,
                1,
                1,
                false,
            ),
            (
                "{'descr': '|b1', 'fortran_order': False, 'shape': (0, 7), }",
                0,
                Number::Bool,
                0,
                7,
                false,
            ),
            (
                "{\"shape\": (2L, 2L), \"descr\": \"<f4\", \"fortran_order\": False}",
                16,
                Number::Float32,
                2,
                2,
                false,
            ),
        ] {
            let n = file(dict, data, &mut buf);
            let h = parse(&buf[..n], n as u64).unwrap();
            assert_eq!(
                (h.dtype.number, h.rows(), h.columns(), h.fortran_order),
                (number, rows, cols, fortran),
                "{dict}"
            );
            assert_eq!(h.data_offset as usize % 64, 0);
            assert_eq!(h.data_len as usize, data);
        }
    }

    #[test]
    fn hostile_headers_are_named_errors() {
        let mut buf = [0u8; 512];
        let n = file(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 3), }",
            96,
            &mut buf,
        );
        // Data short, long, or absurd.
        assert_eq!(
            parse(&buf[..n - 8], n as u64 - 8),
            Err(FormatError::DataSize {
                declared: 96,
                present: 88
            })
        );
        assert!(matches!(
            parse(&buf[..n], n as u64 + 1),
            Err(FormatError::DataSize { .. })
        ));
        for (dict, why) in [
            (
                "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999, 99999999999), }",
                "overflow",
            ),
            (
                "{'descr': '<f8', 'fortran_order': False, 'shape': (-1, 3), }",
                "negative",
            ),
            (
                "{'descr': '<f8', 'fortran_order': False, 'shape': (18446744073709551616,), }",
                "u64 overflow",
            ),
            ("{'descr': '<f8', 'fortran_order': False}", "no shape"),
            (
                "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'extra': 1}",
                "extra key",
            ),
            (
                "{'descr': '<f8', 'fortran_order': Maybe, 'shape': (1,)}",
                "bad bool",
            ),
            (
                "{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (1,)}",
                "twice",
            ),
            ("['descr']", "not a dict"),
            (
                "{'descr': '<f8, 'fortran_order': False, 'shape': (1,)}",
                "quote",
            ),
        ] {
            let m = file(dict, 8, &mut buf);
            assert!(
                matches!(
                    parse(&buf[..m], m as u64),
                    Err(FormatError::Malformed { .. } | FormatError::DataSize { .. })
                ),
                "{why}: {:?}",
                parse(&buf[..m], m as u64)
            );
        }
        for descr in [
            "'<U10'",
            "'|O'",
            "'<M8[ns]'",
            "'<c16'",
            "[('a', '<f8')]",
            "'<f3'",
            "'|f8'",
        ] {
            let dict = format!("{{'descr': {descr}, 'fortran_order': False, 'shape': (1,), }}");
            let m = file(&dict, 8, &mut buf);
            assert!(
                matches!(
                    parse(&buf[..m], m as u64),
                    Err(FormatError::UnsupportedType { .. })
                ),
                "{descr}"
            );
        }
        // Magic, version, length, truncation.
        assert!(matches!(
            parse(b"PK\x03\x04zipfile!", 14),
            Err(FormatError::NotThisFormat { .. })
        ));
        let mut v = buf;
        v[6] = 4;
        assert_eq!(
            parse(&v[..n], n as u64),
            Err(FormatError::Version { major: 4, minor: 0 })
        );
        let mut long = *b"\x93NUMPY\x02\x00\xff\xff\xff\xff";
        assert!(matches!(
            parse(&long, 1 << 40),
            Err(FormatError::HeaderTooLong { .. })
        ));
        long[8..12].copy_from_slice(&((MAX_HEADER_LEN as u32).to_le_bytes()));
        assert_eq!(parse(&long, 1 << 40), Err(FormatError::Truncated));
        assert_eq!(parse(&buf[..30], n as u64), Err(FormatError::Truncated));
        assert_eq!(parse(&buf[..4], n as u64), Err(FormatError::Truncated));
    }
}
