//! c-blosc 1.21's decoder (the `blosc-src` crate, linked by the fuzz crate only): the
//! reference the Blosc fuzz targets hold zinto's chunks to. Shared by `blosc_differential` and
//! `blosc_written` (`#[path]`; not a target of its own).

use std::ffi::{c_int, c_void};

/// c-blosc's decoding of `chunk` into `nbytes` bytes, or `None` if it refuses it.
///
/// Bytes stored after the stream (past the header's cbytes) are left out: c-blosc's decoder
/// never reads them (numcodecs hands it such chunks, z5py writes them), but its
/// `blosc_cbuffer_validate`, which guards the call here, wants the exact length.
pub fn c_blosc(chunk: &[u8], nbytes: usize) -> Option<Vec<u8>> {
    let cbytes = chunk
        .get(12..16)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
    let chunk = match cbytes {
        Some(n) if n >= 16 && n < chunk.len() => &chunk[..n],
        _ => chunk,
    };
    let mut size = 0usize;
    // SAFETY: `chunk` is valid for `chunk.len()` bytes and `size` is a valid out-pointer;
    // blosc_cbuffer_validate reads at most the 16-byte header, and only if `chunk.len()` is at
    // least 16, and checks the header's cbytes against `chunk.len()`.
    let valid =
        unsafe { blosc_src::blosc_cbuffer_validate(chunk.as_ptr().cast(), chunk.len(), &mut size) };
    if valid != 0 || size != nbytes || chunk.len() < 16 {
        return None;
    }
    let mut out = vec![0u8; nbytes];
    // SAFETY: validated above, the header's cbytes is at most `chunk.len()`, which bounds what
    // c-blosc reads of `chunk`; it writes at most `out.len()` bytes (destsize) into `out`.
    let n: c_int = unsafe {
        blosc_src::blosc_decompress_ctx(
            chunk.as_ptr().cast::<c_void>(),
            out.as_mut_ptr().cast::<c_void>(),
            out.len(),
            1,
        )
    };
    (usize::try_from(n).ok() == Some(nbytes)).then_some(out)
}
