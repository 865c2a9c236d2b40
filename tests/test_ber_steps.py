"""The exact BER-vs-λ steps (slb.model.steps): the fast nested-kernel fits give the same
decisions as fitting every breakpoint's model from scratch."""

import numpy as np
import pytest
from conftest import make_two_class
from sklearn.svm import SVC

from slb import SLBClassifier, ThresholdPath
from slb.evaluation import compare_estimators, stratified_folds
from slb.model.steps import _libsvm_fit, _nested_predictions, ber_steps
from slb.model.svm import class_weights, fit_linear_svm


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_libsvm_fit_is_svc_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(70, 9))
    y = (Z[:, 0] + rng.normal(size=70) > 0.3).astype(int)
    K = Z @ Z.T
    w = class_weights("balanced", y) if seed else np.array([1.0, 2.5])
    for C in (0.05, 1.0):
        svc = SVC(kernel="precomputed", C=C, class_weight={0: w[0], 1: w[1]}, tol=1e-3).fit(K, y)
        dual, support, b = _libsvm_fit(K, y.astype(float), C, w)
        assert np.array_equal(support, svc.support_)
        assert np.array_equal(dual, svc.dual_coef_.ravel())
        assert b == float(svc.intercept_[0])


def test_nested_predictions_match_fit_linear_svm_on_every_mask():
    rng = np.random.default_rng(5)
    T = rng.normal(size=(90, 12)) * rng.uniform(0.5, 3, size=12) + rng.normal(size=12)
    y = (T[:, 0] - T[:, 3] + rng.normal(size=90) > 0).astype(int)
    tr, te = np.arange(60), np.arange(60, 90)
    order = rng.permutation(12)
    nested = [np.isin(np.arange(12), order[:k]) for k in range(0, 13, 2)]
    masks = [*nested, np.isin(np.arange(12), [1, 7])]  # the last one is not nested: a restart
    preds = _nested_predictions(T[tr], y[tr], T[te], masks, 0.7, "balanced")
    for m, p in zip(masks, preds, strict=True):
        if not m.any():
            assert not p.any()  # no feature: the first class
            continue
        coef, b = fit_linear_svm(T[tr][:, m], y[tr], C=0.7, class_weight="balanced")
        assert np.array_equal(p, (T[te][:, m] @ coef + b > 0).astype(int))


@pytest.mark.parametrize("pair_rule", ["either", "per_class"])
def test_every_step_equals_slb_refitted_from_scratch(pair_rule):
    X, y = make_two_class(n_per_class=30, d=4, seed=8)
    folds = stratified_folds(y, n_splits=3, random_state=1)
    path = ThresholdPath(C=0.5, pair_rule=pair_rule, random_state=3).fit(X, y, folds)
    steps = ber_steps(path, 0.0, None)
    assert len(steps) > 10
    for k in range(len(steps)):
        a, b = steps["lower"].iloc[k], steps["threshold"].iloc[k]
        lam = float(b if k == 0 else (a + b) / 2)  # inside the step (row 0: its one λ)
        slb = SLBClassifier(threshold=lam, C=0.5, pair_rule=pair_rule, random_state=3)
        per_fold = compare_estimators({"slb": slb}, X, y, folds=folds).per_fold["slb"]
        assert steps["mean_ber"].iloc[k] == pytest.approx(per_fold.mean(), abs=1e-12), k
        assert steps["sd_ber"].iloc[k] == pytest.approx(per_fold.std(ddof=1), abs=1e-12), k
