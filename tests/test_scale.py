"""The selection at scale (issue 14, items 4-5): the C-grid solver, the pair cap, the row subsample.

* :func:`slb.model.svm.grid_mask_predictions` (one kernel per column mask for the whole C grid,
  the map standardised block by block, working sets warm-started along C) must predict what
  one :func:`fit_linear_svm` per (mask, C) predicts;
* the pair cap: the inner folds and the final fit choose among the top ``K`` pairs by score,
  ``K`` from the memory budget, checked against the full-data scores;
* the row subsample: the inner CV runs on a stratified subsample of ``max_search_rows``, and
  the final model is the fixed-parameter model fitted on every row; both are estimator
  parameters (``max_search_rows``, ``search_memory_mb``), validated and stored as given;
* the faster exact paths (inner folds without HSIC p-values, the rescaled and threaded exact
  kernels, libsvm without SVC's wrapper) compute what the slower ones did: bit for bit where
  the arithmetic is the same, to 1e-12 against textbook formulas where it is not.
"""

import numpy as np
import pytest
from sklearn.preprocessing import StandardScaler

from slb import LUClassifier, SLBClassifier
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


def test_pair_cap_keeps_the_top_pairs_within_the_budget():
    X, y = _wide()
    d, n, k, K = X.shape[1], X.shape[0], 5, 40
    budget = (2 * K + 2 * d) * 8.0 * n * k / 2**20  # MB for K pairs over 5 folds of 120 rows
    assert pairs_for_budget(budget, n, d, k) == K
    clf = SLBClassifier(
        random_state=0,
        warm_start=True,
        Cs=[0.1, 1.0],
        search_memory_mb=budget,
        generative_candidates=False,  # the SLB grid's pair budget is under test
    ).fit(X, y)
    assert clf.search_memory_mb == budget  # stored unchanged
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
    uncapped = SLBClassifier(random_state=0, Cs=[0.1], search_memory_mb=None).fit(X, y)
    assert uncapped.n_candidate_pairs_ == d * (d - 1) // 2


def test_row_subsample_of_the_selection():
    X, y = _wide(n=400, d=8, seed=2)
    y[:40] = 0  # 220 / 180: the subsample must keep the class shares
    clf = SLBClassifier(
        random_state=5,
        warm_start=True,
        Cs=[0.1, 1.0],
        max_search_rows=200,
        generative_candidates=False,  # the final model is SLB at the chosen (lambda, C)
    )
    clf.fit(X, y)
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


def test_the_subsample_keeps_a_rare_class_and_a_skipped_selection_warns():
    """H53: 6 positive rows among 5,000, and the stratified subsample of 2,000 kept 2 of them:
    too few to cross-validate, so the selection was skipped without a word (no pair, the
    middle C).  The subsample now keeps all 6 and the selection runs; a class of 2 rows, too
    few for any inner CV, gives a warning naming it."""
    rng = np.random.default_rng(0)
    y = np.r_[np.zeros(4994, int), np.ones(6, int)]
    X = rng.normal(size=(5000, 3)) + 2 * y[:, None]
    clf = SLBClassifier(random_state=0, Cs=[0.1, 1.0], warm_start=True).fit(X, y)
    assert clf.cv_results_ is not None and clf.n_search_rows_ == 2000 + 4
    folds = clf._cache[("path", clf._cache["inner_folds"])].folds_
    rows = np.unique(np.concatenate([f.test for f in folds]))
    assert np.bincount(y[rows]).tolist() == [1998, 6] and clf._cache["inner_folds"] >= 2
    few = np.r_[np.zeros(60, int), np.ones(2, int)]
    with pytest.warns(UserWarning, match="Class 1 has 2 row"):
        lone = SLBClassifier(random_state=0, Cs=[0.1, 1.0, 10.0]).fit(X[:62], few)
    assert lone.cv_results_ is None and lone.C_ == 1.0
    # the minimum said is the real one (H55: "3 are needed" also for cv=2, which needs 4)
    three = np.r_[np.zeros(60, int), np.ones(3, int)]
    with pytest.warns(UserWarning, match="4 are needed with cv=2"):
        SLBClassifier(random_state=0, cv=2, Cs=[0.1, 1.0]).fit(X[:63], three)
    # 2,001 rows of two classes: the subsample would drop one row, fewer than the classes
    # (H55: StratifiedShuffleSplit failed); all rows are kept
    two = SLBClassifier(random_state=0, Cs=[0.1, 1.0], generative_candidates=False)
    assert two.fit(X[:2001], np.arange(2001) % 2).n_search_rows_ == 2001


