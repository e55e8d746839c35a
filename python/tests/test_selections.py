"""Selections other than a rectangle (issue 62), differentially: arrays zarr-python writes
(chunks, shards, zstd, raw, F order, edge chunks), read through `zinto.open(...)[key]` with
random keys NumPy takes (lists and arrays of ints in any order with repeats and negatives,
masks, steps, several index arrays broadcast together, mixed with ints and slices) and
compared with NumPy indexing the same data, and `oindex`/`vindex` with zarr-python's own.
Seeded: a failure names a case that reruns."""

import numpy as np
import pytest

import zinto

zarr = pytest.importorskip("zarr")

LAYOUTS = [
    # shape, chunks, shards, compressor, order
    ((37, 23), (8, 5), None, "zstd", "C"),
    ((37, 23), (8, 5), None, None, "C"),
    ((40, 30), (10, 6), (20, 30), "zstd", "C"),
    ((12, 9, 7), (5, 4, 3), None, "zstd", "F"),
    ((50,), (7,), None, None, "C"),
    ((11, 13, 5), (3, 13, 5), (6, 13, 5), None, "C"),
]


def write(path, shape, chunks, shards, compressor, order, dtype="int32"):
    data = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    kwargs = {"chunks": chunks, "shards": shards, "dtype": dtype, "fill_value": -1}
    if compressor is None:
        kwargs["compressors"] = None
    if order == "F":
        kwargs["order"] = "F"
        kwargs["zarr_format"] = 2
        kwargs.pop("shards")
    z = zarr.create_array(str(path), shape=shape, **kwargs)
    z[...] = data
    return data


def random_item(rng, n, dim):
    """One item of a key for an axis of `n`."""
    kind = rng.integers(0, 7)
    if kind == 0:
        return int(rng.integers(-n, n))
    if kind == 1:
        a, b = sorted(rng.integers(-n, n + 1, 2))
        return slice(int(a), int(b), int(rng.choice([1, 2, 3, -1, -2])))
    if kind == 2:
        return slice(None)
    if kind == 3:
        return rng.random(n) < 0.4
    if kind == 4:
        return [int(x) for x in rng.integers(-n, n, rng.integers(0, 6))]
    return rng.integers(-n, n, rng.integers(1, 6))


def random_key(rng, shape):
    key = [random_item(rng, n, d) for d, n in enumerate(shape)]
    arrays = [i for i, k in enumerate(key) if isinstance(k, (list, np.ndarray)) and
              np.asarray(k).dtype != bool]
    # Several int arrays broadcast together: make them one length (or one a scalar array).
    if len(arrays) > 1:
        m = len(np.asarray(key[arrays[0]]))
        for i in arrays[1:]:
            key[i] = rng.integers(-shape[i], shape[i], m)
    # Several masks broadcast as their true positions: keep one.
    masks = [i for i, k in enumerate(key) if isinstance(k, np.ndarray) and k.dtype == bool]
    for i in masks[1:]:
        key[i] = slice(None)
    if masks and len(arrays) > 0:
        key[masks[0]] = slice(None)
    return tuple(key)


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda l: f"{l[0]}-{l[1]}-{l[2]}-{l[3]}-{l[4]}")
def test_numpy_keys_read_as_numpy_indexes_the_data(tmp_path, layout):
    data = write(tmp_path / "a.zarr", *layout)
    a = zinto.open(tmp_path / "a.zarr")
    rng = np.random.default_rng(abs(hash(layout)) % 2**32)
    for case in range(60):
        key = random_key(rng, data.shape)
        want = data[key]
        got = a[key]
        assert got.shape == want.shape, (case, key)
        np.testing.assert_array_equal(got, want, err_msg=f"case {case}: {key}")
        if want.size and want.ndim:
            out = np.empty(want.shape, want.dtype)
            assert a.read(key, out=out) is out
            np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("layout", LAYOUTS[:4], ids=lambda l: f"{l[0]}-{l[2]}-{l[3]}-{l[4]}")
