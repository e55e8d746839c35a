//! The read-ahead budget: bytes of response bodies one remote read may hold beyond each body's
//! channel of [`FRAMES_AHEAD`](super::FRAMES_AHEAD) frames, so that a body the workers have not
//! reached yet keeps arriving instead of pausing the server.
//!
//! Bytes are granted while they last; once they run out, waiting bodies are served oldest piece
//! first: a body waits while an older piece's body waits, so the bytes given back go to the
//! piece a worker will take soonest. A frame holds its bytes ([`Lease`]) until the worker has
//! copied it out; dropping the lease gives them back and wakes the oldest waiting body that now
//! fits.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};

use tokio::sync::oneshot;

/// The bytes one read may hold ahead of its workers.
#[derive(Debug)]
pub(crate) struct Budget {
    capacity: u64,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    free: u64,
    /// The bodies waiting for bytes, by piece index: the oldest first.
    waiting: BTreeMap<u64, Waiter>,
}

#[derive(Debug)]
struct Waiter {
    need: u64,
    grant: oneshot::Sender<()>,
}

/// Bytes of the budget held by one frame, given back when dropped.
#[derive(Debug)]
pub(crate) struct Lease {
    budget: Arc<Budget>,
    bytes: u64,
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.budget.release(self.bytes);
    }
}

impl Budget {
    /// A budget of `capacity` bytes; `None` for 0 (a read that holds nothing ahead).
    pub(crate) fn new(capacity: u64) -> Option<Arc<Self>> {
        (capacity > 0).then(|| {
            Arc::new(Self {
                capacity,
                state: Mutex::new(State {
                    free: capacity,
                    waiting: BTreeMap::new(),
                }),
            })
        })
    }

    /// The bytes held now (for tests).
    #[cfg(test)]
    fn held(&self) -> u64 {
        self.capacity - self.lock().free
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing panics while the lock is held: the state is whole even if poisoned.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits until `len` bytes are free (the whole budget, for a frame larger than it) and no
    /// older piece waits, then holds them for `piece`. Cancel-safe: dropped while waiting, it
    /// holds nothing (bytes granted meanwhile are given back). One wait per piece at a time.
    pub(crate) fn acquire(self: &Arc<Self>, piece: u64, len: u64) -> Acquire {
        let need = len.min(self.capacity);
        let mut state = self.lock();
        let older_waits = state.waiting.range(..piece).next().is_some();
        if !older_waits && state.free >= need {
            state.free -= need;
            return Acquire {
                budget: Arc::clone(self),
                piece,
                need,
                granted: None,
                leased: false,
            };
        }
        let (grant, rx) = oneshot::channel();
        let replaced = state.waiting.insert(piece, Waiter { need, grant });
        debug_assert!(replaced.is_none(), "two waits at once for piece {piece}");
        Acquire {
            budget: Arc::clone(self),
            piece,
            need,
            granted: Some(rx),
            leased: false,
        }
    }

    /// Gives back `bytes`, then grants the oldest waiters that fit, in order.
    fn release(&self, bytes: u64) {
        let mut state = self.lock();
        debug_assert!(
            state.free + bytes <= self.capacity,
            "bytes given back twice"
        );
        state.free = state.free.saturating_add(bytes).min(self.capacity);
        Self::grant(&mut state);
    }

    /// Grants the oldest waiters that fit, in order, stopping at the first that does not.
    fn grant(state: &mut State) {
        while let Some(first) = state.waiting.first_entry() {
            if first.get().need > state.free {
                break;
            }
            let waiter = first.remove();
            state.free -= waiter.need;
            if waiter.grant.send(()).is_err() {
                // The waiter is gone (its future dropped without reaching its own clean-up).
                state.free += waiter.need;
            }
        }
    }
}

/// A wait for bytes of a [`Budget`]: resolves to the [`Lease`] that holds them.
#[derive(Debug)]
pub(crate) struct Acquire {
    budget: Arc<Budget>,
    piece: u64,
    need: u64,
    /// Where the grant comes; `None` once held (granted at once, or received).
    granted: Option<oneshot::Receiver<()>>,
    /// The bytes went to a [`Lease`]: dropping this gives nothing back.
    leased: bool,
}

impl Future for Acquire {
    type Output = Lease;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Lease> {
        if let Some(rx) = &mut self.granted {
            // The sender lives in the budget's state until it grants: an error cannot come
            // while this waiter is listed, and a grant is the only way off the list.
            match Pin::new(rx).poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(granted) => debug_assert!(granted.is_ok(), "a wait dropped unheard"),
            }
            self.granted = None;
        }
        // The lease now holds the bytes: this future gives nothing back when dropped.
        self.leased = true;
        Poll::Ready(Lease {
            budget: Arc::clone(&self.budget),
            bytes: self.need,
        })
    }
}

