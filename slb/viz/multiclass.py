"""Figures for K > 2 classes (issue 25): one colour per class, one curve / contour per class.

The two-class figures of :mod:`slb.viz.figures` colour the classes ``+`` and ``−``; these take
``K`` class names (escaped here, like every text that may come from an uploaded table) and
colour class ``k`` with :func:`class_color` (Okabe-Ito, colour-blind safe).  Plotly only: no
Streamlit (the dashboard draws them).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..density.kde import kde_pdf_1d, kde_pdf_2d
from .density import _grid, _share_bars
from .evaluation import confusion_heatmap, styled_ticks, tick_lines
from .layout import place_labels
from .style import CLASS_SYMBOLS, FONT_PX, NODE_TEXT, _base_layout, escape_text, signed

__all__ = [
    "CLASS_COLORS",
    "REST_GREY",
    "class_balance_k",
    "class_color",
    "class_scores_figure",
    "confusion_figure_k",
    "density_1d_k",
    "density_2d_k",
    "pair_graph_k",
]

#: Okabe-Ito colours, class k gets ``CLASS_COLORS[k % len]`` (the first two are the + / −
#: colours of the two-class figures).
CLASS_COLORS = (
    "#0072B2",
    "#D55E00",
    "#009E73",
    "#CC79A7",
    "#E69F00",
    "#56B4E9",
    "#8C6D1F",
    "#000000",
)
#: The colour of what is not one class: "the rest" in a K-class waterfall (Explain).
REST_GREY = "#A1A1AA"


def class_color(k: int) -> str:
    """The colour of class ``k`` (0-based) in every K-class figure.

    Examples
    --------
    >>> class_color(0), class_color(1)
    ('#0072B2', '#D55E00')
    >>> class_color(len(CLASS_COLORS)) == class_color(0)  # the palette cycles
    True
    """
    return CLASS_COLORS[int(k) % len(CLASS_COLORS)]


def _lab(name) -> str:
    return escape_text(name)


def class_balance_k(counts: dict) -> go.Figure:
    """Every class's share of the rows, one labelled bar per class.

    Parameters
    ----------
    counts : dict
        Class name -> rows, in class order (top to bottom).

    Returns
    -------
    Figure
        One bar trace whose ``x`` are the shares in %; above each bar a note
        "class: rows (share)"; ``layout.meta``: ``kind="class_balance"``, ``counts``.

    Examples
    --------
    >>> fig = class_balance_k({"a": 2, "b": 6, "c": 2})
    >>> fig.data[0].x  # shares in %
    (20.0, 60.0, 20.0)
    >>> [note.text for note in fig.layout.annotations]
    ['a: 2 (20%)', 'b: 6 (60%)', 'c: 2 (20%)']
    >>> fig.layout.meta["counts"]
    [2, 6, 2]
    """
    items = [(str(k), int(v)) for k, v in counts.items()]
    return _share_bars(
        [name for name, _ in items],
        [n for _, n in items],
        [class_color(k) for k in range(len(items))],
        meta={"kind": "class_balance", "counts": [n for _, n in items]},
    )


def density_1d_k(
    x,
    y,
    bandwidths,
    class_names: Sequence[str],
    *,
    feature: str = "",
    n_grid: int = 256,
    nbins: int = 30,
) -> go.Figure:
    """One KDE curve per class over its normalised histogram.

    Parameters
    ----------
    x : array-like of shape (n,)
    y : array-like of shape (n,)
        Class index of every row (0 .. K-1).
    bandwidths : sequence of K floats
        Class k's bandwidth (``LogDensityTransformer.bandwidths_[:, feature]``).
    class_names : sequence of K str
    feature : str

    Returns
    -------
    Figure
        The curves are the traces named ``"KDE <class>"``; ``layout.meta``: ``kind``,
        ``n_classes``, ``bandwidths``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = np.r_[rng.normal(0, 1, 10), rng.normal(2, 1, 10), rng.normal(4, 1, 10)]
    >>> y = np.repeat([0, 1, 2], 10)
    >>> fig = density_1d_k(x, y, [0.5, 0.5, 0.5], ["a", "b", "c"], feature="x1")
    >>> [trace.name for trace in fig.data if trace.name.startswith("KDE")]
    ['KDE a', 'KDE b', 'KDE c']
    >>> fig.layout.meta["n_classes"]
    3
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y).astype(int)
    h = [float(b) for b in bandwidths]
    grid = _grid(x, n_grid, max(h))
    lo, hi = float(x.min()), float(x.max())
    size = (hi - lo) / nbins if hi > lo else 1.0
    fig = go.Figure()
    for k, name in enumerate(class_names):
        xc = x[y == k]
        lab, col = _lab(name), class_color(k)
        fig.add_trace(
            go.Histogram(
                x=xc,
                histnorm="probability density",
                name=f"histogram {lab}",
                marker_color=col,
                opacity=0.22,
                legendgroup=str(k),
                showlegend=False,
                xbins={"start": lo, "end": hi + size, "size": size},
                hovertemplate="%{x}<br>density %{y:.3g}<extra></extra>",
            )
        )
        dens = kde_pdf_1d(xc, grid, h[k]) if xc.size else np.zeros_like(grid)
        fig.add_trace(
            go.Scatter(
                x=grid,
                y=dens,
                mode="lines",
                name=f"KDE {lab}",
                line={"color": col, "width": 3},
                legendgroup=str(k),
                hovertemplate=f"class {lab}<br>x = %{{x:.4g}}<br>density %{{y:.4g}}<extra></extra>",
            )
        )
    fig.update_layout(barmode="overlay")
    fig.update_yaxes(title_text="density")
    fig.update_xaxes(title_text=escape_text(feature))
    return _base_layout(
        fig,
        height=440,
        meta={"kind": "density_1d", "n_classes": len(class_names), "bandwidths": h},
    )


