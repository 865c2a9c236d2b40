"""The pages for K > 2 classes (issue 25): the classes are kept as they are, never merged.

The two-class pages keep their own code (and numbers); a page whose dataset has more than two
classes (``Dataset.multiclass``) draws itself with the functions here instead:

* Dependencies: one class's heatmap at a time, at the page's width (a class picker), the pair
  graph per class or as the union coloured by class, the kept pairs' table;
* Densities: one curve / contour per class;
* Compare: every K-class classifier cross-validated on the same folds
  (``slb.evaluation.compare_estimators(record_predictions=True)``): macro BER with the
  corrected t-test against the best, the K x K confusion matrix (click a cell, or choose it
  in a selectbox, to list its rows), one-vs-rest ROC / PR with a class picker, per-class
  recall, SLB's coefficients per class block; binary-only classifiers are listed with the
  reason they are not offered;
* Explain: the decision value of every class for one sample, the winner's margin over the
  runner-up, and the winner's terms.

SLB is evaluated on the page's cached per-fold densities and warm SVMs
(``evaluation.warm_folds``: a λ change refits only the SVMs whose kept terms changed), the other classifiers through the
two-class page's cached per-classifier runs; the BER-along-λ curve is the exact steps of
``slb.model.steps.ber_steps`` on the same folds.
Every name from the data is escaped (``escape_markdown`` for Markdown, ``escape_text`` inside
the figures).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from slb import SLBClassifier
from slb.evaluation.metrics import balanced_error_rate
from slb.evaluation.predictions import (
    class_column,
    confusion_matrices,
    evaluate_predictions,
    fold_prediction_frame,
    per_class_recall,
    pooled_pr,
    pooled_roc,
    with_repeats,
)
from slb.evaluation.registry import CLASSIFIERS as CATALOG
from slb.model.path import FIXED_C
from slb.viz import figures
from slb.viz import multiclass as mfig
from slb.viz.cells import clickable_cells, clicked_cell
from slb.viz.evaluation import pr_figure, roc_figure
from slb.viz.style import shorten, signed

from . import apply_model, compute, controls, curve_ui, evaluation, models, report, sidebar, state
from .safety import escape_markdown as esc
from .safety import safe_csv_bytes
from .workqueue import queued

CHART = {"displaylogo": False}
_TTL = 2 * 3600
#: Compared from the start (SLB first), as on the two-class page.
DEFAULT_MODELS = models.DEFAULT_MODELS
#: SLB with λ and C chosen by inner CV inside every fold (the nested estimate's row).
NESTED = evaluation.NESTED_NAMES[True]


def class_names(ds) -> list[str]:
    return [str(c) for c in ds.classes]


def offered_models() -> tuple[list[str], dict[str, str]]:
    """The Compare page's classifiers that take K classes, and the others with their reason."""
    ok, why = [], {}
    for name in models.CLASSIFIERS:
        reason = CATALOG[name].binary_only
        if reason is None:
            ok.append(name)
        else:
            why[name] = reason
    return ok, why


def class_picker(ds, key: str, label: str = "Class", *, allow_all: str | None = None) -> int | None:
    """A class picker (radio up to four choices, else a selectbox); returns the class index,
    or None for the ``allow_all`` choice."""
    names = class_names(ds)
    options = ([-1] if allow_all else []) + list(range(ds.K))

    widget = st.radio if len(options) <= 4 else st.selectbox

    def fmt(k):  # radio labels are Markdown, selectbox options plain text
        if k == -1:
            return allow_all
        return esc(names[k]) if widget is st.radio else names[k]

    kw = {"horizontal": True} if widget is st.radio else {}
    k = widget(label, options, format_func=fmt, key=key, **kw)
    return None if k == -1 else int(k)


# --------------------------------------------------------------------------------------------
# Dependencies
# --------------------------------------------------------------------------------------------
def kept_table(ds, scr, keep_c) -> pd.DataFrame:
    """One row per kept pair: names, each class's dependence, the classes whose term is kept."""
    names = np.asarray(ds.feature_names, dtype=object)
    cls = class_names(ds)
    idx = np.flatnonzero(keep_c.any(axis=0))
    label = compute.MEASURES[scr.measure]
    out = {
        "feature a": names[scr.pairs[idx, 0]],
        "feature b": names[scr.pairs[idx, 1]],
    }
    for k, c in enumerate(cls):
        out[f"{label} in {c}"] = scr.pair_stat[k, idx]
    for k, c in enumerate(cls):
        out[f"p-value in {c}"] = scr.pair_pvalue[k, idx]
    out["kept in"] = [", ".join(cls[k] for k in np.flatnonzero(keep_c[:, p])) for p in idx]
    table = pd.DataFrame(out)
    if len(table):
        top = scr.pair_stat[:, idx].max(axis=0)
        table = table.iloc[np.argsort(-top, kind="stable")].reset_index(drop=True)
    return table