def test_oindex_and_vindex_read_as_zarr_python_reads_them(tmp_path, layout):
    data = write(tmp_path / "a.zarr", *layout)
    a = zinto.open(tmp_path / "a.zarr")
    z = zarr.open_array(str(tmp_path / "a.zarr"), mode="r")
    rng = np.random.default_rng(7)
    for case in range(40):
        key = []
        for n in data.shape:
            kind = rng.integers(0, 4)
            key.append([int(rng.integers(0, n)), slice(1, n - 1), rng.random(n) < 0.5,
                        rng.integers(0, n, rng.integers(1, 5))][kind])
        key = tuple(key)
        np.testing.assert_array_equal(a.oindex[key], z.oindex[key], err_msg=f"oindex {key}")
        m = int(rng.integers(0, 8))
        points = tuple(rng.integers(-n, n, m) for n in data.shape)
        np.testing.assert_array_equal(a.vindex[points], z.vindex[points],
                                      err_msg=f"vindex {points}")
    mask = data % 3 == 0
    np.testing.assert_array_equal(a.vindex[mask], z.vindex[mask])


def test_strings_take_index_arrays_too(tmp_path):
    values = np.array([f"s{i}" * (i % 4) for i in range(30)], dtype=object)
    z = zarr.create_array(str(tmp_path / "s.zarr"), shape=(30,), chunks=(7,), dtype=str)
    z[...] = values
    a = zinto.open(tmp_path / "s.zarr")
    for key in ([5, 1, 1, 29], np.arange(30) % 4 == 0, slice(None, None, -2), [-1]):
        assert list(a[key]) == list(values[key]), key


def test_bad_keys_are_refused_as_numpy_refuses_them(tmp_path):
    write(tmp_path / "a.zarr", (10, 6), (4, 4), None, "zstd", "C")
    a = zinto.open(tmp_path / "a.zarr")
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 10"):
        a[[1, 10]]
    with pytest.raises(IndexError, match="out of bounds for axis 1"):
        a[:, [-7]]
    with pytest.raises(IndexError, match="boolean index did not match"):
        a[np.ones(9, bool)]
    with pytest.raises(IndexError, match="integer \\(or boolean\\) type"):
        a[[1.5, 2.0]]
    with pytest.raises(IndexError, match="could not be broadcast"):
        a[[1, 2, 3], [1, 2]]
    with pytest.raises(IndexError, match="slices are not coordinates"):
        a.vindex[[1, 2], :]



@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda l: f"{l[0]}-{l[1]}-{l[2]}-{l[3]}-{l[4]}")
def test_writes_through_numpy_keys_and_oindex_vindex_as_numpy_assigns(tmp_path, layout):
    """Random NumPy keys (lists with repeats, masks, steps, broadcast points), oindex and
    vindex written through zinto, a NumPy model assigned the same: equal after each; zarr-python
    reads what zinto wrote."""
    data = write(tmp_path / "a.zarr", *layout)
    model = data.copy()
    a = zinto.open(tmp_path / "a.zarr")
    rng = np.random.default_rng(abs(hash(layout)) % 2**32 + 1)
    for case in range(25):
        key = random_key(rng, data.shape)
        shape = model[key].shape
        value = rng.integers(-10**6, 10**6, shape).astype(model.dtype)
        a[key] = value
        model[key] = value
        np.testing.assert_array_equal(a[...], model, err_msg=f"case {case}: {key}")
    a.oindex[[2, 0, 2], ...] = 7
    model[[2, 0, 2], ...] = 7
    points = tuple(rng.integers(0, n, 5) for n in data.shape)
    a.vindex[points] = np.arange(5)
    model[points] = np.arange(5)
    np.testing.assert_array_equal(a[...], model)
    np.testing.assert_array_equal(zarr.open_array(str(tmp_path / "a.zarr"), mode="r")[...], model)


def test_string_writes_through_index_arrays_are_refused_by_name(tmp_path):
    z = zarr.create_array(str(tmp_path / "s.zarr"), shape=(10,), chunks=(3,), dtype=str)
    z[...] = np.array(["x"] * 10, dtype=object)
    with pytest.raises(NotImplementedError, match="not supported yet"):
        zinto.open(tmp_path / "s.zarr")[[1, 2]] = "y"


PIPELINE = "zinto.ZintoCodecPipeline"
DEFAULT = "zarr.core.codec_pipeline.BatchedCodecPipeline"


@pytest.mark.parametrize("layout", LAYOUTS[:3] + LAYOUTS[5:],
                         ids=lambda l: f"{l[0]}-{l[2]}-{l[3]}")
