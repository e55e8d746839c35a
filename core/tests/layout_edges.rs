//! Named edge cases of the layout math.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a panic is a failed test

use zinto_core::{ChunkGrid, LayoutError, MAX_DIMS, MemoryOrder, Region, Run, Runs};

fn collect_runs(
    grid: &ChunkGrid,
    sel: &Region,
    elem: usize,
    order: &MemoryOrder,
) -> Vec<(Vec<u64>, Vec<Run>)> {
    grid.pieces(sel)
        .unwrap()
        .map(|p| {
            let runs = p.runs(grid, elem, order, sel.shape()).unwrap().collect();
            (p.chunk.to_vec(), runs)
        })
        .collect()
}

#[test]
fn zero_dimensional_array_is_one_chunk_one_run() {
    let grid = ChunkGrid::new(&[], &[]).unwrap();
    assert_eq!(grid.num_chunks(), 1);
    let sel = Region::whole(&[]).unwrap();
    let got = collect_runs(&grid, &sel, 8, &MemoryOrder::c(0).unwrap());
    assert_eq!(
        got,
        vec![(
            vec![],
            vec![Run {
                src: 0,
                dst: 0,
                len: 8
            }]
        )]
    );
    assert_eq!(grid.linear_index(&[]).unwrap(), 0);
    assert!(grid.chunk_coords(0).unwrap().is_empty());
}

#[test]
fn zero_length_dimension_has_no_chunks_and_no_pieces() {
    let grid = ChunkGrid::new(&[4, 0, 3], &[2, 2, 2]).unwrap();
    assert_eq!(grid.grid_shape(), &[2, 0, 2]);
    assert_eq!(grid.num_chunks(), 0);
    let sel = Region::whole(grid.array_shape()).unwrap();
    assert_eq!(grid.pieces(&sel).unwrap().count(), 0);
    assert_eq!(grid.pieces(&sel).unwrap().chunk_count().unwrap(), 0);
    assert!(matches!(
        grid.chunk_coords(0),
        Err(LayoutError::ChunkOutOfGrid {
            index: 0,
            count: 0,
            ..
        })
    ));
}

#[test]
fn empty_selection_of_non_empty_array_touches_nothing() {
    let grid = ChunkGrid::new(&[10], &[3]).unwrap();
    let sel = Region::new(&[4], &[0]).unwrap();
    assert_eq!(grid.pieces(&sel).unwrap().count(), 0);
}

#[test]
fn edge_chunk_is_clipped_in_the_array_but_strided_as_stored() {
    // 5x5 array in 3x3 chunks: chunk (1, 1) covers rows 3..5, columns 3..5.
    let grid = ChunkGrid::new(&[5, 5], &[3, 3]).unwrap();
    let region = grid.chunk_region(&[1, 1]).unwrap();
    assert_eq!(region.start(), &[3, 3]);
    assert_eq!(region.shape(), &[2, 2]);
    let sel = Region::whole(&[5, 5]).unwrap();
    let got = collect_runs(&grid, &sel, 1, &MemoryOrder::c(2).unwrap());
    let (_, last) = got.last().unwrap();
    // Rows of the stored chunk are 3 bytes apart even though only 2 are in the array.
    assert_eq!(
        last,
        &vec![
            Run {
                src: 0,
                dst: 18,
                len: 2
            },
            Run {
                src: 3,
                dst: 23,
                len: 2
            }
        ]
    );
}

#[test]
fn edge_chunk_along_the_slowest_axis_is_still_one_run() {
    // 5 rows in chunks of 2 rows: the last chunk has one row in the array, one of padding.
    let grid = ChunkGrid::new(&[5, 4], &[2, 4]).unwrap();
    let sel = Region::whole(&[5, 4]).unwrap();
    let got = collect_runs(&grid, &sel, 4, &MemoryOrder::c(2).unwrap());
    assert_eq!(got.len(), 3);
    assert_eq!(
        got[2].1,
        vec![Run {
            src: 0,
            dst: 64,
            len: 16
        }]
    );
}

#[test]
fn f_order_chunk_copies_element_by_element_into_c_output() {
    let grid = ChunkGrid::new(&[2, 3], &[2, 3]).unwrap();
    let sel = Region::whole(&[2, 3]).unwrap();
    let got = collect_runs(&grid, &sel, 1, &MemoryOrder::f(2).unwrap());
    let srcs: Vec<usize> = got[0].1.iter().map(|r| r.src).collect();
    // Output element (i, j) comes from F-order offset j*2 + i.
    assert_eq!(srcs, vec![0, 2, 4, 1, 3, 5]);
}

