//! Variable-size chunks concatenated into one exact buffer.
//!
//! Every chunk's decoded size is read from a few of its bytes ([`size_probe`]: a raw chunk's
//! length, a zstd frame's content size, a gzip member's ISIZE), so the buffer is sized once,
//! exactly. Then workers decode the chunks in parallel, each straight into its own part of the
//! buffer (handed out with `split_at_mut`), streaming from the store as the array read path
//! does: no chunk is held whole in memory, and each output byte is written once.

use std::sync::Mutex;

use zinto_core::codec::Endian;
use zinto_core::codec::{BytesCodecs, decoded_len, size_probe};
use zinto_core::formats::{self, MAX_HEADER_LEN, NumberType};
use zinto_core::records::RecordLayout;
use zinto_core::{Dims, LayoutError};

use crate::buffer::zeroed_buffer;
use crate::error::{Error, ErrorKind};
use crate::options::ReadOptions;
use crate::read::context::ReadContext;
use crate::read::decode::{Stored, check_plausible, decode_stored};
use crate::store::{Store, StoreError};
use crate::workers::{Crew, Work};

/// One chunk of a [`ConcatPlan`]: where it is stored and where it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConcatPiece {
    /// The chunk's key in the store.
    pub key: String,
    /// Where its stored bytes start in the object: 0, but for segment files, whose data
    /// follows a header ([`ConcatPlan::segments`]).
    pub data_offset: u64,
    /// Its stored (encoded) length.
    pub stored: u64,
    /// Where its decoded bytes start in the output.
    pub offset: usize,
    /// How many bytes it decodes to.
    pub len: usize,
}

/// The format of a merge's segment files ([`ConcatPlan::segments`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentFormat {
    /// NumPy's `.npy` (`np.save`), versions 1.0, 2.0 and 3.0.
    Npy,
    /// An array packed by msgpack-numpy (`msgpack.packb(a, default=m.encode)`).
    MsgpackNumpy,
}

/// What the segments of a [`ConcatPlan::segments`] hold together: rows of `columns` numbers
/// of one type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentsHeld {
    /// The number type.
    pub dtype: NumberType,
    /// The dimensions of a row: each segment's shape after the first (empty for 1-d segments).
    pub row_dims: Dims,
    /// Numbers per row: the product of `row_dims`.
    pub columns: u64,
    /// Rows, all segments together.
    pub rows: u64,
}

impl SegmentsHeld {
    /// Bytes per row.
    pub fn row_len(&self) -> u64 {
        self.columns.saturating_mul(self.dtype.size() as u64)
    }

    /// The record layout a sort key names for rows of these segments: `col=N`, the row's N-th
    /// number (of the segments' type and byte order), or `TYPE@OFFSET` as
    /// [`RecordLayout::parse`] reads it.
    ///
    /// # Errors
    /// A message naming the spec: a column past the row, a type that cannot be a key, a spec
    /// that does not parse.
    pub fn key_layout(&self, spec: &str) -> Result<RecordLayout, String> {
        let record_size = usize::try_from(self.row_len())
            .map_err(|_| format!("--key {spec:?}: rows too long"))?;
        let Some(col) = spec.strip_prefix("col=") else {
            return RecordLayout::parse(spec, record_size)
                .map_err(|e| format!("key {spec:?}: {e}"));
        };
        let col: u64 = col
            .parse()
            .map_err(|_| format!("key {spec:?}: the column after col= is not a number"))?;
        if col >= self.columns {
            return Err(format!(
                "key {spec:?}: rows have {} columns (0 to {})",
                self.columns,
                self.columns.saturating_sub(1)
            ));
        }
        let key_type = self.dtype.key_type().ok_or_else(|| {
            format!(
                "key {spec:?}: {} cannot be a sort key (f32, f64, i32, i64, u32, u64 can)",
                self.dtype
            )
        })?;
        let endian = if self.dtype.big_endian {
            Endian::Big
        } else {
            Endian::Little
        };
        let offset = usize::try_from(col * self.dtype.size() as u64)
            .map_err(|_| format!("key {spec:?}: a column past any record"))?;
        RecordLayout::new(record_size, offset, key_type, endian)
            .map_err(|e| format!("key {spec:?}: {e}"))
    }

