"""Processes writing different parts of one chunk (or one shard) at once lose nothing, readers
of chunks that writers replace never fail, and a writer killed while it holds a chunk's update
lock leaves the chunk whole and the lock free (issue 64). Each writer and reader is its own
Python process, as Dask's workers are; tests/tests/concurrent_writes.rs does the same with
threads, with its mutation check (the lock off: rows are lost)."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
import zarr

import zinto

WRITERS, ROUNDS, WIDTH = 4, 16, 64

WRITER = textwrap.dedent("""
    import sys, numpy as np, zinto
    path, w, rounds, width = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    how = sys.argv[5]
    a = zinto.open(path)
    for r in range(rounds):
        row, v = rounds * w + r, np.full(width, (w + 1) * 1000 + r, dtype="int32")
        if how == "region":
            a[row, :] = v
        else:  # index lists (every second column): the chunk read, merged, written whole
            for first in (0, 1):
                a.oindex[[row], list(range(first, width, 2))] = v[None, first::2]
""")


def finish(proc, timeout=120):
    """`(returncode, stderr)` of `proc` (started with `stderr=PIPE`), read as it runs (a child
    that writes much cannot block on a full pipe); killed if it outlives `timeout`."""
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        return "timed out", err
    return proc.returncode, err


def run_all(args_list, code):
    """Runs `code` in one process per argument list, all at once; fails on any failure."""
    procs = [subprocess.Popen([sys.executable, "-c", code, *map(str, args)],
                              stderr=subprocess.PIPE, text=True) for args in args_list]
    errors = [finish(p) for p in procs]
    assert all(rc == 0 for rc, _ in errors), errors


def create_rows_array(path, layout):
    """The writers' array at `path` (zarr-python writes its metadata): one chunk, or one
    shard of four inner chunks, of WRITERS * ROUNDS rows."""
    shape = (WRITERS * ROUNDS, WIDTH)
    if layout == "chunk":
        zarr.create_array(path, shape=shape, chunks=shape, dtype="int32")
    else:
        zarr.create_array(path, shape=shape, chunks=(32, 32), shards=shape, dtype="int32")


def lost_rows(got):
    """The rows of `got` that do not hold their writer's last value."""
    expected = np.array([[(w + 1) * 1000 + r] * WIDTH for w in range(WRITERS)
                         for r in range(ROUNDS)], dtype="int32")
    return sorted({int(i) for i in np.nonzero((got != expected).any(axis=1))[0]})


@pytest.mark.parametrize("how", ["region", "oindex"])
@pytest.mark.parametrize("layout", ["chunk", "shard"])
def test_processes_writing_one_chunk_lose_nothing(tmp_path, layout, how):
    path = str(tmp_path / "a.zarr")
    create_rows_array(path, layout)
    run_all([(path, w, ROUNDS, WIDTH, how) for w in range(WRITERS)], WRITER)
    lost = lost_rows(zarr.open_array(path, mode="r")[...])  # zarr-python reads what zinto wrote
    assert lost == [], f"rows lost: {lost}"
    # The lock file is empty and not a chunk zarr-python counts (a shard's four inner chunks).
    assert os.path.getsize(os.path.join(path, ".zinto-lock")) == 0
    assert zarr.open_array(path, mode="r").nchunks_initialized == (1 if layout == "chunk" else 4)


PIPELINE_WRITER = textwrap.dedent("""
    import sys, numpy as np, zarr, zinto
    path, w, rounds, width = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    with zarr.config.set({"codec_pipeline.path": "zinto.ZintoCodecPipeline"}):
        a = zarr.open_array(path, mode="r+")
        for r in range(rounds):
            row, v = rounds * w + r, np.full(width, (w + 1) * 1000 + r, dtype="int32")
            for first in (0, 1):  # zarr-python's index lists: the pipeline's chunk pieces
                a.oindex[[row], list(range(first, width, 2))] = v[None, first::2]
    assert zinto.pipeline.writes_by_zinto > 0, zinto.pipeline.writes_handed_on
""")


@pytest.mark.parametrize("layout", ["chunk", "shard"])
def test_processes_writing_index_lists_through_the_pipeline_lose_nothing(tmp_path, layout):
    """zarr-python's own `oindex` writes through zinto's pipeline: each chunk piece is read,
    laid and written by zinto under the chunk's update guard (`RsArray.update_chunk`)."""
    path = str(tmp_path / "a.zarr")
    create_rows_array(path, layout)
    run_all([(path, w, ROUNDS, WIDTH) for w in range(WRITERS)], PIPELINE_WRITER)
    lost = lost_rows(zarr.open_array(path, mode="r")[...])
    assert lost == [], f"rows lost: {lost}"


