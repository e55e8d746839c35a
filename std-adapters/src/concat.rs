//! Variable-size chunks concatenated into one exact buffer.
//!
//! Every chunk's decoded size is read from a few of its bytes ([`size_probe`]: a raw chunk's
//! length, a zstd frame's content size, a gzip member's ISIZE), so the buffer is sized once,
//! exactly. Then workers decode the chunks in parallel, each straight into its own part of the
//! buffer (handed out with `split_at_mut`), streaming from the store as the array read path
//! does: no chunk is held whole in memory, and each output byte is written once.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use zinto_core::LayoutError;
use zinto_core::codec::{BytesCodecs, decoded_len, size_probe};

use crate::array::{ReadOptions, zeroed_buffer};
use crate::error::{Error, ErrorKind};
use crate::pool::{FirstError, run_workers};
use crate::reader::{ReadContext, check_plausible, decode_stored};
use crate::store::{Store, StoreError};

/// One chunk of a [`ConcatPlan`]: where it is stored and where it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConcatPiece {
    /// The chunk's key in the store.
    pub key: String,
    /// Its stored (encoded) length.
    pub stored: u64,
    /// Where its decoded bytes start in the output.
    pub offset: usize,
    /// How many bytes it decodes to.
    pub len: usize,
}

/// Where each of a list of chunks goes when they are decoded end to end into one buffer.
///
/// ```
/// use zinto::core::codec::{BytesCodecs, Compressor, Checksums};
/// use zinto::{ConcatPlan, MemoryStore, ReadOptions};
///
/// let mut store = MemoryStore::new();
/// store.insert("a.zst", zstd::bulk::compress(&[1u8; 300], 3)?);
/// store.insert("b.zst", zstd::bulk::compress(&[2u8; 100], 3)?);
/// let codecs = BytesCodecs { compressor: Some(Compressor::ZSTD), checksums: Checksums::NONE };
///
/// let plan = ConcatPlan::new(&store, &["a.zst", "b.zst"], codecs)?;
/// let mut out = vec![0u8; plan.len()]; // exact: 400 bytes, known before decoding
/// plan.read_into(&store, &mut out, &ReadOptions::default())?;
/// assert_eq!((out.len(), out[299], out[300]), (400, 1, 2));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct ConcatPlan {
    codecs: BytesCodecs,
    pieces: Vec<ConcatPiece>,
    len: usize,
}

impl ConcatPlan {
    /// Reads the decoded size of every key in `keys` (stored with `codecs`), in order.
    ///
    /// Reads only a few bytes per key. Declared sizes are untrusted: a chunk whose stored
    /// length could not decode to its declared size (more than the compressor's maximum
    /// ratio) is refused before anything is allocated for it.
    ///
    /// # Errors
    /// Naming the key: [`ErrorKind::Store`] ([`StoreError::Missing`] for a missing key),
    /// [`ErrorKind::Decode`] when the size cannot be read (a zstd frame without a content
    /// size, zlib, a wrong magic number, too short), [`ErrorKind::ChunkTooLarge`] for an
    /// implausible declared size; [`ErrorKind::Layout`] if the total overflows.
    pub fn new<S: Store + ?Sized, K: AsRef<str>>(
        store: &S,
        keys: &[K],
        codecs: BytesCodecs,
    ) -> Result<Self, Error> {
        let mut pieces = Vec::with_capacity(keys.len());
        let mut total = 0usize;
        for key in keys {
            let key = key.as_ref();
            let at = |kind| Error::outside_array(Some(key), kind);
            let stored = store
                .size(key)
                .map_err(|e| at(ErrorKind::Store(e)))?
                .ok_or_else(|| at(ErrorKind::Store(StoreError::Missing)))?;
            let len = probe(store, key, stored, &codecs).map_err(at)?;
            let len =
                usize::try_from(len).map_err(|_| at(ErrorKind::Layout(LayoutError::Overflow)))?;
            check_plausible(&codecs, stored, len).map_err(at)?;
            let offset = total;
            total = total
                .checked_add(len)
                .ok_or_else(|| at(ErrorKind::Layout(LayoutError::Overflow)))?;
            pieces.push(ConcatPiece {
                key: key.to_owned(),
                stored,
                offset,
                len,
            });
        }
        Ok(Self {
            codecs,
            pieces,
            len: total,
        })
    }

    /// Total decoded bytes: the size the output must have.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the chunks decode to nothing at all.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The chunks, in output order.
    pub fn pieces(&self) -> &[ConcatPiece] {
        &self.pieces
    }

    /// Decodes every chunk into its part of `out`, which must be exactly [`Self::len`] bytes,
    /// on `options.threads` workers (one per core by default).
    ///
    /// # Errors
    /// [`ErrorKind::OutputSize`] for a wrong `out` length; otherwise the first chunk error,
    /// naming the key ([`ErrorKind::Decode`] if a chunk decodes to another size than it
    /// declared, or is corrupt; [`ErrorKind::Store`]). `out` is then partly written.
    pub fn read_into<S: Store + ?Sized>(
        &self,
        store: &S,
        out: &mut [u8],
        options: &ReadOptions<'_>,
    ) -> Result<(), Error> {
        self.read_into_and_then(store, out, options, &|_, _| {})
    }

