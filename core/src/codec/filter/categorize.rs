//! numcodecs `categorize` (`Categorize(labels, dtype, astype)`): a fixed-length unicode array
//! (`<U n`) stored as integer codes, `i + 1` for the `i`-th label and 0 for any other string.
//! numcodecs decodes a code `c` to label `c - 1`, and any code that is no label's (0, negative,
//! too large) to the empty string: so does zinto.
//!
//! The labels are strings in the metadata, more than a filter value carries (a [`Filter`] is a
//! small `Copy` value). The metadata reader lays them out once as a table, one entry of the
//! array's element size each, in its UTF-32 byte order ([`Categorize::write_label`]), and hands
//! it to the decode ([`FilterAux::table`](super::spec::FilterAux)). Object arrays (`|O`), which
//! numcodecs also categorizes, are refused: zinto has no objects to decode into.
//!
//! [`Filter`]: crate::codec::Filter

use super::numeric::Elem;
use super::spec::{EncodeRun, FilterAux, FilterCodec, FromFilterConfig, decode_error, read_elem};
use super::{FilterError, NumType, Value, elem_at};
use crate::codec::config::{Config, ConfigValue, Reader};
use crate::codec::{ChainError, CodecName, DecodeError, Endian};
use crate::dtype::{ByteOrder, TypeStr};

/// The largest label table: labels times the element size, at most 16 MiB.
pub const MAX_LABEL_TABLE: usize = 16 << 20;

/// numcodecs `categorize`, configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Categorize {
    /// The stored code's type (`astype`, numcodecs' default `|u1`).
    pub code: Elem,
    /// Characters of the decoded `<U n` element.
    pub chars: usize,
    /// The UTF-32 byte order of the decoded element.
    pub endian: Endian,
    /// How many labels there are.
    pub labels: usize,
}

impl Categorize {
    pub(crate) const NAMES: &'static [&'static str] = &["numcodecs.categorize"];
    pub(crate) const V2_ID: Option<&'static str> = Some("categorize");

    /// Bytes of one decoded element (and of one table entry): four per character.
    pub fn width(&self) -> usize {
        self.chars * 4
    }

    /// Bytes of its label table: one entry per label.
    pub fn table_len(&self) -> usize {
        self.labels * self.width()
    }

    /// Writes `label` as the decoded element it stands for into `entry` (of
    /// [`Categorize::width`] bytes): its characters in UTF-32, cut at the element's length
    /// and padded with zeros, as NumPy stores a longer or shorter string in `<U n`.
    pub fn write_label(&self, label: &str, entry: &mut [u8]) {
        entry.fill(0);
        for (slot, c) in entry.chunks_exact_mut(4).zip(label.chars()) {
            let unit = u32::from(c);
            slot.copy_from_slice(&match self.endian {
                Endian::Little => unit.to_le_bytes(),
                Endian::Big => unit.to_be_bytes(),
            });
        }
    }
}

/// How many labels the configuration lists (each must be a string).
fn count_labels<C: Config + ?Sized>(r: &Reader<'_, C>) -> Result<usize, ChainError> {
    let n = r
        .list("labels")?
        .ok_or(r.error("labels", "is missing or not a list of strings"))?;
    let mut key = heapless::String::<32>::new();
    for i in 0..n {
        key.clear();
        core::fmt::write(&mut key, format_args!("labels/{i}"))
            .map_err(|_| r.error("labels", "lists more labels than can be counted"))?;
        if !matches!(r.get(&key), Some(ConfigValue::Str(_))) {
            return Err(r.error("labels", "is not a list of strings"));
        }
    }
    Ok(n)
}

impl FromFilterConfig for Categorize {
    fn from_config<C: Config + ?Sized>(
        r: &Reader<'_, C>,
        _: Option<Elem>,
    ) -> Result<Self, ChainError> {
        let dtype = r.str("dtype")?.ok_or(r.error("dtype", "is missing"))?;
        let t = TypeStr::parse(dtype).ok_or(r.error("dtype", "is not a NumPy type string"))?;
        if t.kind != 'U' {
            return Err(r.error(
                "dtype",
                "is not fixed-length unicode (<U n): only those are decoded (not objects)",
            ));
        }
        let chars = usize::try_from(t.size).map_err(|_| r.error("dtype", "is too long"))?;
        let u1 = Elem::new(NumType::UInt8, Endian::Little);
        let c = Self {
            code: read_elem(r, "astype", Some(u1))?,
            chars,
            endian: t
                .order
                .and_then(ByteOrder::endian)
                .unwrap_or(Endian::NATIVE),
            labels: count_labels(r)?,
        };
        match chars.checked_mul(4).and_then(|w| w.checked_mul(c.labels)) {
            Some(n) if n <= MAX_LABEL_TABLE => Ok(c),
            _ => Err(r.error("labels", "make a table over 16 MiB")),
        }
    }
}

