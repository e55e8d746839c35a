//! Chunks read through a window (path 3, docs/memory.md) land in the right place whatever the
//! window's boundaries: mid-element, mid-run, across the runs of interleaved outputs written by
//! several workers at once.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a panic is a failed test
#![allow(clippy::cast_possible_truncation)]

use std::io::Write;
use std::num::NonZeroUsize;

use serde_json::json;
use zinto::{Array, BLOCK_LEN, MemoryStore, ReadOptions, Region, Store};

const ROWS: u64 = 256;
const COLS: u64 = 2000;
const CHUNK: [u64; 2] = [256, 1000];

/// Noise: gzip stores it nearly as is, so a chunk (1 MB) spans several input blocks and the
/// inflater's output ends wherever a block of input does, mid-element.
fn data() -> Vec<u8> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    (0..ROWS * COLS * 4)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// A float32 array of `ROWS × COLS` in chunks of `CHUNK`, with `codec`: two chunks side by
/// side, so that their rows interleave in the output.
fn array(codec: serde_json::Value, encode: impl Fn(&[u8]) -> Vec<u8>) -> MemoryStore {
    let meta = json!({
        "zarr_format": 3, "node_type": "array", "shape": [ROWS, COLS], "data_type": "float32",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": CHUNK}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0.0,
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, codec],
    });
    let mut store = MemoryStore::new();
    store.insert("a/zarr.json", serde_json::to_vec(&meta).unwrap());
    let all = data();
    for c in 0..2u64 {
        let mut chunk = Vec::new();
        for r in 0..ROWS {
            let at = ((r * COLS + c * CHUNK[1]) * 4) as usize;
            chunk.extend_from_slice(&all[at..at + CHUNK[1] as usize * 4]);
        }
        store.insert(format!("a/c/0/{c}"), encode(&chunk));
    }
    store
}

fn gzip(chunk: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(1));
    e.write_all(chunk).unwrap();
    e.finish().unwrap()
}

#[test]
fn interleaved_chunks_through_windows_land_right_on_several_workers() {
    let cases = [
        (
            json!({"name": "gzip", "configuration": {"level": 1}}),
            gzip as fn(&[u8]) -> Vec<u8>,
        ),
        (
            json!({"name": "zstd", "configuration": {"level": 1}}),
            |c: &[u8]| zstd::bulk::compress(c, 1).unwrap(),
        ),
    ];
    let all = data();
    for (codec, encode) in cases {
        let store = array(codec.clone(), encode);
        assert!(
            store.size("a/c/0/0").unwrap().unwrap() > BLOCK_LEN as u64,
            "{codec}: a chunk fits one input block"
        );
        let array = Array::open(&store, "a").unwrap();
        for threads in [1, 2] {
            let options = ReadOptions {
                threads: NonZeroUsize::new(threads),
                ..ReadOptions::default()
            };
            // The whole array (each chunk whole, its rows interleaved with the other's), and
            // a selection cutting both chunks mid-row.
            for (start, shape) in [([0, 0], [ROWS, COLS]), ([3, 501], [250, 1001])] {
                let sel = Region::new(&start, &shape).unwrap();
                let mut out = vec![0u8; array.selection_len(&sel).unwrap()];
                array.read_into_with(&sel, &mut out, &options).unwrap();
                let row_len = shape[1] as usize * 4;
                for (i, row) in out.chunks(row_len).enumerate() {
                    let at = (((start[0] + i as u64) * COLS + start[1]) * 4) as usize;
                    assert!(
                        row == &all[at..at + row_len],
                        "{codec}, {threads} threads, {start:?}: row {i} differs"
                    );
                }
            }
        }
    }
}
