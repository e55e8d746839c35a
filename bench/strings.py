"""Side-by-side reads of variable-length strings: zinto against zarr-python, the zarrs pipeline
and tensorstore.

Writes a 1-D array of 10 million strings (4 to 23 characters, a fifth of them not ASCII) in
chunks of 1 million with zarr-python 3.1.6 into bench-data/ (not committed): v3 `string` with
`vlen-utf8` and zstd level 0 (zarr-python's defaults), and v2 `|O` with the `vlen-utf8` filter
and zarr-python's default v2 compressor. Each reader reads the whole array in a fresh process,
`--runs` times, interleaved; the table gives the median seconds, million strings per second,
and the median peak resident memory (VmHWM) with its ratio to the UTF-8 bytes of the strings.

zinto returns Arrow-style offsets (8 bytes per string, plus 8) and values (the UTF-8 bytes);
zarr-python returns a NumPy array of StringDType. Their outputs differ in form, so the memory
column is the whole peak, not an "extra over the output". Every reader reports the total UTF-8
bytes it read (outside the timed part), and the script stops if two disagree. A reader that
cannot read a case is shown with its error.

Run from the repository root:
    pip install zarr==3.1.6 numcodecs tensorstore zarrs
    cargo build --release --bin zinto
    python3 bench/strings.py [--runs 5]
"""

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench-data"
ZINTO = ROOT / "target/release/zinto"
N = 10_000_000
CHUNK = 1_000_000

READER = r"""
import json, sys, time, warnings
warnings.simplefilter("ignore")
def rss(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) * 1024
kind, path = sys.argv[1], sys.argv[2]
import numpy as np
if kind == "tensorstore":
    import os
    import tensorstore as ts
    driver = "zarr3" if os.path.exists(os.path.join(path, "zarr.json")) else "zarr"
    arr = ts.open({"driver": driver, "kvstore": {"driver": "file", "path": path}}).result()
else:
    import zarr
    if kind == "zarrs":
        import zarrs
        zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline"})
    arr = zarr.open_array(path, mode="r")
base = rss("VmRSS:")
t = time.perf_counter()
out = arr[...].read().result() if kind == "tensorstore" else arr[...]
secs = time.perf_counter() - t
peak = rss("VmHWM:")
utf8 = sum(len(s.encode()) if isinstance(s, str) else len(s) for s in out.tolist())
print(json.dumps({"seconds": secs, "peak": peak, "base": base, "count": int(out.size),
                  "utf8_bytes": utf8}))
"""


# The words the strings are made of (bench/strings_write.py makes the same strings).
WORDS = ["station", "Zürich", "São Paulo", "Tōkyō", "north", "buoy", "Reykjavík", "mast",
         "delta", "ridge", "東京", "valley"]


def strings():
    import numpy as np

    rng = np.random.default_rng(13)
    picks = rng.integers(0, len(WORDS), N)
    ids = rng.integers(0, 1_000_000_000, N)
    return np.array([f"{WORDS[p]}-{i}" for p, i in zip(picks.tolist(), ids.tolist())], dtype=object)


def write_arrays():
    import warnings

    import zarr

    warnings.simplefilter("ignore")
    paths = {"v3": DATA / "strings_v3.zarr", "v2": DATA / "strings_v2.zarr"}
    if all((p / ("zarr.json" if k == "v3" else ".zarray")).exists() for k, p in paths.items()):
        return paths
    data = strings()
    for fmt, path in paths.items():
        z = zarr.create_array(str(path), shape=(N,), chunks=(CHUNK,), dtype=str,
                              zarr_format=3 if fmt == "v3" else 2, overwrite=True)
        z[:] = data
    return paths


def run(args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        return {"error": (r.stderr.strip().splitlines() or ["(no message)"])[-1]}
    return json.loads(r.stdout.strip().splitlines()[-1])


def run_zinto(path):
    r = run([str(ZINTO), "read", str(path), "--json"])
    if "error" in r:
        return r
    values = r["bytes"] - 8 * (N + 1)
    return {"seconds": r["seconds"], "peak": r["peak_rss_bytes"], "count": N, "utf8_bytes": values}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    a = p.parse_args()
    if not ZINTO.exists():
        sys.exit(f"{ZINTO} not built: cargo build --release --bin zinto")
    paths = write_arrays()
    readers = {
        "zinto": run_zinto,
        "zarr-python 3.1.6": lambda path: run([sys.executable, "-c", READER, "zarr", str(path)]),
        "zarrs (Python pipeline)": lambda path: run([sys.executable, "-c", READER, "zarrs", str(path)]),
        "tensorstore": lambda path: run([sys.executable, "-c", READER, "tensorstore", str(path)]),
    }
    for fmt, path in paths.items():
        results = {name: [] for name in readers}
        for _ in range(a.runs):
            for name, reader in readers.items():
                results[name].append(reader(path))
        utf8 = {r["utf8_bytes"] for rs in results.values() for r in rs if "error" not in r}
        if len(utf8) != 1:
            sys.exit(f"{fmt}: readers disagree on the UTF-8 bytes read: {sorted(utf8)}")
        (utf8,) = utf8
        print(f"\n{fmt}: {N:,} strings, {utf8:,} UTF-8 bytes, chunks of {CHUNK:,}, "
              f"{a.runs} runs (medians)\n")
        print("| reader | seconds | M strings/s | peak RSS MB | peak / UTF-8 bytes |")
        print("|---|---:|---:|---:|---:|")
        failures = []
        for name, rs in results.items():
            errors = [r["error"] for r in rs if "error" in r]
            if errors:
                print(f"| {name} | fails (below) | | | |")
                failures.append(f"- {name}: {errors[0]}")
                continue
            secs = statistics.median(r["seconds"] for r in rs)
            peak = statistics.median(r["peak"] for r in rs)
            print(f"| {name} | {secs:.3f} | {N / secs / 1e6:.1f} | {peak / 1e6:.0f} | "
                  f"{peak / utf8:.2f} |")
        if failures:
            print("\n" + "\n".join(failures))


if __name__ == "__main__":
    main()
