//! Blosc chunks through zinto and through c-blosc 1.21 (the `blosc-src` crate, linked here
//! only). See `zinto_tests::harness::blosc_differential`.
#![no_main]

#[path = "../c_blosc.rs"]
mod c_blosc;

#[global_allocator]
static ALLOC: zinto_tests::alloc::Counting = zinto_tests::alloc::Counting;

libfuzzer_sys::fuzz_target!(|data: &[u8]| zinto_tests::harness::blosc_differential(
    data,
    Some(c_blosc::c_blosc)
));
