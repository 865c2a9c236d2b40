"""Worker results' big arrays through shared memory (dashboard/transfer.py): the same arrays
bit for bit, ordinary writable arrays, no file left behind, and the usual pickle for small
arrays, arrays of objects, and when there is no room."""

from __future__ import annotations

import glob
import io
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

from dashboard import transfer, workqueue

pytestmark = pytest.mark.skipif(transfer.SHM_DIR is None, reason="no RAM-backed directory")


def _files(prefix=None):
    prefix = transfer.file_prefix(os.getppid()) if prefix is None else prefix
    return glob.glob(os.path.join(transfer.SHM_DIR, glob.escape(prefix) + "*"))


def _round_trip(obj):
    """Pickled as a worker pickles its result, unpickled as the server does."""
    buf = io.BytesIO()
    p = pickle.Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL)
    p.dispatch_table = {np.ndarray: transfer.reduce_array}
    p.dump(obj)
    return buf.getvalue()


def _result():
    rng = np.random.default_rng(0)
    big = rng.normal(size=(700, 1000))  # 5.6 MB
    return {
        "big": big,
        "fortran": np.asfortranarray(rng.normal(size=(600, 900))),  # 4.3 MB
        "view": big[:, ::2],  # 2.8 MB, not contiguous
        "int32": rng.integers(0, 5, size=(300_000, 2)).astype(np.int32),  # 2.4 MB
        "small": np.arange(10, dtype=np.int32),
        "objects": np.array([{"a": 1}] * 200_000, dtype=object),  # 1.6 MB of pointers
        "nested": [rng.normal(size=200_000), "label", 3.5],
    }


def test_big_arrays_come_back_equal_and_writable_and_leave_no_file():
    obj = _result()
    before = set(_files())
    data = _round_trip(obj)
    written = set(_files()) - before
    assert len(written) == 5  # big, fortran, view, int32, nested[0]: not small, not objects
    assert len(data) < 2_000_000  # the object array's pickle; no big array's bytes
    back = pickle.loads(data)
    assert set(_files()) - before == set()  # each name is gone as soon as it is mapped
    for key in ("big", "fortran", "view", "int32", "small", "objects"):
        np.testing.assert_array_equal(back[key], obj[key])
        assert back[key].dtype == obj[key].dtype and back[key].shape == obj[key].shape
        assert back[key].flags.writeable and back[key].flags.aligned
    assert back["fortran"].flags.f_contiguous and back["view"].flags.c_contiguous
    assert not back["big"].flags.owndata  # a view of the mapped file, not a copy
    np.testing.assert_array_equal(back["nested"][0], obj["nested"][0])
    assert back["nested"][1:] == ["label", 3.5]
    back["big"][0, 0] = 42.0  # a private copy on write: nothing else changes
    assert obj["big"][0, 0] != 42.0


def test_small_arrays_and_no_room_take_the_usual_way(monkeypatch):
    before = set(_files())
    a = np.ones(transfer.MIN_BYTES // 8 - 1)
    assert transfer.reduce_array(a) == a.__reduce__()
    big = np.ones(transfer.MIN_BYTES // 8)
    monkeypatch.setattr(transfer, "MAX_FREE_FRACTION", 1e-12)  # a full /dev/shm
    assert transfer.reduce_array(big) == big.__reduce__()
    monkeypatch.setattr(transfer, "SHM_DIR", None)  # no such directory (not Linux)
    assert transfer.reduce_array(big) == big.__reduce__()
    monkeypatch.undo()
    assert set(_files()) == before
    fn, args = transfer.reduce_array(big)  # and with room, a file
    assert fn is transfer.open_array and os.path.exists(args[0])
    np.testing.assert_array_equal(fn(*args), big)
    assert not os.path.exists(args[0])


def test_leftovers_of_one_prefix_are_removed(tmp_path):
    mine = transfer.file_prefix(123456789)
    paths = [os.path.join(transfer.SHM_DIR, mine + x) for x in ("a", "b")]
    other = os.path.join(transfer.SHM_DIR, transfer.file_prefix(1234567890) + "a")
    for p in (*paths, other):
        open(p, "wb").close()
    try:
        transfer.remove_leftovers(mine)
        assert not any(os.path.exists(p) for p in paths) and os.path.exists(other)
    finally:
        for p in (*paths, other):
            if os.path.exists(p):
                os.unlink(p)


def test_offloaded_big_results_come_back_through_shared_memory(monkeypatch):
    """A worker's 16 MB result: the direct call's, a view of shared memory, no file left."""
    monkeypatch.setattr(workqueue, "NICE_MIN_COST", 100)
    far = workqueue.offload(100, np.full, (2_000_000,), 1.5)
    np.testing.assert_array_equal(far, np.full(2_000_000, 1.5))
    assert far.flags.writeable
    assert not far.flags.owndata  # an unpickled copy owns its data; a mapped file does not
    assert _files(transfer.file_prefix()) == []


def test_a_new_server_removes_the_files_of_a_killed_one(tmp_path, monkeypatch):
    # A server killed with SIGKILL never runs its exit handler; its hand-over files must not
    # stay in RAM until reboot: the next server's start removes them, and only them.
    monkeypatch.setattr(transfer, "SHM_DIR", str(tmp_path))
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    orphan = tmp_path / f"{transfer.file_prefix(dead.pid)}abc"
    mine = tmp_path / f"{transfer.file_prefix()}def"
    other = tmp_path / "unrelated-file"
    for p in (orphan, mine, other):
        p.write_bytes(b"x" * 10)
    removed = transfer.remove_orphans()
    assert removed == [str(orphan)]
    assert not orphan.exists() and mine.exists() and other.exists()
