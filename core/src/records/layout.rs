//! Where the key sits in a record, validated once.

use super::{KeyType, RecordError};
use crate::codec::Endian;

/// The shape of a record: its size and its key field. Built by [`RecordLayout::new`], which
/// checks that the key fits in the record, so reading a key never fails afterwards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordLayout {
    record_size: usize,
    key_offset: usize,
    key_type: KeyType,
    endian: Endian,
}

impl RecordLayout {
    /// Parses a key as text, `TYPE@OFFSET` with an optional `le`/`be` after the type (little
    /// endian by default), for records of `record_size` bytes: `f64@8`, `u32be@0`.
    ///
    /// ```
    /// use zinto_core::records::{KeyType, RecordLayout};
    ///
    /// let by_mz = RecordLayout::parse("f64@8", 24)?;
    /// assert_eq!((by_mz.key_offset(), by_mz.key_type()), (8, KeyType::F64));
    /// assert!(RecordLayout::parse("f64@20", 24).is_err()); // does not fit
    /// # Ok::<(), zinto_core::records::RecordError>(())
    /// ```
    ///
    /// # Errors
    /// [`RecordError::KeySpec`] for text that does not parse; then as [`Self::new`].
    pub fn parse(spec: &str, record_size: usize) -> Result<Self, RecordError> {
        let (ty, offset) = spec.split_once('@').ok_or(RecordError::KeySpec {
            reason: "expected TYPE@OFFSET, for example f64@8",
        })?;
        let (ty, endian) = match ty.strip_suffix("be") {
            Some(t) => (t, Endian::Big),
            None => (ty.strip_suffix("le").unwrap_or(ty), Endian::Little),
        };
        let key_type = KeyType::from_name(ty).ok_or(RecordError::KeySpec {
            reason: "unknown key type (f32, f64, i32, i64, u32, u64, optionally with le or be)",
        })?;
        let offset = offset.parse().map_err(|_| RecordError::KeySpec {
            reason: "the offset after @ is not a byte count",
        })?;
        Self::new(record_size, offset, key_type, endian)
    }

    /// Records of `record_size` bytes keyed by a `key_type` at byte `key_offset`, stored in
    /// `endian` byte order.
    ///
    /// # Errors
    /// [`RecordError::ZeroRecordSize`], or [`RecordError::KeyOutsideRecord`] if the key does
    /// not fit.
    pub fn new(
        record_size: usize,
        key_offset: usize,
        key_type: KeyType,
        endian: Endian,
    ) -> Result<Self, RecordError> {
        if record_size == 0 {
            return Err(RecordError::ZeroRecordSize);
        }
        let key_width = key_type.width();
        if key_offset
            .checked_add(key_width)
            .is_none_or(|end| end > record_size)
        {
            return Err(RecordError::KeyOutsideRecord {
                key_offset,
                key_width,
                record_size,
            });
        }
        Ok(Self {
            record_size,
            key_offset,
            key_type,
            endian,
        })
    }

    /// Size of one record in bytes.
    pub fn record_size(&self) -> usize {
        self.record_size
    }

    /// Offset of the key in a record.
    pub fn key_offset(&self) -> usize {
        self.key_offset
    }

    /// Type of the key.
    pub fn key_type(&self) -> KeyType {
        self.key_type
    }

    /// Byte order of the key.
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// How many records `len` bytes hold.
    ///
    /// # Errors
    /// [`RecordError::PartialRecord`] unless `len` is a multiple of the record size.
    pub fn count(&self, len: usize) -> Result<usize, RecordError> {
        if !len.is_multiple_of(self.record_size) {
            return Err(RecordError::PartialRecord {
                len,
                record_size: self.record_size,
            });
        }
        Ok(len / self.record_size)
    }

    /// The key of `record`, one whole record, as an unsigned integer in sort order (see
    /// [`OrderKey`](super::OrderKey)).
    ///
    /// # Errors
    /// [`RecordError::NotOneRecord`] unless `record` is exactly one record long.
    #[inline(always)]
    pub fn order_key(&self, record: &[u8]) -> Result<u64, RecordError> {
        self.check_one(record)?;
        Ok(self.key_type.order_bits(self.raw_bits(record)?))
    }

