//! The one place with `unsafe`: several workers writing disjoint parts of one output buffer
//! whose parts interleave (for example chunks split along the last axis, whose rows alternate in
//! the output), so that `split_at_mut` cannot hand them out.
//!
//! The types here check every obligation their `unsafe` block relies on: no caller, however
//! wrong, can make two live slices overlap. A slip elsewhere is an
//! [`ErrorKind::Internal`] (and a failed debug assertion), never undefined behaviour.
//!
//! # Invariants
//! 1. A [`DisjointOutput`] is made from a `&'a mut [u8]` and keeps that borrow for `'a`: while it
//!    lives, nothing else can read or write the buffer.
//! 2. The buffer is a C-order array of `shape` with `elem`-byte elements: its length is checked
//!    against them when the handle is made.
//! 3. A [`Claim`] holds one region of that array. Regions claimed at the same time never share
//!    an element: [`DisjointOutput::claim`] checks a new region against every live claim, under
//!    a lock, and a claim leaves the list only when it is dropped.
//! 4. A claim hands out one slice at a time ([`Claim::slice_mut`] borrows the claim mutably),
//!    and only of bytes of elements of its own region (whole elements, or part of one when a
//!    chunk decoded through a window splits an element between two windows): every element
//!    the range touches is checked against the region, not only against the buffer.
//!
//! So every live slice lies inside the buffer (1, 2, 4), inside the region of the claim it came
//! from (4), and that region overlaps no other live claim's (3): no two live slices overlap.
//!
//! # A second handle: outputs of selections other than a rectangle
//! [`OwnedOutput`] shares the output of a selection that gathers elements (lists of indices,
//! points, `core::selection`): a chunk's elements land anywhere in it, in no rectangle. Each
//! output element has one owner, a function of its coordinates: along each output axis, the
//! chunk of that axis's group its position comes from ([`AxisOwners`], given to the handle and
//! kept by it, so it cannot change). Its invariants:
//! 5. The buffer is a C-order array of `shape` with `elem`-byte elements (checked when made),
//!    borrowed mutably for the handle's life (as 1).
//! 6. An [`OwnedClaim`] holds one owner tuple (one owner per output axis); tuples claimed at the
//!    same time differ ([`OwnedOutput::claim`] checks a new one against every live claim,
//!    under a lock), so no element belongs to two live claims.
//! 7. A claim hands out one slice at a time ([`OwnedClaim::run_mut`] and
//!    [`OwnedClaim::span_mut`] borrow it mutably), of elements (whole ones along the last
//!    output axis for a run; any bytes of them, across rows, for a span) whose owners along
//!    every axis are the claim's (each element touched checked against the handle's own
//!    owners).
//!
//! Tests of this module run under Miri (`cargo +nightly miri test -p zinto --lib disjoint`),
//! which checks the aliasing model and data races across threads.

use std::marker::PhantomData;
use std::sync::Mutex;

use zinto_core::selection::AxisOwners;
use zinto_core::{Dims, Region, dims, product};

use crate::error::ErrorKind;

/// An internal error, after a debug assertion: each of these is a bug in zinto's own code.
fn bug(what: &'static str) -> ErrorKind {
    debug_assert!(false, "disjoint output: {what}");
    ErrorKind::Internal { what }
}

/// An output buffer shared by workers that each claim a disjoint region of it.
#[derive(Debug)]
pub(crate) struct DisjointOutput<'a> {
    ptr: *mut u8,
    len: usize,
    shape: Dims,
    elem: usize,
    /// The live claims: an id each (to remove it on drop) and its region.
    claims: Mutex<ClaimList>,
    _borrow: PhantomData<&'a mut [u8]>,
}

#[derive(Debug, Default)]
struct ClaimList {
    next_id: u64,
    live: Vec<(u64, Region)>,
}

// SAFETY: the buffer is plain bytes; sending or sharing the handle between threads only lets
// them claim regions no other live claim overlaps (invariant 3) and slice inside them (4),
// which is what `&mut [u8]: Send` allows for the halves of `split_at_mut`.
unsafe impl Send for DisjointOutput<'_> {}
// SAFETY: as above; `&DisjointOutput` gives access only through claims, which never overlap, so
// no two threads touch the same byte. The claim list is behind a mutex.
unsafe impl Sync for DisjointOutput<'_> {}

