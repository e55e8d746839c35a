//! Holding off the other writers of one chunk while a write reads it, lays the caller's part
//! over it and replaces it (a read-modify-write): without that, two writers of different parts
//! of one chunk both read the old chunk, and the second rename loses the first one's part.
//!
//! A [`FileStore`](super::FileStore) locks one byte of the array's lock file
//! ([`LOCK_FILE`], beside its metadata; empty, never data) per chunk, with the operating
//! system's byte-range locks on open file descriptions (`F_OFD_SETLK` on Linux; the whole
//! file elsewhere): threads and processes alike wait for each other, and a process that dies
//! holding one releases it. Writes of whole chunks take no lock: the rename replaces them in
//! one step. docs/reliability.md says what holds on which store.

use std::time::{Duration, Instant};

use super::StoreError;

/// The file, beside an array's metadata, whose bytes stand for its chunks' update locks: it
/// stays empty, and a dot first keeps it out of listings of a group's members.
pub const LOCK_FILE: &str = ".zinto-lock";

/// How long a writer waits, by default, for another writer's update of the same chunk
/// ([`FileStore::with_lock_wait`](super::FileStore::with_lock_wait)): an update holds it for
/// one chunk's read, merge and write, so a wait this long means a writer is hung.
pub const UPDATE_LOCK_WAIT: Duration = Duration::from_secs(60);

/// One chunk's update, held off from every other writer's until this drops (and by the
/// operating system until the process ends, however it ends). [`UpdateLock::unguarded`] from
/// a store that has no such lock.
/// Not `Send`: a lock is released on the thread that took it, which is how a writer that
/// already holds a chunk's lock (a selection's write of a whole chunk it read) is told apart.
#[must_use = "the lock is released when dropped"]
pub struct UpdateLock {
    held: Option<Box<dyn std::any::Any>>,
}

impl UpdateLock {
    /// No lock: what a store without one answers.
    pub fn unguarded() -> Self {
        Self { held: None }
    }

    /// A lock that `held` holds until it drops.
    pub(crate) fn held(held: impl std::any::Any) -> Self {
        Self {
            held: Some(Box::new(held)),
        }
    }

    /// Whether another writer is held off (false from a store without locks).
    pub fn is_held(&self) -> bool {
        self.held.is_some()
    }
}

impl std::fmt::Debug for UpdateLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UpdateLock")
            .field("held", &self.is_held())
            .finish()
    }
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
    wait: Duration,
    mut try_once: impl FnMut() -> Result<Option<T>, StoreError>,
) -> Result<Option<T>, StoreError> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(held) = try_once()? {
            return Ok(Some(held));
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
        let got: Option<()> = retry_for(Duration::from_millis(30), || {
            tries += 1;
            Ok(None)
        })
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(got.is_none() && tries > 1);
        assert!(start.elapsed() >= Duration::from_millis(30));
        let mut tries = 0;
        let got = retry_for(Duration::from_secs(5), || {
            tries += 1;
            Ok((tries == 3).then_some(7))
        });
        assert!(matches!(got, Ok(Some(7))));
    }
}
