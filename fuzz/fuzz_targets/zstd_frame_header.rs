//! Frame header parsing: any bytes, never a panic.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = zinto_core::codec::FrameHeader::parse(data);
});