def density_2d_k(
    xa,
    xb,
    y,
    bandwidths,
    class_names: Sequence[str],
    *,
    feature_a: str = "",
    feature_b: str = "",
    n_grid: int = 60,
) -> go.Figure:
    """One KDE contour set per class (product Gaussian kernel) over the scatter plot.

    Parameters
    ----------
    xa, xb : array-like of shape (n,)
    y : array-like of shape (n,)
        Class index of every row.
    bandwidths : array-like of shape (K, 2)
        Class k's pair bandwidths ``(h_a, h_b)``.
    class_names : sequence of K str

    Returns
    -------
    Figure
        Contour traces named ``"KDE <class>"``; ``layout.meta``: ``kind``, ``n_classes``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = np.r_[rng.normal(0, 1, 10), rng.normal(2, 1, 10), rng.normal(4, 1, 10)]
    >>> y = np.repeat([0, 1, 2], 10)
    >>> fig = density_2d_k(x, x[::-1], y, [[0.5, 0.5]] * 3, ["a", "b", "c"])
    >>> [trace.name for trace in fig.data if trace.type == "contour"]
    ['KDE a', 'KDE b', 'KDE c']
    """
    xa = np.asarray(xa, dtype=float)
    xb = np.asarray(xb, dtype=float)
    y = np.asarray(y).astype(int)
    hs = np.asarray(bandwidths, dtype=float).reshape(len(class_names), 2)
    ga = _grid(xa, n_grid, float(hs[:, 0].max()))
    gb = _grid(xb, n_grid, float(hs[:, 1].max()))
    A, B = np.meshgrid(ga, gb)
    E = np.column_stack([A.ravel(), B.ravel()])
    fig = go.Figure()
    for k, name in enumerate(class_names):
        m = y == k
        lab, col = _lab(name), class_color(k)
        Z = kde_pdf_2d(np.column_stack([xa[m], xb[m]]), E, hs[k]).reshape(A.shape)
        fig.add_trace(
            go.Contour(
                x=ga,
                y=gb,
                z=Z,
                name=f"KDE {lab}",
                contours={"coloring": "lines", "showlabels": False},
                line={"width": 2},
                colorscale=[[0, col], [1, col]],
                showscale=False,
                ncontours=7,
                legendgroup=str(k),
                showlegend=True,
                hovertemplate=f"class {lab}<br>density %{{z:.3g}}<extra></extra>",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=xa[m],
                y=xb[m],
                mode="markers",
                name=f"class {lab}",
                marker={
                    "color": col,
                    "size": 6,
                    "opacity": 0.6,
                    "symbol": CLASS_SYMBOLS[k % len(CLASS_SYMBOLS)],
                },
                legendgroup=str(k),
                hovertemplate="(%{x:.4g}, %{y:.4g})<extra></extra>",
            )
        )
    fig.update_xaxes(title_text=escape_text(feature_a))
    fig.update_yaxes(title_text=escape_text(feature_b))
    return _base_layout(fig, height=520, meta={"kind": "density_2d", "n_classes": len(class_names)})


