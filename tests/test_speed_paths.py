"""The fast paths agree with the exact ones within their documented tolerances.

* exact HSIC on panels (any memory budget, threads or not, with or without p-values) equals the
  textbook trace formula;
* low-rank HSIC (incomplete Cholesky) stays within its reported bound, its p-values near the
  exact ones; ``method="auto"`` switches at ``approx_min_samples``;
* the fast median heuristic is the definition's value, bit for bit;
* binned KDE: |log p_binned - log p| <= 0.01 wherever p >= 1e-3 max p, plain and leave-one-out,
  its leave-one-out is exactly the binned estimate without the point, far points fall below the
  floor, heavy tails are windowed, ``method="auto"`` switches at ``binned_min_samples``;
* the classifier's nested-kernel threshold CV gives the same choice as one SVM per threshold.

Sizes are small so that the whole file runs in a few seconds; the fast paths are forced through
their threshold parameters.
"""

import numpy as np
import pytest
from scipy import stats

import slb.model.path as path_module
from slb._utils import all_pairs
from slb.density.binned import Grid
from slb.density.kde import ClassConditionalKDE, kde_pdf_1d, kde_pdf_2d
from slb.dependence import hsic as dependence
from slb.dependence.hsic import hsic_all_pairs, median_heuristic_sigma2
from slb.dependence.lowrank import incomplete_cholesky
from slb.model.classifier import SLBClassifier


# ---------------------------------------------------------------------------------------------
# references
# ---------------------------------------------------------------------------------------------
def ref_sigma2(a):
    a = np.asarray(a, float)
    iu = np.triu_indices(a.size, 1)
    d2 = ((a[:, None] - a[None, :]) ** 2)[iu]
    d2 = d2[d2 > 0]
    return float(np.median(d2)) / 2.0 if d2.size else 1.0


def ref_hsic(a, b):
    """(1/n^2) tr(K H L H) with an explicit centring matrix."""
    n = len(a)
    H = np.eye(n) - np.ones((n, n)) / n
    K = np.exp(-((a[:, None] - a[None, :]) ** 2) / (2 * ref_sigma2(a)))
    L = np.exp(-((b[:, None] - b[None, :]) ** 2) / (2 * ref_sigma2(b)))
    return float(np.trace(K @ H @ L @ H)) / n**2


def dependent_sample(n, seed=0):
    rng = np.random.default_rng(seed)
    x0 = rng.normal(size=n)
    cols = [
        x0,
        0.7 * x0 + 0.7 * rng.normal(size=n),
        x0**2 + 0.5 * rng.normal(size=n),
        rng.standard_t(3, size=n),
        rng.exponential(size=n),
        rng.uniform(-1, 1, size=n),
    ]
    cols.append(0.3 * cols[3] + rng.normal(size=n))
    return np.column_stack(cols)


def max_log_error(p_fast, p_exact, tau=1e-3):
    """max |log p_fast - log p_exact| over the points where p_exact >= tau * max (per column)."""
    p_fast = np.atleast_2d(p_fast.T).T
    p_exact = np.atleast_2d(p_exact.T).T
    worst = 0.0
    for k in range(p_exact.shape[1]):
        ok = p_exact[:, k] >= tau * p_exact[:, k].max()
        err = np.abs(np.log(np.maximum(p_fast[ok, k], 1e-300)) - np.log(p_exact[ok, k]))
        worst = max(worst, float(err.max()))
    return worst


# ---------------------------------------------------------------------------------------------
# HSIC
# ---------------------------------------------------------------------------------------------
def test_median_heuristic_fast_selection_is_exact():
    rng = np.random.default_rng(0)
    samples = [
        rng.normal(size=700),  # > 300 points: sorted selection, no pairwise matrix
        rng.integers(0, 7, size=650).astype(float),  # many zero distances
        np.round(rng.standard_t(2, size=999), 2),
        np.concatenate([np.full(400, 3.0), rng.normal(size=5)]),
        rng.normal(size=2500),  # subsampled to 1000 points like dHSIC
    ]
    for x in samples:
        xs = x if x.size <= 1000 else x[np.linspace(0, x.size - 1, 1000).round().astype(int)]
        assert median_heuristic_sigma2(x) == ref_sigma2(xs)


