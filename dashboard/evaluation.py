"""Cached out-of-fold evaluation of the Compare page: one pass per classifier gives its per-fold
BER (the significance test) and its out-of-fold predictions; everything computed from them
(accuracy, BER, AUC, F1, precision, recall, log-loss; pooled ROC and precision-recall curves;
pooled confusion counts) is computed only when the page shows it.

Nothing is fitted twice: the registry classifiers go through
``compare_estimators(record_predictions=True)`` (or the same per-fold fit in worker processes),
naive Bayes reads the univariate log-densities of SLB's per-fold path, and SLB's fits at a λ are
one warm SVM per fold on the cached :class:`slb.ThresholdPath` (:class:`slb.model.warm.WarmFolds`: the kernel
follows λ column by column), with the predictions and Platt probabilities of
:func:`slb.evaluation.path_predictions`.  Caching follows :mod:`dashboard.compute`: ``key`` is
the data's content hash, ``_ds`` the (unhashed) dataset, plus every parameter the result
depends on.
"""

from __future__ import annotations

import atexit
import copy
import logging
import os
import threading
import time
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

from slb import SLBClassifier
from slb._utils import overrides_by_index
from slb.evaluation import (
    METRICS,
    compare_estimators,
    confusion_matrices,
    evaluate_predictions,
    pooled_pr,
    pooled_roc,
)
from slb.evaluation.metrics import balanced_error_rate, chance_ber
from slb.evaluation.predictions import (
    calibrate_decisions,  # path_predictions' calibration, on the warm pass's decision values
    fold_prediction_frame,
    naive_bayes_path_predictions,
    repeat_of_folds,
    with_repeats,
)
from slb.model.path import (
    FIXED_C,
    fdr_selector,
    fraction_selector,
    threshold_selector,
)
from slb.model.warm import WarmFolds
from slb.viz.evaluation import confusion_figure, pr_figure, roc_figure

from . import _streamlit_compat, compute, models
from .compute import _TTL, DASH
from .fold_tasks import fold_outputs, slb_fold_outputs
from .state import density_params
from .workqueue import (
    QUEUE,
    current_session,
    data_cost,
    offload,
    offload_each,
    others_busy,
    queued,
    quiet_thread_logs,
    switch,
    uses_pool,
)

_LOG = logging.getLogger(__name__)

#: Probabilities drawn from densities are kept in [eps, 1 - eps] (as the estimators do).
PROBA_EPS = 1e-6


@dataclass
class FoldEval:
    """One classifier's cross-validation on the page's folds.

    Attributes
    ----------
    ber : ndarray of shape (n_folds,)
    seconds : float
        Fit + predict time (NaN where the folds share fits with another computation).
    n_pairs : ndarray or None
        SLB's kept pairs per fold.
    predictions : DataFrame
        The prediction table (:mod:`slb.evaluation.predictions`), labels 0/1 (1 = positive).
    summary : Series
        Mean and sd of every metric over the folds, and ``"ranked by"``.
    roc, pr : DataFrame
        Pooled ROC (``fpr``, ``tpr``) and precision-recall (``recall``, ``precision``) curves.
    auc, ap : float
        Area under the pooled ROC curve; average precision of the pooled scores.
    confusion : DataFrame
        Pooled counts, rows true, columns predicted, ``[0, 1]`` order.
    """

    ber: np.ndarray
    seconds: float
    n_pairs: np.ndarray | None
    predictions: pd.DataFrame
    summary: pd.Series
    roc: pd.DataFrame
    auc: float
    pr: pd.DataFrame
    ap: float
    confusion: pd.DataFrame


def fold_eval(pred: pd.DataFrame, *, ber=None, seconds=np.nan, n_pairs=None) -> FoldEval:
    """Score one classifier's prediction table (``ber``: per-fold BER already known, or None to
    read it off the predictions)."""
    ev = evaluate_predictions(pred, pos_label=1)
    roc, auc = pooled_roc(pred, pos_label=1)
    pr, ap, _ = pooled_pr(pred, pos_label=1)
    name = ev.summary.index[0]
    return FoldEval(
        ber=np.asarray(ev.per_fold["BER"] if ber is None else ber, dtype=float),
        seconds=float(seconds),
        n_pairs=n_pairs,
        predictions=pred,
        summary=ev.summary.iloc[0],
        roc=roc[name],
        auc=float(auc[name]),
        pr=pr[name],
        ap=float(ap[name]),
        confusion=confusion_matrices(pred, labels=[0, 1])[name],
    )


@dataclass
class FoldRun:
    """One classifier's fits on the page's folds, before any metric: what the BER table needs
    (``ber``, ``seconds``) and the prediction table :func:`fold_eval` scores when the page
    shows the out-of-fold metrics (not at every visit: ROC, PR and confusion counts of every
    classifier cost more than the table)."""

    ber: np.ndarray
    seconds: float
    predictions: pd.DataFrame
    n_pairs: np.ndarray | None = None


def _ber_of(pred: pd.DataFrame) -> np.ndarray:
    """Per-fold BER of a one-classifier prediction table (labels 0/1, folds in order)."""
    n_folds = int(pred["fold"].max()) + 1
    g = dict(tuple(pred.groupby("fold", sort=True)))
    return np.array([balanced_error_rate(g[k]["y_true"], g[k]["y_pred"]) for k in range(n_folds)])


