//! Reading fuzzer bytes as header fields, then payload; missing bytes read as zero.

/// The fuzzer's bytes, consumed from the front.
pub(crate) struct Input<'a> {
    rest: &'a [u8],
}

impl<'a> Input<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Self { rest: data }
    }

    pub(crate) fn u8(&mut self) -> u8 {
        let (first, rest) = self.rest.split_first().unwrap_or((&0, &[]));
        self.rest = rest;
        *first
    }

    pub(crate) fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    pub(crate) fn u64(&mut self) -> u64 {
        u64::from_le_bytes(std::array::from_fn(|_| self.u8()))
    }

    /// The next `n` bytes (fewer if the input ends).
    pub(crate) fn bytes(&mut self, n: usize) -> &'a [u8] {
        let (head, rest) = self.rest.split_at(n.min(self.rest.len()));
        self.rest = rest;
        head
    }

    /// A `u16`-length-prefixed byte string.
    pub(crate) fn prefixed(&mut self) -> &'a [u8] {
        let n = usize::from(self.u16());
        self.bytes(n)
    }

    pub(crate) fn rest(self) -> &'a [u8] {
        self.rest
    }
}
