//! How a job runs, one type for both directions: [`Options`] holds what reads and writes
//! share (worker threads, progress, cancellation, the decode limit of variable-length chunks)
//! and, in `extra`, what only one direction takes ([`ReadExtra`], [`WriteExtra`]).
//! [`ReadOptions`] and [`WriteOptions`] name the two.
//!
//! ```
//! use std::num::NonZeroUsize;
//! use zinto::{ReadOptions, WriteExtra, WriteOptions};
//!
//! let read = ReadOptions { threads: NonZeroUsize::new(2), ..ReadOptions::default() };
//! let write = WriteOptions {
//!     extra: WriteExtra { write_empty_chunks: true, ..WriteExtra::default() },
//!     ..WriteOptions::default()
//! };
//! assert_eq!(read.workers().get(), 2);
//! assert!(write.extra.write_empty_chunks && write.threads.is_none());
//! ```

use std::num::NonZeroUsize;
use std::sync::atomic::AtomicBool;

use zinto_core::ChunkOrder;

/// Called with a chunk's grid coordinates when the chunk is absent from the store.
pub type OnAbsent<'a> = &'a (dyn Fn(&[u64]) + Sync);

/// How to run a read or a write: what both share, and `extra`, what only one takes.
#[derive(Clone, Copy)]
pub struct Options<'a, Extra> {
    /// Worker threads; `None` means one per available core (for a read of an array in a
    /// remote store, [`REMOTE_WORKERS_PER_CORE`](crate::REMOTE_WORKERS_PER_CORE) per core, at
    /// least [`REMOTE_WORKERS_MIN`](crate::REMOTE_WORKERS_MIN)). Never more than the chunks.
    pub threads: Option<NonZeroUsize>,
    /// Called after each chunk with (chunks done, chunks in all), from the worker that did it.
    pub progress: Option<&'a (dyn Fn(u64, u64) + Sync)>,
    /// Checked by the workers before each chunk (a concatenation's before each file): once
    /// it is `true`, no further chunk is started and the job returns
    /// [`ErrorKind::Cancelled`](crate::ErrorKind::Cancelled). A read's output is then partly
    /// written; a write's chunks already written stay written, each whole (none is torn). For
    /// Ctrl-C in the Python package, or a caller's timeout.
    pub cancel: Option<&'a AtomicBool>,
    /// The most one chunk of variable-length values (strings, bytes) may decode to, in bytes
    /// (a write's old chunks, read to keep what a partial write does not replace, too);
    /// `None` means [`DECODED_CHUNK_LIMIT`](crate::DECODED_CHUNK_LIMIT) (1 GiB). Such a chunk's
    /// decoded size is stated by no metadata, and a compressed one can claim or decode to
    /// millions of times its stored size: past the limit the job fails with
    /// [`ErrorKind::DecodedTooLarge`](crate::ErrorKind::DecodedTooLarge) having held no more
    /// than it. Fixed-size types need no limit (their chunks decode to the size the metadata
    /// gives).
    pub decoded_chunk_limit: Option<u64>,
    /// What only this direction takes.
    pub extra: Extra,
}

/// How to run a read.
pub type ReadOptions<'a> = Options<'a, ReadExtra<'a>>;

/// How to run a write.
pub type WriteOptions<'a> = Options<'a, WriteExtra>;

/// What only a read takes.
#[derive(Default, Clone, Copy)]
pub struct ReadExtra<'a> {
    /// Called with a chunk's grid coordinates (a shard's, for a sharded array) when the
    /// chunk is absent from the store, from the worker that found it so; its part of the
    /// output is then the fill value. Once per chunk of the selection (a variable-length read
    /// too). zarr-python 3.4 reports absent chunks per chunk: this is how zinto knows them.
    pub absent: Option<OnAbsent<'a>>,
}

/// What only a write takes.
#[derive(Default, Clone, Copy, Debug)]
pub struct WriteExtra {
    /// Write chunks that are all fill value too (zarr-python's `write_empty_chunks=True`).
    /// By default they are not written, and an old chunk there is removed.
    pub write_empty_chunks: bool,
    /// The order of a shard's inner chunks in its bytes (the index says where each is, so
    /// any order reads the same): C order by default, as zarr-python 3.1 and the zarrs crate
    /// write; [`ChunkOrder::Morton`] as zarr-python 3.4 writes.
    pub inner_chunk_order: ChunkOrder,
}

impl<Extra: Default> Default for Options<'_, Extra> {
    fn default() -> Self {
        Self {
            threads: None,
            progress: None,
            cancel: None,
            decoded_chunk_limit: None,
            extra: Extra::default(),
        }
    }
}

impl<Extra> Options<'_, Extra> {
    /// The limit on a variable-length chunk's decoded size this job applies.
    pub fn decoded_chunk_limit(&self) -> u64 {
        self.decoded_chunk_limit
            .unwrap_or(crate::DECODED_CHUNK_LIMIT)
    }

    /// The worker count this job asks for: `threads`, or one per available core.
    pub fn workers(&self) -> NonZeroUsize {
        self.threads.unwrap_or_else(crate::workers::cores)
    }
}

impl<Extra: std::fmt::Debug> std::fmt::Debug for Options<'_, Extra> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("threads", &self.threads)
            .field("progress", &self.progress.is_some())
            .field("cancel", &self.cancel)
            .field("decoded_chunk_limit", &self.decoded_chunk_limit)
            .field("extra", &self.extra)
            .finish()
    }
}

impl std::fmt::Debug for ReadExtra<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadExtra")
            .field("absent", &self.absent.is_some())
            .finish()
    }
}
