"""SLB's cross-validated BER as an exact step function of the threshold λ.

On each fold, the kept pairs at λ are the pairs whose screening score (from that fold's
training rows) reaches λ, so the fold's BER only changes where λ crosses one of the fold's
scores; between two consecutive scores the same SVM is fitted.  The mean over folds is
therefore a step function whose breakpoints are the union of the folds' scores.
:func:`ber_steps` fits one SVM per fold and per *distinct kept set* (never one per λ asked
for), on kernels grown fit by fit (below), and returns every step; :func:`step_at` reads the value at any λ.

Speed.  On one fold the kept sets of consecutive breakpoints are nested (a lower λ keeps the
same pairs and one more), so :func:`_nested_predictions` grows one training kernel and one
test-by-training kernel column group by column group (``K += A A^T`` with only the entering
columns ``A``, :class:`slb.model.kernel.IncrementalKernel`) and hands each kernel straight to
libsvm (the hinge loss).  It is the SVM of :func:`slb.model.svm.fit_linear_svm` (the same
standardisation, kernel, libsvm call and parameters as scikit-learn's
``SVC(kernel="precomputed")``), without the estimator wrapper
(:func:`slb._sklearn_compat.libsvm_fit`).  With the squared hinge the masks go to
:func:`slb.model.svm.grid_mask_predictions`, whose Newton path is warm-started mask by mask.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._metrics import balanced_error_rate
from .._parallel import one_blas_thread
from ..dependence.screening import kept_terms, pair_scores
from .kernel import IncrementalKernel
from .path import NO_ANCHOR, column_mask, path_loss
from .svm import (
    GRAM_MAX_SAMPLES,
    class_weights,
    column_scaling,
    grid_mask_predictions,
)

__all__ = ["ber_steps", "chunk_bounds", "join_steps", "step_at"]


def _fold_values(fold, pair_rule) -> np.ndarray:
    """Sorted distinct finite scores of one fold: every λ where its kept set can change."""
    s = np.asarray(fold.screen.score, dtype=float)
    s = s if s.ndim == 2 else s.reshape(2, -1)
    s = s.ravel() if pair_rule == "per_class" else pair_scores(s, pair_rule)
    return np.unique(s[np.isfinite(s)])


def _cut(values, lo, hi, n_folds, max_fits):
    """Lowest λ of the computed range: ``lo``, or higher when ``max_fits`` would be exceeded."""
    if max_fits is None:
        return float(lo)
    inside = np.sort(np.concatenate([v[(v > lo) & (v <= hi)] for v in values]))[::-1]
    room = max(int(max_fits) - 2 * n_folds, 1)  # each fold also fits at the two ends
    return float(lo) if inside.size <= room else float(inside[room - 1])


def _nested_predictions(
    T_train, y_train, T_test, masks, C, class_weight, n_classes=2, loss="hinge"
):
    """Test predictions (class indices) of :func:`~slb.model.svm.fit_linear_model` for each
    column mask.

    The masks are visited by size; while each contains the previous one, the training kernel
    ``K`` and the test-by-training kernel ``Kx`` only gain the entering columns' products, and
    the test decisions are ``Kx[:, support] @ dual + b`` (= ``z_test . w + b`` with
    ``w = sum_i dual_i z_i``).  Above :data:`~slb.model.svm.GRAM_MAX_SAMPLES` training rows,
    and for more than two classes (the multinomial model has no kernel),
    :func:`~slb.model.svm.grid_mask_predictions` fits each mask instead; so it does for the
    squared hinge, whose Newton path (:mod:`slb.model.primal`) is warm-started mask by mask.
    """
    y = np.asarray(y_train)
    if y.size > GRAM_MAX_SAMPLES or n_classes > 2 or loss != "hinge":
        # the working-set solver, the K-class multinomial model (no kernel to share) or the
        # squared hinge's warm Newton path
        return grid_mask_predictions(
            T_train,
            y_train,
            T_test,
            masks,
            [C],
            class_weight,
            n_classes,
            loss=loss,
            anchor=NO_ANCHOR,
        )[0]
    problems = [(y.astype(np.float64), class_weights(class_weight, y_train))]
    with one_blas_thread():
        # Only the columns some mask keeps are standardised (each column on its own, as
        # StandardScaler does on any subset of columns).
        used = np.logical_or.reduce([np.zeros(T_train.shape[1], bool), *masks])
        center, scale = np.zeros(T_train.shape[1]), np.ones(T_train.shape[1])
        center[used], scale[used] = column_scaling(T_train[:, used])
        kernel = IncrementalKernel(T_train, T_test, center, scale, removals=False)
        preds = [np.zeros(T_test.shape[0], dtype=int)] * len(masks)  # empty mask: class 0
        for g in np.argsort([int(m.sum()) for m in masks], kind="stable"):
            if not masks[g].any():
                continue
            kernel.set_columns(masks[g])  # nested masks: only the entering columns' products
            ((yk, w),) = problems
            preds[g] = (kernel.decision(*kernel.fit(yk, C, w)) > 0).astype(int)
        return preds


def _fold_steps(path, fold, values, grid):
    """BER and kept pairs of one fold at every λ of ``grid`` (one SVM per distinct kept set)."""
    # λ and the smallest fold score >= λ keep the same terms: compute once per such score.
    where = np.searchsorted(values, grid, side="left")
    uniq, back = np.unique(where, return_inverse=True)
    lams = [values[k] if k < values.size else np.inf for k in uniq]
    keeps = [kept_terms(fold.screen.score, lam, path.pair_rule) for lam in lams]
    masks = [column_mask(k, path.n_features_in_) for k in keeps]
    # The kept sets of one fold are nested, so two of the same size are the same set.
    _, first, which = np.unique([int(m.sum()) for m in masks], True, True)
    y = path._y_index
    distinct = [masks[i] for i in first]
    preds = _nested_predictions(
        fold.T_train,
        y[fold.train],
        fold.T_test,
        distinct,
        path.C,
        path._class_weight(),
        len(path.classes_),
        path_loss(path),
    )
    ber = np.array([balanced_error_rate(y[fold.test], p) for p in preds])[which.ravel()]
    pairs = np.array([int(k.any(axis=0).sum()) for k in keeps])
    return ber[back.ravel()], pairs[back.ravel()], len(distinct)


def ber_steps(path, lo=0.0, hi=None, *, max_fits=None, progress=None) -> pd.DataFrame:
    """Exact cross-validated BER of SLB for every λ in ``[lo, hi]``, as steps.

    Parameters
    ----------
    path : slb.ThresholdPath
        Fitted (its folds' screening scores and feature maps are reused, never modified).
    lo, hi : float
        Range of λ (e.g. the dashboard slider's).  ``hi=None``: the largest fold score.
    max_fits : int or None
        Budget of SVM fits.  When the range holds more breakpoints, the steps start higher
        (the most dependent pairs first); ``attrs["lo"]`` says where.  None: the whole range.
    progress : callable or None
        Called as ``progress(done, total)`` after each fold.

    Returns
    -------
    steps : DataFrame
        One row per breakpoint ``threshold`` (increasing); row ``k`` holds the BER for every λ
        in ``(threshold[k-1], threshold[k]]`` (row 0: at ``threshold[0]`` itself):
        ``mean_ber``, ``sd_ber`` (ddof=1, over folds), ``mean_pairs``, and ``lower`` (the
        previous breakpoint).  ``attrs``: ``lo`` (first computed λ), ``hi``, ``requested_lo``,
        ``n_fits`` (SVMs fitted).

    Examples
    --------
    >>> import numpy as np
    >>> from slb import ThresholdPath
    >>> from slb.evaluation import stratified_folds
    >>> from slb.model.steps import ber_steps
    >>> rng = np.random.RandomState(0)
    >>> X, y = rng.normal(size=(60, 4)), np.array([0, 1] * 30)
    >>> X[y == 1, 1] = X[y == 1, 0] + 0.3 * rng.normal(size=30)  # x0, x1 depend in class 1
    >>> path = ThresholdPath(dependence="pearson", random_state=0)
    >>> path = path.fit(X, y, stratified_folds(y, 3))
    >>> steps = ber_steps(path)
    >>> steps.columns.tolist(), len(steps)
    (['threshold', 'lower', 'mean_ber', 'sd_ber', 'mean_pairs'], 19)
    >>> ber, n_pairs = path.fold_ber(0.5)  # the same number as refitting at lambda = 0.5
    >>> row = steps[steps["threshold"] >= 0.5].iloc[0]
    >>> bool(np.isclose(row["mean_ber"], ber.mean())), float(row["mean_pairs"])
    (True, 1.0)
    """
    values = [_fold_values(f, path.pair_rule) for f in path.folds_]
    if hi is None:
        hi = max((float(v[-1]) for v in values if v.size), default=float(lo))
    lo, hi = float(lo), float(max(hi, lo))
    start = _cut(values, lo, hi, len(values), max_fits)
    inner = np.concatenate([v[(v > start) & (v < hi)] for v in values] + [[start, hi]])
    grid = np.unique(inner)
    bers, pairs, n_fits = [], [], 0
    for k, (fold, v) in enumerate(zip(path.folds_, values, strict=True)):
        b, p, n = _fold_steps(path, fold, v, grid)
        bers.append(b)
        pairs.append(p)
        n_fits += n
        if progress is not None:
            progress(k + 1, len(values))
    B, P = np.array(bers), np.array(pairs)
    out = pd.DataFrame(
        {
            "threshold": grid,
            "lower": np.concatenate([grid[:1], grid[:-1]]),
            "mean_ber": B.mean(axis=0),
            "sd_ber": B.std(axis=0, ddof=1) if B.shape[0] > 1 else np.zeros(grid.size),
            "mean_pairs": P.mean(axis=0),
        }
    )
    out.attrs.update({"lo": start, "hi": hi, "requested_lo": lo, "n_fits": int(n_fits)})
    return out


def step_at(steps: pd.DataFrame, threshold: float) -> pd.Series | None:
    """The row of :func:`ber_steps` that holds λ = ``threshold`` (None outside its range or
    inside one of its ``attrs["gaps"]``, see :func:`join_steps`).

    Examples
    --------
    >>> import numpy as np
    >>> from slb import ThresholdPath
    >>> from slb.evaluation import stratified_folds
    >>> from slb.model.steps import ber_steps, step_at
    >>> rng = np.random.RandomState(0)
    >>> X, y = rng.normal(size=(60, 4)), np.array([0, 1] * 30)
    >>> X[y == 1, 1] = X[y == 1, 0] + 0.3 * rng.normal(size=30)  # x0, x1 depend in class 1
    >>> path = ThresholdPath(dependence="pearson", random_state=0)
    >>> path = path.fit(X, y, stratified_folds(y, 3))
    >>> steps = ber_steps(path)
    >>> row = step_at(steps, 0.5)
    >>> round(float(row["mean_ber"]), 3), float(row["mean_pairs"])
    (0.233, 1.0)
    >>> step_at(steps, 5.0) is None  # above every score
    True
    """
    t = steps["threshold"].to_numpy()
    lam = float(threshold)
    if not t.size or not t[0] <= lam <= t[-1]:
        return None
    if any(a < lam < b for a, b in steps.attrs.get("gaps", ())):
        return None
    return steps.iloc[int(np.searchsorted(t, lam, side="left"))]


def chunk_bounds(path, lo, hi, size) -> list[float]:
    """Boundaries ``hi = b[0] > b[1] > ... > b[-1] = lo`` cutting ``[lo, hi]`` into chunks of
    about ``size`` breakpoints (all folds together), from the top: the first chunk holds the
    most dependent pairs.  Each chunk can be computed (and cached) on its own with
    ``ber_steps(path, b[k + 1], b[k])`` and the chunks put together with :func:`join_steps`.

    Examples
    --------
    >>> import numpy as np
    >>> from slb import ThresholdPath
    >>> from slb.evaluation import stratified_folds
    >>> from slb.model.steps import chunk_bounds
    >>> rng = np.random.RandomState(0)
    >>> X, y = rng.normal(size=(60, 4)), np.array([0, 1] * 30)
    >>> X[y == 1, 1] = X[y == 1, 0] + 0.3 * rng.normal(size=30)  # x0, x1 depend in class 1
    >>> path = ThresholdPath(dependence="pearson", random_state=0)
    >>> path = path.fit(X, y, stratified_folds(y, 3))
    >>> [round(b, 3) for b in chunk_bounds(path, 0.0, 1.0, size=5)]
    [1.0, 0.435, 0.323, 0.162, 0.0]
    """
    lo, hi = float(lo), float(hi)
    values = [_fold_values(f, path.pair_rule) for f in path.folds_]
    inside = np.sort(np.concatenate([v[(v > lo) & (v < hi)] for v in values] + [[]]))[::-1]
    cuts = np.unique(inside[max(int(size), 1) - 1 :: max(int(size), 1)])[::-1]
    return [hi, *(float(c) for c in cuts), lo] if hi > lo else [hi]


def join_steps(frames, requested_lo=None, *, allow_gaps=False) -> pd.DataFrame:
    """One step table from :func:`ber_steps` tables of ranges that do not overlap (any order).

    Each range's first row (the value at its lowest λ exactly) is the previous range's last
    row when the two are adjacent, so it is dropped there.  With ``allow_gaps``, ranges need not
    be adjacent: between two that are not, nothing is known, and ``attrs["gaps"]`` lists those
    open intervals ``(a, b)`` (the lower range's top, the upper range's bottom; the rows keep
    the value at ``b`` itself, and :func:`step_at` answers None inside a gap).

    Examples
    --------
    >>> import numpy as np
    >>> from slb import ThresholdPath
    >>> from slb.evaluation import stratified_folds
    >>> from slb.model.steps import ber_steps, chunk_bounds, join_steps
    >>> rng = np.random.RandomState(0)
    >>> X, y = rng.normal(size=(60, 4)), np.array([0, 1] * 30)
    >>> X[y == 1, 1] = X[y == 1, 0] + 0.3 * rng.normal(size=30)  # x0, x1 depend in class 1
    >>> path = ThresholdPath(dependence="pearson", random_state=0)
    >>> path = path.fit(X, y, stratified_folds(y, 3))
    >>> whole = ber_steps(path, 0.0, 1.0)
    >>> b = chunk_bounds(path, 0.0, 1.0, size=5)
    >>> joined = join_steps([ber_steps(path, lo, hi) for hi, lo in zip(b, b[1:])])
    >>> joined["threshold"].equals(whole["threshold"])
    True
    >>> bool(np.allclose(joined["mean_ber"], whole["mean_ber"]))
    True
    """
    frames = sorted(frames, key=lambda f: f.attrs["lo"])
    parts, gaps = [frames[0]], []
    for low, high in zip(frames, frames[1:], strict=False):
        if low.attrs["hi"] == high.attrs["lo"]:
            parts.append(high.iloc[1:])
        elif allow_gaps and low.attrs["hi"] < high.attrs["lo"]:
            gaps.append((float(low.attrs["hi"]), float(high.attrs["lo"])))
            parts.append(high)
        else:
            raise ValueError(
                "join_steps needs adjacent ranges (each one's lo the previous hi), or "
                "allow_gaps=True and ranges that do not overlap."
            )
    out = pd.concat(parts, ignore_index=True)
    out.attrs.update(
        {
            "lo": frames[0].attrs["lo"],
            "hi": frames[-1].attrs["hi"],
            "requested_lo": frames[0].attrs["lo"] if requested_lo is None else requested_lo,
            "n_fits": int(sum(f.attrs["n_fits"] for f in frames)),
            "gaps": gaps,
        }
    )
    return out
