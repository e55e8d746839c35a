//! Writing an array from the caller's buffer ([`Array::write_from`]), the mirror of
//! `read_into`: each chunk the region touches is encoded once, straight from the caller's
//! slice where the chunk lies whole in it, and streamed to the store through a window per
//! worker; workers write disjoint chunks in parallel.
//!
//! The paths, by how a chunk meets the region:
//! - whole, contiguous in the input: compressed from the caller's slice (stored as it is,
//!   one write of the slice, when uncompressed);
//! - whole, in rows of the input: the rows go to the compressor in order, none gathered
//!   into a chunk-sized buffer;
//! - cut by the region, or at the array's edge: the old chunk is read (or the fill value
//!   laid) into one chunk of scratch per worker, the region's part copied in, and that
//!   encoded; edges are padded with the fill value, as zarr-python pads them.
//!
//! A chunk that is all fill value is not written, and an old one there is removed, as
//! zarr-python does by default (`write_empty_chunks=False`); [`WriteOptions`] can write them.

mod chunk;
mod filters;
mod plan;
mod scatter;
mod shard;
mod stream;
mod vlen;
mod vlen_shard;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use zinto_core::{Piece, Pieces, Region};

use crate::Array;
use crate::error::{Error, ErrorKind};
use crate::options::WriteOptions;
use crate::store::{ChunkUpdate, Store, StoreError, UPDATE_TRIES, UpdateLock};
use crate::workers::{Crew, Work};

pub(crate) use plan::WritePlan;

/// Bytes of a worker's output window (and of its byte-swap window, for arrays stored in the
/// other byte order).
pub const WRITE_WINDOW: usize = 512 << 10;

/// One write: what every worker shares.
pub(crate) struct WriteJob<'a, S> {
    pub(crate) array: &'a Array<S>,
    pub(crate) plan: &'a WritePlan,
    pub(crate) region: &'a Region,
    pub(crate) input: &'a [u8],
    pub(crate) options: &'a WriteOptions<'a>,
}

/// Guards the update of the chunk (or shard) `key` of `array` while this writer reads,
/// merges and replaces it ([`Store::lock_update`]: on a file store, a lock on the array's
/// [`LOCK_FILE`](crate::store::LOCK_FILE)). The guard stands for the chunk's key within
/// its array (`c/0/0`), not within the store: a writer that opened the array at its own folder
/// and one that opened it below a group (`v/c/0/0`) take the same lock.
fn lock_update<S: Store>(
    array: &Array<S>,
    key: &str,
    cancel: Option<&AtomicBool>,
) -> Result<UpdateLock, ErrorKind> {
    let path = array.path();
    let in_array = match path.is_empty() {
        true => Some(key),
        false => key.strip_prefix(path).and_then(|k| k.strip_prefix('/')),
    }
    .ok_or(ErrorKind::Internal {
        what: "a chunk key outside its array's folder",
    })?;
    let lock_key = crate::doc::join(path, crate::store::LOCK_FILE);
    let update = ChunkUpdate {
        key,
        in_array,
        lock_key: &lock_key,
        cancel,
    };
    match array.store().lock_update(&update) {
        Ok(lock) => Ok(lock),
        Err(StoreError::Cancelled) => Err(ErrorKind::Cancelled),
        Err(e) => Err(ErrorKind::Store(e)),
    }
}

/// Runs `merge` (the stored chunk `key` read, the caller's part laid over it, the chunk
/// replaced) under the chunk's update guard ([`lock_update`]); with `guarded` false (a write
/// that replaces the chunk whole), under none. Under a conditional update, a merge that met
/// another writer's replacement (its write refused, or its read failed on a chunk replaced
/// meanwhile) runs again from a fresh read, after a random pause (longer as the tries add up,
/// in steps of a try's length), up to [`UPDATE_TRIES`] times
/// in all; past that, [`StoreError::Replaced`] with the tries made. A set `cancel` ends a
/// wait for another writer's lock, and the tries, with [`ErrorKind::Cancelled`].
pub(crate) fn update<S: Store, T>(
    array: &Array<S>,
    (key, guarded, cancel): (&str, bool, Option<&AtomicBool>),
    mut merge: impl FnMut(&UpdateLock) -> Result<T, ErrorKind>,
) -> Result<T, ErrorKind> {
    if !guarded {
        return merge(&UpdateLock::unguarded());
    }
    let mut tries = 0;
    loop {
        tries += 1;
        if tries > 1 && cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Err(ErrorKind::Cancelled);
        }
        let began = std::time::Instant::now();
        let lock = lock_update(array, key, cancel)?;
        let failed = match merge(&lock) {
            Ok(done) => return Ok(done),
            Err(e) => e,
        };
        let replaced = match &failed {
            // Refused PUT; or a read that found the chunk replaced between its requests (on an
            // object store, guarded by a condition or not: read again).
            ErrorKind::Store(StoreError::Replaced { .. } | StoreError::Changed { .. }) => true,
            // A read that failed on a chunk replaced while it read (a shard's index and its
            // inner chunks from two versions): the same collision, seen earlier. Other errors
            // (cancelled, out of memory, the caller's own) end the update as they are; so does
            // a failed read whose HEAD fails too (its own error says more).
            ErrorKind::Store(_) | ErrorKind::Decode(_) | ErrorKind::Shard(_) => {
                lock.is_conditional() && lock.replaced().is_ok_and(|replaced| replaced)
            }
            _ => false,
        };
        match replaced {
            false => return Err(failed),
            // Within another update of the chunk on this thread (a selection's write of a
            // whole chunk it read): that update reads again, with a fresh condition.
            true if lock.is_nested() => return Err(failed),
            true if tries >= UPDATE_TRIES => {
                let key = match failed {
                    ErrorKind::Store(StoreError::Replaced { key, .. }) => key,
                    _ => key.to_owned(),
                };
                return Err(ErrorKind::Store(StoreError::Replaced { key, tries }));
            }
            true => {
                drop(lock);
                std::thread::sleep(crate::store::update_backoff(tries, began.elapsed()));
            }
        }
    }
}

