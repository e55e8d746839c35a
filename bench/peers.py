"""Side-by-side reads: zinto against zarr-python, the zarrs pipeline, tensorstore and the zarrs crate.

Writes the arrays with zarr-python 3.1.6 into bench-data/ (not committed), then reads each one,
in a fresh process per run, with every reader, and prints a Markdown table of seconds, MB/s,
peak resident memory over the output size, and the read's extra memory: peak RSS minus the
process's RSS just before the read minus the output, over the output.

Every reader also gives a checksum (the sum, in float64, of every 97th element of the C-order
output); the script stops if two readers of a case disagree on it (relative 1e-3), so a reader
returning garbage fails the run. zinto's timed runs discard the data (`read --json`), so each
zinto binary first reads each case once more, untimed, into a file whose checksum is taken. A zinto binary that is missing or fails on a case is skipped with a
one-line note; a peer that fails stops the run.

zarr-python 3.4.2 (on Python 3.13: 3.2 and later need 3.12+) reads with both of its pipelines
(the default BatchedCodecPipeline and the opt-in FusedCodecPipeline), with zinto's pipeline,
with the zarrs pipeline, and tensorstore beside them, from a second Python (`--python34`, by
default target/bench-venv-3.4, made as below); zarr-python 3.1.6 and its zarrs pipeline stay as
a second column from this Python.

Run from the repository root:
    pip install zarr==3.1.6 numcodecs tensorstore zarrs   # zarrs is zarrs-python, the "zarrs pipeline"
    "$(pyenv root)/versions/3.13.0/bin/python3" -m venv target/bench-venv-3.4
    target/bench-venv-3.4/bin/pip install zarr==3.4.2 numcodecs==0.17.1 numpy==2.5.5 \
        cast-value-rs==0.5.1 tensorstore==0.1.86 zarrs==0.2.3 ./python
    cargo build --release --bin zinto
    cargo build --release --bin zinto --no-default-features --features cli --target-dir target/pure-rust
    nice -n 19 cargo build --release -j 1 --manifest-path bench/zarrs_reader/Cargo.toml  # the zarrs crate
    python3 bench/peers.py [--runs 5] [--cases whole_raw,whole_zstd,...]   (default: every case in CASES)

A refactor is measured against the build before it in the same run, interleaved with the rest:
    git worktree add /tmp/base BASE && (cd /tmp/base && CARGO_TARGET_DIR=/tmp/base-target cargo build --release --bin zinto)
    python3 bench/peers.py --baseline /tmp/base-target/release/zinto
"""

import argparse
import json
import math
import os
import random
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench-data"
ZINTO = ROOT / "target/release/zinto"
ZINTO_PURE = ROOT / "target/pure-rust/release/zinto"
ZARRS_READER_DIR = ROOT / "bench/zarrs_reader"
ZARRS_READER = ZARRS_READER_DIR / "target/release/zarrs_reader"

# Codecs, by the name CASES gives them, as the table headings describe them; compressors()
# gives the zarr.create_array argument that writes them.
CODECS = {
    "none": "uncompressed",
    "zstd0": "zstd level 0",
    "blosc_lz4": "blosc lz4 level 5, byte shuffle, typesize 4",
    "blosc_zstd": "blosc zstd level 5, byte shuffle, typesize 4",
    "gzip5": "gzip level 5",
    "zlib1": "zlib level 1",
}


def compressors(codec, zarr_format):
    # Imported here: only writing the arrays needs zarr and numcodecs in this process.
    import numcodecs
    from zarr.codecs import BloscCodec, ZstdCodec

    if codec == "none":
        return None
    if codec == "zstd0":
        assert zarr_format == 3
        return [ZstdCodec(level=0)]
    if codec == "gzip5":
        from zarr.codecs import GzipCodec

        assert zarr_format == 3
        return [GzipCodec(level=5)]
    if codec == "zlib1":
        assert zarr_format == 2
        return numcodecs.Zlib(level=1)
    cname = {"blosc_lz4": "lz4", "blosc_zstd": "zstd"}[codec]
    if zarr_format == 2:
        return numcodecs.Blosc(cname=cname, clevel=5, shuffle=numcodecs.Blosc.SHUFFLE)
    return [BloscCodec(cname=cname, clevel=5, shuffle="shuffle", typesize=4)]


def case(shape, chunks, codec, shards=None, sel=None, zarr_format=3, data=None):
    """sel: None for the whole array, else (start, stop) per dimension. data: the case whose
    array this one reads (by default its own)."""
    return {"shape": shape, "chunks": chunks, "shards": shards, "codec": codec, "sel": sel,
            "zarr_format": zarr_format, "data": data}


