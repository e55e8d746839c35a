"""zinto: read Zarr arrays (v3 and v2) straight into NumPy arrays you own, and write them
straight from yours.

    >>> import zinto
    >>> arr = zinto.open("examples/data/temperature.zarr")
    >>> part = arr[10:200, 5:90]              # allocated once, filled in place
    >>> arr.read((slice(0, 10), 3), out=buf)  # or into your own buffer
    >>> new = zinto.save("/tmp/copy.zarr", part, codecs="zstd:3")
    >>> new[0:5] = 0.0                        # partial writes read, merge and rewrite chunks

The output of a read is allocated once (or given with `out=`) and every chunk is decoded
straight into its part of it; a write encodes every chunk straight from the value. Both run on
Rust workers without the GIL; Ctrl-C stops them between chunks (no chunk is left torn).
"""

import json
import numbers
import operator
import os

import numpy as np

from . import _index, _vlen, _write, _zinto
from ._errors import SelectionError
from ._write import UnserialisedWriteWarning, create, save
from ._zinto import (Cancelled, DecodeError, EncodeError, ExistsError, MetadataError, StoreError,
                     ZintoError)
from ._zinto import DECODED_CHUNK_LIMIT, __version__

__all__ = [
    "DECODED_CHUNK_LIMIT",
    "Array",
    "ZintoCodecPipeline",
    "Cancelled",
    "DecodeError",
    "EncodeError",
    "ExistsError",
    "Group",
    "MetadataError",
    "SelectionError",
    "StoreError",
    "UnserialisedWriteWarning",
    "ZintoError",
    "create",
    "merge",
    "open",
    "save",
]


def open(path, *, anonymous=False, in_flight=None, read_ahead=None, timeout=None,  # noqa: A001
         stall_timeout=None, follow_symlinks=True, decoded_chunk_limit=None):
    """Opens the array or group at `path`: an `Array` or a `Group`.

    `path` is a directory, or a URL: ``s3://bucket/prefix``, ``gs://``, ``az://``,
    ``http(s)://``. Credentials, region and endpoint come from the environment
    (``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_REGION``, ``AWS_ENDPOINT_URL``,
    ``AWS_ALLOW_HTTP=true`` for a plain-HTTP endpoint, ...). ``anonymous=True`` sends requests
    unsigned (public buckets); ``in_flight`` bounds the requests a read keeps in flight
    (default 64); ``read_ahead`` is the bytes of response bodies a read may hold ahead of its
    workers, so that more bodies arrive than workers decode (default 2% of the read's output,
    at least 8 MiB; 0 holds none ahead: docs/memory.md). ``timeout`` (seconds, default 300)
    bounds a request with its retries (it gives up within about twice it);
    ``stall_timeout`` (seconds, default 30, never more than ``timeout``) fails a request
    when no byte arrives for that long. Ctrl-C stops a read of a URL at once, its requests
    dropped (opening reads metadata without watching for Ctrl-C: the timeouts bound it).
    For a directory,
    ``follow_symlinks=False`` refuses every symbolic link inside
    it (a ``StoreError``), so that a dataset someone else wrote reads nothing outside itself
    through one (docs/security.md); by default reads follow links, and writes through the
    array follow only those that stay inside the directory. It is refused (ValueError) with a
    URL, where it would do nothing. ``decoded_chunk_limit``
    is the most one chunk of strings or bytes may decode to (default ``DECODED_CHUNK_LIMIT``,
    1 GiB; see `Array.decoded_chunk_limit`).
    """
    if isinstance(path, str) and "://" in path:
        if read_ahead is not None and read_ahead < 0:
            raise ValueError(f"read_ahead must be 0 or more bytes, not {read_ahead}")
        reach = {"anonymous": anonymous, "in_flight": in_flight, "read_ahead": read_ahead,
                 "timeout": timeout, "stall_timeout": stall_timeout}
        node = _zinto.open(path, reach, follow_symlinks=follow_symlinks)
    else:
        node = _zinto.open(os.fspath(path), follow_symlinks=follow_symlinks)
    return _wrap(node, decoded_chunk_limit)