def kept_matrix(scr, flags, d: int) -> np.ndarray:
    K = np.zeros((d, d), dtype=bool)
    K[scr.pairs[:, 0], scr.pairs[:, 1]] = flags
    return K | K.T


def _heatmap(c: dict, ds, scr, keep_c, k: int) -> None:
    fig = compute.dependence_heatmap_at(
        ds.key,
        ds,
        c["measure"],
        k,
        bool(c["cluster"]),
        mfig.class_color(k),
        kept_matrix(scr, keep_c[k], ds.d),
    )
    st.markdown(f"**{esc(class_names(ds)[k])}**")
    st.plotly_chart(fig, key=f"dep_heatmap_k{k}", config=CHART)


def dependencies_page(c: dict, ds) -> None:
    names = class_names(ds)
    st.title("Dependencies")
    st.caption(
        f"SLB's first step, in each of the {ds.K} classes: a pair of features enters the model "
        "when its dependence within a class reaches λ (the classes are kept apart: merging "
        "classes would show their mixture as dependence)."
    )
    top = st.columns([4, 2, 3], gap="small")
    with top[2]:
        settings = st.popover(  # a short label: a long one was cut at 1024 px (H43)
            "λ settings",
            width="stretch",
            help="How λ is chosen, the dependence measure and the pair rule; now: "
            f"λ {compute.LAMBDA_MODES[c['lam_mode']]} · {compute.MEASURES[c['measure']]}, "
            f"{compute.PAIR_RULES[c['pair_rule']]}.",
        )
    with top[0]:
        lam = controls.lambda_controls("dep", mode_in=settings)
    with settings:
        controls.measure_control("dep")
        controls.pair_rule_control("dep")
    with top[1]:
        st.metric(
            "pairs kept",
            f"{lam.n_kept}",
            f"of {lam.n_pairs}",
            delta_color="off",
            delta_arrow="off",
        )
    if lam.note:
        st.caption(lam.note + ".")
    controls.small_class_warning(ds, c["pair_rule"], c["measure"])
    scr = compute.screening(ds.key, ds, c["measure"])
    keep_c = compute.kept_mask(scr, lam.value, c["pair_rule"])

    st.subheader("Dependence within each class")
    # one class at a time, at the page's width, as on the two-class page: three side by side
    # had 63 x 63 px plot areas at 1024 x 768 with the sidebar open (H30), two 150 px
    k = class_picker(ds, "dep_class_k", "Class shown")
    _heatmap(c, ds, scr, keep_c, k)
    st.caption(
        "What it shows: the dependence of every pair of features within one class (darker: "
        "more dependent), in the class's colour; outlined cells above the diagonal are the "
        "class's pair terms kept at the current λ"
        + (
            ". Under “any class” a pair that reaches λ in one class keeps its term in every "
            "class, so a pale cell can be outlined: it is kept for another class's dependence."
            if c["pair_rule"] == "either"
            else "."
        )
    )
    state.bound(
        st.checkbox, "Order features by hierarchical clustering", "cluster", key="dep_cluster"
    )

    st.subheader("Kept pairs as a graph")
    show = class_picker(ds, "dep_graph_class", "Edges of", allow_all="every class (union)")
    graph = mfig.pair_graph_k(
        list(ds.feature_names),
        scr.pairs,
        scr.pair_stat,
        keep_c,
        compute.graph_positions(ds.key, ds, c["measure"]),
        names,
        show=show,
        measure=c["measure"],
    )
    st.plotly_chart(graph, key="dep_pair_graph", config=CHART)
    st.caption(
        "Nodes are features, edges the kept pair terms, one colour per class (the union draws "
        "a pair kept in several classes once per class, side by side). Moving λ up drops edges."
    )

    table = kept_table(ds, scr, keep_c)
    st.subheader(f"Kept pairs ({len(table)})")
    st.dataframe(  # as tall as its rows, up to 320 px (H43: 5 empty rows under 3 pairs)
        table,
        hide_index=True,
        width="stretch",
        height=min(320, evaluation.table_height(len(table))),
        key="dep_pairs_table",
        column_config=compute.pair_table_columns(table, compute.MEASURES[scr.measure], short=False),
    )
    if len(table):
        # a column per class twice: wider than the page at 1024 px with three classes
        st.caption(
            "The table scrolls sideways: each class's p-value, then the classes whose term is kept."
        )
        pair_view(ds, table)


def pair_view(ds, table: pd.DataFrame) -> None:
    """A kept pair's bivariate density in every class (the most dependent pair first)."""
    options = list(zip(table["feature a"], table["feature b"], strict=True))
    pick = st.selectbox(
        "Bivariate density of a kept pair",
        range(len(options)),
        format_func=lambda k: f"{options[k][0]} × {options[k][1]}",
        key="dep_pair_pick_k",
    )
    a, b = options[int(pick or 0)]
    _, h2 = compute.bandwidths(ds.key, ds, state.density_key())
    st.plotly_chart(
        densities_figure(ds, [str(a), str(b)], None, h2), key="dep_pair_density", config=CHART
    )
    st.caption(
        "Where the pair's values fall in each class (one colour per class); SLB's pair terms "
        "are these densities. The bandwidths are set on the Densities page."
    )


