//! A [`Selection`] over a [`ChunkGrid`], grouped by chunk: which chunks it touches (the
//! pieces), the box of each chunk it needs, and for every output position the chunk it comes
//! from.
//!
//! Each group is planned on its own: a range along one axis arithmetically (the chunks it
//! crosses), a list of indices or points by sorting them by the chunk that holds them (so each
//! chunk is visited once, however the indices are ordered or repeated). A piece is one chunk
//! from each group's list: the pieces are their product, and since every output position of
//! a group comes from one chunk of it, no two pieces write the same output element.

use alloc::vec::Vec;

use super::{AxisSel, Group, Selection};
use crate::{Axis, ChunkGrid, Dims, LayoutError, MAX_DIMS, Region, dims};

/// One group, grouped by chunk.
#[derive(Debug, Clone)]
pub(super) enum GroupPlan {
    /// `start..stop` along array axis `dim`: chunks `first..first + count` of that axis.
    Range {
        dim: usize,
        start: u64,
        stop: u64,
        first: u64,
        count: u64,
    },
    /// Indices or points, grouped by chunk.
    Listed(alloc::boxed::Box<Listed>),
}

/// A group's entries sorted by the chunk that holds them, then by output position.
#[derive(Debug, Clone)]
pub(super) struct Listed {
    /// The array axes, in the group's order.
    pub(super) dims: Dims,
    /// Output positions (a list's positions, or points' numbers), by chunk, each chunk's in
    /// order.
    pub(super) entries: Vec<u64>,
    /// Where each chunk's entries start in `entries` (one more than there are chunks).
    pub(super) starts: Vec<usize>,
    /// Each chunk's coordinates along `dims` (`dims.len()` each).
    pub(super) chunks: Vec<u64>,
    /// Each chunk's needed box along `dims`: first and one past the last coordinate in the
    /// chunk (`2 * dims.len()` each).
    pub(super) boxes: Vec<u64>,
}

/// A [`Selection`] grouped by the chunks of a grid.
#[derive(Debug, Clone)]
pub struct Plan<'s> {
    pub(super) sel: &'s Selection,
    pub(super) grid: &'s ChunkGrid,
    pub(super) groups: Vec<GroupPlan>,
    count: u64,
}

/// One piece of a [`Plan`]: a chunk, the box of it the selection needs, and which chunk of
/// each group it is (its claim on the output).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelPiece {
    /// The chunk's coordinates in the grid.
    pub chunk: Dims,
    /// The box of the chunk needed, in coordinates inside the chunk.
    pub in_chunk: Region,
    /// For each group, which of its chunks this is: no two pieces have the same.
    pub owners: Dims,
}

/// Output position `o` of group `sel`'s coordinates along its axes.
pub(super) fn coords_of<'p>(sel: &'p Group, o: u64, one: &'p mut [u64; 1]) -> Option<&'p [u64]> {
    match sel {
        Group::Points(p) => p.point(o),
        Group::Axis {
            sel: AxisSel::List(list),
            ..
        } => {
            one[0] = *list.get(usize::try_from(o).ok()?)?;
            Some(one)
        }
        Group::Axis {
            sel: AxisSel::Index(i),
            ..
        } => {
            one[0] = *i;
            Some(one)
        }
        Group::Axis {
            sel: AxisSel::Range { start, .. },
            ..
        } => {
            one[0] = start.checked_add(o)?;
            Some(one)
        }
    }
}

/// Which chunk of its group each position of one output axis comes from: what the output's
/// sharing checks every write against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AxisOwners {
    /// The positions where the owner changes (the first is 0), owners 0, 1, ... in turn: a
    /// range's chunks.
    Boundaries(Vec<u64>),
    /// Each position's owner: a list's or points' chunks.
    Each(Vec<u64>),
}

impl AxisOwners {
    /// The owner of position `o`, `None` past the axis's end (`len`).
    pub fn owner(&self, o: u64, len: u64) -> Option<u64> {
        if o >= len {
            return None;
        }
        match self {
            Self::Boundaries(b) => (b.partition_point(|&x| x <= o) as u64).checked_sub(1),
            Self::Each(each) => each.get(usize::try_from(o).ok()?).copied(),
        }
    }

