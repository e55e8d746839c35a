"""Side-by-side writes: zinto against zarr-python, the zarrs pipeline and tensorstore.

Each writer, in a fresh process per run, loads the same input (`bench-data/seed*.npy`, float32,
a smooth field plus noise) and writes it as a new Zarr v3 array (CASES: the seed array
(100, 1000, 1000) in ten (10, 1000, 1000) chunks, raw and zstd level 3; (6000, 6000) in 3,600
chunks of (100, 100); (8192, 8192) in (128, 128) chunks inside (1024, 1024) shards). Printed, as a Markdown table: the
write's seconds and MB/s, and its extra memory: peak RSS minus the RSS just before the write
(the input already loaded), over the input's size. Every array written is read back by
zarr-python and compared with the input before its numbers count.

zinto is `zinto create --from seed.npy` (the release binary: the file is read into one buffer
of at most `--memory`, 1 GiB by default, so the seed array whole, then written from it; its
summary's seconds and memory are the write's, the buffer not counted). The Rust API's numbers are the same path. `zinto.save` is the
Python package's one-liner on the loaded array; `zarr+zinto` is zarr-python's own
`create_array` and `z[...] = a` with `ZintoCodecPipeline` in force (writes go through zinto).

zarr-python 3.4.2 (Python 3.13) writes with its default pipeline, its opt-in
FusedCodecPipeline, zinto's pipeline and the zarrs pipeline, and tensorstore beside them, from
a second Python (`--python34`, by default target/bench-venv-3.4: see bench/peers.py for how to
make it); zarr-python 3.1.6, zarr+zinto and the zarrs pipeline on it stay as a second column.

Run from the repository root:
    pip install zarr==3.1.6 numcodecs tensorstore zarrs ./python
    cargo build --release --bin zinto
    python3 bench/write.py [--runs 3] [--cases "seed raw,sharded zstd3"] [--out-dir /dev/shm] [--warm]
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
DATA = ROOT / "bench-data"
ZINTO = ROOT / "target/release/zinto"
# name: (shape, chunks, shards, codec); the seed case in both codecs, then the two
# others: 3,600 small chunks, and shards of 64 inner chunks a side.
CASES = {
    "seed raw": ((100, 1000, 1000), (10, 1000, 1000), None, "raw"),
    "seed zstd3": ((100, 1000, 1000), (10, 1000, 1000), None, "zstd3"),
    # Blosc as xarray's v2 default has it (LZ4 level 5, byte shuffle), here in v3.
    "seed blosc_lz4": ((100, 1000, 1000), (10, 1000, 1000), None, "blosc_lz4"),
    # Blosc with its own BloscLZ inside (c-blosc's default; zinto-core's encoder).
    "seed blosc_blosclz": ((100, 1000, 1000), (10, 1000, 1000), None, "blosc_blosclz"),
    # Zarr v2 with numcodecs' LZ4 (one LZ4 block a chunk; zinto-core's streaming encoder).
    # tensorstore does not write it; the zarrs pipeline hands it to zarr-python.
    "seed v2_lz4": ((100, 1000, 1000), (10, 1000, 1000), None, "v2_lz4"),
    "small_chunks zstd3": ((6000, 6000), (100, 100), None, "zstd3"),
    "sharded zstd3": ((8192, 8192), (128, 128), (1024, 1024), "zstd3"),
}

# One writer's program: loads the input, reports the RSS, writes, reports the time and peak.
PEER = r"""
import json, sys, time, numpy as np
def rss(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) * 1024
writer, case, src, dst, warm = sys.argv[1:6]
shape, chunks, shards, codec = json.loads(case)
a = np.load(src)
import zarr
# Each writer's libraries are loaded before the baseline is taken (their code pages are not
# the write's memory).
if writer == "tensorstore":
    import tensorstore as ts
if writer in ("zinto.save", "zarr+zinto"):
    import zinto, zinto.pipeline
if writer == "zarrs":
    import zarrs
codecs = [{"name": "bytes", "configuration": {"endian": "little"}}]
if codec == "zstd3":
    codecs.append({"name": "zstd", "configuration": {"level": 3, "checksum": False}})
