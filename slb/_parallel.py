"""Parallel helpers shared by the dependence, density and selection code, all through joblib.

Two kinds of work:

* **shared-memory pieces** (HSIC panels, binned pair densities): small tasks that write into
  one output array; they always run in threads of this process (``backend="threading"``,
  whatever joblib backend is active), BLAS limited to one thread meanwhile.  The matrix products
  here are much faster with a single BLAS thread on a busy machine (two-thread OpenBLAS was
  2-5x slower for them on the shared 2-core development machine: its threads spin and wait for
  each other), and our own worker threads must not each start a BLAS team.
* **independent units** (one inner fold's screening and densities, one fold's SVM grid):
  ``run_tasks(..., distribute=True)``.  By default they run here as before (threads when asked);
  when the caller has chosen a joblib backend that is not one of joblib's local ones, e.g.::

      from dask.distributed import Client
      with Client(...), joblib.parallel_backend("dask"):
          SLBClassifier().fit(X, y)

  they are handed to that backend (one task per fold), unchanged.  Results never depend on
  where a task runs: every task is deterministic given its inputs.
"""

from __future__ import annotations

import os
from contextlib import nullcontext

import numpy as np

# ---------------------------------------------------------------------------------------------
# threading helpers
# ---------------------------------------------------------------------------------------------
_BLAS_CONTROLLER = None


def one_blas_thread():
    """Context manager limiting BLAS to one thread (no-op when threadpoolctl cannot)."""
    global _BLAS_CONTROLLER
    try:
        if _BLAS_CONTROLLER is None:
            from threadpoolctl import ThreadpoolController

            _BLAS_CONTROLLER = ThreadpoolController()
        return _BLAS_CONTROLLER.limit(limits=1, user_api="blas")
    except Exception:  # pragma: no cover - threadpoolctl missing or unsupported BLAS
        return nullcontext()


def resolve_n_jobs(n_jobs):
    """Worker threads for ``n_jobs``; -1 all CPUs, -2 all but one, ...

    None (the default) means ``min(2, CPUs)`` when the one-minute load average (which counts
    this process too) is below ``CPUs - 0.5``, i.e. nobody else is busy, else 1: on the busy shared two-core machine this library is developed on, two threads
    (BLAS limited to one each) were 0-60 % *slower* than one for the HSIC panels, while on the
    same machine idle they were ~1.4x faster (``benchmarks/speed.py`` prints both).  Results do
    not depend on the number of threads (the work is split the same way).
    """
    cpus = os.cpu_count() or 1
    if n_jobs is None:
        try:
            busy = os.getloadavg()[0] > cpus - 0.5
        except (AttributeError, OSError):  # pragma: no cover - platforms without loadavg
            busy = True
        return 1 if busy else max(1, min(2, cpus))
    n_jobs = int(n_jobs)
    if n_jobs == 0:
        raise ValueError("n_jobs == 0 has no meaning; use None, a positive number or -1.")
    if n_jobs < 0:
        return max(1, cpus + 1 + n_jobs)
    return n_jobs


def check_n_jobs(n_jobs):
    """Raise a ValueError unless ``n_jobs`` is None or a non-zero integer."""
    ok = n_jobs is None or (
        isinstance(n_jobs, (int, np.integer)) and not isinstance(n_jobs, bool) and n_jobs != 0
    )
    if not ok:
        raise ValueError(
            f"n_jobs must be None, a positive number of threads or -1 (all CPUs), got {n_jobs!r}."
        )


#: joblib's own backends: with one of these active, ``distribute=True`` tasks stay local.
_LOCAL_BACKENDS = ("LokyBackend", "ThreadingBackend", "MultiprocessingBackend", "SequentialBackend")


def distributed_backend():
    """Whether the caller activated a joblib backend beyond joblib's local ones (dask, ray, ...).

    Returns
    -------
    active : bool
        True inside e.g. ``with joblib.parallel_backend("dask"):``.
    """
    from joblib.parallel import get_active_backend

    backend, _ = get_active_backend()
    return type(backend).__name__ not in _LOCAL_BACKENDS


def run_tasks(tasks, n_jobs, *, distribute=False):
    """Run ``(function, args)`` tasks and return their results in order.

    Parameters
    ----------
    tasks : list of (callable, tuple)
    n_jobs : int
        Local threads (BLAS limited to one meanwhile); 1 runs the tasks in this thread.
    distribute : bool, default=False
        The tasks are independent units (no shared output): under a non-local joblib backend
        (:func:`distributed_backend`) they go to that backend, all at once.  Otherwise (and
        always for ``distribute=False``) they run in local threads, whatever backend is active:
        shared-memory tasks write into their arguments, which another process would not see.

    Returns
    -------
    results : list
    """
    from joblib import Parallel, delayed

    if distribute and len(tasks) > 1 and distributed_backend():
        return Parallel(n_jobs=-1)(delayed(f)(*a) for f, a in tasks)
    if n_jobs <= 1 or len(tasks) <= 1:
        return [f(*a) for f, a in tasks]
    with one_blas_thread():
        return Parallel(n_jobs=min(n_jobs, len(tasks)), backend="threading")(
            delayed(f)(*a) for f, a in tasks
        )
