"""`zinto convert` against zarr-python copying the same array, each in a fresh process.

The source is bench/peers.py's `blosc_lz4_v2` case (the seed array, float32 (100, 1000, 1000)
in ten (10, 1000, 1000) chunks, Zarr v2, Blosc LZ4 level 5 with byte shuffle; run peers.py once
to write it). Each converts it to Zarr v3 with zstd level 3, same chunks: zinto with
`--memory` 1 GiB (default) and 100 MB (slabs of two chunks), and into shards of two chunks
(`--shards 20,1000,1000`); zarr-python reads the whole array
and writes it (`zarr.create_array` then `z[...] = src[...]`, what a copy script does). Printed:
seconds and peak RSS of the process; each result is read back by zarr-python and compared.

    cargo build --release --bin zinto
    python3 bench/convert.py [--runs 3]
"""

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "bench-data/blosc_lz4_v2.zarr"
ZINTO = ROOT / "target/release/zinto"

COPY = r"""
import json, sys, time, zarr
src, dst = sys.argv[1:3]
t = time.perf_counter()
s = zarr.open_array(src, mode="r")
d = zarr.create_array(dst, shape=s.shape, dtype=s.dtype, chunks=s.chunks,
                      compressors=[zarr.codecs.ZstdCodec(level=3)], fill_value=s.fill_value)
d[...] = s[...]
seconds = time.perf_counter() - t
peak = [int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmHWM:")][0]
print(json.dumps({"seconds": seconds, "peak": peak}))
"""


def timed(args):
    t = time.perf_counter()
    out = subprocess.run(["/usr/bin/time", "-f", "%M"] + args, check=True, capture_output=True, text=True)
    seconds = time.perf_counter() - t
    peak_kb = int(out.stderr.strip().splitlines()[-1])
    return seconds, peak_kb * 1024


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=3)
    runs = p.parse_args().runs
    if not SRC.exists():
        sys.exit(f"{SRC} is missing: run bench/peers.py --cases blosc_lz4_v2 once")
    import numpy as np
    import zarr

    want = zarr.open_array(SRC, mode="r")[...]
    results = {}
    for _ in range(runs):
        for name in ["zinto (--memory 1 GiB)", "zinto (--memory 100 MB)", "zinto (sharded, --memory 100 MB)", "zarr-python"]:
            tmp = Path(tempfile.mkdtemp(dir=ROOT / "bench-data"))
            dst = str(tmp / "v3.zarr")
            if name.startswith("zinto"):
                memory = "1073741824" if "1 GiB" in name else "100000000"
                shards = ["--shards", "20,1000,1000"] if "sharded" in name else []
                r = timed([str(ZINTO), "convert", str(SRC), dst, "--codec", "zstd:3", "--memory", memory] + shards)
            else:
                t = time.perf_counter()
                out = json.loads(subprocess.run([sys.executable, "-c", COPY, str(SRC), dst],
                                                check=True, capture_output=True, text=True).stdout)
                r = (time.perf_counter() - t, out["peak"])
            if not np.array_equal(zarr.open_array(dst, mode="r")[...], want):
                sys.exit(f"{name}: the converted array differs")
            results.setdefault(name, []).append(r)
            shutil.rmtree(tmp)
    print("| converter | best s (process) | peak RSS (worst) |")
    print("|---|---:|---:|")
    for name, rs in results.items():
        print(f"| {name} | {min(s for s, _ in rs):.2f} | {max(p for _, p in rs) / 1e6:.0f} MB |")


if __name__ == "__main__":
    main()
