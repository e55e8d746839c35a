"""Where a zarr-python store's objects are, and the zinto arrays a pipeline opens over them:
local files zinto reads and writes itself, an object store it reaches by URL with the store's
own settings, or any other store, whose bytes zarr-python fetches and zinto decodes.

Stores are taken by their class, never by attributes they may lack: a mock made with
`spec=LocalStore` (as zarr-python's tests count calls) is not a LocalStore here.
"""

import asyncio
import itertools
import json
import math
import os

import numpy as np
from zarr.storage import FsspecStore, LocalStore

try:
    from zarr.storage import ObjectStore
except ImportError:  # zarr-python without obstore support
    ObjectStore = None

from .. import _zinto
from . import zarr_api
from .batch import boxes
from .counts import METADATA_NOT_TAKEN, REMOTE_FAILED


def _text(value):
    """A setting as object_store reads it: booleans in lower case."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def local_root(store):
    """The directory of `store`'s objects, if they are local files zinto reads and writes
    itself: a LocalStore, or an FsspecStore over fsspec's local file system (which
    `dask.array.from_zarr` and `xarray` make of a plain path when given storage options)."""
    if issubclass(type(store), LocalStore):
        return str(store.root)
    if issubclass(type(store), FsspecStore):
        fs = getattr(store.fs, "sync_fs", store.fs)  # zarr wraps a sync file system
        if type(fs).__name__ == "LocalFileSystem" and store.path:
            return store.path
    return None


def remote(store):
    """`(url, settings)` through which zinto reaches `store`'s objects itself, or None: an
    ObjectStore over obstore's S3, GCS, Azure or HTTP store, or an FsspecStore over s3fs."""
    if ObjectStore is not None and issubclass(type(store), ObjectStore):
        return _object_store(store.store)
    if issubclass(type(store), FsspecStore) and type(store.fs).__name__ == "S3FileSystem":
        return _s3fs(store)
    return None


def _object_store(inner):
    """`remote` of obstore's store `inner`."""
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


def _s3fs(store):
    """`remote` of an FsspecStore over s3fs."""
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


def held_bytes(buf):
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


