"""Tests of the discrete Rényi classifier (slb.peers.renyi) against independent references."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from slb.peers.renyi import RenyiClassifier, quantile_bin_edges

# --------------------------------------------------------------------------------------------
# scikit-learn estimator checks
# --------------------------------------------------------------------------------------------


def _expected_failed_checks(estimator):
    failed = {
        "check_array_api_input": (
            "numpy-only estimator without Array API support (scikit-learn skips this check "
            "unless SCIPY_ARRAY_API=1 is set)"
        ),
    }
    if estimator.decision == "randomized":
        reason = (
            "the randomised rule delta~ predicts classes_[1] with probability "
            "p1^2 / (p0^2 + p1^2), so by design predict does not always follow the sign of "
            "decision_function, which this check requires"
        )
        failed["check_classifiers_train"] = reason
        failed["check_classifiers_classes"] = reason
    return failed


@parametrize_with_checks(
    [
        RenyiClassifier(),
        RenyiClassifier(pairwise=True, group_lasso=0.01, alpha=0.0),
        RenyiClassifier(decision="randomized", random_state=0),
    ],
    expected_failed_checks=_expected_failed_checks,
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


# --------------------------------------------------------------------------------------------
# Closed form against independent least-squares solvers
# --------------------------------------------------------------------------------------------


def _discrete_data(n=300, d=4, m=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, m, size=(n, d)).astype(float)
    logit = (X[:, 0] - 2) * 0.8 - np.abs(X[:, 1] - 2) * 0.6 + 0.3 * X[:, 2]
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return X, y


@pytest.mark.parametrize("alpha", [1e-3, 0.05, 1.0])
def test_closed_form_equals_sklearn_ridge_on_indicators(alpha):
    X, y = _discrete_data()
    n = X.shape[0]
    clf = RenyiClassifier(n_bins=5, alpha=alpha).fit(X, y)
    W = OneHotEncoder(sparse_output=False).fit_transform(X)  # features with 5 levels each
    c = y - 0.5
    ridge = Ridge(alpha=n * alpha, fit_intercept=False, solver="svd").fit(W, c)
    np.testing.assert_allclose(clf.coef_[0], ridge.coef_, rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(clf.decision_function(X), W @ ridge.coef_, atol=1e-10)


def test_unregularised_solution_is_the_minimum_norm_lstsq():
    X, y = _discrete_data(seed=1)
    clf = RenyiClassifier(n_bins=5, alpha=0.0).fit(X, y)
    W = OneHotEncoder(sparse_output=False).fit_transform(X)
    z, *_ = np.linalg.lstsq(W, y - 0.5, rcond=None)
    np.testing.assert_allclose(clf.coef_[0], z, atol=1e-9)


def test_pairwise_equals_ridge_on_joint_pair_indicators():
    X, y = _discrete_data(n=400, d=3, m=4, seed=2)
    n, d = X.shape
    alpha = 0.01
    clf = RenyiClassifier(n_bins=4, alpha=alpha, pairwise=True).fit(X, y)
    pair_codes = np.column_stack([X[:, i] * 4 + X[:, j] for i in range(d) for j in range(i + 1, d)])
    W = OneHotEncoder(sparse_output=False).fit_transform(pair_codes)
    ridge = Ridge(alpha=n * alpha, fit_intercept=False, solver="svd").fit(W, y - 0.5)
    np.testing.assert_allclose(clf.decision_function(X), W @ ridge.coef_, atol=1e-9)
    assert clf.blocks_.tolist() == [[0, 1], [0, 2], [1, 2]]


# --------------------------------------------------------------------------------------------
# Discretisation
# --------------------------------------------------------------------------------------------


def test_quantile_bins_equal_frequency_ties_and_nearest_level():
    rng = np.random.default_rng(0)
    x = rng.normal(size=1000)
    edges = quantile_bin_edges(x, 5)
    counts = np.bincount(np.searchsorted(edges, x, side="right"), minlength=5)
    assert edges.size == 4 and counts.min() >= 190 and counts.max() <= 210

    # Heavily tied feature: no empty bins, fewer levels.
    x = np.r_[np.zeros(700), rng.normal(size=300)]
    edges = quantile_bin_edges(x, 5)
    counts = np.bincount(np.searchsorted(edges, x, side="right"))
    assert counts.min() > 0 and edges.size < 4

    # Discrete feature: one level per value, unseen values go to the nearest level.
    x = np.array([0.0, 1.0, 3.0] * 10)
    edges = quantile_bin_edges(x, 5)
    lev = np.searchsorted(edges, [-5.0, 0.4, 0.6, 1.9, 2.1, 2.9, 99.0], side="right")
    assert lev.tolist() == [0, 0, 1, 1, 2, 2, 2]


def test_unseen_values_at_predict_time():
    X, y = _discrete_data()
    clf = RenyiClassifier(n_bins=5).fit(X, y)
    X_new = X[:5] + np.array([0.2, -0.2, 0.1, 0.0])  # rounds back to the training values
    np.testing.assert_allclose(clf.decision_function(X_new), clf.decision_function(X[:5]))
    far = np.array([[-100.0, 100.0, 0.0, 4.0]])
    near = np.array([[0.0, 4.0, 0.0, 4.0]])
    np.testing.assert_allclose(clf.decision_function(far), clf.decision_function(near))


# --------------------------------------------------------------------------------------------
# Near-Bayes error under the separability condition E[Y | X] = sum_i zeta_i(X_i)
# --------------------------------------------------------------------------------------------

# zeta_i(level) for 3 features with 5 levels; 1/2 + sum stays in [0.05, 0.95].
_ZETA = np.array(
    [
        [-0.20, -0.10, 0.00, 0.10, 0.20],
        [0.15, -0.05, -0.15, -0.05, 0.10],
        [0.00, 0.10, -0.05, 0.05, -0.10],
    ]
)


def _posterior(levels):
    return 0.5 + sum(_ZETA[i][levels[:, i]] for i in range(_ZETA.shape[0]))


def _all_cells():
    grids = np.meshgrid(*[np.arange(5)] * 3, indexing="ij")
    return np.column_stack([g.ravel() for g in grids])


def test_near_bayes_error_on_a_separable_discrete_design():
    cells = _all_cells()
    p = _posterior(cells)
    assert p.min() >= 0.05 and p.max() <= 0.95
    bayes = np.mean(np.minimum(p, 1 - p))  # exact: the 125 cells are equally likely
    # The test can fail: a rule that ignores any one feature errs > bayes + 0.008.
    for drop in range(3):
        s = sum(_ZETA[i][cells[:, i]] for i in range(3) if i != drop)
        assert np.mean(np.where(s > 0, 1 - p, p)) > bayes + 0.008

    rng = np.random.default_rng(0)
    lev = rng.integers(0, 5, size=(20000, 3))
    y = np.where(rng.random(20000) < _posterior(lev), "pos", "neg")
    clf = RenyiClassifier(n_bins=5, alpha=1e-4).fit(lev.astype(float), y)
    assert clf.classes_.tolist() == ["neg", "pos"]
    pred_pos = clf.predict(cells.astype(float)) == "pos"
    err_map = np.mean(np.where(pred_pos, 1 - p, p))  # exact error of the fitted MAP rule
    assert err_map - bayes < 0.004, (err_map, bayes)

    # The fitted posterior is the true one (eq. 11 holds under separability).
    p_fit = clf.predict_proba(cells.astype(float))[:, 1]
    np.testing.assert_allclose(p_fit, p, atol=0.05)

    # Randomised rule: its exact expected error matches that of the rule built on the true
    # posterior, which lies between the Bayes error and twice it (Theorem 2).
    def randomized_error(p_rule):
        q1 = p_rule**2 / (p_rule**2 + (1 - p_rule) ** 2)
        return np.mean(q1 * (1 - p) + (1 - q1) * p)

    err_rand = randomized_error(p_fit)
    assert abs(err_rand - randomized_error(p)) < 0.004
    assert bayes < err_rand < 2 * bayes


def test_near_bayes_error_with_continuous_features_and_quantile_bins():
    # Uniform features on [0, 1); the zeta_i are step functions on the quintiles.
    cells = _all_cells()
    p_cells = _posterior(cells)
    bayes = np.mean(np.minimum(p_cells, 1 - p_cells))

    rng = np.random.default_rng(1)
    X = rng.random((20000, 3))
    p = _posterior(np.floor(X * 5).astype(int))
    y = (rng.random(20000) < p).astype(int)
    clf = RenyiClassifier(n_bins=5, alpha=1e-4).fit(X, y)

    X_test = rng.random((200_000, 3))
    p_test = _posterior(np.floor(X_test * 5).astype(int))
    pred = clf.predict(X_test)
    err = np.mean(np.where(pred == 1, 1 - p_test, p_test))  # expected error given X_test
    # 0.005: ignoring any one feature would cost more than 0.008 (see the discrete test).
    assert err - bayes < 0.005, (err, bayes)


def test_randomized_rule_flips_coins_with_the_right_probability_and_is_reproducible():
    rng = np.random.default_rng(2)
    X = rng.random((3000, 3))
    y = (rng.random(3000) < _posterior(np.floor(X * 5).astype(int))).astype(int)
    clf = RenyiClassifier(n_bins=5, alpha=1e-4, decision="randomized", random_state=3)
    clf.fit(X, y)
    # 4000 distinct points in one cell: the share predicted positive is q1 of that cell.
    cell = np.array([0.9, 0.1, 0.5])
    X_cell = np.floor(cell * 5) / 5 + rng.random((4000, 3)) * 0.2
    p1 = clf.predict_proba(X_cell[:1])[0, 1]
    q1 = p1**2 / (p1**2 + (1 - p1) ** 2)
    share = np.mean(clf.predict(X_cell) == 1)
    assert abs(share - q1) < 4 * np.sqrt(q1 * (1 - q1) / 4000) + 1e-3
    # Same rows -> same decisions, whatever the batch and order; another seed -> other coins.
    pred = clf.predict(X_cell)
    np.testing.assert_array_equal(clf.predict(X_cell[::-1])[::-1], pred)
    np.testing.assert_array_equal(clf.predict(X_cell[:7]), pred[:7])
    other = RenyiClassifier(n_bins=5, alpha=1e-4, decision="randomized", random_state=4)
    assert np.any(other.fit(X, y).predict(X_cell) != pred)


# --------------------------------------------------------------------------------------------
# Group-lasso feature selection (Algorithm 1)
# --------------------------------------------------------------------------------------------


def _noise_feature_data(seed=0, n=800):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 10))
    logit = 1.5 * X[:, 0] - 1.2 * np.abs(X[:, 3]) + 1.0 * np.sign(X[:, 6])
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return X, y  # features 0, 3 and 6 matter; the other 7 are pure noise


@pytest.mark.parametrize("norm", ["linf", "l2"])
def test_group_lasso_removes_pure_noise_features(norm):
    X, y = _noise_feature_data()
    lam = 0.12 if norm == "linf" else 0.05  # middle of the windows that keep exactly 0, 3, 6
    clf = RenyiClassifier(n_bins=5, group_lasso=lam, group_norm=norm).fit(X, y)
    assert clf.selected_features_.tolist() == [0, 3, 6]
    assert clf.blocks_.ravel().tolist() == [0, 3, 6]
    # The refit uses only the kept features: changing a removed one changes nothing.
    X2 = X.copy()
    X2[:, 1] = -X2[:, 1]
    np.testing.assert_allclose(clf.decision_function(X2), clf.decision_function(X))
    assert RenyiClassifier(group_lasso=1.0).fit(X, y).selected_features_.size == 0


@pytest.mark.parametrize("norm", ["linf", "l2"])
@pytest.mark.parametrize("alpha", [0.0, 0.01])
def test_group_lasso_solution_satisfies_the_optimality_conditions(norm, alpha):
    from slb.peers.renyi import group_lasso_indicator

    X, y = _noise_feature_data(seed=1, n=400)
    edges = [quantile_bin_edges(X[:, j], 5) for j in range(X.shape[1])]
    codes = np.column_stack([np.searchsorted(e, X[:, j], "right") for j, e in enumerate(edges)])
    sizes = np.array([e.size + 1 for e in edges])
    W = OneHotEncoder(sparse_output=False).fit_transform(codes)  # independent of the module
    assert W.shape[1] == sizes.sum()
    c = y - 0.5
    lam = 0.08
    z, _ = group_lasso_indicator(
        codes, sizes, c, lam, alpha=alpha, norm=norm, max_iter=20000, tol=1e-12
    )
    v = (2 / len(y)) * (W.T @ (c - W @ z)) - 2 * alpha * z  # minus the smooth part's gradient
    dual = (lambda a: np.abs(a).sum()) if norm == "linf" else np.linalg.norm
    start = 0
    n_zero = 0
    for s in sizes:
        zg, vg = z[start : start + s], v[start : start + s]
        start += s
        if not np.any(zg):
            n_zero += 1
            assert dual(vg) <= lam * (1 + 1e-3)
        elif norm == "l2":
            np.testing.assert_allclose(vg, lam * zg / np.linalg.norm(zg), atol=1e-4)
        else:
            top = np.isclose(np.abs(zg), np.abs(zg).max(), rtol=1e-4, atol=1e-7)
            assert dual(vg) == pytest.approx(lam, rel=1e-3)
            assert np.all(np.abs(vg[~top]) < 1e-4)
            assert np.all(vg[top] * zg[top] >= -1e-8)
    assert 0 < n_zero < len(sizes)


# --------------------------------------------------------------------------------------------
# Conventions: labels, errors, meta-estimators, summary
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "labels", [(0, 1), (-1, 1), ("benign", "malignant"), (0.0, 1.0), (False, True)]
)
def test_any_binary_labels_and_positive_class(labels):
    X, y = _discrete_data(seed=3)
    y_lab = np.where(y == 1, labels[1], labels[0])
    clf = RenyiClassifier().fit(X, y_lab)
    assert clf.classes_.tolist() == sorted(labels)
    s = clf.decision_function(X)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[(s > 0).astype(int)])
    proba = clf.predict_proba(X)
    assert np.all((proba >= 0) & (proba <= 1)) and np.allclose(proba.sum(axis=1), 1)
    np.testing.assert_allclose(proba[:, 1], np.clip(0.5 + s, 1e-6, 1 - 1e-6))  # never exactly 0, 1


def test_bad_inputs_raise_value_errors_with_clear_messages():
    X, y = _discrete_data()
    y3 = np.array(["setosa", "versicolor", "virginica"])[np.arange(len(y)) % 3]
    with pytest.raises(ValueError, match="takes two classes only"):
        RenyiClassifier().fit(X, y3)
    with pytest.raises(ValueError, match="positive class"):
        RenyiClassifier().fit(X, y3)
    with pytest.raises(ValueError, match="one class"):
        RenyiClassifier().fit(X, np.ones(len(y)))
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        RenyiClassifier().fit(X_nan, y)
    X_inf = X.copy()
    X_inf[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        RenyiClassifier().fit(X_inf, y)
    clf = RenyiClassifier().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:, :3])
    with pytest.raises(ValueError, match="sample"):
        RenyiClassifier().fit(X[:1], y[:1])
    with pytest.raises(ValueError, match="n_bins"):
        RenyiClassifier(n_bins=1).fit(X, y)
    with pytest.raises(ValueError, match="decision"):
        RenyiClassifier(decision="vote").fit(X, y)


def test_pipeline_cross_val_and_grid_search_with_dataframe():
    X, y = _noise_feature_data(seed=4, n=300)
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    labels = np.where(y == 1, "yes", "no")
    pipe = make_pipeline(StandardScaler(), RenyiClassifier())
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    scores = cross_val_score(pipe, df, labels, cv=cv, scoring="balanced_accuracy")
    assert np.all(np.isfinite(scores)) and scores.mean() > 0.6
    grid = GridSearchCV(
        RenyiClassifier(), {"alpha": [1e-3, 1e-1], "pairwise": [False, True]}, cv=3
    ).fit(df, labels)
    assert grid.best_estimator_.feature_names_in_.tolist() == list(df.columns)


def test_student_summary_is_a_short_plain_text():
    text = RenyiClassifier.student_summary
    assert isinstance(text, str)
    n_sentences = len(re.findall(r"[.!?](\s|$)", text))
    assert 3 <= n_sentences <= 5
    import slb.peers.renyi

    assert "For students" in slb.peers.renyi.__doc__


def test_awkward_data_gives_finite_outputs_without_warnings():
    rng = np.random.default_rng(6)
    n = 60
    X = np.column_stack(
        [
            np.full(n, 3.0),  # constant
            rng.normal(size=n) * 1e12,  # huge scale
            rng.normal(size=n) * 1e-12,  # tiny scale
            np.repeat([0.0, 1.0], n // 2),  # binary
            rng.integers(0, 2, n) * 1e6,  # two far-apart values
        ]
    )
    X = np.vstack([X, X[:10]])  # duplicated rows
    y = (rng.random(len(X)) < 0.5).astype(int)
    y[:2] = [0, 1]
    for params in [{}, {"pairwise": True}, {"group_lasso": 0.05}, {"alpha": 0.0}]:
        clf = RenyiClassifier(**params).fit(X, y)
        assert np.all(np.isfinite(clf.decision_function(X)))
        assert np.all(np.isfinite(clf.predict_proba(X)))
    assert RenyiClassifier().fit(X, y).n_levels_[0] == 1
