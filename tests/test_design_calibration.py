"""The synthetic designs' unstated choices (n_trees, coef, spacing) and their calibration."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from slb.data.synthetic import BayesNet, make_forest_bn
from slb.experiments import paper_synthetic
from slb.experiments.calibration import (
    CALIBRATION_CLASSIFIERS,
    calibrate_design,
    calibration_loss,
    calibration_targets,
)
from slb.experiments.designs import UNSTATED_DEFAULTS, Design, calibrated_parameters


def _digest(ds) -> str:
    h = hashlib.sha256()
    for a in (ds.X_train.to_numpy(), ds.y_train, ds.X_test.to_numpy(), ds.y_test):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


# Digests and log-likelihood-ratio sums of the designs before the unstated choices became
# parameters (computed with slb/data/synthetic.py of commit 3e5a1ee): the "uncalibrated"
# variant must reproduce them bit for bit.
OLD = {
    ("forest", "normal"): ("d93d3a950a807639", -24.295388991565183),
    ("bn", "normal"): ("f0dc0a9582147f29", 157.976054405686),
    ("forest", "complex"): ("cbfd034e983c9ba6", -3.1661186567638566),
    ("bn", "complex"): ("df51e23eda95a757", 205.61010029764682),
}


@pytest.mark.parametrize(("family", "cpd"), list(OLD))
def test_uncalibrated_variant_reproduces_the_old_designs_exactly(family, cpd):
    spec = Design(family, cpd, shared=family == "bn", d=8, n_test=40)
    assert spec.variant == "uncalibrated"
    assert spec.with_variant("uncalibrated") == spec
    ds = spec.make(60, 3)
    digest, llr_sum = OLD[(family, cpd)]
    assert _digest(ds) == digest
    # The data bit for bit (the digest); their exact log-density ratio to 1e-12: its last bits
    # differ between numpy/scipy releases (the CI step at the minimum versions: 7e-15).
    assert float(ds.log_likelihood_ratio(ds.X_test).sum()) == pytest.approx(llr_sum, rel=1e-12)


def test_calibrated_variant_reads_the_committed_parameters():
    for cpd in ("normal", "complex"):
        params = calibrated_parameters("forest", cpd)
        assert params is not None and set(params) == set(UNSTATED_DEFAULTS)
        spec = Design.from_name(f"forest-{cpd}-imbalanced-calibrated")
        assert spec.variant == "calibrated" and spec.balance == 0.75
        assert (spec.n_trees, spec.coef, spec.spacing) == (
            params["n_trees"],
            params["coef"],
            params["spacing"],
        )
        assert spec.name == f"forest-{cpd}-imbalanced-calibrated"
        assert spec != spec.with_variant("uncalibrated")
        ds = spec.make(50, 0)
        assert ds.design["coef"] == params["coef"]
        if params["n_trees"] is not None:
            assert ds.design["n_trees"] == params["n_trees"]
    with pytest.raises(ValueError, match="variant"):
        Design("forest", variant="tuned")
    with pytest.raises(ValueError, match="forest"):
        Design("bn", n_trees=3)
    with pytest.raises(ValueError, match="coef"):
        make_forest_bn(d=5, coef=-1.0)


def test_coef_scales_the_linear_gaussian_model():
    """Normal CPDs with coef c: X = c B X + eps, hence cov = A A^T, A = (I - c B)^-1, and the
    exact log-density is that multivariate normal's (scipy as the reference)."""
    ds = make_forest_bn(n_train=0, n_test=4, d=6, n_trees=1, coef=0.6, random_state=2)
    net = ds.models[1]
    idx = {c: k for k, c in enumerate(net.columns)}
    B = np.zeros((6, 6))
    for node, ps in net.parents.items():
        for p in ps:
            B[idx[node], idx[p]] = 0.6
    A = np.linalg.inv(np.eye(6) - B)
    _, cov = net.gaussian_parameters()
    np.testing.assert_allclose(cov, A @ A.T)
    X = net.sample(200_000, 5)
    np.testing.assert_allclose(np.cov(X.T), cov, atol=0.03)
    ref = stats.multivariate_normal(np.zeros(6), cov).logpdf(X[:5])
    np.testing.assert_allclose(net.logpdf(X[:5]), ref)


