"""Steps 3-4: the linear SVM on the log-density features, the SLB family of classifiers built on
it, and the threshold path that selects the screening threshold and C by nested CV.
"""

from .classifier import (
    DEFAULT_CS,
    DEFAULT_FRACTIONS,
    ForestDensityClassifier,
    LUClassifier,
    SLBClassifier,
)
from .path import (
    CANDIDATE_MODES,
    FIXED_C,
    THREADED_MIN_ROWS,
    Screen,
    ThresholdPath,
    column_mask,
    fdr_selector,
    fixed_selector,
    fraction_selector,
    screen_pairs,
    threshold_selector,
)
from .svm import (
    FALLBACK_KERNEL_MAX_SAMPLES,
    FALLBACK_KERNEL_MIN_COLUMNS,
    GRAM_MAX_SAMPLES,
    TOL,
    WORKING_SET_MAX_SAMPLES,
    WorkingSetSVM,
    class_weights,
    fit_linear_svm,
    index_class_weight,
    nested_mask_predictions,
)
from .warm import WarmFolds

__all__ = [
    "GRAM_MAX_SAMPLES",
    "WORKING_SET_MAX_SAMPLES",
    "FALLBACK_KERNEL_MIN_COLUMNS",
    "FALLBACK_KERNEL_MAX_SAMPLES",
    "TOL",
    "index_class_weight",
    "class_weights",
    "WorkingSetSVM",
    "fit_linear_svm",
    "nested_mask_predictions",
    "FIXED_C",
    "THREADED_MIN_ROWS",
    "CANDIDATE_MODES",
    "Screen",
    "screen_pairs",
    "threshold_selector",
    "fraction_selector",
    "fdr_selector",
    "fixed_selector",
    "column_mask",
    "ThresholdPath",
    "WarmFolds",
    "DEFAULT_CS",
    "DEFAULT_FRACTIONS",
    "LUClassifier",
    "ForestDensityClassifier",
    "SLBClassifier",
]
