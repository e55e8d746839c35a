//! Stores that read a key's bytes straight into the caller's slice.

#[cfg(feature = "remote")]
mod budget;
#[cfg(feature = "remote")]
mod fail_fast;
#[cfg(feature = "remote")]
pub(crate) mod fetch;
mod file;
mod file_lock;
mod file_pinned;
mod file_read;
mod file_write;
mod memory;
mod read_ahead;
#[cfg(feature = "remote")]
mod remote;
mod update_lock;
mod write;

#[cfg(feature = "remote")]
pub use fetch::{FRAMES_AHEAD, SPAN_GAP};
pub use file::FileStore;
pub use memory::{MemoryStore, read_from_bytes};
pub use read_ahead::{
    FetchOrder, FirstBytes, PieceSource, READ_AHEAD_MIN, READ_AHEAD_SHARE, ReadAhead,
    ReadAheadBudget,
};
pub use read_ahead::{REMOTE_WORKERS_MIN, REMOTE_WORKERS_PER_CORE};
#[cfg(feature = "remote")]
pub use remote::{PART_LEN, RemoteOptions, RemoteStore, is_remote_url, objects};
pub(crate) use update_lock::backoff as update_backoff;
pub use update_lock::{ChunkUpdate, LOCK_FILE, UPDATE_LOCK_WAIT, UPDATE_TRIES, UpdateLock};
pub use write::ObjectWriter;

use std::fmt;

use std::ops::ControlFlow;

/// A key-value store of byte objects, read into buffers the caller owns.
///
/// Small on purpose: the size of a key, and an exact read of a byte range into `&mut [u8]`.
/// An HTTP or object-store backend needs nothing more. Implementations must be `Sync`: worker
/// threads read disjoint keys (or ranges) concurrently.
pub trait Store: Send + Sync {
    /// The length of `key` in bytes, or `None` if the key does not exist.
    ///
    /// # Errors
    /// [`StoreError::NotAFile`] if something other than an object is where `key` belongs (a
    /// directory, for a file store): that is corrupt storage, not a missing key.
    /// [`StoreError::Io`] if the store cannot be asked (I/O error other than "not found").
    fn size(&self, key: &str) -> Result<Option<u64>, StoreError>;

    /// Fills `dst` with the bytes of `key` starting at `offset`: exactly `dst.len()` of them.
    ///
    /// # Errors
    /// [`StoreError::Missing`] if the key does not exist, [`StoreError::NotAFile`] if something
    /// other than an object is there, [`StoreError::ShortRead`] if it ends before
    /// `offset + dst.len()`, [`StoreError::Io`] otherwise.
    fn read_into(&self, key: &str, offset: u64, dst: &mut [u8]) -> Result<(), StoreError>;

    /// Reads `key[offset..offset + len]` in order, in blocks of `buf.len()` bytes (the last one
    /// shorter), handing each to `each` before reading the next: for a caller streaming one
    /// object through a decoder. Each block is exactly `min(buf.len(), bytes left)` long (a
    /// caller may rely on the first holding the object's first bytes: a header). A store may open the object once for all its blocks
    /// ([`FileStore`] does); the default reads each block with [`Store::read_into`]. Nothing is
    /// read for `len` 0.
    ///
    /// `each` says after each block whether to go on: [`ControlFlow::Break`] ends the read
    /// there, with `Ok` (the consumer keeps its own reason; statuses are not errors).
    ///
    /// # Errors
    /// As [`Store::read_into`]; [`StoreError::Internal`] for an empty `buf` with bytes to
    /// read.
    fn read_blocks(
        &self,
        key: &str,
        offset: u64,
        len: u64,
        buf: &mut [u8],
        each: &mut dyn FnMut(&[u8]) -> ControlFlow<()>,
    ) -> Result<(), StoreError> {
        let mut at = 0u64;
        while at < len {
            let block = next_block(buf, len - at)?;
            self.read_into(key, offset + at, block)?;
            if each(block).is_break() {
                return Ok(());
            }
            at += block.len() as u64;
        }
        Ok(())
    }

