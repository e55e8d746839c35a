"""Writes through `zinto.ZintoCodecPipeline`: zarr-python's `arr[key] = value` (and xarray's
`to_zarr`) encoded by zinto straight from the value into a LocalStore's files, checked against
a NumPy model of the same writes and read back by zarr-python's default pipeline; what zinto
does not write (v2 bz2) goes to the default pipeline, counted by reason; other
stores take the chunks zinto encodes."""

import tracemalloc
import warnings

import numpy as np
import pytest
import zarr
import zarr.storage
import numcodecs
from zarr.codecs import BloscCodec, BytesCodec, Crc32cCodec, GzipCodec, ShardingCodec, ZstdCodec

import zinto
import zinto.pipeline as pipeline

warnings.simplefilter("ignore")

DEFAULT = "zarr.core.codec_pipeline.BatchedCodecPipeline"
ZINTO = "zinto.ZintoCodecPipeline"


def default_reads(path):
    with zarr.config.set({"codec_pipeline.path": DEFAULT}):
        return zarr.open_array(str(path), mode="r")[...]


CHAINS = {
    "v3 raw": dict(zarr_format=3, compressors=None),
    "v3 zstd": dict(zarr_format=3, compressors=[ZstdCodec(level=1)]),
    "v3 gzip + crc32c": dict(zarr_format=3, compressors=[GzipCodec(level=1), Crc32cCodec()]),
    "v3 sharded": dict(zarr_format=3, compressors=[ZstdCodec(level=1)], shards=(8, 10)),
    # Shards of (4, 5) (the test's chunks) holding inner chunks of (2, 5).
    "v3 sharded, index at the start": dict(
        zarr_format=3, compressors=None,
        serializer=ShardingCodec(chunk_shape=(2, 5), index_location="start",
                                 codecs=[BytesCodec(), ZstdCodec(level=1)])),
    "v3 big-endian": dict(zarr_format=3, serializer=BytesCodec(endian="big"),
                          compressors=None),
    "v3 blosc lz4 shuffle": dict(zarr_format=3, compressors=[
        BloscCodec(cname="lz4", clevel=5, shuffle="shuffle")]),
    "v3 blosc zstd bitshuffle": dict(zarr_format=3, compressors=[
        BloscCodec(cname="zstd", clevel=3, shuffle="bitshuffle")]),
    "v2 blosc (numcodecs' default)": dict(zarr_format=2, compressors=numcodecs.Blosc()),
    "v2 zstd": dict(zarr_format=2, compressors=None),
    "v2 order F": dict(zarr_format=2, order="F"),
    "v2 lz4": dict(zarr_format=2, compressors=numcodecs.LZ4()),
    "v2 lz4, order F": dict(zarr_format=2, compressors=numcodecs.LZ4(), order="F"),
    # numcodecs filters, encoded by zinto: float32 stored as float64 differences (exact).
    "v2 astype + delta filters": dict(zarr_format=2, filters=[
        numcodecs.AsType(encode_dtype="<f8", decode_dtype="<f4"), numcodecs.Delta(dtype="<f8")]),
}


@pytest.mark.parametrize("chain", CHAINS)
def test_writes_match_a_numpy_model(tmp_path, chain):
    kwargs = dict(CHAINS[chain])
    if kwargs.get("zarr_format") == 2 and "compressors" not in kwargs:
        import numcodecs

        kwargs["compressors"] = numcodecs.Zstd(level=1)
    path = tmp_path / "a.zarr"
    shape = (16, 20)
    rng = np.random.default_rng(1)
    model = np.full(shape, 3.5, np.float32)
    before = pipeline.writes_by_zinto
    with zarr.config.set({"codec_pipeline.path": ZINTO}):
        z = zarr.create_array(str(path), shape=shape, chunks=(4, 5), dtype="float32",
                              fill_value=3.5, **kwargs)
        keys = [np.s_[...], np.s_[2:13, 3:17], np.s_[5], np.s_[:, -1], np.s_[0:8, 0:10]]
        for i, key in enumerate(keys):
            value = rng.normal(size=model[key].shape).astype(np.float32) if i != 3 \
                else np.float32(-2)
            z[key] = value
            model[key] = value
            np.testing.assert_array_equal(default_reads(path), model, err_msg=str(key))
        z[8:16, 10:20] = 3.5  # fill value: those chunks are removed, not written
        model[8:16, 10:20] = 3.5
    np.testing.assert_array_equal(default_reads(path), model)
    assert pipeline.writes_by_zinto - before == len(keys) + 1, pipeline.writes_handed_on


def test_fill_chunks_are_removed_unless_write_empty_chunks(tmp_path):
    with zarr.config.set({"codec_pipeline.path": ZINTO}):
        for empty in (False, True):
            path = tmp_path / f"e{empty}.zarr"
            z = zarr.create_array(str(path), shape=(8,), chunks=(4,), dtype="i2",
                                  fill_value=0, config={"write_empty_chunks": empty})
            z[:] = np.arange(8, dtype="i2")
            z[4:] = 0
            assert (path / "c" / "1").exists() == empty
            assert (path / "c" / "0").exists()