def pair_graph_k(
    names: Sequence[str],
    pairs,
    stat,
    kept,
    positions,
    class_names: Sequence[str],
    *,
    show: int | None = None,
    measure: str = "hsic",
) -> go.Figure:
    """The kept pairs as a graph: one class's edges (``show=k``) or the union, coloured by class.

    Parameters
    ----------
    names : sequence of str
        Feature names (nodes).
    pairs : ndarray of shape (P, 2)
    stat : ndarray of shape (K, P)
        Each class's dependence of each pair.
    kept : ndarray of bool, shape (K, P)
        Whether class k's term of the pair is kept (SLB's pair rule at λ).
    positions : ndarray of shape (d, 2)
        Node positions (they do not depend on λ or on the class shown).
    class_names : sequence of K str
    show : int or None
        The class whose edges are drawn; None: every class's (side by side when several
        classes keep the same pair).

    Returns
    -------
    Figure
        One edge trace per class drawn, named ``"edges <class>"`` (``meta`` of the layout:
        ``kind="pair_graph_k"``, ``n_edges`` per class drawn, keyed by the escaped class
        name), and the nodes (``"features"``).

    Examples
    --------
    >>> import numpy as np
    >>> pos = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, 1.0]])
    >>> pairs = np.array([[0, 1], [0, 2], [1, 2]])
    >>> stat = np.array([[0.9, 0.1, 0.1], [0.1, 0.8, 0.1]])  # class a: pair (0, 1); b: (0, 2)
    >>> fig = pair_graph_k(["u", "v", "w"], pairs, stat, stat > 0.5, pos, ["a", "b"])
    >>> fig.layout.meta["n_edges"]
    {'a': 1, 'b': 1}
    >>> fig = pair_graph_k(["u", "v", "w"], pairs, stat, stat > 0.5, pos, ["a", "b"], show=1)
    >>> fig.layout.meta["n_edges"]  # class b's edges only
    {'b': 1}
    """
    P = np.asarray(positions, dtype=float)
    pairs = np.asarray(pairs, dtype=int).reshape(-1, 2)
    stat = np.asarray(stat, dtype=float)
    kept = np.asarray(kept, dtype=bool)
    K = len(class_names)
    classes = range(K) if show is None else [int(show)]
    top = float(np.nanmax(stat)) if stat.size and np.isfinite(stat).any() else 1.0
    top = top if top > 0 else 1.0
    span = float(np.ptp(P)) if P.size else 1.0
    offset = 0.006 * (span or 1.0)
    fig = go.Figure()
    n_edges = {}
    for k in classes:
        idx = np.flatnonzero(kept[k]) if kept.size else np.zeros(0, int)
        n_edges[_lab(class_names[k])] = int(idx.size)
        xs, ys = [], []
        for p in idx:
            i, j = pairs[p]
            d = P[j] - P[i]
            norm = np.hypot(*d) or 1.0
            shift = (k - (K - 1) / 2) * offset if show is None else 0.0
            o = np.array([-d[1], d[0]]) / norm * shift
            xs += [P[i, 0] + o[0], P[j, 0] + o[0], None]
            ys += [P[i, 1] + o[1], P[j, 1] + o[1], None]
        mean = float(np.nanmean(stat[k, idx])) if idx.size else 0.0
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines",
                name=f"edges {_lab(class_names[k])}",
                line={"color": class_color(k), "width": 1.5 + 3.0 * mean / top},
                hoverinfo="skip",
            )
        )
    label = {"hsic": "HSIC", "pearson": "|r|", "spearman": "|ρ|"}.get(measure, measure)
    esc = [escape_text(n) for n in names]
    deg = np.zeros(len(names), int)
    for k in classes:
        for p in np.flatnonzero(kept[k]) if kept.size else []:
            deg[pairs[p]] += 1
    drawn = pairs[kept[list(classes)].any(axis=0)] if kept.size else np.zeros((0, 2), int)
    hover = [f"{esc[i]}<br>{deg[i]} kept pair term(s)" for i in range(len(names))]
    few = len(names) <= 30
    # labels placed where they overlap no other and fit in the axes (their ranges grown to
    # hold them), as on the two-class graph: "top center" cut long names at the edge (H30)
    places, xr, yr = (
        place_labels(
            P,
            list(names),
            range(len(names)),
            font_px=FONT_PX,
            marker_px=9.0,
            segments=np.hstack([P[drawn[:, 0]], P[drawn[:, 1]]]),
        )
        if few and P.size
        else ({}, None, None)
    )
    fig.add_trace(
        go.Scatter(
            x=P[:, 0] if P.size else [],
            y=P[:, 1] if P.size else [],
            mode="markers+text" if few else "markers",
            text=[esc[i] if i in places else "" for i in range(len(names))] if few else None,
            textposition=[places.get(i, "top center") for i in range(len(names))],
            textfont=NODE_TEXT,
            name="features",
            marker={"size": 9, "color": "#6B7280"},
            hovertext=hover,
            hoverinfo="text",
            showlegend=False,
        )
    )
    fig.update_xaxes(visible=False, range=list(xr) if xr is not None else None)
    fig.update_yaxes(visible=False, scaleanchor="x", range=list(yr) if yr is not None else None)
    return _base_layout(
        fig,
        height=420,
        meta={"kind": "pair_graph_k", "n_edges": n_edges, "measure": label},
    )


