"""predict_proba: calibrated for the SVM family, never exactly 0 or 1 for every classifier.

SLB, SLB- and LU map their decision values through Platt's sigmoid fitted on cross-fitted
decision values (the nested selection's inner folds, or the SVM cross-fitted on the training
feature map when nothing is selected).  On held-out folds of synthetic forest data with
unequal classes, their probabilities must beat the naive sigmoid of the raw decision value in
log-loss and be reliable (small expected calibration error); on permuted labels they must sit
near the class prior.  Naive Bayes, TAN, Rényi and DISCRETE probabilities are clipped to
``[1e-6, 1 - 1e-6]`` so that log-loss stays finite.
"""

import numpy as np
import pytest
from scipy.special import expit
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold

import slb
from slb import (
    DiscreteMAPClassifier,
    KDENaiveBayes,
    LUClassifier,
    RenyiClassifier,
    SLBClassifier,
    TANClassifier,
)


def expected_calibration_error(y, p, n_bins=10):
    """Binned ``sum_b (n_b / n) |mean p in b - rate of y = 1 in b|`` (equal-width bins)."""
    b = np.minimum((p * n_bins).astype(int), n_bins - 1)
    return sum(
        np.mean(b == k) * abs(p[b == k].mean() - y[b == k].mean())
        for k in range(n_bins)
        if np.any(b == k)
    )


@pytest.fixture(scope="module")
def forest():
    # 30 % positives: the balanced-weight SVM's zero is not the calibrated 0.5 threshold.
    ds = slb.make_forest_bn(n_train=300, n_test=10, d=5, balance=0.3, random_state=0)
    X = np.asarray(ds.X_train, dtype=float)
    y = (np.asarray(ds.y_train) == np.unique(ds.y_train)[1]).astype(int)
    return X, y


def _held_out(make, X, y):
    """Probabilities, decision values and labels of 3 held-out folds."""
    P, S, Y = [], [], []
    for tr, te in StratifiedKFold(3, shuffle=True, random_state=1).split(X, y):
        model = make().fit(X[tr], y[tr])
        P.append(model.predict_proba(X[te])[:, 1])
        S.append(model.decision_function(X[te]))
        Y.append(y[te])
    return map(np.concatenate, (P, S, Y))


CALIBRATED = {
    "SLB (nested selection: inner folds)": lambda: SLBClassifier(random_state=0),
    "LU, fixed C (cross-fitted SVM)": lambda: LUClassifier(C=1.0, random_state=0),
}


@pytest.mark.parametrize("make", CALIBRATED.values(), ids=CALIBRATED.keys())
def test_platt_beats_the_naive_sigmoid_on_held_out_folds(forest, make):
    X, y = forest
    p, s, y_te = _held_out(make, X, y)
    naive = expit(s)
    # measured: log-loss SLB 0.404 vs 0.462, LU 0.484 vs 0.541; ECE 0.042 vs 0.137, 0.055 vs 0.147
    assert log_loss(y_te, p) < log_loss(y_te, naive)
    assert expected_calibration_error(y_te, p) < 0.08
    assert expected_calibration_error(y_te, p) < expected_calibration_error(y_te, naive)
    assert abs(p.mean() - y.mean()) < 0.05


@pytest.mark.parametrize("make", CALIBRATED.values(), ids=CALIBRATED.keys())
def test_permuted_labels_give_the_class_prior(forest, make):
    X, y = forest
    y_perm = np.random.default_rng(0).permutation(y)
    tr, te = next(StratifiedKFold(3, shuffle=True, random_state=1).split(X, y_perm))
    p = make().fit(X[tr], y_perm[tr]).predict_proba(X[te])[:, 1]
    prior = y_perm[tr].mean()
    assert abs(p.mean() - prior) < 0.05
    assert np.mean(np.abs(p - prior)) < 0.1  # no confident guesses where there is no signal


@pytest.mark.parametrize(
    "model",
    [KDENaiveBayes(), TANClassifier(), RenyiClassifier(), DiscreteMAPClassifier(random_state=0)],
    ids=lambda m: type(m).__name__,
)
def test_probabilities_are_never_exactly_zero_or_one(forest, model):
    X, y = forest
    model.fit(X, y)
    far = np.vstack([X[:20], X[:5] + 40.0, X[:5] - 40.0])  # far outside: densities floored
    p = model.predict_proba(far)
    assert p.shape == (len(far), 2)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert p.min() >= 1e-6 and p.max() <= 1 - 1e-6
    assert np.isfinite(log_loss(np.r_[y[:20], np.zeros(10, int)], p, labels=[0, 1]))
    np.testing.assert_allclose(model.predict_log_proba(far), np.log(p))
