"""Cached computations: every number the pages show comes from :mod:`slb` through here.

Caching rules
-------------
* Every function takes the dataset as ``_ds`` (not hashed by Streamlit) **and** its content
  hash ``key`` (hashed), plus exactly the parameters its result depends on.  Results are
  therefore shared between sessions only when the data are identical, and no session can see
  another's data.
* ``st.cache_data`` (results are copied for every caller) for everything small;
  ``st.cache_resource`` only for :class:`slb.ThresholdPath` (tens of MB of per-fold
  log-density features), which is only ever *read* (``fold_ber``/``curve`` do not modify it).
* What λ changes is cheap: SLB's CV BER at a λ is ``ThresholdPath.fold_ber(λ)`` (only the
  SVMs are refitted), and the full-data SLB fit for the coefficients is cached on λ.
  TAN, NB and the other classifiers do not depend on λ and are cached on the data, the
  density settings (for those that use densities) and the folds.
* Every entry is bounded (``max_entries``) and expires (``ttl``), so a long-running server
  does not accumulate memory.
"""

from __future__ import annotations

import copy
import os
import sys
import threading
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from slb import (
    LogDensityTransformer,
    SLBClassifier,
    TANClassifier,
    ThresholdPath,
    dependence_matrix,
)
from slb._folds import duplicate_groups
from slb._parallel import idle_n_jobs
from slb._utils import all_pairs
from slb.density.bandwidth import lattice_spacing
from slb.dependence import screening as screening_rules
from slb.evaluation import (
    corrected_t_against_best,
    holdout_ratio,
    stratified_folds,
)
from slb.model.path import FIXED_C, threshold_selector
from slb.viz.figures import (
    cluster_order,
    dependence_heatmap,
    dependence_histogram,
    kept_outline,
    pair_graph_layout,
    threshold_line,
    tree_layout,
)

from .lambda_steps import format_value
from .safety import escape_markdown
from .state import density_params
from .workqueue import QUEUE, data_cost, offload, offload_each, queued

_TTL = 2 * 3600


def limit_native_threads() -> None:
    """Run BLAS single-threaded (``SLB_BLAS_THREADS`` to change), process-wide.

    The dashboard's matrix products are small (SLB's SVM kernels are n x n); on a shared or
    busy machine OpenBLAS's worker threads spin and make them 10-30 times slower, and a web
    server gets its parallelism from serving several sessions anyway.  Idempotent; applied
    again only when modules were imported since (a new native library may have come with
    them): threadpoolctl scans the process's libraries on every call, 4-5 ms of every run.
    """
    n = max(int(os.environ.get("SLB_BLAS_THREADS", "1")), 1)
    done = (n, len(sys.modules))
    if _BLAS_LIMITED.get("done") == done:
        return
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=n, user_api="blas")
    _BLAS_LIMITED["done"] = (n, len(sys.modules))  # threadpoolctl's own imports counted


#: (threads, modules loaded) when :func:`limit_native_threads` last applied its limit.
_BLAS_LIMITED: dict = {}


LAMBDA_MODES = {
    "value": "by value",
    "quantile": "by quantile",
    "fdr": "by FDR level α",
    "cv": "by cross-validation",
}
PAIR_RULES = {
    # "any" / "every": the same words for two classes and for K (a newcomer read "both" as
    # two of three classes; H47 read "(either of two)" beside three classes)
    "either": "dependent in any class",
    "both": "dependent in every class",
    "per_class": "per class (each class's own pairs)",
}
MEASURES = {"hsic": "HSIC", "pearson": "Pearson |r|", "spearman": "Spearman |ρ|"}


# --------------------------------------------------------------------------------------------
# Dependence screening and λ
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Screening:
    """All-pairs dependence of one dataset in each class (two classes: row 0 negative, 1
    positive; K classes: row k is class k of ``Dataset.classes``)."""

    measure: str
    stat: np.ndarray  # (K, d, d), NaN diagonal
    pvalue: np.ndarray  # (K, d, d)
    pairs: np.ndarray  # (P, 2)
    pair_stat: np.ndarray  # (K, P)
    pair_pvalue: np.ndarray  # (K, P)

    def scores(self, pair_rule: str) -> np.ndarray:
        """Screening score of every pair (min over classes for "both", else max)."""
        return screening_rules.pair_scores(self.pair_stat, pair_rule)


@st.cache_data(
    show_spinner="Measuring the dependence of every pair of features…", max_entries=32, ttl=_TTL
)
@queued
def screening(key: str, _ds, measure: str) -> Screening:
    X = _ds.X.to_numpy()
    res = [dependence_matrix(X[_ds.y == c], measure) for c in range(getattr(_ds, "K", 2))]
    stat = np.stack([r.statistic for r in res])
    pval = np.stack([r.pvalue for r in res])
    pairs = all_pairs(X.shape[1])
    return Screening(
        measure=measure,
        stat=stat,
        pvalue=pval,
        pairs=pairs,
        pair_stat=stat[:, pairs[:, 0], pairs[:, 1]],
        pair_pvalue=np.nan_to_num(pval[:, pairs[:, 0], pairs[:, 1]], nan=1.0),
    )


