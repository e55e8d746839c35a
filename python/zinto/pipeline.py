"""`ZintoCodecPipeline`: zarr-python 3 reads and writes through zinto.

    import zarr
    zarr.config.set({"codec_pipeline.path": "zinto.ZintoCodecPipeline"})

A read whose chunks tile one rectangle of a C-contiguous, native-byte-order NumPy output (what
`zarr.open_array(...)[...]` and xarray allocate) is done by zinto straight into the output
zarr-python allocated: Rust workers decode every chunk into its part of it.
- From a LocalStore (or an FsspecStore over local files, what Dask's `from_zarr` makes of a
  path) zinto reads the chunk files itself.
- From an ObjectStore (obstore's S3, GCS, Azure or HTTP store) or an FsspecStore over s3fs
  it fetches the chunks itself from the same URL with the same settings.
- From any other store it decodes the bytes zarr-python fetched, held as the `bytes` the
  store gave where it gave them (for shards: the index, then only the inner chunks needed).

Other selections and output layouts are read piece by piece (a scratch per piece, put
through zarr-python's selections); strings and bytes element by element. Writes into local
files or an object store zinto addresses are encoded by zinto straight from zarr-python's
value into the store; into any other store (MemoryStore, ZipStore, another fsspec store)
zinto encodes each chunk from the value and the store takes its bytes. Anything else (a codec
or data type zinto does not read or write) goes to zarr-python's default pipeline, counted by
reason, so nothing that works without zinto stops working.
"""

import asyncio
import contextvars
import itertools
import json
import math
import os
from collections import Counter
from dataclasses import dataclass

import numpy as np
from zarr.abc.codec import CodecPipeline
from zarr.abc.store import RangeByteRequest
from zarr.core.codec_pipeline import BatchedCodecPipeline, fill_value_or_default
from zarr.storage import FsspecStore, LocalStore

try:
    from zarr.storage import ObjectStore
except ImportError:  # zarr-python without obstore support
    ObjectStore = None

from . import _vlen, _zarr_api, _zinto

__all__ = ["ZintoCodecPipeline"]

# Reads done by zinto rather than the default pipeline, in this process (for tests and
# curiosity: `zinto.pipeline.reads_by_zinto`), and the reads handed on to the default pipeline
# by why (`zinto.pipeline.reads_handed_on`, a Counter of the reasons below).
reads_by_zinto = 0
reads_handed_on = Counter()
# Of those, the reads done piece by piece (`_read_pieces`: a scratch per piece).
reads_in_pieces = 0
# The same for writes (`zinto.pipeline.writes_by_zinto`, `writes_handed_on`).
writes_by_zinto = 0
writes_handed_on = Counter()
# Writes and reads a shard's inner pipeline made while the default pipeline did a write or
# read this pipeline handed on: the sharding codec writing (or reading) the inner chunks of
# that one call, already counted under its reason, so counted here and not again above
# (`zinto.pipeline.inner_calls_of_handed_on`, a Counter with keys "writes" and "reads").
inner_calls_of_handed_on = Counter()
# Set while the default pipeline does a call this pipeline handed on (asyncio tasks and
# `asyncio.to_thread` carry it into what that call starts).
_handing_on = contextvars.ContextVar("zinto_handing_on", default=False)

# Why a read went to the default pipeline.
NO_METADATA = "inner pipeline of a shard (no array metadata)"
METADATA_NOT_TAKEN = "metadata zinto does not take"
GRID_NOT_REGULAR = "chunk grid not regular (rectilinear: zinto does not read it yet)"
FILL_NOT_CANONICAL = "a NaN fill value with a payload (JSON keeps no payload)"
OUTPUT_NOT_C_ORDER = "output not C-contiguous"
OUTPUT_READ_ONLY = "output read-only"
OUTPUT_BIG_ENDIAN = "big-endian output"
OUTPUT_OBJECTS = "strings, bytes or objects"
STRUCTURED = "structured type"
OUTPUT_NOT_NUMPY = "output not a NumPy array"
NOT_ONE_RECTANGLE = "selection not one rectangle"
DTYPE_DIFFERS = "data type differs from the output's"
RESIZED = "array resized since the pipeline was made"
REMOTE_FAILED = "store zinto could not reach"
SHARDS_WRAPPED = "sharding inside other codecs, from a store zinto does not address"
KEY_NOT_PARSED = "chunk key zinto does not parse"
SELECTION_KIND = "selection of a kind zinto does not take"
FOREIGN_CODEC = "a codec class of the user's own (registered with zarr), not zarr-python's"

# Reads zinto does piece by piece when it cannot write the whole region into the output.
BY_PIECES = (NOT_ONE_RECTANGLE, OUTPUT_NOT_C_ORDER, OUTPUT_BIG_ENDIAN)
STORE_READ_ONLY = "read-only store"
NOT_WRITTEN_BY_ZINTO = "codec, filter or type zinto does not write yet"

# A scalar written over a region is laid into one buffer of at most this many bytes (whole
# chunk rows along the first dimension), reused slab by slab, not one of the region's size.
SCALAR_SLAB_BYTES = 16 << 20
# A write into a store zinto does not address goes in slabs of whole chunk rows of at most this
# much input, each slab's chunks handed to the store before the next is encoded: the encoded
# chunks held are one slab's, not the write's.
ENCODE_SLAB_BYTES = 64 << 20


@dataclass(frozen=True)
class _Meta:
    """What zinto needs of an array's metadata: its document and how its chunk keys look."""

    zarr_format: int
    document: bytes
    ndim: int
    chunk_shape: tuple
    # How many '/'-separated path components a chunk key has, and how to read its coordinates.
    key_parts: int
    separator: str
    prefix: str  # "c" for v3's default encoding, "" otherwise
    sharded: bool


