"""Compare's per-fold runs of the other classifiers (``dashboard.evaluation.model_fold_run``),
one fold per task in one or two processes: the result must be what one serial
``compare_estimators`` on the table gives, for every catalogued classifier the page runs this
way (the independent reference), also with a per-feature bandwidth set by the feature's name
(which needs the table's column names in every fold)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_speed_paths import DENS, _dashboard_dataset

from dashboard import compute, evaluation, models
from dashboard.state import density_params
from slb.evaluation import compare_estimators

pytestmark = pytest.mark.slow  # every classifier's 5 folds, twice

NAMES = [n for n in models.CLASSIFIERS if n not in ("SLB", "NB")]  # those have their own paths


@pytest.mark.parametrize("dens", [DENS, ("scott", 1.0, (("f1", 0.5),))], ids=["rule", "override"])
@pytest.mark.parametrize("processes", ["1", "2"])
def test_fold_runs_equal_compare_estimators_on_the_frame(monkeypatch, processes, dens):
    monkeypatch.setenv("SLB_CV_PROCESSES", processes)
    ds = _dashboard_dataset(n=90, d=4, seed=5)
    assert isinstance(ds.X, pd.DataFrame)
    for name in NAMES:
        key = f"fold-runs-{processes}-{name}-{len(dens[2])}"
        run = evaluation.model_fold_run(key, ds, name, dens, 5, 0, 1)
        est = models.CLASSIFIERS[name].make(density_params(dens), 0)
        folds = compute.folds(key, ds, 5, 0, 1)
        ref = compare_estimators(
            {name: est}, ds.X, np.asarray(ds.y), folds=folds, record_predictions=True
        )
        np.testing.assert_array_equal(run.ber, ref.per_fold[name].to_numpy(), err_msg=name)
        a, b = run.predictions.reset_index(drop=True), ref.predictions.reset_index(drop=True)
        np.testing.assert_array_equal(a["y_pred"], b["y_pred"], err_msg=name)
        # DISCRETE's optimiser rounds differently from run to run at 1e-11 (labels equal)
        np.testing.assert_allclose(a["proba"], b["proba"], rtol=1e-9, atol=0, err_msg=name)
