//! Puts `memory.x` where the linker (cortex-m-rt's `link.x`) finds it.

use std::path::PathBuf;

fn main() {
    let Some(out) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        println!("cargo::error=OUT_DIR is not set (build scripts run under cargo)");
        return;
    };
    let copied = std::fs::copy("memory.x", out.join("memory.x"));
    if let Err(e) = copied {
        println!("cargo::error=cannot copy memory.x to OUT_DIR: {e}");
    }
    println!("cargo::rustc-link-search={}", out.display());
    println!("cargo::rerun-if-changed=memory.x");
}