def test_what_zinto_does_not_write_goes_to_the_default_pipeline(tmp_path):
    value = np.arange(40, dtype="f8").reshape(4, 10)
    cases = [
        ("v2 bz2", str(tmp_path / "b.zarr"),
         dict(compressors=numcodecs.BZ2(), zarr_format=2),
         pipeline.NOT_WRITTEN_BY_ZINTO),
    ]
    for name, store, kwargs, reason in cases:
        before = pipeline.writes_handed_on[reason]
        with zarr.config.set({"codec_pipeline.path": ZINTO}):
            z = zarr.create_array(store, shape=(4, 10), chunks=(2, 5), dtype="f8", **kwargs)
            z[...] = value
        with zarr.config.set({"codec_pipeline.path": DEFAULT}):
            got = zarr.open_array(store, mode="r")[...]
        np.testing.assert_array_equal(got, value, err_msg=name)
        assert pipeline.writes_handed_on[reason] == before + 1, (name, pipeline.writes_handed_on)


STORES = {
    "memory": lambda tmp: zarr.storage.MemoryStore(),
    "zip": lambda tmp: zarr.storage.ZipStore(tmp / "a.zip", mode="a"),
    "fsspec (local files)": lambda tmp: zarr.storage.FsspecStore.from_url(
        f"file://{tmp}/f.zarr", storage_options={"auto_mkdir": True}),
}


@pytest.mark.parametrize("store", STORES)
@pytest.mark.parametrize("chain", ["v3 zstd", "v3 sharded", "v2 blosc (numcodecs' default)"])
def test_other_stores_take_the_chunks_zinto_encodes(tmp_path, store, chain):
    """A store zinto does not write itself gets each chunk's bytes from zinto: whole and
    partial chunks (the old one fetched), a scalar, fill-value chunks removed; zarr-python's
    default pipeline reads back the model, and every write was zinto's."""
    s = STORES[store](tmp_path)
    shape = (16, 20)
    model = np.full(shape, 3.5, np.float32)
    rng = np.random.default_rng(3)
    before = pipeline.writes_by_zinto
    keys = [np.s_[...], np.s_[2:13, 3:17], np.s_[:, -1], np.s_[8:16, 10:20]]
    if store == "zip":
        keys.pop()  # a ZipStore cannot remove a chunk (nor can the default pipeline there)
    with zarr.config.set({"codec_pipeline.path": ZINTO}):
        z = zarr.create_array(s, shape=shape, chunks=(4, 5), dtype="float32", fill_value=3.5,
                              **CHAINS[chain])
        for i, key in enumerate(keys):
            value = {0: rng.normal(size=model[key].shape).astype(np.float32),
                     1: rng.normal(size=model[key].shape).astype(np.float32),
                     2: np.float32(-2), 3: np.float32(3.5)}[i]
            z[key] = value
            model[key] = value
    assert pipeline.writes_by_zinto - before == len(keys), pipeline.writes_handed_on
    with zarr.config.set({"codec_pipeline.path": DEFAULT}):
        got = zarr.open_array(s, mode="r+")[...]
        if store == "memory" and chain == "v3 zstd":
            # The chunks all fill value were removed, as the default pipeline removes them.
            assert "c/3/3" not in s._store_dict and "c/0/0" in s._store_dict
    np.testing.assert_array_equal(got, model)


@pytest.mark.parametrize("where", ["local", "memory"])
@pytest.mark.parametrize("chain", ["v3 zstd", "v3 sharded", "v2 blosc (numcodecs' default)"])
def test_selections_that_are_not_one_rectangle_are_written_chunk_by_chunk(tmp_path, where, chain):
    """Steps, orthogonal lists and masks, points, an integer with a list (a dropped axis), a
    scalar over points: each chunk laid from its old values, the piece put in, written whole;
    checked against a NumPy model read back by the default pipeline, every write zinto's."""
    store = str(tmp_path / "p.zarr") if where == "local" else zarr.storage.MemoryStore()
    shape = (16, 20)
    model = np.full(shape, 3.5, np.float32)
    rng = np.random.default_rng(5)
    mask = rng.integers(0, 2, 20).astype(bool)
    writes = [
        ("step", lambda z: z, np.s_[1:15:3, ::4]),
        ("orthogonal lists", lambda z: z.oindex, ([0, 5, 6, 13], [2, 3, 11, 19])),
        ("a mask", lambda z: z.oindex, (slice(2, 9), mask)),
        ("points", lambda z: z.vindex, ([0, 7, 15, 15], [0, 19, 3, 4])),
        ("an integer and a list", lambda z: z.oindex, (4, [1, 8, 17])),
    ]
    before = pipeline.writes_by_zinto
    with zarr.config.set({"codec_pipeline.path": ZINTO}):
        z = zarr.create_array(store, shape=shape, chunks=(4, 5), dtype="float32",
                              fill_value=3.5, **CHAINS[chain])
        z[...] = rng.normal(size=shape).astype(np.float32)
        model[...] = z[...]
        for name, view, key in writes:
            if name == "points":
                value = rng.normal(size=4).astype(np.float32)
                model[key] = value
            else:
                # The same selection in NumPy: each dimension's indices, crossed.
                ix = np.ix_(*(np.atleast_1d(np.arange(n)[k]) for k, n in zip(key, shape)))
                dropped = tuple(d for d, k in enumerate(key) if isinstance(k, int))
                value = rng.normal(size=model[ix].squeeze(axis=dropped).shape).astype(np.float32)
                model[ix] = value.reshape(model[ix].shape)
            view(z)[key] = value
        z.vindex[[1, 2, 3], [4, 5, 6]] = np.float32(-7)
        model[[1, 2, 3], [4, 5, 6]] = -7
        z.oindex[9, [0, 12]] = np.float32(8)  # a scalar with a dropped axis
        model[9, [0, 12]] = 8
    assert pipeline.writes_by_zinto - before == len(writes) + 3, pipeline.writes_handed_on
    with zarr.config.set({"codec_pipeline.path": DEFAULT}):
        np.testing.assert_array_equal(zarr.open_array(store, mode="r")[...], model)


