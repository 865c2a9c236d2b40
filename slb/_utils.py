"""Input checks shared by the estimators (binary targets, feature names, pair specifications)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import expit
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from ._sklearn_compat import sigmoid_calibration

MIN_SAMPLES_PER_CLASS = 2


def check_binary_target(y, min_per_class=MIN_SAMPLES_PER_CLASS, *, binary=True, estimator=None):
    """Validate a binary (or, with ``binary=False``, any categorical) target and encode it.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        Labels of any type (strings, 0/1, -1/+1, ...).
    min_per_class : int
        Smallest class size accepted.
    binary : bool
        Refuse more than two classes.
    estimator : str or None
        The binary-only estimator's name, for the message.

    Returns
    -------
    classes : ndarray of shape (n_classes,)
        The sorted labels; with two, ``classes[1]`` is the positive class.
    y_index : ndarray of shape (n_samples,)
        The index in ``classes`` of each label.

    Raises
    ------
    ValueError
        One class only, more than two classes, a continuous target, or a class with fewer than
        ``min_per_class`` samples.
    """
    try:  # sorted first: scikit-learn calls mixed types "Unknown label type: unknown"
        classes, y_index, counts = np.unique(y, return_inverse=True, return_counts=True)
    except TypeError:
        raise ValueError(  # H53: a TypeError "'<' not supported between 'int' and 'str'"
            "The labels y mix types (e.g. numbers and text), so they cannot be sorted into "
            "classes: give them one type, e.g. y.astype(str)."
        ) from None
    check_classification_targets(y)
    if classes.size < 2:
        raise ValueError(
            f"The label has only one class ({classes.tolist()[0]!r}): a classifier needs examples of "
            "two classes. Check the label column or the rows you kept."
        )
    if binary and (classes.size > 2 or type_of_target(y) == "multiclass"):
        labels = classes.tolist()
        shown = ", ".join(repr(c) for c in labels[:8]) + (" ..." if len(labels) > 8 else "")
        who = estimator or "this classifier"
        raise ValueError(
            f"Only binary classification is supported by {who}: it takes two classes only "
            f"(its paper's construction is binary), but the label has {len(labels)} classes "
            f"({shown}). Use a classifier that takes several "
            "classes (SLB, SLB-, LU, TAN, NB, RF, SVM(RBF), 5NN), or pick a positive class "
            f"and merge the others into the negative class, e.g. y == {labels[0]!r}."
        )
    small = counts < min_per_class
    if small.any():
        c = classes.tolist()[int(np.argmax(small))]
        raise ValueError(
            f"Class {c!r} has {counts.min()} sample(s); each class needs at least "
            f"{min_per_class} {'to be fitted' if estimator else 'to estimate its densities'}. "
            "Add data or merge classes."
        )
    return classes, y_index.reshape(-1)


MAX_ABS_VALUE = 1e100


def validate_training_data(estimator, X, y, **kwargs):
    """``sklearn.utils.validation.validate_data`` for ``fit``, quiet on values near 1e308.

    scikit-learn's finiteness check sums ``X``; values near the float limit overflow that sum
    and raise a ``RuntimeWarning`` instead of an answer.  :func:`check_magnitude` then refuses
    such values with a clear message naming the column.
    """
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            X_out, y_out = validate_data(estimator, X, y, **kwargs)
    except ValueError as e:
        text = _text_columns(X) if "could not convert" in str(e) else []
        if not text:
            raise
        raise ValueError(  # H53: "could not convert string to float: 'u'" named no column
            f"{len(text)} column(s) hold text, not numbers: {', '.join(map(repr, text[:5]))}"
            f"{' …' if len(text) > 5 else ''}. Drop them, or encode them with "
            "slb.TableCleaner (one-hot columns for categories), before fitting."
        ) from None
    return X_out, y_out


def _text_columns(X) -> list:
    """The columns of a DataFrame ``X`` that do not convert to numbers (names as text)."""
    if not hasattr(X, "columns"):
        return []
    out = []
    for c in X.columns:
        try:
            np.asarray(X[c], dtype=float)
        except (TypeError, ValueError):
            out.append(str(c))
    return out


def check_magnitude(X, names=None):
    """Refuse values so large that differences of them overflow (|x| > 1e100).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Finite values (already checked by ``validate_data``).
    names : list of str or None

    Raises
    ------
    ValueError
        Naming the first offending feature.
    """
    if X.size == 0:
        return
    big = np.abs(X).max(axis=0) > MAX_ABS_VALUE
    if big.any():
        i = int(np.argmax(big))
        name = names[i] if names is not None else f"x{i}"
        raise ValueError(
            f"Feature {name!r} has values as large as {np.abs(X[:, i]).max():.3g}, beyond what "
            f"density estimation can handle (|x| <= {MAX_ABS_VALUE:.0e}); rescale it, e.g. "
            "take its logarithm or change its units."
        )


def default_feature_names(estimator, n_features):
    """The feature names seen in ``fit`` or ``x0, x1, ...`` (scikit-learn's convention)."""
    names = getattr(estimator, "feature_names_in_", None)
    if names is not None:
        return [str(n) for n in names]
    return [f"x{i}" for i in range(n_features)]


def all_pairs(n_features):
    """All index pairs ``(i, j)`` with ``i < j``, shape (n_pairs, 2)."""
    iu = np.triu_indices(n_features, k=1)
    return np.column_stack(iu).astype(int)


def resolve_pairs(pairs, names):
    """Turn a pair specification into an index array of shape (n_pairs, 2), ``i < j``.

    Parameters
    ----------
    pairs : None, "all", or iterable of (i, j)
        Index pairs, or pairs of feature names.
    names : list of str

    Returns
    -------
    pairs : ndarray of shape (n_pairs, 2)
    """
    d = len(names)
    if pairs is None or (isinstance(pairs, str) and pairs == "all"):
        return all_pairs(d)
    if isinstance(pairs, str):
        raise ValueError(f"pairs must be 'all', None or a list of feature pairs, got {pairs!r}.")
    arr = np.asarray(pairs) if isinstance(pairs, np.ndarray) else None
    if arr is not None and arr.dtype.kind in "iu" and arr.ndim == 2 and arr.shape[1] == 2:
        return _index_pairs(arr, d)  # the common case (the pages, the path), vectorised
    lookup = {n: i for i, n in enumerate(names)}
    out = []
    for p in pairs:
        if len(p) != 2:
            raise ValueError(f"Each pair must have two features, got {p!r}.")
        idx = []
        for f in p:
            if isinstance(f, (int, np.integer)):
                if not 0 <= f < d:
                    raise ValueError(f"Feature index {f} is out of range for {d} features.")
                idx.append(int(f))
            elif f in lookup:
                idx.append(lookup[f])
            else:
                raise ValueError(f"Unknown feature {f!r} in pair {tuple(p)!r}.")
        i, j = sorted(idx)
        if i == j:
            raise ValueError(f"A pair needs two different features, got {tuple(p)!r}.")
        out.append((i, j))
    if not out:
        return np.zeros((0, 2), dtype=int)
    return np.unique(np.asarray(out, dtype=int), axis=0)


def _index_pairs(arr, d):
    """:func:`resolve_pairs` of an integer array of shape (k, 2): the loop's checks, in the
    same order, and its result, without a Python call per pair."""
    wrong = ((arr < 0) | (arr >= d)).any(axis=1) | (arr[:, 0] == arr[:, 1])
    if wrong.any():
        p = [int(f) for f in arr[np.flatnonzero(wrong)[0]]]
        for f in p:
            if not 0 <= f < d:
                raise ValueError(f"Feature index {f} is out of range for {d} features.")
        raise ValueError(f"A pair needs two different features, got {tuple(p)!r}.")
    if arr.shape[0] == 0:
        return np.zeros((0, 2), dtype=int)
    return np.unique(np.sort(arr, axis=1).astype(int), axis=0)


def resolve_overrides(overrides, names):
    """Per-feature bandwidth multipliers as an array (NaN where the global one applies).

    Parameters
    ----------
    overrides : dict or None
        Maps a feature name or index to a positive multiplier.
    names : list of str

    Returns
    -------
    multipliers : ndarray of shape (n_features,) or None
    """
    if not overrides:
        return None
    out = np.full(len(names), np.nan)
    lookup = {n: i for i, n in enumerate(names)}
    for key, value in dict(overrides).items():
        if isinstance(key, (int, np.integer)) and 0 <= key < len(names):
            i = int(key)
        elif key in lookup:
            i = lookup[key]
        else:
            raise ValueError(f"Bandwidth override for unknown feature {key!r}.")
        value = float(value)
        if not np.isfinite(value) or value <= 0:
            raise ValueError(f"Bandwidth override for {key!r} must be positive, got {value}.")
        out[i] = value
    return out


def overrides_by_index(overrides, names):
    """Bandwidth overrides keyed by feature index (for inner transformers fitted on arrays).

    Parameters
    ----------
    overrides : dict or None
        Feature name or index -> multiplier.
    names : list of str

    Returns
    -------
    overrides : dict or None
    """
    arr = resolve_overrides(overrides, names)
    if arr is None:
        return None
    return {i: float(v) for i, v in enumerate(arr) if np.isfinite(v)}


class BinaryClassifierMixin:
    """The scikit-learn tags of a binary-only classifier (more classes: a clear ValueError)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


class DecisionPredictMixin:
    """``predict`` from ``decision_function``: its sign for two classes (one column of
    scores, positive for ``classes_[1]``), its largest column for more (one score per class).
    """

    def predict(self, X):
        """Predicted labels: for two classes ``classes_[1]`` where the decision function is
        positive, else ``classes_[0]``; for more, the class of the largest decision value.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        # decision_function first: it checks that the model is fitted
        return self._predict_from_decision(self.decision_function(X))

    def _predict_from_decision(self, scores):
        """:meth:`predict` from decision values already computed."""
        scores = np.asarray(scores)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]


