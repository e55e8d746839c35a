//! A byte buffer seen as a sequence of records of a size known only at run time: keys read
//! and records swapped or moved by index, without ever copying a whole record aside.

use super::RecordLayout;

/// `bytes` as records of `layout.record_size()` bytes. The caller checked that `bytes` is a
/// whole number of records; out-of-range indices (which the algorithms never form) are no-ops
/// and read as key zero rather than panicking.
pub(crate) struct RecordView<'a> {
    pub(crate) bytes: &'a mut [u8],
    pub(crate) layout: &'a RecordLayout,
    size: usize,
}

impl<'a> RecordView<'a> {
    pub(crate) fn new(bytes: &'a mut [u8], layout: &'a RecordLayout) -> Self {
        let size = layout.record_size();
        Self {
            bytes,
            layout,
            size,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.bytes.len() / self.size
    }

    pub(crate) fn size(&self) -> usize {
        self.size
    }

    pub(crate) fn record(&self, i: usize) -> &[u8] {
        let start = i.saturating_mul(self.size);
        self.bytes
            .get(start..start.saturating_add(self.size))
            .unwrap_or(&[])
    }

    /// The key of record `i`, which must be [prepared](super::prepare_keys).
    #[inline]
    pub(crate) fn key(&self, i: usize) -> u64 {
        self.layout.prepared_key(self.record(i))
    }

    /// Swaps records `i` and `j`.
    pub(crate) fn swap(&mut self, i: usize, j: usize) {
        let (lo, hi) = (i.min(j), i.max(j));
        if lo == hi {
            return;
        }
        let (head, tail) = self.bytes.split_at_mut(hi.saturating_mul(self.size));
        let start = lo.saturating_mul(self.size);
        if let (Some(a), Some(b)) = (
            head.get_mut(start..start.saturating_add(self.size)),
            tail.get_mut(..self.size),
        ) {
            a.swap_with_slice(b);
        }
    }

    /// Records `from..to` as bytes.
    pub(crate) fn range_mut(&mut self, from: usize, to: usize) -> &mut [u8] {
        let (a, b) = (from.saturating_mul(self.size), to.saturating_mul(self.size));
        self.bytes.get_mut(a..b).unwrap_or(&mut [])
    }

    /// Copies record `from` over record `to`.
    pub(crate) fn copy_within(&mut self, from: usize, to: usize) {
        let start = from.saturating_mul(self.size);
        if let Some(end) = start
            .checked_add(self.size)
            .filter(|&e| e <= self.bytes.len())
            && to.saturating_mul(self.size).saturating_add(self.size) <= self.bytes.len()
        {
            self.bytes.copy_within(start..end, to * self.size);
        }
    }

    /// A view of records `from..to`.
    pub(crate) fn sub(&mut self, from: usize, to: usize) -> RecordView<'_> {
        let layout = self.layout;
        RecordView::new(self.range_mut(from, to), layout)
    }
}

impl RecordView<'_> {
    /// Records `from..to` as bytes, read-only.
    pub(crate) fn range_bytes(&self, from: usize, to: usize) -> &[u8] {
        let (a, b) = (from.saturating_mul(self.size), to.saturating_mul(self.size));
        self.bytes.get(a..b).unwrap_or(&[])
    }
}
