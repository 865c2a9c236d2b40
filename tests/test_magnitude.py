"""One magnitude rule (|x| <= 1e100, ``slb._utils.check_magnitude``) names the user's column
in every density estimator's message (issue 15, finding 6; TAN and naive Bayes said 'x2')."""

import numpy as np
import pandas as pd
import pytest

from slb import (
    ForestDensityClassifier,
    KDENaiveBayes,
    LogDensityTransformer,
    LUClassifier,
    SLBClassifier,
    TANClassifier,
)
from slb._utils import MAX_ABS_VALUE


def _data(big):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(60, 3)), columns=["a", "b", "income [$]"])
    X.loc[3, "income [$]"] = big
    return X, np.arange(60) % 2


@pytest.mark.parametrize(
    "est",
    [
        SLBClassifier(),
        LUClassifier(),
        ForestDensityClassifier(),
        KDENaiveBayes(),
        TANClassifier(),
        LogDensityTransformer(),
    ],
    ids=lambda e: type(e).__name__,
)
def test_huge_values_are_refused_naming_the_column(est):
    X, y = _data(1e120)
    with pytest.raises(ValueError, match=r"'income \[\$\]' has values as large as 1e\+120"):
        est.fit(X, y)
    X, y = _data(MAX_ABS_VALUE)  # the bound itself is allowed
    est.fit(X, y)
