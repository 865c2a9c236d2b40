"""Decision surface: what SLB, naive Bayes and TAN predict over a pair of features.

Each classifier is fitted on all the rows with the session's settings (λ and the dependence
rule for SLB; the bandwidth rule and multiplier for all three), then asked to classify every
node of a grid over the two chosen features, the other features held at their medians or at
one row (:func:`slb.evaluation.surface.decision_surface`).  The fits and the grids are cached
on the data and exactly the settings each depends on, so moving λ refits SLB only.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from dashboard import compute, controls, shell, state
from dashboard.safety import escape_markdown as esc
from dashboard.workqueue import queued
from slb import KDENaiveBayes
from slb.evaluation.surface import DecisionSurface, predict_surface, surface_axes, surface_grid
from slb.viz.multiclass import class_color
from slb.viz.surface import decision_surface_figure

shell.ensure()

_TTL = 2 * 3600
CLASSIFIERS = {
    "SLB": "SLB (pairs kept at λ)",
    "NB": "naive Bayes (one feature at a time)",
    "TAN": "TAN (a tree of pairs)",
}
RESOLUTIONS = [30, 50, 80, 120]
#: Page settings kept in the session's cfg (added when missing: not in state.DEFAULTS).
SURFACE_DEFAULTS = {
    "surface_pair": None,  # [feature x, feature y]; None: the most dependent pair
    "surface_held": "median",  # "median" | "row"
    "surface_row": 0,
    "surface_models": list(CLASSIFIERS),
    "surface_cols": 1,
    "surface_resolution": 50,
}
TEACH = (
    "What it shows: for every point of the plane of the two chosen features (the other "
    "features held fixed), the class each classifier predicts there, as a coloured region; the "
    "dark line is where the prediction changes. The rows of the data are drawn on top, a colour "
    "and a symbol per class. Naive Bayes multiplies one density per feature, so it cannot "
    "capture a class that depends on how the two features vary together (XOR, spirals); SLB "
    "adds a 2-d density for each pair it keeps at λ. Move λ above this pair's score and SLB "
    "drops the pair's 2-d density: how these two features vary together no longer enters, as "
    "in naive Bayes, but SLB keeps its own weights (and its other pairs), so its regions "
    "need not match naive Bayes's."
)


@st.cache_data(show_spinner="Fitting naive Bayes on all the data…", max_entries=16, ttl=_TTL)
@queued
def fit_nb(key: str, _ds, dens: tuple) -> KDENaiveBayes:
    """KDE naive Bayes on every row (classes: the dataset's codes)."""
    return KDENaiveBayes(**state.density_params(dens)).fit(_ds.X, _ds.y)


@st.cache_data(show_spinner="Classifying every point of the grid…", max_entries=64, ttl=_TTL)
@queued
def surface_codes(
    name: str,
    key: str,
    _clf,
    _X: pd.DataFrame,
    features: tuple,
    held,
    resolution: int,
    settings: tuple,
) -> np.ndarray:
    """``name``'s predicted class code at every node (``settings``: what its fit depends on)."""
    grid = surface_grid(_X, list(features), held=held, resolution=int(resolution))
    return np.asarray(predict_surface(_clf, grid), dtype=np.int64)


def _fit(name: str, ds, c: dict, lam: float, dens: tuple):
    """The cached full-data fit of ``name`` and the settings it depends on."""
    if name == "SLB":
        settings = (float(lam), c["measure"], c["pair_rule"], dens, int(c["seed"]))
        return compute.fit_slb(ds.key, ds, *settings), settings
    if name == "TAN":
        return compute.fit_tan(ds.key, ds, dens), (dens,)
    return fit_nb(ds.key, ds, dens), (dens,)


@st.cache_data(show_spinner=False, max_entries=32, ttl=_TTL)
def _axes(key: str, _ds) -> list:
    """The features with at least three values (a 0/1 dummy is no axis, H39), per dataset."""
    return surface_axes(_ds.X)


def _defaults(c: dict, ds, scr, axes: list) -> None:
    for k, v in SURFACE_DEFAULTS.items():
        c.setdefault(k, list(v) if isinstance(v, list) else v)
    names = ds.feature_names
    pair = c["surface_pair"]
    if not (
        isinstance(pair, (list, tuple))
        and len(pair) == 2
        and all(f in axes for f in pair)
        and pair[0] != pair[1]
    ):
        # the most dependent pair of two axis features (either feature two-valued: skipped)
        scores = np.fmax.reduce(scr.pair_stat, axis=0) if scr.pairs.shape[0] else np.array([])
        ok = np.isin(np.asarray(names, dtype=object), np.asarray(axes, dtype=object))
        if scores.size:
            scores = np.where(ok[scr.pairs[:, 0]] & ok[scr.pairs[:, 1]], scores, np.nan)
        if scores.size and np.isfinite(scores).any():
            i, j = scr.pairs[int(np.nanargmax(scores))]
            c["surface_pair"] = [names[i], names[j]]
        else:
            c["surface_pair"] = list(axes[:2])
    c["surface_models"] = [m for m in c["surface_models"] if m in CLASSIFIERS]
    if not 0 <= int(c["surface_row"]) < ds.n:
        c["surface_row"] = 0


def _pair_controls(c: dict, cols, axes: list) -> None:
    for col, axis, other in ((cols[0], 0, 1), (cols[1], 1, 0)):
        with col:

            def put(v, axis=axis, other=other):
                pair = list(c["surface_pair"])
                if v == pair[other]:  # picking the other axis's feature swaps the two
                    pair[other] = pair[axis]
                pair[axis] = v
                c["surface_pair"] = pair

            state.bound_to(
                st.selectbox,
                f"Feature along {'x' if axis == 0 else 'y'}",
                key=f"srf_feature_{'x' if axis == 0 else 'y'}",
                options=axes,
                get=lambda axis=axis: c["surface_pair"][axis],
                put=put,
            )


def _held_controls(c: dict, ds) -> None:
    if ds.d <= 2:
        c["surface_held"] = "median"
        return
    state.bound(
        st.selectbox,
        "Other features held at",
        "surface_held",
        key="srf_held",
        options=["median", "row"],
        format_func={"median": "their medians", "row": "the values of one row"}.get,
    )


def _row_control(c: dict, ds) -> None:
    if ds.d > 2 and c["surface_held"] == "row":
        state.bound(
            st.number_input,
            f"Row (0 to {ds.n - 1})",
            "surface_row",
            key="srf_row",
            min_value=0,
            max_value=ds.n - 1,
            step=1,
        )


def _view_controls(c: dict) -> None:
    state.bound(
        st.multiselect,
        "Classifiers",
        "surface_models",
        key="srf_models",
        options=list(CLASSIFIERS),
        format_func=CLASSIFIERS.get,
    )
    state.bound(
        st.radio,
        "Panels per row",
        "surface_cols",
        key="srf_cols",
        options=[1, 2, 3],
        horizontal=True,
        help="One per row keeps every panel large on a small screen or a projector; two or "
        "three per row are for a wide window (at 1024 px, three make each panel about 140 px "
        "wide, two about 220).",
    )
    state.bound(
        st.select_slider,
        "Grid points per axis",
        "surface_resolution",
        key="srf_resolution",
        options=RESOLUTIONS,
        help="A finer grid draws smoother boundaries and takes longer.",
    )


def _pair_status(c: dict, ds, scr, lam) -> str:
    """Whether SLB keeps the shown pair at λ, and its score."""
    names = ds.feature_names
    i, j = sorted(names.index(f) for f in c["surface_pair"])
    hit = np.flatnonzero((scr.pairs[:, 0] == i) & (scr.pairs[:, 1] == j))
    if not hit.size:
        return ""
    p = int(hit[0])
    score = float(scr.scores(c["pair_rule"])[p])
    kept = bool(compute.kept_mask(scr, lam.value, c["pair_rule"])[:, p].any())
    measure = compute.MEASURES[c["measure"]]
    return (
        f"This pair's {measure} score is {score:.4g}; at λ = {controls.format_lambda(lam.value)} "
        f"SLB {'keeps' if kept else 'does not keep'} it ({lam.n_kept} of {lam.n_pairs} pairs "
        "kept)."
    )


def _rows_outside(own: pd.DataFrame, flat: dict, labels) -> str:
    """ "Most rows of Adelie lie outside its region: SLB 12 %, NB 15 % inside" for every class
    that a classifier (not one drawing one class everywhere, said apart) gives fewer than half
    of the class's own rows on this plane."""
    parts = []
    for k, label in enumerate(labels):
        col = own.iloc[:, k].drop(index=[n for n in flat if n in own.index])
        low = col[col < 0.5]
        if low.size:
            inside = ", ".join(f"{esc(n)} {100 * v:.0f}%" for n, v in low.items())
            parts.append(f"most rows of {esc(str(label))} lie outside its region ({inside} inside)")
    if not parts:
        return ""
    text = "; ".join(parts)
    return text[0].upper() + text[1:]


def page() -> None:
    c = state.cfg()
    ds = state.dataset()
    st.title("Decision surface")
    st.caption(
        "Each classifier, fitted on all the rows with the settings of every page (λ, the "
        "bandwidth), classifies every point of a grid over two features."
    )
    if ds.d < 2:
        st.error("A decision surface needs at least two features: choose more on the Data page.")
        return
    axes = _axes(ds.key, ds)
    if len(axes) < 2:
        st.error(
            "A decision surface needs two features with at least three distinct values each; "
            f"this table has {len(axes)}. The others take one or two values (a 0/1 dummy of a "
            "one-hot column, a yes/no answer): between their two values no row lies, so a "
            "surface over them says nothing. The table needs another column with three or more "
            "values (or choose one on the Data page, if it is among the feature columns left "
            "out)."
        )
        return
    scr = compute.screening(ds.key, ds, c["measure"])
    _defaults(c, ds, scr, axes)
    dens = state.density_key()
    # three columns (the row's number under its choice): "their medians" is not cut at
    # 1024 px with the sidebar open (tests/test_browser_a11y.py)
    a, b, h = st.columns(3)
    _pair_controls(c, (a, b), axes)
    with h:
        _held_controls(c, ds)
        _row_control(c, ds)
    if len(axes) < ds.d:
        left_out = ds.d - len(axes)
        st.caption(
            f"{left_out} feature{'s' if left_out > 1 else ''} with one or two values (a 0/1 "
            "dummy, a yes/no answer) "
            f"{'are' if left_out > 1 else 'is'} not offered as an axis: between two values no "
            "row lies. They are held with the others."
        )
    lam_col, bw_col = st.columns(2, gap="medium")
    with lam_col:
        mode = st.popover("How λ is chosen", icon=":material/tune:")
        lam = controls.lambda_controls("srf", mode_in=mode)
    with bw_col:
        controls.bandwidth_controls("srf", overrides=False)
        with st.popover("Classifiers and display", icon=":material/settings:"):
            _view_controls(c)
    models = [m for m in CLASSIFIERS if m in c["surface_models"]]
    if not models:
        st.info("Choose at least one classifier.")
        return
    features = tuple(c["surface_pair"])
    held = "median" if c["surface_held"] == "median" else int(c["surface_row"])
    res = int(c["surface_resolution"])
    codes = {}
    for name in models:
        try:
            clf, settings = _fit(name, ds, c, lam.value, dens)
            codes[name] = surface_codes(name, ds.key, clf, ds.X, features, held, res, settings)
        except Exception as e:  # noqa: BLE001 - shown, never a traceback
            st.error(f"{name} could not be drawn: {esc(type(e).__name__)}: {esc(e)}")
    if not codes:
        return
    grid = surface_grid(ds.X, list(features), held=held, resolution=res)
    classes = np.arange(ds.K)
    surface = DecisionSurface(grid=grid, classes=classes, labels=dict(codes), codes=dict(codes))
    fig = decision_surface_figure(
        surface,
        ds.X,
        ds.y,
        class_names=list(ds.class_texts),  # "− mine", "+ rock" as on the other pages
        cols=int(c["surface_cols"]),
        # K classes: each class in its colour of the other K-class pages (the two-class
        # default puts the negative class first in vermillion: class 0 and 1 were swapped, H30)
        colors=[class_color(k) for k in range(ds.K)] if ds.multiclass else None,
    )
    st.plotly_chart(fig, key="srf_figure", config={"displaylogo": False})
    seeds = f"seed {c['seed']} (SLB)"
    if ds.data_seed is not None:
        seeds += f", data seed {ds.data_seed}"
    held_text = (
        "the other features at their medians"
        if held == "median"
        else f"the other features at the values of row {held}"
    )
    st.caption(
        f"{esc(features[0])} along x, {esc(features[1])} along y, {held_text}; a {res} × {res} "
        f"grid; {seeds}. {_pair_status(c, ds, scr, lam)}"
        if ds.d > 2
        else f"A {res} × {res} grid; {seeds}. {_pair_status(c, ds, scr, lam)}"
    )
    shares = surface.shares().rename(columns=dict(enumerate(map(str, ds.class_labels))))
    # a classifier with one class over the whole grid draws no boundary: say why (H30: naive
    # Bayes and TAN painted Sonar's plane "rock", unexplained)
    flat = surface.one_class()
    if flat:
        where = held_text if ds.d > 2 else "the data's range"
        names = [str(v) for v in ds.class_labels]
        st.caption(
            "; ".join(
                f"{esc(n)} predicts {esc(names[k])} everywhere on this plane"
                for n, k in flat.items()
            )
            + f": no boundary to draw. With {where}, these two features do not change "
            f"{'its' if len(flat) == 1 else 'their'} decision here (another pair, or the held "
            "values of a row, may)."
        )
    if ds.d > 2:
        moved = _rows_outside(surface.own_region_shares(ds.X, ds.y), flat, ds.class_labels)
        if moved:
            st.caption(
                moved + f". The regions are drawn with {held_text}; a row is drawn where "
                "its own two values put it, but its other features differ from the held "
                "values, and for these rows they decide the class (hold the other features "
                "at one such row's values to see its plane)."
            )
    st.caption(TEACH if ds.d > 2 else TEACH.replace(" (the other features held fixed)", ""))
    with st.expander("Share of the grid given to each class, and the held values"):
        st.dataframe((100 * shares).round(1).rename_axis("classifier"), width="stretch")
        if ds.d > 2:
            st.dataframe(grid.held.rename("held value").to_frame(), width="stretch", height=240)


page()