impl Drop for Acquire {
    fn drop(&mut self) {
        if self.leased {
            return;
        }
        let Some(_rx) = self.granted.take() else {
            // Granted at once and never polled: give the bytes back.
            self.budget.release(self.need);
            return;
        };
        let mut state = self.budget.lock();
        if state.waiting.remove(&self.piece).is_some() {
            // Newer waiters this one held back may fit now.
            Budget::grant(&mut state);
        } else {
            // Granted, but the grant was never taken.
            drop(state);
            self.budget.release(self.need);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::task::Waker;

    fn poll(f: &mut Acquire) -> Option<Lease> {
        let mut cx = Context::from_waker(Waker::noop());
        match Pin::new(f).poll(&mut cx) {
            Poll::Ready(lease) => Some(lease),
            Poll::Pending => None,
        }
    }

    #[test]
    fn a_zero_budget_is_none() {
        assert!(Budget::new(0).is_none());
    }

    #[test]
    fn bytes_are_held_until_the_lease_drops() {
        let budget = Budget::new(100).unwrap();
        let a = poll(&mut budget.acquire(0, 60)).unwrap();
        assert_eq!(budget.held(), 60);
        let mut b = budget.acquire(1, 60);
        assert!(poll(&mut b).is_none(), "over the budget");
        drop(a);
        let b = poll(&mut b).expect("granted when the first lease dropped");
        assert_eq!(budget.held(), 60);
        drop(b);
        assert_eq!(budget.held(), 0);
    }

    #[test]
    fn the_oldest_piece_is_granted_first() {
        let budget = Budget::new(100).unwrap();
        let full = poll(&mut budget.acquire(0, 100)).unwrap();
        let mut newer = budget.acquire(7, 10);
        let mut older = budget.acquire(3, 50);
        assert!(poll(&mut newer).is_none() && poll(&mut older).is_none());
        drop(full);
        let older = poll(&mut older).expect("the older piece first");
        let newer = poll(&mut newer).expect("then the newer, which fits beside it");
        assert_eq!(budget.held(), 60);
        // A newer piece does not pass an older one waiting, even where it would fit.
        let mut big_old = budget.acquire(4, 90);
        let mut small_new = budget.acquire(9, 1);
        assert!(poll(&mut big_old).is_none());
        assert!(poll(&mut small_new).is_none(), "passed an older waiter");
        drop((older, newer));
        assert!(poll(&mut big_old).is_some() && poll(&mut small_new).is_some());
    }

    #[test]
    fn an_older_wait_dropped_lets_the_newer_ones_in() {
        let budget = Budget::new(100).unwrap();
        let half = poll(&mut budget.acquire(0, 50)).unwrap();
        let big_old = budget.acquire(1, 90);
        let mut small_new = budget.acquire(2, 10);
        assert!(poll(&mut small_new).is_none());
        drop(big_old);
        assert!(
            poll(&mut small_new).is_some(),
            "still held back by a wait that is gone"
        );
        drop(half);
    }

    #[test]
    fn a_frame_larger_than_the_budget_takes_all_of_it() {
        let budget = Budget::new(10).unwrap();
        let lease = poll(&mut budget.acquire(0, 1000)).unwrap();
        assert_eq!(budget.held(), 10);
        drop(lease);
        assert_eq!(budget.held(), 0);
    }

    #[test]
    fn a_wait_dropped_holds_nothing_granted_or_not() {
        let budget = Budget::new(100).unwrap();
        // Granted at once, never polled.
        drop(budget.acquire(0, 40));
        assert_eq!(budget.held(), 0);
        // Waiting, then dropped.
        let full = poll(&mut budget.acquire(0, 100)).unwrap();
        let waiting = budget.acquire(1, 30);
        drop(waiting);
        drop(full);
        assert_eq!(budget.held(), 0);
        // Granted while waiting, dropped before taking it.
        let full = poll(&mut budget.acquire(0, 100)).unwrap();
        let granted = budget.acquire(2, 30);
        drop(full);
        assert_eq!(budget.held(), 30);
        drop(granted);
        assert_eq!(budget.held(), 0);
    }
}
