//! The byte runs that copy one piece of a [`Plan`] out of the box of its chunk, decoded into
//! a C-order scratch of the box's shape, into the C-order output: one run per element, or per
//! stretch where the last group's positions and the chunk's elements both run on by one.

use alloc::vec::Vec;

use super::Group;
use super::plan::{GroupPlan, Plan, SelPiece, coords_of};
use crate::{LayoutError, MAX_DIMS, Run};

/// The runs of one piece ([`GatherRuns::new`]); an iterator of [`Run`]s, `src` in the box's
/// scratch and `dst` in the output, in bytes.
#[derive(Debug, Clone)]
pub struct GatherRuns {
    /// For every group but the last: its entries in this piece, `(output, source)` offsets in
    /// elements.
    outer: Vec<Vec<(u64, u64)>>,
    /// The last group's entries merged into stretches: `(output, source, length)`.
    inner: Vec<(u64, u64, u64)>,
    /// Where the odometer over `outer` is.
    at: Vec<usize>,
    /// The next stretch of `inner` for the current combination.
    next_inner: usize,
    elem: u64,
    done: bool,
}

impl GatherRuns {
    /// The runs of `piece` (of `plan`) for elements of `elem` bytes.
    ///
    /// # Errors
    /// [`LayoutError::Overflow`] if an offset in bytes overflows; [`LayoutError::ZeroElementSize`].
    pub fn new(plan: &Plan<'_>, piece: &SelPiece, elem: usize) -> Result<Self, LayoutError> {
        if elem == 0 {
            return Err(LayoutError::ZeroElementSize);
        }
        let box_strides = c_strides(piece.in_chunk.shape())?;
        let out_strides = c_strides(&plan.selection().output_shape()?)?;
        let mut out_axis = 0usize;
        let mut lists = Vec::with_capacity(plan.groups.len());
        for (g, (group, sel)) in plan
            .groups
            .iter()
            .zip(plan.selection().groups())
            .enumerate()
        {
            let stride = match sel.output_len() {
                Some(_) => {
                    out_axis += 1;
                    *out_strides.get(out_axis - 1).ok_or(LayoutError::Overflow)?
                }
                None => 0,
            };
            let b = *piece.owners.get(g).ok_or(LayoutError::Overflow)?;
            let ctx = Ctx {
                plan,
                piece,
                box_strides: &box_strides,
                stride,
            };
            lists.push(entries(&ctx, group, sel, b)?);
        }
        // Offsets in bytes fit: the largest of each is checked once here.
        let bytes = |n: u64| {
            n.checked_mul(elem as u64)
                .and_then(|b| usize::try_from(b).ok())
        };
        bytes(crate::product(piece.in_chunk.shape())?).ok_or(LayoutError::Overflow)?;
        bytes(plan.selection().len()?).ok_or(LayoutError::Overflow)?;
        let inner = match lists.pop() {
            Some(last) => merge(&last),
            None => alloc::vec![(0, 0, 1)],
        };
        let empty = inner.is_empty() || lists.iter().any(Vec::is_empty);
        Ok(Self {
            at: alloc::vec![0; lists.len()],
            outer: lists,
            inner,
            next_inner: 0,
            elem: elem as u64,
            done: empty,
        })
    }

    /// Advances the odometer over the outer groups; false when it has gone round.
    fn step(&mut self) -> bool {
        for (i, list) in self.at.iter_mut().zip(&self.outer).rev() {
            *i += 1;
            if *i < list.len() {
                return true;
            }
            *i = 0;
        }
        false
    }
}

impl Iterator for GatherRuns {
    type Item = Run;

    fn next(&mut self) -> Option<Run> {
        if self.done {
            return None;
        }
        if self.next_inner == self.inner.len() {
            self.next_inner = 0;
            if !self.step() {
                self.done = true;
                return None;
            }
        }
        let (mut dst, mut src) = (0u64, 0u64);
        for (list, &i) in self.outer.iter().zip(&self.at) {
            let (o, s) = *list.get(i)?;
            dst += o;
            src += s;
        }
        let &(o, s, n) = self.inner.get(self.next_inner)?;
        self.next_inner += 1;
        // Checked in `new`: every offset is below the output's or the box's bytes.
        Some(Run {
            src: usize::try_from((src + s) * self.elem).ok()?,
            dst: usize::try_from((dst + o) * self.elem).ok()?,
            len: usize::try_from(n * self.elem).ok()?,
        })
    }
}