    /// Whether positions `o..o + n` all have the owner `owner` (and lie before `len`).
    pub fn covers(&self, o: u64, n: u64, owner: u64, len: u64) -> bool {
        let Some(end) = o.checked_add(n).filter(|&e| e <= len && n > 0) else {
            return false;
        };
        match self {
            Self::Boundaries(b) => {
                let i = b.partition_point(|&x| x <= o);
                let next = b.get(i).copied().unwrap_or(len);
                i.checked_sub(1).map(|i| i as u64) == Some(owner) && end <= next
            }
            Self::Each(each) => usize::try_from(o)
                .ok()
                .zip(usize::try_from(end).ok())
                .and_then(|(a, z)| each.get(a..z))
                .is_some_and(|s| s.iter().all(|&x| x == owner)),
        }
    }
}

impl<'s> Plan<'s> {
    /// Plans `sel` over `grid` (of the same array shape).
    ///
    /// # Errors
    /// [`LayoutError::DimsMismatch`] for a grid of another shape; [`LayoutError::Overflow`]
    /// if the pieces overflow a `u64` or a list cannot be held.
    pub fn new(sel: &'s Selection, grid: &'s ChunkGrid) -> Result<Self, LayoutError> {
        if grid.array_shape() != sel.array_shape() {
            return Err(LayoutError::DimsMismatch {
                expected: grid.ndim(),
                got: sel.array_shape().len(),
            });
        }
        let groups = sel
            .groups()
            .iter()
            .map(|g| plan_group(g, grid))
            .collect::<Result<Vec<_>, _>>()?;
        let count = groups
            .iter()
            .try_fold(1u64, |n, g| n.checked_mul(g.chunk_count()))
            .ok_or(LayoutError::Overflow)?;
        Ok(Self {
            sel,
            grid,
            groups,
            count,
        })
    }

    /// The pieces: chunks touched.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The selection planned.
    pub fn selection(&self) -> &Selection {
        self.sel
    }

    /// Piece `index` (C order over the groups' chunks), `None` past the last.
    pub fn piece(&self, index: u64) -> Option<SelPiece> {
        if index >= self.count {
            return None;
        }
        let mut owners = [0u64; MAX_DIMS];
        let mut rest = index;
        for (slot, g) in owners.iter_mut().zip(&self.groups).rev() {
            let n = g.chunk_count();
            *slot = rest % n;
            rest /= n;
        }
        let ndim = self.grid.ndim();
        let (mut chunk, mut lo, mut hi) = ([0u64; MAX_DIMS], [0u64; MAX_DIMS], [0u64; MAX_DIMS]);
        for (g, &b) in self.groups.iter().zip(&owners) {
            g.place(b, self.grid, (&mut chunk, &mut lo, &mut hi))?;
        }
        let extent: Vec<u64> = (0..ndim).map(|d| hi[d] - lo[d]).collect();
        Some(SelPiece {
            chunk: dims(&chunk[..ndim]).ok()?,
            in_chunk: Region::new(&lo[..ndim], &extent).ok()?,
            owners: dims(&owners[..self.groups.len()]).ok()?,
        })
    }

    /// Where `piece` lands in the output, if it lands as one hyper-rectangle copied from its
    /// box as it is: every group one axis, in the array's order, and the piece's positions
    /// along each both consecutive in the output and consecutive in the array (a list's run,
    /// a range, an index). The region is in the array's dimensions: a dropped axis (an index)
    /// has extent 1 at 0, as in a region read. Such a piece can be read straight into the
    /// output, as a region's piece is.
    pub fn output_box(&self, piece: &SelPiece) -> Option<Region> {
        let mut start = [0u64; MAX_DIMS];
        let mut extent = [1u64; MAX_DIMS];
        for (g, ((group, sel), &b)) in self
            .groups
            .iter()
            .zip(self.sel.groups())
            .zip(&piece.owners)
            .enumerate()
        {
            match (group, sel) {
                (GroupPlan::Range { dim, start: a, .. }, _) if *dim == g => {
                    let cs = self.grid.axes().get(g)?.chunk(*piece.chunk.get(g)?)?.0;
                    start[g] = cs + piece.in_chunk.start().get(g)? - a;
                    extent[g] = *piece.in_chunk.shape().get(g)?;
                }
                (GroupPlan::Listed(l), Group::Axis { dim, sel }) if *dim == g => {
                    let b = usize::try_from(b).ok()?;
                    let entries = l.entries.get(*l.starts.get(b)?..*l.starts.get(b + 1)?)?;
                    let coord =
                        |o: u64| coords_of(self.sel.groups().get(g)?, o, &mut [0; 1]).map(|c| c[0]);
                    let first = *entries.first()?;
                    let consecutive = entries.windows(2).all(|w| {
                        w[1] == w[0] + 1
                            && coord(w[1])
                                .zip(coord(w[0]))
                                .is_some_and(|(x, y)| x == y + 1)
                    });
                    if !consecutive {
                        return None;
                    }
                    if sel.keeps_axis() {
                        start[g] = first;
                        extent[g] = entries.len() as u64;
                    }
                }
                _ => return None,
            }
        }
        let n = self.groups.len();
        Region::new(&start[..n], &extent[..n]).ok()
    }

