"""The server's line of heavy computations (dashboard/workqueue.py): at most ``slots`` at once,
served in order of arrival, nested calls keep their slot, waiters are told their place.

No timing: threads are held inside their slot by events the test sets, and every wait on the
queue's state has a generous timeout (a loaded machine only makes the test slower).
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from dashboard.workqueue import WorkQueue, queued, waiting_text

WAIT_S = 60.0


def wait_for(cond, what):
    t0 = time.monotonic()
    while not cond():
        if time.monotonic() - t0 > WAIT_S:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


def test_at_most_slots_run_and_the_line_is_first_come_first_served():
    q = WorkQueue(2)
    admitted, release, notices = [], {}, {}

    def worker(i):
        def on_wait(ahead, running):
            notices.setdefault(i, []).append((ahead, running))

        with q.slot(on_wait=on_wait, poll=0.01):
            admitted.append(i)
            release[i].wait(WAIT_S)

    threads = []
    for i in range(5):
        release[i] = threading.Event()
        t = threading.Thread(target=worker, args=(i,), daemon=True)
        t.start()
        threads.append(t)
        # the next thread arrives only once this one is running or in line
        wait_for(lambda i=i: sum(q.snapshot()) == i + 1, f"thread {i} to arrive")
    assert q.snapshot() == (2, 3) and admitted == [0, 1]
    wait_for(lambda: notices.get(4, [None])[-1] == (2, 2), "thread 4's notice")
    assert notices[2][-1] == (0, 2)  # first in line, two running
    for i in range(5):
        release[i].set()
        wait_for(lambda i=i: len(admitted) >= min(5, i + 3), f"admission after {i}")
        assert admitted == list(range(min(5, i + 3)))  # order of arrival
    for t in threads:
        t.join(WAIT_S)
    assert q.snapshot() == (0, 0)
    assert notices[4][-1] == (None, None)  # told once its computation started
    assert 0 not in notices and 1 not in notices  # the first two never waited


def test_nested_slots_in_one_thread_do_not_deadlock():
    q = WorkQueue(1)
    with q.slot():
        with q.slot():  # a queued computation calling another one
            assert q.holding() and q.snapshot() == (1, 0)
        assert q.holding()
    assert not q.holding() and q.snapshot() == (0, 0)


def test_an_error_frees_the_slot():
    q = WorkQueue(1)
    with pytest.raises(ValueError):
        with q.slot():
            raise ValueError("bad upload")
    assert q.snapshot() == (0, 0)
    with q.slot():
        assert q.snapshot() == (1, 0)


def test_queued_decorator_outside_streamlit_runs_the_function(monkeypatch):
    import dashboard.workqueue as wq

    q = WorkQueue(1)
    monkeypatch.setattr(wq, "QUEUE", q)
    inner_state = []

    @queued
    def inner():
        inner_state.append(q.snapshot())
        return 2

    @queued
    def outer(x):
        return x + inner()

    assert outer(1) == 3 and inner_state == [(1, 0)]
    assert q.snapshot() == (0, 0)


def test_waiting_text_names_the_others():
    assert "waiting for 3 other computations (2 running, 1 ahead of yours" in waiting_text(1, 2)
    assert "waiting for 1 other computation (1 running, 0 ahead" in waiting_text(0, 1)


def test_offload_runs_big_work_in_a_niced_worker_with_the_same_result(monkeypatch):
    """Big computations leave the server process for a worker at lower CPU priority (so light
    sessions keep the cores); small ones stay; the worker's result is the direct call's."""
    import os

    import numpy as np

    from dashboard import workqueue
    from slb import ThresholdPath
    from slb.evaluation import compare_estimators, stratified_folds
    from slb.peers.naive_bayes import KDENaiveBayes

    monkeypatch.setattr(workqueue, "NICE_MIN_COST", 100)
    here = os.getpid()
    assert workqueue.offload(99, os.getpid) == here  # small: in the server itself
    assert workqueue.offload(100, os.getpid) != here  # big: in a worker process
    assert workqueue.offload(100, os.getpriority, os.PRIO_PROCESS, 0) >= workqueue.WORKER_NICE
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 4))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=80) > 0).astype(int)
    folds = stratified_folds(y, n_splits=4, random_state=0)
    far = workqueue.offload(100, ThresholdPath(random_state=0).fit, X, y, folds)
    near = ThresholdPath(random_state=0).fit(X, y, folds)
    for lam in (0.0, 0.01, 0.05):
        np.testing.assert_array_equal(far.fold_ber(lam)[0], near.fold_ber(lam)[0])
    args = ({"NB": KDENaiveBayes()}, X, y)
    far = workqueue.offload(100, compare_estimators, *args, folds=folds, record_predictions=True)
    near = compare_estimators(*args, folds=folds, record_predictions=True)
    np.testing.assert_array_equal(far.per_fold["NB"], near.per_fold["NB"])
    np.testing.assert_array_equal(far.predictions["score"], near.predictions["score"])
    monkeypatch.setattr(workqueue, "WORKER_NICE", 0)  # switched off: everything stays here
    assert workqueue.offload(10**9, os.getpid) == here


@pytest.mark.slow  # >= 1.4 s in the development tier (stop 43, --durations)
def test_offload_workers_do_not_run_the_page_again(monkeypatch, tmp_path):
    """Inside a Streamlit script run ``__main__`` is the page; a worker that re-ran it (as the
    standard library's ``spawn`` does) would redo the page's work and start workers of its own."""
    import os
    import sys
    import types

    from dashboard import workqueue

    marker = tmp_path / "ran"
    page = tmp_path / "page.py"
    page.write_text(f"open({str(marker)!r}, 'w').close()\n")
    fake_main = types.ModuleType("__main__")
    fake_main.__file__ = str(page)
    monkeypatch.setattr(workqueue, "NICE_MIN_COST", 1)
    monkeypatch.setitem(workqueue._POOL, "executor", None)  # a new pool, started from "the page"
    monkeypatch.setitem(sys.modules, "__main__", fake_main)
    assert workqueue.offload(1, os.getpid) != os.getpid()
    assert not marker.exists()
    # and a worker runs its own offloads in itself: no worker of a worker
    import psutil

    assert workqueue.offload(1, workqueue.offload, 1, os.getpid) != os.getpid()
    workers = psutil.Process().children(recursive=True)
    assert workers and all(w.ppid() == os.getpid() for w in workers if w.is_running())


@pytest.mark.slow  # >= 1.4 s in the development tier (stop 43, --durations)
def test_started_workers_have_imported_what_offloaded_work_needs(monkeypatch):
    """``start_workers`` (server start) leaves the pool's processes running with the imports
    done, so the first big computation does not pay them (2-3 s on this machine)."""
    import os

    from dashboard import workqueue

    monkeypatch.setitem(workqueue._POOL, "executor", None)  # a new pool
    monkeypatch.setattr(workqueue, "WORKER_NICE", 0)
    assert workqueue.start_workers() == [] and workqueue._POOL["executor"] is None  # no pool
    monkeypatch.setattr(workqueue, "WORKER_NICE", 10)
    try:
        futures = workqueue.start_workers()
        pids = {f.result(timeout=300) for f in futures}
        assert pids and os.getpid() not in pids
        names = workqueue.WORKER_IMPORTS
        probe = f"[m for m in {names!r} if m not in __import__('sys').modules]"
        for _ in range(2 * len(futures)):  # every worker, whichever takes the task
            assert workqueue._executor().submit(eval, probe).result(timeout=300) == []
    finally:
        workqueue._POOL["executor"].shutdown(wait=True)


class _CountingExecutor:
    """A thread pool that records how many tasks were in it at once."""

    def __init__(self):
        from concurrent.futures import ThreadPoolExecutor

        self.pool = ThreadPoolExecutor(4)
        self.lock = threading.Lock()
        self.outstanding = self.most = 0

    def submit(self, fn, *args):
        with self.lock:
            self.outstanding += 1
            self.most = max(self.most, self.outstanding)
        fut = self.pool.submit(fn, *args)
        fut.add_done_callback(self._done)
        return fut

    def _done(self, _fut):
        with self.lock:
            self.outstanding -= 1


def test_offload_each_keeps_the_order_and_at_most_width_tasks_in_the_pool(monkeypatch):
    from dashboard import workqueue

    def slow_square(k):
        time.sleep(0.01 * (k % 3))  # tasks end out of order
        return k * k

    calls = [(k,) for k in range(11)]
    monkeypatch.setattr(workqueue, "NICE_MIN_COST", 100)
    monkeypatch.setattr(workqueue, "_pool_size", lambda: 3)
    for width, most in ((1, 1), (2, 2), (3, 3), (8, 3)):
        ex = _CountingExecutor()
        monkeypatch.setattr(workqueue, "_executor", lambda ex=ex: ex)
        assert workqueue.offload_each(100, slow_square, calls, width) == [k * k for k in range(11)]
        assert ex.most == most  # never more in the pool than asked or than its workers
    ex = _CountingExecutor()
    monkeypatch.setattr(workqueue, "_executor", lambda: ex)
    assert workqueue.offload_each(99, slow_square, calls, 2) == [k * k for k in range(11)]
    assert ex.most == 0  # small: here, as offload


def test_split_densities_are_the_one_call_fit(monkeypatch):
    """SLB's per-fold densities fitted one fold per worker task (big data, free cores) give
    the path of one call: the same maps, the same BER at every λ."""
    import streamlit as st

    from dashboard import compute, warmup, workqueue

    monkeypatch.setattr(workqueue, "NICE_MIN_COST", 1)
    monkeypatch.setattr(compute, "PREFETCH_MAX_COST", 1)  # "big data" for Sonar
    monkeypatch.setattr(compute, "cv_processes", lambda n_tasks: 2)
    ds = warmup.default_dataset("sonar")
    x = warmup.defaults_for(ds)
    args = (ds.key, ds, x.measure, x.rule, x.dens, x.n_folds, x.seed, 1)
    assert compute.path_processes(1e9, 5) == 2
    st.cache_resource.clear()
    split = compute.threshold_path(*args)
    monkeypatch.setattr(compute, "cv_processes", lambda n_tasks: 1)
    assert compute.path_processes(1e9, 5) == 1
    st.cache_resource.clear()
    whole = compute.threshold_path(*args)
    st.cache_resource.clear()
    assert len(split.folds_) == len(whole.folds_) == 5
    for a, b in zip(split.folds_, whole.folds_, strict=True):
        np.testing.assert_array_equal(a.test, b.test)
        np.testing.assert_array_equal(a.T_train, b.T_train)
        np.testing.assert_array_equal(a.T_test, b.T_test)
    for lam in (0.0, 0.005, 0.02):
        np.testing.assert_array_equal(split.fold_ber(lam)[0], whole.fold_ber(lam)[0])
    # within the budget (TAN runs beside) or with another session computing: one process
    monkeypatch.setattr(compute, "cv_processes", lambda n_tasks: 2)
    monkeypatch.setattr(compute, "PREFETCH_MAX_COST", 1e12)
    assert compute.path_processes(1e9, 5) == 1
    monkeypatch.setattr(compute, "PREFETCH_MAX_COST", 1)
    held, release = threading.Event(), threading.Event()

    def other_session():
        with workqueue.QUEUE.slot():
            held.set()
            release.wait(600)

    t = threading.Thread(target=other_session, daemon=True)
    t.start()
    try:
        assert held.wait(600)
        with workqueue.QUEUE.slot():  # this session's own slot, as the page holds it
            assert compute.path_processes(1e9, 5) == 1
    finally:
        release.set()
        t.join(600)
    with workqueue.QUEUE.slot():
        assert compute.path_processes(1e9, 5) == 2


def test_the_line_is_ordered_by_rank_ties_by_arrival():
    """A ticket goes behind every ticket of a rank at most its own: a session's later step
    with an early rank passes the sessions that arrived after that rank; equal ranks and
    rank None (arrival time) keep the order of arrival."""
    q = WorkQueue(1)
    admitted = []
    hold = threading.Event()

    def holder():
        with q.slot(poll=0.01):
            hold.wait(WAIT_S)

    def worker(name, rank):
        with q.slot(poll=0.01, rank=rank):
            admitted.append(name)

    t0 = threading.Thread(target=holder, daemon=True)
    t0.start()
    wait_for(lambda: q.snapshot() == (1, 0), "the holder")
    arrivals = [("b1", 20.0), ("c", 30.0), ("b2", 20.0), ("a", 10.0), ("late", None)]
    threads = []
    for k, (name, rank) in enumerate(arrivals):
        t = threading.Thread(target=worker, args=(name, rank), daemon=True)
        t.start()
        threads.append(t)
        wait_for(lambda k=k: q.snapshot() == (1, k + 1), f"{name} in line")
    hold.set()
    for t in [t0, *threads]:
        t.join(WAIT_S)
    # "late" has the arrival time (monotonic, far above 30): last
    assert admitted == ["a", "b1", "b2", "c", "late"]


def test_session_ranks_keep_a_visit_together_and_start_a_new_one_later():
    from dashboard.workqueue import SessionRanks

    r = SessionRanks(gap=2.0, longest=60.0)
    assert r.rank(None, now=5.0) == 5.0  # no session: its arrival
    assert r.rank("s", now=100.0) == 100.0  # first step of a visit
    r.admitted("s", now=100.5)
    r.done("s", now=101.0)
    assert r.rank("s", now=102.5) == 100.0  # the next step 1.5 s later: same place
    assert r.rank("t", now=102.6) == 102.6
    r.done("s", now=104.0)
    assert r.rank("s", now=107.0) == 107.0  # 3 s idle: a new visit, at the back
    assert r.rank("s", now=150.0) == 107.0  # waiting in line (two open): same burst
    r.admitted("s", now=160.0)  # the burst's first computation got its slot at 160
    r.done("s", now=170.0)
    assert r.rank("s", now=171.0) == 107.0  # within the gap; waiting time does not count
    r.admitted("s", now=172.0)
    r.done("s", now=172.0)
    r.done("s", now=172.0)
    assert r.rank("s", now=221.0) == 221.0  # more than 60 s after the first admission


def test_queued_steps_of_one_session_pass_a_later_session(monkeypatch):
    """queued() ranks by session: A's first step runs, B arrives, then A's second step
    (within the visit) is served before B; the ranks are released when a step raises."""
    from dashboard import workqueue

    q, ranks = WorkQueue(1), workqueue.SessionRanks()
    monkeypatch.setattr(workqueue, "QUEUE", q)
    monkeypatch.setattr(workqueue, "RANKS", ranks)
    who = threading.local()
    monkeypatch.setattr(workqueue, "current_session", lambda: getattr(who, "name", None))
    order, go = [], {k: threading.Event() for k in ("a1", "b", "a2")}

    @queued
    def step(name):
        order.append(name)
        go[name].wait(WAIT_S)

    def run(session, name):
        who.name = session
        step(name)

    ta1 = threading.Thread(target=run, args=("A", "a1"), daemon=True)
    ta1.start()
    wait_for(lambda: order == ["a1"], "A's first step")
    tb = threading.Thread(target=run, args=("B", "b"), daemon=True)
    tb.start()
    wait_for(lambda: q.snapshot() == (1, 1), "B in line")
    ta2 = threading.Thread(target=run, args=("A", "a2"), daemon=True)
    ta2.start()
    wait_for(lambda: q.snapshot() == (1, 2), "A's second step in line")
    for name in ("a1", "a2", "b"):
        go[name].set()
    for t in (ta1, tb, ta2):
        t.join(WAIT_S)
    assert order == ["a1", "a2", "b"]  # appended, it would be a1, b, a2

    @queued
    def boom():
        raise RuntimeError("x")

    who.name = "C"
    with pytest.raises(RuntimeError):
        boom()
    assert ranks._bursts["C"][2] == 0  # nothing left running after the error