@pytest.mark.parametrize("pvalues", [True, False])
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_exact_panels_equal_trace_formula(pvalues, n_jobs):
    X = dependent_sample(90, seed=1)
    d = X.shape[1]
    ref = np.array(
        [[ref_hsic(X[:, i], X[:, j]) if i != j else np.nan for j in range(d)] for i in range(d)]
    )
    one = hsic_all_pairs(X, method="exact", pvalues=pvalues)
    np.testing.assert_allclose(one.statistic, ref, rtol=1e-10, atol=1e-14, equal_nan=True)
    # Tiny budgets force 16 x 16 panels (6 row blocks, 21 panels) and, with p-values, two passes.
    for budget in (1, 8 * d * 40 * 40):
        res = hsic_all_pairs(
            X, method="exact", pvalues=pvalues, memory_budget=budget, n_jobs=n_jobs
        )
        assert res.method == "exact" and res.max_error == 0.0
        np.testing.assert_allclose(res.statistic, ref, rtol=1e-10, atol=1e-14, equal_nan=True)
        np.testing.assert_allclose(res.pvalue, one.pvalue, rtol=1e-9, equal_nan=True)


def test_approximate_hsic_within_its_bound():
    X = dependent_sample(600, seed=2)
    exact = hsic_all_pairs(X, method="exact")
    off = ~np.eye(X.shape[1], dtype=bool)
    for tol in (1e-1, 1e-3):
        approx, info = hsic_all_pairs(X, method="approx", approx_tol=tol, return_info=True)
        assert approx.method == "approx" and info["method"] == "approx"
        err = np.abs(approx.statistic - exact.statistic)[off]
        assert np.all(err <= info["bound"][off] + 1e-15)
        assert approx.max_error <= tol / X.shape[0] + 1e-15  # the documented guarantee
        assert np.all(info["residual_trace"] <= tol / 2)
    # A tighter tolerance needs larger ranks.
    _, loose = hsic_all_pairs(X, method="approx", approx_tol=1e-1, return_info=True)
    _, tight = hsic_all_pairs(X, method="approx", approx_tol=1e-6, return_info=True)
    assert np.all(tight["ranks"] >= loose["ranks"]) and tight["ranks"].sum() > loose["ranks"].sum()


def test_approximate_pvalues_close_to_exact():
    X = dependent_sample(700, seed=3)
    exact = hsic_all_pairs(X, method="exact")
    approx = hsic_all_pairs(X, method="approx", pvalue_pairs=100_000)
    iu = np.triu_indices(X.shape[1], 1)
    pe, pa = exact.pvalue[iu], approx.pvalue[iu]
    body = pe > 1e-8
    assert body.sum() >= 5
    assert np.max(np.abs(np.log10(pa[body]) - np.log10(pe[body]))) < 0.1
    assert np.all((pa >= 0) & (pa <= 1))
    # Every pair enumerated when there are fewer than pvalue_pairs of them: tighter still.
    small = X[:300]
    pe2 = hsic_all_pairs(small, method="exact").pvalue[iu]
    pa2 = hsic_all_pairs(small, method="approx").pvalue[iu]
    ok = pe2 > 1e-8
    assert np.max(np.abs(np.log10(pa2[ok]) - np.log10(pe2[ok]))) < 0.01


def test_auto_switches_at_threshold(monkeypatch):
    X = dependent_sample(120, seed=4)
    assert hsic_all_pairs(X).method == "exact"
    assert hsic_all_pairs(X, approx_min_samples=100).method == "approx"
    assert hsic_all_pairs(X, approx_min_samples=121).method == "exact"
    monkeypatch.setattr(dependence, "HSIC_APPROX_MIN_SAMPLES", 50)
    res = dependence.dependence_matrix(X, "hsic")
    assert res.method == "approx" and res.max_error > 0
    with pytest.raises(ValueError, match="method"):
        hsic_all_pairs(X, method="nystrom")