@pytest.mark.parametrize("where", ["local", "memory"])
def test_a_resized_array_is_written_with_the_store_s_shape(tmp_path, where):
    """zarr-python keeps the pipeline (with the old shape) when it resizes: zinto takes the
    metadata the store holds, so the old edge chunk is written whole, not cut at the old edge
    (a LocalStore: read from its file at each write; other stores: asked when a write cuts a
    chunk at the old edge, the one case where the old shape would lose values)."""
    store = str(tmp_path / "r.zarr") if where == "local" else zarr.storage.MemoryStore()
    with zarr.config.set({"codec_pipeline.path": ZINTO}):
        z = zarr.create_array(store, shape=(10,), chunks=(4,), dtype="i4", fill_value=-1)
        z[:] = np.arange(10)
        z.resize((20,))
        z[8:14] = np.arange(100, 106)
        # Cuts chunk 2, the old edge chunk: its values past the old edge (10, 11) stay.
        z[8:9] = 7
        z.append(np.arange(200, 203))
    want = np.concatenate([np.arange(8), [7], np.arange(101, 106), np.full(6, -1),
                           [200, 201, 202]])
    with zarr.config.set({"codec_pipeline.path": DEFAULT}):
        np.testing.assert_array_equal(zarr.open_array(store, mode="r")[...], want)


def test_a_pipeline_write_copies_nothing_in_python(tmp_path):
    """tracemalloc sees NumPy's and numcodecs' allocations: through zinto a 16 MB write
    allocates well under one chunk in Python; the default pipeline (the mutation check that
    the measurement sees copies) allocates at least a chunk."""
    shape, chunks = (64, 256, 256), (16, 256, 256)
    value = np.random.default_rng(2).normal(size=shape).astype(np.float32)
    chunk_bytes = value.nbytes // 4
    peaks = {}
    for name, path in [("zinto", ZINTO), ("default", DEFAULT)]:
        with zarr.config.set({"codec_pipeline.path": path}):
            z = zarr.create_array(str(tmp_path / f"{name}.zarr"), shape=shape, chunks=chunks,
                                  dtype="float32", compressors=[ZstdCodec(level=1)])
            tracemalloc.start()
            z[...] = value
            peaks[name] = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        np.testing.assert_array_equal(default_reads(tmp_path / f"{name}.zarr"), value)
    assert peaks["zinto"] < chunk_bytes // 8, peaks
    assert peaks["default"] >= chunk_bytes, peaks


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_xarray_to_zarr_through_zinto(tmp_path, zarr_format):
    """xarray writes a dataset (consolidated), appends along time and rewrites a region, all
    through the pipeline; zarr-python's default pipeline reads back what xarray wrote."""
    import xarray as xr

    rng = np.random.default_rng(4)
    def dataset(t0, n):
        return xr.Dataset(
            {"temp": (("time", "y", "x"), rng.normal(size=(n, 6, 8)).astype("f4")),
             "count": (("time", "x"), rng.integers(0, 9, (n, 8)).astype("i2"))},
            coords={"time": np.arange(t0, t0 + n), "x": np.arange(8.0)})

    first, second = dataset(0, 10), dataset(10, 4)
    path = tmp_path / "ds.zarr"
    before = pipeline.writes_by_zinto
    with zarr.config.set({"codec_pipeline.path": ZINTO}):
        # Each format's default compressor: Blosc (lz4) in v2, zstd in v3.
        encoding = {"temp": {"chunks": (4, 6, 8)}, "count": {}}
        first.to_zarr(path, zarr_format=zarr_format, consolidated=True, encoding=encoding)
        second.to_zarr(path, append_dim="time", consolidated=True)
        patch = dataset(3, 2)
        patch.drop_vars(["x"]).to_zarr(path, region={"time": slice(3, 5)})
    want = xr.concat([first, second], dim="time")
    want["temp"][3:5] = patch["temp"].values
    want["count"][3:5] = patch["count"].values
    with zarr.config.set({"codec_pipeline.path": DEFAULT}):
        got = xr.open_zarr(path, consolidated=True).load()
    xr.testing.assert_equal(got, want)
    assert pipeline.writes_by_zinto - before >= 6, pipeline.writes_handed_on


