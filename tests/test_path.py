"""ThresholdPath must return exactly what cross-validating SLBClassifier(threshold=lambda) on the
same folds returns, for every pair rule and several thresholds."""

import numpy as np
import pytest
from conftest import make_two_class

from slb import SLBClassifier, ThresholdPath
from slb.evaluation import compare_estimators, stratified_folds

C = 0.5  # set explicitly on both sides: the comparison must not depend on the defaults
RS = 3  # the cross-fitting folds of the training features, the same on both sides


@pytest.fixture(scope="module")
def data():
    X, y = make_two_class(n_per_class=45, d=5, seed=21)
    return X, y, stratified_folds(y, n_splits=3, random_state=4)


def _grid(path):
    """0, four thresholds strictly between pair scores, and one above every score.

    Thresholds equal to a pair's score are tested separately (see the last test): here the
    comparison must not hinge on the last bit of an HSIC value.
    """
    scores = np.unique(np.concatenate([path._score(f.score) for f in path.folds_]))
    mid = (scores[:-1] + scores[1:]) / 2
    inner = mid[np.linspace(0, mid.size - 1, 4).round().astype(int)]
    return np.concatenate([[0.0], inner, [scores.max() * 1.01]])


def test_candidate_thresholds_span_all_to_none(data):
    X, y, folds = data
    path = ThresholdPath(C=C, random_state=RS).fit(X, y, folds)
    g = path.candidate_thresholds(n=5)
    assert g[0] == 0.0
    assert g[-1] > max(path._score(f.score).max() for f in path.folds_)  # keeps no pair
    assert np.all(path.fold_ber(g[-1])[1] == 0) and np.all(path.fold_ber(0.0)[1] == 10)


@pytest.mark.parametrize("pair_rule", ["either", "both", "per_class"])
def test_fold_ber_equals_cross_validated_slb(data, pair_rule):
    X, y, folds = data
    path = ThresholdPath(pair_rule=pair_rule, C=C, random_state=RS).fit(X, y, folds)
    assert len(path.folds_) == 3
    grid = _grid(path)
    assert len(grid) >= 5
    seen = set()
    for lam in grid:
        ber, n_pairs = path.fold_ber(lam)
        comp = compare_estimators(
            {"slb": SLBClassifier(threshold=float(lam), pair_rule=pair_rule, C=C, random_state=RS)},
            X,
            y,
            folds=folds,
        )
        np.testing.assert_allclose(ber, comp.per_fold["slb"].to_numpy(), atol=1e-12)
        for k, (tr, _) in enumerate(folds):
            m = SLBClassifier(threshold=float(lam), pair_rule=pair_rule, C=C, random_state=RS).fit(
                X[tr], y[tr]
            )
            assert n_pairs[k] == len(m.pairs_)
        seen.add(tuple(n_pairs))
    assert len(seen) >= 3  # the grid really moves through different pair sets
    assert (0, 0, 0) in seen and (pair_rule == "both" or (10, 10, 10) in seen)


def test_curve_summarises_fold_ber(data):
    X, y, folds = data
    path = ThresholdPath(C=C, random_state=RS).fit(X, y, folds)
    grid = [0.0, 0.01, 0.05, 1.0]
    curve = path.curve(grid)
    assert list(curve.columns) == ["threshold", "mean_ber", "sd_ber", "mean_pairs"]
    for row, lam in zip(curve.itertuples(), grid, strict=True):
        ber, k = path.fold_ber(lam)
        assert row.threshold == lam
        assert row.mean_ber == pytest.approx(ber.mean())
        assert row.sd_ber == pytest.approx(ber.std(ddof=1))
        assert row.mean_pairs == pytest.approx(k.mean())


def test_spearman_path_and_max_pairs(data):
    X, y, folds = data
    path = ThresholdPath(dependence="spearman", max_pairs=3, C=C, random_state=RS).fit(X, y, folds)
    ber0, k0 = path.fold_ber(0.0)
    assert np.all(k0 == 3)  # below the cut: the cut
    exact = 0
    for lam in (0.2, 0.4, 0.7, 0.95):
        ber, k = path.fold_ber(lam)
        # above the cut (at most 3 pairs kept by SLB itself) the path is exact
        comp = compare_estimators(
            {"s": SLBClassifier(threshold=lam, dependence="spearman", C=C, random_state=RS)},
            X,
            y,
            folds=folds,
        )
        fitted = [
            SLBClassifier(threshold=lam, dependence="spearman", C=C, random_state=RS).fit(
                X[tr], y[tr]
            )
            for tr, _ in folds
        ]
        if all(len(m.pairs_) <= 3 for m in fitted):
            np.testing.assert_allclose(ber, comp.per_fold["s"].to_numpy(), atol=1e-12)
            assert list(k) == [len(m.pairs_) for m in fitted]
            exact += 1
    assert exact >= 2


def test_invalid_path_parameters():
    with pytest.raises(ValueError, match="dependence"):
        ThresholdPath(dependence="foo")
    with pytest.raises(ValueError, match="pair_rule"):
        ThresholdPath(pair_rule="foo")


def test_path_and_slb_screen_identical_hsic_values():
    X, y = make_two_class(n_per_class=420, d=4, seed=1)
    te = np.concatenate([np.flatnonzero(y == "a")[:20], np.flatnonzero(y == "b")[:20]])
    tr = np.setdiff1d(np.arange(len(y)), te)  # 400 training rows per class
    path = ThresholdPath(C=C, random_state=RS).fit(X, y, [(tr, te)])
    clf = SLBClassifier(threshold=0.0, C=C, warm_start=True).fit(X[tr], y[tr])
    iu = np.triu_indices(4, 1)
    mismatched = []
    for s in path._score(path.folds_[0].score):  # thresholds equal to pair scores
        clf.set_params(threshold=float(s)).fit(X[tr], y[tr])  # warm: only the SVM refits
        if path.fold_ber(s)[1][0] != len(clf.pairs_):
            mismatched.append(float(s))
    assert mismatched == []
    np.testing.assert_array_equal(clf.dependence_[:, iu[0], iu[1]], path.folds_[0].stat)