def _wrap(node, decoded_chunk_limit=None):
    if isinstance(node, _zinto.RsArray):
        arr = Array(node)
        arr.decoded_chunk_limit = decoded_chunk_limit
        return arr
    return Group(node)


def _plain(key, ndim):
    """Whether `key` is a tuple of one step-1 slice per dimension: a loader's window."""
    return (type(key) is tuple and len(key) == ndim
            and all(type(k) is slice and k.step is None for k in key))


class _Indexer:
    """`arr.oindex` and `arr.vindex`: ``[...]`` reads as zarr-python's."""

    def __init__(self, array, mode):
        self._array = array
        self._mode = mode

    def __getitem__(self, key):
        return self._array._read_groups(*_index.plan(key, self._array.shape, self._mode))

    def __setitem__(self, key, value):
        self._array._write_groups(*_index.plan(key, self._array.shape, self._mode), value)


def _normalize(key, shape):
    """NumPy basic indexing against `shape`: (start, extent, kept) per dimension.

    Ints (negative ones count from the end) select one element and drop their dimension;
    slices (negative bounds too, clamped as NumPy clamps) keep it; one Ellipsis stands for the
    dimensions not named. Steps other than 1 are refused.
    """
    if not isinstance(key, tuple):
        key = (key,)
    if len(key) == len(shape) and all(type(k) is slice and k.step is None for k in key):
        # The common case (a loader's window): plain slices, one per dimension.
        bounds = [k.indices(n)[:2] for k, n in zip(key, shape)]
        return ([a for a, _ in bounds], [max(b - a, 0) for a, b in bounds],
                [True] * len(shape))
    if sum(k is Ellipsis for k in key) > 1:
        raise SelectionError("an index can only have a single ellipsis ('...')")
    named = sum(k is not Ellipsis for k in key)
    if named > len(shape):
        raise SelectionError(
            f"too many indices: the array is {len(shape)}-dimensional, but {named} were indexed")
    expanded = []
    for k in key:
        if k is Ellipsis:
            expanded.extend([slice(None)] * (len(shape) - named))
        else:
            expanded.append(k)
    expanded.extend([slice(None)] * (len(shape) - len(expanded)))
    start, extent, kept = [], [], []
    for dim, (k, n) in enumerate(zip(expanded, shape)):
        if isinstance(k, (bool, np.bool_)):
            raise SelectionError("boolean indices are not basic indexing")
        if isinstance(k, np.ndarray) and k.ndim == 0 and k.dtype.kind in "iu":
            k = operator.index(k)  # a 0-d integer array indexes as its integer, as in NumPy
        if isinstance(k, numbers.Integral):
            i = int(k)
            if not -n <= i < n:
                raise SelectionError(
                    f"index {i} is out of bounds for axis {dim} with size {n}")
            start.append(i % n if n else 0)
            extent.append(1)
            kept.append(False)
        elif isinstance(k, slice):
            a, b, step = k.indices(n)
            if step != 1:
                raise SelectionError(
                    f"slice {k} in axis {dim} has step {step}: steps are not supported")
            start.append(a)
            extent.append(max(0, b - a))
            kept.append(True)
        elif k is None:
            raise SelectionError("np.newaxis is not supported: reshape the result instead")
        else:
            raise SelectionError(
                f"{type(k).__name__} index in axis {dim}: only ints, slices and ... (basic indexing)")
    return start, extent, kept