CASES = {
    "whole_raw": case((100, 1000, 1000), (10, 1000, 1000), "none"),
    "whole_zstd": case((100, 1000, 1000), (10, 1000, 1000), "zstd0"),
    "small_chunks": case((6000, 6000), (100, 100), "zstd0", sel=((37, 5937), (53, 5953))),
    "sharded": case((8192, 8192), (128, 128), "zstd0", shards=(1024, 1024),
                    sel=((1000, 3000), (2500, 4500))),
    "blosc_lz4_v2": case((100, 1000, 1000), (10, 1000, 1000), "blosc_lz4", zarr_format=2),
    "blosc_lz4_v3": case((100, 1000, 1000), (10, 1000, 1000), "blosc_lz4"),
    "blosc_zstd_v3": case((100, 1000, 1000), (10, 1000, 1000), "blosc_zstd"),
    # Issue 16: every chunk partial; the last chunk sticking out; deflate.
    "unaligned_zstd": case((100, 1000, 1000), (10, 1000, 1000), "zstd0",
                           sel=((0, 100), (100, 900), (100, 900)), data="whole_zstd"),
    "edge_zstd": case((105, 1000, 1000), (10, 1000, 1000), "zstd0"),
    "gzip5": case((100, 1000, 1000), (10, 1000, 1000), "gzip5"),
    "unaligned_gzip5": case((100, 1000, 1000), (10, 1000, 1000), "gzip5",
                            sel=((0, 100), (100, 900), (100, 900)), data="gzip5"),
    "zlib1_v2": case((100, 1000, 1000), (10, 1000, 1000), "zlib1", zarr_format=2),
}


def data_path(name):
    return DATA / f"{CASES[name]['data'] or name}.zarr"

PYTHON_READER = r"""
import json, sys, time
def rss(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) * 1024
kind, path, sel = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
import os
import numpy as np
if kind == "tensorstore":
    import tensorstore as ts
    # tensorstore's "zarr" driver reads Zarr v2, "zarr3" Zarr v3.
    driver = "zarr3" if os.path.exists(os.path.join(path, "zarr.json")) else "zarr"
    arr = ts.open({"driver": driver, "kvstore": {"driver": "file", "path": path}}).result()
else:
    import zarr
    if kind == "zarrs":
        import zarrs
    pipeline = {"zarrs": "zarrs.ZarrsCodecPipeline",
                "fused": "zarr.core.codec_pipeline.FusedCodecPipeline",
                "zinto": "zinto.ZintoCodecPipeline"}.get(kind)
    if pipeline:
        zarr.config.set({"codec_pipeline.path": pipeline})
    arr = zarr.open_array(path, mode="r")
    if pipeline:
        assert type(arr._async_array.codec_pipeline).__name__ == pipeline.rsplit(".", 1)[1]
index = tuple(slice(a, b) for a, b in sel) if sel else tuple(slice(None) for _ in arr.shape)
base = rss("VmRSS:")
t = time.perf_counter()
if kind == "tensorstore":
    out = arr[index].read().result()
else:
    out = arr[index]
secs = time.perf_counter() - t
assert isinstance(out, np.ndarray) and out.flags.c_contiguous
# Peak before the checksum (a small copy: 1/97 of the output, as float64).
peak = rss("VmHWM:")
print(json.dumps({"seconds": secs, "bytes": out.nbytes, "peak": peak, "base": base,
                  "sum": float(out.reshape(-1)[::97].astype("float64").sum())}))
"""


def write_arrays(names):
    import numpy as np
    import zarr

    assert zarr.__version__ == "3.1.6", zarr.__version__
    DATA.mkdir(exist_ok=True)
    for name in names:
        c = CASES[name]
        shape, chunks, shards, fmt = c["shape"], c["chunks"], c["shards"], c["zarr_format"]
        path = data_path(name)
        if (path / ("zarr.json" if fmt == 3 else ".zarray")).exists():
            continue
        print(f"writing {path} ...", file=sys.stderr)
        rng = np.random.default_rng(7)
        a = zarr.create_array(str(path), shape=shape, dtype="float32", chunks=chunks, shards=shards,
                              compressors=compressors(c["codec"], fmt), zarr_format=fmt)
        # A smooth field plus noise, written one slab at a time.
        step = chunks[0] if shards is None else shards[0]
        for i in range(0, shape[0], step):
            rows = np.arange(i, min(i + step, shape[0]), dtype="float32")
            slab_shape = (len(rows),) + shape[1:]
            base = np.sin(rows / 7.0).reshape((-1,) + (1,) * (len(shape) - 1))
            noise = rng.standard_normal(slab_shape, dtype="float32") * 0.01
            a[i:i + len(rows)] = (base + np.cos(np.arange(shape[-1], dtype="float32") / 11.0) + noise)


def warm(path):
    for f in path.rglob("*"):
        if f.is_file():
            f.read_bytes()


