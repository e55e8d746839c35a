"""Writes zinto does for the pipeline: into files or an object store zinto addresses, straight
from zarr-python's value; into any other store, chunks zinto encodes and zarr-python's store
takes. `value` returns None, or why zinto did not write (then the default pipeline writes all
of it)."""

import asyncio

import numpy as np
from zarr.core.codec_pipeline import fill_value_or_default

from .. import _slabs, _vlen, _zinto
from . import batch as geometry
from . import zarr_api
from .counts import (
    DTYPE_DIFFERS, METADATA_NOT_TAKEN, NOT_WRITTEN_BY_ZINTO, OUTPUT_BIG_ENDIAN,
    OUTPUT_NOT_NUMPY, OUTPUT_OBJECTS, REMOTE_FAILED, RESIZED, SELECTION_KIND,
    STORE_READ_ONLY,
)
from .read import ndarray_of
from .stores import held_bytes

# A scalar written over a region is laid into one buffer of about this many bytes (a slab of
# whole chunks, zinto._slabs), reused slab by slab, not one of the region's size.
SCALAR_SLAB_BYTES = 16 << 20
# A write into a store zinto does not address goes in slabs of whole chunks of about this much
# input, each slab's chunks handed to the store before the next is encoded: the encoded chunks
# held are one slab's, not the write's.
ENCODE_SLAB_BYTES = 64 << 20


async def value(arrays, chunks, data, drop_axes):
    """Writes `data` (zarr-python's value) through the batch's `chunks` with zinto."""
    if getattr(arrays.store, "read_only", False):
        return STORE_READ_ONLY  # the default pipeline raises zarr-python's own error
    if not arrays.meta.knows(chunks):
        return RESIZED
    data = ndarray_of(data)
    refused = _refuse_value(data)
    if refused is not None:
        return refused
    shape = data.shape if data.ndim else geometry.selection_shape(chunks)
    region = None if shape is None else geometry.region(chunks, arrays.meta, shape, drop_axes)
    pieces = None
    if region is None:
        pieces = geometry.pieces(chunks, arrays.meta)
        if isinstance(pieces, str):
            return pieces
    target = await _target(arrays, chunks, data.dtype, whole_chunks=pieces is not None)
    if isinstance(target, str):
        return target
    if target.keys is not None:
        target.hand_as_written(chunks, asyncio.get_running_loop())
    write = _Write(target, data, drop_axes, arrays.meta)
    try:
        if target.in_place:
            write.run(region, pieces)  # local files: as the default pipeline, on its loop
        else:
            await asyncio.to_thread(write.run, region, pieces)  # network, or encodes
    except _zinto.StoreError:
        if target.in_place or target.keys is not None:
            raise
        # zarr-python reaches this store and zinto does not (credentials, a region): the
        # default pipeline writes all of it again, and every later write.
        arrays.remote_failed = True
        return REMOTE_FAILED
    except geometry.Unhandled:
        return SELECTION_KIND  # the default pipeline writes all of it again
    except ValueError:
        # The region is outside the shape zinto knows (the array grew since the pipeline was
        # made); for a zarr-python store nothing was stored yet.
        return RESIZED
    await target.finish(chunks)
    return None


class _Write:
    """One write of `data` into `target`: over a region (`run(region, None)`) or chunk by
    chunk (`run(None, pieces)`), numbers or strings."""

    def __init__(self, target, data, drop_axes, meta):
        self.target, self.data, self.drop_axes = target, data, drop_axes
        self.meta = meta

    def run(self, region, pieces):
        target, data, meta = self.target, self.data, self.meta
        if pieces is not None:
            write_piece = _write_vlen_piece if target.vlen is not None else _write_piece
            for chunk in pieces:
                write_piece(target, chunk, data, self.drop_axes, meta)
            return
        start, extent = region
        if target.vlen is not None:
            text = target.vlen == "string"
            _vlen.write(target.write_vlen, start, extent, data, meta.chunk_shape, text,
                        meta.starts)
            return
        slab = ENCODE_SLAB_BYTES if target.keys is not None else None
        _write_region(target.write, (start, extent), data, meta, slab)


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


