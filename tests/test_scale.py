"""The selection at scale (issue 14, items 4-5): the C-grid solver, the pair cap, the row subsample.

* :func:`slb.model.svm.grid_mask_predictions` (one kernel per column mask for the whole C grid,
  the map standardised block by block, working sets warm-started along C) must predict what
  one :func:`fit_linear_svm` per (mask, C) predicts;
* the pair cap: the inner folds and the final fit choose among the top ``K`` pairs by score,
  ``K`` from the memory budget, checked against the full-data scores;
* the row subsample: the inner CV runs on a stratified subsample of ``MAX_SEARCH_ROWS``, and
  the final model is the fixed-parameter model fitted on every row.
"""

import numpy as np
import pytest
from sklearn.preprocessing import StandardScaler

import slb.model.path as path_module
from slb import SLBClassifier
from slb.model import svm
from slb.model.path import pairs_for_budget
from slb.model.svm import column_scaling, fit_linear_svm, grid_mask_predictions


def _map(n, p, seed):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    T = rng.normal(size=(n, p)) * rng.uniform(0.5, 3.0, size=p) + rng.normal(size=p)
    T[:, :3] += 1.2 * (y[:, None] - 0.5)
    T[:, 3:] += 0.5 * T[:, :1]
    return T, y


@pytest.mark.parametrize("n", [120, 400])
def test_grid_predictions_equal_one_fit_per_mask_and_c(monkeypatch, n):
    if n > 200:  # the working-set path (warm-started along C) on a few hundred rows
        monkeypatch.setattr(svm, "GRAM_MAX_SAMPLES", 100)
        monkeypatch.setattr(svm, "_INITIAL_ROWS", 60)
        monkeypatch.setattr(svm, "_MIN_ADDED_ROWS", 8)
    T, y = _map(n + 60, 12, seed=n)
    tr, te = np.arange(n), np.arange(n, n + 60)
    masks = [np.r_[np.ones(k, bool), np.zeros(12 - k, bool)] for k in (12, 3, 7)]
    masks.append(np.zeros(12, bool))
    Cs = [0.01, 0.3, 5.0]
    got = grid_mask_predictions(T[tr], y[tr], T[te], masks, Cs, "balanced")
    for j, C in enumerate(Cs):
        for g, m in enumerate(masks):
            w, b = fit_linear_svm(T[tr][:, m], y[tr], C=C, class_weight="balanced")
            want = (T[te][:, m] @ w + b > 0).astype(int)
            # the same problem solved to libsvm's tolerance: at most a boundary row differs
            assert np.sum(got[j][g] != want) <= 1, (C, g)


def test_column_scaling_equals_standard_scaler():
    T, _ = _map(50, 9, seed=1)
    T[:, 4] = 2.5  # constant column: scale 1, as StandardScaler
    center, scale = column_scaling(T, chunk_bytes=8 * 50 * 2)  # two columns per block
    ref = StandardScaler().fit(T)
    np.testing.assert_allclose(center, ref.mean_, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(scale, ref.scale_, rtol=1e-14)


def _wide(n=120, d=30, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.arange(n) % 2
    for k in range(0, min(d - 1, 12), 2):
        X[y == 1, k + 1] += 0.9 * X[y == 1, k]
    X[y == 0, d - 2] += 0.8 * X[y == 0, d - 1]
    return X, y


def test_pair_cap_keeps_the_top_pairs_within_the_budget(monkeypatch):
    X, y = _wide()
    d, n, k, K = X.shape[1], X.shape[0], 5, 40
    budget = (2 * K + 2 * d) * 8.0 * n * k / 2**20  # MB for K pairs over 5 folds of 120 rows
    assert pairs_for_budget(budget, n, d, k) == K
    monkeypatch.setattr(path_module, "SEARCH_MEMORY_MB", budget)
    clf = SLBClassifier(random_state=0, warm_start=True, Cs=[0.1, 1.0]).fit(X, y)
    assert clf.n_candidate_pairs_ == K
    for f in clf._cache[("path", k)].folds_:  # every inner fold: K candidates, no more columns
        assert f.screen.pairs.shape[0] == K
        assert f.T_train.shape[1] == 2 * d + 2 * K
    assert np.max(clf.cv_results_["mean_n_pairs"]) == K
    # the final model keeps pairs among the top K of the full-data scores (max over classes)
    iu = np.triu_indices(d, 1)
    score = np.nanmax(clf.dependence_[:, iu[0], iu[1]], axis=0)
    top = {(int(iu[0][i]), int(iu[1][i])) for i in np.argsort(-score, kind="stable")[:K]}
    assert {tuple(map(int, p)) for p in clf.pairs_} <= top
    # without a cap every pair is a candidate
    monkeypatch.setattr(path_module, "SEARCH_MEMORY_MB", None)
    assert SLBClassifier(random_state=0, Cs=[0.1]).fit(X, y).n_candidate_pairs_ == d * (d - 1) // 2


def test_row_subsample_of_the_selection(monkeypatch):
    X, y = _wide(n=400, d=8, seed=2)
    y[:40] = 0  # 220 / 180: the subsample must keep the class shares
    monkeypatch.setattr(path_module, "MAX_SEARCH_ROWS", 200)
    clf = SLBClassifier(random_state=5, warm_start=True, Cs=[0.1, 1.0]).fit(X, y)
    assert clf.n_search_rows_ == 200
    folds = clf._cache[("path", 5)].folds_
    rows = np.unique(np.concatenate([f.test for f in folds]))
    assert rows.size == 200 and np.bincount(y[rows]).tolist() == [110, 90]
    for f in folds:
        assert np.intersect1d(f.train, f.test).size == 0
        assert np.union1d(f.train, f.test).size == 200
    # the final model is the fixed-parameter model on every row
    fixed = SLBClassifier(threshold=clf.threshold_, C=clf.C_, random_state=5).fit(X, y)
    np.testing.assert_array_equal(clf.pairs_, fixed.pairs_)
    np.testing.assert_allclose(np.asarray(clf.coef_), np.asarray(fixed.coef_), rtol=1e-9)
