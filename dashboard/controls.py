"""Widget groups shared by several pages (λ, dependence measure, bandwidths).

The same setting can have a widget on several pages (λ on Dependencies and Compare, the
bandwidth multiplier on Densities and Compare); each page passes its own key ``prefix`` and
all of them write to the same session setting (see :mod:`dashboard.state`).
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from slb.density.bandwidth import BANDWIDTH_RULES

from . import compute, lambda_steps, live_slider, state
from .safety import escape_markdown

FDR_LEVELS = [0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2]
#: The plot area of a figure across the main column at 1024 x 768 with the sidebar open, less
#: a margin: 510 px measured for Compare's TAN trees (``tests/test_browser_readability.py``).
#: Figures that place text themselves (the trees' names) may count on this much room.
FULL_WIDTH_PX = 480.0
BW_RULES = {
    "scott": "Scott",
    "silverman": "Silverman",
    "lcv": "likelihood CV (slower)",
    "plugin": "plug-in (R ks; pairs: marginal surrogate)",
}
LAMBDA_LABEL = "λ (dependence threshold)"
LAMBDA_HELP = (
    "A pair enters SLB when its dependence reaches λ. Larger λ keeps fewer pairs; every step "
    "of the slider changes the pairs kept (its positions are the pair scores themselves)."
)
_DEFERRED = "_live_lambda_draw"  # the live λ slider waiting to be drawn (see lambda_controls)


def sync_lambda_context() -> None:
    """On a new dataset, dependence measure or pair rule, start λ-by-value at the 90 % quantile,
    moved to its kept-set position (:func:`default_lambda`), as every page then uses it.

    The pair rule is part of it: "every class" compares λ with a pair's smallest class score,
    "any class" with its largest, so a λ of one rule can keep no pair under the other (a
    newcomer's λ became ∞ under "both" and stayed ∞ after switching back)."""
    c = state.cfg()
    ds = state.dataset()
    ctx = lambda_context(ds, c)
    if c["lam_context"] != ctx:
        scr = compute.screening(ds.key, ds, c["measure"])
        fresh = default_lambda(scr, c["pair_rule"])
        # A λ set by hand stays when only the cleaning of the same table changed (repeated
        # rows dropped, missing values filled, classes or features left out): its scale is
        # the same table's (H47: "Drop repeated rows" put a hand-set λ back to the default
        # without a word, while choosing the positive class kept it).
        old = c["lam_context"]
        by_hand = c.get("lam_default") is None or c["lam_value"] != c["lam_default"]
        same_table = (
            old is not None
            and tuple(old[1:]) == ctx[1:]
            and c.get("lam_table") == table_identity(ds)
        )
        if not (by_hand and same_table):
            c["lam_value"] = fresh
        c["lam_default"] = fresh
        c["lam_context"] = ctx
        c["lam_table"] = table_identity(ds)


def table_identity(ds) -> tuple:
    """The table behind the dataset (the raw file and its label column), whatever its cleaning."""
    raw = state.raw_table()
    return (getattr(raw, "key", None), ds.label)


def lambda_context(ds, c: dict) -> tuple:
    """What the λ value was set for: the data, the dependence measure and the pair rule.

    The data by its rows and their grouping into classes (``ds.partition_key``), not by which
    class is positive: swapping the two classes keeps every pair's per-class scores, so it
    keeps λ (H45: choosing the positive class reset a λ set by hand)."""
    return (ds.partition_key or ds.key, c["measure"], c["pair_rule"])


def default_lambda(scr, pair_rule: str) -> float:
    """A fresh session's λ: :func:`dashboard.compute.default_lambda` (the 90 % quantile of the
    pair scores) moved to the λ-by-value control's position that keeps the same terms, so the
    sidebar, the address, every page and the server's warm-up use one value."""
    return lambda_steps.snapped(
        lambda_steps_of(scr, pair_rule), compute.default_lambda(scr, pair_rule)
    )


def format_lambda(lam: float) -> str:
    """λ as the sidebar and the captions show it (the λ controls' labels use the same)."""
    return lambda_steps.format_value(lam)


def measure_control(prefix: str) -> None:
    state.bound(
        st.radio,
        "Dependence measure",
        "measure",
        key=f"{prefix}_measure",
        options=list(compute.MEASURES),
        format_func=compute.MEASURES.get,
        horizontal=True,
        on_change=sync_lambda_context,
        help="HSIC sees any dependence; Pearson and Spearman only monotone ones "
        "(the paper's SLB(Pearson) / SLB(Spearman) variants).",
    )


#: Below this many rows a class's dependence is mostly chance (H43: a 6-row class decided every
#: kept pair of a 4-class table).  Measured with slb.dependence.hsic.hsic_all_pairs on
#: independent Gaussian features (40 draws): mean HSIC 0.044 at 6 rows, 0.016 at 20, 0.006 at
#: 50, 0.0016 at 208 (about 0.3 / n); share of p < 0.05: 10.4% at 6 rows, 8.3% at 20, 4.6% at 50.
SMALL_CLASS_ROWS = 20


def small_class_warning(ds, rule: str, measure: str) -> None:
    """Say when a class has so few rows that its dependence is mostly chance, and what that
    does to the kept pairs under ``rule`` (HSIC's numbers when ``measure`` is HSIC)."""
    counts = ds.class_counts
    small = {k: n for k, n in counts.items() if n < SMALL_CLASS_ROWS}
    if not small:
        return
    names = ", ".join(f"{escape_markdown(str(k))} ({n} rows)" for k, n in small.items())
    which = "class" if len(small) == 1 else "classes"
    effect = (
        "Under the rule 'dependent in any class' such a class can decide which pairs SLB keeps "
        "for every class: consider the rule 'dependent in every class', or merging or "
        "dropping the class on the Data page."
        if rule == "either"
        else "Its kept pairs are mostly chance; consider merging or dropping the class on the "
        "Data page."
    )
    hsic = (
        "HSIC of independent features averages about 0.3 / n (0.04 on 6 rows, 0.003 on 100), "
        "and its p-values are too small (on 6 rows, 10% of independent pairs have p < 0.05). "
        if measure == "hsic"
        else ""
    )
    st.warning(
        f"Few rows in {which} {names}: dependence measured on fewer than {SMALL_CLASS_ROWS} rows "
        f"is mostly chance. {hsic}{effect}",
        icon="⚠️",
    )


def repeats_control(prefix: str) -> None:
    """The repeats of the K-fold cross-validation (Compare, two or K classes)."""
    state.bound(
        st.number_input,
        "Repeats of the K-fold cross-validation",
        "cv_repeats",
        key=f"{prefix}_repeats",
        min_value=1,
        max_value=10,
        step=1,
        help="The K-fold CV is repeated on new random stratified splits; more repeats give a "
        "more stable estimate and a more powerful test. Large data sets get fewer repeats.",
    )


def pair_rule_control(prefix: str) -> None:
    state.bound(
        st.selectbox,
        "A pair is kept when it is",
        "pair_rule",
        key=f"{prefix}_pair_rule",
        options=list(compute.PAIR_RULES),
        format_func=compute.PAIR_RULES.get,
        # at once, as the measure: the Dependencies page is a fragment, whose rerun skips the
        # app's setup, so λ stayed the old rule's (snapped: 68 pairs) until the next page
        # reset it to the new rule's default (177 pairs; H48)
        on_change=sync_lambda_context,
    )


def _mode_changed() -> None:
    # Switching to "by value" starts from the λ in use, so the model does not jump; "by
    # quantile" from the quantile level of that λ (to the slider's 0.01 step).
    c = state.cfg()
    last = float(c.get("lam_last", np.nan))
    if c["lam_mode"] == "value" and np.isfinite(last):
        c["lam_value"] = last
    elif c["lam_mode"] == "quantile" and not np.isnan(last):
        ds = state.dataset()
        scr = compute.screening(ds.key, ds, c["measure"])
        c["lam_quantile"] = compute.quantile_of(scr, c["pair_rule"], last)


def lambda_controls(prefix: str, *, live: bool = False, mode_in=None) -> compute.LambdaInfo:
    """λ mode + the matching control; returns the resulting λ.

    ``mode_in``: a container (e.g. a popover) for the mode radio; None draws it here.

    λ by value steps through the distinct kept sets (:func:`_value_control`), each position
    showing its pairs kept: an ``st.select_slider`` keyed ``{prefix}_lambda``, or with ``live``
    (and :func:`dashboard.live_slider.enabled`) the slider that reports while it is dragged,
    over the same positions, with the same key and writing the same setting.  For the live
    slider only an empty container is placed here: the page calls :func:`draw_live_lambda`
    after the figures λ moves, so the slider hears back from the server (and sends its next
    value) only once those figures are drawn.
    """
    st.session_state.pop(_DEFERRED, None)  # never a slot left by an interrupted run
    c = state.cfg()
    ds = state.dataset()
    scr = compute.screening(ds.key, ds, c["measure"])
    state.bound(
        st.radio if mode_in is None else mode_in.radio,
        "Choose λ",
        "lam_mode",
        key=f"{prefix}_lam_mode",
        options=list(compute.LAMBDA_MODES),
        format_func=compute.LAMBDA_MODES.get,
        horizontal=True,
        on_change=_mode_changed,
    )
    mode = c["lam_mode"]
    if mode == "value":
        _value_control(prefix, scr, c, live)
    elif mode == "quantile":
        state.bound(
            st.slider,
            "λ at this quantile of the pair dependences",
            "lam_quantile",
            key=f"{prefix}_lam_quantile",
            min_value=0.0,
            max_value=1.0,
            step=0.01,
            help="0.9 puts λ at the 90th percentile of the pair scores: about the 10% most "
            "dependent pairs are kept.",
        )
    elif mode == "fdr":
        state.bound(
            st.select_slider,
            "FDR level α (Benjamini-Hochberg on the p-values)",
            "fdr_alpha",
            key=f"{prefix}_fdr_alpha",
            options=FDR_LEVELS,
            help="Pairs whose independence test is rejected at false discovery rate α; λ is "
            "the smallest dependence among them.",
        )
    info = compute.current_lambda(ds, c, state.density_key())
    c["lam_last"] = info.value
    return info


def lambda_steps_of(scr, pair_rule: str) -> lambda_steps.LambdaSteps:
    """The λ values the by-value control steps through (one per distinct kept set)."""
    return lambda_steps.lambda_steps(scr.pair_stat, pair_rule)


def _value_control(prefix: str, scr, c: dict, live: bool) -> None:
    """λ by value: a slider over the distinct kept sets, each position showing its pairs kept.

    The positions are :func:`dashboard.lambda_steps.lambda_steps`: the distinct scores, then ∞
    (no pair).  A λ set elsewhere (quantile, FDR, CV, another dataset) is moved to the smallest
    position at or above it, which keeps exactly the same terms.
    """
    steps = lambda_steps_of(scr, c["pair_rule"])
    if len(steps) < 2:
        c["lam_value"] = float("inf")
        st.caption("No pair of features to keep: λ has nothing to choose from.")
        return
    i = lambda_steps.snap(steps, c["lam_value"])
    c["lam_value"] = float(steps.values[i])
    if live and live_slider.enabled():
        slot = st.container()
        st.session_state[_DEFERRED] = lambda: _draw_live(slot, prefix, steps)
        return
    labels = LambdaLabels(steps)
    state.bound(
        st.select_slider,
        LAMBDA_LABEL,
        "lam_value",
        key=f"{prefix}_lambda",
        options=labels.values,
        format_func=labels,
        help=LAMBDA_HELP,
    )


class LambdaLabels:
    """The fallback slider's options (``values``: the λ positions, as floats) and their labels
    ("λ = 0.0123 · 45 pairs"); tests read ``values`` from the widget's
    ``format_func``."""

    def __init__(self, steps: lambda_steps.LambdaSteps):
        self.steps = steps
        self.values = [float(v) for v in steps.values]
        self._position = {v: k for k, v in enumerate(self.values)}

    def __call__(self, v: float) -> str:
        return self.steps.label(self._position[float(v)])


def _draw_live(slot, prefix: str, steps: lambda_steps.LambdaSteps) -> None:
    def put(k: int) -> None:
        state.cfg()["lam_value"] = float(steps.values[k])

    with slot:
        live_slider.live_slider(
            LAMBDA_LABEL,
            key=f"{prefix}_lambda",
            index=lambda_steps.snap(steps, state.cfg()["lam_value"]),
            texts=["λ = " + lambda_steps.format_value(v) for v in steps.values],
            counts=steps.pairs,
            count_text=f"of {steps.n_pairs} pairs kept",
            on_change=put,
            help=LAMBDA_HELP,
        )


def draw_live_lambda() -> None:
    """Draw the live λ slider that :func:`lambda_controls` left a place for (if it did)."""
    draw = st.session_state.pop(_DEFERRED, None)
    if draw is not None:
        draw()


def bandwidth_controls(
    prefix: str, features: list[str] = (), *, overrides: bool = True, rule_in=None
) -> None:
    """Bandwidth rule, global multiplier and (for ``features``) per-feature overrides.

    ``rule_in``: a container for the rule's box (None: here, above the multiplier)."""
    c = state.cfg()
    # One above the other: side by side, the rule's box got a third of a half-width column
    # and showed "Scot" at 1024 x 768 (tests/test_browser_a11y.py checks no box is cut).
    state.bound(
        st.selectbox if rule_in is None else rule_in.selectbox,
        "Bandwidth rule",
        "bw_rule",
        key=f"{prefix}_bw_rule",
        options=list(BANDWIDTH_RULES),
        format_func=BW_RULES.get,
    )
    state.bound(
        st.slider,
        "Bandwidth multiplier (all features)",
        "bw_mult",
        key=f"{prefix}_bw_mult",
        min_value=0.2,
        max_value=3.0,
        step=0.05,
        help=(
            "Multiplies every KDE bandwidth of every model (SLB, TAN, NB, LU, SLB-). On a "
            "feature whose values lie on a lattice (integers, counts, codes) no bandwidth goes "
            "below one lattice step."
        ),
    )
    if not overrides or not features:
        return
    ds = state.dataset()
    index = {f: i for i, f in enumerate(ds.feature_names)}
    ov = c["bw_overrides"]
    # one under the other: two side by side cut "Own multiplier for band_18" to "…for b…" at
    # 1024 px (H30)
    cols = [st.container() for _ in features]
    for col, f in zip(cols, features, strict=True):
        i = index[f]
        with col:

            def put_on(on, f=f):
                if on:
                    ov[f] = float(c["bw_mult"])
                else:
                    ov.pop(f, None)

            def put_value(v, f=f):
                ov[f] = float(v)

            on = state.bound_to(
                st.toggle,
                f"Own multiplier for {escape_markdown(f)}",
                key=f"{prefix}_ovon_{i}",
                get=lambda f=f: f in ov,
                put=put_on,
            )
            if not on:
                # Drawn only while its toggle is on: a disabled slider's greyed label fails
                # WCAG contrast on a projector and says nothing the toggle does not.
                continue
            state.bound_to(
                st.slider,
                f"Multiplier for {escape_markdown(f)}",
                key=f"{prefix}_ov_{i}",
                get=lambda f=f: float(ov.get(f, c["bw_mult"])),
                put=put_value,
                min_value=0.2,
                max_value=3.0,
                step=0.05,
            )
    if ov:
        shown = ", ".join(f"{escape_markdown(k)} × {v:g}" for k, v in ov.items())
        st.caption(f"Per-feature overrides in use: {shown}")
        st.button(  # short: the Densities page's third of a 1024-px page cut the long label
            "Clear all overrides",
            key=f"{prefix}_ov_clear",
            on_click=ov.clear,
            help="Every feature back to the common bandwidth multiplier.",
        )


#: The widget key of Explain's "Bars" radio (by feature and pair, or one bar per term).
EXPLAIN_GROUPING = "explain_grouping"


#: The "Terms shown" slider's ends (fewer when the model has fewer terms).
EXPLAIN_TOP_RANGE = (5, 40)


def explain_sample_controls(ds, c, wrong, n_terms: int) -> int:
    """Explain's sample picker and how much of the decision is drawn (the share of it, in the
    two-class page's grouped view; else the number of terms, at most ``n_terms``, the model's),
    for the two-class and the K-class page, with the rows SLB gets wrong; returns the chosen
    row."""
    if not 0 <= int(c["explain_row"]) < ds.n:
        c["explain_row"] = 0
    # the slider ends at the model's terms (H52 11: it ran to 40 beside a model of 15 terms)
    top_max = min(EXPLAIN_TOP_RANGE[1], int(n_terms))
    top_min = min(EXPLAIN_TOP_RANGE[0], top_max)
    c["explain_top"] = int(min(max(int(c["explain_top"]), top_min), top_max))
    a, b = st.columns(2)
    with a:
        state.bound(
            st.number_input,
            f"Sample (row 0 to {ds.n - 1} of the prepared data)",
            "explain_row",
            key="explain_row",
            min_value=0,
            max_value=ds.n - 1,
            step=1,
        )
    with b:
        # The two-class page's default view (bars by feature and by pair; its radio's value of
        # the last run) shows the fewest bars that account for a share of the decision: a count
        # would do nothing below the bars that share needs (H35: 12 of 5-40 while 33 drawn).
        if not ds.multiclass and st.session_state.get(EXPLAIN_GROUPING, "group") == "group":
            state.bound(
                st.slider,
                "Share of the decision shown (%)",
                "explain_share",
                key="explain_share",
                min_value=80,  # issue 28: the bars shown account for at least 80 %
                max_value=100,
                step=5,
                help="The fewest features and pairs whose bars account for at least this "
                "share of the decision's move from the baseline (and enough that the rest, "
                "one step, is never the largest bar).",
            )
        elif top_max > top_min:
            state.bound(
                st.slider,
                "Terms shown",
                "explain_top",
                key="explain_top",
                min_value=top_min,
                max_value=top_max,
                step=1,
                help=f"The model has {int(n_terms)} terms; the others make one step.",
            )
        else:
            st.caption(f"All {int(n_terms)} terms of the model are shown.")
    if wrong.size:
        st.caption(
            f"SLB misclassifies {wrong.size} of the {ds.n} training rows it was fitted on, "
            f"e.g. rows {', '.join(map(str, wrong[:10]))}."
        )
    return int(c["explain_row"])
