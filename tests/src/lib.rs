//! Integration and conformance tests for zinto live in `tests/`; this library holds what they
//! share with the fuzz targets in `fuzz/`:
//!
//! - [`alloc`]: a counting global allocator with an optional cap, which aborts the process when
//!   live heap goes over it (how a fuzz run proves an allocation bound);
//! - [`blosc_writer`]: Blosc chunks (LZ4 inside) for tests and seeds;
//! - [`guard`]: destinations with guard bytes on both sides;
//! - [`http`]: an HTTP file server that honours Range, and a proxy that injects faults, on
//!   127.0.0.1, for the remote-store tests; [`moto`]: moto's S3 server, started for them;
//! - [`harness`]: one function per fuzz target, each over one public entry point. The fuzz
//!   targets are three lines calling these; `tests/fuzz_regressions.rs` replays the committed
//!   seed corpora and every crash input ever found through the same functions in `cargo test`.

pub mod alloc;
pub mod blosc_writer;
pub mod files;
pub mod guard;
pub mod harness;
pub mod http;
pub mod moto;
pub mod rng;

/// Whether this build writes the compressors a chain's name mentions: zstd needs zinto's
/// `zstd-c` feature, gzip and zlib its `zlib-rs` feature (without them the write path refuses
/// them by name). Tests of chains it does not write skip them.
pub fn build_writes(chain: &str) -> bool {
    let zstd = !chain.contains("zstd") || cfg!(feature = "zstd-c");
    let deflate = !(chain.contains("gzip") || chain.contains("zlib")) || cfg!(feature = "zlib-rs");
    zstd && deflate
}