    /// Checks that `record` is one record long, as every slice a caller hands in as "a record"
    /// must be: a shorter one has no key to read, a longer one is a caller's slicing bug.
    pub(crate) fn check_one(&self, record: &[u8]) -> Result<(), RecordError> {
        if record.len() == self.record_size {
            Ok(())
        } else {
            Err(RecordError::NotOneRecord {
                len: record.len(),
                record_size: self.record_size,
            })
        }
    }

    /// The `W` bytes of the key field of `record`, which is one whole record.
    ///
    /// [`Self::new`] checked `key_offset + width <= record_size`, and the sorts hand in only
    /// whole records, so a miss here is a bug in zinto: reported as [`RecordError::Internal`],
    /// never read as some default key.
    #[inline(always)]
    fn field<const W: usize>(&self, record: &[u8]) -> Result<[u8; W], RecordError> {
        record
            .get(self.key_offset..)
            .and_then(<[u8]>::first_chunk::<W>)
            .copied()
            .ok_or(KEY_OUTSIDE_RECORD)
    }

    /// The key field's bits, in this layout's byte order, zero-extended.
    #[inline(always)]
    fn raw_bits(&self, record: &[u8]) -> Result<u64, RecordError> {
        Ok(if self.key_type.width() == 4 {
            u64::from(self.u32(self.field(record)?))
        } else {
            self.u64(self.field(record)?)
        })
    }

    /// Rewrites `record`'s key as its [`order_key`](Self::order_key) in native byte order, so
    /// that sorting reads it with one load ([`Self::prepared_key`]).
    #[inline(always)]
    pub(crate) fn prepare(&self, record: &mut [u8]) -> Result<(), RecordError> {
        let order = self.key_type.order_bits(self.raw_bits(record)?);
        let four = low32(order).to_ne_bytes();
        self.put(record, &four, &order.to_ne_bytes())
    }

    /// Undoes [`Self::prepare`].
    #[inline(always)]
    pub(crate) fn restore(&self, record: &mut [u8]) -> Result<(), RecordError> {
        let bits = self.key_type.bits_from_order(self.prepared_key(record)?);
        let (four, eight) = match self.endian {
            Endian::Little => (low32(bits).to_le_bytes(), bits.to_le_bytes()),
            Endian::Big => (low32(bits).to_be_bytes(), bits.to_be_bytes()),
        };
        self.put(record, &four, &eight)
    }

    /// The key of a [`prepared`](Self::prepare) record (one whole record).
    #[inline(always)]
    pub(crate) fn prepared_key(&self, record: &[u8]) -> Result<u64, RecordError> {
        Ok(if self.key_type.width() == 4 {
            u64::from(u32::from_ne_bytes(self.field(record)?))
        } else {
            u64::from_ne_bytes(self.field(record)?)
        })
    }

    /// Writes the key field of `record` (one whole record): `four` or `eight` by the key width.
    fn put(&self, record: &mut [u8], four: &[u8; 4], eight: &[u8; 8]) -> Result<(), RecordError> {
        let src: &[u8] = if self.key_type.width() == 4 {
            four
        } else {
            eight
        };
        let dst = record
            .get_mut(self.key_offset..)
            .and_then(|rest| rest.get_mut(..src.len()))
            .ok_or(KEY_OUTSIDE_RECORD)?;
        dst.copy_from_slice(src); // the same length: `dst` was cut to it
        Ok(())
    }

    #[inline(always)]
    fn u32(&self, b: [u8; 4]) -> u32 {
        match self.endian {
            Endian::Little => u32::from_le_bytes(b),
            Endian::Big => u32::from_be_bytes(b),
        }
    }

    #[inline(always)]
    fn u64(&self, b: [u8; 8]) -> u64 {
        match self.endian {
            Endian::Little => u64::from_le_bytes(b),
            Endian::Big => u64::from_be_bytes(b),
        }
    }
}

/// What [`RecordLayout`]'s key accessors report if handed less than a record (a bug).
const KEY_OUTSIDE_RECORD: RecordError = RecordError::Internal {
    what: "a record handed to the key accessors was too short for its key field",
};

/// The low 32 bits (4-byte keys' bits and order bits never use more).
#[allow(clippy::cast_possible_truncation)]
fn low32(v: u64) -> u32 {
    v as u32
}
