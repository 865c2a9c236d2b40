"""Kernel density naive Bayes: the product of per-class univariate KDEs.

``log p_y(x) = sum_i log p_y(x_i)``; the decision is the log-likelihood ratio plus the log prior
ratio.  It uses the same univariate densities, bandwidths and density floor as SLB, so the
comparison isolates what SLB's learned weights and bivariate terms add.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._utils import (
    SignPredictMixin,
    check_binary_target,
    check_magnitude,
    default_feature_names,
    overrides_by_index,
    validate_training_data,
)
from ..density.features import LogDensityTransformer

PRIORS = ("balanced", "empirical")


def _log_priors(priors, y_index):
    if priors == "balanced":
        return np.log([0.5, 0.5])
    if priors == "empirical":
        return np.log(np.bincount(y_index, minlength=2) / y_index.size)
    raise ValueError(f"priors must be one of {', '.join(PRIORS)}, got {priors!r}.")


class _DensityClassifierMixin(SignPredictMixin):
    """Decision function, labels and posterior probabilities from ``joint_log_likelihood``."""

    def _density_transformer(self, X, pairs):
        """The feature map on this model's bandwidth settings (overrides keyed by index)."""
        return LogDensityTransformer(
            pairs=pairs,
            bandwidth=self.bandwidth,
            bandwidth_multiplier=self.bandwidth_multiplier,
            bandwidth_overrides=overrides_by_index(
                self.bandwidth_overrides, default_feature_names(self, X.shape[1])
            ),
            min_bandwidth=self.min_bandwidth,
            density_floor=self.density_floor,
            training_features="loo",
        )

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

    def predict_log_proba(self, X):
        """Log posterior probabilities of ``classes_[0]`` and ``classes_[1]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        log_proba : ndarray of shape (n_samples, 2)
        """
        s = self.decision_function(X)
        return -np.logaddexp(0.0, np.column_stack([s, -s]))

    def predict_proba(self, X):
        """Posterior probabilities of ``classes_[0]`` and ``classes_[1]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, 2)
        """
        return np.exp(self.predict_log_proba(X))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


class KDENaiveBayes(_DensityClassifierMixin, ClassifierMixin, BaseEstimator):
    """Naive Bayes with per-class univariate Gaussian KDEs.

    Parameters
    ----------
    priors : {"balanced", "empirical"}, default="balanced"
        Class priors: equal (the Bayes rule for the balanced error rate, this project's metric)
        or the training frequencies (the textbook classifier).
    bandwidth, bandwidth_multiplier, bandwidth_overrides, min_bandwidth, density_floor
        As in :class:`slb.density.features.LogDensityTransformer`.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    class_log_prior_ : ndarray of shape (2,)
    transformer_ : LogDensityTransformer
    n_features_in_ : int
    feature_names_in_ : ndarray
    """

    def __init__(
        self,
        *,
        priors="balanced",
        bandwidth="scott",
        bandwidth_multiplier=1.0,
        bandwidth_overrides=None,
        min_bandwidth=1e-3,
        density_floor=1e-6,
    ):
        self.priors = priors
        self.bandwidth = bandwidth
        self.bandwidth_multiplier = bandwidth_multiplier
        self.bandwidth_overrides = bandwidth_overrides
        self.min_bandwidth = min_bandwidth
        self.density_floor = density_floor

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
        X, y = validate_training_data(self, X, y, dtype=np.float64)
        check_magnitude(X, default_feature_names(self, X.shape[1]))  # the user's column name
        self.classes_, y_index = check_binary_target(y)
        self.class_log_prior_ = _log_priors(self.priors, y_index)
        self.transformer_ = self._density_transformer(X, pairs=[]).fit(X, y)
        return self

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