async def _target(arrays, chunks, dtype, whole_chunks):
    """Where the write goes: a `WriteTarget` over the array as the store holds it now, or why
    zinto does not write it."""
    how = {"write_empty_chunks": bool(chunks[0].spec.config.write_empty_chunks),
           "inner_chunk_order": zarr_api.inner_chunk_order(arrays.default)}
    if arrays.local_root() is None and arrays.remote() is None:
        return await _bytes_target(arrays, chunks, dtype, how, whole_chunks)
    rs = await arrays.current(chunks[0].array_path)
    if isinstance(rs, str):
        return rs
    refused = _refuse_array(rs, dtype)
    if refused is not None:
        return refused
    return WriteTarget(rs, rs, how, in_place=arrays.local_root() is not None)


async def _bytes_target(arrays, chunks, dtype, how, whole_chunks):
    """For a store zinto does not write itself (a MemoryStore, a ZipStore, an fsspec store):
    zinto encodes the chunks (each once, in parallel, from the value) and each chunk's bytes
    go to zarr-python's store as the default pipeline hands them over: set, or deleted when
    left all fill value. The chunks the selection only partly covers are fetched first."""
    m = arrays.meta
    try:
        rs = _zinto.array_of_chunks(m.zarr_format, m.document, {})
    except (_zinto.ZintoError, TypeError):
        return METADATA_NOT_TAKEN
    refused = _refuse_array(rs, dtype)
    if refused is not None:
        return refused
    document = await _present_document(arrays, chunks, rs.shape)
    if document is None:
        return METADATA_NOT_TAKEN
    # A stored shard past the array's edge keeps its cells there (zinto reads it whole), as
    # zarr-python keeps them: it is fetched even when the selection covers its part.
    edge = {c.key for c in chunks
            if m.sharded and c.complete and geometry.short_of(c.chunk_sel, m.chunk_shape)}
    partial = [c for c in chunks if not c.complete or c.key in edge]
    fetched = await asyncio.gather(*(c.getter.get(prototype=c.spec.prototype) for c in partial))
    old = {c.key: held_bytes(buf) for c, buf in zip(partial, fetched) if buf is not None}
    try:
        old_rs = _zinto.array_of_chunks(m.zarr_format, document, old)
    except (_zinto.ZintoError, TypeError):
        return METADATA_NOT_TAKEN
    # Whole chunks need none of the old ones but shards past the edge (and each call copies
    # what it is given).
    coords = {c.key: c.coords for c in partial}
    kept = {k: v for k, v in old.items() if k in edge} if whole_chunks else old
    encoder = ChunkEncoder((m.zarr_format, document), kept, coords, m)
    return WriteTarget(old_rs, encoder, how, in_place=False, keys=[c.key for c in chunks])


async def _present_document(arrays, chunks, shape):
    """The metadata document a bytes-API write uses: the pipeline's own, or the store's when
    the batch cuts a chunk at that document's edge. zarr-python keeps the pipeline (and its
    metadata) when it resizes an array; zinto lays the fill value past an edge chunk's end,
    which after a grow would hide values written there since, so only then is the store asked
    (the default pipeline fetches that chunk anyway; whole-chunk writes ask the store
    nothing, as zarr-python's own tests count)."""
    m = arrays.meta
    at_edge = any(
        not c.complete and any(m.origin(c.coords, k) + n > d for k, (n, d) in
                               enumerate(zip(m.chunk_shape_at(c.coords), shape)))
        for c in chunks)
    if not at_edge:
        return m.document
    path = chunks[0].array_path
    key = "zarr.json" if m.zarr_format == 3 else ".zarray"
    doc = await arrays.store.get(f"{path}/{key}" if path else key,
                                 prototype=chunks[0].spec.prototype)
    return None if doc is None else doc.to_bytes()


