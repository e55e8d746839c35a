"""Writes the example arrays shipped under examples/data/ with zarr-python 3.1.6.

Run from this folder: python3 generate.py   (pip install zarr==3.1.6 numcodecs)
"""

import shutil
from pathlib import Path

import numcodecs
import numpy as np
import zarr

assert zarr.__version__ == "3.1.6", zarr.__version__
HERE = Path(__file__).parent

# A smooth 2-D temperature field (degrees C) on a half-degree grid, float32, zstd.
lat = np.linspace(-89.75, 89.75, 360)[:, None]
lon = np.linspace(-179.75, 179.75, 720)[None, :]
temperature = (30 * np.cos(np.radians(lat)) - 5 + 3 * np.sin(np.radians(3 * lon))).astype("float32")

# A 512x512 uint16 image with structure, sharded: 256x256 shards of 64x64 chunks.
y, x = np.mgrid[0:512, 0:512]
image = (np.round((np.sin(x / 23.0) * np.cos(y / 17.0) + 1) * 15) * 2000).astype("uint16")

# A Zarr v2 array: int32, zlib, column-major chunks.
counts = (np.arange(100 * 80).reshape(100, 80) % 977).astype("int32")

for name in ["temperature.zarr", "sharded.zarr", "legacy_v2.zarr"]:
    shutil.rmtree(HERE / name, ignore_errors=True)

t = zarr.create_array(str(HERE / "temperature.zarr"), shape=temperature.shape, dtype="float32",
                      chunks=(90, 120), fill_value=float("nan"),
                      attributes={"units": "degC", "grid": "0.5 degree"})
t[...] = temperature
s = zarr.create_array(str(HERE / "sharded.zarr"), shape=image.shape, dtype="uint16",
                      shards=(256, 256), chunks=(64, 64))
s[...] = image
v = zarr.create_array(str(HERE / "legacy_v2.zarr"), shape=counts.shape, dtype="int32",
                      chunks=(32, 32), zarr_format=2, order="F",
                      compressors=numcodecs.Zlib(level=6))
v[...] = counts
print("wrote temperature.zarr, sharded.zarr, legacy_v2.zarr")
