"""Python writes: `zinto.create`, `zinto.save`, `Array.write` and `arr[key] = value`.

Every array written here is read back by zarr-python (without zinto's pipeline) and compared
with a NumPy model of the same writes; the memory test checks with tracemalloc that a
C-contiguous value of the array's type is handed to Rust as it is, never copied in Python.
"""

import json
import tracemalloc

import numpy as np
import pytest

import zinto

from fixtures import interrupted

zarr = pytest.importorskip("zarr")


def zarr_reads(path):
    """What zarr-python, with its default pipeline, reads at `path`."""
    with zarr.config.set({"codec_pipeline.path": "zarr.core.codec_pipeline.BatchedCodecPipeline"}):
        return zarr.open_array(str(path), mode="r")[...]


CHAINS = [
    (3, "raw"), (3, "zstd"), (3, ["zstd:1", "crc32c"]), (3, "gzip:1"),
    (2, "raw"), (2, "zstd:5"), (2, "zlib"),
]
DTYPES = ["float32", "int16", "uint8", "bool", "complex64", ">f8", "float16"]


def sample(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind == "c":
        return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)
    if dtype.kind in "iu":
        return rng.integers(0, 100, shape).astype(dtype)
    return rng.normal(size=shape).astype(dtype)


@pytest.mark.parametrize("zarr_format,codecs", CHAINS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_save_is_read_back_by_zarr_python(tmp_path, zarr_format, codecs, dtype):
    value = sample(dtype, (11, 7, 3))
    path = tmp_path / "a.zarr"
    arr = zinto.save(path, value, chunks=(4, 3, 3), codecs=codecs, zarr_format=zarr_format)
    assert arr.shape == value.shape and arr.dtype == value.dtype.newbyteorder("=")
    np.testing.assert_array_equal(zarr_reads(path), value)
    np.testing.assert_array_equal(arr[...], value)
    # A big-endian type is stored big-endian (v3: the bytes codec's endian; v2: the dtype).
    big = np.dtype(dtype).byteorder == ">"
    if zarr_format == 3:
        doc = json.loads((path / "zarr.json").read_text())
        bytes_codec = [c for c in doc["codecs"] if c["name"] == "bytes"][0]
        if np.dtype(dtype).itemsize > 1:
            assert bytes_codec["configuration"]["endian"] == ("big" if big else "little")
        else:  # one-byte types: no byte order stated, as zarr-python writes them
            assert bytes_codec == {"name": "bytes"}
    else:
        stated = json.loads((path / ".zarray").read_text())["dtype"]
        assert stated[0] == (">" if big else "<" if np.dtype(dtype).itemsize > 1 else "|")


def test_writes_match_a_numpy_model(tmp_path):
    """Basic-indexing writes of every kind (ints, negative ints, slices cutting chunks, a
    scalar broadcast, Ellipsis) into a sharded array, each checked against NumPy's."""
    shape = (20, 13, 6)
    path = tmp_path / "m.zarr"
    arr = zinto.create(path, shape, "float32", (4, 5, 3), shards=(8, 10, 6), codecs="zstd:1",
                       fill_value=-1.0)
    model = np.full(shape, -1.0, dtype=np.float32)
    rng = np.random.default_rng(3)
    keys = [np.s_[...], np.s_[3:17, 2:11, 1:5], np.s_[5], np.s_[-1, :, -2], np.s_[0:1, 12],
            np.s_[..., 4], np.s_[7:8, 3:4, 2:3], np.s_[2:19:1, -13:, :]]
    for i, key in enumerate(keys):
        shape_here = model[key].shape
        value = rng.normal(size=shape_here).astype(np.float32) if i % 3 else np.float32(i)
        model[key] = value
        arr[key] = value
        np.testing.assert_array_equal(zarr_reads(path), model, err_msg=f"after writing {key}")
    np.testing.assert_array_equal(zinto.open(path)[...], model)


def test_a_chunk_written_as_fill_is_removed(tmp_path):
    path = tmp_path / "f.zarr"
    arr = zinto.create(path, (8, 8), "int32", (4, 4), codecs="raw", fill_value=7)
    arr[...] = np.arange(64, dtype=np.int32).reshape(8, 8)
    chunk = path / "c" / "1" / "1"
    assert chunk.is_file()
    arr[4:, 4:] = 7
    assert not chunk.exists(), "a chunk all fill value is not stored"
    arr.write(np.s_[4:, 4:], 7, write_empty_chunks=True)
    assert chunk.is_file(), "write_empty_chunks stores it"
    want = np.arange(64, dtype=np.int32).reshape(8, 8)
    want[4:, 4:] = 7
    np.testing.assert_array_equal(zarr_reads(path), want)


def test_values_are_cast_and_broadcast_as_numpy_assigns(tmp_path):
    arr = zinto.create(tmp_path / "c.zarr", (4, 6), "int16", (2, 3))
    arr[...] = np.arange(6, dtype=np.float64) + 0.75  # a row broadcast, floats truncated
    want = np.zeros((4, 6), np.int16)
    want[...] = np.arange(6, dtype=np.float64) + 0.75
    np.testing.assert_array_equal(arr[...], want)
    arr[:, 1] = [9, 8, 7, 6]  # a list into a column
    want[:, 1] = [9, 8, 7, 6]
    np.testing.assert_array_equal(arr[...], want)
    arr[1:3, 2:5] = np.asfortranarray(np.ones((2, 3), np.int16) * 5)  # not C-contiguous
    want[1:3, 2:5] = 5
    np.testing.assert_array_equal(arr[...], want)


def test_a_c_contiguous_value_is_not_copied(tmp_path):
    """tracemalloc sees NumPy's allocations: a 16 MB value of the array's type must not be
    copied on its way to Rust; the same value in F order must be (the mutation check that
    the measurement sees a copy)."""
    shape = (64, 256, 256)
    value = sample("float32", shape)
    arr = zinto.create(tmp_path / "n.zarr", shape, "float32", (16, 256, 256), codecs="raw")

    def python_peak(v):
        tracemalloc.start()
        try:
            arr.write(Ellipsis, v, threads=2)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    assert python_peak(value) < 1 << 20
    assert python_peak(np.asfortranarray(value)) >= value.nbytes
    np.testing.assert_array_equal(arr[...], value)


def test_ctrl_c_stops_a_write_between_chunks(tmp_path):
    """SIGINT during a long write (one thread, zstd at level 19): KeyboardInterrupt, and every
    chunk is either written whole or not there: zarr-python reads each as the data or the
    fill value, and no temporary file is left."""
    shape = (48, 512, 512)
    value = sample("float32", shape)
    path = tmp_path / "i.zarr"
    arr = zinto.create(path, shape, "float32", (1, 512, 512), codecs="zstd:19", fill_value=0.0)

    def started():
        chunks = path / "c"
        return chunks.is_dir() and any(p.is_dir() for p in chunks.iterdir())

    interrupted(started, lambda: arr.write(Ellipsis, value, threads=1))
    read = zarr_reads(path)
    written = [bool(np.array_equal(read[i], value[i])) for i in range(shape[0])]
    assert any(written) and not all(written), written
    for i, done in enumerate(written):
        if not done:
            assert not read[i].any(), f"chunk {i} is neither the data nor the fill value"
    left = [p for p in path.rglob("*") if "zinto-partial" in p.name]
    assert not left, left


def test_ctrl_c_stops_a_string_write_between_chunks_not_slabs(tmp_path, monkeypatch):
    """SIGINT during a string write in two slabs of 200 chunks each (one thread, zstd at level
    19): the write stops within the first slab, between chunks, not at its end; every chunk
    is written whole or not there, and no temporary file is left."""
    import zinto._vlen as vlen

    monkeypatch.setattr(vlen, "SLAB_ELEMENTS", 200_000)
    rng = np.random.default_rng(11)
    value = np.array([f"s{v}" * (v % 7) for v in rng.integers(0, 10**9, 400_000).tolist()],
                     dtype=object)
    path = tmp_path / "s.zarr"
    arr = zinto.create(path, value.shape, str, (1000,), codecs="zstd:19")

    def started():
        chunks = path / "c"
        return chunks.is_dir() and any(True for _ in chunks.iterdir())

    interrupted(started, lambda: arr.write(Ellipsis, value, threads=1))
    read = zarr_reads(path)
    written = [read[i:i + 1000].tolist() == value[i:i + 1000].tolist()
               for i in range(0, 400_000, 1000)]
    assert any(written) and not all(written[:200]), sum(written[:200])
    for i, done in enumerate(written):
        if not done:
            assert not (path / "c" / str(i)).exists(), f"chunk {i} is neither the data nor absent"
    left = [p for p in path.rglob("*") if "zinto-partial" in p.name]
    assert not left, left


@pytest.mark.parametrize("zarr_format", [2, 3])
@pytest.mark.parametrize("dtype", ["datetime64[s]", ">M8[10ms]", "timedelta64[us]"])
def test_dates_and_durations_are_created_as_zarr_python_reads_them(tmp_path, dtype, zarr_format):
    """Dates and durations with their unit, NaT the fill value: a chunk all NaT is not stored,
    and zarr-python and zinto read back the values, unit and byte order included."""
    a = (np.arange(60, dtype="i8") * 7919).astype(dtype).reshape(6, 10)
    a[:3, :5] = np.array("NaT").astype(dtype)
    a[4, 7] = np.array("NaT").astype(dtype)
    z = zinto.create(tmp_path / "d", a.shape, dtype, (3, 5), zarr_format=zarr_format,
                     fill_value="NaT")
    z[...] = a
    assert not (tmp_path / "d" / ("c/0/0" if zarr_format == 3 else "0.0")).exists()
    if zarr_format == 3:
        meta = json.loads((tmp_path / "d" / "zarr.json").read_text())
        endian = [c for c in meta["codecs"] if c["name"] == "bytes"][0]["configuration"]["endian"]
        assert endian == ("big" if dtype.startswith(">") else "little"), meta["codecs"]
        assert meta["fill_value"] == np.iinfo("i8").min  # NaT, as zarr-python writes it
    else:
        meta = json.loads((tmp_path / "d" / ".zarray").read_text())
        assert meta["dtype"] == np.dtype(dtype).str, meta["dtype"]
    back = zarr_reads(tmp_path / "d")
    np.testing.assert_array_equal(back, a)
    np.testing.assert_array_equal(zinto.open(tmp_path / "d")[...], a)
    with pytest.raises(ValueError, match="dates and durations with a unit"):
        zinto.create(tmp_path / "generic", (4,), "datetime64", (2,))


def test_refusals_are_clear(tmp_path):
    with pytest.raises(ValueError, match="not a codec zinto writes"):
        zinto.create(tmp_path / "a", (4,), "f4", (2,), codecs="lzma")
    with pytest.raises(ValueError, match="LEVEL is 0 to 22"):
        zinto.create(tmp_path / "b", (4,), "f4", (2,), codecs="zstd:30")
    with pytest.raises(ValueError, match="one compressor at most"):
        zinto.create(tmp_path / "c", (4,), "f4", (2,), codecs=["zstd", "gzip"])
    with pytest.raises(ValueError, match="not structured types"):
        zinto.create(tmp_path / "d", (4,), [("a", "i4"), ("b", "f8")], (2,))
    with pytest.raises(zinto.MetadataError, match="elements larger than"):
        zinto.create(tmp_path / "big", (4,), "U300000", (2,))
    assert not (tmp_path / "big").exists()
    arr = zinto.create(tmp_path / "e", (4, 4), "f4", (2, 2))
    with pytest.raises(ValueError, match="broadcast"):
        arr[0:2, 0:2] = np.ones((3, 3))
    with pytest.raises(zinto.SelectionError):
        arr[4, 0] = 1.0
    with pytest.raises(ValueError, match="step cannot be zero"):  # as NumPy's
        arr[::0] = 1.0
    arr[::2] = 1.0  # steps are written (issue 62): the even rows
    np.testing.assert_array_equal(arr[:, 0], [1, 0, 1, 0])
    with pytest.raises(zinto.MetadataError, match="overwrite"):
        zinto.create(tmp_path / "e", (4, 4), "f4", (2, 2))
    again = zinto.create(tmp_path / "e", (3,), "i8", (3,), overwrite=True)
    assert again.shape == (3,)


def test_create_states_what_was_asked(tmp_path):
    path = tmp_path / "s.zarr"
    arr = zinto.create(path, (6, 4), "uint16", (3, 2), attributes={"units": "K"},
                       dimension_names=["y", "x"], fill_value=5, order="F")
    stored = zarr.open_array(str(path), mode="r")
    assert stored.attrs["units"] == "K" and stored.metadata.dimension_names == ("y", "x")
    assert stored.fill_value == 5 and arr.attrs == {"units": "K"}
    assert int(zarr_reads(path)[0, 0]) == 5
    arr[...] = np.arange(24, dtype=np.uint16).reshape(6, 4)
    np.testing.assert_array_equal(zarr_reads(path), np.arange(24).reshape(6, 4))


def test_auto_chunks():
    assert zinto._write.auto_chunks((100, 1000, 1000), 4) == [4, 1000, 1000]
    assert zinto._write.auto_chunks((10,), 8) == [10]
    assert zinto._write.auto_chunks((3, 0, 5), 4) == [3, 1, 5]
    assert zinto._write.auto_chunks((), 4) == []


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_strings_and_bytes_are_written_and_read_back_by_zarr_python(tmp_path, zarr_format):
    words = np.array(["Zürich", "", "東京", "🦀 crab", "a" * 100, "x"], dtype=object)
    s = zinto.create(tmp_path / "s", (6, 4), str, (4, 3), zarr_format=zarr_format,
                     fill_value="-")
    model = np.full((6, 4), "-", dtype=object)
    s[...] = np.resize(words, (6, 4))
    model[...] = np.resize(words, (6, 4))
    s[1:5, 2] = np.array(["p", "q", "r", "ß"], dtype=np.dtypes.StringDType())
    model[1:5, 2] = ["p", "q", "r", "ß"]
    s[5] = "last"
    model[5] = "last"
    s[0:4, 0:3] = "-"  # all fill value: the chunk is removed
    model[0:4, 0:3] = "-"
    assert s[...].tolist() == model.tolist()
    back = zarr.open_array(tmp_path / "s", mode="r")
    assert back[...].tolist() == model.tolist()
    key = "c/0/0" if zarr_format == 3 else "0.0"
    assert not (tmp_path / "s" / key).exists()
    b = zinto.create(tmp_path / "b", (5,), bytes, (2,), zarr_format=zarr_format)
    b[...] = [b"\x00\xff", b"", b"abc", b"d", b"\xc3"]
    b[1:3] = [b"x", b"yz"]
    expected = [b"\x00\xff", b"x", b"yz", b"d", b"\xc3"]
    assert zarr.open_array(tmp_path / "b", mode="r")[...].tolist() == expected
    with pytest.raises(TypeError, match="takes str"):
        s[0, 0] = b"bytes"
    with pytest.raises(TypeError, match="takes bytes"):
        b[0] = "text"


def test_string_slabs_are_written_in_order_while_the_next_is_read(tmp_path, monkeypatch):
    """Slabs of a string write go to the store in order, one write at a time, on the caller's
    thread (where Ctrl-C reaches them), each while the next slab is read on another; a slab
    whose write fails raises, and no slab after it is written. The array holds what a NumPy
    model of the writes holds."""
    import threading
    import zinto._vlen as vlen

    monkeypatch.setattr(vlen, "SLAB_ELEMENTS", 12)  # four rows a slab: 5 slabs
    s = zinto.create(tmp_path / "s", (20, 3), str, (2, 3))
    model = np.array([f"e{i}" for i in range(60)], dtype=object).reshape(20, 3)
    log, busy, real = [], threading.Lock(), s._rs
    second_read = threading.Event()
    caller = threading.current_thread()

    class Recording:
        """Records each slab's write, and whether two ever ran at once."""
        def __init__(self, fail_at=None):
            self.fail_at = fail_at

        def __getattr__(self, name):
            return getattr(real, name)

        def write_vlen(self, start, extent, *rest):
            assert busy.acquire(blocking=False), "two slab writes at once"
            try:
                log.append(("write", start[0], extent[0], threading.current_thread()))
                if start[0] == self.fail_at:
                    raise OSError("the store is full")
                if start[0] == 0:
                    # The next slab is read while this one is written: a read in turn
                    # would wait here in vain.
                    assert second_read.wait(10), "the next slab was not read meanwhile"
                real.write_vlen(start, extent, *rest)
            finally:
                busy.release()

    flatten = vlen.flatten

    def reading(value, shape, text):
        log.append(("read", shape[0], threading.current_thread()))
        if len([e for e in log if e[0] == "read"]) == 2:
            second_read.set()
        return flatten(value, shape, text)

    monkeypatch.setattr(vlen, "flatten", reading)
    s._rs = Recording()
    s[...] = model
    writes = [e for e in log if e[0] == "write"]
    assert [(w[1], w[2]) for w in writes] == [(r, 4) for r in range(0, 20, 4)], log
    assert all(w[3] is caller for w in writes), writes
    reads = [e for e in log if e[0] == "read"]
    assert len(reads) == 5 and reads[0][2] is caller, reads
    assert all(r[2].name.startswith("zinto-vlen-read") for r in reads[1:]), reads
    assert zarr_reads(tmp_path / "s").tolist() == model.tolist()

    log.clear()
    second_read.clear()
    s._rs = Recording(fail_at=4)
    with pytest.raises(OSError, match="store is full"):
        s[...] = np.full((20, 3), "new", dtype=object)
    assert [e[1] for e in log if e[0] == "write"] == [0, 4], log
    assert [e[0] for e in log].count("read") <= 3, log  # slabs 0, 1 and 2 at most
    model[0:4] = "new"
    assert zarr_reads(tmp_path / "s").tolist() == model.tolist()


@pytest.mark.parametrize("zarr_format", [2, 3])
@pytest.mark.parametrize("dtype, fill, values", [
    ("<U5", "ø", ["Züric", "", "東京", "abcde", "x", "🦀🦀", "", "q"]),
    (">U3", None, ["a", "bcd", "", "ü", "", "", "zz", "y"]),
    ("S4", b"ab", [b"abcd", b"", b"\x00y", b"\xff", b"z", b"", b"ab", b"\x01"]),
])
def test_fixed_length_strings_and_bytes_are_created_as_zarr_python_states_them(
        tmp_path, zarr_format, dtype, fill, values):
    """NumPy's `U n` and `S n`: the metadata as zarr-python 3.1.6 writes it (v3
    `fixed_length_utf32` / `null_terminated_bytes` with `length_bytes`, fill values as text and
    base64; v2 `<U n`, `|S n`), the elements written as NumPy holds them (big-endian UTF-32
    stored big-endian), chunks all of the fill value not stored; zarr-python reads them back."""
    path = tmp_path / "f.zarr"
    a = zinto.create(path, (8,), dtype, (3,), fill_value=fill, zarr_format=zarr_format)
    model = np.array(values, dtype=dtype)
    a[...] = model
    a[1:4] = model[[4, 5, 6]]
    model[1:4] = model[[4, 5, 6]]
    stored_fill = np.array(fill if fill is not None else "", dtype=dtype)[()]
    a[6:8] = stored_fill  # the last chunk (6-7) is all fill value: not stored
    model[6:8] = stored_fill
    back = zarr.open_array(str(path), mode="r")
    assert back[...].tolist() == model.tolist()
    assert zinto.open(path)[...].tolist() == model.tolist()
    assert back.dtype.kind == np.dtype(dtype).kind
    assert back.dtype.itemsize == np.dtype(dtype).itemsize
    assert back.fill_value == stored_fill
    doc = json.loads((path / ("zarr.json" if zarr_format == 3 else ".zarray")).read_text())
    if zarr_format == 3:
        name = "fixed_length_utf32" if "U" in dtype else "null_terminated_bytes"
        assert doc["data_type"] == {"name": name, "configuration": {
            "length_bytes": np.dtype(dtype).itemsize}}
    else:
        assert doc["dtype"] == np.dtype(dtype).str
    last = "c/2" if zarr_format == 3 else "2"
    assert not (path / last).exists()


def test_blosc_over_elements_wider_than_255_bytes_both_ways(tmp_path):
    """zarr-python states a Blosc codec's typesize as the element's size, 256 for `U64` (c-blosc
    shuffles such elements as bytes). zinto reads those arrays, and states the same when it
    creates one; zarr-python reads what zinto writes."""
    from zarr.codecs import BloscCodec

    a = np.array(["x" * 64, "", "é" * 10, "z", "東京" * 32, "q"], dtype="U64")
    theirs = tmp_path / "zarr-python.zarr"
    z = zarr.create_array(str(theirs), shape=a.shape, dtype=a.dtype, chunks=(4,),
                          compressors=[BloscCodec(cname="zstd", shuffle="shuffle")])
    z[...] = a
    assert zinto.open(theirs)[...].tolist() == a.tolist()
    ours = tmp_path / "zinto.zarr"
    arr = zinto.create(ours, a.shape, a.dtype, (4,), codecs=["blosc:zstd:5:shuffle"])
    arr[...] = a
    blosc = [c for c in json.loads((ours / "zarr.json").read_text())["codecs"] if c["name"] == "blosc"]
    assert blosc[0]["configuration"]["typesize"] == 256
    assert zarr.open_array(str(ours), mode="r")[...].tolist() == a.tolist()


@pytest.mark.parametrize("outer_index,middle_index", [("end", "start"), ("start", "end")])
def test_shards_inside_shards_are_written_as_zarr_python_reads_them(tmp_path, outer_index,
                                                                     middle_index):
    """zarr-python nests `ShardingCodec`s; zinto writes such arrays (random cut regions, some
    all fill value, so inner chunks and whole inner shards go absent) through `zinto.open` and
    through the pipeline, and zarr-python's default pipeline reads back the model each time."""
    from zarr.codecs import BytesCodec, Crc32cCodec, ShardingCodec, ZstdCodec
    rng = np.random.default_rng(7)
    middle = ShardingCodec(chunk_shape=(2, 3), codecs=[BytesCodec(), ZstdCodec(), Crc32cCodec()],
                           index_location=middle_index)
    path = tmp_path / "nested.zarr"
    zarr.create_array(str(path), shape=(13, 17), chunks=(8, 12), dtype="i4", fill_value=-1,
                      serializer=ShardingCodec(chunk_shape=(4, 6), codecs=[middle],
                                               index_location=outer_index), compressors=None)
    model = np.full((13, 17), -1, dtype="i4")
    for step in range(16):
        r0, c0 = rng.integers(0, 13), rng.integers(0, 17)
        r1, c1 = rng.integers(r0 + 1, 14), rng.integers(c0 + 1, 18)
        value = rng.integers(-1, 2, size=(r1 - r0, c1 - c0)).astype("i4")
        if step % 2:
            zinto.open(path)[r0:r1, c0:c1] = value
        else:
            with zarr.config.set({"codec_pipeline.path": "zinto.ZintoCodecPipeline"}):
                before = zinto.pipeline.writes_by_zinto
                zarr.open_array(str(path), mode="r+")[r0:r1, c0:c1] = value
                assert zinto.pipeline.writes_by_zinto == before + 1, zinto.pipeline.writes_handed_on
        model[r0:r1, c0:c1] = value
        assert (zarr_reads(path) == model).all(), step


def test_codecs_around_a_nested_shard_are_refused_and_the_pipeline_hands_them_on(tmp_path):
    """A checksum after an inner `ShardingCodec` (valid Zarr, as zarr-python writes it) is not
    something zinto reads or writes: `zinto.open` refuses it by name, and the pipeline hands
    its reads and writes to the default pipeline, so zarr-python reads back what was written."""
    from zarr.codecs import BytesCodec, Crc32cCodec, ShardingCodec
    import zinto.pipeline
    path = tmp_path / "wrapped.zarr"
    middle = ShardingCodec(chunk_shape=(2, 3), codecs=[BytesCodec()])
    value = np.arange(13 * 17, dtype="i4").reshape(13, 17)
    with zarr.config.set({"codec_pipeline.path": "zinto.ZintoCodecPipeline"}):
        z = zarr.create_array(str(path), shape=value.shape, chunks=(8, 12), dtype="i4",
                              serializer=ShardingCodec(chunk_shape=(4, 6),
                                                       codecs=[middle, Crc32cCodec()]),
                              compressors=None)
        before = zinto.pipeline.writes_by_zinto
        z[...] = value
        assert zinto.pipeline.writes_by_zinto == before
        assert (zarr.open_array(str(path), mode="r")[...] == value).all()
    assert (zarr_reads(path) == value).all()
    with pytest.raises(zinto.MetadataError, match="around sharding_indexed"):
        zinto.open(path)
