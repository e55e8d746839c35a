//! Decoder throughput: each decoder writing into a caller's buffer, versus the same decoder
//! producing a fresh `Vec` that is then copied into the caller's buffer (what a reader without
//! zinto's layout knowledge does), and for zstd, ruzstd versus the C library.
//!
//! Run: `cargo bench -p zinto-core --features alloc --bench decoders`
//! Prints a Markdown table; MB/s counts decoded bytes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a bench that fails should stop
#![allow(clippy::cast_possible_truncation)]

use std::hint::black_box;
use std::io::{Read, Write};
use std::time::Instant;

use zinto_core::codec::{BytesCodecs, ChunkDecoder, Compressor, Crc32cCount, crc32c};

const LEN: usize = 32 << 20;

/// Float32 samples of a smooth field with noise: compresses about 2-3x, like real data.
fn data() -> Vec<u8> {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    (0..LEN / 4)
        .flat_map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = ((i % 4096) as f32 * 0.001).sin() * 100.0 + (x % 16) as f32 * 0.01;
            v.to_le_bytes()
        })
        .collect()
}

fn best_of(runs: usize, mut f: impl FnMut()) -> f64 {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn mbps(secs: f64) -> f64 {
    LEN as f64 / secs / 1e6
}

fn into_buffer(bc: BytesCodecs, stored: &[u8], out: &mut [u8]) {
    let mut d = ChunkDecoder::new();
    d.start(&bc, stored.len() as u64, out.len()).unwrap();
    for piece in stored.chunks(1 << 20) {
        d.feed(piece, out).unwrap();
    }
}

fn main() {
    let raw = data();
    let mut out = vec![0u8; LEN];
    let runs = 5;
    println!("| decoder | into caller buffer (MB/s) | fresh Vec + copy (MB/s) | ratio |");
    println!("|---|---:|---:|---:|");

    // crc32c over an uncompressed chunk.
    let mut stored = raw.clone();
    stored.extend(crc32c(&raw).to_le_bytes());
    let bc = BytesCodecs {
        compressor: None,
        crc32c: Crc32cCount::ONE,
    };
    let a = best_of(runs, || into_buffer(bc, &stored, &mut out));
    let b = best_of(runs, || {
        let v = stored[..LEN].to_vec();
        assert_eq!(
            crc32c(&v),
            u32::from_le_bytes(stored[LEN..].try_into().unwrap())
        );
        out.copy_from_slice(&v);
    });
    row("crc32c (verify + place)", a, b);

    // gzip and zlib: zinto's miniz_oxide path, against flate2 (miniz_oxide backend) to a Vec.
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(5));
    e.write_all(&raw).unwrap();
    let gz = e.finish().unwrap();
    let bc = BytesCodecs {
        compressor: Some(Compressor::Gzip),
        crc32c: Crc32cCount::NONE,
    };
    let a = best_of(runs, || into_buffer(bc, &gz, &mut out));
    let b = best_of(runs, || {
        let mut v = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut v)
            .unwrap();
        out.copy_from_slice(&v);
    });
    row("gzip", a, b);

    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(5));
    e.write_all(&raw).unwrap();
    let zl = e.finish().unwrap();
    let bc = BytesCodecs {
        compressor: Some(Compressor::Zlib),
        crc32c: Crc32cCount::NONE,
    };
    let a = best_of(runs, || into_buffer(bc, &zl, &mut out));
    let b = best_of(runs, || {
        let mut v = Vec::new();
        flate2::read::ZlibDecoder::new(&zl[..])
            .read_to_end(&mut v)
            .unwrap();
        out.copy_from_slice(&v);
    });
    row("zlib", a, b);

    // zstd: ruzstd (zinto-core) into the buffer; ruzstd to a Vec + copy; and the C library.
    let zs = zstd::bulk::compress(&raw, 3).unwrap();
    let bc = BytesCodecs {
        compressor: Some(Compressor::Zstd),
        crc32c: Crc32cCount::NONE,
    };
    let a = best_of(runs, || into_buffer(bc, &zs, &mut out));
    let b = best_of(runs, || {
        let mut v = Vec::new();
        let mut d = ruzstd::decoding::StreamingDecoder::new(&zs[..]).unwrap();
        std::io::copy(&mut d, &mut v).unwrap();
        out.copy_from_slice(&v);
    });
    row("zstd (ruzstd)", a, b);
    let c_into = best_of(runs, || {
        zstd::bulk::decompress_to_buffer(&zs, &mut out).unwrap();
    });
    let c_vec = best_of(runs, || {
        let v = zstd::bulk::decompress(&zs, LEN).unwrap();
        out.copy_from_slice(&v);
    });
    row("zstd (C library)", c_into, c_vec);
    black_box(&out);
    println!();
    println!(
        "ruzstd into buffer / C library into buffer: {:.2}",
        mbps(a) / mbps(c_into)
    );
    println!(
        "compressed sizes: gzip {:.2}x, zlib {:.2}x, zstd {:.2}x of {} MiB",
        LEN as f64 / gz.len() as f64,
        LEN as f64 / zl.len() as f64,
        LEN as f64 / zs.len() as f64,
        LEN >> 20
    );
}

fn row(name: &str, into: f64, copy: f64) {
    println!(
        "| {name} | {:.0} | {:.0} | {:.2} |",
        mbps(into),
        mbps(copy),
        mbps(into) / mbps(copy)
    );
}
