//! Writes of selections other than one hyper-rectangle (`zinto_core::selection`: lists of
//! indices, masks, points): each stored chunk (each shard) the selection touches is read once
//! whole into the worker's scratch, the selected elements put in from the caller's values,
//! and the chunk written back once, whole (a temporary name, then a rename), on the write
//! path's own plan. Where an element is selected twice the later value in the selection's
//! order wins, as NumPy's assignment gives it.

use std::sync::atomic::{AtomicU64, Ordering};

use zinto_core::selection::{GatherRuns, Plan, SelPiece, Selection};
use zinto_core::{LayoutError, Region};

use crate::Array;
use crate::error::{Error, ErrorKind};
use crate::options::{ReadOptions, WriteOptions};
use crate::store::{Store, UpdateLock};
use crate::workers::{Crew, Work};

impl<S: Store> Array<S> {
    /// Writes `input` (the selection's values: a C-order array of its output shape, native
    /// byte order, [`Self::selected_len`] bytes) into the elements `selection` picks (lists
    /// of indices, masks, points: see [`Selection`]); a selection that is a rectangle is
    /// written as one.
    ///
    /// ```
    /// use zinto::{Array, ArrayBuilder, DataType, FileStore, Region};
    /// use zinto::core::selection::{AxisSel, Selection};
    ///
    /// # let dir = std::env::temp_dir().join(format!("zinto-scatter-doc-{}", std::process::id()));
    /// let array = ArrayBuilder::new(&[6, 4], DataType::Int32, &[2, 2])
    ///     .create(FileStore::new(&dir), "")?;
    /// // Rows 5 and 0, columns 3 and 1: four elements in four chunks.
    /// let sel = Selection::orthogonal(
    ///     vec![AxisSel::List(vec![5, 0]), AxisSel::List(vec![3, 1])],
    ///     array.shape(),
    /// )?;
    /// array.write_selection_from(&sel, bytemuck::cast_slice(&[1i32, 2, 3, 4]))?;
    /// let back = array.read_to_vec(&Region::whole(array.shape())?)?;
    /// let back: &[i32] = bytemuck::cast_slice(&back);
    /// assert_eq!((back[5 * 4 + 3], back[5 * 4 + 1], back[3], back[1]), (1, 2, 3, 4));
    /// assert_eq!(back.iter().filter(|&&v| v != 0).count(), 4);
    /// # std::fs::remove_dir_all(&dir).ok();
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Self::write_from`]; [`ErrorKind::OutputSize`] if `input` is not the selection's
    /// size; [`ErrorKind::WrongType`] for strings and bytes.
    pub fn write_selection_from(&self, selection: &Selection, input: &[u8]) -> Result<(), Error> {
        self.write_selection_from_with(selection, input, &WriteOptions::default())
    }

    /// [`Self::write_selection_from`] with options (threads, progress, cancel, empty chunks).
    ///
    /// # Errors
    /// As [`Self::write_selection_from`]; the first error stops the write, the chunks
    /// written before it stay written, each whole.
    pub fn write_selection_from_with(
        &self,
        selection: &Selection,
        input: &[u8],
        options: &WriteOptions<'_>,
    ) -> Result<(), Error> {
        let err = |kind| Error::new(&self.path, None, kind);
        let expected = self.selected_len(selection)?;
        if input.len() != expected {
            return Err(err(ErrorKind::OutputSize {
                expected: expected as u64,
                got: input.len() as u64,
            }));
        }
        self.check_writable()?;
        if let Some((region, _)) = selection.as_region() {
            return self.write_from_with(&region, input, options);
        }
        let plan = Plan::new(selection, &self.meta.grid).map_err(|e| err(ErrorKind::Layout(e)))?;
        let count = plan.count();
        let next = AtomicU64::new(0);
        let done = AtomicU64::new(0);
        let crew = Crew {
            threads: usize::try_from(count)
                .unwrap_or(usize::MAX)
                .min(options.workers().get()),
            cancel: options.cancel,
            progress: None,
            total: count,
            path: Some(&self.path),
        };
        crew.run(&Work {
            new_worker: || Ok(Vec::new()),
            next: || {
                let i = next.fetch_add(1, Ordering::Relaxed);
                (i < count).then_some(Ok(i))
            },
            run: |scratch: &mut Vec<u8>, i: u64| {
                self.scatter_chunk(&plan, i, (input, scratch), options)?;
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                if let Some(progress) = options.progress {
                    progress(n, count);
                }
                Ok(())
            },
            retire: drop,
        })
    }

    /// Piece `index` of `plan`: its chunk read whole into `scratch`, the piece's elements put
    /// in from `input`, the chunk written back whole.
    fn scatter_chunk(
        &self,
        plan: &Plan<'_>,
        index: u64,
        (input, scratch): (&[u8], &mut Vec<u8>),
        options: &WriteOptions<'_>,
    ) -> Result<(), Error> {
        let layout = |e| Error::new(&self.path, None, ErrorKind::Layout(e));
        let mut piece: SelPiece = plan.piece(index).ok_or_else(|| {
            let what = "a piece of the plan missing from its own count";
            Error::new(&self.path, None, ErrorKind::Internal { what })
        })?;
        // The chunk as the array holds it (clipped at the array's edge): read and written whole,
        // under its update guard (the write of it below, on this thread, goes ahead under it).
        let region = self.meta.grid.chunk_region(&piece.chunk).map_err(layout)?;
        self.update_chunk(&region, |lock| {
            let at = (&mut piece, &region);
            self.scatter_into(plan, at, (input, &mut *scratch), options, lock)
        })
    }

    /// [`Self::scatter_chunk`] under the chunk's guard `lock`.
    fn scatter_into(
        &self,
        plan: &Plan<'_>,
        (piece, region): (&mut SelPiece, &Region),
        (input, scratch): (&[u8], &mut Vec<u8>),
        options: &WriteOptions<'_>,
        lock: &UpdateLock,
    ) -> Result<(), Error> {
        let layout = |e| Error::new(&self.path, None, ErrorKind::Layout(e));
        let len = self.selection_len(region)?;
        scratch.clear();
        scratch.try_reserve_exact(len).map_err(|_| {
            Error::new(
                &self.path,
                None,
                ErrorKind::OutOfMemory { bytes: len as u64 },
            )
        })?;
        scratch.resize(len, 0);
        // One worker each: this worker is already one of the write's.
        let one = Some(std::num::NonZeroUsize::MIN);
        let read = ReadOptions {
            threads: one,
            cancel: options.cancel,
            decoded_chunk_limit: options.decoded_chunk_limit,
            ..ReadOptions::default()
        };
        self.read_into_with(region, scratch, &read)?;
        piece.in_chunk = Region::whole(region.shape()).map_err(layout)?;
        let elem = self.meta.elem_size();
        for run in GatherRuns::new(plan, piece, elem).map_err(layout)? {
            // The gather's source (the chunk) is the destination here, and its output the input.
            let from = run
                .dst
                .checked_add(run.len)
                .and_then(|end| input.get(run.dst..end));
            let to = run
                .src
                .checked_add(run.len)
                .and_then(|end| scratch.get_mut(run.src..end));
            match (from, to) {
                (Some(from), Some(to)) => to.copy_from_slice(from),
                _ => return Err(layout(LayoutError::Overflow)),
            }
        }
        // A conditional update cannot delete on its condition: a chunk of fill is stored.
        let mut extra = options.extra;
        extra.write_empty_chunks |= lock.is_conditional();
        let write = WriteOptions {
            threads: one,
            progress: None,
            extra,
            ..*options
        };
        self.write_from_with(region, scratch, &write)
    }
}
