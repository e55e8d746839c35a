"""The wheel on a Python the other tests do not run on (scripts/test runs this on CPython
3.12): it imports, reads the example arrays, and writes and reads back an array, with NumPy
alone (no zarr-python). Exits non-zero on any difference."""

import sys
import tempfile
from pathlib import Path

import numpy as np

import zinto

root = Path(sys.argv[1])
temperature = zinto.open(str(root / "examples/data/temperature.zarr"))
values = temperature[10:200, 5:90]
assert values.shape == (190, 85) and values.dtype == np.float32, (values.shape, values.dtype)
assert ((values > -40) & (values < 40)).all(), "temperatures outside -40..40"
sharded = zinto.open(str(root / "examples/data/sharded.zarr"))
whole = sharded[...]
assert whole.shape == tuple(sharded.shape)
with tempfile.TemporaryDirectory() as tmp:
    data = np.arange(3 * 50 * 40, dtype="<i4").reshape(3, 50, 40)
    zinto.save(f"{tmp}/a.zarr", data, chunks=(1, 16, 16), codecs="zstd:3")
    back = zinto.open(f"{tmp}/a.zarr")[...]
    assert np.array_equal(back, data), "the array written did not read back"
print(f"the wheel on Python {sys.version.split()[0]}: every check held")
