"""Densities: the per-class kernel density estimates SLB, TAN and NB are built from."""

import numpy as np
import streamlit as st

from dashboard import compute, controls, multiclass, shell, state
from dashboard.safety import escape_markdown as esc
from slb.viz import figures

shell.ensure()

TEACH_1D = (
    "What it shows: how the values of one feature spread out in each class, the blue curve for "
    "the + class and the orange one for the − class. Moving the bandwidth multiplier up smooths "
    "the curves (fewer, wider bumps); moving it down makes them follow single points."
)
TEACH_2D = (
    "What it shows: where pairs of values fall in each class (blue contours: + class, orange: "
    "− class); SLB's pair terms are these densities. Moving the bandwidth multiplier up "
    "smooths the contours into wider blobs; moving it down lets them cling to single points."
)

c = state.cfg()
ds = state.dataset()
neg, pos = ds.class_names
names = ds.feature_names
scr = compute.screening(ds.key, ds, c["measure"])

st.title("Densities")
st.caption(
    "Per-class Gaussian kernel density estimates. The bandwidth settings here are used by every "
    "model on every page."
)

# Defaults: the first feature, and the most dependent pair.
if c["density_feature"] not in names:
    c["density_feature"] = names[0]
if not (
    isinstance(c["density_pair"], (list, tuple))
    and len(c["density_pair"]) == 2
    and all(f in names for f in c["density_pair"])
    and c["density_pair"][0] != c["density_pair"][1]
):
    if ds.d >= 2:
        best = int(np.nanargmax(np.fmax.reduce(scr.pair_stat, axis=0)))
        i, j = scr.pairs[best]
        c["density_pair"] = [names[i], names[j]]
    else:
        c["density_pair"] = None

# Controls beside the picture they move (issue 13): what to show and the multipliers left, the
# density right with the bandwidth rule under it (a third | two thirds: the plot keeps >= 260 px
# at 1024 px, issue 28).
left, right = st.columns([1, 2.25], gap="medium")
with right:  # the picture, under it the bandwidth rule (set before it is drawn), then the notes
    picture = st.container()
    rule_box = st.container()
    notes = st.container()  # H52 7: the rule's box sat under the captions, far from the figure
with left:
    views = {"feature": "one feature"}
    if ds.d >= 2:
        views["pair"] = "a pair of features"
    if c["density_view"] not in views:
        c["density_view"] = "feature"
    state.bound(
        st.radio,
        "Show",
        "density_view",
        key="dens_view",
        options=list(views),
        format_func=views.get,
        horizontal=True,
    )

    if c["density_view"] == "feature":
        state.bound(st.selectbox, "Feature", "density_feature", key="dens_feature", options=names)
        chosen = [c["density_feature"]]
    else:
        # one under the other: side by side in this third of the page each box showed "band"
        # of "band_18" at 1024 px (H30)
        a = b = st.container()

        def _put(k, v):
            pair = list(c["density_pair"])
            pair[k] = v
            c["density_pair"] = pair

        with a:
            state.bound_to(
                st.selectbox,
                "First feature",
                key="dens_pair_a",
                options=names,
                get=lambda: c["density_pair"][0],
                put=lambda v: _put(0, v),
            )
        with b:
            state.bound_to(
                st.selectbox,
                "Second feature",
                key="dens_pair_b",
                options=names,
                get=lambda: c["density_pair"][1],
                put=lambda v: _put(1, v),
            )
        chosen = list(dict.fromkeys(c["density_pair"]))

    # the multipliers a teacher drags beside the curve they smooth (H48: under the picture
    # they were a screen below it at 1024 x 768); the rule's box, whose longest option needs
    # more than this third of the page, under the picture
    st.markdown("**Bandwidths**")
    controls.bandwidth_controls("dens", chosen, rule_in=rule_box)

dens = state.density_key()
h1, h2 = compute.bandwidths(ds.key, ds, dens)
idx = [names.index(f) for f in chosen]
X = ds.X.to_numpy()

with picture:
    if ds.multiclass:  # K > 2 classes: one curve / contour per class (issue 25)
        fig = multiclass.densities_figure(ds, chosen, h1, h2)
        st.plotly_chart(fig, key="dens_figure", config={"displaylogo": False})
        notes.caption(multiclass.bandwidth_caption(ds, chosen, h1, h2))
        notes.caption(
            "What it shows: how the values spread out in each class, one colour per class "
            "(histogram and KDE curve for one feature, KDE contours over the points for a "
            "pair). Moving the bandwidth multiplier up smooths them; down, they follow single "
            "points."
        )
    elif len(chosen) == 1:
        i = idx[0]
        fig = figures.density_1d(
            X[:, i], ds.y, h1[:, i], feature=chosen[0], pos_name=pos, neg_name=neg
        )
        st.plotly_chart(fig, key="dens_figure", config={"displaylogo": False})
        notes.caption(
            f"Bandwidth of {esc(chosen[0])}: {h1[1, i]:.4g} in + ({esc(pos)}), {h1[0, i]:.4g} in − "
            f"({esc(neg)}). Bars: histogram; lines: KDE; ticks below: the data (rug)."
            + compute.floor_note(ds, chosen[0], h1[:, i])
        )
        notes.caption(TEACH_1D)
    else:
        i, j = idx
        fig = figures.density_2d(
            X[:, i],
            X[:, j],
            ds.y,
            h2[0, [i, j]],
            h2[1, [i, j]],
            feature_a=chosen[0],
            feature_b=chosen[1],
            pos_name=pos,
            neg_name=neg,
        )
        st.plotly_chart(fig, key="dens_figure", config={"displaylogo": False})
        k = np.flatnonzero((scr.pairs[:, 0] == min(i, j)) & (scr.pairs[:, 1] == max(i, j)))
        dep = ""
        if k.size:
            lab = compute.MEASURES[c["measure"]]
            dep = f" {lab}: {scr.pair_stat[1, k[0]]:.4g} in +, {scr.pair_stat[0, k[0]]:.4g} in −."
        notes.caption(
            f"Pair bandwidths: ({h2[1, i]:.3g}, {h2[1, j]:.3g}) in + ({esc(pos)}), "
            f"({h2[0, i]:.3g}, {h2[0, j]:.3g}) in − ({esc(neg)}). Contours: product-Gaussian KDE "
            f"of each class.{dep}"
        )
        notes.caption(TEACH_2D)
