"""The sidebar every page shows: the data, the seeds, λ and the density settings in use."""

from __future__ import annotations

import numpy as np
import streamlit as st

from . import compute, state, urlstate
from .controls import BW_RULES, format_lambda
from .data import SOURCES
from .safety import escape_markdown as esc

_SLOT = "_sidebar_settings_slot"  # the sidebar's λ / density lines (see refresh_settings)


def render(lam: compute.LambdaInfo) -> None:
    ds = state.dataset()
    c = state.cfg()
    with st.sidebar:
        box = st.container(border=True)
        # One Markdown block with line breaks, not one element per line: the elements' gaps
        # made the sidebar 790-890 px tall at 1024 x 768 (H45: it scrolled); now ~90 px less.
        lines = [
            "**Current setup**",
            f"Data: **{esc(ds.name)}** ({SOURCES[ds.source].lower()})",
            f"n = **{ds.n}** rows · d = **{ds.d}** features",
        ]
        if ds.multiclass:
            lines.append(
                f"{ds.K} classes: "
                + " · ".join(f"{esc(k)}: {ds.class_counts[k]}" for k in ds.classes)
            )
        else:
            lines.append(
                f"\\+ {esc(ds.positive_label)}: {ds.class_counts[ds.positive_label]} · "
                f"− {esc(ds.negative_label)}: {ds.class_counts[ds.negative_label]}"
            )
        seeds = f"Seed: **{c['seed']}** (folds, SLB, RF)"
        if ds.data_seed is not None:
            seeds += f" · data seed **{ds.data_seed}**"
        lines += [seeds, f"{ds.n_folds}-fold stratified CV"]
        box.markdown("  \n".join(lines))
        # λ and the density settings can change in a page fragment (Compare, Dependencies):
        # they go in one slot the fragment redraws (refresh_settings); the rest needs a full run.
        st.session_state[_SLOT] = box.empty()
    refresh_settings(lam)


def refresh_settings(lam: compute.LambdaInfo) -> None:
    """(Re)draw the sidebar's λ and screening/bandwidth lines, e.g. from a fragment's rerun."""
    urlstate.write()  # a fragment's λ or bandwidth change reaches the address too
    slot = st.session_state.get(_SLOT)
    if slot is None:
        return
    c = state.cfg()
    rule, mult, ov = state.density_key()
    extra = f", {len(ov)} per-feature override{'' if len(ov) == 1 else 's'}" if ov else ""
    # ∞ alone: "(no pairs)" beside "(by value)" and "0 / 1770 pairs kept" said it twice (H54)
    shown = format_lambda(lam.value) if np.isfinite(lam.value) else "∞"
    slot.markdown(
        f"λ = **{shown}** ({compute.LAMBDA_MODES[lam.mode]}) · "
        f"{lam.n_kept} / {lam.n_pairs} pairs kept  \n"
        f"{compute.MEASURES[c['measure']]} screening · bandwidth {rule_name(rule)} "
        f"× {mult:g}{extra}"
    )


def rule_name(rule: str) -> str:
    """A bandwidth rule as the sidebar names it: the control's words without their aside
    ("plug-in", "likelihood CV"; H30: the sidebar said "plugin", the option's value)."""
    return BW_RULES.get(rule, rule).split(" (")[0]
