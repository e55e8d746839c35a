//! A directory of files, read with positional reads.

use std::fs::File;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use std::ops::ControlFlow;

use super::file_pinned::PinnedFile;
use super::file_read::{blocks_of, failed, not_a_file, read_at};
use super::{Halt, ObjectWriter, Opened, Store, StoreError, UpdateLock, halt_on_break, settle};

/// A store rooted at a directory; key `a/b/c` is the file `root/a/b/c`.
///
/// Reads are positional (`pread`), so concurrent readers never share a file cursor. Keys that
/// would leave the root (`..`, absolute paths) are treated as missing. A directory (or any
/// non-regular file) where a key's file belongs is [`StoreError::NotAFile`], not a missing key:
/// a chunk that reads as missing silently becomes fill values.
///
/// Symbolic links below the root are followed by reads, as a shell follows them, wherever they
/// point; a service reading datasets it did not write turns that off with
/// [`FileStore::without_symlinks`] (docs/security.md). Writes (and deletes) follow a link only
/// where it resolves inside the root: a link out of it is [`StoreError::LinkOutside`], so a
/// write never lands outside the destination it was given (the root itself, the caller's, may
/// be a link). [`FileStore::writing_through_links`] lifts that, as zarr-python's `LocalStore`
/// does not check.
#[derive(Debug, Clone)]
pub struct FileStore {
    root: PathBuf,
    follow_symlinks: bool,
    /// Writes may follow a link out of the root.
    pub(super) writes_leave_root: bool,
    /// Written files are synced to disk before they are renamed into place.
    fsync: bool,
    /// How long a writer waits for another's update lock on a chunk.
    pub(super) lock_wait: std::time::Duration,
}

impl FileStore {
    /// [`Store::read_blocks`], stopping with [`Halt`] where the consumer says so.
    pub(crate) fn blocks(
        &self,
        key: &str,
        offset: u64,
        len: u64,
        buf: &mut [u8],
        each: &mut dyn FnMut(&[u8]) -> Result<(), Halt>,
    ) -> Result<(), Halt> {
        if len == 0 {
            return Ok(());
        }
        let path = self
            .path(key)
            .map_err(Halt::Store)?
            .ok_or(Halt::Store(StoreError::Missing))?;
        let file = File::open(&path).map_err(|e| Halt::Store(failed(key, &path, e)))?;
        blocks_of((key, &path, &file), offset, len, buf, each)
    }

    /// A store over the directory `root`, following symbolic links below it.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            follow_symlinks: true,
            writes_leave_root: false,
            fsync: false,
            lock_wait: super::UPDATE_LOCK_WAIT,
        }
    }

    /// The same store, waiting at most `wait` for another writer's update of a chunk
    /// ([`Store::lock_update`]; [`UPDATE_LOCK_WAIT`](super::UPDATE_LOCK_WAIT) by default)
    /// before it fails with [`StoreError::LockWait`].
    #[must_use]
    pub fn with_lock_wait(mut self, wait: std::time::Duration) -> Self {
        self.lock_wait = wait;
        self
    }

    /// The same store, writing through symbolic links below its root wherever they point, as
    /// zarr-python's `LocalStore` does (its codec pipeline writes through this): by default a
    /// write refuses a link that leads out of the root. Has no effect with
    /// [`FileStore::without_symlinks`], which refuses every link.
    #[must_use]
    pub fn writing_through_links(mut self) -> Self {
        self.writes_leave_root = true;
        self
    }

    /// Whether this store refuses every symbolic link below its root
    /// ([`FileStore::without_symlinks`]).
    pub fn refuses_symlinks(&self) -> bool {
        !self.follow_symlinks
    }

    /// The same store, syncing each written file to disk (and its folder's entry) before it
    /// is renamed into place: a power cut then loses no committed chunk. Off by default, as
    /// for zarr-python; a crash without it still never leaves a torn chunk, only perhaps an
    /// older one.
    #[must_use]
    pub fn with_fsync(mut self) -> Self {
        self.fsync = true;
        self
    }

    /// The same store, refusing every symbolic link below its root (a link as a key's file,
    /// or as a directory on the way to it) with [`StoreError::Symlink`], so that no key reads
    /// or writes outside the root through one. The root itself, the caller's, may be a link. Each key's
    /// path is checked before it is opened: a file replaced by a link between the check and
    /// the open is not caught (that needs `openat` with `O_NOFOLLOW` at every step).
    #[must_use]
    pub fn without_symlinks(mut self) -> Self {
        self.follow_symlinks = false;
        self
    }

    /// The directory this store reads.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file of `key`, or `None` for a key that would leave the root.
    ///
    /// # Errors
    /// [`StoreError::Symlink`] where links are refused and one is on the way.
    pub(super) fn path(&self, key: &str) -> Result<Option<PathBuf>, StoreError> {
        let mut p = self.root.clone();
        let mut exists = true;
        for part in key.split('/').filter(|s| !s.is_empty()) {
            // On Windows a segment with `:` (`C:`, `file:stream`) would leave the root.
            if part == ".."
                || part == "."
                || part.contains('\\')
                || cfg!(windows) && part.contains(':')
            {
                return Ok(None);
            }
            p.push(part);
            if !self.follow_symlinks && exists {
                match std::fs::symlink_metadata(&p) {
                    Ok(m) if m.file_type().is_symlink() => {
                        return Err(StoreError::Symlink {
                            key: key.to_owned(),
                        });
                    }
                    Ok(_) => {}
                    // Nothing further down exists either: the open finds it missing.
                    Err(_) => exists = false,
                }
            }
        }
        Ok(Some(p))
    }
}

