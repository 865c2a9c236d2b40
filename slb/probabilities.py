"""One meaning of ``predict_proba`` and of ``predict`` for every classifier (issue 26, item 2).

The convention (``docs/probabilities.md`` is its full statement):

* ``predict_proba(X)[:, c]`` estimates the calibrated probability ``P(y = c | x)`` at the
  class frequencies of the TRAINING data (``training_prevalence_``), so that log-loss, the
  Brier score and a reliability diagram measure it honestly;
* ``predict(X)`` is the Bayes rule for the priors ``decision_prior_``: the class ``c`` with the
  largest ``proba_c * decision_prior_c / training_prevalence_c``.  The product's classifiers
  (SLB, SLB(Pearson), SLB-, LU, NB, TAN) default to equal priors, the rule of the balanced error
  rate (BER): ``argmax_c proba_c / training_prevalence_c``.  A classifier fitted for the plain
  error rate (``priors="empirical"``, ``class_weight=None``, the literature's random forest and
  5NN) has ``decision_prior_ == training_prevalence_``: ``predict`` is ``argmax proba``.

:func:`balanced_predict` and :func:`prevalence_predict` give either rule from any probabilities,
and :func:`predict_at_priors` the rule of any other priors (a deployment prevalence).  The
calibration map the product's classifiers use is :func:`fit_logit_scale`: one positive factor on
their decision values, with the offset pinned so that it cannot move ``predict``.
:func:`one_vs_rest_reliability` bins every column of ``predict_proba`` against how often its
class comes true: the reliability diagram of any number of classes.

A leaf module (numpy and scipy only).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import log_softmax

__all__ = [
    "balanced_predict",
    "decision_offsets",
    "decision_rule",
    "fit_logit_scale",
    "one_vs_rest_reliability",
    "predict_at_priors",
    "prevalence_predict",
    "probability_bins",
]


def _as_proba(proba):
    proba = np.asarray(proba, dtype=float)
    if proba.ndim != 2 or proba.shape[1] < 2:
        raise ValueError(
            f"proba must have one column per class (n_samples, n_classes >= 2), got shape "
            f"{proba.shape}."
        )
    return proba


def _as_prior(prior, n_classes, what):
    prior = np.asarray(prior, dtype=float).reshape(-1)
    if prior.size != n_classes or not np.all(np.isfinite(prior) & (prior > 0)):
        raise ValueError(
            f"{what} must hold {n_classes} positive numbers (one per column of proba), got "
            f"{prior.tolist()}."
        )
    return prior / prior.sum()


def _labels(index, classes):
    return index if classes is None else np.asarray(classes)[index]


def predict_at_priors(proba, training_prevalence, priors, classes=None):
    """The Bayes rule for class priors ``priors`` from probabilities at ``training_prevalence``.

    ``argmax_c proba_c * priors_c / training_prevalence_c``: the probabilities are reweighted
    from the training frequencies to ``priors`` (Bayes' theorem) and the largest is taken.

    Parameters
    ----------
    proba : array-like of shape (n_samples, n_classes)
        ``predict_proba`` output (at the training prevalence).
    training_prevalence : array-like of shape (n_classes,)
        Class frequencies of the training data (``training_prevalence_``).
    priors : array-like of shape (n_classes,)
        The priors of the rule (normalised here): equal priors give :func:`balanced_predict`,
        ``training_prevalence`` gives :func:`prevalence_predict`.
    classes : array-like of shape (n_classes,) or None
        Labels of the columns (``classes_``); None: column indices.

    Returns
    -------
    y : ndarray of shape (n_samples,)

    Examples
    --------
    >>> from slb.probabilities import predict_at_priors
    >>> predict_at_priors([[0.7, 0.3]], [0.85, 0.15], [0.5, 0.5]).tolist()
    [1]
    >>> predict_at_priors([[0.7, 0.3]], [0.85, 0.15], [0.85, 0.15], ["a", "b"]).tolist()
    ['a']
    """
    proba = _as_proba(proba)
    K = proba.shape[1]
    pi = _as_prior(training_prevalence, K, "training_prevalence")
    w = _as_prior(priors, K, "priors")
    return _labels(np.argmax(proba * (w / pi), axis=1), classes)


def balanced_predict(proba, training_prevalence, classes=None):
    """The balanced-error (BER) rule: ``argmax_c proba_c / training_prevalence_c``.

    The Bayes rule at equal priors, which minimises the balanced error rate; it is what
    ``predict`` of SLB, SLB-, LU, NB and TAN returns (their default ``decision_prior_``).

    Parameters
    ----------
    proba : array-like of shape (n_samples, n_classes)
    training_prevalence : array-like of shape (n_classes,)
    classes : array-like of shape (n_classes,) or None

    Returns
    -------
    y : ndarray of shape (n_samples,)

    Examples
    --------
    >>> from slb.probabilities import balanced_predict
    >>> balanced_predict([[0.7, 0.3], [0.9, 0.1]], [0.85, 0.15]).tolist()
    [1, 0]
    """
    proba = _as_proba(proba)
    return predict_at_priors(proba, training_prevalence, np.ones(proba.shape[1]), classes)


def prevalence_predict(proba, classes=None):
    """The plain-error rule: the class of largest probability (Bayes rule at the training
    prevalence).

    Parameters
    ----------
    proba : array-like of shape (n_samples, n_classes)
    classes : array-like of shape (n_classes,) or None

    Returns
    -------
    y : ndarray of shape (n_samples,)

    Examples
    --------
    >>> from slb.probabilities import prevalence_predict
    >>> prevalence_predict([[0.7, 0.3]], ["neg", "pos"]).tolist()
    ['neg']
    """
    return _labels(np.argmax(_as_proba(proba), axis=1), classes)


def decision_rule(estimator) -> str | None:
    """Which rule a fitted classifier's ``predict`` applies to its ``predict_proba``.

    Parameters
    ----------
    estimator : fitted classifier (or a ``Pipeline`` ending in one)

    Returns
    -------
    "balanced", "prevalence", "priors" or None
        ``"balanced"``: equal ``decision_prior_`` (the BER rule, ``argmax_c proba_c /
        training_prevalence_c``, :func:`balanced_predict`); ``"prevalence"``:
        ``decision_prior_ == training_prevalence_`` (``argmax proba``, :func:`prevalence_predict`);
        ``"priors"``: other priors (:func:`predict_at_priors`); None: the estimator does not
        state its priors (``decision_prior_`` and ``training_prevalence_``).  Equal priors on
        a table of equal class shares are ``"balanced"`` (both rules agree there).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from slb.probabilities import decision_rule
    >>> decision_rule(SimpleNamespace(decision_prior_=[0.5, 0.5], training_prevalence_=[0.8, 0.2]))
    'balanced'
    >>> decision_rule(SimpleNamespace(decision_prior_=[0.8, 0.2], training_prevalence_=[0.8, 0.2]))
    'prevalence'
    >>> decision_rule(object()) is None
    True
    """
    steps = getattr(estimator, "steps", None)
    final = steps[-1][1] if steps else estimator
    prior = getattr(final, "decision_prior_", None)
    prevalence = getattr(final, "training_prevalence_", None)
    if prior is None or prevalence is None:
        return None
    w = np.asarray(prior, dtype=float)
    pi = np.asarray(prevalence, dtype=float)
    if np.allclose(w / w.sum(), 1.0 / w.size):
        return "balanced"
    if w.shape == pi.shape and np.allclose(w / w.sum(), pi / pi.sum()):
        return "prevalence"
    return "priors"


def decision_offsets(training_prevalence, decision_prior):
    """Log offsets ``log training_prevalence_c - log decision_prior_c`` (centred).

    Added to ``scale * decision`` inside the softmax they turn decision values whose largest
    entry is the rule at ``decision_prior`` into probabilities at ``training_prevalence``
    whose reweighting to ``decision_prior`` has the same largest entry, for any positive scale.

    Parameters
    ----------
    training_prevalence, decision_prior : array-like of shape (n_classes,)

    Returns
    -------
    offsets : ndarray of shape (n_classes,)

    Examples
    --------
    >>> from slb.probabilities import decision_offsets
    >>> [round(float(v), 3) for v in decision_offsets([0.8, 0.2], [0.5, 0.5])]
    [0.693, -0.693]
    """
    pi = np.asarray(training_prevalence, dtype=float)
    w = np.asarray(decision_prior, dtype=float)
    o = np.log(pi / pi.sum()) - np.log(w / w.sum())
    return o - o.mean()


def _log_scores(decision, offsets):
    d = np.asarray(decision, dtype=float)
    if d.ndim == 1:  # two classes: one score, positive for class index 1
        d = np.column_stack([np.zeros_like(d), d])
    return d, np.asarray(offsets, dtype=float)


def fit_logit_scale(decision, y_index, offsets, *, max_log_scale=12.0):
    """The positive factor ``s`` of ``P(c | x) = softmax(s * decision(x) + offsets)_c`` that
    maximises the likelihood of out-of-fold decision values (temperature scaling, ``1 / s``,
    with the offset pinned).

    The targets are Platt's smoothed labels (``(n_c + 1) / (n_c + 2)`` on the true class, the
    rest shared by the others), so that separable scores still give a finite factor.  With
    ``offsets`` from :func:`decision_offsets` the map never changes which class the decision
    rule picks: only how confident the probabilities are.

    Parameters
    ----------
    decision : array-like of shape (n_samples,) or (n_samples, n_classes)
        Decision values of rows that did not train the model that scored them (one column for
        two classes, positive for class index 1).
    y_index : array-like of shape (n_samples,)
        Class indices 0 .. n_classes - 1.
    offsets : array-like of shape (n_classes,)
    max_log_scale : float, default=12.0
        The search runs over ``log s`` in ``[-max_log_scale, max_log_scale]``.

    Returns
    -------
    scale : float

    Examples
    --------
    >>> import numpy as np
    >>> from slb.probabilities import fit_logit_scale
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 4000)
    >>> d = 10.0 * (2 * y - 1) + 10.0 * rng.normal(size=4000)  # true log-odds: d / 5
    >>> round(fit_logit_scale(d, y, [0.0, 0.0]), 1)
    0.2
    """
    D, o = _log_scores(decision, offsets)
    y = np.asarray(y_index).astype(int).reshape(-1)
    n, K = D.shape
    if y.size != n or o.size != K:
        raise ValueError("decision, y_index and offsets must describe the same rows and classes.")
    counts = np.bincount(y, minlength=K)[y]
    on = (counts + 1.0) / (counts + 2.0)
    target = np.repeat(((1.0 - on) / (K - 1))[:, None], K, axis=1)
    target[np.arange(n), y] = on
    spread = np.ptp(D, axis=1)
    if n == 0 or not np.any(spread > 0):
        return 1.0

    def loss(t):
        return -np.sum(target * log_softmax(np.exp(t) * D + o, axis=1)) / n

    res = minimize_scalar(
        loss, bounds=(-max_log_scale, max_log_scale), method="bounded", options={"xatol": 1e-6}
    )
    return float(np.exp(res.x))


def scaled_proba(decision, scale, offsets):
    """``softmax(scale * decision + offsets)``: the probabilities of :func:`fit_logit_scale`'s
    map (two classes: one score in, two columns out).

    Parameters
    ----------
    decision : array-like of shape (n_samples,) or (n_samples, n_classes)
    scale : float
    offsets : array-like of shape (n_classes,)

    Returns
    -------
    proba : ndarray of shape (n_samples, n_classes)

    Examples
    --------
    >>> from slb.probabilities import scaled_proba
    >>> scaled_proba([0.0], 1.0, [0.0, 0.0]).tolist()
    [[0.5, 0.5]]
    """
    D, o = _log_scores(decision, offsets)
    return np.exp(log_softmax(float(scale) * D + o, axis=1))


def probability_bins(p, n_bins=10):
    """Equal-width bins of ``[0, 1]`` for reliability diagrams: their edges and each
    probability's bin (a probability on an inner edge goes to the upper bin, 1.0 to the last).

    The edges are ``k / n_bins``, the double nearest each fraction, so a probability computed
    as 3/10 or 30/50 sits on its edge.  ``np.linspace(0, 1, 11)`` stores 0.3, 0.6 and 0.7 one
    step too high (0.6000000000000001), which put 5-NN's and a forest's probabilities of 0.6
    in the bin below (H51).

    Parameters
    ----------
    p : array-like
        Probabilities in ``[0, 1]``.
    n_bins : int, default=10

    Returns
    -------
    edges : ndarray of shape (n_bins + 1,)
    bins : ndarray of int, the shape of ``p``

    Examples
    --------
    >>> from slb.probabilities import probability_bins
    >>> edges, bins = probability_bins([0.0, 0.3, 0.6, 0.65, 0.7, 1.0])
    >>> bins.tolist()
    [0, 3, 6, 6, 7, 9]
    >>> bool(edges[6] == 0.6)
    True
    """
    n_bins = int(n_bins)
    edges = np.arange(n_bins + 1) / n_bins
    bins = np.clip(np.digitize(np.asarray(p, dtype=float), edges[1:-1]), 0, n_bins - 1)
    return edges, bins


def one_vs_rest_reliability(proba, y_index, *, n_bins=10):
    """One-vs-rest (class-wise) reliability of probabilities of any number of classes.

    For every class ``c`` the column ``proba[:, c]`` is cut into ``n_bins`` equal-width bins
    of ``[0, 1]`` (a probability on an inner edge goes to the upper bin, 1.0 to the last);
    each non-empty bin gives the mean predicted probability of ``c`` and the share of its rows
    whose class is ``c``.  Calibrated probabilities (the convention of
    ``docs/probabilities.md``) put every bin of every class on the diagonal.

    Why one-vs-rest and not the top-label (confidence) diagram, which bins only the largest
    probability of each row against how often its class is the true one: the product's
    ``predict`` is the balanced rule ``argmax_c proba_c / training_prevalence_c``, which reads
    every column, not only the largest, and log-loss and the Brier score score every column
    too, so every column must be honest; a top-label diagram can look perfect while the
    probabilities of the classes that are never the largest (often the rare ones, which the
    balanced rule picks) are far off.  With two classes, class 1's bins are the two-class
    diagram's bins (``slb.viz.calibration.reliability_table``) and class 0's its mirror
    image, so the K-class diagram reads as the two-class one.

    Parameters
    ----------
    proba : array-like of shape (n_samples, n_classes)
        Probabilities (``predict_proba``, out of fold), each row summing to 1.
    y_index : array-like of shape (n_samples,)
        True class indices 0 .. n_classes - 1 (the columns of ``proba``).
    n_bins : int, default=10

    Returns
    -------
    bins : dict of ndarray
        One entry per non-empty (class, bin), ordered by class then bin: ``class_index``,
        ``bin``, ``lower``, ``upper``, ``mean_predicted``, ``observed`` (share of rows of
        that class), ``count``.

    Examples
    --------
    >>> from slb.probabilities import one_vs_rest_reliability
    >>> proba = [[0.7, 0.2, 0.1], [0.6, 0.3, 0.1], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6]]
    >>> r = one_vs_rest_reliability(proba, [0, 1, 1, 2], n_bins=2)
    >>> r["class_index"].tolist(), r["count"].tolist()
    ([0, 0, 1, 1, 2, 2], [2, 2, 3, 1, 3, 1])
    >>> [round(float(v), 3) for v in r["observed"]]  # class 0: 0 of 2 low rows, 1 of 2 high
    [0.0, 0.5, 0.333, 1.0, 0.0, 1.0]
    """
    proba = _as_proba(proba)
    y = np.asarray(y_index).reshape(-1)
    n, K = proba.shape
    if y.size != n:
        raise ValueError(f"y_index has {y.size} entries for {n} rows of proba.")
    if n_bins < 1:
        raise ValueError(f"n_bins must be at least 1, got {n_bins}.")
    if not np.all(np.isfinite(proba)) or np.any(proba < 0) or np.any(proba > 1):
        raise ValueError("proba must hold finite probabilities in [0, 1].")
    if not np.isin(y, np.arange(K)).all():
        raise ValueError(f"y_index must hold class indices 0 .. {K - 1}.")
    edges, b = probability_bins(proba, n_bins)  # (n, K) bin of each entry
    hit = y[:, None] == np.arange(K)[None, :]
    cell = np.arange(K)[None, :] * n_bins + b  # (class, bin) as one index
    size = K * n_bins
    count = np.bincount(cell.ravel(), minlength=size)
    p_sum = np.bincount(cell.ravel(), weights=proba.ravel(), minlength=size)
    y_sum = np.bincount(cell.ravel(), weights=hit.ravel().astype(float), minlength=size)
    full = np.flatnonzero(count)
    k, j = np.divmod(full, n_bins)
    return {
        "class_index": k,
        "bin": j,
        "lower": edges[j],
        "upper": edges[j + 1],
        "mean_predicted": p_sum[full] / count[full],
        "observed": y_sum[full] / count[full],
        "count": count[full],
    }
