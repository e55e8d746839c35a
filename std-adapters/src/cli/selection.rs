//! NumPy-like basic selections for `zinto read --select`: one item per dimension, each an
//! integer `i`, a slice `start:stop` (any part may be left out) or `...` for the dimensions in
//! between. Negative numbers count from the end, slice bounds are clamped to the dimension, and
//! an integer drops its dimension from the result, all as NumPy does. Steps other than 1 are
//! refused.

use std::num::IntErrorKind;

use crate::Region;

/// A parsed selection: the region to read, and which dimensions an integer index dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// The part of the array to read; a dimension an integer selected has length 1 here.
    pub region: Region,
    /// One flag per dimension: `false` where an integer index dropped it from the result.
    pub kept: Vec<bool>,
}

impl Selection {
    /// The shape of the result as NumPy gives it: the region's shape without the dropped
    /// dimensions.
    pub fn output_shape(&self) -> Vec<u64> {
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct AxisPick {
    /// The first index read.
    start: u64,
    /// How many indices are read (0 for an empty slice).
    len: u64,
    /// `false` when an integer selected the index and NumPy drops the dimension.
    kept: bool,
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
    let mut start = Vec::with_capacity(shape.len());
    let mut len = Vec::with_capacity(shape.len());
    let mut kept = Vec::with_capacity(shape.len());
    for (axis, (&n, item)) in shape.iter().zip(per_axis).enumerate() {
        let pick = match item {
            None => AxisPick {
                start: 0,
                len: n,
                kept: true,
            },
            Some(item) => axis_pick(item, axis, n)?,
        };
        start.push(pick.start);
        len.push(pick.len);
        kept.push(pick.kept);
    }
    let region = Region::new(&start, &len).map_err(|e| format!("selection {sel:?}: {e}"))?;
    Ok(Selection { region, kept })
}

/// The comma-separated items of `sel`, trimmed; none for a blank `sel`.
fn split_items(sel: &str) -> Vec<&str> {
    if sel.trim().is_empty() {
        Vec::new()
    } else {
        sel.split(',').map(str::trim).collect()
    }
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
    let parts: Vec<&str> = item.split(':').collect();
    match parts.as_slice() {
        [index] => {
            let i = parse_int(index, item, axis)?;
            Ok(AxisPick {
                start: resolve_index(i, axis, n)?,
                len: 1,
                kept: false,
            })
        }
        [start, stop] => slice_pick(start, stop, item, axis, n),
        [start, stop, step] => {
            check_step(step, item, axis)?;
            slice_pick(start, stop, item, axis, n)
        }
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
    Ok(AxisPick {
        start: first,
        // Saturating on purpose: a stop at or before the start selects nothing.
        len: end.saturating_sub(first),
        kept: true,
    })
}

/// Refuses any step but 1 (or an empty step, which means 1).
fn check_step(step: &str, item: &str, axis: usize) -> Result<(), String> {
    match parse_bound(step, item, axis)? {
        None | Some(1) => Ok(()),
        Some(0) => Err(format!(
            "{item:?} in dimension {axis}: slice step cannot be zero (steps are not supported; \
             use start:stop)"
        )),
        Some(s) => Err(format!(
            "{item:?} in dimension {axis} has step {s}; steps are not supported, use start:stop"
        )),
    }
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

    #[test]
    fn steps_refused() {
        for sel in ["::2", "1:4:2", "::-1", "4:1:-1", ":: 3"] {
            let e = err(sel, &[5]);
            assert!(e.contains("steps are not supported"), "{sel:?}: {e}");
        }
        let e = err("::0", &[5]);
        assert!(e.contains("slice step cannot be zero"), "{e}");
        assert!(e.contains("steps are not supported"), "{e}");
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
