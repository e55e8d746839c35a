"""What zinto's pipeline does with what only zarr-python 3.4 makes: rectilinear chunk grids
(read and written, in files and in a MemoryStore) and the arrays of
tests/fixtures/manifest_zarr34.json (scale_offset, cast_value, rectilinear grids, Morton
shards), each read as the default pipeline reads it and taken by zinto. Skipped under an
older zarr-python; scripts/test runs this file under Python 3.13 with zarr-python 3.4.2."""

import json
import warnings

import numpy as np
import pytest
import zarr
import zarr.storage
from zarr.codecs import ZstdCodec

import zinto.pipeline as pipeline

from fixtures import DATA, ROOT

warnings.simplefilter("ignore")

ZARR_34 = tuple(int(p) for p in zarr.__version__.split(".")[:2]) >= (3, 4)
pytestmark = pytest.mark.skipif(not ZARR_34, reason="what zarr-python 3.4 makes")

DEFAULT = "zarr.core.codec_pipeline.BatchedCodecPipeline"
ZINTO = "zinto.ZintoCodecPipeline"
RECT = {"array.rectilinear_chunks": True}


def zarr34_arrays():
    manifest = json.loads((ROOT / "tests/fixtures/manifest_zarr34.json").read_text())
    return [e["name"] for e in manifest if e.get("kind", "array") == "array"]


def read(path, key, how):
    with zarr.config.set({"codec_pipeline.path": how, **RECT}):
        return np.asarray(zarr.open_array(str(path), mode="r")[key])


@pytest.mark.parametrize("name", zarr34_arrays())
def test_every_zarr34_fixture_reads_as_the_default_pipeline_reads_it_and_zinto_reads_it(name):
    before = pipeline.reads_by_zinto
    keys = [Ellipsis, (slice(1, None),), (-1,)]
    for key in keys:
        ours, theirs = read(DATA / name, key, ZINTO), read(DATA / name, key, DEFAULT)
        assert ours.dtype == theirs.dtype and np.array_equal(ours, theirs, equal_nan=True), key
    assert pipeline.reads_by_zinto - before == len(keys), pipeline.reads_handed_on


GRIDS = {
    "chunks": {"shape": (20, 17), "chunks": [[3, 9, 1, 7], [6, 6, 5]]},
    # Shards on a rectilinear grid, each its own grid of (3, 6) inner chunks and index.
    "shards": {"shape": (21, 18), "chunks": (3, 6), "shards": [[6, 9, 6], [12, 6]]},
}


@pytest.mark.parametrize("where", ["local", "memory"])
@pytest.mark.parametrize("compressors", [None, "zstd"], ids=["raw", "zstd"])
@pytest.mark.parametrize("grid", GRIDS)
def test_writes_on_a_rectilinear_grid_match_a_numpy_model(tmp_path, where, compressors, grid):
    """Chunks (or shards) of their own sizes along each axis ([3, 9, 1, 7] x [6, 6, 5], or
    shards [6, 9, 6] x [12, 6]): whole and cut chunks, a scalar, steps and points, the fill
    value (chunks removed); the default pipeline reads back the model, and every write was
    zinto's."""
    store = str(tmp_path / "r.zarr") if where == "local" else zarr.storage.MemoryStore()
    compressors = None if compressors is None else [ZstdCodec(level=1)]
    shape = GRIDS[grid]["shape"]
    model = np.full(shape, -1, np.int32)
    rng = np.random.default_rng(7)
    before = pipeline.writes_by_zinto
    keys = [np.s_[...], np.s_[2:13, 3:17], np.s_[4], np.s_[:, -1], np.s_[1:19:3, ::5],
            np.s_[12:13, 0:6], np.s_[0:3, 6:12]]
    with zarr.config.set({"codec_pipeline.path": ZINTO, **RECT}):
        z = zarr.create_array(store, dtype="int32", fill_value=-1, compressors=compressors,
                              **GRIDS[grid])
        for i, key in enumerate(keys):
            value = np.int32(5) if i == 2 else \
                rng.integers(-100, 100, size=model[key].shape, dtype=np.int32)
            z[key] = value
            model[key] = value
        z.vindex[[0, 11, 19], [16, 5, 0]] = np.array([1, 2, 3], np.int32)
        model[[0, 11, 19], [16, 5, 0]] = [1, 2, 3]
        z[0:6, 0:6] = -1  # the fill value: chunks all fill are removed
        model[0:6, 0:6] = -1
        reads = pipeline.reads_by_zinto
        np.testing.assert_array_equal(z[...], model)
        np.testing.assert_array_equal(z[4:17, 5:13], model[4:17, 5:13])
        assert pipeline.reads_by_zinto - reads == 2, pipeline.reads_handed_on
    assert pipeline.writes_by_zinto - before == len(keys) + 2, pipeline.writes_handed_on
    with zarr.config.set({"codec_pipeline.path": DEFAULT, **RECT}):
        np.testing.assert_array_equal(zarr.open_array(store, mode="r")[...], model)
    if where == "memory" and grid == "chunks":
        assert "c/0/0" not in store._store_dict and "c/1/2" in store._store_dict


