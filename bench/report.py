"""Reruns the benchmarks and writes docs/benchmarks.md: one generated section per benchmark,
each with its command, date, commit, the machine and every peer's version (issue 52).

The page is the current state; what it said before is in git. Each section sits between
`<!-- bench: NAME -->` markers, so `--only` reruns some and keeps the others as they were
(each still stating its own date and commit).

Before the benchmarks it builds what they run, from the working tree: the release `zinto`
(C zstd, and pure Rust for bench/peers.py), the zarrs crate's reader, and the Python package's
wheel, installed into both Pythons (`--no-build` skips this). The Pythons are bench/peers.py's:
target/python-venv (zarr-python 3.1.6 on Python 3.11, with tensorstore, zarrs-python, obstore,
s3fs and Dask: `scripts/python-env` makes it; add `pip install msgpack-numpy==0.4.8` for
`merge`) and target/bench-venv-3.4 (zarr-python 3.4.2 on
Python 3.13: made as bench/peers.py's docstring says, plus obstore 0.12.1). A benchmark whose
Python lacks a module is not run, and its section says so. The S3 benchmarks start s3s-fs
(`cargo install s3s-fs@0.14.1 --features binary --locked`, as bench/remote.py says).

Run from the repository root, on a quiet machine (about 45 minutes on 2 cores, 2026-12-06, with
the builds; `--quick` runs each once, on smaller inputs where the script has a size option):
    python3 bench/report.py [--quick] [--only reads,random_reads,...] [--no-build] [--list]
"""

import argparse
import datetime
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from peers import versions_of  # bench/ is this script's folder, so on the path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "benchmarks.md"
PY311 = ROOT / "target/python-venv/bin/python"
PY313 = ROOT / "target/bench-venv-3.4/bin/python"


@dataclass
class Bench:
    name: str
    title: str
    python: Path
    args: list
    quick: list
    about: str
    needs: list = field(default_factory=list)


