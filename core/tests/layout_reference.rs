//! Property test: the byte runs agree with a naive element-by-element reference.
//!
//! For random shapes (0 to 5 dimensions, edge chunks, zero-length dimensions), chunk shapes,
//! memory orders, element sizes and selections, every chunk is materialised as it would be
//! stored (full chunk shape, in its memory order, padding past the array edge filled with junk),
//! the runs copy the pieces into the output, and the result is compared with a reference that
//! walks the selection one element at a time.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a panic is a failed test
#![allow(clippy::cast_possible_truncation)] // test shapes are tiny

use proptest::prelude::*;
use zinto_core::{ChunkGrid, MemoryOrder, Region};

/// The stored bytes of one element at array coordinates `coords`.
fn element(coords: &[u64], elem: usize) -> Vec<u8> {
    let mut h: u64 = 0x9E37_79B9_7F4A_7C15;
    for &c in coords {
        h = (h ^ c).wrapping_mul(0x1000_0000_01B3).rotate_left(17);
    }
    (0..elem)
        .map(|i| (h >> ((i % 8) * 8)) as u8 ^ i as u8)
        .collect()
}

/// C-order coordinates of `linear` in `shape`.
fn unravel(mut linear: u64, shape: &[u64]) -> Vec<u64> {
    let mut out = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        out[d] = linear % shape[d];
        linear /= shape[d];
    }
    out
}

/// Byte offset of chunk-local `coords` in a chunk of `shape` stored in `axes` order.
fn stored_offset(coords: &[u64], shape: &[u64], axes: &[usize], elem: usize) -> usize {
    let mut off = 0u64;
    for &a in axes {
        off = off * shape[a] + coords[a];
    }
    off as usize * elem
}

/// A chunk as stored: full chunk shape, in `axes` order, junk past the array edge.
fn stored_chunk(grid: &ChunkGrid, chunk: &[u64], axes: &[usize], elem: usize) -> Vec<u8> {
    let cs = grid.chunk_shape();
    let n: u64 = cs.iter().product();
    let mut buf = vec![0xEE; n as usize * elem];
    for linear in 0..n {
        let local = unravel(linear, cs);
        let global: Vec<u64> = local
            .iter()
            .zip(chunk)
            .zip(cs)
            .map(|((&l, &c), &s)| c * s + l)
            .collect();
        if global.iter().zip(grid.array_shape()).all(|(&g, &a)| g < a) {
            let off = stored_offset(&local, cs, axes, elem);
            buf[off..off + elem].copy_from_slice(&element(&global, elem));
        }
    }
    buf
}

#[derive(Debug, Clone)]
struct Case {
    array: Vec<u64>,
    chunk: Vec<u64>,
    sel_start: Vec<u64>,
    sel_shape: Vec<u64>,
    axes: Vec<usize>,
    elem: usize,
}

