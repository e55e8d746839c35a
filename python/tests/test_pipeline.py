"""`zinto.ZintoCodecPipeline` in zarr-python: the same results as zarr-python's default
pipeline on every conformance fixture, through zinto where it can (and the default where it
cannot), from a LocalStore and from a MemoryStore, and under xarray."""

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest
import zarr
import zarr.storage

import zinto
import zinto.pipeline

from fixtures import DATA, EXAMPLES, fixture_arrays

warnings.simplefilter("ignore")


def read(path, key, pipeline):
    with zarr.config.set({"codec_pipeline.path": pipeline}):
        return np.asarray(zarr.open_array(str(path), mode="r")[key])


DEFAULT = "zarr.core.codec_pipeline.BatchedCodecPipeline"
ZINTO = "zinto.ZintoCodecPipeline"


def equal(a, b):
    if a.dtype.kind in "OT":
        return a.tolist() == b.tolist()
    if a.dtype.kind in "mM":
        return np.array_equal(a.view("i8"), b.view("i8"))
    return a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")


@pytest.mark.parametrize("name", fixture_arrays())
def test_every_fixture_reads_as_the_default_pipeline_reads_it(name):
    z = zarr.open_array(str(DATA / name), mode="r")
    keys = [Ellipsis]
    if z.ndim and z.shape[0] > 1:
        keys += [(-1,), (slice(1, None),)]
    for key in keys:
        assert equal(read(DATA / name, key, ZINTO), read(DATA / name, key, DEFAULT)), (name, key)


def test_zinto_reads_what_it_can():
    """Most fixtures go through zinto, not the fallback: counted by the pipeline."""
    before = zinto.pipeline.reads_by_zinto
    names = [n for n in fixture_arrays() if "float32" in n or "int" in n]
    for name in names:
        read(DATA / name, Ellipsis, ZINTO)
    taken = zinto.pipeline.reads_by_zinto - before
    assert taken >= len(names) * 3 // 4, (taken, len(names))


def test_chunks_from_a_memory_store_are_decoded_by_zinto():
    store = zarr.storage.MemoryStore()
    data = np.arange(60 * 70, dtype="float32").reshape(60, 70) / 7
    z = zarr.create_array(store, shape=data.shape, chunks=(16, 32), dtype="float32")
    z[...] = data
    z[10:20, 40:50] = -1  # a chunk rewritten
    expect = data.copy()
    expect[10:20, 40:50] = -1
    before = zinto.pipeline.reads_by_zinto
    with zarr.config.set({"codec_pipeline.path": ZINTO}):
        z = zarr.open_array(store, mode="r")
        assert np.array_equal(z[...], expect)
        assert np.array_equal(z[-5:, 3:69], expect[-5:, 3:69])
        assert np.array_equal(z[7], expect[7])
    assert zinto.pipeline.reads_by_zinto - before == 3


def test_local_files_behind_fsspec_are_read_and_written_as_files(tmp_path, monkeypatch):
    """`dask.array.from_zarr` and xarray turn a plain path into an FsspecStore over fsspec's
    local file system: zinto reads and writes those files itself, as for a LocalStore, never
    through the bytes zarr-python fetched (which would hold each stored chunk besides)."""
    def not_this_way(*args):
        raise AssertionError("the chunks went through zarr-python's bytes")

    monkeypatch.setattr(zinto._zinto, "array_of_chunks", not_this_way)
    path = tmp_path / "f.zarr"
    value = np.random.default_rng(2).normal(size=(30, 40)).astype("f4")
    store = zarr.storage.FsspecStore.from_url(str(path), read_only=False,
                                              storage_options={"auto_mkdir": True})
    with zarr.config.set({"codec_pipeline.path": ZINTO}):
        writes, reads = zinto.pipeline.writes_by_zinto, zinto.pipeline.reads_by_zinto
        z = zarr.create_array(store, shape=value.shape, chunks=(8, 16), dtype="f4",
                              compressors=zarr.codecs.ZstdCodec(level=1))
        z[...] = value
        z[3:9, 5:30] = 0
        value[3:9, 5:30] = 0
        got = zarr.open_array(store, mode="r")[2:20, 1:39]
        assert zinto.pipeline.writes_by_zinto == writes + 2
        assert zinto.pipeline.reads_by_zinto == reads + 1
    np.testing.assert_array_equal(got, value[2:20, 1:39])
    np.testing.assert_array_equal(read(path, Ellipsis, DEFAULT), value)


