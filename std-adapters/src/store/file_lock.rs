//! A [`FileStore`]'s update locks ([`super::update_lock`]): one byte of the array's lock file
//! per chunk, locked on its own open of the file (so threads of one process wait for each
//! other as processes do).

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use super::update_lock::{UpdateLock, retry_for, slot_of};
use super::{FileStore, StoreError};

impl FileStore {
    /// Locks the update of `key` on byte [`slot_of`]`(key)` of the lock file `lock_key`,
    /// waiting at most the store's lock wait.
    pub(super) fn lock_chunk(
        &self,
        (key, lock_key): (&str, &str),
        cancel: Option<&AtomicBool>,
    ) -> Result<UpdateLock, StoreError> {
        let path = self.path_to_write(lock_key)?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(StoreError::Io)?;
        }
        let byte = slot_of(key);
        // A thread that holds this lock already (a selection's chunk, read and then written
        // whole by a write of its own) goes ahead: its outer lock holds the others off.
        let entry = (path.clone(), byte);
        if HELD.with_borrow(|held| held.contains(&entry)) {
            return Ok(UpdateLock::held(()));
        }
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        // Writable by whoever may write the folder's files (the umask decides): writers of a
        // shared folder are other users too, and a write lock needs the file open for writing.
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o666);
        let file = options.open(&path).map_err(|e| lock_failed(&path, e))?;
        let wait = self.lock_wait;
        let taken = retry_for((wait, cancel), || {
            try_lock_byte(&file, byte)
                .map(|taken| taken.then_some(()))
                .map_err(|e| lock_failed(&path, e))
        })?;
        match taken {
            Some(()) => {
                HELD.with_borrow_mut(|held| held.push(entry.clone()));
                Ok(UpdateLock::held(Held { _file: file, entry }))
            }
            None => Err(StoreError::LockWait {
                key: key.to_owned(),
                lock: Box::new((path, byte)),
                waited: wait,
            }),
        }
    }
}

thread_local! {
    /// The update locks this thread holds: (lock file, byte).
    static HELD: std::cell::RefCell<Vec<(PathBuf, u64)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A lock this thread holds: the lock file's open (closing it releases the byte), and its
/// entry in [`HELD`], removed on drop (on this thread: [`UpdateLock`] is not `Send`).
struct Held {
    _file: File,
    entry: (PathBuf, u64),
}

impl Drop for Held {
    fn drop(&mut self) {
        HELD.with_borrow_mut(|held| {
            if let Some(at) = held.iter().position(|e| *e == self.entry) {
                held.swap_remove(at);
            }
        });
    }
}

/// The lock file at `path` could not be locked (a file system without locks: `ENOLCK`).
fn lock_failed(path: &Path, e: std::io::Error) -> StoreError {
    StoreError::Io(std::io::Error::new(
        e.kind(),
        format!("cannot lock {}: {e}", path.display()),
    ))
}

/// Takes a write lock on `byte` of `file` if no other open of it holds one: `false` if one
/// does. Released when `file` closes.
#[cfg(target_os = "linux")]
fn try_lock_byte(file: &File, byte: u64) -> std::io::Result<bool> {
    use nix::errno::Errno;
    use nix::fcntl::{FcntlArg, fcntl};
    use nix::libc;
    let short = |v: libc::c_int| libc::c_short::try_from(v).map_err(std::io::Error::other);
    let start = libc::off_t::try_from(byte).map_err(std::io::Error::other)?;
    let lock = libc::flock {
        l_type: short(libc::F_WRLCK)?,
        l_whence: short(libc::SEEK_SET)?,
        l_start: start,
        l_len: 1,
        // Must be 0 for a lock on an open file description.
        l_pid: 0,
    };
    match fcntl(file, FcntlArg::F_OFD_SETLK(&lock)) {
        Ok(_) => Ok(true),
        Err(Errno::EAGAIN | Errno::EACCES) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Elsewhere the whole lock file: one update of the array at a time.
#[cfg(not(target_os = "linux"))]
fn try_lock_byte(file: &File, _byte: u64) -> std::io::Result<bool> {
    match file.try_lock() {
        Ok(()) => Ok(true),
        Err(std::fs::TryLockError::WouldBlock) => Ok(false),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}