    /// The whole object `key` if it exists and is at most `max` bytes (metadata, attributes):
    /// `Ok(None)` if it does not exist. The default asks [`Store::size`] first, then reads;
    /// a remote store does both in one request.
    ///
    /// # Errors
    /// [`StoreError::TooLarge`] if it is larger than `max` (no buffer is sized by a store's
    /// word beyond `max`); as [`Store::read_into`] otherwise.
    fn read_whole(&self, key: &str, max: u64) -> Result<Option<Vec<u8>>, StoreError> {
        let Some(len) = self.size(key)? else {
            return Ok(None);
        };
        if len > max {
            return Err(StoreError::TooLarge { len, max });
        }
        let len = usize::try_from(len).map_err(|_| StoreError::TooLarge { len, max })?;
        let mut buf = vec![0u8; len];
        match self.read_into(key, 0, &mut buf) {
            Ok(()) => Ok(Some(buf)),
            Err(StoreError::Missing) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The object `key` as it stands now, for a reader that reads it in several requests (a
    /// shard's index, then its inner chunks): [`Opened::Pinned`] where the store can keep
    /// reading that one version while a writer replaces the key ([`FileStore`]: one open
    /// file), so the length and every byte read come from the same object. The default asks
    /// [`Store::size`] and answers [`Opened::Unpinned`].
    ///
    /// # Errors
    /// As [`Store::size`].
    fn open(&self, key: &str) -> Result<Opened<'_>, StoreError> {
        Ok(match self.size(key)? {
            None => Opened::Absent,
            Some(len) => Opened::Unpinned { len },
        })
    }

    /// The object `key` afresh, for a read started again because the object changed between
    /// two of its requests ([`StoreError::Changed`]). The default is [`Store::open`]; a remote
    /// store reads an object of at most [`REREAD_WHOLE_MAX`] bytes whole, in one request (one
    /// version, whatever writers do meanwhile), and pins a larger one by its ETag again.
    ///
    /// # Errors
    /// As [`Store::open`].
    fn reopen(&self, key: &str) -> Result<Opened<'_>, StoreError> {
        self.open(key)
    }

    /// The bytes of stored objects this store holds in memory: what keeping it costs (an
    /// object a remote store read whole, [`Store::reopen`]). The default is none (a file held
    /// open, a store that reads each request afresh).
    fn bytes_held(&self) -> u64 {
        0
    }

    /// Says that the byte ranges `ranges` of `key` are about to be read, in this order (the
    /// inner chunks of a shard a piece needs, once its index is read): a remote store fetches
    /// them with as few requests as it can. A hint; the default ignores it.
    fn will_read(&self, key: &str, ranges: &[std::ops::Range<u64>]) {
        let _ = (key, ranges);
    }

    /// The store's read-ahead side, if it has one ([`ReadAhead`]): reads of an array then
    /// fetch many chunks ahead of the decoding workers (a remote store's fetch stage) instead
    /// of one blocking request per chunk per worker. `None` by default.
    fn read_ahead(&self) -> Option<&dyn ReadAhead> {
        None
    }

    /// The names one level below `prefix` (`""` for the root, else a key prefix without the
    /// trailing `/`): objects and deeper prefixes alike, sorted, each once. Used to list a
    /// group's members when it has no consolidated metadata.
    ///
    /// # Errors
    /// [`StoreError::ListingUnsupported`] by default: a store that cannot list (plain HTTP)
    /// says so rather than answering "nothing here". [`StoreError::Io`] if listing fails.
    fn list_dir(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        let _ = prefix;
        Err(StoreError::ListingUnsupported)
    }

    /// A writer of the object `key`, replacing any object there once committed
    /// ([`ObjectWriter`]).
    ///
    /// # Errors
    /// [`StoreError::ReadOnly`] by default: a store that cannot write says so.
    fn writer(&self, key: &str) -> Result<Box<dyn ObjectWriter + '_>, StoreError> {
        let _ = key;
        Err(StoreError::ReadOnly)
    }

