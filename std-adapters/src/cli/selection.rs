//! NumPy-like selections for `zinto read --select`: one item per dimension, each an integer
//! `i`, a slice `start:stop[:step]` (any part may be left out), a list of indices `[3,1,7]` (any
//! order, repeats, negative from the end) or `...` for the dimensions in between. Negative
//! numbers count from the end, slice bounds are clamped to the dimension, and an integer drops
//! its dimension from the result, all as NumPy does. Lists select along their dimension each
//! on its own, as zarr-python's `oindex` (two lists do not pair up into points, as NumPy's
//! would).

use std::num::IntErrorKind;

use zinto_core::selection::AxisSel;

use crate::Region;

/// A parsed selection: the region to read, and which dimensions an integer index dropped;
/// with lists or steps, the selection to gather instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// The part of the array to read (with lists or steps, the box they span); a dimension an
    /// integer selected has length 1 here.
    pub region: Region,
    /// One flag per dimension: `false` where an integer index dropped it from the result.
    pub kept: Vec<bool>,
    /// With a list or a step in some dimension, what to read: each dimension on its own.
    pub lists: Option<zinto_core::selection::Selection>,
}

impl Selection {
    /// The shape of the result as NumPy gives it: the region's shape without the dropped
    /// dimensions (with lists, their lengths).
    pub fn output_shape(&self) -> Vec<u64> {
        if let Some(lists) = &self.lists {
            return lists
                .output_shape()
                .map_or_else(|_| Vec::new(), |s| s.to_vec());
        }
        self.region
            .shape()
            .iter()
            .zip(&self.kept)
            .filter(|&(_, &kept)| kept)
            .map(|(&len, _)| len)
            .collect()
    }
}

/// What one item selects in its dimension.
#[derive(Debug, Clone, PartialEq, Eq)]
struct AxisPick {
    /// The first index read.
    start: u64,
    /// How many indices are read (0 for an empty slice).
    len: u64,
    /// `false` when an integer selected the index and NumPy drops the dimension.
    kept: bool,
    /// The indices a list or a stepped slice selects, in order.
    list: Option<Vec<u64>>,
}

impl AxisPick {
    fn range(start: u64, len: u64) -> Self {
        Self {
            start,
            len,
            kept: true,
            list: None,
        }
    }

    /// The pick of `list`: the box it spans, and the list.
    fn of_list(list: Vec<u64>) -> Self {
        let lo = list.iter().copied().min().unwrap_or(0);
        let hi = list.iter().copied().max().map_or(0, |m| m + 1);
        Self {
            start: lo,
            len: hi - lo,
            kept: true,
            list: Some(list),
        }
    }

    fn sel(&self) -> AxisSel {
        match (&self.list, self.kept) {
            (Some(list), _) => AxisSel::List(list.clone()).simplified(),
            (None, false) => AxisSel::Index(self.start),
            (None, true) => AxisSel::Range {
                start: self.start,
                stop: self.start + self.len,
            },
        }
    }
}

/// Parses `sel` against an array of `shape`.
///
/// Items are separated by commas, one per dimension; fewer items than dimensions select the rest
/// whole, and an empty (or blank) `sel` selects the whole array.
///
/// # Errors
/// A message naming the selection, item and dimension at fault: more items than dimensions, a
/// second `...`, an item that is neither an integer, a slice nor `...`, a number that does not
/// fit 64 bits, an integer index out of bounds, or a slice step other than 1.
pub fn parse(sel: &str, shape: &[u64]) -> Result<Selection, String> {
    let items = split_items(sel);
    if let Some(position) = items.iter().position(|item| item.is_empty()) {
        return Err(format!(
            "item {position} of selection {sel:?} is empty; use ':' to select a dimension whole"
        ));
    }
    let per_axis = expand_ellipsis(sel, &items, shape.len())?;
    let mut picks = Vec::with_capacity(shape.len());
    for (axis, (&n, item)) in shape.iter().zip(per_axis).enumerate() {
        picks.push(match item {
            None => AxisPick::range(0, n),
            Some(item) => axis_pick(item, axis, n)?,
        });
    }
    let start: Vec<u64> = picks.iter().map(|p| p.start).collect();
    let len: Vec<u64> = picks.iter().map(|p| p.len).collect();
    let kept = picks.iter().map(|p| p.kept).collect();
    let region = Region::new(&start, &len).map_err(|e| format!("selection {sel:?}: {e}"))?;
    let lists = match picks.iter().any(|p| p.list.is_some()) {
        true => Some(
            zinto_core::selection::Selection::orthogonal(
                picks.iter().map(AxisPick::sel).collect(),
                shape,
            )
            .map_err(|e| format!("selection {sel:?}: {e}"))?,
        ),
        false => None,
    };
    Ok(Selection {
        region,
        kept,
        lists,
    })
}

