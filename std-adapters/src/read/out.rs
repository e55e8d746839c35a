//! Where one piece's bytes go ([`PieceOut`]): its own span of the output, or its claimed
//! region of an output shared with workers writing other pieces (`disjoint.rs`).

use super::disjoint::{Claim, OwnedClaim};
use crate::error::ErrorKind;

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
}
