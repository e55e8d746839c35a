//! Concatenating variable-size chunks into one exact buffer: every codec, thread counts,
//! and each way the chunks can lie about their size.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::num::NonZeroUsize;

use zinto::core::codec::{BytesCodecs, Checksums, CodecName, Compressor, DecodeError, crc32c};
use zinto::{
    ConcatPlan, ErrorKind, MemoryStore, ReadOptions, StoreError, concat_into, concat_to_vec,
};

fn codecs(compressor: Option<Compressor>, crc: u8) -> BytesCodecs {
    BytesCodecs {
        compressor,
        checksums: Checksums::crc32c(usize::from(crc)).unwrap(),
    }
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn encode(c: &BytesCodecs, data: &[u8]) -> Vec<u8> {
    let mut out = match c.compressor {
        None => data.to_vec(),
        Some(Compressor::Zstd(_)) => zstd::bulk::compress(data, 3).unwrap(),
        Some(Compressor::Gzip(_)) => gzip(data),
        Some(other) => unreachable!("no encoder for {other}"),
    };
    for _ in 0..c.checksums.len() {
        let sum = crc32c(&out);
        out.extend(sum.to_le_bytes());
    }
    out
}

/// Chunks of sizes 0, 1, ..., with distinct contents; returns the store, keys and their concatenation.
fn chunks(c: &BytesCodecs, sizes: &[usize]) -> (MemoryStore, Vec<String>, Vec<u8>) {
    let mut store = MemoryStore::new();
    let (mut keys, mut all) = (Vec::new(), Vec::new());
    for (i, &n) in sizes.iter().enumerate() {
        let data: Vec<u8> = (0..n).map(|j| (j * 13 + i * 101) as u8).collect();
        let key = format!("part/{i}");
        store.insert(key.clone(), encode(c, &data));
        keys.push(key);
        all.extend(data);
    }
    (store, keys, all)
}

#[test]
fn every_codec_and_thread_count_gives_the_concatenation() {
    let sizes = [0usize, 1, 4096, 3, 1 << 20, 70_001, 0, 2 << 20, 5];
    for c in [
        codecs(None, 0),
        codecs(None, 1),
        codecs(Some(Compressor::ZSTD), 0),
        codecs(Some(Compressor::GZIP), 0),
        codecs(Some(Compressor::ZSTD), 2),
    ] {
        let (store, keys, all) = chunks(&c, &sizes);
        let plan = ConcatPlan::new(&store, &keys, c).unwrap();
        assert_eq!(plan.len(), all.len());
        let offsets: Vec<usize> = plan.pieces().iter().map(|p| p.offset).collect();
        let expected: Vec<usize> = sizes
            .iter()
            .scan(0, |at, n| {
                let o = *at;
                *at += n;
                Some(o)
            })
            .collect();
        assert_eq!(offsets, expected);
        for threads in [1, 2, 5] {
            let options = ReadOptions {
                threads: NonZeroUsize::new(threads),
                progress: None,
                ..ReadOptions::default()
            };
            let got = plan.read_to_vec(&store, &options).unwrap();
            assert!(got == all, "{c:?} with {threads} threads");
        }
        let mut out = vec![0u8; all.len()];
        concat_into(&store, &keys, c, &mut out).unwrap();
        assert!(out == all);
        assert!(concat_to_vec(&store, &keys, c).unwrap() == all);
    }
}

#[test]
fn progress_counts_every_chunk() {
    let c = codecs(Some(Compressor::ZSTD), 0);
    let (store, keys, _) = chunks(&c, &[10, 20, 30, 40]);
    let seen = std::sync::Mutex::new(Vec::new());
    let progress = |done: u64, total: u64| seen.lock().unwrap().push((done, total));
    let options = ReadOptions {
        threads: NonZeroUsize::new(2),
        progress: Some(&progress),
        ..ReadOptions::default()
    };
    ConcatPlan::new(&store, &keys, c)
        .unwrap()
        .read_to_vec(&store, &options)
        .unwrap();
    let mut seen = seen.into_inner().unwrap();
    seen.sort_unstable();
    assert_eq!(seen, [(1, 4), (2, 4), (3, 4), (4, 4)]);
}

/// A concatenation checks `cancel` before each file: set after the first, the read stops with
/// `Cancelled` and decodes no further file (on the workers of the one pool reads use).
#[test]
fn cancel_stops_a_concatenation_between_files() {
    let c = codecs(Some(Compressor::ZSTD), 0);
    let (store, keys, _) = chunks(&c, &[10, 20, 30, 40]);
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let done = std::sync::atomic::AtomicU64::new(0);
    let progress = |n: u64, _: u64| {
        done.store(n, std::sync::atomic::Ordering::SeqCst);
        cancel.store(true, std::sync::atomic::Ordering::SeqCst);
    };
    let options = ReadOptions {
        threads: NonZeroUsize::new(1),
        progress: Some(&progress),
        cancel: Some(&cancel),
        ..ReadOptions::default()
    };
    let e = ConcatPlan::new(&store, &keys, c)
        .unwrap()
        .read_to_vec(&store, &options)
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Cancelled), "{e}");
    assert_eq!(done.load(std::sync::atomic::Ordering::SeqCst), 1);
}