    /// Writes `bytes` as the object `key` in one step: [`Store::writer`], one write, commit.
    ///
    /// # Errors
    /// As [`Store::writer`] and [`ObjectWriter::write`].
    fn write_from(&self, key: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let mut w = self.writer(key)?;
        w.write(bytes)?;
        w.commit()
    }

    /// Guards the update `update` (a chunk or shard that a write reads, merges into and
    /// replaces) from every other writer's until the returned lock drops: threads, processes,
    /// and (where the store says so) machines. A [`FileStore`] holds the others off with a
    /// lock; a [`RemoteStore`] on S3, GCS or Azure makes this
    /// thread's write of the chunk conditional on the version it finds now
    /// ([`UpdateLock::is_conditional`]). The default guards nothing
    /// ([`UpdateLock::unguarded`]): a store that cannot says so that way, and its partial
    /// writes are not safe from each other (docs/reliability.md).
    ///
    /// # Errors
    /// [`StoreError::LockWait`] if another writer held it past the store's wait; the store's
    /// error if the lock cannot be taken at all.
    fn lock_update(&self, update: &ChunkUpdate<'_>) -> Result<UpdateLock, StoreError> {
        let _ = update;
        Ok(UpdateLock::unguarded())
    }

    /// Whether [`Store::lock_update`] guards other writers' updates (a [`FileStore`]; a
    /// remote store with conditional writes): where it does not (plain HTTP), writers of
    /// different parts of one chunk at once may lose each other's parts. `false` by default.
    fn serialises_updates(&self) -> bool {
        false
    }

    /// Removes the object `key`; nothing if it is absent.
    ///
    /// # Errors
    /// [`StoreError::ReadOnly`] by default; the store's error otherwise.
    fn delete(&self, key: &str) -> Result<(), StoreError> {
        let _ = key;
        Err(StoreError::ReadOnly)
    }

    /// Removes the folder `prefix` if nothing is left in it (after its objects were deleted):
    /// a file store's folders outlive their files, an object store has no empty prefixes.
    /// Nothing by default.
    ///
    /// # Errors
    /// The store's error, if it has folders and one cannot be removed for another reason
    /// than holding something.
    fn prune(&self, prefix: &str) -> Result<(), StoreError> {
        let _ = prefix;
        Ok(())
    }
}

/// How many times a chunk is read before it fails with [`StoreError::Changed`]: a writer
/// replaced it between two requests of the read every time (a store that cannot hold one
/// version open, an object store, checks each request against the version the first saw).
pub const READ_TRIES: u32 = 20;

/// An object of at most this many bytes that changed during a read of it is read again whole,
/// in one request ([`Store::reopen`] of a remote store), into memory: one version, however
/// often writers replace it. A larger one is read again in several requests pinned by its
/// ETag, and may change again.
pub const REREAD_WHOLE_MAX: u64 = 8 << 20;

/// An object as [`Store::open`] found it.
pub enum Opened<'s> {
    /// The key does not exist.
    Absent,
    /// One version of the object, `len` bytes: `object` reads it under the same key (and no
    /// other) however often the key is replaced meanwhile.
    Pinned {
        /// Its length.
        len: u64,
        /// A store of that one object.
        object: Box<dyn Store + 's>,
    },
    /// The object's length when asked; reads go to the store, and may meet a newer version.
    Unpinned {
        /// Its length.
        len: u64,
    },
}

/// The part of `buf` the next block of [`Store::read_blocks`] fills, `left` bytes being left.
pub(crate) fn next_block(buf: &mut [u8], left: u64) -> Result<&mut [u8], StoreError> {
    if buf.is_empty() {
        return Err(StoreError::Internal {
            what: "a block read into an empty buffer",
        });
    }
    let n = usize::try_from(left).unwrap_or(usize::MAX).min(buf.len());
    buf.get_mut(..n).ok_or(StoreError::Internal {
        what: "a block longer than its buffer",
    })
}