class ChunkEncoder:
    """Chunks encoded for a zarr-python store (`_zinto.encode_chunks`, `encode_vlen_chunks`),
    gathered by key."""

    def __init__(self, array, old, coords, meta):
        self._array, self._old, self._coords = array, old, coords
        self._meta = meta
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
        m = self._meta

        def touches(coords):
            if coords is None:
                return True
            at = [m.origin(coords, d) for d in range(len(coords))]
            return all(a < s + e and a + n > s for a, n, s, e in
                       zip(at, m.chunk_shape_at(coords), start, extent))
        return {k: v for k, v in self._old.items() if touches(self._coords.get(k))}

    def write_from(self, start, extent, flat, settings):
        old = self._old_within(start, extent)
        self._keep(_zinto.encode_chunks(self._array, old, (start, extent), flat, settings))

    def write_vlen(self, start, extent, offsets, values, settings):
        old = self._old_within(start, extent)
        self._keep(_zinto.encode_vlen_chunks(self._array, old, (start, extent),
                                             (offsets, values), settings))


class WriteTarget:
    """Where a pipeline write goes: `reader` reads a chunk's old values, `writer` writes a
    region (a zinto array, or a `ChunkEncoder` for a zarr-python store, whose chunks
    `finish` hands to the store under the batch's `keys`), `settings` says how (a dict:
    `write_empty_chunks`, `inner_chunk_order`)."""

    def __init__(self, reader, writer, settings, in_place, keys=None):
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

    def hand_as_written(self, chunks, loop):
        """Makes the encoder store each call's chunks under the batch's keys as soon as they
        are encoded, on zarr-python's event loop `loop` (the write runs on another thread)."""
        where = {c.key: c for c in chunks}

        def hand(encoded):
            mine = {k: v for k, v in encoded.items() if k in where}
            self.writer.encoded.update({k: v for k, v in encoded.items() if k not in where})

            async def store():
                await asyncio.gather(*(
                    where[k].getter.set(where[k].spec.prototype.buffer.from_bytes(v))
                    for k, v in mine.items()))
            asyncio.run_coroutine_threadsafe(store(), loop).result()

        self.writer.hand = hand

    async def finish(self, chunks):
        """Hands the chunks not handed yet to zarr-python's store: set, or deleted when the
        write left them all fill value (nothing encoded)."""
        if self.keys is None:
            return
        encoded, handed = self.writer.encoded, self.writer.handed
        await asyncio.gather(*(
            c.getter.set(c.spec.prototype.buffer.from_bytes(encoded.pop(c.key)))
            if c.key in encoded else c.getter.delete()
            for c in chunks if c.key not in handed))


def _write_piece(target, chunk, data, drop_axes, meta):
    """One chunk of a selection that is not one rectangle: the chunk (its part inside the
    array) laid in a scratch, from its old values unless zarr-python says the selection
    covers it, the value's piece put in through zarr-python's own selections (as the default
    pipeline puts it), and the chunk written whole (encoded once). Where zinto writes the
    store itself and the selection does not cover the chunk, all of that under the chunk's
    update guard (a lock on files, a conditional
    write on S3, GCS and Azure: docs/reliability.md), again from the read if another writer
    replaced the chunk first."""
    start, extent = _piece_box(chunk, target.shape, meta)
    scratch = np.empty(extent, dtype=data.dtype)
    if target.keys is None and not chunk.complete:
        target.writer.update_chunk(start, extent, scratch.reshape(-1).view(np.uint8), True,
                                   lambda: _lay_piece(scratch, chunk, data, drop_axes),
                                   target.settings)
        return
    if not chunk.complete:
        target.read(start, extent, scratch.reshape(-1).view(np.uint8))
    _lay_piece(scratch, chunk, data, drop_axes)
    target.write(start, extent, scratch.reshape(-1).view(np.uint8))


