"""The zarrs crate reads back what zinto writes where zarrs-python cannot hand it the array:
variable-length strings and bytes (v2 and v3, compressed, with crc32c, in shards), and Zarr
v2 arrays in F order (zarrs-python 0.2.3 refuses both; test_write.py has the rest through
its pipeline).

The reader is tests/zarrs_check, a small Rust program on the zarrs crate 0.23.14 (built by
scripts/test, which names it in ZINTO_ZARRS_CHECK; elsewhere it is looked for in that
crate's and the workspace's target folders). It writes the elements it read to a file: a
fixed-size type's bytes in C order, or a variable-length type's offsets and bytes. Each array
is also read by zarr-python's default pipeline, so a disagreement names the reader at fault.
"""

import json
import os
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

import zinto

from fixtures import ROOT

zarr = pytest.importorskip("zarr")


def _checker():
    named = os.environ.get("ZINTO_ZARRS_CHECK")
    if named:
        return named
    targets = [ROOT / "target", ROOT / "tests/zarrs_check/target"]
    if os.environ.get("CARGO_TARGET_DIR"):
        targets.insert(0, Path(os.environ["CARGO_TARGET_DIR"]))
    for target in targets:
        for profile in ("debug", "release"):
            path = target / profile / "zarrs_check"
            if path.exists():
                return str(path)
    if os.environ.get("ZINTO_REQUIRE_SERVERS"):  # scripts/test: CI cannot skip this
        pytest.fail("ZINTO_ZARRS_CHECK is not set: scripts/test builds tests/zarrs_check")
    pytest.skip("tests/zarrs_check not built: cargo build --manifest-path "
                "tests/zarrs_check/Cargo.toml --target-dir target (or set ZINTO_ZARRS_CHECK)")