class Array:
    """A Zarr array. Index it like NumPy (`arr[10:20, -1]`) or `read` it into a buffer."""

    def __init__(self, rs):
        self._rs = rs
        self._shape = tuple(rs.shape)
        self._chunks = tuple(rs.chunks)
        self._shards = None if rs.shards is None else tuple(rs.shards)
        kind = rs.dtype
        self._vlen = kind in ("string", "bytes")
        if kind == "string":
            self._dtype = _vlen.string_dtype()
        elif kind == "bytes":
            self._dtype = np.dtype(object)
        else:
            self._dtype = np.dtype(kind)
        names = rs.dimension_names
        self._dimension_names = None if names is None else tuple(names)
        self._codecs = tuple(rs.codecs)
        self._zarr_format = rs.zarr_format
        self._path = rs.path
        self.decoded_chunk_limit = None
        """The most one chunk of strings or bytes may decode to, in bytes; None means
        ``DECODED_CHUNK_LIMIT`` (1 GiB). A compressed chunk of a few KB can decode to
        gigabytes, and no metadata states a string chunk's size: past the limit a read raises
        ``DecodeError`` naming the chunk, having held no more than the limit. Raise it for a
        dataset whose string chunks are larger. Fixed-size types need no limit."""

    @property
    def shape(self):
        """The array's shape, a tuple of ints."""
        return self._shape

    @property
    def dtype(self):
        """The NumPy dtype of what reading gives: the stored type in native byte order;
        ``StringDType`` (NumPy 2, else object) for variable-length strings, object for
        variable-length bytes."""
        return self._dtype

    @property
    def chunks(self):
        """The chunk shape (inside shards, if sharded), a tuple of ints."""
        return self._chunks

    @property
    def shards(self):
        """The shard shape, or None if the array is not sharded."""
        return self._shards

    @property
    def dimension_names(self):
        """The dimension names (v3 ``dimension_names``, v2 xarray's ``_ARRAY_DIMENSIONS``), a
        tuple with None for an unnamed dimension; None if the array has none."""
        return self._dimension_names

    @property
    def codecs(self):
        """The codecs as the metadata names them, outermost last (a tuple of str)."""
        return self._codecs

    @property
    def zarr_format(self):
        """2 or 3."""
        return self._zarr_format

    @property
    def path(self):
        """The array's path in its store ('' for the store's root)."""
        return self._path

    @property
    def attrs(self):
        """The attributes (v3 `attributes`, v2 `.zattrs`) as a dict."""
        return json.loads(self._rs.attrs_json())

    @property
    def ndim(self):
        """The number of dimensions."""
        return len(self.shape)

    @property
    def size(self):
        """The number of elements."""
        return int(np.prod(self.shape, dtype=np.int64))

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __repr__(self):
        dims = "" if self.dimension_names is None else f" dims={self.dimension_names}"
        shards = "" if self.shards is None else f" shards={self.shards}"
        return (f"<zinto.Array {self.path or '/'!r} shape={self.shape} dtype={self.dtype} "
                f"chunks={self.chunks}{shards}{dims} codecs={list(self.codecs)}>")

    def __getitem__(self, key):
        return self.read(key)

    def __setitem__(self, key, value):
        self.write(key, value)

    def write(self, key, value, threads=None, write_empty_chunks=False):
        """Writes `value` into `self[key]` (`key` as `read` takes it, index lists and masks
        too; `value` broadcast to the selection and cast to the array's type as NumPy's
        assignment does; an element selected twice takes the later value).

        Strings and bytes (variable-length arrays) take `str` and `bytes` elements (or arrays
        of them): they are encoded once into offsets and values, then written as numbers are.

        Each chunk the selection touches is encoded once, straight from `value` when it is a
        C-contiguous array of the array's dtype (else `value` is converted once), and written
        whole: chunks the selection only cuts are read, merged and written back. Chunks left
        all fill value are removed instead, unless `write_empty_chunks`. `threads` sets the
        worker count (default: one per core). Runs without the GIL; Ctrl-C stops it between
        chunks, each chunk written whole or not at all.
        """
        if not _plain(key, len(self.shape)):
            fancy = _index.plan(key, self.shape)
            if fancy is not None:
                return self._write_groups(*fancy, value, threads, write_empty_chunks)
        start, extent, kept = _normalize(key, self.shape)
        if _write.cuts_chunks(start, extent, self.shards or self.chunks, self.shape):
            _write.warn_unserialised(self._rs)
        shape = tuple(n for n, k in zip(extent, kept) if k)
        settings = {"threads": threads, "write_empty_chunks": write_empty_chunks}
        if self._vlen:
            text = self._rs.dtype == "string"

            def write(start, extent, offsets, values):
                self._rs.write_vlen(start, extent, offsets, values, settings)

            # Slabs of whole shards, where there are: a slab that cut a shard would rewrite it.
            _vlen.write(write, start, extent, value, self.shards or self.chunks, text)
            return
        data = _write.prepare(value, self.dtype, shape)
        if data.size:
            flat = data.reshape(-1).view(np.uint8)
            self._rs.write_from(start, extent, flat, settings)

    def read(self, key=Ellipsis, out=None, threads=None):
        """Reads `self[key]` into `out` (allocated once if not given) and returns it.

        `key` is what NumPy takes: ints, slices (any step), ``...``, and lists or arrays of
        ints (any order, repeats, negative from the end) or booleans (masks), with NumPy's
        result shape (several index arrays are broadcast together into points). Each chunk
        that holds a selected element is read once, and only those elements are gathered.
        `out` may be a C-contiguous, writable NumPy array of the result's shape and dtype, or
        any writable buffer of exactly its size in bytes. `threads` sets the worker count
        (default: one per core).
        """
        if not _plain(key, len(self.shape)):
            fancy = _index.plan(key, self.shape)
            if fancy is not None:
                return self._read_groups(*fancy, out, threads)
        start, extent, kept = _normalize(key, self.shape)
        shape = tuple(n for n, k in zip(extent, kept) if k)
        if self._vlen:
            if out is not None:
                raise ValueError("out= is not supported for variable-length strings or bytes")
            return self._read_vlen(start, extent, shape)
        if out is None:
            out = np.empty(shape, dtype=self.dtype)
            target = out
        else:
            target = self._check_out(out, shape)
        flat = target.reshape(-1).view(np.uint8) if target.size else np.empty(0, np.uint8)
        if target.size:
            self._rs.read_into(start, extent, flat, threads)
        return out

    @property
    def oindex(self):
        """Orthogonal indexing, as zarr-python's `oindex`: ``arr.oindex[[3, 1], :, mask]``
        takes each axis on its own (a list or mask selects along its axis, whatever the
        others), where NumPy would broadcast several index arrays together."""
        return _Indexer(self, "oindex")

    @property
    def vindex(self):
        """Coordinate indexing, as zarr-python's `vindex`: ``arr.vindex[rows, cols]`` reads
        the points (rows[i], cols[i]) (the index arrays broadcast together), and
        ``arr.vindex[mask]`` the elements where a boolean mask of the array's shape is
        true, in C order."""
        return _Indexer(self, "vindex")

    def _write_groups(self, groups, shape, value, threads=None, write_empty_chunks=False):
        """Writes `value` into the selection `groups` state (see `_index`), of `shape`: each
        chunk it touches read, merged and written once."""
        if self._vlen:
            raise NotImplementedError(
                "writes of strings or bytes through index lists, masks or points are not "
                "supported yet: write a region (arr[start:stop] = value)")
        data = _write.prepare(value, self.dtype, shape)
        _write.warn_unserialised(self._rs)
        if data.size:
            settings = {"threads": threads, "write_empty_chunks": write_empty_chunks}
            self._rs.write_selection_from(groups, data.reshape(-1).view(np.uint8), settings)

    def _read_groups(self, groups, shape, out=None, threads=None):
        """Reads the selection `groups` state (see `_index`) into `out` of `shape`."""
        if self._vlen:
            if out is not None:
                raise ValueError("out= is not supported for variable-length strings or bytes")
            return self._read_vlen_groups(groups, shape)
        if out is None:
            out = np.empty(shape, dtype=self.dtype)
            target = out
        else:
            target = self._check_out(out, shape)
        if target.size:
            self._rs.read_selection_into(groups, target.reshape(-1).view(np.uint8), threads)
        return out

    def _read_vlen_groups(self, groups, shape):
        """Strings and bytes of a selection: the box it spans read as a region, then its
        elements taken (each group's coordinates, in output order)."""
        coords = {}  # dim -> coordinates of each of the group's positions
        for g in groups:
            if g[0] == "range":
                coords[g[1]] = np.arange(g[2], g[3], dtype=np.int64)
            elif g[0] == "index":
                coords[g[1]] = np.array([g[2]], dtype=np.int64)
            elif g[0] == "list":
                coords[g[1]] = np.asarray(g[2]) % self.shape[g[1]]
            else:
                for d, a in zip(g[1], g[2]):
                    coords[d] = np.asarray(a) % self.shape[d]
        if any(len(c) == 0 for c in coords.values()):
            return np.empty(shape, dtype=self.dtype)
        lo = [int(coords[d].min()) if d in coords else 0 for d in range(len(self.shape))]
        hi = [int(coords[d].max()) + 1 if d in coords else 1 for d in range(len(self.shape))]
        extent = [b - a for a, b in zip(lo, hi)]
        box = self._read_vlen(lo, extent, tuple(extent)).reshape(-1)
        strides = np.cumprod([1] + extent[::-1][:-1])[::-1]
        linear = np.zeros(1, dtype=np.int64)
        for g in groups:
            dims = g[1] if g[0] == "points" else [g[1]]
            part = sum((coords[d] - lo[d]) * int(strides[d]) for d in dims)
            linear = (linear[:, None] + np.asarray(part)[None, :]).reshape(-1)
        return box[linear].reshape(shape)
    def read_many(self, keys, out=None, threads=None):
        """Reads `self[key]` for each of `keys` (selections of one shape) into one stacked
        array of shape ``(len(keys), *shape)`` and returns it: `out` if given (C-contiguous
        and writable, of that shape and this array's dtype), else allocated once.

        The selections are shared out to `threads` workers (default: one per core), each read
        whole by one worker, as a read of it alone is (same memory, same errors); the batch
        stops at the first error or at Ctrl-C, between selections. What a data loader's
        ``__getitems__`` asks for: a batch of windows, one call. Keys with index lists, masks
        or steps (of one result shape) are read one after another into their places, each
        gathered by all the workers.
        """
        if self._vlen:
            raise TypeError("read_many reads numbers; strings and bytes are read one by one")
        keys = list(keys)
        batch = self._rs.windows(keys)  # plain windows, parsed in one call
        shape = None if batch is None else batch.extent
        if batch is None:
            fancy = [None if _plain(k, len(self.shape)) else _index.plan(k, self.shape)
                     for k in keys]
            if any(f is not None for f in fancy):
                return self._read_many_groups(keys, fancy, out, threads)
            batch, shape = self._general_batch(keys)
        full = (len(keys), *shape)
        if out is None:
            out = np.empty(full, dtype=self.dtype)
            target = out
        else:
            target = self._check_out(out, full)
        if target.size:
            self._rs.read_many_into(batch, target.reshape(-1).view(np.uint8), threads)
        return out

    def _read_many_groups(self, keys, fancy, out, threads):
        """`read_many` of keys some of which are not basic: each read into its place of the
        stacked output, in turn."""
        def basic_shape(k):
            _, extent, kept = _normalize(k, self.shape)
            return tuple(n for n, keep in zip(extent, kept) if keep)

        shapes = {f[1] if f is not None else basic_shape(k) for k, f in zip(keys, fancy)}
        if len(shapes) > 1:
            raise ValueError(f"read_many takes selections of one shape, not {sorted(shapes)}")
        full = (len(keys), *shapes.pop())
        if out is None:
            out = np.empty(full, dtype=self.dtype)
            target = out
        else:
            target = self._check_out(out, full)
        for i, (k, f) in enumerate(zip(keys, fancy)):
            if f is None:
                self.read(k, out=target[i], threads=threads)
            else:
                self._read_groups(*f, out=target[i], threads=threads)
        return out

    def _general_batch(self, keys):
        """`keys` as a batch of one extent, through `_normalize` (ints, ellipses, clamping),
        and the shape each result has (without the dimensions ints select)."""
        regions = [_normalize(key, self.shape) for key in keys]
        shapes = {tuple(n for n, k in zip(extent, kept) if k) for _, extent, kept in regions}
        extents = {tuple(extent) for _, extent, _ in regions}
        if len(shapes) > 1 or len(extents) > 1:
            raise ValueError(f"read_many takes selections of one shape, not {sorted(shapes)}")
        shape = shapes.pop() if shapes else ()
        extent = list(extents.pop()) if extents else [0] * len(self.shape)
        return _zinto.Windows([start for start, _, _ in regions], extent), shape

    def _check_out(self, out, shape):
        """`out` as a writable, C-contiguous array of `shape` and this array's dtype."""
        want = f"expected shape {shape} and dtype {self.dtype}"
        if isinstance(out, np.ndarray):
            if out.dtype != self.dtype or out.shape != shape:
                raise ValueError(f"out has shape {out.shape} and dtype {out.dtype}, {want}")
            if not out.flags.c_contiguous:
                raise ValueError(f"out must be C-contiguous ({want})")
            if not out.flags.writeable:
                raise ValueError(f"out is read-only ({want})")
            return out
        try:
            view = memoryview(out)
        except TypeError as e:
            raise ValueError(f"out must be a NumPy array or a writable buffer ({want})") from e
        if view.readonly:
            raise ValueError(f"out is a read-only buffer ({want})")
        nbytes = int(np.prod(shape, dtype=np.int64)) * self.dtype.itemsize
        if view.nbytes != nbytes or not view.c_contiguous:
            raise ValueError(
                f"out is a buffer of {view.nbytes} bytes, {want} ({nbytes} contiguous bytes)")
        return np.frombuffer(view.cast("B"), dtype=self.dtype).reshape(shape)

    def _read_vlen(self, start, extent, shape):
        offsets, values = self._rs.read_vlen(start, extent, limit=self.decoded_chunk_limit)
        out = np.empty(shape, dtype=self.dtype)
        _vlen.fill(out, offsets, values, text=self._rs.dtype == "string")
        return out