def _zinto_writes():
    import zinto.pipeline

    return zinto.pipeline.writes_by_zinto


def test_dask_workers_in_other_processes_write_through_zinto(tmp_path, monkeypatch):
    """xarray + Dask on a LocalCluster of 2 worker processes writes a chunked dataset with
    `to_zarr`: the workers write through zinto (the pipeline chosen by the environment, as a
    user configures workers), and zarr-python's default pipeline reads back the same data."""
    import dask.array as da
    import xarray as xr
    from distributed import Client, LocalCluster

    data = np.random.default_rng(5).normal(size=(24, 30, 20)).astype("f4")
    path = tmp_path / "dask.zarr"
    monkeypatch.setenv("ZARR_CODEC_PIPELINE__PATH", ZINTO)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client, \
            zarr.config.set({"codec_pipeline.path": ZINTO}):
        ds = xr.Dataset({"v": (("t", "y", "x"), da.from_array(data, chunks=(6, 30, 20)))})
        ds.to_zarr(path, zarr_format=3, encoding={"v": {"chunks": (6, 30, 20)}})
        writes = client.run(_zinto_writes)
    assert len(writes) == 2 and sum(writes.values()) >= 4, writes
    np.testing.assert_array_equal(default_reads(path / "v"), data)


def _write_region(path, ds, rows):
    """One task's region write (`to_zarr(region=...)`) of `ds`'s rows `rows`."""
    ds.isel(y=rows).to_zarr(path, region={"y": rows}, safe_chunks=False)
    return _zinto_writes()