    /// For each output axis, which chunk of its group every position comes from.
    ///
    /// # Errors
    /// [`LayoutError::Overflow`] if a list of owners cannot be held.
    pub fn owners(&self) -> Result<Vec<AxisOwners>, LayoutError> {
        let mut out = Vec::new();
        for (g, sel) in self.groups.iter().zip(self.sel.groups()) {
            let Some(len) = sel.output_len() else {
                continue;
            };
            out.push(match g {
                GroupPlan::Range {
                    dim,
                    start,
                    first,
                    count,
                    ..
                } => {
                    let axis = self.grid.axes().get(*dim).ok_or(LayoutError::Overflow)?;
                    let mut b = Vec::new();
                    for k in *first..first + count {
                        let (cs, _) = axis.chunk(k).ok_or(LayoutError::Overflow)?;
                        b.push(cs.max(*start) - start);
                    }
                    AxisOwners::Boundaries(b)
                }
                GroupPlan::Listed(l) => {
                    let n = usize::try_from(len).map_err(|_| LayoutError::Overflow)?;
                    let mut each = Vec::new();
                    each.try_reserve_exact(n)
                        .map_err(|_| LayoutError::Overflow)?;
                    each.resize(n, 0);
                    for (b, w) in l.starts.windows(2).enumerate() {
                        for &o in l.entries.get(w[0]..w[1]).unwrap_or(&[]) {
                            if let Some(slot) =
                                usize::try_from(o).ok().and_then(|i| each.get_mut(i))
                            {
                                *slot = b as u64;
                            }
                        }
                    }
                    AxisOwners::Each(each)
                }
            });
        }
        Ok(out)
    }
}

impl GroupPlan {
    /// Chunks the group touches.
    pub(super) fn chunk_count(&self) -> u64 {
        match self {
            Self::Range { count, .. } => *count,
            Self::Listed(l) => l.starts.len().saturating_sub(1) as u64,
        }
    }

    /// Sets the chunk coordinates and box bounds of this group's chunk `b` along its axes.
    fn place(
        &self,
        b: u64,
        grid: &ChunkGrid,
        (chunk, lo, hi): (
            &mut [u64; MAX_DIMS],
            &mut [u64; MAX_DIMS],
            &mut [u64; MAX_DIMS],
        ),
    ) -> Option<()> {
        match self {
            Self::Range {
                dim,
                start,
                stop,
                first,
                ..
            } => {
                let k = first.checked_add(b)?;
                let (cs, edge) = grid.axes().get(*dim)?.chunk(k)?;
                *chunk.get_mut(*dim)? = k;
                *lo.get_mut(*dim)? = (*start).max(cs) - cs;
                *hi.get_mut(*dim)? = cs.checked_add(edge)?.min(*stop) - cs;
            }
            Self::Listed(l) => {
                let n = l.dims.len();
                let b = usize::try_from(b).ok()?;
                for (j, &d) in l.dims.iter().enumerate() {
                    let d = usize::try_from(d).ok()?;
                    *chunk.get_mut(d)? = *l.chunks.get(b * n + j)?;
                    *lo.get_mut(d)? = *l.boxes.get(2 * (b * n + j))?;
                    *hi.get_mut(d)? = *l.boxes.get(2 * (b * n + j) + 1)?;
                }
            }
        }
        Some(())
    }
}