/// The length of the file `path` (the object `key`), or `None` if there is none.
fn size_at(key: &str, path: &Path) -> Result<Option<u64>, StoreError> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(Some(m.len())),
        Ok(m) => Err(not_a_file(key, &m)),
        // A key below a file (`notes.txt/zarr.json`) cannot exist: absent, not an error.
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => Ok(None),
        Err(e) => Err(StoreError::Io(e)),
    }
}

impl Store for FileStore {
    fn size(&self, key: &str) -> Result<Option<u64>, StoreError> {
        let Some(path) = self.path(key)? else {
            return Ok(None);
        };
        size_at(key, &path)
    }

    /// One open of the file: its length and every read from the same version of it.
    fn open(&self, key: &str) -> Result<Opened<'_>, StoreError> {
        // Asked first by path, so that a FIFO where a chunk belongs is refused rather than
        // opened (which would wait for a writer); the length is the open file's.
        let Some(path) = self.path(key)? else {
            return Ok(Opened::Absent);
        };
        if size_at(key, &path)?.is_none() {
            return Ok(Opened::Absent);
        }
        let file = match File::open(&path) {
            Ok(file) => file,
            Err(e) => {
                return match failed(key, &path, e) {
                    StoreError::Missing => Ok(Opened::Absent),
                    e => Err(e),
                };
            }
        };
        let m = file.metadata().map_err(StoreError::Io)?;
        if !m.is_file() {
            return Err(not_a_file(key, &m));
        }
        let len = m.len();
        let key = key.to_owned();
        let object = Box::new(PinnedFile {
            key,
            path,
            file,
            len,
        });
        Ok(Opened::Pinned { len, object })
    }

    fn read_into(&self, key: &str, offset: u64, dst: &mut [u8]) -> Result<(), StoreError> {
        let path = self.path(key)?.ok_or(StoreError::Missing)?;
        let file = File::open(&path).map_err(|e| failed(key, &path, e))?;
        read_at(key, &path, &file, offset, dst)
    }

    /// Opens the file once for all the blocks.
    fn read_blocks(
        &self,
        key: &str,
        offset: u64,
        len: u64,
        buf: &mut [u8],
        each: &mut dyn FnMut(&[u8]) -> ControlFlow<()>,
    ) -> Result<(), StoreError> {
        settle(self.blocks(key, offset, len, buf, &mut halt_on_break(each)))
    }

    /// Writes to a temporary name beside the key's file, renamed over it on commit.
    fn writer(&self, key: &str) -> Result<Box<dyn ObjectWriter + '_>, StoreError> {
        let target = self.path_to_write(key)?;
        Ok(Box::new(super::file_write::StagedFile::create(
            target, self.fsync,
        )?))
    }

    /// One byte of the array's lock file ([`LOCK_FILE`](super::LOCK_FILE)), locked by the
    /// operating system on its own open of the file; docs/reliability.md.
    fn lock_update(&self, update: &super::ChunkUpdate<'_>) -> Result<UpdateLock, StoreError> {
        self.lock_chunk((update.in_array, update.lock_key), update.cancel)
    }

    fn serialises_updates(&self) -> bool {
        true
    }

    /// Removes the key's file; nothing if it is absent.
    fn delete(&self, key: &str) -> Result<(), StoreError> {
        let path = self.path_to_write(key)?;
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => Ok(()),
            Err(e) => Err(StoreError::Io(e)),
        }
    }

    /// Removes the directory `prefix` if it is empty; nothing if it holds anything or is
    /// absent.
    fn prune(&self, prefix: &str) -> Result<(), StoreError> {
        let path = self.path_to_write(prefix)?;
        match std::fs::remove_dir(&path) {
            Ok(()) => Ok(()),
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::NotFound | ErrorKind::DirectoryNotEmpty | ErrorKind::NotADirectory
                ) =>
            {
                Ok(())
            }
            Err(e) => Err(StoreError::Io(e)),
        }
    }

    /// The entries of the directory `prefix` (sorted); an empty list if it does not exist.
    /// Names that are not UTF-8 are skipped: no key can name them.
    fn list_dir(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        let Some(path) = self.path(prefix)? else {
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::cast_possible_truncation)]
mod tests {
    use std::ops::ControlFlow;

    use super::{FileStore, Store, StoreError};