def test_fetched_chunk_bytes_are_held_as_the_store_gave_them():
    """The bytes object an fsspec store returned is what zinto holds (no copy); a buffer over
    anything else (a MemoryStore's arrays, a slice) is copied once."""
    from zarr.core.buffer import default_buffer_prototype
    raw = bytes(range(256)) * 100
    buf = default_buffer_prototype().buffer.from_bytes(raw)
    assert zinto.pipeline.stores.held_bytes(buf) is raw
    part = buf[10:20]
    held = zinto.pipeline.stores.held_bytes(part)
    assert held == raw[10:20] and held is not raw
    other = default_buffer_prototype().buffer.from_array_like(np.frombuffer(raw, "B").copy())
    assert zinto.pipeline.stores.held_bytes(other) == raw


def test_xarray_open_zarr_gives_the_same_dataset():
    import xarray as xr

    for path in [EXAMPLES / "weather.zarr", DATA / "ds_xarray_v2.zarr",
                 DATA / "ds_xarray_v3.zarr"]:
        with zarr.config.set({"codec_pipeline.path": DEFAULT}):
            want = xr.open_zarr(path).load()
        with zarr.config.set({"codec_pipeline.path": ZINTO}):
            got = xr.open_zarr(path).load()
        xr.testing.assert_identical(got, want)


def _zinto_reads():
    import zinto.pipeline

    return zinto.pipeline.reads_by_zinto


def test_dask_workers_in_other_processes_read_through_zinto(monkeypatch):
    """xarray + Dask on a LocalCluster of 2 worker processes, the pipeline chosen by the
    environment (as a user configures workers): the same dataset, read by zinto in the workers."""
    import xarray as xr
    from distributed import Client, LocalCluster

    path = EXAMPLES / "weather.zarr"
    with zarr.config.set({"codec_pipeline.path": DEFAULT}):
        want = xr.open_zarr(path).load()
    # zarr-python reads its configuration from ZARR_* variables, in every worker process; the
    # arrays Dask sends them carry the pipeline the client opened them with.
    monkeypatch.setenv("ZARR_CODEC_PIPELINE__PATH", ZINTO)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client, \
            zarr.config.set({"codec_pipeline.path": ZINTO}):
        ds = xr.open_zarr(path, chunks={"time": 12})
        got = ds.compute()
        reads = client.run(_zinto_reads)
    xr.testing.assert_identical(got, want)
    assert len(reads) == 2 and sum(reads.values()) >= 4, reads


def test_resized_and_appended_arrays_still_read(tmp_path):
    """zarr-python keeps an array's pipeline across resize() and append(): reads of the new
    extent go to the default pipeline rather than fail on the old shape."""
    with zarr.config.set({"codec_pipeline.path": ZINTO}):
        for fmt in (2, 3):
            a = zarr.create_array(str(tmp_path / f"r{fmt}.zarr"), shape=(10,), chunks=(5,),
                                  dtype="i4", zarr_format=fmt)
            a[:] = np.arange(10)
            a.resize((20,))
            a[10:] = np.arange(10, 20)
            assert np.array_equal(a[:], np.arange(20))
            a.append(np.arange(20, 25))
            assert np.array_equal(a[:], np.arange(25))


def test_nan_fill_payloads_and_nat_fills_match_the_default(tmp_path):
    path = tmp_path / "nan.zarr"
    z = zarr.create_array(str(path), shape=(4,), chunks=(2,), dtype="<f4", fill_value=0)
    doc = json.loads((path / "zarr.json").read_text())
    doc["fill_value"] = "0x7fc00001"
    (path / "zarr.json").write_text(json.dumps(doc))
    got = read(path, Ellipsis, ZINTO).view("<u4")
    assert np.array_equal(got, read(path, Ellipsis, DEFAULT).view("<u4"))
    assert got[0] == 0x7FC00001
    for kind in ("M8[s]", "m8[s]"):
        p = tmp_path / f"{kind[0]}.zarr"
        z = zarr.create_array(str(p), shape=(5,), chunks=(2,), dtype=kind, fill_value=None,
                              zarr_format=2)
        z[:2] = np.array([1, 1], dtype=kind)
        assert equal(read(p, Ellipsis, ZINTO), read(p, Ellipsis, DEFAULT)), kind
        assert equal(zinto.open(p)[...], read(p, Ellipsis, DEFAULT)), kind


