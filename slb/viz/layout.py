"""Layout algorithms of the figures (numpy, scipy and networkx only, no plotly): the clustered
feature order of a dependence matrix, heatmap cell sizes and outlines, and the node positions
of the pair graph and of TAN's trees.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

__all__ = [
    "cluster_order",
    "MAX_LABELLED",
    "heatmap_cell_px",
    "kept_outline",
    "heatmap_cell_pairs",
    "pair_graph_layout",
    "structure_layout",
    "tree_layout",
    "place_labels",
    "text_box_px",
    "box_overlap",
]


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

    Examples
    --------
    >>> import numpy as np
    >>> S = np.array([[np.nan, 0.9, 0.1], [0.9, np.nan, 0.2], [0.1, 0.2, np.nan]])
    >>> cluster_order(S).tolist()  # features 0 and 1 (strongly dependent) are neighbours
    [2, 1, 0]
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


#: Smallest side of a heatmap's matrix in pixels (the plot area of the projector rule, 260 px,
#: with a little room).
MIN_MATRIX_PX = 265


def heatmap_cell_px(d: int) -> int:
    """Side of one heatmap cell in pixels, so that the matrix is about 300-380 px wide (half a
    1440 px screen beside its labels and colour bar); at least 6 px, at most 28 px, except that
    a matrix of few features is never under :data:`MIN_MATRIX_PX` (a projector's smallest
    readable plot: four features drew a 112 px matrix).

    Examples
    --------
    >>> heatmap_cell_px(10), heatmap_cell_px(100), heatmap_cell_px(4)
    (28, 6, 67)
    """
    d = max(int(d), 1)
    room = 300 if d <= MAX_LABELLED else 380
    return int(max(min(28, max(6, room // d)), -(-MIN_MATRIX_PX // d)))


def heatmap_cell_pairs(order) -> np.ndarray:
    """The feature pair of each off-diagonal heatmap cell, row by row in display order.

    Parameters
    ----------
    order : array-like of int, shape (d,)
        The heatmap's display order of the features.

    Returns
    -------
    pairs : ndarray of int, shape (d * (d - 1), 2)
        ``(row feature, column feature)`` in the original indices, one per point of the
        heatmap's clickable ``"cells"`` trace.

    Examples
    --------
    >>> heatmap_cell_pairs([1, 0]).tolist()
    [[1, 0], [0, 1]]
    """
    order = np.asarray(order, dtype=int)
    d = order.size
    r, c = np.nonzero(~np.eye(d, dtype=bool))
    return np.column_stack([order[r], order[c]]).astype(int)


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

    Examples
    --------
    >>> import numpy as np
    >>> kept = np.zeros((3, 3), dtype=bool)
    >>> kept[0, 2] = kept[2, 0] = True
    >>> shape, n = kept_outline(kept, [0, 1, 2], 3)
    >>> shape["path"], n
    ('M1.5,-0.5 H2.5 V0.5 H1.5 Z', 1)
    >>> kept_outline(None, [0, 1, 2], 3)
    (None, 0)
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

    Examples
    --------
    >>> import numpy as np
    >>> pairs = np.array([[0, 1], [0, 2], [1, 2]])
    >>> pos = pair_graph_layout(3, pairs, np.array([0.9, 0.1, 0.2]), seed=0)
    >>> pos.shape
    (3, 2)
    >>> dist = lambda i, j: float(np.linalg.norm(pos[i] - pos[j]))
    >>> dist(0, 1) < dist(0, 2)  # the strongest pair is drawn closest
    True
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


def structure_layout(n_features: int, edges, *, seed: int = 0) -> np.ndarray:
    """Node positions for a known sparse structure (a network's edges), every node in view.

    A force layout of the edges alone flings a node without edges far from the rest (spring
    layouts repel unconnected parts), squeezing the others into a corner with overlapping
    labels.  Here every pair gets a weak spring (a tenth of an edge's dependence in
    :func:`pair_graph_layout`, whose springs are its square: 1 %), so the graph is one piece:
    edges stay short and lone nodes stay near.

    Parameters
    ----------
    n_features : int
    edges : array-like of shape (E, 2)
        The structure's edges (undirected; duplicates ignored).
    seed : int

    Returns
    -------
    pos : ndarray of shape (n_features, 2)

    Examples
    --------
    >>> import numpy as np
    >>> pos = structure_layout(6, [(0, 1), (1, 2), (3, 4)])  # node 5 has no edge
    >>> r = np.linalg.norm(pos - np.median(pos, axis=0), axis=1)
    >>> bool(r[5] < 2 * np.median(r))  # in view, not flung away
    True
    >>> dist = lambda i, j: float(np.linalg.norm(pos[i] - pos[j]))
    >>> dist(0, 1) < dist(0, 5) and dist(3, 4) < dist(3, 5)  # edges drawn short
    True
    """
    from .._utils import all_pairs

    pairs = all_pairs(n_features)
    edge = {tuple(sorted(map(int, e))) for e in np.asarray(edges, dtype=int).reshape(-1, 2)}
    w = np.array([1.0 if (int(i), int(j)) in edge else 0.1 for i, j in pairs])
    return pair_graph_layout(n_features, pairs, w, seed=seed)


def _width_bins(s, k: int) -> np.ndarray:
    """Width class (0..3) of each edge: the quartiles of its strength ``s`` (2 if under 4 edges)."""
    if not k:
        return np.zeros(0, dtype=int)
    edges = np.quantile(s, [0.25, 0.5, 0.75]) if k >= 4 else np.array([np.inf] * 3)
    wbin = np.searchsorted(edges, s, side="right")
    return np.clip(wbin, 0, 3) if k >= 4 else np.full(k, 2)


#: Average glyph width of a sans-serif font, as a share of its size (text box estimates).
GLYPH_WIDTH = 0.62

#: Where a label may go around its node, tried in this order: plotly ``textposition``, the box
#: centre's offset in label widths/heights and in marker radii.
_PLACES = (
    ("top center", (0.0, 0.5), (0.0, 1.0)),
    ("bottom center", (0.0, -0.5), (0.0, -1.0)),
    ("middle right", (0.5, 0.0), (1.0, 0.0)),
    ("middle left", (-0.5, 0.0), (-1.0, 0.0)),
    ("top right", (0.5, 0.5), (0.7, 0.7)),
    ("top left", (-0.5, 0.5), (-0.7, 0.7)),
)


def text_box_px(text: str, font_px: float = 14.0) -> tuple[float, float]:
    """Estimated ``(width, height)`` in pixels of one line of plain ``text`` at ``font_px``.

    Examples
    --------
    >>> text_box_px("band_12")
    (64.76, 18.2)
    """
    return (round(len(str(text)) * GLYPH_WIDTH * font_px + 4.0, 2), round(1.3 * font_px, 2))


def place_labels(
    pos,
    texts,
    priority,
    *,
    plot_px: tuple[float, float] = (300.0, 300.0),
    font_px: float = 14.0,
    marker_px=10.0,
    limit: int | None = None,
    margin: float = 0.06,
    segments=None,
) -> tuple[dict, tuple, tuple]:
    """Greedy placement of node labels that do not overlap and stay inside the plot.

    The nodes are tried in ``priority`` order; each label takes, of the places around its node
    (above, below, right, left, diagonally) whose estimated box (:func:`text_box_px`) overlaps no
    label placed before and lies inside the axis ranges returned, the one that covers the
    fewest other nodes' markers and crosses the fewest ``segments`` (the graph's edges; ties:
    the first in that order); a label with no such place is left to the hover.  The axes keep
    equal scales (one data unit is as many pixels in ``x`` as in ``y``), as the graph figures
    draw them.

    Parameters
    ----------
    pos : ndarray of shape (n, 2)
        Node positions (data units).
    texts : sequence of str
        The label of each node (plain text: its length sets the box).
    priority : sequence of int
        The nodes that may be labelled, most important first.
    plot_px : (float, float)
        The smallest plot area (width, height) the figure is drawn at, in pixels.
    font_px : float
    marker_px : float or array-like of shape (n,)
        Marker diameter (of every node, or of each); a label starts beside its marker.
    limit : int or None
        Most labels placed.
    margin : float
        Room around the nodes (share of the larger span) added to the ranges; 2.5 and 5 times
        as much when some labels fit nowhere with it (the ranges of the pass that placed the
        most are returned).
    segments : array-like of shape (m, 4) or None
        Lines drawn between the nodes, ``(x0, y0, x1, y1)`` in data units: a label avoids
        crossing them where it can (a label over an edge was hard to read, H33).

    Returns
    -------
    places : dict
        Node -> plotly ``textposition`` of each labelled node.
    x_range, y_range : tuple of float
        Axis ranges that hold every node and every placed label.

    Examples
    --------
    >>> import numpy as np
    >>> pos = np.array([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [1.0, 1.0]])
    >>> places, _, _ = place_labels(pos, ["alpha", "beta", "gamma", "delta"], range(4))
    >>> places  # three nodes on one spot: two names fit, the hover names gamma
    {0: 'top center', 1: 'bottom center', 3: 'top center'}
    >>> square = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> place_labels(square, ["a", "b", "c", "d"], range(4))[0]
    {0: 'top center', 1: 'top center', 2: 'bottom center', 3: 'bottom center'}
    >>> sides = [[0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 1.0, 1.0]]  # edges a-c and b-d: beside them
    >>> place_labels(square, ["a", "b", "c", "d"], range(4), segments=sides)[0]
    {0: 'middle right', 1: 'middle left', 2: 'middle right', 3: 'middle left'}
    """
    P = np.asarray(pos, dtype=float).reshape(-1, 2)
    if not P.shape[0]:
        return {}, (-1.0, 1.0), (-1.0, 1.0)
    radius = np.broadcast_to(np.asarray(marker_px, dtype=float), (P.shape[0],)) / 2.0 + 2.0
    seg = np.asarray(segments if segments is not None else [], dtype=float).reshape(-1, 4)
    priority = list(priority)
    wanted = len(priority) if limit is None else min(int(limit), len(priority))
    best = None
    # a label that fits nowhere at the given margin may fit with more room around the drawing
    # (a long name on a node at the edge: Wine's "color_intensity" was left to the hover, H33)
    for m in (margin, 2.5 * margin, 5.0 * margin):
        found = _place_once(P, texts, priority, plot_px, font_px, radius, limit, m, seg)
        if best is None or len(found[0]) > len(best[0]):
            best = found
        if len(best[0]) >= wanted:
            break
    return best


def _place_once(P, texts, priority, plot_px, font_px, radius, limit, margin, seg):
    """One greedy pass of :func:`place_labels` with ``margin`` around the nodes."""
    lo, hi = P.min(axis=0), P.max(axis=0)
    span = float(max((hi - lo).max(), 1e-9))
    pad = margin * span + 1e-9
    x0, x1 = lo[0] - pad, hi[0] + pad
    y0, y1 = lo[1] - pad, hi[1] + pad
    # data units per pixel: the axis that fills its side of the plot area limits the scale
    unit = max((x1 - x0) / plot_px[0], (y1 - y0) / plot_px[1])
    boxes, places = [], {}
    gap = 2.0 * unit  # between two labels
    for node in priority:
        r = radius[node] * unit
        if limit is not None and len(places) >= limit:
            break
        w, h = (v * unit for v in text_box_px(texts[node], font_px))
        best = None
        for name, (fx, fy), (mx, my) in _PLACES:
            cx, cy = P[node, 0] + fx * w + mx * r, P[node, 1] + fy * h + my * r
            box = (cx - w / 2 - gap, cy - h / 2 - gap, cx + w / 2 + gap, cy + h / 2 + gap)
            if box[0] < x0 or box[2] > x1 or box[1] < y0 or box[3] > y1:
                continue
            if any(box_overlap(box, other) for other in boxes):
                continue
            clutter = _markers_covered(box, P, radius * unit, node) + _segments_crossing(box, seg)
            if best is None or clutter < best[0]:
                best = (clutter, box, name)
            if clutter == 0:
                break
        if best is not None:
            boxes.append(best[1])
            places[int(node)] = best[2]
    return places, (x0, x1), (y0, y1)


def _markers_covered(box, P, radius, node) -> int:
    """How many nodes other than ``node`` have their marker (discs of ``radius``) in ``box``."""
    near_x = np.clip(P[:, 0], box[0], box[2]) - P[:, 0]
    near_y = np.clip(P[:, 1], box[1], box[3]) - P[:, 1]
    inside = near_x**2 + near_y**2 < radius**2
    inside[node] = False
    return int(inside.sum())


def _segments_crossing(box, seg) -> int:
    """How many of the segments ``seg`` (rows ``x0, y0, x1, y1``) pass through ``box``
    (Liang-Barsky clipping).

    Examples
    --------
    >>> import numpy as np
    >>> seg = np.array([[-1.0, 0.5, 2.0, 0.5], [-1.0, 2.0, 2.0, 3.0], [0.5, 0.5, 0.6, 0.6]])
    >>> _segments_crossing((0.0, 0.0, 1.0, 1.0), seg)  # across, above, inside
    2
    """
    if not seg.shape[0]:
        return 0
    d = seg[:, 2:] - seg[:, :2]
    p = np.stack([-d[:, 0], d[:, 0], -d[:, 1], d[:, 1]], axis=1)
    q = np.stack(
        [seg[:, 0] - box[0], box[2] - seg[:, 0], seg[:, 1] - box[1], box[3] - seg[:, 1]], axis=1
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = q / p
    outside = ((p == 0) & (q < 0)).any(axis=1)
    t0 = np.max(np.where(p < 0, ratio, 0.0), axis=1)
    t1 = np.min(np.where(p > 0, ratio, 1.0), axis=1)
    return int(((t0 < t1) & ~outside).sum())


def box_overlap(a, b) -> bool:
    """Whether the boxes ``(x0, y0, x1, y1)`` ``a`` and ``b`` overlap (touching is not).

    Examples
    --------
    >>> box_overlap((0, 0, 2, 1), (1, 0.5, 3, 2)), box_overlap((0, 0, 1, 1), (1, 0, 2, 1))
    (True, False)
    """
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


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

    Examples
    --------
    >>> pos = tree_layout(4, [(0, 1), (1, 2), (1, 3)])
    >>> (-pos[:, 1]).tolist()  # depths: node 1 (the centre) is the root
    [1.0, 0.0, 1.0, 1.0]
    >>> pos[:, 0].tolist()  # the root sits centred over its children 0, 2 and 3
    [0.0, 1.0, 1.0, 2.0]
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
