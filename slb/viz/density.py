"""Figures of the data: the class balance and the per-class kernel density estimates (1-D and 2-D)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..density.kde import kde_pdf_1d, kde_pdf_2d
from .style import (
    AXIS_TEXT,
    COLORS,
    FONT_PX,
    _base_layout,
    _layout,
    class_symbol,
    escape_text,
    wrap_lines,
)

__all__ = ["class_balance", "density_1d", "density_2d"]


def class_balance(n_pos: int, n_neg: int, pos_name: str = "+", neg_name: str = "-") -> go.Figure:
    """The two classes' shares of the rows, one labelled bar per class.

    Parameters
    ----------
    n_pos, n_neg : int
        Rows of class ``+`` and of class ``-``.
    pos_name, neg_name : str
        Class labels (escaped here).

    Returns
    -------
    Figure
        One bar trace, class ``+`` first (on top), whose ``x`` are the shares in %; above each
        bar a note "class: rows (share)"; ``layout.meta``: ``kind``, ``n_pos``, ``n_neg``.

    Examples
    --------
    >>> fig = class_balance(30, 10)
    >>> fig.data[0].x  # shares in %, class + first
    (75.0, 25.0)
    >>> [note.text for note in fig.layout.annotations]
    ['+ +: 30 (75%)', '− -: 10 (25%)']
    >>> fig.layout.meta["n_pos"], fig.layout.meta["n_neg"]
    (30, 10)
    """
    return _share_bars(
        [f"+ {pos_name}", f"− {neg_name}"],
        [int(n_pos), int(n_neg)],
        [COLORS["+"], COLORS["-"]],
        meta={"kind": "class_balance", "n_pos": int(n_pos), "n_neg": int(n_neg)},
    )


#: A class-share note's line: about the ~290 px of the Data page's column at 1024 px with the
#: sidebar open, at 14 px.
SHARE_LINE_CHARS = 36
#: At most this many lines per note; a longer name ends in "…" (the whole name is in the hover).
SHARE_MAX_LINES = 3


def _share_bars(names, counts, colors, meta) -> go.Figure:
    """Every class's share of the rows as a horizontal bar, top to bottom in class order, each
    under its note (the class, its rows and their share, wrapped on lines of
    :data:`SHARE_LINE_CHARS`; the whole name in the hover), on a labelled 0-100% axis.  The notes are written above the bars, not as axis
    ticks, so the bars keep the column's whole width (the Data page's column is about 300 px
    wide at 1024 px with the sidebar open).  A plot, not a strip: at least 200 px of plot area
    whatever K (H39 found a 178 px strip with an unlabelled axis)."""
    total = max(sum(counts), 1)
    shares = [100.0 * n / total for n in counts]
    k = len(counts)
    # "name: rows (share)": whole in the hover, wrapped in the note (not cut at a fixed length:
    # two long names with a common start stayed apart only wrapped, H41)
    texts = [f"{name}: {n} ({s:.0f}%)" for name, n, s in zip(names, counts, shares, strict=True)]
    notes = ["<br>".join(wrap_lines(t, SHARE_LINE_CHARS, SHARE_MAX_LINES)) for t in texts]
    # every row (y from i - 0.5 to i + 0.5) holds its note's lines (19 px each) above a 24 px
    # bar, in pixels, whatever the longest note
    lines = max(1 + t.count("<br>") for t in notes) if notes else 1
    row_px = 19 * lines + 38
    bar_y = [i + 0.5 - 18 / row_px for i in range(k)]  # the bar in its row's lower part
    bar = go.Bar(
        x=shares,
        y=bar_y,
        width=24 / row_px,
        orientation="h",
        marker_color=list(colors),
        customdata=[escape_text(t) for t in texts],
        # the name through customdata, not the template (a label may contain "%{...}")
        hovertemplate="%{customdata}<extra></extra>",
        showlegend=False,
    )
    annotations = [
        {
            "x": 0,
            "y": y - 14 / row_px,  # 2 px above the bar's top
            "xref": "x",
            "yref": "y",
            "xanchor": "left",
            "yanchor": "bottom",
            "align": "left",
            "showarrow": False,
            "text": text,
            "font": {"size": FONT_PX, "color": AXIS_TEXT},
        }
        for y, text in zip(bar_y, notes, strict=True)
    ]
    layout = _layout(
        height=max(300, 90 + row_px * k),
        meta=meta,
        # room right of the axis for the "100" tick's second half (it was dropped at 10 px)
        margin={"l": 10, "r": 24, "t": 10, "b": 10},
        annotations=annotations,
        # a full scale under the bars (plotly's own ticks left a lone "50" at 1024 px, H30)
        xaxis={
            "range": [0, 100],
            "tickvals": [0, 25, 50, 75, 100],
            "title": {"text": "share of the rows (%)"},
            "fixedrange": True,
        },
        yaxis={"range": [k - 0.5, -0.5], "visible": False, "fixedrange": True},
    )
    return go.Figure(data=[bar], layout=layout)


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

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = np.r_[rng.normal(0, 1, 20), rng.normal(2, 1, 20)]
    >>> y01 = np.r_[np.zeros(20), np.ones(20)]
    >>> fig = density_1d(x, y01, [0.5, 0.5], feature="x1")
    >>> [trace.type for trace in fig.data]
    ['histogram', 'scatter', 'scatter', 'histogram', 'scatter', 'scatter']
    >>> fig.data[1].name
    'KDE +'
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
    fig.update_yaxes(title_text="density", row=1, col=1)
    fig.update_yaxes(visible=False, range=[-0.7, 1.7], row=2, col=1)
    fig.update_xaxes(title_text=escape_text(feature), row=2, col=1)
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
            "symbol": class_symbol(c, 2),
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

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = np.r_[rng.normal(0, 1, 20), rng.normal(2, 1, 20)]
    >>> y01 = np.r_[np.zeros(20), np.ones(20)]
    >>> fig = density_2d(x, x[::-1], y01, [0.5, 0.5], [0.5, 0.5], feature_a="a", feature_b="b")
    >>> [trace.type for trace in fig.data]
    ['contour', 'scatter', 'contour', 'scatter']
    >>> fig.data[0].name
    'KDE +'
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
    fig.update_xaxes(title_text=escape_text(feature_a))
    fig.update_yaxes(title_text=escape_text(feature_b))
    return _base_layout(
        fig,
        height=520,
        meta={
            "kind": "density_2d",
            "bandwidth_neg": [float(v) for v in hs[0]],
            "bandwidth_pos": [float(v) for v in hs[1]],
        },
    )
