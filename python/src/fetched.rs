//! Chunks zarr-python fetched from a store zinto does not address (a MemoryStore, a ZipStore,
//! an fsspec store), held as the Python `bytes` objects they came in: no copy of a chunk's
//! stored bytes is made before zinto decodes them into the output.

use std::collections::HashMap;

use pyo3::pybacked::PyBackedBytes;
use zinto::{Store, StoreError, read_from_bytes};

/// The fetched chunks by key, read-only.
pub struct Fetched {
    objects: HashMap<String, PyBackedBytes>,
}

impl Fetched {
    pub fn new(objects: HashMap<String, PyBackedBytes>) -> Self {
        Self { objects }
    }
}

impl Store for Fetched {
    fn size(&self, key: &str) -> Result<Option<u64>, StoreError> {
        Ok(self.objects.get(key).map(|b| b.len() as u64))
    }

    fn read_into(&self, key: &str, offset: u64, dst: &mut [u8]) -> Result<(), StoreError> {
        let obj = self.objects.get(key).ok_or(StoreError::Missing)?;
        read_from_bytes(obj, offset, dst)
    }
}