@st.cache_data(show_spinner=False, max_entries=32, ttl=_TTL)
def feature_order(key: str, _ds, measure: str) -> np.ndarray:
    """Hierarchical-clustering order of the features on the largest of the classes' matrices."""
    s = screening(key, _ds, measure)
    return cluster_order(np.fmax.reduce(s.stat, axis=0))


@st.cache_data(show_spinner=False, max_entries=32, ttl=_TTL)
def graph_positions(key: str, _ds, measure: str) -> np.ndarray:
    s = screening(key, _ds, measure)
    return pair_graph_layout(_ds.d, s.pairs, np.fmax.reduce(s.pair_stat, axis=0), seed=0)


@st.cache_data(show_spinner=False, max_entries=32, ttl=_TTL)
def heatmap_spec(key: str, _ds, measure: str, k: int, clustered: bool, color: str) -> dict:
    """Class ``k``'s dependence heatmap without outlines (λ does not change it), as a dict.

    Building it costs ~70 ms of plotly validation (the 60 x 60 cells of Sonar); a λ change only
    adds the outline of the pairs kept (:func:`dependence_heatmap_at`).
    """
    scr = screening(key, _ds, measure)
    return dependence_heatmap(
        scr.stat[k],
        scr.pvalue[k],
        list(_ds.feature_names),
        order=feature_order(key, _ds, measure) if clustered else None,
        zmax=float(np.nanmax(scr.stat)) if np.isfinite(scr.stat).any() else 1.0,
        measure=measure,
        color=color,
    ).to_dict()


def dependence_heatmap_at(
    key: str, _ds, measure: str, k: int, clustered: bool, color: str, kept
) -> go.Figure:
    """``figures.dependence_heatmap`` of class ``k`` with the ``kept`` (d, d) pairs outlined.

    The same figure as building it anew, from the cached :func:`heatmap_spec` plus the
    outline: the spec was validated when it was built, so it is wrapped without plotly's
    validation (``_validate=False``; validating it again would cost as much as building it).
    """
    spec = heatmap_spec(key, _ds, measure, k, clustered, color)  # a copy: ours to change
    order = feature_order(key, _ds, measure) if clustered else np.arange(_ds.d)
    shape, n_out = kept_outline(kept, order, _ds.d)
    if shape is not None:
        spec["layout"].setdefault("shapes", []).append(shape)
    spec["layout"]["meta"]["n_outlined"] = n_out
    return go.Figure(spec, _validate=False)


@st.cache_data(show_spinner=False, max_entries=32, ttl=_TTL)
def histogram_spec(key: str, _ds, measure: str, pos_name: str, neg_name: str) -> dict:
    """The pairs' dependence histogram without the λ line (λ does not change it), as a dict."""
    scr = screening(key, _ds, measure)
    fig = dependence_histogram(
        scr.pair_stat[1],
        scr.pair_stat[0],
        np.nan,
        measure=measure,
        pos_name=pos_name,
        neg_name=neg_name,
    )
    return fig.to_dict()


def dependence_histogram_at(
    key: str, _ds, measure: str, pos_name: str, neg_name: str, lam: float
) -> go.Figure:
    """``figures.dependence_histogram`` of the pair dependences with the line at ``lam``: the
    cached :func:`histogram_spec` (wrapped unvalidated, see :func:`dependence_heatmap_at`)
    plus ``figures.threshold_line``."""
    spec = histogram_spec(key, _ds, measure, pos_name, neg_name)
    spec["layout"]["meta"]["threshold"] = float(lam)
    return threshold_line(go.Figure(spec, _validate=False), lam)


def kept_mask(scr: Screening, lam: float, pair_rule: str) -> np.ndarray:
    """(2, P) flags: is the pair's term of class (neg, pos) kept at λ (SLB's rule)."""
    return screening_rules.kept_terms(scr.pair_stat, lam, pair_rule)


def fdr_lambda(scr: Screening, alpha: float, pair_rule: str) -> tuple[float, int]:
    """λ equivalent to Benjamini-Hochberg at level α, as ``SLBClassifier(threshold="fdr")``.

    Returns ``(λ, number of pairs BH keeps)``; λ is +inf when BH rejects nothing.
    """
    if scr.pairs.shape[0] == 0:
        return float("inf"), 0
    keep_c, lam = screening_rules.fdr_terms(scr.pair_stat, scr.pair_pvalue, alpha, pair_rule)
    return lam, int(keep_c.any(axis=0).sum())


