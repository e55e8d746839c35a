//! Writing a [`FileStore`]'s files: each object is written to a temporary name in its own
//! folder and renamed over its key's name when complete (`rename` replaces a file in one step
//! on POSIX and Windows alike), so a crash, a kill or an error never leaves a torn chunk:
//! a key holds its old bytes, its new ones, or nothing.

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::write::{Reservations, write_zeros};
use super::{FileStore, ObjectWriter, StoreError};

/// Tells apart the temporary files of one process's concurrent writers.
static NEXT_TEMP: AtomicU64 = AtomicU64::new(0);

/// A file being written under a temporary name beside `target`.
#[derive(Debug)]
pub(super) struct StagedFile {
    file: Option<File>,
    temp: PathBuf,
    target: PathBuf,
    fsync: bool,
    /// Bytes written so far, and the reservations not yet filled.
    written: u64,
    open: Reservations,
}

impl StagedFile {
    /// Starts writing the file `target` (its folders made as needed).
    pub(super) fn create(target: PathBuf, fsync: bool) -> Result<Self, StoreError> {
        let dir = target.parent().ok_or(StoreError::Internal {
            what: "a key's file with no folder",
        })?;
        std::fs::create_dir_all(dir).map_err(StoreError::Io)?;
        let name = target
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let n = NEXT_TEMP.fetch_add(1, Ordering::Relaxed);
        // A dot first: listings (a group's members) skip hidden names.
        let temp = dir.join(format!(".{name}.{}-{n}.zinto-partial", std::process::id()));
        let file = File::create_new(&temp).map_err(StoreError::Io)?;
        Ok(Self {
            file: Some(file),
            temp,
            target,
            fsync,
            written: 0,
            open: Reservations::default(),
        })
    }
}

impl ObjectWriter for StagedFile {
    fn write(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        let file = self.file.as_mut().ok_or(StoreError::Internal {
            what: "a write after the file was closed",
        })?;
        file.write_all(bytes).map_err(StoreError::Io)?;
        self.written += bytes.len() as u64;
        Ok(())
    }

    fn reserve(&mut self, len: usize) -> Result<u64, StoreError> {
        let offset = self.written;
        write_zeros(self, len)?;
        self.open.open(offset, len);
        Ok(offset)
    }

    fn fill(&mut self, offset: u64, bytes: &[u8]) -> Result<(), StoreError> {
        let file = self.file.as_mut().ok_or(StoreError::Internal {
            what: "bytes filled after the file was closed",
        })?;
        self.open.fill(offset, bytes, || {
            file.seek(SeekFrom::Start(offset)).map_err(StoreError::Io)?;
            file.write_all(bytes).map_err(StoreError::Io)?;
            file.seek(SeekFrom::End(0)).map_err(StoreError::Io)?;
            Ok(())
        })
    }

    fn commit(mut self: Box<Self>) -> Result<(), StoreError> {
        self.open.check_filled()?;
        let file = self.file.take().ok_or(StoreError::Internal {
            what: "a file committed twice",
        })?;
        if self.fsync {
            file.sync_all().map_err(StoreError::Io)?;
        }
        drop(file);
        std::fs::rename(&self.temp, &self.target).map_err(StoreError::Io)?;
        if self.fsync {
            sync_dir(&self.target)?;
        }
        // Renamed: nothing is left to remove.
        self.temp = PathBuf::new();
        Ok(())
    }
}

impl Drop for StagedFile {
    /// An uncommitted file is removed; its key keeps what it held.
    fn drop(&mut self) {
        drop(self.file.take());
        if !self.temp.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

/// Makes a rename in `path`'s folder durable (POSIX: the folder's entry is synced itself).
fn sync_dir(path: &Path) -> Result<(), StoreError> {
    #[cfg(unix)]
    if let Some(dir) = path.parent() {
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(StoreError::Io)?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

impl FileStore {
    /// The file of `key` for writing: refused where the key cannot name one inside the root,
    /// and where a symbolic link on its way (or the key's file itself) leads out of the root,
    /// unless the store writes through links ([`FileStore::writing_through_links`]).
    pub(super) fn path_to_write(&self, key: &str) -> Result<PathBuf, StoreError> {
        let path = match self.path(key)? {
            Some(p) if key.split('/').any(|s| !s.is_empty()) => p,
            _ => {
                return Err(StoreError::BadKey {
                    key: key.to_owned(),
                });
            }
        };
        if !self.writes_leave_root {
            self.no_link_out(key, &path)?;
        }
        Ok(path)
    }

    /// Refuses a symbolic link below the root on the way to `path` (the file of `key`),
    /// `path` itself included, that resolves outside the root. Each existing step is looked at
    /// with `lstat`; the root is resolved only when a link is found. As for reads, a step
    /// replaced by a link between this check and the write is not caught.
    fn no_link_out(&self, key: &str, path: &Path) -> Result<(), StoreError> {
        let below = path
            .strip_prefix(self.root())
            .map_err(|_| StoreError::Internal {
                what: "a key's file outside its store's root",
            })?;
        let mut step = self.root().to_path_buf();
        let mut root = None;
        for part in below.components() {
            step.push(part);
            match std::fs::symlink_metadata(&step) {
                Ok(m) if m.file_type().is_symlink() => {}
                Ok(_) => continue,
                // Nothing further down exists: the write makes it, inside.
                Err(_) => return Ok(()),
            }
            let root = match &root {
                Some(r) => r,
                None => root.insert(std::fs::canonicalize(self.root()).map_err(StoreError::Io)?),
            };
            // A dangling link resolves to nothing: a write would make its target, wherever.
            let target = std::fs::canonicalize(&step).ok();
            if !target
                .as_ref()
                .is_some_and(|t| t.starts_with(root.as_path()))
            {
                let target = std::fs::read_link(&step).ok();
                return Err(StoreError::LinkOutside {
                    key: key.to_owned(),
                    link: Box::new((step, target)),
                });
            }
        }
        Ok(())
    }
}
