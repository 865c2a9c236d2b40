"""Big results of the worker processes, handed to the server through shared memory.

A worker's result normally travels back pickled through a pipe: the worker copies it into a
pickle, the pipe copies it again, and the server's result thread unpickles it into new arrays,
holding the interpreter lock the other sessions' pages need.  SLB's per-fold density maps of
Sonar (25 folds) are 155 MB: that round trip cost 0.6-0.9 s of the 4 s a new Sonar-sized
table's Compare waits for (``benchmarks/dashboard_speed.py --modes started``).

Here the worker pickles its result with protocol 5 and keeps the big array buffers *out of
band* (:pep:`574`): it writes them, one after the other, to a file in a RAM-backed directory
(:data:`SHM_DIR`, ``/dev/shm`` on Linux) and returns only the small pickle and the buffers'
places.  The server maps the file (private copy-on-write, so the arrays are writable as
usual), removes its name at once (the memory lives as long as the arrays do) and unpickles
with the mapped buffers: the arrays are views of the file's pages, not copies.  The result is
the same object, bit for bit.

Results whose buffers are small, and every result when the directory is missing (not Linux)
or has too little room (a container's 64 MB ``/dev/shm``), travel the usual way.

Why by hand: the standard library's ``multiprocessing.shared_memory`` needs the receiver to
know the sizes in advance and to close and unlink each block explicitly, and joblib's memmaps
cover arguments, not results; pickle's out-of-band buffers and one mapped file do the job in a
few lines.
"""

from __future__ import annotations

import atexit
import glob
import mmap
import os
import pickle
import tempfile
from dataclasses import dataclass

#: RAM-backed directory of the hand-over files (None: no such directory, results travel pickled).
SHM_DIR = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
#: Results with at least this many bytes of array data go through :data:`SHM_DIR`.
MIN_BYTES = 2**20
#: Buffers below this size stay inside the pickle (one file write each is not worth it).
MIN_BUFFER_BYTES = 64 * 2**10
#: The files may take at most this fraction of the directory's free space.
MAX_FREE_FRACTION = 0.5
_ALIGN = 64  # each buffer starts on a cache line (numpy's arrays are then aligned)


@dataclass(frozen=True)
class Shipped:
    """A result whose big buffers wait in a file of :data:`SHM_DIR`.

    Attributes
    ----------
    payload : bytes
        The result pickled with protocol 5, big buffers out of band.
    path : str
        The file holding the buffers.
    spans : tuple of (int, int)
        Offset and length of each out-of-band buffer in the file, in pickling order.
    """

    payload: bytes
    path: str
    spans: tuple


def file_prefix(pid: int | None = None) -> str:
    """Name prefix of the hand-over files of the server process ``pid`` (default: this one)."""
    return f"slb-result-{os.getpid() if pid is None else int(pid)}-"


def pack(obj, prefix: str):
    """In a worker: ``obj`` as a :class:`Shipped` when its big buffers fit in
    :data:`SHM_DIR`, else ``obj`` itself.

    Parameters
    ----------
    obj : object
        The result; anything picklable.
    prefix : str
        Name prefix of the file (:func:`file_prefix` of the server, which removes leftovers
        at exit).

    Returns
    -------
    Shipped or object
    """
    if SHM_DIR is None:
        return obj
    buffers = []

    def out_of_band(buf):
        if buf.raw().nbytes < MIN_BUFFER_BYTES:
            return True  # in band
        buffers.append(buf)
        return False

    try:
        payload = pickle.dumps(obj, protocol=5, buffer_callback=out_of_band)
    except Exception:  # e.g. a local function inside: loky's cloudpickle may still manage
        return obj
    views = [buf.raw() for buf in buffers]
    total = sum(_aligned(v.nbytes) for v in views)
    if total < MIN_BYTES or not _room_for(total):
        return obj
    fd, path = tempfile.mkstemp(prefix=prefix, dir=SHM_DIR)
    try:
        spans, offset = [], 0
        with os.fdopen(fd, "wb") as f:
            for v in views:
                f.write(v)
                spans.append((offset, v.nbytes))
                pad = _aligned(v.nbytes) - v.nbytes
                f.write(b"\0" * pad)
                offset += v.nbytes + pad
    except OSError:  # the directory filled up meanwhile: the usual way
        _remove(path)
        return obj
    return Shipped(payload, path, tuple(spans))


def unpack(result):
    """In the server: the object a worker's :func:`pack` shipped (anything else unchanged).

    The file's name is removed whatever happens; its memory is freed with the last array
    that views it.
    """
    if not isinstance(result, Shipped):
        return result
    try:
        with open(result.path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            mm = mmap.mmap(f.fileno(), size, access=mmap.ACCESS_COPY)
    finally:
        _remove(result.path)
    view = memoryview(mm)
    buffers = [view[offset : offset + n] for offset, n in result.spans]
    return pickle.loads(result.payload, buffers=buffers)


def remove_leftovers(prefix: str) -> None:
    """Remove hand-over files of ``prefix`` that were never unpacked (a worker that died
    after writing, a server stopped while waiting)."""
    if SHM_DIR is None:
        return
    for path in glob.glob(os.path.join(SHM_DIR, glob.escape(prefix) + "*")):
        _remove(path)


def register_cleanup() -> None:
    """Remove this server process's leftover hand-over files when it exits."""
    atexit.register(remove_leftovers, file_prefix())


def _aligned(n: int) -> int:
    return -(-n // _ALIGN) * _ALIGN


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
