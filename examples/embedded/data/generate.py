"""Writes the chunks the firmware decodes, with zarr-python 3.1.6 and numcodecs 0.16.6, and
`expected.rs`: each case's decoded length and FNV-1a 64 checksum, computed here from the NumPy
arrays zarr-python wrote (not from zinto), for the firmware to compare with.

Run from this folder: python3 generate.py   (pip install zarr==3.1.6 numcodecs==0.16.6)
"""

import shutil
import warnings
from pathlib import Path

import numcodecs
import numpy as np
import zarr
from zarr.codecs import BytesCodec, Crc32cCodec, GzipCodec, ShardingCodec

assert zarr.__version__ == "3.1.6", zarr.__version__
warnings.simplefilter("ignore")
HERE = Path(__file__).parent
OUT = HERE / "chunks"


def fnv1a64(b):
    h = 0xCBF29CE484222325
    for x in b:
        h ^= x
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def le(a):
    return np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<")).tobytes()


shutil.rmtree(OUT, ignore_errors=True)
OUT.mkdir()
rng = np.random.default_rng(18)
consts = []


def const(name, data):
    consts.append(f"pub const {name}_LEN: usize = {len(data)};")
    consts.append(f"pub const {name}_FNV: u64 = 0x{fnv1a64(data):016x};")


def copy_chunk(array_dir, key, name):
    (OUT / name).write_bytes((array_dir / key).read_bytes())


tmp = HERE / "_arrays"
shutil.rmtree(tmp, ignore_errors=True)

# 1. A 2-D int16 array (40, 30) in chunks (16, 12), gzip: a whole chunk, and a sub-region
#    (rows 5..35, columns 7..25) read across 9 chunks, edge chunks included.
grid = (np.arange(40 * 30).reshape(40, 30) * 37 % 1009 - 500).astype("int16")
z = zarr.create_array(str(tmp / "grid.zarr"), shape=grid.shape, chunks=(16, 12), dtype="int16",
                      compressors=[GzipCodec(level=6)])
z[...] = grid
for i in range(3):
    for j in range(3):
        copy_chunk(tmp / "grid.zarr", f"c/{i}/{j}", f"grid_{i}_{j}.gz")
const("GRID_CHUNK_0_0", le(grid[:16, :12]))
const("GRID_REGION", le(grid[5:35, 7:25]))

# 2. A v2 zlib chunk: float64 (500).
f64 = np.cumsum(rng.standard_normal(500))
z = zarr.create_array(str(tmp / "zlib.zarr"), shape=(500,), chunks=(500,), dtype="<f8",
                      zarr_format=2, compressors=numcodecs.Zlib(level=5))
z[...] = f64
copy_chunk(tmp / "zlib.zarr", "0", "zlib_0.zlib")
const("ZLIB", le(f64))

# 3. A crc32c-protected chunk: uint32 (256), bytes then crc32c.
u32 = (np.arange(256, dtype="uint32") * 2654435761) & 0xFFFFFFFF
z = zarr.create_array(str(tmp / "crc.zarr"), shape=(256,), chunks=(256,), dtype="uint32",
                      serializer=BytesCodec(), compressors=[Crc32cCodec()])
z[...] = u32
copy_chunk(tmp / "crc.zarr", "c/0", "crc_0.crc32c")
const("CRC32C", le(u32.astype("uint32")))

# 4. A shard: uint8 (32, 32), inner chunks (8, 8) uncompressed, index at the end with crc32c.
u8 = (np.arange(32 * 32).reshape(32, 32) * 13 % 251).astype("uint8")
u8[8:16, 16:24] = 0  # one inner chunk all fill value: not stored, absent from the index
z = zarr.create_array(str(tmp / "shard.zarr"), shape=(32, 32), shards=(32, 32), chunks=(8, 8),
                      dtype="uint8", compressors=None, fill_value=0)
z[...] = u8
copy_chunk(tmp / "shard.zarr", "c/0/0", "shard_0_0.shard")
const("SHARD", le(u8))

# 5. A Blosc-lz4 chunk (v2, byte shuffle): float32 (1024).
f32 = (np.sin(np.arange(1024) / 30) * 100).astype("<f4")
z = zarr.create_array(str(tmp / "blosc.zarr"), shape=(1024,), chunks=(1024,), dtype="<f4",
                      zarr_format=2,
                      compressors=numcodecs.Blosc(cname="lz4", clevel=5,
                                                  shuffle=numcodecs.Blosc.SHUFFLE))
z[...] = f32
copy_chunk(tmp / "blosc.zarr", "0", "blosc_0.blosc")
const("BLOSC", le(f32))

shutil.rmtree(tmp)
(HERE / "expected.rs").write_text(
    "// Written by data/generate.py from the arrays zarr-python wrote: do not edit.\n"
    + "\n".join(consts) + "\n")
print("wrote", len(list(OUT.iterdir())), "chunks,",
      sum(p.stat().st_size for p in OUT.iterdir()), "bytes")
