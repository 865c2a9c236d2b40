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

import pytest
from test_app import assert_ok, csv_upload, goto, new_app, small_csv

from dashboard import evaluation


def _forbid_fits(monkeypatch) -> list:
    """Make every SLB path, SLB and TAN fit raise; returns the list of the fits attempted."""
    from slb import SLBClassifier, TANClassifier, ThresholdPath

    tried = []

    def forbid(cls):
        def boom(*args, **kwargs):
            tried.append(cls.__name__)
            raise AssertionError(f"{cls.__name__} fitted again on Compare")

        monkeypatch.setattr(cls, "fit", boom)

    for cls in (ThresholdPath, SLBClassifier, TANClassifier):
        forbid(cls)
    return tried


def _wait_for_prefetch(timeout=600):
    for t in threading.enumerate():
        if t.name == evaluation.DATA_PREFETCH_THREAD:
            t.join(timeout)
            assert not t.is_alive()


@pytest.fixture
def prefetch_on(monkeypatch):
    monkeypatch.setenv("SLB_PREFETCH", "1")
    monkeypatch.setenv("SLB_CV_PROCESSES", "1")


def test_compare_fits_nothing_after_the_data_page_prefetch(prefetch_on, monkeypatch):
    at = csv_upload(new_app(), "prefetched.csv", small_csv(seed=101))
    assert evaluation.DATA_PREFETCH["thread"].name == evaluation.DATA_PREFETCH_THREAD
    _wait_for_prefetch()
    tried = _forbid_fits(monkeypatch)
    goto(at, "pages/compare.py")
    assert tried == []
    assert {"SLB", "TAN", "NB"} <= set(at.dataframe[0].value.index)
    # the same data again (a rerun of the Data page): nothing new is started
    at.switch_page("app.py").run()
    assert_ok(at)


def test_without_the_prefetch_compare_fits(monkeypatch):
    """The negative control: prefetch off, the same visit reaches the forbidden fits."""
    monkeypatch.setenv("SLB_PREFETCH", "0")
    monkeypatch.setenv("SLB_CV_PROCESSES", "1")
    at = csv_upload(new_app(), "not-prefetched.csv", small_csv(seed=102))
    tried = _forbid_fits(monkeypatch)
    at.switch_page("pages/compare.py").run()
    assert at.exception and "ThresholdPath" in tried


def test_the_prefetch_is_off_in_tests_and_for_bundled_data(monkeypatch):
    monkeypatch.delenv("SLB_PREFETCH", raising=False)
    assert not evaluation.data_prefetch_enabled()  # pytest: off unless asked for
    monkeypatch.setenv("SLB_PREFETCH", "1")
    assert evaluation.data_prefetch_enabled()
    # bundled data are the warm-up's: never started here
    assert not evaluation.prefetch_compare(object(), {"source": "bundled"}, ("scott", 1.0, ()))


def test_stop_ends_the_prefetch_between_steps(prefetch_on, monkeypatch):
    """At interpreter exit the prefetch finishes the step it is in and runs no other."""
    import time

    ran = []

    def slow_pass(*args, **kwargs):
        ran.append("SLB")
        time.sleep(0.5)

    monkeypatch.setattr(evaluation, "slb_run_for", slow_pass)
    monkeypatch.setattr(evaluation, "classifier_run", lambda *a, **k: ran.append(a[1]))
    monkeypatch.setattr(evaluation, "_PREFETCH_STOP", threading.Event())  # this test's own
    monkeypatch.setattr(evaluation, "_DATA_PREFETCHED", set())
    at = csv_upload(new_app(), "stopped.csv", small_csv(seed=104))
    assert_ok(at)
    while not ran:
        time.sleep(0.01)
    assert evaluation.stop_prefetch(timeout=30)
    assert ran == ["SLB"]  # TAN and NB never started
