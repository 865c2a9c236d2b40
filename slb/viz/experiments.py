"""Figures of the experiments (learning curves, label noise, structure recovery); moved from
:mod:`slb.experiments`, which re-exports :func:`learning_curve_figure` and :func:`noise_figure`.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .graphs import _edge_lines, _edge_segments
from .layout import place_labels
from .style import (
    COLORS,
    FONT_PX,
    LEGEND_ROW_PX,
    NODE_TEXT,
    _base_layout,
    _layout,
    _names,
    classifier_colors,
    classifier_order,
    escape_text,
)

__all__ = ["learning_curve_figure", "noise_figure", "network_graph", "recovery_graph"]


#: The recovery graph's kept-and-true, kept-not-true and missed edges.
RECOVERY_COLORS = ("#111827", "#882255", "#9CA3AF")


def _classifier_colour(name) -> str:
    """The classifier's own colour, as on every figure (:func:`slb.viz.style.classifier_colors`;
    H54: SLB was blue here and black on Compare's curves)."""
    return classifier_colors([name])[name]


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


#: Marker symbols and dashes of the learning curves, by the classifier's place in the figure:
#: two classifiers with the same curve (SLB when its selection chose TAN) stay both visible
#: (H37: SLB was drawn exactly under TAN).  "dot" is left to the paper's curves.
_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "cross", "star", "pentagon")
_DASHES = ("solid", "dash", "dashdot", "longdash", "longdashdot")


def _curve_style(k: int, colour: str) -> tuple[dict, dict]:
    """Line and marker of the ``k``-th learning curve: its own dash and symbol; after the first,
    hollow and larger markers, so a curve drawn over an identical one leaves it in sight."""
    symbol = _SYMBOLS[k % len(_SYMBOLS)] + ("-open" if k else "")
    # the first (SLB) filled and 10 px, not the smallest-looking mark (H52 10b: 8 px); the
    # hollow ones larger, so a filled mark under one stays in sight
    marker = {"symbol": symbol, "size": 10 if k == 0 else 12 + 2 * min(k, 3), "color": colour}
    if k:
        marker["line"] = {"width": 2, "color": colour}
    return {"color": colour, "dash": _DASHES[k % len(_DASHES)], "width": 2}, marker