def test_strings_and_bytes_are_read_by_zinto(tmp_path):
    """Variable-length strings (v3 `string`, v2 vlen-utf8) into StringDType or object outputs,
    bytes (v3 `bytes`, v2 vlen-bytes) into object outputs, and fixed-width `<U`/`|S`: read by
    zinto, equal to the default pipeline's."""
    words = np.array(["", "a", "zinto", "ü€𝄞", "x" * 300] * 7, dtype=object).reshape(5, 7)
    cases = [
        (3, words.astype(str).astype(np.dtypes.StringDType())),
        (2, words.astype(str).astype(np.dtypes.StringDType())),
        (3, np.array([w.encode() for w in words.ravel()], dtype=object).reshape(5, 7)),
        (2, words.astype("U300")),
        (3, np.array([w.encode()[:4] for w in words.ravel()], dtype="S4").reshape(5, 7)),
    ]
    for i, (fmt, value) in enumerate(cases):
        path = tmp_path / f"s{i}.zarr"
        with zarr.config.set({"codec_pipeline.path": DEFAULT}):
            z = zarr.create_array(str(path), shape=value.shape, chunks=(2, 3),
                                  dtype=value.dtype if value.dtype.kind != "O" else "bytes",
                                  zarr_format=fmt)
            z[...] = value
        for key in [Ellipsis, (slice(1, 4), 2), (-1,)]:
            before = zinto.pipeline.reads_by_zinto
            got = read(path, key, ZINTO)
            assert zinto.pipeline.reads_by_zinto == before + 1, (i, key, zinto.pipeline.reads_handed_on)
            assert equal(got, read(path, key, DEFAULT)), (i, key)


@pytest.mark.parametrize("zarr_format", [2, 3])
@pytest.mark.parametrize("compressor", ["zlib", "bz2", "lzma"])
def test_strings_whose_compressor_states_no_size_are_read_and_rewritten(tmp_path, zarr_format,
                                                                        compressor):
    """zlib, bz2 and lzma streams do not state what they decode to, and a chunk of strings has
    no size its shape gives: zinto decodes such chunks as their buffer grows. zarr-python
    writes them (numcodecs' codecs, v3 through `zarr.codecs.numcodecs`); zinto reads them,
    through `zinto.open` and the pipeline, and rewrites a cut zlib chunk zarr-python reads
    back."""
    import numcodecs
    import zarr.codecs.numcodecs as v3codecs
    make = {"zlib": (numcodecs.Zlib, v3codecs.Zlib), "bz2": (numcodecs.BZ2, v3codecs.BZ2),
            "lzma": (numcodecs.LZMA, v3codecs.LZMA)}[compressor][zarr_format - 2]
    words = np.array([f"w{i}" * (i % 9) for i in range(3000)], dtype=object)
    path = tmp_path / "s.zarr"
    with zarr.config.set({"codec_pipeline.path": DEFAULT}):
        z = zarr.create_array(str(path), shape=words.shape, chunks=(700,), dtype=str,
                              zarr_format=zarr_format, compressors=make())
        z[...] = words.astype(str)
    assert zinto.open(path)[...].tolist() == words.tolist()
    for key in [Ellipsis, (slice(650, 1500),)]:
        before = zinto.pipeline.reads_by_zinto
        got = read(path, key, ZINTO)
        assert zinto.pipeline.reads_by_zinto == before + 1, zinto.pipeline.reads_handed_on
        assert equal(got, read(path, key, DEFAULT)), key
    if compressor != "zlib":
        # zinto reads bz2 and lzma, and does not encode them.
        with pytest.raises(zinto.EncodeError, match=compressor):
            zinto.open(path)[690:710] = np.array(["new"] * 20)
        return
    zinto.open(path)[690:710] = np.array(["new"] * 20)
    words[690:710] = "new"
    assert read(path, Ellipsis, DEFAULT).tolist() == words.tolist()


