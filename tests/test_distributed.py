"""Beyond one machine: the nested selection on a Dask cluster through joblib (issue 14, item 6).

The inner folds' densities and SVM grids are independent joblib tasks; under
``joblib.parallel_backend("dask")`` they run on the cluster's worker processes.  The fitted
model must be the one the local run gives, bit for bit, and the tasks must really have run on
the workers (the task stream counts them).
"""

from pathlib import Path

import joblib
import numpy as np
import pytest

from slb import SLBClassifier
from slb._parallel import distributed_backend

distributed = pytest.importorskip("distributed")

ROOT = str(Path(__file__).resolve().parents[1])


def _data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 6))
    y = np.repeat([0, 1], 60)
    X[y == 1, 1] += 0.9 * X[y == 1, 0]
    X[y == 1, 2] += 0.6
    return X, y


def _add_root(root):
    import sys

    if root not in sys.path:
        sys.path.insert(0, root)


@pytest.mark.slow
def test_dask_local_cluster_fit_equals_local_fit():
    X, y = _data()
    local = SLBClassifier(Cs=[0.1, 1.0], random_state=0, n_jobs=1).fit(X, y)
    assert not distributed_backend()
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        client.run(_add_root, ROOT)  # the workers import slb from this checkout
        with distributed.get_task_stream(client) as stream, joblib.parallel_backend("dask"):
            assert distributed_backend()
            remote = SLBClassifier(Cs=[0.1, 1.0], random_state=0, n_jobs=1).fit(X, y)
    # the inner folds' densities and SVM grids ran on the workers (joblib may batch them)
    assert len(stream.data) >= 2, len(stream.data)
    np.testing.assert_array_equal(remote.cv_results_["mean_ber"], local.cv_results_["mean_ber"])
    assert (remote.selected_model_, remote.fraction_) == (local.selected_model_, local.fraction_)
    np.testing.assert_equal(remote.C_, local.C_)  # NaN when naive Bayes or TAN was selected
    np.testing.assert_array_equal(remote.pairs_, local.pairs_)
    np.testing.assert_array_equal(np.asarray(remote.coef_), np.asarray(local.coef_))
    np.testing.assert_array_equal(remote.decision_function(X), local.decision_function(X))
