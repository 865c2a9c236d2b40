"""Behaviour tests of slb.evaluation: BER by hand, identical folds, the corrected resampled t-test
(+ Holm) against hand computations and under a null simulation, Wilcoxon + Bonferroni,
Friedman / Nemenyi against Demšar (2006)."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import make_classification
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression

from slb.evaluation import (
    TEST_NAMES,
    balanced_error_rate,
    compare_estimators,
    corrected_resampled_ttest,
    corrected_t_against_best,
    friedman_nemenyi,
    holdout_ratio,
    holm_adjust,
    nemenyi_q,
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
    ratio = holdout_ratio(expected)
    pd.testing.assert_frame_equal(comp.summary, corrected_t_against_best(comp.per_fold, ratio))
    assert comp.test == TEST_NAMES["corrected_t"] == comp.summary.attrs["test"]
    wil = compare_estimators(ests, X, y, n_splits=4, random_state=5, test="wilcoxon")
    pd.testing.assert_frame_equal(wil.summary, wilcoxon_against_best(wil.per_fold))
    assert wil.test == TEST_NAMES["wilcoxon"] == wil.summary.attrs["test"]
    with pytest.raises(ValueError, match="Unknown test"):
        compare_estimators(ests, X, y, test="t")


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


# ---------------------------------------------------------------------------------------------
# Nadeau–Bengio corrected resampled t-test + Holm
# ---------------------------------------------------------------------------------------------
SMALL = pd.DataFrame(
    {
        "A": [0.10, 0.12, 0.11, 0.09, 0.13, 0.10],
        "B": [0.14, 0.15, 0.12, 0.13, 0.16, 0.15],
        "C": [0.11, 0.11, 0.13, 0.10, 0.12, 0.12],
    }
)


def _hand_corrected_t(d, ratio):
    """The formula of Nadeau & Bengio (2003), written out with plain sums."""
    J = len(d)
    mean = sum(d) / J
    var = sum((x - mean) ** 2 for x in d) / (J - 1)
    t = mean / ((1 / J + ratio) * var) ** 0.5
    return t, 2 * stats.t.sf(abs(t), J - 1)


def test_corrected_t_matches_the_formula_by_hand():
    ratio = 0.25
    out = corrected_t_against_best(SMALL, ratio, alpha=0.05)
    assert out.attrs["test"] == TEST_NAMES["corrected_t"]
    assert list(out.index) == ["A", "C", "B"] and out.loc["A", "best"]
    p = {}
    for name in ["B", "C"]:
        d = list(SMALL[name] - SMALL["A"])
        t, p[name] = _hand_corrected_t(d, ratio)
        assert out.loc[name, "t"] == pytest.approx(t, rel=1e-12)
        assert out.loc[name, "p_value"] == pytest.approx(p[name], rel=1e-10)
    # B - A = .04 .03 .01 .04 .03 .05: mean 1/30, var 2.8e-4 / 1.5 -> t = 3.78 on 5 df
    assert out.loc["B", "t"] == pytest.approx(3.78, abs=0.005)
    # Holm with two comparisons: the smaller p doubled, the larger one kept (monotone)
    lo, hi = sorted(p, key=p.get)
    assert out.loc[lo, "p_adjusted"] == pytest.approx(min(1, 2 * p[lo]), rel=1e-10)
    assert out.loc[hi, "p_adjusted"] == pytest.approx(max(min(1, 2 * p[lo]), p[hi]), rel=1e-10)
    for name in ["B", "C"]:
        assert out.loc[name, "tied_with_best"] == (out.loc[name, "p_adjusted"] >= 0.05)
    assert not out.loc["B", "tied_with_best"] and out.loc["C", "tied_with_best"]
    assert np.isnan(out.loc["A", ["t", "p_value", "p_adjusted"]].astype(float)).all()
    # without the correction term it is the plain paired t-test
    t0, p0 = corrected_resampled_ttest(SMALL["B"] - SMALL["A"], 0.0)
    ref = stats.ttest_rel(SMALL["B"], SMALL["A"])
    assert (t0, p0) == pytest.approx((ref.statistic, ref.pvalue), rel=1e-10)


def test_holm_by_hand():
    p = [0.01, np.nan, 0.04, 0.03, 0.5]
    adj = holm_adjust(p)
    # m = 4 finite p-values, sorted 0.01, 0.03, 0.04, 0.5
    expected = [4 * 0.01, np.nan, max(3 * 0.03, 2 * 0.04), 3 * 0.03, min(1, max(0.09, 0.5))]
    np.testing.assert_allclose(adj, expected, rtol=1e-12)
    assert holm_adjust([0.9, 0.8]).tolist() == [1.0, 1.0]  # capped
    assert np.isnan(holm_adjust([np.nan])).all()


def test_corrected_t_when_no_test_is_possible():
    same = pd.DataFrame({"x": [0.1, 0.2, 0.3], "y": [0.1, 0.2, 0.3]})
    out = corrected_t_against_best(same, 0.25)
    assert out[["t", "p_value", "p_adjusted"]].isna().all().all()
    assert out["tied_with_best"].all()
    one = corrected_t_against_best(pd.DataFrame({"x": [0.1], "y": [0.3]}), 0.25)
    assert one.loc["y", ["sd", "t", "p_value"]].isna().all() and one.loc["y", "tied_with_best"]
    # a constant, non-zero difference: infinitely significant, not NaN
    shift = pd.DataFrame({"x": [0.1, 0.2, 0.3], "y": [0.2, 0.3, 0.4]})
    out = corrected_t_against_best(shift, 0.25)
    assert out.loc["y", "t"] == np.inf and out.loc["y", "p_value"] == 0.0
    assert not out.loc["y", "tied_with_best"]
    with pytest.raises(ValueError, match="NaN"):
        corrected_t_against_best(pd.DataFrame({"x": [0.1, np.nan]}), 0.25)
    with pytest.raises(ValueError, match="test_train_ratio"):
        corrected_resampled_ttest([0.1, 0.2], -1.0)


def test_holdout_ratio():
    _, y = _data()
    assert holdout_ratio(stratified_folds(y, 5, 2)) == pytest.approx(12 / 48)
    assert holdout_ratio([(np.arange(30), np.arange(30, 40))]) == pytest.approx(1 / 3)


def _easy_problem():
    X, y = make_classification(
        n_samples=200, n_features=5, n_informative=3, class_sep=2.0, random_state=0
    )
    return X, y


def test_corrected_t_rejects_a_constant_predictor_on_5x5_cv():
    X, y = _easy_problem()
    ests = {
        "logistic": LogisticRegression(),
        "constant": DummyClassifier(strategy="most_frequent"),
    }
    comp = compare_estimators(ests, X, y, n_splits=5, n_repeats=5, random_state=0)
    s = comp.summary
    assert len(comp.per_fold) == 25 and s.index[0] == "logistic"
    assert s.loc["constant", "mean"] == pytest.approx(0.5)
    assert s.loc["constant", "p_adjusted"] < 0.05 and not s.loc["constant", "tied_with_best"]
    # the paper's protocol on 5 folds cannot reject: its smallest two-sided p is 2/2^5
    wil = compare_estimators(ests, X, y, n_splits=5, random_state=0, test="wilcoxon")
    assert wil.summary.loc["constant", "p_bonferroni"] == pytest.approx(0.0625)
    assert wil.summary.loc["constant", "tied_with_best"]


def test_corrected_t_does_not_reject_identical_classifiers():
    X, y = _easy_problem()
    ests = {"a": LogisticRegression(), "b": LogisticRegression()}
    comp = compare_estimators(ests, X, y, n_splits=5, n_repeats=5, random_state=1)
    assert comp.summary["tied_with_best"].all()
    other = comp.summary.index[~comp.summary["best"]][0]
    assert np.isnan(comp.summary.loc[other, "p_value"])


def _null_tables(n_rep, n=100, n_splits=5, n_repeats=5, p_err=0.25, seed=0):
    """Per-fold BER tables of two classifiers with the same expected BER (``p_err``).

    Each replication draws a new data set: independent per-row error indicators for both
    classifiers.  The folds are the same repeated stratified K-fold for every replication (the
    rows are exchangeable), so the 25 per-fold BERs overlap as in a real 5 x 5 CV.
    """
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    folds = stratified_folds(y, n_splits, n_repeats, random_state=seed)
    # weights: BER of a fold = mean error over its negatives and positives, averaged
    W = np.zeros((len(folds), n))
    for j, (_, te) in enumerate(folds):
        for c in (0, 1):
            rows = te[y[te] == c]
            W[j, rows] = 0.5 / rows.size
    err = rng.random((2, n, n_rep)) < p_err
    return W @ err[0], W @ err[1], holdout_ratio(folds)  # (J, n_rep) each


def test_corrected_t_keeps_its_level_under_the_null():
    n_rep, alpha = 2000, 0.05
    a, b, ratio = _null_tables(n_rep)
    d = b - a
    p = np.array([corrected_resampled_ttest(d[:, r], ratio)[1] for r in range(n_rep)])
    rate = np.mean(p < alpha)
    # Nadeau & Bengio's correction is conservative here (about 0.02); binomial sd at 0.05 is 0.005
    assert rate < alpha + 0.02, rate
    # the tests the reviewer flagged do exceed the level on the same tables (overlapping folds)
    naive = np.mean(stats.ttest_rel(b, a, axis=0).pvalue < alpha)
    wilcoxon = np.mean(stats.wilcoxon(d, axis=0, zero_method="zsplit").pvalue < alpha)
    assert naive > 3 * alpha and wilcoxon > 3 * alpha, (naive, wilcoxon)


# ---------------------------------------------------------------------------------------------
# Friedman / Nemenyi across data sets
# ---------------------------------------------------------------------------------------------
# Demšar (2006), Table 6: the ranks printed in parentheses (AUC of four C4.5 variants on 14
# data sets; lower rank = better).
DEMSAR_NAMES = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
DEMSAR_RANKS = np.array(
    [
        [4, 3, 2, 1],
        [1, 2, 3, 4],
        [4, 1, 2, 3],
        [4, 1, 3, 2],
        [4, 2, 3, 1],
        [1, 2.5, 4, 2.5],
        [3, 2, 4, 1],
        [2.5, 2.5, 4, 1],
        [4, 3, 2, 1],
        [2.5, 2.5, 2.5, 2.5],
        [4, 2.5, 1, 2.5],
        [3, 2, 4, 1],
        [4, 1, 2, 3],
        [3, 1, 4, 2],
    ]
)


def _hand_friedman(ranks):
    """Friedman's chi-square with the tie correction (as in scipy), from the rank table."""
    N, k = ranks.shape
    R = ranks.sum(axis=0)
    chi2 = 12 / (N * k * (k + 1)) * np.sum(R**2) - 3 * N * (k + 1)
    ties = sum(t**3 - t for row in ranks for t in np.unique(row, return_counts=True)[1])
    return chi2 / (1 - ties / (N * k * (k**2 - 1)))


