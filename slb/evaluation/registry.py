"""Every classifier of the project by name: the ONE registry.

The dashboard (``dashboard/models.py``), the experiments (``python -m slb.experiments``) and the
benchmarks all build their classifiers here, so one name always means one estimator.
``make_classifier(name, random_state, **density_params)`` returns a fresh, unfitted estimator;
the density-based ones (SLB, SLB(Pearson), SLB-, LU, TAN, NB) take the shared bandwidth settings,
so every model on every page and in every experiment sees the same densities.  SLB is built with
its own defaults (C, threshold): the registry fixes none of them.

RF, SVM(RBF) and 5NN follow the SLB paper's section 5: 50 trees with sqrt(d) features per split;
the RBF SVM is e1071's default (C = 1, gamma = 1/d on standardised inputs, no class weights, the
setting behind the paper's Table 4); 5NN on standardised data.  ``SVM(RBF, balanced)`` is the
same SVM with balanced class weights (it aims at the balanced error rate, as SLB's own SVM does).
Until issue 12 the Compare page built its "SVM (RBF)" with balanced weights and the command line
without, hence 25.8 % against 29.1 % BER on Pima under one name; now they are two names.
``SVM(linear)`` is the DISCRETE paper's comparator (hinge loss, C = 1, standardised inputs).

Probabilities and labels follow one convention, ``docs/probabilities.md``: ``predict_proba``
estimates ``P(y | x)`` at the training class frequencies, and ``predict`` is the Bayes rule of
the priors named by :attr:`ClassifierInfo.rule`: ``"balanced"`` (equal priors, the rule of the
balanced error rate: ``argmax proba_c / prevalence_c``, the product's classifiers, which expose
``training_prevalence_`` and ``decision_prior_``) or ``"prevalence"`` (``argmax proba``: the
literature's random forest, 5NN, Gaussian naive Bayes, Rényi and DISCRETE, kept as their papers
ran them).  :func:`slb.probabilities.balanced_predict` and
:func:`slb.probabilities.prevalence_predict` give the other rule from the same probabilities.
The SVMs of the literature have no ``predict_proba`` (``rule`` None).

Names are matched exactly by :func:`make_classifier`; :func:`resolve_name` also accepts
spellings that differ in case, spaces, brackets, hyphens, underscores or accents
(``svm-rbf`` -> ``SVM(RBF)``, ``renyi`` -> ``Rényi``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from sklearn.ensemble import RandomForestClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC

from ..density.features import BANDWIDTH_CONSTRAINTS
from ..model.classifier import ForestDensityClassifier, LUClassifier, SLBClassifier
from ..peers.discrete_map import DiscreteMAPClassifier
from ..peers.naive_bayes import KDENaiveBayes
from ..peers.renyi import RenyiClassifier
from ..peers.tan import TANClassifier

__all__ = [
    "CLASSIFIERS",
    "DENSITY_PARAMS",
    "PAPER_CLASSIFIERS",
    "ClassifierInfo",
    "make_classifier",
    "resolve_name",
]

#: The bandwidth settings every density-based estimator takes (defined once, with their
#: validation and documentation, in :mod:`slb.density.features`).
DENSITY_PARAMS = tuple(BANDWIDTH_CONSTRAINTS)


@dataclass(frozen=True)
class ClassifierInfo:
    """One entry of the catalogue.

    Attributes
    ----------
    name : str
        Short display name, as in the paper's tables.
    factory : callable
        ``factory(random_state, **density_params)`` -> unfitted estimator.
    summary : str
        What it does, for a student.
    uses_densities : bool
        Takes the shared KDE bandwidth settings.
    binary_only : str or None
        Why the classifier takes two classes only (None: it takes any number of classes).
        The dashboard offers a binary-only classifier for two-class tasks only, with this
        reason.
    rule : {"balanced", "prevalence"} or None
        How ``predict`` relates to ``predict_proba`` (``docs/probabilities.md``):
        ``"balanced"``, ``predict == argmax(predict_proba / training prevalence)``, the
        balanced-error rule; ``"prevalence"``, ``predict == argmax(predict_proba)``; None:
        no ``predict_proba``.

    Examples
    --------
    >>> from slb.evaluation.registry import CLASSIFIERS
    >>> info = CLASSIFIERS["NB"]
    >>> info.name, info.uses_densities, info.multiclass, info.rule
    ('NB', True, True, 'balanced')
    >>> type(info.factory(random_state=0)).__name__
    'KDENaiveBayes'
    """

    name: str
    factory: Callable
    summary: str
    uses_densities: bool = True
    binary_only: str | None = None
    rule: str | None = "balanced"

    @property
    def multiclass(self):
        """Whether the classifier takes more than two classes."""
        return self.binary_only is None


def _density(cls, **fixed):
    def factory(random_state=None, **density_params):
        kw = {k: v for k, v in density_params.items() if k in DENSITY_PARAMS}
        if "random_state" in cls().get_params():
            kw["random_state"] = random_state
        return cls(**fixed, **kw)

    return factory


def _rf(random_state=None, **_):
    return RandomForestClassifier(n_estimators=50, max_features="sqrt", random_state=random_state)


def _svm_rbf(random_state=None, **_):
    # gamma="scale" = 1 / (d * X.var()) = 1/d on standardised columns: e1071's default
    return make_pipeline(StandardScaler(), SVC(kernel="rbf", C=1.0, gamma="scale"))


def _svm_rbf_balanced(random_state=None, **_):
    return make_pipeline(
        StandardScaler(), SVC(kernel="rbf", C=1.0, gamma="scale", class_weight="balanced")
    )


def _svm_linear(random_state=None, **_):
    return make_pipeline(
        StandardScaler(), LinearSVC(C=1.0, max_iter=20000, random_state=random_state)
    )


def _knn(random_state=None, **_):
    return make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=5))


def _gaussian_nb(random_state=None, **_):
    return GaussianNB()


def _literature(cls):
    def factory(random_state=None, **_):
        return cls(random_state=random_state)

    return factory


CLASSIFIERS = {
    "SLB": ClassifierInfo(
        "SLB",
        _density(SLBClassifier),
        "Sparse Log-Bivariate: keeps the feature pairs that are dependent (HSIC) in a class, "
        "estimates each class's one- and two-feature densities, and lets a linear SVM weigh "
        "their logarithms. Exact for tree-shaped dependence, flexible beyond it.",
    ),
    "SLB(Pearson)": ClassifierInfo(
        "SLB(Pearson)",
        _density(SLBClassifier, dependence="pearson"),
        "SLB screening pairs by |Pearson correlation| instead of HSIC: cheaper, but blind to "
        "dependence that is not linear.",
    ),
    "SLB-": ClassifierInfo(
        "SLB-",
        _density(ForestDensityClassifier),
        "SLB without screening: every pair's bivariate density enters the SVM (the Forest "
        "Density Classifier). More terms, more variance.",
    ),
    "LU": ClassifierInfo(
        "LU",
        _density(LUClassifier),
        "Log-univariate: a linear SVM on the per-class one-feature log-densities only; a "
        "weighted naive Bayes.",
    ),
    "TAN": ClassifierInfo(
        "TAN",
        _density(TANClassifier),
        "Tree-augmented naive Bayes: each class's density is a tree of pairwise densities "
        "(Chow-Liu tree on mutual information); classify by the likelihood ratio.",
    ),
    "NB": ClassifierInfo(
        "NB",
        _density(KDENaiveBayes),
        "Kernel naive Bayes: multiplies the one-feature densities as if the features were "
        "independent within each class.",
    ),
    "RF": ClassifierInfo(
        "RF",
        _rf,
        "Random forest: 50 decision trees on bootstrap samples, sqrt(d) candidate features per "
        "split, majority vote.",
        uses_densities=False,
        rule="prevalence",
    ),
    "SVM(RBF)": ClassifierInfo(
        "SVM(RBF)",
        _svm_rbf,
        "Support vector machine with a Gaussian (RBF) kernel on standardised features.",
        uses_densities=False,
        rule=None,
    ),
    "SVM(linear)": ClassifierInfo(
        "SVM(linear)",
        _svm_linear,
        "Linear support vector machine on standardised features: the DISCRETE paper's "
        "comparator in its label-noise experiment.",
        uses_densities=False,
        rule=None,
    ),
    "5NN": ClassifierInfo(
        "5NN",
        _knn,
        "5 nearest neighbours: majority label of the 5 closest training points (standardised).",
        uses_densities=False,
        rule="prevalence",
    ),
    "SVM(RBF, balanced)": ClassifierInfo(
        "SVM(RBF, balanced)",
        _svm_rbf_balanced,
        "The Gaussian-kernel SVM with balanced class weights: errors on the smaller class cost "
        "more, which aims at the balanced error rate.",
        uses_densities=False,
        rule=None,
    ),
    "Gaussian NB": ClassifierInfo(
        "Gaussian NB",
        _gaussian_nb,
        "Naive Bayes with one Gaussian per feature and class (no kernel densities).",
        uses_densities=False,
        rule="prevalence",
    ),
    "Rényi": ClassifierInfo(
        "Rényi",
        _literature(RenyiClassifier),
        RenyiClassifier.student_summary,
        uses_densities=False,
        rule="prevalence",
        binary_only=(
            "The Discrete Rényi classifier is built for two classes: its minimum-HGR "
            "construction (Razaviyayn et al. 2015, section 2) takes Y in {0, 1}."
        ),
    ),
    "DISCRETE": ClassifierInfo(
        "DISCRETE",
        _literature(DiscreteMAPClassifier),
        DiscreteMAPClassifier.student_summary,
        uses_densities=False,
        rule="prevalence",
        binary_only=(
            "DISCRETE learns a binary linear classifier; its paper (Eban et al. 2014) leaves "
            "the extension to several classes as an open problem."
        ),
    ),
}


#: The paper's Table 4 columns, in order.
PAPER_CLASSIFIERS = ("SLB", "LU", "TAN", "NB", "RF", "SVM(RBF)", "5NN")


def make_classifier(name, random_state=None, **density_params):
    """A fresh unfitted classifier from the catalogue.

    Parameters
    ----------
    name : str
        A key of :data:`CLASSIFIERS`.
    random_state : int or None
    **density_params
        Shared bandwidth settings (``bandwidth``, ``bandwidth_multiplier``,
        ``bandwidth_overrides``, ``min_bandwidth``, ``density_floor``); ignored by classifiers
        that use no densities.

    Returns
    -------
    estimator

    Examples
    --------
    >>> from slb.evaluation.registry import make_classifier
    >>> slb = make_classifier("SLB", random_state=0, bandwidth_multiplier=2.0)
    >>> type(slb).__name__, slb.random_state, slb.bandwidth_multiplier
    ('SLBClassifier', 0, 2.0)
    >>> type(make_classifier("RF", random_state=0, bandwidth=0.5)).__name__  # no densities
    'RandomForestClassifier'
    """
    if name not in CLASSIFIERS:
        raise ValueError(f"Unknown classifier {name!r}; choose from {', '.join(CLASSIFIERS)}.")
    return CLASSIFIERS[name].factory(random_state=random_state, **density_params)


def _name_key(name: str) -> str:
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    key = re.sub(r"[\s()_,]", "", plain.lower())
    return re.sub(r"-(?=.)", "", key)


def resolve_name(name: str) -> str:
    """The catalogue's name for a user's spelling of it.

    Parameters
    ----------
    name : str

    Returns
    -------
    str
        ``name`` itself when it is a key of :data:`CLASSIFIERS` or matches none; else the key
        that equals it up to case, spaces, brackets, commas, underscores, inner hyphens and
        accents (``svm-rbf`` -> ``SVM(RBF)``, ``slb_pearson`` -> ``SLB(Pearson)``,
        ``renyi`` -> ``Rényi``; ``SLB-`` keeps its trailing minus).

    Examples
    --------
    >>> from slb.evaluation.registry import resolve_name
    >>> resolve_name("svm-rbf"), resolve_name("slb_pearson"), resolve_name("no such")
    ('SVM(RBF)', 'SLB(Pearson)', 'no such')
    """
    if name in CLASSIFIERS:
        return name
    lookup = {_name_key(k): k for k in CLASSIFIERS}
    return lookup.get(_name_key(name), name)
