"""The finite Newton squared-hinge solver (slb.model.primal) against liblinear and its own
optimality conditions, alone and along a warm-started path."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.svm import LinearSVC

from slb.model.primal import SquaredHingePath, fit_squared_hinge


def _problem(n, p, seed, prevalence=0.3, shift=0.8):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < prevalence).astype(int)
    Z = rng.normal(size=(n, p))
    Z[:, : min(5, p)] += shift * y[:, None]
    Z = (Z - Z.mean(0)) / Z.std(0)
    weights = (n / (2 * (y == 0).sum()), n / (2 * (y == 1).sum()))
    return Z, y, weights


def _gradient(Z, y, C, weights, w, b, a=10.0):
    """The objective's gradient in (w, v = b / a): zero at the solution."""
    X = np.hstack([np.full((Z.shape[0], 1), a), Z])
    v = np.r_[b / a, w]
    s = np.where(y == 1, 1.0, -1.0)
    c = np.where(y == 1, weights[1], weights[0])
    r = np.maximum(0.0, 1.0 - s * (X @ v))
    return v - 2.0 * C * X.T @ (c * s * r)


@pytest.mark.parametrize("n, p", [(300, 20), (60, 150), (200, 200)])
@pytest.mark.parametrize("C", [0.001, 0.1, 10.0])
def test_equals_liblinear_at_a_tight_tolerance(n, p, C):
    Z, y, weights = _problem(n, p, seed=n + p)
    w, b = fit_squared_hinge(Z, y, C, weights)
    ref = LinearSVC(
        C=C,
        loss="squared_hinge",
        dual=False,
        class_weight={0: weights[0], 1: weights[1]},
        intercept_scaling=10.0,
        tol=1e-12,
        max_iter=200_000,
    ).fit(Z, y)
    got = Z @ w + b
    want = Z @ ref.coef_.ravel() + ref.intercept_[0]
    np.testing.assert_allclose(got, want, atol=1e-6 * max(1.0, np.abs(want).max()))


@pytest.mark.parametrize("C", [0.01, 1.0, 100.0])
def test_the_solution_is_stationary(C):
    # Independent of liblinear: the gradient of the strictly convex objective vanishes.
    Z, y, weights = _problem(400, 30, seed=5, prevalence=0.2, shift=0.4)
    w, b = fit_squared_hinge(Z, y, C, weights)
    g = _gradient(Z, y, C, weights, w, b)
    assert np.abs(g).max() < 1e-8 * max(1.0, C * len(y))


def test_every_cell_of_a_warm_path_equals_a_cold_fit():
    # Nested masks in order of size, costs in a snake order, the way the selection uses it;
    # then a non-nested mask (the warm start must not leak stale state).
    Z, y, weights = _problem(250, 40, seed=9, shift=0.5)
    masks = [np.arange(k) for k in (4, 6, 15, 40)] + [np.arange(10, 30)]
    Cs = [0.01, 0.1, 1.0, 10.0]
    path = SquaredHingePath(Z, y, weights)
    forward = True
    for cols in masks:
        for C in Cs if forward else Cs[::-1]:
            w, b = path.fit(cols, C)
            w0, b0 = fit_squared_hinge(Z[:, cols], y, C, weights)
            np.testing.assert_allclose(np.r_[w, b], np.r_[w0, b0], atol=1e-8)
        forward = not forward


def test_columns_in_any_order_keep_their_weights():
    Z, y, weights = _problem(200, 8, seed=2)
    path = SquaredHingePath(Z, y, weights)
    path.fit(np.array([0, 1, 2]), 1.0)
    w, b = path.fit(np.array([5, 2, 0, 1]), 1.0)  # grows by one column, listed out of order
    w0, b0 = fit_squared_hinge(Z[:, [5, 2, 0, 1]], y, 1.0, weights)
    np.testing.assert_allclose(np.r_[w, b], np.r_[w0, b0], atol=1e-8)


def test_an_empty_margin_set_and_a_single_class_weight_are_handled():
    # Perfectly separated at large C: few rows stay inside the margin.
    Z, y, weights = _problem(120, 3, seed=4, shift=6.0)
    w, b = fit_squared_hinge(Z, y, 1e4, weights)
    assert np.mean(((Z @ w + b) > 0) == y) == 1.0
    assert np.abs(_gradient(Z, y, 1e4, weights, w, b)).max() < 1e-6 * 1e4


def test_a_path_across_the_primal_and_kernel_modes_equals_cold_fits():
    # 60 rows: masks of up to 60 columns are solved in the primal, wider ones in the kernel
    # form; a narrower mask after a wide one goes back to the primal from the kernel's
    # solution, with its columns listed in another order.
    Z, y, weights = _problem(60, 150, seed=11, shift=0.6)
    masks = [np.arange(10), np.arange(40), np.arange(100), np.arange(150), np.arange(30)[::-1]]
    masks += [np.r_[np.arange(30), np.arange(100, 150)][::-1]]
    path = SquaredHingePath(Z, y, weights)
    for cols in masks:
        for C in (0.01, 1.0, 100.0):
            w, b = path.fit(cols, C)
            w0, b0 = fit_squared_hinge(Z[:, cols], y, C, weights)
            np.testing.assert_allclose(np.r_[w, b], np.r_[w0, b0], atol=1e-7)
            assert np.abs(_gradient(Z[:, cols], y, C, weights, w, b)).max() < 1e-7 * max(1, C)


@pytest.mark.parametrize("n", [60, 300])  # the kernel form (columns > rows) and the primal
def test_columns_leaving_and_entering_both_ways_keep_the_path_exact(n):
    # A lambda slider: kept sets grow and shrink by a few columns at a time, in both modes;
    # the raw map is standardised on the fly (center, scale) as the selection does.
    rng = np.random.default_rng(3)
    Z, y, weights = _problem(n, 150, seed=n)
    T = Z * rng.uniform(0.5, 3, size=150) + rng.normal(size=150)
    center, scale = T.mean(0), T.std(0)
    path = SquaredHingePath(T, y, weights, center=center, scale=scale)
    sizes = [70, 90, 110, 100, 80, 120, 65, 140, 75]
    for k in sizes:
        cols = rng.permutation(np.arange(150))[:k] if k == 120 else np.arange(k)
        w, b = path.fit(cols, 0.5)
        w0, b0 = fit_squared_hinge(Z[:, cols], y, 0.5, weights)
        np.testing.assert_allclose(np.r_[w, b], np.r_[w0, b0], atol=1e-7)
    assert path.n_fits == len(sizes)
