"""The BER-vs-λ figure of the Compare page: exact steps, the current λ on them, the nested
estimate beside them (kept here so that the page itself stays a few lines)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from slb.model.steps import step_at
from slb.viz import figures

from . import compute
from .controls import format_lambda

NESTED = "SLB (nested λ, C)"


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
    steps = compute.slb_ber_steps(ds.key, ds, measure, rule, dens, k, seed, (lo, hi), reps)
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
            f" Below λ = {format_lambda(steps.attrs['lo'])} (grey) the folds keep so many pairs "
            f"that the steps were not computed (budget of {compute.CURVE_MAX_FITS} SVM fits); "
            "the bar still gives the exact BER there."
        )
    if nested is not None:
        text += f" Dotted line: the nested estimate ({how}), an honest number for comparison."
    else:
        text += " Press the nested-estimate button above to draw the honest nested estimate too."
    st.caption(text)
