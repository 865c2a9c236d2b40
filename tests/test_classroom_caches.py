"""What a class of sessions on one server computes once (issue 27's classroom row).

SLB's per-fold path is cached by size (:func:`dashboard.compute.threshold_path`): a class's
small uploads are not evicted by each other (with one cache of 4, every session's path was
fitted twice), big ones keep the cache of 4.  The BLAS limit of every run
(:func:`dashboard.compute.limit_native_threads`) scans the process's libraries only when modules
were imported since.  Structural, not timed: fits are counted.
"""

from __future__ import annotations

import pickle
import sys
import types

import numpy as np
import pandas as pd
import pytest
import streamlit as st

from dashboard import compute, workqueue
from dashboard.data import Dataset
from slb import ThresholdPath
from slb.evaluation import stratified_folds

DENS = ("scott", 1.0, ())


def _dataset(n: int, d: int, seed: int) -> Dataset:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (np.arange(n) % 3 == 0).astype(int)
    X[y == 1, 1] = 0.9 * X[y == 1, 0] + 0.4 * X[y == 1, 1]
    return Dataset(
        name=f"class-{seed}",
        source="test",
        X=pd.DataFrame(X, columns=[f"f{i}" for i in range(d)]),
        y=y,
        positive_label="1",
        negative_label="0",
        key=f"classroom-caches-{n}-{d}-{seed}",
        label="label",
        report=pd.DataFrame(columns=["severity", "change"]),
        class_counts={"0": int((y == 0).sum()), "1": int((y == 1).sum())},
        n_folds=3,
    )


@pytest.fixture()
def counted_fits(monkeypatch):
    """Every ThresholdPath fit in this process, counted by dataset size."""
    monkeypatch.setattr(workqueue, "NICE_MIN_COST", float("inf"))
    fits = []
    orig = ThresholdPath.fit

    def fit(self, X, y, folds=None, *a, **k):
        fits.append(X.shape)
        return orig(self, X, y, folds, *a, **k)

    monkeypatch.setattr(ThresholdPath, "fit", fit)
    st.cache_resource.clear()
    yield fits
    st.cache_resource.clear()


def _path(ds):
    return compute.threshold_path(ds.key, ds, "hsic", "either", DENS, ds.n_folds, 0, 1)


def test_path_bytes_estimates_the_stored_path():
    """The size estimate against the pickled path (an independent measure of its arrays)."""
    for n, d in ((45, 3), (90, 5)):
        ds = _dataset(n, d, 0)
        f = stratified_folds(ds.y, n_splits=3, n_repeats=2, random_state=0)
        path = ThresholdPath(random_state=0).fit(ds.X, ds.y, f)
        stored = len(pickle.dumps(path, protocol=5))
        est = compute.path_bytes(n, d, 3, 2)
        assert 0.75 * stored < est < 1.1 * stored, (n, d, est, stored)


def test_small_paths_of_a_class_are_fitted_once_each(counted_fits):
    """Ten sessions' tables, then each read again: ten fits, not twenty (a cache of 4 refitted
    the first six), and the same object back."""
    sets = [_dataset(45 + 3 * i, 3, i) for i in range(10)]
    assert all(compute.path_bytes(ds.n, ds.d, 3, 1) <= compute.SMALL_PATH_BYTES for ds in sets)
    first = [_path(ds) for ds in sets]
    again = [_path(ds) for ds in sets]
    assert len(counted_fits) == 10
    assert all(a is b for a, b in zip(first, again, strict=True))


def test_big_paths_keep_the_cache_of_four(counted_fits, monkeypatch):
    """Above SMALL_PATH_BYTES the cache holds four paths: a fifth evicts the oldest."""
    monkeypatch.setattr(compute, "SMALL_PATH_BYTES", 0)  # every path is "big"
    sets = [_dataset(45, 3, 20 + i) for i in range(5)]
    for ds in sets:
        _path(ds)
    assert len(counted_fits) == 5
    _path(sets[-1])  # kept
    assert len(counted_fits) == 5
    _path(sets[0])  # evicted by the fifth
    assert len(counted_fits) == 6


