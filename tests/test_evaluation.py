"""Behaviour tests of slb.evaluation: BER by hand, identical folds, Wilcoxon + Bonferroni."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.base import BaseEstimator, ClassifierMixin

from slb.evaluation import (
    balanced_error_rate,
    compare_estimators,
    stratified_folds,
    wilcoxon_against_best,
)

SEEN = []  # (name, sorted training row ids, sorted test row ids) of every fit/predict


class RecordingClassifier(ClassifierMixin, BaseEstimator):
    """Predicts by a fixed rule and records which rows (column 0 = row id) it saw."""

    def __init__(self, name="r", flip=0.0):
        self.name = name
        self.flip = flip

    def fit(self, X, y):
        X = np.asarray(X)
        self.classes_ = np.unique(y)
        SEEN.append((self.name, "fit", tuple(sorted(X[:, 0].astype(int)))))
        return self

    def predict(self, X):
        X = np.asarray(X)
        SEEN.append((self.name, "predict", tuple(sorted(X[:, 0].astype(int)))))
        score = X[:, 1] + self.flip * np.sin(X[:, 0])
        return self.classes_[(score > 0).astype(int)]


def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    y = np.array(["neg"] * 36 + ["pos"] * (n - 36))
    signal = np.where(y == "pos", 1.0, -1.0) + rng.normal(size=n)
    X = np.column_stack([np.arange(n), signal])
    return X, y


# ---------------------------------------------------------------------------------------------
# BER
# ---------------------------------------------------------------------------------------------
def test_balanced_error_rate_by_hand():
    rng = np.random.default_rng(1)
    for _ in range(20):
        y = rng.choice([-1, 1], size=40, p=[0.7, 0.3])
        y[:2] = [-1, 1]
        pred = np.where(rng.uniform(size=40) < 0.3, -y, y)
        P, N = np.sum(y == 1), np.sum(y == -1)
        sens = np.sum((pred == 1) & (y == 1)) / P
        spec = np.sum((pred == -1) & (y == -1)) / N
        assert balanced_error_rate(y, pred) == pytest.approx(1 - (sens + spec) / 2, abs=1e-15)
        # labels of any type
        ys, ps = np.where(y == 1, "b", "a"), np.where(pred == 1, "b", "a")
        assert balanced_error_rate(ys, ps) == pytest.approx(1 - (sens + spec) / 2, abs=1e-15)
    y = np.array([0, 0, 0, 1])
    assert balanced_error_rate(y, np.zeros(4, int)) == 0.5  # constant prediction
    assert balanced_error_rate(y, y) == 0.0
    assert balanced_error_rate(y, 1 - y) == 1.0


# ---------------------------------------------------------------------------------------------
# folds
# ---------------------------------------------------------------------------------------------
def test_stratified_folds_partition_and_stratify():
    _, y = _data()
    folds = stratified_folds(y, n_splits=5, random_state=3)
    assert len(folds) == 5
    tests = np.concatenate([te for _, te in folds])
    np.testing.assert_array_equal(np.sort(tests), np.arange(len(y)))
    for tr, te in folds:
        assert set(tr).isdisjoint(te) and len(tr) + len(te) == len(y)
        assert np.sum(y[te] == "pos") in (4, 5)  # 24 positives over 5 folds
    rep = stratified_folds(y, n_splits=3, n_repeats=2, random_state=0)
    assert len(rep) == 6
    with pytest.raises(ValueError, match="fewer than the 5 folds"):
        stratified_folds(np.array([0] * 10 + [1] * 3), n_splits=5)


def test_compare_estimators_uses_identical_folds():
    X, y = _data()
    SEEN.clear()
    ests = {
        "a": RecordingClassifier("a"),
        "b": RecordingClassifier("b", flip=2.0),
        "c": RecordingClassifier("c", flip=0.5),
    }
    calls = []
    comp = compare_estimators(
        ests,
        X,
        y,
        n_splits=4,
        random_state=5,
        progress=lambda done, total, msg: calls.append((done, total)),
    )
    expected = stratified_folds(y, 4, 1, 5)
    assert len(comp.folds) == 4
    for (tr, te), (etr, ete) in zip(comp.folds, expected, strict=True):
        np.testing.assert_array_equal(tr, etr)
        np.testing.assert_array_equal(te, ete)
    for name in ests:
        fits = [rows for n, kind, rows in SEEN if n == name and kind == "fit"]
        preds = [rows for n, kind, rows in SEEN if n == name and kind == "predict"]
        assert fits == [tuple(sorted(tr)) for tr, _ in expected]
        assert preds == [tuple(sorted(te)) for _, te in expected]
    # per-fold BER recomputed by hand for one estimator
    for k, (_, te) in enumerate(expected):
        pred = np.where(X[te, 1] + 2.0 * np.sin(X[te, 0]) > 0, "pos", "neg")
        assert comp.per_fold.loc[k, "b"] == pytest.approx(balanced_error_rate(y[te], pred))
    assert list(comp.per_fold.columns) == ["a", "b", "c"]
    assert calls[-1] == (12, 12) and len(calls) == 12
    assert set(comp.fit_seconds.index) == {"a", "b", "c"}
    pd.testing.assert_frame_equal(comp.summary, wilcoxon_against_best(comp.per_fold))


def test_compare_estimators_with_given_folds_and_dataframe():
    X, y = _data()
    frame = pd.DataFrame(X, columns=["id", "signal"], index=np.arange(100, 160))
    folds = [
        (np.r_[0:30, 50:60], np.arange(30, 50)),
        (np.arange(10, 50), np.r_[0:10, 50:60]),
    ]
    SEEN.clear()
    comp = compare_estimators({"a": RecordingClassifier("a")}, frame, y, folds=folds)
    assert [rows for _, kind, rows in SEEN if kind == "fit"] == [
        tuple(np.r_[0:30, 50:60]),
        tuple(range(10, 50)),
    ]
    assert [rows for _, kind, rows in SEEN if kind == "predict"] == [
        tuple(range(30, 50)),
        tuple(np.r_[0:10, 50:60]),
    ]
    assert comp.per_fold.shape == (2, 1)
    with pytest.raises(ValueError, match="at least one"):
        compare_estimators({}, X, y)


# ---------------------------------------------------------------------------------------------
# Wilcoxon against the best
# ---------------------------------------------------------------------------------------------
def test_wilcoxon_against_best_equals_scipy_with_bonferroni():
    rng = np.random.default_rng(2)
    n_folds = 10
    good = rng.uniform(0.10, 0.15, n_folds)
    wiggle = np.array([0.011, -0.010, 0.021, -0.020, 0.031, -0.030, 0.041, -0.040, 0.051, -0.05])
    per_fold = pd.DataFrame(
        {
            "good": good,
            "close": good + wiggle / 10,  # p ~ 0.85: Bonferroni x3 must cap at 1
            "bad": rng.uniform(0.25, 0.35, n_folds),
            "mid": rng.uniform(0.12, 0.20, n_folds),
        }
    )
    k = per_fold.shape[1]
    out = wilcoxon_against_best(per_fold, alpha=0.05)
    best = per_fold.mean().idxmin()
    assert out.index[0] == best and out.loc[best, "best"]
    assert np.isnan(out.loc[best, "p_value"]) and np.isnan(out.loc[best, "p_bonferroni"])
    assert out.loc[best, "tied_with_best"]
    assert list(out["mean"]) == sorted(per_fold.mean())
    for name in per_fold.columns.drop(best):
        diff = per_fold[name] - per_fold[best]
        p = stats.wilcoxon(diff, alternative="two-sided").pvalue
        assert out.loc[name, "p_value"] == pytest.approx(p, rel=1e-12)
        assert out.loc[name, "p_bonferroni"] == pytest.approx(min(1.0, p * (k - 1)), rel=1e-12)
        assert out.loc[name, "tied_with_best"] == (min(1.0, p * (k - 1)) >= 0.05)
        assert out.loc[name, "sd"] == pytest.approx(per_fold[name].std(ddof=1))
    assert not out.loc["bad", "tied_with_best"]  # 10/10 folds worse: p = 0.002, x3 < 0.05
    # the cap at 1: a p-value above 1/(k-1) becomes exactly 1
    capped = out["p_value"].dropna()
    assert (capped * (k - 1) > 1).any(), "the data must exercise the cap"
    assert out.loc[capped[capped * (k - 1) > 1].index, "p_bonferroni"].eq(1.0).all()


def test_wilcoxon_identical_columns_and_two_classifiers():
    per_fold = pd.DataFrame({"x": [0.1, 0.2, 0.3, 0.2, 0.1], "y": [0.1, 0.2, 0.3, 0.2, 0.1]})
    out = wilcoxon_against_best(per_fold)
    other = out.index[1]
    assert out.loc[other, "p_value"] == 1.0 and out.loc[other, "tied_with_best"]
    per_fold = pd.DataFrame(
        {"x": [0.1, 0.2, 0.3, 0.2, 0.1, 0.15], "y": [0.3, 0.25, 0.4, 0.3, 0.2, 0.31]}
    )
    out = wilcoxon_against_best(per_fold)
    p = stats.wilcoxon(per_fold["y"] - per_fold["x"]).pvalue
    assert out.loc["y", "p_bonferroni"] == pytest.approx(p)  # k - 1 = 1: no correction