impl<'a> DisjointOutput<'a> {
    /// Takes the whole buffer for the lifetime of the handle (invariant 1), as a C-order array
    /// of `shape` with `elem`-byte elements (invariant 2).
    pub(crate) fn new(buf: &'a mut [u8], shape: &[u64], elem: usize) -> Result<Self, ErrorKind> {
        let expected = product(shape).ok().and_then(|n| n.checked_mul(elem as u64));
        if expected != Some(buf.len() as u64) || elem == 0 {
            return Err(bug("buffer length is not the shape times the element size"));
        }
        Ok(Self {
            ptr: buf.as_mut_ptr(),
            len: buf.len(),
            shape: dims(shape).map_err(ErrorKind::Layout)?,
            elem,
            claims: Mutex::new(ClaimList::default()),
            _borrow: PhantomData,
        })
    }

    /// Claims `region` of the output for one worker, until the claim is dropped.
    ///
    /// # Errors
    /// [`ErrorKind::Internal`] if the region is not inside the output or overlaps a live claim.
    pub(crate) fn claim(&self, region: &Region) -> Result<Claim<'_, 'a>, ErrorKind> {
        if region.check_within(&self.shape).is_err() {
            return Err(bug("claimed region outside the output"));
        }
        let geometry = Geometry::new(&self.shape, region)?;
        let id = {
            let Ok(mut list) = self.claims.lock() else {
                return Err(bug("claim list poisoned"));
            };
            if list.live.iter().any(|(_, other)| overlap(other, region)) {
                None
            } else {
                let id = list.next_id;
                list.next_id += 1;
                list.live.push((id, region.clone()));
                Some(id)
            }
        };
        // Reported after the lock is released: a failed debug assertion must not poison it.
        let id = id.ok_or_else(|| bug("claimed region overlaps a live claim"))?;
        Ok(Claim {
            out: self,
            ptr: self.ptr,
            len: self.len,
            elem: self.elem,
            id,
            geometry,
            cursor: None,
        })
    }
}

/// Whether two regions of one array share an element.
fn overlap(a: &Region, b: &Region) -> bool {
    if a.is_empty() || b.is_empty() {
        return false;
    }
    (0..a.ndim()).all(
        |d| match (a.end(d), b.end(d), a.start().get(d), b.start().get(d)) {
            (Some(a_end), Some(b_end), Some(&a0), Some(&b0)) => a0 < b_end && b0 < a_end,
            // Different dimensions cannot happen (both were checked against the output's shape);
            // counting them as overlapping refuses the claim rather than trusting it.
            _ => true,
        },
    )
}

/// Where a region's elements lie in the flat C-order output: for each prefix of coordinates
/// outside dimension `split`, one contiguous block.
#[derive(Debug)]
struct Geometry {
    /// C-order strides of the output, in elements.
    strides: Dims,
    region: Region,
    /// The innermost dimension along which the region does not span the whole output (`None`
    /// if it spans it all: the region is the whole output).
    split: Option<usize>,
    /// Elements of the output per step along `split` (the product of the extents after it).
    inner: u64,
}

impl Geometry {
    fn new(shape: &[u64], region: &Region) -> Result<Self, ErrorKind> {
        let mut strides = dims(shape).map_err(ErrorKind::Layout)?;
        let mut stride = 1u64;
        for (s, &extent) in strides.iter_mut().zip(shape).rev() {
            *s = stride;
            // Bounded by the buffer's element count, checked in `DisjointOutput::new`.
            stride = stride
                .checked_mul(extent)
                .ok_or_else(|| bug("output shape overflows"))?;
        }
        let split = (0..shape.len())
            .rev()
            .find(|&d| region.shape().get(d) != shape.get(d));
        let inner = match split {
            Some(d) => *strides
                .get(d)
                .ok_or_else(|| bug("split dimension past the shape"))?,
            None => 1,
        };
        Ok(Self {
            strides,
            region: region.clone(),
            split,
            inner,
        })
    }

    /// The block of the region holding element `first` of the output, if the region holds it.
    fn block_at(&self, first: u64) -> Option<Block> {
        if self.region.is_empty() {
            return None;
        }
        // The coordinates of `first` up to `split`, each checked against the region.
        let mut rest = first;
        let mut prefix = Dims::new();
        for (d, &stride) in self.strides.iter().enumerate() {
            let c = rest / stride;
            rest %= stride;
            if c < *self.region.start().get(d)? || c >= self.region.end(d)? {
                return None;
            }
            match self.split {
                Some(split) if split == d => return self.block(prefix),
                Some(_) => prefix.push(c).ok()?,
                None => {}
            }
        }
        // The region is the whole output (every coordinate checked above): one block.
        self.block(prefix)
    }

