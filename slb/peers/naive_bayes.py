"""Kernel density naive Bayes: the product of per-class univariate KDEs.

``log p_y(x) = sum_i log p_y(x_i)``; the decision is the log-likelihood ratio plus the log prior
ratio.  It uses the same univariate densities, bandwidths and density floor as SLB, so the
comparison isolates what SLB's learned weights and bivariate terms add.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

import numpy as np
from scipy.special import expit
from sklearn.base import ClassifierMixin
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .._utils import (
    LinearTermsMixin,
    LogProbaMixin,
    SignPredictMixin,
    binary_proba,
    check_binary_target,
    check_magnitude,
    default_feature_names,
    validate_training_data,
)
from ..density.features import (
    BANDWIDTH_CONSTRAINTS,
    BANDWIDTH_PARAMS_DOC,
    BandwidthParams,
    LogDensityTransformer,
    fill_doc,
    term_names,
)

PRIORS = ("balanced", "empirical")


def _log_priors(priors, y_index):
    if priors == "balanced":
        return np.log([0.5, 0.5])
    if priors == "empirical":
        return np.log(np.bincount(y_index, minlength=2) / y_index.size)
    raise ValueError(f"priors must be one of {', '.join(PRIORS)}, got {priors!r}.")


_PARAMS_DOC = """priors : {"balanced", "empirical"}, default="balanced"
        Class priors: equal (the Bayes rule for the balanced error rate, this project's metric)
        or the training frequencies (the textbook classifier).
    %(bandwidth)s"""

_ATTRS_DOC = """coef_ : ndarray of shape (1, n_terms)
        The classifier as a linear model on the log-density terms ``terms_``:
        ``decision_function(X) = transformer_.transform(X) @ coef_[0] + intercept_[0]``.
        ``coef_series_`` is the same as a Series indexed by term name.
    intercept_ : ndarray of shape (1,)
        The log prior odds.
    terms_ : ndarray of str of shape (n_terms,)
        ``log p+(a)``, ``log p-(a)``, ... (``transformer_.get_feature_names_out()`` in the
        names of the fitted data)."""


def _doc(text):
    params = fill_doc(_PARAMS_DOC, bandwidth=BANDWIDTH_PARAMS_DOC)
    return fill_doc(text, params=params, linear=_ATTRS_DOC)


@dataclass(eq=False, repr=False)
class _DensityBayes(
    LinearTermsMixin, LogProbaMixin, SignPredictMixin, ClassifierMixin, BandwidthParams
):
    """Decision function, labels and posterior probabilities from ``joint_log_likelihood``;
    the priors and the bandwidth settings."""

    _: KW_ONLY
    priors: str = "balanced"

    _parameter_constraints = {**BANDWIDTH_CONSTRAINTS, "priors": [StrOptions(set(PRIORS))]}

    def _density_transformer(self, X, pairs):
        """The feature map on this model's bandwidth settings (overrides keyed by index)."""
        settings = self._density_settings(X.shape[1], training_features="loo")
        return LogDensityTransformer(pairs=pairs, **settings)

    def _check_fit_data(self, X, y):
        """Validated ``X``, ``y`` and 0/1 labels; sets ``classes_`` and ``class_log_prior_``."""
        self._validate_params()
        X, y = validate_training_data(self, X, y, dtype=np.float64)
        check_magnitude(X, default_feature_names(self, X.shape[1]))  # the user's column name
        self.classes_, y_index = check_binary_target(y)
        self.class_log_prior_ = _log_priors(self.priors, y_index)
        return X, y, y_index

    def _set_linear_model(self):
        """``coef_``, ``intercept_`` and ``terms_``: the decision as a linear model of the
        transformer's log-density terms (coefficients from :meth:`_term_weights`)."""
        names = default_feature_names(self, self.n_features_in_)  # transformer_ saw an array
        self.terms_ = np.asarray(term_names(names, self.transformer_.pairs_), dtype=object)
        self.coef_ = self._term_weights().reshape(1, -1)
        self.intercept_ = np.array([self.class_log_prior_[1] - self.class_log_prior_[0]])

    def decision_function(self, X):
        """Log posterior odds of ``classes_[1]`` against ``classes_[0]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
        """
        jll = self.joint_log_likelihood(X)
        return jll[:, 1] - jll[:, 0]

    def predict_proba(self, X):
        """Posterior probabilities of ``classes_[0]`` and ``classes_[1]``, within
        ``[1e-6, 1 - 1e-6]`` (density products reach exact 0 and 1 in floating point).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, 2)
        """
        return self._proba_from_decision(self.decision_function(X))

    def _proba_from_decision(self, score):
        """:meth:`predict_proba` from decision values already computed (one density
        evaluation for both, :func:`slb.evaluation.predictions.model_outputs`)."""
        return binary_proba(expit(np.asarray(score, dtype=float)))


class KDENaiveBayes(_DensityBayes):
    __doc__ = _doc("""Naive Bayes with per-class univariate Gaussian KDEs.

    Parameters
    ----------
    %(params)s

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    class_log_prior_ : ndarray of shape (2,)
    transformer_ : LogDensityTransformer
    %(linear)s
    n_features_in_ : int
    feature_names_in_ : ndarray
    """)

    def fit(self, X, y):
        """Estimate the per-class univariate densities.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self : KDENaiveBayes
        """
        X, y, _ = self._check_fit_data(X, y)
        self.transformer_ = self._density_transformer(X, pairs=[]).fit(X, y)
        self._set_linear_model()
        return self

    def _term_weights(self):
        # log p+(x) - log p-(x): +1 on every term of class +, -1 on every term of class -.
        d = self.n_features_in_
        return np.concatenate([np.ones(d), -np.ones(d)])

    def joint_log_likelihood(self, X):
        """``log p_y(x) + log prior_y`` for both classes.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        jll : ndarray of shape (n_samples, 2)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        T = self.transformer_.transform(X)
        d = self.n_features_in_
        ll = np.column_stack([T[:, d : 2 * d].sum(axis=1), T[:, :d].sum(axis=1)])
        return ll + self.class_log_prior_
