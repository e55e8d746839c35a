//! Zarr v3 and v2 metadata: any JSON opens or is refused. See `zinto_tests::harness`.
#![no_main]

#[global_allocator]
static ALLOC: zinto_tests::alloc::Counting = zinto_tests::alloc::Counting;

libfuzzer_sys::fuzz_target!(|data: &[u8]| zinto_tests::harness::metadata(data));