    /// The block of the region whose coordinates before `split` are `prefix` (each inside
    /// the region, as `block_at` makes them and `advance` keeps them): the elements from the
    /// region's start along `split` to its end, every position after it.
    fn block(&self, prefix: Dims) -> Option<Block> {
        let Some(split) = self.split else {
            let total = match self.strides.first() {
                Some(&stride) => stride.checked_mul(*self.region.shape().first()?)?,
                None => 1,
            };
            return Some(Block {
                prefix,
                start: 0,
                end: total,
            });
        };
        let mut start = self.region.start().get(split)?.checked_mul(self.inner)?;
        for (&c, &stride) in prefix.iter().zip(&self.strides) {
            start = start.checked_add(c.checked_mul(stride)?)?;
        }
        let len = self.region.shape().get(split)?.checked_mul(self.inner)?;
        Some(Block {
            prefix,
            start,
            end: start.checked_add(len)?,
        })
    }

    /// Moves `block` to the one after it in C order, in place (a block's coordinates are 264
    /// bytes: a copy per run cost more than the check), if the region has one: its coordinates
    /// before `split` stepped as an odometer, each kept inside the region. Returns `false`,
    /// leaving `block` at the region's first coordinates, past the region's last block.
    fn advance(&self, block: &mut Block) -> bool {
        for d in (0..block.prefix.len()).rev() {
            let (Some(end), Some(&start), Some(&stride)) = (
                self.region.end(d),
                self.region.start().get(d),
                self.strides.get(d),
            ) else {
                return false;
            };
            let Some(c) = block.prefix.get_mut(d) else {
                return false;
            };
            if c.checked_add(1).is_some_and(|n| n < end) {
                // One step along `d`: the block moves by its stride.
                *c += 1;
                return match (
                    block.start.checked_add(stride),
                    block.end.checked_add(stride),
                ) {
                    (Some(start), Some(end)) => {
                        (block.start, block.end) = (start, end);
                        true
                    }
                    _ => false,
                };
            }
            // Back to the region's start along `d`: the block moves back by the steps taken.
            let back = (*c - start).checked_mul(stride);
            *c = start;
            match back.and_then(|b| Some((block.start.checked_sub(b)?, block.end.checked_sub(b)?)))
            {
                Some((start, end)) => (block.start, block.end) = (start, end),
                None => return false,
            }
        }
        false
    }
}

/// A contiguous block of a claimed region's elements in the flat output: `start..end`, the
/// elements whose coordinates before the geometry's `split` are `prefix` (each inside the
/// region).
#[derive(Debug, Clone)]
struct Block {
    prefix: Dims,
    start: u64,
    end: u64,
}

impl Block {
    /// Whether bytes `start..end` (not empty) of an output of `elem`-byte elements touch only
    /// elements of the block: its bounds are whole elements, so `start` at or after its first
    /// byte and `end` at or before its last.
    fn holds_bytes(&self, start: u64, end: u64, elem: u64) -> bool {
        self.start.checked_mul(elem).is_some_and(|s| start >= s)
            && self.end.checked_mul(elem).is_some_and(|e| end <= e)
    }
}

/// One worker's region of a [`DisjointOutput`], released when dropped.
#[derive(Debug)]
pub(crate) struct Claim<'o, 'a> {
    out: &'o DisjointOutput<'a>,
    /// Copies of the handle's `ptr`, `len` and `elem` (which never change), kept in the claim
    /// so that a worker's check per run reads only its own memory: the handle lives in the
    /// calling thread's frame, which that thread (a worker itself) keeps writing beside it.
    ptr: *mut u8,
    len: usize,
    elem: usize,
    id: u64,
    geometry: Geometry,
    /// The block the last range handed out lay in: a read's runs walk the region's blocks in
    /// order, so the next range is most often in it or the one after (found by stepping, not
    /// by dividing its offset by every stride: a 3-d chunk's rows of 40 bytes spent more on
    /// that than on copying).
    cursor: Option<Block>,
}

