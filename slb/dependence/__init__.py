"""Step 1 of SLB's Algorithm 1: measure the dependence of every feature pair (HSIC, its low-rank
approximation, rank and linear correlations) and screen the pairs by a threshold.
"""

from .hsic import (
    DEPENDENCE_MEASURE_REGISTRY,
    DEPENDENCE_MEASURES,
    HSIC_APPROX_MAX_RANK,
    HSIC_APPROX_MIN_SAMPLES,
    HSIC_APPROX_TOL,
    HSIC_METHODS,
    HSIC_PVALUE_PAIRS,
    DependenceMeasure,
    DependenceResult,
    benjamini_hochberg,
    correlation_all_pairs,
    dependence_matrix,
    gaussian_gram,
    get_dependence_measure,
    hsic_all_pairs,
    median_heuristic_sigma2,
)
from .lowrank import (
    incomplete_cholesky,
)
from .screening import (
    PAIR_RULES,
    SCREENING_SCORES,
    check_pair_rule,
    check_screening_score,
    combine,
    fdr_terms,
    kept_terms,
    pair_scores,
    screening_statistic,
    top_fraction_threshold,
)

__all__ = [
    "DEPENDENCE_MEASURE_REGISTRY",
    "DEPENDENCE_MEASURES",
    "DependenceMeasure",
    "get_dependence_measure",
    "HSIC_METHODS",
    "HSIC_APPROX_MIN_SAMPLES",
    "HSIC_APPROX_TOL",
    "HSIC_APPROX_MAX_RANK",
    "HSIC_PVALUE_PAIRS",
    "DependenceResult",
    "median_heuristic_sigma2",
    "gaussian_gram",
    "hsic_all_pairs",
    "correlation_all_pairs",
    "dependence_matrix",
    "benjamini_hochberg",
    "incomplete_cholesky",
    "PAIR_RULES",
    "SCREENING_SCORES",
    "check_pair_rule",
    "check_screening_score",
    "screening_statistic",
    "top_fraction_threshold",
    "pair_scores",
    "combine",
    "kept_terms",
    "fdr_terms",
]