/// The plan or the read fails, naming `key`, with an error `check` accepts.
fn fails_naming(
    store: &MemoryStore,
    c: BytesCodecs,
    key: &str,
    check: impl Fn(&ErrorKind) -> bool,
) {
    let keys = ["part/0", "part/1"];
    let err = ConcatPlan::new(store, &keys, c)
        .and_then(|plan| plan.read_to_vec(store, &ReadOptions::default()))
        .unwrap_err();
    assert_eq!(err.key(), Some(key), "{err}");
    assert!(check(err.kind()), "unexpected: {err}");
    assert!(
        err.to_string().starts_with(&format!("chunk {key}: ")),
        "{err}"
    );
}

#[test]
fn chunks_that_lie_about_their_size_are_refused_by_name() {
    let zstd = codecs(Some(Compressor::ZSTD), 0);
    let (mut store, _, _) = chunks(&zstd, &[100, 100]);

    // Missing key.
    store.remove("part/1");
    fails_naming(&store, zstd, "part/1", |k| {
        matches!(k, ErrorKind::Store(StoreError::Missing))
    });

    // A streamed zstd frame: no content size to plan with.
    let mut enc = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
    enc.write_all(&[1u8; 100]).unwrap();
    store.insert("part/1", enc.finish().unwrap());
    fails_naming(&store, zstd, "part/1", |k| {
        matches!(
            k,
            ErrorKind::Decode(DecodeError::SizeUnknown {
                codec: CodecName::Zstd
            })
        )
    });

    // A tiny frame claiming a terabyte: refused before anything is allocated for it.
    // Magic, then descriptor 0xe0: single segment, 8-byte content size, no window byte.
    let mut forged = vec![0x28, 0xb5, 0x2f, 0xfd, 0xe0];
    forged.extend((1u64 << 40).to_le_bytes());
    forged.extend([0u8; 8]);
    store.insert("part/1", forged);
    fails_naming(
        &store,
        zstd,
        "part/1",
        |k| matches!(k, ErrorKind::ChunkTooLarge { decoded, .. } if *decoded == 1 << 40),
    );

    // gzip whose ISIZE trailer is off by one: the plan trusts it, the decoder does not.
    let gz = codecs(Some(Compressor::GZIP), 0);
    let (mut store, _, _) = chunks(&gz, &[100, 100]);
    let mut lying = gzip(&[7u8; 100]);
    let n = lying.len();
    lying[n - 4..].copy_from_slice(&101u32.to_le_bytes());
    store.insert("part/1", lying);
    fails_naming(&store, gz, "part/1", |k| matches!(k, ErrorKind::Decode(_)));

    // A truthful header, then the frame cut short.
    let (mut store, _, _) = chunks(&zstd, &[100, 100]);
    let mut cut = zstd::bulk::compress(&(0..100u8).collect::<Vec<_>>(), 3).unwrap();
    cut.truncate(cut.len() - 3);
    store.insert("part/1", cut);
    fails_naming(&store, zstd, "part/1", |k| {
        matches!(k, ErrorKind::Decode(_))
    });

    // zlib never declares its size.
    let zlib = codecs(Some(Compressor::ZLIB), 0);
    fails_naming(&store, zlib, "part/0", |k| {
        matches!(
            k,
            ErrorKind::Decode(DecodeError::SizeUnknown {
                codec: CodecName::Zlib
            })
        )
    });
}

#[test]
fn a_wrong_output_size_is_refused_before_anything_is_read() {
    let c = codecs(None, 0);
    let (store, keys, all) = chunks(&c, &[10, 20]);
    let mut out = vec![0u8; all.len() + 1];
    let err = concat_into(&store, &keys, c, &mut out).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::OutputSize {
                expected: 30,
                got: 31
            }
        ),
        "{err}"
    );
    assert_eq!(err.key(), None);
    assert!(out.iter().all(|&b| b == 0), "nothing written");
}
