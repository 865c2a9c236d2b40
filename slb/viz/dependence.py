"""Figures of pairwise dependence: the heatmap of a dependence matrix and the histogram of its
values with the threshold line.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .layout import MAX_LABELLED, heatmap_cell_px, kept_outline
from .style import COLORS, FONT_PX, _base_layout, _measure_label, _names, escape_text

__all__ = ["dependence_heatmap", "dependence_histogram", "threshold_line", "label_step"]


def _outline_kept(fig: go.Figure, kept, order, d: int) -> int:
    """Outline each kept pair's cell above the diagonal (display order); return their number."""
    shape, n_out = kept_outline(kept, order, d)
    if shape is not None:
        fig.add_shape(**shape)
    return n_out


def label_step(d: int) -> int:
    """Every how many features a name is written on the heatmap's axes: 1 (every name) up to
    :data:`MAX_LABELLED` features, else so that written names are >= 16 px apart at 14 px
    text (Sonar, d = 60: every 3rd; the hover names every cell).

    Examples
    --------
    >>> label_step(13), label_step(60)
    (1, 3)
    """
    if d <= MAX_LABELLED:
        return 1
    return int(np.ceil(16 / heatmap_cell_px(d)))


def _square_category_axes(fig: go.Figure, labels, d: int) -> int:
    """Category axes of square cells, every :func:`label_step`-th name written at 14 px (the
    others in the hover); returns the number of names on each axis."""
    shown = list(labels)[:: label_step(d)]
    font = {"size": FONT_PX}
    fig.update_xaxes(
        type="category",
        tickangle=-60,
        showgrid=False,
        tickfont=font,
        tickmode="array",
        tickvals=shown,
        range=[-0.5, d - 0.5],
        constrain="domain",
    )
    fig.update_yaxes(
        type="category",
        showgrid=False,
        tickfont=font,
        tickmode="array",
        tickvals=shown,
        range=[d - 0.5, -0.5],
        scaleanchor="x",
        scaleratio=1,
        constrain="domain",
    )
    return len(shown)


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
        the axes (at 14 px) up to :data:`MAX_LABELLED` features, every :func:`label_step`-th
        beyond (the hover names every cell).  The
        trace named ``"cells"`` has one point per off-diagonal cell (hover, click) with
        ``customdata`` ``(i, j, statistic, p-value)`` in the original indices; the browser
        draws one of its markers (``marker.maxdisplayed``), so it costs next to nothing.
        ``layout.meta``: ``n_features``, ``n_labels`` (names on each axis), ``n_outlined``,
        ``order`` (the display order; :func:`slb.viz.selection.clickable_pairs` reads the
        clicked cell's pair from it).

    Examples
    --------
    >>> import numpy as np
    >>> S = np.array([[np.nan, 0.9, 0.1], [0.9, np.nan, 0.2], [0.1, 0.2, np.nan]])
    >>> P = np.array([[np.nan, 0.01, 0.5], [0.01, np.nan, 0.3], [0.5, 0.3, np.nan]])
    >>> fig = dependence_heatmap(S, P, ["a", "b", "c"], kept=S > 0.5)
    >>> [trace.type for trace in fig.data]
    ['heatmap', 'scatter']
    >>> fig.layout.meta["n_outlined"], fig.layout.meta["order"]
    (1, [0, 1, 2])
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
    n_labels = _square_category_axes(fig, labels, d)
    fig.update_layout(clickmode="event+select", dragmode=False)
    room = 150  # the names below the x axis
    return _base_layout(
        fig,
        title=title,
        height=height or int(d * heatmap_cell_px(d) + room + (50 if title else 20)),
        meta={
            "kind": "dependence_heatmap",
            "n_features": int(d),
            "n_labels": n_labels,
            "n_outlined": n_out,
            "order": [int(i) for i in order],
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
        colorbar={
            "title": {"text": label, "font": {"size": FONT_PX}, "side": "right"},
            "tickfont": {"size": FONT_PX},
            "thickness": 12,
            "nticks": 4,
        },
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

    Examples
    --------
    >>> fig = dependence_histogram([0.9, 0.2, 0.1], [0.3, 0.05, 0.02], threshold=0.25)
    >>> [trace.type for trace in fig.data]
    ['histogram', 'histogram']
    >>> fig.layout.shapes[0].x0, fig.layout.annotations[0].text
    (0.25, 'λ = 0.25')
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
                # the minus sign (−), as every other legend writes the negative class
                name=f"class {sym.replace('-', '−')} ({escape_text(name)})",
                marker_color=COLORS[sym],
                opacity=0.6,
                xbins={"start": 0.0, "end": hi + size, "size": size},
                hovertemplate=label + " %{x}<br>%{y} pairs<extra></extra>",
            )
        )
    threshold_line(fig, threshold)
    fig.update_layout(barmode="overlay")
    fig.update_xaxes(title_text=label + " of a pair")
    fig.update_yaxes(title_text="pairs")
    return _base_layout(
        fig, height=300, meta={"kind": "dependence_histogram", "threshold": float(threshold)}
    )


def threshold_line(fig: go.Figure, threshold: float) -> go.Figure:
    """Draw :func:`dependence_histogram`'s dashed line at λ = ``threshold`` (if finite), labelled.

    Returns ``fig``.  (The dashboard adds it to a cached histogram when λ moves.)

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> fig = threshold_line(go.Figure(), 0.5)
    >>> fig.layout.shapes[0].x0, fig.layout.annotations[0].text
    (0.5, 'λ = 0.5')
    >>> len(threshold_line(go.Figure(), float("nan")).layout.shapes)  # no line where λ is undefined
    0
    """
    if np.isfinite(threshold):
        fig.add_vline(
            x=float(threshold),
            line={"color": "#111827", "width": 2, "dash": "dash"},
            annotation={
                "text": f"λ = {threshold:.4g}",
                "showarrow": False,
                "font": {"size": FONT_PX},
            },
            annotation_position="top right",
        )
    return fig
