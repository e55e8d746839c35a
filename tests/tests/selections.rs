//! Selections other than a rectangle (issue 62), read from every fixture array zarr-python,
//! numcodecs, tensorstore and zarr-python 3.4 wrote (every codec, sharded and rectilinear
//! grids, F order, every fixed-size type): lists of indices in any order with repeats,
//! negative ones, masks, points, mixed with ranges and single indices, each read equal to the
//! same selection taken from the whole array read as a rectangle, on one worker and on four.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a panic is a failed test

use std::num::NonZeroUsize;
use std::path::PathBuf;

use serde_json::Value;
use zinto::core::selection::{AxisSel, Group, Points, Selection};
use zinto::{Array, FileStore, ReadOptions, Region};

fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/data")
}

/// Every fixture array of a fixed-size type, by name.
fn arrays() -> Vec<String> {
    let mut names = vec![];
    for file in [
        "manifest.json",
        "manifest_numcodecs.json",
        "manifest_tensorstore.json",
        "manifest_zarr34.json",
    ] {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(file);
        let manifest: Vec<Value> = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        for entry in manifest {
            if entry.get("kind").and_then(Value::as_str).unwrap_or("array") == "array" {
                names.push(entry["name"].as_str().unwrap().to_owned());
            }
        }
    }
    names
}

/// A small deterministic generator (xorshift), so a failure names a case that reruns.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
}

/// A random selection of one axis of `extent`: a list (unsorted, repeats, negative), a mask,
/// a range or an index.
fn axis_sel(rng: &mut Rng, extent: u64, dim: usize) -> AxisSel {
    match (rng.below(5), extent) {
        (_, 0) => AxisSel::Range { start: 0, stop: 0 },
        (0 | 1, _) => {
            let n = 1 + rng.below(6);
            let list: Vec<i64> = (0..n)
                .map(|_| {
                    let i = rng.below(extent) as i64;
                    if rng.below(3) == 0 {
                        i - extent as i64
                    } else {
                        i
                    }
                })
                .collect();
            AxisSel::from_signed(&list, extent, dim).unwrap()
        }
        (2, _) => {
            let mask: Vec<bool> = (0..extent).map(|_| rng.below(3) == 0).collect();
            AxisSel::from_mask(&mask, extent, dim).unwrap()
        }
        (3, _) => {
            let a = rng.below(extent + 1);
            let b = rng.below(extent + 1);
            AxisSel::Range {
                start: a.min(b),
                stop: a.max(b),
            }
        }
        _ => AxisSel::Index(rng.below(extent)),
    }
}

/// Points over the first two axes (random), the rest ranges over whole axes.
fn points(rng: &mut Rng, shape: &[u64]) -> Option<Selection> {
    if shape.len() < 2 || shape[..2].contains(&0) {
        return None;
    }
    let n = rng.below(7) as usize;
    let lists: Vec<Vec<i64>> = (0..2)
        .map(|d| (0..n).map(|_| rng.below(shape[d]) as i64).collect())
        .collect();
    let refs: Vec<&[i64]> = lists.iter().map(Vec::as_slice).collect();
    let mut groups = vec![Group::Points(
        Points::from_signed(&[0, 1], &refs, shape).unwrap(),
    )];
    for (d, &n) in shape.iter().enumerate().skip(2) {
        groups.push(Group::Axis {
            dim: d,
            sel: AxisSel::Range { start: 0, stop: n },
        });
    }
    Some(Selection::new(groups, shape).unwrap())
}

/// The selection's elements taken from `whole` (the array read as one rectangle, C order).
fn expected(sel: &Selection, whole: &[u8], elem: usize) -> Vec<u8> {
    let shape = sel.array_shape();
    let mut coords: Vec<Vec<u64>> = vec![vec![0; shape.len()]];
    for g in sel.groups() {
        let mut next = vec![];
        for c in &coords {
            let mut put = |axes: &[(usize, u64)]| {
                let mut c = c.clone();
                for &(d, x) in axes {
                    c[d] = x;
                }
                next.push(c);
            };
            match g {
                Group::Axis { dim, sel } => match sel {
                    AxisSel::Range { start, stop } => {
                        (*start..*stop).for_each(|x| put(&[(*dim, x)]));
                    }
                    AxisSel::Index(i) => put(&[(*dim, *i)]),
                    AxisSel::List(l) => l.iter().for_each(|&x| put(&[(*dim, x)])),
                },
                Group::Points(p) => {
                    for i in 0..p.len() {
                        let axes: Vec<(usize, u64)> =
                            p.axes().zip(p.point(i).unwrap().iter().copied()).collect();
                        put(&axes);
                    }
                }
            }
        }
        coords = next;
    }
    let mut out = Vec::with_capacity(coords.len() * elem);
    for c in coords {
        let linear = c.iter().zip(shape).fold(0u64, |acc, (&x, &n)| acc * n + x) as usize;
        out.extend_from_slice(&whole[linear * elem..(linear + 1) * elem]);
    }
    out
}

