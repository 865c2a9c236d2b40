"""Confusion-matrix cells that can be clicked (issue 28: click a cell, list its rows).

A click on a plotly heatmap trace reaches neither plotly's click-to-select nor Streamlit's
``on_select`` (see :func:`slb.viz.dependence.dependence_heatmap`, which solves it the same way),
so :func:`clickable_cells` lays one invisible square scatter point on every cell of a confusion
heatmap (:func:`slb.viz.evaluation.confusion_figure`, ``confusion_figure_k``): the point takes
the hover and the click, and :func:`clicked_cell` reads the (row, column) of a Streamlit
selection back from the figure's ``layout.meta["cells"]``.
"""

from __future__ import annotations

import plotly.graph_objects as go

__all__ = ["CELLS_TRACE", "clickable_cells", "clicked_cell"]

#: Name of the trace of click targets.
CELLS_TRACE = "cells"


def clickable_cells(fig: go.Figure, *, action: str = "click: list its rows") -> go.Figure:
    """A copy of a confusion heatmap whose every cell is a click target.

    Parameters
    ----------
    fig : Figure
        A figure whose first trace is the confusion heatmap (``x`` and ``y`` its drawn column
        and row labels, ``text`` its cell texts).
    action : str
        Added to each cell's hover (plain text, escaped by the caller's labels).

    Returns
    -------
    Figure
        The heatmap (its hover moved to the targets) and a scatter trace named
        :data:`CELLS_TRACE` with one invisible point per cell, row by row in the drawn order;
        ``layout.meta["cells"]``: the ``[row, column]`` of each point;
        ``clickmode="event+select"`` and no drag (a click selects one cell).

    Examples
    --------
    >>> import pandas as pd
    >>> from slb.viz.cells import clickable_cells
    >>> from slb.viz.evaluation import confusion_figure
    >>> counts = pd.DataFrame([[9, 1], [2, 8]])
    >>> fig = clickable_cells(confusion_figure(counts, pos_name="sick", neg_name="well"))
    >>> fig.data[1].name, fig.layout.meta["cells"]
    ('cells', [[0, 0], [0, 1], [1, 0], [1, 1]])
    >>> fig.layout.meta["counts"]  # the heatmap's own meta is kept: [[TP, FN], [FP, TN]]
    [[8, 2], [1, 9]]
    """
    out = go.Figure(fig)
    heat = out.data[0]
    if heat.type != "heatmap":
        raise ValueError(f"The first trace must be the confusion heatmap, got {heat.type!r}.")
    cols, rows = list(heat.x), list(heat.y)
    text = [list(r) for r in heat.text] if heat.text is not None else None
    cells = [[i, j] for i in range(len(rows)) for j in range(len(cols))]
    hover = (heat.hovertemplate or "true %{y}<br>predicted %{x}").replace("<extra></extra>", "")
    out.add_trace(
        go.Scatter(
            x=[cols[j] for _, j in cells],
            y=[rows[i] for i, _ in cells],
            text=None if text is None else [text[i][j] for i, j in cells],
            customdata=cells,
            mode="markers",
            marker={"symbol": "square", "size": 40, "opacity": 0.0, "color": "#111827"},
            selected={"marker": {"opacity": 0.0}},
            unselected={"marker": {"opacity": 0.0}},
            hovertemplate=f"{hover}<br>{action}<extra></extra>",
            name=CELLS_TRACE,
            showlegend=False,
        )
    )
    heat.hoverinfo = "skip"
    heat.hovertemplate = None
    meta = dict(out.layout.meta or {})
    meta["cells"] = cells
    out.update_layout(meta=meta, clickmode="event+select", dragmode=False)
    return out


def clicked_cell(selection, fig) -> tuple[int, int] | None:
    """The ``(row, column)`` (drawn order) of the cell a Streamlit plotly selection picked.

    Parameters
    ----------
    selection : dict or None
        ``st.plotly_chart(..., on_select=...)``'s event (``{"selection": {"points": [...]}}``)
        or its ``selection`` part; each point has ``curve_number`` and ``point_index``
        (``point_number`` in some versions).
    fig : Figure or dict
        The figure of :func:`clickable_cells` that was drawn.

    Returns
    -------
    (row, column) or None
        The first selected point of the cells trace; None when no cell is selected.

    Examples
    --------
    >>> import pandas as pd
    >>> from slb.viz.cells import clickable_cells, clicked_cell
    >>> from slb.viz.evaluation import confusion_figure
    >>> fig = clickable_cells(confusion_figure(pd.DataFrame([[9, 1], [2, 8]]),
    ...                                        pos_name="sick", neg_name="well"))
    >>> clicked_cell({"selection": {"points": [{"curve_number": 1, "point_index": 2}]}}, fig)
    (1, 0)
    >>> clicked_cell({"selection": {"points": []}}, fig) is None
    True
    """
    sel = dict(selection or {})
    points = dict(sel.get("selection", sel) or {}).get("points") or []
    data = fig["data"] if isinstance(fig, dict) else fig.data
    names = [t.get("name") if isinstance(t, dict) else t.name for t in data]
    if CELLS_TRACE not in names:
        return None
    trace = names.index(CELLS_TRACE)
    meta = (fig["layout"].get("meta") if isinstance(fig, dict) else fig.layout.meta) or {}
    cells = meta.get("cells", [])
    for p in points:
        k = p.get("point_index", p.get("point_number"))
        if p.get("curve_number") == trace and k is not None and 0 <= int(k) < len(cells):
            i, j = cells[int(k)]
            return int(i), int(j)
    return None
