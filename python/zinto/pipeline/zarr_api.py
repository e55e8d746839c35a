"""The one place that knows which zarr-python API is in force (3.1, or 3.2 and later).

zarr-python 3.2 changed what a codec pipeline's `read` returns: one `GetResult`
(`{"status": "present" | "missing"}`) per chunk of the batch, in batch order, from which the
array raises `ChunkNotFoundError` when `array.read_missing_chunks` is False; 3.1 returns
None. zarr-python 3.4 reads a partial shard as its index plus one coalesced range read per shard
(`Store.get_ranges`, bounded by `array.sharding_coalesce_max_bytes`). Everything else in the
pipeline asks this module, so the next API change touches this file.
"""

from zarr.abc import codec as _codec
from zarr.codecs import ShardingCodec
from zarr.core.array_spec import ArrayConfig

# zarr-python 3.2 and later: `read` returns one result per chunk.
RETURNS_RESULTS = hasattr(_codec, "GetResult")
# zarr-python 3.4 (and any release whose array config bounds them): a partial shard's inner
# chunks in one coalesced range read, `_load_partial_shard_maybe` taking those bounds.
COALESCES_SHARD_READS = "sharding_coalesce_max_bytes" in getattr(
    ArrayConfig, "__dataclass_fields__", {})
# zarr-python 3.4: the sharding codec lays inner chunks in its `subchunk_write_order`
# (Morton by default; not stored in the metadata). Before, lexicographically.
SUBCHUNK_ORDER = hasattr(ShardingCodec, "subchunk_write_order")


def inner_chunk_order(pipeline):
    """The order zinto lays a shard's inner chunks in for the default pipeline `pipeline`,
    as zarr-python would lay them (`_zinto`'s `inner_chunk_order` names)."""
    codec = getattr(pipeline, "array_bytes_codec", None)
    if not SUBCHUNK_ORDER or not isinstance(codec, ShardingCodec):
        return "lexicographic"
    return codec.subchunk_write_order


def read_results(coords_of_batch, absent):
    """What `read` returns for a batch zinto read itself: on 3.2 and later one result per
    chunk, in batch order (`coords_of_batch`: each chunk's grid coordinates), "missing"
    for those in `absent` (a set of coordinates); None on 3.1."""
    if not RETURNS_RESULTS:
        return None
    return tuple({"status": "missing" if coords in absent else "present"}
                 for coords in coords_of_batch)


def handed_on_results(results):
    """What `read` returns for a batch the default pipeline read: its own results."""
    return tuple(results) if RETURNS_RESULTS else None


async def load_partial_shard(sharding, byte_getter, spec, per_shard, wanted):
    """The stored bytes of the inner chunks `wanted` (a set of coordinates in the shard) of
    one shard, as zarr-python reads a partial shard: `{coords: Buffer}` (an inner chunk not
    stored is not in it), or None if the shard is absent. Where zarr-python coalesces them
    (`COALESCES_SHARD_READS`: 3.4) the index and then one coalesced range read
    (`Store.get_ranges`, within the array's `sharding_coalesce_max_bytes`); before, the index
    and one get per inner chunk."""
    prototype = spec.prototype
    if COALESCES_SHARD_READS:
        return await sharding._load_partial_shard_maybe(
            byte_getter, prototype, per_shard, wanted,
            max_gap_bytes=spec.config.sharding_coalesce_max_gap_bytes,
            max_coalesced_bytes=spec.config.sharding_coalesce_max_bytes)
    import asyncio

    from zarr.abc.store import RangeByteRequest

    index = await sharding._load_shard_index_maybe(byte_getter, per_shard)
    if index is None:
        return None
    where = {local: index.get_chunk_slice(local) for local in wanted}
    stored = [(local, span) for local, span in where.items() if span is not None]
    fetched = await asyncio.gather(
        *(byte_getter.get(prototype=prototype, byte_range=RangeByteRequest(*span))
          for _local, span in stored))
    return {local: buf for (local, _), buf in zip(stored, fetched) if buf is not None}
