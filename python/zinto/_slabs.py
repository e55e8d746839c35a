"""Slabs of a region, cut by the library's one rule (`zinto._zinto.slabs`, Rust's
`zinto::slabs::Slabs`): runs of whole chunks along the first axis whose extent is over one,
each about a target size and at least one chunk's extent thick. Every write in parts of the
package goes through here; none keeps a slab loop of its own."""

from . import _zinto


def slabs(start, extent, chunk_shape, itemsize, target_bytes, starts=None):
    """`(start, extent, index)` of each slab of the region `start`/`extent` in chunks of
    `chunk_shape` (the array's grid), elements of `itemsize` bytes, in C order: `index`
    selects the slab in an array of shape `extent` (a view: along the axis cut, every axis
    before it of one element, so a C-contiguous array's slab is contiguous too). On a
    rectilinear grid `starts` gives each dimension's chunk starts (None where regular) and
    `chunk_shape` the longest edges: slabs end on the grid's edges."""
    edges = None if starts is None else [None if s is None else list(s) for s in starts]
    cut = _zinto.slabs(list(start), list(extent), list(chunk_shape), int(itemsize),
                       int(target_bytes), edges)
    for s_start, s_extent in cut:
        index = tuple(slice(a - b, a - b + n) for a, b, n in zip(s_start, start, s_extent))
        yield s_start, s_extent, index
