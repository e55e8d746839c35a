//! Peak stack use, measured by painting: before the cases run, the stack below the current
//! stack pointer is filled with a pattern; afterwards the deepest word no longer holding it is
//! as far as the stack grew.
//!
//! The only `unsafe` of the firmware, in two loops over raw addresses.

use core::sync::atomic::{AtomicUsize, Ordering};

/// The pattern painted.
const PAINT: u32 = 0xA5A5_A5A5;
/// How far below the stack pointer at `paint` the stack is painted (more than any case uses;
/// if a case went deeper, `peak` says so rather than guessing).
pub const PAINTED: usize = 256 * 1024;
/// Left unpainted just below the stack pointer: `paint`'s own frame.
const MARGIN: usize = 256;

/// The stack pointer when `paint` ran, and the painted range's lowest address.
static TOP: AtomicUsize = AtomicUsize::new(0);
static BOTTOM: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" {
    /// The top of the stack (cortex-m-rt's linker script).
    static _stack_start: u32;
    /// The end of static data, where the (unused) heap would start (cortex-m-rt).
    static __sheap: u32;
}

/// Paints the `PAINTED` bytes below the current stack pointer (never below static data).
#[inline(never)]
pub fn paint() {
    let sp = cortex_m::register::msp::read() as usize;
    let statics_end = core::ptr::addr_of!(__sheap) as usize;
    let top = sp - MARGIN;
    let bottom = top.saturating_sub(PAINTED).max(statics_end);
    let mut at = bottom & !3;
    while at < top {
        // SAFETY: `at` is a word-aligned address in [bottom, top): inside RAM, above all static
        // data (`__sheap`), below the current stack pointer minus this frame. Nothing live is
        // there: the stack grows down from `sp`, and the firmware has no heap.
        unsafe { core::ptr::write_volatile(at as *mut u32, PAINT) };
        at += 4;
    }
    BOTTOM.store(bottom & !3, Ordering::Relaxed);
    TOP.store(
        core::ptr::addr_of!(_stack_start) as usize,
        Ordering::Relaxed,
    );
}

/// Bytes of stack used at the deepest point since `paint` (from the top of the stack).
pub fn peak() -> usize {
    let (bottom, top) = (BOTTOM.load(Ordering::Relaxed), TOP.load(Ordering::Relaxed));
    let mut at = bottom;
    while at < top {
        // SAFETY: a word-aligned address in the range `paint` wrote, inside RAM; reading it
        // races with nothing (one core, no interrupts enabled).
        if unsafe { core::ptr::read_volatile(at as *const u32) } != PAINT {
            break;
        }
        at += 4;
    }
    top - at
}
