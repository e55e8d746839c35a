"""`Array.read_many`: a batch of windows in one call (a data loader's `__getitems__`) equals
each window read alone, stacked; `out=` is filled in place; batches of mixed shapes, bad
outputs and strings are refused before anything is read; a failing window names its chunk.
Small reads (one chunk) run on the calling thread and still raise what a read raises."""

import numpy as np
import pytest

import zinto


@pytest.fixture
def array(tmp_path):
    data = np.arange(60 * 50, dtype="float32").reshape(60, 50)
    z = zinto.create(tmp_path / "a.zarr", data.shape, data.dtype, (10, 10), codecs="zstd:1")
    z[...] = data
    return z, data


KEYS = [np.s_[0:10, 0:10], np.s_[5:15, 5:15], np.s_[50:60, 40:50], np.s_[13:23, 27:37],
        np.s_[-10:, :10], (slice(0, 10), slice(35, 45))]


@pytest.mark.parametrize("threads", [None, 1, 3])
def test_a_batch_is_each_window_read_alone_stacked(array, threads):
    z, data = array
    got = z.read_many(KEYS, threads=threads)
    assert got.shape == (len(KEYS), 10, 10) and got.dtype == np.float32
    np.testing.assert_array_equal(got, np.stack([data[k] for k in KEYS]))
    out = np.zeros((len(KEYS), 10, 10), np.float32)
    assert z.read_many(KEYS, out=out, threads=threads) is out
    np.testing.assert_array_equal(out, got)
    # Dropped dimensions, as NumPy drops them.
    rows = z.read_many([np.s_[3, 5:15], np.s_[59, 0:10]])
    np.testing.assert_array_equal(rows, np.stack([data[3, 5:15], data[59, 0:10]]))
    assert z.read_many([]).shape == (0,)


PLAIN = [np.s_[-10:, -10:], np.s_[55:70, 0:10], np.s_[0:5, 45:99], (slice(3, 8, 1), slice(0, 10)),
         (slice(np.int64(50), np.uint8(55)), slice(None, 10)), np.s_[10:0, 0:10]]


@pytest.mark.parametrize("key", PLAIN)
def test_plain_windows_are_parsed_in_one_call_as_numpy_reads_them(array, key):
    """The native parse of a batch of plain slices (the common case) gives what `_normalize`
    gives: the same starts and extent (negative and clamped bounds, NumPy integers, empty)."""
    z, data = array
    keys = [key, key]
    fast = z._rs.windows(keys)
    general, shape = z._general_batch(keys)
    assert fast is not None
    assert (fast.starts, fast.extent) == (general.starts, general.extent)
    assert tuple(shape) == tuple(fast.extent)
    np.testing.assert_array_equal(z.read_many(keys), np.stack([data[key], data[key]]))


@pytest.mark.parametrize("keys", [[np.s_[0:10, 0:10], np.s_[0:10, 0:9]], [np.s_[3, 0:10]],
                                  [np.s_[0:10]], [np.s_[..., 0:10]], [np.s_[0:10, 0:10:2]]])
def test_other_batches_go_the_general_way(array, keys):
    z, _ = array
    assert z._rs.windows(keys) is None


def test_a_batch_that_cannot_be_laid_out_is_refused(array):
    z, _ = array
    out = np.full((2, 10, 10), 7, np.float32)
    with pytest.raises(ValueError, match="one shape"):
        z.read_many([np.s_[0:10, 0:10], np.s_[0:10, 0:9]])
    with pytest.raises(ValueError, match="expected shape"):
        z.read_many(KEYS, out=out)
    with pytest.raises(ValueError, match="expected shape"):
        z.read_many(KEYS[:2], out=np.zeros((2, 10, 10), np.float64))
    # Steps are read (each gathered), but of another shape: refused before anything is read.
    with pytest.raises(ValueError, match="one shape"):
        z.read_many([np.s_[0:10, 0:10], np.s_[0:10, 45:55:2]], out=out)
    with pytest.raises(zinto.SelectionError):
        z.read_many([np.s_[0:10, 0:10], np.s_[0:10, None]], out=out)
    assert (out == 7).all()


def test_a_failing_window_names_its_chunk_small_or_batched(array, tmp_path):
    z, _ = array
    (tmp_path / "a.zarr" / "c" / "3" / "2").write_bytes(b"not zstd")
    with pytest.raises(zinto.ZintoError, match="c/3/2"):
        z[30:40, 20:30]  # a small read: one chunk, on the calling thread
    with pytest.raises(zinto.ZintoError, match="c/3/2"):
        z.read_many([np.s_[0:10, 0:10], np.s_[30:40, 20:30]])


def test_ctrl_c_stops_a_long_batch_between_windows(tmp_path):
    """SIGINT once the first window is in: the batch (64 rows of 1 MiB chunks, one worker)
    stops between windows and raises KeyboardInterrupt, some windows never read."""
    from fixtures import interrupted

    n = 1 << 18
    data = np.sin(np.arange(64 * n, dtype=np.float32) / 1000).reshape(64, n)
    z = zinto.create(tmp_path / "b.zarr", data.shape, data.dtype, (1, n), codecs="zstd:19")
    z[...] = data
    out = np.full((64, 1, n), np.nan, np.float32)
    keys = [np.s_[i:i + 1, :] for i in range(64)]
    interrupted(lambda: not np.isnan(out[0, 0, -1]),
                lambda: z.read_many(keys, out=out, threads=1))
    read = [not np.isnan(w).any() for w in out]
    assert read[0] and not all(read), "the batch ran to the end: the signal was not seen"
