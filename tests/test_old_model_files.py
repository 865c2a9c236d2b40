"""Model files written before the ``coef_`` convention (commit 8313bc9) still load.

``tests/data/old_models`` holds files written by that commit's code (``coef_`` a pandas Series,
``terms_`` a DataFrame, ``intercept_`` a float; no ``coef_`` on naive Bayes and TAN) with the
decision values they gave then (``tests/data/make_old_format_models.py``).  They predate the
version stamps (issue 29): they load with a ``ModelVersionWarning`` that says so, after passing
the same checks of every fitted number as new files.
"""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from slb.persistence import ModelVersionWarning, load_model

OLD = Path(__file__).parent / "data" / "old_models"
EXPECTED = json.loads((OLD / "expected.json").read_text())
NAMES = [
    "SLBClassifier",
    "ForestDensityClassifier",
    "LUClassifier",
    "KDENaiveBayes",
    "TANClassifier",
]


@pytest.fixture(scope="module")
def X():
    return pd.DataFrame(EXPECTED["X"], columns=EXPECTED["columns"])


@pytest.mark.parametrize("name", NAMES)
def test_old_file_loads_into_the_new_convention(name, X):
    with pytest.warns(ModelVersionWarning, match="does not record") as record:
        model = load_model((OLD / f"{name}.slbmodel").read_bytes())
    assert record[0].message.differences["file"][0] == "unrecorded"
    want = EXPECTED[name]
    assert type(model).__name__ == name
    # to rounding: the exact KDE's kernel arithmetic may move a value by ~1e-15 (absolute),
    # which is more than 1e-12 relative on a decision value near 0
    np.testing.assert_allclose(
        model.decision_function(X), want["decision_function"], rtol=1e-12, atol=1e-13
    )
    assert [str(v) for v in model.predict(X)] == want["predict"]
    n_terms = model.coef_.shape[1]
    assert model.coef_.shape == (1, n_terms) and model.coef_.dtype == np.float64
    assert model.intercept_.shape == (1,)
    assert model.terms_.shape == (n_terms,)
    assert all(isinstance(t, str) for t in model.terms_)
    if "terms" in want:  # the SLB family: the old Series, entry by entry
        assert list(model.terms_) == want["terms"]
        np.testing.assert_array_equal(model.coef_[0], want["coef"])
        assert model.intercept_[0] == want["intercept"]
        assert list(model.term_table_.index) == want["terms"]
        pd.testing.assert_series_equal(
            model.coef_series_,
            pd.Series(want["coef"], index=pd.Index(want["terms"], name="term"), name="coef"),
        )
        with pytest.raises(ValueError, match="refit"):
            model.predict_proba(X)  # saved without Platt scaling
    else:  # naive Bayes, TAN: the derived linear model gives the old decisions
        T = model.transformer_.transform(X.to_numpy())
        np.testing.assert_allclose(
            T @ model.coef_[0] + model.intercept_[0], want["decision_function"], rtol=1e-9
        )
        assert np.all(np.isfinite(np.log(model.predict_proba(X))))
