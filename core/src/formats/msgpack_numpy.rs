//! An array packed by msgpack-numpy: a MessagePack map `{nd: true, type: '<f8', kind: '',
//! shape: [rows, columns], data: <bin>}`, keys as bytes or strings, `data` last (as
//! msgpack-numpy writes it), its bytes raw and C-ordered.
//!
//! ```
//! use zinto_core::{dtype::Number, formats::msgpack_numpy};
//!
//! // msgpack_numpy.packb(np.zeros((2, 3)))
//! let mut file = vec![0x85, 0xc4, 2, b'n', b'd', 0xc3, 0xc4, 4, b't', b'y', b'p', b'e'];
//! file.extend([0xa3, b'<', b'f', b'8', 0xc4, 4, b'k', b'i', b'n', b'd', 0xc4, 0]);
//! file.extend([0xc4, 5, b's', b'h', b'a', b'p', b'e', 0x92, 2, 3]);
//! file.extend([0xc4, 4, b'd', b'a', b't', b'a', 0xc4, 48]);
//! file.extend([0u8; 48]);
//!
//! let h = msgpack_numpy::parse(&file, file.len() as u64)?;
//! assert_eq!((h.dtype.number, h.rows(), h.columns(), h.data_len), (Number::Float64, 2, 3, 48));
//! assert_eq!(h.data_offset as usize, file.len() - 48);
//! # Ok::<(), zinto_core::formats::FormatError>(())
//! ```

use super::{FormatError, MAX_HEADER_LEN, NumberType, SegmentHeader};
use crate::MAX_DIMS;

fn malformed(what: &'static str) -> FormatError {
    FormatError::Malformed { what }
}

/// Reads the header of a msgpack-numpy file of `file_len` bytes from `head`, its first bytes
/// (at least up to the start of the data: `min(file_len, MAX_HEADER_LEN)` bytes will do).
///
/// # Errors
/// [`FormatError::NotThisFormat`] if it is not a map; [`FormatError::Truncated`] if `head` ends
/// before the data starts; [`FormatError::HeaderTooLong`] if the data starts past
/// [`MAX_HEADER_LEN`]; [`FormatError::Malformed`] for a map without `nd: true`, `type`,
/// `shape` and `data` (last), or with other keys or values of other kinds;
/// [`FormatError::UnsupportedType`] for anything but a fixed-width number;
/// [`FormatError::DataSize`] if `data` is not the size the shape and type make, or does not
/// end the file.
pub fn parse(head: &[u8], file_len: u64) -> Result<SegmentHeader, FormatError> {
    let mut c = Cursor { bytes: head, at: 0 };
    let entries = match c.byte()? {
        b @ 0x80..=0x8f => usize::from(b & 0x0f),
        0xde => c.count(2)?,
        0xdf => c.count(4)?,
        _ => {
            return Err(FormatError::NotThisFormat {
                format: "msgpack-numpy",
            });
        }
    };
    let mut nd = None;
    let mut dtype = None;
    let mut shape = None;
    for i in 0..entries {
        let key = c.text()?;
        match key {
            b"nd" if nd.is_none() => {
                nd = Some(match c.byte()? {
                    0xc2 => false,
                    0xc3 => true,
                    _ => return Err(malformed("nd is not a boolean")),
                });
            }
            b"type" if dtype.is_none() => {
                if c.peek() & 0xf0 == 0x90 || matches!(c.peek(), 0xdc | 0xdd) {
                    // A list of fields: a structured type.
                    return Err(FormatError::unsupported(b"a structured type"));
                }
                let descr = c.text()?;
                let text =
                    core::str::from_utf8(descr).map_err(|_| malformed("type is not UTF-8"))?;
                dtype = Some(NumberType::parse(text).ok_or(FormatError::unsupported(descr))?);
            }
            b"kind" => {
                // b'' for plain numbers, b'V' for a structured type.
                if !c.text()?.is_empty() {
                    return Err(FormatError::unsupported(b"a structured type (kind V)"));
                }
            }
            b"shape" if shape.is_none() => shape = Some(c.shape()?),
            b"data" => {
                if i + 1 != entries {
                    return Err(malformed("data is not the last entry"));
                }
                let len = match c.byte()? {
                    0xc4 => c.uint(1)?,
                    0xc5 => c.uint(2)?,
                    0xc6 => c.uint(4)?,
                    _ => return Err(malformed("data is not bytes")),
                };
                let (Some(true), Some(dtype), Some((dims, ndim))) = (nd, dtype, shape) else {
                    return Err(malformed("nd: true, type or shape missing before data"));
                };
                let header = SegmentHeader::new(
                    dtype,
                    dims.get(..ndim).unwrap_or(&[]),
                    false,
                    c.at as u64,
                    file_len,
                )?;
                if header.data_len != len {
                    return Err(FormatError::DataSize {
                        declared: header.data_len,
                        present: len,
                    });
                }
                return Ok(header);
            }
            _ => {
                return Err(malformed(
                    "a key other than nd, type, kind, shape, data, or one given twice",
                ));
            }
        }
    }
    Err(malformed("no data entry"))
}