#[test]
fn f_order_with_a_single_row_is_contiguous() {
    // Axes of extent 1 do not break contiguity, whatever the order.
    let grid = ChunkGrid::new(&[1, 6], &[1, 6]).unwrap();
    let sel = Region::whole(&[1, 6]).unwrap();
    let got = collect_runs(&grid, &sel, 2, &MemoryOrder::f(2).unwrap());
    assert_eq!(
        got[0].1,
        vec![Run {
            src: 0,
            dst: 0,
            len: 12
        }]
    );
}

#[test]
fn unaligned_selection_pieces_and_offsets() {
    let grid = ChunkGrid::new(&[10], &[4]).unwrap();
    let sel = Region::new(&[3], &[6]).unwrap(); // 3..9
    let pieces: Vec<_> = grid.pieces(&sel).unwrap().collect();
    let summary: Vec<_> = pieces
        .iter()
        .map(|p| {
            (
                p.chunk[0],
                p.in_chunk.start()[0],
                p.in_chunk.shape()[0],
                p.in_output.start()[0],
            )
        })
        .collect();
    assert_eq!(summary, vec![(0, 3, 1, 0), (1, 0, 4, 1), (2, 0, 1, 5)]);
    assert!(pieces[1].is_whole_chunk(&grid));
    assert!(!pieces[0].is_whole_chunk(&grid));
}

#[test]
fn grid_near_u64_max_does_not_wrap() {
    let big = u64::MAX - 1;
    let grid = ChunkGrid::new(&[big], &[u64::MAX]).unwrap();
    assert_eq!(grid.num_chunks(), 1);
    let region = grid.chunk_region(&[0]).unwrap();
    assert_eq!(region.shape(), &[big]);
    // A selection at the very end of the array.
    let sel = Region::new(&[big - 3], &[3]).unwrap();
    let pieces: Vec<_> = grid.pieces(&sel).unwrap().collect();
    assert_eq!(pieces.len(), 1);
    assert_eq!(pieces[0].in_chunk.start(), &[big - 3]);
    // Its bytes, though, are more than a u64 can count.
    assert_eq!(
        pieces[0]
            .runs(&grid, 2, &MemoryOrder::c(1).unwrap(), &[3])
            .unwrap_err(),
        LayoutError::Overflow
    );

    let grid = ChunkGrid::new(&[u64::MAX], &[3]).unwrap();
    let last = grid.grid_shape()[0] - 1;
    let region = grid.chunk_region(&[last]).unwrap();
    assert_eq!(region.end(0), Some(u64::MAX));
    let sel = Region::new(&[u64::MAX - 1], &[1]).unwrap();
    assert_eq!(grid.pieces(&sel).unwrap().count(), 1);
}

#[test]
fn chunk_count_overflow_is_an_error() {
    assert_eq!(
        ChunkGrid::new(&[u64::MAX, u64::MAX], &[1, 1]).unwrap_err(),
        LayoutError::Overflow
    );
}

#[test]
fn region_end_overflow_is_an_error() {
    assert_eq!(
        Region::new(&[u64::MAX], &[1]).unwrap_err(),
        LayoutError::Overflow
    );
}

#[test]
fn chunk_bytes_overflow_is_an_error() {
    let grid = ChunkGrid::new(&[4, 4], &[u64::MAX / 2, 4]).unwrap();
    let sel = Region::whole(&[4, 4]).unwrap();
    let piece = grid.pieces(&sel).unwrap().next().unwrap();
    assert_eq!(
        piece
            .runs(&grid, 8, &MemoryOrder::c(2).unwrap(), &[4, 4])
            .unwrap_err(),
        LayoutError::Overflow
    );
}

#[test]
fn zero_chunk_edge_is_an_error() {
    assert_eq!(
        ChunkGrid::new(&[4, 4], &[2, 0]).unwrap_err(),
        LayoutError::ZeroChunkEdge { dim: 1 }
    );
}

#[test]
fn mismatched_dimensions_are_errors() {
    assert_eq!(
        ChunkGrid::new(&[4, 4], &[2]).unwrap_err(),
        LayoutError::DimsMismatch {
            expected: 2,
            got: 1
        }
    );
    let grid = ChunkGrid::new(&[4, 4], &[2, 2]).unwrap();
    let sel = Region::whole(&[4]).unwrap();
    assert_eq!(
        grid.pieces(&sel).unwrap_err(),
        LayoutError::DimsMismatch {
            expected: 2,
            got: 1
        }
    );
    assert!(matches!(
        grid.linear_index(&[0]),
        Err(LayoutError::DimsMismatch { .. })
    ));
}

