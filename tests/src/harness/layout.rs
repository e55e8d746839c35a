//! The layout math: grids, selections, memory orders and byte runs.

use zinto::core::{ChunkGrid, MemoryOrder, Region};

use super::input::Input;
use crate::alloc::with_cap;

/// Pieces examined per input, so huge selections stay quick.
const MAX_PIECES: u64 = 256;
/// Runs examined per piece.
const MAX_RUNS: usize = 4096;

/// Either a small number or, when the flag byte says so, any `u64` (for overflow paths).
fn extent(input: &mut Input<'_>, wide: bool) -> u64 {
    if wide {
        input.u64()
    } else {
        u64::from(input.u8() % 24)
    }
}

/// `[ndim, flags, elem, (shape, chunk, start, len)*ndim, order...]`: a grid, a selection and a
/// chunk memory order, any of them invalid. Whatever the layout core accepts, its pieces lie in
/// the array and the selection, and their runs stay inside the chunk and the output, cover
/// each piece's bytes exactly. All of it allocates
/// nothing (zinto-core is `no_std` and allocation-free).
pub fn layout(data: &[u8]) {
    let mut input = Input::new(data);
    let ndim = usize::from(input.u8() % 6);
    let wide = input.u8();
    let elem = usize::from(input.u8() % 17);
    let mut fields = [[0u64; 4]; 6];
    for (i, f) in fields.iter_mut().take(ndim).enumerate() {
        for v in f.iter_mut() {
            *v = extent(&mut input, wide & (1 << i) != 0);
        }
    }
    let shape: Vec<u64> = fields[..ndim].iter().map(|f| f[0]).collect();
    let chunk: Vec<u64> = fields[..ndim].iter().map(|f| f[1]).collect();
    let start: Vec<u64> = fields[..ndim].iter().map(|f| f[2]).collect();
    let len: Vec<u64> = fields[..ndim].iter().map(|f| f[3]).collect();
    let mut axes: Vec<usize> = (0..ndim).collect();
    for i in 0..ndim {
        axes.swap(i, usize::from(input.u8()) % ndim);
    }
    with_cap(0, || check(&shape, &chunk, &start, &len, &axes, elem));
}

fn check(
    shape: &[u64],
    chunk: &[u64],
    start: &[u64],
    len: &[u64],
    axes: &[usize],
    elem_size: usize,
) {
    let Ok(grid) = ChunkGrid::new(shape, chunk) else {
        return;
    };
    let Ok(selection) = Region::new(start, len) else {
        return;
    };
    let Ok(order) = MemoryOrder::permutation(axes) else {
        return;
    };
    let Ok(pieces) = grid.pieces(&selection) else {
        return;
    };
    let Ok(count) = pieces.chunk_count() else {
        return;
    };
    // Bounds in u128: a selection the core accepts may still be too big to count in u64.
    let elem = elem_size as u128;
    let out_bytes = len
        .iter()
        .map(|&n| u128::from(n))
        .fold(elem, u128::saturating_mul);
    let chunk_bytes = chunk
        .iter()
        .map(|&n| u128::from(n))
        .fold(elem, u128::saturating_mul);
    for i in 0..count.min(MAX_PIECES) {
        let piece = pieces.get(i).expect("index below chunk_count");
        for d in 0..shape.len() {
            let wide = |v: u64| u128::from(v);
            let (s, n) = (
                wide(piece.in_output.start()[d]),
                wide(piece.in_output.shape()[d]),
            );
            assert!(s + n <= wide(len[d]), "piece leaves the selection");
            let (cs, cn) = (
                wide(piece.in_chunk.start()[d]),
                wide(piece.in_chunk.shape()[d]),
            );
            assert!(cs + cn <= wide(chunk[d]), "piece leaves its chunk");
            let global = wide(piece.chunk[d]) * wide(chunk[d]) + cs;
            assert!(global + cn <= wide(shape[d]), "piece leaves the array");
            assert_eq!(
                global,
                wide(start[d]) + s,
                "piece is not where the selection maps it"
            );
        }
        let Ok(runs) = piece.runs(&grid, elem_size, &order, len) else {
            continue;
        };
        let piece_bytes = piece
            .in_output
            .shape()
            .iter()
            .map(|&n| u128::from(n))
            .fold(elem, u128::saturating_mul);
        let mut total = 0u128;
        for run in runs.take(MAX_RUNS) {
            assert!(run.len > 0, "empty run");
            assert!(
                (run.src + run.len) as u128 <= chunk_bytes,
                "run leaves the chunk"
            );
            assert!(
                (run.dst + run.len) as u128 <= out_bytes,
                "run leaves the output"
            );
            total += run.len as u128;
        }
        let count = piece
            .runs(&grid, elem_size, &order, len)
            .map_or(0, |r| r.run_count());
        if count <= MAX_RUNS {
            assert_eq!(total, piece_bytes, "runs do not cover the piece");
        }
    }
}
