"""The exceptions defined in Python (the others come from the extension, `_zinto`)."""


class SelectionError(IndexError, ValueError):
    """A selection zinto does not take: out of bounds, a step, or not basic indexing.

    Both an IndexError (what NumPy raises for an index out of bounds) and a ValueError.
    """


SelectionError.__module__ = "zinto"