def _per_fold(fn, calls: list, n_proc: int, cost: float) -> list:
    """``[fn(*c) for c in calls]``, one fold per task: in the niced workers (already started)
    for big data, else in ``n_proc`` joblib processes (here when ``n_proc`` is 1)."""
    if uses_pool(cost):
        return offload_each(cost, fn, calls, n_proc)
    if n_proc == 1:
        return [fn(*c) for c in calls]
    from joblib import Parallel, delayed

    return Parallel(n_jobs=n_proc)(delayed(fn)(*c) for c in calls)


#: Set in the thread of :func:`prefetch_runs`: SLB's path is being fitted beside it (one
#: process), so its folds take the other cores only.
_BESIDE_PATH = threading.local()


def _processes(n_tasks: int) -> int:
    """Worker processes the speed settings allow (:func:`dashboard.compute.cv_processes`)."""
    fn = getattr(compute, "cv_processes", None)
    n = fn(n_tasks) if fn is not None else 1
    if getattr(_BESIDE_PATH, "on", False):
        n = min(n, max(1, (os.cpu_count() or 1) - 1))
    return n


def _values_and_params(X, params: dict) -> tuple:
    """The table's values and the density settings with per-feature bandwidths keyed by
    position instead of by column name: the same fit for every classifier (tests/test_fold_runs.py),
    without scikit-learn's checks of a DataFrame, which were 22 % of each TAN fold's fit in a
    classroom session's profile (a 160 x 6 TAN fit: 8.3 ms from a frame, 5.9 ms from an array).
    A name the table lacks raises the error the fit on the frame raises."""
    if not hasattr(X, "columns"):
        return X, params
    if params.get("bandwidth_overrides"):  # the library's own mapping (and its errors)
        by_index = overrides_by_index(params["bandwidth_overrides"], list(X.columns))
        params = {**params, "bandwidth_overrides": by_index}
    return X.to_numpy(dtype=float), params


@st.cache_data(show_spinner=False, max_entries=128, ttl=_TTL)
@queued
def model_fold_run(
    key: str, _ds, name: str, dens: tuple | None, n_folds: int, seed: int, n_repeats: int = 1
) -> FoldRun:
    """One registry classifier (not SLB, not NB) on the shared folds: one fit per fold.

    ``dens`` is None for classifiers that do not use the densities.  Folds run in worker
    processes when cores are free (one fold per task: the niced workers of
    :func:`dashboard.workqueue.offload_each` for big data, joblib's for small); each is fitted
    as ``compare_estimators`` fits it.
    """
    X, params = _values_and_params(_ds.X, density_params(dens) if dens is not None else {})
    est = models.CLASSIFIERS[name].make(params, seed)
    f = compute.folds(key, _ds, n_folds, seed, n_repeats)
    y = np.asarray(_ds.y)
    n_proc = _processes(len(f))
    cost = data_cost(_ds, n_repeats)
    if n_proc == 1:  # big data: in a niced worker process (dashboard.workqueue.offload)
        comp = offload(
            cost, compare_estimators, {name: est}, X, y, folds=f, record_predictions=True
        )
        ber = comp.per_fold[name].to_numpy(dtype=float)
        return FoldRun(ber, float(comp.fit_seconds[name]), comp.predictions)
    t0 = time.perf_counter()
    outs = _per_fold(fold_outputs, [(est, X, y, tr, te) for tr, te in f], n_proc, cost)
    frames = [
        fold_prediction_frame(name, k, te, y[te], **out)
        for k, ((_, te), out) in enumerate(zip(f, outs, strict=True))
    ]
    pred = with_repeats(frames, f)
    return FoldRun(_ber_of(pred), time.perf_counter() - t0, pred)


@st.cache_data(show_spinner=False, max_entries=128, ttl=_TTL)
@queued
def nb_fold_run_from_path(
    key: str,
    _ds,
    measure: str,
    pair_rule: str,
    dens: tuple,
    n_folds: int,
    seed: int,
    n_repeats: int = 1,
) -> FoldRun:
    """Kernel naive Bayes from the univariate log-densities SLB's path holds (no new density):
    :func:`slb.evaluation.predictions.naive_bayes_path_predictions`."""
    t0 = time.perf_counter()
    path = compute.threshold_path(key, _ds, measure, pair_rule, dens, n_folds, seed, n_repeats)
    pred = naive_bayes_path_predictions(path, np.asarray(_ds.y))
    return FoldRun(_ber_of(pred), time.perf_counter() - t0, pred)


def _selector(mode: str, param: float, pair_rule: str):
    if mode == "quantile":
        return fraction_selector(1.0 - float(param), pair_rule)
    if mode == "fdr":
        return fdr_selector(float(param), pair_rule)
    return threshold_selector(float(param), pair_rule)


@st.cache_resource(show_spinner=False, max_entries=4, ttl=_TTL)
def warm_folds(
    key: str,
    _ds,
    measure: str,
    pair_rule: str,
    dens: tuple,
    n_folds: int,
    seed: int,
    n_repeats: int = 1,
) -> WarmFolds:
    """The warm per-fold SVMs of the page's cached path (one per data and settings)."""
    path = compute.threshold_path(key, _ds, measure, pair_rule, dens, n_folds, seed, n_repeats)
    return WarmFolds(path, _ds.y)


@dataclass
class SLBPass:
    """SLB's fits on every fold at one λ: what a λ change needs (the BER table and bars).

    Attributes
    ----------
    ber : ndarray of shape (n_folds,)
    n_pairs : ndarray of shape (n_folds,)
        Pairs kept per fold.
    decisions : list of ndarray
        Each fold's decision values of its test rows (the predictions are their sign).
    """

    ber: np.ndarray
    n_pairs: np.ndarray
    decisions: list


