"""The balanced error rate, the score every comparison in slb reports."""

from __future__ import annotations

import numpy as np
from sklearn.metrics import balanced_accuracy_score


def balanced_error_rate(y_true, y_pred):
    """Balanced error rate ``BER = 1 - (sensitivity + specificity) / 2``.

    ``1 - sklearn.metrics.balanced_accuracy_score(y_true, y_pred)``: the mean over the classes
    present in ``y_true`` of the share of their rows predicted wrongly.  One-dimensional label
    arrays of the same kind (numbers, or strings) are scored with numpy directly: the same
    numbers (``tests/test_speed_paths.py`` checks them against scikit-learn) without
    scikit-learn's input validation, which cost ~2-6 ms per call, and SLB's threshold path
    scores every fold of every λ (25 folds per λ change on the dashboard's Compare page).
    Anything else goes to scikit-learn (its checks and messages).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)

    Returns
    -------
    ber : float
        In [0, 1]; ``1 - 1/K`` for a constant prediction among ``K`` classes (0.5 for two).

    Examples
    --------
    >>> from slb._metrics import balanced_error_rate
    >>> round(balanced_error_rate([0, 0, 0, 1], [0, 0, 1, 1]), 4)  # recalls 2/3 and 1
    0.1667
    >>> balanced_error_rate(["a", "a", "b"], ["a", "a", "a"])  # constant prediction
    0.5
    """
    t, p = np.asarray(y_true), np.asarray(y_pred)
    if not _same_simple_kind(t, p):
        return 1.0 - balanced_accuracy_score(y_true, y_pred)
    classes = np.unique(t)
    recall = np.array([np.count_nonzero(p[t == c] == c) for c in classes]) / np.array(
        [np.count_nonzero(t == c) for c in classes]
    )
    return 1.0 - float(np.mean(recall))


def _same_simple_kind(t, p):
    """Both 1-d, same length, non-empty, and both numeric (no NaN) or both strings (numpy
    strings, or object arrays holding only ``str``: pandas' string labels)."""
    if t.ndim != 1 or p.ndim != 1 or t.shape != p.shape or t.size == 0:
        return False
    numeric = t.dtype.kind in "biu" and p.dtype.kind in "biu"
    if t.dtype.kind == "f" or p.dtype.kind == "f":
        numeric = t.dtype.kind in "biuf" and p.dtype.kind in "biuf"
        numeric = numeric and bool(np.isfinite(t).all() and np.isfinite(p).all())
    return numeric or (_strings(t) and _strings(p))


def _strings(a):
    """Numpy strings, or an object array of ``str`` only (not ``np.str_`` or mixed labels,
    which keep scikit-learn's handling)."""
    if a.dtype.kind == "U":
        return True
    return a.dtype.kind == "O" and all(type(v) is str for v in a.tolist())
