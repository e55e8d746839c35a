//! An in-memory store, for tests and for data already in memory.

use std::collections::HashMap;

use super::{Store, StoreError};

/// Keys and their bytes, in memory.
#[derive(Debug, Clone, Default)]
pub struct MemoryStore {
    objects: HashMap<String, Vec<u8>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `key` to `bytes`.
    pub fn insert(&mut self, key: impl Into<String>, bytes: impl Into<Vec<u8>>) {
        self.objects.insert(key.into(), bytes.into());
    }

    /// Removes `key`, returning its bytes.
    pub fn remove(&mut self, key: &str) -> Option<Vec<u8>> {
        self.objects.remove(key)
    }

    /// The bytes of `key`.
    pub fn get(&self, key: &str) -> Option<&[u8]> {
        self.objects.get(key).map(Vec::as_slice)
    }

    /// Every key.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.objects.keys().map(String::as_str)
    }
}

impl Store for MemoryStore {
    fn size(&self, key: &str) -> Result<Option<u64>, StoreError> {
        Ok(self.objects.get(key).map(|v| v.len() as u64))
    }

    fn read_into(&self, key: &str, offset: u64, dst: &mut [u8]) -> Result<(), StoreError> {
        let obj = self.objects.get(key).ok_or(StoreError::Missing)?;
        let short = StoreError::ShortRead {
            offset,
            wanted: dst.len() as u64,
            len: obj.len() as u64,
        };
        let start = usize::try_from(offset).map_err(|_| short)?;
        let src = start
            .checked_add(dst.len())
            .and_then(|end| obj.get(start..end));
        match src {
            Some(src) => {
                dst.copy_from_slice(src);
                Ok(())
            }
            None => Err(StoreError::ShortRead {
                offset,
                wanted: dst.len() as u64,
                len: obj.len() as u64,
            }),
        }
    }

    fn list_dir(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        let prefix = prefix.trim_matches('/');
        let mut names: Vec<String> = self
            .objects
            .keys()
            .filter_map(|k| {
                if prefix.is_empty() {
                    Some(k.as_str())
                } else {
                    k.strip_prefix(prefix)?.strip_prefix('/')
                }
            })
            .filter_map(|rest| rest.split('/').next())
            .filter(|name| !name.is_empty())
            .map(str::to_owned)
            .collect();
        names.sort_unstable();
        names.dedup();
        Ok(names)
    }
}
