"""Where the tests' data lives, shared by the test modules."""

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests/fixtures/data"
EXAMPLES = ROOT / "examples/data"


def fixture_arrays():
    """Every conformance fixture array, by path under DATA, from the manifests."""
    names = []
    for manifest in sorted((ROOT / "tests/fixtures").glob("manifest*.json")):
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
