"""What the pipeline did in this process: the reads and writes zinto did itself, those it
handed to zarr-python's default pipeline by reason (the reasons are named here), and
`hand_on`, which counts a call handed on and makes it.

`zinto.pipeline.reads_by_zinto` and the other names of `NAMES` read `COUNTS` (for tests and
curiosity; zarr-python's suite prints them at its end, scripts/zarr-suite).
"""

import contextvars
from collections import Counter

# Why a call went to the default pipeline.
NO_METADATA = "inner pipeline of a shard (no array metadata)"
METADATA_NOT_TAKEN = "metadata zinto does not take"
FILL_NOT_CANONICAL = "a NaN fill value with a payload (JSON keeps no payload)"
OUTPUT_NOT_C_ORDER = "output not C-contiguous"
OUTPUT_READ_ONLY = "output read-only"
OUTPUT_BIG_ENDIAN = "big-endian output"
OUTPUT_OBJECTS = "strings, bytes or objects"
STRUCTURED = "structured type"
OUTPUT_NOT_NUMPY = "output not a NumPy array"
NOT_ONE_RECTANGLE = "selection not one rectangle"
DTYPE_DIFFERS = "data type differs from the output's"
RESIZED = "array resized since the pipeline was made"
REMOTE_FAILED = "store zinto could not reach"
SHARDS_WRAPPED = "sharding inside other codecs, from a store zinto does not address"
KEY_NOT_PARSED = "chunk key zinto does not parse"
SELECTION_KIND = "selection of a kind zinto does not take"
FOREIGN_CODEC = "a codec class of the user's own (registered with zarr), not zarr-python's"
STORE_READ_ONLY = "read-only store"
NOT_WRITTEN_BY_ZINTO = "codec, filter or type zinto does not write yet"

# Reads zinto does piece by piece when it cannot write the whole region into the output, nor
# gather the selection into it.
BY_PIECES = (NOT_ONE_RECTANGLE, OUTPUT_NOT_C_ORDER, OUTPUT_BIG_ENDIAN)


class Counts:
    """The counters (one set per process: `COUNTS`)."""

    def __init__(self):
        # Reads done by zinto, and those handed on by why (a Counter of the reasons above).
        self.reads_by_zinto = 0
        self.reads_handed_on = Counter()
        # Of the reads by zinto, those of index lists, masks and points gathered into the
        # output, and those done piece by piece (a scratch per piece).
        self.reads_gathered = 0
        self.reads_in_pieces = 0
        self.writes_by_zinto = 0
        self.writes_handed_on = Counter()
        # Writes and reads a shard's inner pipeline made while the default pipeline did a call
        # this pipeline handed on: the sharding codec doing that call's inner chunks, already
        # counted under its reason, so counted here and not again ("writes", "reads").
        self.inner_calls_of_handed_on = Counter()


COUNTS = Counts()
NAMES = tuple(vars(COUNTS))

# Set while the default pipeline does a call this pipeline handed on (asyncio tasks and
# `asyncio.to_thread` carry it into what that call starts).
_handing_on = contextvars.ContextVar("zinto_handing_on", default=False)


async def hand_on(kind, reason, call):
    """Counts a call handed on (`kind`: "reads" or "writes") by `reason`, or apart if it is a
    shard's inner pipeline inside a call already handed on, and awaits the default pipeline's
    `call` with `_handing_on` set; returns what it returned."""
    if reason == NO_METADATA and _handing_on.get():
        COUNTS.inner_calls_of_handed_on[kind] += 1
    elif kind == "writes":
        COUNTS.writes_handed_on[reason] += 1
    else:
        COUNTS.reads_handed_on[reason] += 1
    token = _handing_on.set(True)
    try:
        return await call
    finally:
        _handing_on.reset(token)