@st.cache_data(
    show_spinner="Choosing λ by cross-validation (SLBClassifier(threshold='cv'))…",
    max_entries=16,
    ttl=_TTL,
)
@queued
def cv_lambda(
    key: str, _ds, measure: str, pair_rule: str, dens: tuple, n_folds: int, seed: int
) -> tuple[float, pd.DataFrame]:
    clf = SLBClassifier(
        threshold="cv",
        C=FIXED_C,  # the C of every SLB number on the pages (ThresholdPath's)
        dependence=measure,
        pair_rule=pair_rule,
        cv=n_folds,
        random_state=seed,
        **density_params(dens),
    ).fit(_ds.X, _ds.y)
    res = pd.DataFrame(clf.cv_results_)
    return float(clf.threshold_), res


@dataclass(frozen=True)
class LambdaInfo:
    """The current λ and what it keeps."""

    value: float
    mode: str
    n_kept: int
    n_pairs: int
    note: str = ""


def slider_range(scr: Screening, pair_rule: str) -> tuple[float, float, float, str]:
    """(max, step, decimals-format) for a λ-by-value slider over the pair scores."""
    s = scr.scores(pair_rule)
    top = float(np.nanmax(s)) if s.size and np.isfinite(s).any() else 1.0
    top = top if top > 0 else 1.0
    exp = int(np.floor(np.log10(top)))
    step = 10.0 ** (exp - 3)
    hi = float(np.ceil(top / step) * step)
    decimals = max(0, 3 - exp)
    return 0.0, hi, step, f"%.{decimals}f"


def default_lambda(scr: Screening, pair_rule: str, q: float = 0.9) -> float:
    """The ``q`` quantile of the pair scores: exactly the λ of "by quantile" at ``q``.

    Not rounded (H45: a λ rounded to the old continuous slider's step kept 181 pairs of Sonar
    by value against 177 by quantile at 0.9); the by-value control moves it to the smallest
    pair score at or above it, which keeps the same pairs.
    """
    s = scr.scores(pair_rule)
    if s.size == 0:
        return 0.0
    return float(np.quantile(s, q))


def quantile_of(scr: Screening, pair_rule: str, lam: float) -> float:
    """The quantile level at which "by quantile" starts from the λ ``lam``: the share of pair
    scores below it, to the control's 0.01 step (1.0 for λ = ∞, 0.9 without pairs)."""
    s = scr.scores(pair_rule)
    s = s[np.isfinite(s)]
    if s.size == 0 or np.isnan(lam):
        return 0.9
    return round(float(np.mean(s < lam)), 2)


def current_lambda(ds, cfg: dict, dens: tuple) -> LambdaInfo:
    """λ from the session's settings (value, quantile, FDR level or cross-validation)."""
    scr = screening(ds.key, ds, cfg["measure"])
    rule = cfg["pair_rule"]
    mode = cfg["lam_mode"]
    note = ""
    if mode == "quantile":
        s = scr.scores(rule)
        lam = float(np.quantile(s, cfg["lam_quantile"])) if s.size else 0.0
    elif mode == "fdr":
        lam, n_bh = fdr_lambda(scr, cfg["fdr_alpha"], rule)
        note = (
            f"Benjamini-Hochberg at α = {cfg['fdr_alpha']:g} rejects {n_bh} "
            f"pair{'' if n_bh == 1 else 's'}; λ is the smallest of their scores "
            "(SLBClassifier(threshold='fdr').threshold_), so every pair at least as dependent "
            "is kept too"
        )
    elif mode == "cv":
        lam, _ = cv_lambda(
            ds.key, ds, cfg["measure"], rule, dens, int(ds.n_folds), int(cfg["seed"])
        )
        # the value first: no slider shows it in this mode (H49: the caption began
        # "chosen by …" and λ = ∞ was in the sidebar only)
        note = (
            f"λ = {format_value(lam)}, chosen by SLB's inner cross-validation on all the rows "
            "(the λ of the figures). Compare's BER table chooses λ again inside every fold "
            "(nested: honest); a BER computed at this one λ on the same rows would be optimistic"
        )
    else:
        lam = float(cfg["lam_value"])
    n_kept = int(kept_mask(scr, lam, rule).any(axis=0).sum())
    return LambdaInfo(lam, mode, n_kept, int(scr.pairs.shape[0]), note)


