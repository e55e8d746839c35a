//! Rectilinear grids (zarr-python 3.4's variable chunk sizes): the layout math on edges given
//! as runs, against a model that lists every edge.

use zinto::core::{Axis, ChunkGrid, EdgeRun, Region, RunTable};

use super::input::Input;

/// Pieces examined per input.
const MAX_PIECES: u64 = 512;

/// `[ndim, (nruns, (edge, count)*nruns, regular, extent, start, len)*ndim]`: per dimension,
/// runs of small edges and counts (or, with no runs, a regular edge), an extent and a
/// selection, any of them invalid. Whatever the grid accepts: each chunk's start and edge
/// are the model's (the edges listed one by one), the selection's pieces are the chunks it
/// meets in C order, each piece inside its chunk (its stored shape, `chunk_shape_at`), the
/// array and the selection, where the selection maps it, and together they cover the
/// selection's elements once.
pub fn rect_grid(data: &[u8]) {
    let mut input = Input::new(data);
    let ndim = usize::from(input.u8() % 4) + 1;
    let mut axes = Vec::with_capacity(ndim);
    let mut models: Vec<Vec<u64>> = Vec::with_capacity(ndim);
    let (mut shape, mut start, mut len) = (vec![], vec![], vec![]);
    for d in 0..ndim {
        let nruns = usize::from(input.u8() % 5);
        let mut runs = Vec::new();
        let mut model = Vec::new();
        for _ in 0..nruns {
            let (edge, count) = (u64::from(input.u8() % 9), u64::from(input.u8() % 6));
            if let (Some(e), Some(c)) = (
                std::num::NonZeroU64::new(edge),
                std::num::NonZeroU64::new(count),
            ) {
                runs.push(EdgeRun { edge: e, count: c });
                model.extend(std::iter::repeat_n(edge, count as usize));
            }
        }
        let regular = u64::from(input.u8() % 7);
        let axis = if runs.is_empty() {
            let Some(edge) = std::num::NonZeroU64::new(regular) else {
                return;
            };
            Axis::Regular(edge)
        } else {
            let Ok(table) = RunTable::new(&runs, d) else {
                return;
            };
            Axis::Runs(table)
        };
        axes.push(axis);
        models.push(model);
        shape.push(u64::from(input.u8() % 40));
        start.push(u64::from(input.u8() % 40));
        len.push(u64::from(input.u8() % 40));
    }
    let Ok(grid) = ChunkGrid::with_axes(&shape, &axes) else {
        // Refused: edges ending before the extent (or nothing at all).
        return;
    };
    check_axes(&axes, &models, &shape);
    let Ok(selection) = Region::new(&start, &len) else {
        return;
    };
    let Ok(pieces) = grid.pieces(&selection) else {
        return;
    };
    check_pieces(&grid, &pieces, (&axes, &selection));
}

/// Each chunk of each runs axis starts and ends where the listed edges put it.
fn check_axes(axes: &[Axis], models: &[Vec<u64>], shape: &[u64]) {
    for ((axis, model), &extent) in axes.iter().zip(models).zip(shape) {
        if model.is_empty() {
            continue;
        }
        assert!(
            model.iter().sum::<u64>() >= extent,
            "a grid shorter than its extent was taken"
        );
        let mut at = 0;
        for (k, &edge) in model.iter().enumerate() {
            assert_eq!(axis.chunk(k as u64), Some((at, edge)), "chunk {k}");
            for x in at..at + edge {
                assert_eq!(axis.chunk_of(x), Some(k as u64), "coordinate {x}");
            }
            at += edge;
        }
        assert_eq!(
            axis.chunk(model.len() as u64),
            None,
            "a chunk past the edges"
        );
        assert_eq!(axis.chunk_of(at), None, "a coordinate past the edges");
    }
}

fn check_pieces(
    grid: &ChunkGrid,
    pieces: &zinto::core::Pieces<'_>,
    (axes, selection): (&[Axis], &Region),
) {
    let Ok(count) = pieces.chunk_count() else {
        return;
    };
    let mut covered = 0u64;
    let mut last: Option<Vec<u64>> = None;
    for i in 0..count.min(MAX_PIECES) {
        let piece = pieces.get(i).expect("index below chunk_count");
        let stored = grid
            .chunk_shape_at(&piece.chunk)
            .expect("a piece's chunk is on the grid");
        for (d, axis) in axes.iter().enumerate() {
            let (origin, edge) = axis.chunk(piece.chunk[d]).expect("a piece's chunk exists");
            assert_eq!(stored[d], edge, "stored shape along {d}");
            let (cs, cn) = (piece.in_chunk.start()[d], piece.in_chunk.shape()[d]);
            assert!(cn > 0 && cs + cn <= edge, "piece leaves its chunk");
            assert!(
                origin + cs + cn <= grid.array_shape()[d],
                "piece leaves the array"
            );
            let (os, on) = (piece.in_output.start()[d], piece.in_output.shape()[d]);
            assert_eq!(on, cn, "output and chunk extents differ");
            assert_eq!(
                origin + cs,
                selection.start()[d] + os,
                "piece not where mapped"
            );
            assert!(
                os + on <= selection.shape()[d],
                "piece leaves the selection"
            );
        }
        if let Some(prev) = &last {
            assert!(
                prev.as_slice() < &piece.chunk[..],
                "pieces not in C order of their chunks"
            );
        }
        last = Some(piece.chunk.to_vec());
        covered += piece.in_output.shape().iter().product::<u64>();
    }
    if count <= MAX_PIECES {
        let want: u64 = selection.shape().iter().product();
        assert_eq!(covered, want, "the pieces cover the selection otherwise");
    }
}