def test_incomplete_cholesky_residual_is_psd_with_reported_trace():
    x = np.random.default_rng(5).standard_t(3, size=300)
    s2 = median_heuristic_sigma2(x)
    G, resid = incomplete_cholesky(x, s2, 1e-6, 300)
    K = np.exp(-((x[:, None] - x[None, :]) ** 2) / (2 * s2))
    R = K - G.T @ G
    assert np.trace(R) == pytest.approx(resid, abs=1e-9)
    assert resid <= 1e-6
    assert np.linalg.eigvalsh(R).min() > -1e-9


# ---------------------------------------------------------------------------------------------
# binned KDE
# ---------------------------------------------------------------------------------------------
SAMPLES = {
    "normal": lambda rng, n: (
        rng.normal(size=(n, 3)) @ np.array([[1, 0.6, 0], [0, 0.8, 0.3], [0, 0, 1]])
    ),
    "t3": lambda rng, n: rng.standard_t(3, size=(n, 3)),
    "lognormal": lambda rng, n: np.exp(rng.normal(size=(n, 3))),
    "trimodal": lambda rng, n: np.column_stack(
        [rng.choice([-3.0, 0.0, 3.0], n) + 0.4 * rng.normal(size=n), rng.normal(size=(n, 2))]
    ),
}


def _kdes(X, y, method_kw, floor=1e-300):
    d = X.shape[1]
    n = np.bincount(y)
    s = np.std(X, axis=0, ddof=1)
    h1 = np.vstack([s * k**-0.2 for k in n])
    h2 = np.vstack([s * k ** (-1 / 6) for k in n])
    f1, f2 = np.full(d, floor), np.full((d, d), floor)
    exact = ClassConditionalKDE(X, y, h1, h2, f1, f2, method="exact")
    fast = ClassConditionalKDE(X, y, h1, h2, f1, f2, **method_kw)
    return exact, fast


@pytest.mark.parametrize("name", list(SAMPLES))
def test_binned_kde_log_error_bounded(name):
    rng = np.random.default_rng(6)
    n = 500
    X = SAMPLES[name](rng, n)
    y = (np.arange(n) % 5 == 0).astype(int)  # classes of 400 and 100
    exact, fast = _kdes(X, y, {"method": "binned"})
    pairs = np.array([[0, 1], [0, 2], [1, 2]])
    E = X + 0.5 * rng.normal(size=X.shape) * X.std(axis=0)  # new points, in gaps and tails
    for c in (0, 1):
        for args in ((X, y), (E, None)):  # leave-one-out rows, then new rows
            assert max_log_error(fast.univariate(*args)[c], exact.univariate(*args)[c]) <= 0.01
            got = fast.bivariate(args[0], pairs, args[1])[c]
            assert max_log_error(got, exact.bivariate(args[0], pairs, args[1])[c]) <= 0.01


def test_binned_loo_is_the_binned_estimate_without_the_point():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 2))
    y = np.zeros(300, int)
    h = np.array([[0.3, 0.4]])
    kw = dict(method="binned")
    full = ClassConditionalKDE(X, y, h, h, np.full(2, 1e-300), np.full((2, 2), 1e-300), **kw)
    loo1 = full.univariate(X, y)[0]
    loo2 = full.bivariate(X, [[0, 1]], y)[0, :, 0]
    interior = np.flatnonzero(
        (X[:, 0] > X[:, 0].min())
        & (X[:, 0] < X[:, 0].max())
        & (X[:, 1] > X[:, 1].min())
        & (X[:, 1] < X[:, 1].max())
    )[:5]
    for k in interior:  # removing an interior point leaves the grid unchanged
        rest = np.delete(np.arange(300), k)
        kde = ClassConditionalKDE(
            X[rest], y[rest], h, h, np.full(2, 1e-300), np.full((2, 2), 1e-300), **kw
        )
        np.testing.assert_allclose(loo1[k], kde.univariate(X[[k]])[0, 0], rtol=1e-10)
        np.testing.assert_allclose(loo2[k], kde.bivariate(X[[k]], [[0, 1]])[0, 0, 0], rtol=1e-10)
    # and the binned leave-one-out is within the tolerance of the exact one
    e1 = kde_pdf_1d(X[:, 0], X[:, 0], 0.3, loo=True)
    e2 = kde_pdf_2d(X, X, [0.3, 0.4], loo=True)
    assert max_log_error(loo1[:, 0], e1) <= 0.01
    assert max_log_error(loo2, e2) <= 0.01


