"""The classifiers SLB is compared with that also build on low-order marginals: KDE naive Bayes,
TAN, the Discrete Rényi classifier and DISCRETE.
"""

from .discrete_map import (
    DiscreteMAPClassifier,
    chain_map,
    clique_loss_table,
    weight_grid,
)
from .naive_bayes import (
    PRIORS,
    KDENaiveBayes,
)
from .renyi import (
    RenyiClassifier,
)
from .tan import (
    TANClassifier,
    chow_liu_tree,
)

__all__ = [
    "PRIORS",
    "KDENaiveBayes",
    "chow_liu_tree",
    "TANClassifier",
    "RenyiClassifier",
    "DiscreteMAPClassifier",
    "clique_loss_table",
    "chain_map",
    "weight_grid",
]