def _text(value):
    """A setting as object_store reads it: booleans in lower case."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def _local_root(store):
    """The directory of `store`'s objects, if they are local files zinto reads and writes
    itself: a LocalStore, or an FsspecStore over fsspec's local file system (which
    `dask.array.from_zarr` and `xarray` make of a plain path when given storage options).
    Stores are taken by their class (a mock made with `spec=LocalStore` is not a LocalStore
    here: zarr-python's tests wrap stores so to count their calls), never by attributes."""
    if issubclass(type(store), LocalStore):
        return str(store.root)
    if issubclass(type(store), FsspecStore):
        fs = getattr(store.fs, "sync_fs", store.fs)  # zarr wraps a sync file system
        if type(fs).__name__ == "LocalFileSystem" and store.path:
            return store.path
    return None


def _remote(store):
    """`(url, settings)` through which zinto reaches `store`'s objects itself, or None: an
    ObjectStore over obstore's S3, GCS, Azure or HTTP store, or an FsspecStore over s3fs."""
    if ObjectStore is not None and issubclass(type(store), ObjectStore):
        inner = store.store
        kind = type(inner).__name__
        if getattr(inner, "credential_provider", None) is not None:
            return None  # credentials zinto cannot ask for itself
        settings = {k: _text(v) for k, v in (getattr(inner, "config", None) or {}).items()}
        settings.update(
            {k: _text(v) for k, v in (getattr(inner, "client_options", None) or {}).items()})
        prefix = (getattr(inner, "prefix", None) or "").strip("/")
        if kind == "HTTPStore":
            return inner.url.rstrip("/"), sorted(settings.items())
        scheme, container = {"S3Store": ("s3", "bucket"), "GCSStore": ("gs", "bucket"),
                             "AzureStore": ("az", "container_name")}.get(kind, (None, None))
        bucket = settings.pop(container, None) if scheme else None
        if not bucket:
            return None
        url = f"{scheme}://{bucket}" + (f"/{prefix}" if prefix else "")
        return url, sorted(settings.items())
    if issubclass(type(store), FsspecStore) and type(store.fs).__name__ == "S3FileSystem":
        fs = store.fs
        path = store.path.strip("/")
        if not path or getattr(fs, "token", None) or getattr(fs, "profile", None):
            return None  # session tokens, profiles: credentials zinto does not take from s3fs
        settings = {}
        endpoint = (fs.client_kwargs or {}).get("endpoint_url") or getattr(fs, "endpoint_url", None)
        if endpoint:
            settings["aws_endpoint"] = endpoint
            if endpoint.startswith("http://"):
                settings["aws_allow_http"] = "true"
        region = (fs.client_kwargs or {}).get("region_name")
        if region:
            settings["aws_region"] = region
        if fs.key and fs.secret:
            settings["aws_access_key_id"] = fs.key
            settings["aws_secret_access_key"] = fs.secret
        if fs.anon:
            settings["aws_skip_signature"] = "true"
        return f"s3://{path}", sorted(settings.items())
    return None


def _default_pipeline(metadata):
    if metadata.zarr_format == 3:
        return BatchedCodecPipeline.from_codecs(metadata.codecs)
    from zarr.codecs._v2 import V2Codec

    return BatchedCodecPipeline.from_codecs(
        [V2Codec(filters=metadata.filters, compressor=metadata.compressor)])


def _canonical_fill(metadata):
    """Whether the fill value survives `to_dict` and JSON: a NaN with a payload other than
    NumPy's own does not (it becomes plain NaN), so such arrays are left to zarr-python."""
    fill = np.asarray(metadata.fill_value)
    if fill.dtype.kind in "fc" and np.isnan(fill).any():
        canonical = np.full(fill.shape, np.nan, dtype=fill.dtype)
        return fill.tobytes() == canonical.tobytes()
    return True


def _meta(metadata):
    """zinto's view of zarr-python's array metadata, or why it cannot be taken (a reason)."""
    try:
        if not _canonical_fill(metadata):
            return FILL_NOT_CANONICAL
        doc = metadata.to_dict()
        ndim = len(metadata.shape)
        sharded = False
        if metadata.zarr_format == 3:
            grid = doc["chunk_grid"]["name"] if isinstance(doc["chunk_grid"], dict) else None
            if grid != "regular":
                return GRID_NOT_REGULAR
            from zarr.codecs import ShardingCodec

            sharded = any(isinstance(c, ShardingCodec) for c in metadata.codecs)
            chunk_shape = tuple(metadata.chunk_grid.chunk_shape)
            enc = metadata.chunk_key_encoding
            separator = enc.separator
            prefix = "c" if enc.name == "default" else ""
        else:
            chunk_shape = tuple(metadata.chunks)
            separator = metadata.dimension_separator or "."
            prefix = ""
        if separator == "/":
            key_parts = (1 if prefix else 0) + max(ndim, 0 if prefix else 1)
        else:
            key_parts = 1
        return _Meta(metadata.zarr_format, json.dumps(doc).encode(), ndim, chunk_shape,
                     key_parts, separator, prefix, sharded)
    except Exception:  # noqa: BLE001 - anything zinto cannot take goes to the default pipeline
        return METADATA_NOT_TAKEN


def _foreign_codec(pipeline):
    """Whether a codec of `pipeline`, or of a shard's inside it, is of a class neither
    zarr-python's nor numcodecs' own."""
    todo = list(pipeline)
    while todo:
        codec = todo.pop()
        if type(codec).__module__.split(".")[0] not in ("zarr", "numcodecs"):
            return True
        for inner in ("codecs", "index_codecs"):
            todo += list(getattr(codec, inner, None) or ())
    return False


class ZintoCodecPipeline(CodecPipeline):
    """A zarr-python codec pipeline that reads with zinto (see the module's documentation)."""

    def __init__(self, default, meta=None, store=None):
        self._default = default
        # zinto's view of the array's metadata (`_Meta`), or why it has none: a reason, or
        # None when zarr-python gave none (a shard's inner pipeline).
        self._meta = meta
        self._store = store
        # A codec class the user registered (zarr's `register_codec`, `codecs.NAME` in its
        # config) has its own encode and decode, which zinto would bypass.
        self._foreign = _foreign_codec(default)
        self._arrays = {}
        # Set when zinto could not read zarr's store through its URL (credentials it does not
        # see, a region redirect): from then on zinto decodes the bytes zarr-python fetches.
        self._remote_failed = False

    def __eq__(self, other):
        # zarr-python's arrays are frozen dataclasses that compare their pipelines: an array
        # equals itself opened again or after a pickle round trip.
        if not isinstance(other, ZintoCodecPipeline):
            return NotImplemented
        return (self._default, self._meta, self._store) == \
            (other._default, other._meta, other._store)

    def __hash__(self):
        return hash((self._default, self._meta))

    def __getstate__(self):
        # Dask sends arrays (and their pipelines) to worker processes: the opened zinto arrays
        # stay behind and are opened again where they are used.
        return {"default": self._default, "meta": self._meta, "store": self._store}

    def __setstate__(self, state):
        self.__init__(state["default"], state["meta"], state["store"])

    @classmethod
    def from_codecs(cls, codecs):
        # Without the array's metadata zinto cannot read: every call goes to the default.
        return cls(BatchedCodecPipeline.from_codecs(codecs))

    @classmethod
    def from_array_metadata_and_store(cls, array_metadata, store):
        return cls(_default_pipeline(array_metadata), _meta(array_metadata), store)

    def evolve_from_array_spec(self, array_spec):
        return type(self)(self._default.evolve_from_array_spec(array_spec), self._meta,
                          self._store)

    @property
    def supports_partial_decode(self):
        return self._default.supports_partial_decode

    @property
    def supports_partial_encode(self):
        return self._default.supports_partial_encode

    def __iter__(self):
        return iter(self._default)

    def validate(self, *, shape, dtype, chunk_grid):
        self._default.validate(shape=shape, dtype=dtype, chunk_grid=chunk_grid)

    def compute_encoded_size(self, byte_length, array_spec):
        return self._default.compute_encoded_size(byte_length, array_spec)

    async def decode(self, chunk_bytes_and_specs):
        return await self._default.decode(chunk_bytes_and_specs)

    async def encode(self, chunk_arrays_and_specs):
        return await self._default.encode(chunk_arrays_and_specs)

    async def write(self, batch_info, value, drop_axes=()):
        global writes_by_zinto
        batch = list(batch_info)
        if not batch:
            return
        handed_on = await self._write_with_zinto(batch, value, tuple(drop_axes))
        if handed_on is None:
            writes_by_zinto += 1
            return
        await _hand_on("writes", handed_on, self._default.write(batch, value, drop_axes))

    async def read(self, batch_info, out, drop_axes=()):
        """Reads the batch into `out`; on zarr-python 3.2 and later returns one result per
        chunk (`_zarr_api`), "missing" for a chunk absent from the store."""
        global reads_by_zinto, reads_in_pieces
        batch = list(batch_info)
        if not batch:
            return _zarr_api.read_results((), set())
        absent = set()  # the grid coordinates of the chunks found absent
        handed_on = await self._read_with_zinto(batch, out, drop_axes, absent)
        if handed_on in BY_PIECES:
            absent.clear()
            handed_on = await self._read_pieces(batch, out, tuple(drop_axes), absent)
            if handed_on is None:
                reads_in_pieces += 1
        if handed_on is None:
            reads_by_zinto += 1
            coords = [self._split_key(bg.path)[1] for bg, *_ in batch]
            return _zarr_api.read_results(coords, absent)
        results = await _hand_on("reads", handed_on, self._default.read(batch, out, drop_axes))
        return _zarr_api.handed_on_results(results)

    # -- the zinto path ------------------------------------------------------------------

    def _split_key(self, path):
        """(array path, chunk coordinates) of a chunk's store path, or None."""
        m = self._meta
        parts = path.split("/")
        if len(parts) < m.key_parts:
            return None
        key = parts[len(parts) - m.key_parts:]
        array_path = "/".join(parts[:len(parts) - m.key_parts])
        fields = key if m.separator == "/" else key[0].split(m.separator)
        if m.prefix:
            if not fields or fields[0] != m.prefix:
                return None
            fields = fields[1:]
        if m.ndim == 0:
            return (array_path, ()) if fields in ([], ["0"]) else None
        if len(fields) != m.ndim or not all(f.isdigit() for f in fields):
            return None
        return array_path, tuple(int(f) for f in fields)

    def _region(self, batch, out_shape, drop_axes):
        """The array region the whole batch reads into `out`, or None if it is not one
        hyper-rectangle tiled by the batch's pieces (then the default pipeline reads it)."""
        m = self._meta
        start = None
        covered = 0
        array_path = None
        dropped = None  # the dimensions an integer index selects (not in `out`)
        for byte_getter, _spec, chunk_sel, out_sel, _complete in batch:
            split = self._split_key(byte_getter.path)
            if split is None:
                return None
            path, coords = split
            if array_path not in (None, path):
                return None
            array_path = path
            if not isinstance(chunk_sel, tuple) or len(chunk_sel) != m.ndim:
                return None
            if not isinstance(out_sel, tuple):
                return None
            here, volume, o = [], 1, 0
            ints = tuple(d for d, sel in enumerate(chunk_sel)
                         if isinstance(sel, (int, np.integer)))
            if dropped not in (None, ints) or any(d not in ints for d in drop_axes):
                return None
            dropped = ints
            for d, sel in enumerate(chunk_sel):
                origin = coords[d] * m.chunk_shape[d]
                if d in ints:
                    here.append(origin + int(sel))
                    continue
                if o >= len(out_sel):
                    return None
                osel = out_sel[o]
                o += 1
                if not (isinstance(sel, slice) and isinstance(osel, slice)):
                    return None
                if sel.step not in (None, 1) or osel.step not in (None, 1):
                    return None
                n = sel.stop - sel.start
                if osel.stop - osel.start != n:
                    return None
                # The piece lies inside the value: a value of another shape with as many
                # elements (3 x 2 into 2 x 3) is not laid over the region, the default
                # pipeline refuses it as NumPy does.
                if o > len(out_shape) or osel.stop > out_shape[o - 1]:
                    return None
                here.append(origin + sel.start - osel.start)
                volume *= n
            if o != len(out_sel):
                return None
            if start is None:
                start = here
            elif here != start:
                return None
            covered += volume
        if start is None or covered != int(np.prod(out_shape, dtype=np.int64)):
            return None
        if len(out_shape) != m.ndim - len(dropped):
            return None
        extent, i = [], 0
        for d in range(m.ndim):
            if d in dropped:
                extent.append(1)
            else:
                extent.append(out_shape[i])
                i += 1
        return array_path, start, extent

    async def _array(self, batch, array_path, absent):
        """`(array, reports)`: the zinto array over the store's own files (LocalStore), over
        the store's URL (an object store zinto can address), or over the chunk bytes
        zarr-python fetched; and whether its reads report absent chunks as the batch counts
        them. Over a sharded array's inner chunks they do not: the shards found absent are
        added to `absent` here."""
        m = self._meta
        root = _local_root(self._store)
        if root is not None:
            key = ("dir", array_path)
            if key not in self._arrays:
                self._arrays[key] = _zinto.array_in_directory(
                    root, array_path, m.zarr_format, m.document)
            return self._arrays[key], True
        remote = None if self._remote_failed else _remote(self._store)
        if remote is not None:
            key = ("url", array_path)
            if key not in self._arrays:
                url, settings = remote
                # Blocking: zinto's own runtime does the requests (not zarr-python's loop).
                self._arrays[key] = await asyncio.to_thread(
                    _zinto.array_at_url, url, array_path, m.zarr_format, m.document, settings)
            return self._arrays[key], True
        if m.sharded:
            document, chunks = await self._inner_chunks(batch, absent)
            return _zinto.array_of_chunks(m.zarr_format, document, chunks), False
        # Each chunk is fetched with the buffer prototype its spec carries, as the default
        # pipeline fetches it (a caller's prototype decides where the bytes go).
        fetched = await asyncio.gather(
            *(bg.get(prototype=spec.prototype) for bg, spec, *_ in batch))
        chunks = {}
        for (bg, *_), buf in zip(batch, fetched):
            if buf is not None:
                chunks[bg.path[len(array_path):].lstrip("/")] = _held_bytes(buf)
        return _zinto.array_of_chunks(m.zarr_format, m.document, chunks), True

    def _addresses_store(self):
        """Whether zinto reads the store's objects itself (files, or an object store's URL)."""
        return _local_root(self._store) is not None or (
            not self._remote_failed and _remote(self._store) is not None)

    async def _inner_chunks(self, batch, absent):
        """For a sharded array on a store zinto cannot address: the metadata document of the
        array seen as its inner chunks (the shard's inner codecs and chunk grid) and those
        chunks, fetched from zarr-python's store as zarr-python fetches them (with each chunk
        spec's prototype): a shard read whole in one get, else its index and then only the
        inner chunks the piece touches (`_zarr_api.load_partial_shard`). The coordinates of
        each shard found absent are added to `absent`."""
        m = self._meta
        sharding = self._default.array_bytes_codec
        inner = tuple(sharding.chunk_shape)
        per_shard = tuple(s // i for s, i in zip(m.chunk_shape, inner))
        loads, chunks = [], {}
        for bg, spec, chunk_sel, _out_sel, _complete in batch:
            _path, coords = self._split_key(bg.path)
            boxes = [_box(sel, n) for sel, n in zip(chunk_sel, m.chunk_shape)]
            if None in boxes:
                continue  # the piece selects nothing
            spans = [range(lo // size, -(-hi // size)) for (lo, hi, _), size in zip(boxes, inner)]
            loads.append((coords, bg, spec, set(itertools.product(*spans))))

        async def load(coords, bg, spec, wanted):
            if len(wanted) == math.prod(per_shard):
                # The whole shard: one get of it all, as zarr-python reads a whole shard.
                shard = await sharding._load_full_shard_maybe(bg, spec.prototype, per_shard)
                if shard is None:
                    return coords, None
                return coords, {local: shard.buf[where[0]:where[1]] for local in wanted
                                if (where := shard.index.get_chunk_slice(local)) is not None}
            return coords, await _zarr_api.load_partial_shard(
                sharding, bg, spec, per_shard, wanted)

        for coords, found in await asyncio.gather(*(load(*one) for one in loads)):
            if found is None:
                absent.add(coords)
                continue
            for local, buf in found.items():
                grid = (c * n + i for c, n, i in zip(coords, per_shard, local))
                chunks["/".join(["c", *map(str, grid)])] = _held_bytes(buf)
        doc = json.loads(m.document)
        doc["codecs"] = [c.to_dict() for c in sharding.codecs]
        doc["chunk_grid"] = {"name": "regular", "configuration": {"chunk_shape": list(inner)}}
        doc["chunk_key_encoding"] = {"name": "default", "configuration": {"separator": "/"}}
        return json.dumps(doc).encode(), chunks

    async def _read_pieces(self, batch, out, drop_axes, absent):
        """Reads the batch piece by piece: each piece's chunk decoded by zinto into a scratch
        of the box its selection touches, then put into `out` through zarr-python's own
        selections (as the default pipeline puts a decoded chunk), so any selection zarr-python
        hands over, and outputs in any order or byte order, are read by zinto; the pieces run
        in parallel, each with one scratch. The chunks found absent are added to `absent`.
        Returns None, or why not (nothing left usable)."""
        target = out.as_ndarray_like() if hasattr(out, "as_ndarray_like") else out
        if not isinstance(target, np.ndarray):
            return OUTPUT_NOT_NUMPY
        if target.dtype.kind == "V":
            return STRUCTURED
        chunks = self._pieces(batch)
        if isinstance(chunks, str):
            return chunks
        array_path = self._split_key(batch[0][0].path)[0]
        pieces = []
        for coords, chunk_sel, out_sel, _complete, _fill in chunks:
            try:
                boxes = [_box(sel, n) for sel, n in zip(chunk_sel, self._meta.chunk_shape)]
            except _Unhandled:
                return SELECTION_KIND
            if None not in boxes:
                pieces.append((coords, boxes, out_sel))
        try:
            rs, reports = await self._array(batch, array_path, absent)
        except _zinto.ZintoError:
            return METADATA_NOT_TAKEN
        scratch_dtype = _scratch_dtype(rs, target)
        if scratch_dtype is None:
            return DTYPE_DIFFERS

        def read_piece(piece):
            coords, boxes, out_sel = piece
            start = [c * n + lo for c, n, (lo, _, _) in zip(coords, self._meta.chunk_shape, boxes)]
            extent = [hi - lo for lo, hi, _ in boxes]
            scratch = np.empty(extent, dtype=scratch_dtype)
            found = [] if reports else None
            if rs.dtype in ("string", "bytes"):
                offsets, values = rs.read_vlen(start, extent, found)
                _vlen.fill(scratch, offsets, values, text=rs.dtype == "string")
            elif scratch.size:
                rs.read_into(start, extent, scratch.reshape(-1).view(np.uint8), 1, found)
            absent.update(found or ())
            try:
                part = scratch[tuple(rel for _, _, rel in boxes)]
                target[out_sel] = part.squeeze(axis=drop_axes) if drop_axes else part
            except (IndexError, ValueError) as e:
                raise _Unhandled from e

        # Whatever fails here, the default pipeline then writes all of `out` again.
        try:
            await asyncio.gather(*(asyncio.to_thread(read_piece, p) for p in pieces))
        except _Unhandled:
            return SELECTION_KIND
        except ValueError:
            return RESIZED  # a piece outside the shape zinto knows
        return None

    def _refuse_output(self, target):
        """Why zinto cannot write into `target`, or None."""
        if not isinstance(target, np.ndarray):
            return OUTPUT_NOT_NUMPY
        if target.dtype.kind == "V":
            return STRUCTURED
        if not target.flags.c_contiguous:
            return OUTPUT_NOT_C_ORDER
        if not target.flags.writeable:
            return OUTPUT_READ_ONLY
        if not target.dtype.isnative:
            return OUTPUT_BIG_ENDIAN
        return None

    async def _read_with_zinto(self, batch, out, drop_axes, absent):
        """Reads the batch into `out` with zinto and returns None, or returns why it did not
        (then nothing was written and the default pipeline reads it). The grid coordinates of
        the chunks found absent are added to `absent`."""
        if not isinstance(self._meta, _Meta):
            return self._meta or NO_METADATA
        if self._foreign:
            return FOREIGN_CODEC
        target = out.as_ndarray_like() if hasattr(out, "as_ndarray_like") else out
        refused = self._refuse_output(target)
        if refused is not None:
            return refused
        if self._meta.sharded and not self._addresses_store() and (
                self._default.array_array_codecs or self._default.bytes_bytes_codecs):
            return SHARDS_WRAPPED  # the inner chunks are not an array of their own
        region = self._region(batch, target.shape, tuple(drop_axes))
        if region is None:
            return NOT_ONE_RECTANGLE
        array_path, start, extent = region
        try:
            rs, reports = await self._array(batch, array_path, absent)
        except _zinto.ZintoError:
            return METADATA_NOT_TAKEN  # the default pipeline reads it
        found = [] if reports else None
        read = _reader(rs, start, extent, target, found)
        if read is None:
            return DTYPE_DIFFERS
        remote = _local_root(self._store) is None and ("url", array_path) in self._arrays
        try:
            if remote:
                # A network read: off zarr-python's event loop, which other reads share.
                await asyncio.to_thread(read)
            else:
                read()
        except _zinto.StoreError:
            if not remote:
                raise
            # zarr-python reaches this store and zinto does not (credentials or a region it
            # does not see): zarr-python fetches from now on; the output is written again.
            self._remote_failed = True
            self._arrays.pop(("url", array_path), None)
            return REMOTE_FAILED
        except ValueError:
            # The region is outside the shape zinto knows: the array was resized or appended
            # to since this pipeline was made (zarr-python keeps the pipeline, with the old
            # metadata). Nothing was written: the layout is checked before any chunk is read.
            # From a LocalStore zinto takes the metadata the store holds now and reads again.
            if _local_root(self._store) is None or not await self._reopen(array_path):
                return RESIZED
            absent.clear()
            return await self._read_with_zinto(batch, out, drop_axes, absent)
        absent.update(found or ())
        return None

    async def _reopen(self, array_path):
        """Opens the array again from the metadata the LocalStore holds now; whether that
        changed anything."""
        try:
            rs = _zinto.open(os.path.join(_local_root(self._store), array_path))
        except (_zinto.ZintoError, OSError):
            return False
        old = self._arrays.get(("dir", array_path))
        if not isinstance(rs, _zinto.RsArray) or (old is not None and old.shape == rs.shape):
            return False
        self._arrays[("dir", array_path)] = rs
        return True


    # -- writes --------------------------------------------------------------------------

    async def _write_with_zinto(self, batch, value, drop_axes):
        """Writes `value` through the batch's chunks with zinto and returns None, or returns
        why not (then the default pipeline writes all of it)."""
        if not isinstance(self._meta, _Meta):
            return self._meta or NO_METADATA
        if self._foreign:
            return FOREIGN_CODEC
        if getattr(self._store, "read_only", False):
            return STORE_READ_ONLY  # the default pipeline raises zarr-python's own error
        data = value.as_ndarray_like() if hasattr(value, "as_ndarray_like") else value
        refused = _refuse_value(data)
        if refused is not None:
            return refused
        shape = data.shape if data.ndim else _selection_shape(batch)
        region = None if shape is None else self._region(batch, shape, drop_axes)
        pieces = None
        if region is None:
            pieces = self._pieces(batch)
            if isinstance(pieces, str):
                return pieces
        target = await self._write_target(batch, data.dtype, whole_chunks=pieces is not None)
        if isinstance(target, str):
            return target
        chunk_shape = self._meta.chunk_shape

        def write():
            if target.vlen is not None and pieces is not None:
                for piece in pieces:
                    _write_vlen_piece(target, piece, data, drop_axes, chunk_shape)
            elif target.vlen is not None:
                _array_path, start, extent = region
                text = target.vlen == "string"
                rows = chunk_shape[0] if chunk_shape else 1
                _vlen.write(target.write_vlen, start, extent, data, rows, text)
            elif pieces is None:
                _array_path, start, extent = region
                slab = ENCODE_SLAB_BYTES if target.keys is not None else None
                _write_region(target.write, start, extent, data, chunk_shape, slab)
            else:
                for piece in pieces:
                    _write_piece(target, piece, data, drop_axes, chunk_shape)

        if target.keys is not None:
            target.hand_as_written(batch, asyncio.get_running_loop())
        try:
            if target.in_place:
                write()  # local files: as the default pipeline, on zarr-python's loop
            else:
                await asyncio.to_thread(write)  # network writes, or encodes: off the loop
        except _zinto.StoreError:
            if target.in_place or target.keys is not None:
                raise
            # zarr-python reaches this store and zinto does not (credentials, a region): the
            # default pipeline writes all of it again, and every later write.
            self._remote_failed = True
            return REMOTE_FAILED
        except _Unhandled:
            return SELECTION_KIND  # the default pipeline writes all of it again
        except ValueError:
            # The region is outside the shape zinto knows (the array grew since the pipeline
            # was made); for a zarr-python store nothing was stored yet.
            return RESIZED
        await target.finish(batch)
        return None

    def _pieces(self, batch):
        """For a selection that is not one rectangle: `(coords, chunk_sel, out_sel, complete,
        fill)` for each chunk the batch touches (all of one array), or why zinto does not read
        or write it piece by piece."""
        pieces, array_path = [], None
        for bg, spec, chunk_sel, out_sel, complete in batch:
            split = self._split_key(bg.path)
            if split is None or array_path not in (None, split[0]):
                return KEY_NOT_PARSED
            array_path = split[0]
            if not isinstance(chunk_sel, tuple) or len(chunk_sel) != self._meta.ndim:
                return SELECTION_KIND
            pieces.append((split[1], chunk_sel, out_sel, complete, fill_value_or_default(spec)))
        return pieces

    async def _write_target(self, batch, dtype, whole_chunks):
        """Where the write goes: a `_WriteTarget` over the array as the store holds it now, or
        why zinto does not write it."""
        array_path = self._split_key(batch[0][0].path)[0]
        root = _local_root(self._store)
        local = root is not None
        remote = None if local or self._remote_failed else _remote(self._store)
        how = {"write_empty_chunks": bool(batch[0][1].config.write_empty_chunks),
               "inner_chunk_order": _zarr_api.inner_chunk_order(self._default)}
        if not local and remote is None:
            return await self._bytes_target(batch, array_path, dtype, how, whole_chunks)
        try:
            # The metadata as the store holds it now: zarr-python keeps a pipeline when it
            # resizes an array, and an edge chunk written with the old shape would be wrong.
            if local:
                rs = _zinto.open(os.path.join(root, array_path))
            else:
                url, settings = remote
                rs = await asyncio.to_thread(_zinto.open_at_url, url, array_path, settings)
        except _zinto.StoreError:
            if local:
                return METADATA_NOT_TAKEN
            self._remote_failed = True
            return REMOTE_FAILED
        except (_zinto.ZintoError, OSError, TypeError):
            return METADATA_NOT_TAKEN
        refused = _refuse_array(rs, dtype)
        if refused is not None:
            return refused
        return _WriteTarget(rs, rs, how, in_place=local)

    async def _bytes_target(self, batch, array_path, dtype, how, whole_chunks):
        """For a store zinto does not write itself (a MemoryStore, a ZipStore, an fsspec
        store): zinto encodes the chunks (each once, in parallel, from the value) and each
        chunk's bytes go to zarr-python's store at the end, as the default pipeline hands them
        over: set, or deleted when left all fill value. The chunks the selection only partly
        covers are fetched first."""
        m = self._meta
        try:
            rs = _zinto.array_of_chunks(m.zarr_format, m.document, {})
        except (_zinto.ZintoError, TypeError):
            return METADATA_NOT_TAKEN
        refused = _refuse_array(rs, dtype)
        if refused is not None:
            return refused
        document = await self._present_document(batch, array_path, rs.shape)
        if document is None:
            return METADATA_NOT_TAKEN
        keys = [bg.path[len(array_path):].lstrip("/") for bg, *_ in batch]
        # A stored shard past the array's edge keeps its cells there (zinto reads it whole),
        # as zarr-python keeps them: it is fetched even when the selection covers its part.
        edge = {key for key, (_bg, _spec, chunk_sel, _out_sel, complete) in zip(keys, batch)
                if m.sharded and complete and _short_of(chunk_sel, m.chunk_shape)}
        partial = [(key, bg, spec) for key, (bg, spec, *_, complete) in zip(keys, batch)
                   if not complete or key in edge]
        fetched = await asyncio.gather(
            *(bg.get(prototype=spec.prototype) for _key, bg, spec in partial))
        old = {key: _held_bytes(buf) for (key, *_), buf in zip(partial, fetched)
               if buf is not None}
        try:
            old_rs = _zinto.array_of_chunks(m.zarr_format, document, old)
        except (_zinto.ZintoError, TypeError):
            return METADATA_NOT_TAKEN
        # Whole chunks need none of the old ones but shards past the edge (and each call
        # copies what it is given).
        split = {key: self._split_key(bg.path) for key, bg, _spec in partial}
        coords = {key: at[1] for key, at in split.items() if at is not None}
        kept = {k: v for k, v in old.items() if k in edge} if whole_chunks else old
        encoder = _ChunkEncoder((m.zarr_format, document), kept, coords, m.chunk_shape)
        return _WriteTarget(old_rs, encoder, how, in_place=False, keys=keys)

    async def _present_document(self, batch, array_path, shape):
        """The metadata document a bytes-API write uses: the pipeline's own, or the store's
        when the batch cuts a chunk at that document's edge. zarr-python keeps the pipeline
        (and its metadata) when it resizes an array; zinto lays the fill value past an edge
        chunk's end, which after a grow would hide values written there since, so only then
        is the store asked (the default pipeline fetches that chunk anyway; whole-chunk writes
        ask the store nothing, as zarr-python's own tests count)."""
        m = self._meta
        at_edge = any(
            not complete and any((c + 1) * n > d for c, n, d in
                                 zip(self._split_key(bg.path)[1], m.chunk_shape, shape))
            for bg, _spec, _cs, _os, complete in batch)
        if not at_edge:
            return m.document
        key = "zarr.json" if m.zarr_format == 3 else ".zarray"
        doc = await self._store.get(f"{array_path}/{key}" if array_path else key,
                                    prototype=batch[0][1].prototype)
        return None if doc is None else doc.to_bytes()


async def _hand_on(kind, reason, call):
    """Counts a call handed on (`kind`: "reads" or "writes") by `reason`, or apart if it is a
    shard's inner pipeline inside a call already handed on, and awaits the default pipeline's
    `call` with `_handing_on` set; returns what it returned."""
    if reason == NO_METADATA and _handing_on.get():
        inner_calls_of_handed_on[kind] += 1
    else:
        (writes_handed_on if kind == "writes" else reads_handed_on)[reason] += 1
    token = _handing_on.set(True)
    try:
        return await call
    finally:
        _handing_on.reset(token)


def _refuse_value(data):
    """Why zinto does not write `data` (the value zarr-python hands over), or None."""
    if not isinstance(data, np.ndarray):
        return OUTPUT_NOT_NUMPY
    if data.dtype.kind == "V":
        return OUTPUT_OBJECTS
    if not data.dtype.isnative:
        return OUTPUT_BIG_ENDIAN
    return None


def _refuse_array(rs, dtype):
    """Why zinto does not write values of `dtype` into the zinto array `rs`, or None: strings
    from StringDType or object values, bytes from object values, other types from their own."""
    if not isinstance(rs, _zinto.RsArray):
        return DTYPE_DIFFERS
    if rs.dtype in ("string", "bytes"):
        if dtype.kind not in ("OT" if rs.dtype == "string" else "O"):
            return DTYPE_DIFFERS
    elif dtype.kind in "OT":
        return OUTPUT_OBJECTS
    else:
        try:
            if np.dtype(rs.dtype) != dtype:
                return DTYPE_DIFFERS
        except TypeError:
            return DTYPE_DIFFERS  # a type NumPy does not name as zinto does
    if rs.write_refusal() is not None:
        return NOT_WRITTEN_BY_ZINTO
    return None


class _ChunkEncoder:
    """Chunks encoded for a zarr-python store (`_zinto.encode_chunks`, `encode_vlen_chunks`),
    gathered by key."""

    def __init__(self, array, old, coords, chunk_shape):
        self._array, self._old, self._coords = array, old, coords
        self._chunk_shape = chunk_shape
        self.encoded = {}
        # `hand(chunks)`, if set, stores a call's chunks before the call returns (the rest of
        # the write waits); their keys are kept in `handed`.
        self.hand = None
        self.handed = set()

    def _keep(self, chunks):
        if self.hand is None:
            self.encoded.update(chunks)
            return
        self.hand(chunks)
        self.handed.update(chunks)

    def _old_within(self, start, extent):
        """The old chunks the region touches: a write in slabs hands each slab only its own
        (each call copies what it is given)."""
        def touches(coords):
            return coords is None or all(c * n < s + e and (c + 1) * n > s for c, n, s, e in
                                         zip(coords, self._chunk_shape, start, extent))
        return {k: v for k, v in self._old.items() if touches(self._coords.get(k))}

    def write_from(self, start, extent, flat, settings):
        old = self._old_within(start, extent)
        self._keep(_zinto.encode_chunks(*self._array, old, start, extent, flat, settings))

    def write_vlen(self, start, extent, offsets, values, settings):
        old = self._old_within(start, extent)
        self._keep(_zinto.encode_vlen_chunks(*self._array, old, start, extent, offsets,
                                             values, settings))


class _WriteTarget:
    """Where a pipeline write goes: `reader` reads a chunk's old values, `writer` writes a
    region (a zinto array, or a `_ChunkEncoder` for a zarr-python store, whose chunks
    `finish` hands to the store under the batch's `keys`)."""

    def __init__(self, reader, writer, settings, in_place, keys=None):
        # `settings`: how zinto writes (`write_empty_chunks`, `inner_chunk_order`).
        self.reader, self.writer, self.settings = reader, writer, settings
        self.in_place, self.keys = in_place, keys
        self.shape = reader.shape
        # "string" or "bytes" for a variable-length array (written by `write_vlen`), else None.
        self.vlen = reader.dtype if reader.dtype in ("string", "bytes") else None

    def read(self, start, extent, flat):
        self.reader.read_into(start, extent, flat, 1)

    def write(self, start, extent, flat):
        self.writer.write_from(start, extent, flat, self.settings)

    def write_vlen(self, start, extent, offsets, values):
        self.writer.write_vlen(start, extent, offsets, values, self.settings)

    def hand_as_written(self, batch, loop):
        """Makes the encoder store each call's chunks under the batch's keys as soon as they
        are encoded, on zarr-python's event loop `loop` (the write runs on another thread)."""
        where = {key: (bg, spec) for key, (bg, spec, *_) in zip(self.keys, batch)}

        def hand(chunks):
            mine = {k: v for k, v in chunks.items() if k in where}
            self.writer.encoded.update({k: v for k, v in chunks.items() if k not in where})

            async def store():
                await asyncio.gather(*(
                    where[k][0].set(where[k][1].prototype.buffer.from_bytes(v))
                    for k, v in mine.items()))
            asyncio.run_coroutine_threadsafe(store(), loop).result()

        self.writer.hand = hand

    async def finish(self, batch):
        if self.keys is None:
            return
        encoded, handed = self.writer.encoded, self.writer.handed
        await asyncio.gather(*(
            bg.set(spec.prototype.buffer.from_bytes(encoded.pop(key))) if key in encoded
            else bg.delete()
            for key, (bg, spec, *_) in zip(self.keys, batch) if key not in handed))


def _write_piece(target, piece, data, drop_axes, chunk_shape):
    """One chunk of a selection that is not one rectangle: the chunk (its part inside the
    array) laid in a scratch, from its old values unless zarr-python says the selection
    covers it, the value's piece put in through zarr-python's own selections (as the default
    pipeline puts it), and the chunk written whole (encoded once)."""
    coords, chunk_sel, out_sel, complete, fill = piece
    start, extent = _piece_box(coords, chunk_sel, target.shape, chunk_shape)
    scratch = np.empty(extent, dtype=data.dtype)
    if not complete:
        target.read(start, extent, scratch.reshape(-1).view(np.uint8))
    _lay_piece(scratch, piece, data, drop_axes)
    target.write(start, extent, scratch.reshape(-1).view(np.uint8))


def _write_vlen_piece(target, piece, data, drop_axes, chunk_shape):
    """`_write_piece` for strings and bytes: the chunk laid in a scratch of objects (its old
    elements read by zinto unless zarr-python says the selection covers it), the value's piece
    put in, and the chunk written whole by `write_vlen`."""
    coords, _chunk_sel, _out_sel, complete, _fill = piece
    start, extent = _piece_box(coords, piece[1], target.shape, chunk_shape)
    text = target.vlen == "string"
    scratch = np.empty(extent, dtype=object)
    if not complete:
        offsets, values = target.reader.read_vlen(start, extent)
        _vlen.fill(scratch, offsets, values, text)
    _lay_piece(scratch, piece, data, drop_axes)
    _vlen.write(target.write_vlen, start, extent, scratch, extent[0] if extent else 1, text)


def _piece_box(coords, chunk_sel, shape, chunk_shape):
    """`(start, extent)` of the chunk at `coords`: its part inside an array of `shape`."""
    start = [c * n for c, n in zip(coords, chunk_shape)]
    extent = [min(n, d - s) for n, d, s in zip(chunk_shape, shape, start)]
    if min(extent, default=1) <= 0:
        raise ValueError("a chunk outside the array's shape")
    for sel, n in zip(chunk_sel, extent):
        # NumPy cuts a slice at the scratch's end without a word: a selection past it is a
        # shape zinto does not know (the array grew since the pipeline was made).
        if isinstance(sel, slice) and (sel.stop or 0) > n:
            raise ValueError("a selection past the array's shape")
    return start, extent


def _lay_piece(scratch, piece, data, drop_axes):
    """The value's piece put into the chunk's `scratch` through zarr-python's own selections
    (as the default pipeline puts it); the fill value first where the selection covers the
    chunk (it shows only past the array's edge)."""
    _coords, chunk_sel, out_sel, complete, fill = piece
    try:
        if complete:
            scratch[...] = fill
        part = data
        if data.ndim:  # a scalar is laid as it is, as the default pipeline lays it
            part = data[out_sel]
            if drop_axes:
                part = part[tuple(None if d in drop_axes else slice(None)
                                  for d in range(scratch.ndim))]
        scratch[chunk_sel] = part
    except (IndexError, ValueError, TypeError) as e:
        raise _Unhandled from e


def _write_region(write, start, extent, data, chunk_shape, slab_bytes=None):
    """`write(start, extent, flat_bytes)` of `data` over the region: an array as its bytes (in
    slabs of whole chunk rows of at most `slab_bytes`, if given: each a slice of the array's
    bytes, not a copy), a scalar (over a region with dimensions) in slabs (`_write_scalar`)."""
    if data.ndim == 0 and extent:
        _write_scalar(write, start, extent, data, chunk_shape)
        return
    flat = np.ascontiguousarray(data).reshape(-1).view(np.uint8)
    if slab_bytes is None or not extent or len(flat) <= slab_bytes:
        write(start, extent, flat)
        return
    row = len(flat) // max(extent[0], 1)
    step = chunk_shape[0]
    rows = max(step, (slab_bytes // max(row, 1)) // step * step)
    at, end = start[0], start[0] + extent[0]
    while at < end:
        until = min(end, at // step * step + rows)
        part = flat[(at - start[0]) * row:(until - start[0]) * row]
        write([at, *start[1:]], [until - at, *extent[1:]], part)
        at = until


def _short_of(chunk_sel, chunk_shape):
    """Whether a selection zarr-python calls complete spans less than the whole chunk: the
    array's edge (its shape now, which the pipeline's metadata may not know) cuts the chunk."""
    try:
        boxes = [_box(sel, n) for sel, n in zip(chunk_sel, chunk_shape)]
    except _Unhandled:
        return False
    return any(b is None or b[1] - b[0] < n for b, n in zip(boxes, chunk_shape))


def _held_bytes(buf):
    """A fetched chunk's bytes as a `bytes` object zinto holds without copying: the one
    zarr-python's store gave (an fsspec store's `cat_file`, wrapped by `Buffer.from_bytes`),
    where the buffer is all of one; else a copy (`to_bytes`)."""
    try:
        raw = buf.as_numpy_array()
    except (AttributeError, NotImplementedError, TypeError):
        return buf.to_bytes()
    base = raw.base
    if (isinstance(base, bytes) and raw.ndim == 1 and raw.nbytes == len(base)
            and raw.ctypes.data == np.frombuffer(base, dtype="B").ctypes.data):
        return base
    return buf.to_bytes()


def _reader(rs, start, extent, target, absent):
    """The call that reads the region into `target`, or None if zinto's type and the output's
    differ: fixed-width types straight into the output's bytes, variable-length strings
    (into StringDType or object outputs) and bytes (object) element by element. The read
    appends the coordinates of the chunks it finds absent to the list `absent`, if given."""
    kind = rs.dtype
    if kind in ("string", "bytes"):
        if target.dtype.kind not in ("O" if kind == "bytes" else "OT"):
            return None

        def read_vlen():
            offsets, values = rs.read_vlen(start, extent, absent)
            _vlen.fill(target, offsets, values, text=kind == "string")

        return read_vlen
    if target.dtype.kind in "OT" or np.dtype(kind) != target.dtype:
        return None
    flat = target.reshape(-1).view(np.uint8)
    return lambda: rs.read_into(start, extent, flat, None, absent)


class _Unhandled(Exception):
    """A chunk selection of a kind `_box` does not take."""


def _box(sel, extent):
    """One dimension of a chunk selection (within a chunk of `extent`): `(lo, hi, rel)`, the
    bounds of what it touches and the selection relative to `lo`, or None if it selects
    nothing. Ints, slices with positive steps, integer arrays (any shape, as `np.ix_` gives
    them) and 1-D boolean masks; anything else raises `_Unhandled`."""
    if isinstance(sel, (int, np.integer)):
        return int(sel), int(sel) + 1, 0
    if isinstance(sel, slice):
        start, stop, step = sel.indices(extent)
        n = len(range(start, stop, step)) if step > 0 else -1
        if n < 0:
            raise _Unhandled
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
    raise _Unhandled


def _scratch_dtype(rs, target):
    """The type a piece is decoded into before it goes into `target`: zinto's (native order;
    NumPy converts into a big-endian output), the output's own for strings and bytes; None
    if zinto's type and the output's differ."""
    kind = rs.dtype
    if kind in ("string", "bytes"):
        return target.dtype if target.dtype.kind in ("O" if kind == "bytes" else "OT") else None
    if target.dtype.kind in "OT":
        return None
    native = np.dtype(kind)
    return native if native == target.dtype.newbyteorder("=") else None


def _selection_shape(batch):
    """The shape of the selection a scalar is written to: the end of every output slice,
    per output dimension (the region check then confirms the pieces tile it)."""
    ends = None
    for _bg, _spec, _chunk_sel, out_sel, _complete in batch:
        if not isinstance(out_sel, tuple) or not all(isinstance(o, slice) for o in out_sel):
            return None
        here = [o.stop for o in out_sel]
        ends = here if ends is None else [max(a, b) for a, b in zip(ends, here)]
    return None if ends is None else tuple(ends)


def _write_scalar(write, start, extent, scalar, chunk_shape):
    """Writes `scalar` over the region in slabs of whole chunk rows along the first dimension
    (`write(start, extent, flat_bytes)` each), each from one buffer of at most
    `SCALAR_SLAB_BYTES` (or one chunk row) laid once."""
    row = scalar.dtype.itemsize * int(np.prod(extent[1:], dtype=np.int64))
    step = chunk_shape[0]
    rows = max(step, (SCALAR_SLAB_BYTES // max(row, 1)) // step * step)
    buffer = np.full((min(rows, extent[0]), *extent[1:]), scalar, dtype=scalar.dtype)
    at, end = start[0], start[0] + extent[0]
    while at < end:
        until = min(end, at // step * step + rows)
        part = buffer[:until - at].reshape(-1).view(np.uint8)
        write([at, *start[1:]], [until - at, *extent[1:]], part)
        at = until


# zarr-python finds pipelines by the name `config.codec_pipeline.path` gives, which it compares
# with the class's module and name: the name users write is "zinto.ZintoCodecPipeline".
ZintoCodecPipeline.__module__ = "zinto"
