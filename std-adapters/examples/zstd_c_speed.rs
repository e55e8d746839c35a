//! Times zinto's default zstd backend (the C library behind `zinto::CZstd`) through a
//! `ChunkDecoder`, fed in 1 MiB blocks as the read path feeds it: one 40 MiB frame of
//! semi-compressible float32 data (level 3), decoded 15 times, best speed printed. Used to
//! compare two versions of the backend (docs/benchmarks.md): build it in each version's tree and
//! run the two binaries alternately.
//!
//! `cargo run --release -p zinto --example zstd_c_speed`
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation
)]

use std::time::Instant;

use zinto::core::codec::{BytesCodecs, ChunkDecoder, Compressor, Status};

fn main() {
    let n = 40 << 20;
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let data: Vec<u8> = (0..n / 4)
        .flat_map(|i: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let smooth = ((i % 1000) as f32 * 0.5).to_bits();
            f32::from_bits(smooth ^ (x as u32 & 0xFF)).to_le_bytes()
        })
        .collect();
    let stored = zstd::bulk::compress(&data, 3).unwrap();
    let codecs = BytesCodecs {
        compressor: Some(Compressor::ZSTD),
        ..Default::default()
    };
    let mut decoder = ChunkDecoder::new();
    decoder.set_backend(Box::new(zinto::CZstd::new().unwrap()));
    let mut out = vec![0u8; n];
    let mut best = f64::MAX;
    for _ in 0..15 {
        let t = Instant::now();
        decoder.start(&codecs, stored.len() as u64, n).unwrap();
        let mut status = Status::NeedsInput;
        for block in stored.chunks(zinto::BLOCK_LEN) {
            status = decoder.feed(block, &mut out).unwrap().status;
        }
        assert_eq!(status, Status::Done);
        best = best.min(t.elapsed().as_secs_f64());
    }
    assert!(out == data, "decoded other bytes");
    println!(
        "compression {:.2}x, best {:.1} MB/s",
        n as f64 / stored.len() as f64,
        n as f64 / best / 1e6
    );
}
