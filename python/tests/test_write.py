"""What zinto writes (`zinto create`, the Rust write path) is read back equal by zarr-python,
tensorstore and the zarrs crate (through zarrs-python's pipeline, strict), without warnings, for each chain it writes: v3 raw, zstd, gzip and crc32c,
v2 raw, zstd, gzip and zlib, both byte orders, edge chunks and chunks of fill value."""

import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")

SHAPE = (13, 17, 5)
CHUNKS = "4,6,5"

CHAINS = [
    ("3", []),
    ("3", ["zstd:3"]),
    ("3", ["gzip:1"]),
    ("3", ["zstd:1", "crc32c"]),
    ("3", ["crc32c"]),
    ("2", []),
    ("2", ["zstd:3"]),
    ("2", ["gzip:5"]),
    ("2", ["zlib:6"]),
    ("3", ["zstd:1", "--order=F"]),
    ("3", ["zstd:3", "--shards=8,12,5"]),
    ("3", ["crc32c", "--shards=12,6,10"]),
    ("3", ["zstd:3", "--shards=8,12,5", "--shard-index=start"]),
    ("2", ["gzip:1", "--order=F"]),
    # Blosc, decoded by c-blosc (numcodecs in zarr-python, tensorstore's own).
    ("3", ["blosc:lz4:5:shuffle"]),
    ("3", ["blosc:zstd:3:bitshuffle"]),
    ("2", ["blosc:lz4"]),
    ("2", ["blosc:zlib:1:noshuffle"]),
    ("3", ["blosc:blosclz:5:shuffle"]),
    ("2", ["blosc:blosclz:9:bitshuffle"]),
    ("3", ["blosc:lz4hc:9:bitshuffle", "--shards=8,12,5"]),
]
# complex is written by the library (tests/tests/write.rs) but `.npy` import takes real numbers.
DTYPES = ["float32", "float64", "int16", "uint8", "uint64", "bool", "float16"]


def values(dtype):
    rng = np.random.default_rng(7)
    if dtype == "bool":
        a = rng.integers(0, 2, SHAPE).astype(bool)
    elif np.dtype(dtype).kind in "iu":
        a = rng.integers(0, 100, SHAPE).astype(dtype)
    elif np.dtype(dtype).kind == "c":
        a = (rng.normal(size=SHAPE) + 1j * rng.normal(size=SHAPE)).astype(dtype)
    else:
        a = rng.normal(size=SHAPE).astype(dtype)
    a[:4, :6, :] = 0  # a chunk of fill value: not written
    return a


def create(tmp_path, a, fmt, codecs):
    src = tmp_path / "a.npy"
    np.save(src, a)
    dst = tmp_path / "a.zarr"
    args = [sys.executable, "-m", "zinto", "create", str(dst), "--from", str(src)]
    args += ["--chunks", CHUNKS, "--zarr-format", fmt]
    for c in codecs:
        args += [c] if c.startswith("--") else ["--codec", c]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return dst