@st.cache_data(show_spinner=False, max_entries=256, ttl=_TTL)
@queued
def slb_fold_pass(
    key: str,
    _ds,
    measure: str,
    pair_rule: str,
    dens: tuple,
    n_folds: int,
    seed: int,
    mode: str,
    param: float,
    n_repeats: int = 1,
) -> SLBPass:
    """SLB on every fold of its cached path: λ = ``param`` (``mode="value"``), or recomputed
    inside each fold (``"quantile"``: its own top ``1 - param`` of the pairs; ``"fdr"``:
    Benjamini-Hochberg at ``param``).  One SVM per fold whose kept set changed, warm
    (:class:`WarmFolds`); the BER of each fold from the sign of its decision values."""
    warm = warm_folds(key, _ds, measure, pair_rule, dens, n_folds, seed, n_repeats)
    decisions, n_pairs = warm.decisions(_selector(mode, param, pair_rule))
    y_index = warm.y_index
    ber = [
        balanced_error_rate(y_index[f.test], (d > 0).astype(int))
        for f, d in zip(warm.path.folds_, decisions, strict=True)
    ]
    return SLBPass(np.asarray(ber, dtype=float), n_pairs, decisions)


def pass_predictions(path, y, sp: SLBPass, name: str = "SLB") -> pd.DataFrame:
    """The prediction table of one :class:`SLBPass`, as :func:`slb.evaluation.path_predictions`
    makes it (``calibration="other_folds"``: each fold's Platt sigmoid fitted on the other
    folds' decision values of its repeat; no extra fit)."""
    y = np.asarray(y)
    y_index = (y == path.classes_[1]).astype(int)
    folds = [(f.train, f.test) for f in path.folds_]
    probas = calibrate_decisions(sp.decisions, folds, y_index, repeat_of_folds(folds))
    frames = [
        fold_prediction_frame(name, k, te, y[te], path.classes_[(d > 0).astype(int)], p, d)
        for k, ((_, te), d, p) in enumerate(zip(folds, sp.decisions, probas, strict=True))
    ]
    return with_repeats(frames, folds)


@st.cache_data(show_spinner=False, max_entries=64, ttl=_TTL)
def slb_fold_eval(
    key: str,
    _ds,
    measure: str,
    pair_rule: str,
    dens: tuple,
    n_folds: int,
    seed: int,
    mode: str,
    param: float,
    n_repeats: int = 1,
) -> FoldEval:
    """SLB's full out-of-fold evaluation at one λ (metrics, curves, confusion counts) from the
    fits of :func:`slb_fold_pass`: only computed when the page shows it.  Probabilities by
    Platt scaling fitted on the other folds' decision values."""
    args = (key, _ds, measure, pair_rule, dens, n_folds, seed, mode, float(param))
    sp = slb_fold_pass(*args, n_repeats=n_repeats)
    path = compute.threshold_path(key, _ds, measure, pair_rule, dens, n_folds, seed, n_repeats)
    ev = fold_eval(pass_predictions(path, _ds.y, sp), n_pairs=sp.n_pairs)
    ev.ber = sp.ber  # the same signs: equal to the table's BER (checked in the tests)
    return ev


#: Seconds of the nested estimate on Sonar (208 x 60, 5 x 5 folds) with two free cores
#: (benchmarks/fit_speed.py: 6.4-6.5 s); other tables are scaled by rows² x features x folds.
NESTED_SONAR_SECONDS = 7.0


def nested_spinner_text(n: int, d: int, n_folds: int) -> str:
    """What the nested estimate's spinner says, with the time expected for this table (H49:
    a 150 x 9 upload's spinner spoke of Sonar only).

    Examples
    --------
    >>> nested_spinner_text(208, 60, 25)[-88:]
    'about 7 s for these 208 rows × 60 features with two free cores (more on a busy machine)…'
    """
    return (
        "Nested cross-validation: SLB selects its settings again inside every fold (done "
        f"once): {nested_time_text(n, d, n_folds)}…"
    )


def nested_time_text(n: int, d: int, n_folds: int) -> str:
    """The nested estimate's expected time for an ``n`` x ``d`` table on ``n_folds`` folds.

    Examples
    --------
    >>> nested_time_text(150, 9, 25)
    'about 1 s for these 150 rows × 9 features with two free cores (more on a busy machine)'
    """
    est = NESTED_SONAR_SECONDS * (n / 208) ** 2 * (d / 60) * (n_folds / 25)
    return (
        f"about {max(est, 1.0):.0f} s for these {n} rows × {d} features with two free cores "
        "(more on a busy machine)"
    )