/// Plans one group over `grid`.
fn plan_group(g: &Group, grid: &ChunkGrid) -> Result<GroupPlan, LayoutError> {
    match g {
        Group::Axis {
            dim,
            sel: AxisSel::Range { start, stop },
        } => {
            let axis = grid.axes().get(*dim).ok_or(LayoutError::Overflow)?;
            let count = match stop.checked_sub(1) {
                Some(last) if start < stop => {
                    let first = axis.chunk_of(*start).ok_or(LayoutError::Overflow)?;
                    let end = axis.chunk_of(last).ok_or(LayoutError::Overflow)?;
                    return Ok(GroupPlan::Range {
                        dim: *dim,
                        start: *start,
                        stop: *stop,
                        first,
                        count: end - first + 1,
                    });
                }
                _ => 0,
            };
            Ok(GroupPlan::Range {
                dim: *dim,
                start: *start,
                stop: *stop,
                first: 0,
                count,
            })
        }
        Group::Axis { dim, sel } => {
            let axes = [grid.axes().get(*dim).ok_or(LayoutError::Overflow)?];
            listed(g, dims(&[*dim as u64])?, sel.len(), &axes)
                .map(|l| GroupPlan::Listed(alloc::boxed::Box::new(l)))
        }
        Group::Points(p) => {
            let axes: Vec<&Axis> = p
                .axes()
                .map(|d| grid.axes().get(d).ok_or(LayoutError::Overflow))
                .collect::<Result<_, _>>()?;
            let d: Vec<u64> = p.axes().map(|a| a as u64).collect();
            listed(g, dims(&d)?, p.len(), &axes)
                .map(|l| GroupPlan::Listed(alloc::boxed::Box::new(l)))
        }
    }
}

/// Group `g` (an index, a list or points: `n` entries along the grid's `axes`, of array axes
/// `dims_`), its entries sorted by chunk: entry `e`'s output position is `e`.
fn listed(g: &Group, dims_: Dims, n: u64, axes: &[&Axis]) -> Result<Listed, LayoutError> {
    let coord = |e: u64, j: usize| -> Option<u64> {
        let mut one = [0u64; 1];
        coords_of(g, e, &mut one)?.get(j).copied()
    };
    let k = axes.len();
    let chunk_of = |e: u64, j: usize| -> Option<u64> { axes.get(j)?.chunk_of(coord(e, j)?) };
    let mut order: Vec<u64> = Vec::new();
    order
        .try_reserve_exact(usize::try_from(n).map_err(|_| LayoutError::Overflow)?)
        .map_err(|_| LayoutError::Overflow)?;
    order.extend(0..n);
    // By chunk (its coordinates, in order), then by output position (the entry's number).
    order.sort_unstable_by(|&a, &b| {
        (0..k)
            .map(|j| chunk_of(a, j).cmp(&chunk_of(b, j)))
            .find(|o| o.is_ne())
            .unwrap_or(a.cmp(&b))
    });
    let mut l = Listed {
        dims: dims_,
        entries: Vec::new(),
        starts: Vec::new(),
        chunks: Vec::new(),
        boxes: Vec::new(),
    };
    let mut current: Option<[u64; MAX_DIMS]> = None;
    for (i, &e) in order.iter().enumerate() {
        let mut here = [0u64; MAX_DIMS];
        let mut at = [0u64; MAX_DIMS];
        for j in 0..k {
            here[j] = chunk_of(e, j).ok_or(LayoutError::Overflow)?;
            at[j] = coord(e, j).ok_or(LayoutError::Overflow)?;
        }
        if current != Some(here) {
            current = Some(here);
            l.starts.push(i);
            for &c in here.iter().take(k) {
                l.chunks.push(c);
                l.boxes.extend([u64::MAX, 0]);
            }
        }
        let b = l.starts.len() - 1;
        for (j, axis) in axes.iter().enumerate() {
            let (cs, _) = axis.chunk(here[j]).ok_or(LayoutError::Overflow)?;
            let off = at[j] - cs;
            let slot = 2 * (b * k + j);
            l.boxes[slot] = l.boxes[slot].min(off);
            l.boxes[slot + 1] = l.boxes[slot + 1].max(off + 1);
        }
    }
    l.starts.push(order.len());
    l.entries = order;
    Ok(l)
}
