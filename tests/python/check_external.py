"""zinto reads what other projects wrote, and gets zarr-python's values.

Unpacks the external tarballs (real-world-v2-v3.tar.gz, zarr_implementations-v2.tar.gz) into a
fresh temporary directory, finds every Zarr array in them (a directory with `.zarray`, or a
`zarr.json` whose node_type is "array"), and reads each one twice: with zarr-python
(`zarr.open_array(...)[...]`) and with `zinto read ARRAY --out X.npy --format npy`. Both must
give the same shape, dtype (byte order aside: zinto writes native order) and values (NaN and
NaT equal to themselves; text compared as str, so zinto's `<U n` matches zarr-python's
StringDType or object; bytes compared with trailing NULs dropped). For the numcodecs/ arrays
marked lossless in numcodecs/manifest.json, zinto's result must also equal the original .npy
(originals that need pickle to load are skipped). A v2 array that states no
dimension_separator but stores its chunks nested (0/0) is compared with zarr-python's reading
of a copy that states "/": what zarr-python 2's NestedDirectoryStore read, and zinto reads.

Outcomes: match, MISMATCH (failure), ZINTO_REFUSES (failure unless it matches a pattern of
EXPECTED_REFUSALS), BOTH_REFUSE, ZARR_REFUSES_ZINTO_READS (reported only, but still a MISMATCH
if a lossless original disagrees). A pattern of EXPECTED_REFUSALS that no refused array matches
any more is stale: a failure, so the list stays honest. Exit status 0 without failures, else 1.

The zarr_implementations tarball is unpacked under `zarr_implementations/`, so every array path
(as matched by the patterns, relative to the unpack root) starts with its source folder.

Run (zarr==3.1.6 numcodecs==0.16.6, plus pcodec==0.3.6 zfpy==1.0.1 for those arrays):
    python tests/python/check_external.py PATH/TO/zinto [--external DIR] [--list-refusals]
DIR defaults to $ZINTO_EXTERNAL_DATA, else ../shared/data/external beside the repository.

With --zarr34 (under zarr==3.4.2, Python 3.12+, with cast-value-rs), the arrays checked are
instead what zarr-python 3.4.2 writes, made fresh by tests/python/zarr34_corpus.py under
`zarr-python-3.4/`: every data type on its four grids (rectilinear ones included), v2
defaults, compressors, scale_offset and cast_value, numcodecs' codecs in v3.
"""

import argparse
import fnmatch
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import zarr

# fnmatch glob over the array path relative to the unpack root -> why zinto refuses it.
EXPECTED_REFUSALS = {
    # Codecs not implemented yet.
    "zarrs/*/codec/bitround/*": "bitround: v3 codec not implemented (zarr-python lacks it too)",
    "zarrs/*/array_optional*.zarr/*": "data type optional (zarrs extension): not implemented",
    # Object arrays other than vlen-utf8/vlen-bytes: Python objects, never.
    "numcodecs/pickle/*": "pickle: Python objects, never",
    "numcodecs/msgpack2/*": "msgpack2: object arrays of any Python values, not supported",
    "numcodecs/json2/*": "json/json2: object arrays of any Python values, not supported",
    "numcodecs/vlen-array/*": "vlen-array: ragged arrays of arrays, not supported",
}

# The same for what zarr-python 3.4.2 writes (--zarr34).
ZARR34_REFUSALS = {}

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_EXTERNAL = ROOT / ".." / "shared" / "data" / "external"
TARBALLS = {  # tarball -> folder under the unpack root
    "real-world-v2-v3.tar.gz": ".",
    "zarr_implementations-v2.tar.gz": "zarr_implementations",
}
SOURCES = ("zarrs", "numcodecs", "zarr-python-v2", "ome-zarr-py", "zarr_implementations",
           "zarr-python-3.4")
OUTCOMES = ("match", "MISMATCH", "ZINTO_REFUSES", "expected", "BOTH_REFUSE",
            "ZARR_REFUSES_ZINTO_READS")
ZINTO_TIMEOUT_S = 300


@dataclass
class Result:
    path: str  # relative to the unpack root
    outcome: str
    reason: str = ""


def unpack(external, dest):
    for name, folder in TARBALLS.items():
        with tarfile.open(external / name) as tar:
            target = dest / folder
            if hasattr(tarfile, "data_filter"):
                tar.extractall(target, filter="data")
            else:  # Python without extraction filters (before 3.11.4)
                tar.extractall(target)


def is_array_dir(dirpath, filenames):
    if ".zarray" in filenames:
        return True
    if "zarr.json" in filenames:
        try:
            meta = json.loads((dirpath / "zarr.json").read_text())
        except (OSError, ValueError):  # unreadable metadata: not an array we can check
            return False
        return isinstance(meta, dict) and meta.get("node_type") == "array"
    return False


