"""A batch as zarr-python hands it over, taken apart once: one `Chunk` record per entry of
`batch_info`, and the geometry zinto reads from them (the one rectangle a batch tiles, the
box a chunk selection touches)."""

from typing import NamedTuple

import numpy as np

from .counts import KEY_NOT_PARSED, SELECTION_KIND


class Chunk(NamedTuple):
    """One entry of zarr-python's `batch_info`, its key parsed."""

    getter: object  # zarr-python's ByteGetter / ByteSetter (a StorePath)
    spec: object  # the chunk's ArraySpec
    chunk_sel: tuple  # what of the chunk the call reads or writes
    out_sel: tuple  # where that is in the output (or the value)
    complete: bool  # whether zarr-python says the selection covers the chunk
    array_path: object  # the array's path in the store, or None if the key did not parse
    coords: object  # the chunk's grid coordinates, or None

    @property
    def key(self):
        """The chunk's key below the array's path."""
        return self.getter.path[len(self.array_path):].lstrip("/")


def chunks_of(batch, meta):
    """The `Chunk` records of `batch` (zarr-python's tuples), keys parsed by `meta`."""
    records = []
    for getter, spec, chunk_sel, out_sel, complete in batch:
        split = meta.split_key(getter.path)
        array_path, coords = split if split is not None else (None, None)
        records.append(Chunk(getter, spec, chunk_sel, out_sel, complete, array_path, coords))
    return records


def array_path(chunks):
    """The path of the one array every chunk is of, or None."""
    paths = {c.array_path for c in chunks}
    return paths.pop() if len(paths) == 1 and None not in paths else None


def region(chunks, meta, out_shape, drop_axes):
    """`(start, extent)`: the array region the whole batch reads into an output of
    `out_shape` (or writes from a value of it), or None if the batch's pieces do not tile one
    hyper-rectangle of one array."""
    if array_path(chunks) is None:
        return None
    start, covered, dropped = None, 0, None  # dropped: the dimensions an integer selects
    for chunk in chunks:
        if not isinstance(chunk.chunk_sel, tuple) or len(chunk.chunk_sel) != meta.ndim:
            return None
        if not isinstance(chunk.out_sel, tuple):
            return None
        ints = tuple(d for d, sel in enumerate(chunk.chunk_sel)
                     if isinstance(sel, (int, np.integer)))
        if dropped not in (None, ints) or any(d not in ints for d in drop_axes):
            return None
        dropped = ints
        placed = _placed(chunk, meta, out_shape, ints)
        if placed is None:
            return None
        here, volume = placed
        if start is None:
            start = here
        elif here != start:
            return None
        covered += volume
    if start is None or covered != int(np.prod(out_shape, dtype=np.int64)):
        return None
    if len(out_shape) != meta.ndim - len(dropped):
        return None
    kept = iter(out_shape)
    return start, [1 if d in dropped else next(kept) for d in range(meta.ndim)]


def _placed(chunk, meta, out_shape, ints):
    """`(start, volume)` of one chunk's piece: where the region starts if this piece is in it
    (the same for every piece of a rectangle), and how many elements it holds; None if the
    piece is not a plain box laid in order."""
    here, volume, o = [], 1, 0
    for d, sel in enumerate(chunk.chunk_sel):
        origin = meta.origin(chunk.coords, d)
        if d in ints:
            here.append(origin + int(sel))
            continue
        if o >= len(chunk.out_sel):
            return None
        osel = chunk.out_sel[o]
        o += 1
        if not (isinstance(sel, slice) and isinstance(osel, slice)):
            return None
        if sel.step not in (None, 1) or osel.step not in (None, 1):
            return None
        n = sel.stop - sel.start
        if osel.stop - osel.start != n:
            return None
        # The piece lies inside the value: a value of another shape with as many elements
        # (3 x 2 into 2 x 3) is not laid over the region; the default pipeline refuses it as
        # NumPy does.
        if o > len(out_shape) or osel.stop > out_shape[o - 1]:
            return None
        here.append(origin + sel.start - osel.start)
        volume *= n
    if o != len(chunk.out_sel):
        return None
    return here, volume