# --------------------------------------------------------------------------------------------
# Densities
# --------------------------------------------------------------------------------------------
def densities_figure(ds, chosen: list[str], h1, h2):
    """One curve per class (one feature) or one contour set per class (a pair)."""
    names = list(ds.feature_names)
    X = ds.X.to_numpy()
    cls = class_names(ds)
    if len(chosen) == 1:
        i = names.index(chosen[0])
        return mfig.density_1d_k(X[:, i], ds.y, h1[:, i], cls, feature=chosen[0])
    i, j = names.index(chosen[0]), names.index(chosen[1])
    return mfig.density_2d_k(
        X[:, i], X[:, j], ds.y, h2[:, [i, j]], cls, feature_a=chosen[0], feature_b=chosen[1]
    )


def bandwidth_caption(ds, chosen: list[str], h1, h2) -> str:
    names = list(ds.feature_names)
    cls = class_names(ds)
    if len(chosen) == 1:
        i = names.index(chosen[0])
        parts = [f"{esc(c)} {h1[k, i]:.4g}" for k, c in enumerate(cls)]
        note = compute.floor_note(ds, chosen[0], h1[:, i])
        return f"Bandwidth of {esc(chosen[0])}: " + ", ".join(parts) + "." + note
    i, j = names.index(chosen[0]), names.index(chosen[1])
    parts = [f"{esc(c)} ({h2[k, i]:.3g}, {h2[k, j]:.3g})" for k, c in enumerate(cls)]
    return "Pair bandwidths: " + ", ".join(parts) + "."


# --------------------------------------------------------------------------------------------
# Compare
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MultiResults:
    per_fold: pd.DataFrame  # BER (macro) per fold (rows) and classifier (columns)
    predictions: pd.DataFrame  # out-of-fold predictions (per-class score/proba columns)
    seconds: pd.Series
    folds: list


def make_slb(lam: float, measure: str, pair_rule: str, dens: tuple, seed: int) -> SLBClassifier:
    """SLB at the page's λ and C (``FIXED_C``), as the two-class page evaluates it."""
    return SLBClassifier(
        threshold=float(lam),
        C=FIXED_C,
        dependence=measure,
        pair_rule=pair_rule,
        random_state=seed,
        probability=False,
        **state.density_params(dens),
    )


def named(pred: pd.DataFrame, names) -> pd.DataFrame:
    """A prediction table with class indices (``Dataset.y``) as the class names: ``y_true``,
    ``y_pred`` and the per-class ``proba[k]`` / ``score[k]`` columns."""
    names = np.asarray(names, dtype=object)
    out = pred.copy()
    for col in ("y_true", "y_pred"):
        out[col] = names[out[col].to_numpy(dtype=np.int64)]
    ren = {
        class_column(kind, k): class_column(kind, c)
        for kind in ("proba", "score")
        for k, c in enumerate(names)
    }
    return out.rename(columns=ren)


@st.cache_data(show_spinner="SLB on every fold at this λ…", max_entries=128, ttl=_TTL)
@queued
def slb_predictions(
    key: str,
    _ds,
    measure: str,
    pair_rule: str,
    dens: tuple,
    n_folds: int,
    seed: int,
    n_repeats: int,
    mode: str,
    param: float,
) -> tuple[pd.DataFrame, float]:
    """SLB's out-of-fold predictions from the page's cached per-fold densities and warm SVMs
    (``evaluation.warm_folds``: ``slb.model.warm.WarmFolds``, the multinomial model per fold
    kept warm across λ; a λ change refits only the folds whose kept terms changed): the
    class of the largest decision value, the K decision values as scores (no probabilities:
    the multinomial calibration would triple the cost of every λ step).  λ = ``param``
    (``mode="value"``), or recomputed in each fold (``"quantile"``, ``"fdr"``), as on the
    two-class page.  Its per-fold BER is that of cold ``SLBClassifier`` fits at λ (tested)."""
    warm = evaluation.warm_folds(key, _ds, measure, pair_rule, dens, n_folds, seed, n_repeats)
    t0 = time.perf_counter()
    decisions, _ = warm.decisions(evaluation._selector(mode, param, pair_rule))
    path, y = warm.path, np.asarray(_ds.y)
    folds = [(f.train, f.test) for f in path.folds_]
    frames = [
        fold_prediction_frame(
            "SLB", k, te, y[te], path.classes_[d.argmax(axis=1)], None, d, path.classes_
        )
        for k, ((_, te), d) in enumerate(zip(folds, decisions, strict=True))
    ]
    pred = with_repeats(frames, folds)
    return named(pred, class_names(_ds)), time.perf_counter() - t0