class Arrays:
    """The zinto arrays one pipeline reads through, by array path, over its zarr-python
    `store`; `meta` is zinto's view of the array's metadata, `default` zarr-python's default
    pipeline for it (its sharding codec reads shards zinto does not address)."""

    def __init__(self, store, meta, default):
        self.store, self.meta, self.default = store, meta, default
        self._open = {}
        # Set when zinto could not reach the store through its URL (credentials it does not
        # see, a region redirect): from then on zinto decodes the bytes zarr-python fetches.
        self.remote_failed = False

    def local_root(self):
        return local_root(self.store)

    def remote(self):
        return None if self.remote_failed else remote(self.store)

    def addresses_store(self):
        """Whether zinto reads the store's objects itself (files, or an object store's URL)."""
        return self.local_root() is not None or self.remote() is not None

    def is_remote(self, path):
        """Whether reads of the array at `path` go over the network."""
        return self.local_root() is None and ("url", path) in self._open

    def give_up_remote(self, path):
        """zarr-python reaches the store and zinto does not: zarr-python fetches from now on."""
        self.remote_failed = True
        self._open.pop(("url", path), None)

    async def for_read(self, chunks, path, absent):
        """`(array, reports)`: the zinto array at `path` over the store's own files, over the
        store's URL, or over the chunk bytes zarr-python fetched for `chunks`; and whether its
        reads report absent chunks as the batch counts them. Over a sharded array's inner
        chunks they do not: the shards found absent are added to `absent` here."""
        m = self.meta
        root = self.local_root()
        if root is not None:
            key = ("dir", path)
            if key not in self._open:
                self._open[key] = _zinto.array_in_directory(
                    root, path, m.zarr_format, m.document)
            return self._open[key], True
        url = self.remote()
        if url is not None:
            key = ("url", path)
            if key not in self._open:
                # Blocking: zinto's own runtime does the requests (not zarr-python's loop).
                self._open[key] = await asyncio.to_thread(
                    _zinto.array_at_url, url[0], path, m.zarr_format, m.document, url[1])
            return self._open[key], True
        if m.sharded:
            document, stored = await self._inner_chunks(chunks, absent)
            return _zinto.array_of_chunks(m.zarr_format, document, stored), False
        # Each chunk is fetched with the buffer prototype its spec carries, as the default
        # pipeline fetches it (a caller's prototype decides where the bytes go).
        fetched = await asyncio.gather(
            *(c.getter.get(prototype=c.spec.prototype) for c in chunks))
        stored = {c.key: held_bytes(buf) for c, buf in zip(chunks, fetched) if buf is not None}
        return _zinto.array_of_chunks(m.zarr_format, m.document, stored), True

    async def _inner_chunks(self, chunks, absent):
        """For a sharded array on a store zinto cannot address: the metadata document of the
        array seen as its inner chunks (the shard's inner codecs and chunk grid) and those
        chunks, fetched from zarr-python's store as zarr-python fetches them (with each chunk
        spec's prototype): a shard read whole in one get, else its index and then only the
        inner chunks the piece touches (`zarr_api.load_partial_shard`). The coordinates of
        each shard found absent are added to `absent`."""
        m = self.meta
        sharding = self.default.array_bytes_codec
        inner = tuple(sharding.chunk_shape)
        loads = []
        for chunk in chunks:
            # On a rectilinear grid each shard has its own shape, so its own inner grid.
            shape = m.chunk_shape_at(chunk.coords)
            spans = boxes(chunk, shape)
            if None in spans:
                continue  # the piece selects nothing
            wanted = [range(lo // size, -(-hi // size)) for (lo, hi, _), size in zip(spans, inner)]
            per_shard = tuple(s // i for s, i in zip(shape, inner))
            loads.append((chunk, set(itertools.product(*wanted)), per_shard))

        async def load(chunk, wanted, per_shard):
            if len(wanted) == math.prod(per_shard):
                # The whole shard: one get of it all, as zarr-python reads a whole shard.
                shard = await sharding._load_full_shard_maybe(
                    chunk.getter, chunk.spec.prototype, per_shard)
                if shard is None:
                    return None
                return {local: shard.buf[where[0]:where[1]] for local in wanted
                        if (where := shard.index.get_chunk_slice(local)) is not None}
            return await zarr_api.load_partial_shard(
                sharding, chunk.getter, chunk.spec, per_shard, wanted)

        stored = {}
        found = await asyncio.gather(*(load(*one) for one in loads))
        for (chunk, _wanted, _per_shard), shard in zip(loads, found):
            if shard is None:
                absent.add(chunk.coords)
                continue
            # Shards start on multiples of the inner chunk (their edges are multiples of it):
            # the inner chunks are one regular grid over the array.
            first = [m.origin(chunk.coords, d) // size for d, size in enumerate(inner)]
            for local, buf in shard.items():
                grid = (f + i for f, i in zip(first, local))
                stored["/".join(["c", *map(str, grid)])] = held_bytes(buf)
        doc = json.loads(m.document)
        doc["codecs"] = [c.to_dict() for c in sharding.codecs]
        doc["chunk_grid"] = {"name": "regular", "configuration": {"chunk_shape": list(inner)}}
        doc["chunk_key_encoding"] = {"name": "default", "configuration": {"separator": "/"}}
        return json.dumps(doc).encode(), stored

    async def reopen(self, path):
        """Opens the array at `path` again from the metadata the LocalStore holds now;
        whether that changed anything (zarr-python keeps a pipeline when it resizes)."""
        try:
            rs = _zinto.open(os.path.join(self.local_root(), path))
        except (_zinto.ZintoError, OSError):
            return False
        old = self._open.get(("dir", path))
        if not isinstance(rs, _zinto.RsArray) or (old is not None and old.shape == rs.shape):
            return False
        self._open[("dir", path)] = rs
        return True

    async def current(self, path):
        """The array at `path` as the store holds it now (files or URL), for a write: an
        edge chunk written with a shape the pipeline's metadata outlived would be wrong. Or
        why zinto does not write it."""
        root = self.local_root()
        try:
            if root is not None:
                return _zinto.open(os.path.join(root, path))
            url, settings = self.remote()
            return await asyncio.to_thread(_zinto.open_at_url, url, path, settings)
        except _zinto.StoreError:
            if root is not None:
                return METADATA_NOT_TAKEN
            self.remote_failed = True
            return REMOTE_FAILED
        except (_zinto.ZintoError, OSError, TypeError):
            return METADATA_NOT_TAKEN
