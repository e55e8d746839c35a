"""The zarrs benchmark's cube (issue 63): the cases of github.com/zarrs/zarr_benchmarks, a whole
uint16 cube read, and read then written back, by every reader, each in a fresh process per run.

The cases (written once by zarr-python 3.4.2 into bench-data/cube_{N}_{case}.zarr; N is
`--size`, 1024 as zarr_benchmarks; chunks min(256, N) per side):
- `raw`: uncompressed (`compressors=None`).
- `zstd`: zstd level 0 (zarr-python's `ZstdCodec(level=0)`, its default).
- `sharded`: zstd level 0 in shards of min(256, N) per side holding inner chunks of 64 per side
  (`chunks=(64, 64, 64), shards=(256, 256, 256)`).
The data is (i + 2j + 3k) mod 30011 plus 6 bits of seeded noise: compressible, never constant.

The operations: `read`, the whole array into memory; `roundtrip`, the whole array read, then
written to a new array of the same encoding (same chunks, shards and codecs) in a temporary
directory under bench-data/, removed after each run: the time covers both. Once per reader and
case (outside the timing) the written array is read back by zarr-python's default pipeline,
its checksum compared and its metadata's grid and codecs compared with the source's.

Readers: `zinto.open(path)[:]` (roundtrip: `zinto.save(dst, a, chunks=, shards=, codecs=)`);
zarr-python 3.4.2 with zinto's pipeline, the zarrs pipeline (zarrs-python 0.2.3), its
`FusedCodecPipeline` and its default pipeline (`zarr.open_array(path)[:]`; roundtrip:
`zarr.create_array(dst, shape=, dtype=, chunks=, shards=, filters=, serializer=,
compressors=, fill_value=)` from the source's, then `out[:] = a`; the pipeline in force is
asserted on both); tensorstore 0.1.86 (`ts.open(zarr3, file).read()`; roundtrip: `ts.open`
with the source's metadata and `create=True`, then `.write(a)`); and the zarrs crate
(bench/zarrs_reader, `retrieve_array_subset`; read only, its roundtrip cell "n/a").

For each: the median seconds of `--runs` fresh processes (page cache warm: each case is read
once before), and the extra memory: peak RSS (VmHWM, reset through /proc/self/clear_refs just
before the call; the zarrs crate's, its process's peak) minus the RSS then minus the output,
over the output for `read` (a percent), in GB for `roundtrip`. Every run's checksum (the sum,
in float64, of every 97th element of the C-order output) is compared with the warm-up read's;
a reader that disagrees stops the run.

Run from the repository root with the Python of bench/peers.py's second column (made as its
docstring says), after building the zarrs crate's reader:
    nice -n 19 cargo build --release -j 1 --manifest-path bench/zarrs_reader/Cargo.toml
    target/bench-venv-3.4/bin/python bench/cube.py [--size 1024] [--runs 3]
        [--cases raw,zstd,sharded] [--ops read,roundtrip] [--readers zinto,zarr,...]
`--readers` names them zinto, zinto_pipeline, zarrs, fused, zarr, tensorstore, zarrs_crate.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench-data"
ZARRS_READER = ROOT / "bench/zarrs_reader/target/release/zarrs_reader"
QUIET = {"PYTHONWARNINGS": "ignore", "OPENBLAS_NUM_THREADS": "1"}

CASES = {
    "raw": dict(codecs="raw", sharded=False, text="uncompressed"),
    "zstd": dict(codecs="zstd:0", sharded=False, text="zstd level 0"),
    "sharded": dict(codecs="zstd:0", sharded=True, text="zstd level 0, sharded"),
}
OPS = ["read", "roundtrip"]

READERS = [("`zinto.open(path)[:]`", "zinto"), ("zarr-python + zinto's pipeline", "zinto_pipeline"),
           ("zarrs pipeline", "zarrs"), ("zarr-python `FusedCodecPipeline`", "fused"),
           ("zarr-python default", "zarr"), ("tensorstore 0.1.86", "tensorstore"),
           ("zarrs crate", "zarrs_crate")]

READER = r"""
import json, sys, time
import numpy as np
kind, op, path, dst, codecs = sys.argv[1:6]

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
    meta = arr.spec().to_json()["metadata"]
    def load():
        return arr.read().result()
    def save(got):
        out = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": dst},
                       "metadata": meta}, create=True).result()
        out.write(got).result()
elif kind == "zinto":
    import zinto
    arr = zinto.open(path)
    def load():
        return arr[:]
    def save(got):
        zinto.save(dst, got, chunks=arr.chunks, shards=arr.shards, codecs=codecs)
