"""The `zinto` command: ``python -m zinto info examples/data/weather.zarr``.

The wheel's `zinto` console script runs this too. The command is the Rust binary's own
(`zinto::cli::run`, compiled into the extension), so both print and exit alike.
"""

import signal
import sys

from ._zinto import run_cli


def main():
    """Runs the command with this process's arguments; returns its exit code."""
    # The command runs in Rust without the GIL, where Python's own Ctrl-C handler would wait
    # for it to end: Ctrl-C ends it at once, as it ends the binary.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.stdout.flush()
    return run_cli(["zinto", *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