def test_friedman_nemenyi_on_demsars_worked_example():
    table = pd.DataFrame(DEMSAR_RANKS, columns=DEMSAR_NAMES)
    res = friedman_nemenyi(table, alpha=0.05)
    # average ranks as printed: 3.143, 2.000, 2.893, 1.964
    expected = {"C4.5": 3.143, "C4.5+m": 2.000, "C4.5+cf": 2.893, "C4.5+m+cf": 1.964}
    for name, r in expected.items():
        assert res.ranks[name] == pytest.approx(r, abs=5e-4)
    assert list(res.ranks.index) == ["C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5"]
    # Demšar's chi2_F = 9.28 is the formula without the tie correction
    N, k = DEMSAR_RANKS.shape
    plain = 12 * N / (k * (k + 1)) * (np.sum(res.ranks**2) - k * (k + 1) ** 2 / 4)
    assert plain == pytest.approx(9.28, abs=0.01)
    assert res.statistic == pytest.approx(_hand_friedman(DEMSAR_RANKS), rel=1e-12)
    assert res.p_value == pytest.approx(stats.chi2.sf(res.statistic, k - 1), rel=1e-10)
    ff = (N - 1) * res.statistic / (N * (k - 1) - res.statistic)
    assert res.iman_davenport == pytest.approx(ff, rel=1e-12)
    assert res.iman_davenport_p == pytest.approx(stats.f.sf(ff, 3, 39), rel=1e-10)
    # CD = 2.569 sqrt(4 * 5 / (6 * 14)) = 1.25: no pair differs, one group
    assert res.q_alpha == pytest.approx(2.569, abs=1e-3)
    assert res.cd == pytest.approx(1.25, abs=5e-3)
    assert res.groups == [("C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5")]
    # at 0.10, CD = 2.291 sqrt(20/84) = 1.12: C4.5 is worse than C4.5+m and C4.5+m+cf and
    # C4.5+cf belongs to both groups (Demšar's Figure 1a)
    res10 = friedman_nemenyi(table, alpha=0.10)
    assert res10.q_alpha == pytest.approx(2.291, abs=1e-3)
    assert res10.cd == pytest.approx(1.12, abs=5e-3)
    assert res10.groups == [("C4.5+m+cf", "C4.5+m", "C4.5+cf"), ("C4.5+cf", "C4.5")]


