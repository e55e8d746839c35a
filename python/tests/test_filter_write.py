"""Writes through numcodecs filters (`delta`, `fixedscaleoffset`, `astype`).

Each array is made by zarr-python with the filter and no compressor, then written twice with
the same values: once by zarr-python's default pipeline, once by zinto. The stored chunks must
be the same bytes (so zinto's encoding is numcodecs' own, rounding and wrapping included), and
zarr-python must read zinto's array back as it reads its own. Values NumPy's casts leave
undefined (NaN or out of range into an integer type) are refused by zinto, naming the filter.
"""

import numpy as np
import pytest

import zinto

zarr = pytest.importorskip("zarr")
numcodecs = pytest.importorskip("numcodecs")

DEFAULT = {"codec_pipeline.path": "zarr.core.codec_pipeline.BatchedCodecPipeline"}


def make(path, dtype, filters, shape=(37, 11), chunks=(8, 5), compressor=None, fill=0):
    with zarr.config.set(DEFAULT):
        return zarr.create_array(str(path), shape=shape, chunks=chunks, dtype=dtype,
                                 filters=filters, compressors=compressor, zarr_format=2,
                                 fill_value=fill)


def chunk_files(path):
    return {p.name: p.read_bytes() for p in sorted(path.iterdir()) if not p.name.startswith(".")}


def both_write(tmp_path, dtype, filters, values, compressor=None, key=np.s_[...], fill=0):
    """zarr-python's and zinto's arrays after writing `values` at `key` into each."""
    ours, theirs = tmp_path / "zinto.zarr", tmp_path / "zarr.zarr"
    make(theirs, dtype, filters, values.shape, compressor=compressor, fill=fill)
    make(ours, dtype, filters, values.shape, compressor=compressor, fill=fill)
    with zarr.config.set(DEFAULT):
        zarr.open_array(str(theirs), mode="r+")[key] = values[key]
    zinto.open(ours)[key] = values[key]
    return ours, theirs


def samples(dtype, seed):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, (37, 11), dtype=dt.newbyteorder("="),
                            endpoint=True).astype(dt)
    if dt.kind == "b":
        return rng.integers(0, 2, (37, 11)).astype(bool)
    return (rng.normal(size=(37, 11)) * 1000).astype(dt)


DELTAS = [
    ("<i4", "<i4"), ("<i4", "<i2"), ("<u2", "<u2"), ("|u1", "|i1"), ("<i8", "<i8"),
    ("<u8", "<u8"), ("<f8", "<f8"), ("<f4", "<f4"), ("<f2", "<f2"), ("<f8", "<f4"),
    (">i4", ">i4"), (">f8", ">f8"), ("<i2", "<f8"), ("|b1", "|b1"),
]


@pytest.mark.parametrize("dtype,astype", DELTAS)
def test_delta_is_stored_as_numcodecs_stores_it(tmp_path, dtype, astype):
    values = samples(dtype, 1)
    # numcodecs raises OverflowError for a chunk whose first element its stored integer type
    # cannot hold (the differences wrap): each chunk starts at a value every type holds.
    values[::8, ::5] = 1
    filters = [numcodecs.Delta(dtype=dtype, astype=astype)]
    ours, theirs = both_write(tmp_path, dtype, filters, values)
    assert chunk_files(ours) == chunk_files(theirs)
    with zarr.config.set(DEFAULT):
        back = zarr.open_array(str(ours), mode="r")[...]
        want = zarr.open_array(str(theirs), mode="r")[...]
    np.testing.assert_array_equal(back, want)


SCALE_OFFSETS = [
    ("<f8", "|u1", 10, 1000), ("<f8", "<i2", 0.1, -3.5), ("<f4", "<i4", 3, 0.5),
    ("<f4", "<u2", 7.3, -200.25), ("<f2", "|i1", 0.25, 1), (">f8", ">i4", 100.0, 0),
    ("<f8", "<f4", 1e-3, 12.5),
]


