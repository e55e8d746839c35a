//! The command's slabs: [`crate::slabs`] with `--memory` (a bound when given, else a target of
//! [`DEFAULT_SLAB_BYTES`]), run through one buffer.

use crate::Region;
use crate::slabs::{DEFAULT_SLAB_BYTES, SlabBudget, SlabError, Slabs};

use super::Failure;

/// What `--memory` is when not given (a target, see [`cut`]).
pub const DEFAULT_MEMORY: u64 = DEFAULT_SLAB_BYTES;

/// `region` in slabs of whole chunks (`chunk_shape`) of `elem_size`-byte elements within
/// `memory`: a bound the user gave (a slab of one chunk's extent over it is a usage error), or
/// [`DEFAULT_MEMORY`] as a target.
pub fn cut(
    region: &Region,
    chunk_shape: &[u64],
    elem_size: u64,
    memory: Option<u64>,
) -> Result<Slabs, Failure> {
    let budget = memory.map_or(SlabBudget::Target(DEFAULT_MEMORY), SlabBudget::Bound);
    Slabs::new(region, chunk_shape, elem_size, budget).map_err(failure)
}

/// A slab error as the command reports it.
pub fn failure(e: SlabError) -> Failure {
    match e {
        SlabError::TooSmall { bound, least } => Failure::Usage(format!(
            "--memory {bound}: one slab of whole chunks takes {least} bytes; give at least that, or smaller chunks"
        )),
        SlabError::Overflow => Failure::Other(e.to_string()),
    }
}

/// Calls `each(region, bytes)` for every slab in order, `bytes` the slab's part of one buffer
/// of [`Slabs::max_len`] bytes made for all of them (zeroed; mapped from 4 MiB, see
/// `buffer::zeroed`). Returns the bytes of all the slabs and the buffer's length.
pub fn run(
    slabs: &Slabs,
    mut each: impl FnMut(&Region, &mut [u8]) -> Result<(), Failure>,
) -> Result<(usize, usize), Failure> {
    let held = slabs.max_len().map_err(failure)?;
    let mut buf = super::buffer::zeroed(held)
        .ok_or_else(|| Failure::Other(format!("cannot allocate a slab of {held} bytes")))?;
    let mut total = 0usize;
    for slab in slabs.iter() {
        let (region, len) = slab.map_err(failure)?;
        let part = buf
            .get_mut(..len)
            .ok_or_else(|| Failure::Other("a slab past its buffer".into()))?;
        each(&region, part)?;
        total = total.saturating_add(len);
    }
    Ok((total, held))
}
