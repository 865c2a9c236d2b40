"""The sidebar every page shows: the data, the seeds, λ and the density settings in use."""

from __future__ import annotations

import streamlit as st

from . import compute, state
from .controls import format_lambda
from .data import SOURCES
from .safety import escape_markdown as esc


def render(lam: compute.LambdaInfo) -> None:
    ds = state.dataset()
    c = state.cfg()
    rule, mult, ov = state.density_key()
    with st.sidebar:
        box = st.container(border=True)
        box.markdown("**Current setup**")
        box.markdown(f"Data: **{esc(ds.name)}** ({SOURCES[ds.source].lower()})")
        box.markdown(f"n = **{ds.n}** rows · d = **{ds.d}** features")
        box.markdown(
            f"\\+ {esc(ds.positive_label)}: {ds.class_counts[ds.positive_label]} · "
            f"− {esc(ds.negative_label)}: {ds.class_counts[ds.negative_label]}"
        )
        seeds = f"Seed: **{c['seed']}** (folds, SLB, RF)"
        if ds.data_seed is not None:
            seeds += f" · data seed **{ds.data_seed}**"
        box.markdown(seeds)
        box.markdown(f"{ds.n_folds}-fold stratified CV")
        box.markdown(
            f"λ = **{format_lambda(lam.value)}** ({compute.LAMBDA_MODES[lam.mode]}) · "
            f"{lam.n_kept} / {lam.n_pairs} pairs kept"
        )
        extra = f", {len(ov)} per-feature override(s)" if ov else ""
        box.markdown(
            f"{compute.MEASURES[c['measure']]} screening · bandwidth {rule} × {mult:g}{extra}"
        )
