"""Indexing beyond NumPy's basic indexing, as zinto's selection groups (issue 62).

`plan(key, shape, mode)` reads a key as NumPy (``mode="numpy"``), zarr-python's `oindex`
(``"oindex"``: every axis on its own) or its `vindex` (``"vindex"``: points) reads it, and
gives the groups `RsArray.read_selection_into` takes, in the output's order, and the shape of
the result; None for a key NumPy's basic indexing reads (ints and step-1 slices), which the
region path reads.

Groups: ``("range", dim, start, stop)``, ``("index", dim, i)``, ``("list", dim, int64 array)``
(any order, repeats, negative from the end), ``("points", dims, [int64 array, ...])``.
"""

import numbers
import operator

import numpy as np

from ._errors import SelectionError


def _is_int(k):
    if isinstance(k, (bool, np.bool_)):
        return False
    if isinstance(k, numbers.Integral):
        return True
    return isinstance(k, np.ndarray) and k.ndim == 0 and k.dtype.kind in "iu"


def _as_index_array(k, dim):
    """`k` (a list, tuple or array) as an int64 or bool array, or SelectionError."""
    a = np.asarray(k)
    if a.size == 0 and a.dtype.kind not in "biu":
        a = a.astype(np.int64)  # `[]` is an empty list of indices, as for NumPy
    if a.dtype.kind == "b":
        return a
    if a.dtype.kind not in "iu":
        raise SelectionError(
            f"index in axis {dim}: arrays used as indices must be of integer (or boolean) "
            f"type, not {a.dtype}")
    return a


def _checked(a, dim, n):
    """The int array `a` of indices into an axis of `n`, as int64, each in bounds (negative
    ones count from the end), as NumPy checks them."""
    if a.size:
        lo, hi = int(a.min()), int(a.max())
        bad = hi if hi >= n else lo if lo < -n else None
        if bad is not None:
            raise SelectionError(f"index {bad} is out of bounds for axis {dim} with size {n}")
    return a.astype(np.int64, copy=False)


def _expand(key, shape):
    """`key` as a list of `(first dim, item)`, ellipsis expanded; a boolean array takes as
    many dims as it has."""
    if not isinstance(key, tuple):
        key = (key,)
    if sum(k is Ellipsis for k in key) > 1:
        raise SelectionError("an index can only have a single ellipsis ('...')")

    def width(k):
        if isinstance(k, (np.ndarray, list)) and np.asarray(k).dtype == bool:
            return max(np.asarray(k).ndim, 1)
        return 1

    named = sum(width(k) for k in key if k is not Ellipsis)
    if named > len(shape):
        raise SelectionError(
            f"too many indices: the array is {len(shape)}-dimensional, but {named} were indexed")
    items, dim = [], 0
    for k in key:
        if k is Ellipsis:
            for _ in range(len(shape) - named):
                items.append((dim, slice(None)))
                dim += 1
        else:
            items.append((dim, k))
            dim += width(k)
    while dim < len(shape):
        items.append((dim, slice(None)))
        dim += 1
    return items


def _slice(k, dim, n):
    """A slice as a range group (step 1) or a list (any other step)."""
    start, stop, step = k.indices(n)
    if step == 1:
        return ("range", dim, start, max(start, stop))
    return ("list", dim, np.arange(start, stop, step, dtype=np.int64))


def _int(k, dim, n):
    i = operator.index(k)
    if not -n <= i < n:
        raise SelectionError(f"index {i} is out of bounds for axis {dim} with size {n}")
    return ("index", dim, i % n)


def _length(group):
    kind = group[0]
    if kind == "range":
        return group[3] - group[2]
    if kind == "list":
        return len(group[2])
    return None


def plan(key, shape, mode="numpy"):
    """The groups and result shape of `key` over an array of `shape` (see the module)."""
    if mode == "oindex":
        return _orthogonal(key, shape)
    if mode == "vindex":
        return _points(key, shape)
    items = _expand(key, shape)
    basic, advanced = [], []  # basic: groups; advanced: (dim, int64 array or int)
    for dim, k in items:
        n = shape[dim] if dim < len(shape) else 0
        if k is None:
            raise SelectionError("np.newaxis is not supported: reshape the result instead")
        if isinstance(k, slice):
            basic.append(_slice(k, dim, n))
        elif _is_int(k):
            advanced.append((dim, _int(k, dim, n)[2]))
        elif isinstance(k, (list, tuple, np.ndarray)):
            a = _as_index_array(k, dim)
            if a.dtype == bool:
                advanced.extend(_mask(a, dim, shape))
            else:
                advanced.append((dim, _checked(a, dim, n)))
        else:
            raise SelectionError(
                f"{type(k).__name__} index in axis {dim}: only ints, slices, ..., and arrays "
                "or lists of ints or booleans")
    arrays = [(d, a) for d, a in advanced if isinstance(a, np.ndarray)]
    if not arrays and all(g[0] == "range" for g in basic):
        return None  # basic indexing: the region path
    return _numpy_groups(basic, advanced, arrays, shape)


