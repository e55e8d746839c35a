"""Large reads from Python, one build of the package against another: `zinto.open(...).read(out=)`
of bench/peers.py's seed arrays (float32 (100, 1000, 1000), raw and zstd level 0: 400 MB) in
a fresh process per run, the two Pythons interleaved; median seconds and MB/s.

Run from the repository root, with a second venv holding the package built at BASE:
    git worktree add /tmp/base BASE && (cd /tmp/base && pip wheel --no-deps ./python -w /tmp/w)
    python3 -m venv target/bench-venv-old && target/bench-venv-old/bin/pip install numpy /tmp/w/*.whl
    python3 bench/python_ab.py target/bench-venv-old/bin/python target/bench-venv-3.4/bin/python
"""

import statistics
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "bench-data"
READ = r"""
import sys, time, numpy as np, zinto
a = zinto.open(sys.argv[1])
out = np.empty(a.shape, a.dtype)
t = time.perf_counter()
a.read(out=out)
print(time.perf_counter() - t)
"""


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    pythons = {"before": sys.argv[1], "after": sys.argv[2]}
    seconds = {}
    for _ in range(5):
        for name, python in pythons.items():
            for case in ("whole_raw", "whole_zstd"):
                out = subprocess.run([python, "-c", READ, str(DATA / f"{case}.zarr")],
                                     capture_output=True, text=True, check=True).stdout
                seconds.setdefault((case, name), []).append(float(out))
    print("| array | build | seconds (median of 5) | MB/s |\n|---|---|---:|---:|")
    for (case, name), xs in sorted(seconds.items()):
        s = statistics.median(xs)
        print(f"| {case} | {name} | {s:.3f} | {400 / s:,.0f} |")


if __name__ == "__main__":
    main()
