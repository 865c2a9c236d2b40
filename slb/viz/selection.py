"""Which feature pair a click on a figure picks: the clickable trace of the dependence heatmap
and of the pair graph, and the pair ``(i, j)`` of each of its points.

The dashboard receives a clicked trace and point index from the browser; the pair comes from
:func:`clickable_pairs`, computed from the figure's ``layout.meta`` (the display order of the
heatmap, the pairs of the graph), so nothing has to decode plotly's serialised arrays.
"""

from __future__ import annotations

import numpy as np

from .layout import heatmap_cell_pairs

__all__ = ["clickable_pairs", "heatmap_cell_pairs"]

#: The clickable trace of each figure kind (its ``layout.meta["kind"]``).
CLICKABLE_TRACE = {"dependence_heatmap": "cells", "pair_graph": "pair hover"}


def _meta(fig) -> dict:
    layout = fig["layout"] if isinstance(fig, dict) else fig.layout
    meta = layout["meta"] if isinstance(fig, dict) else layout.meta
    return dict(meta or {})


def _trace_names(fig) -> list:
    data = fig["data"] if isinstance(fig, dict) else fig.data
    return [t["name"] if isinstance(t, dict) else t.name for t in data]


def clickable_pairs(fig) -> tuple[int | None, np.ndarray]:
    """The clickable trace of a dependence heatmap or pair graph and each point's feature pair.

    Parameters
    ----------
    fig : Figure or dict
        A figure of :func:`slb.viz.dependence.dependence_heatmap` or
        :func:`slb.viz.graphs.pair_graph` (or its ``to_dict()``).

    Returns
    -------
    trace : int or None
        Index of the clickable trace in ``fig.data`` (None: the figure has none).
    pairs : ndarray of int, shape (n_points, 2)
        The feature pair ``(i, j)`` (indices of the ``names`` the figure was built from) of each
        point of that trace, in the trace's point order.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.viz.figures import dependence_heatmap
    >>> S = np.array([[np.nan, 0.9, 0.1], [0.9, np.nan, 0.2], [0.1, 0.2, np.nan]])
    >>> fig = dependence_heatmap(S, S, ["a", "b", "c"], order=[2, 0, 1])
    >>> trace, pairs = clickable_pairs(fig)
    >>> fig.data[trace].name, pairs[:2].tolist()
    ('cells', [[2, 0], [2, 1]])
    """
    meta = _meta(fig)
    name = CLICKABLE_TRACE.get(meta.get("kind"))
    names = _trace_names(fig)
    if name is None or name not in names:
        return None, np.zeros((0, 2), dtype=int)
    if meta["kind"] == "dependence_heatmap":
        pairs = heatmap_cell_pairs(meta["order"])
    else:
        pairs = np.asarray(meta.get("pairs", []), dtype=int).reshape(-1, 2)
    return names.index(name), pairs