def kept_pairs_table(ds, scr: Screening, lam: float, pair_rule: str) -> pd.DataFrame:
    """One row per kept pair: names, its screening score (what λ is compared with), the
    dependence and p-value in each class and where it is dependent; strongest score first."""
    keep_c = kept_mask(scr, lam, pair_rule)
    kept = keep_c.any(axis=0)
    idx = np.flatnonzero(kept)
    names = np.asarray(ds.feature_names, dtype=object)
    dep = scr.pair_stat[:, idx] >= lam
    where = np.where(dep[0] & dep[1], "both", np.where(dep[1], "+ only", "− only"))
    label = MEASURES[scr.measure]
    pos, neg = ds.positive_label, ds.negative_label
    # sorted by the score λ is compared with (the larger class's for "either", the smaller for
    # "both"), not by the + class's alone (which ranked the strongest pair low: H28)
    score = scr.scores(pair_rule)[idx]
    return pd.DataFrame(
        {
            "feature a": names[scr.pairs[idx, 0]],
            "feature b": names[scr.pairs[idx, 1]],
            "screening score": score,
            f"{label} in + ({pos})": scr.pair_stat[1, idx],
            f"{label} in − ({neg})": scr.pair_stat[0, idx],
            f"p-value in + ({pos})": scr.pair_pvalue[1, idx],
            f"p-value in − ({neg})": scr.pair_pvalue[0, idx],
            "dependent in": where,
        }
    ).sort_values("screening score", ascending=False, ignore_index=True, kind="stable")


def pair_table_columns(table: pd.DataFrame, measure_label: str, *, short: bool = True) -> dict:
    """``st.dataframe`` column settings of a kept-pairs table: statistics to 4 and p-values to
    2 significant digits; with ``short``, short headers ("HSIC +", "p −") and the whole name
    on hover.

    The long headers made the two-class table wider than the page at 1024 px, and the column
    cut at the edge showed "4.805e-1" of 4.805e-10 (H45).  With these it is 562 px wide in
    its 562-px box (measured in Chromium).  The K-class table keeps its headers (a class's
    name is the user's text, and a header's help is Markdown): a column per class is wider
    than the page anyway.

    Examples
    --------
    >>> t = pd.DataFrame(columns=["feature a", "HSIC in + (rock)", "p-value in + (rock)"])
    >>> cfg = pair_table_columns(t, "HSIC")
    >>> cfg["HSIC in + (rock)"]["label"], cfg["p-value in + (rock)"]["label"]
    ('HSIC +', 'p +')
    """
    out = {}
    for col in table.columns:
        if col == "screening score":
            out[col] = st.column_config.NumberColumn(
                "score" if short else None,
                format="%.4g",
                help="The screening score λ is compared with (the larger of the classes' "
                "dependence under 'any class', the smaller under 'every class').",
            )
        for prefix, head, fmt in (
            (f"{measure_label} in ", measure_label, "%.4g"),
            ("p-value in ", "p", "%.2g"),
        ):
            if col.startswith(prefix):
                out[col] = st.column_config.NumberColumn(
                    f"{head} {_class_part(col[len(prefix) :])}" if short else None,
                    format=fmt,
                    help=escape_markdown(col) if short else None,
                )
    return out


def _class_part(text: str) -> str:
    """ "+" of "+ (rock)" (two classes: the sign names the class, as in the sidebar); a K-class
    table's class name as it is."""
    return text[0] if text[:2] in ("+ ", "− ") else text


