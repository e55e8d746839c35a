"""Writes examples/data/weather.zarr: a small xarray Dataset (Zarr v3, consolidated metadata)
with a time coordinate, station names as variable-length strings, and data variables with
attributes, the way xarray users store them. zinto's README and doctests open it.

Run from this folder: python3 generate_weather.py
(pip install zarr==3.1.6 numcodecs==0.16.6 xarray pandas)
"""

import shutil
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr
import zarr

assert zarr.__version__ == "3.1.6", zarr.__version__
HERE = Path(__file__).parent
OUT = HERE / "weather.zarr"

warnings.simplefilter("ignore")  # zarr warns that consolidated metadata is not in the v3 spec
rng = np.random.default_rng(7)
time = pd.date_range("2025-01-01", periods=48, freq="h").values.astype("datetime64[ns]")
stations = np.array(["Zürich", "São Paulo", "Tōkyō", "Reykjavík", "Nairobi", "Oslo"], dtype=object)
temperature = (10 + 8 * rng.standard_normal((48, 6))).astype("float32")
wind = np.abs(5 + 3 * rng.standard_normal((48, 6))).astype("float32")

ds = xr.Dataset(
    {
        "temperature": (("time", "station"), temperature, {"units": "degC", "long_name": "air temperature at 2 m"}),
        "wind_speed": (("time", "station"), wind, {"units": "m s-1"}),
    },
    coords={
        "time": time,
        "station": stations,
        "lat": ("station", np.array([47.37, -23.55, 35.68, 64.15, -1.29, 59.91])),
        "lon": ("station", np.array([8.54, -46.63, 139.69, -21.94, 36.82, 10.75])),
    },
    attrs={"title": "Hourly weather at six stations (synthetic)", "source": "examples/data/generate_weather.py"},
)
encoding = {"temperature": {"chunks": (24, 3)}, "wind_speed": {"chunks": (24, 3)}}
shutil.rmtree(OUT, ignore_errors=True)
ds.to_zarr(OUT, zarr_format=3, consolidated=True, mode="w", encoding=encoding)
back = xr.open_zarr(OUT).load()
assert (back.temperature.values == temperature).all()
print("wrote", OUT)
