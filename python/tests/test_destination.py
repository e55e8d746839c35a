"""What a Python write may touch (issue 61): `zinto.create` and `zinto.save` keep a folder's
other files, refuse one that holds anything without ``overwrite=True``, never follow a link out
of the destination, and ``follow_symlinks=False`` means on writes what it means on reads."""

import os

import numpy as np
import pytest

import zinto


def test_a_folder_holding_files_is_refused_without_overwrite(tmp_path):
    dst = tmp_path / "d"
    (dst / "c").mkdir(parents=True)
    (dst / "notes.txt").write_text("mine")
    (dst / "c" / "0").write_text("also mine")
    with pytest.raises(FileExistsError, match="already holds c, notes.txt") as refused:
        zinto.save(dst, np.arange(10, dtype="int32"), chunks=5)
    assert isinstance(refused.value, zinto.ExistsError)
    assert isinstance(refused.value, zinto.MetadataError)
    assert (dst / "c" / "0").read_text() == "also mine"
    # Overwriting keeps the user's other files; c/0 is a chunk key of the new array, which a
    # stale file there would be read as: it goes.
    a = zinto.save(dst, np.arange(10, dtype="int32"), chunks=5, overwrite=True)
    assert (a[...] == np.arange(10)).all()
    assert (dst / "notes.txt").read_text() == "mine"
    # Over an array, the old chunks go: a chunk all fill value is not written again, and must
    # not read the old data.
    b = zinto.save(dst, np.zeros(10, dtype="int32"), chunks=5, overwrite=True)
    assert (b[...] == 0).all()
    assert sorted(os.listdir(dst)) == ["notes.txt", "zarr.json"]
    with pytest.raises(FileExistsError, match="zarr.json"):
        zinto.save(dst, np.arange(10, dtype="int32"), chunks=5)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_writes_never_follow_a_link_out_of_the_destination(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    dst = tmp_path / "d"
    dst.mkdir()
    (dst / "c").symlink_to(outside)
    with pytest.raises(zinto.StoreError, match="symbolic link"):
        zinto.save(dst, np.arange(10, dtype="int32"), chunks=5, overwrite=True)
    assert os.listdir(outside) == []
    # A link inside the destination that stays inside it is followed, unless refused.
    inside = tmp_path / "e"
    (inside / "real").mkdir(parents=True)
    (inside / "c").symlink_to(inside / "real")
    a = zinto.save(inside, np.arange(10, dtype="int32"), chunks=5, overwrite=True)
    assert (a[...] == np.arange(10)).all()
    with pytest.raises(zinto.StoreError, match="symbolic link"):
        zinto.save(inside, np.arange(10, dtype="int32"), chunks=5, overwrite=True,
                   follow_symlinks=False)
    # A write through an array opened refusing links refuses them too.
    strict = zinto.open(inside, follow_symlinks=False)
    with pytest.raises(zinto.StoreError, match="symbolic link"):
        strict[0:5] = np.ones(5, dtype="int32")


def test_follow_symlinks_is_refused_for_urls():
    with pytest.raises(ValueError, match="follow_symlinks=False applies to directories"):
        zinto.open("s3://bucket/x.zarr", follow_symlinks=False)
    with pytest.raises(ValueError, match="follow_symlinks=False applies to directories"):
        zinto.create("s3://bucket/x.zarr", (4,), "int32", 2, follow_symlinks=False)