def test_a_scalar_over_many_slabs_of_a_rectilinear_memory_store(monkeypatch):
    """A scalar into a MemoryStore in slabs far smaller than the write: each slab ends on an
    edge of the grid, so no chunk is cut by two slabs (a chunk cut by two would be encoded
    twice from the same old bytes, the second losing the first's values)."""
    import zinto.pipeline.write as write

    monkeypatch.setattr(write, "SCALAR_SLAB_BYTES", 64)
    store = zarr.storage.MemoryStore()
    edges = [[5, 12, 2, 20, 1], [9, 4]]
    with zarr.config.set({"codec_pipeline.path": DEFAULT, **RECT}):
        zarr.create_array(store, shape=(40, 13), chunks=edges, dtype="int16",
                          fill_value=0)[...] = 1
    before = pipeline.writes_by_zinto
    with zarr.config.set({"codec_pipeline.path": ZINTO, **RECT}):
        zarr.open_array(store, mode="r+")[3:38, 2:11] = 7
    assert pipeline.writes_by_zinto - before == 1, pipeline.writes_handed_on
    model = np.ones((40, 13), np.int16)
    model[3:38, 2:11] = 7
    with zarr.config.set({"codec_pipeline.path": DEFAULT, **RECT}):
        np.testing.assert_array_equal(zarr.open_array(store, mode="r")[...], model)


@pytest.mark.parametrize("where", ["local", "memory"])
def test_appends_to_a_rectilinear_array_are_read_and_written_right(tmp_path, where):
    """zarr-python keeps the pipeline (and the metadata it was made with) when an array
    grows: after an append the new rows' chunks are past the grid the pipeline knows, and
    those calls are handed on (counted as resized), never answered from the old grid."""
    store = str(tmp_path / "a.zarr") if where == "local" else zarr.storage.MemoryStore()
    with zarr.config.set({"codec_pipeline.path": ZINTO, **RECT}):
        z = zarr.create_array(store, shape=(10, 10), chunks=[[3, 7], [4, 6]], dtype="i4")
        model = np.arange(100, dtype="i4").reshape(10, 10)
        z[...] = model
        before = pipeline.writes_handed_on.get(pipeline.RESIZED, 0)
        for i in range(3):
            rows = np.full((5, 10), i + 100, dtype="i4")
            z.append(rows, axis=0)
            model = np.concatenate([model, rows])
        np.testing.assert_array_equal(z[...], model)
        np.testing.assert_array_equal(z[12:17, 3:9], model[12:17, 3:9])
    assert pipeline.writes_handed_on.get(pipeline.RESIZED, 0) > before
    with zarr.config.set({"codec_pipeline.path": DEFAULT, **RECT}):
        np.testing.assert_array_equal(zarr.open_array(store, mode="r")[...], model)


