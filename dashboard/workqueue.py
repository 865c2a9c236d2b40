"""One queue for the heavy computations of every session of a server process.

A class on one server: when everybody opens Compare at once, each session's fits compete for
the same cores and everybody waits for everybody (8 sessions took 98 s each).  Here at most
:data:`SLOTS` heavy computations (cache misses: screening, per-fold densities, cross-validation,
fits, uploads) run at once; the others wait in line, in order of arrival except that the
steps of one session's visit keep the place of its first (:class:`SessionRanks`), and their
page shows their place ("waiting for 3 computations ahead of yours").  Cached results never
wait.

Usage: decorate the *body* of a cached function (under ``st.cache_data``/``st.cache_resource``)
with :func:`queued`; a computation that calls another queued one from the same thread keeps its
slot (no deadlock).  The waiting notice is drawn from a helper thread that carries the
session's script context: element calls there are not recorded by ``st.cache_data``'s replay
(its recording is context-local), so a cached result never replays a stale notice.  Carrying
the context (and quieting the warm-up threads' missing-context warnings) needs Streamlit's
runtime entries, which no ``st.*`` API replaces (``st.context`` describes the browser's request,
not the script thread): they are reached through :mod:`dashboard._streamlit_compat` only, as
Streamlit's own multithreading guide reaches them, and fail soft there.

Lock order (no deadlock with Streamlit's per-key compute locks): ``st.cache_*`` holds a lock on
the value being computed while the function runs, so a session waiting in line holds the lock
of its *outermost* queued function.  A queued function must therefore never call, inside its
slot, a cached function that is itself queued *and* called from elsewhere: shared inner
computations (``threshold_path``, ``folds``, the layouts) are cached but not queued, and every
queued function that needs them is the outermost call of its page.

``SLB_HEAVY_SLOTS`` sets the number of slots (default: the number of CPUs, at least 1).

Big computations in niced worker processes (:func:`offload`).  A slot bounds how many heavy
computations run, not how much CPU each takes from the light ones beside it: a big upload's
cross-validation in the server's own process competes for the same cores and the same
interpreter lock as every light session's page.  Work on data costing at least
:data:`NICE_MIN_COST` (rows² x features x repeats) therefore runs in a worker process at
``nice`` :data:`WORKER_NICE`: the operating system gives the cores to the server's light work
first, and the server thread of the heavy session only waits for the result (releasing the
interpreter lock).  ``SLB_NICE_MIN_COST`` and ``SLB_WORKER_NICE`` (0: off) change them.
"""

from __future__ import annotations

import collections
import functools
import logging
import os
import sys
import threading
import time
from contextlib import contextmanager

import numpy as np

from . import transfer
from ._streamlit_compat import (
    attach_ctx,
    quiet_cache_without_runtime,
    script_run_context_logger,
    script_run_ctx,
)

#: Data cost (rows² x features x repeats) from which :func:`offload` uses a worker process:
#: Sonar with 5 repeats is 13 M, a 1,000-row upload of 20 features 20 M, a class's small
#: uploads (100 x 6, 5 repeats) 0.3 M.
NICE_MIN_COST = int(os.environ.get("SLB_NICE_MIN_COST", str(5_000_000)))
#: Niceness of the worker processes (0: no worker processes, everything runs in the server).
WORKER_NICE = int(os.environ.get("SLB_WORKER_NICE", "10"))


class _Ticket:
    """A place in :class:`WorkQueue`'s line."""

    __slots__ = ("rank",)

    def __init__(self, rank: float):
        self.rank = rank


def _default_slots() -> int:
    env = os.environ.get("SLB_HEAVY_SLOTS", "")
    try:
        return max(1, int(env)) if env else max(1, os.cpu_count() or 1)
    except ValueError:
        return max(1, os.cpu_count() or 1)


#: A session's computations that follow each other within this many seconds (the 4-6 queued
#: steps of one page visit) keep the place in line of the first (:class:`SessionRanks`).
BURST_GAP_S = 2.0
#: ... but for at most this long after the burst's first computation was admitted (time spent
#: waiting in line does not count), so a busy session cannot starve the others.
BURST_MAX_S = 60.0


