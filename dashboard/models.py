"""The classifiers the Compare page offers: ONE registry, :data:`CLASSIFIERS`.

To add a classifier, add an entry (name -> :class:`ModelSpec`).  ``make(density_params,
seed)`` returns an unfitted scikit-learn estimator; ``uses_density`` says whether it uses the
shared KDE settings (then its cached BER is keyed on them); ``default`` puts it in the
comparison from the start.  SLB itself is evaluated through :class:`slb.ThresholdPath` (so λ
moves fast) and has ``make=None``.

Optional classifiers (``slb.renyi.RenyiClassifier``, ``slb.discrete_map.DiscreteMAPClassifier``)
are added when their modules import; their ``student_summary`` is shown on the page.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from sklearn.ensemble import RandomForestClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from slb import ForestDensityClassifier, KDENaiveBayes, LUClassifier, TANClassifier

_LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class ModelSpec:
    """How to build and describe one classifier of the comparison."""

    make: Callable[[dict, int], object] | None
    uses_density: bool
    default: bool
    summary: str


def _slb_density(cls):
    return lambda dens, seed: cls(random_state=seed, **dens)


_BASE = {
    "SLB": ModelSpec(
        None,
        True,
        True,
        "Sparse Log-Bivariate: linear SVM on the log-densities of every feature and of the pairs "
        "whose dependence reaches λ.",
    ),
    "TAN": ModelSpec(
        lambda dens, seed: TANClassifier(**dens),
        True,
        True,
        "Tree-augmented naive Bayes: per class, a Chow-Liu tree of KDE densities.",
    ),
    "NB": ModelSpec(
        lambda dens, seed: KDENaiveBayes(**dens),
        True,
        True,
        "Naive Bayes with the same univariate KDEs as SLB (balanced priors).",
    ),
    "LU": ModelSpec(
        _slb_density(LUClassifier),
        True,
        False,
        "Linear SVM on the univariate log-densities only (SLB without pairs).",
    ),
    "SLB-": ModelSpec(
        _slb_density(ForestDensityClassifier),
        True,
        False,
        "SLB without screening: every pair (the forest density classifier).",
    ),
    "Gaussian NB": ModelSpec(
        lambda dens, seed: GaussianNB(),
        False,
        False,
        "Naive Bayes with one Gaussian per feature and class.",
    ),
    "RF": ModelSpec(
        lambda dens, seed: make_pipeline(
            StandardScaler(),
            RandomForestClassifier(n_estimators=50, max_features="sqrt", random_state=seed),
        ),
        False,
        False,
        "Random forest, 50 trees, √d features per split (standardised data).",
    ),
    "SVM (RBF)": ModelSpec(
        lambda dens, seed: make_pipeline(
            StandardScaler(), SVC(kernel="rbf", class_weight="balanced")
        ),
        False,
        False,
        "Gaussian-kernel SVM on standardised data (balanced class weights).",
    ),
    "5NN": ModelSpec(
        lambda dens, seed: make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=5)),
        False,
        False,
        "5 nearest neighbours on standardised data.",
    ),
}

#: Optional classifiers: registry name -> (module, class name).
OPTIONAL = {
    "Rényi": ("slb.renyi", "RenyiClassifier"),
    "DISCRETE": ("slb.discrete_map", "DiscreteMAPClassifier"),
}


def _optional_specs() -> dict[str, ModelSpec]:
    out = {}
    for name, (module, cls_name) in OPTIONAL.items():
        try:
            cls = getattr(importlib.import_module(module), cls_name)
        except Exception:  # the module is not there (yet) or broken: leave it out
            _LOG.info("Optional classifier %s not available", name)
            continue

        def make(dens, seed, _cls=cls):
            try:
                return _cls(random_state=seed)
            except TypeError:
                return _cls()

        summary = str(getattr(cls, "student_summary", "") or cls.__doc__.splitlines()[0])
        out[name] = ModelSpec(make, False, False, summary)
    return out


#: name -> ModelSpec, built once at import time; read-only.
CLASSIFIERS: Mapping[str, ModelSpec] = MappingProxyType({**_BASE, **_optional_specs()})
DEFAULT_MODELS = tuple(n for n, s in CLASSIFIERS.items() if s.default)
OPTIONAL_MODELS = tuple(n for n, s in CLASSIFIERS.items() if not s.default)
