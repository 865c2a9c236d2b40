"""Tests of DISCRETE, learning as MAP inference (slb.peers.discrete_map), against brute force."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import check_classifiers_train, parametrize_with_checks
from sklearn_support import expected_calibration_failures, without_proba

from slb.peers.discrete_map import DiscreteMAPClassifier, chain_map, clique_loss_table, weight_grid

# --------------------------------------------------------------------------------------------
# scikit-learn estimator checks
# --------------------------------------------------------------------------------------------


def _expected_failed_checks(estimator):
    return {
        "check_array_api_input": (
            "numpy-only estimator without Array API support (scikit-learn skips this check "
            "unless SCIPY_ARRAY_API=1 is set)"
        ),
        **expected_calibration_failures(estimator),
    }


@parametrize_with_checks(
    [
        DiscreteMAPClassifier(),
        DiscreteMAPClassifier(offset="node", n_chains=3, l0_penalty=2.0),
        DiscreteMAPClassifier(graph="2-chain", projection="auto", n_weight_values=5),
    ],
    expected_failed_checks=_expected_failed_checks,
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("params", [{}, {"offset": "node", "n_chains": 3}])
def test_classifiers_train_check_without_the_calibrated_probabilities(params):
    est = without_proba(DiscreteMAPClassifier(**params))
    check_classifiers_train(type(est).__name__, est)


# --------------------------------------------------------------------------------------------
# The dynamic program against brute force
# --------------------------------------------------------------------------------------------


def _brute_force(tables, unary, secondary=None):
    """Lexicographic minimum of (energy, secondary) over all B^D configurations."""
    k = tables[0].ndim
    D, B = unary.shape
    sec = np.zeros_like(unary) if secondary is None else secondary
    best = None
    for conf in itertools.product(range(B), repeat=D):
        e = sum(unary[i, a] for i, a in enumerate(conf))
        e += sum(T[conf[t : t + k]] for t, T in enumerate(tables))
        s = sum(sec[i, a] for i, a in enumerate(conf))
        if best is None or e < best[0] - 1e-9 or (abs(e - best[0]) <= 1e-9 and s < best[1]):
            best = (e, s, conf)
    return best


@pytest.mark.parametrize("k, D, B", [(2, 6, 4), (3, 6, 3), (3, 4, 5), (2, 2, 5), (3, 3, 4)])
@pytest.mark.parametrize("seed", [0, 1])
def test_chain_map_equals_brute_force_with_continuous_potentials(k, D, B, seed):
    rng = np.random.default_rng(seed)
    tables = [rng.normal(size=(B,) * k) for _ in range(D - k + 1)]
    unary = rng.normal(size=(D, B))
    labels, energy = chain_map(tables, unary)
    e_bf, _, conf = _brute_force(tables, unary)
    assert energy == pytest.approx(e_bf)
    assert tuple(labels) == conf  # continuous potentials: the minimiser is unique


@pytest.mark.parametrize("k, D, B", [(2, 6, 3), (3, 5, 3)])
def test_chain_map_lexicographic_tie_breaking_equals_brute_force(k, D, B):
    rng = np.random.default_rng(5)
    tables = [rng.integers(0, 3, size=(B,) * k).astype(float) for _ in range(D - k + 1)]
    unary = rng.integers(0, 2, size=(D, B)).astype(float)  # many ties
    secondary = rng.normal(size=(D, B))  # unique tie-break
    labels, energy = chain_map(tables, unary, secondary)
    e_bf, s_bf, conf = _brute_force(tables, unary, secondary)
    assert energy == pytest.approx(e_bf)
    assert secondary[np.arange(D), labels].sum() == pytest.approx(s_bf)
    assert tuple(labels) == conf


def _eq7_energy(Z, y_pm, windows, theta, theta0, lam, shared):
    """Eq. 7 computed directly from the data for one weight vector (independent of the module)."""
    e = lam * (np.count_nonzero(theta) + (theta0 != 0))
    for w in windows:
        margin = Z[:, w] @ theta[w] + (theta0 if shared else 0.0)
        e += np.sum((1 - y_pm * np.sign(margin)) / 2)
    return e


@pytest.mark.parametrize(
    "graph, offset, d, B",
    [
        ("chain", "shared", 3, 5),
        ("chain", "node", 3, 5),
        ("2-chain", "shared", 3, 5),
        ("2-chain", "node", 4, 3),
        ("chain", "shared", 4, 4),
    ],
)
@pytest.mark.parametrize("lam", [0.0, 1.5])
def test_fitted_weights_are_the_exact_minimiser_of_eq7(graph, offset, d, B, lam):
    rng = np.random.default_rng(len(graph) + d + B)
    X = rng.normal(size=(40, d)) * [1.0, 3.0, 0.5, 2.0][:d] + 1.0
    y = (X @ rng.normal(size=d) + rng.normal(size=40) > 1.0).astype(int)
    clf = DiscreteMAPClassifier(
        n_weight_values=B, l0_penalty=lam, graph=graph, offset=offset, random_state=0
    ).fit(X, y)
    y_pm = 2.0 * y - 1
    Z = (X - X.mean(0)) / X.std(0)
    if offset == "node":
        Z = np.column_stack([Z, np.ones(len(Z))])
    D = Z.shape[1]
    k = 2 if graph == "chain" else 3
    order = clf.chain_orders_[0]
    windows = [order[t : t + k] for t in range(D - k + 1)]
    grid = np.linspace(-1, 1, B) if B % 2 else np.arange(-(B // 2), B // 2) / (B // 2)
    assert set(np.round(clf.weight_grid_, 12)) == set(np.round(grid, 12))
    shared = offset == "shared"
    offsets = grid if shared else [0.0]
    best = np.inf
    for conf in itertools.product(grid, repeat=D):
        theta = np.array(conf)
        for t0 in offsets:
            best = min(best, _eq7_energy(Z, y_pm, windows, theta, t0, lam, shared))
    theta_fit = clf.weights_[0]
    e_fit = _eq7_energy(Z, y_pm, windows, theta_fit[:D], theta_fit[D], lam, shared)
    assert clf.energies_[0] == pytest.approx(best)
    assert e_fit == pytest.approx(best)


def test_clique_loss_table_counts_mistakes():
    rng = np.random.default_rng(0)
    Xc = rng.normal(size=(25, 2))
    y = np.where(rng.random(25) < 0.5, -1.0, 1.0)
    grid = weight_grid(5)
    T = clique_loss_table(Xc, y, grid)
    for a, b in itertools.product(range(5), repeat=2):
        pred = np.sign(grid[a] * Xc[:, 0] + grid[b] * Xc[:, 1])
        expected = np.sum(pred != y) - 0.5 * np.sum(pred == 0)  # a zero score costs 1/2
        assert T[a, b] == expected
    assert T[2, 2] == 12.5  # all weights zero: every sample costs 1/2


# --------------------------------------------------------------------------------------------
# The l0 penalty
# --------------------------------------------------------------------------------------------


def test_l0_penalty_zeroes_more_weights_as_lambda_grows():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 12))
    y = (X[:, 0] + X[:, 1] - X[:, 2] + 0.3 * rng.normal(size=300) > 0).astype(int)
    counts = []
    for lam in [0.0, 1.0, 3.0, 10.0, 30.0, 100.0, 1e4]:
        clf = DiscreteMAPClassifier(l0_penalty=lam, random_state=0).fit(X, y)
        counts.append(clf.n_nonzero_)
        assert np.count_nonzero(clf.coef_) == np.count_nonzero(clf.theta_[:-1])
    # Exact minimisers: the number of non-zeros cannot grow with lambda.
    assert np.all(np.diff(counts) <= 0), counts
    assert counts[0] > counts[-2] and counts[-1] == 0, counts
    # With a moderate penalty the informative features 0, 1, 2 survive.
    clf = DiscreteMAPClassifier(l0_penalty=30.0, random_state=0).fit(X, y)
    assert set(np.flatnonzero(clf.coef_[0])) >= {0, 1, 2}
    assert clf.coef_[0, 0] > 0 and clf.coef_[0, 2] < 0


# --------------------------------------------------------------------------------------------
# Robustness to label noise (the paper's qualitative claim, Figure 1)
# --------------------------------------------------------------------------------------------


def _separable(n, rng, d=5):
    # Heavy-tailed (Student t, 2 d.o.f.) features: a few points lie far from the boundary,
    # where a flipped label costs a convex loss a lot but the 0/1 loss only 1.
    X = rng.standard_t(2, size=(n, d))
    y = (X.sum(axis=1) > 0).astype(int)
    return X, y


def test_accuracy_drops_less_than_linear_svc_under_30_percent_label_noise():
    drops_discrete, drops_svc = [], []
    for seed in range(8):
        rng = np.random.default_rng(seed)
        X, y = _separable(400, rng)
        X_test, y_test = _separable(5000, rng)
        y_noisy = np.where(rng.random(y.size) < 0.3, 1 - y, y)
        for make, drops in [
            (lambda s=seed: DiscreteMAPClassifier(random_state=s), drops_discrete),
            (lambda: LinearSVC(max_iter=20000), drops_svc),
        ]:
            clean = np.mean(make().fit(X, y).predict(X_test) == y_test)
            noisy = np.mean(make().fit(X, y_noisy).predict(X_test) == y_test)
            drops.append(clean - noisy)
    assert np.mean(drops_discrete) < np.mean(drops_svc), (drops_discrete, drops_svc)


# --------------------------------------------------------------------------------------------
# Conventions: labels, errors, the linear model, meta-estimators, summary
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"offset": "node"},
        {"projection": "auto"},
        {"projection": 9, "offset": "node"},
        {"n_chains": 3, "graph": "2-chain"},
    ],
)
def test_decision_function_is_the_linear_model_in_input_space(params):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 4)) * [1, 10, 0.1, 3] + [5, -2, 0, 1]
    y = np.where(X[:, 0] - 0.1 * X[:, 1] > 5, "a", "b")
    clf = DiscreteMAPClassifier(random_state=0, **params).fit(X, y)
    s = clf.decision_function(X)
    np.testing.assert_allclose(s, X @ clf.coef_[0] + clf.intercept_[0], atol=1e-9)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[(s > 0).astype(int)])
    assert np.mean(clf.predict(X) == y) > 0.8


def test_reproducible_with_random_state_and_chains_differ():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(100, 6))
    y = (X[:, 0] > 0).astype(int)
    a = DiscreteMAPClassifier(random_state=3, n_chains=4).fit(X, y)
    b = DiscreteMAPClassifier(random_state=3, n_chains=4).fit(X, y)
    np.testing.assert_array_equal(a.theta_, b.theta_)
    assert len({tuple(o) for o in a.chain_orders_}) > 1
    norms = np.linalg.norm(a.weights_, axis=1, keepdims=True)
    np.testing.assert_allclose(a.theta_, np.mean(a.weights_ / norms, axis=0))


@pytest.mark.parametrize("labels", [(0, 1), (-1, 1), ("rock", "mine"), (False, True)])
def test_any_binary_labels_and_positive_class(labels):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 3))
    y = np.where(X[:, 0] + X[:, 1] > 0, labels[1], labels[0])
    clf = DiscreteMAPClassifier(random_state=0).fit(X, y)
    assert clf.classes_.tolist() == sorted(labels)
    pos = clf.decision_function(X) > 0
    np.testing.assert_array_equal(clf.predict(X), np.where(pos, clf.classes_[1], clf.classes_[0]))
    assert np.mean(clf.predict(X) == y) > 0.85


def test_bad_inputs_raise_value_errors_with_clear_messages():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] > 0).astype(int)
    y3 = np.array(["setosa", "versicolor", "virginica"])[np.arange(30) % 3]
    with pytest.raises(ValueError, match="takes two classes only"):
        DiscreteMAPClassifier().fit(X, y3)
    with pytest.raises(ValueError, match="e.g. y == 'setosa'"):
        DiscreteMAPClassifier().fit(X, y3)
    with pytest.raises(ValueError, match="one class"):
        DiscreteMAPClassifier().fit(X, np.zeros(30))
    X_nan = X.copy()
    X_nan[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        DiscreteMAPClassifier().fit(X_nan, y)
    clf = DiscreteMAPClassifier().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        clf.decision_function(X[:, :2])
    for bad in [
        {"n_weight_values": 1},
        {"graph": "tree"},
        {"offset": "none"},
        {"n_chains": 0},
        {"projection": 0},
        {"l0_penalty": -1.0},
    ]:
        with pytest.raises(ValueError, match=next(iter(bad))):
            DiscreteMAPClassifier(**bad).fit(X, y)


def test_pipeline_cross_val_and_grid_search_with_dataframe():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(150, 4))
    y = np.where(X[:, 0] - X[:, 2] > 0, "yes", "no")
    df = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    pipe = make_pipeline(StandardScaler(), DiscreteMAPClassifier(random_state=0))
    scores = cross_val_score(pipe, df, y, cv=cv, scoring="balanced_accuracy")
    assert np.all(np.isfinite(scores)) and scores.mean() > 0.8
    grid = GridSearchCV(
        DiscreteMAPClassifier(random_state=0), {"l0_penalty": [0.0, 5.0], "n_chains": [1, 3]}, cv=3
    ).fit(df, y)
    assert grid.best_estimator_.feature_names_in_.tolist() == ["a", "b", "c", "d"]


def test_student_summary_is_a_short_plain_text():
    text = DiscreteMAPClassifier.student_summary
    assert isinstance(text, str)
    n_sentences = len(re.findall(r"[.!?](\s|$)", text))
    assert 3 <= n_sentences <= 5
    import slb.peers.discrete_map

    assert "For students" in slb.peers.discrete_map.__doc__
    assert "O(D B^2)" in slb.peers.discrete_map.__doc__


def test_awkward_data_gives_finite_outputs_without_warnings():
    rng = np.random.default_rng(6)
    n = 60
    X = np.column_stack(
        [
            np.full(n, 3.0),  # constant
            rng.normal(size=n) * 1e12,  # huge scale
            rng.normal(size=n) * 1e-12,  # tiny scale
            np.repeat([0.0, 1.0], n // 2),  # binary
        ]
    )
    X = np.vstack([X, X[:10]])  # duplicated rows
    y = (rng.random(len(X)) < 0.5).astype(int)
    for params in [{}, {"offset": "node"}, {"projection": "auto"}, {"graph": "2-chain"}]:
        clf = DiscreteMAPClassifier(random_state=0, **params).fit(X, y)
        assert np.all(np.isfinite(clf.decision_function(X)))
        assert np.all(np.isfinite(clf.coef_)) and np.all(np.isfinite(clf.intercept_))