class SignPredictMixin(BinaryClassifierMixin, DecisionPredictMixin):
    """``predict`` of a binary classifier from the sign of its ``decision_function``
    (:class:`DecisionPredictMixin`'s, with the tags of a binary-only classifier)."""


#: Probabilities are kept within [PROBA_EPS, 1 - PROBA_EPS], so that log-loss stays finite.
PROBA_EPS = 1e-6


def binary_proba(p1):
    """``(n, 2)`` probabilities of ``classes_[0]`` and ``classes_[1]`` from ``P(classes_[1])``,
    clipped away from exact 0 and 1 (:data:`PROBA_EPS`)."""
    p1 = np.clip(np.asarray(p1, dtype=float), PROBA_EPS, 1.0 - PROBA_EPS)
    return np.column_stack([1.0 - p1, p1])


def multiclass_proba(proba):
    """Rows of class probabilities clipped away from exact 0 and 1 (:data:`PROBA_EPS`) and
    renormalised to sum to 1; two columns are clipped as :func:`binary_proba` clips them.

    Parameters
    ----------
    proba : ndarray of shape (n_samples, n_classes)

    Returns
    -------
    proba : ndarray of shape (n_samples, n_classes)

    Examples
    --------
    >>> import numpy as np
    >>> from slb._utils import multiclass_proba
    >>> p = multiclass_proba(np.array([[1.0, 0.0, 0.0]]))
    >>> bool(abs(p.sum() - 1) < 1e-12 and p.min() > 0)
    True
    """
    proba = np.asarray(proba, dtype=float)
    if proba.shape[1] == 2:
        return binary_proba(proba[:, 1])
    # A floor that grows (by at most 0.1 %) with the class's rank in its row: two classes
    # below it stay apart in the order they had, so clipping creates no tie that would make
    # the order of predict_proba and of its logarithm differ (scikit-learn's checks compare
    # them; a plain clip made two classes exactly equal).
    rank = np.argsort(np.argsort(proba, axis=1, kind="stable"), axis=1, kind="stable")
    floor = PROBA_EPS * (1.0 + 1e-3 * rank / proba.shape[1])
    # Exact ties (classes with equal log posteriors) are ordered as a stable sort orders them,
    # by a relative 1e-12 per rank: far above the rounding of a logarithm, far below any
    # difference that matters, so predict_proba, its logarithm and its argmax agree.
    p = np.maximum(proba, floor) * (1.0 + 1e-12 * rank)
    return p / p.sum(axis=1, keepdims=True)


