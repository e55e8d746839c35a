//! Writing objects: bytes streamed in order into an [`ObjectWriter`], visible only once
//! committed, so a reader (or a crash) never meets half an object.

use super::StoreError;

/// One object being written ([`Store::writer`](super::Store::writer)): its bytes in order
/// through [`ObjectWriter::write`], then [`ObjectWriter::commit`]. An uncommitted writer that is
/// dropped (an error, a panic, a cancelled write) leaves nothing of itself: an old object of
/// the same key stays as it was.
pub trait ObjectWriter {
    /// Appends `bytes`.
    ///
    /// # Errors
    /// The store's error (a full disk: [`StoreError::Io`]).
    fn write(&mut self, bytes: &[u8]) -> Result<(), StoreError>;

    /// Writes `len` bytes that stand for ones known only once more is written (a shard's index
    /// at its start, a Blosc frame's header), to be filled by [`ObjectWriter::fill`] before
    /// the commit; returns their offset in the object. A file is written forward as ever and
    /// rewritten there in place; an object store (which writes forward only) holds what it has
    /// not sent from the first byte reserved until every reservation is filled.
    ///
    /// # Errors
    /// As [`ObjectWriter::write`].
    fn reserve(&mut self, len: usize) -> Result<u64, StoreError>;

    /// The bytes reserved at `offset` by [`ObjectWriter::reserve`]: exactly as many.
    ///
    /// # Errors
    /// As [`ObjectWriter::write`]; [`StoreError::Internal`] for bytes no reservation holds.
    fn fill(&mut self, offset: u64, bytes: &[u8]) -> Result<(), StoreError>;

    /// Makes the object visible under its key, in one step: before it, readers see the old
    /// object (or none); after it, the whole new one.
    ///
    /// # Errors
    /// The store's error; the object is then not written.
    fn commit(self: Box<Self>) -> Result<(), StoreError>;
}

/// Zeros standing for a head, written a block at a time (no buffer sized by the head).
pub(crate) fn write_zeros(w: &mut dyn ObjectWriter, mut len: usize) -> Result<(), StoreError> {
    const ZEROS: [u8; 4096] = [0; 4096];
    while len > 0 {
        let n = len.min(ZEROS.len());
        w.write(&ZEROS[..n])?;
        len -= n;
    }
    Ok(())
}

/// The reservations of one object writer not yet filled: (offset, length).
#[derive(Debug, Default)]
pub(crate) struct Reservations(Vec<(u64, usize)>);

impl Reservations {
    /// Keeps `len` bytes at `offset` open.
    pub(crate) fn open(&mut self, offset: u64, len: usize) {
        self.0.push((offset, len));
    }

    /// Where the reservation of `len` bytes at `offset` is listed.
    fn find(&self, offset: u64, len: usize) -> Result<usize, StoreError> {
        self.0
            .iter()
            .position(|&r| r == (offset, len))
            .ok_or(StoreError::Internal {
                what: "bytes filled that no reservation holds",
            })
    }

    /// Fills the reservation of `bytes.len()` bytes at `offset` with `write`, and closes it
    /// once that succeeded (a failed fill leaves it open: the object cannot be committed).
    pub(crate) fn fill(
        &mut self,
        offset: u64,
        bytes: &[u8],
        write: impl FnOnce() -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let at = self.find(offset, bytes.len())?;
        write()?;
        self.0.swap_remove(at);
        Ok(())
    }

    /// [`Self::fill`] for an object whose bytes from `held_from` on are in `held`: the
    /// reserved bytes are copied there.
    pub(crate) fn fill_held(
        &mut self,
        (held, held_from): (&mut [u8], u64),
        offset: u64,
        bytes: &[u8],
    ) -> Result<(), StoreError> {
        self.fill(offset, bytes, || {
            offset
                .checked_sub(held_from)
                .and_then(|at| usize::try_from(at).ok())
                .and_then(|at| held.get_mut(at..at.checked_add(bytes.len())?))
                .ok_or(StoreError::Internal {
                    what: "reserved bytes no longer held",
                })?
                .copy_from_slice(bytes);
            Ok(())
        })
    }

    /// Whether every reservation is filled.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// An error for a commit while reservations are open.
    pub(crate) fn check_filled(&self) -> Result<(), StoreError> {
        match self.is_empty() {
            true => Ok(()),
            false => Err(StoreError::Internal {
                what: "an object committed before its reserved bytes were filled",
            }),
        }
    }
}
