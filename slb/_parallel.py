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
    """Worker threads for ``n_jobs``, as scikit-learn reads it.

    Parameters
    ----------
    n_jobs : int or None
        None (the default everywhere in this library) means one thread, as in scikit-learn;
        a positive number that many threads; -1 all CPUs, -2 all but one, ...  Results do not
        depend on it (the work is split the same way whatever the number of threads).

    Returns
    -------
    n_threads : int
        At least 1.

    Examples
    --------
    >>> from slb._parallel import resolve_n_jobs
    >>> resolve_n_jobs(None), resolve_n_jobs(3)
    (1, 3)
    >>> import os
    >>> resolve_n_jobs(-1) == (os.cpu_count() or 1)
    True
    """
    cpus = os.cpu_count() or 1
    if n_jobs is None:
        return 1
    n_jobs = int(n_jobs)
    if n_jobs == 0:
        raise ValueError("n_jobs == 0 has no meaning; use None, a positive number or -1.")
    if n_jobs < 0:
        return max(1, cpus + 1 + n_jobs)
    return n_jobs


def idle_n_jobs(max_jobs=2):
    """Threads (or processes) worth starting now: ``min(max_jobs, CPUs)`` when the one-minute
    load average (which counts this process too) is below ``CPUs - 0.5``, i.e. nobody else is
    busy, else 1.

    Not a default of any estimator (``n_jobs=None`` is one thread): a caller that wants
    parallelism only on an idle machine passes ``n_jobs=idle_n_jobs()`` explicitly, as the
    dashboard does for its cross-validation processes.  On the busy shared two-core machine this
    library is developed on, two threads (BLAS limited to one each) were 0-60 % *slower* than
    one for the HSIC panels, while on the same machine idle they were ~1.4x faster
    (``benchmarks/speed.py`` prints both).

    Parameters
    ----------
    max_jobs : int, default=2

    Returns
    -------
    n : int
        Between 1 and ``max_jobs``.

    Examples
    --------
    >>> from slb._parallel import idle_n_jobs
    >>> 1 <= idle_n_jobs() <= 2
    True
    """
    cpus = os.cpu_count() or 1
    try:
        busy = os.getloadavg()[0] > cpus - 0.5
    except (AttributeError, OSError):  # pragma: no cover - platforms without loadavg
        busy = True
    return 1 if busy else max(1, min(int(max_jobs), cpus))


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
