"""The "plugin" bandwidth rule against R's ks (fixture made by scripts/make_ks_reference.R, so
these tests never need R), and the marginal pair rule against an explicit product sample."""

import json
from pathlib import Path

import numpy as np
import pytest

import slb.density.bandwidth as bw
from slb import LogDensityTransformer
from slb.density.bandwidth import class_bandwidths, hpi_diag, rule_bandwidth

REF = json.loads((Path(__file__).parent / "data" / "ks_reference.json").read_text())
UNI = REF["univariate"]
PAIRS = REF["pairs"]


def _id(case):
    return f"{case['kind']}-{case['n']}"


@pytest.mark.parametrize("case", UNI, ids=[_id(c) for c in UNI])
def test_univariate_plugin_matches_ks_hpi(case):
    # ks::hpi(x) = KernSmooth::dpik(x, level=2, gridsize=401): binned at every n.
    x = np.asarray(case["x"], dtype=float)
    assert rule_bandwidth(x, "plugin", 1) == pytest.approx(case["hpi"], rel=1e-6)


@pytest.mark.parametrize("case", PAIRS, ids=[_id(c) for c in PAIRS])
def test_pair_plugin_matches_ks_hpi_diag(case):
    X = np.column_stack([case["x"], case["y"]])
    h = hpi_diag(X)
    np.testing.assert_allclose(h, case["hpi_diag_unbinned"], rtol=1e-6)
    if not case["default_binned"]:  # ks bins pairs only above 500 points
        np.testing.assert_allclose(h, case["hpi_diag_default"], rtol=1e-6)


def test_fixture_covers_the_issue_samples():
    assert {c["kind"] for c in UNI} >= {"normal", "bimodal", "skewed", "heavy"}
    assert {c["n"] for c in UNI} == {c["n"] for c in PAIRS} == {50, 200, 1000}
    corr = [abs(np.corrcoef(c["x"], c["y"])[0, 1]) for c in PAIRS]
    assert max(corr) > 0.5


def test_pair_marginal_is_hpi_diag_formula_on_the_product_sample():
    # The marginal pair bandwidth is Hpi.diag's formula with the functionals of the sample of
    # all n^2 pairs (x_k, x_l): build that sample explicitly and evaluate them by brute force.
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.normal(-1, 0.4, 12), rng.gamma(2.0, 1.0, 16)])
    n, sd = x.size, np.std(x, ddof=1)
    z = x / sd
    Z = np.column_stack([np.repeat(z, n), np.tile(z, n)])
    h1, h2 = bw._hpi_diag_scaled(lambda g, orders: bw._pair_functionals(Z, g, orders), np.eye(2), n)
    assert h1 == pytest.approx(h2, rel=1e-10)
    assert rule_bandwidth(x, "plugin", 2) == pytest.approx(sd * h1, rel=1e-9)


def test_pair_marginal_close_to_hpi_diag_of_independent_copies():
    # For two independent features with the same distribution the real pair selector and the
    # marginal one estimate the same bandwidth.
    rng = np.random.default_rng(6)
    X = rng.normal(size=(1000, 2))
    h_pair = hpi_diag(X)
    h_marg = [rule_bandwidth(X[:, k], "plugin", 2) for k in (0, 1)]
    np.testing.assert_allclose(h_marg, h_pair, rtol=0.1)


def test_binned_functionals_close_to_exact(monkeypatch):
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.normal(-2, 1, 450), rng.normal(2, 0.5, 300)])  # 750 > 500: binned
    binned = rule_bandwidth(x, "plugin", 2)
    monkeypatch.setattr(bw, "_KFE_EXACT_POINTS", 10**6)
    exact = rule_bandwidth(x, "plugin", 2)
    assert binned == pytest.approx(exact, rel=1e-3)
    assert binned != exact


def test_plugin_adapts_to_bimodal_data():
    rng = np.random.default_rng(8)
    x = np.concatenate([rng.normal(-3, 0.5, 150), rng.normal(3, 0.5, 150)])
    for dim in (1, 2):
        assert rule_bandwidth(x, "plugin", dim) < 0.5 * rule_bandwidth(x, "silverman", dim)


def test_plugin_falls_back_where_ks_fails():
    # 90 % ties: IQR = 0, so min(sd, IQR/1.349) = 0 and KernSmooth::dpik stops; SLB uses
    # Silverman's rule (which ignores the zero IQR).
    rng = np.random.default_rng(9)
    x = np.where(rng.uniform(size=100) < 0.9, 0.0, rng.normal(size=100))
    assert rule_bandwidth(x, "plugin", 1) == rule_bandwidth(x, "silverman", 1)
    assert rule_bandwidth(np.full(20, 3.0), "plugin", 2, fallback_scale=2.0) == pytest.approx(
        2.0 * 20 ** (-1 / 6)
    )


def test_hpi_diag_rejects_bad_input():
    with pytest.raises(ValueError, match="shape"):
        hpi_diag(np.zeros((10, 3)))
    with pytest.raises(ValueError, match="non-constant"):
        hpi_diag(np.column_stack([np.arange(10.0), np.ones(10)]))


def test_transformer_accepts_plugin(pima):
    X, y = pima
    X, y = X.iloc[:200], y.iloc[:200]
    t = LogDensityTransformer(bandwidth="plugin", pairs=[]).fit(X, y)
    y_index = np.searchsorted(t.classes_, y.to_numpy())
    expected = class_bandwidths(X.to_numpy(float), y_index, rule="plugin", lattice_floor=1.0)
    np.testing.assert_allclose(t.bandwidths_, expected)
    # ks::hpi's own values where the lattice floor (the default, 1 step) does not bind; with
    # lattice_floor=0 every value is ks's
    plain = class_bandwidths(X.to_numpy(float), y_index, rule="plugin")
    assert np.sum(plain != expected) >= 1  # Pima's counts: the floor binds somewhere
    np.testing.assert_allclose(
        LogDensityTransformer(bandwidth="plugin", pairs=[], lattice_floor=0).fit(X, y).bandwidths_,
        plain,
    )
    assert np.all(np.isfinite(t.fit_transform(X, y)))