/// A cursor over the packed bytes before the data.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], FormatError> {
        if self.at + n > MAX_HEADER_LEN {
            return Err(FormatError::HeaderTooLong {
                len: (self.at + n) as u64,
                max: MAX_HEADER_LEN as u64,
            });
        }
        let s = self
            .bytes
            .get(self.at..self.at + n)
            .ok_or(FormatError::Truncated)?;
        self.at += n;
        Ok(s)
    }

    fn byte(&mut self) -> Result<u8, FormatError> {
        Ok(self.take(1)?.first().copied().unwrap_or(0))
    }

    fn peek(&self) -> u8 {
        self.bytes.get(self.at).copied().unwrap_or(0)
    }

    /// A big-endian unsigned integer of `n` bytes.
    fn uint(&mut self, n: usize) -> Result<u64, FormatError> {
        Ok(self
            .take(n)?
            .iter()
            .fold(0u64, |acc, &b| (acc << 8) | u64::from(b)))
    }

    /// A count (of entries, of items) of `n` bytes.
    fn count(&mut self, n: usize) -> Result<usize, FormatError> {
        usize::try_from(self.uint(n)?).map_err(|_| malformed("a count past memory"))
    }

    /// A string or bytes (fixstr, str 8/16, bin 8/16): its content.
    fn text(&mut self) -> Result<&'a [u8], FormatError> {
        let len = match self.byte()? {
            b @ 0xa0..=0xbf => u64::from(b & 0x1f),
            0xd9 | 0xc4 => self.uint(1)?,
            0xda | 0xc5 => self.uint(2)?,
            _ => return Err(malformed("a key or type that is not a string or bytes")),
        };
        let len = usize::try_from(len).map_err(|_| malformed("a length past memory"))?;
        self.take(len)
    }

    /// An array of non-negative integers.
    fn shape(&mut self) -> Result<([u64; MAX_DIMS], usize), FormatError> {
        let n = match self.byte()? {
            b @ 0x90..=0x9f => usize::from(b & 0x0f),
            0xdc => self.count(2)?,
            _ => return Err(malformed("shape is not a short array")),
        };
        let mut dims = [0u64; MAX_DIMS];
        if n > MAX_DIMS {
            return Err(malformed("more than 32 dimensions"));
        }
        for d in dims.iter_mut().take(n) {
            *d = match self.byte()? {
                b @ 0x00..=0x7f => u64::from(b),
                0xcc => self.uint(1)?,
                0xcd => self.uint(2)?,
                0xce => self.uint(4)?,
                0xcf => self.uint(8)?,
                // Signed integers that hold non-negative values.
                0xd0..=0xd3 => {
                    return Err(malformed("a shape with a signed or negative dimension"));
                }
                _ => return Err(malformed("a shape with a dimension that is not an integer")),
            };
        }
        Ok((dims, n))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::cast_possible_truncation)]
mod tests {
    use super::{FormatError, parse};

    fn packed(ty: &[u8], shape: &[u8], data_len: u8, data: usize) -> ([u8; 256], usize) {
        let mut buf = [0u8; 256];
        let mut n = 0;
        let mut put = |bytes: &[u8]| {
            buf[n..n + bytes.len()].copy_from_slice(bytes);
            n += bytes.len();
        };
        put(&[
            0x85, 0xc4, 2, b'n', b'd', 0xc3, 0xc4, 4, b't', b'y', b'p', b'e',
        ]);
        put(ty);
        put(&[
            0xc4, 4, b'k', b'i', b'n', b'd', 0xc4, 0, 0xc4, 5, b's', b'h', b'a', b'p', b'e',
        ]);
        put(shape);
        put(&[0xc4, 4, b'd', b'a', b't', b'a', 0xc4, data_len]);
        for _ in 0..data {
            put(&[0]);
        }
        (buf, n)
    }

    #[test]
    fn arrays_parse_and_hostile_ones_are_named() {
        let (b, n) = packed(&[0xa3, b'<', b'i', b'4'], &[0x92, 2, 3], 24, 24);
        let h = parse(&b[..n], n as u64).unwrap();
        assert_eq!((h.rows(), h.columns(), h.data_len), (2, 3, 24));
        // Data declared longer than the file, or than the shape makes.
        let (b, n) = packed(&[0xa3, b'<', b'i', b'4'], &[0x92, 2, 3], 24, 20);
        assert!(matches!(
            parse(&b[..n], n as u64),
            Err(FormatError::DataSize { .. })
        ));
        let (b, n) = packed(&[0xa3, b'<', b'i', b'4'], &[0x92, 2, 3], 28, 28);
        assert!(matches!(
            parse(&b[..n], n as u64),
            Err(FormatError::DataSize { .. })
        ));
        // An absurd shape, a negative one, a string type, structured types.
        let (b, n) = packed(
            &[0xa3, b'<', b'f', b'8'],
            &[
                0x92, 0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 3,
            ],
            0,
            0,
        );
        assert!(matches!(
            parse(&b[..n], n as u64),
            Err(FormatError::Malformed { .. })
        ));
        let (b, n) = packed(&[0xa3, b'<', b'f', b'8'], &[0x92, 0xd0, 0xff, 3], 0, 0);
        assert!(matches!(
            parse(&b[..n], n as u64),
            Err(FormatError::Malformed { .. })
        ));
        let (b, n) = packed(&[0xa4, b'<', b'U', b'1', b'0'], &[0x91, 1], 40, 40);
        assert!(matches!(
            parse(&b[..n], n as u64),
            Err(FormatError::UnsupportedType { .. })
        ));
        let (b, n) = packed(
            &[0x91, 0x92, 0xa1, b'a', 0xa3, b'<', b'f', b'8'],
            &[0x91, 1],
            8,
            8,
        );
        assert!(matches!(
            parse(&b[..n], n as u64),
            Err(FormatError::UnsupportedType { .. })
        ));
        // Not a map; cut short.
        assert!(matches!(
            parse(&[0x93, 1, 2, 3], 4),
            Err(FormatError::NotThisFormat { .. })
        ));
        let (b, n) = packed(&[0xa3, b'<', b'f', b'8'], &[0x91, 1], 8, 8);
        for cut in 0..n - 8 {
            assert!(parse(&b[..cut], n as u64).is_err(), "cut at {cut}");
        }
    }
}