@st.cache_data(show_spinner=False, max_entries=16, ttl=_TTL)  # nested_for's spinner
@queued
def slb_nested_eval(
    key: str,
    _ds,
    measure: str,
    pair_rule: str,
    dens: tuple,
    n_folds: int,
    seed: int,
    tune_c: bool,
    name: str = "SLB",
    n_repeats: int = 1,
) -> FoldEval:
    """SLBClassifier with λ (and C when ``tune_c``) chosen by inner CV inside every fold: its
    BER, kept pairs and predictions (its own calibrated ``predict_proba``) from one fit per
    fold."""
    est = SLBClassifier(
        threshold="cv",
        C="cv" if tune_c else FIXED_C,
        dependence=measure,
        pair_rule=pair_rule,
        random_state=seed,
        **density_params(dens),
    )
    f = compute.folds(key, _ds, n_folds, seed, n_repeats)
    y = np.asarray(_ds.y)
    calls = [(est, _ds.X, y, tr, te) for tr, te in f]
    n_proc, cost = _processes(len(f)), data_cost(_ds, n_repeats)
    # One fold per task, on every free core: the folds are independent refits (25 on Sonar,
    # 13.4 s of one idle core), so two cores halve the wait.  Each fold is fitted exactly as
    # compare_estimators fits it (tests/test_nested_estimate_parallel.py checks the equality).
    outs = _per_fold(slb_fold_outputs, calls, n_proc, cost)
    frames = [
        fold_prediction_frame(name, k, te, y[te], **out)
        for k, ((_, te), (out, _)) in enumerate(zip(f, outs, strict=True))
    ]
    ber = pd.Series(
        [
            balanced_error_rate(y[te], out["y_pred"])
            for (_, te), (out, _) in zip(f, outs, strict=True)
        ],
        name=name,
    )
    pairs = np.array([k for _, k in outs], dtype=int)
    return fold_eval(with_repeats(frames, f), ber=ber, n_pairs=pairs)


#: Names of SLB's nested estimates in the tables: λ by inner CV, and λ and C by inner CV.
NESTED_NAMES = {False: "SLB", True: "SLB (nested λ, C)"}


def nested_for(ds, c: dict, dens: tuple, reps: int, nested: bool = True):
    """:func:`slb_nested_eval` with the session's settings ``c``: SLB with λ (and, ``nested``,
    C) chosen by inner CV inside every fold, on the page's folds (cached); both Compare pages
    call it, from their table and from the nested estimate's button."""
    n_folds = int(ds.n_folds)
    args = (ds.key, ds, c["measure"], c["pair_rule"], dens, n_folds, int(c["seed"]))
    return _nested_with_spinner(args, n_folds, nested, reps)


def _nested_with_spinner(args: tuple, n_folds: int, nested: bool, reps: int):
    """:func:`slb_nested_eval` of ``args`` (key, data, measure, rule, densities, ``n_folds``,
    seed) under a spinner that says how long this table takes, in a page's run (a prefetch
    thread has no page to show it on)."""
    call = partial(slb_nested_eval, *args, nested, NESTED_NAMES[nested], n_repeats=reps)
    if _streamlit_compat.script_run_ctx() is None:
        return call()
    ds = args[1]
    with st.spinner(nested_spinner_text(ds.n, ds.d, int(n_folds) * int(reps))):
        return call()


#: Column widths (px) of the BER tables (two and K classes): the classifier's name and the
#: verdict against the best, as wide as "SLB (nested λ, C)" and "not significantly
#: different" (the default width cut them at 1024 px, H28), and no wider: with "large" (400
#: px) the table showed four columns at 1024 x 768 with the sidebar open, not the
#: "detectable (pp)" its caption explains (H35); measured in Chromium, the table is 564 px.
VERDICT_COLUMNS = {
    "_index": st.column_config.TextColumn(width=135),
    "vs best": st.column_config.TextColumn(width=170),
}

#: How SLB's numbers were obtained, by λ mode (the page shows it under the table).
SLB_HOW = {
    "quantile": "λ recomputed inside each fold from its own training rows (its own top share of "
    "pairs): an honest estimate, unless you tuned the bandwidths while watching it",
    "fdr": "λ recomputed inside each fold from its own training rows (its own FDR test): an "
    "honest estimate, unless you tuned the bandwidths while watching it",
    "cv": "λ chosen by inner cross-validation inside each fold (nested): an honest estimate, "
    "unless you tuned the bandwidths while watching it",
    "value": "one λ applied to every fold: set by hand, or the starting value (the 90th "
    "percentile of the pair scores on all rows, snapped to the slider; not chosen by any BER). If you chose λ (or the "
    "bandwidths) while "
    "watching this BER, that is selection on the shown estimate and the number is "
    "optimistic; the nested estimate (the button “Nested estimate of SLB” on the Compare page: λ "
    "and C chosen again inside every fold) is not",
}


def _slb_args(ds, cfg: dict, lam, dens: tuple, n_folds: int):
    seed, measure, rule = int(cfg["seed"]), cfg["measure"], cfg["pair_rule"]
    param = {"quantile": cfg["lam_quantile"], "fdr": cfg["fdr_alpha"]}.get(lam.mode, lam.value)
    mode = lam.mode if lam.mode in ("quantile", "fdr") else "value"
    return (ds.key, ds, measure, rule, dens, n_folds, seed), mode, float(param)


def slb_run_for(ds, cfg: dict, lam, dens: tuple, n_folds: int, n_repeats: int):
    """What the BER table needs of SLB in the page's λ mode (``.ber``, ``.n_pairs``: an
    :class:`SLBPass`, or the nested :class:`FoldEval` with λ by CV), and the sentence saying
    how it was obtained."""
    args, mode, param = _slb_args(ds, cfg, lam, dens, n_folds)
    how = SLB_HOW.get(lam.mode, SLB_HOW["value"])
    if lam.mode == "cv":
        return _nested_with_spinner(args, n_folds, False, n_repeats), how
    return slb_fold_pass(*args, mode, param, n_repeats=n_repeats), how


