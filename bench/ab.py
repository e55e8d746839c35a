"""Two zinto builds read one case alternately: for a change that should not change speed.

Each round runs both binaries once, in an order flipped every round, nothing else in between;
prints the fastest and the median of the seconds `zinto read --json` reports. The arrays are
bench/peers.py's (bench-data/, written by its first run).

    python3 bench/ab.py NEW_BINARY OLD_BINARY CASE [ROUNDS] [SELECTION]
    python3 bench/ab.py target/release/zinto /tmp/base-target/release/zinto whole_zstd 10 0:100,100:900,100:900
"""

import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    new, old, case = sys.argv[1:4]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    sel = sys.argv[5] if len(sys.argv) > 5 else None
    path = ROOT / "bench-data" / f"{case}.zarr"
    seconds = {"after": [], "before": []}
    for i in range(rounds):
        order = [("after", new), ("before", old)]
        for label, binary in order if i % 2 else order[::-1]:
            args = [binary, "read", str(path), "--json"] + (["--select", sel] if sel else [])
            r = subprocess.run(args, capture_output=True, text=True, check=True)
            seconds[label].append(json.loads(r.stdout)["seconds"])
    for label, s in seconds.items():
        print(f"{case} {label}: min {min(s):.3f} s, median {statistics.median(s):.3f} s")


if __name__ == "__main__":
    main()