def _mask(a, dim, shape):
    """A boolean array over the dims from `dim`: the int arrays of its true places."""
    a = a.reshape(1) if a.ndim == 0 else a
    for j, m in enumerate(a.shape):
        n = shape[dim + j]
        if m != n:
            raise SelectionError(
                f"boolean index did not match indexed array along axis {dim + j}; size of "
                f"axis is {n} but size of corresponding boolean axis is {m}")
    return [(dim + j, idx.astype(np.int64)) for j, idx in enumerate(np.nonzero(a))]


def _numpy_groups(basic, advanced, arrays, shape):
    """NumPy's rule for advanced indices: broadcast together, their axes where the first
    advanced index was if they are next to each other, else first."""
    ints = [(d, a) for d, a in advanced if not isinstance(a, np.ndarray)]
    groups_ints = [("index", d, i) for d, i in ints]
    if not arrays:
        # Steps only (basic indexing): lists in place, ints dropped.
        groups = sorted(basic + groups_ints, key=lambda g: g[1])
        return groups, tuple(n for n in map(_length, groups) if n is not None)
    try:
        b = np.broadcast_shapes(*(a.shape for _, a in arrays))
    except ValueError as e:
        raise SelectionError(
            "shape mismatch: indexing arrays could not be broadcast together with shapes "
            + " ".join(str(a.shape) for _, a in arrays)) from e
    if len(arrays) == 1:
        d, a = arrays[0]
        fancy = ("list", d, np.ascontiguousarray(a.reshape(-1)))
    else:
        dims = [d for d, _ in arrays]
        flat = [np.ascontiguousarray(np.broadcast_to(a, b).reshape(-1)) for _, a in arrays]
        fancy = ("points", dims, flat)
    places = sorted(d for d, _ in advanced)
    adjacent = places == list(range(places[0], places[0] + len(places)))
    basic = sorted(basic, key=lambda g: g[1])
    at = sum(1 for g in basic if g[1] < places[0]) if adjacent else 0
    groups = basic[:at] + [fancy] + basic[at:] + groups_ints
    out = [_length(g) for g in basic[:at]] + list(b) + [_length(g) for g in basic[at:]]
    return groups, tuple(out)


def _orthogonal(key, shape):
    """zarr-python's `oindex`: every axis on its own (ints drop theirs)."""
    items = _expand(key, shape)
    groups = []
    for dim, k in items:
        n = shape[dim]
        if isinstance(k, slice):
            groups.append(_slice(k, dim, n))
        elif _is_int(k):
            groups.append(_int(k, dim, n))
        elif isinstance(k, (list, tuple, np.ndarray)):
            a = _as_index_array(k, dim)
            if a.ndim != 1:
                raise SelectionError(
                    f"orthogonal index in axis {dim}: a 1-dimensional array, not {a.ndim}-d")
            if a.dtype == bool:
                if len(a) != n:
                    raise SelectionError(
                        f"boolean index of length {len(a)} for axis {dim} with size {n}")
                a = np.flatnonzero(a).astype(np.int64)
            groups.append(("list", dim, _checked(a, dim, n)))
        else:
            raise SelectionError(
                f"{type(k).__name__} index in axis {dim}: oindex takes ints, slices, and "
                "arrays or lists of ints or booleans")
    return groups, tuple(n for n in map(_length, groups) if n is not None)


def _points(key, shape):
    """zarr-python's `vindex`: an int array (or int) per axis, broadcast together, or one
    boolean array of the array's shape: the points, in order."""
    if not isinstance(key, tuple):
        key = (key,)
    if len(key) == 1 and isinstance(key[0], (np.ndarray, list)) \
            and np.asarray(key[0]).dtype == bool:
        mask = np.asarray(key[0])
        if mask.shape != tuple(shape):
            raise SelectionError(
                f"a boolean mask of shape {mask.shape} for an array of shape {tuple(shape)}")
        lists = [idx.astype(np.int64) for idx in np.nonzero(mask)]
        return [("points", list(range(len(shape))), lists)], (len(lists[0]) if lists else 0,)
    if len(key) != len(shape) or any(
            isinstance(k, slice) or k is Ellipsis or k is None for k in key):
        raise SelectionError(
            "vindex takes an integer array (or integer) for every axis, or one boolean mask "
            "of the array's shape: slices are not coordinates")
    arrays = [np.asarray(k) if _is_int(k) else _as_index_array(k, d) for d, k in enumerate(key)]
    if any(a.dtype == bool for a in arrays):
        raise SelectionError("vindex takes one boolean mask of the whole array, alone")
    arrays = [_checked(a, d, n) for d, (a, n) in enumerate(zip(arrays, shape))]
    try:
        b = np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError as e:
        raise SelectionError(
            "shape mismatch: indexing arrays could not be broadcast together with shapes "
            + " ".join(str(a.shape) for a in arrays)) from e
    flat = [np.ascontiguousarray(np.broadcast_to(a.astype(np.int64), b).reshape(-1))
            for a in arrays]
    return [("points", list(range(len(shape))), flat)], tuple(b)
