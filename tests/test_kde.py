"""Behaviour tests of slb.density.kde against scipy and against refitting without a point."""

import numpy as np
import pytest
from scipy import stats

from slb.density.kde import ClassConditionalKDE, kde_pdf_1d, kde_pdf_2d, kernel_matrix


def phi0(h):
    """Height of a Gaussian kernel of bandwidth h at 0."""
    return 1.0 / (np.sqrt(2 * np.pi) * h)


# ---------------------------------------------------------------------------------------------
# functions vs scipy
# ---------------------------------------------------------------------------------------------
def test_kernel_matrix_is_normal_pdf():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=7), rng.normal(size=5)
    K = kernel_matrix(a, b, 0.7)
    np.testing.assert_allclose(K, stats.norm.pdf(a[:, None], loc=b[None, :], scale=0.7))


@pytest.mark.parametrize("h", [0.05, 0.3, 2.0])
def test_kde_pdf_1d_equals_scipy_gaussian_kde(h):
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.normal(size=70), rng.normal(4, 0.5, size=30)])
    e = np.linspace(-4, 7, 53)
    ref = stats.gaussian_kde(x, bw_method=h / np.std(x, ddof=1))
    np.testing.assert_allclose(kde_pdf_1d(x, e, h), ref(e), rtol=1e-10, atol=1e-300)


def test_kde_pdf_2d_equals_sum_of_normal_pdfs():
    rng = np.random.default_rng(2)
    X = rng.multivariate_normal([0, 1], [[1, 0.8], [0.8, 2]], size=40)
    E = rng.normal(size=(25, 2)) * 2
    h = np.array([0.3, 0.9])
    ref = np.zeros(len(E))
    for k in range(len(X)):
        ref += stats.multivariate_normal(mean=X[k], cov=np.diag(h**2)).pdf(E)
    ref /= len(X)
    np.testing.assert_allclose(kde_pdf_2d(X, E, h), ref, rtol=1e-10)


def test_kde_pdf_2d_equals_scipy_gaussian_kde_on_uncorrelated_sample():
    # gaussian_kde's bandwidth matrix is factor^2 * sample covariance: make the sample
    # covariance exactly diagonal, then h = factor * (s1, s2) is the same diagonal bandwidth.
    rng = np.random.default_rng(3)
    a = rng.normal(size=60)
    b = rng.gamma(2.0, size=60)
    ac, bc = a - a.mean(), b - b.mean()
    b = b - (ac @ bc) / (ac @ ac) * ac  # sample covariance of (a, b) is now 0
    X = np.column_stack([a, b])
    assert abs(np.cov(X.T)[0, 1]) < 1e-12
    factor = 0.4
    h = factor * np.std(X, axis=0, ddof=1)
    E = rng.normal(size=(30, 2)) * 2
    ref = stats.gaussian_kde(X.T, bw_method=factor)
    np.testing.assert_allclose(kde_pdf_2d(X, E, h), ref(E.T), rtol=1e-8)


# ---------------------------------------------------------------------------------------------
# leave-one-out
# ---------------------------------------------------------------------------------------------
def test_loo_differs_from_in_sample_by_the_self_contribution():
    rng = np.random.default_rng(4)
    x = rng.normal(size=31)
    n, h = x.size, 0.4
    p_in = kde_pdf_1d(x, x, h)
    np.testing.assert_allclose(
        kde_pdf_1d(x, x, h, loo=True), (p_in * n - phi0(h)) / (n - 1), rtol=1e-12
    )
    X = rng.normal(size=(31, 2))
    h2 = np.array([0.4, 0.7])
    p2 = kde_pdf_2d(X, X, h2)
    np.testing.assert_allclose(
        kde_pdf_2d(X, X, h2, loo=True), (p2 * n - phi0(h2[0]) * phi0(h2[1])) / (n - 1), rtol=1e-12
    )


def test_loo_equals_refit_without_the_point():
    rng = np.random.default_rng(5)
    x = rng.standard_t(3, size=25)
    X = np.column_stack([x, 0.5 * x + rng.normal(size=25)])
    h, h2 = 0.5, np.array([0.5, 0.3])
    loo1 = kde_pdf_1d(x, x, h, loo=True)
    loo2 = kde_pdf_2d(X, X, h2, loo=True)
    for k in range(x.size):
        rest = np.delete(np.arange(x.size), k)
        ref1 = np.mean(stats.norm.pdf(x[k], loc=x[rest], scale=h))
        ref2 = np.mean(
            stats.norm.pdf(X[k, 0], loc=X[rest, 0], scale=h2[0])
            * stats.norm.pdf(X[k, 1], loc=X[rest, 1], scale=h2[1])
        )
        assert loo1[k] == pytest.approx(ref1, rel=1e-10)
        assert loo2[k] == pytest.approx(ref2, rel=1e-10)


