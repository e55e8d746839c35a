//! Metadata documents in a store: how large one may be, where it is, reading one.

use crate::error::{ErrorKind, MetadataError};
use crate::store::{SmallReadError, Store, read_small};

/// Metadata documents larger than this are refused rather than read (they are a few KB).
pub(crate) const MAX_METADATA_LEN: u64 = 16 << 20;
/// Documents that may hold a whole hierarchy's consolidated metadata get more room.
pub(crate) const MAX_CONSOLIDATED_LEN: u64 = 256 << 20;

/// `name` under `path`.
pub(crate) fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}/{name}")
    }
}

/// [`read_small`] as an [`ErrorKind`].
pub(crate) fn read_doc<S: Store + ?Sized>(
    store: &S,
    key: &str,
    max: u64,
) -> Result<Option<Vec<u8>>, ErrorKind> {
    read_small(store, key, max).map_err(|e| match e {
        SmallReadError::Store(e) => ErrorKind::Store(e),
        SmallReadError::TooLarge { len, max } => ErrorKind::Metadata(MetadataError::Invalid(
            format!("{key} is {len} bytes, more than the {max} allowed for it"),
        )),
    })
}