cname = codec[len("blosc_"):] if codec.startswith("blosc_") else None
if cname:
    codecs.append({"name": "blosc", "configuration": {"cname": cname, "clevel": 5, "shuffle": "shuffle",
                                                      "typesize": 4, "blocksize": 0}})
SPEC = f"blosc:{cname}:5:shuffle" if cname else {"raw": "raw", "zstd3": "zstd:3", "v2_lz4": "lz4"}[codec]
V2 = codec.startswith("v2_")
def write(a, dst, chunks, shards):
    if writer == "tensorstore":
        grid, chain = chunks, codecs
        if shards:
            chain = [{"name": "sharding_indexed", "configuration": {"chunk_shape": chunks, "codecs": codecs,
                       "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
                       "index_location": "end"}}]
            grid = shards
        spec = {"driver": "zarr3", "kvstore": {"driver": "file", "path": dst},
                "metadata": {"shape": list(a.shape), "data_type": "float32",
                             "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": grid}},
                             "codecs": chain, "fill_value": 0.0}}
        t_arr = ts.open(spec, create=True, delete_existing=True).result()
        t_arr.write(a).result()
    elif writer == "zinto.save":
        zinto.save(dst, a, chunks=chunks, shards=shards, codecs=SPEC, fill_value=0.0,
                   zarr_format=2 if V2 else 3)
    else:
        if writer == "zarrs":
            zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline"})
        if writer == "zarr+zinto":
            zarr.config.set({"codec_pipeline.path": "zinto.ZintoCodecPipeline"})
        if writer == "fused":
            zarr.config.set({"codec_pipeline.path": "zarr.core.codec_pipeline.FusedCodecPipeline"})
        if V2:
            import numcodecs
            compressors = {"v2_lz4": numcodecs.LZ4()}[codec]
        else:
            compressors = ([zarr.codecs.BloscCodec(cname=cname, clevel=5, shuffle="shuffle")] if cname
                           else {"raw": None, "zstd3": [zarr.codecs.ZstdCodec(level=3)]}[codec])
        z = zarr.create_array(dst, shape=a.shape, dtype="float32", chunks=tuple(chunks),
                              shards=tuple(shards) if shards else None, compressors=compressors, fill_value=0.0,
                              zarr_format=2 if V2 else 3)
        z[...] = a


if warm == "1":
    # One small write first, with the same writer and codecs: what a process pays once (lazy
    # imports, an event loop's thread, each thread's first allocations) is then not counted
    # as the large write's memory.
    small = np.ascontiguousarray(a[(slice(0, 2),) * a.ndim])
    write(small, dst + ".warm", [2] * a.ndim, [2] * a.ndim if shards else None)
    import shutil
    shutil.rmtree(dst + ".warm")
