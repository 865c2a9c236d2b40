"""One registry of classifiers: the dashboard, the experiments and the catalogue agree by name."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import is_classifier

from dashboard import models
from slb import experiments
from slb.evaluation.registry import CLASSIFIERS, make_classifier, resolve_name
from slb.model.classifier import SLBClassifier

DENS = {"bandwidth": "scott", "bandwidth_multiplier": 1.3, "bandwidth_overrides": {0: 0.7}}


def _params(est) -> str:
    return repr(sorted(est.get_params(deep=True).items(), key=lambda kv: kv[0]))


@pytest.mark.parametrize("name", list(CLASSIFIERS))
def test_every_builder_gives_the_same_estimator(name):
    cat = make_classifier(name, random_state=7, **DENS)
    exp = experiments.make_estimator(name, random_state=7, density_params=DENS)
    assert is_classifier(cat)
    assert _params(exp) == _params(cat)
    if name in models.CLASSIFIERS:
        dash = models.CLASSIFIERS[name].make(DENS, 7)
        assert _params(dash) == _params(cat)
        assert models.CLASSIFIERS[name].uses_density == CLASSIFIERS[name].uses_densities


def test_dashboard_offers_catalogue_names_only():
    assert set(models.CLASSIFIERS) <= set(CLASSIFIERS)
    assert models.DEFAULT_MODELS[0] == "SLB"  # the Compare page reads SLB from the λ path
    # every catalogue entry but SLB(Pearson) (a page control there) is on the page
    assert set(CLASSIFIERS) - set(models.CLASSIFIERS) == {"SLB(Pearson)"}


def test_experiments_accept_the_catalogue_and_nothing_else():
    assert experiments.classifier_names() == list(CLASSIFIERS)
    assert not hasattr(experiments, "EXTRA_CLASSIFIERS")
    for name in ("SVM(linear)", "Rényi", "DISCRETE", "Gaussian NB", "SVM(RBF, balanced)"):
        assert name in CLASSIFIERS
    with pytest.raises(ValueError, match="Unknown classifier"):
        make_classifier("SVM (RBF) typo")


def test_density_settings_reach_density_models_only():
    for name, info in CLASSIFIERS.items():
        params = make_classifier(name, random_state=0, **DENS).get_params()
        if info.uses_densities:
            assert params["bandwidth"] == "scott" and params["bandwidth_multiplier"] == 1.3
        else:
            assert "bandwidth_multiplier" not in params


def test_slb_is_built_with_its_own_defaults():
    """The registry fixes neither C nor the threshold: SLB's defaults are the estimator's."""
    built = make_classifier("SLB", random_state=3).get_params()
    default = SLBClassifier(random_state=3).get_params()
    assert repr(sorted(built.items())) == repr(sorted(default.items()))


def test_svm_rbf_is_the_papers_e1071_default():
    """Table 4's SVM: standardised inputs, C = 1, gamma = 1/d, no class weights.  The
    dashboard's "SVM (RBF)" had balanced class weights (25.8 % against 29.1 % BER on Pima)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5)) * [1, 10, 100, 0.1, 3]
    y = np.r_[np.zeros(45), np.ones(15)]
    svm = make_classifier("SVM(RBF)").fit(X, y)[-1]
    assert svm.C == 1.0 and svm.class_weight is None
    assert svm._gamma == pytest.approx(1 / 5)
    balanced = make_classifier("SVM(RBF, balanced)").fit(X, y)[-1]
    assert balanced.class_weight == "balanced"
    assert balanced.class_weight_ == pytest.approx([60 / (2 * 45), 60 / (2 * 15)])


@pytest.mark.parametrize(
    ("spelling", "name"),
    [
        ("svm-rbf", "SVM(RBF)"),
        ("SVM (RBF)", "SVM(RBF)"),
        ("svm rbf balanced", "SVM(RBF, balanced)"),
        ("renyi", "Rényi"),
        ("Renyi", "Rényi"),
        ("slb_pearson", "SLB(Pearson)"),
        ("SLB-", "SLB-"),
        ("slb", "SLB"),
        ("gaussian-nb", "Gaussian NB"),
        ("nonsense", "nonsense"),
    ],
)
def test_resolve_name(spelling, name):
    assert resolve_name(spelling) == name
