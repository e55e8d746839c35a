//! Decoder throughput: each decoder writing into a caller's buffer, versus the same decoder
//! producing a fresh `Vec` that is then copied into the caller's buffer (what a reader without
//! zinto's layout knowledge does). For zstd: zinto-core's pure-Rust path (ruzstd), zinto's
//! default backend ([`zinto::CZstd`], libzstd streaming), and the `zstd` crate's one-shot calls
//! as a reference for what the C library does with the whole frame in one call.
//!
//! zinto's decoders go through a [`ChunkDecoder`] fed in blocks of [`zinto::BLOCK_LEN`] (1 MiB),
//! as the read path does, reused across runs as a read reuses it across chunks. Every timed
//! decode is checked after it ran (outside the timed region): it finished, wrote the whole
//! output, and the output equals the input; the buffer is overwritten with the complement of
//! the input before each run, so a byte a decoder did not write fails the check.
//!
//! Here (in zinto, not zinto-core) because it needs both crates: a dev-dependency of zinto-core
//! on zinto would turn on zinto-core's `alloc` feature in zinto-core's own no-`alloc` tests.
//!
//! Run: `cargo bench -p zinto --bench decoders`
//! Prints a Markdown table; MB/s counts decoded bytes; best of 5 runs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a bench that fails should stop
#![allow(clippy::cast_possible_truncation)]

use std::hint::black_box;
use std::io::{Read, Write};
use std::time::Instant;

use zinto_core::codec::{BytesCodecs, Checksums, ChunkDecoder, Compressor, Status, crc32c};

const LEN: usize = 32 << 20;
const RUNS: usize = 5;

/// Float32 samples of a smooth field with noise. How well it compresses is measured and printed
/// per codec (the "compression" column), not assumed.
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

/// What one decode reports: whether it finished, and how many bytes it produced.
struct Decoded {
    status: Status,
    len: usize,
}

impl Decoded {
    /// A decode that returned the whole of its output (the `Vec` and one-shot paths, whose
    /// success is the call returning).
    fn returned(len: usize) -> Self {
        Self {
            status: Status::Done,
            len,
        }
    }
}

/// The best time of [`RUNS`] runs of `f`, each checked against `raw` after it ran.
fn best_of(name: &str, raw: &[u8], out: &mut [u8], mut f: impl FnMut(&mut [u8]) -> Decoded) -> f64 {
    let mut best = f64::INFINITY;
    for run in 0..RUNS {
        for (o, r) in out.iter_mut().zip(raw) {
            *o = !r;
        }
        let t = Instant::now();
        let d = f(out);
        let secs = t.elapsed().as_secs_f64();
        check(name, run, raw, out, &d);
        best = best.min(secs);
    }
    black_box(&out);
    best
}

fn check(name: &str, run: usize, raw: &[u8], out: &[u8], d: &Decoded) {
    if d.status != Status::Done {
        panic!(
            "{name}, run {run}: the decode did not finish ({:?} after {} of {} bytes)",
            d.status,
            d.len,
            raw.len()
        );
    }
    if d.len != raw.len() {
        panic!(
            "{name}, run {run}: decoded {} bytes, the input has {}",
            d.len,
            raw.len()
        );
    }
    if let Some(at) = out.iter().zip(raw).position(|(o, r)| o != r) {
        panic!("{name}, run {run}: the output differs from the input at byte {at}");
    }
}

/// zinto's path: one chunk fed to `d` in read-path blocks, straight into `out`.
fn into_buffer(d: &mut ChunkDecoder, bc: BytesCodecs, stored: &[u8], out: &mut [u8]) -> Decoded {
    d.start(&bc, stored.len() as u64, out.len()).unwrap();
    let mut status = Status::NeedsInput;
    for block in stored.chunks(zinto::BLOCK_LEN) {
        status = d.feed(block, out).unwrap().status;
    }
    Decoded {
        status,
        len: d.written(),
    }
}

/// The `Vec` path's last step: copy into the caller's buffer (a wrong length is caught by the
/// check, not by a panic of `copy_from_slice`).
fn copy_out(v: &[u8], out: &mut [u8]) -> Decoded {
    if let Some(dst) = out.get_mut(..v.len()) {
        dst.copy_from_slice(v);
    }
    Decoded::returned(v.len())
}

