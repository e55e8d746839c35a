//! Buffers a read asks the allocator for, refused instead of aborting the process.

/// A zeroed buffer of `len` bytes, or `None` if the allocator refuses that much, instead of
/// aborting the process. A probe reservation is made and dropped first; the buffer itself is
/// then allocated zeroed, so its pages are only touched as a read writes them.
pub fn zeroed_buffer(len: usize) -> Option<Vec<u8>> {
    Vec::<u8>::new().try_reserve_exact(len).ok()?;
    Some(vec![0u8; len])
}
