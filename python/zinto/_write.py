"""Creating arrays and writing into them: `zinto.create`, `zinto.save` and `Array.write`.

A write hands the caller's NumPy array to Rust workers as it is (when it is C-contiguous and
of the array's type; otherwise it is converted once, as NumPy's assignment would), and each
chunk it covers is encoded straight from it into the store: written whole under a temporary
name and renamed, so Ctrl-C (honoured between chunks) never leaves a torn chunk.
"""

import base64
import json
import math
import numbers
import operator
import os
import sys

import numpy as np

from . import _zinto

# `zinto.save` without `chunks=`: chunks of at most this many bytes, split along the first
# dimensions (the last ones kept whole as long as they fit).
AUTO_CHUNK_BYTES = 16 << 20

DEFAULT_CODECS = ("zstd",)


class UnserialisedWriteWarning(UserWarning):
    """Writes to this store are not held off from each other's (docs/reliability.md)."""


_WARNED_UNSERIALISED = False


def warn_unserialised(rs):
    """Says once per process, at the first write that cuts a chunk on a store whose writers
    of one chunk are not guarded from each other (plain HTTP; S3 with conditional writes
    turned off), that writers of different parts of one chunk at once may lose each other's
    parts there."""
    global _WARNED_UNSERIALISED
    if _WARNED_UNSERIALISED or rs.serialises_updates:
        return
    _WARNED_UNSERIALISED = True
    import warnings
    warnings.warn(
        "zinto: on this store, writers of different parts of one chunk (or shard) at once "
        "are not held off from each other and may lose each other's parts; write whole "
        "chunks from each writer, or one writer per chunk (docs/reliability.md)",
        UnserialisedWriteWarning, stacklevel=3)


def cuts_chunks(start, extent, chunks, shape):
    """Whether the region `start`/`extent` of an array of `shape` in `chunks` (a tuple of ints;
    anything else, a rectilinear grid, counts as cut) holds some chunk in part only."""
    if not isinstance(chunks, tuple) or not all(isinstance(c, int) for c in chunks):
        return True
    return any(s % c or (s + e) % c and s + e != n
               for s, e, c, n in zip(start, extent, chunks, shape))


def _dims(value, what):
    """An int or a sequence of ints as a list of ints."""
    if isinstance(value, numbers.Integral):
        return [int(value)]
    try:
        return [operator.index(v) for v in value]
    except TypeError as e:
        raise TypeError(f"{what}: an int or a sequence of ints, not {value!r}") from e


def _fill_json(fill_value, dtype):
    """The fill value as the metadata states it (JSON text), or None for the type's zero."""
    if fill_value is None:
        return None

    def one(x):
        x = float(x)
        if math.isnan(x):
            return "NaN"
        if math.isinf(x):
            return "Infinity" if x > 0 else "-Infinity"
        return x

    if dtype.kind in "mM":  # a count of the unit (NaT the least i64), as zarr-python writes it
        return json.dumps(int(np.asarray(fill_value, dtype=dtype).astype(np.int64)))
    value = np.asarray(fill_value, dtype=dtype).item()
    if dtype.kind == "S":  # as zarr-python states fixed-length bytes: base64
        return json.dumps(base64.b64encode(value).decode("ascii"))
    if dtype.kind == "c":
        return json.dumps([one(value.real), one(value.imag)])
    if dtype.kind == "f":
        return json.dumps(one(value))
    return json.dumps(value)


def _vlen_kind(dtype):
    """"string" for variable-length strings (`str`, ``"string"``, NumPy's StringDType),
    "bytes" for variable-length bytes (`bytes`, ``"bytes"``), else None."""
    if dtype is str or (isinstance(dtype, str) and dtype in ("string", "str")):
        return "string"
    if dtype is bytes or (isinstance(dtype, str) and dtype in ("bytes", "variable_length_bytes")):
        return "bytes"
    if isinstance(dtype, np.dtype) and dtype.kind == "T":
        return "string"
    if isinstance(dtype, type) and dtype.__name__ == "StringDType":
        return "string"
    return None


