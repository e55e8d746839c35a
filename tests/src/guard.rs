//! A destination slice with guard bytes on both sides, checked after use.

/// Guard bytes on each side.
const GUARD: usize = 64;
/// The guard pattern.
const PATTERN: u8 = 0xA5;

/// `len` bytes for a decoder, inside a buffer whose surrounding bytes are checked afterwards.
#[derive(Debug)]
pub struct Guarded {
    buf: Vec<u8>,
    len: usize,
}

impl Guarded {
    /// A zeroed destination of `len` bytes between two guards.
    pub fn new(len: usize) -> Self {
        let mut buf = vec![PATTERN; len + 2 * GUARD];
        buf[GUARD..GUARD + len].fill(0);
        Self { buf, len }
    }

    /// The destination.
    pub fn dst(&mut self) -> &mut [u8] {
        &mut self.buf[GUARD..GUARD + self.len]
    }

    /// The destination, read-only.
    pub fn bytes(&self) -> &[u8] {
        &self.buf[GUARD..GUARD + self.len]
    }

    /// Asserts that nothing wrote outside the destination.
    pub fn check(&self) {
        let (before, rest) = self.buf.split_at(GUARD);
        let after = &rest[self.len..];
        assert!(
            before.iter().chain(after).all(|&b| b == PATTERN),
            "a guard byte around the destination was overwritten"
        );
    }
}