def zarrs_reads(path, tmp_path):
    """`(kind, elements)` as the zarrs crate reads the array at `path`: for "variable", a list
    of each element's bytes; for "fixed", the bytes of them all."""
    out = tmp_path / "zarrs.out"
    done = subprocess.run([_checker(), str(path), str(out)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    raw = out.read_bytes()
    if said["kind"] == "fixed":
        return "fixed", raw
    n = said["elements"]
    offsets = struct.unpack_from(f"<{n + 1}Q", raw)
    values = raw[8 * (n + 1):]
    assert offsets[-1] == len(values), (offsets[-1], len(values))
    return "variable", [values[a:b] for a, b in zip(offsets[:-1], offsets[1:])]


def default_reads(path):
    with zarr.config.set({"codec_pipeline.path": "zarr.core.codec_pipeline.BatchedCodecPipeline"}):
        return zarr.open_array(str(path), mode="r")[...]


WORDS = ["Zürich", "", "東京", "🦀 crab", "a" * 300, "x", "São Paulo", "-"]
STRING_CASES = [
    (3, "raw", None), (3, "zstd:1", None), (3, ["gzip:1", "crc32c"], None),
    (3, "zstd:3", (6, 4)), (3, ["crc32c"], (3, 8)),
    (2, "raw", None), (2, "zstd:3", None), (2, "zlib:1", None), (2, "blosc:zstd:1", None),
]


def _ids(cases):
    def name(f, c, s):
        chain = "+".join([c] if isinstance(c, str) else c)
        return f"v{f}-{chain}" + (f"-shards{s[0]}x{s[1]}" if s else "")
    return [name(*case) for case in cases]


@pytest.mark.parametrize("zarr_format,codecs,shards", STRING_CASES, ids=_ids(STRING_CASES))
def test_the_zarrs_crate_reads_the_strings_zinto_writes(tmp_path, zarr_format, codecs, shards):
    """Strings over edge chunks (7 x 10 in chunks of 3 x 2), a chunk left all fill value (not
    stored), a partial overwrite: the zarrs crate reads each element's UTF-8 bytes as the
    model holds them, and zarr-python agrees."""
    path = tmp_path / "s.zarr"
    s = zinto.create(path, (7, 10), str, (3, 2), shards=shards, codecs=codecs,
                     zarr_format=zarr_format, fill_value="-")
    model = np.resize(np.array(WORDS, dtype=object), (7, 10))
    model[0:3, 0:2] = "-"  # one chunk all fill value
    s[...] = model
    model[2:6, 3:9] = "new ✓"
    s[2:6, 3:9] = "new ✓"
    kind, got = zarrs_reads(path, tmp_path)
    assert kind == "variable"
    assert got == [w.encode() for w in model.ravel().tolist()]
    assert default_reads(path).tolist() == model.tolist()
    if shards is None:
        assert not (path / ("c/0/0" if zarr_format == 3 else "0.0")).exists()


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_the_zarrs_crate_reads_the_bytes_zinto_writes(tmp_path, zarr_format):
    """Variable-length bytes, NULs and bytes that are not UTF-8 included."""
    path = tmp_path / "b.zarr"
    b = zinto.create(path, (9,), bytes, (4,), codecs="zstd:1", zarr_format=zarr_format)
    model = [b"\x00\xff", b"", b"abc", b"d", b"\xc3", b"\x00" * 5, b"z" * 70, b"", b"q"]
    b[...] = model
    kind, got = zarrs_reads(path, tmp_path)
    assert kind == "variable"
    assert got == model
    assert default_reads(path).tolist() == model


F_CASES = [("float32", "raw"), ("int16", "zstd:3"), ("float64", "zlib:1"), ("uint8", "blosc:lz4")]


@pytest.mark.parametrize("dtype,codecs", F_CASES, ids=[f"{d}-{c}" for d, c in F_CASES])
def test_the_zarrs_crate_reads_v2_f_order_that_zinto_writes(tmp_path, dtype, codecs):
    """Zarr v2 chunks in F order (each chunk's elements transposed), over edge chunks."""
    path = tmp_path / "f.zarr"
    rng = np.random.default_rng(3)
    a = rng.integers(0, 100, (7, 9, 5)).astype(dtype)
    a[:4, :4, :] = 0  # a chunk of fill value
    z = zinto.create(path, a.shape, dtype, (4, 4, 3), codecs=codecs, zarr_format=2, order="F")
    z[...] = a
    assert json.loads((path / ".zarray").read_text())["order"] == "F"
    kind, got = zarrs_reads(path, tmp_path)
    assert kind == "fixed"
    back = np.frombuffer(got, dtype=a.dtype.newbyteorder("=")).reshape(a.shape)
    np.testing.assert_array_equal(back, a)
    np.testing.assert_array_equal(default_reads(path), a)


FIXED_TYPES = ["float16", "complex64", "complex128", "bool", ">f8", "<i8", "datetime64[s]",
               ">M8[10ms]", "timedelta64[ms]", "U5", "S4"]


@pytest.mark.parametrize("zarr_format", [2, 3])
@pytest.mark.parametrize("dtype", FIXED_TYPES)
def test_the_zarrs_crate_reads_the_other_types_zinto_writes(tmp_path, dtype, zarr_format):
    """The data types test_write.py's `.npy` import does not reach, written by `zinto.create`
    and read by the zarrs crate (in its native byte order) and by zarr-python. Dates and
    durations have a chunk of NaT, their fill value. The zarrs crate 0.23.14 has no
    fixed-length bytes type (zarr-python's `null_terminated_bytes`, v2 `|S4`) and no Zarr v2
    dates or durations (`<M8[s]`; it reads v3's `numpy.datetime64`): it refuses those by name,
    and zarr-python reads them."""
    rng = np.random.default_rng(5)
    raw = rng.integers(0, 2**31, (6, 7, 4)).astype("<i8")
    fill = None
    if dtype == "U5":
        a = np.array(["ab", "Zürich"[:5], "", "東京", "x"] * 34, dtype="U5")[:168].reshape(6, 7, 4)
    elif dtype == "S4":
        a = np.array([b"ab", b"\x00\xff", b"", b"abcd"] * 42, dtype="S4").reshape(6, 7, 4)
    elif dtype == "bool":
        a = raw % 2 == 1
    elif np.dtype(dtype).kind in "mM":
        a = (raw % 100_000).astype(dtype)
        fill = "NaT"
    else:
        a = (raw % 1000).astype(dtype)
    a[:3, :3, :] = np.array(fill or 0).astype(a.dtype)  # all fill value but for U5 and S4 ("0")
    path = tmp_path / "t.zarr"
    z = zinto.create(path, a.shape, a.dtype, (3, 3, 4), codecs="zstd:1", zarr_format=zarr_format,
                     fill_value=fill)
    z[...] = a
    if fill is not None:
        assert not (path / ("c/0/0/0" if zarr_format == 3 else "0.0.0")).exists()
    np.testing.assert_array_equal(default_reads(path), a)
    if dtype == "S4" or (zarr_format == 2 and np.dtype(dtype).kind in "mM"):
        with pytest.raises(AssertionError, match="data type .* is not supported"):
            zarrs_reads(path, tmp_path)
        return
    kind, got = zarrs_reads(path, tmp_path)
    assert kind == "fixed"
    back = np.frombuffer(got, dtype=a.dtype.newbyteorder("=")).reshape(a.shape)
    np.testing.assert_array_equal(back, a)


@pytest.mark.parametrize("codecs", ["raw", "zstd:1"])
def test_the_zarrs_crate_reads_the_rectilinear_grids_zinto_writes(tmp_path, codecs):
    """A rectilinear grid (zarr-python 3.4's variable chunk sizes, which the zarrs crate reads
    since 0.23.8) written by `zinto.create(chunks=[[...], n])`: edges repeated (stored as a
    run), a regular dimension whose last chunk passes the extent, chunks left all fill value.
    zarr-python 3.1.6 has no such grid; test_zarr34.py has zarr-python 3.4.2 reading them."""
    path = tmp_path / "r.zarr"
    rng = np.random.default_rng(9)
    a = rng.integers(-1000, 1000, (37, 50)).astype("int16")
    a[5:17, :] = 0  # the second row of chunks all fill value
    z = zinto.create(path, a.shape, a.dtype, [[5, 12, 10, 10], 8], codecs=codecs)
    z[...] = a
    assert json.loads((path / "zarr.json").read_text())["chunk_grid"]["name"] == "rectilinear"
    assert not (path / "c" / "1" / "0").exists()
    kind, got = zarrs_reads(path, tmp_path)
    assert kind == "fixed"
    np.testing.assert_array_equal(np.frombuffer(got, dtype="<i2").reshape(a.shape), a)


def _v3(shape, dtype, chunk_shapes, codecs, fill_value=0):
    return {"zarr_format": 3, "node_type": "array", "shape": list(shape), "data_type": dtype,
            "chunk_grid": {"name": "rectilinear",
                           "configuration": {"kind": "inline", "chunk_shapes": chunk_shapes}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": fill_value, "codecs": codecs, "attributes": {}}


BYTES_LE = {"name": "bytes", "configuration": {"endian": "little"}}
ZSTD = {"name": "zstd", "configuration": {"level": 1, "checksum": False}}
ZARRS_RECT = {
    # Explicit edges and a run, a regular dimension past the extent, zstd and crc32c.
    "chunks": _v3((37, 50), "int16", [[5, 12, [10, 2]], 8],
                  [BYTES_LE, ZSTD, {"name": "crc32c"}], fill_value=-1),
    # Shards of 10 and 30 rows by 30 columns, each its own grid of (5, 10) inner chunks.
    "shards": _v3((40, 30), "float32", [[10, 30], [30]], [{
        "name": "sharding_indexed", "configuration": {
            "chunk_shape": [5, 10], "codecs": [BYTES_LE, ZSTD],
            "index_codecs": [BYTES_LE, {"name": "crc32c"}], "index_location": "end"}}]),
}


@pytest.mark.parametrize("case", ZARRS_RECT)
def test_zinto_reads_and_writes_the_rectilinear_arrays_the_zarrs_crate_writes(tmp_path, case):
    """The zarrs crate 0.23.14 writes a rectilinear grid (of chunks, or of shards) from an
    input with a stretch of fill value (chunks it leaves unstored): zinto reads the input back;
    zinto's write across chunk edges into that array is read back by the zarrs crate equal to
    a NumPy model."""
    doc = ZARRS_RECT[case]
    dtype = np.dtype("<i2" if doc["data_type"] == "int16" else "<f4")
    shape = tuple(doc["shape"])
    rng = np.random.default_rng(11)
    data = rng.integers(-1000, 1000, shape).astype(dtype)
    data[:5, :] = doc["fill_value"]  # the first row of chunks (or shards' inner chunks)
    path = tmp_path / "z.zarr"
    meta, raw = tmp_path / "zarr.json", tmp_path / "input.bin"
    meta.write_text(json.dumps(doc))
    raw.write_bytes(data.astype(dtype.newbyteorder("=")).tobytes())
    done = subprocess.run([_checker(), "write", str(path), str(meta), str(raw)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert not (path / "c" / "0" / "0").exists() or case == "shards"
    z = zinto.open(path)
    np.testing.assert_array_equal(z[...], data)
    np.testing.assert_array_equal(z[3:29, 7:23], data[3:29, 7:23])
    z[3:29, 7:23] = np.arange(26 * 16).reshape(26, 16).astype(dtype)
    data[3:29, 7:23] = np.arange(26 * 16).reshape(26, 16)
    kind, got = zarrs_reads(path, tmp_path)
    assert kind == "fixed"
    np.testing.assert_array_equal(np.frombuffer(got, dtype=dtype).reshape(shape), data)