def slb_eval_for(ds, cfg: dict, lam, dens: tuple, n_folds: int, n_repeats: int):
    """SLB's full out-of-fold evaluation for the page's λ mode, and how it was obtained."""
    args, mode, param = _slb_args(ds, cfg, lam, dens, n_folds)
    how = SLB_HOW.get(lam.mode, SLB_HOW["value"])
    if lam.mode == "cv":
        return _nested_with_spinner(args, n_folds, False, n_repeats), how
    return slb_fold_eval(*args, mode, param, n_repeats=n_repeats), how


PREFETCH_THREAD = "slb-prefetch"
_PREFETCHED: set = set()
_PREFETCH_LOCK = threading.Lock()


def _first_time(seen: set, key) -> bool:
    """Add ``key`` to ``seen``; whether it was new (bounded: a long-running server forgets,
    at worst a prefetch runs again)."""
    with _PREFETCH_LOCK:
        if key in seen:
            return False
        if len(seen) > 10_000:
            seen.clear()
        seen.add(key)
        return True


def _cores_free() -> bool:
    """Whether the load leaves a core idle (:func:`dashboard.compute.cv_processes`'s rule)."""
    return compute.cv_processes(2) >= 2


def prefetch_runs(
    ds,
    names,
    dens: tuple,
    n_folds: int,
    seed: int,
    n_repeats: int,
    measure: str,
    rule: str,
    lam: float | None = None,
) -> bool:
    """Start the CV of the classifiers that do not wait for SLB's path (all but SLB and NB)
    in a background thread, so that it runs while SLB's per-fold densities are fitted (one
    process; the prefetched folds take the other cores); then, with ``lam``, SLB's full-data
    fit at that λ (:func:`dashboard.compute.fit_slb`, the coefficient plot's model: 0.2 s of
    the server's CPU on Sonar that the page would otherwise spend after the densities).

    Only on a cold cache's first visit (once per settings and process), on data within
    :data:`dashboard.compute.PREFETCH_MAX_COST`, when a core is idle (:func:`_cores_free`; on a busy machine two
    computations at once were slower than one after the other: cold Compare on Sonar 13.6 s
    against 10.3 s at load 2.5, 6.4 s against 11.7 s at load 1.2), and in a spare slot of the
    queue (:meth:`WorkQueue.spare`: granted while a slot is free and nobody waits, and never
    counted against other sessions, so it cannot make them wait; big work runs in niced
    processes).  The thread fills the same cache entries :func:`classifier_run` reads
    (Streamlit makes a second caller of an entry being computed wait for it), so the numbers
    are the same as without it.  Returns whether a thread was started.
    """
    todo = tuple(n for n in names if n not in ("SLB", "NB"))
    if not todo or data_cost(ds, n_repeats) > compute.PREFETCH_MAX_COST or not _cores_free():
        return False
    if not QUEUE.spare_free():  # the thread would not get its spare slot
        return False
    if not _first_time(_PREFETCHED, (ds.key, todo, dens, n_folds, seed, n_repeats, measure, rule)):
        return False

    def run():
        _BESIDE_PATH.on = True
        with QUEUE.spare() as granted:
            for name in todo if granted else ():
                if _PREFETCH_STOP.is_set():
                    return
                try:
                    classifier_run(ds, name, dens, n_folds, seed, n_repeats, measure, rule)
                except Exception:  # the page runs it again and shows what went wrong
                    _LOG.exception("Background cross-validation of %s failed", name)
            if granted and lam is not None:
                try:
                    compute.fit_slb(ds.key, ds, lam, measure, rule, dens, seed)
                except Exception:  # as above
                    _LOG.exception("Background fit of SLB on all the rows failed")

    quiet_thread_logs(PREFETCH_THREAD)
    _track(threading.Thread(target=run, name=PREFETCH_THREAD, daemon=True)).start()
    return True


DATA_PREFETCH_THREAD = "slb-prefetch-data"
_DATA_PREFETCHED: set = set()
#: The prefetch threads alive (``"threads"``, joined at exit) and the last data prefetch
#: thread started (``"thread"``, for tests to wait on).
DATA_PREFETCH: dict = {}


def data_prefetch_enabled() -> bool:
    """``SLB_PREFETCH=0`` turns :func:`prefetch_compare` off (``1`` on); by default it is on,
    except inside pytest, whose AppTest runs count what the pages compute (a test turns it on)."""
    return switch("SLB_PREFETCH")


