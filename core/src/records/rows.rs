//! Typed rows (`&mut [[f64; 3]]` and the like) sorted by one column.

use super::{OrderKey, RecordError};

/// Sorts `rows` in place by column `column`, in the same total order as
/// [`sort_records_by_key`](super::sort_records_by_key) (floats: `-0.0` before `+0.0`, NaNs
/// last). Unstable; allocates nothing.
///
/// ```
/// use zinto_core::records::sort_rows_by_column;
///
/// // [spectrum index, m/z, intensity]
/// let mut peaks = [[0.0, 512.3, 9.0], [1.0, 101.7, 2.0], [2.0, f64::NAN, 1.0], [3.0, 250.0, 4.0]];
/// sort_rows_by_column(&mut peaks, 1)?;
/// let order: Vec<f64> = peaks.iter().map(|p| p[0]).collect();
/// assert_eq!(order, [1.0, 3.0, 0.0, 2.0]);
/// # Ok::<(), zinto_core::records::RecordError>(())
/// ```
///
/// # Errors
/// [`RecordError::NoSuchColumn`] if `column >= N` (nothing is moved).
pub fn sort_rows_by_column<T: OrderKey, const N: usize>(
    rows: &mut [[T; N]],
    column: usize,
) -> Result<(), RecordError> {
    if column >= N {
        return Err(RecordError::NoSuchColumn { column, columns: N });
    }
    // `column < N` was checked above, so every row has the column and the fallback `0` is
    // never produced.
    rows.sort_unstable_by_key(|row| {
        let value = row.get(column);
        debug_assert!(value.is_some(), "column checked to be below N");
        value.map_or(0, |v| v.order_key())
    });
    Ok(())
}
