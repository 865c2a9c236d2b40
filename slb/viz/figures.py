"""Plotly figure builders for the SLB Explorer dashboard (pure plotly, no streamlit).

Every figure of the dashboard is built in :mod:`slb.viz`, from numbers computed by the rest of
:mod:`slb`, so that tests can build and inspect the figures without a browser.  The builders
never mutate their inputs.  This module gathers their public names; the builders live in
modules of one concern each:

- :mod:`slb.viz.style`: colours, fonts, the shared layout, :func:`escape_text`;
- :mod:`slb.viz.layout`: layout algorithms (numpy, scipy and networkx only);
- :mod:`slb.viz.dependence`: the dependence heatmap and histogram;
- :mod:`slb.viz.graphs`: the pair graph and TAN's trees;
- :mod:`slb.viz.density`: the class balance and the per-class densities;
- :mod:`slb.viz.curves`: the BER bars and the BER curve;
- :mod:`slb.viz.model`: coefficients and contributions of a fitted model;
- :mod:`slb.viz.experiments`: learning curves, label noise, structure recovery;
- :mod:`slb.viz.selection`: the feature pair a click on the heatmap or pair graph picks.

Each builder stores a small machine-readable summary in ``fig.layout.meta`` (``kind`` and
counts) that tests and the dashboard can read back.
"""

from __future__ import annotations

from .curves import ber_bars, ber_curve
from .density import class_balance, density_1d, density_2d
from .dependence import dependence_heatmap, dependence_histogram, threshold_line
from .experiments import learning_curve_figure, network_graph, noise_figure, recovery_graph
from .graphs import pair_graph, tree_graph
from .layout import (
    MAX_LABELLED,
    cluster_order,
    heatmap_cell_pairs,
    heatmap_cell_px,
    kept_outline,
    pair_graph_layout,
    structure_layout,
    tree_layout,
)
from .model import (
    FIXED_WEIGHTS,
    coefficient_figure,
    contributions_figure,
    oracle_scale,
    pair_text,
    possessive,
    term_kind,
    term_text,
)
from .ratio import importance_figure, ratio_figure, ratio_form
from .selection import clickable_pairs
from .style import COLORS, escape_text

__all__ = [
    "COLORS",
    "escape_text",
    "class_balance",
    "cluster_order",
    "dependence_heatmap",
    "dependence_histogram",
    "pair_graph_layout",
    "structure_layout",
    "pair_graph",
    "tree_layout",
    "tree_graph",
    "density_1d",
    "density_2d",
    "ber_bars",
    "ber_curve",
    "term_kind",
    "term_text",
    "pair_text",
    "FIXED_WEIGHTS",
    "possessive",
    "oracle_scale",
    "coefficient_figure",
    "contributions_figure",
    "learning_curve_figure",
    "noise_figure",
    "network_graph",
    "recovery_graph",
    "MAX_LABELLED",
    "heatmap_cell_px",
    "kept_outline",
    "heatmap_cell_pairs",
    "threshold_line",
    "clickable_pairs",
    "ratio_form",
    "ratio_figure",
    "importance_figure",
]
