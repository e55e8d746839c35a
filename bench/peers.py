"""Side-by-side reads: zinto against zarr-python, the zarrs pipeline and tensorstore.

Writes the arrays with zarr-python 3.1.6 into bench-data/ (not committed), then reads each one,
in a fresh process per run, with every reader, and prints a Markdown table of seconds, MB/s,
peak resident memory over the output size, and the read's extra memory: peak RSS minus the
process's RSS just before the read minus the output, over the output.

Run from the repository root:
    pip install zarr==3.1.6 numcodecs tensorstore zarrs
    cargo build --release --bin zinto
    cargo build --release --bin zinto --no-default-features --features cli --target-dir target/pure-rust
    python3 bench/peers.py [--runs 5] [--cases whole_raw,whole_zstd,small_chunks,sharded]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench-data"
ZINTO = ROOT / "target/release/zinto"
ZINTO_PURE = ROOT / "target/pure-rust/release/zinto"

CASES = {
    # name: (shape, chunks, shards, compressed, selection as (start, stop) per dim)
    "whole_raw": ((100, 1000, 1000), (10, 1000, 1000), None, False, None),
    "whole_zstd": ((100, 1000, 1000), (10, 1000, 1000), None, True, None),
    "small_chunks": ((6000, 6000), (100, 100), None, True, ((37, 5937), (53, 5953))),
    "sharded": ((8192, 8192), (128, 128), (1024, 1024), True, ((1000, 3000), (2500, 4500))),
}

PYTHON_READER = r"""
import json, sys, time
def rss(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) * 1024
kind, path, sel = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
import numpy as np
if kind == "tensorstore":
    import tensorstore as ts
    arr = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": path}}).result()
else:
    import zarr
    if kind == "zarrs":
        import zarrs
        zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline"})
    arr = zarr.open_array(path, mode="r")
index = tuple(slice(a, b) for a, b in sel) if sel else tuple(slice(None) for _ in arr.shape)
base = rss("VmRSS:")
t = time.perf_counter()
if kind == "tensorstore":
    out = arr[index].read().result()
else:
    out = arr[index]
secs = time.perf_counter() - t
assert isinstance(out, np.ndarray)
print(json.dumps({"seconds": secs, "bytes": out.nbytes, "peak": rss("VmHWM:"), "base": base,
                  "sum": float(out[::97].astype("float64").sum())}))
"""


def write_arrays(names):
    import numpy as np
    import zarr
    from zarr.codecs import ZstdCodec

    assert zarr.__version__ == "3.1.6", zarr.__version__
    DATA.mkdir(exist_ok=True)
    for name in names:
        shape, chunks, shards, compressed, _ = CASES[name]
        path = DATA / f"{name}.zarr"
        if (path / "zarr.json").exists():
            continue
        print(f"writing {path} ...", file=sys.stderr)
        rng = np.random.default_rng(7)
        a = zarr.create_array(str(path), shape=shape, dtype="float32", chunks=chunks, shards=shards,
                              compressors=[ZstdCodec(level=0)] if compressed else None)
        # A smooth field plus noise, written one slab at a time.
        step = chunks[0] if shards is None else shards[0]
        for i in range(0, shape[0], step):
            rows = np.arange(i, min(i + step, shape[0]), dtype="float32")
            slab_shape = (len(rows),) + shape[1:]
            base = np.sin(rows / 7.0).reshape((-1,) + (1,) * (len(shape) - 1))
            noise = rng.standard_normal(slab_shape, dtype="float32") * 0.01
            a[i:i + len(rows)] = (base + np.cos(np.arange(shape[-1], dtype="float32") / 11.0) + noise)


def warm(path):
    for f in path.rglob("*"):
        if f.is_file():
            f.read_bytes()


def run_zinto(binary, path, sel, threads):
    args = [str(binary), "read", str(path), "--json"]
    if sel:
        args += ["--select", ",".join(f"{a}:{b}" for a, b in sel)]
    if threads:
        args += ["--threads", str(threads)]
    r = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    return {"seconds": r["seconds"], "bytes": r["bytes"], "peak": r["peak_rss_bytes"],
            "base": r["baseline_rss_bytes"]}


def run_python(kind, path, sel):
    out = subprocess.run([sys.executable, "-c", PYTHON_READER, kind, str(path), json.dumps(sel)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--cases", default=",".join(CASES))
    args = p.parse_args()
    names = args.cases.split(",")
    write_arrays(names)
    readers = [
        ("zinto (C zstd, 2 threads)", lambda path, sel: run_zinto(ZINTO, path, sel, None)),
        ("zinto (pure Rust, 2 threads)", lambda path, sel: run_zinto(ZINTO_PURE, path, sel, None)),
        ("zinto (C zstd, 1 thread)", lambda path, sel: run_zinto(ZINTO, path, sel, 1)),
        ("zarr-python 3.1.6", lambda path, sel: run_python("zarr", path, sel)),
        ("zarrs pipeline", lambda path, sel: run_python("zarrs", path, sel)),
        ("tensorstore", lambda path, sel: run_python("tensorstore", path, sel)),
    ]
    print(f"{os.cpu_count()} cores; median of {args.runs} runs (readers interleaved), each in a "
          "fresh process, files in the page cache (read once before the runs).\n")
    for name in names:
        shape, chunks, shards, compressed, sel = CASES[name]
        path = DATA / f"{name}.zarr"
        warm(path)
        what = "whole array" if sel is None else "selection " + ", ".join(f"{a}:{b}" for a, b in sel)
        print(f"### {name}: float32 {shape}, chunks {chunks}"
              + (f", shards {shards}" if shards else "")
              + (", zstd level 0" if compressed else ", uncompressed") + f"; {what}\n")
        print("| reader | seconds | MB/s | peak RSS / output | extra / output |")
        print("|---|---:|---:|---:|---:|")
        # Runs interleave the readers, so that a slow spell of the machine hits all of them.
        by_reader = {label: [] for label, _ in readers}
        for _ in range(args.runs):
            for label, fn in readers:
                by_reader[label].append(fn(path, sel))
        for label, _ in readers:
            results = by_reader[label]
            secs = statistics.median(r["seconds"] for r in results)
            n = results[0]["bytes"]
            peak = max(r["peak"] for r in results)
            extra = max((r["peak"] - r["base"] - r["bytes"]) / r["bytes"] for r in results)
            print(f"| {label} | {secs:.3f} | {n / secs / 1e6:.0f} | {peak / n:.3f} | {extra * 100:.1f}% |")
        print()


if __name__ == "__main__":
    main()
