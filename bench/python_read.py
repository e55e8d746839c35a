"""Reading from Python, four ways, side by side: zarr-python's default pipeline, the zarrs
pipeline, zinto's pipeline (`zinto.ZintoCodecPipeline`) and zinto's own API.

The seed case: float32 (100, 1000, 1000) in chunks (10, 1000, 1000), uncompressed and zstd
level 0, as bench/peers.py writes them into bench-data/ (run it once first, or this script
writes them). Each way reads the whole array, `--runs` times, each run in a fresh process, the
ways interleaved. Memory is the peak resident set (VmHWM) minus the resident set after the
imports and the open, just before the read, minus the output: the read's extra memory, over
the output. MB/s counts output bytes.

Run from the repository root:
    pip install ./python zarrs==0.2.3      # with zarr==3.1.6, numcodecs
    python3 bench/python_read.py [--runs 5]
"""

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench-data"
CASES = {"raw": DATA / "whole_raw.zarr", "zstd": DATA / "whole_zstd.zarr"}

READER = r"""
import json, sys, time, warnings
warnings.simplefilter("ignore")
def rss(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) * 1024
way, path = sys.argv[1], sys.argv[2]
import numpy as np
import zarr
if way == "zinto":
    import zinto
    arr = zinto.open(path)
else:
    pipeline = {"zarr-python": "zarr.core.codec_pipeline.BatchedCodecPipeline",
                "zarrs": "zarrs.ZarrsCodecPipeline",
                "zinto-pipeline": "zinto.ZintoCodecPipeline"}[way]
    if way == "zarrs":
        import zarrs
    if way == "zinto-pipeline":
        import zinto
    zarr.config.set({"codec_pipeline.path": pipeline})
    arr = zarr.open_array(path, mode="r")
base = rss("VmRSS:")
t = time.perf_counter()
out = arr[...]
secs = time.perf_counter() - t
peak = rss("VmHWM:")
assert isinstance(out, np.ndarray) and out.dtype == np.float32 and out.flags.c_contiguous
print(json.dumps({"seconds": secs, "bytes": out.nbytes, "peak": peak, "base": base,
                  "sum": float(out.reshape(-1)[::97].astype("float64").sum())}))
"""

WAYS = ["zarr-python", "zarrs", "zinto-pipeline", "zinto"]
LABELS = {
    "zarr-python": "(a) zarr-python 3.1.6, default pipeline",
    "zarrs": "(b) zarr-python + zarrs pipeline",
    "zinto-pipeline": "(c) zarr-python + zinto pipeline",
    "zinto": "(d) zinto.open(...)[...]",
}


def write_arrays():
    if all((p / "zarr.json").exists() for p in CASES.values()):
        return
    subprocess.run([sys.executable, str(ROOT / "bench/peers.py"), "--runs", "1", "--cases",
                    "whole_raw,whole_zstd"], check=True)


def run(way, path):
    r = subprocess.run([sys.executable, "-c", READER, way, str(path)], capture_output=True,
                       text=True)
    if r.returncode != 0:
        sys.exit(f"{way} failed on {path}:\n" + "\n".join(r.stderr.strip().splitlines()[-15:]))
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    a = p.parse_args()
    write_arrays()
    for case, path in CASES.items():
        results = {w: [] for w in WAYS}
        for _ in range(a.runs):
            for w in WAYS:
                results[w].append(run(w, path))
        sums = {w: rs[0]["sum"] for w, rs in results.items()}
        ref = sums["zarr-python"]
        for w, s in sums.items():
            if abs(s - ref) > 1e-3 * max(1.0, abs(ref)):
                sys.exit(f"{case}: {w} read different data (checksum {s} vs {ref})")
        nbytes = results["zinto"][0]["bytes"]
        print(f"\n{case}: float32 (100, 1000, 1000), chunks (10, 1000, 1000), "
              f"{nbytes / 1e6:.0f} MB, {a.runs} runs (medians)\n")
        print("| way | seconds | MB/s | extra memory over the output |")
        print("|---|---:|---:|---:|")
        for w in WAYS:
            rs = results[w]
            secs = statistics.median(r["seconds"] for r in rs)
            extra = statistics.median((r["peak"] - r["base"] - r["bytes"]) / r["bytes"]
                                      for r in rs)
            print(f"| {LABELS[w]} | {secs:.3f} | {nbytes / secs / 1e6:.0f} | {100 * extra:.1f}% |")


if __name__ == "__main__":
    main()
