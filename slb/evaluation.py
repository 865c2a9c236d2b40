"""Evaluation protocol of the SLB paper (section 5.2): stratified K-fold CV on identical folds,
balanced error rate, and a two-sided Wilcoxon signed-rank test of every classifier against the
best, Bonferroni-corrected.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.base import clone
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import RepeatedStratifiedKFold, StratifiedKFold


def balanced_error_rate(y_true, y_pred):
    """Balanced error rate ``BER = 1 - (sensitivity + specificity) / 2``.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)

    Returns
    -------
    ber : float
        In [0, 1]; 0.5 for a constant prediction.
    """
    return 1.0 - balanced_accuracy_score(y_true, y_pred)


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


def wilcoxon_against_best(per_fold, alpha=0.05):
    """Compare every classifier with the one of lowest mean BER.

    Two-sided Wilcoxon signed-rank test on the paired per-fold BERs, Bonferroni-corrected for the
    number of comparisons; a classifier is *tied* with the best when the corrected p-value is at
    least ``alpha`` (the paper's bold entries).

    Parameters
    ----------
    per_fold : DataFrame
        One row per fold, one column per classifier, BER values.
    alpha : float

    Returns
    -------
    summary : DataFrame
        Index: classifiers, sorted by mean BER; columns ``mean``, ``sd`` (ddof=1), ``p_value``,
        ``p_bonferroni``, ``best``, ``tied_with_best``.
    """
    mean = per_fold.mean(axis=0)
    sd = per_fold.std(axis=0, ddof=1) if len(per_fold) > 1 else per_fold.std(axis=0, ddof=0)
    best = mean.idxmin()
    m = max(per_fold.shape[1] - 1, 1)
    rows = []
    for name in per_fold.columns:
        if name == best:
            p = np.nan
        else:
            diff = per_fold[name].to_numpy() - per_fold[best].to_numpy()
            if np.allclose(diff, 0):
                p = 1.0
            else:
                p = float(stats.wilcoxon(diff, alternative="two-sided").pvalue)
        p_b = min(1.0, p * m) if np.isfinite(p) else np.nan
        rows.append(
            {
                "classifier": name,
                "mean": mean[name],
                "sd": sd[name],
                "p_value": p,
                "p_bonferroni": p_b,
                "best": name == best,
                "tied_with_best": bool(name == best or p_b >= alpha),
            }
        )
    return pd.DataFrame(rows).set_index("classifier").sort_values("mean")


@dataclass
class Comparison:
    """Result of :func:`compare_estimators`.

    Attributes
    ----------
    per_fold : DataFrame
        BER per fold (rows) and classifier (columns).
    summary : DataFrame
        See :func:`wilcoxon_against_best`.
    fit_seconds : Series
        Total fit + predict time per classifier.
    folds : list of (train_index, test_index)
    """

    per_fold: pd.DataFrame
    summary: pd.DataFrame
    fit_seconds: pd.Series
    folds: list = field(repr=False)


def compare_estimators(
    estimators,
    X,
    y,
    *,
    n_splits=5,
    n_repeats=1,
    random_state=0,
    folds=None,
    alpha=0.05,
    progress=None,
):
    """Cross-validate several classifiers on identical stratified folds.

    Parameters
    ----------
    estimators : dict
        Name -> unfitted estimator (cloned for every fold).
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    n_splits, n_repeats, random_state
        The folds (see :func:`stratified_folds`), unless ``folds`` is given.
    folds : list of (train_index, test_index) or None
    alpha : float
        Level of the Bonferroni-corrected Wilcoxon tests.
    progress : callable or None
        Called as ``progress(done, total, message)`` after each fit.

    Returns
    -------
    comparison : Comparison
    """
    if not estimators:
        raise ValueError("Give at least one classifier to compare.")
    y = np.asarray(y)
    Xa = X
    if folds is None:
        folds = stratified_folds(y, n_splits, n_repeats, random_state)
    take = (lambda idx: Xa.iloc[idx]) if hasattr(Xa, "iloc") else (lambda idx: Xa[idx])
    ber = np.zeros((len(folds), len(estimators)))
    secs = np.zeros(len(estimators))
    total = len(folds) * len(estimators)
    done = 0
    for k, (tr, te) in enumerate(folds):
        for e, (name, est) in enumerate(estimators.items()):
            t0 = time.perf_counter()
            model = clone(est).fit(take(tr), y[tr])
            ber[k, e] = balanced_error_rate(y[te], model.predict(take(te)))
            secs[e] += time.perf_counter() - t0
            done += 1
            if progress is not None:
                progress(done, total, f"{name}: fold {k + 1}/{len(folds)}")
    per_fold = pd.DataFrame(ber, columns=list(estimators))
    per_fold.index.name = "fold"
    return Comparison(
        per_fold=per_fold,
        summary=wilcoxon_against_best(per_fold, alpha),
        fit_seconds=pd.Series(secs, index=list(estimators), name="seconds"),
        folds=folds,
    )