def test_small_and_big_caches_give_the_same_path(counted_fits, monkeypatch):
    """Which cache holds a path does not change it: the per-fold maps are identical."""
    ds = _dataset(60, 4, 3)
    small = _path(ds)
    monkeypatch.setattr(compute, "SMALL_PATH_BYTES", 0)
    big = _path(ds)
    assert big is not small and len(counted_fits) == 2
    for a, b in zip(small.folds_, big.folds_, strict=True):
        np.testing.assert_array_equal(a.T_train, b.T_train)
        np.testing.assert_array_equal(a.T_test, b.T_test)
    np.testing.assert_array_equal(small.fold_ber(0.01)[0], big.fold_ber(0.01)[0])


def test_warm_full_data_fits_of_a_class_stay_warm(monkeypatch):
    """Ten sessions' full-data SLBs, then a λ move on the first: still the same warm model
    (a cache of 8 had evicted it, and the move paid the screening and densities again); the
    moved fit equals a cold fit at that λ."""
    from slb import SLBClassifier

    monkeypatch.setattr(workqueue, "NICE_MIN_COST", float("inf"))
    st.cache_resource.clear()
    st.cache_data.clear()
    sets = [_dataset(45 + 3 * i, 3, 40 + i) for i in range(10)]
    args = [(ds.key, ds, "hsic", "either", DENS, 0) for ds in sets]
    warm = [compute._warm_slb(*a) for a in args]
    for ds in sets:
        compute.fit_slb(ds.key, ds, 0.0, "hsic", "either", DENS, 0)
    assert all(compute._warm_slb(*a) is w for a, w in zip(args, warm, strict=True))
    ds = sets[0]
    moved = compute.fit_slb(ds.key, ds, 0.02, "hsic", "either", DENS, 0)
    cold = SLBClassifier(
        threshold=0.02,
        C=compute.FIXED_C,
        random_state=0,
        probability=False,
        **compute.density_params(DENS),
    ).fit(ds.X, ds.y)
    np.testing.assert_allclose(moved.decision_function(ds.X), cold.decision_function(ds.X))
    assert compute._warm_slb(*args[0]) is warm[0]
    st.cache_resource.clear()
    st.cache_data.clear()


def test_big_warm_fits_keep_the_cache_of_eight(monkeypatch):
    monkeypatch.setattr(compute, "SMALL_WARM_BYTES", 0)
    st.cache_resource.clear()
    sets = [_dataset(45, 3, 60 + i) for i in range(9)]
    args = [(ds.key, ds, "hsic", "either", DENS, 0) for ds in sets]
    first = compute._warm_slb(*args[0])
    for a in args[1:]:
        compute._warm_slb(*a)
    assert compute._warm_slb(*args[0]) is not first  # the ninth evicted the first
    st.cache_resource.clear()


def test_native_thread_limit_is_applied_again_only_after_new_imports(monkeypatch):
    import threadpoolctl

    calls = []
    monkeypatch.setattr(threadpoolctl, "threadpool_limits", lambda **k: calls.append(k))
    monkeypatch.setattr(compute, "_BLAS_LIMITED", {})
    monkeypatch.delenv("SLB_BLAS_THREADS", raising=False)
    compute.limit_native_threads()
    compute.limit_native_threads()
    assert calls == [{"limits": 1, "user_api": "blas"}]
    monkeypatch.setitem(sys.modules, "_slb_test_new_native_module", types.ModuleType("m"))
    compute.limit_native_threads()  # a new module may have brought a new BLAS
    assert len(calls) == 2
    monkeypatch.setenv("SLB_BLAS_THREADS", "2")
    compute.limit_native_threads()
    assert calls[-1] == {"limits": 2, "user_api": "blas"}


def test_native_thread_limit_holds_for_blas():
    """The real call: every BLAS library loaded runs single-threaded after it."""
    from threadpoolctl import threadpool_info, threadpool_limits

    with threadpool_limits(limits=None):
        compute._BLAS_LIMITED.clear()
        compute.limit_native_threads()
        blas = [i for i in threadpool_info() if i["user_api"] == "blas"]
        assert blas and all(i["num_threads"] == 1 for i in blas)
