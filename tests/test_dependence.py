"""Behaviour tests of slb.dependence.hsic against slow, independent references.

* HSIC: the textbook ``(1/n^2) tr(K H L H)`` with an explicit centring matrix ``H`` and the
  median heuristic written here from the SPEC's definition.
* Gamma p-values: a line-by-line transcription of Gretton et al.'s ``hsicTestGamma.m`` (2008),
  and a permutation test.
* Pearson/Spearman: ``scipy.stats.pearsonr`` / ``spearmanr``; Benjamini-Hochberg written out.
"""

import numpy as np
import pytest
from scipy import stats

from slb.dependence import hsic as hsic_module
from slb.dependence.hsic import (
    benjamini_hochberg,
    correlation_all_pairs,
    dependence_matrix,
    hsic_all_pairs,
    median_heuristic_sigma2,
)


# ---------------------------------------------------------------------------------------------
# independent references
# ---------------------------------------------------------------------------------------------
def ref_sigma2(a):
    """SPEC: sigma^2 = median(|a_i - a_j|^2) / 2 over the distinct pairs i < j."""
    a = np.asarray(a, float)
    n = a.size
    d2 = [(a[i] - a[j]) ** 2 for i in range(n) for j in range(i + 1, n)]
    return float(np.median(d2)) / 2.0


def ref_gram(a):
    a = np.asarray(a, float)
    return np.exp(-((a[:, None] - a[None, :]) ** 2) / (2.0 * ref_sigma2(a)))


def ref_hsic(a, b):
    """Biased HSIC (1/n^2) tr(K H L H) with an explicit H = I - 11^T/n."""
    n = len(a)
    H = np.eye(n) - np.ones((n, n)) / n
    K, L = ref_gram(a), ref_gram(b)
    return float(np.trace(K @ H @ L @ H)) / n**2


def hsic_test_gamma(X, Y):
    """Transcription of Gretton's hsicTestGamma.m (2008): returns (testStat, p-value).

    Kernel sizes by the script's own median rule (first 100 points, upper triangle, positive
    distances, ``sig = sqrt(0.5 * median)``); ``rbf_dot`` is ``exp(-d^2 / (2 sig^2))``.  The
    script returns a threshold; the p-value is ``1 - gamcdf(testStat, al, bet)``.
    """
    X = np.asarray(X, float).reshape(-1, 1)
    Y = np.asarray(Y, float).reshape(-1, 1)
    m = X.shape[0]

    def median_sig(Z):
        size1 = min(Z.shape[0], 100)
        Zmed = Z[:size1]
        G = np.sum(Zmed * Zmed, axis=1)
        Q = np.tile(G[:, None], (1, size1))
        R = np.tile(G[None, :], (size1, 1))
        dists = Q + R - 2 * Zmed @ Zmed.T
        dists = dists - np.tril(dists)
        dists = dists.reshape(size1**2, order="F")
        return np.sqrt(0.5 * np.median(dists[dists > 0]))

    def rbf_dot(P1, P2, deg):
        G = np.sum(P1 * P1, axis=1)
        Hh = np.sum(P2 * P2, axis=1)
        Q = np.tile(G[:, None], (1, P2.shape[0]))
        R = np.tile(Hh[None, :], (P1.shape[0], 1))
        Hm = Q + R - 2 * P1 @ P2.T
        return np.exp(-Hm / 2 / deg**2)

    sigx, sigy = median_sig(X), median_sig(Y)
    bone = np.ones((m, 1))
    H = np.eye(m) - 1 / m * np.ones((m, m))
    K = rbf_dot(X, X, sigx)
    L = rbf_dot(Y, Y, sigy)
    Kc = H @ K @ H
    Lc = H @ L @ H
    testStat = 1 / m * np.sum(Kc.T * Lc)
    varHSIC = (1 / 6 * Kc * Lc) ** 2
    varHSIC = 1 / m / (m - 1) * (np.sum(varHSIC) - np.sum(np.diag(varHSIC)))
    varHSIC = 72 * (m - 4) * (m - 5) / m / (m - 1) / (m - 2) / (m - 3) * varHSIC
    K = K - np.diag(np.diag(K))
    L = L - np.diag(np.diag(L))
    muX = (1 / m / (m - 1) * bone.T @ (K @ bone)).item()
    muY = (1 / m / (m - 1) * bone.T @ (L @ bone)).item()
    mHSIC = 1 / m * (1 + muX * muY - muX - muY)
    al = mHSIC**2 / varHSIC
    bet = varHSIC * m / mHSIC
    return testStat, 1 - stats.gamma.cdf(testStat, al, scale=bet)


