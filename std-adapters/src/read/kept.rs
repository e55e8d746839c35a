//! Objects a read opened once and reads again later: a variable-length read's first pass (the
//! lengths) keeps each chunk it opened for its second (the values), so that both read one
//! version of it, within a budget of open objects (files held open) and of the bytes they hold
//! in memory (remote objects read whole).

use crate::store::{Opened, REREAD_WHOLE_MAX};

/// Objects kept open at most (each may hold a file descriptor).
pub(crate) const KEPT_MAX: usize = 64;
/// Bytes they hold in memory together at most ([`Store::bytes_held`](crate::store::Store::bytes_held): an object a remote
/// store read again whole, at most [`REREAD_WHOLE_MAX`] each).
pub(crate) const KEPT_LEN_MAX: u64 = REREAD_WHOLE_MAX;

/// The objects kept, by the index of the piece that opened them.
#[derive(Default)]
pub(crate) struct Kept<'s> {
    objects: Vec<(usize, Opened<'s>)>,
    /// The bytes they hold in memory.
    len: u64,
}

impl<'s> Kept<'s> {
    /// Forgets every object kept (a pass starting again).
    pub(crate) fn clear(&mut self) {
        self.objects.clear();
        self.len = 0;
    }

    /// Keeps `opened` for piece `index`, if it is worth keeping (absent, or one pinned
    /// version) and the budget allows; drops it otherwise.
    pub(crate) fn keep(&mut self, index: usize, opened: Opened<'s>) {
        let len = match &opened {
            Opened::Absent => 0,
            Opened::Pinned { object, .. } => object.bytes_held(),
            Opened::Unpinned { .. } => return,
        };
        let Some(total) = self.len.checked_add(len) else {
            return;
        };
        if self.objects.len() < KEPT_MAX && total <= KEPT_LEN_MAX {
            self.objects.push((index, opened));
            self.len = total;
        }
    }

    /// The object kept for piece `index`, taken.
    pub(crate) fn take(&mut self, index: usize) -> Option<Opened<'s>> {
        let at = self.objects.iter().position(|(i, _)| *i == index)?;
        let (_, opened) = self.objects.swap_remove(at);
        if let Opened::Pinned { object, .. } = &opened {
            self.len = self.len.saturating_sub(object.bytes_held());
        }
        Some(opened)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Store, StoreError};

    /// An object holding `0` bytes in memory.
    struct Holding(u64);

    impl Store for Holding {
        fn size(&self, _: &str) -> Result<Option<u64>, StoreError> {
            Ok(None)
        }
        fn read_into(&self, _: &str, _: u64, _: &mut [u8]) -> Result<(), StoreError> {
            Err(StoreError::Missing)
        }
        fn bytes_held(&self) -> u64 {
            self.0
        }
    }

    fn pinned(held: u64) -> Opened<'static> {
        Opened::Pinned {
            len: u64::MAX,
            object: Box::new(Holding(held)),
        }
    }

    /// Kept within both budgets (the bytes held in memory, not the objects' lengths); unpinned
    /// objects never; a taken object frees its share.
    #[test]
    fn keeps_within_its_budget() {
        let mut kept = Kept::default();
        kept.keep(0, Opened::Unpinned { len: 1 });
        assert!(kept.take(0).is_none());
        kept.keep(1, pinned(KEPT_LEN_MAX - 1));
        kept.keep(2, pinned(2));
        assert!(kept.take(2).is_none(), "over the bytes kept");
        kept.keep(3, Opened::Absent);
        assert!(matches!(kept.take(3), Some(Opened::Absent)));
        kept.keep(4, pinned(0));
        assert!(
            kept.take(4).is_some(),
            "an open file costs no bytes, whatever its length"
        );
        assert!(kept.take(1).is_some());
        kept.keep(2, pinned(2));
        assert!(kept.take(2).is_some());
        for i in 0..=KEPT_MAX {
            kept.keep(i, Opened::Absent);
        }
        assert!(kept.take(KEPT_MAX).is_none(), "over the objects kept");
        assert!(kept.take(KEPT_MAX - 1).is_some());
        kept.clear();
        assert!(kept.take(0).is_none());
    }
}
