"""Writes examples/data/spectra/: peak lists for `zinto merge`.

Five zstd-compressed chunks of different lengths, each holding float64 records
[spectrum index, m/z, intensity] (24 bytes, little endian) sorted by m/z, as a
mass-spectrometry pipeline writes them. numcodecs' Zstd writes one frame with its content size.

Run from this folder: python3 generate_spectra.py   (pip install numpy numcodecs)
"""

from pathlib import Path

import numpy as np
from numcodecs import Zstd

HERE = Path(__file__).parent
out = HERE / "spectra"
out.mkdir(exist_ok=True)
for old in out.glob("*.zst"):
    old.unlink()
rng = np.random.default_rng(2026)
zstd = Zstd(level=5)
start = 0
for i, n in enumerate([1200, 350, 2000, 800, 1500]):
    rec = np.empty((n, 3), dtype="<f8")
    rec[:, 0] = i
    rec[:, 1] = np.sort(np.round(rng.uniform(100.0, 2000.0, n), 4))
    rec[:, 2] = np.round(rng.exponential(1000.0, n), 1)
    (out / f"scan{i}.zst").write_bytes(zstd.encode(rec))
    start += n
print(f"wrote {start} records in 5 chunks to {out}")
