"""Stratified (repeated) K-fold splits shared by every classifier of a comparison."""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import RepeatedStratifiedKFold, StratifiedKFold


def stratified_folds(y, n_splits=5, n_repeats=1, random_state=0):
    """Stratified (repeated) K-fold train/test indices, shared by every classifier.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
    n_splits : int
    n_repeats : int
    random_state : int

    Returns
    -------
    folds : list of (train_index, test_index)
    """
    y = np.asarray(y)
    _, counts = np.unique(y, return_counts=True)
    if counts.min() < n_splits:
        raise ValueError(
            f"The smallest class has {counts.min()} samples, fewer than the {n_splits} folds; "
            "use fewer folds or more data."
        )
    if n_repeats == 1:
        cv = StratifiedKFold(n_splits, shuffle=True, random_state=random_state)
    else:
        cv = RepeatedStratifiedKFold(
            n_splits=n_splits, n_repeats=n_repeats, random_state=random_state
        )
    return list(cv.split(np.zeros(y.size), y))


def holdout_ratio(folds):
    """Mean test size over mean training size, ``n_test / n_train``, of a list of folds.

    Parameters
    ----------
    folds : list of (train_index, test_index)

    Returns
    -------
    ratio : float
        0.25 for 5-fold CV.
    """
    if not folds:
        raise ValueError("Give at least one (train_index, test_index) fold.")
    n_train = np.mean([len(tr) for tr, _ in folds])
    n_test = np.mean([len(te) for _, te in folds])
    return float(n_test / n_train)
