//! Raw chunks with a crc32c trailer, any bytes into a destination of any size. See `zinto_tests::harness`.
#![no_main]

#[global_allocator]
static ALLOC: zinto_tests::alloc::Counting = zinto_tests::alloc::Counting;

libfuzzer_sys::fuzz_target!(|data: &[u8]| zinto_tests::harness::decode(
    zinto_tests::harness::CRC32C,
    data
));