/// Reads the object `key` whole if it exists and is at most `max` bytes (metadata, attributes):
/// `Ok(None)` if it does not exist, [`SmallReadError::TooLarge`] if it is larger, so that no
/// buffer is sized by a store's word beyond `max`.
pub(crate) fn read_small<S: Store + ?Sized>(
    store: &S,
    key: &str,
    max: u64,
) -> Result<Option<Vec<u8>>, SmallReadError> {
    match store.read_whole(key, max) {
        Ok(found) => Ok(found),
        Err(StoreError::TooLarge { len, max }) => Err(SmallReadError::TooLarge { len, max }),
        Err(e) => Err(SmallReadError::Store(e)),
    }
}

/// Why [`read_small`] failed.
#[derive(Debug)]
pub(crate) enum SmallReadError {
    /// The store failed.
    Store(StoreError),
    /// The object is larger than allowed.
    TooLarge {
        /// Its size.
        len: u64,
        /// The bound.
        max: u64,
    },
}

/// Why a store could not serve a read.
#[derive(Debug)]
#[non_exhaustive]
pub enum StoreError {
    /// The key does not exist.
    Missing,
    /// The object is shorter than the range asked for.
    ShortRead {
        /// First byte asked for.
        offset: u64,
        /// Bytes asked for.
        wanted: u64,
        /// Length of the object.
        len: u64,
    },
    /// Something other than an object is where the key belongs (for a file store, a directory
    /// or a special file where a chunk or metadata file should be). Corrupt storage: reading it
    /// as missing would silently give fill values.
    NotAFile {
        /// The key, as asked for.
        key: String,
        /// It is a directory (else another kind of non-regular file).
        directory: bool,
    },
    /// This store cannot list its keys (a plain HTTP server, for one).
    ListingUnsupported,
    /// This store cannot write (a remote store, for now; a store made for reading).
    ReadOnly,
    /// A key no object of this store can have (for a file store, one with a `..` or `.`
    /// segment, a backslash, or on Windows a `:`): refused rather than written elsewhere.
    BadKey {
        /// The key, as given.
        key: String,
    },
    /// A symbolic link where a key's file or a directory on its way belongs, in a
    /// [`FileStore`] that refuses them ([`FileStore::without_symlinks`]).
    ///
    /// [`FileStore::without_symlinks`]: super::FileStore::without_symlinks
    Symlink {
        /// The key, as asked for.
        key: String,
    },
    /// A symbolic link below a [`FileStore`]'s root, on the way to a key's file being written
    /// or removed (or that file itself), that leads out of the root: a write does not follow
    /// it, so it never lands outside the destination it was given.
    LinkOutside {
        /// The key, as asked for.
        key: String,
        /// The link, and what it points to as stored in it (`None` if that could not be
        /// read).
        link: Box<(std::path::PathBuf, Option<std::path::PathBuf>)>,
    },
    /// Another writer held the update lock of the chunk `key` for longer than this store
    /// waits ([`Store::lock_update`]): a writer hung, or one far slower than a chunk's write.
    /// (A writer that died released its lock with its process.)
    LockWait {
        /// The chunk's key.
        key: String,
        /// The lock file and the byte of it that stands for the chunk.
        lock: Box<(std::path::PathBuf, u64)>,
        /// How long this writer waited.
        waited: std::time::Duration,
    },
    /// Another writer replaced the chunk `key` between this writer's read of it and its
    /// conditional write ([`UpdateLock::is_conditional`]), `tries` times in a row: the write
    /// stored nothing. A write tries again from a fresh read, up to [`UPDATE_TRIES`] times.
    Replaced {
        /// The chunk's URL (or key).
        key: String,
        /// Tries made, each met by another writer's replacement.
        tries: u32,
    },
    /// The object `url` was replaced (or deleted) between two requests of one read of it: its
    /// ETag changed, so the bytes asked for now would come from another version than the length
    /// and the shard index read before. A chunk read starts again from a fresh look at the
    /// object, up to [`READ_TRIES`] times, and fails with this past them.
    Changed {
        /// The object's URL.
        url: String,
    },
    /// The caller cancelled (its [`ChunkUpdate::cancel`] flag set) while this waited for
    /// another writer's update lock.
    Cancelled,
    /// The object is larger than the caller allows ([`Store::read_whole`]).
    TooLarge {
        /// Its length.
        len: u64,
        /// The bound.
        max: u64,
    },
    /// A URL no store can be made for: an unknown scheme, or a store the environment does
    /// not configure (no region, a malformed endpoint).
    BadUrl {
        /// The URL.
        url: String,
        /// Why.
        why: String,
    },
    /// No credentials were found for a cloud store: none in the environment, and no cloud's
    /// instance metadata service answered (zinto is not running on a cloud machine).
    NoCredentials {
        /// The object's URL.
        url: String,
        /// What to set, or `--anonymous`, for the store's service.
        hint: &'static str,
    },
    /// The server refused the request (401 or 403): not a missing object.
    AccessDenied {
        /// The object's URL.
        url: String,
    },
    /// A response body of another length than its headers (or the range asked) promised,
    /// after any retries: a connection cut short, never a chunk read in part.
    BodyLength {
        /// The object's URL.
        url: String,
        /// Bytes promised.
        expected: u64,
        /// Bytes received.
        got: u64,
    },
    /// A remote request failed, after any retries (a timeout, a 5xx answer, a reset).
    Remote {
        /// The object's URL.
        url: String,
        /// What the client reported.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// An I/O error.
    Io(std::io::Error),
    /// A store's count of its own bytes went out of step (a bug in zinto): what broke.
    Internal {
        /// The invariant that broke.
        what: &'static str,
    },
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Missing => f.write_str("key not found"),
            Self::ShortRead {
                offset,
                wanted,
                len,
            } => write!(
                f,
                "object of {len} bytes is too short to read {wanted} bytes at offset {offset}"
            ),
            Self::NotAFile {
                key,
                directory: true,
            } => write!(f, "{key:?} is a directory, not a file"),
            Self::NotAFile {
                key,
                directory: false,
            } => write!(f, "{key:?} is not a regular file"),
            Self::ListingUnsupported => f.write_str("this store cannot list its keys"),
            Self::Symlink { key } => write!(
                f,
                "{key:?} is or passes through a symbolic link, which this store does not follow"
            ),
            Self::LinkOutside { key, link } => {
                let (link, target) = &**link;
                write!(f, "writing {key:?}: {} is a symbolic link", link.display())?;
                if let Some(target) = target {
                    write!(f, " to {}", target.display())?;
                }
                f.write_str(", outside the store's folder: writes do not follow it")
            }
            Self::LockWait { key, lock, waited } => write!(
                f,
                "another writer held the update lock of {key:?} ({}, byte {}) for over {:.1} s",
                lock.0.display(),
                lock.1,
                waited.as_secs_f64()
            ),
            Self::Replaced { key, tries } => write!(
                f,
                "another writer replaced {key} between this write's read of it and its \
                 conditional write ({tries} {}); nothing was stored",
                if *tries == 1 { "try" } else { "tries in a row" }
            ),
            Self::Changed { url } => write!(
                f,
                "{url} was replaced by another writer during each of {READ_TRIES} reads of it in a row"
            ),
            Self::Cancelled => f.write_str("cancelled while waiting for another writer's lock"),
            Self::TooLarge { len, max } => {
                write!(f, "object of {len} bytes is larger than the {max} allowed")
            }
            Self::BadUrl { url, why } => write!(f, "cannot open {url}: {why}"),
            Self::NoCredentials { url, hint } => write!(
                f,
                "no credentials found for {url}: none in the environment, and no cloud \
                 instance metadata service answered; {hint}"
            ),
            Self::AccessDenied { url } => write!(f, "access denied: {url}"),
            Self::BodyLength { url, expected, got } => write!(
                f,
                "response for {url} ended after {got} of {expected} bytes (connection cut short)"
            ),
            Self::Remote { url, source } => write_remote(f, url, source.as_ref()),
            Self::ReadOnly => f.write_str("this store cannot write"),
            Self::BadKey { key } => write!(f, "{key:?} cannot name an object of this store"),
            Self::Io(e) => write!(f, "I/O error: {e}"),
            Self::Internal { what } => write!(f, "internal error (a bug in zinto): {what}"),
        }
    }
}