def softmax_proba(log_scores):
    """:func:`multiclass_proba` of ``softmax(log_scores)`` (rows of unnormalised log
    probabilities, e.g. joint log-likelihoods)."""
    from scipy.special import softmax

    return multiclass_proba(softmax(np.asarray(log_scores, dtype=float), axis=1))


def multinomial_calibration(scores, y_index, n_classes):
    """A multinomial logistic map from K decision values to K class probabilities.

    The K-class counterpart of :func:`platt_scaling`: ``P(k | s) = softmax(A s + b)_k`` fitted
    by scikit-learn's :class:`~sklearn.linear_model.LogisticRegression` (lbfgs, its default
    L2 penalty ``C = 1``, which keeps separable scores at a finite slope as Platt's smoothed
    targets do) to decision values the caller has cross-fitted.

    Parameters
    ----------
    scores : ndarray of shape (n_samples, n_classes)
    y_index : ndarray of shape (n_samples,)
        Class indices 0 .. n_classes - 1.
    n_classes : int

    Returns
    -------
    calibration : ndarray of shape (n_classes, n_classes + 1)
        ``[A | b]``.
    """
    from sklearn.linear_model import LogisticRegression

    scores = np.asarray(scores, dtype=float)
    y_index = np.asarray(y_index)
    present = np.unique(y_index)
    out = np.zeros((n_classes, n_classes + 1))
    if present.size < 2:
        out[present, -1] = 1.0
        return out
    lr = LogisticRegression(max_iter=1000).fit(scores, y_index)
    if present.size == 2:  # one class absent from the scored rows: its logit stays -inf-ish
        out[:, -1] = -30.0
        out[present[1], :-1], out[present[1], -1] = lr.coef_[0], lr.intercept_[0]
        out[present[0], -1] = 0.0
        return out
    out[present, :-1], out[present, -1] = lr.coef_, lr.intercept_
    missing = np.setdiff1d(np.arange(n_classes), present)
    out[missing, -1] = -30.0
    return out


