"""The BER-vs-λ figure of the Compare page: exact steps, the current λ on them, the nested
estimate beside them (kept here so that the page itself stays a few lines)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from slb.model.steps import chunk_bounds, join_steps, step_at
from slb.viz import figures

from . import compute
from .controls import format_lambda

NESTED = "SLB (nested λ, C)"
#: Breakpoints (all folds together) per cached piece of the steps, and the SVM fits drawn
#: without asking (about 5-20 ms each on Sonar's folds, more on a busy server).
CHUNK = 500
FIRST_FITS = 1000
DOWN_TO = "cmp_curve_down_to"  # (context, λ): the user asked for the steps down to this λ


def _nested_mean(per_fold, lam: compute.LambdaInfo, slb_ber) -> tuple[float | None, str]:
    """The honest nested estimate already computed on the page, and what it is."""
    if NESTED in per_fold:
        return float(per_fold[NESTED].mean()), "λ and C chosen by inner CV inside every fold"
    if lam.mode == "cv":
        return float(np.mean(slb_ber)), "λ chosen by inner CV inside every fold"
    return None, ""


def ber_curve_section(ds, cfg: dict, lam: compute.LambdaInfo, dens, k: int, reps: int, per_fold):
    """Draw the exact step curve of SLB's CV BER over the slider's range, with captions."""
    measure, rule, seed = cfg["measure"], cfg["pair_rule"], int(cfg["seed"])
    scr = compute.screening(ds.key, ds, measure)
    lo, hi, _, _ = compute.slider_range(scr, rule)
    args = (ds.key, ds, measure, rule, dens, k, seed)
    path = compute.threshold_path(*args, reps)
    bounds = chunk_bounds(path, lo, hi, CHUNK)
    ctx = (*args[:1], *args[2:], reps)
    asked = st.session_state.get(DOWN_TO)
    down_to = asked[1] if asked is not None and asked[0] == ctx else hi
    frames, n_fits = [], 0
    for b_hi, b_lo in zip(bounds, bounds[1:], strict=False):
        if frames and n_fits >= FIRST_FITS and down_to >= b_hi:
            break
        frames.append(compute.slb_ber_steps(*args, (b_lo, b_hi), reps, max_fits=None))
        n_fits += frames[-1].attrs["n_fits"]
    steps = join_steps(frames, lo)
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
    n_steps = len(steps)
    text = (
        f"What it shows: SLB's mean BER over the same {len(per_fold)} folds as the bars, for every "
        f"λ in the slider's range: {n_steps} steps, one per λ where some fold's kept pairs "
        "change (between two such λ every fold fits the same model). Moving λ moves the star "
        "along the curve; the bar of SLB above shows the same number."
    )
    if lam.mode != "value":
        text += (
            " In this λ mode the bar's SLB recomputes λ inside every fold, so it can differ from "
            "the curve, which applies one λ to every fold."
        )
    if steps.attrs["lo"] > lo:
        text += (
            f" Below λ = {format_lambda(steps.attrs['lo'])} (grey) the folds keep many pairs and "
            f"the steps are computed on request only ({steps.attrs['n_fits']} SVM fits so far); "
            "the bar still gives the exact BER there."
        )
    if nested is not None:
        text += f" Dotted line: the nested estimate ({how}), an honest number for comparison."
    else:
        text += " Press the nested-estimate button above to draw the honest nested estimate too."
    st.caption(text)
    if np.isfinite(lam.value) and lam.value < steps.attrs["lo"]:
        st.button(
            f"Extend the steps down to the current λ = {format_lambda(lam.value)} "
            f"(about {_breakpoints(path, lam.value, steps.attrs['lo'])} more SVM fits)",
            key="cmp_curve_extend",
            on_click=st.session_state.__setitem__,
            args=(DOWN_TO, (ctx, float(lam.value))),
        )


def _breakpoints(path, a: float, b: float) -> int:
    """Breakpoints of all folds in ``[a, b)``: the SVM fits that extending the steps costs."""
    bounds = chunk_bounds(path, a, b, 1)
    return max(len(bounds) - 2, 0)
