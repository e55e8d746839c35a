"""Small random reads, a machine-learning loader's pattern: many 100 x 100 windows of a
(6000, 6000) float32 array stored in 100 x 100 zstd chunks, one call each, page cache warm.

Windows of one chunk (aligned to the grid) and windows cutting four chunks (offset by 50 along
both axes), the same seeded windows for every reader. Each reader runs in a fresh process per
run (after one untimed window, so that imports and opening are not timed); the table gives
the median of the runs' reads per second and the ratio to tensorstore's.

Readers: `zinto.open(path)[window]`; zarr-python 3.4.2 with its default pipeline, its
`FusedCodecPipeline`, zinto's pipeline and the zarrs pipeline (zarrs-python); tensorstore
0.1.86 (`arr[window].read().result()`). The batch table reads the same windows 64 per call:
`zinto.Array.read_many(windows, out=...)` into one stacked buffer, against tensorstore's 64
`read()` futures awaited together and zarr-python's own concurrency (64 `getitem`s of its
async array gathered). Every reader's windows are checksummed; readers that disagree stop
the run.

`--s3` reads the same windows over S3 instead, from s3s-fs on 127.0.0.1 serving the array as
bench/remote.py serves its arrays (zarr-python and the pipelines through obstore, tensorstore's
s3 driver, zinto.open on the s3:// URL); the server shares the two cores with the readers.

Run from the repository root with the Python of bench/peers.py's second column (made as its
docstring says; `--s3` also needs `pip install obstore==0.12.1` there and s3s-fs, as remote.py):
    target/bench-venv-3.4/bin/python bench/random_reads.py [--runs 3] [--windows 2000] [--s3]
The array is written once into bench-data/random_6000.zarr (zarr-python 3.4.2, zstd level 1).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench-data" / "random_6000.zarr"
SHAPE, CHUNK, WINDOW = (6000, 6000), (100, 100), 100
BATCH = 64
# No reader uses BLAS, but importing numpy starts OpenBLAS's threads, which spin on a core for
# about 0.1 s: as long as a whole timed pass, taking one of the two cores from every reader.
QUIET = {"PYTHONWARNINGS": "ignore", "OPENBLAS_NUM_THREADS": "1"}

READER = r"""
import json, sys, time
import numpy as np
kind, path, windows = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
batch = int(sys.argv[4])
s3 = path.startswith("s3://")  # then the server is in the environment, as bench/remote.py sets it
if s3:
    import os
    bucket, key = path[len("s3://"):].split("/", 1)
    endpoint, region = os.environ["AWS_ENDPOINT_URL"], os.environ["AWS_REGION"]
if kind == "tensorstore":
    import tensorstore as ts
    kvstore = ({"driver": "s3", "bucket": bucket, "path": key + "/", "endpoint": endpoint,
                "aws_region": region} if s3 else {"driver": "file", "path": path})
    arr = ts.open({"driver": "zarr3", "kvstore": kvstore}).result()
    read = lambda w: arr[w[0]:w[0] + 100, w[1]:w[1] + 100].read().result()
    def read_batch(ws, out):
        futures = [arr[a:a + 100, b:b + 100].read() for a, b in ws]
        for i, f in enumerate(futures):
            out[i] = f.result()
elif kind == "zinto":
    import zinto
    arr = zinto.open(path)
    read = lambda w: arr[w[0]:w[0] + 100, w[1]:w[1] + 100]
    def read_batch(ws, out):
        arr.read_many([(slice(a, a + 100), slice(b, b + 100)) for a, b in ws], out=out)
else:
    import asyncio
    import zarr
    if kind == "zarrs":
        import zarrs
    pipeline = {"zarrs": "zarrs.ZarrsCodecPipeline",
                "fused": "zarr.core.codec_pipeline.FusedCodecPipeline",
                "zinto_pipeline": "zinto.ZintoCodecPipeline"}.get(kind)
    if pipeline:
        zarr.config.set({"codec_pipeline.path": pipeline})
    if s3:
        from obstore.store import S3Store
        path = zarr.storage.ObjectStore(S3Store(
            bucket, prefix=key, endpoint=endpoint, region=region,
            access_key_id=os.environ["AWS_ACCESS_KEY_ID"],
            secret_access_key=os.environ["AWS_SECRET_ACCESS_KEY"],
            client_options={"allow_http": True}), read_only=True)
    arr = zarr.open_array(path, mode="r")
    if pipeline:
        assert type(arr._async_array.codec_pipeline).__name__ == pipeline.rsplit(".", 1)[1]
    read = lambda w: arr[w[0]:w[0] + 100, w[1]:w[1] + 100]
    from zarr.core.sync import sync
    def read_batch(ws, out):
        async def all_of():
            a = arr._async_array
            return await asyncio.gather(
                *(a.getitem((slice(x, x + 100), slice(y, y + 100))) for x, y in ws))
        for i, got in enumerate(sync(all_of())):
            out[i] = got