/// [`StoreError::Remote`]'s message: the client's, and the innermost cause where the client's
/// own message hides why (reqwest: "error sending request"; the cause: connection refused, no
/// such host, a TLS failure).
fn write_remote(
    f: &mut fmt::Formatter<'_>,
    url: &str,
    source: &(dyn std::error::Error + Send + Sync + 'static),
) -> fmt::Result {
    write!(f, "request for {url} failed: {source}")?;
    match root_cause(source) {
        Some(cause) if !source.to_string().contains(&cause) => write!(f, " (cause: {cause})"),
        _ => Ok(()),
    }
}

/// The innermost error below `e`'s, as text, if there is one.
fn root_cause(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut inner = e.source()?;
    while let Some(deeper) = inner.source() {
        inner = deeper;
    }
    Some(inner.to_string())
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io(e) => Some(e),
            Self::Remote { source, .. } => Some(source.as_ref()),
            _ => None,
        }
    }
}

impl<S: Store + ?Sized> Store for &S {
    fn size(&self, key: &str) -> Result<Option<u64>, StoreError> {
        (**self).size(key)
    }
    fn read_into(&self, key: &str, offset: u64, dst: &mut [u8]) -> Result<(), StoreError> {
        (**self).read_into(key, offset, dst)
    }
    fn read_blocks(
        &self,
        key: &str,
        offset: u64,
        len: u64,
        buf: &mut [u8],
        each: &mut dyn FnMut(&[u8]) -> ControlFlow<()>,
    ) -> Result<(), StoreError> {
        (**self).read_blocks(key, offset, len, buf, each)
    }
    fn read_whole(&self, key: &str, max: u64) -> Result<Option<Vec<u8>>, StoreError> {
        (**self).read_whole(key, max)
    }
    fn will_read(&self, key: &str, ranges: &[std::ops::Range<u64>]) {
        (**self).will_read(key, ranges);
    }
    fn read_ahead(&self) -> Option<&dyn ReadAhead> {
        (**self).read_ahead()
    }
    fn list_dir(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        (**self).list_dir(prefix)
    }
    fn writer(&self, key: &str) -> Result<Box<dyn ObjectWriter + '_>, StoreError> {
        (**self).writer(key)
    }
    fn write_from(&self, key: &str, bytes: &[u8]) -> Result<(), StoreError> {
        (**self).write_from(key, bytes)
    }
    fn open(&self, key: &str) -> Result<Opened<'_>, StoreError> {
        (**self).open(key)
    }
    fn reopen(&self, key: &str) -> Result<Opened<'_>, StoreError> {
        (**self).reopen(key)
    }
    fn bytes_held(&self) -> u64 {
        (**self).bytes_held()
    }
    fn lock_update(&self, update: &ChunkUpdate<'_>) -> Result<UpdateLock, StoreError> {
        (**self).lock_update(update)
    }
    fn serialises_updates(&self) -> bool {
        (**self).serialises_updates()
    }
    fn delete(&self, key: &str) -> Result<(), StoreError> {
        (**self).delete(key)
    }
    fn prune(&self, prefix: &str) -> Result<(), StoreError> {
        (**self).prune(prefix)
    }
}

