"""SLBClassifierCV (issue 30 item 8, docs/estimator-shape.md): SLB with lambda and C always
selected, reported under GridSearchCV's names."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import GridSearchCV
from sklearn.utils.estimator_checks import parametrize_with_checks

from slb import SLBClassifier
from slb.model.cv import SLBClassifierCV, grid_search_results


def _data(n=120, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] * X[:, 1] + 0.5 * X[:, 2] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


@pytest.fixture(scope="module")
def fitted():
    X, y = _data()
    cv = SLBClassifierCV(Cs=[0.1, 1.0], random_state=0, probability=False).fit(X, y)
    ref = SLBClassifier(Cs=[0.1, 1.0], random_state=0, probability=False).fit(X, y)
    return X, y, cv, ref


def test_same_fit_as_slbclassifier_defaults(fitted):
    X, _, cv, ref = fitted
    assert SLBClassifierCV().get_params()["threshold"] == SLBClassifier().threshold == "cv"
    np.testing.assert_array_equal(cv.decision_function(X), ref.decision_function(X))
    assert (cv.threshold_, cv.best_index_) == (ref.threshold_, ref.best_index_)
    np.testing.assert_equal(cv.C_, ref.C_)  # NaN when naive Bayes or TAN was chosen
    for k, v in ref.cv_results_.items():  # SLB's own keys are kept as they are
        np.testing.assert_array_equal(cv.cv_results_[k], v)


def test_grid_search_cv_names(fitted):
    X, y, cv, _ = fitted
    res = cv.cv_results_
    # the names GridSearchCV itself gives (a reference fit), timing keys aside
    gs = GridSearchCV(
        LogisticRegression(), {"C": [0.1, 1.0]}, scoring="balanced_accuracy", cv=5
    ).fit(X, y)
    names = {k for k in gs.cv_results_ if "time" not in k and not k.startswith("param_")}
    assert names <= set(res), names - set(res)
    assert {"param_C", "param_fraction"} <= set(res)
    n = len(res["mean_ber"])
    # 10 fractions x 2 costs, then naive Bayes and TAN (SLB's generative candidates)
    assert n == 22 and len(res["params"]) == n
    assert res["params"][0] == {
        "fraction": float(res["param_fraction"][0]),
        "C": 0.1,
        "model": "slb",
    }
    assert [p["model"] for p in res["params"][20:]] == ["naive_bayes", "tan"]
    np.testing.assert_allclose(res["mean_test_score"], 1 - res["mean_ber"])
    splits = [res[f"split{k}_test_score"] for k in range(5)]
    np.testing.assert_allclose(np.mean(splits, axis=0), res["mean_test_score"])
    # larger is better, as in GridSearchCV; best_score_ is the chosen row's score (with
    # selection="min" the chosen row has rank 1 and the best score)
    assert cv.best_score_ == res["mean_test_score"][cv.best_index_]
    assert cv.best_params_ == res["params"][cv.best_index_]
    np.testing.assert_equal(cv.best_params_["C"], cv.C_)
    lo = SLBClassifierCV(Cs=[0.1, 1.0], selection="min", random_state=0, probability=False)
    lo.fit(X, y)
    assert lo.cv_results_["rank_test_score"][lo.best_index_] == 1
    assert lo.best_score_ == pytest.approx(lo.cv_results_["mean_test_score"].max())


def test_score_is_balanced_accuracy():
    # on a constant-prediction split the BER is 0.5 and balanced_accuracy_score is 0.5 too
    y = np.array([0, 0, 1, 1, 1])
    assert balanced_accuracy_score(y, np.ones(5, int)) == 0.5
    res = grid_search_results(
        {
            "param_C": np.array([1.0]),
            "mean_ber": np.array([0.5]),
            "std_ber": np.array([0.0]),
            "split0_ber": np.array([0.5]),
            "rank_ber": np.array([1]),
        }
    )
    assert res["mean_test_score"][0] == 0.5 and res["params"] == [{"C": 1.0}]


@pytest.mark.parametrize("params", [{"threshold": 0.01}, {"C": 1.0}, {"threshold": "fdr"}])
def test_fixed_values_are_refused(params):
    X, y = _data(n=40)
    with pytest.raises(ValueError, match="threshold|C"):
        SLBClassifierCV(**params).fit(X, y)


def test_clone_and_params():
    est = SLBClassifierCV(Cs=[1.0], thresholds=[0.1, 0.01], random_state=3)
    twin = clone(est)
    assert twin.get_params() == est.get_params()
    assert {"thresholds", "Cs", "cv", "pair_rule"} <= set(est.get_params())


def test_too_few_rows_to_select():
    X, y = _data(n=12)
    y[:] = 0
    y[:2] = 1  # two rows of a class: an inner split would leave one to train on
    clf = SLBClassifierCV(Cs=[0.1, 1.0], random_state=0, probability=False).fit(X, y)
    assert clf.cv_results_ is None and np.isnan(clf.best_score_)
    assert clf.best_params_ == {"C": clf.C_, "threshold": clf.threshold_}


@pytest.mark.slow
@parametrize_with_checks(
    [SLBClassifierCV(Cs=[0.1, 1.0], probability=False, random_state=0)],
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
