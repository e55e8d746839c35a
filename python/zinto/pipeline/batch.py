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