@pytest.mark.parametrize("location", ["end", "start"])
@pytest.mark.parametrize("kind", ["string", "bytes"])
def test_strings_and_bytes_in_shards_that_zarr_python_wrote_are_read_by_zinto(tmp_path, location, kind):
    """zarr-python 3.1.6 writes variable-length strings and bytes inside shards (each inner
    chunk `vlen-*` then its compressors): zinto reads them, through `zinto.open` and through
    the pipeline, equal to zarr-python's own read, with inner chunks and a whole shard never
    written (the fill value), edge shards and random selections."""
    from zarr.codecs import BytesCodec, Crc32cCodec, ShardingCodec, ZstdCodec, GzipCodec
    from zarr.codecs.vlen_utf8 import VLenBytesCodec, VLenUTF8Codec

    rng = np.random.default_rng(11 if kind == "string" else 12)
    shape = (11, 9)
    alphabet = ["", "a", "zinto", "ü€𝄞", "東京", "x" * 70, "nul\x00in"]
    vlen = VLenUTF8Codec() if kind == "string" else VLenBytesCodec()
    inner_chains = {"raw": [vlen], "zstd": [vlen, ZstdCodec(level=1)],
                    "gzip + crc32c": [vlen, GzipCodec(level=1), Crc32cCodec()]}
    for name, inner in inner_chains.items():
        path = tmp_path / f"{kind}-{name}.zarr"
        fill = "∅" if kind == "string" else b"\x00fill"
        with zarr.config.set({"codec_pipeline.path": DEFAULT}):
            z = zarr.create_array(
                str(path), shape=shape, chunks=(4, 6), dtype=str if kind == "string" else "bytes",
                fill_value=fill, compressors=None,
                serializer=ShardingCodec(chunk_shape=(2, 3), codecs=inner, index_location=location))
            model = np.full(shape, fill, dtype=object)
            # Rows 4-7 of columns 6-8 (one shard) are never written; elsewhere random boxes.
            for _ in range(6):
                r0, c0 = rng.integers(0, shape[0]), rng.integers(0, 6)
                r1, c1 = rng.integers(r0 + 1, shape[0] + 1), rng.integers(c0 + 1, 7)
                words = [alphabet[i] + str(j) for j, i in
                         enumerate(rng.integers(0, len(alphabet), (r1 - r0) * (c1 - c0)))]
                value = np.array(words if kind == "string" else [w.encode() for w in words],
                                 dtype=object).reshape(r1 - r0, c1 - c0)
                z[r0:r1, c0:c1] = value
                model[r0:r1, c0:c1] = value
            z[8:, 6:] = model[8:, 6:] = np.full((3, 3), "q" if kind == "string" else b"q",
                                                 dtype=object)
        assert not (path / "c" / "1" / "1").exists()
        rs = zinto.open(path)
        for key in [Ellipsis, (slice(3, 10), slice(2, 8)), (-1,), (slice(0, 1), 8)]:
            expected = model[key]
            got = rs[key]
            assert [x for x in np.ravel(got)] == [x for x in np.ravel(expected)], (name, key)
            before = zinto.pipeline.reads_by_zinto
            assert equal(read(path, key, ZINTO), read(path, key, DEFAULT)), (name, key)
            assert zinto.pipeline.reads_by_zinto == before + 1, (name, key, zinto.pipeline.reads_handed_on)
        # zinto writes into the shards too (one element cut out of an inner chunk, and a box
        # over shards), read back by zarr-python's default pipeline.
        for key, value in [((slice(5, 6), slice(7, 8)), [["new"]]),
                           ((slice(1, 10), slice(2, 8)), [[f"w{r}.{c}" for c in range(6)] for r in range(9)])]:
            value = np.array(value if kind == "string" else [[w.encode() for w in row] for row in value],
                             dtype=object)
            by_zinto = zinto.pipeline.writes_by_zinto
            with zarr.config.set({"codec_pipeline.path": ZINTO}):
                zarr.open_array(str(path), mode="r+")[key] = value
            model[key] = value
            assert zinto.pipeline.writes_by_zinto == by_zinto + 1, zinto.pipeline.writes_handed_on
            assert list(read(path, Ellipsis, DEFAULT).ravel()) == list(model.ravel()), (name, key)
        if name != "zstd":
            continue
        # ... and `zinto convert` copies them out of the shards (here into Zarr v2).
        dst = tmp_path / f"{kind}-v2.zarr"
        done = subprocess.run([sys.executable, "-m", "zinto", "convert", str(path), str(dst),
                               "--zarr-format", "2"], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert list(read(dst, Ellipsis, DEFAULT).ravel()) == list(model.ravel())


class _CountingStore(zarr.storage.MemoryStore):
    """A MemoryStore that records every get (key and byte range), in one list for all its
    copies (zarr-python opens a read-only copy of the store it is given)."""

    gets = []

    async def get(self, key, prototype, byte_range=None):
        self.gets.append((key, byte_range))
        return await super().get(key, prototype, byte_range)


@pytest.mark.parametrize("location", ["end", "start"])
def test_sharded_arrays_from_any_store_are_read_by_zinto(tmp_path, location):
    """Shards in a MemoryStore and a ZipStore (which zinto cannot address): zinto fetches each
    shard's index and then only the inner chunks the read touches, through zarr-python's store,
    and decodes them into the output."""
    from zarr.codecs import ShardingCodec

    value = np.arange(24 * 30, dtype="f4").reshape(24, 30)
    value[16:, 20:] = 0  # one shard all fill: not stored
    memory = _CountingStore()
    zip_path = str(tmp_path / "s.zip")
    for store in [memory, zarr.storage.ZipStore(zip_path, mode="w")]:
        with zarr.config.set({"codec_pipeline.path": DEFAULT}):
            inner = [zarr.codecs.BytesCodec(), zarr.codecs.ZstdCodec(level=1)]
            z = zarr.create_array(store, shape=value.shape, dtype="f4", chunks=(8, 10),
                                  serializer=ShardingCodec(chunk_shape=(4, 5), codecs=inner,
                                                           index_location=location),
                                  compressors=None)
            z[...] = value
        if store is not memory:
            store.close()
            store = zarr.storage.ZipStore(zip_path, mode="r")
        for key in [Ellipsis, (slice(3, 9), slice(7, 23)), (5,), (slice(16, 24), slice(20, 30))]:
            if store is memory:
                memory.gets.clear()
            before = zinto.pipeline.reads_by_zinto
            with zarr.config.set({"codec_pipeline.path": ZINTO}):
                got = zarr.open_array(store, mode="r")[key]
            assert zinto.pipeline.reads_by_zinto == before + 1, zinto.pipeline.reads_handed_on
            assert np.array_equal(got, value[key]), key
            if store is memory and key == (5,):
                # Row 5: shards (0, 0..2), each its index and the two inner chunks of its
                # rows 4:8, nothing more.
                chunk_gets = [g for g in memory.gets if g[0].startswith("c/")]
                assert len(chunk_gets) == 3 + 3 * 2, chunk_gets
                assert all(r is not None for _, r in chunk_gets), "a whole shard was fetched"


@pytest.mark.parametrize("where", ["local", "memory-sharded"])
def test_any_selection_and_output_layout_is_read_by_zinto(tmp_path, where):
    """Selections whose pieces do not tile one rectangle (steps, integer arrays, oindex,
    vindex, boolean masks) are read by zinto with one read gathered into the output (the
    selection put together again from the batch, each chunk read once); outputs zinto cannot
    fill in place (F order, big-endian) piece by piece, each piece decoded into a scratch of
    its box and put through zarr-python's selections. Equal to the default pipeline's
    result."""
    value = np.arange(20 * 18, dtype="i4").reshape(20, 18)
    if where == "local":
        store = str(tmp_path / "p.zarr")
        kwargs = dict(chunks=(4, 5))
    else:
        store = zarr.storage.MemoryStore()
        kwargs = dict(chunks=(2, 3), shards=(4, 6))
    with zarr.config.set({"codec_pipeline.path": DEFAULT}):
        z = zarr.create_array(store, shape=value.shape, dtype="i4", **kwargs)
        z[...] = value
    rows = np.array([0, 3, 3, 17, 9])
    mask = np.zeros(18, bool)
    mask[[1, 2, 11, 17]] = True
    cols = [2, 7, 16]
    selections = [
        ("step", lambda a: a[1:19:3, ::4], value[1:19:3, ::4]),
        ("int array", lambda a: a[rows], value[rows]),
        ("oindex", lambda a: a.oindex[rows, cols], value[np.ix_(rows, cols)]),
        ("oindex mask", lambda a: a.oindex[2:15, mask], value[2:15][:, mask]),
        ("vindex", lambda a: a.vindex[rows, [0, 5, 6, 17, 1]], value[rows, [0, 5, 6, 17, 1]]),
        ("int and array", lambda a: a.oindex[7, [3, 4, 15]], value[7, [3, 4, 15]]),
    ]
    for name, select, want in selections:
        before = (zinto.pipeline.reads_by_zinto, zinto.pipeline.reads_gathered)
        with zarr.config.set({"codec_pipeline.path": ZINTO}):
            got = select(zarr.open_array(store, mode="r"))
        assert (zinto.pipeline.reads_by_zinto, zinto.pipeline.reads_gathered) == \
            (before[0] + 1, before[1] + 1), (name, zinto.pipeline.reads_handed_on)
        assert np.array_equal(got, want), name
    for order, dtype in [("F", "i4"), ("C", ">i4")]:
        out = np.empty((6, 7), dtype=dtype, order=order)
        before = zinto.pipeline.reads_in_pieces
        with zarr.config.set({"codec_pipeline.path": ZINTO}):
            a = zarr.open_array(store, mode="r")
            a.get_basic_selection((slice(3, 9), slice(10, 17)), out=zarr.core.buffer.cpu.NDBuffer.from_numpy_array(out))
        assert zinto.pipeline.reads_in_pieces == before + 1, zinto.pipeline.reads_handed_on
        assert np.array_equal(out, value[3:9, 10:17]), (order, dtype)