STRING_PIPELINE_WRITER = textwrap.dedent("""
    import sys, numpy as np, zarr, zinto
    path, w, rounds, width = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    with zarr.config.set({"codec_pipeline.path": "zinto.ZintoCodecPipeline"}):
        a = zarr.open_array(path, mode="r+")
        for r in range(rounds):
            row = rounds * w + r
            v = np.array([f"{(w + 1) * 1000 + r}" + "x" * (r % 5)] * width, dtype=object)
            for first in (0, 1):  # zarr-python's index lists: the pipeline's chunk pieces
                a.oindex[[row], list(range(first, width, 2))] = v[None, first::2]
    assert zinto.pipeline.writes_by_zinto > 0, zinto.pipeline.writes_handed_on
""")


@pytest.mark.parametrize("layout", ["chunk", "shard"])
def test_processes_writing_string_index_lists_through_the_pipeline_lose_nothing(tmp_path,
                                                                               layout):
    """The same for strings: each chunk piece is read, laid and written by zinto under the
    chunk's update guard (`RsArray.update_vlen_chunk`)."""
    path = str(tmp_path / "s.zarr")
    shape = (WRITERS * ROUNDS, WIDTH)
    if layout == "chunk":
        zarr.create_array(path, shape=shape, chunks=shape, dtype=str)
    else:
        zarr.create_array(path, shape=shape, chunks=(32, 32), shards=shape, dtype=str)
    run_all([(path, w, ROUNDS, WIDTH) for w in range(WRITERS)], STRING_PIPELINE_WRITER)
    got = zarr.open_array(path, mode="r")[...]
    expected = np.array([[f"{(w + 1) * 1000 + r}" + "x" * (r % 5)] * WIDTH
                         for w in range(WRITERS) for r in range(ROUNDS)], dtype=object)
    lost = sorted({int(i) for i in np.nonzero((got != expected).any(axis=1))[0]})
    assert lost == [], f"rows lost: {lost}"


def test_threads_of_one_process_updating_one_chunk_through_the_pipeline_call_finish(tmp_path):
    """The pipeline's chunk update (`RsArray.update_chunk`, which zarr-python's index-list
    writes take) from 4 threads of one process, each laying its row in Python while it holds
    the chunk's lock: the guard is waited for without the GIL, so the thread holding the lock
    can take the GIL back to finish. (Waiting with the GIL held, a writer would keep the
    lock's holder from its Python merge until the lock's wait of 60 s ran out.)"""
    import threading

    a = zinto.create(tmp_path / "a.zarr", (8, 64), "int32", (8, 64), codecs=())
    rs, errors = a._rs, []

    def writer(w):
        try:
            for r in range(20):
                out = np.empty((8, 64), dtype="int32")

                def lay():
                    time.sleep(0.002)  # Python work under the chunk's lock, with the GIL
                    out[w, :] = (w + 1) * 100 + r
                rs.update_chunk([0, 0], [8, 64], out.reshape(-1).view(np.uint8), True, lay)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == [] and time.monotonic() - start < 30, (errors, time.monotonic() - start)
    got = zinto.open(tmp_path / "a.zarr")[...]
    assert [int(got[w, 0]) for w in range(4)] == [119, 219, 319, 419]
    assert (got[4:] == 0).all()


# Version `i` of the chunk: i * 1000 + (element index mod 1 + i % 50), so that versions differ
# in their stored sizes, and a reader can tell which version a value belongs to.
VERSION = textwrap.dedent("""
    import numpy as np
    def version(i, shape=(256, 256)):
        n = shape[0] * shape[1]
        return (i * 1000 + np.arange(n) % (1 + i % 50)).astype("int32").reshape(shape)
""")

READER = VERSION + textwrap.dedent("""
    import sys, time, zinto
    path, seconds = sys.argv[1], float(sys.argv[2])
    a = zinto.open(path)
    end, reads = time.monotonic() + seconds, 0
    while time.monotonic() < end:
        v = a[...]
        # One version throughout: a mix of two is a torn read.
        assert (v == version(int(v.flat[0]) // 1000)).all(), "a read mixed two versions"
        reads += 1
    assert reads > 5, reads
""")

REPLACER = VERSION + textwrap.dedent("""
    import sys, time, zinto
    path, seconds, first = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    a = zinto.open(path)
    end, i = time.monotonic() + seconds, first
    while time.monotonic() < end:
        i += 2
        a[...] = version(i)  # whole chunks, renamed over the old ones
""")


