"""Partial writes of many small chunks (issue 64): what the update lock costs, beside the peers.

The array: 1024 x 1024 int32 in 16 x 16 chunks (4,096 chunks of 1 KiB, raw: the smallest
chunks, where a lock weighs the most), on local files. Each run writes `[:, 1:]`, which cuts every
chunk (its column 0 kept), so every chunk is read, merged and replaced.

- zinto, Rust, with and without the lock: `std-adapters/examples/partial_writes.rs` (the same
  file store, one with update locks and one answering "no lock", alternating in one process;
  the release example must be built: `cargo build --release -p zinto --example partial_writes`;
  4 times `--runs` pairs, as the cost is a few percent of runs that vary by more).
- zinto's Python API (`a[:, 1:] = v`, locked), zarr-python 3.4.2's default pipeline and with
  zinto's pipeline (`z[:, 1:] = v`), and tensorstore 0.1.86 (`t[:, 1:].write(v)`), each in a
  fresh process per run, on a fresh copy of the array, timed around the write alone.

Printed: a Markdown table of the median seconds (and the runs') per writer. Every writer's
result is read back and checked (column 0 kept, the rest written) before its numbers count.

    python bench/partial_writes.py [--runs 5] [--out-dir DIR]
"""

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "target/release/examples/partial_writes"
N, C = 1024, 16

WRITER = r"""
import json, sys, time, numpy as np
kind, path = sys.argv[1], sys.argv[2]
v = np.full((1024, 1023), 2, dtype="int32")
if kind == "zinto":
    import zinto
    a = zinto.open(path)
    t = time.perf_counter(); a[:, 1:] = v; took = time.perf_counter() - t
elif kind == "tensorstore":
    import tensorstore as ts
    a = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": path}}).result()
    t = time.perf_counter(); a[:, 1:].write(v).result(); took = time.perf_counter() - t
else:
    import zarr
    pipeline = {"zarr": "zarr.core.codec_pipeline.BatchedCodecPipeline",
                "zarr+zinto": "zinto.ZintoCodecPipeline"}[kind]
    with zarr.config.set({"codec_pipeline.path": pipeline}):
        z = zarr.open_array(path, mode="r+")
        t = time.perf_counter(); z[:, 1:] = v; took = time.perf_counter() - t
print(json.dumps({"seconds": took}))
"""

KINDS = [("zinto (Python)", "zinto"), ("zarr-python 3.4.2 + zinto pipeline", "zarr+zinto"),
         ("zarr-python 3.4.2 default", "zarr"), ("tensorstore 0.1.86", "tensorstore")]


def make(path):
    import zarr
    z = zarr.create_array(str(path), shape=(N, N), chunks=(C, C), dtype="int32",
                          compressors=None, overwrite=True)
    z[...] = np.ones((N, N), dtype="int32")


def check(path):
    import zarr
    got = zarr.open_array(str(path), mode="r")[...]
    assert (got[:, 0] == 1).all() and (got[:, 1:] == 2).all(), "a partial write went wrong"


def rust(runs, out):
    got = subprocess.run([str(EXAMPLE), str(out / "rust.zarr"), str(runs)], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(got)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--out-dir", default=None)
    args = p.parse_args()
    out = Path(tempfile.mkdtemp(dir=args.out_dir))
    try:
        base = out / "base.zarr"
        make(base)
        times = {}
        for _ in range(args.runs):
            for label, kind in KINDS:
                dst = out / "w.zarr"
                shutil.rmtree(dst, ignore_errors=True)
                shutil.copytree(base, dst)
                res = subprocess.run([sys.executable, "-c", WRITER, kind, str(dst)],
                                     check=True, capture_output=True, text=True)
                check(dst)
                times.setdefault(label, []).append(json.loads(res.stdout)["seconds"])
        # The lock's cost is a few percent of a run that varies by more: the Rust pair, cheap,
        # runs 4 times as often.
        r = rust(4 * args.runs, out)
        rows = [("zinto (Rust), with the lock", r["locked"]),
                ("zinto (Rust), lock off", r["unlocked"])] + list(times.items())
        print(f"Partial writes `[:, 1:]` of a {N} x {N} int32 array in {C} x {C} chunks "
              f"({r['chunks']} chunks, raw, every one cut), {args.out_dir or 'the temporary folder'}, "
              f"{args.runs} runs (Rust: {4 * args.runs} pairs).\n")
        print("| writer | median s | runs (s) |")
        print("|---|---|---|")
        for label, runs in rows:
            listed = ", ".join(f"{s:.3f}" for s in runs)
            print(f"| {label} | {statistics.median(runs):.3f} | {listed} |")
        locked, unlocked = statistics.median(r["locked"]), statistics.median(r["unlocked"])
        print(f"\nThe lock's cost (Rust, medians): {100 * (locked / unlocked - 1):+.1f}%.")
    finally:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
