"""Merge-and-sort benchmark: zinto against NumPy on the same chunk files.

10 million float64 records [spectrum index, m/z, intensity] (240 MB) in 100 chunk files of
varying size (50% to 150% of the mean), each sorted by m/z, written raw and zstd-compressed
(numcodecs' Zstd, level 3), as `.npy` files (np.save) and as msgpack-numpy files
(msgpack.packb(a, default=msgpack_numpy.encode)) into bench-data/merge/ (not committed). Each
run, in a fresh process:

- numpy: read every file (np.fromfile; numcodecs Zstd decode; np.load; msgpack.unpackb with
  msgpack_numpy's object hook), np.concatenate, argsort by m/z, gather (the pipeline that
  motivated issue 8, and the METASPACE one of issue 19);
- zinto: `zinto merge --record-size 24 --key f64@8` for raw and zstd chunks, `zinto merge --key
  col=1` for `.npy` and msgpack-numpy segments, whose type and row size come from their headers
  (exact buffer, parallel reads, parallel in-place sort).

Both report the seconds from the first file read to the sorted buffer, and peak resident memory
minus the process's memory before the first read, over the output size. Neither writes the
result. The zinto result is checked against NumPy's once (same m/z sequence) before timing.

Run from the repository root:
    pip install numpy numcodecs msgpack msgpack-numpy
    cargo build --release --bin zinto
    python3 bench/merge.py [--runs 5] [--records 10000000] [--chunks 100] [--formats raw,zstd,npy,msgpack]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench-data" / "merge"
ZINTO = ROOT / "target/release/zinto"

NUMPY_MERGE = r"""
import json, sys, time
def rss(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) * 1024
codec, files = sys.argv[1], sys.argv[2:]
import numpy as np
from numcodecs import Zstd
import msgpack, msgpack_numpy
zstd = Zstd()
base = rss("VmRSS:")
t = time.perf_counter()
parts = []
for f in files:
    if codec == "raw":
        parts.append(np.fromfile(f, dtype="<f8").reshape(-1, 3))
    elif codec == "npy":
        parts.append(np.load(f))
    elif codec == "msgpack":
        with open(f, "rb") as fh:
            parts.append(msgpack.unpackb(fh.read(), object_hook=msgpack_numpy.decode))
    else:
        with open(f, "rb") as fh:
            parts.append(np.frombuffer(zstd.decode(fh.read()), dtype="<f8").reshape(-1, 3))
merged = np.concatenate(parts)
del parts
order = np.argsort(merged[:, 1])
out = merged[order]
secs = time.perf_counter() - t
del merged, order
peak = rss("VmHWM:")
print(json.dumps({"seconds": secs, "bytes": out.nbytes, "peak_over_output": (peak - base) / out.nbytes}))
"""


def generate(records, chunks):
    import numpy as np
    import msgpack
    import msgpack_numpy
    from numcodecs import Zstd

    marker = DATA / f"done-{records}-{chunks}-segments"
    if marker.exists():
        return
    rng = np.random.default_rng(8)
    weights = rng.uniform(0.5, 1.5, chunks)
    sizes = np.floor(weights / weights.sum() * records).astype(np.int64)
    sizes[-1] += records - sizes.sum()
    zstd = Zstd(level=3)
    for d in FORMATS:
        (DATA / d).mkdir(parents=True, exist_ok=True)
    start = 0
    for i, n in enumerate(sizes):
        mz = np.sort(rng.uniform(100.0, 2000.0, n))
        rec = np.empty((n, 3), dtype="<f8")
        rec[:, 0] = np.arange(start, start + n)
        rec[:, 1] = mz
        rec[:, 2] = rng.exponential(1000.0, n)
        start += n
        rec.tofile(DATA / "raw" / f"c{i:03d}.bin")
        (DATA / "zstd" / f"c{i:03d}.zst").write_bytes(zstd.encode(rec))
        np.save(DATA / "npy" / f"c{i:03d}.npy", rec)
        (DATA / "msgpack" / f"c{i:03d}.msgpack").write_bytes(
            msgpack.packb(rec, default=msgpack_numpy.encode))
    marker.write_text("")


FORMATS = ("raw", "zstd", "npy", "msgpack")
EXT = {"raw": "bin", "zstd": "zst", "npy": "npy", "msgpack": "msgpack"}


def files(codec):
    return sorted(str(p) for p in (DATA / codec).glob(f"c*.{EXT[codec]}"))


def run_numpy(codec):
    out = subprocess.run(
        [sys.executable, "-c", NUMPY_MERGE, codec, *files(codec)],
        check=True, capture_output=True, text=True,
    ).stdout
    return json.loads(out)


def run_zinto(codec, out=None):
    if codec in ("npy", "msgpack"):
        cmd = [str(ZINTO), "merge", "--key", "col=1", "--json"]
    else:
        cmd = [str(ZINTO), "merge", "--record-size", "24", "--key", "f64@8", "--json"]
    if out:
        cmd += ["--out", out]
    r = json.loads(subprocess.run(cmd + files(codec), check=True, capture_output=True, text=True).stdout)
    return {
        "seconds": r["decode_seconds"] + r["sort_seconds"],
        "decode_seconds": r["decode_seconds"],
        "sort_seconds": r["sort_seconds"],
        "bytes": r["bytes"],
        "peak_over_output": r["peak_over_output"],
    }


def check(codec):
    """zinto's output is NumPy's, up to the order of equal m/z (there are none here)."""
    import numpy as np

    segments = codec in ("npy", "msgpack")
    path = DATA / f"zinto-{codec}.{'npy' if segments else 'bin'}"
    run_zinto(codec, str(path))
    # Segments are written as .npy of their type and shape: np.load gives the array itself.
    got = np.load(path) if segments else np.fromfile(path, dtype="<f8").reshape(-1, 3)
    assert got.dtype == np.dtype("<f8") and got.shape[1] == 3, (got.dtype, got.shape)
    os.remove(path)
    merged = np.concatenate([np.fromfile(f, dtype="<f8").reshape(-1, 3) for f in files("raw")])
    want = merged[np.argsort(merged[:, 1], kind="stable")]
    assert np.array_equal(got[:, 1], want[:, 1]), "m/z order differs"
    assert np.array_equal(np.sort(got[:, 0]), np.sort(want[:, 0])), "records lost"
    assert np.array_equal(got, want), "records differ"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--records", type=int, default=10_000_000)
    ap.add_argument("--chunks", type=int, default=100)
    ap.add_argument("--formats", default=",".join(FORMATS))
    args = ap.parse_args()
    generate(args.records, args.chunks)
    rows = []
    for codec in args.formats.split(","):
        check(codec)
        results = {"numpy": [], "zinto": []}
        for _ in range(args.runs):  # interleaved: each run measures both
            results["numpy"].append(run_numpy(codec))
            results["zinto"].append(run_zinto(codec))
        for name, rs in results.items():
            med = lambda k: statistics.median(r[k] for r in rs)
            extra = ""
            if name == "zinto":
                extra = f" (decode {med('decode_seconds'):.3f} + sort {med('sort_seconds'):.3f})"
            rows.append(
                f"| {codec} | {name} | {med('seconds'):.3f}{extra} | "
                f"{rs[0]['bytes'] / med('seconds') / 1e6:.0f} | {med('peak_over_output'):.3f} |"
            )
    print(f"{args.records} records of 24 bytes in {args.chunks} chunks, median of {args.runs} runs, {os.cpu_count()} cores\n")
    print("| chunks | reader | seconds | MB/s | peak memory / output |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
