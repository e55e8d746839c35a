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

    /// Writes `len` bytes that stand for a head known only once the rest is written (a shard's
    /// index at its start), to be filled by [`ObjectWriter::fill_head`] before the commit. The
    /// object's first bytes: called before any [`ObjectWriter::write`]. A file is then written
    /// forward as ever and its head rewritten in place; an object store (which writes forward
    /// only) holds the whole object until its commit.
    ///
    /// # Errors
    /// As [`ObjectWriter::write`]; [`StoreError::Internal`] after other bytes or a head.
    fn reserve_head(&mut self, len: usize) -> Result<(), StoreError>;

    /// The bytes of the head [`ObjectWriter::reserve_head`] kept room for: exactly as many.
    ///
    /// # Errors
    /// As [`ObjectWriter::write`]; [`StoreError::Internal`] for no head reserved, or one of
    /// another length.
    fn fill_head(&mut self, head: &[u8]) -> Result<(), StoreError>;

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

/// Checks a head to fill against the one reserved (`reserved`, taken).
pub(crate) fn take_head(reserved: &mut Option<usize>, head: &[u8]) -> Result<(), StoreError> {
    match reserved.take() {
        Some(len) if len == head.len() => Ok(()),
        _ => Err(StoreError::Internal {
            what: "a head filled that was not reserved, or at another length",
        }),
    }
}
