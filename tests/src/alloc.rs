//! A counting global allocator: live, peak and largest allocation, and an optional cap.
//!
//! Install it in a binary with `#[global_allocator] static A: Counting = Counting;`. Without
//! that, the counters stay at zero and [`with_cap`] checks nothing.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

/// Forwards to the system allocator and counts.
pub struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static LARGEST: AtomicUsize = AtomicUsize::new(0);
/// Live bytes allowed; `usize::MAX` when no cap is set.
static CAP: AtomicUsize = AtomicUsize::new(usize::MAX);

fn grew(n: usize) {
    let live = LIVE.fetch_add(n, SeqCst) + n;
    PEAK.fetch_max(live, SeqCst);
    LARGEST.fetch_max(n, SeqCst);
    let cap = CAP.load(SeqCst);
    // A panic's own message and payload are not what is being bounded: let it report.
    if live > cap && !std::thread::panicking() {
        CAP.store(usize::MAX, SeqCst); // reporting may allocate
        eprintln!(
            "allocation cap exceeded: {n} bytes asked, {live} bytes live, cap {cap} bytes\n{}",
            std::backtrace::Backtrace::force_capture()
        );
        std::process::abort();
    }
}

// SAFETY: forwards every call to the system allocator unchanged; the counters are atomics and
// never affect the pointers returned.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), SeqCst);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // A realloc that moves the block has the old and the new one live at once: count the
        // new block before the old one is let go (an in-place realloc is counted as if it
        // moved, which errs on the side of the bound).
        grew(new_size);
        // SAFETY: same contract as the caller's.
        let moved = unsafe { System.realloc(ptr, layout, new_size) };
        // On failure the old block stays and the new one never was.
        let freed = if moved.is_null() {
            new_size
        } else {
            layout.size()
        };
        LIVE.fetch_sub(freed, SeqCst);
        moved
    }
}

/// Runs `f` and returns its result with (largest single allocation, peak live bytes above the
/// live bytes at the start) during it.
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, usize, usize) {
    let base = LIVE.load(SeqCst);
    PEAK.store(base, SeqCst);
    LARGEST.store(0, SeqCst);
    let out = f();
    (
        out,
        LARGEST.load(SeqCst),
        PEAK.load(SeqCst).saturating_sub(base),
    )
}

/// Runs `f` with live heap allowed to grow by at most `bytes` (all threads count); going over
/// aborts the process with a message. Caps do not nest.
pub fn with_cap<T>(bytes: usize, f: impl FnOnce() -> T) -> T {
    CAP.store(LIVE.load(SeqCst).saturating_add(bytes), SeqCst);
    let out = f();
    CAP.store(usize::MAX, SeqCst);
    out
}

/// The counters are global: tests take turns so that one test's allocations never land in
/// another's measurement (nextest runs each in its own process anyway; `cargo test` does not).
pub fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    TURN.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