    #[test]
    fn read_blocks_streams_a_range_in_order_from_one_open_file() {
        let dir = std::env::temp_dir().join(format!("zinto-blocks-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(dir.join("k"), &data).unwrap();
        let store = FileStore::new(&dir);
        for (offset, len, block) in [(0u64, 10_000u64, 4096usize), (123, 7_000, 1000), (5, 0, 7)] {
            let mut buf = vec![0u8; block];
            let mut got = Vec::new();
            let mut sizes = Vec::new();
            store
                .read_blocks("k", offset, len, &mut buf, &mut |b| {
                    sizes.push(b.len());
                    got.extend_from_slice(b);
                    ControlFlow::Continue(())
                })
                .unwrap();
            let (o, l) = (offset as usize, len as usize);
            assert_eq!(got, data[o..o + l]);
            assert!(sizes.iter().rev().skip(1).all(|&n| n == block));
        }
        // Past the end: a short read naming the file's length; a missing key; a consumer's
        // stop ends the reading there, without an error.
        let mut buf = [0u8; 4096];
        let e = store
            .read_blocks("k", 9_000, 2_000, &mut buf, &mut |_| {
                ControlFlow::Continue(())
            })
            .unwrap_err();
        assert!(
            matches!(e, StoreError::ShortRead { len: 10_000, .. }),
            "{e:?}"
        );
        let e = store
            .read_blocks("nope", 0, 10, &mut buf, &mut |_| ControlFlow::Continue(()))
            .unwrap_err();
        assert!(matches!(e, StoreError::Missing), "{e:?}");
        let mut calls = 0;
        store
            .read_blocks("k", 0, 10_000, &mut buf, &mut |_| {
                calls += 1;
                ControlFlow::Break(())
            })
            .unwrap();
        assert_eq!(calls, 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// An opened file reads the version it opened, its length and bytes alike, after a
    /// writer renamed a new one (longer here) over its name; a new open sees the new one.
    #[test]
    fn an_opened_file_keeps_its_version_when_replaced() {
        use super::Opened;
        let dir = std::env::temp_dir().join(format!("zinto-pinned-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let store = FileStore::new(&dir);
        assert!(matches!(store.open("k").unwrap(), Opened::Absent));
        store.write_from("k", b"old bytes").unwrap();
        let Opened::Pinned { len, object } = store.open("k").unwrap() else {
            panic!("a file store pins what it opens");
        };
        store.write_from("k", b"the new, longer bytes").unwrap();
        assert_eq!((len, object.size("k").unwrap()), (9, Some(9)));
        let mut got = [0u8; 9];
        object.read_into("k", 0, &mut got).unwrap();
        assert_eq!(&got, b"old bytes");
        let mut blocks = Vec::new();
        object
            .read_blocks("k", 4, 5, &mut [0u8; 2], &mut |b| {
                blocks.extend_from_slice(b);
                ControlFlow::Continue(())
            })
            .unwrap();
        assert_eq!(blocks, b"bytes");
        // The pinned object holds one key only.
        assert!(matches!(
            object.read_into("other", 0, &mut got),
            Err(StoreError::Internal { .. })
        ));
        assert!(matches!(
            store.open("k").unwrap(),
            Opened::Pinned { len: 21, .. }
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Keys with `..` or `.` read nothing. Links are followed by default, wherever they point;
    /// `without_symlinks` refuses a link
    /// as a key's file and as a directory on its way, for every kind of access, and still
    /// reads the rest (the root itself may be a link).
    #[cfg(unix)]
    #[test]
    fn symlinks_are_followed_unless_refused() {
        use std::os::unix::fs::symlink;
        let base = std::env::temp_dir().join(format!("zinto-links-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let (root, outside) = (base.join("root"), base.join("outside"));
        std::fs::create_dir_all(root.join("real")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret"), b"outside").unwrap();
        std::fs::write(root.join("real/k"), b"inside").unwrap();
        symlink(outside.join("secret"), root.join("file_link")).unwrap();
        symlink(&outside, root.join("dir_link")).unwrap();
        symlink(&root, base.join("root_link")).unwrap();
        let follows = FileStore::new(&root);
        // A key that would leave the root is missing, whatever is there.
        for key in [
            "../outside/secret",
            "real/../../outside/secret",
            "./real/k",
            "real\\k",
        ] {
            assert_eq!(follows.size(key).unwrap(), None, "{key}");
        }
        assert_eq!(follows.size("file_link").unwrap(), Some(7));
        assert_eq!(follows.size("dir_link/secret").unwrap(), Some(7));
        let strict = FileStore::new(base.join("root_link")).without_symlinks();
        let mut buf = [0u8; 6];
        strict.read_into("real/k", 0, &mut buf).unwrap();
        assert_eq!(&buf, b"inside");
        assert_eq!(strict.size("real/none").unwrap(), None);
        for key in ["file_link", "dir_link/secret", "dir_link"] {
            let refused = |r: Result<(), StoreError>| {
                assert!(matches!(r, Err(StoreError::Symlink { .. })), "{key}: {r:?}");
            };
            refused(strict.size(key).map(|_| ()));
            refused(strict.read_into(key, 0, &mut buf));
            refused(strict.list_dir(key).map(|_| ()));
        }
        std::fs::remove_dir_all(&base).unwrap();
    }
}