# ---------------------------------------------------------------------------------------------
# ClassConditionalKDE
# ---------------------------------------------------------------------------------------------
def _ccde(seed=6, n=(30, 45), d=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(sum(n), d)) * np.arange(1, d + 1)
    y = np.repeat([0, 1], n)
    perm = rng.permutation(sum(n))
    X, y = X[perm], y[perm]
    h1 = rng.uniform(0.2, 1.0, size=(2, d))
    h2 = rng.uniform(0.2, 1.0, size=(2, d))
    kde = ClassConditionalKDE(X, y, h1, h2, np.full(d, 1e-300), np.full((d, d), 1e-300))
    return X, y, h1, h2, kde


def test_class_conditional_univariate_equals_function_per_class():
    X, y, h1, _, kde = _ccde()
    E = np.random.default_rng(7).normal(size=(11, X.shape[1])) * 3
    got = kde.univariate(E)
    assert got.shape == (2, 11, X.shape[1])
    for c in (0, 1):
        for i in range(X.shape[1]):
            np.testing.assert_allclose(
                got[c, :, i], kde_pdf_1d(X[y == c, i], E[:, i], h1[c, i]), rtol=1e-12
            )


@pytest.mark.parametrize("which", ["few", "all"])  # einsum path and batched-Gram path
def test_class_conditional_bivariate_equals_function_per_class(which):
    X, y, _, h2, kde = _ccde()
    d = X.shape[1]
    pairs = np.array([[0, 3], [1, 4]]) if which == "few" else np.column_stack(np.triu_indices(d, 1))
    E = np.random.default_rng(8).normal(size=(9, d)) * 3
    got = kde.bivariate(E, pairs)
    assert got.shape == (2, 9, len(pairs))
    for c in (0, 1):
        for k, (i, j) in enumerate(pairs):
            ref = kde_pdf_2d(X[y == c][:, [i, j]], E[:, [i, j]], h2[c, [i, j]])
            np.testing.assert_allclose(got[c, :, k], ref, rtol=1e-12)


def test_class_conditional_loo_applies_to_own_class_only():
    X, y, h1, h2, kde = _ccde()
    d = X.shape[1]
    self_class = y.copy()
    self_class[:4] = -1  # rows treated as new points: no LOO anywhere
    uni = kde.univariate(X, self_class)
    pairs = np.column_stack(np.triu_indices(d, 1))
    biv = kde.bivariate(X, pairs, self_class)
    for c in (0, 1):
        Xc = X[y == c]
        for i in range(d):
            plain = kde_pdf_1d(Xc[:, i], X[:, i], h1[c, i])
            loo_rows = self_class == c
            # own-class rows: the function's LOO on that class's points, in their order
            np.testing.assert_allclose(
                uni[c, loo_rows, i],
                kde_pdf_1d(Xc[:, i], Xc[:, i], h1[c, i], loo=True)[self_class[y == c] == c],
                rtol=1e-10,
                atol=1e-14,  # n p - phi(0) cancels: absolute error ~ eps * phi(0)
            )
            np.testing.assert_allclose(uni[c, ~loo_rows, i], plain[~loo_rows], rtol=1e-12)
        for k, (i, j) in enumerate(pairs):
            plain = kde_pdf_2d(Xc[:, [i, j]], X[:, [i, j]], h2[c, [i, j]])
            n_c = Xc.shape[0]
            loo_ref = (plain * n_c - phi0(h2[c, i]) * phi0(h2[c, j])) / (n_c - 1)
            rows = self_class == c
            np.testing.assert_allclose(biv[c, rows, k], loo_ref[rows], rtol=1e-10, atol=1e-14)
            np.testing.assert_allclose(biv[c, ~rows, k], plain[~rows], rtol=1e-12)


def test_log_densities_are_floored():
    X, y, h1, h2, _ = _ccde()
    d = X.shape[1]
    floor1 = np.full(d, 1e-4)
    floor2 = np.full((d, d), 1e-5)
    kde = ClassConditionalKDE(X, y, h1, h2, floor1, floor2)
    E = np.vstack([X[:3], np.full((2, d), 1e3)])  # two rows far from every kernel
    lu = kde.log_univariate(E)
    lb = kde.log_bivariate(E, [[0, 1], [2, 4]])
    assert np.all(lu >= np.log(1e-4)) and np.all(lb >= np.log(1e-5))
    np.testing.assert_allclose(lu[:, 3:], np.log(1e-4))
    np.testing.assert_allclose(lb[:, 3:], np.log(1e-5))
    np.testing.assert_allclose(lu[:, :3], np.log(np.maximum(kde.univariate(E[:3]), 1e-4)))


def test_loo_densities_are_never_negative():
    # An isolated point's LOO density is 0 in exact arithmetic; rounding must not make it < 0.
    x = np.arange(5) * 100.0
    kde = ClassConditionalKDE(
        x[:, None], np.zeros(5, int), [[1.0]], [[1.0]], np.array([1e-300]), np.full((1, 1), 1e-300)
    )
    p = kde.univariate(x[:, None], np.zeros(5, int))
    assert np.all(p >= 0), p.ravel()
