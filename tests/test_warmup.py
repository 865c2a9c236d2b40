"""Server-start warm-up (dashboard/warmup.py): after it, a fresh session's first visit to the
home page and to Compare on the bundled default dataset computes nothing expensive again.

The check is structural, not timed: the library's expensive steps (per-fold densities, HSIC
screening, SLB and TAN fits) are replaced by functions that raise, then the pages run.
"""

from __future__ import annotations

import os

import pytest

os.environ["STREAMLIT_CLIENT_SHOW_ERROR_DETAILS"] = "full"

from streamlit.testing.v1 import AppTest  # noqa: E402

from dashboard import compute, evaluation, warmup  # noqa: E402

APP = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "app.py")


def _forbid(monkeypatch, target, name):
    def boom(*args, **kwargs):
        raise AssertionError(f"{name} recomputed after the warm-up")

    monkeypatch.setattr(target, name.rsplit(".", 1)[-1], boom)


@pytest.mark.slow
def test_warm_up_leaves_nothing_to_compute_on_the_default_pages(monkeypatch):
    import slb.model.path as path_module
    from slb import SLBClassifier, TANClassifier, ThresholdPath

    seconds = warmup.build("sonar", yield_to_users=False)
    assert {"screening", "SLB's CV", "TAN's CV", "NB's CV", "SLB", "TAN"} <= set(seconds)

    _forbid(monkeypatch, ThresholdPath, "ThresholdPath.fit")
    _forbid(monkeypatch, SLBClassifier, "SLBClassifier.fit")
    _forbid(monkeypatch, TANClassifier, "TANClassifier.fit")
    _forbid(monkeypatch, compute, "compute.dependence_matrix")
    _forbid(monkeypatch, path_module, "path.dependence_matrix")

    # the warm entries are the ones the pages' calls hit (same arguments, same form)
    ds = warmup.default_dataset("sonar")
    x = warmup.defaults_for(ds)
    for name in ("TAN", "NB"):
        ber, _ = evaluation.classifier_fold_ber(
            ds, name, x.dens, x.n_folds, x.seed, x.reps, x.measure, x.rule
        )
        assert len(ber) == x.n_folds * x.reps == 25

    at = AppTest.from_file(APP, default_timeout=600)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    at.switch_page("pages/compare.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert {"SLB", "TAN", "NB"} <= set(at.dataframe[0].value.index)
    # a fresh session whose first page is Explain (a shared link): the same λ, nothing refitted
    at = AppTest.from_file(APP, default_timeout=600)
    at.switch_page("pages/explain.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]


def test_warm_up_is_off_in_tests_and_by_switch(monkeypatch):
    assert not warmup.enabled()  # pytest: off unless asked for
    monkeypatch.setenv("SLB_WARMUP", "1")
    assert warmup.enabled()
    monkeypatch.setenv("SLB_WARMUP", "0")
    assert not warmup.enabled()
    monkeypatch.setenv("SLB_WARMUP_DATASETS", "pima, nonsense ,sonar")
    assert warmup.dataset_names() == ["sonar", "pima"]  # the default dataset first


def test_stop_ends_the_warm_up_between_steps(monkeypatch):
    """At interpreter exit (``atexit``) the warm-up is asked to stop: it finishes the step it
    is in, runs no other, and the thread ends, so no daemon thread is inside numpy while the
    interpreter shuts down."""
    import threading
    import time

    ran = []

    def slow_steps(ds, x):
        return [(f"step {k}", lambda k=k: (ran.append(k), time.sleep(0.3))) for k in range(50)]

    monkeypatch.setattr(warmup, "_steps", slow_steps)
    monkeypatch.setattr(warmup, "default_dataset", lambda name: name)
    monkeypatch.setattr(warmup, "defaults_for", lambda ds: None)
    monkeypatch.setattr(warmup.workqueue, "start_workers", lambda: [])
    monkeypatch.setattr(warmup, "_STOP", threading.Event())  # this test's own flag
    t = threading.Thread(target=warmup.build_all, kwargs={"yield_to_users": False}, daemon=True)
    monkeypatch.setitem(warmup._RUNNING, "thread", t)
    t.start()
    while not ran:
        time.sleep(0.01)
    assert warmup.stop(timeout=30)
    assert not t.is_alive()
    assert 1 <= len(ran) <= 3  # the step in progress (and at most one racing the flag), not 50


def test_page_runs_count_every_run_and_its_grace():
    runs = warmup.PageRuns()
    assert runs.quiet(3.0)  # nothing ran yet
    with runs.run():
        assert not runs.quiet(0.0)
        with runs.run():  # two sessions at once
            pass
        assert not runs.quiet(0.0)  # one still under way
    ended = __import__("time").monotonic()
    assert runs.quiet(0.0)
    assert not runs.quiet(3.0, now=ended + 1.0)  # the browser is still drawing
    assert runs.quiet(3.0, now=ended + 3.5)
    with pytest.raises(RuntimeError), runs.run():  # Streamlit stops a run by an exception
        raise RuntimeError("rerun")
    assert runs.quiet(0.0)


@pytest.mark.slow  # >= 1.4 s in the development tier (stop 43, --durations)
def test_the_warm_up_starts_nothing_while_a_page_is_built(monkeypatch):
    """The warm-up's first act (starting the worker processes) and every step wait for the
    page runs under way and :data:`warmup.GRACE_S` after them (the first visitor's page)."""
    import threading
    import time

    events = []
    monkeypatch.setattr(warmup, "GRACE_S", 0.3)
    monkeypatch.setattr(warmup, "RUNS", warmup.PageRuns())
    monkeypatch.setattr(warmup, "_STOP", threading.Event())
    monkeypatch.setattr(warmup, "dataset_names", lambda: ["x"])
    monkeypatch.setattr(warmup, "default_dataset", lambda name: name)
    monkeypatch.setattr(warmup, "defaults_for", lambda ds: None)
    monkeypatch.setattr(
        warmup,
        "_steps",
        lambda ds, x: [("step", lambda: events.append(("step", time.monotonic())))],
    )
    monkeypatch.setattr(
        warmup.workqueue, "start_workers", lambda: events.append(("workers", time.monotonic()))
    )
    page = warmup.RUNS.run()
    page.__enter__()
    t = threading.Thread(target=warmup.build_all, daemon=True)
    t.start()
    time.sleep(1.0)
    assert events == []  # a page is being built: nothing started
    page.__exit__(None, None, None)
    ended = time.monotonic()
    t.join(30)
    assert not t.is_alive()
    assert [e for e, _ in events] == ["workers", "step"]
    assert events[0][1] - ended >= 0.3  # the browser's grace after the run