def cross_validate(ds, c: dict, lam, names: list[str], dens: tuple, reps: int) -> MultiResults:
    """Every classifier of the page on the same folds: SLB through :func:`slb_predictions`,
    the others through the two-class page's cached runs
    (``dashboard.evaluation.model_fold_run``: one entry per classifier, so λ does not refit
    them; NB too, as a K-class ``KDENaiveBayes``)."""
    n_folds, seed = int(ds.n_folds), int(c["seed"])
    folds = compute.folds(ds.key, ds, n_folds, seed, reps)
    preds, ber, secs = [], {}, {}
    bar = st.progress(0.0, text="Cross-validating…")  # H47: 37 s with no progress shown
    for n_done, name in enumerate(names):
        bar.progress(n_done / len(names), text=f"Cross-validating {name}…")
        if name == "SLB" and lam.mode == "cv" or name == NESTED:
            # λ (and C for the nested estimate) chosen by inner CV inside every fold: honest
            ev = evaluation.nested_for(ds, c, dens, reps, name == NESTED)
            pred, sec = named(ev.predictions, class_names(ds)), np.nan
        elif name == "SLB":
            mode = lam.mode if lam.mode in ("quantile", "fdr") else "value"
            param = {"quantile": c["lam_quantile"], "fdr": c["fdr_alpha"]}.get(mode, lam.value)
            pred, sec = slb_predictions(
                ds.key,
                ds,
                c["measure"],
                c["pair_rule"],
                dens,
                n_folds,
                seed,
                reps,
                mode,
                float(param),
            )
        else:
            spec = models.CLASSIFIERS[name]
            run = evaluation.model_fold_run(
                ds.key, ds, name, dens if spec.uses_density else None, n_folds, seed, reps
            )
            pred, sec = named(run.predictions, class_names(ds)), run.seconds
        preds.append(pred)
        ber[name] = fold_ber(pred)
        secs[name] = sec
    bar.empty()
    per_fold = pd.DataFrame(ber)
    per_fold.index.name = "fold"
    return MultiResults(
        per_fold, pd.concat(preds, ignore_index=True), pd.Series(secs, name="seconds"), folds
    )


def fold_ber(pred: pd.DataFrame) -> np.ndarray:
    """Per-fold macro BER of a one-classifier prediction table (folds in order)."""
    g = dict(tuple(pred.groupby("fold", sort=True)))
    return np.array([balanced_error_rate(g[k]["y_true"], g[k]["y_pred"]) for k in range(len(g))])


@st.cache_data(show_spinner="Fitting SLB on all the data…", max_entries=32, ttl=_TTL)
@queued
def fit_slb(key: str, _ds, lam: float, measure: str, pair_rule: str, dens: tuple, seed: int):
    """SLB on every row, its classes the class names (K blocks of terms)."""
    y = np.asarray(class_names(_ds), dtype=object)[_ds.y]
    return make_slb(lam, measure, pair_rule, dens, seed).fit(_ds.X, y)


def full_fit(ds, c: dict, lam, dens: tuple):
    """:func:`fit_slb` at the page's λ, or None after an ``st.error`` saying why it failed."""
    try:
        return fit_slb(
            ds.key, ds, float(lam.value), c["measure"], c["pair_rule"], dens, int(c["seed"])
        )
    except Exception as e:  # noqa: BLE001 - shown, never a traceback
        st.error(f"Fitting SLB on all the rows failed: {esc(type(e).__name__)}: {esc(e)}")
        return None


