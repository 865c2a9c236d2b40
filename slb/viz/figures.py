"""Plotly figure builders for the SLB Explorer dashboard (pure plotly, no streamlit).

Every figure of the dashboard is built here, from numbers computed by the rest of :mod:`slb`,
so that tests can build and inspect the figures without a browser.  The builders never mutate
their inputs.

Safety: feature and class names come from user files.  Plotly renders a subset of HTML in
titles, tick labels, legends and hover labels (``<a href=...>``, ``<b>``, ...), so every
user-provided string goes through :func:`escape_text` (``&``, ``<`` and ``>`` become HTML
entities) before it enters a figure.

Colours follow the Okabe-Ito palette (readable with the common colour-vision deficiencies):
blue for the positive class ``+``, vermillion for the negative class ``-``, purple for pairs
dependent in both classes.

Each builder stores a small machine-readable summary in ``fig.layout.meta`` (``kind`` and
counts) that tests and the dashboard can read back.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import networkx as nx
import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..density.kde import kde_pdf_1d, kde_pdf_2d

__all__ = [
    "COLORS",
    "escape_text",
    "class_balance",
    "cluster_order",
    "dependence_heatmap",
    "dependence_histogram",
    "pair_graph_layout",
    "pair_graph",
    "tree_layout",
    "tree_graph",
    "density_1d",
    "density_2d",
    "ber_bars",
    "ber_curve",
    "term_kind",
    "oracle_scale",
    "coefficient_figure",
    "contributions_figure",
    "learning_curve_figure",
    "noise_figure",
    "network_graph",
    "recovery_graph",
]

#: Colours of the positive class, the negative class and "both classes".
COLORS = {"+": "#0072B2", "-": "#D55E00", "both": "#7B3F9E", "neutral": "#6B7280"}
_FONT = {"family": "Inter, Segoe UI, Helvetica, Arial, sans-serif", "size": 13}


def escape_text(text) -> str:
    """``str(text)`` with ``&``, ``<``, ``>`` (and quotes) as HTML entities, for plotly labels."""
    return html.escape(str(text), quote=True)


def _names(names) -> list[str]:
    return [escape_text(n) for n in names]


def _layout(*, title=None, height=None, meta=None, **more) -> dict:
    """The house layout as a dict (``more``: the builder's own keys, on top)."""
    layout = {
        "font": _FONT,
        "title": {"text": title, "x": 0.0, "xanchor": "left"} if title else None,
        "margin": {"l": 10, "r": 10, "t": 50 if title else 20, "b": 10},
        "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "left", "x": 0},
        "hoverlabel": {"align": "left"},
    }
    if height is not None:
        layout["height"] = height
    if meta is not None:
        layout["meta"] = meta
    layout.update(more)
    return layout


def _base_layout(fig: go.Figure, *, title=None, height=None, meta=None) -> go.Figure:
    # No template of our own: Streamlit's chart theme styles the figures in the app.  One
    # update_layout call: each call costs plotly 2-4 ms of validation bookkeeping, more than
    # building a small figure (it matters when λ moves); the figures redrawn at every λ build
    # their whole layout with _layout and pass it to go.Figure at once.
    return fig.update_layout(_layout(title=title, height=height, meta=meta))


def class_balance(n_pos: int, n_neg: int, pos_name: str = "+", neg_name: str = "-") -> go.Figure:
    """The two classes' shares of the rows as one stacked horizontal bar.

    Parameters
    ----------
    n_pos, n_neg : int
        Rows of class ``+`` and of class ``-``.
    pos_name, neg_name : str
        Class labels (escaped here).

    Returns
    -------
    Figure
        Two bar traces (``+`` first) whose ``x`` are the shares in %; ``layout.meta``:
        ``kind``, ``n_pos``, ``n_neg``.
    """
    total = max(int(n_pos) + int(n_neg), 1)
    bars = [
        go.Bar(
            x=[100.0 * n / total],
            y=["rows"],
            orientation="h",
            name=f"{sym} {escape_text(name)}: {n} ({100.0 * n / total:.0f} %)",
            marker_color=COLORS["+" if sym == "+" else "-"],
            # the name through the trace, not the template (a label may contain "%{...}")
            hovertemplate="%{fullData.name}<extra></extra>",
        )
        for sym, name, n in (("+", pos_name, int(n_pos)), ("−", neg_name, int(n_neg)))
    ]
    layout = _layout(
        height=110,
        meta={"kind": "class_balance", "n_pos": int(n_pos), "n_neg": int(n_neg)},
        barmode="stack",
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        xaxis={"range": [0, 100], "ticksuffix": " %", "fixedrange": True},
        yaxis={"visible": False, "fixedrange": True},
    )
    return go.Figure(data=bars, layout=layout)


def _measure_label(measure: str) -> str:
    return {"hsic": "HSIC", "pearson": "|Pearson r|", "spearman": "|Spearman ρ|"}.get(
        str(measure).lower(), str(measure)
    )


# --------------------------------------------------------------------------------------------
# Dependence
# --------------------------------------------------------------------------------------------
def cluster_order(matrix) -> np.ndarray:
    """Feature order from average-linkage hierarchical clustering of a dependence matrix.

    Parameters
    ----------
    matrix : ndarray of shape (d, d)
        Symmetric, non-negative dependence (NaN diagonal allowed).  Strongly dependent features
        end up next to each other.

    Returns
    -------
    order : ndarray of shape (d,)
        A permutation of ``range(d)`` (the leaves of the dendrogram, optimally ordered).
    """
    from scipy.cluster.hierarchy import leaves_list, linkage
    from scipy.spatial.distance import squareform

    S = np.array(matrix, dtype=float)
    d = S.shape[0]
    if d < 3:
        return np.arange(d)
    S = np.nan_to_num(S, nan=0.0)
    S = (S + S.T) / 2.0
    top = S.max()
    sim = S / top if top > 0 else S
    D = 1.0 - sim
    np.fill_diagonal(D, 0.0)
    D = np.clip(D, 0.0, None)
    Z = linkage(squareform(D, checks=False), method="average", optimal_ordering=True)
    return leaves_list(Z).astype(int)


#: Largest number of features whose names are all written on the axes and graph nodes; wider
#: data keep the names in the hover (and the graphs label the best-connected nodes only).
MAX_LABELLED = 30


def heatmap_cell_px(d: int) -> int:
    """Side of one heatmap cell in pixels, so that the matrix is about 300-380 px wide (half a
    1440 px screen beside its labels and colour bar); at least 6 px, at most 28 px."""
    room = 300 if d <= MAX_LABELLED else 380
    return int(min(28, max(6, room // max(int(d), 1))))


def _outline_path(cells) -> str:
    """One SVG path of unit squares around the ``(row, column)`` cells (category serial numbers)."""
    return " ".join(f"M{c - 0.5},{r - 0.5} H{c + 0.5} V{r + 0.5} H{c - 0.5} Z" for r, c in cells)


def kept_outline(kept, order, d: int) -> tuple[dict | None, int]:
    """The heatmap's outline of the kept pairs: a plotly shape (None if none) and their number.

    Parameters
    ----------
    kept : ndarray of bool, shape (d, d), or None
        As in :func:`dependence_heatmap`.
    order : array-like of int
        The heatmap's display order of the features.
    d : int

    Returns
    -------
    shape : dict or None
        One ``path`` shape around each kept pair's cell above the diagonal (display order).
    n_outlined : int
    """
    if kept is None:
        return None, 0
    K = np.asarray(kept, dtype=bool)[np.ix_(np.asarray(order, int), np.asarray(order, int))]
    cells = np.argwhere(np.triu(K, k=1))
    if not cells.shape[0]:
        return None, 0
    shape = {
        "type": "path",
        "path": _outline_path(cells),
        "line": {"color": "#111827", "width": 1.5 if d <= MAX_LABELLED else 1},
        "layer": "above",
    }
    return shape, int(cells.shape[0])


def _outline_kept(fig: go.Figure, kept, order, d: int) -> int:
    """Outline each kept pair's cell above the diagonal (display order); return their number."""
    shape, n_out = kept_outline(kept, order, d)
    if shape is not None:
        fig.add_shape(**shape)
    return n_out


def _square_category_axes(fig: go.Figure, labels, d: int) -> None:
    """Category axes of square cells; the names written up to :data:`MAX_LABELLED` features."""
    few = d <= MAX_LABELLED
    font = {"size": 12 if d <= 15 else 10}
    fig.update_xaxes(
        type="category",
        showticklabels=few,
        tickangle=-60,
        showgrid=False,
        tickfont=font,
        tickmode="array" if few else "auto",
        tickvals=labels if few else None,
        range=[-0.5, d - 0.5],
        constrain="domain",
    )
    fig.update_yaxes(
        type="category",
        showticklabels=few,
        showgrid=False,
        tickfont=font,
        tickmode="array" if few else "auto",
        tickvals=labels if few else None,
        range=[d - 0.5, -0.5],
        scaleanchor="x",
        scaleratio=1,
        constrain="domain",
    )


def dependence_heatmap(
    statistic,
    pvalue,
    names: Sequence[str],
    *,
    title: str = "",
    measure: str = "hsic",
    order=None,
    zmax: float | None = None,
    color: str = COLORS["+"],
    height: int | None = None,
    kept=None,
) -> go.Figure:
    """Heatmap of one class's all-pairs dependence, square cells, kept pairs outlined.

    Parameters
    ----------
    statistic, pvalue : ndarray of shape (d, d)
        Symmetric matrices (NaN diagonal).
    names : sequence of str
        Feature names, in the order of the matrices' rows.
    title : str
    measure : {"hsic", "pearson", "spearman"}
    order : array-like of int or None
        Display order of the features (e.g. :func:`cluster_order`); None keeps the given one.
    zmax : float or None
        Top of the colour scale (share it between classes to compare them).
    color : str
        Colour of the strongest dependence.
    height : int or None
        None: sized to ``d`` (cells of :func:`heatmap_cell_px` pixels).
    kept : ndarray of bool, shape (d, d), or None
        Pairs kept at the current λ (symmetric, rows in the order of ``names``); each kept
        pair's cell above the diagonal (in display order) is outlined.

    Returns
    -------
    Figure
        ``x`` and ``y`` are the (escaped) feature names in display order.  Every name is on
        the axes up to :data:`MAX_LABELLED` features, none beyond (hover shows them).  The
        trace named ``"cells"`` has one point per off-diagonal cell (hover, click) with
        ``customdata`` ``(i, j, statistic, p-value)`` in the original indices; the browser
        draws one of its markers (``marker.maxdisplayed``), so it costs next to nothing.
        ``layout.meta``: ``n_features``, ``n_labels`` (names on each axis), ``n_outlined``.
    """
    S = np.asarray(statistic, dtype=float)
    P = np.asarray(pvalue, dtype=float)
    d = S.shape[0]
    order = np.arange(d) if order is None else np.asarray(order, dtype=int)
    escaped = _names(names)
    labels = [escaped[i] for i in order]
    Sd, Pd = S[np.ix_(order, order)], P[np.ix_(order, order)]
    label = _measure_label(measure)
    fig = go.Figure(_dependence_trace(Sd, labels, zmax, color, label))
    fig.add_trace(_heatmap_cells(Sd, Pd, labels, order, label))
    n_out = _outline_kept(fig, kept, order, d)
    few = d <= MAX_LABELLED
    _square_category_axes(fig, labels, d)
    fig.update_layout(clickmode="event+select", dragmode=False)
    room = 130 if few else 40  # the names below the x axis
    return _base_layout(
        fig,
        title=title,
        height=height or int(d * heatmap_cell_px(d) + room + (50 if title else 20)),
        meta={
            "kind": "dependence_heatmap",
            "n_features": int(d),
            "n_labels": int(d) if few else 0,
            "n_outlined": n_out,
        },
    )


def _dependence_trace(Sd, labels, zmax, color, label) -> go.Heatmap:
    """The coloured cells (no hover: the ``"cells"`` trace carries it)."""
    return go.Heatmap(
        z=Sd,
        x=labels,
        y=labels,
        zmin=0.0,
        zmax=zmax if zmax is not None else (np.nanmax(Sd) if np.isfinite(Sd).any() else 1.0),
        colorscale=[[0.0, "#FFFFFF"], [0.15, "#E8EEF6"], [1.0, color]],
        colorbar={"title": {"text": label}, "thickness": 12},
        hoverinfo="skip",
        name="dependence",
    )


def _heatmap_cells(Sd, Pd, labels, order, label) -> go.Scatter:
    """Points on the off-diagonal cells, never drawn: the hover and the click target.

    A click on a heatmap trace reaches neither plotly's click-to-select nor Streamlit's
    ``on_select`` (checked in Chromium with Streamlit 1.67), so each cell has a scatter point.
    plotly hovers and selects points from its data, not from their SVG nodes, so
    ``marker.maxdisplayed=1`` draws one (invisible) node instead of d(d-1): styling those nodes
    was ~90 % of the browser's time for the heatmap (Sonar: 3,540 of them, 170-590 ms; now
    ~30 ms, see ``benchmarks/dependencies_live.py --figures``).  No selected-cell highlight
    (it could only be drawn on the one node).
    """
    d = len(labels)
    r, c = np.nonzero(~np.eye(d, dtype=bool))
    px = heatmap_cell_px(d)
    return go.Scatter(
        x=[labels[k] for k in c],
        y=[labels[k] for k in r],
        mode="markers",
        marker={
            "symbol": "square",
            "size": px,
            "opacity": 0.0,
            "color": "#111827",
            "maxdisplayed": 1,
        },
        customdata=np.column_stack([order[r], order[c], Sd[r, c], Pd[r, c]]),
        hovertemplate=(
            "%{y} × %{x}<br>" + label + " = %{customdata[2]:.4g}"
            "<br>p-value = %{customdata[3]:.3g}<br>click: its bivariate density<extra></extra>"
        ),
        name="cells",
        showlegend=False,
    )


def dependence_histogram(
    pos_values,
    neg_values,
    threshold: float,
    *,
    measure: str = "hsic",
    pos_name: str = "+",
    neg_name: str = "-",
    nbins: int = 60,
) -> go.Figure:
    """Overlaid histograms of every pair's dependence in each class, with the threshold line.

    Parameters
    ----------
    pos_values, neg_values : array-like
        Dependence of every pair in the positive and the negative class.
    threshold : float
        The current λ (drawn as a vertical line; pairs to its right are dependent).
    measure, pos_name, neg_name : str
    nbins : int

    Returns
    -------
    Figure
    """
    label = _measure_label(measure)
    pos = np.asarray(pos_values, dtype=float)
    neg = np.asarray(neg_values, dtype=float)
    both = np.concatenate([pos, neg])
    both = both[np.isfinite(both)]
    hi = float(both.max()) if both.size else 1.0
    size = hi / nbins if hi > 0 else 1.0
    fig = go.Figure()
    for vals, sym, name in ((pos, "+", pos_name), (neg, "-", neg_name)):
        fig.add_trace(
            go.Histogram(
                x=vals,
                name=f"class {sym} ({escape_text(name)})",
                marker_color=COLORS[sym],
                opacity=0.6,
                xbins={"start": 0.0, "end": hi + size, "size": size},
                hovertemplate=label + " %{x}<br>%{y} pairs<extra></extra>",
            )
        )
    threshold_line(fig, threshold)
    fig.update_layout(barmode="overlay")
    fig.update_xaxes(title=label + " of a pair")
    fig.update_yaxes(title="pairs")
    return _base_layout(
        fig, height=300, meta={"kind": "dependence_histogram", "threshold": float(threshold)}
    )


def threshold_line(fig: go.Figure, threshold: float) -> go.Figure:
    """Draw :func:`dependence_histogram`'s dashed line at λ = ``threshold`` (if finite), labelled.

    Returns ``fig``.  (The dashboard adds it to a cached histogram when λ moves.)
    """
    if np.isfinite(threshold):
        fig.add_vline(
            x=float(threshold),
            line={"color": "#111827", "width": 2, "dash": "dash"},
            annotation={"text": f"λ = {threshold:.4g}", "showarrow": False},
            annotation_position="top right",
        )
    return fig


def pair_graph_layout(n_features: int, pairs, weights, *, seed: int = 0) -> np.ndarray:
    """Node positions for the pair graph: a force layout of the strongest pairs.

    Positions depend on the dependence structure, not on λ, so nodes stay put while the
    threshold moves.

    Parameters
    ----------
    n_features : int
    pairs : ndarray of shape (P, 2)
        Candidate pairs (all pairs).
    weights : ndarray of shape (P,)
        Their dependence (larger = closer).
    seed : int

    Returns
    -------
    pos : ndarray of shape (n_features, 2)
    """
    g = nx.Graph()
    g.add_nodes_from(range(n_features))
    pairs = np.asarray(pairs, dtype=int).reshape(-1, 2)
    w = np.nan_to_num(np.asarray(weights, dtype=float), nan=0.0)
    if pairs.shape[0]:
        # Up to 150 features: a force layout of the complete graph, springs as strong as the
        # squared relative dependence.  Wider data: only the 3 d strongest pairs.
        k = pairs.shape[0] if n_features <= 150 else min(pairs.shape[0], 3 * n_features)
        top = np.argsort(-w, kind="stable")[:k]
        wmax = w[top].max() if w[top].size and w[top].max() > 0 else 1.0
        for p in top:
            g.add_edge(int(pairs[p, 0]), int(pairs[p, 1]), weight=float((w[p] / wmax) ** 2) + 1e-4)
    pos = nx.spring_layout(g, weight="weight", seed=seed, iterations=200)
    return np.array([pos[i] for i in range(n_features)], dtype=float).reshape(n_features, 2)


def _edge_trace(x0, y0, x1, y1, idx, *, color, width, name, group, showlegend):
    xs, ys = [], []
    for k in idx:
        xs += [x0[k], x1[k], None]
        ys += [y0[k], y1[k], None]
    return go.Scatter(
        x=xs,
        y=ys,
        mode="lines",
        line={"color": color, "width": width},
        hoverinfo="skip",
        name=name,
        legendgroup=group,
        showlegend=showlegend,
    )


def _width_bins(s, k: int) -> np.ndarray:
    """Width class (0..3) of each edge: the quartiles of its strength ``s`` (2 if under 4 edges)."""
    if not k:
        return np.zeros(0, dtype=int)
    edges = np.quantile(s, [0.25, 0.5, 0.75]) if k >= 4 else np.array([np.inf] * 3)
    wbin = np.searchsorted(edges, s, side="right")
    return np.clip(wbin, 0, 3) if k >= 4 else np.full(k, 2)


def _edge_legend(pos_name, neg_name) -> dict:
    """Legend text of each edge category (class names escaped)."""
    return {
        "+": f"dependent in + only ({escape_text(pos_name)})",
        "-": f"dependent in − only ({escape_text(neg_name)})",
        "both": "dependent in both classes",
    }


def _kept_edge_traces(ends, cat, wbin, legend) -> list:
    """One line trace per (class category, width class); one legend entry per category."""
    x0, y0, x1, y1 = ends
    widths = (1.0, 2.2, 3.6, 5.5)
    traces = []
    for c in ("+", "-", "both"):
        shown = False
        for b in range(4):
            idx = np.flatnonzero((cat == c) & (wbin == b))
            if idx.size == 0:
                continue
            traces.append(
                _edge_trace(
                    x0,
                    y0,
                    x1,
                    y1,
                    idx,
                    color=COLORS[c],
                    width=widths[b],
                    name=legend[c],
                    group=c,
                    showlegend=not shown,
                )
            )
            shown = True
    return traces


def _pair_hover_trace(labels, pairs, strength, ends, measure) -> go.Scatter:
    """Invisible markers at the edges' midpoints: hover text and click (pair indices)."""
    x0, y0, x1, y1 = ends
    label = _measure_label(measure)
    hover = [
        f"{labels[i]} — {labels[j]}<br>{label} in +: {strength[1, m]:.4g}"
        f"<br>{label} in −: {strength[0, m]:.4g}"
        for m, (i, j) in enumerate(pairs)
    ]
    return go.Scatter(
        x=(x0 + x1) / 2,
        y=(y0 + y1) / 2,
        mode="markers",
        marker={"size": 6, "opacity": 0.0, "color": "#000"},
        hovertext=[h + "<br>click: its bivariate density" for h in hover],
        hoverinfo="text",
        customdata=pairs,
        selected={"marker": {"opacity": 0.9, "size": 12}},
        unselected={"marker": {"opacity": 0.0}},
        name="pair hover",
        showlegend=False,
    )


def _feature_node_trace(labels, pos, nodes, degree, named, highlight) -> go.Scatter:
    """The feature nodes, sized by their number of kept pairs, the ``named`` ones labelled."""
    return go.Scatter(
        x=pos[nodes, 0],
        y=pos[nodes, 1],
        mode="markers+text",
        text=[_node_text(labels, i, named, highlight) for i in nodes],
        hovertext=[labels[i] for i in nodes],
        textposition="top center",
        textfont={"size": 11},
        marker={
            "size": 8 + 2.0 * np.sqrt(degree[nodes]),
            "color": np.where(degree[nodes] > 0, "#374151", "#D1D5DB").tolist(),
            "line": {"color": "white", "width": 1},
        },
        customdata=degree[nodes],
        hovertemplate="%{hovertext}<br>%{customdata} kept pairs<extra></extra>",
        name="features",
        showlegend=False,
    )


def pair_graph(
    names: Sequence[str],
    pairs,
    strength,
    dependent,
    positions,
    *,
    measure: str = "hsic",
    pos_name: str = "+",
    neg_name: str = "-",
    show_isolated: bool = True,
    title: str = "",
    highlight: int | None = None,
) -> go.Figure:
    """The graph of kept pairs: nodes are features, edges are pairs above the threshold.

    Edge width grows with the pair's dependence (the larger of the two classes); edge colour
    says in which class the pair is dependent: ``+`` only, ``-`` only, or both.

    Parameters
    ----------
    names : sequence of str
        All feature names.
    pairs : ndarray of shape (k, 2)
        The kept pairs (feature indices).
    strength : ndarray of shape (2, k)
        Dependence of each kept pair in the negative (row 0) and positive (row 1) class.
    dependent : ndarray of bool, shape (2, k)
        Whether the pair is dependent (above λ) in the negative / positive class.
    positions : ndarray of shape (d, 2)
        Node positions (see :func:`pair_graph_layout`).
    measure, pos_name, neg_name, title : str
    show_isolated : bool
        Draw features without any kept pair too.
    highlight : int or None
        Index of a feature to ring and label (the page's search box).

    Returns
    -------
    Figure
        ``layout.meta`` holds ``n_edges`` (= ``k``), ``n_nodes`` and ``n_labels`` (nodes with
        their name written: all up to :data:`MAX_LABELLED` nodes, else the best connected);
        the trace named ``"pair hover"`` has one point per edge (hover, click) with the pair's
        feature indices as ``customdata``.
    """
    labels = _names(names)
    pairs = np.asarray(pairs, dtype=int).reshape(-1, 2)
    strength = np.asarray(strength, dtype=float).reshape(2, -1)
    dependent = np.asarray(dependent, dtype=bool).reshape(2, -1)
    pos = np.asarray(positions, dtype=float)
    k = pairs.shape[0]
    x0, y0 = pos[pairs[:, 0], 0], pos[pairs[:, 0], 1]
    x1, y1 = pos[pairs[:, 1], 0], pos[pairs[:, 1], 1]
    s = np.nanmax(strength, axis=0) if k else np.zeros(0)
    cat = np.where(dependent[0] & dependent[1], "both", np.where(dependent[1], "+", "-"))
    legend = _edge_legend(pos_name, neg_name)
    fig = go.Figure()
    for trace in _kept_edge_traces((x0, y0, x1, y1), cat, _width_bins(s, k), legend):
        fig.add_trace(trace)
    fig.add_trace(_pair_hover_trace(labels, pairs, strength, (x0, y0, x1, y1), measure))
    degree = np.bincount(pairs.ravel(), minlength=len(labels)) if k else np.zeros(len(labels), int)
    nodes = np.arange(len(labels)) if show_isolated else np.flatnonzero(degree > 0)
    named = _labelled_nodes(nodes, degree, highlight)
    fig.add_trace(_feature_node_trace(labels, pos, nodes, degree, named, highlight))
    _add_highlight(fig, pos, highlight)
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False, scaleanchor="x", scaleratio=1)
    fig.update_layout(clickmode="event+select", dragmode="pan")
    return _base_layout(
        fig,
        title=title,
        height=560,
        meta={
            "kind": "pair_graph",
            "n_edges": int(k),
            "n_nodes": int(len(nodes)),
            "n_labels": len(named),
        },
    )


def _labelled_nodes(nodes, degree, highlight=None, top: int = 10) -> set:
    """Nodes whose names are written: all up to :data:`MAX_LABELLED`, else the ``top`` best
    connected (ties: lower index first), plus the highlighted one."""
    nodes = np.asarray(nodes, dtype=int)
    if nodes.size <= MAX_LABELLED:
        named = set(nodes.tolist())
    else:
        best = nodes[np.argsort(-degree[nodes], kind="stable")[:top]]
        named = {int(i) for i in best if degree[i] > 0}
    if highlight is not None and int(highlight) in set(nodes.tolist()):
        named.add(int(highlight))
    return named


def _node_text(labels, i, named, highlight) -> str:
    """A node's written name: none, its name, or in bold for the searched feature."""
    if i not in named:
        return ""
    return f"<b>{labels[i]}</b>" if highlight is not None and i == int(highlight) else labels[i]


def _add_highlight(fig, pos, highlight) -> None:
    """A ring around the searched feature (whose name the node trace writes in bold)."""
    if highlight is None:
        return
    i = int(highlight)
    fig.add_trace(
        go.Scatter(
            x=[pos[i, 0]],
            y=[pos[i, 1]],
            mode="markers",
            marker={"size": 24, "color": "rgba(0,0,0,0)", "line": {"color": "#E69F00", "width": 4}},
            hoverinfo="skip",
            name="searched feature",
            showlegend=False,
        )
    )


def tree_layout(n_features: int, edges, *, seed: int = 0) -> np.ndarray:
    """Layered positions of a tree (or forest): the root on top, each BFS depth one row down.

    networkx has no tree layout without graphviz (``nx.nx_agraph``/``nx_pydot`` need it), so
    this is a small tidy layout written here: the leaves take consecutive x slots in depth-first
    order, every parent sits centred over its children, and ``y = -depth``.  Each component's
    root is its centre (the node whose farthest node is nearest, so the drawing is as shallow
    as the tree allows); components are placed side by side.

    Parameters
    ----------
    n_features : int
    edges : list of (i, j)
    seed : int
        Unused (kept for the callers of the former spring layout).

    Returns
    -------
    pos : ndarray of shape (n_features, 2)
        ``pos[:, 1]`` is minus the depth: a child is exactly one row below its parent.
    """
    g = nx.Graph()
    g.add_nodes_from(range(n_features))
    g.add_edges_from((int(i), int(j)) for i, j in edges)
    pos = np.zeros((n_features, 2))
    slot = [0.0]

    def place(node, children):
        kids = children.get(node, [])
        for kid in kids:
            place(kid, children)
        if kids:
            pos[node, 0] = np.mean([pos[kid, 0] for kid in kids])
        else:
            pos[node, 0], slot[0] = slot[0], slot[0] + 1.0

    for comp in sorted(nx.connected_components(g), key=min):
        root = min(nx.center(g.subgraph(comp)))  # the shallowest rooting (1 or 2 centres)
        # a rooted tree: a node's children are its neighbours one BFS level further down
        children = {u: sorted(vs) for u, vs in nx.bfs_successors(g, root)}
        for node, depth in nx.single_source_shortest_path_length(g, root).items():
            pos[node, 1] = -float(depth)
        place(root, children)
    return pos


def _edge_lines(P, edges, color) -> go.Scatter:
    """Every edge ``(i, j)`` between node positions ``P`` as one line trace (no hover)."""
    xs, ys = [], []
    for i, j in edges:
        xs += [P[i, 0], P[j, 0], None]
        ys += [P[i, 1], P[j, 1], None]
    return go.Scatter(
        x=xs,
        y=ys,
        mode="lines",
        line={"color": color, "width": 2},
        hoverinfo="skip",
        showlegend=False,
        name="edges",
    )


def _tree_edge_traces(labels, P, edges, weights, color) -> list:
    """The tree's edges as one line trace, and invisible midpoint markers carrying the hover."""
    mx, my, hover = [], [], []
    for i, j in edges:
        mx.append((P[i, 0] + P[j, 0]) / 2)
        my.append((P[i, 1] + P[j, 1]) / 2)
        w = "" if weights is None else f"<br>mutual information {float(weights[i][j]):.3g}"
        hover.append(f"{labels[i]} — {labels[j]}{w}")
    return [
        _edge_lines(P, edges, color),
        go.Scatter(
            x=mx,
            y=my,
            mode="markers",
            marker={"opacity": 0, "size": 6},
            hovertext=hover,
            hoverinfo="text",
            showlegend=False,
            name="edge hover",
        ),
    ]


def tree_graph(
    names: Sequence[str],
    edges,
    weights=None,
    *,
    title: str = "",
    color: str = COLORS["+"],
    positions=None,
    seed: int = 0,
    highlight: int | None = None,
) -> go.Figure:
    """A spanning tree (e.g. one of TAN's Chow-Liu trees), drawn top-down by depth.

    Parameters
    ----------
    names : sequence of str
    edges : list of (i, j)
    weights : ndarray of shape (d, d) or None
        Edge weights shown on hover (e.g. mutual information).
    title, color : str
    positions : ndarray of shape (d, 2) or None
        Node positions; None: :func:`tree_layout` (layered by depth from the root).
    seed : int
    highlight : int or None
        Index of a feature to ring and label (the page's search box).

    Returns
    -------
    Figure
        ``layout.meta``: ``n_edges`` (``len(edges)``) and ``n_labels`` (nodes with their name
        written: all up to :data:`MAX_LABELLED` features, else the best connected).
    """
    labels = _names(names)
    d = len(labels)
    P = tree_layout(d, edges, seed=seed) if positions is None else np.asarray(positions, float)
    degree = np.bincount(np.asarray(edges, dtype=int).ravel(), minlength=d)
    named = _labelled_nodes(np.arange(d), degree, highlight)
    fig = go.Figure(
        [
            *_tree_edge_traces(labels, P, edges, weights, color),
            go.Scatter(
                x=P[:, 0],
                y=P[:, 1],
                mode="markers+text",
                text=[_node_text(labels, i, named, highlight) for i in range(d)],
                hovertext=labels,
                textposition="bottom center",
                textfont={"size": 10},
                marker={"size": 9, "color": "#374151", "line": {"color": "white", "width": 1}},
                hovertemplate="%{hovertext}<extra></extra>",
                showlegend=False,
                name="features",
            ),
        ]
    )
    _add_highlight(fig, P, highlight)
    depth = int(-P[:, 1].min()) if d else 0
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False, range=[-depth - 0.6, 0.4])
    return _base_layout(
        fig,
        title=title,
        height=int(min(720, max(320, 150 + 70 * depth))),
        meta={"kind": "tree", "n_edges": len(edges), "n_labels": len(named), "depth": depth},
    )


# --------------------------------------------------------------------------------------------
# Densities
# --------------------------------------------------------------------------------------------
def _grid(values, n, pad_h):
    lo, hi = float(np.min(values)), float(np.max(values))
    pad = max(3.0 * pad_h, 1e-9)
    return np.linspace(lo - pad, hi + pad, n)


def _class_1d_traces(xc, c, sym, lab, grid, h, bins) -> tuple:
    """One class's histogram, KDE curve (bandwidth ``h``) and rug; ``bins`` = (lo, hi, size)."""
    lo, hi, size = bins
    hist = go.Histogram(
        x=xc,
        histnorm="probability density",
        name=f"histogram {lab}",
        marker_color=COLORS[sym],
        opacity=0.28,
        legendgroup=sym,
        xbins={"start": lo, "end": hi + size, "size": size},
        hovertemplate="%{x}<br>density %{y:.3g}<extra></extra>",
    )
    dens = kde_pdf_1d(xc, grid, h) if xc.size else np.zeros_like(grid)
    kde = go.Scatter(
        x=grid,
        y=dens,
        mode="lines",
        name=f"KDE {'+' if c else '−'}",
        line={"color": COLORS[sym], "width": 3},
        legendgroup=sym,
        hovertemplate=f"class {lab}<br>x = %{{x:.4g}}<br>density %{{y:.4g}}<extra></extra>",
    )
    rug = go.Scatter(
        x=xc,
        y=np.full(xc.size, c),
        mode="markers",
        marker={
            "symbol": "line-ns-open",
            "size": 12,
            "color": COLORS[sym],
            "line": {"width": 1},
        },
        name=f"rug {lab}",
        legendgroup=sym,
        showlegend=False,
        hovertemplate="%{x}<extra></extra>",
    )
    return hist, kde, rug


def density_1d(
    x,
    y01,
    bandwidths,
    *,
    feature: str = "",
    pos_name: str = "+",
    neg_name: str = "-",
    n_grid: int = 256,
    nbins: int = 30,
) -> go.Figure:
    """Per-class univariate KDE curves over normalised histograms, with a rug below.

    Parameters
    ----------
    x : array-like of shape (n,)
        The feature's values.
    y01 : array-like of shape (n,)
        1 for the positive class, 0 for the negative class.
    bandwidths : sequence of 2 floats
        KDE bandwidth of the negative (index 0) and the positive (index 1) class, as used by the
        models (``LogDensityTransformer.bandwidths_[:, feature]``).
    feature, pos_name, neg_name : str
    n_grid, nbins : int

    Returns
    -------
    Figure
        The KDE curves are the traces named ``"KDE +"`` and ``"KDE −"``; ``layout.meta`` holds
        the bandwidths.
    """
    x = np.asarray(x, dtype=float)
    y01 = np.asarray(y01).astype(int)
    h = [float(b) for b in bandwidths]
    grid = _grid(x, n_grid, max(h))
    fig = make_subplots(
        rows=2, cols=1, shared_xaxes=True, row_heights=[0.86, 0.14], vertical_spacing=0.02
    )
    lo, hi = float(x.min()), float(x.max())
    size = (hi - lo) / nbins if hi > lo else 1.0
    for c, sym, name in ((1, "+", pos_name), (0, "-", neg_name)):
        xc = x[y01 == c]
        lab = f"{'+' if c else '−'} ({escape_text(name)})"
        hist, kde, rug = _class_1d_traces(xc, c, sym, lab, grid, h[c], (lo, hi, size))
        fig.add_trace(hist, row=1, col=1)
        fig.add_trace(kde, row=1, col=1)
        fig.add_trace(rug, row=2, col=1)
    fig.update_layout(barmode="overlay")
    fig.update_yaxes(title="density", row=1, col=1)
    fig.update_yaxes(visible=False, range=[-0.7, 1.7], row=2, col=1)
    fig.update_xaxes(title=escape_text(feature), row=2, col=1)
    return _base_layout(
        fig,
        height=440,
        meta={"kind": "density_1d", "bandwidth_neg": h[0], "bandwidth_pos": h[1]},
    )


def _contour_trace(ga, gb, Z, c, sym, lab) -> go.Contour:
    """One class's KDE contour lines on the grid ``(ga, gb)``."""
    return go.Contour(
        x=ga,
        y=gb,
        z=Z,
        name=f"KDE {'+' if c else '−'}",
        contours={"coloring": "lines", "showlabels": False},
        line={"width": 2},
        colorscale=[[0, COLORS[sym]], [1, COLORS[sym]]],
        showscale=False,
        ncontours=8,
        legendgroup=sym,
        showlegend=True,
        hovertemplate=f"class {lab}<br>density %{{z:.3g}}<extra></extra>",
    )


def _class_scatter_trace(xa, xb, c, sym, lab) -> go.Scatter:
    """One class's points (circles for +, diamonds for −)."""
    return go.Scatter(
        x=xa,
        y=xb,
        mode="markers",
        name=f"class {lab}",
        marker={
            "color": COLORS[sym],
            "size": 6,
            "opacity": 0.65,
            "symbol": "circle" if c else "diamond",
        },
        legendgroup=sym,
        hovertemplate="(%{x:.4g}, %{y:.4g})<extra></extra>",
    )


def density_2d(
    xa,
    xb,
    y01,
    bandwidths_neg,
    bandwidths_pos,
    *,
    feature_a: str = "",
    feature_b: str = "",
    pos_name: str = "+",
    neg_name: str = "-",
    n_grid: int = 70,
) -> go.Figure:
    """Per-class bivariate KDE contours (product Gaussian kernel) over the scatter plot.

    Parameters
    ----------
    xa, xb : array-like of shape (n,)
        The two features' values.
    y01 : array-like of shape (n,)
        1 for the positive class, 0 for the negative class.
    bandwidths_neg, bandwidths_pos : sequence of 2 floats
        Per-coordinate pair bandwidths ``(h_a, h_b)`` of each class
        (``LogDensityTransformer.pair_bandwidths_``).
    feature_a, feature_b, pos_name, neg_name : str
    n_grid : int

    Returns
    -------
    Figure
        Contour traces named ``"KDE +"`` and ``"KDE −"`` (``z`` the density on the grid).
    """
    xa = np.asarray(xa, dtype=float)
    xb = np.asarray(xb, dtype=float)
    y01 = np.asarray(y01).astype(int)
    hs = {0: np.asarray(bandwidths_neg, float), 1: np.asarray(bandwidths_pos, float)}
    ga = _grid(xa, n_grid, max(hs[0][0], hs[1][0]))
    gb = _grid(xb, n_grid, max(hs[0][1], hs[1][1]))
    A, B = np.meshgrid(ga, gb)
    E = np.column_stack([A.ravel(), B.ravel()])
    fig = go.Figure()
    for c, sym, name in ((1, "+", pos_name), (0, "-", neg_name)):
        m = y01 == c
        lab = f"{'+' if c else '−'} ({escape_text(name)})"
        Z = kde_pdf_2d(np.column_stack([xa[m], xb[m]]), E, hs[c]).reshape(A.shape)
        fig.add_trace(_contour_trace(ga, gb, Z, c, sym, lab))
        fig.add_trace(_class_scatter_trace(xa[m], xb[m], c, sym, lab))
    fig.update_xaxes(title=escape_text(feature_a))
    fig.update_yaxes(title=escape_text(feature_b))
    return _base_layout(
        fig,
        height=520,
        meta={
            "kind": "density_2d",
            "bandwidth_neg": [float(v) for v in hs[0]],
            "bandwidth_pos": [float(v) for v in hs[1]],
        },
    )


# --------------------------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------------------------
def ber_bars(per_fold: pd.DataFrame, summary: pd.DataFrame | None = None) -> go.Figure:
    """Mean balanced error rate per classifier with ±1 sd error bars and per-fold points.

    Parameters
    ----------
    per_fold : DataFrame
        One row per fold, one column per classifier (BER in [0, 1]).
    summary : DataFrame or None
        :func:`slb.evaluation.corrected_t_against_best` (or ``wilcoxon_against_best``) output;
        classifiers tied with the best are drawn darker.  None: no highlighting.

    Returns
    -------
    Figure
        The bar trace (named ``"mean BER"``) has one bar per classifier, sorted by mean BER;
        values in percent.
    """
    mean = per_fold.mean(axis=0) * 100
    sd = (per_fold.std(axis=0, ddof=1) if len(per_fold) > 1 else per_fold.std(axis=0, ddof=0)) * 100
    order = mean.sort_values(kind="stable").index.tolist()
    labels = [escape_text(n) for n in order]
    tied = {n: True for n in order}
    if summary is not None and "tied_with_best" in summary:
        tied = {n: bool(summary.loc[n, "tied_with_best"]) for n in order if n in summary.index}
    colors = [COLORS["+"] if tied.get(n, True) else "#9DB9D6" for n in order]
    bars = go.Bar(
        x=labels,
        y=[mean[n] for n in order],
        error_y={"type": "data", "array": [sd[n] for n in order], "thickness": 1.5},
        marker_color=colors,
        name="mean BER",
        hovertemplate="%{x}<br>BER %{y:.1f}% ± %{error_y.array:.1f}<extra></extra>",
    )
    rng = np.random.default_rng(0)
    px_, py_, ht = [], [], []
    for k, n in enumerate(order):
        vals = per_fold[n].to_numpy() * 100
        px_ += list(k + rng.uniform(-0.18, 0.18, vals.size))
        py_ += list(vals)
        ht += [f"{labels[k]}, fold {f + 1}: {v:.1f}%" for f, v in enumerate(vals)]
    points = go.Scatter(
        x=px_,
        y=py_,
        mode="markers",
        name="per fold",
        marker={"color": "#111827", "size": 6, "opacity": 0.7},
        hovertext=ht,
        hoverinfo="text",
        xaxis="x2",
    )
    layout = _layout(
        height=380,
        meta={"kind": "ber_bars", "classifiers": order, "n_folds": int(len(per_fold))},
        xaxis2={"overlaying": "x", "range": [-0.5, len(order) - 0.5], "visible": False},
        xaxis={"range": [-0.5, len(order) - 0.5]},
        yaxis={"title": {"text": "balanced error rate (%)"}, "rangemode": "tozero"},
    )
    return go.Figure(data=[bars, points], layout=layout)


def ber_curve(
    steps: pd.DataFrame,
    threshold: float,
    ber_at_threshold: float | None = None,
    *,
    measure: str = "hsic",
    lam_range: tuple[float, float] | None = None,
    nested_ber: float | None = None,
) -> go.Figure:
    """SLB's cross-validated BER as the exact step function of λ, the current λ on it.

    Parameters
    ----------
    steps : DataFrame
        :func:`slb.model.steps.ber_steps` output: row ``k`` holds the mean CV BER for every λ
        in ``(threshold[k-1], threshold[k]]`` (``mean_ber``, ``sd_ber``, ``mean_pairs``);
        ``attrs["lo"]`` / ``attrs["requested_lo"]``: where the computed steps start and where
        they were asked to start; ``attrs["gaps"]`` (optional, :func:`slb.model.steps.join_steps`):
        open intervals inside without steps.  Every part of the range without steps is grey.
    threshold : float
        Current λ.
    ber_at_threshold : float or None
        Mean CV BER at the current λ as shown elsewhere (the bar): marked with a star.
    measure : str
    lam_range : (float, float) or None
        The slider's range; the x axis is clipped to it.
    nested_ber : float or None
        The nested estimate (λ and C chosen inside every outer fold), drawn as a labelled
        horizontal line beside the curve.

    Returns
    -------
    Figure
        ``layout.meta``: ``steps`` (``threshold``, ``lower``, ``ber`` as fractions),
        ``range``, ``computed_from``, ``uncomputed`` (the grey intervals), ``current``
        (``threshold``, ``curve_ber``: the step holding λ, None where nothing is computed;
        ``marker_ber``) and ``nested_ber``.
    """
    t = steps["threshold"].to_numpy(dtype=float)
    m = steps["mean_ber"].to_numpy(dtype=float) * 100
    s = steps["sd_ber"].to_numpy(dtype=float) * 100
    lo_req = float(steps.attrs.get("requested_lo", t[0] if t.size else 0.0))
    lo = float(steps.attrs.get("lo", t[0] if t.size else 0.0))
    rng = lam_range or (lo_req, float(t[-1]) if t.size else 1.0)
    gaps = [(float(a), float(b)) for a, b in steps.attrs.get("gaps", ())]
    broken = _break_at_gaps(t, [m, s, steps["mean_pairs"].to_numpy(dtype=float)], gaps)
    fig = go.Figure(_step_traces(*broken))
    bands = _uncomputed_bands(rng, lo, float(t[-1]) if t.size else rng[1], gaps)
    _mark_uncomputed(fig, bands)
    _mark_nested(fig, nested_ber)
    row = None
    inside = t.size and np.isfinite(threshold) and t[0] <= threshold <= t[-1]
    if inside and not any(a < threshold < b for a, b in gaps):
        row = int(np.searchsorted(t, float(threshold), side="left"))
    _mark_current(fig, threshold, ber_at_threshold)
    fig.update_xaxes(
        title=f"λ ({_measure_label(measure)} threshold): larger keeps fewer pairs",
        range=[float(rng[0]), float(rng[1])],
    )
    fig.update_yaxes(title="CV balanced error rate (%)")
    return _base_layout(
        fig,
        height=380,
        meta={
            "kind": "ber_curve",
            "threshold": float(threshold),
            "steps": {
                "threshold": t.tolist(),
                "lower": steps["lower"].to_numpy(dtype=float).tolist(),
                "ber": (m / 100).tolist(),
            },
            "range": [float(rng[0]), float(rng[1])],
            "computed_from": lo,
            "uncomputed": [list(b) for b in bands],
            "current": {
                "threshold": float(threshold),
                "curve_ber": None if row is None else float(m[row] / 100),
                "marker_ber": None if ber_at_threshold is None else float(ber_at_threshold),
            },
            "nested_ber": None if nested_ber is None else float(nested_ber),
        },
    )


def _break_at_gaps(t, columns, gaps):
    """``t`` and ``columns`` with a NaN point at the top ``b`` of every gap ``(a, b)``, just
    before the row at ``b``: the step lines stop at ``a`` and start again at ``b``."""
    at = np.searchsorted(t, [b for _, b in gaps], side="left")
    return [np.insert(t, at, [b for _, b in gaps]), *(np.insert(c, at, np.nan) for c in columns)]


def _uncomputed_bands(rng, lo: float, hi: float, gaps) -> list[tuple[float, float]]:
    """The parts of the slider's range ``rng`` without steps: below ``lo``, the gaps, above
    ``hi``."""
    bands = [(float(rng[0]), lo)] if lo > rng[0] else []
    bands += [(a, b) for a, b in gaps]
    return bands + ([(hi, float(rng[1]))] if hi < rng[1] else [])


def _mark_uncomputed(fig: go.Figure, bands) -> None:
    """Grey out the parts of the slider's range where no steps were computed (the widest one
    says so)."""
    widest = max(bands, key=lambda b: b[1] - b[0], default=None)
    grey = {"fillcolor": "#E5E7EB", "opacity": 0.6, "line_width": 0, "layer": "below"}
    label = {
        "annotation": {"text": "not computed yet", "showarrow": False},
        "annotation_position": "top left",
    }
    for band in bands:
        fig.add_vrect(x0=band[0], x1=band[1], **grey, **(label if band == widest else {}))


def _mark_nested(fig: go.Figure, nested_ber) -> None:
    """The nested CV estimate as a labelled horizontal line (nothing if None or not finite)."""
    if nested_ber is not None and np.isfinite(nested_ber):
        fig.add_hline(
            y=100 * float(nested_ber),
            line={"color": COLORS["-"], "dash": "dot", "width": 2},
            annotation={
                "text": f"nested CV estimate (λ and C chosen inside each fold): "
                f"{100 * float(nested_ber):.1f} %",
                "showarrow": False,
            },
            annotation_position="bottom right",
        )


def _mark_current(fig: go.Figure, threshold, ber_at_threshold) -> None:
    """The current λ as a dashed vertical line, with a star at its BER if given."""
    if np.isfinite(threshold):
        fig.add_vline(x=float(threshold), line={"color": "#111827", "dash": "dash", "width": 1})
        if ber_at_threshold is not None:
            fig.add_trace(
                go.Scatter(
                    x=[float(threshold)],
                    y=[100 * float(ber_at_threshold)],
                    mode="markers",
                    marker={"size": 14, "color": "#111827", "symbol": "star"},
                    name="current λ",
                    hovertemplate=f"current λ = {threshold:.4g}<br>BER %{{y:.2f}}%<extra></extra>",
                )
            )


def _step_traces(t, m, s, pairs) -> list:
    """The ±1 sd band and the step line; ``shape="vh"``: each value holds up to its λ.

    A NaN in ``m`` (a gap, see :func:`_break_at_gaps`) breaks the line; the band is drawn
    segment by segment (a filled band would bridge the gap).
    """
    step = {"shape": "vh", "width": 0}
    band = []
    for seg in np.split(np.arange(t.size), np.flatnonzero(np.isnan(m))):
        seg = seg[~np.isnan(m[seg])]
        first = not band
        band += [
            go.Scatter(
                x=t[seg],
                y=(m + s)[seg],
                mode="lines",
                line=step,
                hoverinfo="skip",
                showlegend=False,
                name="+1 sd",
            ),
            go.Scatter(
                x=t[seg],
                y=(m - s)[seg],
                mode="lines",
                line=step,
                fill="tonexty",
                fillcolor="rgba(0,114,178,0.12)",
                hoverinfo="skip",
                name="± 1 sd over folds",
                showlegend=first,
                legendgroup="sd",
            ),
        ]
    return [
        *band,
        go.Scatter(
            x=t,
            y=m,
            mode="lines",
            name="SLB CV BER (exact steps)",
            line={"color": COLORS["+"], "width": 2, "shape": "vh"},
            customdata=np.column_stack([pairs, s]),
            hovertemplate=(
                "λ up to %{x:.4g}<br>BER %{y:.2f}% ± %{customdata[1]:.1f}"
                "<br>%{customdata[0]:.1f} pairs kept per fold<extra></extra>"
            ),
        ),
    ]


def term_kind(term: str, feature_names: Sequence[str] | None = None) -> tuple[str, str]:
    """Class sign and kind of a log-density term name such as ``log p+(a)`` or ``log p-(a, b)``.

    Parameters
    ----------
    term : str
    feature_names : sequence of str or None
        When given, a term is univariate exactly when its argument is a feature name (names
        that contain ``", "`` are handled); otherwise a top-level ``", "`` means bivariate.

    Returns
    -------
    sign : {"+", "-", "?"}
    kind : {"univariate", "bivariate"}
    """
    t = str(term)
    sign = "+" if t.startswith("log p+(") else "-" if t.startswith("log p-(") else "?"
    inner = t[7:-1] if sign != "?" and t.endswith(")") else t
    if feature_names is not None:
        names = (
            feature_names
            if isinstance(feature_names, (set, frozenset))
            else set(map(str, feature_names))
        )
        kind = "univariate" if inner in names else "bivariate"
    else:
        kind = "bivariate" if ", " in inner else "univariate"
    return sign, kind


def oracle_scale(coef: pd.Series, oracle: pd.Series) -> float:
    """Least-squares factor ``s`` minimising ``||s * coef - oracle||²`` over the union of terms.

    Terms missing on one side count as 0.  Returns 1.0 when ``coef`` is all zero.
    """
    idx = coef.index.union(oracle.index, sort=False)
    c = coef.reindex(idx).fillna(0.0).to_numpy(dtype=float)
    o = oracle.reindex(idx).fillna(0.0).to_numpy(dtype=float)
    den = float(c @ c)
    return float(c @ o) / den if den > 0 else 1.0


def _term_order(shown_d: dict, oracle_d: dict) -> list:
    """Every shown term, then the nonzero oracle terms not shown, by magnitude (stable)."""
    terms = list(shown_d)
    terms += [t for t, v in oracle_d.items() if t not in shown_d and v != 0]
    mag = pd.Series(
        [max(abs(shown_d.get(t, 0.0)), abs(oracle_d.get(t, 0.0))) for t in terms], index=terms
    )
    return mag.sort_values(ascending=False, kind="stable").index.tolist()


def _coef_bars(ts, labels, shown_d, sign, kind, cname, what) -> go.Bar:
    """The bars of one class's univariate or bivariate terms (bivariate ones hatched)."""
    return go.Bar(
        y=[labels[t] for t in ts],
        x=[shown_d[t] for t in ts],
        orientation="h",
        name=f"{kind} terms of class {'+' if sign == '+' else '−'} ({escape_text(cname)})",
        marker={
            "color": COLORS[sign],
            "pattern": {
                "shape": "/" if kind == "bivariate" else "",
                "fgcolor": "white",
                "fillmode": "overlay",
                "solidity": 0.35,
            },
        },
        hovertemplate="%{y}<br>" + what + " %{x:.4g}<extra></extra>",
        meta={"role": "coef"},
    )


def _oracle_trace(y, x) -> go.Scatter:
    """Lemma 1's oracle weights as black diamonds."""
    return go.Scatter(
        y=y,
        x=x,
        mode="markers",
        marker={"symbol": "diamond", "size": 10, "color": "#111827"},
        name="oracle weight (Lemma 1)",
        hovertemplate="%{y}<br>oracle %{x:+.0f}<extra></extra>",
    )


def coefficient_figure(
    coef: pd.Series,
    *,
    feature_names: Sequence[str] | None = None,
    oracle: pd.Series | None = None,
    n_visible: int = 40,
    max_bars: int | None = None,
    pos_name: str = "+",
    neg_name: str = "-",
) -> go.Figure:
    """SLB's learned weight of every log-density term, sorted by magnitude.

    Horizontal bars, one per term of ``coef`` (or of its ``max_bars`` largest; the view opens
    on the ``n_visible`` largest, drag the axis to scroll).  Colour: class ``+`` (blue) or ``-``
    (vermillion); univariate terms solid, bivariate terms hatched.  With ``oracle`` (Lemma 1's
    integer weights on synthetic forest data) the learned weights are multiplied by the
    least-squares factor of :func:`oracle_scale` and the oracle weights are drawn as black
    diamonds beside them; oracle terms that SLB did not keep get a diamond at zero-width bars.

    Parameters
    ----------
    coef : Series
        ``SLBClassifier.coef_``.
    feature_names : sequence of str or None
        Feature names (to tell univariate from bivariate terms reliably).
    oracle : Series or None
        ``SyntheticDataset.oracle_coef``.
    n_visible : int
    max_bars : int or None
        Draw only the first ``max_bars`` terms of the order (the largest weights, oracle
        included); None: every term.  Hundreds of bars cannot be told apart on a screen and
        take longer to draw (first draw in Chromium: 40 bars 70 ms, Sonar's 482 145 ms); the
        oracle scale is fitted on every term either way.
    pos_name, neg_name : str

    Returns
    -------
    Figure
        The four bar traces together have one bar per drawn term of ``coef`` (``layout.meta``:
        ``n_terms`` of ``coef``, ``n_drawn`` terms drawn, ``scale``).
    """
    coef = pd.Series(coef, dtype=float)
    scale = oracle_scale(coef, oracle) if oracle is not None else 1.0
    shown = coef * scale
    shown_d = {str(t): float(v) for t, v in shown.items()}
    oracle_d = {str(t): float(v) for t, v in oracle.items()} if oracle is not None else {}
    order = _term_order(shown_d, oracle_d)
    if max_bars is not None:
        order = order[: max(int(max_bars), 1)]
    labels = {t: escape_text(t) for t in order}
    names = set(map(str, feature_names)) if feature_names is not None else None
    kinds = {t: term_kind(t, names) for t in order}
    what = f"learned × {scale:.3g}" if oracle is not None else "learned weight"
    traces = []
    for sign, cname in (("+", pos_name), ("-", neg_name)):
        for kind in ("univariate", "bivariate"):
            ts = [t for t in order if t in shown_d and kinds[t] == (sign, kind)]
            if ts:
                traces.append(_coef_bars(ts, labels, shown_d, sign, kind, cname, what))
    if oracle is not None:
        ot = [t for t in order if t in oracle_d]
        traces.append(_oracle_trace([labels[t] for t in ot], [oracle_d[t] for t in ot]))
    n_show = min(max(int(n_visible), 1), len(order))
    x_title = "weight (log-density units)" + (
        f", learned × {scale:.3g}" if oracle is not None else ""
    )
    layout = _layout(
        height=int(min(900, max(320, 20 * n_show + 140))),
        meta={
            "kind": "coefficients",
            "n_terms": int(coef.size),
            "n_drawn": sum(t in shown_d for t in order),
            "scale": float(scale),
        },
        bargap=0.25,
        dragmode="pan",
        yaxis={
            "type": "category",
            "categoryorder": "array",
            "categoryarray": [labels[t] for t in order],
            "range": [n_show - 0.5, -0.5],
            "title": None,
            "automargin": True,
        },
        xaxis={
            "title": {"text": x_title},
            "zeroline": True,
            "zerolinecolor": "#9CA3AF",
        },
    )
    return go.Figure(data=traces, layout=layout)


def _waterfall_steps(c: pd.Series, baseline, top, feature_names) -> tuple:
    """Labels, values, measures and hover texts of the waterfall's steps, read from the top."""
    order = c.abs().sort_values(ascending=False, kind="stable").index.tolist()
    head, rest = order[: max(int(top), 0)], order[max(int(top), 0) :]
    labels = ["baseline (training means)"] + [escape_text(t) for t in head]
    values = [float(baseline)] + [float(c[t]) for t in head]
    measure = ["absolute"] + ["relative"] * len(head)
    hover = ["decision value at the training means"]
    hover += [f"{term_kind(t, feature_names)[1]} term" for t in head]
    if rest:
        labels.append(f"{len(rest)} other terms")
        values.append(float(c[rest].sum()))
        measure.append("relative")
        hover.append(f"sum of the other {len(rest)} terms")
    labels.append("decision value")
    values.append(float(baseline) + float(c.sum()))
    measure.append("total")
    hover.append("baseline + every term; > 0 predicts +")
    return labels, values, measure, hover


def _colour_legend(pos: str, neg: str) -> list:
    """Empty bars, legend entries only: the waterfall's colours in words."""
    return [
        go.Bar(
            x=[None],
            y=[None],
            orientation="h",
            marker_color=COLORS[sign],
            name=f"{words}: that class's colour",
            hoverinfo="skip",
        )
        for sign, words in (("+", f"pushes toward + ({pos})"), ("-", f"pushes toward − ({neg})"))
    ]


def contributions_figure(
    contributions: pd.Series,
    *,
    baseline: float,
    top: int = 15,
    pos_name: str = "+",
    neg_name: str = "-",
    feature_names: Sequence[str] | None = None,
) -> go.Figure:
    """Waterfall from the baseline to one sample's decision value, term by term.

    Parameters
    ----------
    contributions : Series
        One sample's row of ``SLBClassifier.contributions(X)[0]`` (term -> coef × (T(x) − mean)).
    baseline : float
        The decision value at the training means (``contributions(X)[1]``).
    top : int
        Terms shown one by one (largest ``|contribution|`` first); the others make one step.
    pos_name, neg_name : str
    feature_names : sequence of str or None

    Returns
    -------
    Figure
        One ``go.Waterfall``, read from the top: the baseline, the ``top`` terms, one
        "N other terms" step (their sum), then the decision value (baseline + every step).
        Colours are the class colours of every page: a step toward ``+`` is drawn in the
        positive class's colour (:data:`COLORS` ``"+"``), a step toward ``−`` in the negative
        class's; the legend says so in words.
    """
    c = pd.Series(contributions, dtype=float)
    labels, values, measure, hover = _waterfall_steps(c, baseline, top, feature_names)
    decision = values[-1]
    pos, neg = escape_text(pos_name), escape_text(neg_name)
    fig = go.Figure(
        go.Waterfall(
            orientation="h",
            y=labels,
            x=values,
            measure=measure,
            base=0,
            customdata=hover,
            hovertemplate="%{y}<br>%{x:+.3g} (%{customdata})<extra></extra>",
            increasing={"marker": {"color": COLORS["+"]}},
            decreasing={"marker": {"color": COLORS["-"]}},
            totals={"marker": {"color": COLORS["neutral"]}},
            connector={"line": {"color": "#9CA3AF", "width": 1}},
            name="contribution",
            showlegend=False,
        )
    )
    for trace in _colour_legend(pos, neg):
        fig.add_trace(trace)
    fig.update_yaxes(type="category", autorange="reversed", automargin=True)
    fig.update_xaxes(
        title=f"decision value (< 0: − {neg}   ·   > 0: + {pos})",
        zeroline=True,
        zerolinecolor="#111827",
    )
    fig.update_layout(legend={"orientation": "h", "y": -0.18})
    return _base_layout(
        fig,
        height=int(max(340, 26 * len(labels) + 160)),
        meta={
            "kind": "contributions",
            "baseline": float(baseline),
            "decision": decision,
            "n_steps": len(labels),
            "colors": {"toward +": COLORS["+"], "toward -": COLORS["-"]},
        },
    )


# ----------------------------------------------------------------------------------------------
# Experiments (learning curves, label noise, structure recovery); moved from slb.experiments,
# which re-exports learning_curve_figure and noise_figure.
# ----------------------------------------------------------------------------------------------
_PALETTE = (
    "#0072B2",
    "#D55E00",
    "#009E73",
    "#CC79A7",
    "#E69F00",
    "#56B4E9",
    "#000000",
    "#F0E442",
    "#999999",
    "#882255",
    "#44AA99",
    "#117733",
    "#332288",
)


def _classifier_colour(name) -> str:
    """A fixed colour per classifier name (its place in the catalogue, else a stable hash)."""
    import zlib

    from ..evaluation.registry import CLASSIFIERS

    names = list(CLASSIFIERS) + [n for n in ("SVM(linear)",) if n not in CLASSIFIERS]
    k = names.index(name) if name in names else zlib.crc32(str(name).encode("utf-8"))
    return _PALETTE[k % len(_PALETTE)]


def _paper_curve(p: pd.DataFrame, name: str, classifier) -> go.Scatter:
    """The paper's curve of one classifier: a dotted line in its colour."""
    return go.Scatter(
        x=p["n"],
        y=p["paper_mean"],
        mode="lines",
        name=f"{name} (paper)",
        legendgroup=name,
        line={"color": _classifier_colour(classifier), "dash": "dot"},
        opacity=0.6,
        hovertemplate=f"{name} (paper)<br>n=%{{x}}<br>%{{y:.2f}}%<extra></extra>",
    )


def learning_curve_figure(long, paper=None, bayes=None, title=None) -> go.Figure:
    """BER against the training size, one line per classifier (mean ± standard error bars).

    Parameters
    ----------
    long : DataFrame or SyntheticResults
        Columns ``n``, ``replicate``, ``classifier``, ``ber`` (fractions).  A
        :class:`slb.experiments.SyntheticResults` is drawn by its own ``figure`` method.
    paper : DataFrame or None
        :func:`slb.experiments.paper_synthetic` output, drawn as dotted lines in the same
        colours.
    bayes : float or None
        The Bayes error (fraction), drawn as a horizontal line.
    title : str or None

    Returns
    -------
    plotly.graph_objects.Figure
        ``layout.meta``: ``{"kind": "learning_curve", "classifiers": [...], "n": [...]}``.
    """
    if not isinstance(long, pd.DataFrame) and hasattr(long, "long") and hasattr(long, "figure"):
        return long.figure(paper=paper is not False, title=title)
    fig = go.Figure()
    order = list(dict.fromkeys(long["classifier"]))
    grid = sorted(long["n"].unique().tolist())
    for c in order:
        g = long[long["classifier"] == c].groupby("n")["ber"]
        mean, count = g.mean(), g.count()
        se = (g.std(ddof=1) / np.sqrt(count)).where(count > 1)
        name = escape_text(c)
        fig.add_trace(
            go.Scatter(
                x=mean.index,
                y=100 * mean.to_numpy(),
                mode="lines+markers",
                name=name,
                legendgroup=name,
                line={"color": _classifier_colour(c)},
                error_y={"type": "data", "array": (100 * se).fillna(0).to_numpy(), "visible": True},
                hovertemplate=f"{name}<br>n=%{{x}}<br>BER %{{y:.2f}}%<extra></extra>",
            )
        )
        if paper is not None and len(paper):
            p = paper[paper["classifier"] == c].sort_values("n")
            if len(p):
                fig.add_trace(_paper_curve(p, name, c))
    if bayes is not None and np.isfinite(bayes):
        fig.add_hline(
            y=100 * bayes,
            line_dash="dash",
            line_color="#555555",
            annotation_text=f"Bayes error {100 * bayes:.2f}%",
            annotation_position="top right",
        )
    fig.update_layout(
        title=escape_text(title) if title else None,
        xaxis_title="training size n",
        yaxis_title="balanced error rate (%)",
        xaxis={"tickmode": "array", "tickvals": grid},
        yaxis={"rangemode": "tozero"},
        template="plotly_white",
        hovermode="closest",
        meta={
            "kind": "learning_curve",
            "classifiers": order,
            "n": grid,
            "bayes": float(bayes) if bayes is not None and np.isfinite(bayes) else None,
        },
    )
    return fig


def noise_figure(results, metric="accuracy", title=None) -> go.Figure:
    """Clean-test accuracy (or BER) against the label-flip probability, one line per
    classifier, error bars one standard error (as the DISCRETE paper's Figure 1).

    Parameters
    ----------
    results : NoiseResults or DataFrame
        A :class:`slb.experiments.NoiseResults` or its ``summary``.
    metric : {"accuracy", "ber"}
    title : str or None

    Returns
    -------
    plotly.graph_objects.Figure
        ``layout.meta``: ``{"kind": "label_noise", "metric": ..., "classifiers": [...]}``.
    """
    if metric not in ("accuracy", "ber"):
        raise ValueError("metric must be 'accuracy' or 'ber'")
    is_results = not isinstance(results, pd.DataFrame) and hasattr(results, "summary")
    summary = results.summary if is_results else results
    source = results.settings.get("source") if is_results else None
    fig = go.Figure()
    order = list(dict.fromkeys(summary["classifier"]))
    label = "accuracy" if metric == "accuracy" else "balanced error rate"
    for c in order:
        s = summary[summary["classifier"] == c].sort_values("p")
        name = escape_text(c)
        fig.add_trace(
            go.Scatter(
                x=s["p"],
                y=100 * s[metric],
                mode="lines+markers",
                name=name,
                line={"color": _classifier_colour(c)},
                error_y={
                    "type": "data",
                    "array": (100 * s[f"{metric}_se"]).fillna(0),
                    "visible": True,
                },
                hovertemplate=f"{name}<br>p=%{{x}}<br>{label} %{{y:.1f}}%<extra></extra>",
            )
        )
    if title is None:
        title = f"Label noise: clean-test {label}" + (f" ({source})" if source else "")
    fig.update_layout(
        title=escape_text(title),
        xaxis_title="probability of flipping a training label",
        yaxis_title=f"clean-test {label} (%)",
        template="plotly_white",
        meta={"kind": "label_noise", "metric": metric, "classifiers": order},
    )
    return fig


def _add_feature_nodes(fig, P, labels):
    """Labelled feature nodes at positions ``P`` on equal, hidden axes (the network figures)."""
    fig.add_trace(
        go.Scatter(
            x=P[:, 0],
            y=P[:, 1],
            mode="markers+text",
            text=labels,
            textposition="top center",
            textfont={"size": 11},
            marker={"size": 10, "color": "#374151", "line": {"color": "white", "width": 1}},
            hovertemplate="%{text}<extra></extra>",
            name="features",
            showlegend=False,
        )
    )
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False, scaleanchor="x", scaleratio=1)


def network_graph(
    names: Sequence[str],
    edges,
    positions,
    *,
    title: str = "",
    color: str = COLORS["+"],
) -> go.Figure:
    """A Bayesian network's structure (e.g. one class of a synthetic design).

    Parameters
    ----------
    names : sequence of str
        All node (feature) names.
    edges : sequence of (i, j)
        Directed edges parent ``i`` -> child ``j`` (feature indices).
    positions : ndarray of shape (d, 2)
        Node positions (share them between figures to compare graphs).
    title, color : str

    Returns
    -------
    Figure
        ``layout.meta``: ``{"kind": "network", "n_edges": ..., "n_nodes": ...}``.
    """
    labels = _names(names)
    P = np.asarray(positions, dtype=float)
    edges = [(int(i), int(j)) for i, j in edges]
    mx, my, hover = [], [], []
    for i, j in edges:
        # a marker 70 % of the way to the child shows the direction
        mx.append(P[i, 0] + 0.7 * (P[j, 0] - P[i, 0]))
        my.append(P[i, 1] + 0.7 * (P[j, 1] - P[i, 1]))
        hover.append(f"{labels[i]} → {labels[j]}")
    fig = go.Figure()
    fig.add_trace(_edge_lines(P, edges, color))
    fig.add_trace(
        go.Scatter(
            x=mx,
            y=my,
            mode="markers",
            marker={"size": 7, "color": color, "symbol": "triangle-right"},
            hovertext=hover,
            hoverinfo="text",
            name="edge direction",
            showlegend=False,
        )
    )
    _add_feature_nodes(fig, P, labels)
    return _base_layout(
        fig,
        title=title,
        height=420,
        meta={"kind": "network", "n_edges": len(edges), "n_nodes": len(labels)},
    )


def recovery_graph(
    names: Sequence[str],
    kept_pairs,
    true_edges,
    positions,
    *,
    title: str = "",
) -> go.Figure:
    """The pairs a classifier kept, against the true (undirected) edges.

    Kept pairs that are true edges are drawn solid purple, kept pairs that are not dashed
    vermillion, true edges that were missed dotted grey.

    Parameters
    ----------
    names : sequence of str
    kept_pairs : array-like of shape (k, 2)
        Kept pairs (feature indices).
    true_edges : array-like of shape (m, 2)
        True edges (feature indices, any direction).
    positions : ndarray of shape (d, 2)
    title : str

    Returns
    -------
    Figure
        ``layout.meta``: ``{"kind": "recovery", "n_kept", "n_true", "n_true_positive",
        "n_false_positive", "n_missed"}``; traces named ``"kept, true edge"``,
        ``"kept, not an edge"`` and ``"missed true edge"``.
    """
    labels = _names(names)
    P = np.asarray(positions, dtype=float)

    def norm(pairs):
        out = []
        for i, j in np.asarray(pairs, dtype=int).reshape(-1, 2):
            e = (min(int(i), int(j)), max(int(i), int(j)))
            if e not in out:
                out.append(e)
        return out

    kept, true = norm(kept_pairs), norm(true_edges)
    true_set = set(true)
    groups = {
        "kept, true edge": ([e for e in kept if e in true_set], COLORS["both"], "solid", 3),
        "kept, not an edge": ([e for e in kept if e not in true_set], COLORS["-"], "dash", 2),
        "missed true edge": ([e for e in true if e not in set(kept)], "#9CA3AF", "dot", 1.5),
    }
    fig = go.Figure()
    for name, (es, color, dash, width) in groups.items():
        xs, ys = [], []
        for i, j in es:
            xs += [P[i, 0], P[j, 0], None]
            ys += [P[i, 1], P[j, 1], None]
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines",
                line={"color": color, "width": width, "dash": dash},
                hoverinfo="skip",
                name=f"{name} ({len(es)})",
            )
        )
    _add_feature_nodes(fig, P, labels)
    n_tp = len(groups["kept, true edge"][0])
    return _base_layout(
        fig,
        title=title,
        height=420,
        meta={
            "kind": "recovery",
            "n_kept": len(kept),
            "n_true": len(true),
            "n_true_positive": n_tp,
            "n_false_positive": len(kept) - n_tp,
            "n_missed": len(true) - n_tp,
        },
    )