before = rss("VmRSS:")
t = time.perf_counter()
write(a, dst, chunks, shards)
seconds = time.perf_counter() - t
print(json.dumps({"seconds": seconds, "peak": rss("VmHWM:"), "before": before, "bytes": a.nbytes}))
"""


def seed(shape):
    import numpy as np

    path = DATA / ("seed.npy" if len(shape) == 3 else f"seed_{shape[0]}x{shape[1]}.npy")
    if path.exists():
        return path
    DATA.mkdir(exist_ok=True)
    rng = np.random.default_rng(7)
    rows = np.arange(shape[0], dtype="float32").reshape((-1,) + (1,) * (len(shape) - 1))
    a = (np.sin(rows / 7.0) + np.cos(np.arange(shape[-1], dtype="float32") / 11.0)).astype("float32")
    a = np.broadcast_to(a, shape).copy()
    a += rng.standard_normal(shape, dtype="float32") * 0.01
    np.save(path, a)
    return path


def run(writer, python, case, src, dst, warm=False):
    """One write by `writer` (a PEER writer name, or "zinto" for the command) in `python`."""
    shape, chunks, shards, codec = case
    if writer == "zinto":
        args = [str(ZINTO), "create", dst, "--from", str(src), "--chunks", ",".join(map(str, chunks)), "--json"]
        if shards:
            args += ["--shards", ",".join(map(str, shards))]
        if codec.startswith("blosc_"):
            args += ["--codec", f"blosc:{codec[len('blosc_'):]}:5:shuffle"]
        elif codec == "v2_lz4":
            args += ["--codec", "lz4", "--zarr-format", "2"]
        elif codec != "raw":
            args += ["--codec", {"zstd3": "zstd:3"}[codec]]
        out = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
        return out["seconds"], out["extra_over_input"]
    out = json.loads(subprocess.run([str(python), "-c", PEER, writer, json.dumps(case), str(src), dst,
                                     "1" if warm else "0"],
                                    check=True, capture_output=True, text=True).stdout)
    return out["seconds"], (out["peak"] - out["before"]) / out["bytes"]


def check(dst, src):
    import numpy as np
    import zarr

    if not np.array_equal(zarr.open_array(dst, mode="r")[...], np.load(src)):
        sys.exit(f"{dst}: not the input")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--cases", default=",".join(CASES))
    # Where the arrays are written: bench-data/ (the disk) by default; /dev/shm takes the
    # file system's cost of creating thousands of files out of the comparison.
    p.add_argument("--out-dir", default=str(DATA))
    # Each Python writer first writes a tiny array (2 elements a side) with the same codecs in
    # the same process, so that what a process pays once is not counted as the write's memory.
    # `zinto` (the command, one write a process) is left out of such a run.
    p.add_argument("--warm", action="store_true")
    p.add_argument("--python34", type=Path, default=ROOT / "target/bench-venv-3.4/bin/python",
                   help="a Python with zarr-python 3.4.2, tensorstore, zarrs-python and zinto")
    args = p.parse_args()
    here = sys.executable
    # label: (writer, the Python it runs in)
    writers = {"zinto": ("zinto", None), "zinto.save": ("zinto.save", here),
               "zarr+zinto (3.1.6)": ("zarr+zinto", here), "zarr-python 3.1.6": ("zarr-python", here),
               "zarrs pipeline (3.1.6)": ("zarrs", here)}
    if args.python34.exists():
        py34 = args.python34
        writers.update({"zarr-python 3.4.2 default": ("zarr-python", py34),
                        "zarr-python 3.4.2 Fused": ("fused", py34),
                        "zarr-python 3.4.2 + zinto": ("zarr+zinto", py34),
                        "zarr-python 3.4.2 + zarrs": ("zarrs", py34),
                        "tensorstore": ("tensorstore", py34)})
    else:
        print(f"note: no {args.python34}: zarr-python 3.4.2 is not measured\n")
        writers["tensorstore"] = ("tensorstore", here)
    if args.warm:
        del writers["zinto"]
    rows = []
    for name in args.cases.split(","):
        case = CASES[name]
        src = seed(case[0])
        mb = np.load(src, mmap_mode="r").nbytes / 1e6
        results = {w: [] for w in writers}
        stored = {}
        for _ in range(args.runs):
            for w, (writer, python) in writers.items():  # interleaved
                if w == "tensorstore" and case[3].startswith("v2_"):
                    continue  # its zarr v2 driver has no LZ4
                tmp = tempfile.mkdtemp(dir=args.out_dir)
                dst = str(Path(tmp) / "out.zarr")
                results[w].append(run(writer, python, case, src, dst, args.warm))
                check(dst, src)
                stored[w] = sum(f.stat().st_size for f in Path(dst).rglob("*") if f.is_file())
                shutil.rmtree(tmp)
        for w in [w for w in writers if results[w]]:
            secs = [s for s, _ in results[w]]
            extras = [e for _, e in results[w]]
            best = min(secs)
            rows.append((name, w, best, statistics.median(secs), mb / best, max(extras),
                         stored[w] / 1e6))
    print("| case | writer | best s | median s | MB/s (best) | extra memory (worst) | stored MB |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, w, best, med, mbs, extra, size in rows:
        print(f"| {name} | {w} | {best:.3f} | {med:.3f} | {mbs:.0f} | {extra * 100:.1f}% | {size:.1f} |")


if __name__ == "__main__":
    main()