impl<S: Store> Array<S> {
    /// Runs `merge` under the update guard of the one chunk (or shard) that `region` lies in,
    /// for a caller that reads the chunk, changes it and writes it back itself (zarr-python's
    /// index-list and mask writes through zinto's pipeline): on a [`FileStore`](crate::FileStore)
    /// other writers of the chunk wait meanwhile; on S3, GCS and Azure the write `merge` makes
    /// is conditional on the version the guard found, and `merge` runs again, from its read,
    /// when another writer replaced the chunk first ([`UpdateLock::is_conditional`]). The
    /// guard holds for this thread alone: `merge`'s reads and writes must run on it (one
    /// worker: `threads: Some(1)`). Under a conditional guard, `merge`'s write must not delete
    /// the chunk (a store cannot delete on a condition): write it with
    /// [`WriteExtra::write_empty_chunks`](crate::WriteExtra::write_empty_chunks) set.
    ///
    /// # Errors
    /// [`ErrorKind::NotOneChunk`] if `region` is not inside one chunk; the guard's errors
    /// ([`StoreError::LockWait`], [`StoreError::Replaced`] after [`UPDATE_TRIES`]); `merge`'s.
    pub fn update_chunk<T>(
        &self,
        region: &Region,
        mut merge: impl FnMut(&UpdateLock) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let err = |key: Option<&str>, kind| Error::new(self.path(), key, kind);
        let layout = |e| err(None, ErrorKind::Layout(e));
        let mut pieces = self.metadata().grid.pieces(region).map_err(layout)?;
        let chunks = pieces.chunk_count().map_err(layout)?;
        let (Some(piece), 1) = (pieces.next(), chunks) else {
            return Err(err(None, ErrorKind::NotOneChunk { chunks }));
        };
        let key = self.chunk_key(&piece.chunk);
        update(self, (&key, true, None), |lock| {
            merge(lock).map_err(Error::into_kind)
        })
        .map_err(|kind| err(Some(&key), kind))
    }
}

/// The part of a piece's chunk (or shard) inside the array, whether the region cuts it (holds
/// only some of that part, so the old chunk's values are read and kept around it), and the
/// chunk's own stored shape (on a rectilinear grid, not the longest edges).
pub(crate) struct ChunkPart {
    pub(crate) in_array: Region,
    pub(crate) cut: bool,
    pub(crate) shape: zinto_core::Dims,
}

impl ChunkPart {
    pub(crate) fn of(grid: &zinto_core::ChunkGrid, piece: &Piece) -> Result<Self, ErrorKind> {
        let in_array = grid.chunk_region(&piece.chunk).map_err(ErrorKind::Layout)?;
        let cut = piece.in_chunk.shape() != in_array.shape();
        let shape = grid
            .chunk_shape_at(&piece.chunk)
            .map_err(ErrorKind::Layout)?;
        Ok(Self {
            in_array,
            cut,
            shape,
        })
    }
}

impl<S: Store> Array<S> {
    /// Writes `input` (C order, native byte order, the selection's size as for
    /// [`Array::read_into`]) into `region` of the array, with one worker per core.
    ///
    /// ```
    /// use zinto::{Array, ArrayBuilder, DataType, FileStore, Region};
    ///
    /// # let dir = tempdir();
    /// # fn tempdir() -> std::path::PathBuf {
    /// #     let d = std::env::temp_dir().join(format!("zinto-doc-{}", std::process::id()));
    /// #     let _ = std::fs::remove_dir_all(&d);
    /// #     d
    /// # }
    /// let array = ArrayBuilder::new(&[100, 80], DataType::Float32, &[50, 40])
    ///     .zstd(3)
    ///     .create(FileStore::new(&dir), "")?;
    /// let values: Vec<f32> = (0..8000).map(|i| i as f32).collect();
    /// let whole = Region::whole(&[100, 80])?;
    /// array.write_from(&whole, bytemuck::cast_slice(&values))?;
    /// let back = array.read_to_vec(&Region::from_ranges(&[1..2, 0..2])?)?;
    /// assert_eq!(back, bytemuck::cast_slice::<f32, u8>(&[80.0, 81.0]));
    /// # std::fs::remove_dir_all(&dir).ok();
    /// # Ok::<(), zinto::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`ErrorKind::OutputSize`] if `input` is not the region's size, [`ErrorKind::Layout`]
    /// for a region outside the array, [`ErrorKind::Metadata`] for what the write path does not
    /// write yet (sharding, filters, transposed chunks, variable-length data; named),
    /// [`ErrorKind::Encode`] for a compressor this build cannot write, and
    /// [`ErrorKind::Store`] with the chunk's key when the store fails.
    pub fn write_from(&self, region: &Region, input: &[u8]) -> Result<(), Error> {
        self.write_from_with(region, input, &WriteOptions::default())
    }

