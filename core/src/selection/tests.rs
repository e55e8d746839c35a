//! Plans and gathers checked against a naive reference: every selection of random arrays,
//! grids and indices (unsorted, repeated, points) copies what indexing the array directly
//! gives, each output element written by exactly one piece, which owns it.

extern crate std;

use alloc::vec;
use alloc::vec::Vec;
use proptest::prelude::*;

use super::{AxisOwners, AxisSel, GatherRuns, Group, Plan, Points, Selection};
use crate::{Axis, ChunkGrid, EdgeRun, LayoutError, RunTable};

/// The element at `coords` of an array of `shape`: its C-order index.
fn value(coords: &[u64], shape: &[u64]) -> u32 {
    coords
        .iter()
        .zip(shape)
        .fold(0u64, |acc, (&c, &n)| acc * n + c) as u32
}

/// Every output element's array coordinates, in C order of the output: the naive reference.
fn naive(sel: &Selection) -> Vec<Vec<u64>> {
    let shape = sel.array_shape().to_vec();
    let mut out: Vec<Vec<u64>> = vec![vec![0; shape.len()]];
    for g in sel.groups() {
        let mut next = Vec::new();
        for partial in &out {
            let mut put = |axes: &[(usize, u64)]| {
                let mut c = partial.clone();
                for &(d, x) in axes {
                    c[d] = x;
                }
                next.push(c);
            };
            match g {
                Group::Axis { dim, sel } => match sel {
                    AxisSel::Range { start, stop } => {
                        (*start..*stop).for_each(|x| put(&[(*dim, x)]))
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
        out = next;
    }
    out
}

/// The selection gathered piece by piece through `grid`, each chunk's box taken from the
/// array as a decoder would give it; panics if an element is written twice or a run leaves
/// its box.
fn gathered(sel: &Selection, grid: &ChunkGrid) -> Vec<u32> {
    let shape = sel.array_shape().to_vec();
    let plan = Plan::new(sel, grid).unwrap();
    let n = sel.len().unwrap() as usize;
    let mut out = vec![u32::MAX; n];
    let mut written = vec![false; n];
    let mut owners = std::collections::HashSet::new();
    let axis_owners = plan.owners().unwrap();
    let out_shape = sel.output_shape().unwrap().to_vec();
    for i in 0..plan.count() {
        let piece = plan.piece(i).unwrap();
        assert!(
            owners.insert(piece.owners.clone()),
            "two pieces own {:?}",
            piece.owners
        );
        // The box, decoded: C order of its shape.
        let region = grid.chunk_region(&piece.chunk).unwrap();
        let bshape = piece.in_chunk.shape().to_vec();
        let count: u64 = bshape.iter().product();
        let mut boxed = Vec::with_capacity(count as usize);
        for linear in 0..count {
            let mut rest = linear;
            let mut coords = vec![0u64; bshape.len()];
            for d in (0..bshape.len()).rev() {
                coords[d] = region.start()[d] + piece.in_chunk.start()[d] + rest % bshape[d];
                rest /= bshape[d];
            }
            boxed.push(value(&coords, &shape));
        }
        for run in GatherRuns::new(&plan, &piece, 4).unwrap() {
            assert!(run.len > 0 && run.len % 4 == 0 && run.src % 4 == 0 && run.dst % 4 == 0);
            for k in 0..run.len / 4 {
                let (s, d) = (run.src / 4 + k, run.dst / 4 + k);
                assert!(!written[d], "element {d} written twice");
                // The element's owners along every output axis are the piece's.
                let mut rest = d as u64;
                let mut want: Vec<u64> = piece.owners.iter().copied().collect();
                want.retain({
                    let mut g = 0;
                    let groups = sel.groups();
                    move |_| {
                        g += 1;
                        groups[g - 1].output_len().is_some()
                    }
                });
                for a in (0..out_shape.len()).rev() {
                    let o = rest % out_shape[a];
                    rest /= out_shape[a];
                    assert_eq!(
                        axis_owners[a].owner(o, out_shape[a]),
                        Some(want[a]),
                        "axis {a}"
                    );
                }
                written[d] = true;
                out[d] = boxed[s];
            }
        }
    }
    assert!(written.iter().all(|&w| w), "an element was not written");
    out
}

fn reference(sel: &Selection) -> Vec<u32> {
    let shape = sel.array_shape();
    naive(sel).iter().map(|c| value(c, shape)).collect()
}

fn axis_sel(extent: u64) -> impl Strategy<Value = AxisSel> {
    let n = extent.max(1);
    prop_oneof![
        (0..=extent, 0..=extent).prop_map(|(a, b)| AxisSel::Range {
            start: a.min(b),
            stop: a.max(b)
        }),
        (0..n).prop_map(AxisSel::Index),
        prop::collection::vec(0..n, 0..12).prop_map(AxisSel::List),
    ]
    .prop_filter("in bounds", move |s| {
        extent > 0 || matches!(s, AxisSel::Range { .. })
    })
}

fn shape_and_chunks() -> impl Strategy<Value = (Vec<u64>, Vec<u64>)> {
    prop::collection::vec((1u64..14, 1u64..6), 1..4).prop_map(|dims| dims.into_iter().unzip())
}

fn orthogonal() -> impl Strategy<Value = (Vec<u64>, Vec<u64>, Vec<AxisSel>)> {
    shape_and_chunks().prop_flat_map(|(shape, chunks)| {
        let sels: Vec<_> = shape.iter().map(|&n| axis_sel(n)).collect();
        (Just(shape), Just(chunks), sels)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn orthogonal_selections_gather_what_indexing_gives((shape, chunks, sels) in orthogonal()) {
        let grid = ChunkGrid::new(&shape, &chunks).unwrap();
        let sel = Selection::orthogonal(sels, &shape).unwrap();
        prop_assert_eq!(gathered(&sel, &grid), reference(&sel));
    }

    #[test]
    fn points_and_mixed_groups_gather_what_indexing_gives(
        (shape, chunks) in shape_and_chunks(),
        raw in prop::collection::vec(any::<u64>(), 0..40),
        first in any::<bool>(),
    ) {
        prop_assume!(shape.len() >= 2);
        let grid = ChunkGrid::new(&shape, &chunks).unwrap();
        // Points over the first two axes (or the last two), a range over the rest.
        let axes: Vec<usize> = if first { vec![0, 1] } else { vec![shape.len() - 2, shape.len() - 1] };
        let npoints = raw.len() / 2;
        let lists: Vec<Vec<i64>> = axes
            .iter()
            .enumerate()
            .map(|(j, &d)| (0..npoints).map(|p| (raw[2 * p + j] % shape[d]) as i64).collect())
            .collect();
        let refs: Vec<&[i64]> = lists.iter().map(Vec::as_slice).collect();
        let points = Points::from_signed(&axes, &refs, &shape).unwrap();
        let mut groups = vec![Group::Points(points)];
        for d in (0..shape.len()).filter(|d| !axes.contains(d)) {
            groups.push(Group::Axis { dim: d, sel: AxisSel::Range { start: 0, stop: shape[d] } });
        }
        let sel = Selection::new(groups, &shape).unwrap();
        prop_assert_eq!(gathered(&sel, &grid), reference(&sel));
    }
}

/// A rectilinear grid: chunks of their own edges, lists across them.
#[test]
fn rectilinear_grids_gather_what_indexing_gives() {
    let runs = |edges: &[u64]| {
        let runs: Vec<EdgeRun> = edges
            .iter()
            .map(|&e| EdgeRun {
                edge: core::num::NonZeroU64::new(e).unwrap(),
                count: core::num::NonZeroU64::MIN,
            })
            .collect();
        Axis::Runs(RunTable::new(&runs, 0).unwrap())
    };
    let shape = [10u64, 7];
    let grid = ChunkGrid::with_axes(&shape, &[runs(&[3, 1, 6]), runs(&[2, 5])]).unwrap();
    let sel = Selection::orthogonal(
        vec![
            AxisSel::List(vec![9, 0, 3, 3, 4, 8]),
            AxisSel::List(vec![6, 1, 2]),
        ],
        &shape,
    )
    .unwrap();
    assert_eq!(gathered(&sel, &grid), reference(&sel));
}

/// Indices are checked when the selection is made, each error naming its axis.
#[test]
fn bad_indices_are_refused_naming_the_axis() {
    let shape = [4u64, 5];
    assert_eq!(
        AxisSel::from_signed(&[1, -6], 5, 1),
        Err(LayoutError::IndexOutOfBounds {
            dim: 1,
            index: -6,
            extent: 5
        })
    );
    assert_eq!(
        AxisSel::from_signed(&[-1, 0], 5, 1),
        Ok(AxisSel::List(vec![4, 0]))
    );
    assert_eq!(
        AxisSel::from_signed(&[2, 3, 4], 5, 1),
        Ok(AxisSel::Range { start: 2, stop: 5 }),
        "a run is a range"
    );
    assert_eq!(
        AxisSel::from_mask(&[true, false], 4, 0),
        Err(LayoutError::MaskLength {
            dim: 0,
            len: 2,
            extent: 4
        })
    );
    assert_eq!(
        AxisSel::from_mask(&[true, false, true, false], 4, 0),
        Ok(AxisSel::List(vec![0, 2]))
    );
    let e = Selection::orthogonal(vec![AxisSel::List(vec![4])], &shape[..1]);
    assert!(matches!(
        e,
        Err(LayoutError::IndexOutOfBounds {
            dim: 0,
            index: 4,
            ..
        })
    ));
    let e = Selection::orthogonal(vec![AxisSel::Index(0)], &shape);
    assert_eq!(
        e,
        Err(LayoutError::AxisSelection {
            dim: 1,
            twice: false
        })
    );
    let twice = vec![
        Group::Axis {
            dim: 0,
            sel: AxisSel::Index(0),
        },
        Group::Axis {
            dim: 0,
            sel: AxisSel::Index(1),
        },
    ];
    assert_eq!(
        Selection::new(twice, &shape),
        Err(LayoutError::AxisSelection {
            dim: 0,
            twice: true
        })
    );
    let e = Points::from_signed(&[0, 1], &[&[0, 1], &[0]], &shape);
    assert_eq!(
        e,
        Err(LayoutError::PointsDiffer {
            dim: 1,
            len: 1,
            first: 2
        })
    );
}

/// Output positions map to the chunk that holds them, and runs of them end where the chunk
/// changes: what the output's sharing checks each write against.
#[test]
fn owners_name_the_chunk_of_every_output_position() {
    let shape = [10u64];
    let grid = ChunkGrid::new(&shape, &[4]).unwrap();
    let sel = Selection::orthogonal(vec![AxisSel::List(vec![5, 6, 1, 9, 8, 2])], &shape).unwrap();
    let plan = Plan::new(&sel, &grid).unwrap();
    // Chunks in order 0 (1, 2), 1 (5, 6), 2 (8, 9).
    let owners = plan.owners().unwrap();
    assert_eq!(owners, [AxisOwners::Each(vec![1, 1, 0, 2, 2, 0])]);
    assert!(owners[0].covers(0, 2, 1, 6) && !owners[0].covers(0, 3, 1, 6));
    assert!(!owners[0].covers(5, 2, 0, 6), "past the axis");
    let range = Selection::orthogonal(vec![AxisSel::Range { start: 3, stop: 10 }], &shape).unwrap();
    let plan = Plan::new(&range, &grid).unwrap();
    let owners = plan.owners().unwrap();
    assert_eq!(owners, [AxisOwners::Boundaries(vec![0, 1, 5])]);
    assert_eq!(owners[0].owner(0, 7), Some(0));
    assert_eq!(owners[0].owner(1, 7), Some(1));
    assert_eq!(owners[0].owner(6, 7), Some(2));
    assert_eq!(owners[0].owner(7, 7), None);
    assert!(owners[0].covers(1, 4, 1, 7) && !owners[0].covers(1, 5, 1, 7));
    // A region is read as one.
    assert!(range.as_region().is_some() && sel.as_region().is_none());
}

/// A piece whose positions run on by one in the output and in the array along every axis (in
/// the array's order) lands as one hyper-rectangle: it may be read straight into the output.
#[test]
fn pieces_that_land_as_rectangles_say_where() {
    let shape = [4u64, 10, 6];
    let grid = ChunkGrid::new(&shape, &[2, 1, 6]).unwrap();
    // A list along an axis of one-wide chunks: every piece is a rectangle (`[:, [0, 3, 6]]`).
    let sel = Selection::orthogonal(
        vec![
            AxisSel::Range { start: 1, stop: 4 },
            AxisSel::List(vec![0, 3, 6]),
            AxisSel::Index(2),
        ],
        &shape,
    )
    .unwrap();
    let plan = Plan::new(&sel, &grid).unwrap();
    let boxes: Vec<_> = (0..plan.count())
        .map(|i| plan.output_box(&plan.piece(i).unwrap()).unwrap())
        .collect();
    // Rows 1 (chunk 0) and 2..4 (chunk 1), each of the three list entries.
    assert_eq!(boxes.len(), 6);
    assert_eq!(
        (boxes[0].start(), boxes[0].shape()),
        (&[0u64, 0, 0][..], &[1u64, 1, 1][..])
    );
    assert_eq!(
        (boxes[5].start(), boxes[5].shape()),
        (&[1u64, 2, 0][..], &[2u64, 1, 1][..])
    );
    let grid = ChunkGrid::new(&shape, &[4, 5, 6]).unwrap();
    for (list, rect) in [(vec![5, 6], true), (vec![6, 5], false), (vec![1, 3], false)] {
        let sel = Selection::orthogonal(
            vec![
                AxisSel::Range { start: 0, stop: 4 },
                AxisSel::List(list.clone()),
                AxisSel::Range { start: 0, stop: 6 },
            ],
            &shape,
        )
        .unwrap();
        let plan = Plan::new(&sel, &grid).unwrap();
        let piece = plan.piece(0).unwrap();
        assert_eq!(plan.output_box(&piece).is_some(), rect, "{list:?}");
    }
    // Points are never one: their output axis is no array axis.
    let points = Points::from_signed(&[0, 1], &[&[1], &[2]], &shape).unwrap();
    let sel = Selection::new(
        vec![
            Group::Points(points),
            Group::Axis {
                dim: 2,
                sel: AxisSel::Range { start: 0, stop: 6 },
            },
        ],
        &shape,
    )
    .unwrap();
    let plan = Plan::new(&sel, &grid).unwrap();
    assert!(plan.output_box(&plan.piece(0).unwrap()).is_none());
}