class SessionRanks:
    """A session's place in line: the time its current burst of computations began.

    Without it every session goes to the back of the line for each queued step of its page
    (screening, SLB's path, TAN, NB, the full-data fit...), so with a class of 30 all finish
    together; ranked by the burst's start, a visit that began first finishes first.  Measured
    with 30 AppTest classroom sessions at once (``benchmarks/dashboard_speed.py --modes class
    --sessions 30 --baseline <before>``, one run, load 1.8-4.5): median completion 28.9 s
    appended, 15.9 s ranked; CPU per session 0.73 s and 0.71 s.
    """

    def __init__(self, gap: float = BURST_GAP_S, longest: float = BURST_MAX_S):
        self.gap, self.longest = gap, longest
        self._lock = threading.Lock()
        # session -> [rank (burst start), last activity, running, first admission or None]
        self._bursts: dict = {}

    def rank(self, session, now: float | None = None) -> float:
        """The rank of a new computation of ``session`` (None: no session, its arrival)."""
        now = time.monotonic() if now is None else now
        if session is None:
            return now
        with self._lock:
            b = self._bursts.get(session)
            if (
                b is None
                or (b[2] == 0 and now - b[1] > self.gap)
                or (b[3] is not None and now - b[3] > self.longest)
            ):
                b = self._bursts[session] = [now, now, 0, None]
            b[2] += 1
            b[1] = now
            if len(self._bursts) > 1000:  # forget sessions idle for long
                for k in [k for k, v in self._bursts.items() if now - v[1] > 600 and not v[2]]:
                    del self._bursts[k]
            return b[0]

    def admitted(self, session, now: float | None = None) -> None:
        """A computation of ``session`` got its slot (the burst's limit counts from the first)."""
        if session is None:
            return
        with self._lock:
            b = self._bursts.get(session)
            if b is not None and b[3] is None:
                b[3] = time.monotonic() if now is None else now

    def pending(self, session) -> int:
        """Computations of ``session`` running or waiting (its queued calls not yet done)."""
        with self._lock:
            b = self._bursts.get(session)
            return 0 if b is None else int(b[2])

    def done(self, session, now: float | None = None) -> None:
        """A computation of ``session`` ended (its burst goes on if another follows soon)."""
        if session is None:
            return
        with self._lock:
            b = self._bursts.get(session)
            if b is not None:
                b[2] = max(0, b[2] - 1)
                b[1] = time.monotonic() if now is None else now