@pytest.mark.parametrize("layout", ["chunks", "shards"])
def test_dask_chunks_that_cut_zarr_chunks_lose_nothing(tmp_path, monkeypatch, layout):
    """Issue 64: `to_zarr(safe_chunks=False)` from Dask chunks of 4 rows into zarr chunks (or
    shards) of 16 rows, on a LocalCluster of 2 worker processes of 2 threads, with zinto's
    pipeline: every zarr chunk is written in part by 4 tasks at once, each a read, merge and
    replace, and nothing is lost (zarr-python's own pipeline loses rows this way: xarray's
    `safe_chunks` refuses it for that reason). Then the same through `region=` writes, one
    task per Dask chunk, of other values."""
    import dask.array as da
    import xarray as xr
    from distributed import Client, LocalCluster

    rows, width = 64, 48
    data = np.arange(rows * width, dtype="i4").reshape(rows, width)
    encoding = {"chunks": (16, width)} if layout == "chunks" else \
        {"chunks": (8, width), "shards": (16, width)}
    path = str(tmp_path / "cut.zarr")
    monkeypatch.setenv("ZARR_CODEC_PIPELINE__PATH", ZINTO)
    with LocalCluster(n_workers=2, threads_per_worker=2, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client, \
            zarr.config.set({"codec_pipeline.path": ZINTO}):
        ds = xr.Dataset({"v": (("y", "x"), da.from_array(data, chunks=(4, width)))})
        ds.to_zarr(path, zarr_format=3, encoding={"v": encoding}, safe_chunks=False)
        np.testing.assert_array_equal(default_reads(tmp_path / "cut.zarr" / "v"), data)
        again = xr.Dataset({"v": (("y", "x"), da.from_array(-data, chunks=(4, width)))})
        writes = client.gather(client.map(
            _write_region, [path] * (rows // 4), [again] * (rows // 4),
            [slice(i, i + 4) for i in range(0, rows, 4)], pure=False))
    assert min(writes) >= 1, writes  # the workers wrote through zinto
    np.testing.assert_array_equal(default_reads(tmp_path / "cut.zarr" / "v"), -data)


def test_a_codec_class_of_the_user_s_own_is_left_to_zarr_python(tmp_path):
    """A Blosc codec the user registered does its own encoding and decoding: zinto, which
    writes and reads Blosc itself, hands both on, and the user's class is what runs."""
    from zarr.registry import register_codec

    calls = []

    class CountingBlosc(BloscCodec):
        async def _encode_single(self, chunk_bytes, chunk_spec):
            calls.append("encode")
            return await super()._encode_single(chunk_bytes, chunk_spec)

        async def _decode_single(self, chunk_bytes, chunk_spec):
            calls.append("decode")
            return await super()._decode_single(chunk_bytes, chunk_spec)

    register_codec("blosc", CountingBlosc)
    name = f"{CountingBlosc.__module__}.{CountingBlosc.__qualname__}"
    before = dict(pipeline.writes_handed_on), dict(pipeline.reads_handed_on)
    with zarr.config.set({"codec_pipeline.path": ZINTO, "codecs.blosc": name}):
        z = zarr.create_array(str(tmp_path / "c.zarr"), shape=(20,), chunks=(10,), dtype="i4",
                              compressors=[{"name": "blosc", "configuration": {}}])
        z[:] = np.arange(20)
        np.testing.assert_array_equal(z[:], np.arange(20))
    assert "encode" in calls and "decode" in calls, calls
    reason = pipeline.FOREIGN_CODEC
    assert pipeline.writes_handed_on[reason] > before[0].get(reason, 0)
    assert pipeline.reads_handed_on[reason] > before[1].get(reason, 0)


# Found by a review against the default pipeline; each fails without its fix.

def test_a_scalar_written_in_slabs_into_a_memory_store_keeps_every_slab_s_chunks():
    """A scalar over more than `SCALAR_SLAB_BYTES` is encoded slab by slab; a slab's result
    holds only the chunks it wrote, so a later slab does not put an old chunk back over one
    an earlier slab cut and rewrote."""
    store = zarr.storage.MemoryStore()
    with zarr.config.set({"codec_pipeline.path": DEFAULT}):
        zarr.create_array(store, shape=(3000, 1000), chunks=(1000, 1000), dtype="f8",
                          fill_value=0)[:] = 1.0
    with zarr.config.set({"codec_pipeline.path": ZINTO}):
        zarr.open_array(store, mode="r+")[500:3000, :] = 2.0
    with zarr.config.set({"codec_pipeline.path": DEFAULT}):
        got = zarr.open_array(store, mode="r")[...]
    assert (got[:500] == 1).all() and (got[500:] == 2).all()


def test_each_slab_is_handed_only_the_old_chunks_it_touches(monkeypatch):
    """Strings into a MemoryStore, written in slabs of whole chunk rows over chunks the write
    cuts: each slab's encode gets the old chunks of its own rows (each call copies what it is
    given), not every old chunk of the write; the result is as the model says."""
    import zinto._vlen

    store = zarr.storage.MemoryStore()
    shape, chunks = (12, 6), (2, 4)
    model = np.array([f"w{i}" for i in range(72)], dtype=object).reshape(shape)
    with zarr.config.set({"codec_pipeline.path": DEFAULT}):
        zarr.create_array(store, shape=shape, chunks=chunks, dtype=str)[...] = model
    calls = []
    real = zinto._zinto.encode_vlen_chunks

    def counting(array, old, region, *rest):
        start, extent = region
        calls.append((start[0], extent[0], sorted(old)))
        return real(array, old, region, *rest)

    monkeypatch.setattr(zinto._zinto, "encode_vlen_chunks", counting)
    monkeypatch.setattr(zinto._vlen, "SLAB_ELEMENTS", 12)  # two chunk rows a slab
    with zarr.config.set({"codec_pipeline.path": ZINTO}):
        zarr.open_array(store, mode="r+")[:, 1:5] = "new"  # cuts every chunk
    model[:, 1:5] = "new"
    with zarr.config.set({"codec_pipeline.path": DEFAULT}):
        assert zarr.open_array(store, mode="r")[...].tolist() == model.tolist()
    assert len(calls) > 1, calls
    for row, rows, old in calls:
        touched = {f"c/{r}/{c}" for r in range(row // 2, (row + rows + 1) // 2) for c in (0, 1)}
        assert old and set(old) <= touched, (row, rows, old)


def test_a_broadcast_value_into_a_v2_array_without_a_fill_value_is_written():
    """A value that broadcasts is written chunk by chunk; a whole chunk starts from
    zarr-python's default fill (the array states none), as the default pipeline's does."""
    store = zarr.storage.MemoryStore()
    with zarr.config.set({"codec_pipeline.path": ZINTO}):
        z = zarr.create_array(store, shape=(4, 8), chunks=(4, 4), dtype="i4", fill_value=None,
                              zarr_format=2)
        before = pipeline.writes_by_zinto
        z[0:4, 0:8] = np.arange(8, dtype="i4")[None, :]
        assert pipeline.writes_by_zinto == before + 1
    np.testing.assert_array_equal(z[...], np.tile(np.arange(8, dtype="i4"), (4, 1)))


@pytest.mark.parametrize("where", ["local", "memory"])
def test_a_whole_chunk_past_the_pipeline_s_edge_is_not_cut_short(tmp_path, where):
    """After a grow the pipeline keeps the old shape: a selection covering a chunk past the
    old edge is handed on, not cut at the old edge (NumPy would cut the slice silently)."""
    store = str(tmp_path / "g.zarr") if where == "local" else zarr.storage.MemoryStore()
    with zarr.config.set({"codec_pipeline.path": ZINTO}):
        z = zarr.create_array(store, shape=(10,), chunks=(4,), dtype="i4", fill_value=0)
        z.resize((16,))
        z[8:12] = [5]
    with zarr.config.set({"codec_pipeline.path": DEFAULT}):
        np.testing.assert_array_equal(zarr.open_array(store, mode="r")[8:12], [5, 5, 5, 5])


STRING_CHAINS = {
    "v3 zstd": dict(zarr_format=3, compressors=[ZstdCodec(level=1)]),
    "v3 raw": dict(zarr_format=3, compressors=None),
    "v2 blosc (numcodecs' default)": dict(zarr_format=2, compressors=numcodecs.Blosc()),
    "v2 zstd": dict(zarr_format=2, compressors=numcodecs.Zstd(level=1)),
}


@pytest.mark.parametrize("kind", ["string", "bytes"])
@pytest.mark.parametrize("chain", STRING_CHAINS)
def test_string_and_bytes_writes_match_a_model(tmp_path, chain, kind):
    """Variable-length strings (from StringDType and object values) and bytes, written by
    zinto (`write_vlen`) into a LocalStore, read back by the default pipeline as the model
    says; selections that are not one rectangle (oindex, steps, vindex) chunk by chunk."""
    from zarr.core.dtype import VariableLengthBytes

    path = tmp_path / "s.zarr"
    shape = (9, 7)
    fill = "" if kind == "string" else b""
    model = np.full(shape, fill, dtype=object)
    words = ["Zürich", "", "東京", "🦀", "x" * 70, "a b"]
    rng = np.random.default_rng(2)

    def value(n):
        picked = [words[i] for i in rng.integers(0, len(words), n)]
        return picked if kind == "string" else [w.encode() for w in picked]

    dtype = str if kind == "string" else VariableLengthBytes()
    before = pipeline.writes_by_zinto
    with zarr.config.set({"codec_pipeline.path": ZINTO}):
        z = zarr.create_array(str(path), shape=shape, chunks=(4, 3), dtype=dtype,
                              **STRING_CHAINS[chain])
        keys = [np.s_[...], np.s_[2:7, 1:6], np.s_[5], np.s_[:, -1], np.s_[0:4, 0:3]]
        for i, key in enumerate(keys):
            n = model[key].size
            if i == 3:
                v = "same" if kind == "string" else b"same"  # a scalar over the region
            else:
                v = np.array(value(n), dtype=object).reshape(model[key].shape)
                if kind == "string" and i == 1:
                    v = v.astype(np.dtypes.StringDType())
            z[key] = v
            model[key] = v
            got = default_reads(path)
            assert got.tolist() == model.tolist(), key
        z[4:9, 3:7] = fill  # those chunks are removed, not written
        model[4:9, 3:7] = fill
        assert not (path / ("c/1/1" if chain.startswith("v3") else "1.1")).exists()
        handed = sum(pipeline.writes_handed_on.values())
        # Selections that are not one rectangle: chunk by chunk, each chunk's old elements
        # read by zinto and the chunk written whole.
        rows = np.array(value(2 * 7), dtype=object).reshape(2, 7)
        z.oindex[[0, 8], :] = rows
        model[[0, 8], :] = rows
        assert default_reads(path).tolist() == model.tolist()
        odd = np.array(value(5), dtype=object)
        z[::2, 4] = odd
        model[::2, 4] = odd
        assert default_reads(path).tolist() == model.tolist()
        z.vindex[[1, 3, 7], [0, 6, 2]] = fill
        model[[1, 3, 7], [0, 6, 2]] = fill
        assert sum(pipeline.writes_handed_on.values()) == handed, pipeline.writes_handed_on
    assert default_reads(path).tolist() == model.tolist()
    assert pipeline.writes_by_zinto - before == len(keys) + 4, pipeline.writes_handed_on


@pytest.mark.parametrize("store_kind", ["memory", "zip"])
@pytest.mark.parametrize("kind", ["string", "bytes"])
@pytest.mark.parametrize("chain", ["v3 zstd", "v2 blosc (numcodecs' default)"])
def test_strings_into_stores_zinto_does_not_address_are_encoded_by_zinto(tmp_path, chain, kind,
                                                                        store_kind):
    """A MemoryStore or ZipStore takes bytes from zarr-python: zinto encodes the string and
    bytes chunks (`encode_vlen_chunks`, over the old chunks a write cuts) and zarr-python
    stores them, as the model says, read back by the default pipeline; chunks left all fill
    value are removed."""
    from zarr.core.dtype import VariableLengthBytes

    shape = (9, 7)
    fill = "" if kind == "string" else b""
    model = np.full(shape, fill, dtype=object)
    words = ["Zürich", "", "東京", "🦀", "x" * 70, "a b"]
    rng = np.random.default_rng(3)
    store = (zarr.storage.MemoryStore() if store_kind == "memory"
             else zarr.storage.ZipStore(tmp_path / "s.zip", mode="w"))
    dtype = str if kind == "string" else VariableLengthBytes()
    before = pipeline.writes_by_zinto
    keys = [np.s_[...], np.s_[2:7, 1:6], np.s_[5], np.s_[0:4, 0:3]]
    with zarr.config.set({"codec_pipeline.path": ZINTO}):
        z = zarr.create_array(store, shape=shape, chunks=(4, 3), dtype=dtype,
                              **STRING_CHAINS[chain])
        for key in keys:
            picked = [words[i] for i in rng.integers(0, len(words), model[key].size)]
            v = np.array(picked if kind == "string" else [w.encode() for w in picked],
                         dtype=object).reshape(model[key].shape)
            z[key] = v
            model[key] = v
            with zarr.config.set({"codec_pipeline.path": DEFAULT}):
                assert zarr.open_array(store)[...].tolist() == model.tolist(), key
        # Not one rectangle: chunk by chunk, over the old chunks zarr-python fetched.
        picked = [words[i] for i in rng.integers(0, len(words), 2 * 7)]
        rows = np.array(picked if kind == "string" else [w.encode() for w in picked],
                        dtype=object).reshape(2, 7)
        z.oindex[[1, 6], :] = rows
        model[[1, 6], :] = rows
        with zarr.config.set({"codec_pipeline.path": DEFAULT}):
            assert zarr.open_array(store)[...].tolist() == model.tolist()
        writes = pipeline.writes_by_zinto - before
        if store_kind == "memory":
            z[4:8, 3:6] = fill  # a whole chunk left all fill value is removed, by zinto
            model[4:8, 3:6] = fill
            assert pipeline.writes_by_zinto - before == writes + 1, pipeline.writes_handed_on
            chunk = "c/1/1" if chain.startswith("v3") else "1.1"
            assert chunk not in store._store_dict
    with zarr.config.set({"codec_pipeline.path": DEFAULT}):
        assert zarr.open_array(store)[...].tolist() == model.tolist()
    assert writes == len(keys) + 1, pipeline.writes_handed_on


@pytest.mark.parametrize("zarr_format", [2, 3])
@pytest.mark.parametrize("dtype", ["<U5", "S4"])
def test_fixed_length_strings_and_bytes_are_written_as_their_bytes(tmp_path, dtype, zarr_format):
    """NumPy's `U` (UTF-32) and `S` elements are fixed-size: zinto writes their bytes as it
    writes numbers, edge chunks and chunks of fill value as zarr-python does."""
    path = tmp_path / "u.zarr"
    words = ["ab", "çé🦀", "", "zzzzz"] if dtype.startswith("<U") else [b"ab", b"\x00c", b"", b"wxyz"]
    model = np.zeros((7, 5), dtype=dtype)
    before = pipeline.writes_by_zinto
    with zarr.config.set({"codec_pipeline.path": ZINTO}):
        z = zarr.create_array(str(path), shape=(7, 5), chunks=(3, 2), dtype=dtype,
                              zarr_format=zarr_format)
        for i, key in enumerate([np.s_[...], np.s_[1:6, 1:4], np.s_[6], np.s_[0:3, 0:2]]):
            v = np.resize(np.array(words[i:] + words[:i], dtype=dtype), model[key].shape)
            if i == 3:
                v = np.zeros(model[key].shape, dtype=dtype)  # the fill value: removed
            z[key] = v
            model[key] = v
            np.testing.assert_array_equal(default_reads(path), model, err_msg=str(key))
    assert not (path / ("c/0/0" if zarr_format == 3 else "0.0")).exists()
    assert pipeline.writes_by_zinto - before == 4, pipeline.writes_handed_on


def test_string_values_of_another_shape_or_none_are_handled_as_zarr_python_does(tmp_path):
    """From a review: a value of another shape with as many elements is refused (as NumPy
    refuses it), not laid over the region or past it; None is stored as zarr-python stores it;
    a string scalar over a large region is written slab by slab."""
    with zarr.config.set({"codec_pipeline.path": ZINTO}):
        z = zarr.create_array(str(tmp_path / "s.zarr"), shape=(4, 3), chunks=(2, 2), dtype=str)
        z[...] = np.full((4, 3), "k", dtype=object)
        handed = pipeline.writes_handed_on[pipeline.SELECTION_KIND]
        with pytest.raises(ValueError):
            z[0:2, 0:3] = np.array([["a", "b"], ["c", "d"], ["e", "f"]], dtype=object)
        # Handed on (the default pipeline raises NumPy's error); nothing past the selection.
        assert pipeline.writes_handed_on[pipeline.SELECTION_KIND] == handed + 1
        assert default_reads(tmp_path / "s.zarr")[2:].tolist() == [["k"] * 3] * 2
        f = zarr.create_array(str(tmp_path / "f.zarr"), shape=(4, 3), chunks=(2, 2), dtype="f4",
                              fill_value=7)
        with pytest.raises(ValueError):
            f[0:2, 0:3] = np.arange(6, dtype="f4").reshape(3, 2)
        np.testing.assert_array_equal(default_reads(tmp_path / "f.zarr")[2:], 7)
        z[...] = np.full((4, 3), "k", dtype=object)
        n = np.full((4, 3), "k", dtype=object)
        z[1, 0:3] = np.array(["x", None, "z"], dtype=object)
        n[1] = ["x", "None", "z"]  # NumPy's cast to StringDType, as zarr-python stores it
        assert default_reads(tmp_path / "s.zarr").tolist() == n.tolist()
        from zarr.core.dtype import VariableLengthBytes

        b = zarr.create_array(str(tmp_path / "b.zarr"), shape=(3,), chunks=(2,),
                              dtype=VariableLengthBytes())
        before = pipeline.writes_by_zinto
        b[...] = np.array([b"x", None, b"z"], dtype=object)
        assert pipeline.writes_by_zinto == before + 1
        assert default_reads(tmp_path / "b.zarr").tolist() == [b"x", b"", b"z"]
        big = zarr.create_array(str(tmp_path / "big.zarr"), shape=(3_000_000,), chunks=(100_000,),
                                dtype=str)
        before = pipeline.writes_by_zinto
        sizes = []
        flatten = zinto._vlen.flatten

        def recorded(value, shape, text):
            sizes.append(int(np.prod(shape)))
            return flatten(value, shape, text)

        zinto._vlen.flatten = recorded
        try:
            big[...] = "abc"
            big[1:] = np.full(2_999_999, "de", dtype=object)
        finally:
            zinto._vlen.flatten = flatten
        assert pipeline.writes_by_zinto == before + 2
        # Slabs of whole chunk rows, at most SLAB_ELEMENTS each (offsets and values of a slab,
        # not of the region's 3 million elements), for a scalar and for an array alike.
        assert sum(sizes) == 5_999_999 and max(sizes) <= zinto._vlen.SLAB_ELEMENTS, sizes
    back = zarr.open_array(str(tmp_path / "big.zarr"), mode="r")
    assert back[2_999_998:].tolist() == ["de", "de"] and back[0] == "abc" and back[1] == "de"


def test_a_shard_s_inner_writes_inside_a_write_handed_on_are_not_counted_again(tmp_path):
    """Shards of bz2 chunks, which zinto does not encode: the write is handed on once, counted
    under its reason. The default pipeline's sharding codec then writes each shard's inner
    chunks through an inner pipeline (one more write per shard); those are that one write's
    own, counted apart (`inner_calls_of_handed_on`), not as writes handed on."""
    from zarr.codecs.numcodecs import BZ2
    data = np.arange(32 * 32, dtype="u2").reshape(32, 32)
    sharded = ShardingCodec(chunk_shape=(8, 8), codecs=[BytesCodec(), BZ2()])
    before = (sum(pipeline.writes_handed_on.values()),
              pipeline.writes_handed_on[pipeline.NO_METADATA],
              pipeline.inner_calls_of_handed_on["writes"])
    with zarr.config.set({"codec_pipeline.path": ZINTO}):
        z = zarr.create_array(str(tmp_path / "n.zarr"), shape=data.shape, chunks=(16, 16),
                              dtype=data.dtype, compressors=None, serializer=sharded)
        z[...] = data
    np.testing.assert_array_equal(default_reads(tmp_path / "n.zarr"), data)
    handed, no_metadata, inner = (sum(pipeline.writes_handed_on.values()),
                                  pipeline.writes_handed_on[pipeline.NO_METADATA],
                                  pipeline.inner_calls_of_handed_on["writes"])
    assert handed == before[0] + 1, pipeline.writes_handed_on
    assert no_metadata == before[1], pipeline.writes_handed_on
    # Four shards of (16, 16), each written by the sharding codec through an inner pipeline.
    assert inner == before[2] + 4, pipeline.inner_calls_of_handed_on


class _DiscardingStore(zarr.storage.MemoryStore):
    """A MemoryStore that keeps only its metadata documents and counts the chunk bytes it is
    given: what a write holds in Python is then the pipeline's own."""

    given = 0

    async def set(self, key, value, byte_range=None):
        if key.endswith(("zarr.json", ".zarray", ".zattrs", ".zgroup")):
            return await super().set(key, value)
        type(self).given += len(value)


@pytest.mark.parametrize("shape, chunks", [
    ((48, 512, 512), (4, 512, 512)),
    # One element thick on axis 0: the slabs cut axis 1 (zinto._slabs), not one slab of all.
    ((1, 48, 512, 512), (1, 4, 512, 512)),
])
def test_a_write_into_a_store_zinto_does_not_address_holds_one_slab_of_chunks(
        monkeypatch, shape, chunks):
    """Into a store zinto does not address, a write goes in slabs of whole chunks, each
    slab's encoded chunks handed to the store before the next slab is encoded: with 4 MB slabs
    of a 48 MB uncompressed write, Python holds about a slab, not the write's 48 MB of chunks.
    The mutation (no handing: every chunk kept to the end) goes over."""
    monkeypatch.setattr(pipeline.write, "ENCODE_SLAB_BYTES", 4 << 20)
    value = np.random.default_rng(3).normal(size=shape).astype(np.float32)
    peaks = {}
    for name, streamed in [("streamed", True), ("held to the end", False)]:
        if not streamed:
            monkeypatch.setattr(pipeline.write.WriteTarget, "hand_as_written", lambda *a: None)
        store = _DiscardingStore()
        _DiscardingStore.given = 0
        with zarr.config.set({"codec_pipeline.path": ZINTO}):
            z = zarr.create_array(store, shape=value.shape, chunks=chunks,
                                  dtype="float32", compressors=None)
            by_zinto = pipeline.writes_by_zinto
            tracemalloc.start()
            z[...] = value
            peaks[name] = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            assert pipeline.writes_by_zinto == by_zinto + 1
        assert _DiscardingStore.given == value.nbytes, name
    assert peaks["streamed"] < 12 << 20, peaks
    assert peaks["held to the end"] >= value.nbytes, peaks