def prefetch_compare(ds, c: dict, dens: tuple) -> bool:
    """Start the Compare page's cross-validation of a session's own data while it is still on
    the Data page.

    The bundled datasets' defaults are computed at server start (:mod:`dashboard.warmup`); an
    upload (or a synthetic or toy table) is new, and what its Compare page computes (SLB's
    per-fold densities and its BER at the session's λ, naive Bayes from them, TAN's and any
    added classifier's folds, the full-data SLB) starts here, one after the other in one
    background thread, as soon as the Data page has shown the table, with the page's own calls
    and settings: the entries Compare then reads are the ones filled here (Streamlit makes a
    page that asks for an entry being computed wait for it, so nothing is computed twice).

    Starts only when no computation is running or waiting in this server (the warm-up's rule:
    the one-minute load average, which :func:`prefetch_runs` reads, stays high for a minute after
    any work and kept this from ever starting while a browser drew the Data page), and stops
    before its next step as soon as another session computes or waits (it goes first), when the
    session's data or settings change, or when the server exits (:func:`stop_prefetch`); the
    session's own Compare, opened meanwhile, waits for the entries under way.
    It holds a spare slot of the queue (it never makes a session wait in line; big work runs in
    the niced worker processes).  Only on data within :data:`dashboard.compute.PREFETCH_MAX_COST`,
    with two classes, λ by value, quantile or FDR (the nested "λ by CV" is not started
    speculatively), once per data and settings; a path bigger than the small paths' cache only
    for an upload (it takes one of the four places the warm-up's bundled paths hold, so a
    Sonar-sized upload never compared can cost a bundled dataset's next visitor its warm
    path).  Returns whether it started.
    """
    if not data_prefetch_enabled() or ds.source == "bundled":
        return False
    if ds.multiclass or c["lam_mode"] == "cv":
        return False
    names = models.compared(c)
    reps = compute.affordable_repeats(ds.n, ds.d, int(c["cv_repeats"]))
    k, seed, measure, rule = int(ds.n_folds), int(c["seed"]), c["measure"], c["pair_rule"]
    if data_cost(ds, reps) > compute.PREFETCH_MAX_COST or QUEUE.snapshot() != (0, 0):
        return False
    # A path above the small cache's size would take one of the four places the warm-up's
    # bundled paths hold: only for an upload (a table brought to be compared), not for a
    # synthetic or toy table a session may only be looking at.
    if ds.source != "upload" and compute.path_bytes(ds.n, ds.d, k, reps) > compute.SMALL_PATH_BYTES:
        return False
    lam = compute.current_lambda(ds, c, dens)  # what the λ controls return (cached screening)
    key = (ds.key, tuple(names), dens, k, seed, reps, measure, rule, lam.mode, lam.value)
    session = current_session()
    with _PREFETCH_LOCK:
        if len(_LATEST) > 10_000:  # a long-running server: forget, at worst stop one early
            _LATEST.clear()
        _LATEST[session] = key  # a prefetch of this session's previous data stops
    if not _first_time(_DATA_PREFETCHED, key):
        return False
    c = copy.deepcopy(c)  # the session may change its settings meanwhile
    steps = [("SLB", lambda: slb_run_for(ds, c, lam, dens, k, reps))]
    steps += [
        (name, lambda name=name: classifier_run(ds, name, dens, k, seed, reps, measure, rule))
        for name in names[1:]
    ]
    steps.append(
        (
            "SLB on all rows",
            lambda: compute.fit_slb(ds.key, ds, lam.value, measure, rule, dens, seed),
        )
    )

    def stale() -> bool:
        # another session computing or waiting goes first, and new data of this session
        # replace these (this session's own Compare waits for the entries under way)
        return _PREFETCH_STOP.is_set() or others_busy(session) or _LATEST.get(session) != key

    def run():
        with QUEUE.spare() as granted:
            for what, step in steps if granted else ():
                if stale():
                    return
                try:
                    step()
                except Exception:  # Compare runs it again and shows what went wrong
                    if not _PREFETCH_STOP.is_set():  # (at exit the worker pool is gone)
                        _LOG.exception("Background cross-validation of new data failed: %s", what)

    quiet_thread_logs(DATA_PREFETCH_THREAD)
    t = _track(threading.Thread(target=run, name=DATA_PREFETCH_THREAD, daemon=True))
    DATA_PREFETCH["thread"] = t
    t.start()
    return True


#: The latest data prefetch key of each session (its older prefetches stop).
_LATEST: dict = {}


def _track(t: threading.Thread) -> threading.Thread:
    """Remember a prefetch thread, so that :func:`stop_prefetch` waits for it at exit."""
    with _PREFETCH_LOCK:
        live = [x for x in DATA_PREFETCH.get("threads", []) if x.is_alive()]
        if "threads" not in DATA_PREFETCH:  # the first one: end them cleanly at exit
            atexit.register(stop_prefetch)
        DATA_PREFETCH["threads"] = [*live, t]
    return t


#: Set at interpreter exit (:func:`stop_prefetch`): a data prefetch ends after its current step.
_PREFETCH_STOP = threading.Event()


def stop_prefetch(timeout: float = 15.0) -> bool:
    """End the prefetch threads after their current step and wait up to ``timeout`` seconds (a
    daemon thread still inside numpy while the interpreter shuts down can abort the process, as
    :func:`dashboard.warmup.stop` says).  Returns whether it has ended."""
    _PREFETCH_STOP.set()
    end = time.monotonic() + timeout
    threads = list(DATA_PREFETCH.get("threads", []))
    for t in threads:
        if t.is_alive() and t is not threading.current_thread():
            t.join(max(0.0, end - time.monotonic()))
    return not any(t.is_alive() for t in threads)


def classifier_run(
    ds, name: str, dens: tuple, n_folds: int, seed: int, n_repeats: int, measure: str, rule: str
) -> FoldRun:
    """One classifier of the Compare page other than SLB: NB from SLB's path, the others
    through :func:`model_fold_run` (``dens`` dropped for those without densities)."""
    if name == "NB":
        return nb_fold_run_from_path(
            ds.key, ds, measure, rule, dens, n_folds, seed, n_repeats=n_repeats
        )
    spec = models.CLASSIFIERS[name]
    return model_fold_run(
        ds.key, ds, name, dens if spec.uses_density else None, n_folds, seed, n_repeats=n_repeats
    )


@st.cache_data(show_spinner=False, max_entries=128, ttl=_TTL)
def _classifier_eval(
    key: str,
    _ds,
    name: str,
    dens: tuple,
    n_folds: int,
    seed: int,
    n_repeats: int,
    measure: str,
    rule: str,
) -> FoldEval:
    run = classifier_run(_ds, name, dens, n_folds, seed, n_repeats, measure, rule)
    ev = fold_eval(run.predictions, ber=run.ber, seconds=run.seconds)
    return ev


