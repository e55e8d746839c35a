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
