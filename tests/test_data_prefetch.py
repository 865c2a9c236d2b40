"""Compare's cross-validation of a session's own data starts on the Data page
(``dashboard.evaluation.prefetch_compare``): once that background work is done, opening Compare
fits nothing (the entries it reads are the ones filled), and without it the same visit does.

Structural, not timed (as ``tests/test_warmup.py``): the library's expensive fits are replaced
by functions that raise, then Compare runs.  Everything runs in this process
(``SLB_CV_PROCESSES=1``, a table far below the worker pool's cost), so the replacements see
every fit.
"""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest
from test_app import assert_ok, csv_upload, goto, new_app, small_csv

from dashboard import evaluation, workqueue
from dashboard.workqueue import QUEUE


def _forbid_fits(monkeypatch) -> list:
    """Make every SLB path, SLB, TAN fit, warm SVM pass and naive Bayes from the path raise;
    returns the list of those attempted."""
    from slb import SLBClassifier, TANClassifier, ThresholdPath
    from slb.model.warm import WarmFolds

    tried = []

    def forbid(owner, name, label):
        def boom(*args, **kwargs):
            tried.append(label)
            raise AssertionError(f"{label} computed again on Compare")

        monkeypatch.setattr(owner, name, boom)

    for cls in (ThresholdPath, SLBClassifier, TANClassifier):
        forbid(cls, "fit", cls.__name__)
    forbid(WarmFolds, "decisions", "WarmFolds.decisions")
    forbid(evaluation, "naive_bayes_path_predictions", "NB from the path")
    return tried


def _wait(thread, timeout=600):
    thread.join(timeout)
    assert not thread.is_alive()


@pytest.fixture
def prefetch_on(monkeypatch):
    monkeypatch.setenv("SLB_PREFETCH", "1")
    monkeypatch.setenv("SLB_CV_PROCESSES", "1")
    # this test's own bookkeeping (none of another test's prefetches)
    monkeypatch.setattr(evaluation, "DATA_PREFETCH", {})
    monkeypatch.setattr(evaluation, "_DATA_PREFETCHED", set())
    monkeypatch.setattr(evaluation, "_LATEST", {})
    monkeypatch.setattr(evaluation, "_PREFETCH_STOP", threading.Event())
    monkeypatch.setattr(evaluation.atexit, "register", lambda fn: fn)  # no exit hook from tests


@pytest.mark.slow  # >= 1.4 s in the development tier (stop 43, --durations)
def test_compare_fits_nothing_after_the_data_page_prefetch(prefetch_on, monkeypatch):
    at = csv_upload(new_app(), "prefetched.csv", small_csv(seed=101))
    thread = evaluation.DATA_PREFETCH["thread"]
    assert thread.name == evaluation.DATA_PREFETCH_THREAD
    _wait(thread)
    tried = _forbid_fits(monkeypatch)
    goto(at, "pages/compare.py")
    assert tried == []
    assert {"SLB", "TAN", "NB"} <= set(at.dataframe[0].value.index)
    # the Data page again, same data and settings: nothing new is started
    at.switch_page("app.py").run()
    assert_ok(at)
    assert evaluation.DATA_PREFETCH["thread"] is thread


def test_without_the_prefetch_compare_fits(monkeypatch):
    """The negative control: prefetch off, the same visit reaches the forbidden fits."""
    monkeypatch.setenv("SLB_PREFETCH", "0")
    monkeypatch.setenv("SLB_CV_PROCESSES", "1")
    at = csv_upload(new_app(), "not-prefetched.csv", small_csv(seed=102))
    tried = _forbid_fits(monkeypatch)
    at.switch_page("pages/compare.py").run()
    assert at.exception and "ThresholdPath" in tried


def _blocking_first_step(monkeypatch):
    """The prefetch's first step (SLB) waits until released; its other steps are recorded."""
    ran, entered, release = [], threading.Event(), threading.Event()

    def first(*args, **kwargs):
        ran.append("SLB")
        entered.set()
        assert release.wait(60)

    monkeypatch.setattr(evaluation, "slb_run_for", first)
    monkeypatch.setattr(evaluation, "classifier_run", lambda *a, **k: ran.append(a[1]))
    monkeypatch.setattr(evaluation.compute, "fit_slb", lambda *a, **k: ran.append("full"))
    return ran, entered, release


