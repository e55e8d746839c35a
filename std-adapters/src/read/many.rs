//! Many selections in one call ([`Array::read_many_into`]): a data loader's batch of windows,
//! each read into its own part of one buffer the caller owns, the selections shared out to
//! the workers (each selection read by one worker, as a small read is).

use std::sync::Mutex;

use zinto_core::Region;

use crate::Array;
use crate::error::{Error, ErrorKind};
use crate::options::ReadOptions;
use crate::store::Store;
use crate::workers::{Crew, Work};

/// The selections not yet taken, each with its part of the output.
type Queue<'s, 'o> =
    Mutex<std::iter::Zip<std::slice::Iter<'s, Region>, std::slice::ChunksMut<'o, u8>>>;

impl<S: Store> Array<S> {
    /// Reads each of `selections` into its part of `out`, one after the other in order: `out`
    /// is the selections' results end to end, each as [`Self::read_into`] lays it out, so
    /// selections of one shape fill a stacked array of `selections.len()` of them. The
    /// selections are read in parallel on `options`' workers, each whole by one worker on the
    /// read path a read of it alone takes (its memory floor too); `progress` counts
    /// selections; `cancel` stops the batch between selections.
    ///
    /// ```
    /// use zinto::{Array, ArrayBuilder, DataType, MemoryStore, ReadOptions, Region};
    ///
    /// let array = ArrayBuilder::new(&[4, 6], DataType::UInt8, &[2, 3])
    ///     .create(MemoryStore::new(), "")?;
    /// let values: Vec<u8> = (0..24).collect();
    /// array.write_from(&Region::whole(&[4, 6])?, &values)?;
    /// // Two 2 x 2 windows, stacked.
    /// let windows = [Region::new(&[0, 0], &[2, 2])?, Region::new(&[2, 3], &[2, 2])?];
    /// let mut out = [0u8; 8];
    /// array.read_many_into(&windows, &mut out, &ReadOptions::default())?;
    /// assert_eq!(out, [0, 1, 6, 7, 15, 16, 21, 22]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ErrorKind::OutputSize`] unless `out` is the selections' sizes together (checked
    /// before anything is read), and each selection's errors as [`Self::read_into`] gives
    /// them. The first error stops the batch; `out` is then partly written.
    pub fn read_many_into(
        &self,
        selections: &[Region],
        out: &mut [u8],
        options: &ReadOptions<'_>,
    ) -> Result<(), Error> {
        let len = self.uniform_len(selections)?;
        let expected = len.checked_mul(selections.len());
        if expected != Some(out.len()) {
            return Err(Error::new(
                self.path(),
                None,
                ErrorKind::OutputSize {
                    expected: expected.map_or(u64::MAX, |n| n as u64),
                    got: out.len() as u64,
                },
            ));
        }
        if len == 0 {
            return Ok(());
        }
        let queue: Queue<'_, '_> = Mutex::new(selections.iter().zip(out.chunks_mut(len)));
        let one = ReadOptions {
            threads: std::num::NonZeroUsize::new(1),
            progress: None,
            ..*options
        };
        let crew = Crew {
            threads: self.workers(options).get().min(selections.len()),
            cancel: options.cancel,
            progress: options.progress,
            total: selections.len() as u64,
            path: Some(self.path()),
        };
        crew.run(&Work {
            new_worker: || Ok(()),
            next: || {
                let mut queue = queue.lock().ok()?;
                queue.next().map(Ok)
            },
            run: |_: &mut (), (selection, part): (&Region, &mut [u8])| {
                self.read_into_with(selection, part, &one)
            },
            retire: |()| {},
        })
    }

    /// The bytes of each of `selections`, which must be one size (a batch stacks them) and
    /// inside the array.
    fn uniform_len(&self, selections: &[Region]) -> Result<usize, Error> {
        let mut lens = selections.iter().map(|s| {
            let layout = |e| Error::new(self.path(), None, ErrorKind::Layout(e));
            self.metadata().grid.pieces(s).map_err(layout)?;
            self.selection_len(s)
        });
        let Some(first) = lens.next().transpose()? else {
            return Ok(0);
        };
        for (i, len) in lens.enumerate() {
            let len = len?;
            if len != first {
                let kind = ErrorKind::SelectionsDiffer {
                    index: i as u64 + 1,
                    bytes: len as u64,
                    first: first as u64,
                };
                return Err(Error::new(self.path(), None, kind));
            }
        }
        Ok(first)
    }
}
