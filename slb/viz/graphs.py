"""Graph figures of the dependence structure: the pair graph of the kept pairs and TAN's trees."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .layout import MAX_LABELLED, _width_bins, place_labels, tree_layout
from .style import (
    COLORS,
    FONT_PX,
    NODE_TEXT,
    _base_layout,
    _layout,
    _measure_label,
    _names,
    escape_text,
)

__all__ = ["pair_graph", "tree_graph"]


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


def _feature_node_trace(labels, pos, nodes, degree, places, highlight) -> go.Scatter:
    """The feature nodes, sized by their number of kept pairs, the ``places`` ones labelled."""
    return go.Scatter(
        x=pos[nodes, 0],
        y=pos[nodes, 1],
        mode="markers+text",
        text=[_node_text(labels, i, places, highlight) for i in nodes],
        hovertext=[labels[i] for i in nodes],
        textposition=[places.get(int(i), "top center") for i in nodes],
        textfont=NODE_TEXT,
        marker={
            "size": _node_px(degree)[nodes],
            "color": np.where(degree[nodes] > 0, "#374151", "#D1D5DB").tolist(),
            "line": {"color": "white", "width": 1},
        },
        customdata=degree[nodes],
        hovertemplate="%{hovertext}<br>%{customdata} kept pairs<extra></extra>",
        name="features",
        showlegend=False,
    )


def _node_px(degree) -> np.ndarray:
    """Marker diameter of each feature node: grows with its number of kept pairs."""
    return 8 + 2.0 * np.sqrt(np.asarray(degree, dtype=float))


def _label_priority(nodes, degree, highlight) -> list:
    """Nodes in labelling order: the searched one, then by kept pairs (ties: lower index)."""
    nodes = np.asarray(nodes, dtype=int)
    order = nodes[np.argsort(-degree[nodes], kind="stable")].tolist()
    if highlight is not None and int(highlight) in order:
        order.remove(int(highlight))
        order.insert(0, int(highlight))
    return order


def _edge_segments(P, edges) -> np.ndarray:
    """Rows ``x0, y0, x1, y1`` of the lines between the nodes ``edges`` join (label placement
    avoids them)."""
    e = np.asarray(edges, dtype=int).reshape(-1, 2)
    return np.hstack([P[e[:, 0]], P[e[:, 1]]])


def _placed_labels(names, pos, nodes, degree, highlight, *, plot_px, marker_px, segments=None):
    """Which nodes are labelled where (:func:`slb.viz.layout.place_labels`) and the ranges.

    Up to :data:`MAX_LABELLED` nodes every node may be named; beyond, the searched one and the
    connected nodes, best connected first, at most 10.  Only labels that do not overlap are
    written (the others are in the hover), so a dense cluster gives its room to the next ones.
    """
    nodes = np.asarray(nodes, dtype=int)
    few = nodes.size <= MAX_LABELLED
    priority = [
        i
        for i in _label_priority(nodes, degree, highlight)
        if few or degree[i] > 0 or (highlight is not None and i == int(highlight))
    ]
    return place_labels(
        pos,
        names,
        priority,
        plot_px=plot_px,
        font_px=FONT_PX,
        marker_px=marker_px,
        limit=None if few else 10,
        segments=segments,
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
    height: int = 560,
    width_px: float = 260.0,
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
    height : int, default=560
        The figure's height (pixels).
    width_px : float, default=260
        The smallest width (pixels) of the plot area the figure is drawn at: the names are
        placed so that they do not overlap at that width and ``height``, so a graph drawn
        across a page names more nodes than one in half a page (H52: Pima's graph, drawn
        across the Dependencies page, named 6 of its 8 features).

    Returns
    -------
    Figure
        ``layout.meta`` holds ``n_edges`` (= ``k``), ``n_nodes`` and ``n_labels`` (nodes with
        their name written, never overlapping: up to :data:`MAX_LABELLED` nodes any, else at
        most 10 of the connected ones, best connected first; the rest on hover);
        and ``pairs`` (the kept pairs, as given); the trace named ``"pair hover"`` has one
        point per edge (hover, click) with the pair's feature indices as ``customdata``
        (:func:`slb.viz.selection.clickable_pairs` reads them from ``meta``).

    Examples
    --------
    >>> import numpy as np
    >>> pos = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, 1.0]])
    >>> strength = np.array([[0.2], [0.8]])  # pair (0, 1): weak in class -, strong in class +
    >>> dependent = np.array([[False], [True]])
    >>> fig = pair_graph(["a", "b", "c"], np.array([[0, 1]]), strength, dependent, pos)
    >>> [fig.layout.meta[k] for k in ("n_edges", "n_nodes", "n_labels")]
    [1, 3, 3]
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
    traces = _kept_edge_traces((x0, y0, x1, y1), cat, _width_bins(s, k), legend)
    traces.append(_pair_hover_trace(labels, pairs, strength, (x0, y0, x1, y1), measure))
    degree = np.bincount(pairs.ravel(), minlength=len(labels)) if k else np.zeros(len(labels), int)
    nodes = np.arange(len(labels)) if show_isolated else np.flatnonzero(degree > 0)
    places, xr, yr = _placed_labels(
        names,
        pos,
        nodes,
        degree,
        highlight,
        # the smallest plot area: the figure less its margins and the legend below it
        plot_px=(float(width_px), min(float(width_px), height - 160.0)),
        marker_px=_node_px(degree),
        segments=_edge_segments(pos, pairs),
    )
    traces.append(_feature_node_trace(labels, pos, nodes, degree, places, highlight))
    if highlight is not None:
        traces.append(_highlight_ring(pos, highlight))
    # one layout dict, one Figure call: the graph is redrawn at every λ step (see _base_layout)
    layout = _layout(
        title=title,
        height=int(height),
        meta={
            "kind": "pair_graph",
            "n_edges": int(k),
            "n_nodes": int(len(nodes)),
            "n_labels": len(places),
            "pairs": pairs.tolist(),
        },
        xaxis={"visible": False, "range": list(xr)},
        yaxis={"visible": False, "range": list(yr), "scaleanchor": "x", "scaleratio": 1},
        clickmode="event+select",
        dragmode="pan",
    )
    return go.Figure(data=traces, layout=layout)


def _node_text(labels, i, named, highlight) -> str:
    """A node's written name: none, its name, or in bold for the searched feature."""
    if i not in named:
        return ""
    return f"<b>{labels[i]}</b>" if highlight is not None and i == int(highlight) else labels[i]