def apply_calibration(calibration, scores):
    """Probabilities of :func:`multinomial_calibration`'s map at decision values ``scores``."""
    A, b = calibration[:, :-1], calibration[:, -1]
    return softmax_proba(np.asarray(scores, dtype=float) @ A.T + b)


def platt_scaling(scores, y_index):
    """Platt's sigmoid ``P(y = 1 | s) = 1 / (1 + exp(a s + b))`` fitted to decision values.

    scikit-learn's implementation behind ``CalibratedClassifierCV(method="sigmoid")`` (Platt's
    smoothed targets, so separable scores give a finite slope), applied to scores the caller
    has cross-fitted.

    Parameters
    ----------
    scores : ndarray of shape (n_samples,)
        Decision values of rows that did not train the model that scored them.
    y_index : ndarray of shape (n_samples,)
        0/1 labels.

    Returns
    -------
    platt : ndarray of shape (2,)
        ``(a, b)``.
    """
    a, b = sigmoid_calibration(np.asarray(scores, dtype=float), np.asarray(y_index))
    return np.array([a, b], dtype=float)


def pinned_platt(scores, y_index, offsets):
    """Platt's ``(a, b)`` with the intercept pinned (``docs/probabilities.md``).

    ``P(classes_[1] | s) = 1 / (1 + exp(a s + b))`` with ``b = -(offsets[1] - offsets[0])``
    and ``a = -scale`` from :func:`slb.probabilities.fit_logit_scale` on cross-fitted scores:
    the sign of ``s`` stays the rule of the priors behind ``offsets``.

    Parameters
    ----------
    scores : ndarray of shape (n_samples,)
    y_index : ndarray of shape (n_samples,)
        0/1 labels.
    offsets : array-like of shape (2,)
        :func:`slb.probabilities.decision_offsets`; ``(0, 0)``: ``predict_proba > 1/2``
        exactly where ``s > 0``.

    Returns
    -------
    platt : ndarray of shape (2,)

    Examples
    --------
    >>> import numpy as np
    >>> from slb._utils import pinned_platt
    >>> s = np.array([-2.0, -1.0, 1.0, 0.5, 2.0, -0.5])
    >>> a, b = pinned_platt(s, np.array([0, 0, 1, 0, 1, 1]), [0.0, 0.0])
    >>> bool(a < 0), bool(b == 0)
    (True, True)
    """
    from .probabilities import fit_logit_scale

    o = np.asarray(offsets, dtype=float)
    scale = fit_logit_scale(np.asarray(scores, dtype=float), y_index, o)
    return np.array([-scale, o[0] - o[1]])