fn case() -> impl Strategy<Value = Case> {
    (0usize..=5)
        .prop_flat_map(|ndim| {
            (
                proptest::collection::vec(0u64..7, ndim),
                proptest::collection::vec(1u64..5, ndim),
                Just((0..ndim).collect::<Vec<_>>()).prop_shuffle(),
                prop_oneof![Just(1usize), Just(2), Just(3), Just(4), Just(8)],
                proptest::collection::vec((any::<u64>(), any::<u64>()), ndim),
            )
        })
        .prop_map(|(array, chunk, axes, elem, picks)| {
            let mut sel_start = vec![];
            let mut sel_shape = vec![];
            for (&a, &(p, q)) in array.iter().zip(&picks) {
                let s = p % (a + 1);
                let n = q % (a - s + 1);
                sel_start.push(s);
                sel_shape.push(n);
            }
            Case {
                array,
                chunk,
                sel_start,
                sel_shape,
                axes,
                elem,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(768))]

    #[test]
    fn runs_match_reference(c in case()) {
        let grid = ChunkGrid::new(&c.array, &c.chunk).unwrap();
        let sel = Region::new(&c.sel_start, &c.sel_shape).unwrap();
        let order = MemoryOrder::permutation(&c.axes).unwrap();
        let out_elems: u64 = c.sel_shape.iter().product();
        let out_len = out_elems as usize * c.elem;

        // Reference: one element at a time.
        let mut expected = Vec::with_capacity(out_len);
        for linear in 0..out_elems {
            let local = unravel(linear, &c.sel_shape);
            let global: Vec<u64> = local.iter().zip(&c.sel_start).map(|(l, s)| l + s).collect();
            expected.extend(element(&global, c.elem));
        }

        let mut out = vec![0u8; out_len];
        let mut writes = vec![0u32; out_len];
        let mut pieces_seen = 0u64;
        for piece in grid.pieces(&sel).unwrap() {
            pieces_seen += 1;
            let src = stored_chunk(&grid, &piece.chunk, &c.axes, c.elem);
            let mut reads = vec![0u32; src.len()];
            let runs = piece.runs(&grid, c.elem, &order, &c.sel_shape).unwrap();
            let counted = runs.run_count();
            let single = runs.is_single_run();
            let mut got_runs = 0usize;
            for run in runs {
                got_runs += 1;
                prop_assert!(run.len > 0);
                prop_assert!(run.src + run.len <= src.len(), "read past chunk");
                prop_assert!(run.dst + run.len <= out_len, "write past output");
                out[run.dst..run.dst + run.len].copy_from_slice(&src[run.src..run.src + run.len]);
                writes[run.dst..run.dst + run.len].iter_mut().for_each(|w| *w += 1);
                reads[run.src..run.src + run.len].iter_mut().for_each(|r| *r += 1);
            }
            // Runs that happen to continue one another are merged: at most the counted ones.
            prop_assert!(got_runs <= counted, "{} runs, {} counted", got_runs, counted);
            prop_assert!(!single || got_runs == 1);
            prop_assert!(reads.iter().all(|&r| r <= 1), "a source byte was read twice");

            // The runs are exactly the maximal contiguous stretches of the piece, walked in
            // output order: so a piece contiguous in both chunk and output is one run.
            let shape = piece.in_chunk.shape();
            let n: u64 = shape.iter().product();
            let mut maximal = 0usize;
            let mut prev: Option<(usize, usize)> = None;
            for linear in 0..n {
                let local = unravel(linear, shape);
                let cc: Vec<u64> = local.iter().zip(piece.in_chunk.start()).map(|(l, s)| l + s).collect();
                let oc: Vec<u64> = local.iter().zip(piece.in_output.start()).map(|(l, s)| l + s).collect();
                let s = stored_offset(&cc, grid.chunk_shape(), &c.axes, c.elem);
                let d = stored_offset(&oc, &c.sel_shape, &(0..c.axes.len()).collect::<Vec<_>>(), c.elem);
                if prev != Some((s.wrapping_sub(c.elem), d.wrapping_sub(c.elem))) {
                    maximal += 1;
                }
                prev = Some((s, d));
            }
            prop_assert_eq!(got_runs, maximal, "runs are not the maximal contiguous stretches");
        }
        prop_assert!(writes.iter().all(|&w| w == 1), "an output byte was not written exactly once");
        prop_assert_eq!(out, expected);
        prop_assert_eq!(pieces_seen, grid.pieces(&sel).unwrap().chunk_count().unwrap());
    }

    #[test]
    fn linear_index_round_trips(shape in proptest::collection::vec(1u64..9, 0..5),
                                chunk in proptest::collection::vec(1u64..4, 5),
                                pick in any::<u64>()) {
        let chunk = &chunk[..shape.len()];
        let grid = ChunkGrid::new(&shape, chunk).unwrap();
        let index = pick % grid.num_chunks();
        let coords = grid.chunk_coords(index).unwrap();
        prop_assert_eq!(grid.linear_index(&coords).unwrap(), index);
    }
}
