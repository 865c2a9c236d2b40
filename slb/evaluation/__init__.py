"""Scoring and comparing classifiers: the balanced error rate, stratified repeated K-fold splits,
significance tests (corrected resampled t-test, Wilcoxon, Friedman/Nemenyi), comparisons on
identical folds, and the out-of-fold predictions, metrics, ROC/PR curves and confusion matrices
of :mod:`slb.evaluation.predictions`.  The classifier registry is :mod:`slb.evaluation.registry`
(imported on its own: it builds on every estimator of the package).
"""

from .comparison import (
    Comparison,
    compare_estimators,
)
from .metrics import (
    balanced_error_rate,
)
from .predictions import (
    METRICS,
    Evaluation,
    confusion_matrices,
    evaluate_predictions,
    path_predictions,
    pooled_pr,
    pooled_roc,
)
from .resampling import (
    holdout_ratio,
    stratified_folds,
)
from .significance import (
    CORRECTED_T,
    TEST_NAMES,
    WILCOXON,
    FriedmanResult,
    corrected_resampled_ttest,
    corrected_t_against_best,
    friedman_nemenyi,
    holm_adjust,
    nemenyi_q,
    wilcoxon_against_best,
)

__all__ = [
    "balanced_error_rate",
    "stratified_folds",
    "holdout_ratio",
    "CORRECTED_T",
    "WILCOXON",
    "TEST_NAMES",
    "holm_adjust",
    "corrected_resampled_ttest",
    "corrected_t_against_best",
    "wilcoxon_against_best",
    "FriedmanResult",
    "nemenyi_q",
    "friedman_nemenyi",
    "Comparison",
    "compare_estimators",
    "METRICS",
    "Evaluation",
    "evaluate_predictions",
    "pooled_roc",
    "pooled_pr",
    "confusion_matrices",
    "path_predictions",
]
