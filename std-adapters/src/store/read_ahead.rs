//! Reading ahead: what a store whose every request is a round trip (object stores, HTTP) does
//! for a read of many chunks, beside the plain [`Store`] calls every store answers.
//!
//! A read asks its store for [`Store::read_ahead`]. A store that has none (files, memory) is
//! read piece by piece through its own calls. One that has one is told every key the read will
//! take, in order ([`ReadPlan`]); it starts fetching ([`ReadAhead::begin`]) and hands each
//! worker the store to read its piece through ([`PieceSource::piece`]), so the array's read
//! knows no kind of store.

use std::num::NonZeroUsize;

use super::{Store, StoreError};

/// Workers per core of a read from a [`RemoteStore`](super::RemoteStore) (feature `remote`), unless
/// [`ReadOptions::threads`](crate::ReadOptions::threads) says otherwise. A worker waits on the
/// network as well as decoding: while it decodes one response the others wait in bounded
/// channels, so one worker per core streams too few responses. Measured on 2 cores over S3 in
/// six runs (docs/benchmarks.md), medians: ten 40 MB zstd chunks at 227 MB/s on 4 workers, 243
/// on 8 (tensorstore 226); 3,600 small chunks at 107 and 99 (tensorstore 97); extra memory 2.0%
/// and 3-5% on the former. Four workers (two per core): the same speed within the runs' spread,
/// less memory.
pub const REMOTE_WORKERS_PER_CORE: NonZeroUsize = NonZeroUsize::MIN.saturating_add(1);

/// Which bytes of each key a read needs first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FirstBytes {
    /// The whole object (an unsharded chunk).
    Whole,
    /// The last `n` bytes (a shard's index at its end).
    Suffix(u64),
    /// The first `n` bytes (a shard's index at its start).
    Prefix(u64),
}

/// A read of many keys: each key in the order the workers will take them, and what of each.
#[derive(Debug)]
pub struct ReadPlan {
    /// The keys, piece `i` reading `keys[i]`.
    pub keys: Vec<String>,
    /// What of each key comes first.
    pub first: FirstBytes,
}

/// The read-ahead side of a store: implemented by [`RemoteStore`](super::RemoteStore) (feature
/// `remote`), and by any store of a caller's whose requests are round trips.
pub trait ReadAhead: Sync {
    /// The workers a read should run when the caller did not say, given one per core.
    fn workers(&self, per_core: NonZeroUsize) -> NonZeroUsize;

    /// Starts fetching `plan`'s keys, in order.
    ///
    /// # Errors
    /// A [`StoreError`] if the fetches cannot be started.
    fn begin(&self, plan: ReadPlan) -> Result<Box<dyn PieceSource + '_>, StoreError>;
}

/// The fetches of one read under way: each piece's store, in the order of the plan.
pub trait PieceSource: Sync {
    /// The store the worker reading piece `index` (of `key`) reads through; it serves what was
    /// fetched for the piece and goes to the store itself for anything else.
    ///
    /// # Errors
    /// The fetch's [`StoreError`]; [`StoreError::Internal`] for a piece taken twice.
    fn piece(&self, index: u64, key: &str) -> Result<Box<dyn Store + '_>, StoreError>;

    /// Stops every fetch: the read failed or was cancelled.
    fn abort(&self);
}
