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

Other selections (index lists, masks, steps, `oindex`, `vindex`) into such an output are read
with one zinto read too: the selection put together again from the batch, each chunk read
once and only its selected elements gathered into the output. Other output layouts, and
batches that do not make one selection, are read piece by piece (a scratch per piece, put
through zarr-python's selections); strings and bytes element by element. Writes into local
files or an object store zinto addresses are encoded by zinto straight from zarr-python's
value into the store; into any other store (MemoryStore, ZipStore, another fsspec store)
zinto encodes each chunk from the value and the store takes its bytes. Anything else (a codec
or data type zinto does not read or write) goes to zarr-python's default pipeline, counted by
reason, so nothing that works without zinto stops working.

The package, one concern a module:
- `zarr_api`: the one place that knows which zarr-python API is in force (3.1, or 3.2+);
- `metadata`: zinto's view of the array's metadata, and the default pipeline;
- `batch`: zarr-python's `batch_info` taken apart once into `Chunk` records, and the geometry
  zinto reads from them;
- `stores`: where the store's objects are, and the zinto arrays over them;
- `read`, `write`: what zinto does with a batch;
- `counts`: what it did, and why it handed a call on.
"""

from zarr.abc.codec import CodecPipeline
from zarr.core.codec_pipeline import BatchedCodecPipeline

from . import counts, read, write, zarr_api
from .batch import chunks_of
from .counts import (BY_PIECES, COUNTS, FOREIGN_CODEC, NO_METADATA, NOT_ONE_RECTANGLE,
                     REMOTE_FAILED, hand_on)
from .metadata import Meta, default_pipeline, foreign_codec, meta_of
from .stores import Arrays

__all__ = ["ZintoCodecPipeline"]


class ZintoCodecPipeline(CodecPipeline):
    """A zarr-python codec pipeline that reads and writes with zinto (see the package's
    documentation). `default` is zarr-python's default pipeline for the array, `meta`
    zinto's view of its metadata (`Meta`, or why there is none: a reason, or None when
    zarr-python gave none, as to a shard's inner pipeline), `store` zarr-python's store."""

    def __init__(self, default, meta=None, store=None):
        self._default = default
        self._meta = meta
        self._store = store
        self._foreign = foreign_codec(default)
        self._arrays = Arrays(store, meta, default)

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
        return cls(default_pipeline(array_metadata), meta_of(array_metadata), store)

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

    def _refusal(self):
        """Why zinto takes no call of this pipeline, or None."""
        if not isinstance(self._meta, Meta):
            return self._meta or NO_METADATA
        if self._foreign:
            return FOREIGN_CODEC
        return None

    async def read(self, batch_info, out, drop_axes=()):
        """Reads the batch into `out`; on zarr-python 3.2 and later returns one result per
        chunk (`zarr_api`), "missing" for a chunk absent from the store."""
        batch = list(batch_info)
        if not batch:
            return zarr_api.read_results((), set())
        drop_axes = tuple(drop_axes)
        absent = set()  # the grid coordinates of the chunks found absent
        handed_on = self._refusal()
        if handed_on is None:
            chunks = chunks_of(batch, self._meta)
            handed_on = await read.whole(self._arrays, chunks, out, drop_axes, absent)
            if handed_on == NOT_ONE_RECTANGLE:
                absent.clear()
                handed_on = await read.gathered(self._arrays, chunks, out, drop_axes, absent)
                COUNTS.reads_gathered += handed_on is None
                if handed_on not in (None, REMOTE_FAILED):
                    handed_on = NOT_ONE_RECTANGLE  # piece by piece, it may still be read
            if handed_on in BY_PIECES:
                absent.clear()
                handed_on = await read.in_pieces(self._arrays, chunks, out, drop_axes, absent)
                COUNTS.reads_in_pieces += handed_on is None
        if handed_on is None:
            COUNTS.reads_by_zinto += 1
            return zarr_api.read_results([c.coords for c in chunks], absent)
        results = await hand_on("reads", handed_on, self._default.read(batch, out, drop_axes))
        return zarr_api.handed_on_results(results)

    async def write(self, batch_info, value, drop_axes=()):
        batch = list(batch_info)
        if not batch:
            return
        drop_axes = tuple(drop_axes)
        handed_on = self._refusal()
        if handed_on is None:
            chunks = chunks_of(batch, self._meta)
            handed_on = await write.value(self._arrays, chunks, value, drop_axes)
        if handed_on is None:
            COUNTS.writes_by_zinto += 1
            return
        await hand_on("writes", handed_on, self._default.write(batch, value, drop_axes))


def __getattr__(name):
    """The counters (`zinto.pipeline.reads_by_zinto`, ...) and the reasons
    (`zinto.pipeline.NO_METADATA`, ...), as this module named them before it was a package."""
    if name in counts.NAMES:
        return getattr(COUNTS, name)
    if name.isupper() and hasattr(counts, name):
        return getattr(counts, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# zarr-python finds pipelines by the name `config.codec_pipeline.path` gives, which it compares
# with the class's module and name: the name users write is "zinto.ZintoCodecPipeline".
ZintoCodecPipeline.__module__ = "zinto"
