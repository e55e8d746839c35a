//! Holding off the other writers of one chunk while a write reads it, lays the caller's part
//! over it and replaces it (a read-modify-write): without that, two writers of different parts
//! of one chunk both read the old chunk, and the second rename loses the first one's part.
//!
//! A [`FileStore`](super::FileStore) locks one byte of the array's lock file
//! ([`LOCK_FILE`], beside its metadata; empty, never data) per chunk, with the operating
//! system's byte-range locks on open file descriptions (`F_OFD_SETLK` on Linux; the whole
//! file elsewhere): threads and processes alike wait for each other, and a process that dies
//! holding one releases it. A [`RemoteStore`](super::RemoteStore) on S3, GCS or Azure holds
//! no lock: it notes the object's version (ETag or generation) before the read, and the write
//! replaces the object only if it still is that version ([`UpdateLock::is_conditional`]); the
//! writer that finds it replaced reads it again and merges again. Writes of whole chunks take
//! no lock: the rename or PUT replaces them in one step. docs/reliability.md says what holds
//! on which store.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::StoreError;

/// The file, beside an array's metadata, whose bytes stand for its chunks' update locks: it
/// stays empty, and a dot first keeps it out of listings of a group's members.
pub const LOCK_FILE: &str = ".zinto-lock";

/// How long a writer waits, by default, for another writer's update of the same chunk
/// ([`FileStore::with_lock_wait`](super::FileStore::with_lock_wait)): an update holds it for
/// one chunk's read, merge and write, so a wait this long means a writer is hung.
pub const UPDATE_LOCK_WAIT: Duration = Duration::from_secs(60);

/// One read-modify-write of a stored chunk (or shard), as [`Store::lock_update`](super::Store::lock_update)
/// is asked to guard it.
#[derive(Clone, Copy, Debug)]
pub struct ChunkUpdate<'a> {
    /// The chunk's key in the store (`v/c/0/0`): the object read and replaced.
    pub key: &'a str,
    /// Its key within its array (`c/0/0`): what a lock stands for, the same whichever root
    /// the writers opened the array from.
    pub in_array: &'a str,
    /// The object, in this store, that keeps the array's locks ([`LOCK_FILE`] beside its
    /// metadata); it never holds data.
    pub lock_key: &'a str,
    /// The write's cancel flag (Ctrl-C from Python): set, a wait for another writer's lock
    /// ends at once with [`StoreError::Cancelled`](super::StoreError::Cancelled).
    pub cancel: Option<&'a std::sync::atomic::AtomicBool>,
}

/// One chunk's update guarded from every other writer's until this drops: held off by a lock
/// (and by the operating system until the process ends, however it ends), or made
/// conditional ([`UpdateLock::is_conditional`]). [`UpdateLock::unguarded`] from a store that
/// has neither.
/// Not `Send`: a guard is released on the thread that took it, which is how a writer that
/// already guards a chunk (a selection's write of a whole chunk it read) is told apart.
#[must_use = "the lock is released when dropped"]
pub struct UpdateLock {
    guard: Guard,
}

enum Guard {
    None,
    Held(#[allow(dead_code)] Box<dyn std::any::Any>),
    // Only a remote store makes one.
    #[cfg_attr(not(feature = "remote"), allow(dead_code))]
    Conditional(Box<dyn Condition>),
}

/// A conditional update's side of the store: whether the object it noted was replaced since.
pub(crate) trait Condition {
    /// Whether the object is no longer the version noted when the update began.
    ///
    /// # Errors
    /// The store's, if it cannot be asked.
    fn replaced(&self) -> Result<bool, StoreError>;

    /// Whether this update took its condition from an update of the same object that this
    /// thread began before (and that reads again when the condition fails).
    fn is_nested(&self) -> bool;
}

impl UpdateLock {
    /// No lock: what a store without one answers.
    pub fn unguarded() -> Self {
        Self { guard: Guard::None }
    }

    /// A lock that `held` holds until it drops.
    pub(crate) fn held(held: impl std::any::Any) -> Self {
        Self {
            guard: Guard::Held(Box::new(held)),
        }
    }

    /// An update whose write replaces the object only if `condition` still finds it as it was.
    #[cfg_attr(not(feature = "remote"), allow(dead_code))]
    pub(crate) fn conditional(condition: impl Condition + 'static) -> Self {
        Self {
            guard: Guard::Conditional(Box::new(condition)),
        }
    }

    /// Whether another writer's update is held off, or refused if it comes between this one's
    /// read and its write (false from a store without either).
    pub fn is_held(&self) -> bool {
        !matches!(self.guard, Guard::None)
    }

