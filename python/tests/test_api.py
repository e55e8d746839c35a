"""The Python API: every conformance fixture reads as zarr-python reads it, NumPy indexing,
`out=`, groups, errors, the GIL released during reads, and Ctrl-C stopping a long one."""

import threading
import time
import warnings

import numpy as np
import pytest
import zarr

import zinto

from fixtures import DATA, EXAMPLES, ROOT, fixture_arrays, interrupted

warnings.simplefilter("ignore")


def same(got, want):
    if want.dtype.kind in "OT":
        return got.shape == want.shape and got.tolist() == want.tolist()
    # zinto returns native byte order; zarr-python keeps the stored one.
    assert got.dtype == want.dtype.newbyteorder("="), (got.dtype, want.dtype)
    if want.dtype.kind in "mM":
        return np.array_equal(got.view("i8"), want.view("i8"))
    return np.array_equal(got, want, equal_nan=want.dtype.kind in "fc")


@pytest.mark.parametrize("name", fixture_arrays())
def test_every_fixture_reads_as_zarr_python_reads_it(name):
    path = DATA / name
    z = zarr.open_array(str(path), mode="r")
    a = zinto.open(path)
    assert a.shape == z.shape
    assert same(a[...], np.asarray(z[...])), name
    if z.ndim and z.shape[0] > 0:
        assert same(a[-1], np.asarray(z[-1])), name
    if z.ndim >= 2 and z.shape[-1] > 1:
        key = (Ellipsis, slice(-2, None))
        assert same(a[key], np.asarray(z[key])), name


def test_fixtures_are_all_there():
    assert len(fixture_arrays()) >= 230


def test_numpy_basic_indexing():
    a = zinto.open(EXAMPLES / "temperature.zarr")
    z = zarr.open_array(str(EXAMPLES / "temperature.zarr"), mode="r")
    full = np.asarray(z[...])
    for key in [(-1,), (slice(-10, None), 3), (Ellipsis, -5), (5, Ellipsis), (slice(100, 5),),
                (slice(-1000, 1000), slice(None, -700)), (0, 0), ()]:
        got = a[key]
        assert got.shape == full[key].shape, key
        assert np.array_equal(got, full[key]), key
    # Steps and index lists are read too (tests/test_selections.py checks them at length).
    for key in [(slice(None, None, 2),), ([1, 2],)]:
        assert np.array_equal(a[key], full[key]), key
    for bad in [(360,), (-361,), (0, 0, 0), (Ellipsis, Ellipsis), (None,), (True,)]:
        with pytest.raises(zinto.SelectionError):
            a[bad]
    with pytest.raises(ValueError):
        a[None]
    with pytest.raises(IndexError):
        a[400]