read(windows[0])  # imports, opening and first-call setup are not timed
total = 0.0
if batch == 1:
    t = time.perf_counter()
    for w in windows:
        got = read(w)
        total += float(got[::37, ::37].astype("float64").sum())
    secs = time.perf_counter() - t
else:
    out = np.empty((batch, 100, 100), np.float32)
    t = time.perf_counter()
    for k in range(0, len(windows) - batch + 1, batch):
        read_batch(windows[k:k + batch], out)
        total += float(out[:, ::37, ::37].astype("float64").sum())
    secs = time.perf_counter() - t
print(json.dumps({"seconds": secs, "sum": total}))
"""

SINGLE = [("tensorstore 0.1.86", "tensorstore"), ("`zinto.open(...)[window]`", "zinto"),
          ("zarrs pipeline", "zarrs"), ("zarr-python + zinto's pipeline", "zinto_pipeline"),
          ("zarr-python `FusedCodecPipeline`", "fused"), ("zarr-python default", "zarr")]
BATCHED = [("tensorstore: 64 `read()` futures", "tensorstore"),
           ("`zinto.Array.read_many` of 64", "zinto"),
           ("zarr-python default: 64 `getitem`s gathered", "zarr")]


def write_array():
    if (DATA / "zarr.json").exists():
        return
    import numpy as np
    import zarr
    from zarr.codecs import ZstdCodec
    rng = np.random.default_rng(50)
    z = zarr.create_array(str(DATA), shape=SHAPE, chunks=CHUNK, dtype="float32",
                          compressors=[ZstdCodec(level=1)])
    for i in range(0, SHAPE[0], 1000):
        rows = rng.standard_normal((1000, SHAPE[1])).astype("float32")
        z[i:i + 1000] = np.round(rows, 2)  # two decimals: zstd stores about 70%


def windows(n, offset, seed):
    import random
    rnd = random.Random(seed)
    last = SHAPE[0] // CHUNK[0] - 1
    return [(rnd.randrange(last) * 100 + offset, rnd.randrange(last) * 100 + offset)
            for _ in range(n)]


def warm():
    """Reads every file of the array, so that each reader starts with the page cache warm (on
    this machine the cache loses files between runs: the first pass of a reader then waited on
    the disk)."""
    for f in DATA.rglob("*"):
        if f.is_file():
            f.read_bytes()


def run(kind, ws, batch, where):
    """One reader's pass, in a fresh process: `where` is the array's path or, over S3, its URL
    and the environment naming the server."""
    warm()
    path, env = where
    argv = [sys.executable, "-c", READER, kind, path, json.dumps(ws), str(batch)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=900,
                          env={**env, **QUIET})
    if done.returncode != 0:
        sys.exit(f"{kind}: {done.stderr.strip().splitlines()[-1]}")
    return json.loads(done.stdout)


def table(title, readers, cases, args, batch, where):
    print(f"\n{title}\n")
    print("| reader | " + " | ".join(name for name, _ in cases) + " |")
    print("|---|" + "---:|" * len(cases))
    rates, sums = {}, {}
    for case, ws in cases:
        for _ in range(args.runs):
            for _, kind in readers:
                r = run(kind, ws, batch, where)
                rates.setdefault((kind, case), []).append(len(ws) // batch * batch / r["seconds"])
                sums.setdefault(case, {}).setdefault(kind, r["sum"])
    for case, by in sums.items():
        first = next(iter(by.values()))
        bad = {k: s for k, s in by.items() if abs(s - first) > 1e-6 * max(1.0, abs(first))}
        if bad:
            sys.exit(f"{case}: readers disagree: {by}")
    base = readers[0][1]
    for name, kind in readers:
        cells = []
        for case, _ in cases:
            rate = statistics.median(rates[(kind, case)])
            ratio = rate / statistics.median(rates[(base, case)])
            cells.append(f"{rate:,.0f} ({ratio:.2f}x)")
        print(f"| {name} | " + " | ".join(cells) + " |")


BREAKDOWN = r"""
import json, random, sys, time
import numpy as np
import zinto
a = zinto.open(sys.argv[1])
rnd = random.Random(1)
ws = [(rnd.randrange(59) * 100, rnd.randrange(59) * 100) for _ in range(2000)]
out = np.empty((100, 100), np.float32)
flat = out.reshape(-1).view(np.uint8)
def per_call(f):
    f(ws[0])
    t = time.perf_counter()
    for w in ws:
        f(w)
    return (time.perf_counter() - t) / len(ws) * 1e6
