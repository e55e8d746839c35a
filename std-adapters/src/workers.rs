//! The one worker pool: scoped threads that take work until none is left, one fails, or the
//! caller cancels; the first error kept (a real failure over the cancellations it causes);
//! progress after each item. Reads (`pool.rs` hands out a selection's pieces and their parts of
//! the output), writes (`write/`) and concatenation (`concat.rs`) run on it; the merge's sort
//! (`records.rs`) runs its stretches and segments on [`run_workers`], the same threads.

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use crate::error::{Error, ErrorKind};

/// The cores this process may use (one worker each by default), asked once:
/// `available_parallelism` reads the cgroup's limits from files on Linux, tens of microseconds
/// that a small read cannot pay on every call.
pub(crate) fn cores() -> NonZeroUsize {
    static CORES: OnceLock<NonZeroUsize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().unwrap_or(NonZeroUsize::MIN))
}

/// How one job's workers run: how many, what stops them, whom they tell.
pub(crate) struct Crew<'a> {
    /// Worker threads (the calling thread is one of them); at least one runs.
    pub(crate) threads: usize,
    /// Checked before each item: once `true`, no further item is started and the job fails
    /// with [`ErrorKind::Cancelled`].
    pub(crate) cancel: Option<&'a AtomicBool>,
    /// Called after each item with (items done, `total`).
    pub(crate) progress: Option<&'a (dyn Fn(u64, u64) + Sync)>,
    /// Items in all, for `progress`.
    pub(crate) total: u64,
    /// Where a cancellation is reported (the array's path; `None` outside an array).
    pub(crate) path: Option<&'a str>,
}

/// What a job's workers do: make a worker's state, take the next item (`None` when there is
/// none left; an error stops the job), work on it, and put the state back when done.
pub(crate) struct Work<N, T, R, P> {
    /// A worker's state (a decoder and its buffers), made once per thread.
    pub(crate) new_worker: N,
    /// The next item, or `None`; shared by the workers, so it hands each item out once.
    pub(crate) next: T,
    /// The work on one item.
    pub(crate) run: R,
    /// A worker's state when it stops (kept for the next job, or dropped).
    pub(crate) retire: P,
}

impl Crew<'_> {
    /// Runs `work` on up to `self.threads` workers until no item is left or one fails. The
    /// first error is the job's: once one occurs, no worker starts another item.
    pub(crate) fn run<W, I, N, T, R, P>(&self, work: &Work<N, T, R, P>) -> Result<(), Error>
    where
        N: Fn() -> Result<W, Error> + Sync,
        T: Fn() -> Option<Result<I, Error>> + Sync,
        R: Fn(&mut W, I) -> Result<(), Error> + Sync,
        P: Fn(W) + Sync,
    {
        let first_error = FirstError::default();
        let done = AtomicU64::new(0);
        let worker = || {
            let mut state = match (work.new_worker)() {
                Ok(state) => state,
                Err(e) => return first_error.record(e),
            };
            while !first_error.failed() {
                if self.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                    first_error.record(match self.path {
                        Some(path) => Error::new(path, None, ErrorKind::Cancelled),
                        None => Error::outside_array(None, ErrorKind::Cancelled),
                    });
                    break;
                }
                let item = match (work.next)() {
                    None => break,
                    Some(Ok(item)) => item,
                    Some(Err(e)) => {
                        first_error.record(e);
                        break;
                    }
                };
                if let Err(e) = (work.run)(&mut state, item) {
                    first_error.record(e);
                    break;
                }
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                if let Some(progress) = self.progress {
                    progress(n, self.total);
                }
            }
            (work.retire)(state);
        };
        run_workers(self.threads.max(1), &worker);
        first_error.into_result()
    }
}

/// How often [`watch_cancel`] looks at a cancel flag.
const WATCH: std::time::Duration = std::time::Duration::from_millis(20);

/// Runs `job` while watching `cancel` from another thread: once it is set, `stop` is called at
/// once, not when a worker next looks between items. For a job whose workers may all be
/// blocked for long (waiting for a stalled server): `stop` ends what they wait for. Without a
/// cancel flag, `job` runs alone.
pub(crate) fn watch_cancel<T>(
    cancel: Option<&AtomicBool>,
    stop: &(dyn Fn() + Sync),
    job: impl FnOnce() -> T,
) -> T {
    let Some(cancel) = cancel else {
        return job();
    };
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let watcher = s.spawn(|| {
            while !done.load(Ordering::Acquire) {
                if cancel.load(Ordering::Relaxed) {
                    stop();
                    return;
                }
                std::thread::park_timeout(WATCH);
            }
        });
        let result = job();
        done.store(true, Ordering::Release);
        watcher.thread().unpark();
        result
    })
}

/// The first error any worker hit; once set, workers start no new piece.
#[derive(Default)]
pub(crate) struct FirstError {
    failed: AtomicBool,
    first: Mutex<Option<Error>>,
}

impl FirstError {
    /// Keeps `e` if it is the first, or the first that is not a cancellation (a piece that
    /// stopped because another failed says `Cancelled`; the failure is the read's error).
    pub(crate) fn record(&self, e: Error) {
        self.failed.store(true, Ordering::Relaxed);
        let cancelled = |e: &Error| matches!(e.kind(), ErrorKind::Cancelled);
        if let Ok(mut slot) = self.first.lock()
            && slot
                .as_ref()
                .is_none_or(|held| cancelled(held) && !cancelled(&e))
        {
            *slot = Some(e);
        }
    }

    /// Whether any worker failed.
    pub(crate) fn failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    /// The first error, if any.
    pub(crate) fn into_result(self) -> Result<(), Error> {
        match self.first.into_inner() {
            Ok(Some(e)) => Err(e),
            _ => Ok(()),
        }
    }
}

/// Runs `worker` on `n` threads (on the calling thread alone when `n` is 1). A worker's panic
/// reaches the caller as it was raised (its payload, not `std::thread::scope`'s own message):
/// the workers never panic on any input, so a panic is a bug in zinto and says so.
pub(crate) fn run_workers(n: usize, worker: &(dyn Fn() + Sync)) {
    if n <= 1 {
        worker();
        return;
    }
    std::thread::scope(|s| {
        let others: Vec<_> = (1..n).map(|_| s.spawn(worker)).collect();
        worker();
        for other in others {
            if let Err(payload) = other.join() {
                std::panic::resume_unwind(payload);
            }
        }
    });
}
