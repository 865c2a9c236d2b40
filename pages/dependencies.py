"""Dependencies: which feature pairs are dependent in each class, and which ones SLB keeps.

Layout (issue 13): one compact control row (the λ slider | pairs kept | a popover with how λ is
chosen, the measure and the pair rule, and a feature search), then the pictures λ moves, one
under the other so that each keeps a readable plot area at 1024x768 with the sidebar open (issue
28): the pair graph and the histogram, then one class's heatmap; λ and the pair graph fit the
first screen.  A clicked pair's bivariate density and the long table below.

λ by value is the live slider of :mod:`dashboard.live_slider` (figures follow it while it is
dragged; ``st.slider`` under AppTest), drawn after the figures (see
:func:`dashboard.controls.lambda_controls`).  What λ does not change is cached: the heatmap's
cells and the histogram's bars (``compute.dependence_heatmap_at``/``dependence_histogram_at``).

The page is one fragment (:func:`dependencies_page`): a λ step reruns the page only, not the
app's setup and sidebar (the fragment redraws the sidebar's λ and density lines).
"""

import numpy as np
import streamlit as st

from dashboard import compute, controls, evaluation, multiclass, shell, sidebar, state
from dashboard.safety import escape_markdown as esc
from slb.viz import figures

shell.ensure()

CHART = {"displaylogo": False}
PICK = "dep_pair_pick"  # the pair whose bivariate density is shown: (data key, i, j) or None
TARGETS = "dep_pick_targets"  # chart key -> (trace index, (i, j) of each of its points)


def control_row(c: dict, ds) -> tuple:
    """λ | what it keeps | how λ is chosen and the feature search, in one row (fits 1024 px);
    returns (λ, the search text)."""
    ctl = st.columns([4.4, 2.2, 2.4], gap="small")
    with ctl[2]:
        how = (
            f"λ {compute.LAMBDA_MODES[c['lam_mode']]} · {compute.MEASURES[c['measure']]}, "
            f"{compute.PAIR_RULES[c['pair_rule']]}"
        )
        # a short label: the settings in it were cut at 1024 px ("λ by value · HS…", then
        # "How λ is c…", H43); the sidebar and the help say what they are
        settings = st.popover(
            "λ settings",
            width="stretch",
            help=f"How λ is chosen, the dependence measure and the pair rule; now: {how}.",
        )
        query = st.text_input(
            "Find a feature",
            key="dep_search",
            placeholder="find a feature",
            label_visibility="collapsed",
        )
    with ctl[0]:
        lam = controls.lambda_controls("dep", live=True, mode_in=settings)
    with settings:
        controls.measure_control("dep")
        controls.pair_rule_control("dep")
    with ctl[1]:
        st.metric(
            "pairs kept",
            f"{lam.n_kept}",
            f"of {lam.n_pairs} ({100 * lam.n_kept / max(lam.n_pairs, 1):.1f}%)",
            delta_color="off",
            delta_arrow="off",
        )
    if lam.note:
        st.caption(lam.note + ".")
    controls.small_class_warning(ds, c["pair_rule"], c["measure"])
    return lam, query


def find_feature(names: list, text: str) -> int | None:
    """Index of the feature named ``text`` (case-insensitive), else the first containing it."""
    q = text.strip().lower()
    if not q:
        return None
    lower = [str(n).lower() for n in names]
    if q in lower:
        return lower.index(q)
    return next((i for i, n in enumerate(lower) if q in n), None)


def pick_from(key: str) -> None:
    """on_select callback: the clicked cell or edge becomes the pair shown below.

    Streamlit reports the clicked trace and point index; the pair comes from the table stored
    when the chart was drawn (the event's own customdata is not relied upon).
    """
    event = st.session_state.get(key)
    points = (event or {}).get("selection", {}).get("points", [])
    trace, table = st.session_state.get(TARGETS, {}).get(key, (None, None))
    for p in points:
        k = p.get("point_index", p.get("point_number"))
        if p.get("curve_number") == trace and k is not None and 0 <= int(k) < len(table):
            i, j = (int(v) for v in table[int(k)])
            if i != j:
                st.session_state[PICK] = (state.dataset().key, i, j)
                return


def clickable(key: str, fig):
    """Remember which trace of ``fig`` is clickable and the pair of each of its points."""
    k, pairs = figures.clickable_pairs(fig)
    st.session_state.setdefault(TARGETS, {})[key] = (k, pairs)
    return fig


def kept_matrix(scr, flags, d: int) -> np.ndarray:
    """(d, d) symmetric flags of one class's kept pair terms."""
    K = np.zeros((d, d), dtype=bool)
    K[scr.pairs[:, 0], scr.pairs[:, 1]] = flags
    return K | K.T


def heatmap_column(c: dict, ds, scr, keep_c) -> None:
    """One class's heatmap at a time, its kept pairs outlined (click: the pair's density)."""
    neg, pos = ds.class_names
    # one class at a time: the other heatmap is drawn on demand (in hidden tabs both would be
    # drawn, and in the browser each costs as much as the rest of the page together)
    shown = st.radio(
        "Class",
        ["+", "-"],
        key="dep_class",
        format_func=lambda s: f"class + ({esc(pos)})" if s == "+" else f"class − ({esc(neg)})",
        horizontal=True,
        label_visibility="collapsed",
    )
    k, sym = (1, "+") if shown == "+" else (0, "-")
    fig = compute.dependence_heatmap_at(
        ds.key,
        ds,
        c["measure"],
        k,
        bool(c["cluster"]),
        figures.COLORS[sym],
        kept_matrix(scr, keep_c[k], ds.d),
    )
    st.plotly_chart(
        clickable(f"dep_heatmap_{sym}", fig),
        key=f"dep_heatmap_{sym}",
        config=CHART,
        on_select=lambda key=f"dep_heatmap_{sym}": pick_from(key),
        selection_mode="points",
    )
    st.caption(
        "What it shows: the dependence of every pair of features within one class (darker: more "
        "dependent); outlined cells above the diagonal are the pairs kept at the current λ. "
        "Moving λ up removes outlines from the weakest pairs first."
    )
    state.bound(
        st.checkbox, "Order features by hierarchical clustering", "cluster", key="dep_cluster"
    )


