"""Side-by-side writes of variable-length strings: zinto against zarr-python and the zarrs
pipeline.

Each writer, in a fresh process, makes the same 10 million strings (4 to 23 characters, a fifth
of them not ASCII: bench/strings.py's) as a NumPy StringDType array, then writes them whole
into a new 1-D array in chunks of 1 million: v3 `string` with `vlen-utf8` and zstd level 0
(zarr-python's defaults), v2 `|O` with the `vlen-utf8` filter and zstd level 0, and
(`--formats 3s`) v3 with shards of 1 million strings holding inner chunks of 100,000. `--runs`
times, interleaved; the table gives the median seconds, million strings per second, and the
median peak resident memory beyond the process's own after the strings were made and the
modules imported (VmHWM, reset through /proc/self/clear_refs then, minus VmRSS then), with its
ratio to the strings' UTF-8 bytes.

Writers: `zinto` (`zinto.create` and `arr[...] = strings`: the strings encoded once into
offsets and values, then written by Array::write_vlen), zarr-python 3.1.6 with its default
pipeline, zarr-python with `zinto.ZintoCodecPipeline`, and zarr-python with the zarrs pipeline.
tensorstore is left out: its zarr drivers have no variable-length strings. Each array written
in the first round is read back by zinto's command and must hold the same UTF-8 bytes.

Run from the repository root:
    pip install zarr==3.1.6 numcodecs zarrs ./python
    cargo build --release --bin zinto
    python3 bench/strings_write.py [--runs 3] [--formats 3,2,3s]
"""

import argparse
import json
import shutil
import statistics
import sys

from strings import CHUNK, DATA, N, WORDS, ZINTO, run

WRITER = r"""
import json, sys, time, warnings
warnings.simplefilter("ignore")
import numpy as np
def rss(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) * 1024
kind, fmt, path, n, chunk = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
# Sharded: shards of `chunk` strings holding inner chunks of a tenth of that.
shards = (chunk,) if sys.argv[7] == "sharded" else None
chunks = (chunk // 10,) if shards else (chunk,)
rng = np.random.default_rng(13)
words = json.loads(sys.argv[6])
picks, ids = rng.integers(0, len(words), n).tolist(), rng.integers(0, 1_000_000_000, n).tolist()
data = np.array([f"{words[p]}-{i}" for p, i in zip(picks, ids)], dtype=np.dtypes.StringDType())
del picks, ids
# The peak so far is the strings' making (a list of 10 million Python strings): reset it, so
# VmHWM below is the write's own.
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
if kind == "zinto":
    import zinto
    codecs = "zstd:0"
else:
    import zarr
    if kind == "zarr+zinto":
        import zinto
        zarr.config.set({"codec_pipeline.path": "zinto.ZintoCodecPipeline"})
    elif kind == "zarrs":
        import zarrs
        zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline"})
    if fmt == 3:
        from zarr.codecs import ZstdCodec
        compressors = [ZstdCodec(level=0)]
    else:
        import numcodecs
        compressors = numcodecs.Zstd(level=0)
base = rss("VmRSS:")
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
t = time.perf_counter()
if kind == "zinto":
    z = zinto.create(path, (n,), str, chunks, shards=shards, codecs=codecs, zarr_format=fmt)
else:
    z = zarr.create_array(path, shape=(n,), chunks=chunks, shards=shards, dtype=str,
                          zarr_format=fmt, compressors=compressors)
z[...] = data
secs = time.perf_counter() - t
peak = rss("VmHWM:")
utf8 = sum(len(s.encode()) for s in data.tolist())
print(json.dumps({"seconds": secs, "peak": peak, "base": base, "utf8_bytes": utf8}))
"""

WRITERS = {
    "zinto (zinto.create, arr[...] = strings)": "zinto",
    "zarr-python 3.1.6": "zarr",
    "zarr-python + zinto pipeline": "zarr+zinto",
    "zarrs (Python pipeline)": "zarrs",
}


def read_back_utf8(path, n):
    """The UTF-8 bytes of the strings at `path`, read by zinto's command (its output is the
    offsets, 8 bytes each and one more, then the values)."""
    r = run([str(ZINTO), "read", str(path), "--json"])
    return r.get("bytes", 0) - 8 * (n + 1) if "error" not in r else r["error"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--strings", type=int, default=N, help="how many (a smoke run: 100000)")
    p.add_argument("--formats", default="3,2", help="3, 2 and 3s (v3 in shards), comma-separated")
    a = p.parse_args()
    n = a.strings
    if not ZINTO.exists():
        sys.exit(f"{ZINTO} not built: cargo build --release --bin zinto")
    DATA.mkdir(exist_ok=True)
    for form in a.formats.split(","):
        fmt, layout = int(form[0]), "sharded" if form.endswith("s") else "chunks"
        results = {name: [] for name in WRITERS}
        for round_ in range(a.runs):
            for name, kind in WRITERS.items():
                path = DATA / f"strings_write_v{form}_{kind}.zarr"
                shutil.rmtree(path, ignore_errors=True)
                r = run([sys.executable, "-c", WRITER, kind, str(fmt), str(path), str(n), str(CHUNK),
                         json.dumps(WORDS), layout])
                if round_ == 0 and "error" not in r:
                    back = read_back_utf8(path, n)
                    if back != r["utf8_bytes"]:
                        sys.exit(f"v{fmt} {name}: read back {back}, wrote {r['utf8_bytes']} UTF-8 bytes")
                results[name].append(r)
                shutil.rmtree(path, ignore_errors=True)
        utf8 = next(r["utf8_bytes"] for rs in results.values() for r in rs if "error" not in r)
        where = (f"shards of {CHUNK:,} in inner chunks of {CHUNK // 10:,}" if layout == "sharded"
                 else f"chunks of {CHUNK:,}")
        print(f"\nv{fmt}: {n:,} strings, {utf8:,} UTF-8 bytes, {where}, zstd level 0, "
              f"{a.runs} runs (medians)\n")
        print("| writer | seconds | M strings/s | extra RSS MB | extra / UTF-8 bytes |")
        print("|---|---:|---:|---:|---:|")
        failures = []
        for name, rs in results.items():
            errors = [r["error"] for r in rs if "error" in r]
            if errors:
                print(f"| {name} | fails (below) | | | |")
                failures.append(f"- {name}: {errors[0]}")
                continue
            secs = statistics.median(r["seconds"] for r in rs)
            extra = statistics.median(r["peak"] - r["base"] for r in rs)
            print(f"| {name} | {secs:.3f} | {n / secs / 1e6:.1f} | {extra / 1e6:.0f} | "
                  f"{extra / utf8:.2f} |")
        if failures:
            print("\n" + "\n".join(failures))


if __name__ == "__main__":
    main()
