"""slb: the Sparse Log-Bivariate density classifier (Tenzer et al., JMLR 2020) and its peers.

Every estimator follows scikit-learn's conventions and works in ``Pipeline``,
``cross_val_score`` and ``GridSearchCV``.  The library never imports streamlit.

>>> from slb import SLBClassifier, load_dataset
>>> X, y = load_dataset("pima")
>>> clf = SLBClassifier(random_state=0).fit(X, y)
>>> clf.coef_series_.head()  # doctest: +SKIP
"""

from .data.bundled import BUNDLED_DATASETS, load_dataset
from .data.synthetic import (
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
from .density.features import LogDensityTransformer
from .dependence.hsic import DependenceResult, dependence_matrix
from .evaluation.comparison import compare_estimators
from .evaluation.metrics import balanced_error_rate
from .model.classifier import ForestDensityClassifier, LUClassifier, SLBClassifier
from .model.cv import SLBClassifierCV
from .model.path import ThresholdPath
from .peers.discrete_map import DiscreteMAPClassifier
from .peers.naive_bayes import KDENaiveBayes
from .peers.renyi import RenyiClassifier
from .peers.tan import TANClassifier
from .tables.clean import Change, PreparedData, TableCleaner, prepare_table
from .tables.read import TableRead, list_excel_sheets, read_table

__version__ = "0.1.0"

__all__ = [
    "BUNDLED_DATASETS",
    "BayesNet",
    "Change",
    "PreparedData",
    "TableCleaner",
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
    "SLBClassifierCV",
    "TANClassifier",
    "balanced_error_rate",
    "compare_estimators",
    "dependence_matrix",
    "load_dataset",
]