else:
    import zarr
    if kind == "zarrs":
        import zarrs
    pipeline = {"zarrs": "zarrs.ZarrsCodecPipeline",
                "fused": "zarr.core.codec_pipeline.FusedCodecPipeline",
                "zinto_pipeline": "zinto.ZintoCodecPipeline"}.get(kind)
    if pipeline:
        zarr.config.set({"codec_pipeline.path": pipeline})
    def check(a):
        if pipeline:
            assert type(a._async_array.codec_pipeline).__name__ == pipeline.rsplit(".", 1)[1]
        return a
    arr = check(zarr.open_array(path, mode="r"))
    def load():
        return arr[:]
    def save(got):
        out = check(zarr.create_array(dst, shape=arr.shape, dtype=arr.dtype, chunks=arr.chunks,
                                      shards=arr.shards, filters=arr.filters,
                                      serializer=arr.serializer, compressors=arr.compressors,
                                      fill_value=arr.fill_value))
        out[:] = got

reset_peak()
before = rss("VmRSS:")
t = time.perf_counter()
got = load()
if op == "roundtrip":
    save(got)
secs = time.perf_counter() - t
peak = rss("VmHWM:")
flat = got.reshape(-1)
print(json.dumps({"seconds": secs, "sum": float(flat[::97].astype("float64").sum()),
                  "extra_bytes": peak - before - got.nbytes,
                  "extra": (peak - before - got.nbytes) / got.nbytes}))
"""


def slab(i0, j0, side, n):
    """Rows i0.., j0.. (side each, clipped) of the cube: (i + 2j + 3k) mod 30011 plus 6 bits of
    noise."""
    import numpy as np
    rng = np.random.default_rng([i0, j0])
    rows, cols = min(side, n - i0), min(side, n - j0)
    jk = 2 * np.arange(j0, j0 + cols)[:, None] + 3 * np.arange(n)[None, :]
    out = np.empty((rows, cols, n), np.uint16)
    for di in range(rows):
        out[di] = (jk + i0 + di) % 30011 + rng.integers(0, 64, (cols, n), dtype=np.uint16)
    return out


def write(name, n):
    """The case's cube, written once by zarr-python in slabs of whole shards (or chunks)."""
    path = DATA / f"cube_{n}_{name}.zarr"
    if (path / "zarr.json").exists():
        return path
    import zarr
    from zarr.codecs import ZstdCodec
    side = min(256, n)
    grid = (dict(chunks=(min(64, n),) * 3, shards=(side,) * 3) if CASES[name]["sharded"]
            else dict(chunks=(side,) * 3))
    compressors = None if CASES[name]["codecs"] == "raw" else ZstdCodec(level=0)
    partial = path.with_suffix(".partial")
    shutil.rmtree(partial, ignore_errors=True)
    a = zarr.create_array(str(partial), shape=(n,) * 3, dtype="uint16",
                          compressors=compressors, **grid)
    for i0 in range(0, n, side):
        for j0 in range(0, n, side):
            a[i0:i0 + side, j0:j0 + side, :] = slab(i0, j0, side, n)
    partial.rename(path)
    return path


def layout(path):
    """The array's shape, type, grid and codecs (names, zstd levels, inner chunks) as text."""
    meta = json.loads((Path(path) / "zarr.json").read_text())

    def chain(codecs):
        out = []
        for c in codecs:
            conf = c.get("configuration", {})
            inner = (f"{conf['chunk_shape']}({chain(conf['codecs'])})"
                     if c["name"] == "sharding_indexed" else "")
            level = f":{conf['level']}" if "level" in conf else ""
            out.append(c["name"] + level + inner)
        return ",".join(out)

    return (f"{meta['shape']} {meta['data_type']} "
            f"{meta['chunk_grid']['configuration']['chunk_shape']} {chain(meta['codecs'])}")


def run(kind, op, path, dst="-", codecs="-"):
    if kind == "zarrs_crate":
        cmd = [str(ZARRS_READER), str(path)]
    else:
        cmd = [sys.executable, "-c", READER, kind, op, str(path), str(dst), codecs]
    out = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, **QUIET),
                         check=False)
    if out.returncode != 0:
        raise SystemExit(f"{kind} {op} {path.name}: failed\n{out.stderr[-3000:]}")
    got = json.loads(out.stdout.strip().splitlines()[-1])
    if kind == "zarrs_crate":
        extra = got["peak"] - got["base"] - got["bytes"]
        got = {"seconds": got["seconds"], "sum": got["sum"], "extra_bytes": extra,
               "extra": extra / got["bytes"]}
    return got


