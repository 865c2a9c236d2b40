"""Worker results through shared memory (dashboard/transfer.py): the same object bit for bit,
ordinary writable arrays, no file left behind, and the usual pickle when there is no room."""

from __future__ import annotations

import glob
import os

import numpy as np
import pytest

from dashboard import transfer, workqueue

pytestmark = pytest.mark.skipif(transfer.SHM_DIR is None, reason="no RAM-backed directory")


def _prefix(tmp_path):
    return f"slb-result-test-{os.getpid()}-{tmp_path.name}-"


def _files(prefix):
    return glob.glob(os.path.join(transfer.SHM_DIR, prefix + "*"))


def _result():
    rng = np.random.default_rng(0)
    big = rng.normal(size=(700, 1000))  # 5.6 MB
    return {
        "big": big,
        "fortran": np.asfortranarray(rng.normal(size=(600, 900))),  # 4.3 MB
        "ints": np.arange(10, dtype=np.int32),  # small: stays in the pickle
        "view": big[:, ::2],  # not contiguous: in the pickle
        "nested": [rng.integers(0, 5, size=300_000), "label", 3.5],
    }


def test_big_results_come_back_equal_and_writable_and_leave_no_file(tmp_path):
    obj, prefix = _result(), _prefix(tmp_path)
    shipped = transfer.pack(obj, prefix)
    assert isinstance(shipped, transfer.Shipped)
    assert len(shipped.spans) == 3  # the three big contiguous buffers, not the small ones
    assert len(shipped.payload) < 2_900_000  # the view (2.8 MB, copied) and the small values
    assert _files(prefix) == [shipped.path]
    back = transfer.unpack(shipped)
    assert _files(prefix) == []  # the name is gone as soon as it is mapped
    for key in ("big", "fortran", "ints", "view"):
        np.testing.assert_array_equal(back[key], obj[key])
        assert back[key].dtype == obj[key].dtype
        assert back[key].flags.f_contiguous == obj[key].flags.f_contiguous
        assert back[key].flags.writeable and back[key].flags.aligned
    np.testing.assert_array_equal(back["nested"][0], obj["nested"][0])
    assert back["nested"][1:] == ["label", 3.5]
    back["big"][0, 0] = 42.0  # a private copy on write: nothing else changes
    assert obj["big"][0, 0] != 42.0
    assert transfer.unpack(shipped.payload) == shipped.payload  # anything else: unchanged


def test_small_unpicklable_or_roomless_results_take_the_usual_way(tmp_path, monkeypatch):
    prefix = _prefix(tmp_path)
    small = {"a": np.ones(1000)}
    assert transfer.pack(small, prefix) is small
    monkeypatch.setattr(transfer, "MAX_FREE_FRACTION", 1e-12)  # a full /dev/shm
    obj = _result()
    assert transfer.pack(obj, prefix) is obj
    assert _files(prefix) == []
    unpicklable = [np.ones(2**20), lambda: 1]  # pickle cannot, loky's cloudpickle can
    assert transfer.pack(unpicklable, prefix) is unpicklable
    monkeypatch.setattr(transfer, "SHM_DIR", None)  # no such directory (not Linux)
    assert transfer.pack(obj, prefix) is obj


def test_leftovers_of_one_prefix_are_removed(tmp_path):
    mine, other = _prefix(tmp_path), _prefix(tmp_path) + "other-"
    a = transfer.pack(_result(), mine)
    b = transfer.pack(_result(), other + "x")
    try:
        transfer.remove_leftovers(mine + "x")  # not a prefix of either: nothing removed
        assert os.path.exists(a.path) and os.path.exists(b.path)
        transfer.remove_leftovers(other)
        assert os.path.exists(a.path) and not os.path.exists(b.path)
    finally:
        transfer.remove_leftovers(mine)
    assert _files(mine) == []


def test_offloaded_big_results_come_back_through_shared_memory(monkeypatch):
    """A worker's 16 MB result: the direct call's, with no hand-over file left."""
    monkeypatch.setattr(workqueue, "NICE_MIN_COST", 100)
    far = workqueue.offload(100, np.full, (2_000_000,), 1.5)
    np.testing.assert_array_equal(far, np.full(2_000_000, 1.5))
    assert far.flags.writeable
    assert not far.flags.owndata  # a view of the mapped file (an unpickled copy owns its data)
    assert _files(transfer.file_prefix()) == []