/// The comma-separated items of `sel`, trimmed (a list's commas, inside its brackets, do not
/// separate items); none for a blank `sel`.
fn split_items(sel: &str) -> Vec<&str> {
    if sel.trim().is_empty() {
        return Vec::new();
    }
    let mut items = Vec::new();
    let (mut depth, mut from) = (0usize, 0usize);
    for (i, c) in sel.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                items.push(sel[from..i].trim());
                from = i + 1;
            }
            _ => {}
        }
    }
    items.push(sel[from..].trim());
    items
}

/// One entry per dimension of an `ndim`-dimensional array: the item that selects it, or `None`
/// where it is selected whole (dimensions `...` stands for, and those past the last item).
fn expand_ellipsis<'a>(
    sel: &str,
    items: &[&'a str],
    ndim: usize,
) -> Result<Vec<Option<&'a str>>, String> {
    let ellipses = items.iter().filter(|&&item| item == "...").count();
    if ellipses > 1 {
        return Err(format!(
            "selection {sel:?} has {ellipses} ellipses ('...'); at most one is allowed"
        ));
    }
    let indexed = items.len().saturating_sub(ellipses);
    let Some(whole) = ndim.checked_sub(indexed) else {
        return Err(format!(
            "selection {sel:?} indexes {indexed} dimensions, the array has {ndim}"
        ));
    };
    let mut out = Vec::with_capacity(ndim);
    let mut expanded = false;
    for &item in items {
        if item == "..." {
            out.extend(std::iter::repeat_n(None, whole));
            expanded = true;
        } else {
            out.push(Some(item));
        }
    }
    if !expanded {
        out.extend(std::iter::repeat_n(None, whole));
    }
    Ok(out)
}

/// What `item` (trimmed, not empty) selects in dimension `axis` of length `n`.
fn axis_pick(item: &str, axis: usize, n: u64) -> Result<AxisPick, String> {
    if let Some(inner) = item.strip_prefix('[') {
        return list_pick(inner, item, axis, n);
    }
    let parts: Vec<&str> = item.split(':').collect();
    match parts.as_slice() {
        [index] => {
            let i = parse_int(index, item, axis)?;
            Ok(AxisPick {
                start: resolve_index(i, axis, n)?,
                len: 1,
                kept: false,
                list: None,
            })
        }
        [start, stop] => slice_pick(start, stop, item, axis, n),
        [start, stop, step] => match step_of(step, item, axis)? {
            1 => slice_pick(start, stop, item, axis, n),
            s => stepped_pick((start, stop, s), item, axis, n),
        },
        _ => Err(format!(
            "{item:?} in dimension {axis} has {} colons; a slice is start:stop",
            parts.len().saturating_sub(1)
        )),
    }
}

/// The indices `start:stop` selects in a dimension of length `n`, clamped to `0..n` as NumPy
/// does; a slice that stops at or before its start is empty.
fn slice_pick(
    start: &str,
    stop: &str,
    item: &str,
    axis: usize,
    n: u64,
) -> Result<AxisPick, String> {
    let first = match parse_bound(start, item, axis)? {
        None => 0,
        Some(v) => clamp_bound(v, n),
    };
    let end = match parse_bound(stop, item, axis)? {
        None => n,
        Some(v) => clamp_bound(v, n),
    };
    // Saturating on purpose: a stop at or before the start selects nothing.
    Ok(AxisPick::range(first, end.saturating_sub(first)))
}

/// A slice's step: 1 if left out; zero refused.
fn step_of(step: &str, item: &str, axis: usize) -> Result<i64, String> {
    match parse_bound(step, item, axis)? {
        None => Ok(1),
        Some(0) => Err(format!(
            "{item:?} in dimension {axis}: slice step cannot be zero"
        )),
        Some(s) => Ok(s),
    }
}

/// The indices `start:stop:step` selects (a step other than 1, negative ones too) in a
/// dimension of length `n`, as Python's `slice.indices` and `range` give them.
fn stepped_pick(
    (start, stop, step): (&str, &str, i64),
    item: &str,
    axis: usize,
    n: u64,
) -> Result<AxisPick, String> {
    let n = i128::from(n);
    let (lo, hi) = if step < 0 { (-1, n - 1) } else { (0, n) };
    let bound = |v: Option<i64>, default: i128| match v.map(i128::from) {
        None => default,
        Some(v) if v < 0 => (v + n).max(lo),
        Some(v) => v.min(hi),
    };
    let first = bound(
        parse_bound(start, item, axis)?,
        if step < 0 { hi } else { lo },
    );
    let last = bound(
        parse_bound(stop, item, axis)?,
        if step < 0 { lo } else { hi },
    );
    let step = i128::from(step);
    let mut list = Vec::new();
    let mut i = first;
    while (step > 0 && i < last) || (step < 0 && i > last) {
        list.push(u64::try_from(i).map_err(|_| format!("{item:?}: index {i} out of range"))?);
        i += step;
    }
    Ok(AxisPick::of_list(list))
}