def agree(what, got, ref):
    """Stops the run unless `got`'s checksums are the reference's."""
    for key in ("sum",):
        if key in got and abs(got[key] - ref[key]) > 1e-6 * abs(ref[key]):
            raise SystemExit(f"{what}: checksum {key} {got[key]} != {ref[key]}")


def once(kind, op, path, name, ref, verify):
    """One fresh process; a roundtrip writes into a temporary directory, read back if `verify`."""
    if op == "read":
        got = run(kind, op, path)
        agree(f"{name} {kind} read", got, ref)
        return got
    tmp = Path(tempfile.mkdtemp(prefix="cube_tmp_", dir=DATA))
    try:
        dst = tmp / "out.zarr"
        got = run(kind, op, path, dst, CASES[name]["codecs"])
        agree(f"{name} {kind} roundtrip", got, ref)
        if verify:
            agree(f"{name} {kind}'s write read back", run("zarr", "read", dst), ref)
            if layout(dst) != layout(path):
                raise SystemExit(f"{name} {kind} wrote {layout(dst)}, not {layout(path)}")
        return got
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def measure(kind, op, path, name, runs, ref):
    """(median seconds, median extra over the output, median extra bytes), or None for n/a."""
    if kind == "zarrs_crate" and op == "roundtrip":
        return None
    got = [once(kind, op, path, name, ref, verify=i == 0) for i in range(runs)]
    return tuple(statistics.median(g[k] for g in got) for k in ("seconds", "extra", "extra_bytes"))


def cell(op, r):
    if r is None:
        return "n/a"
    return f"{r[0]:.3f}, {100 * r[1]:.0f}%" if op == "read" else f"{r[0]:.3f}, {r[2] / 1e9:.2f} GB"


def table(name, n, runs, ops, readers):
    path = write(name, n)
    ref = run("zinto", "read", path)  # the page cache warm for everyone, and the checksums
    side = min(256, n)
    grid = (f"shards {(side,) * 3} of chunks {(min(64, n),) * 3}" if CASES[name]["sharded"]
            else f"chunks {(side,) * 3}")
    lines = [f"### `{name}`: {CASES[name]['text']}", "",
             f"{(n,) * 3} uint16 ({2 * n**3 / 2**20:.0f} MiB), {grid}.", "",
             "| reader | " + " | ".join(
                 "read (s, extra)" if op == "read" else "roundtrip (s, peak extra)"
                 for op in ops) + " |",
             "|---|" + "---:|" * len(ops)]
    for label, kind in readers:
        cells = [cell(op, measure(kind, op, path, name, runs, ref)) for op in ops]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def zarrs_crate_version():
    lock = (ROOT / "bench/zarrs_reader/Cargo.lock").read_text()
    m = re.search(r'name = "zarrs"\nversion = "([^"]+)"', lock)
    return m.group(1) if m else "?"


def pick_readers(names):
    readers = [(label, kind) for label, kind in READERS if kind in names.split(",")]
    if any(kind == "zarrs_crate" for _, kind in readers) and not ZARRS_READER.exists():
        print(f"note: skipping the zarrs crate, {ZARRS_READER.relative_to(ROOT)} is not built "
              "(see the build command in this script's docstring)\n")
        readers = [r for r in readers if r[1] != "zarrs_crate"]
    return [(f"zarrs crate {zarrs_crate_version()}" if k == "zarrs_crate" else label, k)
            for label, k in readers]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", type=int, default=1024, help="the cube's side, a multiple of 64")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--ops", default=",".join(OPS))
    p.add_argument("--readers", default=",".join(kind for _, kind in READERS))
    args = p.parse_args()
    if args.size < 64 or args.size % 64:
        p.error("--size must be a multiple of 64")
    DATA.mkdir(exist_ok=True)
    readers = pick_readers(args.readers)
    ops = args.ops.split(",")
    import zarr
    import zinto
    # (bench/report.py states the command and the machine above this.)
    print(f"zarr-python {zarr.__version__}, zinto {zinto.__version__}; {os.cpu_count()} cores; "
          f"median of {args.runs} fresh processes per cell; read: seconds, extra = (peak RSS - "
          "RSS before - output) / output; roundtrip (read, then write a new array of the same "
          "encoding): seconds, peak RSS - RSS before - output.\n")
    for name in args.cases.split(","):
        print(table(name, args.size, args.runs, ops, readers) + "\n", flush=True)


if __name__ == "__main__":
    main()
