"""Dask distributed through each codec pipeline: zarr-python's default, the zarrs pipeline and
zinto's (`zinto.ZintoCodecPipeline`), side by side (issue 29, item 5).

Each run is a fresh process that starts a `LocalCluster` of 2 worker processes (one thread
each), the pipeline chosen by `ZARR_CODEC_PIPELINE__PATH` (which the workers inherit), and
does one task:
- `sum`: `da.from_zarr(seed).sum().compute()` of the seed array, float32 (100, 1000, 1000) in
  ten (10, 1000, 1000) zstd chunks (40 MB each; bench-data/dask_seed.zarr, written once);
- `to_zarr`: `xr.Dataset` of three such arrays (generated in the workers, chunk by chunk:
  `da.random`) written with `to_zarr` (Zarr v3, zstd level 3), then checked by reading a
  chunk back.
Each worker's peak resident set is reset (`/proc/self/clear_refs`) before the task and read
after (VmHWM); the table gives the worst worker's rise over its resident set before the task,
in chunks (40 MB): one chunk is the data itself (the block Dask holds), the rest is the
pipeline's.

Run from the repository root:
    pip install ./python zarrs==0.2.3      # with zarr==3.1.6, numcodecs, xarray, distributed
    python3 bench/dask.py [--runs 2] [--tasks sum,to_zarr]
"""

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench-data"
SEED = DATA / "dask_seed.zarr"
SHAPE, CHUNKS = (100, 1000, 1000), (10, 1000, 1000)
CHUNK_BYTES = 10 * 1000 * 1000 * 4
PIPELINES = {
    "default": "zarr.core.codec_pipeline.BatchedCodecPipeline",
    "zarrs": "zarrs.ZarrsCodecPipeline",
    "zinto": "zinto.ZintoCodecPipeline",
}

RUN = r"""
import json, os, sys, time, warnings
warnings.simplefilter("ignore")
pipeline, task, seed, dst = sys.argv[1:5]
os.environ["ZARR_CODEC_PIPELINE__PATH"] = pipeline
import numpy as np, zarr, dask.array as da, xarray as xr
from distributed import Client, LocalCluster

def reset():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # resets VmHWM to the present resident set
    return status("VmRSS:")

def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) * 1024

def peak():
    return status("VmHWM:")

def warm():
    import zarr, numcodecs, zinto.pipeline  # the libraries loaded before the baseline
    try:
        import zarrs
    except ImportError:
        pass
    return zarr.config.get("codec_pipeline.path")

with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
        Client(cluster) as client:
    seen = client.run(warm)
    assert set(seen.values()) == {pipeline}, seen
    before = client.run(reset)
    t = time.perf_counter()
    if task == "sum":
        total = float(da.from_zarr(seed).sum().compute())
    else:
        rng = da.random.default_rng(7)
        ds = xr.Dataset({f"v{i}": (("t", "y", "x"), rng.standard_normal((100, 1000, 1000), chunks=(10, 1000, 1000), dtype="f4"))
                         for i in range(3)})
        enc = {v: {"chunks": (10, 1000, 1000), "compressors": [zarr.codecs.ZstdCodec(level=3)]} for v in ds}
        ds.to_zarr(dst, zarr_format=3, encoding=enc, consolidated=False)
        total = None
    seconds = time.perf_counter() - t
    peaks = client.run(peak)
rise = max(peaks[w] - before[w] for w in peaks)
print(json.dumps({"seconds": seconds, "rise": rise, "total": total}))
"""


def seed():
    if (SEED / "zarr.json").exists():
        return
    import numpy as np
    import zarr

    rng = np.random.default_rng(7)
    rows = np.arange(SHAPE[0], dtype="float32").reshape(-1, 1, 1)
    a = np.broadcast_to(np.sin(rows / 7.0), SHAPE).astype("float32")
    a = a + rng.standard_normal(SHAPE, dtype="float32") * 0.01
    with zarr.config.set({"codec_pipeline.path": PIPELINES["default"]}):
        z = zarr.create_array(str(SEED), shape=SHAPE, chunks=CHUNKS, dtype="float32",
                              compressors=[zarr.codecs.ZstdCodec(level=0)], overwrite=True)
        z[...] = a


def run(pipeline, task):
    tmp = tempfile.mkdtemp(dir=DATA)
    try:
        out = subprocess.run([sys.executable, "-c", RUN, PIPELINES[pipeline], task, str(SEED),
                              str(Path(tmp) / "out.zarr")], check=True, capture_output=True,
                             text=True).stdout
        result = json.loads(out.strip().splitlines()[-1])
        if task == "to_zarr":
            check(Path(tmp) / "out.zarr")
        return result
    finally:
        shutil.rmtree(tmp)


def check(path):
    """What was written reads back (a chunk of each variable, by zarr-python's default)."""
    import numpy as np
    import zarr

    with zarr.config.set({"codec_pipeline.path": PIPELINES["default"]}):
        for i in range(3):
            block = zarr.open_array(str(path / f"v{i}"), mode="r")[:10]
            if block.shape != CHUNKS or not np.isfinite(block).all() or block.std() < 0.5:
                sys.exit(f"{path}/v{i}: not what was written")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--tasks", default="sum,to_zarr")
    args = p.parse_args()
    DATA.mkdir(exist_ok=True)
    seed()
    rows = []
    for task in args.tasks.split(","):
        results = {name: [] for name in PIPELINES}
        for _ in range(args.runs):
            for name in PIPELINES:  # interleaved
                results[name].append(run(name, task))
        totals = {r["total"] for rs in results.values() for r in rs}
        if task == "sum" and (max(totals) - min(totals)) > 1e-3 * max(abs(t) for t in totals):
            sys.exit(f"the pipelines disagree on the sum: {totals}")
        for name, rs in results.items():
            secs = [r["seconds"] for r in rs]
            rows.append((task, name, min(secs), statistics.median(secs),
                         max(r["rise"] for r in rs) / CHUNK_BYTES))
    print("| task | pipeline | best s | median s | worst worker's peak rise (chunks of 40 MB) |")
    print("|---|---|---:|---:|---:|")
    for task, name, best, med, rise in rows:
        print(f"| {task} | {name} | {best:.2f} | {med:.2f} | {rise:.2f} |")


if __name__ == "__main__":
    main()
