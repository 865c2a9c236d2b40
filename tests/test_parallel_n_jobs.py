"""``n_jobs=None`` is one thread, as in scikit-learn (issue 30 item 8), whatever the machine's
load; the load rule survives only as :func:`slb._parallel.idle_n_jobs`, asked for explicitly."""

from __future__ import annotations

import joblib
import numpy as np
import pytest

from slb import _parallel
from slb.dependence import hsic
from slb.dependence.hsic import hsic_all_pairs


@pytest.fixture
def idle_four_cpus(monkeypatch):
    """A machine where the old rule would have used two threads: 4 CPUs, nobody busy."""
    monkeypatch.setattr(_parallel.os, "cpu_count", lambda: 4)
    monkeypatch.setattr(_parallel.os, "getloadavg", lambda: (0.0, 0.0, 0.0), raising=False)


@pytest.fixture
def count_parallel(monkeypatch):
    """Count joblib.Parallel constructions (every local thread pool of the library)."""
    calls = []
    real = joblib.Parallel

    class Counting(real):
        def __init__(self, *args, **kwargs):
            calls.append(kwargs.get("n_jobs", args[0] if args else None))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(joblib, "Parallel", Counting)
    return calls


def test_none_is_one_thread_on_an_idle_machine(idle_four_cpus):
    assert _parallel.resolve_n_jobs(None) == 1
    assert _parallel.idle_n_jobs() == 2  # the old default's rule, now asked for by name
    assert _parallel.idle_n_jobs(max_jobs=8) == 4
    assert _parallel.resolve_n_jobs(-1) == 4 and _parallel.resolve_n_jobs(-2) == 3
    assert _parallel.resolve_n_jobs(3) == 3


def test_busy_machine_idle_rule(monkeypatch):
    monkeypatch.setattr(_parallel.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(_parallel.os, "getloadavg", lambda: (5.0, 5.0, 5.0), raising=False)
    assert _parallel.idle_n_jobs() == 1
    assert _parallel.resolve_n_jobs(None) == 1


def test_zero_is_refused():
    with pytest.raises(ValueError, match="n_jobs == 0"):
        _parallel.resolve_n_jobs(0)


def test_default_runs_no_thread_pool(idle_four_cpus, count_parallel, monkeypatch):
    # all-pairs HSIC on 8 panel groups: with n_jobs=None no joblib pool is started, while an
    # explicit n_jobs=2 starts one with two threads; the statistic is the same
    monkeypatch.setattr(hsic, "_MIN_PARALLEL_WORK", 0)  # threads even on a small problem
    X = np.random.default_rng(0).normal(size=(300, 4))  # panels of 75 samples, 8 task groups
    none = hsic_all_pairs(X, n_jobs=None, method="exact")
    assert count_parallel == []
    two = hsic_all_pairs(X, n_jobs=2, method="exact")
    assert count_parallel and set(count_parallel) == {2}
    np.testing.assert_array_equal(none.statistic, two.statistic)
