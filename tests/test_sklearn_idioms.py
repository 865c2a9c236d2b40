"""scikit-learn idioms on slb's estimators: SelectFromModel, GridSearchCV, Pipeline, clone,
pickling, and one ``coef_`` convention (shape (1, n_terms), names in ``terms_``)."""

import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.feature_selection import SelectFromModel
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from slb import SLBClassifier
from slb.evaluation.registry import CLASSIFIERS, make_classifier


@pytest.fixture(scope="module")
def signal_and_noise():
    """Features s0, s1 carry the class (a mean shift, and a class-specific dependence); n0..n3
    are the same standard normal noise in both classes."""
    rng = np.random.default_rng(3)
    n = 160
    y = np.repeat([0, 1], n // 2)
    s0 = rng.normal(size=n) + 1.2 * y
    s1 = np.where(y == 1, 0.9 * s0, 0.0) + rng.normal(size=n) - 1.0 * y
    noise = rng.normal(size=(n, 4))
    X = pd.DataFrame(np.column_stack([s0, s1, noise]), columns=["s0", "s1", "n0", "n1", "n2", "n3"])
    return X, np.where(y == 1, "pos", "neg")


def _slb():
    return SLBClassifier(threshold=0.02, C=1.0, random_state=0)


def test_feature_importances_come_from_coef(signal_and_noise):
    X, y = signal_and_noise
    # in-sample training features: the fit's feature map equals log_density_features(X)
    clf = SLBClassifier(threshold=0.02, C=1.0, training_features="insample").fit(X, y)
    contrib = clf.log_density_features(X) * clf.coef_[0]
    for f, name in enumerate(X.columns):
        mine = [t for t in clf.terms_ if name in t[t.index("(") + 1 : -1].split(", ")]
        spread = contrib[mine].sum(axis=1).std(ddof=0)
        assert clf.feature_importances_[f] == pytest.approx(spread, rel=1e-9)


@pytest.mark.parametrize("prefit", [False, True])
def test_select_from_model_keeps_the_signal(signal_and_noise, prefit):
    X, y = signal_and_noise
    model = _slb().fit(X, y) if prefit else _slb()
    sel = SelectFromModel(model, prefit=prefit, importance_getter="feature_importances_")
    sel.fit(X, y)  # with prefit=True: checks, and keeps the fitted model as it is
    if prefit:
        np.testing.assert_array_equal(sel.estimator_.coef_, model.coef_)
    kept = list(sel.get_feature_names_out())
    assert {"s0", "s1"} <= set(kept) and len(kept) < 6
    assert sel.transform(X).shape == (len(X), len(kept))
    # the same choice either way: fitting inside SelectFromModel is a plain fit
    ref = _slb().fit(X, y).feature_importances_
    assert kept == [c for c, v in zip(X.columns, ref, strict=True) if v >= ref.mean()]


def test_grid_search_pipeline_and_clone(signal_and_noise):
    X, y = signal_and_noise
    pipe = make_pipeline(StandardScaler(), _slb())
    grid = GridSearchCV(
        pipe, {"slbclassifier__threshold": [0.02, np.inf], "slbclassifier__C": [0.1, 1.0]}, cv=3
    ).fit(X, y)
    assert len(grid.cv_results_["params"]) == 4
    best = grid.best_estimator_[-1]
    assert best.coef_.shape == (1, best.n_terms_)
    p = grid.predict_proba(X)
    assert p.shape == (len(X), 2) and np.all((p > 0) & (p < 1))
    assert set(grid.predict(X)) <= {"neg", "pos"}
    twin = clone(pipe)
    assert twin.get_params()["slbclassifier__threshold"] == 0.02
    assert not hasattr(twin[-1], "coef_")


# The slb estimators of the catalogue: each a linear model of named terms.
_LINEAR = ("SLB", "SLB(Pearson)", "SLB-", "LU", "TAN", "NB", "Rényi", "DISCRETE")


@pytest.mark.parametrize("name", list(CLASSIFIERS))
def test_pickle_round_trip_and_coef_convention(signal_and_noise, name):
    X, y = signal_and_noise
    model = make_classifier(name, random_state=0).fit(X, y)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    if hasattr(model, "predict_proba"):
        np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))
    if name not in _LINEAR:
        return  # scikit-learn's own models and pipelines
    n_terms = len(model.terms_)
    assert model.coef_.shape == (1, n_terms) and model.coef_.dtype == np.float64
    assert model.intercept_.shape == (1,) and model.intercept_.dtype == np.float64
    assert all(isinstance(t, str) for t in model.terms_) and len(set(model.terms_)) == n_terms
    series = model.coef_series_
    assert list(series.index) == list(model.terms_)
    np.testing.assert_array_equal(series.to_numpy(), model.coef_[0])


def test_the_catalogue_lists_every_slb_estimator():
    slb_names = [n for n in CLASSIFIERS if type(make_classifier(n)).__module__.startswith("slb.")]
    assert sorted(slb_names) == sorted(_LINEAR)


def test_pickling_a_warm_model_keeps_its_cache(signal_and_noise):
    """The warm-start cache is left out of the pickle, but the pickled model keeps its own
    (object.__getstate__ returns the live __dict__ on Python >= 3.11)."""
    X, y = signal_and_noise
    model = SLBClassifier(threshold=0.02, C=1.0, warm_start=True, random_state=0).fit(X, y)
    assert hasattr(model, "_cache")
    restored = pickle.loads(pickle.dumps(model))
    assert hasattr(model, "_cache")
    assert not hasattr(restored, "_cache")
    np.testing.assert_array_equal(restored.predict(X), model.predict(X))