    /// The shape of the merged array: the rows, then `row_dims`.
    pub fn shape(&self) -> Vec<u64> {
        std::iter::once(self.rows)
            .chain(self.row_dims.as_slice().iter().copied())
            .collect()
    }

    fn describe(&self) -> String {
        format!(
            "{} rows of shape {:?}",
            self.dtype,
            self.row_dims.as_slice()
        )
    }
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
                data_offset: 0,
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

    /// Segment files of `format` (`.npy`, msgpack-numpy) at `keys`, their data laid end to end
    /// in key order: each file's header is read (at most
    /// [`MAX_HEADER_LEN`](zinto_core::formats::MAX_HEADER_LEN) and a few bytes), nothing is
    /// decoded, and the data is read straight into its part of the output. Returns the plan
    /// and what the segments hold (`None` for no keys): all must hold the same number type
    /// and the same row shape (the dimensions after the first); the output is their rows,
    /// stacked, as `np.concatenate` stacks them.
    ///
    /// ```
    /// use zinto::{ConcatPlan, MemoryStore, ReadOptions, SegmentFormat};
    /// # fn npy(rows: u8) -> Vec<u8> {
    /// #     let dict = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': ({rows}, 2), }}");
    /// #     let pad = 64 - (10 + dict.len() + 1) % 64;
    /// #     let mut f = b"\x93NUMPY\x01\x00".to_vec();
    /// #     f.extend(((dict.len() + pad + 1) as u16).to_le_bytes());
    /// #     f.extend(dict.as_bytes());
    /// #     f.extend(std::iter::repeat(b' ').take(pad));
    /// #     f.push(b'\n');
    /// #     f.extend((0..2 * rows).flat_map(|i| f64::from(i).to_le_bytes()));
    /// #     f
    /// # }
    ///
    /// let mut store = MemoryStore::new();
    /// store.insert("a.npy", npy(3)); // np.save of a (3, 2) float64 array
    /// store.insert("b.npy", npy(1));
    /// let (plan, held) = ConcatPlan::segments(&store, &["a.npy", "b.npy"], SegmentFormat::Npy)?;
    /// let held = held.expect("two segments");
    /// assert_eq!((held.dtype.to_string(), held.rows, held.columns), ("<f8".to_owned(), 4, 2));
    /// let out = plan.read_to_vec(&store, &ReadOptions::default())?;
    /// assert_eq!(out.len(), 4 * 2 * 8);
    /// # Ok::<(), zinto::Error>(())
    /// ```
    ///
    /// # Errors
    /// Naming the key: [`ErrorKind::Segment`] for a header refused (not the format, hostile,
    /// data other than the header declares, not fixed-width numbers);
    /// [`ErrorKind::FortranOrder`] for a Fortran-ordered segment of more than one column;
    /// [`ErrorKind::SegmentsDisagree`] for a segment whose type or row shape differs from the
    /// first's; as [`Self::new`] for the store.
    pub fn segments<S: Store + ?Sized, K: AsRef<str>>(
        store: &S,
        keys: &[K],
        format: SegmentFormat,
    ) -> Result<(Self, Option<SegmentsHeld>), Error> {
        let mut pieces = Vec::with_capacity(keys.len());
        let mut total = 0usize;
        let mut held: Option<(String, SegmentsHeld)> = None;
        let mut head = vec![0u8; MAX_HEADER_LEN + 16];
        for key in keys {
            let key = key.as_ref();
            let at = |kind| Error::outside_array(Some(key), kind);
            let header = read_segment_header(store, key, format, &mut head).map_err(at)?;
            let columns = header.columns();
            if header.fortran_order && columns > 1 && header.rows() > 1 {
                return Err(at(ErrorKind::FortranOrder {
                    rows: header.rows(),
                    columns,
                }));
            }
            let row_dims = zinto_core::dims(header.shape.as_slice().get(1..).unwrap_or(&[]))
                .map_err(|e| at(ErrorKind::Layout(e)))?;
            let this = SegmentsHeld {
                dtype: header.dtype,
                row_dims,
                columns,
                rows: header.rows(),
            };
            match &mut held {
                None => held = Some((key.to_owned(), this)),
                Some((first, h)) => h.add(first, this).map_err(at)?,
            }
            let len = usize::try_from(header.data_len)
                .map_err(|_| at(ErrorKind::Layout(LayoutError::Overflow)))?;
            let offset = total;
            total = total
                .checked_add(len)
                .ok_or_else(|| at(ErrorKind::Layout(LayoutError::Overflow)))?;
            pieces.push(ConcatPiece {
                key: key.to_owned(),
                data_offset: header.data_offset,
                stored: header.data_len,
                offset,
                len,
            });
        }
        Ok((
            Self {
                codecs: BytesCodecs::default(),
                pieces,
                len: total,
            },
            held.map(|(_, h)| h),
        ))
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
        let workers = options.workers().get().min(self.pieces.len());
        let crew = Crew {
            threads: workers,
            cancel: options.cancel,
            progress: options.progress,
            total: self.pieces.len() as u64,
            path: None,
        };
        // Pieces are in output order: each worker takes the next one and splits its part off.
        let queue = Mutex::new((self.pieces.iter(), out));
        crew.run(&Work {
            new_worker: || ReadContext::new().map_err(|kind| Error::outside_array(None, kind)),
            next: || {
                let mut q = queue.lock().ok()?;
                let (pieces, rest) = &mut *q;
                let piece = pieces.next()?;
                let Some((mine, after)) = std::mem::take(rest).split_at_mut_checked(piece.len)
                else {
                    // Unreachable: `out` is the sum of the pieces' lengths (checked above).
                    let kind = ErrorKind::Internal {
                        what: "a piece past the end of the output",
                    };
                    return Some(Err(Error::outside_array(Some(&piece.key), kind)));
                };
                *rest = after;
                Some(Ok((piece, mine)))
            },
            run: |ctx: &mut ReadContext, (piece, dst): (&ConcatPiece, &mut [u8])| {
                let at = Stored {
                    key: &piece.key,
                    offset: piece.data_offset,
                    len: piece.stored,
                };
                decode_stored(store, ctx, at, &self.codecs, dst)
                    .map_err(|kind| Error::outside_array(Some(&piece.key), kind))?;
                then(piece, dst);
                Ok(())
            },
            retire: drop,
        })
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
/// The header of the segment `key`, read from its first bytes into `head`.
fn read_segment_header<S: Store + ?Sized>(
    store: &S,
    key: &str,
    format: SegmentFormat,
    head: &mut [u8],
) -> Result<formats::SegmentHeader, ErrorKind> {
    let file_len = store
        .size(key)
        .map_err(ErrorKind::Store)?
        .ok_or_else(|| ErrorKind::Store(StoreError::Missing))?;
    let n = usize::try_from(file_len)
        .unwrap_or(usize::MAX)
        .min(head.len());
    let prefix = head.get_mut(..n).ok_or_else(|| ErrorKind::Internal {
        what: "a header longer than its buffer",
    })?;
    if n > 0 {
        store.read_into(key, 0, prefix).map_err(ErrorKind::Store)?;
    }
    match format {
        SegmentFormat::Npy => formats::npy::parse(prefix, file_len),
        SegmentFormat::MsgpackNumpy => formats::msgpack_numpy::parse(prefix, file_len),
    }
    .map_err(ErrorKind::Segment)
}

impl SegmentsHeld {
    /// Adds the rows of `this` segment, which must hold what the `first` one holds.
    fn add(&mut self, first: &str, this: SegmentsHeld) -> Result<(), ErrorKind> {
        if (self.dtype, &self.row_dims) != (this.dtype, &this.row_dims) {
            return Err(ErrorKind::SegmentsDisagree {
                first: first.into(),
                first_holds: self.describe().into(),
                holds: this.describe().into(),
            });
        }
        self.rows = self
            .rows
            .checked_add(this.rows)
            .ok_or_else(|| ErrorKind::Layout(LayoutError::Overflow))?;
        Ok(())
    }
}
