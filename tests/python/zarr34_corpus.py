"""Writes a corpus of what zarr-python 3.4.2 writes, as its users write it, for the real-data
check (check_external.py --zarr34): every data type it stores, each on the four grids 3.4
makes (regular chunks, rectilinear chunks, shards with their inner chunks in Morton order,
shards on a rectilinear grid) with its defaults (zstd), some chunks never written (the fill
value); Zarr v2 defaults for the types v2 stores; the compressors and chunk orders a user
picks; `scale_offset` and `cast_value` in each rounding and out-of-range mode; numcodecs'
codecs in a v3 chain. Nothing here is kept: the corpus is written fresh into a folder each run
(a few seconds), so the check follows zarr-python, not a copy.

Needs zarr==3.4.2 (Python 3.12+) with numcodecs 0.17.1 and cast-value-rs:
    python tests/python/zarr34_corpus.py OUT_DIR
"""

import sys
import warnings
from pathlib import Path

import numpy as np
import zarr
from zarr.codecs import BloscCodec, CastValue, GzipCodec, ScaleOffset, ZstdCodec
from zarr.codecs import Crc32cCodec

SHAPE = (10, 9)
GRIDS = {
    "regular": {"chunks": (4, 3)},
    "rect": {"chunks": [[2, 5, 3], [4, 3, 2]]},
    "shards": {"chunks": (2, 3), "shards": (4, 6)},
    "rect_shards": {"chunks": (2, 3), "shards": [[4, 6], [6, 3]]},
}
WRITTEN = np.s_[0:6, 0:6]  # the rest of the array is never written: the fill value


def values(dtype, rng):
    """Values of `dtype` over SHAPE, with the type's edge values where it has them."""
    n = int(np.prod(SHAPE))
    kind = np.dtype(dtype).kind if dtype not in (str, bytes) else None
    if dtype is str:
        words = ["Zürich", "", "東京", "🦀", "a" * 40, "x"]
        return np.array([words[i % 6] + str(i) for i in range(n)], dtype=object).reshape(SHAPE)
    if dtype is bytes:
        return np.array([bytes([i % 256]) * (i % 5) for i in range(n)], dtype=object).reshape(SHAPE)
    dt = np.dtype(dtype)
    if kind == "b":
        out = rng.integers(0, 2, n).astype(bool)
    elif kind in "iu":
        info = np.iinfo(dt)
        out = rng.integers(info.min, info.max, n, endpoint=True, dtype=dt)
        out[:2] = info.min, info.max
    elif kind == "f":
        out = (rng.standard_normal(n) * 1000).astype(dt)
        out[:5] = np.nan, np.inf, -np.inf, np.finfo(dt).max, -0.0
    elif kind == "c":
        out = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
        out[0] = complex(np.nan, 1)
    elif kind in "mM":
        out = rng.integers(-10**9, 10**9, n).astype(dt)
        out[0] = np.datetime64("NaT") if kind == "M" else np.timedelta64("NaT")
    elif kind == "U":
        out = np.array([("ab", "Zürich", "東京", "")[i % 4] for i in range(n)], dtype=dt)
    elif kind == "S":
        out = np.array([(b"ab", b"\x00x", b"xyzw", b"")[i % 4] for i in range(n)], dtype=dt)
    else:
        raise ValueError(dtype)
    return out.reshape(SHAPE)


def fill_of(dtype):
    if dtype is str:
        return "-"
    if dtype is bytes:
        return b"-"
    kind = np.dtype(dtype).kind
    return {"b": True, "i": -7, "u": 7, "f": np.nan, "c": 1 + 2j, "U": "zz", "S": b"z"}.get(
        kind, None)


def write(out, name, dtype, data, **kw):
    if dtype is bytes:
        from zarr.core.dtype import VariableLengthBytes

        dtype = VariableLengthBytes()
    a = zarr.create_array(str(out / name), shape=SHAPE, dtype=dtype, **kw)
    a[WRITTEN] = data[WRITTEN]