/// The indices of `[3, -1, 7]` (`inner` the text after `[`) in a dimension of length `n`,
/// each checked as an integer index is.
fn list_pick(inner: &str, item: &str, axis: usize, n: u64) -> Result<AxisPick, String> {
    let body = inner
        .strip_suffix(']')
        .ok_or_else(|| format!("{item:?} in dimension {axis}: a list of indices ends with ']'"))?;
    let mut list = Vec::new();
    for part in body.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        list.push(resolve_index(parse_int(part, item, axis)?, axis, n)?);
    }
    Ok(AxisPick::of_list(list))
}

/// A slice bound or step: `None` when left out (blank).
fn parse_bound(text: &str, item: &str, axis: usize) -> Result<Option<i64>, String> {
    let text = text.trim();
    if text.is_empty() {
        Ok(None)
    } else {
        parse_int(text, item, axis).map(Some)
    }
}

/// `text` (part of `item`, in dimension `axis`) as an integer.
fn parse_int(text: &str, item: &str, axis: usize) -> Result<i64, String> {
    let text = text.trim();
    text.parse::<i64>().map_err(|e| match e.kind() {
        IntErrorKind::PosOverflow | IntErrorKind::NegOverflow => {
            format!("{text} in {item:?} (dimension {axis}) does not fit a 64-bit signed integer")
        }
        _ if text == item => {
            format!("{item:?} in dimension {axis} is not an integer, a slice start:stop or '...'")
        }
        _ => format!("{text:?} in {item:?} (dimension {axis}) is not an integer"),
    })
}

/// The position integer `i` names in dimension `axis` of length `n`; negative counts from the end.
fn resolve_index(i: i64, axis: usize, n: u64) -> Result<u64, String> {
    let index = if i < 0 {
        n.checked_sub(i.unsigned_abs())
    } else {
        Some(i.unsigned_abs()).filter(|&u| u < n)
    };
    index.ok_or_else(|| format!("index {i} is out of bounds for axis {axis} with size {n}"))
}