    /// Whether the update is a conditional write rather than a lock: its write fails with
    /// [`StoreError::Replaced`] if another writer replaced the chunk since the update began,
    /// and the writer starts again from a fresh read. Such a store cannot delete on a
    /// condition, so a merged chunk of fill values is written, not deleted.
    pub fn is_conditional(&self) -> bool {
        matches!(self.guard, Guard::Conditional(_))
    }

    /// Whether this is a conditional update within another of the same chunk on this thread,
    /// whose condition it shares: a refused write is that update's to try again.
    pub(crate) fn is_nested(&self) -> bool {
        match &self.guard {
            Guard::Conditional(c) => c.is_nested(),
            Guard::None | Guard::Held(_) => false,
        }
    }

    /// Whether, under a conditional update, the object was replaced since it began (always
    /// false for a lock).
    ///
    /// # Errors
    /// The store's, if it cannot be asked.
    pub fn replaced(&self) -> Result<bool, StoreError> {
        match &self.guard {
            Guard::Conditional(c) => c.replaced(),
            Guard::None | Guard::Held(_) => Ok(false),
        }
    }
}

impl std::fmt::Debug for UpdateLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UpdateLock")
            .field("held", &self.is_held())
            .field("conditional", &self.is_conditional())
            .finish()
    }
}

/// How many times a conditional update is tried before it fails with
/// [`StoreError::Replaced`]: another writer replaced the chunk between this one's read and its
/// write every time. Many: a writer that keeps updating one chunk in a loop wins most races
/// against one that backs off, for as long as its loop runs.
pub const UPDATE_TRIES: u32 = 100;

/// A pause before try `tries + 1` of a conditional update whose last try took `took`: random,
/// up to `took` times `tries` (at most 8 times, and 1 s), so writers that collided do not
/// collide again in step, whatever a try costs on the store.
pub(crate) fn backoff(tries: u32, took: Duration) -> Duration {
    use std::hash::BuildHasher;
    let most = took
        .saturating_mul(tries.clamp(1, 8))
        .clamp(Duration::from_millis(1), Duration::from_secs(1));
    // A hasher's keys are random per process and differ per instance: a random number.
    let random = std::collections::hash_map::RandomState::new().hash_one(tries);
    let nanos = (most.as_secs() * 1_000_000_000 + u64::from(most.subsec_nanos())).max(1);
    Duration::from_nanos(random % nanos)
}

/// The byte of an array's lock file that stands for the chunk `key`: its FNV-1a hash, below
/// 2^62 (a byte-range lock's offset is signed). Two chunks that share a byte only wait for
/// each other; they never skip a wait.
pub(crate) fn slot_of(key: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h >> 2
}

/// Calls `try_once` until it takes the lock (`Some`), sleeping a little longer each time (1 ms
/// to 25 ms), for at most `wait`: `None` past it.
///
/// # Errors
/// `try_once`'s.
pub(crate) fn retry_for<T>(
    (wait, cancel): (Duration, Option<&AtomicBool>),
    mut try_once: impl FnMut() -> Result<Option<T>, StoreError>,
) -> Result<Option<T>, StoreError> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(held) = try_once()? {
            return Ok(Some(held));
        }
        if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Err(StoreError::Cancelled);
        }
        if start.elapsed() >= wait {
            return Ok(None);
        }
        std::thread::sleep(pause.min(wait.saturating_sub(start.elapsed())));
        pause = (pause * 2).min(Duration::from_millis(25));
    }
}

#[cfg(test)]
mod tests {
    use super::{Duration, retry_for, slot_of};

    #[test]
    fn slots_are_below_two_to_the_62_and_tell_chunks_apart() {
        let keys = ["c/0/0", "c/0/1", "c/1/0", "0.0", "a/b/c/0"];
        let slots: Vec<u64> = keys.iter().map(|k| slot_of(k)).collect();
        assert!(slots.iter().all(|&s| s < 1 << 62));
        for (i, a) in slots.iter().enumerate() {
            assert!(slots[i + 1..].iter().all(|b| b != a), "{slots:?}");
        }
    }

    #[test]
    fn a_lock_never_taken_gives_up_after_the_wait() {
        let mut tries = 0;
        let start = std::time::Instant::now();
        let got: Option<()> = retry_for((Duration::from_millis(30), None), || {
            tries += 1;
            Ok(None)
        })
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(got.is_none() && tries > 1);
        assert!(start.elapsed() >= Duration::from_millis(30));
        let mut tries = 0;
        let got = retry_for((Duration::from_secs(5), None), || {
            tries += 1;
            Ok((tries == 3).then_some(7))
        });
        assert!(matches!(got, Ok(Some(7))));
    }
}
