//! `.npy` and msgpack-numpy headers: what a header reports lies in the file. See
//! `zinto_tests::harness`.
#![no_main]

#[global_allocator]
static ALLOC: zinto_tests::alloc::Counting = zinto_tests::alloc::Counting;

libfuzzer_sys::fuzz_target!(|data: &[u8]| zinto_tests::harness::segment_header(data));