impl Claim<'_, '_> {
    /// The bytes `start..start + len` of the output, which must lie in elements of this
    /// claim's region (a range may begin or end inside an element).
    ///
    /// # Errors
    /// [`ErrorKind::Internal`] if they do not.
    pub(crate) fn slice_mut(&mut self, start: usize, len: usize) -> Result<&mut [u8], ErrorKind> {
        let elem = self.elem;
        let end = start
            .checked_add(len)
            .filter(|&end| end <= self.len)
            .ok_or_else(|| bug("range outside the output"))?;
        // Every element the range touches, from the one holding its first byte to the one
        // holding its last (compared in bytes: a block's bounds are whole elements, so the
        // range's bytes lie in them exactly when the elements it touches do).
        if len > 0 && !self.holds(start as u64, end as u64, elem as u64) {
            return Err(bug("range outside the claimed region"));
        }
        debug_assert!(end <= self.len);
        // SAFETY: `self.ptr` and `self.len` are the handle's own (copied when the claim was
        // made; the handle never changes them). `start..end` lies inside the buffer (checked
        // above), which is borrowed mutably for `'a` (invariant 1), so the pointer arithmetic
        // stays in one allocation and the memory is valid, initialised `u8`s. The range lies
        // in elements of this claim's region (every element it touches was checked above); no
        // other live claim's region overlaps it (invariant 3), and this claim has no other
        // live slice: the result borrows `self` mutably (invariant 4). So this `&mut` is
        // unique for its lifetime.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr.add(start), len) })
    }
}

impl Claim<'_, '_> {
    /// Whether bytes `start..end` (not empty) of the output, of `elem`-byte elements, touch
    /// only elements of one block of the region: the cursor's block, the one after it, or the
    /// block holding the first byte's element (computed from its offset). Each is a block of
    /// the region (`Geometry::block_at` and `Geometry::advance` keep its coordinates inside
    /// it), so the answer is exact either way.
    fn holds(&mut self, start: u64, end: u64, elem: u64) -> bool {
        if let Some(block) = &mut self.cursor
            && (block.holds_bytes(start, end, elem)
                || (self.geometry.advance(block) && block.holds_bytes(start, end, elem)))
        {
            return true;
        }
        // The block of the element holding the range's first byte (a division by every
        // stride: once per block the runs skip to, not per run).
        self.cursor = self
            .geometry
            .block_at(start / elem.max(1))
            .filter(|b| b.holds_bytes(start, end, elem));
        self.cursor.is_some()
    }
}

impl Drop for Claim<'_, '_> {
    fn drop(&mut self) {
        // A poisoned list keeps the claim: its region stays refused, which is safe.
        if let Ok(mut list) = self.out.claims.lock() {
            list.live.retain(|(id, _)| *id != self.id);
        }
    }
}

/// An output buffer shared by workers that each gather one owner's elements (a selection's
/// chunk): invariants 5 to 7.
#[derive(Debug)]
pub(crate) struct OwnedOutput<'a> {
    ptr: *mut u8,
    len: usize,
    elem: usize,
    shape: Dims,
    /// C-order strides of `shape`, in elements.
    strides: Dims,
    /// Per output axis, the owner of each position: the handle's own, never changed.
    owners: Vec<AxisOwners>,
    claims: Mutex<ClaimedOwners>,
    _borrow: PhantomData<&'a mut [u8]>,
}

#[derive(Debug, Default)]
struct ClaimedOwners {
    next_id: u64,
    live: Vec<(u64, Dims)>,
}

// SAFETY: as for `DisjointOutput`: the handle only lets threads claim owner tuples no other
// live claim holds (invariant 6) and slice elements of their own tuple (7), which never
// overlap another claim's.
unsafe impl Send for OwnedOutput<'_> {}
// SAFETY: as above; the claim list is behind a mutex.
unsafe impl Sync for OwnedOutput<'_> {}

impl<'a> OwnedOutput<'a> {
    /// Takes the whole buffer (invariant 5), a C-order array of `shape` with `elem`-byte
    /// elements, whose positions along output axis `a` are owned as `owners[a]` says.
    pub(crate) fn new(
        buf: &'a mut [u8],
        shape: &[u64],
        elem: usize,
        owners: Vec<AxisOwners>,
    ) -> Result<Self, ErrorKind> {
        let expected = product(shape).ok().and_then(|n| n.checked_mul(elem as u64));
        if expected != Some(buf.len() as u64) || elem == 0 || owners.len() != shape.len() {
            return Err(bug("gathered output of the wrong length or owners"));
        }
        let mut strides = dims(shape).map_err(ErrorKind::Layout)?;
        let mut stride = 1u64;
        for (s, &n) in strides.iter_mut().zip(shape).rev() {
            *s = stride;
            stride = stride.saturating_mul(n);
        }
        Ok(Self {
            ptr: buf.as_mut_ptr(),
            len: buf.len(),
            elem,
            shape: dims(shape).map_err(ErrorKind::Layout)?,
            strides,
            owners,
            claims: Mutex::new(ClaimedOwners::default()),
            _borrow: PhantomData,
        })
    }