def _highlight_ring(pos, highlight) -> go.Scatter:
    """A ring around the searched feature (whose name the node trace writes in bold)."""
    i = int(highlight)
    return go.Scatter(
        x=[pos[i, 0]],
        y=[pos[i, 1]],
        mode="markers",
        marker={"size": 24, "color": "rgba(0,0,0,0)", "line": {"color": "#E69F00", "width": 4}},
        hoverinfo="skip",
        name="searched feature",
        showlegend=False,
    )


def _add_highlight(fig, pos, highlight) -> None:
    """Add :func:`_highlight_ring` to ``fig`` (nothing without a searched feature)."""
    if highlight is not None:
        fig.add_trace(_highlight_ring(pos, highlight))


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


def _fill_plot(P, plot_px) -> np.ndarray:
    """Positions rescaled (x to [0, 1], y to [-h/w, 0], the top row at 0) so that on axes of
    equal scale the drawing fills a plot area of ``plot_px`` (width, height)."""
    P = np.array(P, dtype=float).reshape(-1, 2)
    if not P.shape[0]:
        return P
    span = np.ptp(P, axis=0)
    aspect = plot_px[1] / plot_px[0]
    out = np.empty_like(P)
    out[:, 0] = (P[:, 0] - P[:, 0].min()) / span[0] if span[0] > 0 else 0.5
    out[:, 1] = (P[:, 1] - P[:, 1].max()) / span[1] * aspect if span[1] > 0 else -aspect / 2
    return out


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
    width_px: float = 260.0,
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
    width_px : float, default=260
        The smallest width (pixels) of the plot area the figure is drawn at: the names are
        placed so that they do not overlap at that width, so a figure drawn across a page
        (Compare's, about 510 px at 1024 px) names more nodes than one in half a page.

    Returns
    -------
    Figure
        ``layout.meta``: ``n_edges`` (``len(edges)``) and ``n_labels`` (nodes with their name
        written: as many as fit without overlapping at ``width_px``, best connected first;
        the rest on hover), ``depth``.

    Examples
    --------
    >>> fig = tree_graph(["a", "b", "c", "d"], [(0, 1), (1, 2), (1, 3)])
    >>> fig.layout.meta["n_edges"], fig.layout.meta["depth"]  # rooted at b, one level below it
    (3, 1)
    """
    labels = _names(names)
    d = len(labels)
    P = tree_layout(d, edges, seed=seed) if positions is None else np.asarray(positions, float)
    degree = np.bincount(np.asarray(edges, dtype=int).ravel(), minlength=d)
    depth = int(round(P[:, 1].max() - P[:, 1].min())) if d else 0
    height = int(min(720, max(320, 150 + 70 * depth)))
    plot_px = (float(width_px), height - 90.0)  # the smallest plot area it is drawn at
    P = _fill_plot(P, plot_px)
    priority = _label_priority(np.arange(d), degree, highlight)
    places, xr, yr = place_labels(
        P,
        names,
        priority,
        plot_px=plot_px,
        font_px=FONT_PX,
        marker_px=9.0,
        segments=_edge_segments(P, edges),
    )
    named = set(places)
    fig = go.Figure(
        [
            *_tree_edge_traces(labels, P, edges, weights, color),
            go.Scatter(
                x=P[:, 0],
                y=P[:, 1],
                mode="markers+text",
                text=[_node_text(labels, i, places, highlight) for i in range(d)],
                hovertext=labels,
                textposition=[places.get(i, "bottom center") for i in range(d)],
                textfont=NODE_TEXT,
                marker={"size": 9, "color": "#374151", "line": {"color": "white", "width": 1}},
                hovertemplate="%{hovertext}<extra></extra>",
                showlegend=False,
                name="features",
            ),
        ]
    )
    _add_highlight(fig, P, highlight)
    fig.update_xaxes(visible=False, range=list(xr))
    fig.update_yaxes(visible=False, range=list(yr), scaleanchor="x", scaleratio=1)
    return _base_layout(
        fig,
        title=title,
        height=height,
        meta={"kind": "tree", "n_edges": len(edges), "n_labels": len(named), "depth": depth},
    )
