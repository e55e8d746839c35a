//! Where each of a list of variable-size pieces starts when they are laid end to end.

use crate::LayoutError;

/// Turns piece sizes into the offsets where each piece starts, in place, and returns the total.
///
/// With the decoded sizes of a list of chunks (see
/// [`decoded_len`](crate::codec::decoded_len)), this is the whole plan for concatenating them
/// into one exact buffer: piece `i` goes to `offsets[i]..offsets[i] + size[i]`.
///
/// ```
/// let mut sizes = [24u64, 0, 48, 24];
/// let total = zinto_core::sizes_to_offsets(&mut sizes)?;
/// assert_eq!(sizes, [0, 24, 24, 72]);
/// assert_eq!(total, 96);
/// # Ok::<(), zinto_core::LayoutError>(())
/// ```
///
/// # Errors
/// [`LayoutError::Overflow`] if the total does not fit in a `u64` (`sizes` is then left
/// partly converted).
pub fn sizes_to_offsets(sizes: &mut [u64]) -> Result<u64, LayoutError> {
    let mut at = 0u64;
    for size in sizes {
        let next = at.checked_add(*size).ok_or(LayoutError::Overflow)?;
        *size = at;
        at = next;
    }
    Ok(at)
}