    /// Claims the elements owned by `owner` (one owner per output axis) until the claim is
    /// dropped.
    ///
    /// # Errors
    /// [`ErrorKind::Internal`] for a tuple of the wrong length or one a live claim holds.
    pub(crate) fn claim(&self, owner: &[u64]) -> Result<OwnedClaim<'_, 'a>, ErrorKind> {
        if owner.len() != self.shape.len() {
            return Err(bug("an owner tuple of the wrong length"));
        }
        let owner = dims(owner).map_err(ErrorKind::Layout)?;
        let id = {
            let Ok(mut list) = self.claims.lock() else {
                return Err(bug("claim list poisoned"));
            };
            if list.live.iter().any(|(_, other)| *other == owner) {
                None
            } else {
                let id = list.next_id;
                list.next_id += 1;
                list.live.push((id, owner.clone()));
                Some(id)
            }
        };
        let id = id.ok_or_else(|| bug("an owner claimed twice at once"))?;
        Ok(OwnedClaim {
            out: self,
            id,
            owner,
        })
    }

    /// Whether elements `first..first + count` all lie along the last output axis in one
    /// row, and are all owned by `owner`.
    fn owns(&self, owner: &[u64], first: u64, count: u64) -> bool {
        let mut rest = first;
        let last = self.shape.len().checked_sub(1);
        for (a, ((&stride, &n), axis)) in self
            .strides
            .iter()
            .zip(self.shape.iter())
            .zip(&self.owners)
            .enumerate()
        {
            let c = rest / stride;
            rest %= stride;
            let Some(&want) = owner.get(a) else {
                return false;
            };
            let ok = if Some(a) == last {
                axis.covers(c, count, want, n)
            } else {
                axis.owner(c, n) == Some(want)
            };
            if !ok {
                return false;
            }
        }
        // A 0-d output: its one element.
        last.is_some() || (first == 0 && count == 1)
    }

    /// Whether elements `first..first + count`, across rows of the last output axis as a
    /// piece that is a hyper-rectangle of the output hands them (its runs may span whole
    /// rows), are all owned by `owner`: each row's part checked as [`Self::owns`] checks one.
    fn owns_span(&self, owner: &[u64], first: u64, count: u64) -> bool {
        let row = self.shape.last().copied().unwrap_or(1).max(1);
        let end = first.saturating_add(count);
        let mut at = first;
        while at < end {
            let seg = (row - at % row).min(end - at);
            if !self.owns(owner, at, seg) {
                return false;
            }
            at += seg;
        }
        count > 0
    }
}

/// One owner's elements of an [`OwnedOutput`], released when dropped.
#[derive(Debug)]
pub(crate) struct OwnedClaim<'o, 'a> {
    out: &'o OwnedOutput<'a>,
    id: u64,
    owner: Dims,
}

impl OwnedClaim<'_, '_> {
    /// The output bytes `start..start + len`: whole elements along the last output axis, all
    /// of this claim's owner.
    ///
    /// # Errors
    /// [`ErrorKind::Internal`] if they are not.
    pub(crate) fn run_mut(&mut self, start: usize, len: usize) -> Result<&mut [u8], ErrorKind> {
        self.slice_mut(start, len, false)
    }

    /// As [`Self::run_mut`], the run perhaps across rows of the last output axis (a piece
    /// read straight into a hyper-rectangle of the output), every element of it this claim's.
    ///
    /// # Errors
    /// [`ErrorKind::Internal`] if they are not.
    pub(crate) fn span_mut(&mut self, start: usize, len: usize) -> Result<&mut [u8], ErrorKind> {
        self.slice_mut(start, len, true)
    }

    fn slice_mut(&mut self, start: usize, len: usize, rows: bool) -> Result<&mut [u8], ErrorKind> {
        if rows && len == 0 {
            return Ok(&mut []);
        }
        let elem = self.out.elem;
        let end = start
            .checked_add(len)
            .filter(|&end| end <= self.out.len && len > 0)
            .ok_or_else(|| bug("run outside the gathered output"))?;
        // A run of the gather is of whole elements; a span of the read path may begin or end
        // inside one (a window's bytes): every element it touches is checked.
        if !rows && (!start.is_multiple_of(elem) || !len.is_multiple_of(elem)) {
            return Err(bug("run not of whole elements"));
        }
        let first = start / elem;
        let count = (end.div_ceil(elem) - first) as u64;
        let owned = match rows {
            true => self.out.owns_span(&self.owner, first as u64, count),
            false => self.out.owns(&self.owner, first as u64, count),
        };
        if !owned {
            return Err(bug("run of elements another piece owns"));
        }
        debug_assert!(end <= self.out.len);
        // SAFETY: `start..end` lies inside the buffer (checked above), borrowed mutably for
        // `'a` (invariant 5), so the pointer stays in one allocation of initialised `u8`s.
        // Every element it touches (row by row, for a span) is owned by this claim's tuple
        // (checked above against the handle's own owners, which nothing changes), no other
        // live claim holds that tuple (invariant 6), and an element has one owner tuple: no
        // other live claim's slice holds these bytes. This claim has no other live slice:
        // the result borrows `self` mutably (invariant 7). So this `&mut` is unique for its
        // lifetime.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.out.ptr.add(start), len) })
    }
}

