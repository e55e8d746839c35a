"""Remote stores from Python: `zinto.open("s3://...")` against moto's S3 server, started here on
127.0.0.1 and filled with the conformance fixtures by boto3; each array read through S3 must
equal its read from disk. Credentials and endpoint come from the environment, as a user's would.
"""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import zinto

from fixtures import DATA, EXAMPLES

NAMES = ["v3_gzip", "v3_shard_end", "v3_fill_int", "v2_zstd_dot", "v3_zstd_checksum_crc32c"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def moto_s3():
    """moto's S3 server with bucket `fixtures` holding NAMES, and the environment that finds it."""
    boto3 = pytest.importorskip("boto3")
    server = Path(sys.executable).with_name("moto_server")
    port = free_port()
    proc = subprocess.Popen(
        [str(server), "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        endpoint = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "moto did not start in 30 s"
                time.sleep(0.1)
        env = {
            "AWS_ENDPOINT_URL": endpoint,
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_REGION": "us-east-1",
            "AWS_ALLOW_HTTP": "true",
        }
        s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                          aws_access_key_id="testing", aws_secret_access_key="testing")
        s3.create_bucket(Bucket="fixtures")
        for base, name in [(DATA, n) for n in NAMES] + [(EXAMPLES, "weather.zarr")]:
            for path in (base / name).rglob("*"):
                if path.is_file():
                    s3.put_object(Bucket="fixtures", Key=path.relative_to(base).as_posix(),
                                  Body=path.read_bytes())
        yield env
    finally:
        proc.kill()
        proc.wait(timeout=10)


@pytest.fixture
def s3_env(moto_s3, monkeypatch):
    for k, v in moto_s3.items():
        monkeypatch.setenv(k, v)
    return moto_s3


@pytest.mark.parametrize("name", NAMES)
def test_an_array_on_s3_reads_as_it_reads_from_disk(s3_env, name):
    there = zinto.open(f"s3://fixtures/{name}")
    here = zinto.open(DATA / name)
    assert there.shape == here.shape and there.dtype == here.dtype
    np.testing.assert_array_equal(there[...], here[...])
    # A selection, and a read into a buffer the caller owns.
    key = tuple(slice(1, max(2, n - 1)) for n in here.shape)
    out = np.empty_like(here[key])
    there.read(key, out=out)
    np.testing.assert_array_equal(out, here[key])


@pytest.mark.parametrize("read_ahead", [0, 1, 1 << 20])
def test_any_read_ahead_budget_reads_the_same_values(s3_env, read_ahead):
    # One request in flight per worker with no budget, and budgets smaller than a frame: the
    # values are the same as from disk.
    there = zinto.open("s3://fixtures/weather.zarr/temperature", read_ahead=read_ahead)
    here = zinto.open(EXAMPLES / "weather.zarr/temperature")
    np.testing.assert_array_equal(there[...], here[...])
    with pytest.raises(ValueError, match="read_ahead must be 0 or more"):
        zinto.open("s3://fixtures/v3_gzip", read_ahead=-1)


def test_a_group_on_s3_lists_and_reads_as_on_disk(s3_env):
    there = zinto.open("s3://fixtures/weather.zarr")
    here = zinto.open(EXAMPLES / "weather.zarr")
    assert isinstance(there, zinto.Group)
    assert there.members() == here.members()
    for name, kind in here.members():
        if kind == "array":
            np.testing.assert_array_equal(there[name][...], here[name][...])


def test_remote_errors_name_what_failed(s3_env):
    with pytest.raises(FileNotFoundError, match="s3://fixtures/missing"):
        zinto.open("s3://fixtures/missing")
    with pytest.raises(ValueError, match="ftp://x"):
        zinto.open("ftp://x/y")
    with pytest.raises(ValueError, match="in_flight"):
        zinto.open("s3://fixtures/v3_gzip", in_flight=0)


def _no_fetched_bytes(monkeypatch):
    """Makes the pipeline's fallback (decoding the bytes zarr-python fetched) fail the test."""
    import zinto.pipeline as pipeline

    def fetched_by_zarr(*args):
        raise AssertionError("the pipeline decoded bytes zarr-python fetched")

    monkeypatch.setattr(zinto._zinto, "array_of_chunks", fetched_by_zarr)
    return pipeline


PIPELINE_NAMES = ["v3_gzip", "v3_shard_end", "v2_zstd_dot", "v3_fill_int"]


def _read_through_the_pipeline(store, pipeline):
    import zarr

    with zarr.config.set({"codec_pipeline.path": "zinto.ZintoCodecPipeline"}):
        for name in PIPELINE_NAMES:
            before = pipeline.reads_by_zinto
            got = zarr.open_array(store, path=name, mode="r")[...]
            assert pipeline.reads_by_zinto > before, name
            np.testing.assert_array_equal(got, zinto.open(DATA / name)[...])


def _obstore_s3(s3_env):
    """obstore's S3 store on moto's bucket, its settings given to it (not the environment's)."""
    from obstore.store import S3Store

    return S3Store("fixtures", config={
        "endpoint": s3_env["AWS_ENDPOINT_URL"], "region": "us-east-1",
        "access_key_id": "testing", "secret_access_key": "testing"},
        client_options={"allow_http": True})


def _s3fs(s3_env):
    """An asynchronous s3fs filesystem on moto, its settings given to it."""
    import s3fs

    return s3fs.S3FileSystem(key="testing", secret="testing", asynchronous=True,
                             client_kwargs={"endpoint_url": s3_env["AWS_ENDPOINT_URL"],
                                            "region_name": "us-east-1"})


def _close(fs):
    """An asynchronous filesystem's aiohttp session is its user's to close (else "Unclosed
    client session" at exit), on the loop zarr ran it on."""
    from zarr.core.sync import sync

    if getattr(fs, "_s3", None) is not None:
        sync(fs._s3.close())


def test_the_pipeline_fetches_an_obstore_s3_stores_chunks_itself(s3_env, monkeypatch):
    from zarr.storage import ObjectStore

    pipeline = _no_fetched_bytes(monkeypatch)
    # The settings come from the store, not the environment: zinto must take them from it.
    for k in s3_env:
        monkeypatch.delenv(k)
    inner = _obstore_s3(s3_env)
    _read_through_the_pipeline(ObjectStore(inner, read_only=True), pipeline)


def test_the_pipeline_fetches_an_s3fs_stores_chunks_itself(s3_env, monkeypatch):
    from zarr.storage import FsspecStore

    pipeline = _no_fetched_bytes(monkeypatch)
    for k in s3_env:
        monkeypatch.delenv(k)
    fs = _s3fs(s3_env)
    try:
        _read_through_the_pipeline(FsspecStore(fs, path="fixtures", read_only=True), pipeline)
    finally:
        _close(fs)


def test_merge_takes_segment_urls_and_patterns(s3_env):
    import boto3

    segments = DATA.parent / "segments"
    s3 = boto3.client("s3", endpoint_url=s3_env["AWS_ENDPOINT_URL"], region_name="us-east-1",
                      aws_access_key_id="testing", aws_secret_access_key="testing")
    for path in sorted((segments / "npy").glob("*.npy")):
        s3.put_object(Bucket="fixtures", Key=f"segments/{path.name}", Body=path.read_bytes())
    expected = np.load(segments / "expected_by_col1.npy")
    got = zinto.merge(["s3://fixtures/segments/*.npy"], key="col=1", stable=True)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)
    with pytest.raises(ValueError, match="matches no object"):
        zinto.merge(["s3://fixtures/segments/*.msgpack"], key="col=1")


def _write_through_the_pipeline(store, pipeline, prefix):
    """zarr-python creates arrays on `store` and writes them (whole, cut chunks, a scalar, a
    resize) with zinto's pipeline; zinto writes every chunk, and zarr-python's default pipeline
    reads back the NumPy model."""
    import zarr

    value = np.arange(12 * 10, dtype="f4").reshape(12, 10)
    for fmt, kwargs in [(3, {"compressors": [zarr.codecs.ZstdCodec(level=1)]}),
                        (3, {"shards": (8, 10)}), (2, {})]:
        name = f"{prefix}/w{fmt}{'s' if kwargs.get('shards') else ''}"
        before = dict(pipeline.writes_handed_on), pipeline.writes_by_zinto
        with zarr.config.set({"codec_pipeline.path": "zinto.ZintoCodecPipeline"}):
            z = zarr.create_array(store, name=name, shape=value.shape, chunks=(4, 5),
                                  dtype="f4", zarr_format=fmt, **kwargs)
            z[...] = value
            z[2:7, 3:9] = -value[2:7, 3:9]
            z[11] = 5.0
            z.resize((16, 10))
            z[12:] = 1.5
        want = np.concatenate([value, np.full((4, 10), 1.5, "f4")])
        want[2:7, 3:9] *= -1
        want[11] = 5.0
        assert pipeline.writes_by_zinto - before[1] == 4, (name, pipeline.writes_handed_on)
        assert dict(pipeline.writes_handed_on) == before[0], name
        with zarr.config.set({"codec_pipeline.path": "zarr.core.codec_pipeline.BatchedCodecPipeline"}):
            got = zarr.open_array(store, path=name, mode="r")[...]
        np.testing.assert_array_equal(got, want, err_msg=name)


def test_the_pipeline_writes_to_an_obstore_s3_store_itself(s3_env, monkeypatch):
    from zarr.storage import ObjectStore

    import zinto.pipeline as pipeline

    for k in s3_env:
        monkeypatch.delenv(k)
    inner = _obstore_s3(s3_env)
    _write_through_the_pipeline(ObjectStore(inner), pipeline, "obstore-writes")


def test_the_pipeline_writes_to_an_s3fs_store_itself(s3_env, monkeypatch):
    from zarr.storage import FsspecStore

    import zinto.pipeline as pipeline

    for k in s3_env:
        monkeypatch.delenv(k)
    fs = _s3fs(s3_env)
    try:
        _write_through_the_pipeline(FsspecStore(fs, path="fixtures/s3fs-writes"), pipeline,
                                    "a")
    finally:
        _close(fs)


@pytest.mark.parametrize("name", ["v3_gzip", "v3_shard_end"])
def test_index_lists_and_points_read_from_s3_as_from_disk(s3_env, name):
    there = zinto.open(f"s3://fixtures/{name}")
    here = zinto.open(DATA / name)
    rng = np.random.default_rng(5)
    for _ in range(5):
        rows = rng.integers(0, here.shape[0], 6)
        cols = rng.integers(0, here.shape[1], 6)
        np.testing.assert_array_equal(there[rows], here[rows])
        np.testing.assert_array_equal(there.oindex[rows, cols], here.oindex[rows, cols])
        np.testing.assert_array_equal(there.vindex[rows, cols], here.vindex[rows, cols])


def test_a_write_to_s3_warns_only_where_conditional_writes_are_off(s3_env, monkeypatch,
                                                                   tmp_path):
    """Issue 64: partial writes of one chunk from several writers are guarded on local files
    (a lock) and on S3 (a conditional write); an S3 endpoint set up without conditional writes
    (`AWS_CONDITIONAL_PUT=disabled`) is not guarded, and a write there says so once per
    process."""
    import warnings

    from zinto import _write

    monkeypatch.setattr(_write, "_WARNED_UNSERIALISED", False)
    local = zinto.save(tmp_path / "l.zarr", np.arange(10, dtype="i4"), chunks=5)
    there = zinto.save("s3://fixtures/warned.zarr", np.arange(10, dtype="i4"), chunks=5,
                       overwrite=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        local[1:3] = 7
        there[1:3] = 7
    monkeypatch.setenv("AWS_CONDITIONAL_PUT", "disabled")
    unguarded = zinto.open("s3://fixtures/warned.zarr")
    with pytest.warns(zinto.UnserialisedWriteWarning, match="docs/reliability.md"):
        unguarded[2:4] = 6
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        unguarded.oindex[[1, 4]] = 8  # once per process
    np.testing.assert_array_equal(zinto.open("s3://fixtures/warned.zarr")[...],
                                  [0, 8, 6, 6, 8, 5, 6, 7, 8, 9])


@pytest.mark.parametrize("how", ["region", "oindex"])
@pytest.mark.parametrize("layout", ["chunk", "shard"])
def test_processes_writing_one_chunk_on_s3_lose_nothing(s3_env, layout, how):
    """Issue 64: the processes of test_concurrent_writes.py, on moto's S3 server (which honours
    `If-Match` and `If-None-Match` on PUT): each update of the chunk is a conditional write,
    tried again from a fresh read when another process's came first."""
    from test_concurrent_writes import ROUNDS, WIDTH, WRITER, WRITERS, lost_rows, run_all

    url = f"s3://fixtures/concurrent-{layout}-{how}.zarr"
    shape = (WRITERS * ROUNDS, WIDTH)
    chunks, shards = (shape, None) if layout == "chunk" else ((32, 32), shape)
    zinto.create(url, shape, "int32", chunks, shards=shards, codecs=(), overwrite=True)
    run_all([(url, w, ROUNDS, WIDTH, how) for w in range(WRITERS)], WRITER)
    lost = lost_rows(zinto.open(url)[...])
    assert lost == [], f"rows lost: {lost}"


def _write_region_to(store, ds, rows):
    """One Dask task's region write (`to_zarr(region=...)`) of `ds`'s rows `rows` to `store`;
    the zinto writes of this worker so far."""
    ds.isel(y=rows).to_zarr(store, region={"y": rows}, safe_chunks=False)
    return zinto.pipeline.writes_by_zinto


@pytest.mark.parametrize("layout", ["chunks", "shards"])
def test_dask_chunks_that_cut_zarr_chunks_on_s3_lose_nothing(s3_env, monkeypatch, layout):
    """Issue 64: test_pipeline_write.py's `to_zarr(safe_chunks=False)` and `region=` writes
    from Dask chunks that cut zarr's chunks (or shards), on a LocalCluster of 2 worker
    processes of 2 threads, into obstore's S3 store on moto through zinto's pipeline (which
    writes it through zinto's own remote store, each cut chunk a conditional PUT)."""
    import dask.array as da
    import xarray as xr
    import zarr
    from distributed import Client, LocalCluster
    from obstore.store import S3Store
    from zarr.storage import ObjectStore

    rows, width = 64, 48
    data = np.arange(rows * width, dtype="i4").reshape(rows, width)
    encoding = {"chunks": (16, width)} if layout == "chunks" else \
        {"chunks": (8, width), "shards": (16, width)}
    prefix = f"dask-{layout}.zarr"
    store = ObjectStore(S3Store("fixtures", prefix=prefix, config={
        "endpoint": s3_env["AWS_ENDPOINT_URL"], "region": "us-east-1",
        "access_key_id": "testing", "secret_access_key": "testing"},
        client_options={"allow_http": True}))
    monkeypatch.setenv("ZARR_CODEC_PIPELINE__PATH", "zinto.ZintoCodecPipeline")
    with LocalCluster(n_workers=2, threads_per_worker=2, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client, \
            zarr.config.set({"codec_pipeline.path": "zinto.ZintoCodecPipeline"}):
        ds = xr.Dataset({"v": (("y", "x"), da.from_array(data, chunks=(4, width)))})
        ds.to_zarr(store, zarr_format=3, encoding={"v": encoding}, safe_chunks=False)
        np.testing.assert_array_equal(zinto.open(f"s3://fixtures/{prefix}/v")[...], data)
        again = xr.Dataset({"v": (("y", "x"), da.from_array(-data, chunks=(4, width)))})
        writes = client.gather(client.map(
            _write_region_to, [store] * (rows // 4), [again] * (rows // 4),
            [slice(i, i + 4) for i in range(0, rows, 4)], pure=False))
    assert min(writes) >= 1, writes  # the workers wrote through zinto
    np.testing.assert_array_equal(zinto.open(f"s3://fixtures/{prefix}/v")[...], -data)


def test_an_index_list_write_leaving_a_chunk_of_fill_on_s3_stores_it(s3_env):
    """Issue 64: S3 has no conditional DELETE, so a guarded update through the pipeline that
    leaves a chunk all fill value stores it (all fill) rather than deleting it: a plain DELETE
    could remove another writer's newer chunk. (On files the chunk is deleted, under its lock.)"""
    import zarr
    from obstore.store import S3Store
    from zarr.storage import ObjectStore

    from zinto import pipeline

    store = ObjectStore(S3Store("fixtures", prefix="fill-left.zarr", config={
        "endpoint": s3_env["AWS_ENDPOINT_URL"], "region": "us-east-1",
        "access_key_id": "testing", "secret_access_key": "testing"},
        client_options={"allow_http": True}))
    with zarr.config.set({"codec_pipeline.path": "zinto.ZintoCodecPipeline"}):
        z = zarr.create_array(store, shape=(8,), chunks=(8,), dtype="i4", fill_value=0,
                              compressors=None, overwrite=True)
        z[1] = 5
        z[3] = 6
        before = pipeline.writes_by_zinto
        z.oindex[[1, 3]] = 0  # not a rectangle: the pipeline's guarded chunk update
        assert pipeline.writes_by_zinto > before
        assert z.nchunks_initialized == 1
    np.testing.assert_array_equal(zinto.open("s3://fixtures/fill-left.zarr")[...], 0)


@pytest.mark.parametrize("layout", ["chunk", "shard"])
def test_reads_on_s3_never_fail_or_mix_while_writers_replace_the_chunks(s3_env, layout):
    """Issue 64, item 3 on S3: test_concurrent_writes.py's readers and replacers on moto. A
    shard is read in several requests (its index, then its inner chunks): each after the first
    carries the ETag the first saw (`If-Match`), and a shard replaced between them (a 412) is
    read again from the start, so a read neither fails nor mixes two versions. Without the
    ETag (the `if_match` lines off) the readers fail here."""
    from test_concurrent_writes import READER, REPLACER, finish

    url = f"s3://fixtures/replaced-{layout}.zarr"
    chunks, shards = ((256, 256), None) if layout == "chunk" else ((64, 64), (256, 256))
    a = zinto.create(url, (256, 256), "int32", chunks, shards=shards, overwrite=True)
    a[...] = (np.arange(256 * 256) % 2 + 1000).astype("int32").reshape(256, 256)
    seconds = 4
    procs = [(READER, (url, seconds))] * 2 + [(REPLACER, (url, seconds, k)) for k in (1, 2)]
    popen = [subprocess.Popen([sys.executable, "-c", code, *map(str, args)],
                              stderr=subprocess.PIPE, text=True) for code, args in procs]
    results = [finish(p) for p in popen]
    assert all(rc == 0 for rc, _ in results), results


@pytest.mark.parametrize("layout", ["chunk", "shard"])
def test_string_reads_on_s3_never_fail_while_writers_replace_the_chunks(s3_env, layout):
    """test_concurrent_writes.py's string readers and replacers on moto: each chunk's requests
    after the first carry its ETag, a chunk replaced between them (or between the read's two
    passes) starts the read again."""
    from test_concurrent_writes import replace_while_reading

    url = f"s3://fixtures/replaced-strings-{layout}.zarr"
    chunks, shards = ((64, 8), None) if layout == "chunk" else ((16, 8), (64, 8))
    a = zinto.create(url, (64, 8), str, chunks, shards=shards, overwrite=True)
    a[...] = np.full((64, 8), "0:", dtype=object)
    replace_while_reading(url, seconds=4)
