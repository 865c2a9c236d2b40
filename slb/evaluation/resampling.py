"""Stratified (repeated) K-fold splits shared by every classifier of a comparison."""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import RepeatedStratifiedKFold, StratifiedKFold

from .._folds import stratified_splits


def stratified_folds(y, n_splits=5, n_repeats=1, random_state=0, groups=None):
    """Stratified (repeated) K-fold train/test indices, shared by every classifier.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
    n_splits : int
    n_repeats : int
    random_state : int
    groups : array-like of shape (n_samples,) or None
        Rows of one group stay in one fold (``StratifiedGroupKFold``), e.g. identical rows
        (:func:`slb._folds.duplicate_groups`); None, or no group of two rows: the plain
        stratified folds (``StratifiedKFold`` / ``RepeatedStratifiedKFold``, as always).

    Returns
    -------
    folds : list of (train_index, test_index)

    Examples
    --------
    >>> import numpy as np
    >>> from slb.evaluation import stratified_folds
    >>> y = np.array([0, 1] * 10)
    >>> groups = np.repeat(np.arange(10), 2)  # each row twice
    >>> folds = stratified_folds(y, 5, groups=groups)
    >>> all(not set(groups[tr]) & set(groups[te]) for tr, te in folds)
    True
    """
    y = np.asarray(y)
    _, counts = np.unique(y, return_counts=True)
    if counts.min() < n_splits:
        raise ValueError(
            f"The smallest class has {counts.min()} samples, fewer than the {n_splits} folds; "
            "use fewer folds or more data."
        )
    if groups is not None and np.unique(groups).size < np.asarray(groups).size:
        groups = np.asarray(groups)
        # one StratifiedGroupKFold per repeat, seeded as RepeatedStratifiedKFold seeds its
        # repeats (a RandomState drawn from random_state)
        rng = np.random.RandomState(random_state)
        folds = []
        for _ in range(n_repeats):
            seed = rng.randint(np.iinfo(np.int32).max)
            repeat = stratified_splits(y, n_splits, random_state=seed, groups=groups)
            if len(repeat) != n_splits or any(
                set(groups[tr]) & set(groups[te]) for tr, te in repeat
            ):
                raise ValueError(
                    f"Identical rows cannot be kept in one fold of {n_splits}-fold CV with "
                    "every class in every training set: most of a class is copies of a few "
                    "rows. Drop the duplicate rows (prepare_table reports them), use fewer "
                    "folds, or pass groups=None to accept folds that split the copies."
                )
            folds += repeat
        return folds
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

    Examples
    --------
    >>> import numpy as np
    >>> from slb.evaluation import stratified_folds
    >>> from slb.evaluation.resampling import holdout_ratio
    >>> holdout_ratio(stratified_folds(np.array([0, 1] * 10), n_splits=5))
    0.25
    """
    if not folds:
        raise ValueError("Give at least one (train_index, test_index) fold.")
    n_train = np.mean([len(tr) for tr, _ in folds])
    n_test = np.mean([len(te) for _, te in folds])
    return float(n_test / n_train)