def _vlen_fill_json(fill_value, kind):
    """A string's or bytes' fill value as the metadata states it (bytes as base64)."""
    if fill_value is None:
        return None
    if kind == "string":
        if not isinstance(fill_value, str):
            raise TypeError(f"fill_value of a string array: a str, not {type(fill_value).__name__}")
        return json.dumps(fill_value)
    if not isinstance(fill_value, (bytes, bytearray)):
        raise TypeError(f"fill_value of a bytes array: bytes, not {type(fill_value).__name__}")
    return json.dumps(base64.b64encode(bytes(fill_value)).decode("ascii"))


def _dtype_name(dtype):
    """The type's name as `_zinto.create` takes it: NumPy's (``"float32"``), or for
    fixed-length strings and bytes the kind and length (``"U5"``: 5 characters, ``"S4"``)."""
    if dtype.kind == "U":
        return f"U{dtype.itemsize // 4}"
    if dtype.kind == "S":
        return f"S{dtype.itemsize}"
    return dtype.name


def _big_endian(dtype):
    order = dtype.byteorder
    return order == ">" or (order == "=" and sys.byteorder == "big")


def create(path, shape, dtype, chunks, *, shards=None, codecs=DEFAULT_CODECS, fill_value=None,
           zarr_format=3, attributes=None, dimension_names=None, order="C", overwrite=False,
           anonymous=False, follow_symlinks=True):
    """Creates an array at `path` (a directory, or an ``s3://``, ``gs://``, ``az://`` URL) and
    returns it, open for reading and writing (`Array.write`, ``arr[...] = value``).

    - `dtype`: a NumPy number or bool type, or a date or duration with its unit
      (``"datetime64[s]"``, ``"timedelta64[10ms]"``); a big-endian one (``">f4"``) is stored
      big-endian. Or fixed-length strings (``"U5"``, UTF-32) or bytes (``"S4"``), as NumPy
      holds them; or variable-length strings (`str`, ``"string"``, NumPy's StringDType) or
      bytes (`bytes`, ``"bytes"``), written from `str` and `bytes` elements.
    - `chunks`: the chunk shape; or a rectilinear grid (v3) as zarr-python 3.4 spells it, per
      dimension a list of its chunk sizes or one size (``[[10, 20, 30, 40], 25]``); `shards`:
      store the chunks in shards of this shape (v3), each dimension a multiple of the chunk's,
      or shards on a rectilinear grid spelt as for `chunks` (``shards=[[40, 60], 60]`` with
      regular ``chunks=(20, 20)``, each edge a multiple of the chunk's), as zarr-python 3.4.
    - `codecs`: the chain, as ``zinto create --codec`` takes it: ``"raw"``, ``"zstd[:LEVEL]"``
      (level 3 by default), ``"gzip[:LEVEL]"``, ``"zlib[:LEVEL]"`` (v2), ``"crc32c"`` (v3); a
      string or a sequence, at most one compressor. Default: zstd at level 3.
    - `fill_value`: what unwritten elements read as (default 0, ``False``, NaT for dates and
      durations, as zarr-python's defaults); chunks all of it are not stored.
    - `zarr_format`: 3 (``zarr.json``) or 2 (``.zarray``, ``.zattrs``); `order`: each chunk's
      memory order, ``"C"`` or ``"F"``.
    - `attributes`: a dict stored with the array; `dimension_names`: one name (or None) per
      dimension (v2: xarray's ``_ARRAY_DIMENSIONS``).
    - `overwrite`: create even where something is already (by default anything at `path` is
      refused with `zinto.ExistsError`, a `MetadataError` and a `FileExistsError`, naming it): the array or group there is replaced, and of
      everything else only what zarr would read as the new array's is removed (its metadata
      and chunk keys); the user's other files stay.
    - `follow_symlinks`: in a directory, writes never follow a symbolic link out of it (a
      ``StoreError`` naming the link); ``False`` refuses every link inside it, as for
      `zinto.open`. Refused (ValueError) for a URL.
    """
    from . import Array

    vlen = _vlen_kind(dtype)
    dtype = np.dtype(object) if vlen else np.dtype(dtype)
    shape = _dims(shape, "shape")
    chunks, edges = _chunk_grid(chunks)
    if shards is not None:
        if edges is not None:
            raise ValueError(
                f"chunks={chunks!r}: with shards the inner chunks are regular; give the "
                "rectilinear grid as shards (shards=[[40, 60], 60])")
        shards, edges = _chunk_grid(shards)
    spec = {
        "shape": shape,
        "dtype": vlen or _dtype_name(dtype),
        "big_endian": False if vlen else _big_endian(dtype),
        "chunks": chunks,
        "chunk_edges": edges,
        "shards": shards,
        "codecs": [codecs] if isinstance(codecs, str) else list(codecs or ()),
        "fill_value": _vlen_fill_json(fill_value, vlen) if vlen else _fill_json(fill_value, dtype),
        "zarr_format": int(zarr_format),
        "attributes": None if attributes is None else json.dumps(attributes),
        "dimension_names": None if dimension_names is None else list(dimension_names),
        "order": order,
        "overwrite": bool(overwrite),
    }
    if not (isinstance(path, str) and "://" in path):
        path = os.fspath(path)
    return Array(_zinto.create(path, spec, anonymous, follow_symlinks))


