//! The `bytes` codec: byte order of stored elements, converted in place in the destination.

pub use crate::dtype::Endian;

/// Converts stored elements in `buf` from `stored` byte order to the machine's, in place.
///
/// `unit` is the size of one scalar: the element size, or half of it for complex numbers, whose
/// real and imaginary parts are swapped separately. Sizes of one byte, or data already in the
/// machine's order, are left untouched. A trailing partial unit (which a caller that checked its
/// sizes never passes) is left untouched too, never read past.
pub fn to_native_in_place(buf: &mut [u8], unit: usize, stored: Endian) {
    if unit <= 1 || stored == Endian::NATIVE {
        return;
    }
    match unit {
        2 => swap_all::<2>(buf),
        4 => swap_all::<4>(buf),
        8 => swap_all::<8>(buf),
        _ => buf.chunks_exact_mut(unit).for_each(<[u8]>::reverse),
    }
}

/// Fixed-width swaps let the compiler use byte-swap instructions.
fn swap_all<const N: usize>(buf: &mut [u8]) {
    let (chunks, _) = buf.as_chunks_mut::<N>();
    for c in chunks {
        c.reverse();
    }
}