TYPES = {
    "bool": "bool", "int8": "i1", "int16": "i2", "int32": "i4", "int64": "i8",
    "uint8": "u1", "uint16": "u2", "uint32": "u4", "uint64": "u8",
    "float16": "f2", "float32": "f4", "float64": "f8", "complex64": "c8", "complex128": "c16",
    "datetime_ns": "M8[ns]", "datetime_s": "M8[s]", "timedelta_ms": "m8[ms]",
    "fixed_utf32": "U6", "fixed_bytes": "S4", "string": str, "vbytes": bytes,
}


def main(out):
    out = Path(out)
    rng = np.random.default_rng(20261205)
    zarr.config.set({"array.rectilinear_chunks": True})
    count = 0
    for tname, dtype in TYPES.items():
        data = values(dtype, rng)
        for gname, grid in GRIDS.items():
            write(out, f"v3/{tname}/{gname}", dtype, data, fill_value=fill_of(dtype), **grid)
            count += 1
        write(out, f"v2/{tname}", dtype, data, zarr_format=2, chunks=(4, 3),
              fill_value=fill_of(dtype))
        count += 1
    floats = values("f4", rng)
    chains = {
        "none": {"compressors": None},
        "gzip": {"compressors": [GzipCodec(level=1)]},
        "blosc_lz4_shuffle": {"compressors": [BloscCodec(cname="lz4", shuffle="shuffle")]},
        "blosc_zstd_bitshuffle": {"compressors": [BloscCodec(cname="zstd", shuffle="bitshuffle")]},
        "zstd_crc32c": {"compressors": [ZstdCodec(level=5), Crc32cCodec()]},
        "order_f": {"config": {"order": "F"}},
    }
    for cname, kw in chains.items():
        for gname in ("regular", "rect_shards"):
            write(out, f"codecs/{cname}/{gname}", "f4", floats, **kw, **GRIDS[gname])
            count += 1
    # Lossy packing of floats into small integers, every rounding and out-of-range mode.
    for mode in ("nearest-even", "towards-zero", "towards-positive", "towards-negative",
                 "nearest-away"):
        for over in ("clamp", "wrap"):
            target = "int16" if over == "clamp" else "uint8"
            scalar = {"encode": [("NaN", 0), ("Infinity", 1), ("-Infinity", 2)]}
            write(out, f"lossy/{mode}_{over}", "f8", values("f8", rng),
                  filters=[ScaleOffset(offset=1.0, scale=10.0),
                           CastValue(data_type=target, rounding=mode, out_of_range=over,
                                     scalar_map=scalar)], **GRIDS["rect"])
            count += 1
    ints = values("i4", rng)
    write(out, "lossy/scale_offset_int", "i4", ints // 4,
          filters=[ScaleOffset(offset=3, scale=2)], **GRIDS["regular"])
    write(out, "lossy/cast_f8_f4", "f8", values("f8", rng),
          filters=[CastValue(data_type="float32", out_of_range="clamp")], **GRIDS["shards"])
    count += 2
    # numcodecs' codecs in a v3 chain (zarr.codecs.numcodecs), as 3.4 names them.
    from zarr.codecs import numcodecs as nc

    numcodecs_chains = {
        "delta_zlib": {"filters": [nc.Delta(dtype="<i4")], "compressors": [nc.Zlib(level=1)]},
        "fixedscaleoffset": {"filters": [nc.FixedScaleOffset(offset=0, scale=10, dtype="<f8",
                                                             astype="<i4")]},
        "shuffle_lz4": {"compressors": [nc.Shuffle(elementsize=4), nc.LZ4()]},
        "bz2": {"compressors": [nc.BZ2(level=1)]},
    }
    for cname, kw in numcodecs_chains.items():
        dtype = "f8" if cname == "fixedscaleoffset" else "i4"
        write(out, f"numcodecs/{cname}", dtype, values(dtype, rng) if dtype == "f8" else ints,
              **kw, **GRIDS["regular"])
        count += 1
    return count


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    assert zarr.__version__ == "3.4.2", zarr.__version__
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        print(f"{main(sys.argv[1])} arrays written by zarr-python {zarr.__version__}")