    /// [`Self::read_into`], and right after each chunk is decoded, `then(piece, bytes)` on
    /// the same worker, while the chunk's bytes are still in its cache: a per-chunk pass (byte
    /// swapping, [`prepare_keys`](zinto_core::records::prepare_keys) before a sort) without a
    /// second trip through memory.
    ///
    /// # Errors
    /// As [`Self::read_into`].
    pub fn read_into_and_then<S: Store + ?Sized>(
        &self,
        store: &S,
        out: &mut [u8],
        options: &ReadOptions<'_>,
        then: &(dyn Fn(&ConcatPiece, &mut [u8]) + Sync),
    ) -> Result<(), Error> {
        if out.len() != self.len {
            return Err(Error::outside_array(
                None,
                ErrorKind::OutputSize {
                    expected: self.len as u64,
                    got: out.len() as u64,
                },
            ));
        }
        let threads = options.workers();
        let workers = threads.get().min(self.pieces.len());
        let total = self.pieces.len() as u64;
        let done = AtomicU64::new(0);
        let first_error = FirstError::default();
        // Pieces are in output order: each worker takes the next one and splits its part off.
        let queue = Mutex::new((self.pieces.iter(), out));
        let worker = || {
            let mut ctx = match ReadContext::new() {
                Ok(ctx) => ctx,
                Err(kind) => return first_error.record(Error::outside_array(None, kind)),
            };
            while !first_error.failed() {
                let (piece, dst) = {
                    let Ok(mut q) = queue.lock() else { return };
                    let (pieces, rest) = &mut *q;
                    let Some(piece) = pieces.next() else { return };
                    let Some((mine, after)) = std::mem::take(rest).split_at_mut_checked(piece.len)
                    else {
                        // Unreachable: `out` is the sum of the pieces' lengths (checked above).
                        let kind = ErrorKind::Internal {
                            what: "a piece past the end of the output",
                        };
                        return first_error.record(Error::outside_array(Some(&piece.key), kind));
                    };
                    *rest = after;
                    (piece, mine)
                };
                if let Err(kind) = decode_stored(
                    store,
                    &mut ctx,
                    &piece.key,
                    0,
                    piece.stored,
                    &self.codecs,
                    dst,
                ) {
                    first_error.record(Error::outside_array(Some(&piece.key), kind));
                    return;
                }
                then(piece, dst);
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                if let Some(progress) = options.progress {
                    progress(n, total);
                }
            }
        };
        run_workers(workers, &worker);
        first_error.into_result()
    }

    /// Decodes every chunk into a new vector of exactly [`Self::len`] bytes (the one
    /// allocation of the output).
    ///
    /// # Errors
    /// As [`Self::read_into`], and [`ErrorKind::OutOfMemory`] if the vector cannot be allocated.
    pub fn read_to_vec<S: Store + ?Sized>(
        &self,
        store: &S,
        options: &ReadOptions<'_>,
    ) -> Result<Vec<u8>, Error> {
        let mut out = zeroed_buffer(self.len).ok_or_else(|| {
            Error::outside_array(
                None,
                ErrorKind::OutOfMemory {
                    bytes: self.len as u64,
                },
            )
        })?;
        self.read_into(store, &mut out, options)?;
        Ok(out)
    }
}

/// The decoded size of `key`, from the few bytes its codecs say hold it.
fn probe<S: Store + ?Sized>(
    store: &S,
    key: &str,
    stored: u64,
    codecs: &BytesCodecs,
) -> Result<u64, ErrorKind> {
    let probe = size_probe(codecs, stored).map_err(ErrorKind::Decode)?;
    let mut head = [0u8; 32];
    let mut tail = [0u8; 32];
    let head = head.get_mut(..probe.head_len).unwrap_or(&mut []);
    let tail = tail.get_mut(..probe.tail_len).unwrap_or(&mut []);
    // No zero-length reads: a request each, on a remote store.
    if !head.is_empty() {
        store.read_into(key, 0, head).map_err(ErrorKind::Store)?;
    }
    if !tail.is_empty() {
        store
            .read_into(key, probe.tail_offset, tail)
            .map_err(ErrorKind::Store)?;
    }
    decoded_len(codecs, stored, head, tail).map_err(ErrorKind::Decode)
}

/// Concatenates the decoded chunks at `keys` into `out`, which must be exactly their total
/// decoded size (see [`ConcatPlan`] to learn it first, or [`concat_to_vec`]).
///
/// # Errors
/// As [`ConcatPlan::new`] and [`ConcatPlan::read_into`].
pub fn concat_into<S: Store + ?Sized, K: AsRef<str>>(
    store: &S,
    keys: &[K],
    codecs: BytesCodecs,
    out: &mut [u8],
) -> Result<(), Error> {
    ConcatPlan::new(store, keys, codecs)?.read_into(store, out, &ReadOptions::default())
}

/// Concatenates the decoded chunks at `keys` into a new vector, allocated once at its exact
/// final size.
///
/// # Errors
/// As [`ConcatPlan::new`] and [`ConcatPlan::read_to_vec`].
pub fn concat_to_vec<S: Store + ?Sized, K: AsRef<str>>(
    store: &S,
    keys: &[K],
    codecs: BytesCodecs,
) -> Result<Vec<u8>, Error> {
    ConcatPlan::new(store, keys, codecs)?.read_to_vec(store, &ReadOptions::default())
}
