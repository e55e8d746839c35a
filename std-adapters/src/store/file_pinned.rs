//! One file of a [`FileStore`](super::FileStore) held open: a reader that reads a chunk in
//! several requests (a shard's index, then its inner chunks; a raw chunk run by run) reads one
//! version of it, the one open, while writers rename new versions over its name.

use std::fs::File;
use std::ops::ControlFlow;
use std::path::PathBuf;

use super::{Store, StoreError, halt_on_break, settle};

/// The open file of `key`, `len` bytes long when opened (a file is replaced by a rename, never
/// rewritten in place, so its length stays).
#[derive(Debug)]
pub(super) struct PinnedFile {
    pub(super) key: String,
    pub(super) path: PathBuf,
    pub(super) file: File,
    pub(super) len: u64,
}

impl PinnedFile {
    /// Refuses a key other than the pinned one (a bug in zinto: a reader of one chunk asking
    /// for another).
    fn check(&self, key: &str) -> Result<(), StoreError> {
        match key == self.key {
            true => Ok(()),
            false => Err(StoreError::Internal {
                what: "a pinned object read under another key",
            }),
        }
    }
}

impl Store for PinnedFile {
    fn size(&self, key: &str) -> Result<Option<u64>, StoreError> {
        self.check(key).map(|()| Some(self.len))
    }

    fn read_into(&self, key: &str, offset: u64, dst: &mut [u8]) -> Result<(), StoreError> {
        self.check(key)?;
        super::file_read::read_at(key, &self.path, &self.file, offset, dst)
    }

    fn read_blocks(
        &self,
        key: &str,
        offset: u64,
        len: u64,
        buf: &mut [u8],
        each: &mut dyn FnMut(&[u8]) -> ControlFlow<()>,
    ) -> Result<(), StoreError> {
        self.check(key)?;
        let file = (key, self.path.as_path(), &self.file);
        settle(super::file_read::blocks_of(
            file,
            offset,
            len,
            buf,
            &mut halt_on_break(each),
        ))
    }
}
