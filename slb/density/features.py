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

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.model_selection import StratifiedKFold
from sklearn.utils.validation import check_is_fitted, validate_data

from .._parallel import check_n_jobs
from .._utils import (
    check_binary_target,
    check_magnitude,
    default_feature_names,
    resolve_overrides,
    resolve_pairs,
    validate_training_data,
)
from .bandwidth import BANDWIDTH_RULES, class_bandwidths, robust_scale
from .kde import ClassConditionalKDE

TRAINING_FEATURES = ("kfold", "loo", "insample")


def class_order(classes):
    """Class indices in feature-map order and their symbols.

    Binary: ``classes_[1]`` first as ``+``, then ``classes_[0]`` as ``-``.  More classes (the
    transformer alone supports them): ``classes_`` in order, written ``[label]``.

    Returns
    -------
    order : list of int
    symbols : list of str
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
    """
    out = []
    for s in symbols:
        out += [f"log p{s}({n})" for n in names]
    for s in symbols:
        out += [f"log p{s}({names[i]}, {names[j]})" for i, j in pairs]
    return out


class LogDensityTransformer(TransformerMixin, BaseEstimator):
    """Per-class univariate and bivariate log-density features (SLB paper, Eq. 5).

    Parameters
    ----------
    pairs : "all", None or list of pairs, default="all"
        Feature pairs whose bivariate log-densities are included: index pairs ``(i, j)`` or
        pairs of feature names.  ``"all"``/None: every pair.  An empty list: univariate only.
    bandwidth : {"scott", "silverman", "lcv", "plugin"}, default="scott"
        Bandwidth rule (see :mod:`slb.density.bandwidth`).
    bandwidth_multiplier : float, default=1.0
        Global multiplier of every bandwidth.
    bandwidth_overrides : dict or None, default=None
        Per-feature multipliers (feature name or index -> multiplier) replacing the global one.
    min_bandwidth : float, default=1e-3
        Bandwidth floor as a fraction of the feature's robust scale (tied/discrete features).
    density_floor : float, default=1e-6
        Density floor ``c`` before the log, in standardised units (paper, Remark 1).
    training_features : {"kfold", "loo", "insample"}, default="kfold"
        How ``fit_transform`` evaluates the training rows (see the module docstring).
    n_crossfit_folds : int, default=5
        Folds for ``training_features="kfold"``.
    random_state : int, RandomState instance or None, default=None
        Seeds the cross-fitting folds.
    n_jobs : int or None, default=None
        Threads over the binned pair densities.  None: two when the one-minute load average
        leaves a CPU free, else one (:func:`slb._parallel.resolve_n_jobs`); -1: all CPUs.  The
        features do not depend on it.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Binary labels give the ``+``/``-`` terms of SLB; more classes are allowed here (terms
        named ``log p[label](a)``) although the SLB classifiers are binary.
    pairs_ : ndarray of shape (n_pairs, 2)
    bandwidths_ : ndarray of shape (n_classes, n_features)
        Univariate bandwidths of each class of ``classes_``.
    pair_bandwidths_ : ndarray of shape (n_classes, n_features)
        Per-coordinate bandwidths of the bivariate densities.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)
        Only when ``X`` has string column names.
    """

    def __init__(
        self,
        pairs="all",
        *,
        bandwidth="scott",
        bandwidth_multiplier=1.0,
        bandwidth_overrides=None,
        min_bandwidth=1e-3,
        density_floor=1e-6,
        training_features="kfold",
        n_crossfit_folds=5,
        random_state=None,
        n_jobs=None,
    ):
        self.pairs = pairs
        self.bandwidth = bandwidth
        self.bandwidth_multiplier = bandwidth_multiplier
        self.bandwidth_overrides = bandwidth_overrides
        self.min_bandwidth = min_bandwidth
        self.density_floor = density_floor
        self.training_features = training_features
        self.n_crossfit_folds = n_crossfit_folds
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _check_params(self):
        if self.bandwidth not in BANDWIDTH_RULES:
            raise ValueError(
                f"bandwidth must be one of {', '.join(BANDWIDTH_RULES)}, got {self.bandwidth!r}."
            )
        if self.training_features not in TRAINING_FEATURES:
            raise ValueError(
                f"training_features must be one of {', '.join(TRAINING_FEATURES)}, "
                f"got {self.training_features!r}."
            )
        for name in ("bandwidth_multiplier", "density_floor", "min_bandwidth"):
            v = getattr(self, name)
            if not (np.isscalar(v) and np.isfinite(v) and v > 0):
                raise ValueError(f"{name} must be a positive number, got {v!r}.")
        check_n_jobs(self.n_jobs)

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
        self._check_params()
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
        )
        self.bandwidths_ = class_bandwidths(X, y_index, dim=1, **kw)
        self.pair_bandwidths_ = class_bandwidths(X, y_index, dim=2, **kw)
        scale = np.array([robust_scale(X[:, i]) for i in range(X.shape[1])])
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
        folds = StratifiedKFold(k, shuffle=True, random_state=self.random_state)
        for tr, te in folds.split(X, y_index):
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