def permutation_pvalue(a, b, n_perm=400, seed=0):
    """Permutation test of HSIC: permute b's sample, (1 + #{HSIC_perm >= HSIC}) / (1 + n_perm)."""
    rng = np.random.default_rng(seed)
    n = len(a)
    H = np.eye(n) - np.ones((n, n)) / n
    Kc = H @ ref_gram(a) @ H
    L = ref_gram(b)
    obs = np.sum(Kc * L)
    count = 0
    for _ in range(n_perm):
        p = rng.permutation(n)
        count += np.sum(Kc * L[np.ix_(p, p)]) >= obs
    return (1 + count) / (1 + n_perm)


def ref_bh(p, alpha):
    """Benjamini-Hochberg step-up written out: reject the k smallest, k = max{i: p_(i) <= i a/m}."""
    p = np.asarray(p, float)
    m = p.size
    order = np.argsort(p, kind="stable")
    k = 0
    for i in range(m, 0, -1):
        if p[order[i - 1]] <= i * alpha / m:
            k = i
            break
    reject = np.zeros(m, dtype=bool)
    reject[order[:k]] = True
    return reject


def mixed_sample(n=60, seed=0):
    """Columns with assorted dependence: independent, linear, quadratic, weak, heavy-tailed."""
    rng = np.random.default_rng(seed)
    x0 = rng.normal(size=n)
    x1 = 0.8 * x0 + rng.normal(size=n) * 0.6
    x2 = x0**2 + 0.3 * rng.normal(size=n)
    x3 = rng.standard_t(3, size=n)
    x4 = 0.25 * x3 + rng.normal(size=n)
    x5 = rng.uniform(-1, 1, size=n)
    return np.column_stack([x0, x1, x2, x3, x4, x5])


# ---------------------------------------------------------------------------------------------
# HSIC statistic
# ---------------------------------------------------------------------------------------------
def test_median_heuristic_matches_definition():
    rng = np.random.default_rng(3)
    for n in (7, 50, 201):
        a = rng.normal(size=n) * 3 + 1
        assert median_heuristic_sigma2(a) == pytest.approx(ref_sigma2(a), rel=1e-12)


def test_hsic_equals_trace_formula():
    X = mixed_sample(n=60, seed=1)
    res = hsic_all_pairs(X)
    d = X.shape[1]
    assert res.measure == "hsic"
    for i in range(d):
        assert np.isnan(res.statistic[i, i]) and np.isnan(res.pvalue[i, i])
        for j in range(d):
            if i != j:
                np.testing.assert_allclose(
                    res.statistic[i, j], ref_hsic(X[:, i], X[:, j]), rtol=1e-10, atol=1e-14
                )
    # And the statistic is invariant to a feature's location and scale (median heuristic).
    X2 = X * np.array([1, 10, 0.1, 3, 7, 2]) + 5
    np.testing.assert_allclose(hsic_all_pairs(X2).statistic, res.statistic, rtol=1e-8)


