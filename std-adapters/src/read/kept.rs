//! Objects a read opened once and reads again later: a variable-length read's first pass (the
//! lengths) keeps each chunk it opened for its second (the values), so that both read one
//! version of it, within a budget of open objects and their bytes.

use crate::store::{Opened, REREAD_WHOLE_MAX};

/// Objects kept open at most (each may hold a file descriptor).
pub(crate) const KEPT_MAX: usize = 64;
/// Their lengths together at most: an object a remote store read again whole is held in
/// memory ([`REREAD_WHOLE_MAX`] each).
pub(crate) const KEPT_LEN_MAX: u64 = REREAD_WHOLE_MAX;

/// The objects kept, by the index of the piece that opened them.
#[derive(Default)]
pub(crate) struct Kept<'s> {
    objects: Vec<(usize, Opened<'s>)>,
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
            Opened::Pinned { len, .. } => *len,
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
        if let Opened::Pinned { len, .. } = &opened {
            self.len = self.len.saturating_sub(*len);
        }
        Some(opened)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryStore;

    fn pinned(store: &MemoryStore, len: u64) -> Opened<'_> {
        Opened::Pinned {
            len,
            object: Box::new(store),
        }
    }

    /// Kept within both budgets; unpinned objects never; a taken object frees its share.
    #[test]
    fn keeps_within_its_budget() {
        let store = MemoryStore::new();
        let mut kept = Kept::default();
        kept.keep(0, Opened::Unpinned { len: 1 });
        assert!(kept.take(0).is_none());
        kept.keep(1, pinned(&store, KEPT_LEN_MAX - 1));
        kept.keep(2, pinned(&store, 2));
        assert!(kept.take(2).is_none(), "over the bytes kept");
        kept.keep(3, Opened::Absent);
        assert!(matches!(kept.take(3), Some(Opened::Absent)));
        assert!(kept.take(1).is_some());
        kept.keep(2, pinned(&store, 2));
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
