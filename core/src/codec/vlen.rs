//! numcodecs' variable-length encoding, shared by `vlen-utf8` and `vlen-bytes`: a little-endian
//! `u32` item count, then each item as a little-endian `u32` byte length and its bytes.
//!
//! Every length is checked against the bytes that remain before anything is sliced, so a
//! hostile chunk can claim any count or length and get an error, never a panic or an
//! allocation (nothing here allocates).

use super::{CodecName, DecodeError};

/// The items of one decoded chunk, in storage order.
///
/// ```
/// use zinto_core::codec::{CodecName, VlenItems};
///
/// let chunk = [2, 0, 0, 0, 1, 0, 0, 0, b'a', 0, 0, 0, 0]; // ["a", ""]
/// let items = VlenItems::new(&chunk, CodecName::VlenUtf8, 2)?;
/// let all: Vec<&[u8]> = items.collect::<Result<_, _>>()?;
/// assert_eq!(all, [&b"a"[..], &b""[..]]);
/// # Ok::<(), zinto_core::codec::DecodeError>(())
/// ```
#[derive(Debug, Clone)]
pub struct VlenItems<'a> {
    rest: &'a [u8],
    left: u64,
    codec: CodecName,
    /// Bytes of the chunk consumed so far.
    consumed: usize,
}

fn u32_le(b: &[u8]) -> Option<(u32, &[u8])> {
    let (head, rest) = b.split_first_chunk::<4>()?;
    Some((u32::from_le_bytes(*head), rest))
}

impl<'a> VlenItems<'a> {
    /// The items of `chunk`, which must hold exactly `elements` of them (the chunk's element
    /// count).
    ///
    /// # Errors
    /// [`DecodeError::Truncated`] if the chunk is shorter than its count field;
    /// [`DecodeError::CountMismatch`] if the count is not `elements`.
    pub fn new(chunk: &'a [u8], codec: CodecName, elements: u64) -> Result<Self, DecodeError> {
        let (count, rest) = u32_le(chunk).ok_or(DecodeError::Truncated { codec })?;
        if u64::from(count) != elements {
            return Err(DecodeError::CountMismatch {
                codec,
                expected: elements,
                got: u64::from(count),
            });
        }
        Ok(Self {
            rest,
            left: elements,
            codec,
            consumed: 4,
        })
    }

    /// Bytes of the chunk consumed so far: after an item, the offset just past it (so the
    /// item starts at `consumed() - item.len()`).
    pub fn consumed(&self) -> usize {
        self.consumed
    }

    /// Checks that nothing follows the last item: call after the iterator is exhausted.
    ///
    /// # Errors
    /// [`DecodeError::TrailingData`] with the count of bytes left over.
    pub fn finish(&self) -> Result<(), DecodeError> {
        if self.left == 0 && !self.rest.is_empty() {
            return Err(DecodeError::TrailingData {
                codec: self.codec,
                extra: self.rest.len() as u64,
            });
        }
        Ok(())
    }
}

impl<'a> Iterator for VlenItems<'a> {
    type Item = Result<&'a [u8], DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        let truncated = DecodeError::Truncated { codec: self.codec };
        let item = u32_le(self.rest)
            .and_then(|(len, rest)| {
                let len = usize::try_from(len).ok()?;
                (len <= rest.len()).then(|| rest.split_at(len))
            })
            .ok_or(truncated);
        match item {
            Ok((item, rest)) => {
                self.consumed += 4 + item.len();
                self.rest = rest;
                self.left -= 1;
                Some(Ok(item))
            }
            Err(e) => {
                // Stop after the first error.
                self.left = 0;
                self.rest = &[];
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[allow(clippy::cast_possible_truncation)] // test items are a few bytes
    fn encode(items: &[&[u8]], out: &mut [u8]) -> usize {
        let mut at = 0;
        let mut put = |b: &[u8]| {
            out[at..at + b.len()].copy_from_slice(b);
            at += b.len();
        };
        put(&(items.len() as u32).to_le_bytes());
        for item in items {
            put(&(item.len() as u32).to_le_bytes());
            put(item);
        }
        at
    }

    #[test]
    fn items_round_trip() {
        let mut buf = [0u8; 64];
        let n = encode(&[b"ab", b"", "é".as_bytes()], &mut buf);
        let mut items = VlenItems::new(&buf[..n], CodecName::VlenUtf8, 3).unwrap();
        assert_eq!(items.next().unwrap().unwrap(), b"ab");
        assert_eq!(items.consumed(), 10);
        assert_eq!(items.next().unwrap().unwrap(), b"");
        assert_eq!(items.next().unwrap().unwrap(), "é".as_bytes());
        assert!(items.next().is_none());
        assert!(items.finish().is_ok());
    }

    #[test]
    fn every_cut_and_count_is_an_error() {
        let mut buf = [0u8; 64];
        let n = encode(&[b"abc", b"de"], &mut buf);
        for cut in 0..n {
            let all = VlenItems::new(&buf[..cut], CodecName::VlenBytes, 2)
                .and_then(|items| items.collect::<Result<heapless::Vec<&[u8], 4>, _>>());
            assert!(all.is_err(), "cut at {cut} accepted");
        }
        let short = VlenItems::new(&buf[..n], CodecName::VlenBytes, 3).err();
        assert!(matches!(
            short,
            Some(DecodeError::CountMismatch {
                got: 2,
                expected: 3,
                ..
            })
        ));
        if let Some(e) = short {
            let mut text = heapless::String::<64>::new();
            core::fmt::write(&mut text, format_args!("{e}")).unwrap();
            assert_eq!(
                text,
                "vlen-bytes: the chunk states 2 elements, its shape holds 3"
            );
        }
        buf[n] = 9;
        let mut items = VlenItems::new(&buf[..n + 1], CodecName::VlenBytes, 2).unwrap();
        assert!(items.by_ref().all(|i| i.is_ok()));
        assert!(matches!(
            items.finish(),
            Err(DecodeError::TrailingData { extra: 1, .. })
        ));
        // A length past the end (u32::MAX) is refused, not sliced.
        let hostile = [1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 1];
        let mut items = VlenItems::new(&hostile, CodecName::VlenBytes, 1).unwrap();
        assert!(matches!(
            items.next(),
            Some(Err(DecodeError::Truncated { .. }))
        ));
    }
}