    /// Whether zinto writes this array, answered before anything is written: `Err` names what
    /// it does not write yet (a codec, a filter, a data type; [`ErrorKind::Metadata`]) or what
    /// this build cannot encode ([`ErrorKind::Encode`]).
    ///
    /// # Errors
    /// As said.
    pub fn check_writable(&self) -> Result<(), Error> {
        WritePlan::of(self.metadata())
            .map(|_| ())
            .map_err(|kind| Error::new(self.path(), None, kind))
    }

    /// Whether zinto writes this array of variable-length values with
    /// [`Array::write_vlen`], answered before anything is written, as
    /// [`Self::check_writable`] answers for [`Self::write_from`].
    ///
    /// # Errors
    /// As said; [`ErrorKind::WrongType`] for an array of fixed-size elements.
    pub fn check_vlen_writable(&self) -> Result<(), Error> {
        WritePlan::of_vlen(self.metadata())
            .map(|_| ())
            .map_err(|kind| Error::new(self.path(), None, kind))
    }

    /// [`Self::write_from`] with explicit options (threads, progress, cancel, empty chunks).
    ///
    /// # Errors
    /// As [`Self::write_from`]; [`ErrorKind::Cancelled`] once `cancel` is set. The first
    /// error stops the write: chunks written before it stay written, each whole.
    pub fn write_from_with(
        &self,
        region: &Region,
        input: &[u8],
        options: &WriteOptions<'_>,
    ) -> Result<(), Error> {
        let err = |kind| Error::new(self.path(), None, kind);
        let plan = WritePlan::of(self.metadata()).map_err(err)?;
        let expected = self.selection_len(region)?;
        if input.len() != expected {
            return Err(err(ErrorKind::OutputSize {
                expected: expected as u64,
                got: input.len() as u64,
            }));
        }
        let pool = Pool::new(self, region, options)?;
        let job = WriteJob {
            array: self,
            plan: &plan,
            region,
            input,
            options,
        };
        pool.run(
            || chunk::Worker::new(&plan),
            |worker, piece| worker.write_piece(&job, piece),
        )
    }
}

/// The chunks one write touches and the workers that write them.
pub(crate) struct Pool<'a> {
    path: &'a str,
    options: &'a WriteOptions<'a>,
    pieces: Pieces<'a>,
    total: u64,
    threads: usize,
}

impl<'a> Pool<'a> {
    /// The pool writing `region` of `array`: one worker per chunk at most.
    pub(crate) fn new<S: Store>(
        array: &'a Array<S>,
        region: &'a Region,
        options: &'a WriteOptions<'a>,
    ) -> Result<Self, Error> {
        let err = |kind| Error::new(array.path(), None, kind);
        let pieces = array
            .metadata()
            .grid
            .pieces(region)
            .map_err(|e| err(ErrorKind::Layout(e)))?;
        let total = pieces
            .chunk_count()
            .map_err(|e| err(ErrorKind::Layout(e)))?;
        let threads = options
            .threads
            .unwrap_or_else(crate::workers::cores)
            .get()
            .min(usize::try_from(total).unwrap_or(usize::MAX));
        Ok(Self {
            path: array.path(),
            options,
            pieces,
            total,
            threads,
        })
    }

    /// Runs the workers (each made by `new_worker`), each taking the next piece and writing
    /// it with `write` until none is left, one fails, or the write is cancelled; the first
    /// error is the write's.
    pub(crate) fn run<W>(
        &self,
        new_worker: impl Fn() -> Result<W, ErrorKind> + Sync,
        write: impl Fn(&mut W, &Piece) -> Result<(), Error> + Sync,
    ) -> Result<(), Error> {
        let err = |kind| Error::new(self.path, None, kind);
        let next = AtomicU64::new(0);
        let crew = Crew {
            threads: self.threads,
            cancel: self.options.cancel,
            progress: self.options.progress,
            total: self.total,
            path: Some(self.path),
        };
        crew.run(&Work {
            new_worker: || new_worker().map_err(err),
            next: || {
                self.pieces
                    .get(next.fetch_add(1, Ordering::Relaxed))
                    .map(Ok)
            },
            run: |worker: &mut W, piece: Piece| write(worker, &piece),
            retire: drop,
        })
    }
}
