"""Compare's prefetch (dashboard.evaluation.prefetch_runs): the classifiers that do not wait for
SLB's path are cross-validated in a background thread while the path is fitted, into the very
cache entries the page reads, and only when that cannot hold up other sessions.

Structural, not timed: after the prefetch, TAN's fit is replaced by a function that raises and
the page's call must still return (a cache hit).
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager

import numpy as np
import pytest
import streamlit as st

from dashboard import compute, evaluation, warmup, workqueue
from slb import TANClassifier

WAIT_S = 600


@pytest.fixture()
def sonar_once(monkeypatch):
    """Sonar with one repeat of 5-fold CV, every fit in this process (so a refit would show)."""
    monkeypatch.setattr(workqueue, "NICE_MIN_COST", float("inf"))
    monkeypatch.setattr(compute, "cv_processes", lambda n_tasks: 1)
    monkeypatch.setattr(evaluation, "_PREFETCHED", set())
    monkeypatch.setattr(evaluation, "_cores_free", lambda: True)  # an idle machine
    st.cache_data.clear()  # no entry left by another test
    ds = warmup.default_dataset("sonar")
    x = warmup.defaults_for(ds)
    return ds, (x.dens, x.n_folds, x.seed, 1, x.measure, x.rule)


@contextmanager
def another_session_computing(q):
    """For the block, a thread holds a slot of ``q`` (granted at once, or the test fails)."""
    held, release = threading.Event(), threading.Event()

    def hold():
        with q.slot():
            held.set()
            release.wait(WAIT_S)

    t = threading.Thread(target=hold, daemon=True)
    t.start()
    assert held.wait(WAIT_S)
    try:
        yield
    finally:
        release.set()
        t.join(WAIT_S)


def _join_prefetch():
    for t in threading.enumerate():
        if t.name == evaluation.PREFETCH_THREAD:
            t.join(WAIT_S)
            assert not t.is_alive()


def test_prefetch_fills_the_entry_the_page_reads(monkeypatch, sonar_once):
    ds, args = sonar_once
    assert evaluation.prefetch_runs(ds, ("SLB", "TAN", "NB"), *args)
    _join_prefetch()

    def boom(*a, **k):
        raise AssertionError("TAN refitted after the prefetch")

    monkeypatch.setattr(TANClassifier, "fit", boom)
    run = evaluation.classifier_run(ds, "TAN", *args)  # a cache hit, or the AssertionError
    assert run.ber.shape == (5,) and np.all((run.ber >= 0) & (run.ber <= 1))
    # once per settings and process: the same call starts nothing again
    assert not evaluation.prefetch_runs(ds, ("SLB", "TAN", "NB"), *args)


def test_prefetch_fits_the_full_data_slb_the_coefficient_plot_reads(monkeypatch, sonar_once):
    from slb import SLBClassifier

    ds, args = sonar_once
    dens, _, seed, _, measure, rule = args
    lam = compute.default_lambda(compute.screening(ds.key, ds, measure), rule)
    assert evaluation.prefetch_runs(ds, ("SLB", "TAN", "NB"), *args, lam=lam)
    _join_prefetch()

    def boom(*a, **k):
        raise AssertionError("SLB refitted after the prefetch")

    monkeypatch.setattr(SLBClassifier, "fit", boom)
    clf = compute.fit_slb(ds.key, ds, lam, measure, rule, dens, seed)  # a cache hit
    assert clf.threshold == lam and clf.coef_.size > 0


def test_prefetch_declines(monkeypatch, sonar_once):
    ds, args = sonar_once
    started = []
    monkeypatch.setattr(evaluation, "classifier_run", lambda *a, **k: started.append(a[1]))
    assert not evaluation.prefetch_runs(ds, ("SLB", "NB"), *args)  # nothing to prefetch
    monkeypatch.setattr(evaluation, "_cores_free", lambda: False)
    assert not evaluation.prefetch_runs(ds, ("SLB", "TAN"), *args)  # a busy machine
    monkeypatch.setattr(evaluation, "_cores_free", lambda: True)
    monkeypatch.setattr(compute, "PREFETCH_MAX_COST", workqueue.data_cost(ds, 1) - 1)
    assert not evaluation.prefetch_runs(ds, ("SLB", "TAN"), *args)  # above the budget
    monkeypatch.setattr(compute, "PREFETCH_MAX_COST", workqueue.data_cost(ds, 1))
    q = workqueue.WorkQueue(1)
    monkeypatch.setattr(evaluation, "QUEUE", q)
    with another_session_computing(q):  # every slot taken: no prefetch
        assert not evaluation.prefetch_runs(ds, ("SLB", "TAN"), *args)
    assert evaluation.prefetch_runs(ds, ("SLB", "TAN", "5NN"), *args)
    _join_prefetch()
    assert started == ["TAN", "5NN"]


def test_a_spare_slot_never_makes_a_session_wait():
    q = workqueue.WorkQueue(1)
    inside, release = threading.Event(), threading.Event()
    nested = []

    def prefetch():
        with q.spare() as granted:
            assert granted
            with q.slot():  # a queued call inside: no second slot, no wait
                nested.append(q.snapshot())
            inside.set()
            release.wait(WAIT_S)

    t = threading.Thread(target=prefetch, daemon=True)
    t.start()
    assert inside.wait(WAIT_S)
    assert nested == [(1, 0)]  # the spare one only
    with q.spare() as granted:  # the counted slot is still free...
        assert granted
    # ...and a session arriving now is admitted at once, as if the prefetch were not there
    with another_session_computing(q):
        assert q.snapshot() == (2, 0)
        with q.spare() as granted:  # the only counted slot is now taken: no more prefetch
            assert not granted
    release.set()
    t.join(WAIT_S)
    assert q.snapshot() == (0, 0)


def test_prefetched_folds_leave_a_core_to_the_path(monkeypatch):
    monkeypatch.setattr(compute, "cv_processes", lambda n_tasks: 8)
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    seen = {}

    def beside():
        evaluation._BESIDE_PATH.on = True
        seen["beside"] = evaluation._processes(25)

    t = threading.Thread(target=beside)
    t.start()
    t.join(WAIT_S)
    assert seen["beside"] == 3 and evaluation._processes(25) == 8