def test_stop_ends_the_prefetch_between_steps(prefetch_on, monkeypatch):
    """At interpreter exit the prefetch finishes the step it is in and runs no other."""
    ran, entered, release = _blocking_first_step(monkeypatch)
    csv_upload(new_app(), "stopped.csv", small_csv(seed=104))
    assert entered.wait(60)
    stopper = threading.Thread(target=evaluation.stop_prefetch, kwargs={"timeout": 60})
    stopper.start()
    while not evaluation._PREFETCH_STOP.is_set():
        time.sleep(0.01)
    release.set()
    _wait(stopper)
    assert ran == ["SLB"]  # TAN, NB and the full-data fit never started


@pytest.mark.parametrize("why", ["other session", "new data", "own session", "neither"])
def test_the_prefetch_yields_to_sessions_and_to_new_data(prefetch_on, monkeypatch, why):
    """Another session computing or waiting, or new data in this session, stop it before its
    next step; this session's own computation (its Compare) does not, nor nothing (controls)."""
    ran, entered, release = _blocking_first_step(monkeypatch)
    csv_upload(new_app(), f"yield-{why}.csv", small_csv(seed=105))
    assert entered.wait(60)
    if why in ("other session", "own session"):  # one computation holds a slot
        monkeypatch.setattr(QUEUE, "counted", lambda: (1, 0))
    if why == "own session":  # ... and it is this session's
        monkeypatch.setattr(workqueue.RANKS, "pending", lambda session: 1)
    elif why == "new data":
        evaluation._LATEST.update(dict.fromkeys(evaluation._LATEST, ("other data",)))
    release.set()
    _wait(evaluation.DATA_PREFETCH["thread"])
    if why in ("own session", "neither"):
        assert ran == ["SLB", "TAN", "NB", "full"]
    else:
        assert ran == ["SLB"]


def test_others_busy_counts_the_other_sessions_only():
    q, ranks = workqueue.WorkQueue(2), workqueue.SessionRanks()
    old = workqueue.QUEUE, workqueue.RANKS
    workqueue.QUEUE, workqueue.RANKS = q, ranks
    try:
        assert not workqueue.others_busy("me")
        ranks.rank("me")
        with q.slot():  # my computation runs
            assert not workqueue.others_busy("me")
            assert workqueue.others_busy("you") and workqueue.others_busy(None)
            ranks.rank("you")
            holding, release = threading.Event(), threading.Event()

            def yours():  # another session's computation, in its own thread
                with q.slot():
                    holding.set()
                    release.wait(60)

            t = threading.Thread(target=yours)
            t.start()
            assert holding.wait(60)
            assert workqueue.others_busy("me")
            release.set()
            _wait(t)
    finally:
        workqueue.QUEUE, workqueue.RANKS = old


def test_the_prefetch_is_off_in_tests_and_for_bundled_data(monkeypatch):
    monkeypatch.delenv("SLB_PREFETCH", raising=False)
    assert not evaluation.data_prefetch_enabled()  # pytest: off unless asked for
    monkeypatch.setenv("SLB_PREFETCH", "1")
    assert evaluation.data_prefetch_enabled()
    # bundled data are the warm-up's: never started here
    bundled = SimpleNamespace(source="bundled")
    assert not evaluation.prefetch_compare(bundled, {}, ("scott", 1.0, ()))


def test_an_unknown_override_name_still_raises_on_the_values():
    """On an array scikit-learn names the columns x0, x1, ...: a name the table lacks must
    not reach those by accident (it raises, as the fit on the frame does)."""
    import pandas as pd

    X = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    values, params = evaluation._values_and_params(X, {"bandwidth_overrides": {"b": 0.5, 0: 2.0}})
    assert params["bandwidth_overrides"] == {1: 0.5, 0: 2.0} and values.dtype == float
    with pytest.raises(ValueError, match="unknown feature 'x1'"):
        evaluation._values_and_params(X, {"bandwidth_overrides": {"x1": 0.5}})
