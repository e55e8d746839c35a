//! Concatenating chunks whose declared sizes are hostile.

use std::num::NonZeroUsize;

use zinto::core::codec::{BytesCodecs, Checksums, Compressor};
use zinto::{BLOCK_LEN, ConcatPlan, MemoryStore, ReadOptions};

use super::input::Input;
use crate::alloc::with_cap;
use crate::guard::Guarded;

/// Outputs larger than this are planned but not read.
const MAX_OUTPUT: usize = 4 << 20;

/// `[kind, chunk count, chunks: u16-prefixed each]`: chunks stored raw, gzip or zstd (`kind`,
/// with 0-1 crc32c trailers), planned and, when the total is small, read on 1 or 2 workers
/// into a guarded output. Planning allocates only per key (never by a declared size), the
/// plan's pieces tile the output in order, and the read stays within a block and decoder state
/// per worker.
pub fn concat(data: &[u8]) {
    let mut input = Input::new(data);
    let kind = input.u8();
    let count = usize::from(input.u8() % 8);
    let mut store = MemoryStore::new();
    let mut keys = Vec::new();
    for i in 0..count {
        let key = format!("k{i}");
        store.insert(key.clone(), input.prefixed().to_vec());
        keys.push(key);
    }
    let codecs = BytesCodecs {
        compressor: match kind % 3 {
            0 => None,
            1 => Some(Compressor::GZIP),
            _ => Some(Compressor::ZSTD),
        },
        checksums: if kind >> 2 & 1 == 1 {
            Checksums::CRC32C
        } else {
            Checksums::NONE
        },
    };
    let Ok(plan) = with_cap(64 << 10, || ConcatPlan::new(&store, &keys, codecs)) else {
        return;
    };
    let mut at = 0;
    for piece in plan.pieces() {
        assert_eq!(piece.offset, at, "pieces do not tile the output");
        at += piece.len;
    }
    assert_eq!(at, plan.len());
    if plan.len() > MAX_OUTPUT {
        return;
    }
    let threads = NonZeroUsize::new(1 + usize::from(kind >> 3 & 1));
    let workers = threads.map_or(1, NonZeroUsize::get);
    // Per worker: the input block, and ruzstd's heap for a window of at most the output.
    let window = plan.len().max(1024).next_power_of_two();
    let bound = workers * (BLOCK_LEN + super::decode::ruzstd_bound(window));
    let mut out = Guarded::new(plan.len());
    let options = ReadOptions {
        threads,
        progress: None,
        ..ReadOptions::default()
    };
    let _ = with_cap(bound, || plan.read_into(&store, out.dst(), &options));
    out.check();
}
