"""Cached out-of-fold evaluation of the Compare page: one pass per classifier gives its per-fold
BER (the significance test), its out-of-fold predictions and everything computed from them
(accuracy, BER, AUC, F1, precision, recall, log-loss; pooled ROC and precision-recall curves;
pooled confusion counts).

Nothing is fitted twice: the registry classifiers go through
``compare_estimators(record_predictions=True)`` (or the same per-fold fit in worker processes),
naive Bayes reads the univariate log-densities of SLB's per-fold path, and SLB's predictions come
from :func:`slb.evaluation.path_predictions` on the cached :class:`slb.ThresholdPath` (one SVM per
fold, as its BER always was).  Caching follows :mod:`dashboard.compute`: ``key`` is the data's
content hash, ``_ds`` the (unhashed) dataset, plus every parameter the result depends on.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st
from scipy.special import expit
from sklearn.base import clone

from slb import SLBClassifier
from slb.evaluation import (
    METRICS,
    compare_estimators,
    confusion_matrices,
    evaluate_predictions,
    path_predictions,
    pooled_pr,
    pooled_roc,
)
from slb.evaluation.predictions import fold_prediction_frame, model_outputs, with_repeats
from slb.model.path import FIXED_C, fdr_selector, fraction_selector, threshold_selector
from slb.viz.evaluation import confusion_figure, pr_figure, roc_figure

from . import compute, models
from .compute import _TTL, DASH
from .state import density_params
from .workqueue import queued

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


def _one_fold_outputs(est, X, y, train, test) -> dict:
    """Fit ``est`` on ``train`` and predict ``test`` (labels, probabilities, scores): one fold
    of ``compare_estimators(record_predictions=True)``, for a worker process."""
    rows = (lambda idx: X.iloc[idx]) if hasattr(X, "iloc") else (lambda idx: X[idx])
    model = clone(est).fit(rows(train), y[train])
    return model_outputs(model, rows(test))


def _processes(n_tasks: int) -> int:
    """Worker processes the speed settings allow (:func:`dashboard.compute.cv_processes`)."""
    fn = getattr(compute, "cv_processes", None)
    return fn(n_tasks) if fn is not None else 1


@st.cache_data(show_spinner=False, max_entries=128, ttl=_TTL)
@queued
def model_fold_eval(
    key: str, _ds, name: str, dens: tuple | None, n_folds: int, seed: int, n_repeats: int = 1
) -> FoldEval:
    """One registry classifier (not SLB, not NB) on the shared folds: one fit per fold.

    ``dens`` is None for classifiers that do not use the densities.  Folds run in worker
    processes when cores are free; each is fitted as ``compare_estimators`` fits it.
    """
    est = models.CLASSIFIERS[name].make(density_params(dens) if dens is not None else {}, seed)
    f = compute.folds(key, _ds, n_folds, seed, n_repeats)
    y = np.asarray(_ds.y)
    n_proc = _processes(len(f))
    if n_proc == 1:
        comp = compare_estimators({name: est}, _ds.X, y, folds=f, record_predictions=True)
        return fold_eval(comp.predictions, ber=comp.per_fold[name], seconds=comp.fit_seconds[name])
    from joblib import Parallel, delayed

    t0 = time.perf_counter()
    outs = Parallel(n_jobs=n_proc)(
        delayed(_one_fold_outputs)(est, _ds.X, y, tr, te) for tr, te in f
    )
    frames = [
        fold_prediction_frame(name, k, te, y[te], **out)
        for k, ((_, te), out) in enumerate(zip(f, outs, strict=True))
    ]
    return fold_eval(with_repeats(frames, f), seconds=time.perf_counter() - t0)


@st.cache_data(show_spinner=False, max_entries=128, ttl=_TTL)
@queued
def nb_fold_eval_from_path(
    key: str,
    _ds,
    measure: str,
    pair_rule: str,
    dens: tuple,
    n_folds: int,
    seed: int,
    n_repeats: int = 1,
) -> FoldEval:
    """Kernel naive Bayes from the univariate log-densities SLB's path holds (no new density):
    decision = sum of ``log p+`` minus sum of ``log p-`` (balanced priors, the registry's NB),
    probability = its logistic, kept in [1e-6, 1 - 1e-6] as ``KDENaiveBayes.predict_proba``."""
    t0 = time.perf_counter()
    path = compute.threshold_path(key, _ds, measure, pair_rule, dens, n_folds, seed, n_repeats)
    d, y = path.n_features_in_, np.asarray(_ds.y)
    frames = []
    for k, f in enumerate(path.folds_):
        score = f.T_test[:, :d].sum(axis=1) - f.T_test[:, d : 2 * d].sum(axis=1)
        proba = np.clip(expit(score), PROBA_EPS, 1 - PROBA_EPS)
        pred = path.classes_[(score > 0).astype(int)]
        frames.append(fold_prediction_frame("NB", k, f.test, y[f.test], pred, proba, score))
    folds = [(f.train, f.test) for f in path.folds_]
    return fold_eval(with_repeats(frames, folds), seconds=time.perf_counter() - t0)


def _selector(mode: str, param: float, pair_rule: str):
    if mode == "quantile":
        return fraction_selector(1.0 - float(param), pair_rule)
    if mode == "fdr":
        return fdr_selector(float(param), pair_rule)
    return threshold_selector(float(param), pair_rule)


@st.cache_data(show_spinner=False, max_entries=256, ttl=_TTL)
@queued
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
    """SLB on every fold of its cached path: λ = ``param`` (``mode="value"``), or recomputed
    inside each fold (``"quantile"``: its own top ``1 - param`` of the pairs; ``"fdr"``:
    Benjamini-Hochberg at ``param``).  One SVM per fold; probabilities by Platt scaling fitted on
    the other folds' decision values (:func:`slb.evaluation.path_predictions`)."""
    path = compute.threshold_path(key, _ds, measure, pair_rule, dens, n_folds, seed, n_repeats)
    pred, n_pairs = path_predictions(
        path, _ds.y, _selector(mode, param, pair_rule), random_state=seed
    )
    return fold_eval(pred, n_pairs=n_pairs)


@st.cache_data(
    show_spinner="Nested cross-validation: SLB selects its settings again inside every fold "
    "(about a minute on Sonar; done once)…",
    max_entries=16,
    ttl=_TTL,
)
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
    pairs = np.zeros(len(f), dtype=int)

    def count_pairs(_name, k, model):
        pairs[k] = len(model.pairs_)

    comp = compare_estimators(
        {name: est}, _ds.X, _ds.y, folds=f, record_predictions=True, on_fit=count_pairs
    )
    return fold_eval(comp.predictions, ber=comp.per_fold[name], n_pairs=pairs)


#: Names of SLB's nested estimates in the tables: λ by inner CV, and λ and C by inner CV.
NESTED_NAMES = {False: "SLB", True: "SLB (nested λ, C)"}

#: How SLB's numbers were obtained, by λ mode (the page shows it under the table).
SLB_HOW = {
    "quantile": "λ recomputed inside each fold from its own training rows (its own top share of "
    "pairs): an honest estimate, unless you tuned the bandwidths while watching it",
    "fdr": "λ recomputed inside each fold from its own training rows (its own FDR test): an "
    "honest estimate, unless you tuned the bandwidths while watching it",
    "cv": "λ chosen by inner cross-validation inside each fold (nested): an honest estimate, "
    "unless you tuned the bandwidths while watching it",
    "value": "λ set by hand and applied to every fold. If you chose λ (or the bandwidths) while "
    "watching this BER, that is selection on the shown estimate and the number is "
    "optimistic; the nested estimate below is not",
}


def slb_eval_for(ds, cfg: dict, lam, dens: tuple, n_folds: int, n_repeats: int):
    """SLB's evaluation for the page's λ mode, and the sentence saying how it was obtained."""
    seed, measure, rule = int(cfg["seed"]), cfg["measure"], cfg["pair_rule"]
    args = (ds.key, ds, measure, rule, dens, n_folds, seed)
    if lam.mode == "cv":
        res = slb_nested_eval(*args, False, NESTED_NAMES[False], n_repeats=n_repeats)
    else:
        param = {"quantile": cfg["lam_quantile"], "fdr": cfg["fdr_alpha"]}.get(lam.mode, lam.value)
        mode = lam.mode if lam.mode in ("quantile", "fdr") else "value"
        res = slb_fold_eval(*args, mode, float(param), n_repeats=n_repeats)
    return res, SLB_HOW.get(lam.mode, SLB_HOW["value"])


def classifier_eval(
    ds, name: str, dens: tuple, n_folds: int, seed: int, n_repeats: int, measure: str, rule: str
) -> FoldEval:
    """One classifier of the Compare page other than SLB: NB from SLB's path, the others
    through :func:`model_fold_eval` (``dens`` dropped for those without densities)."""
    if name == "NB":
        return nb_fold_eval_from_path(
            ds.key, ds, measure, rule, dens, n_folds, seed, n_repeats=n_repeats
        )
    spec = models.CLASSIFIERS[name]
    return model_fold_eval(
        ds.key, ds, name, dens if spec.uses_density else None, n_folds, seed, n_repeats=n_repeats
    )


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


def predictions_display(evals: dict, ds) -> pd.DataFrame:
    """Every out-of-fold prediction of every classifier, labels as class names, for the table
    and the CSV download (row = position in the prepared data)."""
    names = {1: f"+ {ds.positive_label}", 0: f"− {ds.negative_label}"}
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
