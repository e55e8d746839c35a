//! Random arrays, chains and regions written, then read back against a model. See
//! `zinto_tests::harness::write_roundtrip`.
#![no_main]

#[global_allocator]
static ALLOC: zinto_tests::alloc::Counting = zinto_tests::alloc::Counting;

libfuzzer_sys::fuzz_target!(|data: &[u8]| zinto_tests::harness::write_roundtrip(data));