@pytest.mark.parametrize("fmt,codecs", CHAINS, ids=[f"v{f}-{'+'.join(c) or 'raw'}" for f, c in CHAINS])
@pytest.mark.parametrize("dtype", DTYPES)
def test_zarr_python_reads_what_zinto_writes(tmp_path, fmt, codecs, dtype):
    a = values(dtype)
    dst = create(tmp_path, a, fmt, codecs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        z = zarr.open_array(dst, mode="r")
        back = z[...]
    assert [str(w.message) for w in caught] == []
    assert back.dtype == a.dtype
    np.testing.assert_array_equal(back, a)
    # The chunk of fill value was not written (in a shard: the shard holds the others).
    key = "c/0/0/0" if fmt == "3" else "0.0.0"
    if not any(c.startswith("--shards") for c in codecs):
        assert not (dst / key).exists()


# numcodecs' LZ4 (one LZ4 block a chunk), decoded by C lz4's LZ4_decompress_safe in numcodecs,
# which also holds the block to the format's end rules. tensorstore does not read it.
LZ4_CHAINS = [("2", ["lz4"]), ("2", ["lz4", "--order=F"])]


@pytest.mark.parametrize("fmt,codecs", LZ4_CHAINS, ids=["lz4", "lz4-F"])
def test_zarr_python_reads_numcodecs_lz4_that_zinto_writes(tmp_path, fmt, codecs):
    a = values("float64")
    a[4:, 6:, :] = 1.5  # long matches
    a[8:, :6, 5:] = np.random.default_rng(1).integers(0, 2**62, a[8:, :6, 5:].shape).view("f8")
    dst = create(tmp_path, a, fmt, codecs)
    back = zarr.open_array(dst, mode="r")[...]
    np.testing.assert_array_equal(back, a)
    stored = sum(p.stat().st_size for p in dst.iterdir() if not p.name.startswith("."))
    assert stored < a.nbytes, "the chunks compress"


@pytest.mark.parametrize("fmt,codecs", CHAINS, ids=[f"v{f}-{'+'.join(c) or 'raw'}" for f, c in CHAINS])
def test_tensorstore_reads_what_zinto_writes(tmp_path, fmt, codecs):
    # scripts/test installs tensorstore and sets ZINTO_REQUIRE_SERVERS: CI cannot skip this.
    if os.environ.get("ZINTO_REQUIRE_SERVERS"):
        import tensorstore as ts
    else:
        ts = pytest.importorskip("tensorstore")
    a = values("float32")
    dst = create(tmp_path, a, fmt, codecs)
    driver = "zarr3" if fmt == "3" else "zarr"
    t = ts.open({"driver": driver, "kvstore": {"driver": "file", "path": str(dst)}}, open=True).result()
    np.testing.assert_array_equal(t.read().result(), a)


ZARRS_STRICT = {"codec_pipeline.path": "zarrs.ZarrsCodecPipeline", "codec_pipeline.strict": True}


def _zarrs():
    # scripts/python-env installs zarrs-python (the zarrs crate's pipeline): CI cannot skip this.
    if os.environ.get("ZINTO_REQUIRE_SERVERS"):
        import zarrs
    else:
        zarrs = pytest.importorskip("zarrs")
    return zarrs


# zarrs-python 0.2.3 refuses a Zarr v2 array in F order ("input array must be a C contiguous
# array": zarr-python hands it an F-ordered output), and variable-length strings (its pipeline
# raises UnsupportedDataTypeError for them): neither is the data's doing. The zarrs crate
# itself reads both back in test_zarrs_crate.py.
ZARRS_CHAINS = [(f, c) for f, c in CHAINS if not (f == "2" and "--order=F" in c)]


@pytest.mark.parametrize("fmt,codecs", ZARRS_CHAINS, ids=[f"v{f}-{'+'.join(c) or 'raw'}" for f, c in ZARRS_CHAINS])
def test_the_zarrs_crate_reads_what_zinto_writes(tmp_path, fmt, codecs):
    """zarrs-python's pipeline, strict (a codec the zarrs crate does not decode raises instead
    of falling back to zarr-python's), reads every chain `zinto create` writes: v2 and v3, the
    compressors, Blosc, shards with the index at either end."""
    _zarrs()
    a = values("float32")
    dst = create(tmp_path, a, fmt, codecs)
    with zarr.config.set(ZARRS_STRICT):
        z = zarr.open_array(dst, mode="r")
        assert type(z._async_array.codec_pipeline).__name__ == "ZarrsCodecPipeline"
        np.testing.assert_array_equal(z[...], a)


BLOSC_V2 = [
    "nc_v2_blosc_3d_int16",
    "nc_v2_blosc_blosclz_bitshuffle",
    "nc_v2_blosc_auto_multiblock_zstd",
    "nc_v2_blosc_bs1020_lz4_shuffle",
]


@pytest.mark.parametrize("name", BLOSC_V2)
def test_convert_v2_blosc_to_v3_zstd_reads_back_equal(tmp_path, name):
    from fixtures import ROOT

    src = ROOT / "tests/fixtures/data" / name
    dst = tmp_path / "v3.zarr"
    args = [sys.executable, "-m", "zinto", "convert", str(src), str(dst), "--codec", "zstd:5"]
    args += ["--memory", "50000"]  # several slabs
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    before = zarr.open_array(src, mode="r")
    after = zarr.open_array(dst, mode="r")
    assert after.metadata.zarr_format == 3
    assert [type(c).__name__ for c in after.metadata.codecs] == ["BytesCodec", "ZstdCodec"]
    assert after.chunks == before.chunks
    assert after.fill_value == before.fill_value or (np.isnan(after.fill_value) and np.isnan(before.fill_value))
    assert dict(after.attrs) == dict(before.attrs)
    np.testing.assert_array_equal(after[...], before[...])


@pytest.mark.parametrize("fmt", ["2", "3"])
def test_convert_keeps_consolidated_metadata_that_zarr_python_reads(tmp_path, fmt):
    src = tmp_path / "src.zarr"
    root = zarr.open_group(src, mode="w", zarr_format=2, attributes={"title": "two"})
    root.create_array("a", shape=(5,), dtype="int16", chunks=(2,))[:] = np.arange(5)
    inner = root.create_group("inner")
    inner.attrs["depth"] = 1
    inner.create_array("b", shape=(3, 4), dtype="float32", chunks=(2, 2))[:] = np.ones((3, 4))
    zarr.consolidate_metadata(src)
    dst = tmp_path / "dst.zarr"
    args = [sys.executable, "-m", "zinto", "convert", str(src), str(dst), "--zarr-format", fmt]
    if fmt == "2":
        args += ["--codec", "zlib:1"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        group = zarr.open_consolidated(dst, zarr_format=int(fmt))
    assert [str(w.message) for w in caught if "consolidated" in str(w.message).lower()] == []
    assert group.attrs["title"] == "two"
    assert sorted(group.group_keys()) == ["inner"] and sorted(group.array_keys()) == ["a"]
    assert group["inner"].attrs["depth"] == 1
    np.testing.assert_array_equal(group["a"][...], np.arange(5))
    np.testing.assert_array_equal(group["inner/b"][...], np.ones((3, 4)))


@pytest.mark.parametrize("codec", ["blosc:lz4:5:shuffle", "blosc:zstd:1:bitshuffle"])
@pytest.mark.parametrize("fmt", ["2", "3"])
def test_c_blosc_reads_blosc_chunks_of_many_blocks(tmp_path, codec, fmt):
    """Chunks of 300 KB: two blocks of 256 KiB, the second short (its own bit-shuffle rule),
    decoded by c-blosc through zarr-python's default pipeline."""
    a = (np.arange(600 * 250, dtype="f4").reshape(600, 250) % 1000) / 8
    src = tmp_path / "a.npy"
    np.save(src, a)
    dst = tmp_path / "a.zarr"
    done = subprocess.run([sys.executable, "-m", "zinto", "create", str(dst), "--from", str(src),
                           "--chunks", "300,250", "--zarr-format", fmt, "--codec", codec],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with zarr.config.set({"codec_pipeline.path": "zarr.core.codec_pipeline.BatchedCodecPipeline"}):
        back = zarr.open_array(dst, mode="r")[...]
    np.testing.assert_array_equal(back, a)
    key = dst / ("c/0/0" if fmt == "3" else "0.0")
    assert key.stat().st_size < 300 * 250 * 4 // 2, "not compressed"


# Strings, bytes (variable and fixed length) and dates: zarr-python writes them, `zinto
# convert` rewrites them (v2 to v3 and back, other codecs: Array::write_vlen for the
# variable-length ones), and zarr-python reads the copy back equal, with the empty chunks not
# written.
VLEN_CONVERTS = [
    ("3", "2", ["zstd:3"]),
    ("2", "3", ["gzip:1"]),
    ("3", "3", ["zstd:1", "crc32c"]),
    ("3", "3", ["raw"]),
    ("2", "2", ["blosc:lz4"]),
    ("3", "2", ["lz4"]),
]


def text_bytes_and_dates():
    rng = np.random.default_rng(3)
    words = ["Zürich", "", "東京", "São Paulo", "🦀 crab", "x" * 300]
    strings = np.array([words[i] for i in rng.integers(0, len(words), 7 * 5)], dtype=object).reshape(7, 5)
    strings[:2, :2] = ""  # a chunk of fill value
    blobs = np.array([w.encode() + b"\x00\xff" for w in strings.ravel()], dtype=object).reshape(7, 5)
    blobs[:2, :2] = b""
    dates = np.datetime64("2026-12-03T10:00:00") + rng.integers(0, 10**6, (7, 5)).astype("timedelta64[s]")
    dates[6, 4] = np.datetime64("NaT")
    fixed = strings.astype("<U4")  # cut to 4 characters; the first chunk stays "" (fill)
    fixed_bytes = np.array([w[:5] for w in blobs.ravel()], dtype="S5").reshape(7, 5)
    return {"s": (strings, str), "b": (blobs, "variable_length_bytes"), "t": (dates, "datetime64[s]"),
            "u": (fixed, "<U4"), "sb": (fixed_bytes, "S5")}


@pytest.mark.parametrize(
    "src_fmt,dst_fmt,codecs",
    VLEN_CONVERTS,
    ids=[f"v{s}-to-v{d}-{'+'.join(c)}" for s, d, c in VLEN_CONVERTS],
)
def test_convert_strings_bytes_and_dates_reads_back_equal(tmp_path, src_fmt, dst_fmt, codecs):
    from zarr.core.dtype import VariableLengthBytes

    src = tmp_path / "src.zarr"
    root = zarr.open_group(src, mode="w", zarr_format=int(src_fmt))
    data = text_bytes_and_dates()
    for name, (a, dtype) in data.items():
        dtype = VariableLengthBytes() if dtype == "variable_length_bytes" else dtype
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # zarr-python's own, on v2 strings
            root.create_array(name, shape=a.shape, chunks=(2, 2), dtype=dtype)[...] = a
    dst = tmp_path / "dst.zarr"
    args = [sys.executable, "-m", "zinto", "convert", str(src), str(dst), "--zarr-format", dst_fmt]
    for c in codecs:
        args += ["--codec", c]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        group = zarr.open_group(dst, mode="r")
        back = {name: group[name][...] for name in data}
    assert [str(w.message) for w in caught if "zinto" in str(w.message)] == []
    for name, (a, _) in data.items():
        got = back[name]
        if name == "t":
            assert got.dtype == a.dtype
            np.testing.assert_array_equal(got, a)
        else:
            assert got.tolist() == a.tolist(), name
        if name in ("u", "sb"):
            assert got.dtype == a.dtype, name
        # The chunk of fill value ("", b"") was not written.
        if name != "t":
            key = f"{name}/c/0/0" if dst_fmt == "3" else f"{name}/0.0"
            assert not (dst / key).exists(), key


def test_convert_of_the_weather_example_reads_back_equal(tmp_path):
    from fixtures import ROOT

    src = ROOT / "examples/data/weather.zarr"
    dst = tmp_path / "weather_v2.zarr"
    args = [sys.executable, "-m", "zinto", "convert", str(src), str(dst), "--zarr-format", "2"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    before, after = zarr.open_group(src, mode="r"), zarr.open_group(dst, mode="r")
    assert sorted(after.array_keys()) == sorted(before.array_keys())
    for name in before.array_keys():
        np.testing.assert_array_equal(after[name][...], before[name][...])
    assert after["station"][...].tolist()[:2] == before["station"][...].tolist()[:2]


def test_convert_of_arrays_without_rows_writes_their_metadata(tmp_path):
    """From a review: a first dimension of 0 asked for one row past the extent."""
    src = tmp_path / "src.zarr"
    root = zarr.open_group(src, mode="w")
    root.create_array("numbers", shape=(0, 3), chunks=(2, 3), dtype="f4")
    root.create_array("strings", shape=(0,), chunks=(2,), dtype=str)
    dst = tmp_path / "dst.zarr"
    args = [sys.executable, "-m", "zinto", "convert", str(src), str(dst), "--zarr-format", "2"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    group = zarr.open_group(dst, mode="r")
    assert group["numbers"].shape == (0, 3) and group["strings"].shape == (0,)


@pytest.mark.parametrize("shards", [None, "8,12,5"])
def test_create_and_read_in_slabs_of_memory_give_the_array(tmp_path, shards):
    """`--memory` of one row of chunks (or shards): `zinto create` reads the .npy a slab at a
    time and `zinto read --out` writes its .npy a slab at a time; zarr-python reads the array
    and NumPy loads the file, each equal to the source."""
    a = values("float32")
    src = tmp_path / "a.npy"
    np.save(src, a)
    dst = tmp_path / "a.zarr"
    rows = 8 if shards else 4
    memory = str(rows * SHAPE[1] * SHAPE[2] * 4)
    args = [sys.executable, "-m", "zinto", "create", str(dst), "--from", str(src), "--chunks", CHUNKS,
            "--codec", "zstd:3", "--overwrite"]
    args += ["--shards", shards] if shards else []
    done = subprocess.run(args + ["--memory", memory], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    np.testing.assert_array_equal(zarr.open_array(dst, mode="r")[...], a)
    # Each --memory one slab of chunks along the axis the slabs cut: the first for the whole
    # array and for rows 2-12 of column 5 (4 rows x 5 x 4 bytes), the second where an index
    # drops the first (6 columns x 5 x 4 bytes); so each read takes several slabs.
    for select, want, memory in [("", a, 4 * SHAPE[1] * SHAPE[2] * 4), ("2:13,5", a[2:13, 5], 80),
                                 ("7,3:", a[7, 3:], 120)]:
        out = tmp_path / "out.npy"
        done = subprocess.run([sys.executable, "-m", "zinto", "read", str(dst), "--select", select,
                               "--out", str(out), "--memory", str(memory), "--json"],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        np.testing.assert_array_equal(np.load(out), want, err_msg=select)
        assert json.loads(done.stdout)["bytes"] > memory, "one slab"
    # One row of chunks is the least a given --memory may be.
    small = subprocess.run(args + ["--memory", "100"], capture_output=True, text=True, timeout=120)
    assert small.returncode == 2 and "--memory 100: one slab of whole chunks takes" in small.stderr
