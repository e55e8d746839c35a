"""zinto's view of the metadata zarr-python hands the pipeline: the document zinto parses, how
chunk keys look, and the default pipeline that takes what zinto does not."""

import itertools
import json
from dataclasses import dataclass

import numpy as np
from zarr.core.codec_pipeline import BatchedCodecPipeline

from .counts import FILL_NOT_CANONICAL, METADATA_NOT_TAKEN


@dataclass(frozen=True)
class Meta:
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
    # A rectilinear grid: per dimension, the start of every chunk and one past the last (or
    # None where the dimension is regular); None for a regular grid. `chunk_shape` is then the
    # longest edges.
    starts: tuple = None

    def origin(self, coords, d):
        """Where chunk `coords` starts along dimension `d`."""
        if self.starts is None or self.starts[d] is None:
            return coords[d] * self.chunk_shape[d]
        return self.starts[d][coords[d]]

    def knows(self, chunks):
        """Whether every chunk of the batch is on the grid this metadata states: a
        rectilinear array appended to since the pipeline was made has chunks past it (a
        regular grid has every chunk; the shape is checked where the region is)."""
        if self.starts is None:
            return True
        return all(s is None or c + 1 < len(s)
                   for chunk in chunks for c, s in zip(chunk.coords, self.starts))

    def chunk_shape_at(self, coords):
        """The shape of the chunk at `coords`, as stored."""
        if self.starts is None:
            return self.chunk_shape
        return tuple(n if s is None else s[c + 1] - s[c]
                     for c, n, s in zip(coords, self.chunk_shape, self.starts))

    def split_key(self, path):
        """`(array path, chunk coordinates)` of a chunk's store path, or None."""
        parts = path.split("/")
        if len(parts) < self.key_parts:
            return None
        key = parts[len(parts) - self.key_parts:]
        array_path = "/".join(parts[:len(parts) - self.key_parts])
        fields = key if self.separator == "/" else key[0].split(self.separator)
        if self.prefix:
            if not fields or fields[0] != self.prefix:
                return None
            fields = fields[1:]
        if self.ndim == 0:
            return (array_path, ()) if fields in ([], ["0"]) else None
        if len(fields) != self.ndim or not all(f.isdigit() for f in fields):
            return None
        return array_path, tuple(int(f) for f in fields)


def meta_of(metadata):
    """zinto's view of zarr-python's array metadata, or why it cannot be taken (a reason)."""
    try:
        if not _canonical_fill(metadata):
            return FILL_NOT_CANONICAL
        doc = metadata.to_dict()
        ndim = len(metadata.shape)
        sharded = False
        if metadata.zarr_format == 3:
            from zarr.codecs import ShardingCodec

            grid = doc["chunk_grid"]["name"] if isinstance(doc["chunk_grid"], dict) else None
            sharded = any(isinstance(c, ShardingCodec) for c in metadata.codecs)
            starts = None
            if grid == "rectilinear":
                chunk_shape, starts = _rectilinear(metadata.chunk_grid.chunk_shapes)
            elif grid == "regular":
                chunk_shape = tuple(metadata.chunk_grid.chunk_shape)
            else:
                return METADATA_NOT_TAKEN
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
        return Meta(metadata.zarr_format, json.dumps(doc).encode(), ndim, chunk_shape,
                    key_parts, separator, prefix, sharded,
                    starts if metadata.zarr_format == 3 else None)
    except Exception:  # noqa: BLE001 - anything zinto cannot take goes to the default pipeline
        return METADATA_NOT_TAKEN


def _rectilinear(chunk_shapes):
    """`(longest edges, starts)` of zarr-python's rectilinear `chunk_shapes` (a bare int per
    regular dimension, else its edges, which zarr-python already holds one by one)."""
    longest, starts = [], []
    for spec in chunk_shapes:
        if isinstance(spec, int):
            longest.append(spec)
            starts.append(None)
        else:
            longest.append(max(spec))
            starts.append((0, *itertools.accumulate(spec)))
    return tuple(longest), tuple(starts)


def _canonical_fill(metadata):
    """Whether the fill value survives `to_dict` and JSON: a NaN with a payload other than
    NumPy's own does not (it becomes plain NaN), so such arrays are left to zarr-python."""
    fill = np.asarray(metadata.fill_value)
    if fill.dtype.kind in "fc" and np.isnan(fill).any():
        canonical = np.full(fill.shape, np.nan, dtype=fill.dtype)
        return fill.tobytes() == canonical.tobytes()
    return True


def default_pipeline(metadata):
    """zarr-python's default pipeline for the array, which takes what zinto does not."""
    if metadata.zarr_format == 3:
        return BatchedCodecPipeline.from_codecs(metadata.codecs)
    from zarr.codecs._v2 import V2Codec

    return BatchedCodecPipeline.from_codecs(
        [V2Codec(filters=metadata.filters, compressor=metadata.compressor)])


def foreign_codec(pipeline):
    """Whether a codec of `pipeline`, or of a shard's inside it, is of a class neither
    zarr-python's nor numcodecs' own (a class the user registered has its own encode and
    decode, which zinto would bypass)."""
    todo = list(pipeline)
    while todo:
        codec = todo.pop()
        if type(codec).__module__.split(".")[0] not in ("zarr", "numcodecs"):
            return True
        for inner in ("codecs", "index_codecs"):
            todo += list(getattr(codec, inner, None) or ())
    return False