@pytest.mark.parametrize("pvalues", [True, False])
def test_blocked_equals_one_block(pvalues):
    X = mixed_sample(n=40, seed=2)
    one = hsic_all_pairs(X, pvalues=pvalues)
    n = X.shape[0]
    per_feature = n * n * 8 * (2 if pvalues else 1)
    for budget in (1, 2 * per_feature * 2, 2 * per_feature * 4):  # blocks of 1, 2 and 4 (uneven)
        blk = hsic_all_pairs(X, pvalues=pvalues, memory_budget=budget)
        np.testing.assert_allclose(blk.statistic, one.statistic, rtol=1e-12, equal_nan=True)
        np.testing.assert_allclose(blk.pvalue, one.pvalue, rtol=1e-9, equal_nan=True)
    if not pvalues:
        assert np.isnan(one.pvalue).all()


def test_hsic_sees_dependence_that_pearson_misses():
    rng = np.random.default_rng(4)
    n = 200
    x = rng.normal(size=n)
    y = x**2 + 0.2 * rng.normal(size=n)  # dependent, uncorrelated
    z = rng.normal(size=n)  # independent of x
    X = np.column_stack([x, y, z])
    r = correlation_all_pairs(X, "pearson")
    assert r.statistic[0, 1] < 0.2
    h = hsic_all_pairs(X)
    # Null mean of HSIC is about 1/n times (1 - E k)^2-ish: independent pairs are of that order.
    assert h.statistic[0, 2] < 2.0 / n
    assert h.statistic[0, 1] > 10 * h.statistic[0, 2]
    assert h.statistic[0, 1] > 10 * h.statistic[1, 2]
    assert h.pvalue[0, 1] < 1e-8
    assert h.pvalue[0, 2] > 0.01 and h.pvalue[1, 2] > 0.01


def ref_centred_grams(X):
    """Explicitly centred Gram matrices ``H K_i H`` and the raw ``K_i`` of every column."""
    n = X.shape[0]
    H = np.eye(n) - np.ones((n, n)) / n
    K = [ref_gram(X[:, i]) for i in range(X.shape[1])]
    return [H @ k @ H for k in K], K


def ref_gamma_pvalue(Kc, Lc, K, L):
    """hsicTestGamma's moments and gamma law (as in hsic_test_gamma) from given Gram matrices."""
    m = K.shape[0]
    stat = np.sum(Kc * Lc) / m
    v = (Kc * Lc / 6) ** 2
    var = (np.sum(v) - np.sum(np.diag(v))) / m / (m - 1)
    var *= 72 * (m - 4) * (m - 5) / m / (m - 1) / (m - 2) / (m - 3)
    mu_x = (np.sum(K) - np.trace(K)) / m / (m - 1)
    mu_y = (np.sum(L) - np.trace(L)) / m / (m - 1)
    mean = (1 + mu_x * mu_y - mu_x - mu_y) / m
    return stats.gamma.sf(stat, mean**2 / var, scale=var * m / mean)


def test_hsic_panels_cover_each_sample_pair_once():
    # The exact path evaluates the pairs a < b only (triangles on the diagonal blocks): the
    # Gram matrices' symmetry counts them twice and the diagonal is added in closed form.
    for n, side in [(2, 16), (17, 16), (65, 16), (101, 16), (200, 64), (1600, 256)]:
        count = np.zeros((n, n), int)
        for A, B in hsic_module._panels(n, side):
            if A == B:
                for a, lo, hi in hsic_module._triangle_rows(A):
                    assert hi - lo == A.stop - a - 1
                    count[a, a + 1 : A.stop] += 1
            else:
                count[A, B] += 1
        np.testing.assert_array_equal(count, np.triu(np.ones((n, n), int), 1))


