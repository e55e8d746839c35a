"""Variable-length strings and bytes as NumPy arrays: what `read_vlen` gives (one offset per
element plus one, and the elements' bytes end to end) turned into elements."""

import numpy as np

from . import _slabs


def string_dtype():
    """NumPy's variable-width string dtype (NumPy 2), else object."""
    try:
        return np.dtypes.StringDType()
    except AttributeError:
        return np.dtype(object)


def elements(offsets, values, text):
    """The elements: `str` decoded from UTF-8 if `text`, else `bytes`."""
    bounds = zip(offsets[:-1].tolist(), offsets[1:].tolist())
    if text:
        return [values[a:b].decode("utf-8") for a, b in bounds]
    return [values[a:b] for a, b in bounds]


def fill(out, offsets, values, text):
    """Writes the elements into `out` (any shape holding as many), in C order."""
    items = elements(offsets, values, text)
    flat = np.empty(len(items), dtype=out.dtype)
    flat[:] = items
    out[...] = flat.reshape(out.shape)


def shaped(value, shape, text=True):
    """`value` as an array of `shape`: reshaped if it is the shape but for length-1 axes (a
    selection's dropped axes), else broadcast (a scalar, or NumPy's broadcasting, which raises
    for a value that does not fit)."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "OTUS":
        a = value
    else:
        a = np.asarray(value, dtype=object)
    shape = tuple(shape)
    if [n for n in a.shape if n != 1] == [n for n in shape if n != 1]:
        return a.reshape(shape)
    return np.broadcast_to(a, shape)


def flatten(value, shape, text):
    """`value` broadcast to `shape` as `write_vlen` takes it: the offsets (`uint64`, one more
    than the elements) and the elements' bytes end to end (`uint8`), C order. Strings are
    encoded as UTF-8 (other values as NumPy's string assignment makes them, `str(x)`; bytes are
    refused); a bytes array takes bytes-like elements only. The elements are read one at a time
    (`_zinto.vlen_parts`): no Python object per element is kept."""
    from . import _zinto

    return _zinto.vlen_parts(shaped(value, shape).flat, text)


# A value written over a region is encoded a slab at a time: whole chunks (zinto._slabs), about
# this many elements a slab, at least one chunk's extent of the axis cut.
SLAB_ELEMENTS = 1 << 20


def write(write_vlen, start, extent, value, chunk_shape, text, starts=None):
    """`write_vlen(start, extent, offsets, values)` of `value` over the region, in slabs of
    whole chunks of `chunk_shape` (`zinto._slabs`; on a rectilinear grid `starts` gives each
    dimension's chunk starts and the slabs end on them): the offsets and values of one slab at
    a time, never of the whole region (a slab's chunks are written whole, so none is
    rewritten).

    Reading a slab's elements needs the GIL; writing it does not. So while one slab is
    written here, the next is read on a thread: at most two slabs' parts are held at once.
    The writes stay on the calling thread, where Ctrl-C reaches them (`write_vlen` stops
    between chunks); a failed write raises, and no slab after it is written."""
    if not extent:
        write_vlen(start, extent, *flatten(value, extent, text))
        return
    slabs = _slab_parts(start, extent, shaped(value, extent), (chunk_shape, starts))
    current = next(slabs, None)
    if current is None:
        return
    parts = flatten(current[2], current[1], text)
    following = next(slabs, None)
    if following is None:
        write_vlen(current[0], current[1], *parts)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1, thread_name_prefix="zinto-vlen-read") as reader:
        while following is not None:
            reading = reader.submit(flatten, following[2], following[1], text)
            write_vlen(current[0], current[1], *parts)
            current, parts = following, reading.result()
            following = next(slabs, None)
        write_vlen(current[0], current[1], *parts)


def _slab_parts(start, extent, a, grid):
    """The region's slabs of whole chunks (`zinto._slabs`) of `grid` (`(chunk_shape,
    starts)`), each about `SLAB_ELEMENTS` elements (or one chunk's extent of the axis cut):
    `(start, extent, part of a)`."""
    chunk_shape, starts = grid
    for at, size, index in _slabs.slabs(start, extent, chunk_shape, 1, SLAB_ELEMENTS, starts):
        yield at, size, a[index]