def classifier_eval(
    ds, name: str, dens: tuple, n_folds: int, seed: int, n_repeats: int, measure: str, rule: str
) -> FoldEval:
    """:func:`classifier_run` scored by :func:`fold_eval` (cached): metrics, pooled curves and
    confusion counts, for the page's out-of-fold section."""
    return _classifier_eval(ds.key, ds, name, dens, n_folds, seed, n_repeats, measure, rule)


# --- display ---------------------------------------------------------------------------------
_PERCENT = {"accuracy", "BER", "precision", "recall", "F1"}


def _mean_sd(mean: float, sd: float, percent: bool) -> str:
    if mean is None or not np.isfinite(mean):
        return DASH
    k = 100.0 if percent else 1.0
    spec = ".1f" if percent else ".3f"
    tail = f" ± {k * sd:{spec}}" if sd is not None and np.isfinite(sd) else ""
    return f"{k * mean:{spec}}{tail}"


def metrics_display(evals: dict) -> pd.DataFrame:
    """One row per classifier: every metric as "mean ± sd" over the folds (percent for the
    rates, three decimals for AUC and log-loss), the pooled AUC, "—" where one does not apply
    (log-loss without probabilities)."""
    rows = {}
    for name, ev in evals.items():
        s = ev.summary
        row = {
            (f"{m} (%)" if m in _PERCENT else m): _mean_sd(s[m], s[f"{m} sd"], m in _PERCENT)
            for m in METRICS
        }
        row["AUC (pooled)"] = _mean_sd(ev.auc, None, False)
        row["ranked by"] = s["ranked by"]
        rows[name] = row
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "classifier"
    return out