@pytest.mark.parametrize("pvalues", [True, False])
def test_hsic_triangle_panels_equal_per_pair_reference(monkeypatch, pvalues):
    # Odd n, many panels (16 samples a side; the last block has 5 samples), two passes (no
    # panel kept); threads forced on this small problem.
    monkeypatch.setattr(hsic_module, "_MIN_PARALLEL_WORK", 0)
    X = mixed_sample(n=101, seed=11)
    X = np.column_stack([X, np.sin(2 * X[:, 0]) + 0.5 * X[:, 5]])
    n, d = X.shape
    Kc, K = ref_centred_grams(X)
    ref = np.full((d, d), np.nan)
    ref_p = np.full((d, d), np.nan)
    for i in range(d):
        for j in range(d):
            if i != j:
                ref[i, j] = np.sum(Kc[i] * Kc[j]) / n**2
                ref_p[i, j] = ref_gamma_pvalue(Kc[i], Kc[j], K[i], K[j])
    assert np.nanmin(ref_p) < 1e-6 and np.nanmax(ref_p) > 0.1  # strong and null pairs
    # budget 1: 16 x 16 panels; the other: 24 x 24 panels whatever the thread count
    for budget in (1, 8 * d * hsic_module._PANEL_GROUPS * 24**2):
        one = hsic_all_pairs(X, method="exact", pvalues=pvalues, memory_budget=budget, n_jobs=1)
        two = hsic_all_pairs(X, method="exact", pvalues=pvalues, memory_budget=budget, n_jobs=2)
        np.testing.assert_allclose(one.statistic, ref, rtol=1e-12, equal_nan=True)
        if pvalues:
            np.testing.assert_allclose(one.pvalue, ref_p, rtol=1e-12, equal_nan=True)
        np.testing.assert_array_equal(two.statistic, one.statistic)
        np.testing.assert_array_equal(two.pvalue, one.pvalue)


# ---------------------------------------------------------------------------------------------
# gamma p-values
# ---------------------------------------------------------------------------------------------
def test_gamma_pvalues_uniform_under_independence():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(100, 40))
    X[:, ::3] = rng.exponential(size=(100, 14))  # non-Gaussian marginals too
    p = hsic_all_pairs(X).pvalue[np.triu_indices(40, 1)]  # 780 pairs
    assert np.all((p >= 0) & (p <= 1))
    # Pairs share columns, so the KS p-value is not exact: bound the statistic loosely.
    assert stats.kstest(p, "uniform").statistic < 0.1
    assert 0.02 <= np.mean(p < 0.05) <= 0.10
    assert 0.05 <= np.mean(p < 0.10) <= 0.17


def test_gamma_pvalues_match_hsicTestGamma_transcription():
    X = mixed_sample(n=90, seed=6)  # n < 100: the script's median uses every point too
    res = hsic_all_pairs(X)
    n = X.shape[0]
    moderate = 0
    for i, j in [(0, 1), (0, 2), (0, 3), (3, 4), (0, 5), (4, 5), (1, 2), (2, 5)]:
        stat, p = hsic_test_gamma(X[:, i], X[:, j])
        assert n * res.statistic[i, j] == pytest.approx(stat, rel=1e-9)
        np.testing.assert_allclose(res.pvalue[i, j], p, rtol=1e-7, atol=1e-12)
        moderate += 1e-4 < p < 0.9
    assert moderate >= 3  # the comparison covers the body of the null, not just 0 and 1


def test_gamma_pvalues_roughly_agree_with_permutations():
    rng = np.random.default_rng(8)
    n = 80
    x = rng.normal(size=n)
    cols = [x, rng.normal(size=n), 0.3 * x + rng.normal(size=n), rng.normal(size=n)]
    cols.append(0.35 * cols[3] ** 2 + rng.normal(size=n))  # weak, non-linear
    X = np.column_stack(cols)
    res = hsic_all_pairs(X)
    p_gamma = []
    for i, j in [(0, 1), (0, 2), (1, 3), (3, 4), (2, 3)]:
        p_perm = permutation_pvalue(X[:, i], X[:, j], n_perm=400, seed=i * 10 + j)
        # 400 permutations: sd of p_perm <= 0.025; the gamma law is an approximation.
        assert abs(res.pvalue[i, j] - p_perm) < 0.08, (i, j, res.pvalue[i, j], p_perm)
        p_gamma.append(res.pvalue[i, j])
    assert min(p_gamma) < 0.15 and max(p_gamma) > 0.5  # spans the body of the null
    # Strong dependence: both tiny.
    y = np.sin(2 * x) + 0.1 * rng.normal(size=n)
    r2 = hsic_all_pairs(np.column_stack([x, y]))
    assert r2.pvalue[0, 1] < 1e-6
    assert permutation_pvalue(x, y, n_perm=200) == pytest.approx(1 / 201)