def find_arrays(root):
    arrays = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirpath = Path(dirpath)
        if is_array_dir(dirpath, filenames):
            arrays.append(dirpath)
            dirnames.clear()  # an array holds chunks, never further nodes
        dirnames.sort()
    return sorted(arrays)


def load_originals(root):
    """Array path (relative to root) -> original .npy path, for lossless numcodecs arrays."""
    manifest_path = root / "numcodecs" / "manifest.json"
    if not manifest_path.exists():
        return {}
    manifest = json.loads(manifest_path.read_text())
    return {f"numcodecs/{name}": root / "numcodecs" / entry["original"]
            for name, entry in manifest.items() if entry.get("lossless")}


def read_with_zarr(array_dir):
    """(data, None), or (None, reason) when zarr-python refuses."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(zarr.open_array(store=str(array_dir), mode="r")[...]), None
    except Exception as error:  # zarr-python refuses with many exception types; all count
        return None, f"{type(error).__name__}: {error}".splitlines()[0]


def nested_without_separator(array_dir):
    """Whether a v2 array states no dimension_separator but its first chunk is stored nested
    (0/0), as zarr-python 2's NestedDirectoryStore wrote it: zarr-python 3 reads only fill
    values there, zinto reads the chunks as that store did."""
    zarray = array_dir / ".zarray"
    if not zarray.exists():
        return False
    meta = json.loads(zarray.read_text())
    ndim = len(meta.get("shape", []))
    if "dimension_separator" in meta or ndim < 2:
        return False
    return not (array_dir / ".".join(["0"] * ndim)).exists() and \
        (array_dir / "/".join(["0"] * ndim)).exists()


def read_nested_with_zarr(array_dir, tmp):
    """zarr-python's reading of a copy of the array whose .zarray states "/": what zarr-python
    2's NestedDirectoryStore read."""
    copy = Path(tmp) / ("nested__" + array_dir.name)
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(array_dir, copy)
    meta = json.loads((copy / ".zarray").read_text())
    meta["dimension_separator"] = "/"
    (copy / ".zarray").write_text(json.dumps(meta))
    try:
        return read_with_zarr(copy)
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def read_with_zinto(zinto, array_dir, out):
    """(data, None), or (None, first line of stderr) when zinto refuses."""
    command = [zinto, "read", str(array_dir), "--out", str(out), "--format", "npy"]
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=ZINTO_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {ZINTO_TIMEOUT_S} s"
    if run.returncode != 0:
        lines = run.stderr.strip().splitlines() or [f"exit status {run.returncode}"]
        reason = lines[0].removeprefix("zinto: error: ").removeprefix(f"{array_dir}: ")
        return None, reason
    try:
        return np.load(out, allow_pickle=False), None
    except (OSError, ValueError) as error:  # zinto wrote something np.load rejects: a bug
        return None, f"np.load: {error}"


def load_original(path):
    try:
        return np.load(path, allow_pickle=False)
    except ValueError:  # object array: needs pickle, which we do not run
        return None


def native(dtype):
    """The dtype in native byte order (structured fields too): zinto writes native order."""
    return dtype.newbyteorder("=")


def difference(got, want):
    """None if zinto's `got` equals the reference `want`, else what differs."""
    if got.shape != want.shape:
        return f"shape {got.shape} != {want.shape}"
    if got.dtype.kind == "U" and want.dtype.kind in "OTU":
        same = [str(x) for x in got.flat] == [str(x) for x in want.flat]
        return None if same else "text values differ"
    if got.dtype.kind == "S" and want.dtype.kind in "OS":
        # NumPy's |S n drops trailing NULs; drop them from the reference too.
        same = [bytes(x) for x in got.flat] == [bytes(x).rstrip(b"\0") for x in want.flat]
        return None if same else "bytes values differ"
    if got.dtype != native(want.dtype):
        return f"dtype {got.dtype} != {want.dtype}"
    want = want.astype(got.dtype)
    if got.dtype.kind in "mM":  # NaT is not equal to itself: compare the counts
        same = np.array_equal(got.view("i8"), want.view("i8"))
    elif got.dtype.kind == "V":  # structured: compare the bytes
        same = got.tobytes() == np.ascontiguousarray(want).tobytes()
    else:
        same = np.array_equal(got, want, equal_nan=got.dtype.kind in "fc")
    return None if same else f"values differ ({count_differences(got, want)})"


def count_differences(got, want):
    try:
        unequal = got != want
        if got.dtype.kind in "fc":
            unequal &= ~(np.isnan(got) & np.isnan(want))
        return f"{int(np.count_nonzero(unequal))} of {got.size} elements"
    except (TypeError, ValueError):  # dtypes without elementwise comparison
        return f"{got.size} elements"