def confusion_figure_k(
    counts: pd.DataFrame, *, title: str | None = None, height: int | None = None
) -> go.Figure:
    """A K x K confusion matrix: counts and row percentages (share of the true class).

    Parameters
    ----------
    counts : DataFrame
        Rows the true class, columns the predicted class, the same K classes in the same order
        (:func:`slb.evaluation.predictions.confusion_matrices`).
    title : str or None
        Escaped here.

    Returns
    -------
    Figure
        ``layout.meta``: ``kind="confusion"``, ``counts`` (K x K, true rows), ``total``,
        ``classes`` (escaped names).

    Examples
    --------
    >>> import pandas as pd
    >>> counts = pd.DataFrame([[8, 2], [1, 9]], index=["a", "b"], columns=["a", "b"])
    >>> fig = confusion_figure_k(counts)
    >>> fig.data[0].text  # counts and the share of the true class (row)
    (['8<br>80.0%', '2<br>20.0%'], ['1<br>10.0%', '9<br>90.0%'])
    >>> fig.layout.meta["total"]
    20
    """
    c = np.asarray(counts, dtype=int)
    K = c.shape[0]
    names = [escape_text(v) for v in counts.index]
    lines = [tick_lines(v) for v in counts.index]
    ticks = styled_ticks(
        lines, [(f'<span style="color:{class_color(k)}"><b>', "</b></span>") for k in range(K)]
    )
    totals = c.sum(axis=1, keepdims=True)
    pct = np.divide(100.0 * c, totals, out=np.zeros(c.shape), where=totals > 0)
    text = [[f"{c[i, j]}<br>{pct[i, j]:.1f}%" for j in range(K)] for i in range(K)]
    fig = confusion_heatmap(pct, ticks, text, "%{text} of the row")
    meta = {"kind": "confusion", "counts": c.tolist(), "total": int(c.sum()), "classes": names}
    return _base_layout(
        fig,
        title=escape_text(title) if title else None,
        # room for the names' lines under the columns (19 px each)
        height=height or 160 + 60 * K + 19 * (max(map(len, lines)) - 1),
        meta=meta,
    )


def class_scores_figure(scores, class_names: Sequence[str], *, title: str | None = None):
    """Every class's decision value for one sample, the winner marked.

    Parameters
    ----------
    scores : array-like of shape (K,)
    class_names : sequence of K str

    Returns
    -------
    Figure
        One horizontal bar per class; ``layout.meta``: ``kind="class_scores"``, ``winner``
        (index), ``margin`` (winner minus runner-up).

    Examples
    --------
    >>> fig = class_scores_figure([0.2, -0.5, 0.7], ["a", "b", "c"])
    >>> fig.data[0].y  # the winner is starred
    ('a', 'b', '★ c')
    >>> fig.layout.meta["winner"], round(fig.layout.meta["margin"], 3)
    (2, 0.5)
    >>> fig.data[0].textangle  # horizontal values, never turned to fit a thin bar
    0
    """
    s = np.asarray(scores, dtype=float)
    order = np.argsort(-s, kind="stable")
    win = int(order[0])
    margin = float(s[order[0]] - s[order[1]]) if s.size > 1 else float("nan")
    names = [escape_text(n) for n in class_names]
    fig = go.Figure(
        go.Bar(
            x=s,
            y=[f"{'★ ' if k == win else ''}{names[k]}" for k in range(len(s))],
            orientation="h",
            marker_color=[class_color(k) for k in range(len(s))],
            marker_line={"width": [3 if k == win else 0 for k in range(len(s))], "color": "#111"},
            text=[signed(v) for v in s],
            textposition="auto",
            textangle=0,  # inside when it fits, else beside the bar: never turned 90° (H47)
            cliponaxis=False,
            textfont={"size": FONT_PX},
            hovertemplate="%{y}: %{x:+.4f}<extra></extra>",
        )
    )
    # names as categories: plotly reads labels "1", "2" as numbers and drew a numeric axis on
    # which the winner "★ 0" had no place (H43, class labels 0/1/2)
    fig.update_yaxes(type="category", autorange="reversed")
    fig.update_xaxes(title_text="decision value (multinomial score)", zeroline=True)
    return _base_layout(
        fig,
        title=escape_text(title) if title else None,
        height=max(300, 120 + 40 * len(s)),  # a plot area of at least 200 px (1024 x 768)
        meta={"kind": "class_scores", "winner": win, "margin": margin},
    )