@pytest.mark.parametrize("layout", ["chunk", "shard"])
def test_reads_never_fail_while_writers_replace_the_chunks(tmp_path, layout):
    path = str(tmp_path / "a.zarr")
    if layout == "chunk":
        zarr.create_array(path, shape=(256, 256), chunks=(256, 256), dtype="int32")
    else:
        zarr.create_array(path, shape=(256, 256), chunks=(64, 64), shards=(256, 256),
                          dtype="int32")
    zinto.open(path)[...] = (np.arange(256 * 256) % 2 + 1000).astype("int32").reshape(256, 256)
    seconds = 3
    procs = [(READER, (path, seconds))] * 2 + [(REPLACER, (path, seconds, k)) for k in (1, 2)]
    popen = [subprocess.Popen([sys.executable, "-c", code, *map(str, args)],
                              stderr=subprocess.PIPE, text=True) for code, args in procs]
    results = [finish(p) for p in popen]
    assert all(rc == 0 for rc, _ in results), results


# Version `i` of a string array: element j is "i:" and j % (1 + i % 7) x's, so that versions
# differ in their lengths (a chunk read with another version's lengths fails or mixes).
STRING_VERSION = textwrap.dedent("""
    import numpy as np
    def version(i, shape=(64, 8)):
        n = shape[0] * shape[1]
        return np.array([f"{i}:" + "x" * (j % (1 + i % 7)) for j in range(n)],
                        dtype=object).reshape(shape)
""")

STRING_READER = STRING_VERSION + textwrap.dedent("""
    import sys, time, zinto
    path, seconds = sys.argv[1], float(sys.argv[2])
    a = zinto.open(path)
    end, reads = time.monotonic() + seconds, 0
    while time.monotonic() < end:
        v = a[...]
        i = int(str(v.flat[0]).split(":")[0])
        assert (v.astype(object) == version(i)).all(), "a read mixed two versions"
        reads += 1
    assert reads > 5, reads
""")

STRING_REPLACER = STRING_VERSION + textwrap.dedent("""
    import sys, time, zinto
    path, seconds, first = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    a = zinto.open(path)
    end, i = time.monotonic() + seconds, first
    while time.monotonic() < end:
        i += 2
        a[...] = version(i)  # whole chunks, renamed (or PUT) over the old ones
""")


def replace_while_reading(url, seconds=3):
    """Two readers and two replacers of the string array at `url` for `seconds`; fails on any
    process's failure (a read that failed, or mixed two versions)."""
    procs = ([(STRING_READER, (url, seconds))] * 2
             + [(STRING_REPLACER, (url, seconds, k)) for k in (1, 2)])
    popen = [subprocess.Popen([sys.executable, "-c", code, *map(str, args)],
                              stderr=subprocess.PIPE, text=True) for code, args in procs]
    results = [finish(p) for p in popen]
    assert all(rc == 0 for rc, _ in results), results


@pytest.mark.parametrize("layout", ["chunk", "shard"])
def test_string_reads_never_fail_while_writers_replace_the_chunks(tmp_path, layout):
    """Strings are read in two passes (their lengths, then their values), each chunk from one
    open of its file; a chunk replaced between the passes starts the read again."""
    path = tmp_path / "s.zarr"
    chunks, shards = ((64, 8), None) if layout == "chunk" else ((16, 8), (64, 8))
    a = zinto.create(path, (64, 8), str, chunks, shards=shards)
    a[...] = np.full((64, 8), "0:", dtype=object)
    replace_while_reading(str(path))


KILLED = textwrap.dedent("""
    import sys, numpy as np, zinto
    path = sys.argv[1]
    a = zinto.open(path)
    print("ready", flush=True)
    i = 0
    while True:
        i += 1
        a[: 1024, :] = np.full((1024, 2048), i, dtype="float32")  # half the chunk: locked
""")


def test_a_writer_killed_holding_the_lock_leaves_the_chunk_whole_and_the_lock_free(tmp_path):
    path = str(tmp_path / "a.zarr")
    zarr.create_array(path, shape=(2048, 2048), chunks=(2048, 2048), dtype="float32")
    zinto.open(path)[...] = np.full((2048, 2048), -1, dtype="float32")
    for delay in (0.3, 0.45, 0.6):
        p = subprocess.Popen([sys.executable, "-c", KILLED, path], stdout=subprocess.PIPE,
                             text=True)
        assert p.stdout.readline().strip() == "ready"
        time.sleep(delay)  # some writes done, one under way (each holds the lock ~most of it)
        p.send_signal(signal.SIGKILL)
        p.wait()
        v = zinto.open(path)[...]
        top = v[:1024]
        assert (top == top.flat[0]).all() and (v[1024:] == -1).all()
        start = time.monotonic()
        zinto.open(path)[1024:, :] = np.full((1024, 2048), 5, dtype="float32")
        assert time.monotonic() - start < 10, "the next writer waited for a dead one's lock"
        assert (zinto.open(path)[1024:] == 5).all()
        zinto.open(path)[1024:, :] = np.full((1024, 2048), -1, dtype="float32")