BENCHES = [
    Bench("reads", "Reads against the peers", PY311, ["bench/peers.py", "--runs", "5"],
          ["bench/peers.py", "--runs", "1"],
          "Whole arrays and selections read by the `zinto` command and by each peer, each in a "
          "fresh process, files in the page cache; the extra memory is the peak resident set "
          "beyond the output.", ["tensorstore", "zarrs"]),
    Bench("random_reads", "Small random reads", PY313, ["bench/random_reads.py", "--runs", "5"],
          ["bench/random_reads.py", "--runs", "1", "--windows", "500"],
          "A machine-learning loader's pattern: random 100 x 100 windows, one call each and 64 "
          "per call.", ["tensorstore", "zarrs"]),
    Bench("random_reads_s3", "Small random reads over S3", PY313,
          ["bench/random_reads.py", "--s3", "--windows", "500", "--runs", "3"],
          ["bench/random_reads.py", "--s3", "--windows", "200", "--runs", "1"],
          "The same windows from s3s-fs on 127.0.0.1, which shares the two cores with the "
          "readers.", ["tensorstore", "zarrs", "obstore"]),
    Bench("random_reads_breakdown", "Where a small read's time goes", PY313,
          ["bench/random_reads.py", "--breakdown"], ["bench/random_reads.py", "--breakdown"],
          "One window of one chunk from Python, by part of the call."),
    Bench("selections", "Index lists, masks and oindex", PY313,
          ["bench/selections.py", "--runs", "5"], ["bench/selections.py", "--runs", "1"],
          "zarr-python's three reports' arrays read with an index list beside the equal slice, "
          "and a loader's batches of random rows, by each reader in a fresh process.",
          ["tensorstore", "zarrs"]),
    Bench("cube", "The zarrs benchmark's cube: 3-d chunks", PY313,
          ["bench/cube.py", "--size", "1024", "--runs", "3"],
          ["bench/cube.py", "--size", "256", "--runs", "1"],
          "github.com/zarrs/zarr_benchmarks' cases: a uint16 cube in 256^3 chunks, raw, zstd "
          "and zstd in shards of 64^3 inner chunks, read whole and read then written back, by "
          "each reader in a fresh process.", ["tensorstore", "zarrs"]),
    Bench("partial_writes", "Partial writes of small chunks: the update lock's cost", PY313,
          ["bench/partial_writes.py", "--runs", "5", "--out-dir", "/dev/shm"],
          ["bench/partial_writes.py", "--runs", "1", "--out-dir", "/dev/shm"],
          "`[:, 1:]` of a 1024 x 1024 int32 array in 4,096 raw chunks of 16 x 16, every chunk "
          "read, merged and replaced: zinto from Rust with its update lock and without it, "
          "alternating in one process, and zinto, zarr-python and tensorstore from Python, "
          "fresh process each.", ["tensorstore"]),
    Bench("writes", "Writes against the peers", PY311, ["bench/write.py", "--runs", "3"],
          ["bench/write.py", "--runs", "1"],
          "Arrays written from memory by zinto and each peer, fresh process each; extra memory "
          "beyond the input.", ["tensorstore", "zarrs"]),
    Bench("python_read", "Reading from Python, four ways", PY311,
          ["bench/python_read.py", "--runs", "5"], ["bench/python_read.py", "--runs", "1"],
          "zarr-python's default pipeline, the zarrs pipeline, zinto's pipeline and zinto's own "
          "API on the same arrays.", ["zarrs"]),
    Bench("export", "Exporting to `.npy`", PY311, ["bench/export.py", "--runs", "3"],
          ["bench/export.py", "--runs", "1"], "An array written to a `.npy` file by each tool.",
          ["tensorstore"]),
    Bench("convert", "Converting v2 Blosc to v3 zstd", PY311, ["bench/convert.py", "--runs", "3"],
          ["bench/convert.py", "--runs", "1"], "`zinto convert` against zarr-python copying."),
    Bench("strings", "Variable-length strings, read", PY311, ["bench/strings.py", "--runs", "5"],
          ["bench/strings.py", "--runs", "1"], "String arrays read by zinto and each peer.",
          ["tensorstore", "zarrs"]),
    Bench("strings_write", "Variable-length strings, written", PY311,
          ["bench/strings_write.py", "--runs", "3"],
          ["bench/strings_write.py", "--runs", "1", "--strings", "100000"],
          "String arrays written by zinto and each peer.", ["zarrs"]),
    Bench("merge", "Merging variable-size segments", PY311, ["bench/merge.py", "--runs", "5"],
          ["bench/merge.py", "--runs", "1", "--records", "1000000"],
          "`zinto merge` against NumPy's concatenate, argsort and gather.",
          ["msgpack_numpy"]),
    Bench("remote", "Remote reads over S3", PY311, ["bench/remote.py", "--runs", "3"],
          ["bench/remote.py", "--runs", "1"],
          "Whole arrays from s3s-fs on 127.0.0.1 by zinto and each peer.",
          ["tensorstore", "zarrs", "obstore", "s3fs"]),
    Bench("dask", "Dask through each codec pipeline", PY311, ["bench/dask.py", "--runs", "2"],
          ["bench/dask.py", "--runs", "1"], "A `LocalCluster` of two workers, each pipeline.",
          ["distributed", "zarrs"]),
    Bench("pipeline_stores", "Each pipeline from each kind of store", PY311,
          ["bench/pipeline_stores.py", "--runs", "2"], ["bench/pipeline_stores.py", "--runs", "1"],
          "Peak memory rise reading the Dask seed array chunk by chunk (after `dask`).",
          ["zarrs", "obstore", "s3fs"]),
]


def sh(*cmd, **kw):
    print("+", " ".join(map(str, cmd)), file=sys.stderr, flush=True)
    return subprocess.run([str(c) for c in cmd], cwd=ROOT, check=True, **kw)


def build():
    """What the benchmarks run, from the working tree."""
    sh("cargo", "build", "--release", "--bin", "zinto")
    sh("cargo", "build", "--release", "-p", "zinto", "--example", "partial_writes")
    sh("cargo", "build", "--release", "--bin", "zinto", "--no-default-features", "--features",
       "cli", "--target-dir", "target/pure-rust")
    sh("cargo", "build", "--release", "-j", "1", "--manifest-path", "bench/zarrs_reader/Cargo.toml")
    with tempfile.TemporaryDirectory() as wheels:
        env = dict(os.environ, PATH=f"{PY311.parent}:{os.environ['PATH']}")
        sh(PY311, "-m", "pip", "wheel", "--quiet", "--no-build-isolation", "--no-deps",
           "./python", "-w", wheels, env=env)
        wheel = next(Path(wheels).glob("zinto-*.whl"))
        for python in (PY311, PY313):
            sh(python, "-m", "pip", "install", "--quiet", "--force-reinstall", "--no-deps", wheel)


