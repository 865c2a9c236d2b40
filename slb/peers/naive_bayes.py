"""Kernel density naive Bayes: the product of per-class univariate KDEs.

``log p_y(x) = sum_i log p_y(x_i)``; the decision is the log-likelihood ratio plus the log prior
ratio.  It uses the same univariate densities, bandwidths and density floor as SLB, so the
comparison isolates what SLB's learned weights and bivariate terms add.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

import numpy as np
from scipy.special import expit, logsumexp
from sklearn.base import ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._sklearn_compat import StrOptions
from .._utils import (
    DecisionPredictMixin,
    LinearTermsMixin,
    LogProbaMixin,
    binary_proba,
    check_binary_target,
    check_magnitude,
    default_feature_names,
    softmax_proba,
    validate_training_data,
)
from ..density.features import (
    BANDWIDTH_CONSTRAINTS,
    BANDWIDTH_PARAMS_DOC,
    BandwidthParams,
    LogDensityTransformer,
    class_order,
    fill_doc,
    term_names,
)

PRIORS = ("balanced", "empirical")


def _log_priors(priors, y_index, n_classes=2):
    if priors == "balanced":
        return np.log(np.full(n_classes, 1.0 / n_classes))
    if priors == "empirical":
        return np.log(np.bincount(y_index, minlength=n_classes) / y_index.size)
    raise ValueError(f"priors must be one of {', '.join(PRIORS)}, got {priors!r}.")


_PARAMS_DOC = """priors : {"balanced", "empirical"}, default="balanced"
        Class priors: equal, ``1 / n_classes`` (the Bayes rule for the balanced error rate,
        this project's metric) or the training frequencies (the textbook classifier).
    %(bandwidth)s"""

_ATTRS_DOC = """coef_ : ndarray of shape (1, n_terms), or (n_classes, n_terms) for more than two
        The classifier as a linear model on the log-density terms ``terms_``.  Two classes:
        ``decision_function(X) = transformer_.transform(X) @ coef_[0] + intercept_[0]`` (the
        log posterior odds).  More: row ``k`` gives class ``k``'s joint log-likelihood,
        ``transformer_.transform(X) @ coef_.T + intercept_``, whose largest entry is the
        prediction.  ``coef_series_`` is the same indexed by term name.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        The log prior odds (two classes) or the log priors.
    terms_ : ndarray of str of shape (n_terms,)
        ``log p+(a)``, ``log p-(a)``, ... (``transformer_.get_feature_names_out()`` in the
        names of the fitted data)."""


def _doc(text):
    params = fill_doc(_PARAMS_DOC, bandwidth=BANDWIDTH_PARAMS_DOC)
    return fill_doc(text, params=params, linear=_ATTRS_DOC)


@dataclass(eq=False, repr=False)
class _DensityBayes(
    LinearTermsMixin, LogProbaMixin, DecisionPredictMixin, ClassifierMixin, BandwidthParams
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
        self.classes_, y_index = check_binary_target(y, binary=False)
        self.class_log_prior_ = _log_priors(self.priors, y_index, len(self.classes_))
        return X, y, y_index

    def _set_linear_model(self):
        """``coef_``, ``intercept_`` and ``terms_``: the decision as a linear model of the
        transformer's log-density terms (coefficients from :meth:`_class_term_weights`, one row per class)."""
        names = default_feature_names(self, self.n_features_in_)  # transformer_ saw an array
        _, symbols = class_order(self.classes_)
        self.terms_ = np.asarray(term_names(names, self.transformer_.pairs_, symbols), dtype=object)
        W = self._class_term_weights()
        if W.shape[0] == 2:
            self.coef_ = (W[1] - W[0]).reshape(1, -1)
            self.intercept_ = np.array([self.class_log_prior_[1] - self.class_log_prior_[0]])
        else:
            self.coef_ = W
            self.intercept_ = self.class_log_prior_.copy()

    def _blocks(self):
        """Feature-map position of each class index (:func:`class_order`)."""
        order, _ = class_order(self.classes_)
        return {c: pos for pos, c in enumerate(order)}

    def decision_function(self, X):
        """Two classes: the log posterior odds of ``classes_[1]`` against ``classes_[0]``.
        More: the log posterior probability of each class.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
        """
        jll = self.joint_log_likelihood(X)
        if jll.shape[1] == 2:
            return jll[:, 1] - jll[:, 0]
        return jll - logsumexp(jll, axis=1, keepdims=True)

    def _predict_from_decision(self, score):
        """The class of largest posterior probability (the Bayes rule at
        ``class_log_prior_``): for two classes ``classes_[1]`` where the log posterior odds
        are positive; for more, the largest entry of :meth:`predict_proba` itself, so that a
        near-tie that rounding resolves one way in the log posteriors and the other in the
        probabilities cannot make the two disagree."""
        score = np.asarray(score)
        if score.ndim == 1:
            return self.classes_[(score > 0).astype(int)]
        return self.classes_[np.argmax(self._proba_from_decision(score), axis=1)]

    def predict_proba(self, X):
        """Posterior probabilities of the classes of ``classes_``, within ``[1e-6, 1 - 1e-6]``
        (density products reach exact 0 and 1 in floating point), rows summing to 1.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        return self._proba_from_decision(self.decision_function(X))

    def _proba_from_decision(self, score):
        """:meth:`predict_proba` from decision values already computed (one density
        evaluation for both, :func:`slb.evaluation.predictions.model_outputs`)."""
        score = np.asarray(score, dtype=float)
        if score.ndim == 2:
            return softmax_proba(score)
        return binary_proba(expit(score))


class KDENaiveBayes(_DensityBayes):
    __doc__ = _doc("""Naive Bayes with per-class univariate Gaussian KDEs.

    Parameters
    ----------
    %(params)s

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_log_prior_ : ndarray of shape (n_classes,)
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

    def _class_term_weights(self):
        # log p_y(x) = sum_i log p_y(x_i): 1 on every univariate term of class y's block.
        d, pos = self.n_features_in_, self._blocks()
        W = np.zeros((len(self.classes_), len(self.classes_) * d))
        for c, p in pos.items():
            W[c, p * d : (p + 1) * d] = 1.0
        return W

    def joint_log_likelihood(self, X):
        """``log p_y(x) + log prior_y`` for every class.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        jll : ndarray of shape (n_samples, n_classes)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        T = self.transformer_.transform(X)
        d, pos = self.n_features_in_, self._blocks()
        ll = np.column_stack(
            [T[:, pos[c] * d : (pos[c] + 1) * d].sum(axis=1) for c in range(len(self.classes_))]
        )
        return ll + self.class_log_prior_