def check_array(zinto, root, array_dir, original, tmp):
    rel = array_dir.relative_to(root).as_posix()
    out = Path(tmp) / (rel.replace("/", "__") + ".npy")
    if nested_without_separator(array_dir):
        want, zarr_reason = read_nested_with_zarr(array_dir, tmp)
    else:
        want, zarr_reason = read_with_zarr(array_dir)
    got, zinto_reason = read_with_zinto(zinto, array_dir, out)
    out.unlink(missing_ok=True)
    if got is None:
        if want is None:
            return Result(rel, "BOTH_REFUSE", f"zinto: {zinto_reason}; zarr: {zarr_reason}")
        return Result(rel, "ZINTO_REFUSES", zinto_reason)
    if want is not None and (diff := difference(got, want)):
        return Result(rel, "MISMATCH", f"vs zarr-python: {diff}")
    if original is not None and (reference := load_original(original)) is not None:
        if diff := difference(got, reference):
            return Result(rel, "MISMATCH", f"vs original {original.name}: {diff}")
    if want is None:
        return Result(rel, "ZARR_REFUSES_ZINTO_READS", zarr_reason)
    return Result(rel, "match")


def apply_expected(results, expected):
    """Mark the refusals `expected` lists; return its stale patterns."""
    used = set()
    for result in results:
        if result.outcome not in ("ZINTO_REFUSES", "BOTH_REFUSE"):
            continue
        patterns = [p for p in expected if fnmatch.fnmatchcase(result.path, p)]
        used.update(patterns)
        if patterns and result.outcome == "ZINTO_REFUSES":
            result.outcome = "expected"
    return [p for p in expected if p not in used]


def print_table(results):
    counts = {source: dict.fromkeys(OUTCOMES, 0) for source in SOURCES}
    for result in results:
        source = result.path.split("/")[0]
        counts.setdefault(source, dict.fromkeys(OUTCOMES, 0))[result.outcome] += 1
    counts["total"] = {o: sum(c[o] for c in counts.values()) for o in OUTCOMES}
    width = max(map(len, counts))
    print(f"{'source':<{width}} {'arrays':>6} " + " ".join(OUTCOMES))
    for source, row in counts.items():
        if not sum(row.values()):
            continue  # a source this run did not check
        cells = " ".join(f"{row[o]:>{len(o)}}" for o in OUTCOMES)
        print(f"{source:<{width}} {sum(row.values()):>6} {cells}")


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("zinto", help="the zinto binary")
    parser.add_argument("--external", type=Path,
                        default=Path(os.environ.get("ZINTO_EXTERNAL_DATA", DEFAULT_EXTERNAL)),
                        help="folder with the external tarballs")
    parser.add_argument("--list-refusals", action="store_true",
                        help="also print every array zinto refuses, with zinto's reason")
    parser.add_argument("--zarr34", action="store_true",
                        help="check what zarr-python 3.4.2 writes (zarr34_corpus.py) instead")
    return parser.parse_args()


def run_checks(zinto, root, tmp):
    arrays = find_arrays(root)
    originals = load_originals(root)
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(check_array, zinto, root, a, originals.get(
            a.relative_to(root).as_posix()), tmp) for a in arrays]
        return [f.result() for f in futures]


def main():
    args = parse_args()
    zinto = str(Path(args.zinto).resolve())
    missing = [name for name in TARBALLS if not (args.external / name).is_file()]
    if missing and not args.zarr34:
        sys.exit(f"check_external: {', '.join(missing)} not found in {args.external}")
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as unpacked, tempfile.TemporaryDirectory() as tmp:
        root = Path(unpacked)
        if args.zarr34:
            import zarr34_corpus

            with warnings.catch_warnings():  # its unstable types and lossy casts, as meant
                warnings.simplefilter("ignore")
                written = zarr34_corpus.main(root / "zarr-python-3.4")
            print(f"{written} arrays written by zarr-python {zarr.__version__}")
        else:
            unpack(args.external, root)
        results = run_checks(zinto, root, tmp)
    stale = apply_expected(results, ZARR34_REFUSALS if args.zarr34 else EXPECTED_REFUSALS)
    if args.list_refusals:
        for r in results:
            if r.outcome in ("ZINTO_REFUSES", "expected", "BOTH_REFUSE"):
                print(f"{r.outcome} {r.path}: {r.reason}")
    print_table(results)
    failures = [r for r in results if r.outcome in ("MISMATCH", "ZINTO_REFUSES")]
    for r in failures:
        print(f"{r.outcome} {r.path}: {r.reason}")
    for pattern in stale:
        print(f"STALE expected refusal {pattern!r}: no refused array matches it any more")
    print(f"{len(failures) + len(stale)} failure(s); {time.monotonic() - start:.1f} s")
    return 1 if failures or stale else 0


if __name__ == "__main__":
    sys.exit(main())
