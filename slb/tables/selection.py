"""Fewer rows and fewer features: a stratified row sample and label-blind feature selection.

Steps 4 and 6 of the cleaning.  ``max_rows`` keeps a stratified random sample of the rows
(:func:`_stratified_sample`, seed ``random_state``); ``max_features`` keeps the features with
the largest *communality* (:func:`_communality`): the share of each feature's rank variance
explained by the principal components that stand out from noise (above the Marchenko-Pastur
edge; at most :data:`N_COMPONENTS_FOR_SELECTION`, computed on at most
:data:`SELECTION_SAMPLE_ROWS` rows).  Neither looks at the label beyond keeping its proportions.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._messages import _q
from .prepare import _Work
from .records import Change
from .scalars import _label_text

__all__ = ["N_COMPONENTS_FOR_SELECTION", "SELECTION_SAMPLE_ROWS"]


#: Largest number of principal components used by the ``max_features`` criterion.
N_COMPONENTS_FOR_SELECTION = 10


#: Largest number of rows used to compute the ``max_features`` criterion.
SELECTION_SAMPLE_ROWS = 2000


def _stratified_sample(
    y: np.ndarray, classes: list[Any], size: int, minimum: int, rng: np.random.Generator
) -> np.ndarray:
    counts = np.array([int(np.sum(y == c)) for c in classes])
    n = int(counts.sum())
    exact = counts * size / n
    alloc = np.floor(exact).astype(np.int64)
    remainder = size - int(alloc.sum())
    order = np.argsort(-(exact - alloc), kind="stable")
    alloc[order[:remainder]] += 1
    floor = np.minimum(counts, minimum)
    for k in range(len(classes)):
        while alloc[k] < floor[k]:
            donor = int(np.argmax(alloc - floor))
            if alloc[donor] - floor[donor] <= 0:
                break
            alloc[donor] -= 1
            alloc[k] += 1
    chosen = []
    for k, c in enumerate(classes):
        idx = np.flatnonzero(y == c)
        chosen.append(rng.choice(idx, size=int(alloc[k]), replace=False))
    return np.sort(np.concatenate(chosen))


def _communality(F: np.ndarray, random_state: int | None) -> np.ndarray:
    """Share of each column's rank variance explained by the components that exceed noise.

    Components count when their eigenvalue (of the rank correlation matrix) exceeds the
    Marchenko-Pastur upper edge ``(1 + sqrt(d / n))**2``, the largest eigenvalue expected from
    ``d`` independent features and ``n`` rows; at most :data:`N_COMPONENTS_FOR_SELECTION`
    components, and at least one.
    """
    from scipy.stats import rankdata

    n, d = F.shape
    rng = np.random.default_rng(random_state)
    if n > SELECTION_SAMPLE_ROWS:
        F = F[np.sort(rng.choice(n, SELECTION_SAMPLE_ROWS, replace=False))]
        n = F.shape[0]
    R = rankdata(F, axis=0)
    R -= R.mean(axis=0)
    sd = R.std(axis=0)
    sd[sd == 0] = 1.0
    Z = R / sd
    k = min(N_COMPONENTS_FOR_SELECTION, n - 1, d)
    if k < 1:
        return np.zeros(d)
    # Eigen-decomposition of the smaller Gram matrix (n <= SELECTION_SAMPLE_ROWS rows).
    if n <= d:
        w, u = np.linalg.eigh(Z @ Z.T)
        top = np.argsort(-w, kind="stable")[:k]
        w = np.clip(w[top], 0.0, None)
        s = np.sqrt(w)
        vt = (u[:, top].T @ Z) / np.where(s > 0, s, 1.0)[:, None]
    else:
        w, v = np.linalg.eigh(Z.T @ Z)
        top = np.argsort(-w, kind="stable")[:k]
        w = np.clip(w[top], 0.0, None)
        vt = v[:, top].T
    eigenvalues = w / n
    edge = (1.0 + math.sqrt(d / n)) ** 2
    k = max(1, int(np.sum(eigenvalues > edge)))
    explained = eigenvalues[:k, None] * vt[:k] ** 2
    return explained.sum(axis=0)


def _limit_rows(w: _Work, classes: list, options: dict, report: list) -> dict:
    """Step 4: a stratified sample when there are more rows than ``max_rows``."""
    max_rows, random_state = options["max_rows"], options["random_state"]
    min_class_size, n_folds = options["min_class_size"], options["n_folds"]
    final_classes, y_values = classes, w.y
    counts = {c: int(np.sum(y_values == c)) for c in final_classes}
    if max_rows is not None and len(w.rows) > max_rows:
        rng = np.random.default_rng(random_state)
        minimum = max(min_class_size, n_folds or 0)
        pick = _stratified_sample(y_values, final_classes, max_rows, minimum, rng)
        before = dict(counts)
        w.keep_rows(pick)
        rows, y_values = w.rows, w.y
        counts = {c: int(np.sum(y_values == c)) for c in final_classes}
        detail = "; ".join(
            f"{_q(_label_text(c))}: {before[c]:,} -> {counts[c]:,}" for c in final_classes
        )
        report.append(
            Change(
                "subsampled_rows",
                f"The table has {sum(before.values()):,} usable rows, more than the limit of "
                f"{max_rows:,}, so a random sample of {len(rows):,} rows is used, keeping the "
                f"class proportions ({detail}). The sample is drawn with a fixed seed "
                f"({random_state}), so it is the same every time, but results describe this sample.",
                rows=tuple(int(r) for r in rows),
                count=int(len(rows)),
                severity="warning",
            )
        )
    return counts


def _limit_features(w: _Work, max_features: int | None, random_state, report: list) -> None:
    """Step 6: at most ``max_features`` columns, by communality (label-blind)."""
    F, fnames = w.F, w.names
    if max_features is not None and len(fnames) > max_features:
        score = _communality(F, random_state)
        order = np.argsort(-score, kind="stable")[:max_features]
        keep_idx = np.sort(order)
        d_before = len(fnames)
        w.keep_columns(keep_idx)
        fnames = w.names
        report.append(
            Change(
                "selected_features",
                f"The table has {d_before:,} usable features, more than the limit of "
                f"{max_features:,}. The {max_features:,} features that share the most variation "
                "with the others were kept (largest share of variance explained by the main "
                "principal components of the rank-transformed data). This choice ignores the label, so it does not make cross-validated "
                "results look better than they are. To choose the features yourself, select them "
                "explicitly.",
                columns=tuple(fnames),
                count=d_before - max_features,
                severity="warning",
            )
        )