class Skip(Exception):
    """A reader that cannot read this case (only zinto's readers raise it)."""


def run_zinto(binary, path, sel, threads):
    if not binary.exists():
        shown = binary.relative_to(ROOT) if binary.is_relative_to(ROOT) else binary
        raise Skip(f"{shown} not built")
    args = [str(binary), "read", str(path), "--json"]
    if sel:
        args += ["--select", ",".join(f"{a}:{b}" for a, b in sel)]
    if threads:
        args += ["--threads", str(threads)]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        err = (r.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise Skip(f"exit status {r.returncode}: {err}")
    r = json.loads(r.stdout)
    return {"seconds": r["seconds"], "bytes": r["bytes"], "peak": r["peak_rss_bytes"],
            "base": r["baseline_rss_bytes"]}


def zinto_checksum(binary, path, sel):
    """One untimed `zinto read --out FILE` of the case, and the checksum of FILE (float32)."""
    import numpy as np

    if not binary.exists():
        return None
    out = DATA / "zinto-check.bin"
    args = [str(binary), "read", str(path), "--out", str(out)]
    if sel:
        args += ["--select", ",".join(f"{a}:{b}" for a, b in sel)]
    if subprocess.run(args, capture_output=True).returncode != 0:
        return None
    try:
        data = np.fromfile(out, dtype=np.float32)
        return {"bytes": data.nbytes, "sum": float(data[::97].astype("float64").sum())}
    finally:
        out.unlink()


def run_peer(args):
    """Run a peer's reader; its failure stops the script, with the reader's own message."""
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        shown = " ".join("<PYTHON_READER>" if a == PYTHON_READER else a for a in args)
        sys.exit(f"peer reader failed (exit status {r.returncode}): {shown}\n"
                 + "\n".join(r.stderr.strip().splitlines()[-20:]))
    return json.loads(r.stdout.strip().splitlines()[-1])


def run_zarrs_crate(path, sel):
    args = [str(ZARRS_READER), str(path)]
    if sel:
        args += ["--select", ",".join(f"{a}:{b}" for a, b in sel)]
    return run_peer(args)


def zarrs_crate_version():
    """The zarrs version bench/zarrs_reader/Cargo.lock pins, or None."""
    try:
        lock = (ZARRS_READER_DIR / "Cargo.lock").read_text()
    except OSError:
        return None
    m = re.search(r'name = "zarrs"\nversion = "([^"]+)"', lock)
    return m.group(1) if m else None


def peer_versions():
    from importlib.metadata import version

    import numcodecs.blosc

    return (f"zarr-python {version('zarr')}, numcodecs {version('numcodecs')} "
            f"(c-blosc {numcodecs.blosc.VERSION_STRING}), zarrs-python {version('zarrs')}, "
            f"tensorstore {version('tensorstore')}, zarrs crate {zarrs_crate_version()}"
            + ("" if ZARRS_READER.exists() else " (not built)"))


def check_sums(name, by_reader):
    """All readers agree on the output size, and those that print a checksum on it, in every run."""
    sizes = {label: r["bytes"] for label, results in by_reader.items() for r in results}
    if len(set(sizes.values())) > 1:
        sys.exit(f"{name}: readers disagree on the output size: {sizes}")
    sums = [(label, r["sum"]) for label, results in by_reader.items() for r in results if "sum" in r]
    if not sums:
        return
    ref_label, ref = sums[0]
    for label, s in sums[1:]:
        if not math.isclose(s, ref, rel_tol=1e-3):
            sys.exit(f"{name}: {label} reports sum {s!r}, {ref_label} {ref!r}: a reader read wrong data")


def run_python(kind, path, sel, python=sys.executable):
    return run_peer([str(python), "-c", PYTHON_READER, kind, str(path), json.dumps(sel)])


def versions_of(python):
    """The peers' versions `python` has, as one line (those it lacks left out)."""
    names = ["zarr", "numcodecs", "zarrs", "tensorstore", "numpy"]
    code = ("import sys; from importlib.metadata import version, PackageNotFoundError\n"
            "def v(n):\n    try: return version(n)\n    except PackageNotFoundError: return '-'\n"
            "print(sys.version.split()[0], *(v(n) for n in sys.argv[1:]))")
    out = subprocess.run([str(python), "-c", code, *names], capture_output=True, text=True,
                         check=True).stdout.split()
    return f"Python {out[0]}, " + ", ".join(f"{n} {v}" for n, v in zip(names, out[1:]) if v != "-")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--baseline", type=Path, default=None,
                   help="another zinto binary (an earlier build) read alongside, 2 threads")
    p.add_argument("--python34", type=Path, default=ROOT / "target/bench-venv-3.4/bin/python",
                   help="a Python with zarr-python 3.4.2, tensorstore, zarrs-python and zinto")
    args = p.parse_args()
    names = args.cases.split(",")
    unknown = [n for n in names if n not in CASES]
    if unknown:
        p.error(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(CASES)}")
    write_arrays(names)
    readers = [
        ("zinto (C zstd, 2 threads)", lambda path, sel: run_zinto(ZINTO, path, sel, None)),
        ("zinto (pure Rust, 2 threads)", lambda path, sel: run_zinto(ZINTO_PURE, path, sel, None)),
        ("zinto (C zstd, 1 thread)", lambda path, sel: run_zinto(ZINTO, path, sel, 1)),
        ("zarr-python 3.1.6", lambda path, sel: run_python("zarr", path, sel)),
        ("zarrs pipeline (zarr-python 3.1.6)", lambda path, sel: run_python("zarrs", path, sel)),
    ]
    py34 = args.python34
    if py34.exists():
        readers += [
            (f"zarr-python 3.4.2 {name}", lambda path, sel, kind=kind: run_python(kind, path, sel, py34))
            for name, kind in [("default", "zarr"), ("Fused", "fused"), ("+ zinto pipeline", "zinto"),
                               ("+ zarrs pipeline", "zarrs")]
        ]
        readers.append(("tensorstore", lambda path, sel: run_python("tensorstore", path, sel, py34)))
    else:
        print(f"note: no {py34} (see the top of bench/peers.py): zarr-python 3.4.2 is not measured\n")
        readers.append(("tensorstore", lambda path, sel: run_python("tensorstore", path, sel)))
    if args.baseline:
        baseline = args.baseline.resolve()
        readers.insert(1, ("zinto baseline (C zstd, 2 threads)",
                           lambda path, sel: run_zinto(baseline, path, sel, None)))
    if ZARRS_READER.exists():
        readers.append((f"zarrs crate {zarrs_crate_version()}", run_zarrs_crate))
    else:
        print(f"note: skipping the zarrs crate reader, {ZARRS_READER.relative_to(ROOT)} is not built "
              "(see the build command at the top of bench/peers.py)\n")
    print(f"{os.cpu_count()} cores; median of {args.runs} runs (readers interleaved), each in a "
          "fresh process, files in the page cache (read once before the runs).\n")
    print(f"Peers: {peer_versions()}.\n")
    if py34.exists():
        print(f"Second Python: {versions_of(py34)}.\n")
    for name in names:
        c = CASES[name]
        shape, chunks, shards, sel = c["shape"], c["chunks"], c["shards"], c["sel"]
        path = data_path(name)
        warm(path)
        what = "whole array" if sel is None else "selection " + ", ".join(f"{a}:{b}" for a, b in sel)
        print(f"### {name}: float32 {shape}, chunks {chunks}"
              + (f", shards {shards}" if shards else "")
              + f", Zarr v{c['zarr_format']}, {CODECS[c['codec']]}; {what}\n")
        # Runs interleave the readers, so that a slow spell of the machine hits all of them,
        # each run in its own order (shuffled, seeded by the run): the process after a Python
        # peer (which frees a lot of memory) pays for it (page reclaim, huge-page compaction).
        # A fixed order put that cost on one reader in every run, and so did rotating it (the
        # same reader always followed the same peer): stop 56 measured zinto 35% slower than
        # the same binary one slot later.
        by_reader = {label: [] for label, _ in readers}
        skipped = {}
        for run in range(args.runs):
            order = list(readers)
            random.Random(run).shuffle(order)
            for label, fn in order:
                if label in skipped:
                    continue
                try:
                    by_reader[label].append(fn(path, sel))
                except Skip as e:
                    skipped[label] = str(e)
        for label, binary in (("zinto (C zstd)", ZINTO), ("zinto (pure Rust)", ZINTO_PURE)):
            checked = zinto_checksum(binary, path, sel)
            if checked is not None:
                by_reader[f"{label}, untimed check"] = [checked]
        check_sums(name, by_reader)
        for label, why in skipped.items():
            print(f"note: {label} skipped: {why}")
        if skipped:
            print()
        print("| reader | seconds | MB/s | peak RSS / output | extra / output |")
        print("|---|---:|---:|---:|---:|")
        for label, _ in readers:
            if label in skipped:
                continue
            results = by_reader[label]
            secs = statistics.median(r["seconds"] for r in results)
            n = results[0]["bytes"]
            peak = max(r["peak"] for r in results)
            extra = max((r["peak"] - r["base"] - r["bytes"]) / r["bytes"] for r in results)
            print(f"| {label} | {secs:.3f} | {n / secs / 1e6:.0f} | {peak / n:.3f} | {extra * 100:.1f}% |")
        print()


if __name__ == "__main__":
    main()
