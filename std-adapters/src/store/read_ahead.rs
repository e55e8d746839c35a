//! Reading ahead: what a store whose every request is a round trip (object stores, HTTP) does
//! for a read of many chunks, beside the plain [`Store`] calls every store answers.
//!
//! A read asks its store for [`Store::read_ahead`]. A store that has none (files, memory) is
//! read piece by piece through its own calls. One that has one is told every key the read will
//! take, in order ([`FetchOrder`]); it starts fetching ([`ReadAhead::begin`]) and hands each
//! worker the store to read its piece through ([`PieceSource::piece`]), so the array's read
//! knows no kind of store.

use std::num::NonZeroUsize;

use super::{Store, StoreError};

/// Workers per core of a read from a [`RemoteStore`](super::RemoteStore) (feature `remote`), unless
/// [`ReadOptions::threads`](crate::ReadOptions::threads) says otherwise, and at least
/// [`REMOTE_WORKERS_MIN`]. A worker waits on the network as well as decoding: while it decodes
/// one response the others wait in bounded channels, so one worker per core streams too few
/// responses. Measured on 2 cores over S3 in six runs (benchmarks.md at cf4ff61), medians: ten
/// 40 MB zstd chunks at 227 MB/s on 4 workers, 243 on 8 (tensorstore 226); 3,600 small chunks
/// at 107 and 99 (tensorstore 97); extra memory 2.0% and 3-5% on the former.
pub const REMOTE_WORKERS_PER_CORE: NonZeroUsize = NonZeroUsize::MIN.saturating_add(1);

/// The fewest workers a read from a [`RemoteStore`](super::RemoteStore) runs when the caller did
/// not say (at most its requests in flight; never more than the pieces read, as every read).
/// A worker reading a response streams it straight into the output for the cost of its input
/// block, where a body no worker reads has to wait, or to be held in the read-ahead budget: so
/// a read of a few large chunks reads each on its own worker. Measured on 2 cores against
/// s3s-fs started plainly (benchmarks.md at cf4ff61), ten 40 MB zstd chunks: 195 MB/s on 4 workers,
/// 313 on 10 (one a chunk), at 2.0% and 3.4% extra memory; 3,600 small chunks the same on 4,
/// 8 and 16.
pub const REMOTE_WORKERS_MIN: NonZeroUsize = NonZeroUsize::MIN.saturating_add(15);

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
pub struct FetchOrder {
    /// The keys, piece `i` reading `keys[i]`.
    pub keys: Vec<String>,
    /// What of each key comes first.
    pub first: FirstBytes,
    /// The bytes the read writes into its output: what a store may size its read-ahead by
    /// ([`ReadAheadBudget::Auto`]).
    pub output_len: u64,
}

/// The smallest budget [`ReadAheadBudget::Auto`] gives a read: 8 MiB.
pub const READ_AHEAD_MIN: u64 = 8 << 20;

/// [`ReadAheadBudget::Auto`] gives a read one part in this many of its output (2%), if that
/// is more than [`READ_AHEAD_MIN`]. Measured on ten 40 MB chunks on 4 workers (s3s-fs started
/// plainly, benchmarks.md at cf4ff61): 195 MB/s without read-ahead, 218 with 8 MiB, 228 with 32 MiB
/// at 14.5% extra memory. More workers ([`REMOTE_WORKERS_MIN`]) do better for less.
pub const READ_AHEAD_SHARE: u64 = 50;

/// The bytes of response bodies a remote read may hold ahead of its workers, beyond the few
/// frames each body may always have waiting ([`FRAMES_AHEAD`](crate::store::FRAMES_AHEAD),
/// feature `remote`): a body of an unsharded array that no worker has reached yet keeps
/// arriving into this memory instead of pausing the server. Granted while it lasts, then to
/// waiting bodies oldest piece first; given back as workers copy the bytes out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReadAheadBudget {
    /// [`READ_AHEAD_SHARE`]: one part in 50 (2%) of the read's output, and at least
    /// [`READ_AHEAD_MIN`] (8 MiB).
    Auto,
    /// This many bytes; 0 holds nothing ahead (a body pauses once its frames wait).
    Bytes(u64),
}

impl ReadAheadBudget {
    /// The bytes this budget gives a read whose output is `output_len` bytes.
    ///
    /// ```
    /// use zinto::store::ReadAheadBudget;
    ///
    /// assert_eq!(ReadAheadBudget::Bytes(5).bytes_for(1 << 40), 5);
    /// assert_eq!(ReadAheadBudget::Auto.bytes_for(1000), 8 << 20);
    /// assert_eq!(ReadAheadBudget::Auto.bytes_for(4_000_000_000), 80_000_000);
    /// ```
    pub fn bytes_for(self, output_len: u64) -> u64 {
        match self {
            Self::Auto => (output_len / READ_AHEAD_SHARE).max(READ_AHEAD_MIN),
            Self::Bytes(n) => n,
        }
    }
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
    fn begin(&self, plan: FetchOrder) -> Result<Box<dyn PieceSource + '_>, StoreError>;
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