#[test]
fn selection_outside_the_array_is_an_error() {
    let grid = ChunkGrid::new(&[4, 4], &[2, 2]).unwrap();
    let sel = Region::new(&[1, 2], &[2, 3]).unwrap();
    assert_eq!(
        grid.pieces(&sel).unwrap_err(),
        LayoutError::OutOfBounds {
            dim: 1,
            end: 5,
            extent: 4
        }
    );
}

#[test]
fn chunk_outside_the_grid_is_an_error() {
    let grid = ChunkGrid::new(&[4, 5], &[2, 2]).unwrap();
    assert_eq!(
        grid.chunk_region(&[1, 3]).unwrap_err(),
        LayoutError::ChunkOutOfGrid {
            dim: 1,
            index: 3,
            count: 3
        }
    );
    assert_eq!(
        grid.chunk_coords(6).unwrap_err(),
        LayoutError::ChunkOutOfGrid {
            dim: 0,
            index: 6,
            count: 6
        }
    );
}

#[test]
fn too_many_dimensions_is_an_error() {
    let shape = vec![1u64; MAX_DIMS + 1];
    assert_eq!(
        ChunkGrid::new(&shape, &shape).unwrap_err(),
        LayoutError::TooManyDims {
            ndim: MAX_DIMS + 1,
            max: MAX_DIMS
        }
    );
    let shape = vec![1u64; MAX_DIMS];
    assert!(ChunkGrid::new(&shape, &shape).is_ok());
}

#[test]
fn not_a_permutation_is_an_error() {
    for axes in [&[0usize, 0][..], &[0, 2], &[1]] {
        assert_eq!(
            MemoryOrder::permutation(axes).unwrap_err(),
            LayoutError::NotAPermutation { ndim: axes.len() }
        );
    }
}

#[test]
fn region_shape_mismatch_and_zero_element_size_are_errors() {
    let order = MemoryOrder::c(1).unwrap();
    let a = Region::new(&[0], &[2]).unwrap();
    let b = Region::new(&[0], &[3]).unwrap();
    assert_eq!(
        Runs::new(1, &[4], &order, &a, &[4], &b).unwrap_err(),
        LayoutError::ShapeMismatch {
            dim: 0,
            src: 2,
            dst: 3
        }
    );
    assert_eq!(
        Runs::new(0, &[4], &order, &a, &[4], &a).unwrap_err(),
        LayoutError::ZeroElementSize
    );
}

#[test]
fn composed_transposes_are_their_product() {
    let a = MemoryOrder::permutation(&[2, 0, 1]).unwrap();
    let b = MemoryOrder::permutation(&[1, 2, 0]).unwrap();
    let ab = a.then(&b).unwrap();
    assert_eq!(ab.axes().collect::<Vec<_>>(), vec![0, 1, 2]);
    assert!(ab.is_c());
}

#[test]
fn pieces_by_index_match_iteration_order() {
    let grid = ChunkGrid::new(&[10, 7, 5], &[3, 2, 4]).unwrap();
    let sel = Region::new(&[2, 1, 1], &[7, 5, 4]).unwrap();
    let pieces = grid.pieces(&sel).unwrap();
    let count = pieces.chunk_count().unwrap();
    let by_index: Vec<_> = (0..count).map(|i| pieces.get(i).unwrap()).collect();
    let iterated: Vec<_> = pieces.clone().collect();
    assert_eq!(by_index, iterated);
    assert_eq!(pieces.get(count), None);
    let empty = Region::new(&[2, 1, 1], &[0, 5, 4]).unwrap();
    assert_eq!(grid.pieces(&empty).unwrap().get(0), None);
}

#[test]
fn runs_at_the_end_of_a_chunk_near_usize_max_bytes_do_not_overflow() {
    // A chunk of 2 x n elements of 3 bytes, just under 2^64 bytes in all (64-bit targets).
    // Stepping the outer axis past its last row would overflow; the odometer must not try.
    if usize::BITS < 64 {
        return;
    }
    let n = u64::MAX / 6 - 1;
    let grid = ChunkGrid::new(&[2, n], &[2, n]).unwrap();
    let sel = Region::new(&[0, n - 5], &[2, 4]).unwrap();
    let pieces = collect_runs(&grid, &sel, 3, &MemoryOrder::c(2).unwrap());
    let row = usize::try_from(n).unwrap() * 3;
    let first = (usize::try_from(n).unwrap() - 5) * 3;
    assert_eq!(
        pieces,
        [(
            vec![0, 0],
            vec![
                Run {
                    src: first,
                    dst: 0,
                    len: 12
                },
                Run {
                    src: row + first,
                    dst: 12,
                    len: 12
                },
            ]
        )]
    );
}

