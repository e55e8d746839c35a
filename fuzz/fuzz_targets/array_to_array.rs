//! zarr-python 3.4's scale_offset and cast_value: decode in bounds and as the model, encode as the model, exact round trips. See `zinto_tests::harness`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zinto_tests::harness::array_to_array(data));
