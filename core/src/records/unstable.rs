//! Unstable in-place sort of records: keys prepared, sorted, restored.

use super::prepared::{prepare_keys, restore_keys, sort_prepared};
use super::{RecordError, RecordLayout};

/// Sorts the records in `bytes` by their key, in place. Equal keys end in no particular order.
///
/// Allocates nothing and keeps no record aside. Three passes: keys rewritten as sort-order
/// integers ([`prepare_keys`]), sorted ([`sort_prepared`]), restored ([`restore_keys`]). See
/// the [module docs](super) for the key order.
///
/// # Errors
/// [`RecordError::PartialRecord`] if `bytes` is not a whole number of records (nothing is
/// moved).
pub fn sort_records_by_key(bytes: &mut [u8], layout: &RecordLayout) -> Result<(), RecordError> {
    prepare_keys(bytes, layout)?;
    sort_prepared(bytes, layout)?;
    restore_keys(bytes, layout)
}
