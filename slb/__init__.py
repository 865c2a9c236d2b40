"""slb: the Sparse Log-Bivariate density classifier (Tenzer et al., JMLR 2020) and its peers.

Every estimator follows scikit-learn's conventions and works in ``Pipeline``,
``cross_val_score`` and ``GridSearchCV``.  The library never imports streamlit.

>>> from slb import SLBClassifier, load_dataset
>>> X, y = load_dataset("pima")
>>> clf = SLBClassifier(random_state=0).fit(X, y)
>>> clf.coef_.head()  # doctest: +SKIP
"""

from .classifier import ForestDensityClassifier, LUClassifier, SLBClassifier
from .datasets import BUNDLED_DATASETS, load_dataset
from .dependence import DependenceResult, dependence_matrix
from .discrete_map import DiscreteMAPClassifier
from .evaluation import balanced_error_rate, compare_estimators
from .features import LogDensityTransformer
from .io import TableRead, list_excel_sheets, read_table
from .naive_bayes import KDENaiveBayes
from .path import ThresholdPath
from .renyi import RenyiClassifier
from .synthetic import (
    BayesNet,
    SyntheticDataset,
    bayes_error,
    gaussian_parameters,
    log_likelihood_ratio,
    make_forest_bn,
    make_general_bn,
    oracle_coefficients,
    true_log_density_terms,
)
from .tabular import Change, PreparedData, prepare_table
from .tan import TANClassifier

__version__ = "0.1.0"

__all__ = [
    "BUNDLED_DATASETS",
    "BayesNet",
    "Change",
    "PreparedData",
    "RenyiClassifier",
    "TableRead",
    "list_excel_sheets",
    "prepare_table",
    "read_table",
    "SyntheticDataset",
    "ThresholdPath",
    "bayes_error",
    "gaussian_parameters",
    "log_likelihood_ratio",
    "make_forest_bn",
    "make_general_bn",
    "oracle_coefficients",
    "true_log_density_terms",
    "DependenceResult",
    "DiscreteMAPClassifier",
    "ForestDensityClassifier",
    "KDENaiveBayes",
    "LUClassifier",
    "LogDensityTransformer",
    "SLBClassifier",
    "TANClassifier",
    "balanced_error_rate",
    "compare_estimators",
    "dependence_matrix",
    "load_dataset",
]