#[test]
fn pieces_by_index_at_the_far_end_of_u64_coordinates() {
    // One-element chunks over (almost) the whole u64 range: u64::MAX pieces, indexed directly.
    let grid = ChunkGrid::new(&[u64::MAX], &[1]).unwrap();
    let sel = Region::whole(&[u64::MAX]).unwrap();
    let pieces = grid.pieces(&sel).unwrap();
    assert_eq!(pieces.chunk_count().unwrap(), u64::MAX);
    let last = pieces.get(u64::MAX - 1).unwrap();
    assert_eq!(last.chunk.as_slice(), &[u64::MAX - 1]);
    assert_eq!(last.in_chunk, Region::new(&[0], &[1]).unwrap());
    assert_eq!(last.in_output, Region::new(&[u64::MAX - 1], &[1]).unwrap());
    assert_eq!(pieces.get(u64::MAX), None);

    // 2^32 x (2^32 - 1) chunks: 2^64 - 2^32 of them, the most a u64 index reaches here.
    let big = 1u64 << 32;
    let grid = ChunkGrid::new(&[big, big - 1], &[1, 1]).unwrap();
    let sel = Region::whole(grid.array_shape()).unwrap();
    let pieces = grid.pieces(&sel).unwrap();
    let count = pieces.chunk_count().unwrap();
    assert_eq!(count, big * (big - 1));
    assert_eq!(
        pieces.get(count - 1).unwrap().chunk.as_slice(),
        &[big - 1, big - 2]
    );
    assert_eq!(pieces.get(big - 1).unwrap().chunk.as_slice(), &[1, 0]);
    assert_eq!(pieces.get(count), None);

    // Two-element chunks: the last one ends at 2^64, past u64::MAX, and is clipped to the
    // selection; by index and by iteration agree.
    let grid = ChunkGrid::new(&[u64::MAX, 6], &[2, 8]).unwrap();
    let sel = Region::new(&[u64::MAX - 3, 2], &[3, 3]).unwrap();
    let pieces = grid.pieces(&sel).unwrap();
    let count = pieces.chunk_count().unwrap();
    let by_index: Vec<_> = (0..count).map(|i| pieces.get(i).unwrap()).collect();
    let iterated: Vec<_> = pieces.clone().collect();
    assert_eq!(by_index, iterated);
    let summary: Vec<_> = iterated
        .iter()
        .map(|p| {
            (
                p.chunk[0],
                p.in_chunk.shape().to_vec(),
                p.in_output.start().to_vec(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (u64::MAX / 2 - 1, vec![2, 3], vec![0, 0]),
            (u64::MAX / 2, vec![1, 3], vec![2, 0]),
        ]
    );
}

#[test]
fn strided_runs_near_usize_max_bytes_step_and_roll_back_or_are_refused() {
    // A 2x2 chunk in F order copied into a C output: one run per element, offsets up to three
    // quarters of usize::MAX, the odometer stepping and rolling back at the top of the range.
    let e = usize::MAX / 4;
    let order = MemoryOrder::f(2).unwrap();
    let whole = Region::whole(&[2, 2]).unwrap();
    let runs = Runs::new(e, &[2, 2], &order, &whole, &[2, 2], &whole).unwrap();
    assert_eq!(runs.run_count(), 4);
    let got: Vec<(usize, usize)> = runs.map(|r| (r.src, r.dst)).collect();
    assert_eq!(got, [(0, 0), (2 * e, e), (e, 2 * e), (3 * e, 3 * e)]);

    // One byte more per element and the chunk no longer fits a usize: refused up front, so
    // no run offset is ever formed past it.
    assert_eq!(
        Runs::new(e + 1, &[2, 2], &order, &whole, &[2, 2], &whole).unwrap_err(),
        LayoutError::Overflow
    );
    // The same for a chunk whose extent alone is near u64::MAX.
    let order = MemoryOrder::c(1).unwrap();
    let near = Region::new(&[u64::MAX - 2], &[2]).unwrap();
    assert_eq!(
        Runs::new(1, &[u64::MAX], &order, &near, &[u64::MAX], &near).map(|r| r.count()),
        usize::try_from(u64::MAX)
            .map(|_| 1)
            .map_err(|_| LayoutError::Overflow)
    );
}