class WorkQueue:
    """Admission of at most ``slots`` computations at once, in order of rank.

    Parameters
    ----------
    slots : int
        Computations allowed to run at the same time.

    Notes
    -----
    ``threading.Semaphore`` does not serve waiters in order; a class of users waiting for
    their Compare page should, so the waiters form an explicit line of tickets, ordered by
    rank (the arrival time by default: first come, first served; :func:`queued` gives a
    session's steps of one visit the rank of its first, :class:`SessionRanks`), ties in order
    of arrival.
    """

    def __init__(self, slots: int):
        self.slots = int(slots)
        self._cond = threading.Condition()
        self._active = 0
        self._spare = 0  # uncounted slots of background prefetches (:meth:`spare`)
        self._line: collections.deque = collections.deque()
        self._held = threading.local()

    # -- state -----------------------------------------------------------------------------
    def snapshot(self) -> tuple[int, int]:
        """``(running, waiting)`` computations right now (spare ones included)."""
        with self._cond:
            return self._active + self._spare, len(self._line)

    def counted(self) -> tuple[int, int]:
        """``(running, waiting)`` computations, background spares aside."""
        with self._cond:
            return self._active, len(self._line)

    def holding(self) -> bool:
        """True in a thread that holds a slot (nested queued calls do not queue again)."""
        return getattr(self._held, "depth", 0) > 0

    # -- admission -------------------------------------------------------------------------
    @contextmanager
    def slot(self, on_wait=None, poll: float = 0.5, rank: float | None = None):
        """Hold a slot for the block; wait in line first when all are taken.

        Parameters
        ----------
        on_wait : callable or None
            Called as ``on_wait(ahead, running)`` (outside the lock) whenever the number of
            computations ahead in line changes while waiting, and as ``on_wait(None, None)``
            once the slot is granted after a wait.
        poll : float
            Seconds between checks of the line.
        rank : float or None
            Place in line: behind every ticket of a rank at most this one (None: the arrival
            time, ``time.monotonic()``, i.e. at the back).
        """
        if self.holding():
            self._held.depth += 1
            try:
                yield
            finally:
                self._held.depth -= 1
            return
        ticket = _Ticket(time.monotonic() if rank is None else float(rank))
        waited, shown = False, None
        with self._cond:
            k = len(self._line)
            while k > 0 and self._line[k - 1].rank > ticket.rank:
                k -= 1
            self._line.insert(k, ticket)
        try:
            while True:
                with self._cond:
                    if self._active < self.slots and self._line[0] is ticket:
                        self._line.popleft()
                        self._active += 1
                        self._cond.notify_all()
                        break
                    ahead = self._line.index(ticket)
                    running = self._active
                    if shown == (ahead, running):
                        self._cond.wait(timeout=poll)
                        continue
                waited, shown = True, (ahead, running)
                if on_wait is not None:
                    on_wait(ahead, running)
        except BaseException:
            with self._cond:
                if ticket in self._line:
                    self._line.remove(ticket)
                self._cond.notify_all()
            raise
        if waited and on_wait is not None:
            on_wait(None, None)
        self._held.depth = 1
        try:
            yield
        finally:
            self._held.depth = 0
            with self._cond:
                self._active -= 1
                self._cond.notify_all()

    def spare_free(self) -> bool:
        """Whether :meth:`spare` would grant a slot now (a counted slot free, nobody waiting)."""
        with self._cond:
            return self._spare_free()

    def _spare_free(self) -> bool:
        return self._active < self.slots and not self._line

    @contextmanager
    def spare(self):
        """An uncounted slot for a background prefetch; yields whether it was granted.

        Granted only while a counted slot is free and nobody waits; computations arriving later
        are admitted as if it were not there, so a prefetch never makes a session wait (it
        competes for the CPU instead, which is why big work runs in niced processes:
        :func:`offload`).  Queued calls inside it do not queue again (as nested calls).
        """
        with self._cond:
            granted = self._spare_free() and not self.holding()
            if granted:
                self._spare += 1
        if not granted:
            yield False
            return
        self._held.depth = 1
        try:
            yield True
        finally:
            self._held.depth = 0
            with self._cond:
                self._spare -= 1
                self._cond.notify_all()


#: The process-wide queue of heavy computations.
QUEUE = WorkQueue(_default_slots())
#: The sessions' places in :data:`QUEUE`'s line (:func:`queued`).
RANKS = SessionRanks()


def waiting_text(ahead: int, running: int) -> str:
    """The notice of a waiting session."""
    others = ahead + running
    return (
        f"The server is busy: waiting for {others} other computation{'s' if others != 1 else ''} "
        f"({running} running, {ahead} ahead of yours in line). Yours starts as soon as a slot "
        "is free; nothing needs to be pressed."
    )


class _Notice:
    """A waiting notice in the page of the session whose script thread is waiting."""

    def __init__(self):
        self.ctx = script_run_ctx()
        self.box = None

    def _in_session(self, fn) -> None:
        # A helper thread with the session's context: its element calls reach the page but
        # are not recorded by the cached function being computed on the script thread.
        def run():
            try:
                fn()
            except Exception:  # a notice must never break the computation
                pass

        t = threading.Thread(target=run, name="slb-queue-notice", daemon=True)
        attach_ctx(t, self.ctx)
        t.start()
        t.join(timeout=5)

    def __call__(self, ahead, running) -> None:
        if self.ctx is None:
            return
        import streamlit as st

        if ahead is None:
            if self.box is not None:
                self._in_session(self.box.empty)
            return
        if self.box is None:

            def make():
                self.box = st.empty()

            self._in_session(make)
        if self.box is not None:
            text = waiting_text(ahead, running)
            self._in_session(lambda: self.box.info(text, icon=":material/hourglass_top:"))


