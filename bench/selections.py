"""Selections other than a rectangle (issue 62): zarr-python's three reports' arrays, each
read with an index list (and with the equal slice beside it), and a loader's pattern (batches
of random rows of a (N, features) table), by every reader, each in a fresh process per run.

The cases (arrays written once by zarr-python 3.4.2 into bench-data/, zstd level 0 as its
default):
- `rows_sharded` (zarr-python #3164): (10000, 2000) float64 in chunks (5000, 100), shards
  (5000, 500); `a[list(range(5000))]` beside `a[0:5000]`.
- `oindex_first` (#3829): (2, 1000, 100, 100) float32 in chunks (1, 1000, 10, 10), shards
  (1, 1000, 100, 100); `a.oindex[[0], :, :, :]` beside `a[0:1]`.
- `planes` (#3641, scaled by 1/4 to fit here): (1, 10, 6144, 6144) float32 in chunks
  (1, 1, 1024, 1024), shards (1, 1, 2048, 2048); `a[:, [0, 3, 6]]` beside `a[:, 0:3]` (as
  many bytes).
- `loader`: (1_000_000, 64) float32 in chunks (256, 64) (64 KiB each); 50 batches of 256
  random rows (unsorted, the same seeded rows for every reader), one call each (`a[rows]`).

Readers: `zinto.open(path)[key]`; zarr-python 3.4.2 with its default pipeline, its
`FusedCodecPipeline`, zinto's pipeline and the zarrs pipeline (zarrs-python 0.2.3); and
tensorstore 0.1.86 (`a.oindex[key].read().result()`, its orthogonal indexing). For each: the
median seconds of `--runs` fresh processes (page cache warm: each case is read once before),
and the read's extra memory: peak RSS (VmHWM, reset through /proc/self/clear_refs just before
the read) minus the RSS then minus the output, over the output (for the loader, whose batches
are 64 KiB each, in MiB over all 50 batches). Every reader's result is checksummed; readers that disagree stop the run.

Run from the repository root with the Python of bench/peers.py's second column (made as its
docstring says):
    target/bench-venv-3.4/bin/python bench/selections.py [--runs 5] [--cases rows_sharded,...]
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
QUIET = {"PYTHONWARNINGS": "ignore", "OPENBLAS_NUM_THREADS": "1"}

CASES = {
    "rows_sharded": dict(shape=(10000, 2000), dtype="float64", chunks=(5000, 100),
                         shards=(5000, 500), key="[list(range(5000))]",
                         slice="[0:5000]", report="zarr-python #3164"),
    "oindex_first": dict(shape=(2, 1000, 100, 100), dtype="float32", chunks=(1, 1000, 10, 10),
                         shards=(1, 1000, 100, 100), key="oindex[[0], :, :, :]",
                         slice="[0:1]", report="zarr-python #3829"),
    "planes": dict(shape=(1, 10, 6144, 6144), dtype="float32", chunks=(1, 1, 1024, 1024),
                   shards=(1, 1, 2048, 2048), key="[:, [0, 3, 6]]", slice="[:, 0:3]",
                   report="zarr-python #3641, scaled by 1/4"),
    "loader": dict(shape=(1_000_000, 64), dtype="float32", chunks=(256, 64), shards=None,
                   key="batches", slice=None, report="a loader's random rows"),
}

READERS = [("`zinto.open(...)[key]`", "zinto"), ("zarr-python + zinto's pipeline", "zinto_pipeline"),
           ("zarrs pipeline", "zarrs"), ("zarr-python `FusedCodecPipeline`", "fused"),
           ("zarr-python default", "zarr"), ("tensorstore 0.1.86", "tensorstore")]

READER = r"""
import json, sys, time
import numpy as np
kind, path, key = sys.argv[1], sys.argv[2], sys.argv[3]
batches = json.loads(sys.argv[4]) if key == "batches" else None

def rss(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) * 1024

def reset_peak():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # VmHWM back to the present resident set

if kind == "tensorstore":
    import tensorstore as ts
    arr = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": path}}).result()
    def read(expr):
        if expr == "batches":
            return None
        if expr.startswith("oindex"):
            return arr.oindex[eval("np.s_" + expr[len("oindex"):])].read().result()
        return arr.oindex[eval("np.s_" + expr)].read().result()
    def rows(r):
        return arr.oindex[r].read().result()
elif kind == "zinto":
    import zinto
    arr = zinto.open(path)
else:
    import zarr
    if kind == "zarrs":
        import zarrs
    pipeline = {"zarrs": "zarrs.ZarrsCodecPipeline",
                "fused": "zarr.core.codec_pipeline.FusedCodecPipeline",
                "zinto_pipeline": "zinto.ZintoCodecPipeline"}.get(kind)
    if pipeline:
        zarr.config.set({"codec_pipeline.path": pipeline})
    arr = zarr.open_array(path, mode="r")
    if pipeline:
        assert type(arr._async_array.codec_pipeline).__name__ == pipeline.rsplit(".", 1)[1]