def test_search_parameters_are_estimator_parameters():
    X, y = _wide(n=300, d=6, seed=3)
    assert SLBClassifier().get_params()["max_search_rows"] == 2000
    assert SLBClassifier().get_params()["search_memory_mb"] == 256
    # LU searches C only: the row subsample applies, the pair budget does not exist
    lu = LUClassifier(random_state=0, Cs=[0.1, 1.0], max_search_rows=120).fit(X, y)
    assert lu.n_search_rows_ == 120 and "search_memory_mb" not in lu.get_params()
    every = SLBClassifier(random_state=0, Cs=[0.1], max_search_rows=None).fit(X, y)
    assert every.n_search_rows_ == 300 and every.max_search_rows is None
    for bad in ({"max_search_rows": 0}, {"max_search_rows": 2.5}, {"search_memory_mb": -1}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            SLBClassifier(**bad).fit(X, y)


# -- the faster paths must compute what the slower ones did ---------------------------------------
def test_hsic_without_pvalues_is_the_same_statistic_bit_for_bit():
    # the inner folds skip the p-values; their screening must not move because of it
    from slb.dependence.hsic import hsic_all_pairs

    X, _ = _wide(n=90, d=7, seed=4)
    for budget in (2**30, 8 * 7 * 30 * 30):  # panels kept, and recomputed in the second pass
        with_p = hsic_all_pairs(X, method="exact", memory_budget=budget)
        without = hsic_all_pairs(X, method="exact", pvalues=False, memory_budget=budget)
        np.testing.assert_array_equal(without.statistic, with_p.statistic)
        assert np.isnan(without.pvalue).all() and not np.isnan(with_p.pvalue[0, 1])


def test_selection_without_inner_pvalues_equals_the_selection_with_them(monkeypatch):
    X, y = _wide(n=160, d=9, seed=6)
    fast = SLBClassifier(random_state=1, warm_start=True).fit(X, y)
    assert np.isnan(fast._cache[("path", 5)].folds_[0].screen.pvalue).all()
    # FDR and p-value scores read the inner folds' p-values: those still compute them
    for kw in ({"threshold": "fdr"}, {"screening_score": "pvalue"}):
        other = SLBClassifier(random_state=1, warm_start=True, Cs=[0.1, 1.0], **kw).fit(X, y)
        assert not np.isnan(other._cache[("path", 5)].folds_[0].screen.pvalue[0]).any()
    monkeypatch.setattr(SLBClassifier, "_inner_pvalues", lambda self: True)  # the old path
    slow = SLBClassifier(random_state=1, warm_start=True).fit(X, y)
    assert not np.isnan(slow._cache[("path", 5)].folds_[0].screen.pvalue).all()
    np.testing.assert_array_equal(fast.cv_results_["mean_ber"], slow.cv_results_["mean_ber"])
    assert (fast.best_index_, fast.fraction_) == (slow.best_index_, slow.fraction_)
    np.testing.assert_equal(fast.C_, slow.C_)  # NaN when naive Bayes or TAN was chosen
    np.testing.assert_array_equal(fast.decision_function(X), slow.decision_function(X))
    assert not np.isnan(fast.pvalues_[0, 0, 1])  # still reported on all the rows


def test_exact_kernels_equal_the_textbook_formula_whatever_the_chunks(monkeypatch):
    # the rescaled kernel evaluation and the larger chunks of the pair densities
    from scipy.stats import norm

    from slb.density import kde as kde_module

    rng = np.random.default_rng(2)
    E, Xc, h = rng.normal(size=(7, 5)) * 2, rng.normal(size=(11, 5)), rng.uniform(0.2, 2, 5)
    want = norm.pdf(E[:, None, :], loc=Xc[None, :, :], scale=h)
    got = kde_module.ClassConditionalKDE._kernels(E, Xc, h)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    X, y = _wide(n=80, d=12, seed=1)
    h2 = np.full((2, 12), 0.5)
    kde = kde_module.ClassConditionalKDE(X, y, h2, h2, np.zeros(12), np.zeros((12, 12)))
    pairs = np.array([[0, 1], [0, 5], [2, 3], [4, 11], [7, 8]])
    big = kde.bivariate(X, pairs, self_class=y)
    monkeypatch.setattr(kde_module, "_CHUNK_BYTES", 8 * 40 * 12)  # one row per chunk
    np.testing.assert_allclose(kde.bivariate(X, pairs, self_class=y), big, rtol=1e-13)
    c = 1
    ref = kde_module.kde_pdf_2d(X[y == c][:, [4, 11]], X[:, [4, 11]], h2[c, [4, 11]])
    np.testing.assert_allclose(big[c, y != c, 3], ref[y != c], rtol=1e-12)


def test_exact_densities_in_threads_equal_one_thread_bit_for_bit(monkeypatch):
    from slb.density import kde as kde_module

    monkeypatch.setattr(kde_module, "_EXACT_PARALLEL_MIN_WORK", 0)
    monkeypatch.setattr(kde_module, "_CHUNK_BYTES", 8 * 40 * 36 * 3)  # several chunks
    X, y = _wide(n=80, d=12, seed=3)
    h = np.full((2, 12), 0.6)
    pairs = np.array([[0, 1], [0, 5], [2, 3], [4, 11]])
    out = {}
    for n_jobs in (1, 2):
        kde = kde_module.ClassConditionalKDE(
            X, y, h, h, np.zeros(12), np.zeros((12, 12)), method="exact", n_jobs=n_jobs
        )
        out[n_jobs] = (kde.univariate(X, y), kde.bivariate(X, pairs, y))
    for a, b in zip(out[1], out[2], strict=True):
        np.testing.assert_array_equal(a, b)
    ref = kde_module.kde_pdf_1d(X[y == 0, 7], X[y == 1, 7], h[0, 7])  # and the right values
    np.testing.assert_allclose(out[2][0][0, y == 1, 7], ref, rtol=1e-12)


@pytest.mark.parametrize("C", [0.01, 1.0, 10.0])
def test_kernel_fit_is_svc_bit_for_bit(C):
    # the inner folds' libsvm calls skip SVC's validation: the same solution, to the bit
    from sklearn.svm import SVC

    T, y = _map(150, 8, seed=int(C * 100))
    Z = StandardScaler().fit_transform(T)
    K = Z @ Z.T
    w = svm.class_weights("balanced", y)
    dual, support, b = svm._fit_kernel(K, y, C, w)
    ref = SVC(kernel="precomputed", C=C, class_weight={0: w[0], 1: w[1]}, tol=svm.TOL).fit(K, y)
    np.testing.assert_array_equal(dual, ref.dual_coef_.ravel())
    np.testing.assert_array_equal(support, ref.support_)
    assert b == float(ref.intercept_[0])


def test_warm_refit_that_needs_pvalues_recomputes_the_inner_folds():
    X, y = _wide(n=120, d=7, seed=8)
    clf = SLBClassifier(random_state=2, warm_start=True, Cs=[0.1, 1.0]).fit(X, y)
    assert np.isnan(clf._cache[("path", 5)].folds_[0].screen.pvalue).all()
    clf.set_params(threshold="fdr").fit(X, y)  # the cached folds lack p-values: refitted
    assert not np.isnan(clf._cache[("path", 5)].folds_[0].screen.pvalue[0]).any()
    fresh = SLBClassifier(threshold="fdr", random_state=2, Cs=[0.1, 1.0]).fit(X, y)
    np.testing.assert_array_equal(clf.cv_results_["mean_ber"], fresh.cv_results_["mean_ber"])
