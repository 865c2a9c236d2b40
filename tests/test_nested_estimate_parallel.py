"""Compare's "Nested estimate" (issue 27): its folds are refitted on every free core, and the
result is what one serial ``compare_estimators`` run gives (the independent reference)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_speed_paths import DENS, DENS_PARAMS, _dashboard_dataset

from dashboard import compute, evaluation
from slb import SLBClassifier
from slb.evaluation import compare_estimators
from slb.model.path import FIXED_C

pytestmark = pytest.mark.slow  # 10 nested SLB fits, twice


@pytest.mark.parametrize("processes", ["1", "2"])
def test_nested_estimate_equals_a_serial_compare_estimators(monkeypatch, processes):
    """Fold by fold: BER, kept pairs, every out-of-fold label, score and probability, in one
    process and in two (joblib's workers; the data is too small for the niced pool)."""
    monkeypatch.setenv("SLB_CV_PROCESSES", processes)
    ds = _dashboard_dataset(n=120, d=5, seed=4)
    key = f"nested-parallel-{processes}"  # a cache entry of its own per parametrisation
    ev = evaluation.slb_nested_eval(key, ds, "hsic", "either", DENS, 5, 0, False, n_repeats=2)
    folds = compute.folds(key, ds, 5, 0, 2)
    est = SLBClassifier(threshold="cv", C=FIXED_C, random_state=0, **DENS_PARAMS)
    pairs = np.zeros(len(folds), dtype=int)

    def count(_name, k, model):
        pairs[k] = len(model.pairs_)

    ref = compare_estimators(
        {"SLB": est}, ds.X, ds.y, folds=folds, record_predictions=True, on_fit=count
    )
    assert len(folds) == 10
    np.testing.assert_array_equal(ev.ber, ref.per_fold["SLB"].to_numpy())
    np.testing.assert_array_equal(ev.n_pairs, pairs)
    pd.testing.assert_frame_equal(
        ev.predictions.reset_index(drop=True), ref.predictions.reset_index(drop=True)
    )
    assert 0.0 < ev.ber.mean() < 0.5  # the design has signal: not a constant classifier