def pieces(chunks, meta):
    """For a selection that is not one rectangle: the chunks (all of one array, each with a
    selection zinto takes), or why zinto does not read or write it piece by piece."""
    if array_path(chunks) is None:
        return KEY_NOT_PARSED
    for chunk in chunks:
        if not isinstance(chunk.chunk_sel, tuple) or len(chunk.chunk_sel) != meta.ndim:
            return SELECTION_KIND
    return chunks


def selection_shape(chunks):
    """The shape of the selection a scalar is written to: the end of every output slice,
    per output dimension (the region check then confirms the pieces tile it)."""
    ends = None
    for chunk in chunks:
        out_sel = chunk.out_sel
        if not isinstance(out_sel, tuple) or not all(isinstance(o, slice) for o in out_sel):
            return None
        here = [o.stop for o in out_sel]
        ends = here if ends is None else [max(a, b) for a, b in zip(ends, here)]
    return None if ends is None else tuple(ends)


class Unhandled(Exception):
    """A chunk selection of a kind `box` does not take."""


def box(sel, extent):
    """One dimension of a chunk selection (within a chunk of `extent`): `(lo, hi, rel)`, the
    bounds of what it touches and the selection relative to `lo`, or None if it selects
    nothing. Ints, slices with positive steps, integer arrays (any shape, as `np.ix_` gives
    them) and 1-D boolean masks; anything else raises `Unhandled`."""
    if isinstance(sel, (int, np.integer)):
        return int(sel), int(sel) + 1, 0
    if isinstance(sel, slice):
        start, stop, step = sel.indices(extent)
        n = len(range(start, stop, step)) if step > 0 else -1
        if n < 0:
            raise Unhandled
        return None if n == 0 else (start, start + (n - 1) * step + 1, slice(0, None, step))
    if isinstance(sel, np.ndarray) and sel.dtype.kind in "iu":
        if not sel.size:
            return None
        lo = int(sel.min())
        return lo, int(sel.max()) + 1, sel - lo
    if isinstance(sel, np.ndarray) and sel.dtype == bool and sel.ndim == 1:
        where = np.flatnonzero(sel)
        if not where.size:
            return None
        lo, hi = int(where[0]), int(where[-1]) + 1
        return lo, hi, sel[lo:hi]
    raise Unhandled


def boxes(chunk, chunk_shape):
    """`box` of each dimension of `chunk`'s selection (raises `Unhandled`)."""
    return [box(sel, n) for sel, n in zip(chunk.chunk_sel, chunk_shape)]


def short_of(chunk_sel, chunk_shape):
    """Whether a selection zarr-python calls complete spans less than the whole chunk: the
    array's edge (its shape now, which the pipeline's metadata may not know) cuts the chunk."""
    try:
        spans = [box(sel, n) for sel, n in zip(chunk_sel, chunk_shape)]
    except Unhandled:
        return False
    return any(b is None or b[1] - b[0] < n for b, n in zip(spans, chunk_shape))


def _positions(sel, n):
    """One dimension of a chunk or output selection as the positions it names, in order: an
    int array of them, or None for what is not a slice or an array of ints (`n`: the
    extent the slice is taken of)."""
    if isinstance(sel, slice):
        return np.arange(*sel.indices(n), dtype=np.int64)
    if isinstance(sel, np.ndarray) and sel.dtype.kind in "iu":
        # np.ix_-shaped (n, 1), (1, m) arrays, as zarr-python's orthogonal indexer makes them.
        if sel.ndim > 1 and sum(s != 1 for s in sel.shape) > 1:
            return None
        return sel.reshape(-1).astype(np.int64, copy=False)
    if isinstance(sel, np.ndarray) and sel.dtype == bool and sel.ndim == 1:
        return np.flatnonzero(sel).astype(np.int64)
    return None


def selection(chunks, meta, out_shape, drop_axes=()):
    """The one selection a batch that is not a rectangle reads, put together again from its
    pieces: the groups `RsArray.read_selection_into` takes (each output position's array
    coordinate along each axis, or the points, in output order), or None if the pieces do
    not make one (a position named twice with two values, or not at all: a partial batch)."""
    if array_path(chunks) is None:
        return None
    groups = _orthogonal(chunks, meta, out_shape, drop_axes)
    if groups is None and len(out_shape) == 1 and meta.ndim > 1:
        # Coordinates (every axis an index array) into a flat output.
        groups = _points(chunks, meta, out_shape[0])
    return groups