class LogProbaMixin:
    """``predict_log_proba`` as the logarithm of ``predict_proba`` (finite: it is clipped)."""

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
        """
        return np.log(self.predict_proba(X))


class LinearTermsMixin:
    """``coef_series_``: ``coef_`` as a Series (two classes) or a DataFrame (one column per
    class) indexed by ``terms_``."""

    @property
    def coef_series_(self):
        """``coef_[0]`` as a Series indexed by the term names ``terms_``, named "coef"; with
        more than two classes a DataFrame, one column of ``coef_`` per class of ``classes_``."""
        check_is_fitted(self)
        index = pd.Index(self.terms_, name="term")
        if self.coef_.shape[0] == 1:
            return pd.Series(self.coef_[0], index=index, name="coef")
        return pd.DataFrame(self.coef_.T, index=index, columns=list(self.classes_))


class PlattProbaMixin(LogProbaMixin):
    """``predict_proba`` by Platt scaling of ``decision_function`` with the fitted ``platt_``."""

    def predict_proba(self, X):
        """Calibrated ``P(y | x)`` at the training class frequencies (the convention of
        ``docs/probabilities.md``): the fitted ``platt_`` map of the decision value (two
        classes) or of the K decision values (more).  Fitted by this library, the map has
        its offset pinned, so that ``predict`` equals ``argmax(predict_proba(X) *
        decision_prior_ / training_prevalence_)`` (:func:`slb.probabilities.predict_at_priors`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Within ``[1e-6, 1 - 1e-6]``, rows summing to 1.
        """
        check_is_fitted(self)
        return self._proba_from_decision(self.decision_function(X))

    def _proba_from_decision(self, score):
        """:meth:`predict_proba` from decision values already computed (one evaluation of
        the model for both, :func:`slb.evaluation.predictions.model_outputs`)."""
        if getattr(self, "platt_", None) is None:
            raise ValueError(
                f"This {type(self).__name__} was saved before probabilities were calibrated; "
                "refit it to use predict_proba (decision_function and predict work)."
            )
        platt = np.asarray(self.platt_, dtype=float)
        if platt.ndim == 2:  # K classes: the multinomial map of the K decision values
            return apply_calibration(platt, score)
        a, b = platt
        return binary_proba(expit(-(a * np.asarray(score, dtype=float) + b)))
