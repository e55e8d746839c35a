//! Property test of the std adapter: random shapes, chunk shapes, codecs and selections, arrays
//! written by a small test-only encoder into a `MemoryStore`, read back and compared with slicing
//! the source data directly.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a panic is a failed test
#![allow(clippy::cast_possible_truncation)] // test shapes are tiny

use std::io::Write;

use proptest::prelude::*;
use serde_json::json;
use zinto::{Array, MemoryStore, Region};

#[derive(Debug, Clone)]
struct Case {
    shape: Vec<u64>,
    chunk: Vec<u64>,
    elem: usize,
    big_endian: bool,
    transpose: Option<Vec<usize>>,
    compressor: u8, // 0 none, 1 gzip, 2 zstd
    crc32c: bool,
    missing: Vec<bool>,
    sel: Vec<(u64, u64)>,
}

fn case() -> impl Strategy<Value = Case> {
    (1usize..=3)
        .prop_flat_map(|ndim| {
            (
                proptest::collection::vec(1u64..10, ndim),
                proptest::collection::vec(1u64..5, ndim),
                prop_oneof![Just(1usize), Just(2), Just(4), Just(8)],
                any::<bool>(),
                proptest::option::of(Just((0..ndim).collect::<Vec<_>>()).prop_shuffle()),
                0u8..3,
                any::<bool>(),
                proptest::collection::vec(any::<bool>(), 64),
                proptest::collection::vec((any::<u64>(), any::<u64>()), ndim),
            )
        })
        .prop_map(
            |(shape, chunk, elem, big_endian, transpose, compressor, crc32c, missing, picks)| {
                let sel = shape
                    .iter()
                    .zip(&picks)
                    .map(|(&n, &(p, q))| {
                        let s = p % n;
                        (s, 1 + q % (n - s))
                    })
                    .collect();
                Case {
                    shape,
                    chunk,
                    elem,
                    big_endian,
                    transpose,
                    compressor,
                    crc32c,
                    missing,
                    sel,
                }
            },
        )
}

const FILL: u8 = 0xAB;

/// Native-endian bytes of the element at array coordinates `c`.
fn element(c: &[u64], elem: usize) -> Vec<u8> {
    let v = c
        .iter()
        .fold(7u64, |a, &x| a.wrapping_mul(31).wrapping_add(x + 1));
    v.wrapping_mul(0x9E37_79B9_7F4A_7C15).to_ne_bytes()[..elem].to_vec()
}

fn unravel(mut i: u64, shape: &[u64]) -> Vec<u64> {
    let mut out = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        out[d] = i % shape[d];
        i /= shape[d];
    }
    out
}

/// The test-only encoder: one stored chunk, exactly as the Zarr v3 spec describes it.
fn encode_chunk(c: &Case, coords: &[u64]) -> Vec<u8> {
    let n: u64 = c.chunk.iter().product();
    let ndim = c.shape.len();
    let axes: Vec<usize> = c.transpose.clone().unwrap_or_else(|| (0..ndim).collect());
    // Stored shape is the chunk shape permuted; walk it in C order.
    let stored_shape: Vec<u64> = axes.iter().map(|&a| c.chunk[a]).collect();
    let mut out = Vec::with_capacity(n as usize * c.elem);
    for i in 0..n {
        let s = unravel(i, &stored_shape);
        let mut local = vec![0; ndim];
        for (k, &a) in axes.iter().enumerate() {
            local[a] = s[k];
        }
        let global: Vec<u64> = local
            .iter()
            .zip(coords)
            .zip(&c.chunk)
            .map(|((l, g), s)| g * s + l)
            .collect();
        let mut e = if global.iter().zip(&c.shape).all(|(g, n)| g < n) {
            element(&global, c.elem)
        } else {
            vec![FILL; c.elem]
        };
        if c.big_endian == cfg!(target_endian = "little") {
            e.reverse();
        }
        out.extend(e);
    }
    let mut out = match c.compressor {
        1 => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(&out).unwrap();
            e.finish().unwrap()
        }
        2 => zstd::bulk::compress(&out, 1).unwrap(),
        _ => out,
    };
    if c.crc32c {
        let crc = zinto::core::codec::crc32c(&out);
        out.extend(crc.to_le_bytes());
    }
    out
}

fn write_array(c: &Case) -> MemoryStore {
    let mut codecs = vec![];
    if let Some(t) = &c.transpose {
        codecs.push(json!({"name": "transpose", "configuration": {"order": t}}));
    }
    codecs.push(json!({"name": "bytes", "configuration": {"endian": if c.big_endian { "big" } else { "little" }}}));
    match c.compressor {
        1 => codecs.push(json!({"name": "gzip", "configuration": {"level": 1}})),
        2 => codecs.push(json!({"name": "zstd", "configuration": {"level": 1, "checksum": false}})),
        _ => {}
    }
    if c.crc32c {
        codecs.push(json!({"name": "crc32c"}));
    }
    let dtype = match c.elem {
        1 => "uint8",
        2 => "uint16",
        4 => "uint32",
        _ => "uint64",
    };
    let fill = u64::from_ne_bytes([FILL; 8]) & (u64::MAX >> (64 - 8 * c.elem as u32));
    let meta = json!({
        "zarr_format": 3, "node_type": "array", "shape": c.shape, "data_type": dtype,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": c.chunk}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": fill, "codecs": codecs,
    });
    let mut store = MemoryStore::new();
    store.insert("arr/zarr.json", serde_json::to_vec(&meta).unwrap());
    let grid: Vec<u64> = c
        .shape
        .iter()
        .zip(&c.chunk)
        .map(|(n, s)| n.div_ceil(*s))
        .collect();
    let count: u64 = grid.iter().product();
    for i in 0..count {
        if c.missing[i as usize % c.missing.len()] {
            continue;
        }
        let coords = unravel(i, &grid);
        let key = format!(
            "arr/c/{}",
            coords
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join("/")
        );
        store.insert(key, encode_chunk(c, &coords));
    }
    store
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn read_matches_slicing_the_source(c in case()) {
        let store = write_array(&c);
        let array = Array::open(&store, "arr").unwrap();
        let start: Vec<u64> = c.sel.iter().map(|s| s.0).collect();
        let shape: Vec<u64> = c.sel.iter().map(|s| s.1).collect();
        let got = array.read_to_vec(&Region::new(&start, &shape).unwrap()).unwrap();

        let grid: Vec<u64> = c.shape.iter().zip(&c.chunk).map(|(n, s)| n.div_ceil(*s)).collect();
        let n: u64 = shape.iter().product();
        let mut expected = Vec::new();
        for i in 0..n {
            let local = unravel(i, &shape);
            let global: Vec<u64> = local.iter().zip(&start).map(|(l, s)| l + s).collect();
            let chunk: Vec<u64> = global.iter().zip(&c.chunk).map(|(g, s)| g / s).collect();
            let linear = chunk.iter().zip(&grid).fold(0u64, |a, (x, g)| a * g + x);
            if c.missing[linear as usize % c.missing.len()] {
                expected.extend(vec![FILL; c.elem]);
            } else {
                expected.extend(element(&global, c.elem));
            }
        }
        prop_assert_eq!(got, expected);
    }
}
