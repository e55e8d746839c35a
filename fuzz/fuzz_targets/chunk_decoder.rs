//! Any bytes through any bytes-to-bytes chain, fed in pieces, into a destination of any size:
//! an error or success, never a panic or a write outside the destination.
#![no_main]
use zinto_core::codec::{BytesCodecs, ChunkDecoder, Compressor};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let [kind, piece, lo, hi, rest @ ..] = data else { return };
    let compressor = match kind & 3 {
        0 => None,
        1 => Some(Compressor::Gzip),
        2 => Some(Compressor::Zlib),
        _ => Some(Compressor::Zstd),
    };
    let codecs = BytesCodecs { compressor, crc32c: (kind >> 2) & 1 };
    let mut out = vec![0u8; usize::from(u16::from_le_bytes([*lo, *hi]))];
    let mut d = ChunkDecoder::new();
    if d.start(&codecs, rest.len() as u64, out.len()).is_err() {
        return;
    }
    for p in rest.chunks(usize::from(*piece).max(1)) {
        if d.feed(p, &mut out).is_err() {
            return;
        }
    }
});