class _QuietThreads(logging.Filter):
    """Drops Streamlit's "missing ScriptRunContext" warnings of the named background threads
    (the warm-up, the Compare page's prefetch: they call the cached functions outside any
    session on purpose); other threads' records pass."""

    def __init__(self):
        super().__init__()
        self.names: set = set()

    def filter(self, record: logging.LogRecord) -> bool:
        return record.threadName not in self.names


_QUIET = _QuietThreads()


def quiet_thread_logs(name: str) -> None:
    """Silence Streamlit's missing-context warnings of the thread called ``name``."""
    logger = script_run_context_logger()
    if _QUIET not in logger.filters:
        logger.addFilter(_QUIET)
    _QUIET.names.add(name)


def switch(variable: str) -> bool:
    """A background job's on/off switch: the environment ``variable`` (``0`` off, anything else
    on), by default on except inside pytest (AppTest runs count what the pages compute; a
    test that wants the job sets the variable)."""
    flag = os.environ.get(variable, "").strip()
    if flag:
        return flag != "0"
    return "pytest" not in sys.modules


def current_session():
    """The id of the session whose script runs in this thread (None outside a session)."""
    return getattr(script_run_ctx(), "session_id", None)


def others_busy(session) -> bool:
    """Whether a computation that is not ``session``'s runs or waits in :data:`QUEUE`
    (background spares aside; ``session`` None: any computation)."""
    running, waiting = QUEUE.counted()
    return running + waiting > (RANKS.pending(session) if session is not None else 0)


def queued(fn):
    """Run ``fn`` holding a slot of :data:`QUEUE`, showing the session its place while waiting.

    Apply it *under* the caching decorator so that only cache misses queue::

        @st.cache_data(...)
        @queued
        def heavy(...): ...
    """

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        if QUEUE.holding():  # a nested call keeps its slot
            with QUEUE.slot():
                return fn(*args, **kwargs)
        session = current_session()
        try:
            with QUEUE.slot(on_wait=_Notice(), rank=RANKS.rank(session)):
                RANKS.admitted(session)
                WAITED.record(time.perf_counter() - t0)
                return fn(*args, **kwargs)
        finally:
            RANKS.done(session)

    return wrapper


class _WaitLog:
    """Seconds computations waited in line (for the benchmarks), bounded."""

    def __init__(self, size: int = 1000):
        self._lock = threading.Lock()
        self.seconds: collections.deque = collections.deque(maxlen=size)

    def record(self, s: float) -> None:
        with self._lock:
            self.seconds.append(float(s))


WAITED = _WaitLog()


# --- big computations in niced worker processes ---------------------------------------------
_POOL = {"executor": None}
_POOL_LOCK = threading.Lock()


#: What offloaded work unpickles: imported by every worker as it starts, not by the first task
#: it is given (2-3 s on this machine, paid by the first user otherwise; see
#: :func:`start_workers`).
WORKER_IMPORTS = (
    "slb.model.path",
    "slb.model.classifier",
    "slb.evaluation.comparison",
    "slb.peers",
)


def _init_worker(nice: int) -> None:
    """Worker initializer: run at ``nice`` (lowering the priority is always allowed), then
    import :data:`WORKER_IMPORTS`."""
    try:
        os.setpriority(os.PRIO_PROCESS, 0, int(nice))
    except (AttributeError, OSError):  # pragma: no cover - not POSIX, or not permitted
        pass
    import importlib

    quiet_cache_without_runtime()  # the page modules' cached functions, imported here
    for name in WORKER_IMPORTS:
        importlib.import_module(name)


def _pool_size() -> int:
    """Worker processes of the pool: one per CPU."""
    return max(1, os.cpu_count() or 1)