def test_zinto_create_takes_zarr_python_s_rectilinear_spelling_and_zarr_python_reads_it(tmp_path):
    """`zinto.create(..., chunks=[[10, 20, 30, 40], 25])` as zarr-python 3.4 spells it: the
    grid zarr-python 3.4.2 would state (repeats as runs), written by zinto (in slabs along
    the grid's edges), read back equal by zarr-python's default pipeline; bad edges refused
    before anything is written."""
    import zinto

    path = tmp_path / "r.zarr"
    data = np.arange(100 * 60, dtype="float32").reshape(100, 60) / 7
    a = zinto.create(path, (100, 60), "float32", chunks=[[10, 20, 20, 20, 30], 25])
    a[...] = data
    a[15:45, 20:30] = -1
    data[15:45, 20:30] = -1
    grid = json.loads((path / "zarr.json").read_text())["chunk_grid"]
    assert grid == {"name": "rectilinear", "configuration": {
        "kind": "inline", "chunk_shapes": [[10, [20, 3], 30], 25]}}
    with zarr.config.set({"codec_pipeline.path": DEFAULT, **RECT}):
        z = zarr.open_array(str(path), mode="r")
        np.testing.assert_array_equal(z[...], data)
    np.testing.assert_array_equal(zinto.open(path)[...], data)
    # Shards on a rectilinear grid, as zarr-python spells them: shards=[[40, 60], 60].
    sharded = zinto.create(tmp_path / "s.zarr", (100, 60), "float32", chunks=(20, 20),
                           shards=[[40, 60], 60])
    sharded[...] = data
    with zarr.config.set({"codec_pipeline.path": DEFAULT, **RECT}):
        z = zarr.open_array(str(tmp_path / "s.zarr"), mode="r")
        np.testing.assert_array_equal(z[...], data)
    assert sorted(p.name for p in (tmp_path / "s.zarr" / "c").iterdir()) == ["0", "1"]
    for chunks, shards in (([[20, 80], 20], (40, 60)), ((20, 20), [[30, 70], 60])):
        with pytest.raises((zinto.ZintoError, ValueError)):
            zinto.create(tmp_path / "bad.zarr", (100, 60), "float32", chunks=chunks,
                         shards=shards)
        assert not (tmp_path / "bad.zarr" / "zarr.json").exists(), (chunks, shards)
    for bad in ([[10, 20], 25], [[0, 100], 25], [[100], [30, "x"]]):
        with pytest.raises((zinto.ZintoError, TypeError)):
            zinto.create(tmp_path / "bad.zarr", (100, 60), "float32", chunks=bad)
        assert not (tmp_path / "bad.zarr" / "zarr.json").exists(), bad


@pytest.mark.parametrize("where", ["local", "memory"])
@pytest.mark.parametrize("grid", [{"chunks": [[3, 1, 9], [2, 5]]},
                                  {"chunks": (1, 1), "shards": [[4, 2, 7], [7]]}],
                         ids=["chunks", "shards"])
def test_strings_on_a_rectilinear_grid_through_the_pipeline(tmp_path, where, grid, monkeypatch):
    """Variable-length strings on a rectilinear grid, written and read by zinto through the
    pipeline in slabs far smaller than the write (each ending on an edge of the grid, so no
    chunk is encoded twice from the same old bytes), then cut by a partial write; the default
    pipeline reads the model back, and every write was zinto's."""
    import zinto._vlen

    monkeypatch.setattr(zinto._vlen, "SLAB_ELEMENTS", 8)
    store = str(tmp_path / "s.zarr") if where == "local" else zarr.storage.MemoryStore()
    model = np.array([f"w{i}" * (i % 4) for i in range(13 * 7)], dtype=object).reshape(13, 7)
    before = pipeline.writes_by_zinto
    with zarr.config.set({"codec_pipeline.path": ZINTO, **RECT}):
        z = zarr.create_array(store, shape=(13, 7), dtype=str, fill_value="-", **grid)
        z[...] = model
        z[2:5, 1:4] = "new"
        model[2:5, 1:4] = "new"
        assert z[...].tolist() == model.tolist()
    assert pipeline.writes_by_zinto - before == 2, pipeline.writes_handed_on
    with zarr.config.set({"codec_pipeline.path": DEFAULT, **RECT}):
        assert zarr.open_array(store, mode="r")[...].tolist() == model.tolist()