_CODECS_BY_SUFFIX = {".zst": "zstd", ".zstd": "zstd", ".gz": "gzip", ".npy": "npy",
                     ".msgpack": "msgpack", ".msgpk": "msgpack", ".mpk": "msgpack"}


def merge(files, record_size=None, key=None, codec="auto", stable=False, threads=None,
          dtype=None):
    """Concatenates variable-size chunk files into one array and sorts its records by a key.

    Each file's decoded size is read from its header (raw: its length; zstd: the frame's
    content size; gzip: ISIZE), the output is allocated once at the exact total, the files are
    decoded in parallel straight into their parts of it, and the records are sorted in place
    by `key` (`"f64@8"`: a little-endian float64 at byte 8; `"u32be@0"`...), if given.
    `codec` is "auto" (by file suffix: .zst, .gz, else raw), "raw", "zstd" or "gzip".
    Returns a `uint8` array of shape (records, record_size), or an array of `dtype` (a
    structured or plain dtype of `record_size` bytes) when given.

    `.npy` files and msgpack-numpy files (`codec="npy"` or `"msgpack"`, or by suffix) carry
    their type and shape: the result is an array of that type, of shape (rows, ...) as
    `np.concatenate` gives it, allocated once, each file's data read straight into place;
    `key="col=1"` sorts by the rows' second number (or `"f64@8"`). They must agree on type and
    row shape.
    """
    files = [os.fspath(f) for f in files]
    if codec == "auto" and files:
        kinds = {_CODECS_BY_SUFFIX.get(os.path.splitext(f)[1].lower(), "raw") for f in files}
        if kinds & {"npy", "msgpack"}:
            if len(kinds) > 1:
                raise ValueError(f"files are stored in different ways by their names ({sorted(kinds)}): pass codec=")
            codec = kinds.pop()
    if codec in ("npy", "msgpack"):
        if dtype is not None or record_size is not None:
            raise ValueError(f"{codec} files carry their dtype and record size: give neither")
        raw, descr, shape = _zinto.merge_segments(files, codec, key, stable, threads)
        return raw.view(np.dtype(descr)).reshape(shape)
    if dtype is not None:
        dtype = np.dtype(dtype)
        if record_size is None:
            record_size = dtype.itemsize
        elif record_size != dtype.itemsize:
            raise ValueError(f"record_size {record_size} is not dtype {dtype}'s {dtype.itemsize} bytes")
    if record_size is None:
        raise ValueError("give record_size, or a dtype to take it from")
    if codec == "auto":
        kinds = {_CODECS_BY_SUFFIX.get(os.path.splitext(f)[1], "raw") for f in files}
        if len(kinds) > 1:
            raise ValueError(f"files are stored in different ways by their names ({sorted(kinds)}): pass codec=")
        codec = kinds.pop() if kinds else "raw"
    out = _zinto.merge(files, record_size, key, codec, stable, threads)
    records = out.reshape(-1, record_size)
    if dtype is None:
        return records
    if dtype.subdtype is not None:  # (float64, 3): rows of 3 float64
        base, shape = dtype.subdtype
        return out.view(base).reshape((-1,) + shape)
    return out.view(dtype)


