"""The bundled datasets and the SLB paper's synthetic Bayesian-network designs."""

from .bundled import (
    BUNDLED_DATASETS,
    data_dir,
    load_dataset,
)
from .synthetic import (
    BayesNet,
    SyntheticDataset,
    bayes_error,
    class_log_density,
    edge_recovery,
    gaussian_parameters,
    log_likelihood_ratio,
    make_forest_bn,
    make_general_bn,
    oracle_coefficients,
    sample,
    term_name,
    true_log_density_terms,
)

__all__ = [
    "BUNDLED_DATASETS",
    "data_dir",
    "load_dataset",
    "BayesNet",
    "SyntheticDataset",
    "make_forest_bn",
    "make_general_bn",
    "sample",
    "log_likelihood_ratio",
    "class_log_density",
    "gaussian_parameters",
    "true_log_density_terms",
    "oracle_coefficients",
    "bayes_error",
    "term_name",
    "edge_recovery",
]
