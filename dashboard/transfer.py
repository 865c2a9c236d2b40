"""Big arrays of the worker processes' results, handed to the server through shared memory.

A worker's result normally travels back pickled through a pipe: the worker copies every array
into the pickle, the pipe copies it again, and the server's result thread rebuilds the arrays
from it, holding the interpreter lock the other sessions' pages need.  SLB's per-fold density
maps of Sonar (25 folds) are 155 MB: that round trip cost 0.6-0.9 s of the 4 s a new
Sonar-sized table's Compare waited for (``benchmarks/dashboard_speed.py --modes started``).

:func:`reduce_array` is the worker pool's reducer of NumPy arrays (loky's
``result_reducers``, used when a worker pickles its result): an array of at least
:data:`MIN_BYTES` is written, as raw bytes, to a file of a RAM-backed directory
(:data:`SHM_DIR`, ``/dev/shm`` on Linux), and only the file's name, the dtype and the shape
travel in the pickle.  The server rebuilds it with :func:`open_array`: it maps the file
(private copy-on-write, so the array is writable as usual), removes its name at once (the
memory lives as long as the array does) and views the mapped bytes: no copy.  The array is
the same, bit for bit, and the rest of the result is pickled as before (loky stays the only
unpickler: this module reads raw array bytes only).

Small arrays, arrays of Python objects, and every array when the directory is missing (not
Linux) or short of room (a container's 64 MB ``/dev/shm``) are pickled as usual.

Why by hand: the standard library's ``multiprocessing.shared_memory`` needs the receiver to
close and unlink each block explicitly, and joblib's memmapping covers arguments, not results;
a reducer and one mapped file per array do the job in a few lines.
"""

from __future__ import annotations

import atexit
import glob
import mmap
import os
import tempfile

import numpy as np

#: RAM-backed directory of the hand-over files (None: no such directory, arrays are pickled).
SHM_DIR = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
#: Arrays of at least this many bytes go through :data:`SHM_DIR` (a fold's maps of a
#: 1,000-row upload are 2.7 MB; below, a file and a mapping are not worth it).
MIN_BYTES = 2**20
#: The files may take at most this fraction of the directory's free space.
MAX_FREE_FRACTION = 0.5


def file_prefix(pid: int | None = None) -> str:
    """Name prefix of the hand-over files of the server process ``pid`` (default: this one)."""
    return f"slb-result-{os.getpid() if pid is None else int(pid)}-"


def reduce_array(a: np.ndarray):
    """In a worker: how ``a`` is pickled (a ``copyreg``-style reducer).

    Parameters
    ----------
    a : ndarray

    Returns
    -------
    reduce : tuple
        ``(open_array, (path, dtype, shape, fortran))`` once ``a`` is written to a file of
        :data:`SHM_DIR` (named with the prefix of the worker's parent, the server, which
        removes leftovers at exit); else NumPy's own reduction.
    """
    if SHM_DIR is None or a.dtype.hasobject or a.nbytes < MIN_BYTES or not _room_for(a.nbytes):
        return a.__reduce__()
    fortran = bool(a.flags.f_contiguous and not a.flags.c_contiguous)
    raw = a.T if fortran else np.ascontiguousarray(a)  # C order either way
    fd, path = tempfile.mkstemp(prefix=file_prefix(os.getppid()), dir=SHM_DIR)
    try:
        with os.fdopen(fd, "wb") as f:
            raw.tofile(f)
    except OSError:  # the directory filled up meanwhile: the usual way
        _remove(path)
        return a.__reduce__()
    return open_array, (path, a.dtype, a.shape, fortran)


def open_array(path: str, dtype, shape: tuple, fortran: bool) -> np.ndarray:
    """In the server: the array :func:`reduce_array` wrote to ``path``, a view of the mapped
    file (whose name is removed whatever happens)."""
    try:
        with open(path, "rb") as f:
            mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
    finally:
        _remove(path)
    flat = np.frombuffer(mm, dtype=dtype, count=int(np.prod(shape, dtype=np.int64)))
    return flat.reshape(shape, order="F" if fortran else "C")


def remove_leftovers(prefix: str) -> None:
    """Remove hand-over files of ``prefix`` that were never opened (a result lost with its
    worker, a server stopped while waiting)."""
    if SHM_DIR is None:
        return
    for path in glob.glob(os.path.join(SHM_DIR, glob.escape(prefix) + "*")):
        _remove(path)


def register_cleanup() -> None:
    """Remove this server process's leftover hand-over files when it exits, and now those of
    servers that died without exiting (:func:`remove_orphans`)."""
    remove_orphans()
    atexit.register(remove_leftovers, file_prefix())


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. another user's process: alive, not ours to judge
        return True
    return True


def remove_orphans() -> list[str]:
    """Remove hand-over files whose server process no longer exists.

    A server or worker killed mid-transfer (``kill -9``, out of memory) never runs its exit
    handler, and its files would stay in RAM-backed ``/dev/shm`` until reboot (a 400 MB file
    was seen).  The next server to start removes every ``slb-result-<pid>-*`` file whose
    ``<pid>`` is not a running process.

    Returns
    -------
    removed : list of str
        The paths removed.
    """
    if SHM_DIR is None:
        return []
    removed = []
    for path in glob.glob(os.path.join(SHM_DIR, "slb-result-*-*")):
        pid = os.path.basename(path).split("-")[2]
        if pid.isdigit() and not _alive(int(pid)):
            _remove(path)
            removed.append(path)
    return removed


def _room_for(nbytes: int) -> bool:
    try:
        st = os.statvfs(SHM_DIR)
    except OSError:
        return False
    return nbytes <= MAX_FREE_FRACTION * st.f_bavail * st.f_frsize


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
