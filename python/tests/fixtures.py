"""Where the tests' data lives, shared by the test modules."""

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests/fixtures/data"
EXAMPLES = ROOT / "examples/data"


def fixture_arrays():
    """Every conformance fixture array, by path under DATA, from the manifests. What only
    zarr-python 3.4 reads (manifest_zarr34.json: its new codecs) is left out under an older
    zarr-python, which these tests compare with; tests/tests/conformance.rs reads it."""
    import zarr

    names = []
    manifests = sorted((ROOT / "tests/fixtures").glob("manifest*.json"))
    if tuple(int(p) for p in zarr.__version__.split(".")[:2]) < (3, 4):
        manifests = [m for m in manifests if m.name != "manifest_zarr34.json"]
    for manifest in manifests:
        for entry in json.loads(manifest.read_text()):
            if entry.get("kind", "array") == "array":
                names.append(entry["name"])
    return names


def interrupted(started, call):
    """Runs `call()` and sends this process SIGINT once `started()` is true (checked every
    0.1 ms, for at most 30 s); asserts that `call` raised KeyboardInterrupt. Python installs
    its Ctrl-C handler only if SIGINT was not ignored when it started, and a shell ignores
    SIGINT in the jobs it runs in the background (CI here): it is installed for the call."""
    import os
    import signal
    import threading
    import time

    import pytest

    def interrupt():
        deadline = time.perf_counter() + 30
        while not started() and time.perf_counter() < deadline:
            time.sleep(0.0001)
        os.kill(os.getpid(), signal.SIGINT)

    watcher = threading.Thread(target=interrupt)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        watcher.start()
        with pytest.raises(KeyboardInterrupt):
            call()
        watcher.join()
    finally:
        signal.signal(signal.SIGINT, previous)
