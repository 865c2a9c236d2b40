"""The curves of the Compare page, kept here so that the page itself stays a few lines: the
BER-vs-λ figure (exact steps, the current λ on them, the nested estimate beside them), the
reliability diagram of the out-of-fold probabilities with their log-loss and Brier score
(issue 26 item 2, ``docs/probabilities.md``; one class against the rest for more than two
classes), and the operating point (issue 28): a threshold on one classifier's ROC curve with its
confusion matrix and rates, and the rows of the cell clicked (or chosen in the selectbox)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from slb.model.steps import chunk_bounds, join_steps, step_at
from slb.viz import figures
from slb.viz.calibration import (
    operating_point,
    operating_point_figure,
    reliability_counts,
    reliability_figure,
    reliability_table,
)
from slb.viz.cells import clickable_cells, clicked_cell
from slb.viz.classwise import classwise_reliability_figure, classwise_reliability_table
from slb.viz.evaluation import confusion_figure

from . import compute
from .safety import escape_markdown as esc

NESTED = "SLB (nested λ, C)"
#: Breakpoints (all folds together) per cached piece of the steps, and the SVM fits drawn
#: without asking (about 1-2 ms each on Sonar's folds, more on a busy server): first the
#: pieces around the current λ, then the top of the range.
CHUNK = 500
FIRST_FITS = 3000
FILL = "cmp_curve_fill"  # the context in which the user asked for every step


def _nested_mean(per_fold, lam: compute.LambdaInfo, slb_ber) -> tuple[float | None, str]:
    """The honest nested estimate already computed on the page, and what it is."""
    if NESTED in per_fold:
        return float(per_fold[NESTED].mean()), "λ and C chosen by inner CV inside every fold"
    if lam.mode == "cv":
        return float(np.mean(slb_ber)), "λ chosen by inner CV inside every fold"
    return None, ""


def _pieces_first(pieces, lam: float) -> list[int]:
    """The piece holding λ and its neighbours on both sides (pieces run from the top)."""
    j = next((i for i, (a, b) in enumerate(pieces) if a < lam <= b), None)
    if j is None:
        j = len(pieces) - 1 if pieces and lam <= pieces[-1][0] else None
    return [] if j is None else [i for i in (j, j - 1, j + 1) if 0 <= i < len(pieces)]


def _steps(args, reps: int, pieces, lam: float, fill: bool):
    """The steps and the pieces left out (gaps where none is computed): the pieces around λ
    first, then from the top while fewer than :data:`FIRST_FITS` fits were made.  ``fill``:
    the whole range in one computation (one kernel per fold instead of one per piece and fold;
    cached whatever λ is)."""
    if fill:
        whole = (pieces[-1][0], pieces[0][1])
        return compute.slb_ber_steps(*args, whole, reps, max_fits=None), []
    first = _pieces_first(pieces, lam)
    frames, n_fits = {}, 0
    for i in dict.fromkeys([*first, *range(len(pieces))]):
        if i not in first and n_fits >= FIRST_FITS:
            break
        frames[i] = compute.slb_ber_steps(*args, pieces[i], reps, max_fits=None)
        n_fits += frames[i].attrs["n_fits"]
    steps = join_steps(list(frames.values()), pieces[-1][0], allow_gaps=True)
    return steps, [p for i, p in enumerate(pieces) if i not in frames]


#: The switch that draws the curve.  It draws the steps around the current λ first and the
#: rest on request ("Compute every step"): "at every λ" promised the whole range (H48).
CURVE_TOGGLE = "Draw SLB's BER along λ (exact steps near the current λ; the whole range on request)"


def ber_curve_section(ds, cfg: dict, lam: compute.LambdaInfo, dens, k: int, reps: int, per_fold):
    """Draw the exact step curve of SLB's CV BER over the slider's range, with captions."""
    measure, rule, seed = cfg["measure"], cfg["pair_rule"], int(cfg["seed"])
    scr = compute.screening(ds.key, ds, measure)
    lo, hi, _, _ = compute.slider_range(scr, rule)
    args = (ds.key, ds, measure, rule, dens, k, seed)
    path = compute.threshold_path(*args, reps)
    bounds = chunk_bounds(path, lo, hi, CHUNK)
    pieces = list(zip(bounds[1:], bounds, strict=False))  # (low, high), from the top
    ctx = (*args[:1], *args[2:], reps)
    steps, missing = _steps(args, reps, pieces, float(lam.value), st.session_state.get(FILL) == ctx)
    row = step_at(steps, lam.value)
    slb_mean = float(per_fold["SLB"].mean())
    # Hand-set λ: the bar's SLB value is this curve at λ.  Automatic modes recompute λ inside
    # every fold, so the bar differs; the star then marks the curve's own value at λ.
    marker = slb_mean if lam.mode == "value" else (None if row is None else float(row.mean_ber))
    nested, how = _nested_mean(per_fold, lam, per_fold["SLB"])
    fig = figures.ber_curve(
        steps, lam.value, marker, measure=measure, lam_range=(lo, hi), nested_ber=nested
    )
    st.plotly_chart(fig, key="cmp_ber_curve", config={"displaylogo": False})
    text = (
        f"What it shows: SLB's mean BER over the same {len(per_fold)} folds as the bars, for every "
        f"λ in the slider's range: {len(steps)} steps{' so far' if missing else ''}, one per λ "
        "where some fold's kept pairs change (between two such λ every fold fits the same "
        "model). Moving λ moves the star along the curve; the bar of SLB above shows the same "
        "number."
    )
    if lam.mode != "value":
        text += (
            " In this λ mode the bar's SLB recomputes λ inside every fold, so it can differ from "
            "the curve, which applies one λ to every fold."
        )
    if missing:
        text += (
            f" Grey: not computed yet ({steps.attrs['n_fits']} SVM fits so far, around the "
            "current λ first, then the most dependent pairs); the bar still gives the exact BER "
            "at any λ."
        )
    if nested is not None:
        text += f" Dotted line: the nested estimate ({how}), an honest number for comparison."
    else:
        text += " Press the nested-estimate button above to draw the honest nested estimate too."
    st.caption(text)
    if missing:
        st.button(
            f"Compute every step (about {_fits_of(path, lo, hi)} SVM fits in all, computed once)",
            key="cmp_curve_extend",
            on_click=st.session_state.__setitem__,
            args=(FILL, ctx),
        )


def _fits_of(path, lo: float, hi: float) -> int:
    """About the SVM fits of the whole range: its breakpoints, plus both ends on every fold."""
    return max(len(chunk_bounds(path, lo, hi, 1)) - 2, 0) + 2 * len(path.folds_)


# --- probabilities: reliability, log-loss, Brier (issue 26 item 2) ---------------------------
def probability_scores(evals: dict) -> pd.DataFrame:
    """Log-loss and Brier score of every classifier's pooled out-of-fold probabilities of +
    (NaN for classifiers without probabilities), and the mean probability against the share
    of + rows (a calibrated classifier's agree)."""
    rows = {}
    for name, ev in evals.items():
        p = ev.predictions
        proba = p["proba"].to_numpy(dtype=float)
        y = (p["y_true"] == 1).to_numpy()
        if not np.isfinite(proba).all():
            rows[name] = {"log-loss": np.nan, "Brier": np.nan, "mean P(+)": np.nan}
            continue
        q = np.clip(proba, 1e-6, 1 - 1e-6)
        rows[name] = {
            "log-loss": float(-np.mean(np.where(y, np.log(q), np.log1p(-q)))),
            "Brier": float(np.mean((proba - y) ** 2)),
            "mean P(+)": float(proba.mean()),
        }
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "classifier"
    return out


def _counts_table(table: pd.DataFrame, key: str) -> None:
    """The rows per bin of a reliability diagram, one line per classifier (H37: written beside
    the markers, the counts of coinciding bins were printed over each other)."""
    st.caption("Rows per bin of predicted probability, one column per classifier:")
    counts = reliability_counts(table).T  # ten rows: as wide as the classifiers, at 1024 px
    counts.index.name = "predicted probability"
    st.dataframe(counts, width="stretch", key=key)


def reliability_section(evals: dict) -> None:
    """The reliability diagram of every classifier with probabilities, and their scores."""
    pred = pd.concat([ev.predictions for ev in evals.values()], ignore_index=True)
    share = float((next(iter(evals.values())).predictions["y_true"] == 1).mean())
    fig_col = num_col = st.container()  # one under the other: readable at 1024 px
    with fig_col:
        st.plotly_chart(
            reliability_figure(pred, 1), key="cmp_reliability", config={"displaylogo": False}
        )
        _counts_table(reliability_table(pred, 1), "cmp_reliability_counts")
    with num_col:
        st.dataframe(
            probability_scores(evals),
            width="stretch",
            key="cmp_proba_scores",
            column_config={
                c: st.column_config.NumberColumn(format="%.3f")
                for c in ("log-loss", "Brier", "mean P(+)")
            },
        )
        st.caption(
            f"Share of + rows: {share:.3f}. Lower log-loss and Brier are better; a classifier "
            "whose probabilities are honest has its mean P(+) near that share."
        )
    st.caption(
        "What it shows: the out-of-fold probabilities of + of every classifier, cut into ten "
        "bins; each marker is a bin's mean predicted probability (across) against the share of "
        "+ rows in it (up), its area its rows (the table under the diagram gives the counts). On the "
        "dotted diagonal a probability of 0.8 comes true 80% of the time. Every classifier's probability is P(+ | x) at the "
        "class frequencies of its training rows; its prediction (the BER above) is the "
        "balanced-error rule P(+)/share of + > P(−)/share of − for SLB, SLB-, LU, NB and TAN, "
        "the larger probability for the literature's classifiers (docs/probabilities.md)."
    )


def classwise_reliability_section(pred: pd.DataFrame, classes: list, k: int) -> None:
    """More than two classes: the reliability diagram of class ``classes[k]`` against the rest
    for every classifier with probabilities (``slb.probabilities.one_vs_rest_reliability``)."""
    cls = classes[k]
    table = classwise_reliability_table(pred, classes)
    without = [n for n in dict.fromkeys(pred["classifier"]) if n not in set(table["classifier"])]
    if table.empty:
        st.info("None of these classifiers gives probabilities: no reliability diagram.")
        return
    st.plotly_chart(
        classwise_reliability_figure(pred, classes, cls),
        key="cmp_reliability_k",
        config={"displaylogo": False},
    )
    _counts_table(table[table["class"].astype(str) == str(cls)], "cmp_reliability_k_counts")
    text = (
        f"What it shows: every classifier's out-of-fold probability of class {esc(cls)} (the "
        "class of the one-vs-rest curves above), cut into ten bins; each marker is a bin's "
        "mean predicted probability (across) against the share of its rows that are of class "
        f"{esc(cls)} (up), its area its rows (the table under the diagram gives the counts). "
        "On the dotted diagonal a probability "
        "of 0.8 comes true 80% of the time. One class against the rest rather than only the "
        "largest probability of each row (the top-label diagram): the balanced-error rule "
        "reads every class's probability, not only the largest, so each must be honest "
        "(docs/probabilities.md)."
    )
    if without:
        text += (
            f" Not drawn (no out-of-fold probabilities here): {esc(', '.join(map(str, without)))}."
        )
        if "SLB" in without:  # not "SLB has no probabilities" (H28): the page skips them
            text += (
                " This page fits SLB's folds without its probability calibration, which would "
                "triple the cost of every λ step; SLBClassifier itself gives calibrated "
                "probabilities for K classes (docs/probabilities.md)."
            )
    st.caption(text)


# --- the operating point (issue 28) ---------------------------------------------------------
CELLS = {
    "true + predicted + (TP)": (True, True),
    "true + predicted − (FN)": (True, False),
    "true − predicted + (FP)": (False, True),
    "true − predicted − (TN)": (False, False),
}
CELL_CHART, CELL_PICK = "cmp_op_confusion", "cmp_op_cell"


def cell_name(row: int, col: int) -> str:
    """The :data:`CELLS` name of a cell of the drawn matrix (+ first: row 0 is true +,
    column 0 predicted +; ``slb.viz.evaluation.confusion_figure``)."""
    wanted = (row == 0, col == 0)
    return next(name for name, cell in CELLS.items() if cell == wanted)


def pick_cell(fig) -> None:
    """on_select callback of the matrix: the clicked cell becomes the listed one (the
    selectbox below, the keyboard's way to the same choice, shows it)."""
    cell = clicked_cell(st.session_state.get(CELL_CHART), fig)
    if cell is not None:
        st.session_state[CELL_PICK] = cell_name(*cell)


def _threshold(pred: pd.DataFrame, chosen: str) -> tuple[float, str]:
    """The slider of the threshold: on P(+) in [0, 1] when the classifier gives probabilities
    (default: the share of + rows, the balanced-error rule), else on its decision score."""
    proba = pred["proba"].to_numpy(dtype=float)
    share = float((pred["y_true"] == 1).mean())
    if np.isfinite(proba).all():
        value = st.slider(
            "Threshold on P(+): rows at or above it are predicted +",
            0.0,
            1.0,
            # three decimals: at two the default drifted off the rule (0.466 -> 0.47 moved two
            # rows on Sonar, so the matrix below disagreed with the classifier's own)
            round(share, 3),
            0.001,
            format="%.3f",
            key="cmp_op_threshold_p",
            help="The share of + rows (the default) is the balanced-error rule; 0.5 is the "
            "rule of the plain error rate.",
        )
        return float(value), "P(+)"
    score = pred["score"].to_numpy(dtype=float)
    if not np.isfinite(score).all():
        st.info(f"{chosen} gives neither probabilities nor decision scores: no threshold to move.")
        return float("nan"), ""
    lo, hi = float(np.floor(score.min())), float(np.ceil(score.max()))
    hi = hi if hi > lo else lo + 1.0
    value = st.slider(
        "Threshold on the decision score: rows at or above it are predicted +",
        lo,
        hi,
        float(np.clip(0.0, lo, hi)),
        (hi - lo) / 200,
        key=f"cmp_op_threshold_s_{chosen}",
    )
    return float(value), "decision score"


def operating_point_section(ds, evals: dict, chosen: str) -> None:
    """A threshold on ``chosen``'s ROC curve; its confusion matrix, TPR, FPR, precision and BER
    follow it; the rows of a chosen cell are listed (values only through st.dataframe)."""
    pred = evals[chosen].predictions.reset_index(drop=True)
    pos, neg = ds.class_names[1], ds.class_names[0]
    st.markdown("**Operating point**: move the threshold along the ROC curve")
    threshold, on = _threshold(pred, chosen)
    if not on:
        return
    point = operating_point(pred, chosen, 1, threshold)
    roc_col = cm_col = st.container()  # one under the other: readable at 1024 px
    with roc_col:
        st.plotly_chart(
            operating_point_figure(pred, chosen, 1, threshold),
            key="cmp_op_roc",
            config={"displaylogo": False},
        )
    with cm_col:
        counts = pd.DataFrame([[point["tn"], point["fp"]], [point["fn"], point["tp"]]])
        cm_fig = clickable_cells(
            confusion_figure(
                counts, pos_name=pos, neg_name=neg, title=f"At threshold {threshold:.3g}"
            )
        )
        st.plotly_chart(  # a click on a cell lists its rows below (the selectbox follows it)
            cm_fig,
            key=CELL_CHART,
            config={"displaylogo": False},
            on_select=lambda: pick_cell(cm_fig),
            selection_mode="points",
        )
        rates = pd.DataFrame(
            {
                "TPR (recall)": [100 * point["tpr"]],
                "FPR": [100 * point["fpr"]],
                "precision": [100 * point["precision"]],
                "BER": [100 * point["ber"]],
            },
            index=pd.Index([chosen], name="classifier"),
        )
        st.dataframe(
            rates,
            width="stretch",
            key="cmp_op_rates",
            column_config={c: st.column_config.NumberColumn(format="%.1f %%") for c in rates},
        )
    st.caption(
        f"Rows whose {on} is at or above the threshold are predicted +; every out-of-fold "
        "prediction of every repeat counts once. TPR: share of + rows predicted +; FPR: share "
        "of − rows predicted +; precision: share of predicted + that are +; BER: the mean of "
        "the two error rates (1 − TPR and FPR)."
    )
    cell = st.selectbox(
        "List the rows of a cell (or click a cell of the matrix)",
        list(CELLS),
        key=CELL_PICK,
        help="A click on a cell of the confusion matrix above chooses it here too.",
    )
    truth, said = CELLS[cell]
    hit = point["predicted_positive"]
    pick = ((pred["y_true"] == 1).to_numpy() == truth) & (hit == said)
    chosen_rows = pred.loc[pick, ["row", "repeat", "fold", "proba", "score"]]
    values = ds.X.iloc[chosen_rows["row"].to_numpy()].reset_index(drop=True)
    listing = pd.concat(
        [
            chosen_rows.rename(columns={"proba": "P(+)", "score": "decision score"})
            .assign(repeat=lambda f: f["repeat"] + 1, fold=lambda f: f["fold"] + 1)
            .reset_index(drop=True),
            values,
        ],
        axis=1,
    )
    st.caption(
        f"{len(listing)} predictions in the cell {cell} (row = position in the prepared data)."
    )
    st.dataframe(listing, hide_index=True, width="stretch", key="cmp_op_rows")