def _write_vlen_piece(target, chunk, data, drop_axes, meta):
    """`_write_piece` for strings and bytes: the chunk laid in a scratch of objects (its old
    elements read by zinto unless zarr-python says the selection covers it), the value's piece
    put in, and the chunk written whole by `write_vlen`; under the chunk's update guard as
    `_write_piece` is (`RsArray.update_vlen_chunk`)."""
    start, extent = _piece_box(chunk, target.shape, meta)
    text = target.vlen == "string"
    scratch = np.empty(extent, dtype=object)
    if target.keys is None and not chunk.complete:
        def merge(offsets, values):
            _vlen.fill(scratch, offsets, values, text)
            _lay_piece(scratch, chunk, data, drop_axes)
            return _vlen.flatten(scratch, extent, text)
        target.writer.update_vlen_chunk(start, extent, merge, target.settings)
        return
    if not chunk.complete:
        offsets, values = target.reader.read_vlen(start, extent)
        _vlen.fill(scratch, offsets, values, text)
    _lay_piece(scratch, chunk, data, drop_axes)
    _vlen.write(target.write_vlen, start, extent, scratch, meta.chunk_shape, text, meta.starts)


def _piece_box(chunk, shape, meta):
    """`(start, extent)` of `chunk`: its part inside an array of `shape` (`meta`'s grid)."""
    start = [meta.origin(chunk.coords, d) for d in range(len(chunk.coords))]
    extent = [min(n, d - s) for n, d, s in zip(meta.chunk_shape_at(chunk.coords), shape, start)]
    if min(extent, default=1) <= 0:
        raise ValueError("a chunk outside the array's shape")
    for sel, n in zip(chunk.chunk_sel, extent):
        # NumPy cuts a slice at the scratch's end without a word: a selection past it is a
        # shape zinto does not know (the array grew since the pipeline was made).
        if isinstance(sel, slice) and (sel.stop or 0) > n:
            raise ValueError("a selection past the array's shape")
    return start, extent


def _lay_piece(scratch, chunk, data, drop_axes):
    """The value's piece put into the chunk's `scratch` through zarr-python's own selections
    (as the default pipeline puts it); the fill value first where the selection covers the
    chunk (it shows only past the array's edge)."""
    try:
        if chunk.complete:
            scratch[...] = fill_value_or_default(chunk.spec)
        part = data
        if data.ndim:  # a scalar is laid as it is, as the default pipeline lays it
            part = data[chunk.out_sel]
            if drop_axes:
                part = part[tuple(None if d in drop_axes else slice(None)
                                  for d in range(scratch.ndim))]
        scratch[chunk.chunk_sel] = part
    except (IndexError, ValueError, TypeError) as e:
        raise geometry.Unhandled from e


def _write_region(write, box, data, meta, slab_bytes=None):
    """`write(start, extent, flat_bytes)` of `data` over the region: an array as its bytes (in
    slabs of whole chunks of about `slab_bytes`, if given: each a view of the array's bytes,
    not a copy), a scalar (over a region with dimensions) in slabs (`_write_scalar`). `box`
    is `(start, extent)`; the slabs follow `meta`'s grid."""
    start, extent = box
    if data.ndim == 0 and extent:
        _write_scalar(write, box, data, meta)
        return
    data = np.ascontiguousarray(data)
    if slab_bytes is None or not extent or data.nbytes <= slab_bytes:
        write(start, extent, data.reshape(-1).view(np.uint8))
        return
    whole = data.reshape(extent)
    for at, size, index in _slabs.slabs(start, extent, meta.chunk_shape, data.itemsize,
                                        slab_bytes, meta.starts):
        write(at, size, whole[index].reshape(-1).view(np.uint8))


def _write_scalar(write, box, scalar, meta):
    """Writes `scalar` over the region in slabs of whole chunks (`write(start, extent,
    flat_bytes)` each), each from one buffer of about `SCALAR_SLAB_BYTES` (or one chunk's
    extent of the axis cut) laid once."""
    start, extent = box
    cut = list(_slabs.slabs(start, extent, meta.chunk_shape, scalar.dtype.itemsize,
                            SCALAR_SLAB_BYTES, meta.starts))
    if not cut:
        return
    largest = max(int(np.prod(size, dtype=np.int64)) for _, size, _ in cut)
    buffer = np.full(largest, scalar, dtype=scalar.dtype)
    for at, size, _ in cut:
        write(at, size, buffer[:int(np.prod(size, dtype=np.int64))].view(np.uint8))
