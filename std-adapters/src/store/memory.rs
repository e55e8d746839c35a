//! An in-memory store, for tests and for data already in memory.

use std::collections::HashMap;

use std::sync::{Arc, RwLock};

use super::write::{Reservations, write_zeros};
use super::{ObjectWriter, Store, StoreError};

/// Keys and their bytes, in memory. Written through [`Store::writer`] (a writer's bytes
/// become visible at commit, as in a file store) or [`MemoryStore::insert`].
#[derive(Debug, Default)]
pub struct MemoryStore {
    objects: RwLock<HashMap<String, Arc<[u8]>>>,
}

impl Clone for MemoryStore {
    fn clone(&self) -> Self {
        Self {
            objects: RwLock::new(self.read().clone()),
        }
    }
}

/// Fills `dst` with `object[offset..offset + dst.len()]`: [`Store::read_into`] for a store
/// that holds its objects as bytes in memory.
///
/// # Errors
/// [`StoreError::ShortRead`] if `object` ends before `offset + dst.len()`.
pub fn read_from_bytes(object: &[u8], offset: u64, dst: &mut [u8]) -> Result<(), StoreError> {
    let src = usize::try_from(offset)
        .ok()
        .and_then(|start| object.get(start..start.checked_add(dst.len())?))
        .ok_or(StoreError::ShortRead {
            offset,
            wanted: dst.len() as u64,
            len: object.len() as u64,
        })?;
    dst.copy_from_slice(src);
    Ok(())
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, HashMap<String, Arc<[u8]>>> {
        // A writer that panicked leaves the map as it was: its object was never inserted.
        self.objects
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, HashMap<String, Arc<[u8]>>> {
        self.objects
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Sets `key` to `bytes`.
    pub fn insert(&mut self, key: impl Into<String>, bytes: impl Into<Vec<u8>>) {
        let bytes: Vec<u8> = bytes.into();
        self.write().insert(key.into(), bytes.into());
    }

    /// Removes `key`, returning its bytes.
    pub fn remove(&mut self, key: &str) -> Option<Vec<u8>> {
        self.write().remove(key).map(|b| b.to_vec())
    }

    /// Removes `key` and hands over its bytes as they are held (no copy, unlike
    /// [`MemoryStore::remove`]); through a shared reference, so a store behind an `Arc` can
    /// be emptied object by object.
    pub fn take(&self, key: &str) -> Option<Arc<[u8]>> {
        self.write().remove(key)
    }

    /// The bytes of `key` (shared: the store keeps them too).
    pub fn get(&self, key: &str) -> Option<Arc<[u8]>> {
        self.read().get(key).cloned()
    }

    /// Every key, sorted.
    pub fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self.read().keys().cloned().collect();
        keys.sort_unstable();
        keys
    }
}

/// An object being written into a [`MemoryStore`]: its bytes gather here until the commit.
struct MemoryWriter<'a> {
    store: &'a MemoryStore,
    key: String,
    bytes: Vec<u8>,
    /// The reservations not yet filled.
    open: Reservations,
}

impl ObjectWriter for MemoryWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        self.bytes
            .try_reserve(bytes.len())
            .map_err(|_| StoreError::Io(std::io::Error::from(std::io::ErrorKind::OutOfMemory)))?;
        self.bytes.extend_from_slice(bytes);
        Ok(())
    }

    fn reserve(&mut self, len: usize) -> Result<u64, StoreError> {
        let offset = self.bytes.len() as u64;
        write_zeros(self, len)?;
        self.open.open(offset, len);
        Ok(offset)
    }

    fn fill(&mut self, offset: u64, bytes: &[u8]) -> Result<(), StoreError> {
        self.open.fill_held((&mut self.bytes, 0), offset, bytes)
    }

    fn commit(self: Box<Self>) -> Result<(), StoreError> {
        self.open.check_filled()?;
        let Self {
            store, key, bytes, ..
        } = *self;
        store.write().insert(key, bytes.into());
        Ok(())
    }
}

impl Store for MemoryStore {
    fn size(&self, key: &str) -> Result<Option<u64>, StoreError> {
        Ok(self.read().get(key).map(|v| v.len() as u64))
    }

    fn read_into(&self, key: &str, offset: u64, dst: &mut [u8]) -> Result<(), StoreError> {
        let objects = self.read();
        let obj = objects.get(key).ok_or(StoreError::Missing)?;
        read_from_bytes(obj, offset, dst)
    }

    fn writer(&self, key: &str) -> Result<Box<dyn ObjectWriter + '_>, StoreError> {
        Ok(Box::new(MemoryWriter {
            store: self,
            key: key.to_owned(),
            bytes: Vec::new(),
            open: Reservations::default(),
        }))
    }

    fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.write().remove(key);
        Ok(())
    }

    fn list_dir(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        let prefix = prefix.trim_matches('/');
        let objects = self.read();
        let mut names: Vec<String> = objects
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

#[cfg(test)]
mod tests {
    use super::{StoreError, read_from_bytes};

    /// A range inside the object is copied; one that ends past it, or whose end overflows, is
    /// a short read naming what was asked, and `dst` is left as it was.
    #[test]
    fn read_from_bytes_copies_a_range_or_names_a_short_read() {
        let object = [1u8, 2, 3, 4, 5];
        let mut dst = [0u8; 2];
        assert!(read_from_bytes(&object, 3, &mut dst).is_ok());
        assert_eq!(dst, [4, 5]);
        for offset in [4, 6, u64::MAX] {
            let mut dst = [9u8; 2];
            let got = read_from_bytes(&object, offset, &mut dst);
            assert!(
                matches!(
                    got,
                    Err(StoreError::ShortRead { offset: o, wanted: 2, len: 5 }) if o == offset
                ),
                "{offset}: {got:?}"
            );
            assert_eq!(dst, [9, 9]);
        }
    }
}