/// A slice bound `v` in a dimension of length `n`: negative counts from the end, and the result
/// is clamped to `0..=n` (saturating on purpose, as NumPy clamps).
fn clamp_bound(v: i64, n: u64) -> u64 {
    if v < 0 {
        n.saturating_sub(v.unsigned_abs())
    } else {
        v.unsigned_abs().min(n)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::{Selection, parse};

    /// `(start, region shape, output shape)` of `sel` on `shape`, panicking on an error.
    fn ok(sel: &str, shape: &[u64]) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
        let s: Selection = parse(sel, shape).unwrap_or_else(|e| panic!("{sel:?}: {e}"));
        (
            s.region.start().to_vec(),
            s.region.shape().to_vec(),
            s.output_shape(),
        )
    }

    /// The error message of `sel` on `shape`, panicking if it parses.
    fn err(sel: &str, shape: &[u64]) -> String {
        match parse(sel, shape) {
            Ok(s) => panic!("{sel:?} on {shape:?} parsed to {s:?}"),
            Err(e) => e,
        }
    }

    /// `(selection, array shape, Some((region start, region shape, output shape)) or None for
    /// an error)`, generated with NumPy 2.4 by this script (output shapes and, for non-empty
    /// results, starts from NumPy itself; starts of empty slices from Python's `slice.indices`,
    /// which NumPy applies):
    ///
    /// ```python
    /// import numpy as np, random
    /// random.seed(7)
    /// ITEMS = ["", ":", "0", "2", "-1", "-5", "5", "-6", "1:3", "-3:", ":-1", "-10:", "3:100",
    ///          "3:2", "5:", "::", "::1", "1:4:1", "-2:-1", " 1 : 3 "]
    /// def py(item):
    ///     if item.strip() == "...": return Ellipsis
    ///     parts = [p.strip() for p in item.split(":")]
    ///     if len(parts) == 1: return int(parts[0])
    ///     return slice(*[int(p) if p else None for p in parts])
    /// def case(sel, shape):
    ///     items = [i.strip() for i in sel.split(",")] if sel.strip() else []
    ///     idx = tuple(py(i) for i in items)
    ///     a = np.zeros(shape)
    ///     try:
    ///         out = a[idx].shape
    ///     except IndexError:
    ///         return None
    ///     full = list(idx)
    ///     if Ellipsis in full:
    ///         k = full.index(Ellipsis)
    ///         full[k:k+1] = [slice(None)] * (len(shape) - len(full) + 1)
    ///     full += [slice(None)] * (len(shape) - len(full))
    ///     start, length = [], []
    ///     for ix, n in zip(full, shape):
    ///         if isinstance(ix, int):
    ///             start.append(ix + n if ix < 0 else ix); length.append(1)
    ///         else:
    ///             b, e, _ = ix.indices(n); start.append(b); length.append(max(e - b, 0))
    ///     if a[idx].size:
    ///         coords = np.indices(shape)
    ///         for d in range(len(shape)):
    ///             assert coords[d][idx].min() == start[d]
    ///     return start, length, list(out)
    /// cases = [(it, shape) for shape in [[5], [0], [4, 6]] for it in ITEMS]
    /// for shape in [[4, 6], [3, 4, 5]]:
    ///     for _ in range(40):
    ///         its = [random.choice(ITEMS[1:]) for _ in range(random.randint(1, len(shape) + 1))]
    ///         if random.random() < 0.3:
    ///             its.insert(random.randint(0, len(its)), "...")
    ///         cases.append((",".join(its), shape))
    /// # ... printed as Rust tuples.
    /// ```
    type Case = (
        &'static str,
        &'static [u64],
        Option<(&'static [u64], &'static [u64], &'static [u64])>,
    );

    /// Selections checked against NumPy (see [`Case`]).
    const NUMPY_CASES: &[Case] = &[
        ("", &[5], Some((&[0], &[5], &[5]))),
        (":", &[5], Some((&[0], &[5], &[5]))),
        ("0", &[5], Some((&[0], &[1], &[]))),
        ("2", &[5], Some((&[2], &[1], &[]))),
        ("-1", &[5], Some((&[4], &[1], &[]))),
        ("-5", &[5], Some((&[0], &[1], &[]))),
        ("5", &[5], None),
        ("-6", &[5], None),
        ("1:3", &[5], Some((&[1], &[2], &[2]))),
        ("-3:", &[5], Some((&[2], &[3], &[3]))),
        (":-1", &[5], Some((&[0], &[4], &[4]))),
        ("-10:", &[5], Some((&[0], &[5], &[5]))),
        ("3:100", &[5], Some((&[3], &[2], &[2]))),
        ("3:2", &[5], Some((&[3], &[0], &[0]))),
        ("5:", &[5], Some((&[5], &[0], &[0]))),
        ("::", &[5], Some((&[0], &[5], &[5]))),
        ("::1", &[5], Some((&[0], &[5], &[5]))),
        ("1:4:1", &[5], Some((&[1], &[3], &[3]))),
        ("-2:-1", &[5], Some((&[3], &[1], &[1]))),
        (" 1 : 3 ", &[5], Some((&[1], &[2], &[2]))),
        ("", &[0], Some((&[0], &[0], &[0]))),
        (":", &[0], Some((&[0], &[0], &[0]))),
        ("0", &[0], None),
        ("2", &[0], None),
        ("-1", &[0], None),
        ("-5", &[0], None),
        ("5", &[0], None),
        ("-6", &[0], None),
        ("1:3", &[0], Some((&[0], &[0], &[0]))),
        ("-3:", &[0], Some((&[0], &[0], &[0]))),
        (":-1", &[0], Some((&[0], &[0], &[0]))),
        ("-10:", &[0], Some((&[0], &[0], &[0]))),
        ("3:100", &[0], Some((&[0], &[0], &[0]))),
        ("3:2", &[0], Some((&[0], &[0], &[0]))),
        ("5:", &[0], Some((&[0], &[0], &[0]))),
        ("::", &[0], Some((&[0], &[0], &[0]))),
        ("::1", &[0], Some((&[0], &[0], &[0]))),
        ("1:4:1", &[0], Some((&[0], &[0], &[0]))),
        ("-2:-1", &[0], Some((&[0], &[0], &[0]))),
        (" 1 : 3 ", &[0], Some((&[0], &[0], &[0]))),
        ("", &[4, 6], Some((&[0, 0], &[4, 6], &[4, 6]))),
        (":", &[4, 6], Some((&[0, 0], &[4, 6], &[4, 6]))),
        ("0", &[4, 6], Some((&[0, 0], &[1, 6], &[6]))),
        ("2", &[4, 6], Some((&[2, 0], &[1, 6], &[6]))),
        ("-1", &[4, 6], Some((&[3, 0], &[1, 6], &[6]))),
        ("-5", &[4, 6], None),
        ("5", &[4, 6], None),
        ("-6", &[4, 6], None),
        ("1:3", &[4, 6], Some((&[1, 0], &[2, 6], &[2, 6]))),
        ("-3:", &[4, 6], Some((&[1, 0], &[3, 6], &[3, 6]))),
        (":-1", &[4, 6], Some((&[0, 0], &[3, 6], &[3, 6]))),
        ("-10:", &[4, 6], Some((&[0, 0], &[4, 6], &[4, 6]))),
        ("3:100", &[4, 6], Some((&[3, 0], &[1, 6], &[1, 6]))),
        ("3:2", &[4, 6], Some((&[3, 0], &[0, 6], &[0, 6]))),
        ("5:", &[4, 6], Some((&[4, 0], &[0, 6], &[0, 6]))),
        ("::", &[4, 6], Some((&[0, 0], &[4, 6], &[4, 6]))),
        ("::1", &[4, 6], Some((&[0, 0], &[4, 6], &[4, 6]))),
        ("1:4:1", &[4, 6], Some((&[1, 0], &[3, 6], &[3, 6]))),
        ("-2:-1", &[4, 6], Some((&[2, 0], &[1, 6], &[1, 6]))),
        (" 1 : 3 ", &[4, 6], Some((&[1, 0], &[2, 6], &[2, 6]))),
        ("-5,3:2", &[4, 6], None),
        ("...,-2:-1", &[4, 6], Some((&[0, 4], &[4, 1], &[4, 1]))),
        ("-6,0,2", &[4, 6], None),
        ("1:3,...", &[4, 6], Some((&[1, 0], &[2, 6], &[2, 6]))),
        ("..., 1 : 3 ", &[4, 6], Some((&[0, 1], &[4, 2], &[4, 2]))),
        (" 1 : 3 ,0, 1 : 3 ", &[4, 6], None),
        ("...,1:3", &[4, 6], Some((&[0, 1], &[4, 2], &[4, 2]))),
        ("5:,-5", &[4, 6], Some((&[4, 1], &[0, 1], &[0]))),
        (":-1,...,-2:-1,5", &[4, 6], None),
        ("-1,-2:-1", &[4, 6], Some((&[3, 4], &[1, 1], &[1]))),
        ("0,-6,::1", &[4, 6], None),
        ("-10:,::", &[4, 6], Some((&[0, 0], &[4, 6], &[4, 6]))),
        ("...,3:100,:-1", &[4, 6], Some((&[3, 0], &[1, 5], &[1, 5]))),
        ("1:3,2, 1 : 3 ", &[4, 6], None),
        ("...,-10:,::", &[4, 6], Some((&[0, 0], &[4, 6], &[4, 6]))),
        ("1:4:1", &[4, 6], Some((&[1, 0], &[3, 6], &[3, 6]))),
        ("-5,::1", &[4, 6], None),
        ("2,-2:-1, 1 : 3 ", &[4, 6], None),
        ("-10:,3:100", &[4, 6], Some((&[0, 3], &[4, 3], &[4, 3]))),
        ("::,2,2", &[4, 6], None),
        ("2,0", &[4, 6], Some((&[2, 0], &[1, 1], &[]))),
        (" 1 : 3 ,...,::", &[4, 6], Some((&[1, 0], &[2, 6], &[2, 6]))),
        ("3:100,:,::", &[4, 6], None),
        ("-1,::1,...,0", &[4, 6], None),
        ("1:3", &[4, 6], Some((&[1, 0], &[2, 6], &[2, 6]))),
        ("2,5", &[4, 6], Some((&[2, 5], &[1, 1], &[]))),
        ("-3:,-5,5:", &[4, 6], None),
        ("5:,3:100", &[4, 6], Some((&[4, 3], &[0, 3], &[0, 3]))),
        ("...,1:3,-5", &[4, 6], Some((&[1, 1], &[2, 1], &[2]))),
        ("...,1:3", &[4, 6], Some((&[0, 1], &[4, 2], &[4, 2]))),
        (":-1,:,...", &[4, 6], Some((&[0, 0], &[3, 6], &[3, 6]))),
        (" 1 : 3 ,-10:", &[4, 6], Some((&[1, 0], &[2, 6], &[2, 6]))),
        ("1:4:1,0,::", &[4, 6], None),
        ("-2:-1,3:2,3:2", &[4, 6], None),
        ("::1", &[4, 6], Some((&[0, 0], &[4, 6], &[4, 6]))),
        ("...,-6", &[4, 6], Some((&[0, 0], &[4, 1], &[4]))),
        ("5,-1", &[4, 6], None),
        ("...,-1", &[4, 6], Some((&[0, 5], &[4, 1], &[4]))),
        ("-1,...,3:100,:", &[4, 6], None),
        ("3:2,-5,-3:", &[4, 6], None),
        (
            "::1,-1,-1",
            &[3, 4, 5],
            Some((&[0, 3, 4], &[3, 1, 1], &[3])),
        ),
        ("::1,::1,...,:-1,2", &[3, 4, 5], None),
        ("::1,5,...,1:4:1", &[3, 4, 5], None),
        (
            "-2:-1,:",
            &[3, 4, 5],
            Some((&[1, 0, 0], &[1, 4, 5], &[1, 4, 5])),
        ),
        (
            "2,-3:,1:4:1",
            &[3, 4, 5],
            Some((&[2, 1, 1], &[1, 3, 3], &[3, 3])),
        ),
        (
            "3:100,1:3",
            &[3, 4, 5],
            Some((&[3, 1, 0], &[0, 2, 5], &[0, 2, 5])),
        ),
        ("1:3,-6,1:3", &[3, 4, 5], None),
        ("-6,1:4:1", &[3, 4, 5], None),
        (":", &[3, 4, 5], Some((&[0, 0, 0], &[3, 4, 5], &[3, 4, 5]))),
        ("-3:,-6,3:100,::", &[3, 4, 5], None),
        (
            "3:100,2,1:3,...",
            &[3, 4, 5],
            Some((&[3, 2, 1], &[0, 1, 2], &[0, 2])),
        ),
        ("-10:,-6", &[3, 4, 5], None),
        (
            "::1",
            &[3, 4, 5],
            Some((&[0, 0, 0], &[3, 4, 5], &[3, 4, 5])),
        ),
        ("2,-1,3:2", &[3, 4, 5], Some((&[2, 3, 3], &[1, 1, 0], &[0]))),
        ("::1,5", &[3, 4, 5], None),
        (
            "2,3:2,::",
            &[3, 4, 5],
            Some((&[2, 3, 0], &[1, 0, 5], &[0, 5])),
        ),
        ("...,5", &[3, 4, 5], None),
        ("-5", &[3, 4, 5], None),
        ("-5,::1,3:100,-5", &[3, 4, 5], None),
        (
            ":,:",
            &[3, 4, 5],
            Some((&[0, 0, 0], &[3, 4, 5], &[3, 4, 5])),
        ),
        (
            "1:4:1",
            &[3, 4, 5],
            Some((&[1, 0, 0], &[2, 4, 5], &[2, 4, 5])),
        ),
        ("5:,-6", &[3, 4, 5], None),
        (
            ":,-3:,...",
            &[3, 4, 5],
            Some((&[0, 1, 0], &[3, 3, 5], &[3, 3, 5])),
        ),
        (
            " 1 : 3 ,...,-10:",
            &[3, 4, 5],
            Some((&[1, 0, 0], &[2, 4, 5], &[2, 4, 5])),
        ),
        (
            "0,3:100",
            &[3, 4, 5],
            Some((&[0, 3, 0], &[1, 1, 5], &[1, 5])),
        ),
        ("1:4:1,-5,-2:-1,-5", &[3, 4, 5], None),
        ("::", &[3, 4, 5], Some((&[0, 0, 0], &[3, 4, 5], &[3, 4, 5]))),
        ("-5,...", &[3, 4, 5], None),
        (
            "-2:-1,...",
            &[3, 4, 5],
            Some((&[1, 0, 0], &[1, 4, 5], &[1, 4, 5])),
        ),
        (
            "...,-2:-1",
            &[3, 4, 5],
            Some((&[0, 0, 3], &[3, 4, 1], &[3, 4, 1])),
        ),
        (
            "0,-1,1:4:1",
            &[3, 4, 5],
            Some((&[0, 3, 1], &[1, 1, 3], &[3])),
        ),
        ("2", &[3, 4, 5], Some((&[2, 0, 0], &[1, 4, 5], &[4, 5]))),
        (
            "-3:,::",
            &[3, 4, 5],
            Some((&[0, 0, 0], &[3, 4, 5], &[3, 4, 5])),
        ),
        ("1:4:1,1:3,1:4:1,-3:", &[3, 4, 5], None),
        ("::,-5", &[3, 4, 5], None),
        ("::,-10:,2,1:3", &[3, 4, 5], None),
        (
            ":-1,-1",
            &[3, 4, 5],
            Some((&[0, 3, 0], &[2, 1, 5], &[2, 5])),
        ),
        (
            "...,3:100,-5",
            &[3, 4, 5],
            Some((&[0, 3, 0], &[3, 1, 1], &[3, 1])),
        ),
        ("1:3,...,-1,3:2,::1", &[3, 4, 5], None),
        (
            "5:,1:4:1",
            &[3, 4, 5],
            Some((&[3, 1, 0], &[0, 3, 5], &[0, 3, 5])),
        ),
    ];

    #[test]
    fn matches_numpy() {
        for &(sel, shape, want) in NUMPY_CASES {
            match (parse(sel, shape), want) {
                (Ok(s), Some((start, len, out))) => {
                    assert_eq!(s.region.start(), start, "start of {sel:?} on {shape:?}");
                    assert_eq!(s.region.shape(), len, "shape of {sel:?} on {shape:?}");
                    assert_eq!(s.output_shape(), out, "output of {sel:?} on {shape:?}");
                }
                (Err(_), None) => {}
                (got, want) => panic!("{sel:?} on {shape:?}: got {got:?}, NumPy gives {want:?}"),
            }
        }
    }

    #[test]
    fn forms() {
        let (start, shape, _) = ok("10:200,5:90", &[300, 100]);
        assert_eq!((start, shape), (vec![10, 5], vec![190, 85]));
        let (start, shape, out) = ok(":,3:,:7,4", &[10, 10, 10, 10]);
        assert_eq!(start, [0, 3, 0, 4]);
        assert_eq!(shape, [10, 7, 7, 1]);
        assert_eq!(out, [10, 7, 7]);
        let (start, shape, out) = ok("2", &[5, 6]);
        assert_eq!((start, shape, out), (vec![2, 0], vec![1, 6], vec![6]));
        let s = parse("", &[]).unwrap();
        assert_eq!(s.region.ndim(), 0);
        assert!(s.kept.is_empty());
        assert_eq!(s.output_shape(), Vec::<u64>::new());
    }

    #[test]
    fn whole_array() {
        for sel in ["", "  ", ":", "...", ":,:", "::", "::1", ":,...,:"] {
            let (start, shape, out) = ok(sel, &[3, 4]);
            assert_eq!(
                (start, shape, out),
                (vec![0, 0], vec![3, 4], vec![3, 4]),
                "{sel:?}"
            );
        }
        assert_eq!(ok("...", &[]), (vec![], vec![], vec![]));
    }

    #[test]
    fn dropped_dimensions() {
        let s = parse("3,:", &[10, 4]).unwrap();
        assert_eq!(
            (s.region.start(), s.region.shape()),
            (&[3, 0][..], &[1, 4][..])
        );
        assert_eq!(s.kept, [false, true]);
        assert_eq!(s.output_shape(), [4]);
        let s = parse("-1", &[5]).unwrap();
        assert_eq!((s.region.start(), s.region.shape()), (&[4][..], &[1][..]));
        assert_eq!(s.output_shape(), Vec::<u64>::new());
        assert_eq!(ok("1,2,3", &[4, 5, 6]).2, Vec::<u64>::new());
        assert_eq!(ok("1:2,2", &[4, 5]).2, [1]);
    }

    #[test]
    fn negative_indices() {
        assert_eq!(ok("-1", &[5]).0, [4]);
        assert_eq!(ok("-5", &[5]).0, [0]);
        assert_eq!(ok("-1,-2", &[3, 7]).0, [2, 5]);
        assert_eq!(ok("-3:", &[10]), (vec![7], vec![3], vec![3]));
        assert_eq!(ok(":-1", &[10]), (vec![0], vec![9], vec![9]));
        assert_eq!(ok("-4:-2", &[10]), (vec![6], vec![2], vec![2]));
        assert_eq!(ok("-1", &[u64::MAX]).0, [u64::MAX - 1]);
        assert_eq!(ok("-9223372036854775808:", &[5]).0, [0]);
    }

    #[test]
    fn out_of_bounds_indices() {
        assert_eq!(
            err("5", &[5]),
            "index 5 is out of bounds for axis 0 with size 5"
        );
        assert_eq!(
            err("-6", &[5]),
            "index -6 is out of bounds for axis 0 with size 5"
        );
        assert_eq!(
            err(":,4", &[5, 4]),
            "index 4 is out of bounds for axis 1 with size 4"
        );
        assert_eq!(
            err("0", &[0]),
            "index 0 is out of bounds for axis 0 with size 0"
        );
        assert_eq!(
            err("-1", &[0]),
            "index -1 is out of bounds for axis 0 with size 0"
        );
        assert!(err("-9223372036854775808", &[5]).contains("out of bounds"));
        assert!(err("9223372036854775807", &[5]).contains("out of bounds"));
    }

    #[test]
    fn clamping() {
        assert_eq!(ok("-10:", &[5]), (vec![0], vec![5], vec![5]));
        assert_eq!(ok("3:100", &[5]), (vec![3], vec![2], vec![2]));
        assert_eq!(ok("0:6", &[5]), (vec![0], vec![5], vec![5]));
        assert_eq!(ok(":9223372036854775807", &[5]).1, [5]);
        assert_eq!(ok("-100:-50", &[5]).1, [0]);
    }

    #[test]
    fn empty_ranges() {
        assert_eq!(ok("3:2", &[5]), (vec![3], vec![0], vec![0]));
        assert_eq!(ok("5:", &[5]), (vec![5], vec![0], vec![0]));
        assert_eq!(ok("7:9", &[5]), (vec![5], vec![0], vec![0]));
        assert_eq!(ok("-1:-2", &[5]), (vec![4], vec![0], vec![0]));
        assert_eq!(ok(":0,1", &[5, 3]), (vec![0, 1], vec![0, 1], vec![0]));
        assert_eq!(ok(":", &[0]), (vec![0], vec![0], vec![0]));
    }

    #[test]
    fn ellipsis() {
        assert_eq!(ok("...,1", &[3, 4, 5]).0, [0, 0, 1]);
        assert_eq!(ok("...,1", &[3, 4, 5]).2, [3, 4]);
        assert_eq!(ok("1,...", &[3, 4, 5]).2, [4, 5]);
        assert_eq!(
            ok("1,...,2:4", &[3, 4, 5]),
            (vec![1, 0, 2], vec![1, 4, 2], vec![4, 2])
        );
        assert_eq!(ok("1,...,2", &[3, 4]).2, Vec::<u64>::new());
        assert_eq!(ok(" ... ", &[3]).1, [3]);
        let e = err("...,...", &[3, 4]);
        assert!(e.contains("2 ellipses"), "{e}");
        let e = err("1,...,2,3", &[3, 4]);
        assert!(e.contains("indexes 3 dimensions, the array has 2"), "{e}");
    }

    /// The indices a list or a stepped slice selects, as NumPy's `range(*slice.indices(n))`
    /// and its list indexing give them (each checked against NumPy 2.4 by hand).
    fn picked(sel: &str, shape: &[u64]) -> Vec<u64> {
        use zinto_core::selection::{AxisSel, Group};
        let s = parse(sel, shape).unwrap_or_else(|e| panic!("{sel:?}: {e}"));
        let lists = s.lists.unwrap_or_else(|| panic!("{sel:?}: no lists"));
        match &lists.groups()[0] {
            Group::Axis {
                sel: AxisSel::List(l),
                ..
            } => l.clone(),
            Group::Axis {
                sel: AxisSel::Range { start, stop },
                ..
            } => (*start..*stop).collect(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn steps_and_lists() {
        for (sel, want) in [
            ("::2", vec![0, 2, 4]),
            ("1:4:2", vec![1, 3]),
            ("::-1", vec![4, 3, 2, 1, 0]),
            ("4:1:-1", vec![4, 3, 2]),
            (":: 3", vec![0, 3]),
            ("-2::-2", vec![3, 1]),
            ("10:-10:-3", vec![4, 1]),
            ("[3, 1, -1, 3]", vec![3, 1, 4, 3]),
            ("[2,3,4]", vec![2, 3, 4]),
        ] {
            assert_eq!(picked(sel, &[5]), want, "{sel}");
        }
        // An empty list, a list beside a slice and an index; the box the lists span.
        let s = parse("[],2:4", &[5, 6]).unwrap();
        assert_eq!(s.output_shape(), [0, 2]);
        let s = parse("[4,0],1,2:4", &[5, 6, 7]).unwrap();
        assert_eq!(s.output_shape(), [2, 2]);
        assert_eq!(s.region.start(), [0, 1, 2]);
        let e = err("::0", &[5]);
        assert!(e.contains("slice step cannot be zero"), "{e}");
        let e = err("[1,5]", &[5]);
        assert!(
            e.contains("index 5 is out of bounds for axis 0 with size 5"),
            "{e}"
        );
        let e = err("[1,2", &[5]);
        assert!(e.contains("ends with ']'"), "{e}");
        let e = err("[1,x]", &[5]);
        assert!(e.contains("not an integer"), "{e}");
        assert_eq!(ok("1:3:1", &[5]), (vec![1], vec![2], vec![2]));
        assert_eq!(ok("1:3:", &[5]), (vec![1], vec![2], vec![2]));
    }

    #[test]
    fn whitespace() {
        assert_eq!(
            ok(" 1 : 3 , -1 ", &[5, 6]),
            (vec![1, 5], vec![2, 1], vec![2])
        );
        assert_eq!(ok("\t2\n", &[5]).0, [2]);
    }

    #[test]
    fn errors() {
        let e = err("1,2,3", &[5, 5]);
        assert!(e.contains("3 dimensions, the array has 2"), "{e}");
        assert!(err("a:b", &[5]).contains("\"a\" in \"a:b\" (dimension 0) is not an integer"));
        assert!(err(":,x", &[5, 5]).contains("\"x\" in dimension 1 is not an integer"));
        assert!(err("1,,2", &[5, 5, 5]).contains("item 1 of selection \"1,,2\" is empty"));
        assert!(err("1:2:3:4", &[5]).contains("3 colons"));
        let e = err("9999999999999999999999", &[5]);
        assert!(e.contains("does not fit a 64-bit signed integer"), "{e}");
        assert!(err("1e3", &[5]).contains("\"1e3\" in dimension 0"));
        assert!(err("1,2", &[]).contains("the array has 0"));
    }

    #[test]
    fn no_input_panics() {
        let odd = [
            "",
            ",",
            ",,",
            "::",
            ":::",
            "1:2:3:4",
            "-",
            "--1",
            "+",
            "+1",
            "- 1",
            "9999999999999999999999",
            "-9999999999999999999999",
            "-9223372036854775808",
            "9223372036854775807",
            "-9223372036854775808:9223372036854775807",
            "9223372036854775807:-9223372036854775808",
            "::-9223372036854775808",
            "1e3",
            "…",
            "...",
            "....",
            "..",
            ". . .",
            "...,...",
            "1,...,",
            "0x10",
            "½",
            "١",
            "\u{0}",
            " ",
            "\n",
            "1;2",
            "[1]",
            "(1,)",
            "1,",
            ",1",
            "-0",
            "-0:-0",
            "::0",
            "NaN",
            "inf",
        ];
        let shapes: [&[u64]; 6] = [&[], &[0], &[5], &[u64::MAX], &[3, 0, 4], &[u64::MAX, 1]];
        for sel in odd {
            for shape in shapes {
                if let Ok(s) = parse(sel, shape) {
                    assert_eq!(s.kept.len(), shape.len());
                    for ((&a, &len), &n) in s.region.start().iter().zip(s.region.shape()).zip(shape)
                    {
                        assert!(
                            a.checked_add(len).is_some_and(|end| end <= n),
                            "{sel:?} {shape:?}"
                        );
                    }
                }
            }
        }
    }
}
