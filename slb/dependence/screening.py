"""Pair screening rules: which bivariate terms a threshold keeps (SLB paper, Algorithm 1, step 1).

Every function takes the per-class dependence of the candidate pairs as a
``(n_classes, n_pairs)`` array, row ``c`` for ``classes_[c]`` (two classes: row 0 is ``-``, row
1 is ``+``), and returns ``(n_classes, n_pairs)`` flags saying whether each class's bivariate
term of each pair is kept.

``pair_rule``:

``"either"``
    a pair is kept when it is dependent in any class; every class's term of it enters;
``"both"``
    dependent in every class (both, for two);
``"per_class"``
    class y's term enters when the pair is dependent in class y (the paper's Algorithm 1 and
    Lemma 1: class y's bivariate term belongs to class y's own graph).

``screening_score`` (what ``lambda`` is compared with):

``"statistic"``
    the raw per-class statistic (biased HSIC, or ``|r|``).  Its null level scales like
    ``1 / n_y`` (HSIC) or ``1 / sqrt(n_y)`` (``|r|``), so with unequal classes the smaller
    class's noise pairs rank first;
``"scaled"``
    ``n_y * HSIC`` (or ``sqrt(n_y) |r|``): the null level no longer depends on the class size,
    and one ``lambda`` means the same evidence in both classes and in any CV split;
``"pvalue"``
    ``-log10`` of the per-pair p-value (gamma approximation for HSIC).
"""

from __future__ import annotations

import numpy as np

from .hsic import benjamini_hochberg, get_dependence_measure

PAIR_RULES = ("either", "both", "per_class")
SCREENING_SCORES = ("statistic", "scaled", "pvalue")


def check_pair_rule(pair_rule):
    """Raise a ``ValueError`` naming the valid rules unless ``pair_rule`` is one of them.

    Examples
    --------
    >>> from slb.dependence.screening import check_pair_rule
    >>> check_pair_rule("per_class")  # valid: nothing happens
    >>> check_pair_rule("any")
    Traceback (most recent call last):
        ...
    ValueError: pair_rule must be one of either, both, per_class, got 'any'.
    """
    if pair_rule not in PAIR_RULES:
        raise ValueError(f"pair_rule must be one of {', '.join(PAIR_RULES)}, got {pair_rule!r}.")


def check_screening_score(screening_score):
    """Raise a ``ValueError`` naming the valid scores unless ``screening_score`` is one.

    Examples
    --------
    >>> from slb.dependence.screening import check_screening_score
    >>> check_screening_score("scaled")  # valid: nothing happens
    >>> check_screening_score("raw")
    Traceback (most recent call last):
        ...
    ValueError: screening_score must be one of statistic, scaled, pvalue, got 'raw'.
    """
    if screening_score not in SCREENING_SCORES:
        raise ValueError(
            f"screening_score must be one of {', '.join(SCREENING_SCORES)}, "
            f"got {screening_score!r}."
        )


def screening_statistic(stat, pvalues, class_counts, measure="hsic", screening_score="statistic"):
    """Per-class screening score of every pair on the scale named by ``screening_score``.

    Parameters
    ----------
    stat : ndarray of shape (n_classes, n_pairs)
        Raw dependence (HSIC or ``|r|``) in each class.
    pvalues : ndarray of shape (n_classes, n_pairs) or None
        Needed for ``"pvalue"``; NaN counts as 1.
    class_counts : array-like of shape (n_classes,)
        Rows of each class the statistic was computed on.
    measure : {"hsic", "pearson", "spearman"}
    screening_score : {"statistic", "scaled", "pvalue"}

    Returns
    -------
    score : ndarray of shape (n_classes, n_pairs)
        Larger means more dependent.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.dependence.screening import screening_statistic
    >>> stat = np.array([[0.02, 0.10], [0.05, 0.01]])  # HSIC of 2 pairs in 2 classes
    >>> screening_statistic(stat, None, [50, 200], screening_score="scaled").round(2).tolist()
    [[1.0, 5.0], [10.0, 2.0]]
    >>> pvalues = np.array([[0.1, 0.001], [0.01, 0.5]])
    >>> screening_statistic(stat, pvalues, [50, 200], screening_score="pvalue").round(2).tolist()
    [[1.0, 3.0], [2.0, 0.3]]
    """
    check_screening_score(screening_score)
    stat = np.asarray(stat, dtype=float)
    K = stat.shape[0] if stat.ndim == 2 else 2  # one row per class; flat: two classes
    stat = stat.reshape(K, -1)
    if screening_score == "statistic":
        return stat
    if screening_score == "pvalue":
        p = np.nan_to_num(np.asarray(pvalues, dtype=float).reshape(K, -1), nan=1.0)
        return -np.log10(np.clip(p, 1e-300, 1.0))
    n = np.asarray(class_counts, dtype=float).reshape(K, 1)
    return stat * get_dependence_measure(measure).null_scale(n)


