//! zinto-core on a Cortex-M4 without an allocator: decodes real Zarr chunks (written by
//! zarr-python, `data/generate.py`) from flash into static buffers, reads a sub-region of a
//! 2-D array across chunks with the layout core's selection math, checks every result against
//! the checksum the generating script computed, and prints one PASS or FAIL line per case over
//! semihosting. Exits 0 only if every case passed.
//!
//! Run: `cargo run --release` (QEMU `mps2-an386`; see `.cargo/config.toml`).

#![no_std]
#![no_main]

mod cases;
mod stack;

use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hprintln};

/// FNV-1a 64: the checksum `data/generate.py` computes of each expected result.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xCBF2_9CE4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

#[entry]
fn main() -> ! {
    // What the loop itself takes (printing included), before any case: subtract it from a
    // case's figure for what the case's decoding adds.
    stack::paint();
    let _ = cases::baseline();
    hprintln!("stack with no case: {} bytes", stack::peak());
    let mut failed = 0;
    let mut deepest = 0;
    for (name, case) in cases::CASES {
        stack::paint();
        let result = case();
        let used = stack::peak();
        deepest = deepest.max(used);
        match result {
            Ok(()) => hprintln!("PASS {} (stack {} bytes)", name, used),
            Err(why) => {
                failed += 1;
                hprintln!("FAIL {}: {}", name, why);
            }
        }
    }
    for (what, size) in cases::state_sizes() {
        hprintln!("size of {}: {} bytes", what, size);
    }
    hprintln!("peak stack: {} bytes (painted {})", deepest, stack::PAINTED);
    if cases::CASES.is_empty() {
        hprintln!("no case built in");
    } else if failed == 0 {
        hprintln!("all cases passed");
        debug::exit(debug::EXIT_SUCCESS);
    } else {
        hprintln!("{} case(s) failed", failed);
        debug::exit(debug::EXIT_FAILURE);
    }
    loop {
        cortex_m::asm::wfi();
    }
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    hprintln!("FAIL panic: {}", info);
    debug::exit(debug::EXIT_FAILURE);
    loop {
        cortex_m::asm::wfi();
    }
}