/// The label a code stands for: `Some(i)` for label `i`, `None` for the empty string.
fn label_of(code: Value, labels: usize) -> Option<usize> {
    let i = match code {
        Value::Int(i) => usize::try_from(i).ok()?,
        // A float code names a label only when it is that whole number (NumPy's `==`).
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss
        )]
        Value::Float(x) if x >= 1.0 && x <= labels as f64 && (x as usize) as f64 == x => x as usize,
        Value::Float(_) => return None,
    };
    (1..=labels).contains(&i).then(|| i - 1)
}

/// Decodes `n` codes at the start of `buf` into `n` elements of `width` bytes there, each its
/// label's `table` entry or zeros. Elements at least as wide as codes are written last first,
/// narrower ones first first, so that no code is overwritten before it is read.
///
/// # Errors
/// [`FilterError::BufferTooSmall`], [`FilterError::SizeOverflow`], and
/// [`FilterError::LabelTable`] for a table that is not whole entries of `width` bytes.
pub fn decode(buf: &mut [u8], n: usize, c: &Categorize, table: &[u8]) -> Result<(), FilterError> {
    let width = c.width();
    if table.len() != c.table_len() || width == 0 && n > 0 {
        return Err(FilterError::LabelTable {
            len: table.len(),
            width,
        });
    }
    let overflow = |elem_size| FilterError::SizeOverflow {
        count: n,
        elem_size,
    };
    let code_len = n
        .checked_mul(c.code.size())
        .ok_or(overflow(c.code.size()))?;
    let needed = n.checked_mul(width).ok_or(overflow(width))?.max(code_len);
    if buf.len() < needed {
        return Err(FilterError::BufferTooSmall {
            needed,
            len: buf.len(),
        });
    }
    let short = FilterError::BufferTooSmall {
        needed,
        len: buf.len(),
    };
    let mut put = |i: usize| -> Result<(), FilterError> {
        let code = elem_at(buf, 0, i, c.code.size())
            .and_then(|b| c.code.read(b))
            .ok_or(short)?;
        let label = label_of(code, c.labels).and_then(|l| table.get(l * width..(l + 1) * width));
        let out = buf.get_mut(i * width..(i + 1) * width).ok_or(short)?;
        match label {
            Some(entry) => out.copy_from_slice(entry),
            None => out.fill(0),
        }
        Ok(())
    };
    if width >= c.code.size() {
        (0..n).rev().try_for_each(&mut put)
    } else {
        (0..n).try_for_each(&mut put)
    }
}

impl FilterCodec for Categorize {
    fn elems(&self) -> Option<(Elem, Elem)> {
        None
    }

    fn elems_mut(&mut self) -> Option<(&mut Elem, &mut Elem)> {
        None
    }

    fn encoded_len(&self, n: usize, _: usize) -> Option<usize> {
        n.checked_mul(self.code.size())
    }

    fn keeps_elements(&self) -> bool {
        true
    }

    fn is_bytes_to_bytes(&self) -> bool {
        false
    }

    fn needs_spare(&self) -> bool {
        false
    }

    fn decode(&self, buf: &mut [u8], n: usize, aux: &mut FilterAux<'_>) -> Result<(), DecodeError> {
        decode(buf, n, self, aux.table).map_err(decode_error(CodecName::Categorize))
    }