def test_binned_far_points_and_floor():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(400, 2))
    y = np.zeros(400, int)
    h = np.array([[0.3, 0.35]])
    f1, f2 = np.full(2, 1e-6), np.full((2, 2), 1e-6)
    exact = ClassConditionalKDE(X, y, h, h, f1, f2, method="exact")
    fast = ClassConditionalKDE(X, y, h, h, f1, f2, method="binned")
    # beyond the grid but near the data (exact), far beyond the data (below the floor: 0)
    E = np.array([[X[:, 0].max() + 2.0, 0.0], [40.0, 0.0], [0.0, -50.0], [0.1, 0.2]])
    lu_e, lu_f = exact.log_univariate(E)[0], fast.log_univariate(E)[0]
    lb_e, lb_f = exact.log_bivariate(E, [[0, 1]])[0], fast.log_bivariate(E, [[0, 1]])[0]
    np.testing.assert_allclose(lu_f, lu_e, atol=0.01)
    np.testing.assert_allclose(lb_f, lb_e, atol=0.01)
    assert lu_f[1, 0] == np.log(1e-6) and lb_f[1, 0] == np.log(1e-6)
    assert fast.univariate(E)[0, 1, 0] == 0.0  # reported as 0: below the floor


def test_binned_heavy_tails_window_and_exact_outliers():
    rng = np.random.default_rng(9)
    x = np.concatenate([rng.normal(size=600), [80.0, -95.0, 120.0]])  # three far outliers
    X = np.column_stack([x, rng.normal(size=x.size)])
    y = np.zeros(x.size, int)
    h = np.array([[0.2, 0.3]])
    g = Grid.build(x, 0.2, 5.0, 320, 0.01)
    assert g is not None and g.hi < 80 and g.lo > -95  # windowed: the outliers are left out
    exact, fast = _kdes(X, y, {"method": "binned"})
    fast.h1 = exact.h1 = fast.h2 = exact.h2 = h
    E = np.vstack([X, [[79.9, 0.0], [5.0, 0.5]]])
    assert max_log_error(fast.univariate(E)[0], exact.univariate(E)[0]) <= 0.01
    got = fast.bivariate(X, [[0, 1]], y)[0]
    assert max_log_error(got, exact.bivariate(X, [[0, 1]], y)[0]) <= 0.01


def test_kde_auto_switch_by_class_size(monkeypatch):
    rng = np.random.default_rng(10)
    X = rng.normal(size=(260, 3))
    y = np.r_[np.zeros(200, int), np.ones(60, int)]
    exact, auto = _kdes(X, y, {"method": "auto", "binned_min_samples": 100})
    assert auto.binned(0) and not auto.binned(1)
    pairs = [[0, 1], [1, 2]]
    got, ref = auto.bivariate(X, pairs, y), exact.bivariate(X, pairs, y)
    np.testing.assert_allclose(got[1], ref[1], rtol=1e-12)  # small class: exact path
    assert 0 < max_log_error(got[0], ref[0]) <= 0.01  # large class: binned
    # the default threshold is a module constant read at call time
    import slb.density.kde as kde_module

    monkeypatch.setattr(kde_module, "KDE_BINNED_MIN_SAMPLES", 10)
    _, auto2 = _kdes(X, y, {"method": "auto"})
    assert auto2.binned(0) and auto2.binned(1)
    with pytest.raises(ValueError, match="method"):
        ClassConditionalKDE(X, y, exact.h1, exact.h2, exact.floor1, exact.floor2, method="fft")