def missing(bench):
    if not bench.python.exists():
        return f"{bench.python.relative_to(ROOT)} does not exist"
    code = "import importlib.util, sys; print(*[m for m in sys.argv[1:] if not importlib.util.find_spec(m)])"
    lacking = subprocess.run([bench.python, "-c", code, *bench.needs], capture_output=True,
                             text=True, check=True).stdout.split()
    return f"{bench.python.relative_to(ROOT)} lacks {', '.join(lacking)}" if lacking else None


def machine():
    mem = next(int(line.split()[1]) for line in open("/proc/meminfo") if line.startswith("MemTotal"))
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                  if line.startswith("model name")), platform.machine())
    return f"{os.cpu_count()} cores ({model}), {mem / 2**20:.0f} GiB, Linux {platform.release()}"


def commit():
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout.strip()
    # The page this script writes is not a change to what it measures.
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
                            ":!docs/benchmarks.md"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.strip()
    return head + (" with uncommitted changes" if dirty else "")


def run(bench, quick):
    args = bench.quick if quick else bench.args
    command = f"{bench.python.relative_to(ROOT)} {' '.join(args)}"
    head = [f"<!-- bench: {bench.name} -->", f"## {bench.title}", "", bench.about, ""]
    why = missing(bench)
    if why:
        return "\n".join(head + [f"Not run: {why}.", f"<!-- /bench: {bench.name} -->"]), False
    start = time.monotonic()
    done = subprocess.run([bench.python, *args], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONWARNINGS="ignore"))
    seconds = time.monotonic() - start
    head += [f"`{command}`{' (--quick: one run)' if quick else ''}, "
             f"{datetime.date.today().isoformat()}, commit {commit()}, {seconds / 60:.1f} min; "
             f"{machine()}. {versions_of(bench.python)}.", ""]
    if done.returncode != 0:
        body = [f"Failed (exit {done.returncode}):", "", "```", done.stderr.strip()[-2000:], "```"]
    else:
        body = [done.stdout.strip()]
    return "\n".join(head + body + ["", f"<!-- /bench: {bench.name} -->"]), done.returncode == 0


PREAMBLE = """# Benchmarks

Generated by `python3 bench/report.py` (its docstring says what it builds and needs); do not
edit by hand. Every figure below was measured by the command its section names, on the machine
it names; the README quotes figures from here, and `scripts/check-docs.py` fails CI when one is
missing. What this page said before is in git.
"""


def sections(text):
    """The generated sections of a page, by benchmark name."""
    pattern = r"(<!-- bench: (\S+) -->.*?<!-- /bench: \2 -->)"
    return {m.group(2): m.group(1) for m in re.finditer(pattern, text, re.S)}


def write(new):
    old = sections(PAGE.read_text()) if PAGE.exists() else {}
    parts = [PREAMBLE]
    for bench in BENCHES:
        text = new.get(bench.name) or old.get(bench.name)
        if text:
            parts.append(text)
    PAGE.write_text("\n\n".join(parts) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="one run each, smaller inputs")
    p.add_argument("--only", default="", help="comma-separated benchmark names (--list)")
    p.add_argument("--no-build", action="store_true")
    p.add_argument("--list", action="store_true")
    args = p.parse_args()
    if args.list:
        for b in BENCHES:
            print(f"{b.name:24} {b.title}")
        return
    only = [n for n in args.only.split(",") if n]
    unknown = set(only) - {b.name for b in BENCHES}
    if unknown:
        p.error(f"unknown benchmark(s): {', '.join(sorted(unknown))}")
    if not args.no_build:
        build()
    new, failed = {}, []
    for bench in BENCHES:
        if only and bench.name not in only:
            continue
        print(f"== {bench.name}", file=sys.stderr, flush=True)
        new[bench.name], ok = run(bench, args.quick)
        write(new)  # after each: a long run that stops keeps what it measured
        if not ok:
            failed.append(bench.name)
    if failed:
        sys.exit(f"report: not run or failed: {', '.join(failed)} (their sections say why)")


if __name__ == "__main__":
    main()