    fn encodes(&self) -> Result<(), &'static str> {
        Err("zinto reads it but does not encode it yet")
    }

    fn encode(
        &self,
        _: &mut EncodeRun,
        _: &[u8],
        _: Elem,
        _: &mut [u8],
    ) -> Result<usize, FilterError> {
        Err(FilterError::NoEncoder)
    }

    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{}({} labels, <U{} from {})",
            Self::NAMES[0],
            self.labels,
            self.chars,
            self.code.type_str()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn categorize(code: NumType, chars: usize, labels: usize) -> Categorize {
        Categorize {
            code: Elem::new(code, Endian::Little),
            chars,
            endian: Endian::Little,
            labels,
        }
    }

    /// Labels "ab", "c" and a longer one cut to the element, as NumPy stores them in `<U2`.
    fn table(c: &Categorize) -> [u8; 24] {
        let mut t = [0u8; 24];
        for (entry, label) in t.chunks_exact_mut(c.width()).zip(["ab", "c", "xyz"]) {
            c.write_label(label, entry);
        }
        t
    }

    fn utf32(s: &str) -> [u8; 8] {
        let mut out = [0u8; 8];
        for (slot, ch) in out.chunks_exact_mut(4).zip(s.chars()) {
            slot.copy_from_slice(&u32::from(ch).to_le_bytes());
        }
        out
    }

    /// Codes 1..=3 are their labels; 0, a negative code and one past the labels are the empty
    /// string; wider elements than codes decode in place last first, narrower first first.
    #[test]
    fn codes_decode_to_their_labels_and_any_other_to_the_empty_string() {
        let c = categorize(NumType::Int8, 2, 3);
        let t = table(&c);
        let mut buf = [0u8; 48];
        buf[..6].copy_from_slice(&[1, 0, 2, 3, 0xff, 4]);
        decode(&mut buf, 6, &c, &t).unwrap();
        let want = ["ab", "", "c", "xy", "", ""];
        for (i, w) in want.iter().enumerate() {
            assert_eq!(buf[8 * i..8 * i + 8], utf32(w), "{i}");
        }
        // Codes wider than the element (`<U1` from int64): decoded first first.
        let c = Categorize {
            chars: 1,
            ..categorize(NumType::Int64, 1, 3)
        };
        let mut t = [0u8; 12];
        for (entry, label) in t.chunks_exact_mut(4).zip(["a", "b", "c"]) {
            c.write_label(label, entry);
        }
        let mut buf = [0u8; 24];
        for (i, code) in [3i64, 1, 0].iter().enumerate() {
            buf[8 * i..8 * i + 8].copy_from_slice(&code.to_le_bytes());
        }
        decode(&mut buf, 3, &c, &t).unwrap();
        assert_eq!(buf[..12], [b'c', 0, 0, 0, b'a', 0, 0, 0, 0, 0, 0, 0]);
    }

    /// Labels times the element size over 16 MiB are refused when the configuration is read,
    /// before any table is laid out.
    #[test]
    fn a_label_table_over_16_mib_is_refused() {
        use crate::codec::ConfigValue::{List, Str};
        use crate::codec::{CodecName, Filter};
        let config = |dtype| {
            [
                ("dtype", Str(dtype)),
                ("labels", List(1)),
                ("labels/0", Str("a")),
            ]
        };
        // 4 Mi characters of 4 bytes: exactly 16 MiB.
        assert!(Filter::from_config(CodecName::Categorize, &config("<U4194304")[..], None).is_ok());
        let e = Filter::from_config(CodecName::Categorize, &config("<U4194305")[..], None);
        assert!(
            matches!(e, Err(ChainError::Config { key: "labels", .. })),
            "{e:?}"
        );
    }

    #[test]
    fn float_codes_name_a_label_only_when_whole() {
        assert_eq!(label_of(Value::Float(2.0), 3), Some(1));
        for x in [0.0, 1.5, 4.0, -1.0, f64::NAN, f64::INFINITY] {
            assert_eq!(label_of(Value::Float(x), 3), None, "{x}");
        }
        assert_eq!(label_of(Value::Int(3), 3), Some(2));
        assert_eq!(label_of(Value::Int(-3), 3), None);
    }

    #[test]
    fn a_table_of_the_wrong_size_and_short_buffers_are_errors() {
        let c = categorize(NumType::UInt8, 2, 3);
        let mut buf = [1u8; 16];
        assert_eq!(
            decode(&mut buf, 2, &c, &[0; 23]),
            Err(FilterError::LabelTable { len: 23, width: 8 })
        );
        assert_eq!(
            decode(&mut buf, 3, &c, &[0; 24]),
            Err(FilterError::BufferTooSmall {
                needed: 24,
                len: 16
            })
        );
        assert_eq!(buf, [1u8; 16]);
    }
}