@pytest.mark.parametrize("dtype,astype,scale,offset", SCALE_OFFSETS)
def test_fixedscaleoffset_is_stored_as_numcodecs_stores_it(tmp_path, dtype, astype, scale,
                                                          offset):
    rng = np.random.default_rng(2)
    # Values whose encoded form fits `astype`, halves included (NumPy rounds them to even).
    info = np.iinfo(astype) if np.dtype(astype).kind in "iu" else None
    lo, hi = (info.min, info.max) if info else (-1e4, 1e4)
    # The top code stays one below the type's largest, so that its half rounds into range.
    codes = rng.integers(max(lo, -30000), min(hi, 30000) - 1, (37, 11))
    codes = codes + rng.choice([0, 0.5], (37, 11))
    values = (codes / scale + offset).astype(dtype)
    filters = [numcodecs.FixedScaleOffset(offset=offset, scale=scale, dtype=dtype, astype=astype)]
    # The fill value (which pads edge chunks) encodes to 0, in every stored type's range.
    ours, theirs = both_write(tmp_path, dtype, filters, values, fill=offset)
    assert chunk_files(ours) == chunk_files(theirs)


def test_a_fill_value_out_of_the_stored_range_pads_edge_chunks(tmp_path):
    """Fill 0 with offset 1000 encodes to -10000, which uint8 cannot hold: NumPy's cast is
    undefined there and zarr-python stores whatever the machine makes of it. zinto stores the
    saturated value in the padding (never read) and in chunks holding the fill value, and
    refuses other such values. Both read back the values everywhere else; neither gives the
    fill value back where it stood inside the array (it cannot be stored)."""
    filters = [numcodecs.FixedScaleOffset(offset=1000, scale=10, dtype="<f8", astype="|u1")]
    values = 1000 + np.arange(37 * 11).reshape(37, 11) % 250 / 10
    values[5, 5] = 0  # the fill value, inside the array
    ours, theirs = both_write(tmp_path, "<f8", filters, values)
    with zarr.config.set(DEFAULT):
        got = zarr.open_array(str(ours), mode="r")[...]
        reference = zarr.open_array(str(theirs), mode="r")[...]
    assert got[5, 5] == 1000.0, "stored as the saturated 0"
    assert reference[5, 5] != 0
    got[5, 5] = reference[5, 5] = values[5, 5]
    np.testing.assert_allclose(got, values, rtol=0, atol=0.05)
    np.testing.assert_array_equal(got, reference)


def test_filters_chain_with_a_compressor_and_a_partial_write(tmp_path):
    values = samples("<f8", 3)
    filters = [numcodecs.Delta(dtype="<f8"), numcodecs.AsType(encode_dtype="<f4",
                                                                decode_dtype="<f8")]
    key = np.s_[3:30, 2:9]  # cuts chunks: read, merged, encoded again
    ours, theirs = both_write(tmp_path, "<f8", filters, values, None, key)
    assert chunk_files(ours) == chunk_files(theirs)
    ours_z, theirs_z = tmp_path / "z1", tmp_path / "z2"
    for path in (ours_z, theirs_z):
        make(path, "<f8", filters, values.shape, compressor=numcodecs.Zstd(level=1))
    with zarr.config.set(DEFAULT):
        zarr.open_array(str(theirs_z), mode="r+")[key] = values[key]
    zinto.open(ours_z)[key] = values[key]
    with zarr.config.set(DEFAULT):
        np.testing.assert_array_equal(zarr.open_array(str(ours_z), mode="r")[...],
                                      zarr.open_array(str(theirs_z), mode="r")[...])


def test_blosc_after_filters_takes_the_filtered_element_size(tmp_path):
    """numcodecs' Blosc shuffles by the filtered array's itemsize: 4 after AsType(f8 -> f4)."""
    filters = [numcodecs.AsType(encode_dtype="<f4", decode_dtype="<f8")]
    compressor = numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE)
    values = samples("<f4", 4).astype("<f8")  # exact in float32
    ours, theirs = both_write(tmp_path, "<f8", filters, values, compressor)
    for path in (ours, theirs):
        first = (path / "0.0").read_bytes()
        assert first[3] == 4, f"{path.name}: Blosc typesize {first[3]}"
    with zarr.config.set(DEFAULT):
        np.testing.assert_array_equal(zarr.open_array(str(ours), mode="r")[...], values)


