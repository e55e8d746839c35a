"""Reads zinto does for the pipeline: a batch that tiles one rectangle straight into
zarr-python's output, else piece by piece through a scratch per piece. Each returns None, or
why zinto did not read (then nothing usable was written and the default pipeline reads it).
The grid coordinates of the chunks found absent go into the caller's set `absent`."""

import asyncio

import numpy as np

from .. import _vlen, _zinto
from . import batch as geometry
from .counts import (
    DTYPE_DIFFERS, METADATA_NOT_TAKEN, NOT_ONE_RECTANGLE, OUTPUT_BIG_ENDIAN,
    OUTPUT_NOT_C_ORDER, OUTPUT_NOT_NUMPY, OUTPUT_READ_ONLY, REMOTE_FAILED, RESIZED,
    SELECTION_KIND, SHARDS_WRAPPED, STRUCTURED,
)


def ndarray_of(buffer):
    """The NumPy array (or whatever array) behind zarr-python's NDBuffer `buffer`."""
    return buffer.as_ndarray_like() if hasattr(buffer, "as_ndarray_like") else buffer


def refuse_output(target):
    """Why zinto cannot read straight into `target`, or None."""
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


async def whole(arrays, chunks, out, drop_axes, absent):
    """Reads the batch's `chunks` (one rectangle) into `out` with one zinto read."""
    m = arrays.meta
    target = ndarray_of(out)
    refused = refuse_output(target)
    if refused is not None:
        return refused
    default = arrays.default
    if m.sharded and not arrays.addresses_store() and (
            default.array_array_codecs or default.bytes_bytes_codecs):
        return SHARDS_WRAPPED  # the inner chunks are not an array of their own
    if not m.knows(chunks):
        return RESIZED
    region = geometry.region(chunks, m, target.shape, drop_axes)
    if region is None:
        return NOT_ONE_RECTANGLE
    start, extent = region
    path = chunks[0].array_path
    try:
        rs, reports = await arrays.for_read(chunks, path, absent)
    except _zinto.ZintoError:
        return METADATA_NOT_TAKEN  # the default pipeline reads it
    found = [] if reports else None
    read = _reader(rs, start, extent, target, found)
    if read is None:
        return DTYPE_DIFFERS
    remote = arrays.is_remote(path)
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
        arrays.give_up_remote(path)
        return REMOTE_FAILED
    except ValueError:
        # The region is outside the shape zinto knows: the array was resized or appended to
        # since this pipeline was made (zarr-python keeps the pipeline, with the old
        # metadata). Nothing was written: the layout is checked before any chunk is read.
        # From a LocalStore zinto takes the metadata the store holds now and reads again.
        if arrays.local_root() is None or not await arrays.reopen(path):
            return RESIZED
        absent.clear()
        return await whole(arrays, chunks, out, drop_axes, absent)
    absent.update(found or ())
    return None


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


async def gathered(arrays, chunks, out, drop_axes, absent):
    """Reads a batch that is not one rectangle (index lists, masks, steps, points) with one
    zinto read straight into `out`: the selection put together again from the batch's pieces,
    each chunk (each inner chunk of a shard) read once into a worker's scratch, and only the
    selected elements gathered into place (no scratch of a piece's whole box)."""
    m = arrays.meta
    target = ndarray_of(out)
    refused = refuse_output(target)
    if refused is not None:
        return refused
    if not m.knows(chunks):
        return RESIZED
    groups = geometry.selection(chunks, m, target.shape, drop_axes)
    if groups is None:
        return SELECTION_KIND
    path = chunks[0].array_path
    try:
        rs, reports = await arrays.for_read(chunks, path, absent)
    except _zinto.ZintoError:
        return METADATA_NOT_TAKEN
    if rs.dtype in ("string", "bytes") or target.dtype.kind in "OT" \
            or np.dtype(rs.dtype) != target.dtype:
        return DTYPE_DIFFERS
    found = [] if reports else None
    flat = target.reshape(-1).view(np.uint8)

    def read():
        if flat.size:
            rs.read_selection_into(groups, flat, None, found)

    remote = arrays.is_remote(path)
    try:
        if remote:
            await asyncio.to_thread(read)
        else:
            read()
    except _zinto.StoreError:
        if not remote:
            raise
        arrays.give_up_remote(path)
        return REMOTE_FAILED
    except ValueError:
        return RESIZED  # coordinates outside the shape zinto knows: nothing was written
    absent.update(found or ())
    return None


async def in_pieces(arrays, chunks, out, drop_axes, absent):
    """Reads the batch piece by piece: each piece's chunk decoded by zinto into a scratch of
    the box its selection touches, then put into `out` through zarr-python's own selections
    (as the default pipeline puts a decoded chunk), so any selection zarr-python hands over,
    and outputs in any order or byte order, are read by zinto; the pieces run in parallel,
    each with one scratch."""
    m = arrays.meta
    target = ndarray_of(out)
    if not isinstance(target, np.ndarray):
        return OUTPUT_NOT_NUMPY
    if target.dtype.kind == "V":
        return STRUCTURED
    if not m.knows(chunks):
        return RESIZED
    chunks = geometry.pieces(chunks, m)
    if isinstance(chunks, str):
        return chunks
    pieces = []
    for chunk in chunks:
        try:
            spans = geometry.boxes(chunk, m.chunk_shape_at(chunk.coords))
        except geometry.Unhandled:
            return SELECTION_KIND
        if None not in spans:
            pieces.append((chunk, spans))
    try:
        rs, reports = await arrays.for_read(chunks, chunks[0].array_path, absent)
    except _zinto.ZintoError:
        return METADATA_NOT_TAKEN
    scratch_dtype = _scratch_dtype(rs, target)
    if scratch_dtype is None:
        return DTYPE_DIFFERS

    def read_piece(piece):
        chunk, spans = piece
        start = [m.origin(chunk.coords, d) + lo for d, (lo, _, _) in enumerate(spans)]
        extent = [hi - lo for lo, hi, _ in spans]
        scratch = np.empty(extent, dtype=scratch_dtype)
        found = [] if reports else None
        if rs.dtype in ("string", "bytes"):
            offsets, values = rs.read_vlen(start, extent, found)
            _vlen.fill(scratch, offsets, values, text=rs.dtype == "string")
        elif scratch.size:
            rs.read_into(start, extent, scratch.reshape(-1).view(np.uint8), 1, found)
        absent.update(found or ())
        try:
            part = scratch[tuple(rel for _, _, rel in spans)]
            target[chunk.out_sel] = part.squeeze(axis=drop_axes) if drop_axes else part
        except (IndexError, ValueError) as e:
            raise geometry.Unhandled from e

    # Whatever fails here, the default pipeline then writes all of `out` again.
    try:
        await asyncio.gather(*(asyncio.to_thread(read_piece, p) for p in pieces))
    except geometry.Unhandled:
        return SELECTION_KIND
    except ValueError:
        return RESIZED  # a piece outside the shape zinto knows
    return None


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