fn main() {
    let raw = data();
    let mut out = vec![0u8; LEN];
    println!(
        "| decoder | into caller buffer (MB/s) | fresh Vec + copy (MB/s) | into / Vec | compression (raw / stored) |"
    );
    println!("|---|---:|---:|---:|---:|");

    // crc32c over an uncompressed chunk.
    let mut stored = raw.clone();
    stored.extend(crc32c(&raw).to_le_bytes());
    let bc = BytesCodecs {
        compressor: None,
        checksums: Checksums::CRC32C,
    };
    let mut dec = ChunkDecoder::new();
    let name = "crc32c (verify + place)";
    let a = best_of(name, &raw, &mut out, |out| {
        into_buffer(&mut dec, bc, &stored, out)
    });
    let b = best_of(name, &raw, &mut out, |out| {
        let v = stored[..LEN].to_vec();
        assert_eq!(
            crc32c(&v),
            u32::from_le_bytes(stored[LEN..].try_into().unwrap()),
            "{name}: checksum mismatch on the Vec path"
        );
        copy_out(&v, out)
    });
    row(name, a, b, &stored);

    // gzip and zlib: zinto's miniz_oxide path, against flate2 (miniz_oxide backend) to a Vec.
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(5));
    e.write_all(&raw).unwrap();
    let gz = e.finish().unwrap();
    let bc = BytesCodecs {
        compressor: Some(Compressor::GZIP),
        checksums: Checksums::NONE,
    };
    let name = "gzip (miniz_oxide; Vec path: flate2 on miniz_oxide)";
    let a = best_of(name, &raw, &mut out, |out| {
        into_buffer(&mut dec, bc, &gz, out)
    });
    let b = best_of(name, &raw, &mut out, |out| {
        let mut v = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut v)
            .unwrap();
        copy_out(&v, out)
    });
    row(name, a, b, &gz);

    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(5));
    e.write_all(&raw).unwrap();
    let zl = e.finish().unwrap();
    let bc = BytesCodecs {
        compressor: Some(Compressor::ZLIB),
        checksums: Checksums::NONE,
    };
    let name = "zlib (same)";
    let a = best_of(name, &raw, &mut out, |out| {
        into_buffer(&mut dec, bc, &zl, out)
    });
    let b = best_of(name, &raw, &mut out, |out| {
        let mut v = Vec::new();
        flate2::read::ZlibDecoder::new(&zl[..])
            .read_to_end(&mut v)
            .unwrap();
        copy_out(&v, out)
    });
    row(name, a, b, &zl);

    // zstd, level 3, one frame (content size in the header, as the `zstd` crate writes it).
    let zs = zstd::bulk::compress(&raw, 3).unwrap();
    let bc = BytesCodecs {
        compressor: Some(Compressor::ZSTD),
        checksums: Checksums::NONE,
    };

    // zinto-core's pure-Rust path (ruzstd: the default of a ChunkDecoder; zinto without
    // `zstd-c`), against ruzstd's own streaming decoder to a Vec.
    let name = "zstd: ruzstd (zinto-core; Vec path: ruzstd StreamingDecoder)";
    let ruzstd_into = best_of(name, &raw, &mut out, |out| {
        into_buffer(&mut dec, bc, &zs, out)
    });
    let b = best_of(name, &raw, &mut out, |out| {
        let mut v = Vec::new();
        let mut d = ruzstd::decoding::StreamingDecoder::new(&zs[..]).unwrap();
        std::io::copy(&mut d, &mut v).unwrap();
        copy_out(&v, out)
    });
    row(name, ruzstd_into, b, &zs);

    // zinto's default backend: zinto::CZstd in a ChunkDecoder, as the read path sets it up,
    // against the `zstd` crate's streaming decoder (the same library, streaming) to a Vec.
    let mut c_dec = ChunkDecoder::new();
    c_dec.set_backend(Box::new(zinto::CZstd::new().unwrap()));
    let name = "zstd: zinto::CZstd (default; Vec path: `zstd` crate streaming Decoder)";
    let czstd_into = best_of(name, &raw, &mut out, |out| {
        into_buffer(&mut c_dec, bc, &zs, out)
    });
    let b = best_of(name, &raw, &mut out, |out| {
        let mut v = Vec::new();
        zstd::stream::read::Decoder::new(&zs[..])
            .unwrap()
            .read_to_end(&mut v)
            .unwrap();
        copy_out(&v, out)
    });
    row(name, czstd_into, b, &zs);

    // Reference: the `zstd` crate's one-shot calls, the whole frame at once (not how zinto
    // reads: it streams the stored chunk in blocks).
    let name = "zstd: reference C one-shot (`decompress_to_buffer`; Vec path: `decompress`)";
    let oneshot_into = best_of(name, &raw, &mut out, |out| {
        Decoded::returned(zstd::bulk::decompress_to_buffer(&zs, out).unwrap())
    });
    let b = best_of(name, &raw, &mut out, |out| {
        let v = zstd::bulk::decompress(&zs, LEN).unwrap();
        copy_out(&v, out)
    });
    row(name, oneshot_into, b, &zs);

    println!();
    println!(
        "into the buffer: ruzstd / zinto::CZstd {:.2}; zinto::CZstd / reference C one-shot {:.2}",
        mbps(ruzstd_into) / mbps(czstd_into),
        mbps(czstd_into) / mbps(oneshot_into)
    );
    println!(
        "stored sizes of the {} MiB: crc32c {} B, gzip {} B, zlib {} B, zstd {} B; every decode checked equal to the input",
        LEN >> 20,
        stored.len(),
        gz.len(),
        zl.len(),
        zs.len()
    );
    lz4_blocks(&raw, &mut out);
}