def test_friedman_on_a_small_table_without_ties():
    # BERs of 3 classifiers on 4 data sets; ranks (1 = lowest BER) by hand:
    table = pd.DataFrame(
        {
            "a": [0.10, 0.20, 0.15, 0.30],
            "b": [0.12, 0.25, 0.14, 0.35],
            "c": [0.20, 0.30, 0.25, 0.40],
        }
    )
    ranks = np.array([[1, 2, 3], [1, 2, 3], [2, 1, 3], [1, 2, 3]])
    res = friedman_nemenyi(table)
    np.testing.assert_allclose(res.ranks[["a", "b", "c"]], [1.25, 1.75, 3.0])
    # 12 N / (k (k+1)) [sum R^2 - k (k+1)^2 / 4] = 4 * (1.5625 + 3.0625 + 9 - 12) = 6.5
    assert res.statistic == pytest.approx(6.5, rel=1e-12)
    assert res.statistic == pytest.approx(_hand_friedman(ranks), rel=1e-12)
    assert res.p_value == pytest.approx(np.exp(-6.5 / 2), rel=1e-10)  # chi2 with 2 df
    # CD = 2.343 sqrt(3 * 4 / 24) = 1.657: a-c differ by 1.75, b-c by 1.25
    assert res.cd == pytest.approx(2.3437 * np.sqrt(0.5), abs=1e-3)
    assert res.groups == [("a", "b"), ("b", "c")]


def test_nemenyi_q_matches_demsar_table_5():
    table5 = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
    for k, q in zip(range(2, 11), table5, strict=True):
        assert nemenyi_q(k, 0.05) == pytest.approx(q, abs=1.5e-3)


def test_friedman_bad_input():
    with pytest.raises(ValueError, match="at least 3 classifiers"):
        friedman_nemenyi(pd.DataFrame({"a": [0.1, 0.2], "b": [0.2, 0.3]}))
    with pytest.raises(ValueError, match="at least 2 data sets"):
        friedman_nemenyi(pd.DataFrame({"a": [0.1], "b": [0.2], "c": [0.3]}))
    with pytest.raises(ValueError, match="NaN"):
        friedman_nemenyi(pd.DataFrame({"a": [0.1, np.nan], "b": [0.2, 0.1], "c": [0.3, 0.2]}))
    with pytest.raises(ValueError, match="at least 2 classifiers"):
        nemenyi_q(1)
