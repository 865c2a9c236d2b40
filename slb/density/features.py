"""The SLB log-density feature map as a scikit-learn transformer.

``T(x) = (log p_y(x_i) for y, i ;  log p_y(x_i, x_j) for y and the chosen pairs)``
(SLB paper, Eq. 5), with readable names such as ``log p+(glucose)`` and
``log p-(glucose, bmi)``; ``+`` is ``classes_[1]``, ``-`` is ``classes_[0]``.

Training rows and leakage
-------------------------
A KDE evaluated at the very points that built it is biased upward (each point sees its own
kernel), and an SVM trained on such values over-trusts them.  ``fit_transform`` therefore returns
*out-of-sample* values for the training rows, like scikit-learn's ``TargetEncoder``:

``"kfold"`` (default)
    K-fold cross-fitting: each fold's rows are evaluated with densities built on the other
    folds only.  No training feature depends on the row's own label.
``"loo"``
    leave-one-out: a training point's own kernel is removed from its own class's densities.
    **This leaks the label**: only the own-class density loses the row's kernel, so each
    training feature is a known function of ``(x_i, y_i)`` (the leave-one-out
    target-encoding leak that ``TargetEncoder`` avoids by cross-fitting).  With tied or
    discrete features the leak is large: the own-class density of a tied value drops by a
    whole kernel while the other class's does not, and the SVM learns that difference, which
    new rows never show (an LU model on tied data: 38 % BER with LOO features vs 22 % with
    K-fold features).  Kept for comparison;
``"insample"``
    plain in-sample values (for comparison only).

``transform`` on new data always uses the densities of the whole training set, so
``fit_transform(X, y)`` differs from ``fit(X, y).transform(X)`` on purpose.

Densities are floored before the log (paper, Remark 1) at ``density_floor / s_i`` for
univariate and ``density_floor / (s_i s_j)`` for bivariate densities, ``s_i`` the robust scale of
feature ``i``: the floor is the same in standardised units whatever the units of the data.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._folds import stratified_splits
from .._sklearn_compat import Interval, StrOptions
from .._utils import (
    check_binary_target,
    check_magnitude,
    default_feature_names,
    overrides_by_index,
    resolve_overrides,
    resolve_pairs,
    validate_training_data,
)
from .bandwidth import BANDWIDTH_RULES, class_bandwidths, column_scales
from .kde import ClassConditionalKDE

TRAINING_FEATURES = ("kfold", "loo", "insample")


_POSITIVE = Interval(Real, 0, np.inf, closed="neither")

#: Constraints of the bandwidth settings shared by every density estimator (scikit-learn's
#: declarative parameter validation, checked by ``BaseEstimator._validate_params``).
BANDWIDTH_CONSTRAINTS = {
    "bandwidth": [StrOptions(set(BANDWIDTH_RULES))],
    "bandwidth_multiplier": [_POSITIVE],
    "bandwidth_overrides": [dict, None],
    "min_bandwidth": [_POSITIVE],
    "density_floor": [_POSITIVE],
    "lattice_floor": [Interval(Real, 0, None, closed="left")],
}

#: Constraints of how the training rows of the feature map are evaluated.
FEATURE_MAP_CONSTRAINTS = {
    **BANDWIDTH_CONSTRAINTS,
    "training_features": [StrOptions(set(TRAINING_FEATURES))],
    "n_crossfit_folds": [Interval(Integral, 2, None, closed="left")],
}

#: Constraints of the run settings (seed, threads) of the feature map and the SVM family.
RUN_CONSTRAINTS = {
    "random_state": ["random_state"],
    "n_jobs": [
        Interval(Integral, None, -1, closed="right"),
        Interval(Integral, 1, None, closed="left"),
        None,
    ],
}

#: numpydoc of the bandwidth settings, inserted in the docstring of every density estimator.
BANDWIDTH_PARAMS_DOC = """bandwidth : {"scott", "silverman", "lcv", "plugin"}, default="scott"
        Bandwidth rule (see :mod:`slb.density.bandwidth`).  ``"plugin"``: R ``ks``'s
        ``hpi`` for every univariate density (reproduced to ~1e-14; below the lattice floor
        of a lattice feature the floor, see ``lattice_floor``); for the bivariate
        densities a *marginal surrogate* of ``ks::Hpi.diag`` (its formula on a feature paired
        with an independent copy of itself, one bandwidth per feature), **not** ``Hpi.diag``
        of the actual pair, from which it can differ by 5-50 % on skewed, dependent or tied
        pairs (``slb.density.bandwidth.hpi_diag`` computes the real one).
    bandwidth_multiplier : float, default=1.0
        Global multiplier of every bandwidth.
    bandwidth_overrides : dict or None, default=None
        Per-feature multipliers (feature name or index -> multiplier) replacing the global one.
        Like the global one, they act before the floors: on a lattice feature no bandwidth
        goes below ``lattice_floor`` steps.
    min_bandwidth : float, default=1e-3
        Bandwidth floor as a fraction of the feature's robust scale (tied/discrete features).
    density_floor : float, default=1e-6
        Density floor ``c`` before the log, in standardised units (paper, Remark 1).
    lattice_floor : float, default=1.0
        Bandwidth floor as a multiple of the feature's lattice step, for features whose
        training values lie on a lattice (integers, counts, scores, codes: the step of their
        distinct values, ``slb.density.bandwidth.lattice_spacing``); 0: none (the densities
        before 2026-11-28).  Below the step a density resolves the discretisation: spikes at
        the values seen, the floor between.  Chosen by ``docs/defaults.md``, Protocol 4."""

#: numpydoc of the training-row settings of the feature map.
FEATURE_MAP_PARAMS_DOC = (
    BANDWIDTH_PARAMS_DOC
    + """
    training_features : {"kfold", "loo", "insample"}, default="kfold"
        How the training rows' features are evaluated (see :mod:`slb.density.features`):
        ``"kfold"`` cross-fits them (no label leakage).
    n_crossfit_folds : int, default=5
        Folds for ``training_features="kfold"`` (at least 2)."""
)


def fill_doc(text, **fragments):
    """``text`` with every ``%(name)s`` replaced by ``fragments[name]`` (shared docstrings).

    Parameters
    ----------
    text : str
        A docstring holding ``%(name)s`` placeholders.
    **fragments : str
        The text of each placeholder.

    Returns
    -------
    str

    Examples
    --------
    >>> from slb.density.features import fill_doc
    >>> fill_doc("Parameters: %(common)s", common="alpha, beta")
    'Parameters: alpha, beta'
    """
    for name, fragment in fragments.items():
        text = text.replace(f"%({name})s", fragment)
    return text


# The parameter blocks are dataclass fields so that each is written once: the dataclass builds
# the keyword-only ``__init__`` of every estimator from its bases' fields, which scikit-learn's
# ``get_params`` reads from the signature as from a hand-written one.  ``eq=False, repr=False``
# keep BaseEstimator's identity comparison and repr.
@dataclass(eq=False, repr=False)
class BandwidthParams(BaseEstimator):
    """The bandwidth settings of the per-class KDEs, shared by every density estimator.

    Parameters
    ----------
    %(bandwidth)s

    Examples
    --------
    >>> from slb.density.features import BandwidthParams
    >>> params = BandwidthParams(bandwidth="silverman").get_params()
    >>> params["bandwidth"], params["bandwidth_multiplier"], params["density_floor"]
    ('silverman', 1.0, 1e-06)
    """

    _: KW_ONLY
    bandwidth: str = "scott"
    bandwidth_multiplier: float = 1.0
    bandwidth_overrides: dict | None = None
    min_bandwidth: float = 1e-3
    density_floor: float = 1e-6
    lattice_floor: float = 1.0

    _parameter_constraints = BANDWIDTH_CONSTRAINTS

    _density_params = tuple(BANDWIDTH_CONSTRAINTS)

    def _density_settings(self, n_features, **extra):
        """Keyword arguments of an inner :class:`LogDensityTransformer` on this model's settings.

        Inner transformers see arrays: name-keyed bandwidth overrides become index-keyed.
        """
        params = {k: getattr(self, k) for k in self._density_params}
        names = default_feature_names(self, n_features)
        params["bandwidth_overrides"] = overrides_by_index(self.bandwidth_overrides, names)
        return {**params, **extra}


BandwidthParams.__doc__ = fill_doc(BandwidthParams.__doc__, bandwidth=BANDWIDTH_PARAMS_DOC)


@dataclass(eq=False, repr=False)
class FeatureMapParams(BandwidthParams):
    """The bandwidth settings plus how the training rows of the feature map are evaluated.

    Parameters
    ----------
    %(feature_map)s

    Examples
    --------
    >>> from slb.density.features import FeatureMapParams
    >>> params = FeatureMapParams(n_crossfit_folds=3).get_params()
    >>> params["training_features"], params["n_crossfit_folds"], params["bandwidth"]
    ('kfold', 3, 'scott')
    """

    _: KW_ONLY
    training_features: str = "kfold"
    n_crossfit_folds: int = 5

    _parameter_constraints = FEATURE_MAP_CONSTRAINTS
    _density_params = tuple(FEATURE_MAP_CONSTRAINTS)


FeatureMapParams.__doc__ = fill_doc(FeatureMapParams.__doc__, feature_map=FEATURE_MAP_PARAMS_DOC)


def class_order(classes):
    """Class indices in feature-map order and their symbols.

    Binary: ``classes_[1]`` first as ``+``, then ``classes_[0]`` as ``-``.  More classes (the
    transformer alone supports them): ``classes_`` in order, written ``[label]``.

    Parameters
    ----------
    classes : array-like of shape (n_classes,)
        The fitted ``classes_``.

    Returns
    -------
    order : list of int
    symbols : list of str

    Examples
    --------
    >>> from slb.density.features import class_order
    >>> class_order(["no", "yes"])
    ([1, 0], ['+', '-'])
    >>> class_order(["a", "b", "c"])
    ([0, 1, 2], ['[a]', '[b]', '[c]'])
    """
    if len(classes) == 2:
        return [1, 0], ["+", "-"]
    return list(range(len(classes))), [f"[{c}]" for c in np.asarray(classes).tolist()]


def term_names(names, pairs, symbols=("+", "-")):
    """Feature-map column names in the order the transformer produces them.

    Parameters
    ----------
    names : list of str
        Input feature names.
    pairs : ndarray of shape (n_pairs, 2)
    symbols : sequence of str
        Class symbols in feature-map order (binary: ``+`` then ``-``).

    Returns
    -------
    names : list of str
        ``log p+(a)`` for every feature, ``log p-(a)`` for every feature, then
        ``log p+(a, b)`` and ``log p-(a, b)`` for every pair.

    Examples
    --------
    >>> from slb.density.features import term_names
    >>> term_names(["x", "y"], [(0, 1)])  # doctest: +NORMALIZE_WHITESPACE
    ['log p+(x)', 'log p+(y)', 'log p-(x)', 'log p-(y)',
     'log p+(x, y)', 'log p-(x, y)']
    """
    out = []
    for s in symbols:
        out += [f"log p{s}({n})" for n in names]
    for s in symbols:
        out += [f"log p{s}({names[i]}, {names[j]})" for i, j in pairs]
    return out


@dataclass(eq=False, repr=False)
class LogDensityTransformer(TransformerMixin, FeatureMapParams):
    """Per-class univariate and bivariate log-density features (SLB paper, Eq. 5).

    Parameters
    ----------
    pairs : "all", None or list of pairs, default="all"
        Feature pairs whose bivariate log-densities are included: index pairs ``(i, j)`` or
        pairs of feature names.  ``"all"``/None: every pair.  An empty list: univariate only.
    %(feature_map)s
    random_state : int, RandomState instance or None, default=None
        Seeds the cross-fitting folds.
    n_jobs : int or None, default=None
        Threads over the binned pair densities.  None: one, as in scikit-learn
        (:func:`slb._parallel.resolve_n_jobs`); -1: all CPUs.  The features do not depend on
        it.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Binary labels give the ``+``/``-`` terms of SLB; more classes give terms named
        ``log p[label](a)`` (as SLB's with K > 2 classes).
    pairs_ : ndarray of shape (n_pairs, 2)
    bandwidths_ : ndarray of shape (n_classes, n_features)
        Univariate bandwidths of each class of ``classes_``.
    pair_bandwidths_ : ndarray of shape (n_classes, n_features)
        Per-coordinate bandwidths of the bivariate densities.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)
        Only when ``X`` has string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.density.features import LogDensityTransformer
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3))
    >>> y = np.repeat(["a", "b"], 30)
    >>> X[y == "b"] += 1.0
    >>> transformer = LogDensityTransformer(pairs=[(0, 1)], random_state=0)
    >>> T = transformer.fit_transform(X, y)  # cross-fitted features of the training rows
    >>> T.shape  # 2 classes x (3 features + 1 pair)
    (60, 8)
    >>> transformer.get_feature_names_out()[[0, 3, 6]].tolist()
    ['log p+(x0)', 'log p-(x0)', 'log p+(x0, x1)']
    >>> bool(T[y == "b", 0].mean() > T[y == "a", 0].mean())  # class b ("+") is denser there
    True
    >>> transformer.transform(X[:5]).shape
    (5, 8)
    """

    pairs: object = "all"
    _: KW_ONLY
    random_state: object = None
    n_jobs: int | None = None

    _parameter_constraints = {
        **FEATURE_MAP_CONSTRAINTS,
        **RUN_CONSTRAINTS,
        "pairs": [StrOptions({"all"}), "array-like", None],
    }

    def fit(self, X, y):
        """Estimate the bandwidths and store the per-class training data.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels of any type (two classes for SLB).

        Returns
        -------
        self : LogDensityTransformer
        """
        self._fit(X, y)
        return self

    def _fit(self, X, y):
        self._validate_params()
        X, y = validate_training_data(self, X, y, dtype=np.float64)
        self.classes_, y_index = check_binary_target(y, binary=False)
        names = default_feature_names(self, X.shape[1])
        check_magnitude(X, names)
        self.pairs_ = resolve_pairs(self.pairs, names)
        ov = resolve_overrides(self.bandwidth_overrides, names)
        kw = dict(
            rule=self.bandwidth,
            multiplier=self.bandwidth_multiplier,
            overrides=ov,
            min_bandwidth=self.min_bandwidth,
            lattice_floor=self.lattice_floor,
        )
        self.bandwidths_ = class_bandwidths(X, y_index, dim=1, **kw)
        self.pair_bandwidths_ = class_bandwidths(X, y_index, dim=2, **kw)
        scale = column_scales(X)[1]  # robust_scale of every column, bit for bit
        self.scale_ = np.where(scale > 0, scale, 1.0)
        # Evaluation points beyond 50 bandwidths of the data have density exactly 0 (floored):
        # clipping them there changes no value and keeps far outliers from overflowing.
        reach = 50.0 * np.maximum(self.bandwidths_.max(axis=0), self.pair_bandwidths_.max(axis=0))
        self._clip = (X.min(axis=0) - reach, X.max(axis=0) + reach)
        self._kde = self._make_kde(X, y_index)
        return X, y_index

    def _make_kde(self, X, y_index):
        floor1 = self.density_floor / self.scale_
        floor2 = self.density_floor / np.outer(self.scale_, self.scale_)
        return ClassConditionalKDE(
            X,
            y_index,
            self.bandwidths_,
            self.pair_bandwidths_,
            floor1,
            floor2,
            n_jobs=getattr(self, "n_jobs", None),  # transformers saved before the option: None
        )

    def _features(self, kde, E, self_class=None, pairs=None):
        pairs = self.pairs_ if pairs is None else pairs
        E = np.clip(E, *self._clip)
        lu = kde.log_univariate(E, self_class)  # (n_classes, m, d)
        lb = kde.log_bivariate(E, pairs, self_class)  # (n_classes, m, P)
        order, _ = class_order(self.classes_)
        return np.hstack([lu[c] for c in order] + [lb[c] for c in order])

    def _own_class_loo(self, X_c, c):
        """Leave-one-out log densities of class index ``c`` at its own training rows ``X_c``:
        the class-``c`` columns of the ``training_features="loo"`` map at those rows, without
        the other classes' densities (TAN's mutual information reads only these).

        Returns
        -------
        log_uni : ndarray of shape (n_c, n_features)
        log_biv : ndarray of shape (n_c, n_pairs)
        """
        return self._kde.log_own_class(c, np.clip(X_c, *self._clip), self.pairs_)

    def transform(self, X):
        """Log-density features of new rows, using the whole training set's densities.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        T : ndarray of shape (n_samples, n_classes * (n_features + n_pairs))
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self._features(self._kde, X)

    def fit_transform(self, X, y):
        """Fit, then return out-of-sample features of the training rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        T : ndarray of shape (n_samples, n_classes * (n_features + n_pairs))
        """
        X, y_index = self._fit(X, y)
        return self._training_features(X, y_index)

    def _training_features(self, X, y_index, pairs=None):
        if self.training_features == "insample":
            return self._features(self._kde, X, pairs=pairs)
        if self.training_features == "loo":
            return self._features(self._kde, X, y_index, pairs=pairs)
        n_p = (self.pairs_ if pairs is None else pairs).shape[0]
        k_cls = len(self.classes_)
        out = np.empty((X.shape[0], k_cls * (X.shape[1] + n_p)))
        counts = np.bincount(y_index, minlength=k_cls)
        k = int(min(self.n_crossfit_folds, counts.min()))
        if k < 2:
            return self._features(self._kde, X, y_index, pairs=pairs)
        # identical rows in one fold: a copy elsewhere would give its twin in-sample densities
        for tr, te in stratified_splits(y_index, k, random_state=self.random_state, X=X):
            kde = self._make_kde(X[tr], y_index[tr])
            out[te] = self._features(kde, X[te], pairs=pairs)
        return out

    def get_feature_names_out(self, input_features=None):
        """Names such as ``log p+(glucose)`` and ``log p-(glucose, bmi)``.

        Parameters
        ----------
        input_features : ignored

        Returns
        -------
        names : ndarray of str
        """
        check_is_fitted(self)
        names = default_feature_names(self, self.n_features_in_)
        _, symbols = class_order(self.classes_)
        return np.asarray(term_names(names, self.pairs_, symbols), dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags


LogDensityTransformer.__doc__ = fill_doc(
    LogDensityTransformer.__doc__, feature_map=FEATURE_MAP_PARAMS_DOC
)