impl Drop for OwnedClaim<'_, '_> {
    fn drop(&mut self) {
        if let Ok(mut list) = self.out.claims.lock() {
            list.live.retain(|(id, _)| *id != self.id);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use zinto_core::Region;

    use super::DisjointOutput;
    use crate::error::ErrorKind;

    fn region(start: [u64; 2], shape: [u64; 2]) -> Region {
        Region::new(&start, &shape).unwrap()
    }

    /// Workers write interleaved rows (like chunks split along the last axis): each byte is
    /// written by exactly one thread.
    #[test]
    fn threads_write_interleaved_disjoint_runs() {
        const ROWS: usize = 6;
        const COLS: usize = 8;
        let mut buf = vec![0u8; ROWS * COLS];
        {
            let out = DisjointOutput::new(&mut buf, &[ROWS as u64, COLS as u64], 1).unwrap();
            std::thread::scope(|s| {
                for worker in 0..2u8 {
                    let out = &out;
                    s.spawn(move || {
                        // Worker 0 owns columns 0..4 of every row, worker 1 columns 4..8.
                        let half = (COLS / 2) as u64;
                        let cols = u64::from(worker) * half;
                        let mut claim = out.claim(&region([0, cols], [ROWS as u64, half])).unwrap();
                        for row in 0..ROWS {
                            let start = row * COLS + usize::from(worker) * COLS / 2;
                            claim.slice_mut(start, COLS / 2).unwrap().fill(worker + 1);
                        }
                    });
                }
            });
        }
        for row in buf.chunks(COLS) {
            assert_eq!(row, [1, 1, 1, 1, 2, 2, 2, 2]);
        }
    }

    #[test]
    fn a_claim_covering_whole_rows_hands_out_runs_across_them() {
        let mut buf = vec![0u8; 4 * 6 * 2];
        let out = DisjointOutput::new(&mut buf, &[4, 6], 2).unwrap();
        // Rows 1..3, all columns: one run of 24 bytes from byte 12.
        let mut claim = out.claim(&region([1, 0], [2, 6])).unwrap();
        assert_eq!(claim.slice_mut(12, 24).unwrap().len(), 24);
        assert_eq!(claim.slice_mut(14, 22).unwrap().len(), 22);
        drop(claim);
        let mut whole = out.claim(&region([0, 0], [4, 6])).unwrap();
        assert_eq!(whole.slice_mut(0, 48).unwrap().len(), 48);
    }

    #[test]
    fn overlapping_claims_are_refused_until_released() {
        let mut buf = vec![0u8; 24];
        let out = DisjointOutput::new(&mut buf, &[4, 6], 1).unwrap();
        let a = out.claim(&region([0, 0], [2, 3])).unwrap();
        let b = out.claim(&region([0, 3], [2, 3])).unwrap();
        // An empty region overlaps nothing.
        let _empty = out.claim(&region([1, 1], [0, 3])).unwrap();
        let refused = std::panic::catch_unwind(|| out.claim(&region([1, 2], [2, 2])).map(drop));
        if cfg!(debug_assertions) {
            assert!(refused.is_err(), "the debug assertion fires");
        } else {
            assert!(matches!(refused, Ok(Err(ErrorKind::Internal { .. }))));
        }
        drop((a, b));
        assert!(out.claim(&region([1, 2], [2, 2])).is_ok());
    }

    /// Every way a range can leave the claim: outside the buffer, across its region's edge,
    /// into the next row, in part-elements. Each is refused (after a debug assertion).
    #[test]
    fn ranges_outside_the_claimed_region_are_refused() {
        let mut buf = vec![0u8; 4 * 6 * 2];
        let out = DisjointOutput::new(&mut buf, &[4, 6], 2).unwrap();
        // Rows 1..3, columns 2..5: bytes 16..22 and 28..34.
        let mut claim = out.claim(&region([1, 2], [2, 3])).unwrap();
        assert_eq!(claim.slice_mut(16, 6).unwrap().len(), 6);
        assert_eq!(claim.slice_mut(30, 4).unwrap().len(), 4);
        assert_eq!(claim.slice_mut(40, 0).unwrap().len(), 0);
        // Parts of elements of the region (a window's bytes may end inside an element).
        assert_eq!(claim.slice_mut(17, 2).unwrap().len(), 2);
        assert_eq!(claim.slice_mut(16, 3).unwrap().len(), 3);
        assert_eq!(claim.slice_mut(21, 1).unwrap().len(), 1);
        for (start, len) in [
            (14, 2),         // the element before the region
            (15, 2),         // half of it, half of the region's first
            (16, 8),         // past the row's part of the region
            (21, 2),         // half past the row's part of the region
            (22, 2),         // between the region's rows
            (28, 12),        // into the next row
            (40, 10),        // past the buffer
            (usize::MAX, 2), // overflowing
        ] {
            let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                claim.slice_mut(start, len).map(|s| s.len())
            }));
            if cfg!(debug_assertions) {
                assert!(refused.is_err(), "{start}+{len}: the debug assertion fires");
            } else {
                assert!(
                    matches!(refused, Ok(Err(ErrorKind::Internal { .. }))),
                    "{start}+{len}"
                );
            }
        }
    }

    /// 4-byte elements: a range may begin or end inside one (a window splitting it), and is
    /// the claim's when every element it touches is, whatever block the cursor is at.
    /// Safe code only (the check; no slice handed out), so not run under Miri: minutes there
    /// for nothing the native run does not check.
    #[test]
    #[cfg_attr(miri, ignore)]
    #[allow(clippy::cast_possible_truncation)] // a 3 x 4 x 5 output
    fn byte_ranges_are_checked_by_the_elements_they_touch() {
        let shape = [3u64, 4, 5];
        let mut buf = vec![0u8; 240];
        let out = DisjointOutput::new(&mut buf, &shape, 4).unwrap();
        let r = Region::new(&[1, 1, 2], &[2, 3, 2]).unwrap();
        let inside = |e: usize| {
            let c = [e / 20, e / 5 % 4, e % 5];
            (1..3).contains(&c[0]) && (1..4).contains(&c[1]) && (2..4).contains(&c[2])
        };
        let mut claim = out.claim(&r).unwrap();
        for start in 0..240usize {
            for len in 1..=12usize {
                let end = start + len;
                let want = end <= 240 && (start / 4..end.div_ceil(4)).all(inside);
                let got = claim.holds(start as u64, end as u64, 4);
                assert_eq!(got, want, "bytes {start}..{end}");
            }
        }
    }

    /// The claim's check with its cursor against the plain rule (every element a range
    /// touches inside the region, and the range inside the output), for ranges in the order a
    /// read's runs come, stepping
    /// past blocks, going back, and at random, in regions of a 3-d output that cut one, two
    /// or no axes.
    /// Safe code only (the check; no slice handed out), so not run under Miri: minutes there
    /// for nothing the native run does not check.
    #[test]
    #[cfg_attr(miri, ignore)]
    #[allow(clippy::cast_possible_truncation)] // a 3 x 4 x 5 output
    fn the_cursor_answers_as_the_plain_check() {
        let shape = [3u64, 4, 5];
        let inside = |r: &Region, first: usize, count: usize| {
            (first..first + count).all(|e| {
                let c = [e / 20, e / 5 % 4, e % 5];
                (0..3).all(|d| {
                    let (s, n) = (r.start()[d] as usize, r.shape()[d] as usize);
                    c[d] >= s && c[d] < s + n
                })
            })
        };
        let regions = [
            ([0, 0, 0], [3, 4, 5]),
            ([1, 0, 0], [2, 4, 5]),
            ([0, 1, 0], [3, 2, 5]),
            ([1, 1, 2], [2, 3, 2]),
            ([0, 0, 1], [3, 2, 2]),
            ([0, 0, 4], [3, 4, 1]),
            ([2, 3, 0], [1, 1, 5]),
        ];
        let mut seed = 7u64;
        let mut random = |n: usize| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) as usize % n
        };
        let mut buf = vec![0u8; 60];
        let out = DisjointOutput::new(&mut buf, &shape, 1).unwrap();
        for (start, extent) in regions {
            let r = Region::new(&start, &extent).unwrap();
            let mut claim = out.claim(&r).unwrap();
            // The region's elements in order (a read's runs); each element of the region, then
            // each element of the region again, then every element of the output (the cursor
            // at the first, stepped to the second, the third tried from there: two steps,
            // across the odometer's roll-overs, included); then ranges anywhere.
            let own: Vec<usize> = (0..60).filter(|&e| inside(&r, e, 1)).collect();
            let mut ranges: Vec<(usize, usize)> = own.iter().map(|&e| (e, 1)).collect();
            for &e in &own {
                for &g in &own {
                    ranges.extend((0..60).flat_map(|f| [(e, 1), (g, 1), (f, 1)]));
                }
            }
            ranges.extend((0..300).map(|_| (random(60), 1 + random(12))));
            // `holds` itself (what `slice_mut` asks), so that a refusal is not a panic each
            // (its debug assertion): this runs under Miri too.
            for (first, count) in ranges {
                let want = first + count <= 60 && inside(&r, first, count);
                let got = count > 0 && claim.holds(first as u64, (first + count) as u64, 1);
                assert_eq!(got, want, "{start:?}+{extent:?}: {first}+{count}");
            }
        }
    }

    #[test]
    fn a_buffer_of_the_wrong_length_is_refused() {
        let mut buf = vec![0u8; 10];
        let made = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            DisjointOutput::new(&mut buf, &[3, 3], 1).map(drop)
        }));
        assert!(made.is_err() || matches!(made, Ok(Err(ErrorKind::Internal { .. }))));
    }

    /// Threads gathering interleaved, unsorted elements (a list selection's chunks): each
    /// writes only what its owner tuple owns; a run across owners, a run into the next row,
    /// part of an element and a tuple claimed twice are refused.
    #[test]
    #[allow(clippy::cast_possible_truncation)] // coordinates of a 2 x 6 output
    fn owned_claims_write_only_their_owners_elements() {
        use super::OwnedOutput;
        use zinto_core::selection::AxisOwners;
        // 2 x 6 output: rows owned by chunk 0 then 1 (a range), columns by chunks 1,0,0,1,2,2.
        let owners = vec![
            AxisOwners::Boundaries(vec![0, 1]),
            AxisOwners::Each(vec![1, 0, 0, 1, 2, 2]),
        ];
        let mut buf = vec![0u8; 12];
        {
            let out = OwnedOutput::new(&mut buf, &[2, 6], 1, owners).unwrap();
            std::thread::scope(|s| {
                for (row, col) in [(0u64, 0u64), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)] {
                    let out = &out;
                    s.spawn(move || {
                        let mut claim = out.claim(&[row, col]).unwrap();
                        let mark = (10 * row + col) as u8 + 1;
                        let base = row as usize * 6;
                        match col {
                            0 => claim.run_mut(base + 1, 2).unwrap().fill(mark),
                            1 => {
                                claim.run_mut(base, 1).unwrap().fill(mark);
                                claim.run_mut(base + 3, 1).unwrap().fill(mark);
                            }
                            _ => claim.run_mut(base + 4, 2).unwrap().fill(mark),
                        }
                    });
                }
            });
        }
        assert_eq!(buf, [2, 1, 1, 2, 3, 3, 12, 11, 11, 12, 13, 13]);
        let owners = vec![
            AxisOwners::Boundaries(vec![0, 1]),
            AxisOwners::Each(vec![1, 0, 0, 1, 2, 2]),
        ];
        let mut buf = vec![0u16; 12];
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut buf);
        let out = OwnedOutput::new(bytes, &[2, 6], 2, owners).unwrap();
        let mut claim = out.claim(&[0, 0]).unwrap();
        assert_eq!(claim.run_mut(2, 4).unwrap().len(), 4);
        for (start, len) in [
            (0, 2),  // owned by chunk 1 along the columns
            (2, 6),  // into a column of another owner
            (3, 2),  // part of two elements
            (10, 4), // past the row into the next (another owner too)
            (14, 4), // row 1 is owner 1
            (24, 2), // past the buffer
        ] {
            let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                claim.run_mut(start, len).map(|s| s.len())
            }));
            if cfg!(debug_assertions) {
                assert!(refused.is_err(), "{start}+{len}: the debug assertion fires");
            } else {
                assert!(
                    matches!(refused, Ok(Err(ErrorKind::Internal { .. }))),
                    "{start}+{len}"
                );
            }
        }
        let twice = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            out.claim(&[0, 0]).map(drop)
        }));
        assert!(twice.is_err() || matches!(twice, Ok(Err(ErrorKind::Internal { .. }))));
        drop(claim);
        assert!(out.claim(&[0, 0]).is_ok());
    }
}