# --------------------------------------------------------------------------------------------
# Densities
# --------------------------------------------------------------------------------------------
@st.cache_data(show_spinner="Computing the bandwidths…", max_entries=32, ttl=_TTL)
def bandwidths(key: str, _ds, dens: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Univariate and pair bandwidths ``(2, d)`` of the full data (rows: negative, positive)."""
    tf = LogDensityTransformer(pairs=[], **density_params(dens)).fit(_ds.X, _ds.y)
    return tf.bandwidths_, tf.pair_bandwidths_


def floor_note(ds, feature: str, h) -> str:
    """A sentence for the Densities caption when ``h`` (one feature's bandwidth per class) sits
    at the lattice floor of that feature, else "" (H43: one-hot 0/1 columns showed
    bandwidths "1" beside histogram spikes, with no word of the floor).  The estimators'
    default ``lattice_floor`` is one step."""
    j = list(ds.feature_names).index(feature)
    step = float(lattice_spacing(np.asarray(ds.X)[:, [j]])[0])
    at_floor = np.isfinite(step) and np.isclose(np.asarray(h, dtype=float), step).any()
    if not at_floor:
        return ""
    return (
        f" The values of {escape_markdown(feature)} lie on a lattice of step {step:.4g}; a "
        "bandwidth below one step is raised to it, so a curve "
        "stays smooth where the histogram has spikes."
    )


# --------------------------------------------------------------------------------------------
# Cross-validation
# --------------------------------------------------------------------------------------------
#: Cost budget of the Compare page's repeated CV, in units of rows² x features x repeats.
#: Measured (2 cores, HSIC, 5 folds, one repeat): Sonar (208 x 60) ~3 s for SLB's path and
#: curve; 1000 x 60 ~55 s for SLB plus ~20 s for TAN and NB.  The budget allows 5 repeats up to
#: about 300 x 60 (about a minute on a first visit) and falls to 1 repeat near 550 x 60.
CV_BUDGET = 5 * 300**2 * 60


#: Data cost (:func:`dashboard.workqueue.data_cost`) up to which
#: :func:`dashboard.evaluation.prefetch_runs` starts: the Compare page's own budget (Sonar with 5
#: repeats is 13 M).  Above, the other classifiers run after SLB, and SLB's per-fold densities
#: may be split over the free cores (:func:`path_processes`): one constant, so the two ranges
#: cannot drift apart.
PREFETCH_MAX_COST = CV_BUDGET


def affordable_repeats(n: int, d: int, wanted: int) -> int:
    """How many repeats of the K-fold CV the Compare page runs: ``wanted``, fewer when the cost
    (about rows² x features per repeat) exceeds :data:`CV_BUDGET`; at least 1."""
    return int(max(1, min(int(wanted), CV_BUDGET // max(1, int(n) ** 2 * int(d)))))


@st.cache_data(show_spinner=False, max_entries=32, ttl=_TTL)
def folds(key: str, _ds, n_folds: int, seed: int, n_repeats: int = 1) -> list:
    # identical rows in one fold (issue 26): a copy of a test row among the training rows
    # flatters every classifier; where the copies make that impossible, the plain folds
    groups = duplicate_groups(_ds.X)
    try:
        return stratified_folds(
            _ds.y, n_splits=n_folds, n_repeats=n_repeats, random_state=seed, groups=groups
        )
    except ValueError:
        return stratified_folds(_ds.y, n_splits=n_folds, n_repeats=n_repeats, random_state=seed)


#: A path is "small" up to this many bytes (:func:`path_bytes`): a class's own uploads
#: (60-400 rows x 4-7 features: 0.3-4.7 MB) are; Sonar (155 MB) is not.
SMALL_PATH_BYTES = 5_000_000
#: Small paths kept at once: a class of 30 sessions with a table each, and a few settings more
#: (at most 48 x 5 MB = 240 MB; 30 classroom tables of ~100 x 6 hold about 30 MB).
SMALL_PATH_ENTRIES = 48
_PATH_SPINNER = "Estimating SLB's densities on every fold (done once)…"


def path_bytes(n: int, d: int, n_folds: int, n_repeats: int, n_classes: int = 2) -> float:
    """Memory of :func:`threshold_path`'s result, estimated: every fold holds the log-densities
    of its ``n`` training and test rows, ``d(d+1)/2`` terms per class (measured, two classes,
    5 x 5 folds: 60 x 4, 0.27 MB against 0.24; 408 x 7, 4.70 against 4.57; Sonar 208 x 60,
    155 against 152).

    Examples
    --------
    >>> from dashboard.compute import path_bytes
    >>> round(path_bytes(208, 60, 5, 5) / 1e6)
    152
    """
    return float(n) * d * (d + 1) / 2 * n_classes * 8 * n_folds * n_repeats


def threshold_path(
    key: str,
    _ds,
    measure: str,
    pair_rule: str,
    dens: tuple,
    n_folds: int,
    seed: int,
    n_repeats: int = 1,
) -> ThresholdPath:
    """SLB's per-fold densities and dependence, fitted once (read-only afterwards).

    Cached by size: paths up to :data:`SMALL_PATH_BYTES` in their own cache of
    :data:`SMALL_PATH_ENTRIES`, big ones (Sonar's 155 MB) in one of 4.  With one cache of 4, a
    class of 30 sessions evicted every session's path between its SLB pass and its naive
    Bayes (which reads the same path after waiting in the queue): every path was fitted twice.
    """
    args = (key, _ds, measure, pair_rule, dens, n_folds, seed, n_repeats)
    if path_bytes(_ds.n, _ds.d, n_folds, n_repeats, getattr(_ds, "K", 2)) <= SMALL_PATH_BYTES:
        return _small_path(*args)
    return _big_path(*args)


@st.cache_resource(show_spinner=_PATH_SPINNER, max_entries=SMALL_PATH_ENTRIES, ttl=_TTL)
def _small_path(key, _ds, measure, pair_rule, dens, n_folds, seed, n_repeats) -> ThresholdPath:
    return _fit_path(key, _ds, measure, pair_rule, dens, n_folds, seed, n_repeats)


@st.cache_resource(show_spinner=_PATH_SPINNER, max_entries=4, ttl=_TTL)
def _big_path(key, _ds, measure, pair_rule, dens, n_folds, seed, n_repeats) -> ThresholdPath:
    return _fit_path(key, _ds, measure, pair_rule, dens, n_folds, seed, n_repeats)


def _fit_path(key, _ds, measure, pair_rule, dens, n_folds, seed, n_repeats) -> ThresholdPath:
    f = folds(key, _ds, n_folds, seed, n_repeats)
    params = density_params(dens)
    path = ThresholdPath(dependence=measure, pair_rule=pair_rule, random_state=seed, **params)
    cost = data_cost(_ds, n_repeats)
    width = path_processes(cost, len(f))
    # big data: fitted in niced worker processes, so that the light sessions keep their cores
    if width == 1:
        return offload(cost, path.fit, _ds.X, _ds.y, f)
    parts = offload_each(cost, path.fit, [(_ds.X, _ds.y, [fold]) for fold in f], width)
    return joined_paths(parts)


def path_processes(cost: float, n_folds: int) -> int:
    """Worker processes SLB's per-fold densities are split over: one per free core
    (:func:`cv_processes`) when the data are above
    :data:`PREFETCH_MAX_COST` and no other computation is running or
    waiting; otherwise one.  Up to that cost TAN's and the other classifiers' CV runs beside
    them (:func:`dashboard.evaluation.prefetch_runs`), which is as fast on two cores.  Measured (2 cores, load 2.4): 2,000 x 20, 5 folds, 6.8 s in one worker, 4.1 s in
    two, the same maps bit for bit.
    """
    if cost <= PREFETCH_MAX_COST:  # the prefetch's range: one process each
        return 1
    running, waiting = QUEUE.snapshot()
    if running > 1 or waiting:  # others are computing: one core each
        return 1
    return cv_processes(n_folds)


def joined_paths(parts: list) -> ThresholdPath:
    """One :class:`slb.ThresholdPath` from paths fitted on consecutive parts of the folds
    (each fold is fitted on its own, so the result is the one-call fit's)."""
    path = parts[0]
    path.folds_ = [fold for part in parts for fold in part.folds_]
    return path


#: SVM fits the exact BER-vs-λ steps may cost (about 1-2 ms each on Sonar's folds); beyond
#: it the steps start at a higher λ (the most dependent pairs first) and the figure says so.
CURVE_MAX_FITS = 2500


@st.cache_data(
    show_spinner="Computing SLB's BER at every λ where a fold's kept pairs change (done once)…",
    max_entries=256,  # the curve's pieces (dashboard.curve_ui.CHUNK breakpoints each)
    ttl=_TTL,
)
def slb_ber_steps(
    key: str,
    _ds,
    measure: str,
    pair_rule: str,
    dens: tuple,
    n_folds: int,
    seed: int,
    lam_range: tuple[float, float],
    n_repeats: int = 1,
    max_fits: int | None = CURVE_MAX_FITS,
) -> pd.DataFrame:
    """SLB's CV BER as exact steps over ``lam_range`` (:func:`slb.model.steps.ber_steps`):
    one SVM per fold and distinct kept set, on the folds and densities of the page's BER."""
    from slb.model.steps import ber_steps

    path = threshold_path(key, _ds, measure, pair_rule, dens, n_folds, seed, n_repeats)
    return ber_steps(path, float(lam_range[0]), float(lam_range[1]), max_fits=max_fits)


@st.cache_data(
    show_spinner="Tracing SLB's cross-validated BER along λ (done once)…", max_entries=16, ttl=_TTL
)
@queued
def slb_curve(
    key: str,
    _ds,
    measure: str,
    pair_rule: str,
    dens: tuple,
    n_folds: int,
    seed: int,
    n_points: int = 16,
    n_repeats: int = 1,
) -> pd.DataFrame:
    """SLB's CV BER along ``n_points`` thresholds (``ThresholdPath.curve``'s table).

    Computed with :meth:`ThresholdPath.grid_ber` (the nested-mask path: on each fold the SVM
    kernel is grown threshold by threshold instead of one cold SVM per threshold), which gives
    the per-fold BERs of ``path.curve`` (``tests/test_speed_paths.py`` checks it fold by fold)
    in a fraction of the time.
    """
    path = threshold_path(key, _ds, measure, pair_rule, dens, n_folds, seed, n_repeats)
    grid = path.candidate_thresholds(n_points)
    ber, n_pairs = path.grid_ber([threshold_selector(float(t), pair_rule) for t in grid], [path.C])
    ber = ber[:, 0, :]  # (thresholds, folds)
    return pd.DataFrame(
        {
            "threshold": grid.astype(float),
            "mean_ber": ber.mean(axis=1),
            "sd_ber": ber.std(axis=1, ddof=1) if ber.shape[1] > 1 else np.zeros(len(grid)),
            "mean_pairs": n_pairs.mean(axis=1),
        }
    )


def cv_processes(n_tasks: int) -> int:
    """Worker processes for ``n_tasks`` independent folds: more than one only when cores are
    free (:func:`slb._parallel.idle_n_jobs`: the one-minute load average leaves a CPU idle;
    ``SLB_CV_PROCESSES`` overrides), so a busy server does not oversubscribe its cores."""
    env = os.environ.get("SLB_CV_PROCESSES")
    n = int(env) if env else idle_n_jobs()
    return max(1, min(n, n_tasks))


def comparison(per_fold: pd.DataFrame, folds: list, alpha: float = 0.05) -> pd.DataFrame:
    """The summary table (numbers; NaN where a value does not apply): mean/sd BER (%) and the
    Nadeau–Bengio corrected resampled t-test against the best, Holm-adjusted.

    ``table.attrs["test"]`` names the test.
    """
    s = corrected_t_against_best(per_fold, holdout_ratio(folds), alpha)
    out = pd.DataFrame(
        {
            "mean BER (%)": 100 * s["mean"],
            "sd (%)": 100 * s["sd"],
            "t vs best": s["t"],
            "p vs best": s["p_value"],
            "p (Holm)": s["p_adjusted"],
            "best": s["best"],
            "tied with best": s["tied_with_best"],
            "detectable (pp)": 100 * s["mdd"],
        }
    )
    out.index.name = "classifier"
    out.attrs.update(s.attrs)
    return out


DASH = "—"


def _fmt(v: float, spec: str) -> str:
    """A number as text, "—" when it does not apply (NaN)."""
    return DASH if v is None or not np.isfinite(v) else format(v, spec)


def _verdict(best: bool, tied: bool, p_adjusted: float) -> str:
    if best:
        return "best"
    if not np.isfinite(p_adjusted):
        return "not significantly different (no test: same BER on every fold)"
    return "not significantly different" if tied else "significantly worse"


def comparison_export(table: pd.DataFrame, per_fold: pd.DataFrame) -> pd.DataFrame:
    """The comparison table with every fold's BER beside it, all in percent ("BER (%) fold
    k"; H47: the folds were fractions beside "mean BER (%)"), one row per classifier: the
    "Comparison table (CSV)" download of both Compare pages.

    Examples
    --------
    >>> import pandas as pd
    >>> from dashboard.compute import comparison_export
    >>> per_fold = pd.DataFrame({"SLB": [0.2, 0.3]}, index=pd.RangeIndex(1, 3, name="fold"))
    >>> table = pd.DataFrame({"mean BER (%)": [25.0]}, index=["SLB"])
    >>> comparison_export(table, per_fold).round(6).to_dict("records")
    [{'mean BER (%)': 25.0, 'BER (%) fold 1': 20.0, 'BER (%) fold 2': 30.0}]
    """
    folds = (100.0 * per_fold).T
    folds.columns = [f"BER (%) fold {k}" for k in range(1, len(per_fold) + 1)]
    return table.join(folds)


def comparison_display(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`comparison` (plus ``fit time (s)``) for the page: the numbers that may not apply
    (tests against the best, SLB's fit time) as text with "—", and a verdict column."""
    out = table[["mean BER (%)", "sd (%)"]].copy()
    for col, spec in (("t vs best", ".2f"), ("p vs best", ".3g"), ("p (Holm)", ".3g")):
        out[col] = [_fmt(v, spec) for v in table[col]]
    if "detectable (pp)" in table:
        # the difference the Holm-adjusted test would see with 80 % power at these folds' spread
        out["detectable (pp)"] = [_fmt(v, ".1f") for v in table["detectable (pp)"]]
    out["vs best"] = [
        _verdict(b, tied, p)
        for b, tied, p in zip(
            table["best"], table["tied with best"], table["p (Holm)"], strict=True
        )
    ]
    if "fit time (s)" in table:
        out["fit time (s)"] = [_fmt(v, ".2f") for v in table["fit time (s)"]]
    # the verdict and what the test could detect next to the BER: at 1024 x 768 with the
    # sidebar open the table shows about five columns, and they were off-screen (H30)
    first = ["mean BER (%)", "sd (%)", "vs best", "detectable (pp)", "p (Holm)"]
    return out[[c for c in first if c in out] + [c for c in out if c not in first]]


# --------------------------------------------------------------------------------------------
# Full-data fits
# --------------------------------------------------------------------------------------------
class _WarmSLB:
    """One warm-started :class:`SLBClassifier` and the lock that serialises its refits."""

    def __init__(self, clf: SLBClassifier):
        self.clf = clf
        self.lock = threading.Lock()


#: A warm full-data SLB is "small" up to this many bytes of candidate log-densities
#: (:func:`path_bytes` of one fold of all the rows): a class's uploads (408 x 7: 0.18 MB) are,
#: Sonar (5.9 MB) is not.  Small ones are kept by SMALL_PATH_ENTRIES (at most 48 MB), big ones 8.
SMALL_WARM_BYTES = 1_000_000


def _warm_slb(key: str, _ds, measure: str, pair_rule: str, dens: tuple, seed: int) -> _WarmSLB:
    """The full-data SLB of one dataset and settings, kept warm across λ (``warm_start=True``
    keeps its screening and candidate densities; a new λ only refits the SVM).

    Cached by size, as :func:`threshold_path`: with one cache of 8, a class of 30 sessions
    evicted each other's, and a λ move then paid the screening and the densities again."""
    args = (key, _ds, measure, pair_rule, dens, seed)
    if path_bytes(_ds.n, _ds.d, 1, 1, getattr(_ds, "K", 2)) <= SMALL_WARM_BYTES:
        return _small_warm_slb(*args)
    return _big_warm_slb(*args)


@st.cache_resource(show_spinner=False, max_entries=SMALL_PATH_ENTRIES, ttl=_TTL)
def _small_warm_slb(key, _ds, measure, pair_rule, dens, seed) -> _WarmSLB:
    return _new_warm_slb(measure, pair_rule, dens, seed)


@st.cache_resource(show_spinner=False, max_entries=8, ttl=_TTL)
def _big_warm_slb(key, _ds, measure, pair_rule, dens, seed) -> _WarmSLB:
    return _new_warm_slb(measure, pair_rule, dens, seed)


def _new_warm_slb(measure: str, pair_rule: str, dens: tuple, seed: int) -> _WarmSLB:
    return _WarmSLB(
        SLBClassifier(
            C=FIXED_C,
            dependence=measure,
            pair_rule=pair_rule,
            random_state=seed,
            warm_start=True,
            probability=False,  # the pages read its weights and decisions, never its Platt fit
            **density_params(dens),
        )
    )


@st.cache_data(show_spinner="Fitting SLB on all the data…", max_entries=64, ttl=_TTL)
@queued
def fit_slb(
    key: str, _ds, lam: float, measure: str, pair_rule: str, dens: tuple, seed: int
) -> SLBClassifier:
    """``SLBClassifier(threshold=lam, C=FIXED_C, probability=False, ...)`` fitted on all the rows.

    Warm-started from the dataset's cached screening and densities (:func:`_warm_slb`): the
    first λ pays for HSIC and the densities, every other λ refits only the SVM.  The same
    model as a cold fit with the same seed (``tests/test_speed_paths.py``); the returned copy
    carries no warm cache (``SLBClassifier.__getstate__`` drops it when Streamlit stores it).
    """
    warm = _warm_slb(key, _ds, measure, pair_rule, dens, seed)
    with warm.lock:  # copied inside the lock: another session may refit it next
        clf = warm.clf.set_params(threshold=float(lam)).fit(_ds.X, _ds.y)
        cache = clf.__dict__.get("_cache")
        fitted = copy.deepcopy(clf)
        # SLBClassifier.__getstate__ pops the cache from the object itself (object.__getstate__
        # returns the live __dict__ on Python 3.11), so the copy would cool the warm model.
        if cache is not None:
            clf._cache = cache
    return fitted.set_params(warm_start=False)


@st.cache_data(show_spinner="Explaining SLB's decisions…", max_entries=32, ttl=_TTL)
def slb_contributions(
    key: str, _ds, lam: float, measure: str, pair_rule: str, dens: tuple, seed: int
) -> tuple[pd.DataFrame, float, np.ndarray]:
    clf = fit_slb(key, _ds, lam, measure, pair_rule, dens, seed)
    contrib, baseline = clf.contributions(_ds.X)
    return contrib, baseline, clf.decision_function(_ds.X)


@st.cache_data(show_spinner="Fitting TAN's trees on all the data…", max_entries=16, ttl=_TTL)
@queued
def fit_tan(key: str, _ds, dens: tuple) -> TANClassifier:
    return TANClassifier(**density_params(dens)).fit(_ds.X, _ds.y)


@st.cache_data(show_spinner=False, max_entries=16, ttl=_TTL)
def tan_tree_positions(key: str, _ds, dens: tuple) -> dict:
    """Node positions of TAN's two trees (Kamada-Kawai is slow: computed once)."""
    tan = fit_tan(key, _ds, dens)
    return {label: tree_layout(_ds.d, edges) for label, edges in tan.trees_.items()}


def coefficient_table(
    ds, clf: SLBClassifier, oracle: pd.Series | None = None, csv: bool = False
) -> pd.DataFrame:
    """SLB's weights as a table: term, class, kind, features, weight (and oracle weight).

    ``csv``: the class column reads "positive (+)" rather than "+" (a cell starting with "+"
    reads as a formula: the CSV writer would prefix an apostrophe that Excel and pandas keep).
    """
    t = clf.term_table_
    pos = t["class"].to_numpy() == "+"
    signs = ("positive (+)", "negative (−)") if csv else ("+", "−")
    out = pd.DataFrame(
        {
            "term": t.index.to_numpy(dtype=object),
            "class": np.where(pos, *signs),
            "class label": np.where(pos, ds.positive_label, ds.negative_label),
            "kind": t["kind"].to_numpy(dtype=object),
            "feature a": t["feature_i"].to_numpy(dtype=object),
            "feature b": t["feature_j"].fillna("").to_numpy(dtype=object),
            "weight": clf.coef_[0].astype(float),
        }
    )
    if oracle is not None and len(out):
        out["oracle weight (Lemma 1)"] = out["term"].map(oracle).fillna(0.0)
    return out
