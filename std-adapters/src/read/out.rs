//! Where one piece's bytes go ([`PieceOut`]): its own span of the output, or its claimed
//! region of an output shared with workers writing other pieces (`disjoint.rs`).

use super::disjoint::{Claim, OwnedClaim};
use crate::error::ErrorKind;
use zinto_core::Run;

/// Where one piece's bytes go.
#[allow(clippy::large_enum_variant)] // one per worker at a time, on its stack
pub(crate) enum PieceOut<'o, 'b> {
    /// The piece's own contiguous span of the output, which starts at offset `base`.
    Span {
        /// Offset of `slice` in the output.
        base: usize,
        /// The span.
        slice: &'o mut [u8],
    },
    /// The piece's region of an output shared with workers writing other (disjoint) pieces.
    Shared(Claim<'o, 'b>),
    /// The piece's elements of a gathered output (a selection's chunk whose part is a
    /// hyper-rectangle of the output, read straight in).
    Owned(OwnedClaim<'o, 'b>),
}

impl PieceOut<'_, '_> {
    /// Output bytes `start..start + len` (offsets in the whole output), which must lie in this
    /// piece's part of the output: one of its runs, or its whole contiguous span.
    ///
    /// # Errors
    /// [`ErrorKind::Internal`] for a range outside the piece's part: a bug in the caller.
    pub(super) fn get(&mut self, start: usize, len: usize) -> Result<&mut [u8], ErrorKind> {
        match self {
            Self::Span { base, slice } => start
                .checked_sub(*base)
                .and_then(|s| slice.get_mut(s..s.checked_add(len)?))
                .ok_or_else(|| ErrorKind::Internal {
                    what: "byte range outside the piece's span of the output",
                }),
            Self::Shared(claim) => claim.slice_mut(start, len),
            Self::Owned(claim) => claim.span_mut(start, len),
        }
    }

    /// Copies each run's bytes from `src` (whose first byte is offset `src_base` of the
    /// chunk) to the run's place in the output. The piece's kind is matched once, not once per
    /// run: a chunk of (1, 1000, 10, 10) float32 into a wider output is 10,000 runs of 40 bytes,
    /// and a call per run that returns a `Result` by memory cost as much as the copies.
    ///
    /// # Errors
    /// [`ErrorKind::Internal`] for a run outside `src` or outside the piece's part of the
    /// output: a bug in the caller.
    pub(super) fn copy_runs(
        &mut self,
        runs: impl Iterator<Item = Run>,
        src: &[u8],
        src_base: usize,
    ) -> Result<(), ErrorKind> {
        let Self::Span { base, slice } = self else {
            for run in runs {
                let from = source(&run, src, src_base)?;
                self.get(run.dst, run.len)?.copy_from_slice(from);
            }
            return Ok(());
        };
        for run in runs {
            let from = source(&run, src, src_base)?;
            run.dst
                .checked_sub(*base)
                .and_then(|d| slice.get_mut(d..d.checked_add(run.len)?))
                .ok_or_else(|| ErrorKind::Internal {
                    what: "byte range outside the piece's span of the output",
                })?
                .copy_from_slice(from);
        }
        Ok(())
    }
}

/// The bytes of `src` (whose first byte is offset `src_base` of the chunk) that `run` copies.
#[inline]
fn source<'s>(run: &Run, src: &'s [u8], src_base: usize) -> Result<&'s [u8], ErrorKind> {
    run.src
        .checked_sub(src_base)
        .and_then(|from| src.get(from..from.checked_add(run.len)?))
        .ok_or_else(|| ErrorKind::Internal {
            what: "a run outside the bytes read for it",
        })
}