def top_fraction_threshold(score, fraction, pair_rule="either", n_total=None):
    """The threshold that keeps the top ``fraction`` of the screening scores.

    Over pairs (by :func:`pair_scores`) for "either"/"both", over the (class, pair) terms for
    "per_class".  Fraction 0 gives +inf (nothing kept).

    Parameters
    ----------
    score : ndarray of shape (n_classes, n_pairs)
    fraction : float in [0, 1]
    pair_rule : {"either", "both", "per_class"}
    n_total : int or None
        Number of pairs the fraction refers to when ``score`` holds only the top candidates
        (None: ``n_pairs``); the threshold then keeps at most every candidate.

    Returns
    -------
    threshold : float

    Examples
    --------
    >>> import numpy as np
    >>> from slb.dependence.screening import top_fraction_threshold
    >>> score = np.array([[0.1, 0.5, 0.02, 0.3], [0.3, 0.05, 0.01, 0.2]])
    >>> top_fraction_threshold(score, 0.5)  # the 2 most dependent of 4 pairs
    0.3
    >>> top_fraction_threshold(score, 0.25, pair_rule="per_class")  # 2 of 8 terms
    0.3
    >>> top_fraction_threshold(score, 0.0)
    inf
    """
    s = score.ravel() if pair_rule == "per_class" else pair_scores(score, pair_rule)
    total = s.size if n_total is None else n_total * s.size // max(score.shape[1], 1)
    k = min(int(np.ceil(fraction * total - 1e-9)), s.size)
    if k == 0 or s.size == 0:
        return float("inf")
    return float(np.sort(s)[::-1][k - 1])


def pair_scores(stat, pair_rule="either"):
    """Screening score of every pair: the larger class dependence, or the smaller for "both".

    Parameters
    ----------
    stat : ndarray of shape (n_classes, n_pairs)
    pair_rule : {"either", "both", "per_class"}

    Returns
    -------
    scores : ndarray of shape (n_pairs,)

    Examples
    --------
    >>> import numpy as np
    >>> from slb.dependence.screening import pair_scores
    >>> stat = np.array([[0.1, 0.5, 0.02], [0.3, 0.05, 0.01]])
    >>> pair_scores(stat).tolist(), pair_scores(stat, "both").tolist()
    ([0.3, 0.5, 0.02], [0.1, 0.05, 0.01])
    """
    stat = _per_class(stat)
    return stat.min(axis=0) if pair_rule == "both" else stat.max(axis=0)


def _per_class(a, dtype=float):
    """``a`` as a (n_classes, n_pairs) array: a 2-d array as it is, a flat one as two rows."""
    a = np.asarray(a, dtype=dtype)
    return a if a.ndim == 2 else a.reshape(2, -1)


def combine(dependent, pair_rule="either"):
    """Per-class "dependent" flags -> per-class "term kept" flags under ``pair_rule``.

    Parameters
    ----------
    dependent : ndarray of bool, shape (n_classes, n_pairs)
    pair_rule : {"either", "both", "per_class"}

    Returns
    -------
    kept : ndarray of bool, shape (n_classes, n_pairs)

    Examples
    --------
    >>> import numpy as np
    >>> from slb.dependence.screening import combine
    >>> dependent = np.array([[True, True, False], [True, False, False]])
    >>> combine(dependent, "either").astype(int).tolist()
    [[1, 1, 0], [1, 1, 0]]
    >>> combine(dependent, "both").astype(int).tolist()
    [[1, 0, 0], [1, 0, 0]]
    >>> combine(dependent, "per_class").astype(int).tolist()
    [[1, 1, 0], [1, 0, 0]]
    """
    dependent = _per_class(dependent, bool)
    if pair_rule == "per_class":
        return dependent
    agg = dependent.all(axis=0) if pair_rule == "both" else dependent.any(axis=0)
    return np.vstack([agg] * dependent.shape[0])


def kept_terms(stat, threshold, pair_rule="either"):
    """The bivariate terms a numeric threshold keeps (dependence >= threshold).

    Parameters
    ----------
    stat : ndarray of shape (n_classes, n_pairs)
    threshold : float
    pair_rule : {"either", "both", "per_class"}

    Returns
    -------
    kept : ndarray of bool, shape (n_classes, n_pairs)

    Examples
    --------
    >>> import numpy as np
    >>> from slb.dependence.screening import kept_terms
    >>> stat = np.array([[0.1, 0.5, 0.02], [0.3, 0.05, 0.01]])
    >>> kept_terms(stat, 0.2).astype(int).tolist()  # pairs 0 and 1: both classes' terms
    [[1, 1, 0], [1, 1, 0]]
    >>> kept_terms(stat, 0.2, "per_class").astype(int).tolist()
    [[0, 1, 0], [1, 0, 0]]
    """
    return combine(_per_class(stat) >= threshold, pair_rule)


def fdr_terms(stat, pvalues, alpha=0.05, pair_rule="either"):
    """Benjamini-Hochberg screening at level ``alpha`` over all pairs of all classes.

    Parameters
    ----------
    stat : ndarray of shape (n_classes, n_pairs)
    pvalues : ndarray of shape (n_classes, n_pairs)
        NaN p-values (too few samples) count as 1.
    alpha : float
    pair_rule : {"either", "both", "per_class"}

    Returns
    -------
    kept : ndarray of bool, shape (n_classes, n_pairs)
    threshold : float
        The numeric threshold that keeps the same terms: the smallest kept screening score (per
        class for "per_class"); +inf when nothing is kept.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.dependence.screening import fdr_terms
    >>> stat = np.array([[0.1, 0.5, 0.02], [0.3, 0.05, 0.01]])
    >>> pvalues = np.array([[0.2, 1e-6, 0.9], [1e-4, 0.3, 0.8]])
    >>> kept, threshold = fdr_terms(stat, pvalues, alpha=0.05)
    >>> kept.astype(int).tolist(), threshold
    ([[1, 1, 0], [1, 1, 0]], 0.3)
    """
    stat = _per_class(stat)
    p = np.nan_to_num(_per_class(pvalues).reshape(stat.shape), nan=1.0)
    kept = combine(benjamini_hochberg(p.ravel(), alpha).reshape(p.shape), pair_rule)
    if pair_rule == "per_class":
        scores = stat[kept]
    else:
        scores = pair_scores(stat, pair_rule)[kept.any(axis=0)]
    return kept, (float(scores.min()) if scores.size else float("inf"))