/// zinto-core's LZ4 block decoder against lz4_flex's safe one, the choice benchmarks.md@cf4ff61
/// reports: the field byte-shuffled in 256 KiB blocks (as Blosc stores float32 by default),
/// each block LZ4-compressed by lz4_flex, all blocks decoded into the caller's buffer.
fn lz4_blocks(raw: &[u8], out: &mut [u8]) {
    const BLOCK: usize = 256 * 1024;
    let shuffled: Vec<u8> = raw
        .chunks(BLOCK)
        .flat_map(|b| {
            let mut s = vec![0u8; b.len()];
            let n = b.len() / 4;
            for (i, e) in b.chunks_exact(4).enumerate() {
                for (j, &byte) in e.iter().enumerate() {
                    s[j * n + i] = byte;
                }
            }
            s
        })
        .collect();
    let blocks: Vec<Vec<u8>> = shuffled
        .chunks(BLOCK)
        .map(lz4_flex::block::compress)
        .collect();
    let stored: usize = blocks.iter().map(Vec::len).sum();
    type Block = dyn Fn(&[u8], &mut [u8]) -> Option<usize>;
    let decode_all = |out: &mut [u8], f: &Block| {
        let mut len = 0;
        for (block, dst) in blocks.iter().zip(out.chunks_mut(BLOCK)) {
            match f(block, dst) {
                Some(n) => len += n,
                None => break,
            }
        }
        Decoded::returned(len)
    };
    let name = "lz4 blocks: zinto-core (codec/lz4.rs)";
    let ours = best_of(name, &shuffled, out, |out| {
        decode_all(out, &|b, d| zinto::core::codec::lz4::decompress(b, d).ok())
    });
    let name = "lz4 blocks: lz4_flex (safe decoder)";
    let theirs = best_of(name, &shuffled, out, |out| {
        decode_all(out, &|b, d| lz4_flex::block::decompress_into(b, d).ok())
    });
    println!();
    println!(
        "| LZ4 blocks of 256 KiB, into the caller's buffer | MB/s | compression (raw / stored) |"
    );
    println!("|---|---:|---:|");
    let ratio = LEN as f64 / stored as f64;
    println!(
        "| zinto-core `codec::lz4` | {:.0} | {ratio:.2}x |",
        mbps(ours)
    );
    println!(
        "| lz4_flex 0.11, safe decoder | {:.0} | {ratio:.2}x |",
        mbps(theirs)
    );
}

fn mbps(secs: f64) -> f64 {
    LEN as f64 / secs / 1e6
}

fn row(name: &str, into: f64, copy: f64, stored: &[u8]) {
    println!(
        "| {name} | {:.0} | {:.0} | {:.2} | {:.2}x |",
        mbps(into),
        mbps(copy),
        mbps(into) / mbps(copy),
        LEN as f64 / stored.len() as f64
    );
}
