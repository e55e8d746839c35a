//! The buffer a read fills: for large outputs, anonymous memory asked to be backed by huge
//! pages (as NumPy asks for its large arrays), so that filling 400 MB takes a few hundred page
//! faults instead of a hundred thousand; a plain vector otherwise.

use std::ops::{Deref, DerefMut};

/// Outputs at least this large are mapped (a huge page is 2 MiB).
const MAP_FROM: usize = 4 << 20;

/// A zeroed output buffer.
pub enum OutBuf {
    /// Anonymous memory, zeroed by the kernel as it is first touched.
    Mapped(memmap2::MmapMut),
    /// A vector, for small outputs or where mapping is refused.
    Heap(Vec<u8>),
}

/// A zeroed buffer of `len` bytes, or `None` if neither a mapping nor the allocator gives one.
pub fn zeroed(len: usize) -> Option<OutBuf> {
    if len >= MAP_FROM
        && let Ok(map) = memmap2::MmapMut::map_anon(len)
    {
        // Advice, not a requirement: without huge pages the read is as correct, only slower.
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        return Some(OutBuf::Mapped(map));
    }
    crate::zeroed_buffer(len).map(OutBuf::Heap)
}

impl Deref for OutBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Self::Mapped(m) => m,
            Self::Heap(v) => v,
        }
    }
}

impl DerefMut for OutBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        match self {
            Self::Mapped(m) => m,
            Self::Heap(v) => v,
        }
    }
}