def test_the_pipeline_gathers_what_zarr_python_selects(tmp_path, layout):
    """zarr-python's oindex, vindex, masks and index arrays through zinto's pipeline: equal to
    zarr-python's default pipeline, every read gathered by zinto (none piece by piece, none
    handed on)."""
    data = write(tmp_path / "a.zarr", *layout)
    rng = np.random.default_rng(11)
    keys = []
    for _ in range(25):
        ortho = tuple(rng.integers(-n, n, rng.integers(1, 5)) if rng.random() < 0.6
                      else slice(None, None, int(rng.integers(1, 4))) for n in data.shape)
        points = tuple(rng.integers(-n, n, 6) for n in data.shape)
        keys.append(("oindex", ortho))
        keys.append(("vindex", points))
    keys.append(("vindex", data % 5 == 1))
    keys.append(("getitem", (rng.integers(0, data.shape[0], 7),)))
    for kind, key in keys:
        with zarr.config.set({"codec_pipeline.path": DEFAULT}):
            z = zarr.open_array(str(tmp_path / "a.zarr"), mode="r")
            want = z.oindex[key] if kind == "oindex" else z.vindex[key] if kind == "vindex" \
                else z[key]
        before = (zinto.pipeline.reads_gathered, zinto.pipeline.reads_in_pieces,
                  sum(zinto.pipeline.reads_handed_on.values()))
        with zarr.config.set({"codec_pipeline.path": PIPELINE}):
            z = zarr.open_array(str(tmp_path / "a.zarr"), mode="r")
            got = z.oindex[key] if kind == "oindex" else z.vindex[key] if kind == "vindex" \
                else z[key]
        np.testing.assert_array_equal(got, want, err_msg=f"{kind} {key}")
        after = (zinto.pipeline.reads_gathered, zinto.pipeline.reads_in_pieces,
                 sum(zinto.pipeline.reads_handed_on.values()))
        assert after[1:] == before[1:], (kind, key, zinto.pipeline.reads_handed_on)
        assert after[0] >= before[0], (kind, key)


def test_xarray_isel_with_index_lists_is_gathered_by_zinto(tmp_path):
    xr = pytest.importorskip("xarray")
    data = np.arange(60 * 40, dtype="float32").reshape(60, 40)
    ds = xr.Dataset({"t": (("y", "x"), data)}, coords={"y": np.arange(60), "x": np.arange(40)})
    ds.to_zarr(tmp_path / "d.zarr", encoding={"t": {"chunks": (16, 10)}})
    rows = [50, 3, 3, 17]
    with zarr.config.set({"codec_pipeline.path": PIPELINE}):
        before = zinto.pipeline.reads_gathered
        # Without Dask (chunks=None) xarray hands its indexer to zarr-python: oindex.
        got = xr.open_zarr(tmp_path / "d.zarr", chunks=None)["t"].isel(y=rows, x=slice(5, 30)).values
        assert zinto.pipeline.reads_gathered > before
    np.testing.assert_array_equal(got, data[rows, 5:30])


def test_read_many_takes_keys_with_index_arrays(tmp_path):
    data = write(tmp_path / "a.zarr", (37, 23), (8, 5), None, "zstd", "C")
    a = zinto.open(tmp_path / "a.zarr")
    rng = np.random.default_rng(3)
    keys = [(rng.integers(0, 37, 4), slice(2, 9)) for _ in range(5)] + [(slice(3, 7), slice(0, 7))]
    got = a.read_many(keys)
    assert got.shape == (6, 4, 7)
    for i, k in enumerate(keys):
        np.testing.assert_array_equal(got[i], data[k])
    with pytest.raises(ValueError, match="one shape"):
        a.read_many([([1, 2],), ([1],)])


def test_ctrl_c_stops_a_long_gathered_read(tmp_path):
    """A gathered read runs on the calling thread (no thread started to watch for Ctrl-C: it
    cost a loader's batch a tenth of its time), and still stops at SIGINT: rows of 64 chunks
    of 1 MiB, one worker, the signal once a row is in; some rows never read."""
    from fixtures import interrupted

    n = 1 << 18
    data = np.sin(np.arange(64 * n, dtype=np.float32) / 1000).reshape(64, n)
    z = zinto.create(tmp_path / "g.zarr", data.shape, data.dtype, (1, n), codecs="zstd:19")
    z[...] = data
    rows = list(range(63, -1, -1))  # a list: the gathered path, last row first
    out = np.full((64, n), np.nan, np.float32)
    interrupted(lambda: not np.isnan(out[:, -1]).all(),
                lambda: z.read(np.s_[rows], out=out, threads=1))
    read = [not np.isnan(r).any() for r in out]
    assert any(read) and not all(read), "the read ran to the end: the signal was not seen"
