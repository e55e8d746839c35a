"""zinto's pipeline in zarr-python 3.4.2's own pipeline tests (scripts/zarr-suite --zarr 3.4.2
copies this file into the suite's tests/, beside the tests it reuses).

- `TestZintoPipeline`: zarr-python 3.4's shared behaviour suite (`CodecPipelineTests`: what
  every codec pipeline must do, on a sync and an async store), which it runs for its own two
  classes; the script deselects those two and runs it for zinto's here.
- The per-chunk results of `read` (what `test_read_returns_get_results` checks of the
  default classes), over every store kind zinto reads by a different path: files it reads
  itself, bytes zarr-python fetches, and shards of both, through zinto's own pipeline.
"""

import numpy as np
import pytest

import zarr
from zarr.core.buffer import default_buffer_prototype
from zarr.core.indexing import BasicIndexer
from zarr.errors import ChunkNotFoundError
from zarr.storage import LocalStore, MemoryStore

from .test_codec_pipeline_suite import CodecPipelineTests


class TestZintoPipeline(CodecPipelineTests):
    pipeline_path = "zinto.ZintoCodecPipeline"


def _store(kind, tmp_path):
    return LocalStore(tmp_path) if kind == "local" else MemoryStore()


def _statuses(arr, selection):
    """What `read` returns for `arr[selection]`, called as zarr-python calls it."""
    from zarr.core.array import _get_chunk_spec

    async_arr = arr._async_array
    metadata, config = async_arr.metadata, async_arr.config
    prototype = default_buffer_prototype()
    indexer = BasicIndexer(selection, shape=metadata.shape, chunk_grid=async_arr._chunk_grid)
    out = prototype.nd_buffer.empty(shape=indexer.shape,
                                    dtype=metadata.dtype.to_native_dtype(), order="C")
    batch = [(async_arr.store_path / metadata.encode_chunk_key(coords),
              _get_chunk_spec(metadata, async_arr._chunk_grid, coords, config, prototype),
              chunk_sel, out_sel, complete)
             for coords, chunk_sel, out_sel, complete in indexer]
    results = zarr.core.sync.sync(async_arr.codec_pipeline.read(batch, out, indexer.drop_axes))
    return [r["status"] for r in results], out.as_numpy_array()


@pytest.mark.parametrize("kind", ["local", "memory"])
@pytest.mark.parametrize("shards", [None, (4,)], ids=["chunks", "shards"])
@pytest.mark.parametrize("dtype", ["int64", "str"])
def test_read_reports_each_chunk_present_or_missing(kind, shards, dtype, tmp_path):
    from zinto import pipeline

    arr = zarr.create_array(_store(kind, tmp_path), shape=(12,), chunks=(2,), shards=shards,
                            dtype=dtype, fill_value=-1 if dtype == "int64" else "")
    arr[0:2] = np.array([5, 6]).astype(dtype)
    if dtype == "int64":
        arr[8:10] = 7
    else:
        arr[8:10] = "x"
    before = pipeline.reads_by_zinto
    statuses, values = _statuses(arr, slice(None))
    assert pipeline.reads_by_zinto == before + 1, "zinto did not read it itself"
    if shards is None:
        expected = ["present", "missing", "missing", "missing", "present", "missing"]
    else:  # shards of 4: an absent inner chunk of a stored shard is present, as 3.4 says
        expected = ["present", "missing", "present"]
    assert statuses == expected
    want = np.full(12, -1 if dtype == "int64" else "", dtype=object if dtype == "str" else dtype)
    want[0:2] = np.array([5, 6]).astype(dtype)
    want[8:10] = 7 if dtype == "int64" else "x"
    assert list(values) == list(want)


@pytest.mark.parametrize("kind", ["local", "memory"])
def test_missing_chunks_raise_when_asked_read_by_zinto(kind, tmp_path):
    from zinto import pipeline

    arr = zarr.create_array(_store(kind, tmp_path), shape=(6,), chunks=(2,), dtype="i4",
                            fill_value=0, config={"read_missing_chunks": False})
    arr[0:2] = 1
    before = pipeline.reads_by_zinto
    np.testing.assert_array_equal(arr[0:2], [1, 1])
    with pytest.raises(ChunkNotFoundError, match=r"chunk 'c/1'"):
        arr[1:5]
    assert pipeline.reads_by_zinto == before + 2


@pytest.mark.parametrize("order", ["morton", "lexicographic", "colexicographic"])
@pytest.mark.parametrize("kind", ["local", "memory"])
def test_inner_chunks_laid_in_the_codecs_order(order, kind, tmp_path):
    """zinto writes the shard (the counter says so) and lays its inner chunks as the codec's
    `subchunk_write_order` says, which zarr-python's default pipeline would."""
    from zarr.codecs import BytesCodec, ShardingCodec
    from zinto import pipeline

    codec = ShardingCodec(chunk_shape=(2, 2), codecs=[BytesCodec()], subchunk_write_order=order)
    arr = zarr.create_array(_store(kind, tmp_path), shape=(6, 4), chunks=(6, 4),
                            serializer=codec, compressors=None, filters=None, dtype="u1")
    before = pipeline.writes_by_zinto
    arr[:] = np.arange(1, 25, dtype="u1").reshape(6, 4)
    assert pipeline.writes_by_zinto == before + 1
    shard = zarr.core.sync.sync(arr.store.get("c/0/0", prototype=default_buffer_prototype()))
    index = np.frombuffer(shard.to_bytes()[-(6 * 16 + 4):-4], dtype="<u8").reshape(3, 2, 2)
    laid = sorted(np.ndindex(3, 2), key=lambda c: index[c][0])
    assert laid == list(codec._subchunk_order_iter((3, 2), order))
    np.testing.assert_array_equal(arr[:], np.arange(1, 25).reshape(6, 4))


@pytest.mark.parametrize("kind", ["local", "memory"])
@pytest.mark.parametrize("chunks", [(1,), (2,), (4,)])
def test_a_shard_past_a_shrunken_shape_keeps_its_cells_written_by_zinto(kind, chunks, tmp_path):
    """zarr-python's `test_resize_sharded_keeps_cells_beyond_shape`, over files zinto writes
    itself too, and with the write counted as zinto's."""
    from zinto import pipeline

    arr = zarr.create_array(_store(kind, tmp_path), shape=(4,), chunks=chunks, shards=(4,),
                            dtype="int16", fill_value=0)
    arr[:] = [1, 2, 3, 4]
    arr.resize((2,))
    before = pipeline.writes_by_zinto
    arr[:] = [9, 9]
    assert pipeline.writes_by_zinto == before + 1
    arr.resize((4,))
    np.testing.assert_array_equal(arr[:], [9, 9, 3, 4])