def _executor():
    """The process-wide pool of niced workers, started on first use.

    joblib's loky executor, not ``concurrent.futures``'s: a ``spawn`` worker of the standard
    library re-runs the parent's ``__main__``, which inside a Streamlit script run is the page
    itself (the page would run again in every worker and start workers of its own); loky's
    workers do not import ``__main__``, and are not ``fork`` copies of a threaded server.
    """
    from joblib.externals.loky import ProcessPoolExecutor

    with _POOL_LOCK:
        if _POOL["executor"] is None:
            if not _POOL.get("cleanup"):  # hand-over files a dying worker left behind
                transfer.register_cleanup()
                _POOL["cleanup"] = True
            _POOL["executor"] = ProcessPoolExecutor(
                max_workers=_pool_size(),
                initializer=_init_worker,
                initargs=(WORKER_NICE,),
                # big arrays of the results come back through shared memory, not the pipe
                result_reducers={np.ndarray: transfer.reduce_array} if transfer.SHM_DIR else None,
                # a worker never starts workers or a warm-up of its own
                env={"SLB_WORKER_NICE": "0", "SLB_WARMUP": "0"},
            )
        return _POOL["executor"]


def _drop_pool() -> None:
    """Forget a broken pool: the next big computation starts a new one."""
    with _POOL_LOCK:
        _POOL["executor"] = None


def start_workers() -> list:
    """Start the worker pool now, so that its processes have started and imported
    :data:`WORKER_IMPORTS` before the first big computation (called once per server process,
    first thing in the warm-up thread: :func:`dashboard.warmup.build_all`).  No pool when
    :func:`offload` never uses one (``SLB_WORKER_NICE=0``).

    Measured on Sonar's 25-fold densities (2 idle cores): 5.6-6.3 s in a worker that had just
    started, 2.7-2.9 s in a started one, 2.4-2.6 s in the server itself.

    Returns
    -------
    futures : list
        A trivial task per worker (empty without a pool), done once a worker is ready: the
        pool starts all its workers on the first task, each runs :func:`_init_worker`.
    """
    if WORKER_NICE <= 0:
        return []
    ex = _executor()
    return [ex.submit(os.getpid) for _ in range(_pool_size())]


def offload(cost: float, fn, *args, **kwargs):
    """``fn(*args, **kwargs)``, in a niced worker process when ``cost`` reaches
    :data:`NICE_MIN_COST` (else, or when the pool is broken, here).

    ``fn`` and its arguments are pickled to the worker and the result back, so ``fn`` must be a
    module-level function or a bound method of a picklable object.  The result is the same as
    the direct call's: the worker runs the same code on the same inputs.
    """
    return offload_each(cost, functools.partial(fn, *args, **kwargs), [()], 1)[0]


def uses_pool(cost: float) -> bool:
    """Whether :func:`offload` sends work of this cost to the worker pool."""
    import multiprocessing

    # Never from a worker process: a worker that started workers would start a chain of them.
    in_worker = multiprocessing.parent_process() is not None
    return not in_worker and WORKER_NICE > 0 and cost >= NICE_MIN_COST


def offload_each(cost: float, fn, calls: list, width: int) -> list:
    """``[fn(*args) for args in calls]``, in up to ``width`` worker processes at once.

    As :func:`offload` (here when ``cost`` is below :data:`NICE_MIN_COST`), but the calls are
    independent tasks.  At most ``width`` of them are in the pool at a time, the next given as
    one ends, so work that another session offloads meanwhile waits for one task, not for all.

    Parameters
    ----------
    cost : float
    fn : callable
        Module-level function or bound method of a picklable object.
    calls : list of tuple
        The positional arguments of each call.
    width : int
        Tasks at once (1: one after the other, in one worker at a time); at most the pool's
        workers.

    Returns
    -------
    results : list
        In the order of ``calls``.
    """
    if not uses_pool(cost):
        return [fn(*args) for args in calls]
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    out = [None] * len(calls)
    try:
        ex, todo, running = _executor(), list(enumerate(calls)), {}
        width = max(1, min(int(width), _pool_size()))
        while todo or running:
            while todo and len(running) < width:
                k, args = todo.pop(0)
                running[ex.submit(fn, *args)] = k
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for fut in done:
                out[running.pop(fut)] = fut.result()
        return out
    except BrokenProcessPool:  # a worker died (e.g. out of memory): start over, here
        _drop_pool()
        return [fn(*args) for args in calls]


def data_cost(ds, n_repeats: int = 1) -> float:
    """rows² x features x repeats of a dataset: what :func:`offload` compares."""
    return float(ds.n) ** 2 * float(ds.d) * max(1, int(n_repeats))
