"""Issue 26 item 5: bandwidth="plugin" gives pairs a marginal surrogate of ks::Hpi.diag, as the
documentation now says; it agrees with Hpi.diag of the actual pair for independent features and
not for dependent bimodal ones (so nothing may claim the fitted pair densities match R)."""

from __future__ import annotations

import numpy as np

from slb.density.bandwidth import class_bandwidths, hpi_diag
from slb.density.features import BANDWIDTH_PARAMS_DOC


def _surrogate(X):
    return class_bandwidths(X, np.zeros(len(X), dtype=int), rule="plugin", dim=2)[0]


def test_surrogate_close_to_hpi_diag_for_independent_features():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 2))
    np.testing.assert_allclose(_surrogate(X), hpi_diag(X), rtol=0.1)


def test_surrogate_differs_from_hpi_diag_on_a_dependent_bimodal_pair():
    rng = np.random.default_rng(1)
    z = rng.choice([-2.0, 2.0], size=400)
    X = np.column_stack([z + 0.3 * rng.normal(size=400), z + 0.3 * rng.normal(size=400)])
    rel = np.abs(_surrogate(X) / hpi_diag(X) - 1)
    assert rel.max() > 0.1
    assert "marginal surrogate" in BANDWIDTH_PARAMS_DOC