def test_constant_column_hsic_is_zero_with_pvalue_one():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(30, 3))
    X[:, 1] = 2.5
    res = hsic_all_pairs(X)
    assert np.all(np.isfinite(res.statistic[~np.eye(3, dtype=bool)]))
    np.testing.assert_allclose(res.statistic[0, 1], 0.0, atol=1e-15)
    assert res.pvalue[0, 1] == 1.0 and res.pvalue[1, 2] == 1.0


# ---------------------------------------------------------------------------------------------
# Pearson / Spearman
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["pearson", "spearman"])
def test_correlation_matches_scipy(method):
    X = mixed_sample(n=50, seed=9)
    X[:, 5] = -X[:, 0] + 0.5 * X[:, 5]  # a negative correlation
    X[:10, 4] = 1.0  # ties (Spearman averages their ranks)
    res = correlation_all_pairs(X, method)
    ref = stats.pearsonr if method == "pearson" else stats.spearmanr
    d = X.shape[1]
    assert res.measure == method
    for i in range(d):
        assert np.isnan(res.statistic[i, i]) and np.isnan(res.pvalue[i, i])
        for j in range(i + 1, d):
            r = ref(X[:, i], X[:, j])
            np.testing.assert_allclose(res.statistic[i, j], abs(r.statistic), rtol=1e-10)
            np.testing.assert_allclose(res.statistic[j, i], abs(r.statistic), rtol=1e-10)
            np.testing.assert_allclose(res.pvalue[i, j], r.pvalue, rtol=1e-6, atol=1e-300)
    assert res.statistic[0, 5] > 0.5  # absolute value of a negative r


def test_correlation_constant_column():
    rng = np.random.default_rng(10)
    X = rng.normal(size=(20, 3))
    X[:, 2] = 4.0
    for method in ("pearson", "spearman"):
        res = correlation_all_pairs(X, method)
        assert res.statistic[0, 2] == 0.0 and res.pvalue[0, 2] == 1.0


def test_dependence_matrix_dispatch_and_unknown_measure():
    X = mixed_sample(n=30, seed=11)
    np.testing.assert_array_equal(
        dependence_matrix(X, "spearman").statistic,
        correlation_all_pairs(X, "spearman").statistic,
    )
    np.testing.assert_array_equal(
        dependence_matrix(X, "hsic").statistic, hsic_all_pairs(X).statistic
    )
    with pytest.raises(ValueError, match="foo"):
        dependence_matrix(X, "foo")


# ---------------------------------------------------------------------------------------------
# Benjamini-Hochberg
# ---------------------------------------------------------------------------------------------
def test_benjamini_hochberg_equals_hand_written():
    rng = np.random.default_rng(12)
    for trial in range(30):
        m = int(rng.integers(1, 60))
        p = np.concatenate([rng.uniform(size=m), rng.uniform(0, 0.01, size=trial % 7)])
        p[rng.uniform(size=p.size) < 0.1] = 0.02  # ties
        rng.shuffle(p)
        for alpha in (0.01, 0.05, 0.2):
            np.testing.assert_array_equal(benjamini_hochberg(p, alpha), ref_bh(p, alpha))
    # The step-up property: a p-value above its own cut-off is rejected with smaller ones.
    p = np.array([0.01, 0.02, 0.03, 0.04, 0.05])
    assert benjamini_hochberg(p, 0.05).all()
    assert benjamini_hochberg(np.array([]), 0.05).shape == (0,)
