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