def test_binned_features_through_transformer(monkeypatch):
    import slb.density.kde as kde_module
    from slb.density.features import LogDensityTransformer

    rng = np.random.default_rng(11)
    X = rng.normal(size=(400, 4))
    X[:, 1] += X[:, 0] ** 2
    y = np.repeat([0, 1], 200)
    exact = LogDensityTransformer(random_state=0).fit_transform(X, y)  # same cross-fit folds
    monkeypatch.setattr(kde_module, "KDE_BINNED_MIN_SAMPLES", 50)
    fast = LogDensityTransformer(random_state=0).fit_transform(X, y)
    assert np.max(np.abs(fast - exact)) <= 0.01


# ---------------------------------------------------------------------------------------------
# classifier: nested-kernel threshold CV
# ---------------------------------------------------------------------------------------------
@pytest.mark.slow  # >= 1.4 s in the development tier (stop 43, --durations)
def test_nested_kernel_cv_equals_one_svm_per_threshold(monkeypatch):
    rng = np.random.default_rng(12)
    n, d = 160, 6
    X = rng.normal(size=(n, d))
    y = np.repeat([0, 1], n // 2)
    X[y == 1, 1] += 0.8 * X[y == 1, 0]
    X[y == 1, 3] *= 1.5
    fast = SLBClassifier(random_state=0).fit(X, y)

    def one_fit_per_mask(T_train, y_train, T_test, masks, Cs, class_weight, n_classes=2, **options):
        out = []
        for C in Cs:
            row = []
            for m in masks:
                coef, b = path_module.fit_linear_model(
                    T_train[:, m],
                    y_train,
                    C=C,
                    class_weight=class_weight,
                    n_classes=n_classes,
                    **options,
                )
                dec = path_module.linear_decision(T_test[:, m], coef, b)
                row.append((dec > 0).astype(int) if dec.ndim == 1 else dec.argmax(axis=1))
            out.append(row)
        return out

    # three classes too: the one-vs-rest grid path equals one K-class fit per cell
    y3 = np.repeat([0, 1, 2], [n // 3, n // 3, n - 2 * (n // 3)])
    fast3 = SLBClassifier(random_state=0).fit(X, y3)
    monkeypatch.setattr(path_module, "grid_mask_predictions", one_fit_per_mask)
    slow = SLBClassifier(random_state=0).fit(X, y)
    assert fast.threshold_ == slow.threshold_
    np.testing.assert_allclose(fast.cv_results_["mean_ber"], slow.cv_results_["mean_ber"])
    np.testing.assert_allclose(fast.coef_, slow.coef_)
    slow3 = SLBClassifier(random_state=0).fit(X, y3)
    np.testing.assert_allclose(fast3.cv_results_["mean_ber"], slow3.cv_results_["mean_ber"])
    np.testing.assert_allclose(fast3.coef_, slow3.coef_)


def test_exact_paths_unchanged_against_scipy():
    # guard: the default (small data) path is still the exact estimator
    rng = np.random.default_rng(13)
    x = rng.normal(size=80)
    e = np.linspace(-3, 3, 11)
    ref = stats.gaussian_kde(x, bw_method=0.4 / np.std(x, ddof=1))(e)
    np.testing.assert_allclose(kde_pdf_1d(x, e, 0.4), ref, rtol=1e-10)
    X = np.column_stack([x, rng.normal(size=80)])
    kde = ClassConditionalKDE(
        X,
        np.zeros(80, int),
        [[0.4, 0.5]],
        [[0.4, 0.5]],
        np.full(2, 1e-300),
        np.full((2, 2), 1e-300),
    )
    assert not kde.binned(0)
    np.testing.assert_allclose(
        kde.bivariate(X, [[0, 1]])[0, :, 0], kde_pdf_2d(X, X, [0.4, 0.5]), rtol=1e-12
    )


@pytest.mark.parametrize("n_pairs", [None, 3])  # all pairs (Gram path), few (per first feature)
def test_exact_densities_do_not_depend_on_the_chunk_size(monkeypatch, n_pairs):
    # The exact path evaluates its rows in chunks (cache-sized for the element-wise passes);
    # every row's sums must be the same whatever the chunk, down to one row per chunk.
    import slb.density.kde as kde_module

    rng = np.random.default_rng(21)
    n, d = 90, 7
    X = rng.normal(size=(n, d))
    y = np.arange(n) % 2
    h1 = rng.uniform(0.3, 0.6, (2, d))
    pairs = all_pairs(d)[: n_pairs or None]
    E = np.vstack([X, rng.normal(size=(25, d))])
    own = np.r_[y, np.full(25, -1)]

    def densities(chunk_bytes):
        monkeypatch.setattr(kde_module, "_CHUNK_BYTES", chunk_bytes)
        monkeypatch.setattr(kde_module, "_CACHE_CHUNK_BYTES", chunk_bytes)
        kde = ClassConditionalKDE(
            X, y, h1, 1.1 * h1, np.full(d, 1e-12), np.full((d, d), 1e-12), method="exact"
        )
        return kde.univariate(E, own), kde.bivariate(E, pairs, own)

    whole = densities(2**30)  # one chunk
    for chunk_bytes in (1, 8 * 45 * 3 * d * 5, 2**20):  # one row, a few rows, the default
        for a, b in zip(densities(chunk_bytes), whole, strict=True):
            np.testing.assert_array_equal(a, b)
    # and they are the plain sums (leave-one-out at the class's own rows)
    ref = kde_pdf_2d(X[y == 1][:, pairs[0]], E[:, pairs[0]], 1.1 * h1[1, pairs[0]])
    ref[:n][y == 1] = kde_pdf_2d(
        X[y == 1][:, pairs[0]], X[y == 1][:, pairs[0]], 1.1 * h1[1, pairs[0]], loo=True
    )
    np.testing.assert_allclose(whole[1][1, :, 0], ref, rtol=1e-12)


def test_warm_cache_refit_equals_cold_fit():
    rng = np.random.default_rng(14)
    n, d = 140, 6
    X = rng.normal(size=(n, d))
    y = np.repeat([0, 1], n // 2)
    X[y == 1, 2] += 0.9 * X[y == 1, 1]
    warm = SLBClassifier(threshold=0.0, warm_start=True).fit(X, y)
    cache = warm._cache
    lam = float(np.quantile(warm.pair_scores_, 0.7))
    warm.set_params(threshold=lam).fit(X, y)
    assert warm._cache is cache  # dependence and densities reused, only the SVM refitted
    # random_state=None: the warm refit kept its first fit's seed (its cached folds); a cold
    # fit with that seed is the same model
    cold = SLBClassifier(threshold=lam, random_state=warm._cache["seed"]).fit(X, y)
    np.testing.assert_array_equal(warm.pairs_, cold.pairs_)
    np.testing.assert_allclose(warm.coef_, cold.coef_, rtol=1e-10)
    np.testing.assert_allclose(warm.decision_function(X), cold.decision_function(X), rtol=1e-10)


def test_results_do_not_depend_on_threads():
    X = dependent_sample(300, seed=15)
    for method in ("exact", "approx"):
        one = hsic_all_pairs(X, method=method, n_jobs=1, memory_budget=8 * 7 * 64 * 64)
        two = hsic_all_pairs(X, method=method, n_jobs=2, memory_budget=8 * 7 * 64 * 64)
        np.testing.assert_array_equal(one.statistic, two.statistic)
        np.testing.assert_array_equal(one.pvalue, two.pvalue)


# ---------------------------------------------------------------------------------------------
# dashboard: the Compare page's fast paths give the plain paths' numbers, fold by fold
# ---------------------------------------------------------------------------------------------
def _dashboard_dataset(n=150, d=6, seed=16):
    """A small dashboard Dataset with dependent pairs in one class (SLB keeps some pairs)."""
    import pandas as pd

    from dashboard.data import Dataset

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (np.arange(n) % 3 == 0).astype(int)  # 50 positives, 100 negatives
    X[y == 1, 1] = 0.9 * X[y == 1, 0] + 0.4 * X[y == 1, 1]
    X[y == 1, 3] = X[y == 1, 2] ** 2 + 0.3 * X[y == 1, 3]
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(d)])
    return Dataset(
        name="speed-paths",
        source="test",
        X=frame,
        y=y,
        positive_label="1",
        negative_label="0",
        key=f"speed-paths-{n}-{d}-{seed}",
        label="label",
        report=pd.DataFrame(columns=["severity", "change"]),
        class_counts={"0": int((y == 0).sum()), "1": int((y == 1).sum())},
        n_folds=5,
    )


DENS = ("scott", 1.0, ())
DENS_PARAMS = {"bandwidth": "scott", "bandwidth_multiplier": 1.0, "bandwidth_overrides": None}


def test_dashboard_curve_uses_nested_masks_with_the_plain_bers():
    from dashboard import compute
    from slb.evaluation import stratified_folds
    from slb.model.path import ThresholdPath, threshold_selector

    ds = _dashboard_dataset()
    curve = compute.slb_curve(ds.key, ds, "hsic", "either", DENS, 5, 0, n_points=12, n_repeats=2)
    folds = stratified_folds(ds.y, n_splits=5, n_repeats=2, random_state=0)
    plain = ThresholdPath(random_state=0, **DENS_PARAMS).fit(ds.X, ds.y, folds)
    grid = plain.candidate_thresholds(12)
    np.testing.assert_array_equal(curve["threshold"].to_numpy(), grid)
    ref = plain.curve(grid)  # one cold SVM per threshold and fold
    for col in ("mean_ber", "sd_ber", "mean_pairs"):
        np.testing.assert_allclose(curve[col].to_numpy(), ref[col].to_numpy(), rtol=0, atol=1e-12)
    assert ref["mean_pairs"].nunique() > 2  # the grid really moves through kept pairs
    # fold by fold: the nested-mask BERs are the cold fits' BERs
    ber, _ = plain.grid_ber([threshold_selector(float(t), "either") for t in grid], [plain.C])
    cold = np.array([plain.fold_ber(float(t))[0] for t in grid])
    np.testing.assert_array_equal(ber[:, 0, :], cold)


def test_dashboard_naive_bayes_from_the_path_equals_kde_naive_bayes():
    from dashboard import evaluation
    from slb import KDENaiveBayes
    from slb.evaluation import compare_estimators, stratified_folds

    ds = _dashboard_dataset()
    dens = ("scott", 1.3, (("f2", 0.5),))  # a multiplier and an override reach both paths
    params = {"bandwidth": "scott", "bandwidth_multiplier": 1.3, "bandwidth_overrides": {"f2": 0.5}}
    fast, _ = evaluation.classifier_fold_ber(ds, "NB", dens, 5, 0, 2, "hsic", "either")
    folds = stratified_folds(ds.y, n_splits=5, n_repeats=2, random_state=0)
    ref = compare_estimators({"NB": KDENaiveBayes(**params)}, ds.X, ds.y, folds=folds)
    np.testing.assert_array_equal(fast, ref.per_fold["NB"].to_numpy())
    assert 0 < fast.mean() < 0.5


@pytest.mark.slow  # >= 1.4 s in the development tier (stop 43, --durations)
def test_dashboard_tan_in_worker_processes_equals_compare_estimators(monkeypatch):
    import streamlit as st

    from dashboard import compute, evaluation, workqueue
    from slb import TANClassifier
    from slb.evaluation import compare_estimators, stratified_folds

    ds = _dashboard_dataset(n=120, d=5, seed=17)
    monkeypatch.setenv("SLB_CV_PROCESSES", "2")
    assert compute.cv_processes(10) == 2
    folds = stratified_folds(ds.y, n_splits=5, n_repeats=2, random_state=0)
    ref = compare_estimators({"TAN": TANClassifier(**DENS_PARAMS)}, ds.X, ds.y, folds=folds)
    # small data: joblib's processes; big data (here by a lowered bar): one fold per task in
    # the server's niced workers (dashboard.workqueue.offload_each)
    for bar in (float("inf"), 1):
        monkeypatch.setattr(workqueue, "NICE_MIN_COST", bar)
        assert workqueue.uses_pool(workqueue.data_cost(ds, 2)) == (bar == 1)
        st.cache_data.clear()
        fast, _ = evaluation.model_fold_ber(ds.key, ds, "TAN", DENS, 5, 0, n_repeats=2)
        np.testing.assert_array_equal(fast, ref.per_fold["TAN"].to_numpy())


def test_dashboard_fit_slb_warm_equals_cold_and_reuses_the_screening(monkeypatch):
    from dashboard import compute

    ds = _dashboard_dataset(seed=18)
    args = ("hsic", "either", DENS, 0)
    import slb.model.classifier as classifier_module

    calls = []
    real = classifier_module.screen_pairs

    def counting(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(classifier_module, "screen_pairs", counting)
    first = compute.fit_slb(ds.key, ds, 0.0, *args)
    lam = float(np.quantile(first.pair_scores_, 0.6))
    second = compute.fit_slb(ds.key, ds, lam, *args)
    assert len(calls) == 1  # the second λ reused the first fit's full-data screening
    assert not hasattr(second, "_cache") and second.get_params()["warm_start"] is False
    for got, lam_ in ((first, 0.0), (second, lam)):
        cold = SLBClassifier(threshold=lam_, C=1.0, random_state=0, **DENS_PARAMS).fit(ds.X, ds.y)
        np.testing.assert_array_equal(got.pairs_, cold.pairs_)
        # The warm model slices its training map from the all-pairs one (a batched Gram
        # product), the cold fit computes the kept pairs alone (a per-feature contraction):
        # the same sums in another order, equal to ~1e-15, which libsvm's stopping rule
        # (tolerance 1e-3) can turn into ~1e-4 in the weights on some CPUs' BLAS kernels.
        # Same model up to the solver's tolerance; same predictions.
        np.testing.assert_allclose(
            np.asarray(got.coef_), np.asarray(cold.coef_), rtol=1e-3, atol=1e-4
        )
        np.testing.assert_allclose(
            got.decision_function(ds.X), cold.decision_function(ds.X), rtol=1e-3, atol=1e-3
        )
        np.testing.assert_array_equal(got.predict(ds.X), cold.predict(ds.X))
    assert len(second.pairs_) < len(first.pairs_)


# ---------------------------------------------------------------------------------------------
# the balanced error rate: numpy fast path = scikit-learn
# ---------------------------------------------------------------------------------------------
def test_balanced_error_rate_equals_scikit_learn():
    import warnings

    from sklearn.metrics import balanced_accuracy_score

    from slb.evaluation.metrics import balanced_error_rate

    rng = np.random.default_rng(19)
    cases = []
    for n in (1, 2, 7, 42, 500):
        y = rng.integers(0, 2, n)
        cases += [(y, rng.integers(0, 2, n)), (y, y), (y, 1 - y), (y, np.zeros(n, int))]
        cases.append((y.astype(float), rng.integers(0, 2, n).astype(np.int8)))
        cases.append((np.where(y == 1, "rock", "mine"), rng.choice(["rock", "mine"], n)))
        obj = np.where(y == 1, "rock", "mine").astype(object)  # pandas' string labels
        cases.append((obj, rng.choice(["rock", "mine"], n).astype(object)))
        cases.append((obj, rng.choice(["rock", "mine"], n)))  # object and numpy strings
        cases.append((y, rng.integers(0, 3, n)))  # a predicted class absent from y_true
        cases.append((rng.integers(0, 4, n), rng.integers(0, 4, n)))  # more classes
    for t, p in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # scikit-learn warns about absent classes
            ref = 1.0 - balanced_accuracy_score(t, p)
        assert balanced_error_rate(t, p) == ref, (t, p)
    # mixed or odd inputs still get scikit-learn's behaviour and messages
    with pytest.raises(ValueError):
        balanced_error_rate(np.array([0, 1]), np.array(["a", "b"]))
    with pytest.raises(ValueError):
        balanced_error_rate([0, 1, 1], [0, 1])
    with pytest.raises((ValueError, TypeError)):  # an object array mixing labels of two kinds
        balanced_error_rate(np.array(["a", 1], dtype=object), np.array(["a", "a"], dtype=object))
