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

    /// The key of `record` as an unsigned integer in sort order (see
    /// [`OrderKey`](super::OrderKey)). A slice too short for the key (never one of the layout's
    /// own records) reads as zero.
    #[inline(always)]
    pub fn order_key(&self, record: &[u8]) -> u64 {
        self.key_type.order_bits(self.raw_bits(record))
    }

    /// The key field's bits, in this layout's byte order, zero-extended.
    #[inline(always)]
    fn raw_bits(&self, record: &[u8]) -> u64 {
        let at = self.key_offset;
        match self.key_type.width() {
            4 => record
                .get(at..at + 4)
                .and_then(|b| <[u8; 4]>::try_from(b).ok())
                .map_or(0, |b| u64::from(self.u32(b))),
            _ => record
                .get(at..at + 8)
                .and_then(|b| <[u8; 8]>::try_from(b).ok())
                .map_or(0, |b| self.u64(b)),
        }
    }

    /// Rewrites `record`'s key as its [`order_key`](Self::order_key) in native byte order, so
    /// that sorting reads it with one load ([`Self::prepared_key`]).
    #[inline(always)]
    pub(crate) fn prepare(&self, record: &mut [u8]) {
        let order = self.order_key(record);
        self.write_native(record, order);
    }

    /// Undoes [`Self::prepare`].
    #[inline(always)]
    pub(crate) fn restore(&self, record: &mut [u8]) {
        let order = self.prepared_key(record);
        let bits = self.key_type.bits_from_order(order);
        let at = self.key_offset;
        let (four, eight) = match self.endian {
            Endian::Little => (low32(bits).to_le_bytes(), bits.to_le_bytes()),
            Endian::Big => (low32(bits).to_be_bytes(), bits.to_be_bytes()),
        };
        self.put(record, at, &four, &eight);
    }

    /// The key of a [`prepared`](Self::prepare) record.
    #[inline(always)]
    pub(crate) fn prepared_key(&self, record: &[u8]) -> u64 {
        let at = self.key_offset;
        match self.key_type.width() {
            4 => record
                .get(at..at + 4)
                .and_then(|b| <[u8; 4]>::try_from(b).ok())
                .map_or(0, |b| u64::from(u32::from_ne_bytes(b))),
            _ => record
                .get(at..at + 8)
                .and_then(|b| <[u8; 8]>::try_from(b).ok())
                .map_or(0, u64::from_ne_bytes),
        }
    }

    fn write_native(&self, record: &mut [u8], order: u64) {
        let four = low32(order).to_ne_bytes();
        self.put(record, self.key_offset, &four, &order.to_ne_bytes());
    }

    fn put(&self, record: &mut [u8], at: usize, four: &[u8; 4], eight: &[u8; 8]) {
        let src: &[u8] = if self.key_type.width() == 4 {
            four
        } else {
            eight
        };
        if let Some(dst) = record.get_mut(at..at + src.len()) {
            dst.copy_from_slice(src);
        }
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

/// The low 32 bits (4-byte keys' bits and order bits never use more).
#[allow(clippy::cast_possible_truncation)]
fn low32(v: u64) -> u32 {
    v as u32
}