/// What a group's entries are computed from.
struct Ctx<'a, 'p> {
    plan: &'a Plan<'p>,
    piece: &'a SelPiece,
    /// The box's strides, per array axis, in elements.
    box_strides: &'a [u64],
    /// The group's output axis stride (0 without one).
    stride: u64,
}

/// Group `group`'s entries in chunk `b` of it: `(output, source)` offsets in elements.
fn entries(
    ctx: &Ctx<'_, '_>,
    group: &GroupPlan,
    sel: &Group,
    b: u64,
) -> Result<Vec<(u64, u64)>, LayoutError> {
    let grid = ctx.plan.grid;
    let lo = ctx.piece.in_chunk.start();
    let start_of = |d: usize| -> Result<u64, LayoutError> {
        let k = *ctx.piece.chunk.get(d).ok_or(LayoutError::Overflow)?;
        let axis = grid.axes().get(d).ok_or(LayoutError::Overflow)?;
        axis.chunk(k).map(|(cs, _)| cs).ok_or(LayoutError::Overflow)
    };
    let src_of = |d: usize, x: u64| -> Result<u64, LayoutError> {
        let off = x
            .checked_sub(start_of(d)?)
            .and_then(|o| o.checked_sub(*lo.get(d)?))
            .ok_or(LayoutError::Overflow)?;
        off.checked_mul(*ctx.box_strides.get(d).ok_or(LayoutError::Overflow)?)
            .ok_or(LayoutError::Overflow)
    };
    let mut out = Vec::new();
    match group {
        GroupPlan::Range {
            dim, start, stop, ..
        } => {
            // The box starts where the range enters the chunk.
            let a = start_of(*dim)? + lo.get(*dim).ok_or(LayoutError::Overflow)?;
            let n = *ctx
                .piece
                .in_chunk
                .shape()
                .get(*dim)
                .ok_or(LayoutError::Overflow)?;
            for x in a.max(*start)..(a + n).min(*stop) {
                out.push(((x - start) * ctx.stride, src_of(*dim, x)?));
            }
        }
        GroupPlan::Listed(l) => {
            let b = usize::try_from(b).map_err(|_| LayoutError::Overflow)?;
            let (from, to) = (
                *l.starts.get(b).ok_or(LayoutError::Overflow)?,
                *l.starts.get(b + 1).ok_or(LayoutError::Overflow)?,
            );
            let mut one = [0u64; 1];
            for &o in l.entries.get(from..to).ok_or(LayoutError::Overflow)? {
                let coords = coords_of(sel, o, &mut one).ok_or(LayoutError::Overflow)?;
                let mut src = 0u64;
                for (&d, &x) in l.dims.iter().zip(coords) {
                    let d = usize::try_from(d).map_err(|_| LayoutError::Overflow)?;
                    src += src_of(d, x)?;
                }
                out.push((o * ctx.stride, src));
            }
        }
    }
    Ok(out)
}

/// Entries merged into stretches where output and source both run on by one element.
fn merge(list: &[(u64, u64)]) -> Vec<(u64, u64, u64)> {
    let mut out: Vec<(u64, u64, u64)> = Vec::with_capacity(list.len());
    for &(o, s) in list {
        match out.last_mut() {
            Some((lo, ls, n)) if *lo + *n == o && *ls + *n == s => *n += 1,
            _ => out.push((o, s, 1)),
        }
    }
    out
}

/// C-order strides of `shape`, in elements.
fn c_strides(shape: &[u64]) -> Result<[u64; MAX_DIMS], LayoutError> {
    let mut strides = [0u64; MAX_DIMS];
    let mut stride = 1u64;
    for (s, &n) in strides.iter_mut().zip(shape).rev() {
        *s = stride;
        stride = stride.checked_mul(n.max(1)).ok_or(LayoutError::Overflow)?;
    }
    Ok(strides)
}
