"""NumPy reads what `zinto read --out FILE.npy` writes, and the values are zarr-python's.

For every array of the dataset fixtures (tests/fixtures/manifest_datasets.json) and the
examples, `zinto read` writes a .npy of the whole array and of a selection with a negative
index; `np.load` (and `np.load(mmap_mode="r")`) must give the dtype, shape and values that
zarr-python 3.1.6 reads from the same array with the same NumPy indexing. Strings are compared
as text (zinto writes `<U n`, zarr-python gives StringDType or object), dates with their unit.

Run: python tests/python/check_npy.py PATH/TO/zinto   (pip install zarr==3.1.6 numcodecs==0.16.6)
"""

import json
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import zarr

ROOT = Path(__file__).resolve().parent.parent.parent
DATA = ROOT / "tests/fixtures/data"
warnings.simplefilter("ignore")


def zinto_npy(zinto, array_dir, select, out):
    subprocess.run([zinto, "read", str(array_dir), "--select", select, "--out", str(out)],
                   check=True, capture_output=True)
    return np.load(out), np.load(out, mmap_mode="r")


def same(got, want, name):
    if got.dtype.kind == "S":
        # Bytes: NumPy's |S n drops trailing NULs, of zinto's output and of zarr-python's alike.
        assert want.dtype.kind in "OS", (name, want.dtype)
        return [bytes(x) for x in got.reshape(-1)] == [bytes(x).rstrip(b"\0") for x in want.reshape(-1)]
    if got.dtype.kind == "U":
        # Text: zinto's fixed-width <U n against zarr-python's StringDType, object or <U n.
        assert want.dtype.kind in "OTU", (name, want.dtype)
        return [str(x) for x in got.reshape(-1)] == [str(x) for x in want.reshape(-1)]
    assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
    if want.dtype.kind in "mM":
        # NaT is not equal to itself: compare the counts.
        return np.array_equal(got.view("<i8"), want.view("<i8"))
    return np.array_equal(got, want, equal_nan=want.dtype.kind in "fc")


def main():
    zinto = sys.argv[1]
    manifest = json.loads((ROOT / "tests/fixtures/manifest_datasets.json").read_text())
    arrays = [DATA / e["name"] for e in manifest if e["kind"] == "array"]
    arrays += [ROOT / "examples/data" / n for n in ("temperature.zarr", "legacy_v2.zarr", "weather.zarr/station", "weather.zarr/temperature")]
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "x.npy"
        for array_dir in arrays:
            z = zarr.open_array(str(array_dir), mode="r")
            selections = [("", ())]
            if z.ndim >= 1 and z.shape[0] > 0:
                selections.append(("-1", (-1,)))
            if z.ndim >= 2 and z.shape[1] > 1:
                selections.append(("-2:,1:", (slice(-2, None), slice(1, None))))
            for select, index in selections:
                want = np.asarray(z[index])
                got, mapped = zinto_npy(zinto, array_dir, select, out)
                name = f"{array_dir.relative_to(ROOT)} [{select}]"
                assert got.shape == want.shape, (name, got.shape, want.shape)
                assert same(got, want, name), (name, got, want)
                assert np.asarray(mapped).tobytes() == got.tobytes(), name
                checked += 1
    assert checked >= 100, checked
    print(f"check_npy: {checked} reads of {len(arrays)} arrays load in NumPy {np.__version__} as zarr-python {zarr.__version__} reads them")


if __name__ == "__main__":
    main()