def _coinciding(means: dict) -> dict:
    """Classifier -> the other classifiers whose mean curve is the same at every n."""
    out: dict = {}
    for a, ma in means.items():
        for b, mb in means.items():
            if a != b and ma.index.equals(mb.index) and np.allclose(ma, mb, rtol=0, atol=1e-12):
                out.setdefault(a, []).append(b)
    return out


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
        The Bayes error (fraction), drawn as a horizontal dotted line named in the legend.
    title : str or None

    Returns
    -------
    plotly.graph_objects.Figure
        One line per classifier, each with its own marker symbol and dash (hollow, larger
        markers after the first), a classifier whose curve equals another's named
        ``"SLB (= TAN)"``; ``layout.meta``: ``{"kind": "learning_curve", "classifiers": [...],
        "n": [...], "bayes": ..., "coincide": {classifier: [the others with its curve]}}``.

    Examples
    --------
    >>> import pandas as pd
    >>> long = pd.DataFrame(
    ...     {
    ...         "n": [50, 50, 100, 100] * 2,
    ...         "replicate": [0, 1, 0, 1] * 2,
    ...         "classifier": ["SLB"] * 4 + ["NB"] * 4,
    ...         "ber": [0.30, 0.26, 0.20, 0.22, 0.35, 0.33, 0.30, 0.28],
    ...     }
    ... )
    >>> fig = learning_curve_figure(long, bayes=0.1)
    >>> [trace.name for trace in fig.data]
    ['SLB', 'NB', 'Bayes error 10.00%']
    >>> fig.data[0].y.round(6).tolist()  # SLB's mean BER (%) at n = 50 and n = 100
    [28.0, 21.0]
    >>> fig.layout.meta["n"]
    [50, 100]
    """
    if not isinstance(long, pd.DataFrame) and hasattr(long, "long") and hasattr(long, "figure"):
        return long.figure(paper=paper is not False, title=title)
    fig = go.Figure()
    order = classifier_order(dict.fromkeys(long["classifier"]))
    grid = sorted(long["n"].unique().tolist())
    groups = {c: long[long["classifier"] == c].groupby("n")["ber"] for c in order}
    same = _coinciding({c: g.mean() for c, g in groups.items()})
    # One training size: the classifiers' markers stand side by side around n, 3% of the
    # axis's span apart (of n when no paper curve widens it), as a dodged dot plot; at one x
    # they had been drawn over each other (H49: SLB's under TAN's).  The hover and the axis
    # still say n itself.
    drawn = grid + ([] if paper is None or not len(paper) else paper["n"].tolist())
    span = max(max(drawn) - min(drawn), grid[0]) if grid else 0.0
    dodge = 0.03 * span if len(grid) == 1 and len(order) > 1 else 0.0
    colours = classifier_colors(order)
    for k, c in enumerate(order):
        g = groups[c]
        mean, count = g.mean(), g.count()
        se = (g.std(ddof=1) / np.sqrt(count)).where(count > 1)
        name = escape_text(c)
        line, marker = _curve_style(k, colours[c])
        shown = name + (f" (= {escape_text(', '.join(map(str, same[c])))})" if c in same else "")
        fig.add_trace(
            go.Scatter(
                x=mean.index + dodge * (k - (len(order) - 1) / 2),
                customdata=mean.index,
                y=100 * mean.to_numpy(),
                mode="lines+markers",
                name=shown,
                legendgroup=name,
                line=line,
                marker=marker,
                # one replicate: no error bar at all (H52: a zero-length bar drew a dash
                # through every open marker)
                error_y={
                    "type": "data",
                    "array": (100 * se).fillna(0).to_numpy(),
                    "visible": bool((count > 1).any()),
                },
                hovertemplate=f"{name}<br>n=%{{customdata}}<br>BER %{{y:.2f}}%<extra></extra>",
            )
        )
        if paper is not None and len(paper):
            p = paper[paper["classifier"] == c].sort_values("n")
            if len(p):
                fig.add_trace(_paper_curve(p, name, c))
    if bayes is not None and np.isfinite(bayes):
        # a named line in the legend, not a label on the plot: "Bayes error 1.93%" written
        # at the line's right end sat on the data points there (H37)
        # one training size: a short segment around it (H49: from n to n the line had no
        # length, so the legend named a line the plot did not draw)
        pad = 0.1 * grid[0] + dodge * len(order) / 2 if len(grid) == 1 else 0.0
        fig.add_trace(
            go.Scatter(
                x=[grid[0] - pad, grid[-1] + pad] if grid else [],
                y=[100 * bayes] * (2 if grid else 0),
                mode="lines",
                name=f"Bayes error {100 * bayes:.2f}%",
                line={"color": "#555555", "dash": "dot", "width": 2},
                hovertemplate=f"Bayes error {100 * bayes:.2f}%<extra></extra>",
            )
        )
    layout = _layout(
        title=escape_text(title) if title else None,
        height=460 + LEGEND_ROW_PX * ((len(order) + 2) // 3),
        xaxis={"title": "training size n", "tickmode": "array", "tickvals": grid},
        yaxis={"title": "balanced error rate (%)", "rangemode": "tozero"},
        template="plotly_white",
        hovermode="closest",
        meta={
            "kind": "learning_curve",
            "classifiers": order,
            "n": grid,
            "bayes": float(bayes) if bayes is not None and np.isfinite(bayes) else None,
            "coincide": {str(c): [str(o) for o in v] for c, v in same.items()},
        },
    )
    return fig.update_layout(layout)


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

    Examples
    --------
    >>> import pandas as pd
    >>> summary = pd.DataFrame(
    ...     {
    ...         "classifier": ["SLB", "SLB", "NB", "NB"],
    ...         "p": [0.0, 0.2, 0.0, 0.2],
    ...         "accuracy": [0.9, 0.8, 0.85, 0.7],
    ...         "accuracy_se": [0.01, 0.02, 0.01, 0.03],
    ...     }
    ... )
    >>> fig = noise_figure(summary)
    >>> [trace.name for trace in fig.data], fig.data[1].y.tolist()  # NB's accuracy (%)
    (['SLB', 'NB'], [85.0, 70.0])
    >>> noise_figure(summary, metric="auc")
    Traceback (most recent call last):
    ...
    ValueError: metric must be 'accuracy' or 'ber'
    """
    if metric not in ("accuracy", "ber"):
        raise ValueError("metric must be 'accuracy' or 'ber'")
    is_results = not isinstance(results, pd.DataFrame) and hasattr(results, "summary")
    summary = results.summary if is_results else results
    source = results.settings.get("source") if is_results else None
    fig = go.Figure()
    order = classifier_order(dict.fromkeys(summary["classifier"]))
    label = "accuracy" if metric == "accuracy" else "balanced error rate"
    colours = classifier_colors(order)
    for c in order:
        s = summary[summary["classifier"] == c].sort_values("p")
        name = escape_text(c)
        fig.add_trace(
            go.Scatter(
                x=s["p"],
                y=100 * s[metric],
                mode="lines+markers",
                name=name,
                line={"color": colours[c]},
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
    layout = _layout(
        title=escape_text(title),
        height=440 + LEGEND_ROW_PX * ((len(order) + 2) // 3),
        xaxis={"title": "probability of flipping a training label"},
        yaxis={"title": f"clean-test {label} (%)"},
        template="plotly_white",
        meta={"kind": "label_noise", "metric": metric, "classifiers": order},
    )
    return fig.update_layout(layout)


def _add_feature_nodes(fig, P, labels, edges):
    """Labelled feature nodes at positions ``P`` on equal, hidden axes (the network figures):
    each name beside its node where it overlaps no other name and, where it can, crosses no
    edge (:func:`slb.viz.layout.place_labels`; names above their node had edges through them,
    H33); names with no free place are in the hover."""
    e = np.asarray(edges, dtype=int).reshape(-1, 2)
    degree = np.bincount(e.ravel(), minlength=len(labels))
    order = np.argsort(-degree, kind="stable").tolist()
    plain = [html.unescape(t) for t in labels]
    places, xr, yr = place_labels(
        P, plain, order, font_px=FONT_PX, marker_px=10.0, segments=_edge_segments(P, e)
    )
    fig.add_trace(
        go.Scatter(
            x=P[:, 0],
            y=P[:, 1],
            mode="markers+text",
            text=[t if i in places else "" for i, t in enumerate(labels)],
            textposition=[places.get(i, "top center") for i in range(len(labels))],
            textfont=NODE_TEXT,
            marker={"size": 10, "color": "#374151", "line": {"color": "white", "width": 1}},
            hovertext=labels,
            hovertemplate="%{hovertext}<extra></extra>",
            name="features",
            showlegend=False,
        )
    )
    fig.update_xaxes(visible=False, range=list(xr))
    fig.update_yaxes(visible=False, scaleanchor="x", scaleratio=1, range=list(yr))


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

    Examples
    --------
    >>> import numpy as np
    >>> pos = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, 1.0]])
    >>> fig = network_graph(["a", "b", "c"], [(0, 1), (1, 2)], pos)
    >>> fig.layout.meta["n_edges"], fig.layout.meta["n_nodes"]
    (2, 3)
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
    _add_feature_nodes(fig, P, labels, edges)
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

    Examples
    --------
    >>> import numpy as np
    >>> pos = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, 1.0]])
    >>> fig = recovery_graph(["a", "b", "c"], [(0, 1), (0, 2)], [(1, 0), (1, 2)], pos)
    >>> [fig.layout.meta[k] for k in ("n_true_positive", "n_false_positive", "n_missed")]
    [1, 1, 1]
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
    # no class colour (H54: orange, the − class's network above it, and the purple of "both"
    # on Dependencies): black for a right pair, a dark red-brown dash for a wrong one
    groups = {
        "kept, true edge": ([e for e in kept if e in true_set], RECOVERY_COLORS[0], "solid", 3),
        "kept, not an edge": (
            [e for e in kept if e not in true_set],
            RECOVERY_COLORS[1],
            "dash",
            2,
        ),
        "missed true edge": (
            [e for e in true if e not in set(kept)],
            RECOVERY_COLORS[2],
            "dot",
            1.5,
        ),
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
    _add_feature_nodes(fig, P, labels, kept + true)
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
