"""The classifiers SLB is compared with, by name, with a one-paragraph summary for students.

``make_classifier(name, **density_params)`` returns a fresh, unfitted estimator; the density-based
ones (SLB, SLB-, LU, TAN, NB) take the shared bandwidth settings, so every model on every page
and in every experiment sees the same densities.  RF, SVM-RBF and 5NN follow the SLB paper's
section 5 (50 trees with sqrt(d) features per split; RBF SVM and 5NN on standardised data).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sklearn.ensemble import RandomForestClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from .classifier import ForestDensityClassifier, LUClassifier, SLBClassifier
from .naive_bayes import KDENaiveBayes
from .tan import TANClassifier

DENSITY_PARAMS = (
    "bandwidth",
    "bandwidth_multiplier",
    "bandwidth_overrides",
    "min_bandwidth",
    "density_floor",
)


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
    """

    name: str
    factory: Callable
    summary: str
    uses_densities: bool = True


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
    return make_pipeline(StandardScaler(), SVC(kernel="rbf", C=1.0, gamma="scale"))


def _svm_linear(random_state=None, **_):
    from sklearn.svm import LinearSVC

    return make_pipeline(
        StandardScaler(), LinearSVC(C=1.0, max_iter=20000, random_state=random_state)
    )


def _knn(random_state=None, **_):
    return make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=5))


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
    ),
    "SVM(RBF)": ClassifierInfo(
        "SVM(RBF)",
        _svm_rbf,
        "Support vector machine with a Gaussian (RBF) kernel on standardised features.",
        uses_densities=False,
    ),
    "SVM(linear)": ClassifierInfo(
        "SVM(linear)",
        _svm_linear,
        "Linear support vector machine on standardised features: the DISCRETE paper's "
        "comparator in its label-noise experiment.",
        uses_densities=False,
    ),
    "5NN": ClassifierInfo(
        "5NN",
        _knn,
        "5 nearest neighbours: majority label of the 5 closest training points (standardised).",
        uses_densities=False,
    ),
}


def _register_literature():
    """Add the literature classifiers when their modules are present."""
    try:
        from .renyi import RenyiClassifier
    except ImportError:  # pragma: no cover - module not there yet
        RenyiClassifier = None
    try:
        from .discrete_map import DiscreteMAPClassifier
    except ImportError:  # pragma: no cover
        DiscreteMAPClassifier = None
    for name, cls in (("Renyi", RenyiClassifier), ("DISCRETE", DiscreteMAPClassifier)):
        if cls is None:
            continue

        def factory(random_state=None, _cls=cls, **_):
            params = _cls().get_params()
            return _cls(random_state=random_state) if "random_state" in params else _cls()

        CLASSIFIERS[name] = ClassifierInfo(
            name, factory, getattr(cls, "student_summary", cls.__doc__.split("\n")[0]), False
        )


_register_literature()

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
    """
    if name not in CLASSIFIERS:
        raise ValueError(f"Unknown classifier {name!r}; choose from {', '.join(CLASSIFIERS)}.")
    return CLASSIFIERS[name].factory(random_state=random_state, **density_params)
