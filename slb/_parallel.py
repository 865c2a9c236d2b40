"""Threading helpers shared by the dependence and density code.

The matrix products here are much faster with a single BLAS thread on a busy machine (two-thread
OpenBLAS was 2-5x slower for them on the shared 2-core development machine: its threads spin
and wait for each other), and our own worker threads must not each start a BLAS team.
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


def run_tasks(tasks, n_jobs):
    """Run ``(function, args)`` tasks, in ``n_jobs`` threads (BLAS limited to one meanwhile)."""
    if n_jobs <= 1 or len(tasks) <= 1:
        return [f(*a) for f, a in tasks]
    from joblib import Parallel, delayed

    with one_blas_thread():
        return Parallel(n_jobs=min(n_jobs, len(tasks)), prefer="threads")(
            delayed(f)(*a) for f, a in tasks
        )
