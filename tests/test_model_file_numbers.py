"""Fitted numbers a model file could carry that the checks once let through (H53).

Each case fits a small model, alters one fitted number in memory the way an edited file would
carry it, saves and loads: :func:`slb.persistence.load_model` must refuse the file with a
``ValueError`` naming the attribute.  The unaltered file loads (the checks do not refuse a
real model).
"""

from __future__ import annotations

import io

import numpy as np
import pytest

from slb import DiscreteMAPClassifier, KDENaiveBayes, SLBClassifier, TANClassifier
from slb.persistence import load_model, save_model


def _data(d=4, n=60):
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, d)) + 0.8 * y[:, None]
    X[:, 1] += X[:, 0]
    return X, y


def _roundtrip(model):
    buf = io.BytesIO()
    save_model(model, buf)
    return load_model(buf.getvalue())


def _nb_floor_zero(m):
    m.transformer_._kde.floor1[:] = 0.0  # predict_proba returned NaN (H53)


def _nb_floor2_scaled(m):
    m.transformer_._kde.floor2 *= 10.0


def _slb_scores_shape(m):
    m.pair_scores_ = m.pair_scores_[:-1]


def _slb_scores_inf(m):
    m.pair_scores_ = m.pair_scores_.copy()
    m.pair_scores_[0] = np.inf


def _slb_candidates(m):
    m.n_candidate_pairs_ = 7  # 4 features have 6 pairs


def _slb_threshold(m):
    m.threshold_ = -1.0


def _slb_terms_twice(m):
    m.terms_ = m.terms_.copy()
    m.terms_[1] = m.terms_[0]


def _tan_mi(m):
    m.mutual_info_ = m.mutual_info_.copy()
    m.mutual_info_[0, 0, 1] = m.mutual_info_[0, 1, 0] = 1e200


def _tan_mi_tree(m):
    # symmetric and in range, but another tree: the shown trees would not be the model's
    mi = m.mutual_info_.copy()
    mi[0] = mi[0].max() + 1.0 - mi[0]
    np.fill_diagonal(mi[0], 0.0)
    m.mutual_info_ = mi


def _discrete_energy(m):
    m.energies_ = m.energies_.copy()
    m.energies_[0] = np.nan


def _discrete_grid(m):
    m.weight_grid_ = m.weight_grid_[:-1]


CASES = {
    "NB floor1 = 0": (KDENaiveBayes, _nb_floor_zero, "floor1"),
    "NB floor2 x 10": (KDENaiveBayes, _nb_floor2_scaled, "floor2"),
    "SLB pair_scores_ shape": (SLBClassifier, _slb_scores_shape, "pair_scores_"),
    "SLB pair_scores_ inf": (SLBClassifier, _slb_scores_inf, "pair_scores_"),
    "SLB n_candidate_pairs_": (SLBClassifier, _slb_candidates, "n_candidate_pairs_"),
    "SLB threshold_ -1": (SLBClassifier, _slb_threshold, "threshold_"),
    "SLB terms_ twice": (SLBClassifier, _slb_terms_twice, "terms_"),
    "TAN mutual_info_ 1e200": (TANClassifier, _tan_mi, "mutual_info_"),
    "TAN mutual_info_ other tree": (TANClassifier, _tan_mi_tree, "trees_"),
    "DISCRETE energies_ NaN": (DiscreteMAPClassifier, _discrete_energy, "energies_"),
    "DISCRETE weight_grid_": (DiscreteMAPClassifier, _discrete_grid, "weight_grid_"),
}


def _fit(cls):
    X, y = _data()
    if cls is SLBClassifier:
        return cls(threshold="cv", cv=3, random_state=0).fit(X, y)
    if cls is DiscreteMAPClassifier:
        return cls(n_chains=2, random_state=0).fit(X, y)
    return cls().fit(X, y)


@pytest.mark.parametrize("case", list(CASES))
def test_an_altered_fitted_number_is_refused(case):
    cls, alter, attr = CASES[case]
    model = _fit(cls)
    X, _ = _data()
    before = _roundtrip(model).predict_proba(X)  # the real file loads and answers
    assert np.isfinite(before).all()
    alter(model)
    with pytest.raises(ValueError, match=attr):
        _roundtrip(model)


@pytest.mark.parametrize(
    "model, words",
    [
        ("x", "got str"),
        (None, "got NoneType"),
        (KDENaiveBayes(), "KDENaiveBayes was never fitted"),
    ],
)
def test_save_model_refuses_what_load_model_would(model, words):
    """H53: these were written, and every load of the file failed."""
    with pytest.raises(ValueError, match=words):
        save_model(model, io.BytesIO())
    from sklearn.pipeline import Pipeline

    from slb import TableCleaner

    with pytest.raises(ValueError, match="'passthrough' is not a model"):
        save_model(Pipeline([("s", "passthrough"), ("nb", _fit(KDENaiveBayes))]), io.BytesIO())
    with pytest.raises(ValueError, match="TableCleaner was never fitted"):
        save_model(
            Pipeline([("clean", TableCleaner("y")), ("nb", _fit(KDENaiveBayes))]), io.BytesIO()
        )


def test_a_selected_special_case_with_a_threshold_grid_loads():
    """H55: with naive Bayes or TAN selected, threshold_ is inf, outside the thresholds grid,
    and the new check refused the file of a correctly fitted model."""
    rng = np.random.default_rng(0)
    for seed in range(12):
        X = rng.normal(size=(40, 3))
        y = np.repeat([0, 1], 20)
        m = SLBClassifier(thresholds=[0.0, 0.1], random_state=seed).fit(X, y)
        if m.selected_model_ != "slb":
            break
    assert m.selected_model_ != "slb" and m.threshold_ == np.inf
    np.testing.assert_array_equal(_roundtrip(m).predict_proba(X), m.predict_proba(X))
    # a fixed threshold with C selected: the same
    m = SLBClassifier(threshold=0.05, random_state=seed).fit(X, y)
    assert m.selected_model_ != "slb" or m.threshold_ == 0.05
    np.testing.assert_array_equal(_roundtrip(m).predict_proba(X), m.predict_proba(X))