def test_a_first_element_numcodecs_refuses_is_refused(tmp_path):
    path = tmp_path / "d.zarr"
    make(path, "<i4", [numcodecs.Delta(dtype="<i4", astype="<i2")], shape=(4,), chunks=(4,))
    with pytest.raises(OverflowError):
        numcodecs.Delta(dtype="<i4", astype="<i2").encode(np.array([70000, 1, 2, 3], "<i4"))
    with pytest.raises(zinto.ZintoError, match="delta.*element 0.*int16"):
        zinto.open(path)[...] = np.array([70000, 1, 2, 3], "<i4")
    # Into an unsigned type NumPy wraps the first element too: stored as numcodecs stores it.
    unsigned = tmp_path / "u.zarr"
    make(unsigned, "<i2", [numcodecs.Delta(dtype="<i2", astype="<u2")], shape=(4,), chunks=(4,))
    zinto.open(unsigned)[...] = np.array([-1, 5, -3, 2], "<i2")
    want_bytes = numcodecs.Delta(dtype="<i2", astype="<u2").encode(np.array([-1, 5, -3, 2], "<i2"))
    assert (unsigned / "0").read_bytes() == want_bytes.tobytes()
    zinto.open(path)[...] = np.array([7, 70000, -70000, 3], "<i4")  # differences wrap
    with zarr.config.set(DEFAULT):
        got = zarr.open_array(str(path), mode="r")[...]
    want = np.cumsum(np.array([7, 69993, -140000, 70003], "<i4").astype("<i2"), dtype="<i4")
    np.testing.assert_array_equal(got, want)


def test_delta_exempts_no_element_its_decoder_sums_after(tmp_path):
    """A difference stored as something else would shift every later element: delta refuses
    even the fill value's out-of-range difference (numcodecs stores whatever the cast makes,
    and the rows after it then read back shifted)."""
    path = tmp_path / "d.zarr"
    make(path, "<f8", [numcodecs.Delta(dtype="<f8", astype="<i2")], shape=(4,), chunks=(4,))
    with pytest.raises(zinto.ZintoError, match="delta.*element 2"):
        zinto.open(path)[...] = np.array([20000.0, 40000.0, 0.0, 5.0])


def test_values_numpy_leaves_undefined_are_refused_naming_the_filter(tmp_path):
    path = tmp_path / "u.zarr"
    make(path, "<f8", [numcodecs.FixedScaleOffset(offset=0, scale=10, dtype="<f8",
                                                  astype="|u1")], shape=(4,), chunks=(4,))
    arr = zinto.open(path)
    with pytest.raises(zinto.ZintoError, match="fixedscaleoffset.*element 2.*uint8"):
        arr[...] = np.array([1.0, 2.0, 30.0, 0.0])
    with pytest.raises(zinto.ZintoError, match="fixedscaleoffset.*element 0"):
        arr[...] = np.array([np.nan, 2.0, 3.0, 0.0])
    assert not (path / "0").exists(), "a refused chunk leaves nothing behind"


def test_filters_zinto_does_not_encode_are_refused_by_name(tmp_path):
    path = tmp_path / "q.zarr"
    make(path, "<i4", [numcodecs.FixedScaleOffset(offset=1, scale=2, dtype="<i4")],
         shape=(4,), chunks=(4,))
    with pytest.raises(zinto.ZintoError, match="fixedscaleoffset filter over integers"):
        zinto.open(path)[...] = np.arange(4, dtype=np.int32)
    path = tmp_path / "r.zarr"
    make(path, "<f8", [numcodecs.Quantize(digits=2, dtype="<f8")], shape=(4,), chunks=(4,))
    with pytest.raises(zinto.ZintoError, match="quantize"):
        zinto.open(path)[...] = np.arange(4.0)


def test_a_filter_in_another_byte_order_than_the_array_is_refused_not_misread(tmp_path):
    """numcodecs stores `Delta(dtype=">f8", astype="<f8")`'s elements little-endian in a
    big-endian array; zinto runs filters in the array's byte order, so it refuses the array
    (it read other numbers before this check)."""
    path = tmp_path / "e.zarr"
    make(path, ">f8", [numcodecs.Delta(dtype=">f8", astype="<f8")], shape=(6,), chunks=(6,))
    with zarr.config.set(DEFAULT):
        zarr.open_array(str(path), mode="r+")[...] = np.arange(6.0) * 3
    with pytest.raises(zinto.MetadataError, match="delta.*<f8.*another byte order"):
        zinto.open(path)
