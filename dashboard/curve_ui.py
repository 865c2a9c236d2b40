"""The BER-vs-λ figure of the Compare page: exact steps, the current λ on them, the nested
estimate beside them (kept here so that the page itself stays a few lines)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from slb.model.steps import chunk_bounds, join_steps, step_at
from slb.viz import figures

from . import compute

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
