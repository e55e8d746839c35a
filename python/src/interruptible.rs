//! Running a read without the GIL, interruptible by Ctrl-C.
//!
//! The read runs on a scoped thread. The calling thread waits for it in slices of
//! [`POLL`] with the GIL released, and between slices takes the GIL to check for signals: a
//! pending KeyboardInterrupt sets the read's cancel flag (checked by the workers between
//! chunks), the read stops at the next chunk boundary, and the signal's exception is raised.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use pyo3::prelude::*;

/// How often signals are checked during a read: often enough that a read of a few hundred MB
/// (tens of milliseconds) is checked several times; each check takes the GIL once.
const POLL: Duration = Duration::from_millis(10);

/// Runs `read(cancel)` on another thread with the GIL released; returns its result, or the
/// signal's exception if Python raised one while it ran. (`read` builds its exceptions without
/// the GIL: pyo3 creates them lazily.)
pub fn run<T: Send>(
    py: Python<'_>,
    read: impl FnOnce(&AtomicBool) -> PyResult<T> + Send,
) -> PyResult<T> {
    let cancel = AtomicBool::new(false);
    let mut signal: Option<PyErr> = None;
    let result = std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel();
        let cancel = &cancel;
        s.spawn(move || {
            // The receiver outlives the thread (both live in this scope).
            let _ = tx.send(read(cancel));
        });
        let mut rx = rx;
        loop {
            // The receiver is moved into the GIL-free closure and back: it is Send, not Sync.
            let (got, back) = py.detach(move || {
                let got = rx.recv_timeout(POLL);
                (got, rx)
            });
            rx = back;
            match got {
                Ok(result) => return Some(result),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if signal.is_none()
                        && let Err(e) = py.check_signals()
                    {
                        signal = Some(e);
                        cancel.store(true, Ordering::Relaxed);
                    }
                }
                // The thread ended without sending: it panicked (the scope re-raises it).
                Err(mpsc::RecvTimeoutError::Disconnected) => return None,
            }
        }
    });
    if let Some(e) = signal {
        return Err(e);
    }
    match result {
        Some(r) => r,
        None => Err(crate::errors::ZintoError::new_err(
            "the read's thread ended without a result (a bug in zinto)",
        )),
    }
}

/// Runs `read(cancel, watch)` on this thread with the GIL released, `watch` given to the read
/// as its progress callback: called after each piece, on this thread (the pool's first worker)
/// it takes the GIL at most every [`POLL`] to check for signals; a pending KeyboardInterrupt
/// sets `cancel` (the read stops at the next piece) and is raised. No thread is started to
/// watch: a read's workers are this thread and those the pool starts, so a batch of small
/// reads does not pay for a thread, or for the scheduler placing a new one beside the first.
pub fn run_here<T: Send>(
    py: Python<'_>,
    read: impl FnOnce(&AtomicBool, &(dyn Fn(u64, u64) + Sync)) -> PyResult<T> + Send,
) -> PyResult<T> {
    let cancel = AtomicBool::new(false);
    let caller = std::thread::current().id();
    let state = std::sync::Mutex::new((std::time::Instant::now(), None::<PyErr>));
    let watch = |_done: u64, _total: u64| {
        if std::thread::current().id() != caller {
            return;
        }
        let Ok(mut state) = state.lock() else {
            return;
        };
        if state.1.is_some() || state.0.elapsed() < POLL {
            return;
        }
        state.0 = std::time::Instant::now();
        if let Err(e) = Python::attach(|py| py.check_signals()) {
            state.1 = Some(e);
            cancel.store(true, Ordering::Relaxed);
        }
    };
    let result = py.detach(|| read(&cancel, &watch));
    match state.into_inner() {
        Ok((_, Some(signal))) => Err(signal),
        _ => result,
    }
}
