//! A byte buffer seen as a sequence of records of a size known only at run time: keys read
//! and records swapped or moved by index, without ever copying a whole record aside.

use core::ops::Range;

use super::{RecordError, RecordLayout};

/// What every accessor reports for an index past the end: the sorts form only indices below
/// [`RecordView::len`], so this is a bug in zinto, never a default key or a skipped move.
const OUT_OF_RANGE: RecordError = RecordError::Internal {
    what: "a record index past the end of the buffer",
};

/// `bytes` as `len` records of `layout.record_size()` bytes (`len * size == bytes.len()`,
/// checked by [`RecordView::new`]).
pub(crate) struct RecordView<'a> {
    bytes: &'a mut [u8],
    pub(crate) layout: &'a RecordLayout,
    size: usize,
    len: usize,
}

impl<'a> RecordView<'a> {
    /// # Errors
    /// [`RecordError::PartialRecord`] unless `bytes` is a whole number of records.
    pub(crate) fn new(bytes: &'a mut [u8], layout: &'a RecordLayout) -> Result<Self, RecordError> {
        let len = layout.count(bytes.len())?;
        Ok(Self {
            bytes,
            layout,
            size: layout.record_size(),
            len,
        })
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn size(&self) -> usize {
        self.size
    }

    /// The byte range of records `from..to`.
    fn span(&self, from: usize, to: usize) -> Result<Range<usize>, RecordError> {
        if from > to || to > self.len {
            return Err(OUT_OF_RANGE);
        }
        // to <= len and len * size == bytes.len(): neither product overflows.
        Ok(from * self.size..to * self.size)
    }

    /// The byte range of record `i`.
    fn one(&self, i: usize) -> Result<Range<usize>, RecordError> {
        if i >= self.len {
            return Err(OUT_OF_RANGE);
        }
        // i < len: (i + 1) * size <= bytes.len().
        let start = i * self.size;
        Ok(start..start + self.size)
    }

    pub(crate) fn record(&self, i: usize) -> Result<&[u8], RecordError> {
        self.bytes.get(self.one(i)?).ok_or(OUT_OF_RANGE)
    }

    /// The key of record `i`, which must be [prepared](super::prepare_keys).
    #[inline]
    pub(crate) fn key(&self, i: usize) -> Result<u64, RecordError> {
        self.layout.prepared_key(self.record(i)?)
    }

    /// Swaps records `i` and `j` (nothing to do if they are the same record).
    pub(crate) fn swap(&mut self, i: usize, j: usize) -> Result<(), RecordError> {
        let (lo, hi) = (self.one(i.min(j))?, self.one(i.max(j))?);
        if lo == hi {
            return Ok(());
        }
        // lo ends at or before hi starts: `lo` lies in `head`, `hi` starts `tail`.
        let (head, tail) = self
            .bytes
            .split_at_mut_checked(hi.start)
            .ok_or(OUT_OF_RANGE)?;
        let a = head.get_mut(lo).ok_or(OUT_OF_RANGE)?;
        let b = tail.get_mut(..self.size).ok_or(OUT_OF_RANGE)?;
        a.swap_with_slice(b);
        Ok(())
    }

    /// Records `from..to` as bytes.
    pub(crate) fn range_mut(&mut self, from: usize, to: usize) -> Result<&mut [u8], RecordError> {
        let span = self.span(from, to)?;
        self.bytes.get_mut(span).ok_or(OUT_OF_RANGE)
    }

    /// Records `from..to` as bytes, read-only.
    pub(crate) fn range(&self, from: usize, to: usize) -> Result<&[u8], RecordError> {
        self.bytes.get(self.span(from, to)?).ok_or(OUT_OF_RANGE)
    }

    /// Copies record `from` over record `to`.
    pub(crate) fn copy_within(&mut self, from: usize, to: usize) -> Result<(), RecordError> {
        let (src, dst) = (self.one(from)?, self.one(to)?);
        // Both are whole records inside `bytes`: `copy_within` cannot go out of bounds.
        self.bytes.copy_within(src, dst.start);
        Ok(())
    }

    /// A view of records `from..to`.
    pub(crate) fn sub(&mut self, from: usize, to: usize) -> Result<RecordView<'_>, RecordError> {
        let (layout, size) = (self.layout, self.size);
        let bytes = self.range_mut(from, to)?;
        // `range_mut` checked from <= to and cut exactly `to - from` records: no division
        // needed to know the length (this runs once per merge).
        Ok(RecordView {
            bytes,
            layout,
            size,
            len: to - from,
        })
    }
}
