"""The decision-surface figure: each classifier's regions over two features, the data on top.

One panel per classifier (side by side, or ``cols`` per row), sharing their axes: the region
of each class filled in that class's colour (a heatmap of the predicted class at every grid
node of :class:`slb.evaluation.surface.DecisionSurface`), the boundary between regions as a
dark line, and the rows of the data as markers (one colour and one symbol per class).  Text is
at least 14 px (ticks, legend, panel titles), for a projector.
"""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .style import CLASS_SYMBOLS, class_symbol

__all__ = ["CLASS_COLORS", "CLASS_SYMBOLS", "decision_surface_figure"]

#: Okabe-Ito colours per class.  Two classes: vermillion for class 0 (the negative class), blue
#: for class 1 (the positive class), as on the other pages.
CLASS_COLORS = ("#D55E00", "#0072B2", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
FONT_PX = 14
_FONT = {"family": "Inter, Segoe UI, Helvetica, Arial, sans-serif", "size": FONT_PX}


def _esc(text) -> str:
    return html.escape(str(text), quote=True)


def _tmpl(text) -> str:
    """User text inside a hover template: escaped, and ``%`` as an entity (so a name like
    ``%{x}`` is not substituted by plotly)."""
    return _esc(text).replace("%", "&#37;")


def _rgba(hex_color: str, alpha: float) -> str:
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def _colorscale(colors: list[str], alpha: float) -> list:
    """A stepped colorscale for the codes 0 .. K-1 (each code its own flat colour)."""
    k = len(colors)
    if k == 1:
        return [[0.0, _rgba(colors[0], alpha)], [1.0, _rgba(colors[0], alpha)]]
    scale = []
    for i, c in enumerate(colors):
        lo, hi = i / k, (i + 1) / k
        scale += [[lo, _rgba(c, alpha)], [hi, _rgba(c, alpha)]]
    return scale


def decision_surface_figure(
    surface,
    X=None,
    y=None,
    *,
    names=None,
    class_names=None,
    colors=None,
    cols: int | None = None,
    panel_height: int = 380,
    region_alpha: float = 0.28,
    max_points: int = 2000,
    title: str | None = None,
) -> go.Figure:
    """The decision regions of every classifier of ``surface``, with the data on top.

    Parameters
    ----------
    surface : slb.evaluation.surface.DecisionSurface
    X : DataFrame or None
        The rows drawn on top (their two surface features); None draws no data.
    y : array-like or None
        The class label of each row of ``X`` (labels of ``surface.classes``).
    names : list of str or None
        The classifiers to draw, in order (default: every one of ``surface``).
    class_names : sequence of str or None
        Display names of ``surface.classes`` (default: the labels as text).
    colors : sequence of str or None
        One ``#rrggbb`` colour per class (default: two classes :data:`CLASS_COLORS`, the
        negative class vermillion; more, the K-class figures' colours, class 0 blue, so that
        a colour keeps its marker symbol).
    cols : int or None
        Panels per row (default: all in one row).
    panel_height : int, default=380
        Height in pixels of one row of panels (plot area plus the panel title).
    region_alpha : float, default=0.28
        Opacity of the region fill.
    max_points : int, default=2000
        At most this many rows are drawn (an even subsample beyond).
    title : str or None

    Returns
    -------
    plotly.graph_objects.Figure
        ``layout.meta``: ``kind`` ("decision_surface"), ``classifiers``, ``features``,
        ``classes``, ``grid`` (``[ny, nx]``), ``held_from``, ``n_points``.

    Examples
    --------
    >>> from slb import KDENaiveBayes
    >>> from slb.data.toy import circles
    >>> from slb.evaluation.surface import decision_surface
    >>> from slb.viz.surface import decision_surface_figure
    >>> X, y = circles(n=100, noise=0.05, random_state=0)
    >>> s = decision_surface({"NB": KDENaiveBayes().fit(X, y)}, X, ["x1", "x2"], resolution=20)
    >>> fig = decision_surface_figure(s, X, y, class_names=["outer", "inner"])
    >>> fig.layout.meta["kind"], fig.layout.meta["grid"], [t.type for t in fig.data]
    ('decision_surface', [20, 20], ['heatmap', 'contour', 'scatter', 'scatter'])
    """
    names = list(surface.codes) if names is None else [str(n) for n in names]
    unknown = [n for n in names if n not in surface.codes]
    if unknown or not names:
        raise ValueError(f"No surface for {unknown or 'any classifier'}.")
    classes = np.asarray(surface.classes)
    k = len(classes)
    class_names = [str(c) for c in classes] if class_names is None else list(class_names)
    if len(class_names) != k:
        raise ValueError(f"class_names has {len(class_names)} names for {k} classes.")
    if colors is None:  # H55: K classes drew class 0 vermillion, the other figures blue
        from .multiclass import CLASS_COLORS as K_COLORS

        colors = CLASS_COLORS if k == 2 else [K_COLORS[j % len(K_COLORS)] for j in range(k)]
    colors = list(colors)
    if len(colors) < k:
        raise ValueError(f"{len(colors)} colours for {k} classes.")
    colors = colors[:k]
    cols = len(names) if cols is None else max(1, min(int(cols), len(names)))
    rows = -(-len(names) // cols)
    grid = surface.grid
    fx, fy = grid.features
    fig = make_subplots(
        rows=rows,
        cols=cols,
        shared_xaxes="all",
        shared_yaxes="all",
        subplot_titles=[_esc(n) for n in names],
        horizontal_spacing=0.06 if cols > 1 else 0.0,
        vertical_spacing=min(0.25, 90 / (panel_height * rows)) if rows > 1 else 0.0,
    )
    scale = _colorscale(colors, region_alpha)
    label_text = np.asarray([_esc(c) for c in class_names], dtype=object)
    for p, name in enumerate(names):
        r, c = divmod(p, cols)
        code = surface.codes[name]
        hover = label_text[code]
        fig.add_trace(
            go.Heatmap(
                x=grid.x,
                y=grid.y,
                z=code,
                zmin=-0.5,
                zmax=k - 0.5,
                colorscale=scale,
                showscale=False,
                customdata=hover,
                hovertemplate=f"{_tmpl(fx)} = %{{x:.3g}}<br>{_tmpl(fy)} = %{{y:.3g}}<br>"
                f"{_tmpl(name)} predicts %{{customdata}}<extra></extra>",
                name=f"{_esc(name)} regions",
                showlegend=False,
            ),
            row=r + 1,
            col=c + 1,
        )
        present = np.unique(code)
        # the boundary: the 0.5 contour of each class's indicator (two classes: one of them),
        # so the line between any two regions lies midway between their nodes, drawn once
        # over itself (a contour of the codes would draw two lines between classes 0 and 2)
        outlined = present[:1] if present.size == 2 else present if present.size > 2 else ()
        for kk in outlined:
            fig.add_trace(
                go.Contour(
                    x=grid.x,
                    y=grid.y,
                    z=(code == kk).astype(np.int8),
                    contours={"start": 0.5, "end": 0.5, "size": 1.0, "coloring": "none"},
                    line={"color": "#111827", "width": 2},
                    showscale=False,
                    hoverinfo="skip",
                    name=f"{_esc(name)} boundary",
                    showlegend=False,
                ),
                row=r + 1,
                col=c + 1,
            )
    n_points = 0
    if X is not None and y is not None:
        xs = np.asarray(X[fx], dtype=float)
        ys = np.asarray(X[fy], dtype=float)
        yy = np.asarray(y)
        if len(yy) != len(xs):
            raise ValueError(f"X has {len(xs)} rows but y has {len(yy)} labels.")
        keep = np.arange(len(xs))
        if len(keep) > max_points:
            keep = np.unique(np.linspace(0, len(xs) - 1, max_points).round().astype(int))
        n_points = int(len(keep))
        for p in range(len(names)):
            r, c = divmod(p, cols)
            for kk, cls in enumerate(classes):
                m = keep[yy[keep] == cls]
                fig.add_trace(
                    go.Scatter(
                        x=xs[m],
                        y=ys[m],
                        mode="markers",
                        name=label_text[kk],
                        legendgroup=f"class{kk}",
                        showlegend=p == 0,
                        # two classes: the positive one first, as the pages list them
                        legendrank=1000 - kk if k == 2 else 1000 + kk,
                        marker={
                            "color": colors[kk],
                            "symbol": class_symbol(kk, k),  # as the other pages
                            "size": 8,
                            "line": {"color": "white", "width": 1},
                        },
                        hovertemplate=f"{_tmpl(fx)} = %{{x:.3g}}<br>{_tmpl(fy)} = %{{y:.3g}}"
                        "<br>class %{meta}<extra></extra>",
                        meta=label_text[kk],
                    ),
                    row=r + 1,
                    col=c + 1,
                )
    x0, x1 = float(grid.x[0]), float(grid.x[-1])
    y0, y1 = float(grid.y[0]), float(grid.y[-1])
    tick = {"size": FONT_PX}
    # tick labels and the axis title under every panel: shared axes showed them under the
    # lowest panel only, about 1000 px below the first when the panels are stacked (H43)
    fig.update_xaxes(
        range=[x0, x1], tickfont=tick, showgrid=False, zeroline=False, showticklabels=True
    )
    fig.update_yaxes(range=[y0, y1], tickfont=tick, showgrid=False, zeroline=False)
    for p in range(len(names)):
        fig.update_xaxes(
            title={"text": _esc(fx), "font": {"size": FONT_PX}},
            row=p // cols + 1,
            col=p % cols + 1,
        )
    for r in range(rows):
        fig.update_yaxes(title={"text": _esc(fy), "font": {"size": FONT_PX}}, row=r + 1, col=1)
    for p in range(len(names), rows * cols):  # the empty cells of the last row
        fig.update_xaxes(visible=False, row=rows, col=p % cols + 1)
        fig.update_yaxes(visible=False, row=rows, col=p % cols + 1)
    fig.update_annotations(font={"size": FONT_PX + 2})  # the panel titles
    fig.update_layout(
        font=_FONT,
        height=int(panel_height * rows + 70),
        margin={"l": 10, "r": 10, "t": 80 if title else 60, "b": 10},
        title={"text": _esc(title), "x": 0.0, "xanchor": "left"} if title else None,
        legend={
            "orientation": "h",
            "yanchor": "bottom",
            "y": 1.0 + 40 / (panel_height * rows),
            "xanchor": "left",
            "x": 0,
            "font": {"size": FONT_PX},
            "title": {"text": "class ", "font": {"size": FONT_PX}},
        },
        hoverlabel={"align": "left", "font": {"size": FONT_PX}},
        plot_bgcolor="white",
        meta={
            "kind": "decision_surface",
            "classifiers": names,
            "features": [str(fx), str(fy)],
            "classes": [str(c) for c in class_names],
            "grid": [len(grid.y), len(grid.x)],
            "held_from": grid.held_from,
            "n_points": n_points,
        },
    )
    return fig
