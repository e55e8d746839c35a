"""Reading the Dask seed array through each codec pipeline from each kind of zarr-python store
(issue 29): the peak resident set rise while ten 40 MB zstd chunks are read one at a time, each
read's output dropped before the next, in chunks of 40 MB. One chunk is the output itself.

Stores: `local` (LocalStore), `fsspec` (an FsspecStore over fsspec's local file system, which
`dask.array.from_zarr` and xarray make of a plain path), `memory` (a MemoryStore holding a copy
of every chunk, made before the baseline). Each case runs in a fresh process; RSS is sampled
every 0.2 ms by a thread.

Run from the repository root, after bench/dask.py made bench-data/dask_seed.zarr:
    python3 bench/pipeline_stores.py [--runs 2]
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "bench-data" / "dask_seed.zarr"
PIPELINES = {
    "default": "zarr.core.codec_pipeline.BatchedCodecPipeline",
    "zarrs": "zarrs.ZarrsCodecPipeline",
    "zinto": "zinto.ZintoCodecPipeline",
}

RUN = r"""
import asyncio, json, os, sys, threading, time, warnings
warnings.simplefilter("ignore")
pipeline, kind, seed = sys.argv[1:4]
os.environ["ZARR_CODEC_PIPELINE__PATH"] = pipeline
import zarr, zarr.storage, zinto.pipeline

def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096

if kind == "local":
    store = zarr.storage.LocalStore(seed, read_only=True)
elif kind == "fsspec":
    store = zarr.storage.FsspecStore.from_url(seed, read_only=False, storage_options={})
else:
    store = zarr.storage.MemoryStore()
    asyncio.run(zarr.storage.LocalStore(seed, read_only=True)._ensure_open())
    async def copy():
        src = zarr.storage.LocalStore(seed, read_only=True)
        from zarr.core.buffer import default_buffer_prototype
        async for key in src.list():
            await store.set(key, await src.get(key, prototype=default_buffer_prototype()))
    asyncio.run(copy())
z = zarr.open_array(store=store, mode="r")
x = z[:10]; del x  # warm: imports, the first chunk's code paths
base, peak, stop = rss(), [0], [False]
def sample():
    while not stop[0]:
        peak[0] = max(peak[0], rss())
        time.sleep(0.0002)
threading.Thread(target=sample, daemon=True).start()
t = time.perf_counter()
for i in range(1, 10):
    x = z[i * 10:(i + 1) * 10]; del x
seconds = time.perf_counter() - t
time.sleep(0.01); stop[0] = True
print(json.dumps({"rise": (peak[0] - base) / 40e6, "seconds": seconds,
                  "by_zinto": zinto.pipeline.reads_by_zinto}))
"""


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=2)
    args = p.parse_args()
    print("| store | pipeline | best s (9 chunks) | worst peak rise (chunks of 40 MB) | reads by zinto |")
    print("|---|---|---:|---:|---:|")
    for kind in ("local", "fsspec", "memory"):
        for name, path in PIPELINES.items():
            runs = [json.loads(subprocess.run(
                [sys.executable, "-c", RUN, path, kind, str(SEED)], check=True,
                capture_output=True, text=True).stdout.strip().splitlines()[-1])
                for _ in range(args.runs)]
            print(f"| {kind} | {name} | {min(r['seconds'] for r in runs):.2f} | "
                  f"{max(r['rise'] for r in runs):.2f} | {runs[0]['by_zinto']} |")


if __name__ == "__main__":
    main()