class Group:
    """A Zarr group: a mapping of member names to `Array` and `Group` nodes."""

    def __init__(self, rs):
        self._rs = rs
        self._path = rs.path

    @property
    def path(self):
        """The group's path in its store ('' for the store's root)."""
        return self._path

    @property
    def attrs(self):
        """The attributes as a dict."""
        return json.loads(self._rs.attrs_json())

    @property
    def consolidated(self):
        """Whether the members come from consolidated metadata."""
        return self._rs.consolidated

    def members(self):
        """`(name, "array" | "group")` of each direct member, sorted by name."""
        return list(self._rs.members())

    def __getitem__(self, name):
        if not isinstance(name, str):
            raise TypeError(f"group members are named by str, not {type(name).__name__}")
        kinds = dict(self._rs.members())
        first, _, rest = name.partition("/")
        kind = kinds.get(first)
        if kind is None or (rest and kind != "group"):
            raise KeyError(name)
        if rest:
            return Group(self._rs.group(first))[rest]
        return Array(self._rs.array(name)) if kind == "array" else Group(self._rs.group(name))

    def __iter__(self):
        return iter(name for name, _ in self._rs.members())

    def __len__(self):
        return len(self._rs.members())

    def __contains__(self, name):
        """Whether `name` (or a deeper path) is listed below this group: by the listing alone,
        without opening the member (a member listed by stale consolidated metadata is "in" the
        group; opening it then says what is wrong)."""
        if not isinstance(name, str):
            return False
        first, _, rest = name.partition("/")
        kind = dict(self._rs.members()).get(first)
        if kind is None:
            return False
        if not rest:
            return True
        return kind == "group" and rest in Group(self._rs.group(first))

    def keys(self):
        return list(self)

    def items(self):
        return [(name, self[name]) for name in self]

    def __repr__(self):
        return f"<zinto.Group {self.path or '/'!r} members={list(self)}>"


def __getattr__(name):
    # The pipeline needs zarr-python; the rest of the package does not.
    if name == "ZintoCodecPipeline":
        from .pipeline import ZintoCodecPipeline

        return ZintoCodecPipeline
    raise AttributeError(f"module 'zinto' has no attribute {name!r}")