key = lambda w: (slice(w[0], w[0] + 100), slice(w[1], w[1] + 100))
print(json.dumps({
    "arr[window]": per_call(lambda w: a[key(w)]),
    "read_into, threads unset": per_call(lambda w: a._rs.read_into(list(w), [100, 100], flat)),
    "read_into, threads=1": per_call(lambda w: a._rs.read_into(list(w), [100, 100], flat, 1)),
    "the selection (_normalize)": per_call(lambda w: zinto._normalize(key(w), a.shape)),
}))
"""


def breakdown():
    """Microseconds per call of a one-chunk window, by part (the zinto installed here)."""
    done = subprocess.run([sys.executable, "-c", BREAKDOWN, str(DATA)], capture_output=True,
                          text=True, timeout=600)
    if done.returncode != 0:
        sys.exit(done.stderr)
    print("Microseconds per call of a one-chunk window, by part (the zinto installed here):\n")
    print("| part | us per call |\n|---|---:|")
    for part, us in json.loads(done.stdout).items():
        print(f"| {part} | {us:.1f} |")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--windows", type=int, default=2000)
    p.add_argument("--only", default="", help="comma-separated reader kinds (default: all)")
    p.add_argument("--no-batch", action="store_true")
    p.add_argument("--s3", action="store_true",
                   help="read over S3 from s3s-fs on 127.0.0.1 (see bench/remote.py) instead")
    p.add_argument("--breakdown", action="store_true",
                   help="only time the parts of a one-chunk window read (us per call)")
    args = p.parse_args()
    write_array()
    if args.breakdown:
        return breakdown()
    cases = [("windows of one chunk (reads/s)", windows(args.windows, 0, 1)),
             ("windows cutting four chunks", windows(args.windows, 50, 2))]
    only = set(filter(None, args.only.split(",")))
    pick = lambda rs: [r for r in rs if not only or r[1] in only]
    if args.s3:
        return over_s3(args, cases, pick)
    where = (str(DATA), dict(os.environ))
    table(f"{args.windows} random 100 x 100 windows of a (6000, 6000) float32 array in "
          f"100 x 100 zstd chunks, one call each; median of {args.runs} runs, fresh process "
          "each", pick(SINGLE), cases, args, 1, where)
    if not args.no_batch:
        table(f"The same windows {BATCH} per call (windows/s)", pick(BATCHED), cases, args,
              BATCH, where)


def over_s3(args, cases, pick):
    """The tables again over S3: the array served by s3s-fs on 127.0.0.1, as bench/remote.py
    serves its arrays (TCP_NODELAY, ETag sidecars), sharing the two cores with the readers.
    The pipelines and zarr-python read through obstore."""
    import shutil
    import tempfile
    sys.path.insert(0, str(ROOT / "bench"))
    import remote

    root = Path(tempfile.mkdtemp(prefix="zinto-random-s3-"))
    server = None
    try:
        remote.serve_dir(root, [DATA])
        port = remote.free_port()
        server = remote.start_server(remote.s3s_fs_binary(), root, port,
                                     remote.build_nodelay(root))
        where = (f"s3://{remote.BUCKET}/{DATA.name}", remote.reader_env(port))
        print(f"Over S3: s3s-fs 0.14.1 on 127.0.0.1 (TCP_NODELAY), on the readers' "
              f"{os.cpu_count()} cores")
        table(f"{args.windows} random windows as above, one call each, over S3; median of "
              f"{args.runs} runs", pick(SINGLE), cases, args, 1, where)
        if not args.no_batch:
            table(f"The same windows {BATCH} per call over S3 (windows/s)", pick(BATCHED),
                  cases, args, BATCH, where)
    finally:
        if server is not None:
            remote.stop_server(server)
        shutil.rmtree(root, ignore_errors=True)

if __name__ == "__main__":
    main()
