//! A directory of files, read with positional reads.

use std::fs::File;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use super::{Store, StoreError};

/// A store rooted at a directory; key `a/b/c` is the file `root/a/b/c`.
///
/// Reads are positional (`pread`), so concurrent readers never share a file cursor. Keys that
/// would leave the root (`..`, absolute paths) are treated as missing. A directory (or any
/// non-regular file) where a key's file belongs is [`StoreError::NotAFile`], not a missing key:
/// a chunk that reads as missing silently becomes fill values.
#[derive(Debug, Clone)]
pub struct FileStore {
    root: PathBuf,
}

impl FileStore {
    /// A store over the directory `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The directory this store reads.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn path(&self, key: &str) -> Option<PathBuf> {
        let mut p = self.root.clone();
        for part in key.split('/').filter(|s| !s.is_empty()) {
            if part == ".." || part == "." || part.contains('\\') {
                return None;
            }
            p.push(part);
        }
        Some(p)
    }
}

fn not_a_file(key: &str, m: &std::fs::Metadata) -> StoreError {
    StoreError::NotAFile {
        key: key.to_owned(),
        directory: m.is_dir(),
    }
}

/// Why `path` (the file of `key`) could not be opened or read: missing, not a file (a directory
/// opens on Unix but fails to read; on Windows it fails to open), or the I/O error itself.
fn failed(key: &str, path: &Path, e: std::io::Error) -> StoreError {
    if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) {
        return StoreError::Missing;
    }
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => not_a_file(key, &m),
        _ => StoreError::Io(e),
    }
}

impl Store for FileStore {
    fn size(&self, key: &str) -> Result<Option<u64>, StoreError> {
        let Some(path) = self.path(key) else {
            return Ok(None);
        };
        match std::fs::metadata(&path) {
            Ok(m) if m.is_file() => Ok(Some(m.len())),
            Ok(m) => Err(not_a_file(key, &m)),
            // A key below a file (`notes.txt/zarr.json`) cannot exist: absent, not an error.
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                Ok(None)
            }
            Err(e) => Err(StoreError::Io(e)),
        }
    }

    fn read_into(&self, key: &str, offset: u64, dst: &mut [u8]) -> Result<(), StoreError> {
        let path = self.path(key).ok_or(StoreError::Missing)?;
        let file = File::open(&path).map_err(|e| failed(key, &path, e))?;
        match read_exact_at(&file, dst, offset) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::UnexpectedEof => {
                let len = file.metadata().map_err(|e| failed(key, &path, e))?.len();
                Err(StoreError::ShortRead {
                    offset,
                    wanted: dst.len() as u64,
                    len,
                })
            }
            Err(e) => Err(failed(key, &path, e)),
        }
    }

    /// The entries of the directory `prefix` (sorted); an empty list if it does not exist.
    /// Names that are not UTF-8 are skipped: no key can name them.
    fn list_dir(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        let Some(path) = self.path(prefix) else {
            return Ok(vec![]);
        };
        let entries = match std::fs::read_dir(&path) {
            Ok(entries) => entries,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(vec![]),
            Err(e) => return Err(StoreError::Io(e)),
        };
        let mut names = vec![];
        for entry in entries {
            let entry = entry.map_err(StoreError::Io)?;
            if let Ok(name) = entry.file_name().into_string() {
                names.push(name);
            }
        }
        names.sort_unstable();
        Ok(names)
    }
}

#[cfg(unix)]
fn read_exact_at(file: &File, dst: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, dst, offset)
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut dst: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !dst.is_empty() {
        match file.seek_read(dst, offset) {
            Ok(0) => return Err(ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                dst = &mut dst[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
