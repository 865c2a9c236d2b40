"""Pair screening rules: which bivariate terms a threshold keeps (SLB paper, Algorithm 1, step 1).

Every function takes the per-class dependence of the candidate pairs as a ``(2, n_pairs)``
array, row 0 for ``classes_[0]`` (``-``) and row 1 for ``classes_[1]`` (``+``), and returns
``(2, n_pairs)`` flags saying whether each class's bivariate term of each pair is kept.

``pair_rule``:

``"either"``
    a pair is kept when it is dependent in either class; both classes' terms enter;
``"both"``
    dependent in both classes;
``"per_class"``
    class y's term enters when the pair is dependent in class y.
"""

from __future__ import annotations

import numpy as np

from .dependence import benjamini_hochberg

PAIR_RULES = ("either", "both", "per_class")


def check_pair_rule(pair_rule):
    """Raise a ``ValueError`` naming the valid rules unless ``pair_rule`` is one of them."""
    if pair_rule not in PAIR_RULES:
        raise ValueError(f"pair_rule must be one of {', '.join(PAIR_RULES)}, got {pair_rule!r}.")


def pair_scores(stat, pair_rule="either"):
    """Screening score of every pair: the larger class dependence, or the smaller for "both".

    Parameters
    ----------
    stat : ndarray of shape (2, n_pairs)
    pair_rule : {"either", "both", "per_class"}

    Returns
    -------
    scores : ndarray of shape (n_pairs,)
    """
    stat = np.asarray(stat, dtype=float).reshape(2, -1)
    return stat.min(axis=0) if pair_rule == "both" else stat.max(axis=0)


def combine(dependent, pair_rule="either"):
    """Per-class "dependent" flags -> per-class "term kept" flags under ``pair_rule``.

    Parameters
    ----------
    dependent : ndarray of bool, shape (2, n_pairs)
    pair_rule : {"either", "both", "per_class"}

    Returns
    -------
    kept : ndarray of bool, shape (2, n_pairs)
    """
    dependent = np.asarray(dependent, dtype=bool).reshape(2, -1)
    if pair_rule == "per_class":
        return dependent
    agg = dependent.all(axis=0) if pair_rule == "both" else dependent.any(axis=0)
    return np.vstack([agg, agg])


def kept_terms(stat, threshold, pair_rule="either"):
    """The bivariate terms a numeric threshold keeps (dependence >= threshold).

    Parameters
    ----------
    stat : ndarray of shape (2, n_pairs)
    threshold : float
    pair_rule : {"either", "both", "per_class"}

    Returns
    -------
    kept : ndarray of bool, shape (2, n_pairs)
    """
    return combine(np.asarray(stat, dtype=float).reshape(2, -1) >= threshold, pair_rule)


def fdr_terms(stat, pvalues, alpha=0.05, pair_rule="either"):
    """Benjamini-Hochberg screening at level ``alpha`` over all pairs of both classes.

    Parameters
    ----------
    stat : ndarray of shape (2, n_pairs)
    pvalues : ndarray of shape (2, n_pairs)
        NaN p-values (too few samples) count as 1.
    alpha : float
    pair_rule : {"either", "both", "per_class"}

    Returns
    -------
    kept : ndarray of bool, shape (2, n_pairs)
    threshold : float
        The numeric threshold that keeps the same terms: the smallest kept screening score (per
        class for "per_class"); +inf when nothing is kept.
    """
    stat = np.asarray(stat, dtype=float).reshape(2, -1)
    p = np.nan_to_num(np.asarray(pvalues, dtype=float).reshape(2, -1), nan=1.0)
    kept = combine(benjamini_hochberg(p.ravel(), alpha).reshape(p.shape), pair_rule)
    if pair_rule == "per_class":
        scores = stat[kept]
    else:
        scores = pair_scores(stat, pair_rule)[kept.any(axis=0)]
    return kept, (float(scores.min()) if scores.size else float("inf"))