def predictions_display(evals: dict, ds, csv: bool = False) -> pd.DataFrame:
    """Every out-of-fold prediction of every classifier, labels as class names, for the table
    and the CSV download (row = position in the prepared data).

    ``csv``: the class written "pos (+)" rather than "+ pos": a cell starting with "+" reads as
    a formula, so the CSV writer would prefix it with an apostrophe that Excel and pandas keep.
    """
    names = dict(enumerate(ds.class_texts))  # 0: "− neg", 1: "+ pos"
    if csv and not ds.multiclass:
        names = {0: f"{ds.negative_label} (−)", 1: f"{ds.positive_label} (+)"}
    frames = []
    for ev in evals.values():
        p = ev.predictions
        frames.append(
            pd.DataFrame(
                {
                    "classifier": p["classifier"],
                    "row": p["row"],
                    "repeat": p["repeat"] + 1,
                    "fold": p["fold"] + 1,
                    "true class": p["y_true"].map(names),
                    "predicted class": p["y_pred"].map(names),
                    "correct": p["y_true"] == p["y_pred"],
                    "P(+)": p["proba"],
                    "decision score": p["score"],
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


@st.cache_data(show_spinner=False, max_entries=64, ttl=_TTL)
def predictions_table(what: tuple, _ev: FoldEval, _ds) -> pd.DataFrame:
    """:func:`predictions_display` of one classifier, cached on ``what``: every setting the
    classifier's predictions depend on (the page passes its name, the data's key and the
    settings of its folds, densities and λ), so a rerun that does not change them reuses it."""
    name = what[0]
    return predictions_display({name: _ev}, _ds).drop(columns="classifier")


def mean_count(mean: float) -> str:
    """A mean count: "196" when whole, "196.3" otherwise (H49: "196.0 pairs").

    Examples
    --------
    >>> mean_count(196.0), mean_count(196.25), mean_count(1.96)
    ('196', '196.2', '2.0')
    """
    return f"{mean:.0f}" if float(mean).is_integer() else f"{mean:.1f}"


def fold_pairs_text(lam: str, kept: float, n_kept: int, n: int, measure: str) -> str:
    """Compare's sentence on SLB's kept pairs at a λ set by value: the folds' mean count, and
    why it differs from the sidebar's all-rows count whenever it does as written (H43: 196.3
    beside 181; H50: "1.6" beside 2 had no word, the two were compared after rounding).

    Examples
    --------
    >>> fold_pairs_text("0.02", 2.0, 2, 208, "hsic")
    'SLB at λ = 0.02 keeps 2 pairs per fold on average.'
    >>> fold_pairs_text("0.02", 1.6, 2, 208, "spearman")  # doctest: +NORMALIZE_WHITESPACE
    "SLB at λ = 0.02 keeps 1.6 pairs per fold on average. On all 208 rows it keeps 2, the
    sidebar's count: a fold measures each pair's dependence on fewer rows, so it varies from
    fold to fold, and a pair just above λ on all rows can fall below it in a fold: here the
    folds keep fewer."
    >>> fold_pairs_text("0.02", 2.4, 2, 208, "hsic")  # doctest: +NORMALIZE_WHITESPACE
    "SLB at λ = 0.02 keeps 2.4 pairs per fold on average. On all 208 rows it keeps 2, the
    sidebar's count: a fold measures each pair's dependence on fewer rows, and on fewer rows
    it is larger by chance (HSIC's bias is about 0.3 / n): here the folds keep more."
    """
    text = f"SLB at λ = {lam} keeps {mean_count(kept)} pairs per fold on average."
    if mean_count(kept) == str(n_kept):
        return text
    text += (
        f" On all {n} rows it keeps {n_kept}, the sidebar's count: a fold measures each "
        "pair's dependence on fewer rows"
    )
    if kept > n_kept:  # the chance dependence (and HSIC's bias) of fewer rows: more pairs
        bias = " (HSIC's bias is about 0.3 / n)" if measure == "hsic" else ""
        return text + f", and on fewer rows it is larger by chance{bias}: here the folds keep more."
    # fewer (H54: "larger by chance" beside folds that kept fewer read as a contradiction)
    return text + (
        ", so it varies from fold to fold, and a pair just above λ on all rows can fall below "
        "it in a fold: here the folds keep fewer."
    )


#: Columns of a comparison table that fit beside the classifier's name at 1024 x 768 with the
#: sidebar open (H30, H43: the rest were hidden with no hint that they exist).
SHOWN_AT_1024 = 4


def more_columns_caption(shown: pd.DataFrame) -> None:
    """The comparison table's order (H54: the bars' differs), and the columns a 1024-px screen
    shows only by scrolling it."""
    text = "Rows sorted by mean BER, the best first (the bars keep one order on every page)."
    later = list(shown.columns[SHOWN_AT_1024:])
    if later:
        text += (
            " More columns to the right (scroll the table sideways on a narrow screen): "
            + ", ".join(later)
            + "."
        )
    st.caption(text)


def chance_warning(per_fold: pd.DataFrame, n_classes: int, n_rows: int) -> None:
    """Say so when no classifier's mean BER is below a guess's (H43: on 15 rows every
    classifier was at 74-78% and the table still called one of them "best")."""
    best = float(per_fold.mean(axis=0).min())
    chance = chance_ber(n_classes)
    if best < chance:
        return
    st.warning(
        f"No classifier does better than guessing here: the lowest mean BER is "
        f"{100 * best:.1f}%, and a guess (one class for every row, or at random) has "
        f"{100 * chance:.0f}% with {n_classes} classes. With {n_rows} rows the folds' training "
        'sets are too small for these models to learn from; "best" below only means least bad.',
        icon="⚠️",
    )


def table_height(n_rows: int) -> int:
    """Pixels that show ``n_rows`` rows of ``st.dataframe`` and its header without scrolling."""
    return 35 * (int(n_rows) + 1) + 3


# --- figures (built by slb.viz.evaluation from the cached results) ---------------------------
def roc_chart(evals: dict):
    """ROC curves of every classifier of the page."""
    return roc_figure(
        {n: ev.roc for n, ev in evals.items()}, pd.Series({n: ev.auc for n, ev in evals.items()})
    )


def pr_chart(evals: dict):
    """Precision-recall curves of every classifier of the page."""
    first = next(iter(evals.values())).predictions
    prevalence = float((first["y_true"] == 1).mean())
    return pr_figure(
        {n: ev.pr for n, ev in evals.items()},
        pd.Series({n: ev.ap for n, ev in evals.items()}),
        prevalence,
    )


def confusion_chart(ev: FoldEval, name: str, pos_name: str, neg_name: str):
    """The pooled confusion matrix of one classifier."""
    return confusion_figure(
        ev.confusion, pos_name=pos_name, neg_name=neg_name, title=f"Confusion matrix: {name}"
    )


# SLB's, TAN's, NB's... cross-validation lives in :mod:`dashboard.evaluation` (one cached,
# queued pass per classifier gives its per-fold BER and its out-of-fold predictions); the
# functions below return the BER part of the same cache entries.  They are not cached or
# queued themselves (no second entry, and no queued call inside a queued one).
def slb_fold_ber(
    key: str,
    _ds,
    measure: str,
    pair_rule: str,
    dens: tuple,
    n_folds: int,
    seed: int,
    lam: float,
    n_repeats: int = 1,
) -> tuple[np.ndarray, np.ndarray]:
    """SLB's BER on each fold (all repeats) at λ, and the kept pairs per fold."""
    sp = slb_fold_pass(
        key, _ds, measure, pair_rule, dens, n_folds, seed, "value", float(lam), n_repeats=n_repeats
    )
    return sp.ber, sp.n_pairs


def model_fold_ber(
    key: str, _ds, name: str, dens: tuple | None, n_folds: int, seed: int, n_repeats: int = 1
) -> tuple[np.ndarray, float]:
    """Per-fold BER of one registry classifier (not SLB) on the shared folds, and its seconds.

    ``dens`` is None for classifiers that do not use the densities, so that moving a bandwidth
    slider does not refit them.  The folds run in joblib worker processes when cores are free
    (:func:`dashboard.compute.cv_processes`); each fold is fitted exactly as ``compare_estimators`` fits it, so
    the BERs do not depend on the number of processes (:func:`model_fold_run`).
    """
    run = model_fold_run(key, _ds, name, dens, n_folds, seed, n_repeats=n_repeats)
    return run.ber, run.seconds


def classifier_fold_ber(
    ds, name: str, dens: tuple, n_folds: int, seed: int, n_repeats: int, measure: str, rule: str
) -> tuple[np.ndarray, float]:
    """Per-fold BER and seconds of one classifier of the Compare page (not SLB itself).

    Reuses what is already computed: naive Bayes reads the univariate densities of SLB's
    per-fold path (:func:`nb_fold_run_from_path`); the others go
    through :func:`model_fold_ber` (``dens`` is dropped for those that do not use densities).
    """
    run = classifier_run(ds, name, dens, n_folds, seed, n_repeats, measure, rule)
    return run.ber, run.seconds