def test_complex_cpd_with_coef_and_spacing_has_the_stated_density():
    net = BayesNet(("a", "b"), {"a": (), "b": ("a",)}, ("a", "b"), "complex", 0.3, 1.7)
    X = np.array([[0.4, -1.2], [-2.0, 2.5], [1.1, 0.0]])
    a, b = X[:, 0], X[:, 1]
    dens = (
        0.5 * stats.t.pdf(b - 0.3 * a, 5)
        + 0.25 * stats.norm.pdf(b, 0.3 * a + 1.7)
        + 0.25 * stats.norm.pdf(b, 0.3 * a - 1.7)
    )
    np.testing.assert_allclose(net.logpdf(X), stats.norm.logpdf(a) + np.log(dens))
    draws = net.sample(100_000, 1)
    # E[b | a] = 0.3 a; Var(b) = 0.09 + 1/2 * 5/3 + 1/2 * (1 + 1.7**2)
    assert np.cov(draws.T)[0, 1] == pytest.approx(0.3, abs=0.02)
    assert draws[:, 1].var() == pytest.approx(0.09 + 5 / 6 + 0.5 * (1 + 1.7**2), rel=0.03)


def test_loss_is_the_standard_error_weighted_squared_error():
    t = pd.DataFrame(
        {"paper_mean": [20.0, 10.0], "paper_sd": [3.0, 1.0]}, index=pd.Index(["NB", "RF"])
    )
    # (1.5 / 0.3)^2 = 25 and (-0.2 / 0.1)^2 = 4, mean 14.5
    assert calibration_loss({"NB": 21.5, "RF": 9.8, "SLB": 99.0}, t) == pytest.approx(14.5)


def test_targets_never_include_the_classifiers_under_test():
    paper = paper_synthetic("forest-normal-balanced")
    t = calibration_targets(paper, 600)
    assert list(t.index) == list(CALIBRATION_CLASSIFIERS)
    assert t.loc["NB", "paper_mean"] == 20.3 and t.loc["5NN", "paper_sd"] == 2.1
    for bad in ("SLB", "TAN", "LU"):
        with pytest.raises(ValueError, match="out of the calibration"):
            calibration_targets(paper, 600, ["NB", bad])
    with pytest.raises(ValueError, match="lacks"):
        calibration_targets(paper, 650)


def _poisoned(paper: pd.DataFrame, value) -> pd.DataFrame:
    out = paper.copy()
    held = out["classifier"].isin(["SLB", "TAN", "LU"])
    out.loc[held, ["paper_mean", "paper_sd"]] = value
    return out


@pytest.mark.slow
def test_calibration_is_reproducible_and_blind_to_slb_tan_lu():
    grid = {"coef": [0.9, 1.1], "n_trees": [2, 4]}
    kw = dict(n=200, n_replicates=2, random_state=4, classifiers=["NB", "5NN"])
    paper = paper_synthetic("forest-normal-balanced")
    first = calibrate_design("forest-normal-balanced", grid, paper=paper, **kw)
    again = calibrate_design("forest-normal-balanced", grid, paper=paper, **kw)
    assert first.parameters == again.parameters and first.loss == again.loss
    pd.testing.assert_frame_equal(first.grid, again.grid)
    # the grid's losses do differ, so the winner is a real choice
    assert first.grid["loss"].nunique() == 4
    assert first.loss == first.grid["loss"].min()
    assert first.design.variant == "calibrated"
    for value in (np.nan, -1e9):
        blind = calibrate_design(
            "forest-normal-balanced", grid, paper=_poisoned(paper, value), **kw
        )
        pd.testing.assert_frame_equal(first.grid, blind.grid)
        assert blind.parameters == first.parameters
    # ... while moving a calibration classifier's target does change the losses
    moved = paper.copy()
    moved.loc[moved["classifier"].eq("NB"), "paper_mean"] += 5.0
    other = calibrate_design("forest-normal-balanced", grid, paper=moved, **kw)
    assert not np.allclose(other.grid["loss"], first.grid["loss"])
    pd.testing.assert_frame_equal(other.grid.drop(columns="loss"), first.grid.drop(columns="loss"))
