"""Step 2: estimate the per-class univariate and bivariate kernel densities (bandwidth rules, exact
and binned KDE) and turn them into log-density features.
"""

from .bandwidth import (
    BANDWIDTH_RULES,
    class_bandwidths,
    column_scales,
    hpi_diag,
    robust_scale,
    rule_bandwidth,
)
from .binned import (
    BinnedPairs,
    Grid,
    binned_pdf_1d,
    lagrange_weights,
)
from .features import (
    TRAINING_FEATURES,
    LogDensityTransformer,
    class_order,
    term_names,
)
from .kde import (
    KDE_BINNED_MIN_SAMPLES,
    KDE_GRID_MARGIN,
    KDE_GRID_RATIO,
    KDE_METHODS,
    ClassConditionalKDE,
    kde_pdf_1d,
    kde_pdf_2d,
    kernel_matrix,
)

__all__ = [
    "BANDWIDTH_RULES",
    "robust_scale",
    "column_scales",
    "hpi_diag",
    "rule_bandwidth",
    "class_bandwidths",
    "lagrange_weights",
    "Grid",
    "binned_pdf_1d",
    "BinnedPairs",
    "KDE_METHODS",
    "KDE_BINNED_MIN_SAMPLES",
    "KDE_GRID_RATIO",
    "KDE_GRID_MARGIN",
    "kernel_matrix",
    "kde_pdf_1d",
    "kde_pdf_2d",
    "ClassConditionalKDE",
    "TRAINING_FEATURES",
    "class_order",
    "term_names",
    "LogDensityTransformer",
]