impl<S: Store + ?Sized> Store for std::sync::Arc<S> {
    fn size(&self, key: &str) -> Result<Option<u64>, StoreError> {
        (**self).size(key)
    }
    fn read_into(&self, key: &str, offset: u64, dst: &mut [u8]) -> Result<(), StoreError> {
        (**self).read_into(key, offset, dst)
    }
    fn read_blocks(
        &self,
        key: &str,
        offset: u64,
        len: u64,
        buf: &mut [u8],
        each: &mut dyn FnMut(&[u8]) -> ControlFlow<()>,
    ) -> Result<(), StoreError> {
        (**self).read_blocks(key, offset, len, buf, each)
    }
    fn read_whole(&self, key: &str, max: u64) -> Result<Option<Vec<u8>>, StoreError> {
        (**self).read_whole(key, max)
    }
    fn will_read(&self, key: &str, ranges: &[std::ops::Range<u64>]) {
        (**self).will_read(key, ranges);
    }
    fn read_ahead(&self) -> Option<&dyn ReadAhead> {
        (**self).read_ahead()
    }
    fn list_dir(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        (**self).list_dir(prefix)
    }
    fn writer(&self, key: &str) -> Result<Box<dyn ObjectWriter + '_>, StoreError> {
        (**self).writer(key)
    }
    fn write_from(&self, key: &str, bytes: &[u8]) -> Result<(), StoreError> {
        (**self).write_from(key, bytes)
    }
    fn open(&self, key: &str) -> Result<Opened<'_>, StoreError> {
        (**self).open(key)
    }
    fn reopen(&self, key: &str) -> Result<Opened<'_>, StoreError> {
        (**self).reopen(key)
    }
    fn bytes_held(&self) -> u64 {
        (**self).bytes_held()
    }
    fn lock_update(&self, update: &ChunkUpdate<'_>) -> Result<UpdateLock, StoreError> {
        (**self).lock_update(update)
    }
    fn serialises_updates(&self) -> bool {
        (**self).serialises_updates()
    }
    fn delete(&self, key: &str) -> Result<(), StoreError> {
        (**self).delete(key)
    }
    fn prune(&self, prefix: &str) -> Result<(), StoreError> {
        (**self).prune(prefix)
    }
}