#[test]
fn every_fixture_reads_lists_masks_and_points_as_indexing_its_whole_gives() {
    let mut checked = 0usize;
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for name in arrays() {
        let array = Array::open(FileStore::new(data()), &name).unwrap();
        let Some(elem) = array.dtype().fixed_size() else {
            continue;
        };
        let shape = array.shape().to_vec();
        let whole = array.read_to_vec(&Region::whole(&shape).unwrap()).unwrap();
        for case in 0..6 {
            let sel = match (case, points(&mut rng, &shape)) {
                (5, Some(p)) => p,
                _ => {
                    let axes = (0..shape.len())
                        .map(|d| axis_sel(&mut rng, shape[d], d))
                        .collect();
                    Selection::orthogonal(axes, &shape).unwrap()
                }
            };
            let want = expected(&sel, &whole, elem);
            for threads in [1, 4] {
                let options = ReadOptions {
                    threads: NonZeroUsize::new(threads),
                    ..ReadOptions::default()
                };
                let mut got = vec![0u8; array.selected_len(&sel).unwrap()];
                array
                    .read_selection_into_with(&sel, &mut got, &options)
                    .unwrap_or_else(|e| panic!("{name} {sel:?}: {e}"));
                assert!(got == want, "{name}, {threads} threads: {sel:?}");
            }
            checked += 1;
        }
    }
    assert!(checked > 1000, "{checked} selections");
}

/// What a selection asks for is checked before anything is read, naming the axis.
#[test]
fn bad_selections_are_refused_before_reading() {
    let array = Array::open(FileStore::new(data()), "v3_zstd_checksum_crc32c").unwrap();
    let shape = array.shape().to_vec();
    let e = AxisSel::from_signed(&[0, shape[0] as i64], shape[0], 0).unwrap_err();
    assert!(e.to_string().contains("axis 0"), "{e}");
    let e = AxisSel::from_mask(&[true], shape[1], 1).unwrap_err();
    assert!(e.to_string().contains("axis 1"), "{e}");
    // A selection of another array's shape.
    let other = Selection::orthogonal(
        vec![AxisSel::List(vec![0]), AxisSel::Range { start: 0, stop: 1 }],
        &[shape[0] + 1, shape[1]],
    )
    .unwrap();
    let mut out = vec![0u8; 64];
    let e = array.read_selection_into(&other, &mut out).unwrap_err();
    assert!(e.to_string().contains("dimension 0"), "{e}");
    // An output of the wrong size.
    let sel =
        Selection::orthogonal(vec![AxisSel::List(vec![1, 0]), AxisSel::Index(0)], &shape).unwrap();
    let e = array.read_selection_into(&sel, &mut out).unwrap_err();
    assert!(
        matches!(e.kind(), zinto::ErrorKind::OutputSize { .. }),
        "{e}"
    );
}

/// Writes through selections (issue 62): lists in any order with repeats, masks, points, into
/// arrays of every layout zinto writes (zstd, raw, shards, F order), each checked against a
/// model that applies the same writes in the selection's order (a repeated element takes the
/// later value, as NumPy's assignment gives it).
#[test]
fn writes_through_lists_masks_and_points_merge_into_the_chunks() {
    use zinto::{ArrayBuilder, DataType, MemoryStore};
    let shape = [13u64, 11, 5];
    // zstd (and DEFLATE) are written by backends of the default build only: zinto-core's
    // own Blosc LZ4 encoder stands in without them.
    let compress = |b: ArrayBuilder| {
        if cfg!(feature = "zstd-c") {
            b.zstd(1)
        } else {
            b.blosc(
                zinto::core::codec::blosc::BloscCname::Lz4,
                5,
                zinto::core::codec::blosc::BloscShuffle::Shuffle,
            )
        }
    };
    let builders: Vec<(&str, ArrayBuilder)> = vec![
        (
            "compressed",
            compress(ArrayBuilder::new(&shape, DataType::Int32, &[4, 3, 5])),
        ),
        (
            "raw",
            ArrayBuilder::new(&shape, DataType::Int32, &[5, 4, 2]),
        ),
        (
            "shards",
            compress(ArrayBuilder::new(&shape, DataType::Int32, &[2, 3, 5]).shards(&[4, 6, 5])),
        ),
        (
            "order F",
            ArrayBuilder::new(&shape, DataType::Int32, &[4, 4, 5])
                .order(zinto::core::MemoryOrder::f(3).unwrap()),
        ),
    ];
    let mut rng = Rng(0x51_7cc1_b727_220a);
    for (name, builder) in builders {
        let store = MemoryStore::new();
        let array = builder
            .fill_value(serde_json::json!(-1))
            .create(&store, "a")
            .unwrap();
        let mut model = vec![-1i32; shape.iter().product::<u64>() as usize];
        for case in 0..12 {
            let sel = match (case % 4, points(&mut rng, &shape)) {
                (3, Some(p)) => p,
                _ => {
                    let axes = (0..3).map(|d| axis_sel(&mut rng, shape[d], d)).collect();
                    Selection::orthogonal(axes, &shape).unwrap()
                }
            };
            let n = array.selected_len(&sel).unwrap() / 4;
            let values: Vec<i32> = (0..n)
                .map(|_| (rng.below(1000) as i32) + case * 1000)
                .collect();
            let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
            array
                .write_selection_from(&sel, &bytes)
                .unwrap_or_else(|e| panic!("{name} {sel:?}: {e}"));
            // The model: each selected element's place, in the selection's order.
            let whole_of =
                |m: &Vec<i32>| -> Vec<u8> { m.iter().flat_map(|v| v.to_ne_bytes()).collect() };
            let places = expected_places(&sel);
            for (p, &v) in places.iter().zip(&values) {
                model[*p] = v;
            }
            let got = array.read_to_vec(&Region::whole(&shape).unwrap()).unwrap();
            assert!(got == whole_of(&model), "{name}, case {case}: {sel:?}");
        }
    }
}

/// The C-order place in the array of each element of the selection's output, in order.
fn expected_places(sel: &Selection) -> Vec<usize> {
    let shape = sel.array_shape().to_vec();
    let n = shape.iter().product::<u64>() as usize;
    let linear: Vec<u8> = (0..n as u64).flat_map(u64::to_le_bytes).collect();
    expected(sel, &linear, 8)
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().unwrap()) as usize)
        .collect()
}