def coefficient_blocks(clf) -> pd.DataFrame:
    """SLB's weights: one row per (decision of class, term), the term's own class block."""
    t = clf.term_table_
    rows = []
    for k, c in enumerate(clf.classes_):
        rows.append(
            pd.DataFrame(
                {
                    "decision of": str(c),
                    "term": t.index.to_numpy(dtype=object),
                    "term of class": t["label"].astype(str).to_numpy(dtype=object),
                    "kind": t["kind"].to_numpy(dtype=object),
                    "weight": clf.coef_[k].astype(float),
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def models_control(c: dict) -> list[str]:
    ok, why = offered_models()
    chosen = [m for m in c["extra_models"] if m in ok and m not in DEFAULT_MODELS]
    extra = st.multiselect(
        f"More classifiers ({', '.join(DEFAULT_MODELS)} are always compared)",
        [m for m in ok if m not in DEFAULT_MODELS],
        default=chosen,
        key="cmp_models_k",
        help="Each is cross-validated on the same folds as SLB.",
    )
    c["extra_models"] = list(dict.fromkeys([*extra, *c["extra_models"]]))
    c["extra_models"] = [m for m in c["extra_models"] if m in extra or m not in ok]
    if why:
        st.caption(
            "Not offered for more than two classes: "
            + " ".join(f"**{esc(n)}**: {esc(r)}" for n, r in why.items())
        )
    return [m for m in DEFAULT_MODELS if m in ok] + list(extra)


def compare_page(c: dict, ds) -> None:
    cls = class_names(ds)
    st.title("Compare")  # the two-class page's words (H35: the two pages named things apart)
    st.caption(
        f"{ds.K} classes, kept as they are. Every classifier is cross-validated on the same "
        f"stratified folds; BER is the macro-averaged error (the mean over the {ds.K} classes "
        "of each class's error rate, 1 − balanced accuracy)."
    )
    top = st.columns([3, 3], gap="medium")
    with top[0]:
        lam = controls.lambda_controls("cmp")
    with top[1]:
        names = models_control(c)
    if lam.note:
        st.caption(lam.note + ".")
    # the two-class page's density and repeats controls (H43: missing here, while Explain's
    # caption said Compare has the same bandwidth controls)
    low = st.columns([3, 3], gap="medium")
    with low[0]:
        controls.bandwidth_controls("cmp", overrides=False)
    with low[1]:
        controls.repeats_control("cmp")
    sidebar.refresh_settings(lam)  # the bandwidth line, after a move of the multiplier
    dens = state.density_key()
    reps = compute.affordable_repeats(ds.n, ds.d, int(c["cv_repeats"]))
    nested_key = ("nested", ds.key, c["measure"], c["pair_rule"], dens, int(c["seed"]), reps)
    if st.session_state.get("cmp_nested_k") == nested_key:
        names = [*names, NESTED]
    try:
        res = cross_validate(ds, c, lam, names, dens, reps)
    except Exception as e:  # noqa: BLE001 - shown, never a traceback
        st.error(f"The cross-validation failed: {esc(type(e).__name__)}: {esc(e)}")
        return
    table = compute.comparison(res.per_fold, res.folds)
    table["fit time (s)"] = res.seconds.reindex(table.index).to_numpy()
    ev = evaluate_predictions(res.predictions)
    shown = with_macro_metrics(table, compute.comparison_display(table), ev.summary)
    st.subheader("Balanced error rate")
    lam_text = controls.format_lambda(lam.value)
    if lam.mode == "value":
        slb_how = f"SLB at λ = {lam_text}"
    else:  # each fold set its own lambda: the sidebar's is the all-rows one
        how = "chosen again by cross-validation" if lam.mode == "cv" else "set again by its rule"
        slb_how = f"SLB's λ {how} inside every fold (λ = {lam_text} is the one on all rows)"
    st.caption(
        f"{len(res.folds)} folds ({reps} repeat{'s' if reps != 1 else ''} of {ds.n_folds}-fold "
        f"CV), seed {int(c['seed'])}, {slb_how}; "
        f"{esc(table.attrs.get('test', ''))}; darker bars: not significantly different from "
        "the best."
    )
    evaluation.chance_warning(res.per_fold, ds.K, ds.n)
    # the bars first and shaded by the test's verdict, as on the two-class page (H45: every
    # bar the same blue, a "significantly worse" one too)
    bars = figures.ber_bars(
        res.per_fold, table.rename(columns={"tied with best": "tied_with_best"})
    )
    st.plotly_chart(bars, key="cmp_ber_bars_k", config=CHART)
    st.dataframe(
        shown,
        width="stretch",
        key="cmp_table_k",
        column_config={
            # BERs to one decimal as on the two-class page (H28 saw "28.1162"), scores to three
            "mean BER (%)": st.column_config.NumberColumn(format="%.1f"),
            "sd (%)": st.column_config.NumberColumn(format="%.1f"),
            **evaluation.VERDICT_COLUMNS,
        },
    )
    evaluation.more_columns_caption(shown)
    st.caption(f"SLB: {evaluation.SLB_HOW.get(lam.mode, evaluation.SLB_HOW['value'])}.")
    if NESTED not in names and st.button(
        "Nested estimate of SLB (λ and C chosen again inside every fold; slow)",
        key="cmp_nested_button_k",
    ):
        # computed here, so that its spinner is beside the button the user pressed (H47: at the
        # top of the page it was 800 px above the screen); the rerun reads the cached result
        evaluation.nested_for(ds, c, dens, reps)
        st.session_state["cmp_nested_k"] = nested_key
        st.rerun()
    st.subheader("SLB's BER along λ")
    if st.toggle(curve_ui.CURVE_TOGGLE, key="cmp_curve_on"):
        # the exact steps of slb.model.steps.ber_steps on the same folds (the K-class
        # multinomial model; the same per-fold BER as the cold fits above)
        curve_ui.ber_curve_section(ds, c, lam, dens, int(ds.n_folds), reps, res.per_fold)

    st.subheader("Out-of-fold predictions")
    chosen = st.selectbox("Classifier", list(res.per_fold.columns), key="cmp_pred_model_k")
    pred = res.predictions
    # one under the other, at the page's width, as on the two-class page: side by side at
    # 1024 x 768 the 3 x 3 cells' texts ran together and the curves were 182 x 182 px (H30)
    left = right = st.container()
    with left:
        cm = confusion_matrices(pred, labels=cls)[chosen]
        cm_fig = clickable_cells(
            mfig.confusion_figure_k(cm, title=f"{chosen}: confusion ({ds.K} × {ds.K})")
        )
        st.plotly_chart(  # a click on a cell lists its rows below (the selectbox follows it)
            cm_fig,
            key=CELL_CHART,
            config=CHART,
            on_select=lambda: pick_cell(cm_fig, ds.K),
            selection_mode="points",
        )
        st.caption(
            "Rows: the true class; columns: the predicted class; counts pooled over every fold "
            "and repeat, with the share of the true class (row). Click a cell to list its rows "
            "below."
        )
        # classes as rows, classifiers as columns, names in a column of fixed width: with the
        # classes as columns, three names of 43 characters made the table scroll sideways at
        # 1024 px (H41); a row per class grows down, and a cut name is whole on hover
        recall = 100 * per_class_recall(pred).T
        recall.index = recall.index.map(str)
        st.markdown("**Recall of each class (%)**")
        st.dataframe(
            recall.rename_axis("class").reset_index(),
            hide_index=True,
            width="stretch",
            key="cmp_recall_k",
            column_config={
                "class": st.column_config.TextColumn(width=220),
                **{m: st.column_config.NumberColumn(format="%.1f") for m in recall.columns},
            },
        )
        st.caption(
            "Pooled over every fold and repeat. A column's mean is 100 minus the classifier's "
            "pooled macro BER."
        )
    with right:
        k = class_picker(ds, "cmp_roc_class", "One-vs-rest curves of class")
        curves, auc = pooled_roc(pred, pos_label=cls[k])
        # the classifiers' lines in colours no class has here (H48: TAN's orange and NB's
        # green read as Chinstrap and Gentoo, the colours of penguins' other figures)
        taken = [mfig.class_color(j) for j in range(len(cls))]
        st.plotly_chart(roc_figure(curves, auc, avoid_colors=taken), key="cmp_roc_k", config=CHART)
        pcurves, ap, prev = pooled_pr(pred, pos_label=cls[k])
        st.plotly_chart(
            pr_figure(pcurves, ap, prev, avoid_colors=taken), key="cmp_pr_k", config=CHART
        )
        st.caption(
            f"Class {esc(cls[k])} against the rest, from every classifier's out-of-fold "
            "scores for that class pooled over the folds."
        )
    cell_section(ds, pred, chosen, cm)
    curve_ui.classwise_reliability_section(pred, cls, k)  # K-class reliability (issue 28)

    tan_box = st.expander(
        "TAN's trees (the Chow-Liu tree of each class)", key="cmp_tan_open_k", on_change="rerun"
    )
    if tan_box.open:
        with tan_box:
            tan_trees(ds, dens)

    st.subheader("SLB's coefficients, one block per class")
    clf = full_fit(ds, c, lam, dens)
    if clf is None:
        downloads_section(ds, c, lam, dens, reps, table, res, None)
        return
    coef = coefficient_blocks(clf)
    k = class_picker(ds, "cmp_coef_class", "Decision of class")
    mine = coef[coef["decision of"] == cls[k]].drop(columns="decision of")
    mine = mine.reindex(mine["weight"].abs().sort_values(ascending=False).index)
    # pairs written "a × b", as the caption, Explain and the two-class page write them (H50:
    # the table read "log p[alpha](f3, f4)"); the CSV keeps the library's term names
    mine["term"] = [figures.term_text(t, ds.feature_names) for t in mine["term"]]
    st.caption(
        f"SLB (one multinomial linear model) fitted on all {ds.n} rows at λ = "
        f"{controls.format_lambda(lam.value)}, seed {int(c['seed'])}: the weights of class "
        f"{esc(cls[k])}'s decision "
        "value (its multinomial score) on every term; each term belongs to the block of the "
        f"class whose density it is ({esc('log p[class](a)')}, {esc('log p[class](a × b)')}; "
        f"the CSV writes a pair {esc('(a, b)')}, as the library names its terms)."
    )
    st.dataframe(
        mine,
        hide_index=True,
        width="stretch",
        height=min(320, evaluation.table_height(len(mine))),
        key="cmp_coef_k",
    )
    st.download_button(
        "Download all coefficients (CSV)",
        lambda: safe_csv_bytes(coef),  # feature names are the user's: no formula cells
        file_name="slb_coefficients.csv",
        mime="text/csv",
        key="cmp_coef_csv_k",
        on_click="ignore",
    )
    downloads_section(ds, c, lam, dens, reps, table, res, clf)


def with_macro_metrics(table: pd.DataFrame, shown: pd.DataFrame, summary) -> pd.DataFrame:
    """Add the pooled macro AUC, macro F1 and log-loss of ``summary`` (one row per classifier)
    to the displayed table ``shown`` (three decimals, "—" where one does not apply, as on the
    two-class page; H43 saw "None") and, as numbers, to ``table``, the comparison the CSV is
    made of (H50: the page named these columns and the file lacked them); returns ``shown``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> table = pd.DataFrame({"mean BER (%)": [10.0, 20.0]}, index=["SLB", "NB"])
    >>> summary = pd.DataFrame({"AUC": [0.95, 0.9], "F1": [0.9, 0.8], "log-loss": [np.nan, 0.3]},
    ...                        index=["SLB", "NB"])
    >>> with_macro_metrics(table, table.copy(), summary)["log-loss"].tolist()
    ['—', '0.300']
    >>> table.columns.tolist()
    ['mean BER (%)', 'macro AUC', 'macro F1', 'log-loss']
    """
    for m in ("AUC", "F1", "log-loss"):
        if m in summary:
            col = f"macro {m}" if m != "log-loss" else m
            shown[col] = [compute._fmt(v, ".3f") for v in summary[m].reindex(shown.index)]
            table[col] = summary[m].reindex(table.index).to_numpy(dtype=float)
    return shown


def downloads_section(ds, c: dict, lam, dens: tuple, reps: int, table, res, clf) -> None:
    """The comparison table and the settings, as on the two-class page (H47: the K-class page
    had the coefficients' download only)."""
    st.subheader("Downloads")
    # H50: the README lists both for Compare, and this page did not say why they are missing
    st.caption(
        "The operating point on the ROC curve and the HTML report are for two classes: choose "
        "one class against the rest under “Classes” on the Data page to get them."
    )
    left, right = st.columns(2)
    left.download_button(
        "Comparison table (CSV)",
        lambda: safe_csv_bytes(compute.comparison_export(table, res.per_fold), index=True),
        file_name="slb_comparison.csv",
        mime="text/csv",
        key="dl_comparison_k",
        on_click="ignore",
    )
    right.download_button(
        "Settings (JSON)",
        lambda: json.dumps(
            report.settings_record(
                ds,
                c,
                lam,
                state.density_params(dens),
                clf,
                reps=reps,
                wanted=int(c["cv_repeats"]),
                test=table.attrs.get("test", ""),
                classifiers=table.index,
            ),
            indent=2,
            default=str,
        ),
        file_name="slb_settings.json",
        mime="application/json",
        key="dl_settings_k",
        on_click="ignore",
    )


# --- the rows of a cell of the K x K matrix (issue 28) -----------------------------------------
CELL_CHART, CELL_PICK = "cmp_confusion_k", "cmp_cell_k"


def pick_cell(fig, K: int) -> None:
    """on_select callback of the K x K matrix: the clicked cell (true i, predicted j) becomes
    the listed one; the selectbox below, the keyboard's way to the same choice, shows it."""
    cell = clicked_cell(st.session_state.get(CELL_CHART), fig)
    if cell is not None:
        st.session_state[CELL_PICK] = cell[0] * K + cell[1]


def cell_rows(pred: pd.DataFrame, chosen: str, truth, said, X: pd.DataFrame) -> pd.DataFrame:
    """``chosen``'s out-of-fold predictions of class ``truth`` predicted as ``said``, with the
    rows' values: columns ``row`` (position in ``X``), ``repeat`` and ``fold`` (from 1), the
    score of every class when the classifier gives one, then ``X``'s columns.

    Every prediction of every repeat is one line, so the count is that of the cell of
    :func:`slb.evaluation.predictions.confusion_matrices`.
    """
    mine = pred[pred["classifier"] == chosen]
    hit = mine[(mine["y_true"] == truth) & (mine["y_pred"] == said)]
    scores = [
        col
        for col in hit.columns
        if col.startswith(("proba[", "score[")) and np.isfinite(hit[col].to_numpy(float)).all()
    ]
    head = hit[["row", "repeat", "fold", *scores]].reset_index(drop=True)
    head["repeat"] += 1
    head["fold"] += 1
    values = X.iloc[head["row"].to_numpy()].reset_index(drop=True)
    # a feature named like a column above keeps its values under a name of its own
    values.columns = [f"{v} (feature)" if v in head.columns else v for v in values.columns]
    return pd.concat([head, values], axis=1)


def cell_section(ds, pred: pd.DataFrame, chosen: str, cm: pd.DataFrame) -> None:
    """The rows of one cell of ``chosen``'s K x K matrix: the cell clicked or chosen in the
    selectbox (values only through st.dataframe)."""
    cls, K = class_names(ds), ds.K
    counts = cm.to_numpy()
    if CELL_PICK not in st.session_state or not 0 <= st.session_state[CELL_PICK] < K * K:
        off = np.where(np.eye(K, dtype=bool), -1, counts)  # the largest confusion first
        st.session_state[CELL_PICK] = int(np.argmax(off))
    cell = st.selectbox(
        "List the rows of a cell (or click a cell of the matrix)",
        list(range(K * K)),
        key=CELL_PICK,
        format_func=lambda q: f"true {cls[q // K]}, predicted {cls[q % K]}",
        help="A click on a cell of the confusion matrix above chooses it here too.",
    )
    i, j = divmod(int(cell), K)
    listing = cell_rows(pred, chosen, cls[i], cls[j], ds.X)
    st.caption(
        f"{len(listing)} predictions of {esc(chosen)} in the cell true {esc(cls[i])}, "
        f"predicted {esc(cls[j])} (row = position in the prepared data; every repeat counts "
        "once)."
    )
    st.dataframe(listing, hide_index=True, width="stretch", key="cmp_cell_rows_k")


def tan_trees(ds, dens: tuple) -> None:
    """TAN's Chow-Liu tree of one class (a class picker), fitted on all the rows."""
    tan = compute.fit_tan(ds.key, ds, dens)
    positions = compute.tan_tree_positions(ds.key, ds, dens)
    k = class_picker(ds, "cmp_tan_class", "Tree of class")
    label = tan.classes_[k]
    st.plotly_chart(
        figures.tree_graph(
            ds.feature_names,
            tan.trees_[label],
            tan.mutual_info_[label],
            title=f"Chow-Liu tree of {figures.escape_text(class_names(ds)[k])}",
            color=mfig.class_color(k),
            positions=positions[label],
            width_px=controls.FULL_WIDTH_PX,
        ),
        key="cmp_tan_k",
        config=CHART,
    )
    st.caption(
        "TAN's tree of the class: the spanning tree of its most informative pairs (mutual "
        "information on hover). TAN does not use λ."
    )


# --------------------------------------------------------------------------------------------
# Explain
# --------------------------------------------------------------------------------------------
def explain_page(c: dict, ds) -> None:
    cls = class_names(ds)
    dens = state.density_key()
    lam = compute.current_lambda(ds, c, dens)
    st.title("Explain a decision")
    st.caption(
        f"SLB fitted on all the data at λ = {controls.format_lambda(lam.value)}, seed "
        f"{int(c['seed'])} (the folds of its cross-fitted densities): one decision "
        f"value per class (its multinomial score); the class with the largest one wins."
    )
    clf = full_fit(ds, c, lam, dens)
    if clf is None:
        return
    scores = clf.decision_function(ds.X)
    pred = np.asarray(clf.classes_, dtype=object)[scores.argmax(axis=1)]
    truth = np.asarray(cls, dtype=object)[ds.y]
    wrong = np.flatnonzero(pred != truth)
    i = controls.explain_sample_controls(ds, c, wrong, n_terms=len(clf.terms_))
    s = scores[i]
    order = np.argsort(-s, kind="stable")
    win, second = int(order[0]), int(order[1])
    margin = float(s[win] - s[second])
    m = st.columns(2) + st.columns(2)  # two per row: four cut a class name at 1024 px
    # names shortened with a visible "…" (a cut name read as a whole one, H41); the figure
    # and the table below give them whole
    m[0].metric("true class", esc(shorten(truth[i], 40)))
    m[1].metric("SLB predicts", esc(shorten(clf.classes_[win], 40)))
    m[2].metric("its score", signed(s[win]), help="The winner's decision value.")
    m[3].metric(
        "margin",
        f"{margin:.3f}",
        esc("runner-up: " + shorten(clf.classes_[second], 22)),
        delta_color="off",
        delta_arrow="off",
    )
    st.plotly_chart(
        mfig.class_scores_figure(s, [str(v) for v in clf.classes_]),
        key="explain_scores_k",
        config=CHART,
    )
    st.caption(
        "Every class's decision value for this sample (its multinomial score); the largest wins, "
        "and the margin is how far it is ahead of the runner-up."
    )
    st.dataframe(  # the figure's numbers as it writes them (H48: "-1.086" beside "−1.086")
        pd.DataFrame(
            {"class": [str(v) for v in clf.classes_], "decision value": [signed(v) for v in s]}
        ),
        hide_index=True,
        key="explain_scores_table",
    )
    target = clf.classes_[win]
    contrib, baseline = clf.contributions(ds.X.iloc[[i]], target=target)
    row = contrib.iloc[0]
    st.subheader(f"Why {esc(str(target))}: the terms of its decision value")
    st.plotly_chart(
        figures.contributions_figure(
            row,
            baseline=baseline,
            top=int(c["explain_top"]),
            feature_names=ds.feature_names,
            # the decided class's own colour (as in the class chart above) for a step that
            # raises its score, grey for one that lowers it; the axis and legend say so (its
            # sign decides nothing: the largest of the K scores wins)
            colors=(mfig.class_color(win), mfig.REST_GREY),
            score_of=str(target),
        ),
        key="explain_figure",
        config=CHART,
    )
    st.caption(
        f"The waterfall starts at the baseline (the decision value of {esc(str(target))} for a "
        "sample at the training means) and adds one term at a time until this sample's value."
    )
    with st.expander("This sample's feature values"):
        st.dataframe(ds.X.iloc[[i]].T.rename(columns={ds.X.index[i]: "value"}), width="stretch")
    models.download_model(ds)
    apply_model.apply_model(ds)