def _orthogonal(chunks, meta, out_shape, drop_axes):
    """Per axis, the coordinate of each output position (or the one index of a dropped
    axis: an int, or one of `drop_axes`, which zarr-python's orthogonal indexer gives as an
    array of one); every chunk's pieces must agree, and cover every position."""
    pieces = [_AxisPieces(n) for n in out_shape]
    dropped = {}
    for chunk in chunks:
        sels, outs = chunk.chunk_sel, chunk.out_sel
        if not isinstance(sels, tuple) or len(sels) != meta.ndim or not isinstance(outs, tuple):
            return None
        o = 0
        for d, sel in enumerate(sels):
            origin = meta.origin(chunk.coords, d)
            if d in drop_axes and isinstance(sel, np.ndarray) and sel.size == 1:
                sel = int(sel.reshape(-1)[0])
            if isinstance(sel, (int, np.integer)):
                if dropped.setdefault(d, origin + int(sel)) != origin + int(sel):
                    return None
                continue
            if o >= len(outs) or o >= len(out_shape):
                return None
            if not pieces[o].add(sel, meta.chunk_shape_at(chunk.coords)[d], origin, outs[o]):
                return None
            o += 1
        if o != len(outs):
            return None
    lists = [p.coordinates() for p in pieces]
    if any(a is None for a in lists) or len(lists) + len(dropped) != meta.ndim:
        return None
    groups, kept = [], iter(lists)
    for d in range(meta.ndim):
        groups.append(("index", d, dropped[d]) if d in dropped else ("list", d, next(kept)))
    return groups


class _AxisPieces:
    """One output axis of an orthogonal batch: every chunk's piece of it (the positions it
    selects in its chunk, where the chunk starts, the output positions they fill), laid into
    one list of array coordinates at the end (one scatter, not one per chunk: a loader's
    batch has a piece in hundreds of chunks). A piece given again (a slice every chunk of a
    row repeats) is kept once."""

    def __init__(self, n):
        self.n, self.at, self.coords, self.seen = n, [], [], set()

    def add(self, sel, extent, origin, out):
        """Whether the piece is one this axis can take (positions of equal count, inside)."""
        if isinstance(sel, slice) and isinstance(out, slice):
            key = (sel.indices(extent), origin, out.indices(self.n))
            if key in self.seen:
                return True
            self.seen.add(key)
        here, at = _positions(sel, extent), _positions(out, self.n)
        if here is None or at is None or len(here) != len(at):
            return False
        self.at.append(at)
        self.coords.append(here + origin)
        return True

    def coordinates(self):
        """The coordinate of every output position, or None if a position is named by no
        piece, or by two with different coordinates, or lies outside."""
        if not self.at:
            return None if self.n else np.empty(0, dtype=np.int64)
        at, new = np.concatenate(self.at), np.concatenate(self.coords)
        if len(at) and (at.min() < 0 or at.max() >= self.n):
            return None
        lists = np.full(self.n, -1, dtype=np.int64)
        lists[at] = new
        # Where two pieces name one position, the last one laid must agree with each.
        if not np.array_equal(lists[at], new) or np.any(lists < 0):
            return None
        return lists


def _points(chunks, meta, n):
    """A coordinate selection (zarr-python's `vindex` and masks): point `i` of the output
    at the coordinates its chunk's piece gives it."""
    coords = [np.full(n, -1, dtype=np.int64) for _ in range(meta.ndim)]
    for chunk in chunks:
        sels, outs = chunk.chunk_sel, chunk.out_sel
        if not isinstance(sels, tuple) or len(sels) != meta.ndim:
            return None
        out_sel = outs[0] if isinstance(outs, tuple) and len(outs) == 1 else outs
        at = _positions(out_sel, n)
        if at is None or (len(at) and (at.min() < 0 or at.max() >= n)):
            return None
        for d, sel in enumerate(sels):
            if not (isinstance(sel, np.ndarray) and sel.dtype.kind in "iu" and sel.ndim == 1
                    and len(sel) == len(at)):
                return None
            new = sel.astype(np.int64) + meta.origin(chunk.coords, d)
            held = coords[d][at]
            if np.any((held != -1) & (held != new)):
                return None
            coords[d][at] = new
    if any(np.any(c < 0) for c in coords):
        return None
    return [("points", list(range(meta.ndim)), coords)]