def _chunk_grid(chunks):
    """`(chunk shape, edges)` of `create`'s `chunks`: a regular shape and None, or for a
    rectilinear grid (a list per dimension, or one size) the longest edges and the edges."""
    if isinstance(chunks, numbers.Integral) or not any(
            isinstance(c, (list, tuple)) for c in chunks):
        return _dims(chunks, "chunks"), None
    edges = [None if isinstance(c, numbers.Integral) else _dims(c, "chunk sizes")
             for c in chunks]
    longest = [operator.index(c) if e is None else max(e, default=0)
               for c, e in zip(chunks, edges)]
    return longest, edges


def auto_chunks(shape, itemsize, target=AUTO_CHUNK_BYTES):
    """A chunk shape for `zinto.save`: the last dimensions whole while a chunk stays within
    `target` bytes, the first ones split (each chunk at least one element per dimension)."""
    chunks = [max(1, n) for n in shape]
    budget = max(1, target // max(1, itemsize))
    for d in range(len(chunks)):
        rest = math.prod(chunks[d + 1:])
        chunks[d] = max(1, min(chunks[d], budget // rest))
    return chunks


def save(path, value, *, chunks=None, threads=None, **create_args):
    """Writes the NumPy array `value` to a new array at `path` and returns it: `create` with
    `value`'s shape and type (its other arguments pass through), then one `write` of it all.
    Without `chunks`, chunks of at most 16 MiB are split along the first dimensions."""
    value = np.asarray(value)
    if chunks is None:
        chunks = auto_chunks(value.shape, value.dtype.itemsize)
    array = create(path, value.shape, value.dtype, chunks, **create_args)
    array.write(Ellipsis, value, threads=threads)
    return array


def prepare(value, dtype, shape):
    """`value` as a C-contiguous array of `dtype` and `shape` (the selection's, dropped
    dimensions left out): itself if it already is one, else converted once."""
    value = np.asarray(value)
    if value.dtype != dtype:
        value = value.astype(dtype)  # as NumPy's assignment casts
    if value.shape != shape:
        try:
            value = np.broadcast_to(value, shape)
        except ValueError as e:
            raise ValueError(
                f"could not broadcast a value of shape {value.shape} into the selection's "
                f"shape {shape}") from e
    return np.ascontiguousarray(value)