def graph_column(c: dict, ds, scr, lam, idx, found) -> None:
    """The pair graph of the kept pairs (click an edge: its density) and the histogram."""
    neg, pos = ds.class_names
    graph = figures.pair_graph(
        list(ds.feature_names),
        scr.pairs[idx],
        scr.pair_stat[:, idx],
        scr.pair_stat[:, idx] >= lam.value,
        compute.graph_positions(ds.key, ds, c["measure"]),
        measure=c["measure"],
        pos_name=pos,
        neg_name=neg,
        show_isolated=st.session_state.get("dep_isolated", True),
        highlight=found,
        height=420,  # fits 1024x768 under the controls
        width_px=controls.FULL_WIDTH_PX,  # drawn across the page
    )
    st.plotly_chart(
        clickable("dep_pair_graph", graph),
        key="dep_pair_graph",
        config=CHART,
        on_select=lambda: pick_from("dep_pair_graph"),
        selection_mode="points",
    )
    hist = compute.dependence_histogram_at(ds.key, ds, c["measure"], pos, neg, lam.value)
    hist.update_layout(height=330)
    st.plotly_chart(hist, key="dep_histogram", config=CHART)


def pair_density(ds, i: int, j: int) -> None:
    """The clicked pair's bivariate density in both classes, with the bandwidth controls."""
    names = list(ds.feature_names)
    neg, pos = ds.class_names
    st.subheader(f"Bivariate density of {esc(names[i])} × {esc(names[j])}")
    controls.bandwidth_controls("dep", overrides=False)
    _, h2 = compute.bandwidths(ds.key, ds, state.density_key())
    X = ds.X.to_numpy()
    fig = figures.density_2d(
        X[:, i],
        X[:, j],
        ds.y,
        h2[0, [i, j]],
        h2[1, [i, j]],
        feature_a=names[i],
        feature_b=names[j],
        pos_name=pos,
        neg_name=neg,
    )
    st.plotly_chart(fig, key="dep_pair_density", config=CHART)
    st.caption(
        "What it shows: where the pair's values fall in each class (blue contours: +, orange: "
        "−); SLB's pair terms are these densities. Moving the bandwidth multiplier up smooths "
        "the contours; moving it down lets them cling to single points."
    )
    st.button(
        "Close the pair view",
        key="dep_pair_close",
        on_click=st.session_state.pop,
        args=(PICK, None),
    )


@st.fragment
def dependencies_page() -> None:
    """The page, as one fragment (see the module docstring)."""
    c, ds = state.cfg(), state.dataset()
    neg, pos = ds.class_names
    st.title("Dependencies")
    st.caption(
        "SLB's first step: a pair of features enters the model when its dependence within a "
        "class reaches λ."
    )
    lam, query = control_row(c, ds)
    scr = compute.screening(ds.key, ds, c["measure"])
    keep_c = compute.kept_mask(scr, lam.value, c["pair_rule"])
    idx = np.flatnonzero(keep_c.any(axis=0))
    found = find_feature(list(ds.feature_names), query)
    if query.strip() and found is None:
        st.caption(f"No feature name contains “{esc(query)}”.")

    # --- the pictures, one under the other (issue 28: at 1024 x 768 with the sidebar open,
    # side by side they were 120-250 px wide): pair graph + histogram, then the heatmap ------
    graph_box = st.container()
    heatmap_box = st.container()
    with graph_box:
        graph_column(c, ds, scr, lam, idx, found)
    with heatmap_box:
        heatmap_column(c, ds, scr, keep_c)
    # the live λ slider (if any) after the figures it moves: its next value waits for them
    controls.draw_live_lambda()
    with graph_box:
        st.caption(
            "What they show: the graph's nodes are features and its edges the kept pairs "
            f"(thicker: more dependent; colour: dependent in + ({esc(pos)}) only, in − "
            f"({esc(neg)}) only, or both); the histogram counts the pairs at each dependence, "
            "λ the dashed line. Moving λ right drops edges; node positions do not depend on λ."
        )
        st.toggle("Show features without kept pairs", value=True, key="dep_isolated")

    pick = st.session_state.get(PICK)
    if pick is not None and pick[0] == ds.key:
        pair_density(ds, *pick[1:])

    # --- the long table -----------------------------------------------------------------------
    st.subheader(f"Kept pairs ({len(idx)})")
    table = compute.kept_pairs_table(ds, scr, lam.value, c["pair_rule"])
    st.dataframe(
        table,
        hide_index=True,
        width="stretch",
        height=min(360, evaluation.table_height(len(table))),  # no empty rows (H43)
        key="dep_pairs_table",
        column_config=compute.pair_table_columns(table, compute.MEASURES[scr.measure]),
    )
    sidebar.refresh_settings(lam)  # λ, the measure and the bandwidth of this run


if state.dataset().multiclass:  # K > 2 classes: one heatmap per class (issue 25)
    multiclass.dependencies_page(state.cfg(), state.dataset())
else:
    dependencies_page()
