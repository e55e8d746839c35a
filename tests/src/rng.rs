//! A small deterministic generator: the same cases on every run.

/// xorshift64 from a nonzero seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (not uniform when `n` does not divide 2^64; the tests do not care).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}
