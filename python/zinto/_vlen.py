"""Variable-length strings and bytes as NumPy arrays: what `read_vlen` gives (one offset per
element plus one, and the elements' bytes end to end) turned into elements."""

import numpy as np


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


def flatten(value, shape, text):
    """`value` broadcast to `shape` as `write_vlen` takes it: the offsets (`uint64`, one more
    than the elements) and the elements' bytes end to end (`uint8`), C order. Strings are
    encoded as UTF-8 (other values as NumPy's string assignment makes them, `str(x)`; bytes are
    refused); a bytes array takes bytes-like elements only."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "OTUS":
        a = value
    else:
        a = np.asarray(value, dtype=object)
    shape = tuple(shape)
    if a.ndim and a.size == int(np.prod(shape, dtype=np.int64)):
        a = a.reshape(shape)  # the selection's shape, its dropped (length 1) axes aside
    items = np.broadcast_to(a, shape).reshape(-1).tolist()
    parts = [_encoded(x, text) for x in items]
    lengths = np.fromiter(map(len, parts), dtype=np.uint64, count=len(parts))
    offsets = np.zeros(len(parts) + 1, dtype=np.uint64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets, np.frombuffer(b"".join(parts), dtype=np.uint8)


def _encoded(x, text):
    if isinstance(x, (bytes, bytearray, memoryview)):
        if text:
            raise TypeError(f"a string array takes str, not {type(x).__name__}")
        return bytes(x)
    if text:
        return (x if isinstance(x, str) else str(x)).encode("utf-8")
    raise TypeError(f"a bytes array takes bytes, not {type(x).__name__}")
