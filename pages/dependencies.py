"""Dependencies: which feature pairs are dependent in each class, and which ones SLB keeps."""

import numpy as np
import streamlit as st

from dashboard import compute, controls, shell, state
from dashboard.safety import escape_markdown as esc
from slb.viz import figures

shell.ensure()

c = state.cfg()
ds = state.dataset()
neg, pos = ds.class_names

st.title("Dependencies")
st.caption(
    "SLB's first step screens every pair of features: a pair enters the model when its "
    "dependence within a class reaches the threshold λ."
)

top = st.columns([3, 2])
with top[0]:
    controls.measure_control("dep")
with top[1]:
    controls.pair_rule_control("dep")
lam = controls.lambda_controls("dep")
scr = compute.screening(ds.key, ds, c["measure"])
label = compute.MEASURES[c["measure"]]

m = st.columns(3)
m[0].metric("λ", controls.format_lambda(lam.value))
m[1].metric("pairs kept", f"{lam.n_kept} of {lam.n_pairs}")
m[2].metric("share kept", f"{100 * lam.n_kept / max(lam.n_pairs, 1):.1f} %")
if lam.note:
    st.caption(lam.note + ".")

st.subheader("Dependence of every pair, per class")
state.bound(st.checkbox, "Order features by hierarchical clustering", "cluster", key="dep_cluster")
order = compute.feature_order(ds.key, ds, c["measure"]) if c["cluster"] else None
zmax = float(np.nanmax(scr.stat)) if np.isfinite(scr.stat).any() else 1.0
h1, h2 = st.columns(2)
for col, k, sym, name in ((h1, 1, "+", pos), (h2, 0, "-", neg)):
    with col:
        fig = figures.dependence_heatmap(
            scr.stat[k],
            scr.pvalue[k],
            ds.feature_names,
            order=order,
            zmax=zmax,
            measure=c["measure"],
            color=figures.COLORS[sym],
            title=f"class {'+' if k else '−'} ({figures.escape_text(name)})",
        )
        st.plotly_chart(fig, key=f"dep_heatmap_{sym}", config={"displaylogo": False})

st.plotly_chart(
    figures.dependence_histogram(
        scr.pair_stat[1],
        scr.pair_stat[0],
        lam.value,
        measure=c["measure"],
        pos_name=pos,
        neg_name=neg,
    ),
    key="dep_histogram",
    config={"displaylogo": False},
)

st.subheader("Pair graph of the kept pairs")
keep_c = compute.kept_mask(scr, lam.value, c["pair_rule"])
kept = keep_c.any(axis=0)
idx = np.flatnonzero(kept)
graph = figures.pair_graph(
    ds.feature_names,
    scr.pairs[idx],
    scr.pair_stat[:, idx],
    scr.pair_stat[:, idx] >= lam.value,
    compute.graph_positions(ds.key, ds, c["measure"]),
    measure=c["measure"],
    pos_name=pos,
    neg_name=neg,
    show_isolated=st.toggle("Show features without kept pairs", value=True, key="dep_isolated"),
)
st.plotly_chart(graph, key="dep_pair_graph", config={"displaylogo": False})
st.caption(
    "Nodes are features; an edge is a kept pair, thicker when more dependent. "
    f"Colour: dependent (≥ λ) in + ({esc(pos)}) only, in − ({esc(neg)}) only, or in both. "
    "Node positions do not depend on λ."
)

st.subheader(f"Kept pairs ({len(idx)})")
table = compute.kept_pairs_table(ds, scr, lam.value, c["pair_rule"])
st.dataframe(
    table,
    hide_index=True,
    width="stretch",
    height=360,
    key="dep_pairs_table",
    column_config={col: st.column_config.NumberColumn(format="%.4g") for col in table.columns[2:6]},
)
