//! The pure-Rust and C zstd decoders must agree on every input. See `zinto_tests::harness`.
#![no_main]

#[global_allocator]
static ALLOC: zinto_tests::alloc::Counting = zinto_tests::alloc::Counting;

libfuzzer_sys::fuzz_target!(|data: &[u8]| zinto_tests::harness::zstd_differential(data));