def test_out_is_filled_in_place_and_checked():
    a = zinto.open(EXAMPLES / "temperature.zarr")
    full = a[...]
    out = np.zeros((10, 20), dtype=np.float32)
    got = a.read((slice(0, 10), slice(0, 20)), out=out)
    assert got is out and np.array_equal(out, full[:10, :20])
    buf = bytearray(10 * 4)
    a.read((3, slice(0, 10)), out=buf)
    assert np.array_equal(np.frombuffer(buf, dtype=np.float32), full[3, :10])
    for bad, says in [
        (np.zeros((10, 21), np.float32), "expected shape (10, 20) and dtype float32"),
        (np.zeros((10, 20), np.float64), "expected shape (10, 20) and dtype float32"),
        (np.zeros((20, 10), np.float32).T, "C-contiguous"),
        (bytearray(7), "buffer of 7 bytes"),
        (b"\0" * 800, "read-only"),
    ]:
        with pytest.raises(ValueError, match=says.replace("(", r"\(").replace(")", r"\)")):
            a.read((slice(0, 10), slice(0, 20)), out=bad)
    ro = np.zeros((10, 20), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        a.read((slice(0, 10), slice(0, 20)), out=ro)


def test_metadata_properties_and_repr():
    a = zinto.open(EXAMPLES / "weather.zarr/temperature")
    assert a.shape == (48, 6) and a.chunks == (24, 3) and a.shards is None
    assert a.dtype == np.float32 and a.dimension_names == ("time", "station")
    assert a.attrs["units"] == "degC"
    assert "zstd" in a.codecs and "shape=(48, 6)" in repr(a)
    # One separator between fields, as in the rest of the repr.
    assert "chunks=(24, 3) dims=('time', 'station') codecs=[" in repr(a), repr(a)
    s = zinto.open(EXAMPLES / "sharded.zarr")
    assert s.shards == (256, 256) and s.chunks == (64, 64)
    assert "chunks=(64, 64) shards=(256, 256)" in repr(s), repr(s)


def test_the_version_is_the_packages():
    import tomllib

    with open(EXAMPLES.parent.parent / "python" / "pyproject.toml", "rb") as f:
        assert zinto.__version__ == tomllib.load(f)["project"]["version"]


def test_groups_map_names_to_nodes():
    g = zinto.open(EXAMPLES / "weather.zarr")
    assert isinstance(g, zinto.Group) and g.consolidated
    assert list(g) == ["lat", "lon", "station", "temperature", "time", "wind_speed"]
    assert g.attrs["title"].startswith("Hourly weather")
    names = g["station"][...]
    assert names.tolist()[:3] == ["Zürich", "São Paulo", "Tōkyō"]
    nested = zinto.open(DATA / "ds_nested_v3.zarr")
    w = nested["a/b/c/w"]
    assert isinstance(w, zinto.Array) and w.attrs == {"array": "w", "depth": 3}
    assert "a" in nested and "nothing" not in nested
    with pytest.raises(KeyError):
        nested["nothing"]


def test_errors_map_to_python_exceptions(tmp_path):
    with pytest.raises(FileNotFoundError):
        zinto.open(tmp_path / "missing.zarr")
    with pytest.raises(FileNotFoundError):
        zinto.open(tmp_path)  # a directory without metadata
    src = EXAMPLES / "temperature.zarr"
    bad = tmp_path / "corrupt.zarr"
    (bad / "c/0").mkdir(parents=True)
    (bad / "zarr.json").write_bytes((src / "zarr.json").read_bytes())
    (bad / "c/0/0").write_bytes(b"not zstd")
    with pytest.raises(zinto.DecodeError, match="chunk c/0/0") as e:
        zinto.open(bad)[0:10, 0:10]
    assert isinstance(e.value, zinto.ZintoError)
    (bad / "zarr.json").write_text('{"zarr_format": 3, "node_type": "array"}')
    with pytest.raises(zinto.MetadataError):
        zinto.open(bad)


def big_array(tmp_path, mib=64, rows=8):
    """A zstd float32 array of `mib` MiB in `rows` chunks (one a row), written by zarr-python."""
    n = mib * (1 << 20) // 4
    data = np.sin(np.arange(n, dtype=np.float32) / 1000) + np.arange(n, dtype=np.float32) % 7
    z = zarr.create_array(str(tmp_path / "big.zarr"), shape=(rows, n // rows),
                          chunks=(1, n // rows), dtype="float32")
    z[...] = data.reshape(rows, n // rows)
    return tmp_path / "big.zarr", data.reshape(rows, n // rows)


SECRET_URLS = [
    # A password in the URL, and presigned URLs' signatures and credentials; nothing listens
    # on port 9 of 127.0.0.1, so each open fails after the client's own error names the URL.
    ("http://alice:hunter2secret@127.0.0.1:9/data.zarr", ["hunter2secret", "alice"]),
    ("https://127.0.0.1:9/d.zarr?X-Amz-Credential=AKIAcred&X-Amz-Signature=sigsecret1",
     ["AKIAcred", "sigsecret1"]),
    ("https://127.0.0.1:9/c/d.zarr?sv=2022&sig=azuresassig", ["azuresassig"]),
    ("ftp://alice:hunter2secret@host/x", ["hunter2secret"]),
]


@pytest.mark.parametrize("url,secrets", SECRET_URLS)
def test_exceptions_never_show_a_urls_secrets(url, secrets):
    with pytest.raises(Exception) as caught:
        zinto.open(url)
    texts, error = [], caught.value
    while error is not None:  # the exception and everything chained to it
        texts += [str(error), repr(error)]
        error = error.__cause__ or error.__context__
    for text in texts:
        for secret in secrets:
            assert secret not in text, text
    assert "***" in str(caught.value), str(caught.value)


def test_symlinks_are_followed_unless_refused(tmp_path):
    import shutil
    array = tmp_path / "t.zarr"
    shutil.copytree(EXAMPLES / "temperature.zarr", array)
    outside = tmp_path / "outside.json"
    (array / "zarr.json").rename(outside)
    (array / "zarr.json").symlink_to(outside)
    assert zinto.open(array).shape == (360, 720)
    with pytest.raises(zinto.StoreError, match="symbolic link"):
        zinto.open(array, follow_symlinks=False)


def test_help_documents_every_property():
    import pydoc
    for cls, names in [
        (zinto.Array, ["shape", "dtype", "chunks", "shards", "dimension_names", "codecs",
                       "zarr_format", "path", "attrs", "ndim", "size"]),
        (zinto.Group, ["path", "attrs", "consolidated"]),
    ]:
        text = pydoc.render_doc(cls, renderer=pydoc.plaintext)
        for name in names:
            prop = getattr(cls, name)
            assert isinstance(prop, property) and prop.__doc__, (cls, name)
            assert name in text, (cls, name)


def test_the_gil_is_released_during_a_read(tmp_path):
    path, data = big_array(tmp_path)
    a = zinto.open(path)
    ticks = 0
    stop = threading.Event()

    def tick():
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0.001)

    t = threading.Thread(target=tick)
    t.start()
    time.sleep(0.01)
    before = ticks
    start = time.perf_counter()
    out = a.read(threads=1)
    seconds = time.perf_counter() - start
    during = ticks - before
    stop.set()
    t.join()
    assert np.array_equal(out, data)
    # A thread sleeping 1 ms per tick ticks about once a millisecond when the GIL is free;
    # a read holding the GIL would allow a handful of ticks (at most one per switch interval).
    assert during >= seconds * 1000 * 0.25, (during, seconds)


def test_ctrl_c_stops_a_long_read_between_chunks(tmp_path):
    path, data = big_array(tmp_path, mib=256, rows=64)
    a = zinto.open(path)
    out = np.full(a.shape, np.nan, dtype=np.float32)
    # Ctrl-C once the first chunk (row) is in: the read is then under way, with 63 chunks to
    # go. (A timer fired after a fixed delay raced the read: on a fast, warm machine the read
    # can end first.)
    interrupted(lambda: not np.isnan(out[0, -1]), lambda: a.read(out=out, threads=1))
    # Stopped inside the read, at a chunk boundary: some rows (chunks) read, some never.
    read = [not np.isnan(row).any() for row in out]
    assert not all(read), "the read ran to the end: the signal was not seen during it"
    for row, done in zip(range(len(out)), read):
        if done:
            assert np.array_equal(out[row], data[row])


def test_merge_matches_numpy_concatenate_and_stable_argsort():
    import numcodecs

    files = sorted((EXAMPLES / "spectra").glob("*.zst"))
    assert len(files) >= 3
    rows = np.concatenate([
        np.frombuffer(numcodecs.Zstd().decode(f.read_bytes()), dtype="<f8").reshape(-1, 3)
        for f in files])
    want = rows[np.argsort(rows[:, 1], kind="stable")]
    got = zinto.merge(files, key="f64@8", stable=True, dtype=np.dtype((np.float64, 3)))
    assert got.shape == want.shape and np.array_equal(got, want)
    # Unsorted: the files end to end, as uint8 records.
    raw = zinto.merge(files, record_size=24)
    assert raw.shape == (len(rows), 24) and np.array_equal(raw.view("<f8").reshape(-1, 3), rows)
    # The parallel sort gives the same keys in order.
    fast = zinto.merge(files, key="f64@8", dtype=[("scan", "<f8"), ("mz", "<f8"), ("i", "<f8")])
    assert np.array_equal(fast["mz"], want[:, 1])
    with pytest.raises(ValueError, match="not a whole number of 7-byte records"):
        zinto.merge(files, record_size=7)
    with pytest.raises(ValueError, match="unknown key type"):
        zinto.merge(files, record_size=24, key="f16@0")
    with pytest.raises(FileNotFoundError):
        zinto.merge([EXAMPLES / "spectra/none.zst"], record_size=24)


@pytest.mark.parametrize("kind", ["npy", "msgpack"])
def test_merge_of_segments_keeps_their_dtype_and_shape(kind):
    seg = ROOT / "tests/fixtures/segments"
    files = sorted((seg / kind).glob(f"segm-*.{kind}"))
    want = np.load(seg / "expected_by_col1.npy")
    got = zinto.merge(files, key="col=1", stable=True)
    assert got.dtype == np.dtype("<f8") and got.shape == (121, 3)
    assert np.array_equal(got, want)
    # Unsorted: np.concatenate of what np.load (or msgpack-numpy) gives.
    parts = [np.load(f) for f in sorted((seg / "npy").glob("segm-*.npy"))]
    assert np.array_equal(zinto.merge(files), np.concatenate(parts))
    with pytest.raises(ValueError, match="rows have 3 columns"):
        zinto.merge(files, key="col=3")
    with pytest.raises(ValueError, match="carry their dtype"):
        zinto.merge(files, record_size=24)


def test_merge_refuses_segments_that_disagree_by_name():
    odd = ROOT / "tests/fixtures/segments/odd"
    with pytest.raises(zinto.ZintoError, match="int32.npy.*<i4.*<f8"):
        zinto.merge([odd / "small.npy", odd / "int32.npy"])
    with pytest.raises(zinto.ZintoError, match="Fortran-ordered"):
        zinto.merge([odd / "fortran.npy"])
    be = zinto.merge([odd / "big_endian.npy"])
    assert be.dtype == np.dtype(">f8") and np.array_equal(be, np.load(odd / "small.npy"))


@pytest.mark.parametrize("doc", ["README.md", "docs/python.md"])
def test_the_python_examples_in_the_docs_run(doc, monkeypatch, tmp_path):
    """Docs that run: every ```python block of the page, in order, in a fresh folder where
    `examples/` is the repository's (so what they write lands there, not in the checkout)."""
    import re

    import zarr

    text = (ROOT / doc).read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, doc
    (tmp_path / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    scope = {}
    try:
        for block in blocks:
            exec(compile(block, f"{doc} (python block)", "exec"), scope)  # noqa: S102
    finally:
        zarr.config.reset()


def test_groups_tolerate_other_files_and_answer_membership(tmp_path):
    g = zarr.open_group(str(tmp_path / "g.zarr"), mode="w")
    g.create_array("a", shape=(3,), dtype="i2")[:] = [1, 2, 3]
    g.create_group("sub")
    (tmp_path / "g.zarr" / "notes.txt").write_text("not zarr")
    z = zinto.open(tmp_path / "g.zarr")
    assert list(z) == ["a", "sub"]
    assert np.array_equal(z["a"][...], [1, 2, 3])
    assert "a" in z and "sub" in z and "a/b" not in z and "nothing" not in z and 3 not in z
    with pytest.raises(KeyError):
        z["a/b"]
    assert np.array_equal(zinto.open(EXAMPLES / "temperature.zarr")[np.array(3), 0:2],
                          zinto.open(EXAMPLES / "temperature.zarr")[3, 0:2])


def test_a_string_chunk_past_the_decoded_chunk_limit_is_refused(tmp_path):
    # Four strings, one of 4 MiB, in one zstd chunk of a few KB: a small decompression bomb.
    big = "a" * (4 << 20)
    path = tmp_path / "s.zarr"
    zinto.create(path, (4,), str, (4,), codecs=["zstd"])[...] = [big, "b", "", "d"]
    assert zinto.DECODED_CHUNK_LIMIT == 1 << 30
    assert zinto.open(path)[0] == big  # the default limit allows it
    arr = zinto.open(path, decoded_chunk_limit=1 << 20)
    assert arr.decoded_chunk_limit == 1 << 20
    with pytest.raises(zinto.DecodeError, match=r"c/0.*1048576 bytes.*decoded_chunk_limit"):
        arr[:]
    arr.decoded_chunk_limit = 8 << 20
    assert list(arr[:]) == [big, "b", "", "d"]


def test_slabs_are_the_librarys_and_cut_the_first_axis_longer_than_one():
    # (1, 1000, 10) float32 in (1, 100, 10) chunks, about 8,000 bytes a slab: five slabs of
    # two chunks along axis 1, not one slab of the whole region along axis 0.
    cut = zinto._zinto.slabs([3, 0, 0], [1, 1000, 10], [1, 100, 10], 4, 8000)
    assert cut == [([3, k * 200, 0], [1, 200, 10]) for k in range(5)]
    # At least one chunk's extent, however small the target; slab edges on the chunk grid.
    assert zinto._zinto.slabs([5], [20], [8], 4, 1) == [([5], [3]), ([8], [8]), ([16], [8]),
                                                         ([24], [1])]
    assert zinto._zinto.slabs([0, 0], [0, 5], [2, 5], 1, 10) == []
