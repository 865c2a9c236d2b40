"""Kernel density naive Bayes: the product of per-class univariate KDEs.

``log p_y(x) = sum_i log p_y(x_i)``; the decision is the log-likelihood ratio plus the log prior
ratio.  It uses the same univariate densities, bandwidths and density floor as SLB, so the
comparison isolates what SLB's learned weights and bivariate terms add.

Probabilities follow the library's one convention (``docs/probabilities.md``,
:mod:`slb.probabilities`): ``predict_proba`` estimates ``P(y | x)`` at the training class
frequencies, calibrated by cross-fitting.  A product of ``d`` kernel densities treats dependent
features as independent evidence, so the raw log-likelihood ratio is far too large (on digits
3 vs 8, 78 % of naive Bayes's held-out probabilities sat at the 1e-6 clip); :meth:`fit` scores
every training row with densities fitted without its fold and fits one positive factor on the
log-likelihoods (temperature scaling, offset pinned so ``predict`` does not move).
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from numbers import Integral

import numpy as np
from scipy.special import expit, logsumexp
from sklearn.base import ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from .._folds import stratified_splits
from .._sklearn_compat import Interval, StrOptions
from .._utils import (
    DecisionPredictMixin,
    LinearTermsMixin,
    LogProbaMixin,
    binary_proba,
    check_binary_target,
    check_magnitude,
    default_feature_names,
    multiclass_proba,
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
from ..probabilities import decision_offsets, fit_logit_scale, scaled_proba

PRIORS = ("balanced", "empirical")


def _log_priors(priors, y_index, n_classes=2):
    if priors == "balanced":
        return np.log(np.full(n_classes, 1.0 / n_classes))
    if priors == "empirical":
        return np.log(np.bincount(y_index, minlength=n_classes) / y_index.size)
    raise ValueError(f"priors must be one of {', '.join(PRIORS)}, got {priors!r}.")


_PARAMS_DOC = """priors : {"balanced", "empirical"}, default="balanced"
        Class priors: equal, ``1 / n_classes`` (the Bayes rule for the balanced error rate,
        this project's metric) or the training frequencies (the textbook classifier).  These
        are the priors of ``predict`` (``decision_prior_``); ``predict_proba`` is at the
        training frequencies either way (``docs/probabilities.md``).
    calibrate : bool, default=True
        Calibrate ``predict_proba`` by cross-fitting: one positive factor on the per-class
        log-likelihoods (``logit_scale_``), fitted on training rows scored by densities
        fitted without their fold (``n_calibration_folds`` stratified folds, identical rows
        kept in one fold).  False: the plug-in posterior (``logit_scale_ = 1``), which is
        overconfident.  ``predict`` is the same either way.
    n_calibration_folds : int, default=5
        Folds of the cross-fitting (fewer when a class has fewer rows; none below 2).
    random_state : int, RandomState instance or None, default=0
        Seeds the calibration folds (None: a fresh seed each fit).
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


_PROBA_ATTRS_DOC = """training_prevalence_ : ndarray of shape (n_classes,)
        Class frequencies of the training rows: ``predict_proba`` estimates ``P(y | x)`` at
        them (``docs/probabilities.md``).
    decision_prior_ : ndarray of shape (n_classes,)
        The priors whose Bayes rule ``predict`` is (``exp(class_log_prior_)``): ``predict``
        equals ``argmax(predict_proba(X) * decision_prior_ / training_prevalence_)``, the
        balanced-error rule :func:`slb.probabilities.balanced_predict` by default.
    logit_scale_ : float
        The calibration factor: ``predict_proba = softmax(logit_scale_ * joint log-likelihood
        + log training_prevalence_ - log decision_prior_)``; 1 with ``calibrate=False``."""


def _doc(text):
    params = fill_doc(_PARAMS_DOC, bandwidth=BANDWIDTH_PARAMS_DOC)
    return fill_doc(text, params=params, linear=_ATTRS_DOC, proba=_PROBA_ATTRS_DOC)


@dataclass(eq=False, repr=False)
class _DensityBayes(
    LinearTermsMixin, LogProbaMixin, DecisionPredictMixin, ClassifierMixin, BandwidthParams
):
    """Decision function, labels and posterior probabilities from ``joint_log_likelihood``;
    the priors and the bandwidth settings."""

    _: KW_ONLY
    priors: str = "balanced"
    calibrate: bool = True
    n_calibration_folds: int = 5
    random_state: object = 0

    _parameter_constraints = {
        **BANDWIDTH_CONSTRAINTS,
        "priors": [StrOptions(set(PRIORS))],
        "calibrate": ["boolean"],
        "n_calibration_folds": [Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
    }

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
        K = len(self.classes_)
        self.class_log_prior_ = _log_priors(self.priors, y_index, K)
        self.training_prevalence_ = np.bincount(y_index, minlength=K) / y_index.size
        self.decision_prior_ = np.exp(self.class_log_prior_)
        return X, y, y_index

    def _calibrate(self, X, y_index):
        """Set ``logit_scale_`` from cross-fitted joint log-likelihoods of the training rows.

        Each fold's rows are scored by the class densities of the other folds (the fitted
        bandwidths and, for TAN, the fitted trees); identical rows share a fold
        (:func:`slb._folds.stratified_splits`).
        """
        self.logit_scale_ = 1.0
        K = len(self.classes_)
        k = int(min(self.n_calibration_folds, np.bincount(y_index, minlength=K).min()))
        if not self.calibrate or k < 2:
            return
        rs = self.random_state
        seed = rs if isinstance(rs, Integral) else check_random_state(rs).randint(2**31 - 1)
        tr = self.transformer_
        jll = np.empty((y_index.size, K))
        for train, test in stratified_splits(y_index, k, random_state=seed, X=X):
            kde = tr._make_kde(X[train], y_index[train])
            jll[test] = self._class_log_likelihood(tr._features(kde, X[test]))
        jll += self.class_log_prior_
        self.logit_scale_ = fit_logit_scale(jll, y_index, self._offsets())

    def _offsets(self):
        return decision_offsets(self.training_prevalence_, self.decision_prior_)

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
        """The Bayes rule at ``decision_prior_`` (``class_log_prior_``): for two classes
        ``classes_[1]`` where the log posterior odds are positive; for more, the largest entry
        of ``predict_proba * decision_prior_ / training_prevalence_`` itself, so that a
        near-tie that rounding resolves one way in the log posteriors and the other in the
        probabilities cannot make the two disagree (``docs/probabilities.md``)."""
        score = np.asarray(score)
        if score.ndim == 1:
            return self.classes_[(score > 0).astype(int)]
        proba = self._proba_from_decision(score)
        if getattr(self, "logit_scale_", None) is not None:
            proba = proba * (self.decision_prior_ / self.training_prevalence_)
        return self.classes_[np.argmax(proba, axis=1)]

    def predict_proba(self, X):
        """Calibrated ``P(y | x)`` at the training class frequencies, for the classes of
        ``classes_`` (the convention of ``docs/probabilities.md``): ``softmax(logit_scale_ *
        joint log-likelihood + log training_prevalence_ - log decision_prior_)``, within
        ``[1e-6, 1 - 1e-6]``, rows summing to 1.  ``predict`` equals
        ``argmax(predict_proba(X) * decision_prior_ / training_prevalence_)``
        (:func:`slb.probabilities.predict_at_priors`) up to ties at the clip.

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
        scale = getattr(self, "logit_scale_", None)
        if scale is not None:
            return multiclass_proba(scaled_proba(score, scale, self._offsets()))
        # a model saved before the convention (no logit_scale_): its plug-in posterior
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
    %(proba)s
    n_features_in_ : int
    feature_names_in_ : ndarray

    Examples
    --------
    >>> import numpy as np
    >>> from slb.peers.naive_bayes import KDENaiveBayes
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat(["neg", "pos"], 50)
    >>> X = rng.normal(size=(100, 3)) + 2.0 * (y == "pos")[:, None]
    >>> clf = KDENaiveBayes().fit(X, y)
    >>> clf.predict([[0.0, 0.0, 0.0], [2.0, 2.0, 2.0]]).tolist()
    ['neg', 'pos']
    >>> clf.predict_proba(X[:4]).shape, clf.joint_log_likelihood(X[:4]).shape
    ((4, 2), (4, 2))
    >>> bool(clf.score(X, y) > 0.85)
    True
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
        X, y, y_index = self._check_fit_data(X, y)
        self.transformer_ = self._density_transformer(X, pairs=[]).fit(X, y)
        self._set_linear_model()
        self._calibrate(X, y_index)
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
        return self._class_log_likelihood(self.transformer_.transform(X)) + self.class_log_prior_

    def _class_log_likelihood(self, T):
        """``log p_y(x)`` of every class from the feature map's rows ``T``."""
        d, pos = self.n_features_in_, self._blocks()
        return np.column_stack(
            [T[:, pos[c] * d : (pos[c] + 1) * d].sum(axis=1) for c in range(len(self.classes_))]
        )