if kind != "tensorstore":
    def read(expr):
        if expr.startswith("oindex"):
            return arr.oindex[eval("np.s_" + expr[len("oindex"):])]
        return arr[eval("np.s_" + expr)]
    def rows(r):
        return arr[r]

check = 0.0
if batches is not None:
    rows(np.array(batches[0]))  # imports, opening and first-call setup are not timed
    reset_peak()
    before = rss("VmRSS:")
    t = time.perf_counter()
    for b in batches:
        got = rows(np.array(b))
        check += float(got[::7].astype("float64").sum())
    secs = time.perf_counter() - t
    out_bytes = got.nbytes
else:
    reset_peak()
    before = rss("VmRSS:")
    t = time.perf_counter()
    got = read(key)
    secs = time.perf_counter() - t
    out_bytes = got.nbytes
    check = float(got.reshape(-1)[::97].astype("float64").sum())
peak = rss("VmHWM:")
print(json.dumps({"seconds": secs, "sum": check, "extra_bytes": peak - before - out_bytes,
                  "extra": (peak - before - out_bytes) / out_bytes}))
"""


def write(name, spec):
    """The case's array, written once (zarr-python, its default zstd level 0)."""
    path = DATA / f"sel_{name}.zarr"
    if (path / "zarr.json").exists():
        return path
    import numpy as np
    import zarr
    rng = np.random.default_rng(0)
    a = zarr.create_array(str(path), shape=spec["shape"], dtype=spec["dtype"],
                          chunks=spec["chunks"], shards=spec["shards"])
    # Slabs along the first axes that hold whole shards (or chunks): written in parallel.
    outer = spec["shards"] or spec["chunks"]
    step = [outer[0]] + list(spec["shape"][1:])
    if spec["shape"][0] <= outer[0] and len(spec["shape"]) > 1:
        step = [spec["shape"][0], outer[1]] + list(spec["shape"][2:])
    starts = [range(0, n, s) for n, s in zip(spec["shape"], step)]
    import itertools
    for corner in itertools.product(*starts):
        sl = tuple(slice(c, min(c + s, n)) for c, s, n in zip(corner, step, spec["shape"]))
        shape = tuple(x.stop - x.start for x in sl)
        a[sl] = rng.standard_normal(shape).astype(spec["dtype"])
    return path


def batches(spec, n=50, size=256):
    import numpy as np
    rng = np.random.default_rng(1)
    return [rng.integers(0, spec["shape"][0], size).tolist() for _ in range(n)]


def run(kind, path, key, extra):
    env = dict(os.environ, **QUIET)
    out = subprocess.run([sys.executable, "-c", READER, kind, str(path), key, extra],
                         capture_output=True, text=True, env=env, check=False)
    if out.returncode != 0:
        raise SystemExit(f"{kind} {key}: failed\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(name, spec, key, runs):
    path = write(name, spec)
    extra = json.dumps(batches(spec)) if key == "batches" else "[]"
    run("zinto", path, key, extra)  # the page cache warm for everyone
    rows, sums = [], {}
    for label, kind in READERS:
        got = [run(kind, path, key, extra) for _ in range(runs)]
        sums[label] = got[0]["sum"]
        rows.append((label, statistics.median(g["seconds"] for g in got),
                     statistics.median(g["extra"] for g in got),
                     statistics.median(g["extra_bytes"] for g in got)))
    first = next(iter(sums.values()))
    for label, s in sums.items():
        if abs(s - first) > 1e-6 * max(1.0, abs(first)):
            raise SystemExit(f"{name} {key}: {label} disagrees ({s} != {first})")
    return rows


def table(name, spec, runs):
    lines = [f"### `{name}`: {spec['report']}", "",
             f"{spec['shape']} {spec['dtype']}, chunks {spec['chunks']}, shards "
             f"{spec['shards']}, zstd level 0.", ""]
    keys = [spec["key"]] + ([spec["slice"]] if spec["slice"] else [])
    results = {k: measure(name, spec, k, runs) for k in keys}
    head = "| reader | " + " | ".join(
        ("50 batches of 256 random rows" if k == "batches" else f"`a{k}`" if not
         k.startswith("oindex") else f"`a.{k}`") + " (s, extra)" for k in keys) + " |"
    lines += [head, "|---|" + "---:|" * len(keys)]
    for i, (label, _) in enumerate(READERS):
        # A batch's output is small (64 KiB): its extra is given in MiB, not against it.
        cells = [f"{r[1]:.3f}, {r[3] / 2**20:.1f} MiB" if k == "batches" else
                 f"{r[1]:.3f}, {100 * r[2]:.0f}%" for k in keys for r in [results[k][i]]]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--cases", default=",".join(CASES))
    args = p.parse_args()
    DATA.mkdir(exist_ok=True)
    import zarr
    import zinto
    print(f"zarr-python {zarr.__version__}, zinto {zinto.__version__}; median of {args.runs} "
          "fresh processes per reader; extra = (peak RSS - RSS before the read - output) / "
          "output.\n")
    for name in args.cases.split(","):
        print(table(name, CASES[name], args.runs) + "\n", flush=True)


if __name__ == "__main__":
    main()
