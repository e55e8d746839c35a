//! Rectilinear grids: chunks and pieces on edges given as runs, against a model that lists every edge. See `zinto_tests::harness`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zinto_tests::harness::rect_grid(data));
