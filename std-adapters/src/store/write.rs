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

    /// Makes the object visible under its key, in one step: before it, readers see the old
    /// object (or none); after it, the whole new one.
    ///
    /// # Errors
    /// The store's error; the object is then not written.
    fn commit(self: Box<Self>) -> Result<(), StoreError>;
}
