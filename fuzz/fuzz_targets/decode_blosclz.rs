//! See `zinto_tests::harness::decode_blosclz`.
#![no_main]

#[global_allocator]
static ALLOC: zinto_tests::alloc::Counting = zinto_tests::alloc::Counting;

libfuzzer_sys::fuzz_target!(|data: &[u8]| zinto_tests::harness::decode_blosclz(data));
