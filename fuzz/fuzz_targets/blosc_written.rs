//! Blosc chunks written by zinto, read back by c-blosc 1.21 and by zinto. See
//! `zinto_tests::harness::blosc_written`.
#![no_main]

#[path = "../c_blosc.rs"]
mod c_blosc;

#[global_allocator]
static ALLOC: zinto_tests::alloc::Counting = zinto_tests::alloc::Counting;

libfuzzer_sys::fuzz_target!(|data: &[u8]| zinto_tests::harness::blosc_written(
    data,
    Some(c_blosc::c_blosc)
));