/// Why a store's streamed read ended before its last byte, inside the store: its own error
/// (a bug of its own included: [`StoreError::Internal`]), or the consumer said stop ([`ControlFlow::Break`]).
#[derive(Debug)]
pub(crate) enum Halt {
    /// The store failed.
    Store(StoreError),
    /// The consumer asked to stop: not an error.
    Stopped,
}

impl From<StoreError> for Halt {
    fn from(e: StoreError) -> Self {
        Self::Store(e)
    }
}

impl Halt {
    /// As the [`StoreError`] a plain read reports (a stop there is a bug).
    pub(crate) fn into_store_error(self) -> StoreError {
        match self {
            Self::Store(e) => e,
            Self::Stopped => StoreError::Internal {
                what: "a plain read stopped as if by a consumer",
            },
        }
    }
}

/// A consumer of blocks as the store's streaming code calls it: a stop becomes [`Halt::Stopped`].
pub(crate) fn halt_on_break(
    each: &mut dyn FnMut(&[u8]) -> ControlFlow<()>,
) -> impl FnMut(&[u8]) -> Result<(), Halt> + '_ {
    move |block| match each(block) {
        ControlFlow::Continue(()) => Ok(()),
        ControlFlow::Break(()) => Err(Halt::Stopped),
    }
}

/// The end of a [`Store::read_blocks`]: a consumer's stop is `Ok`.
pub(crate) fn settle(read: Result<(), Halt>) -> Result<(), StoreError> {
    match read {
        Ok(()) | Err(Halt::Stopped) => Ok(()),
        Err(e) => Err(e.into_store_error()),
    }
}
