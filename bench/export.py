"""Export an array to a `.npy` file: `zinto read --out` against the peers, each in a fresh
process.

The source is the seed array as Zarr v3 zstd level 3 (float32 (100, 1000, 1000) in ten
(10, 1000, 1000) chunks: bench-data/whole_zstd.zarr, which bench/peers.py writes). zinto reads
it into one buffer (`--memory` 1 GiB, the default) and in slabs (`--memory 100000000`: two
chunks, 80 MB, appended to the file one after another); the peers read the whole array and
`np.save` it, as an export script does (zarr-python, zarr-python with the zarrs pipeline,
tensorstore). Printed: the process's wall time (best of the runs) and peak RSS (worst), the
output compared with the source. Outputs go to --out-dir (default /dev/shm, so the disk's
speed is not measured).

    cargo build --release --bin zinto
    python3 bench/export.py [--runs 3] [--out-dir DIR]
"""

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "bench-data/whole_zstd.zarr"
ZINTO = ROOT / "target/release/zinto"

PEER = r"""
import sys, numpy as np
kind, src, out = sys.argv[1:4]
if kind == "tensorstore":
    import tensorstore as ts
    a = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": src}}).result().read().result()
else:
    import zarr
    if kind == "zarrs":
        import zarrs
        zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline"})
    a = zarr.open_array(src, mode="r")[...]
np.save(out, a)
"""

EXPORTERS = {
    "zinto read --out (one buffer)": None,
    "zinto read --out --memory 100000000 (slabs of 80 MB)": None,
    "zarr-python + np.save": "zarr",
    "zarrs pipeline + np.save": "zarrs",
    "tensorstore + np.save": "tensorstore",
}


def command(name, out):
    how = EXPORTERS[name]
    if name.startswith("zinto"):
        memory = ["--memory", "100000000"] if "slabs" in name else []
        return [str(ZINTO), "read", str(SRC), "--out", out] + memory
    return [sys.executable, "-c", PEER, how, str(SRC), out]


def timed(args):
    t = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "%M"] + args, check=True, capture_output=True, text=True)
    seconds = time.perf_counter() - t
    return seconds, int(done.stderr.strip().splitlines()[-1]) * 1024


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--out-dir", default="/dev/shm")
    args = p.parse_args()
    if not SRC.exists():
        sys.exit(f"{SRC} is missing: run bench/peers.py once")
    import numpy as np
    import zarr

    want = zarr.open_array(SRC, mode="r")[...]
    out = str(Path(args.out_dir) / "zinto-export-bench.npy")
    results = {}
    for _ in range(args.runs):
        for name in EXPORTERS:
            results.setdefault(name, []).append(timed(command(name, out)))
            if not np.array_equal(np.load(out, mmap_mode="r"), want):
                sys.exit(f"{name}: the exported file differs from the array")
            Path(out).unlink()
    print("| exporter | best s (process) | peak RSS (worst) | peak / output |")
    print("|---|---:|---:|---:|")
    for name, rs in results.items():
        peak = max(p for _, p in rs)
        print(f"| {name} | {min(s for s, _ in rs):.2f} | {peak / 1e6:.0f} MB | {peak / want.nbytes:.2f}x |")


if __name__ == "__main__":
    main()
