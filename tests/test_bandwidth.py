"""Behaviour tests of slb.density.bandwidth: the rules' formulas, likelihood cross-validation against a
grid search written here, multipliers, per-feature overrides, the floor for tied features, and
the vectorised class_bandwidths against the former per-feature loop (kept here as reference).
The plug-in rule against R's ks is in test_bandwidth_plugin.py."""

import numpy as np
import pytest

import slb.density.bandwidth as bandwidth_module
from slb import LogDensityTransformer
from slb.density.bandwidth import BANDWIDTH_RULES, class_bandwidths, robust_scale, rule_bandwidth


def loo_loglik(x, h):
    """Leave-one-out log-likelihood of a univariate Gaussian KDE, by deleting each point."""
    total = 0.0
    for k in range(x.size):
        rest = np.delete(x, k)
        dens = np.mean(np.exp(-0.5 * ((x[k] - rest) / h) ** 2)) / (np.sqrt(2 * np.pi) * h)
        total += np.log(dens)
    return total


def iqr_scale(x):
    q75, q25 = np.percentile(x, [75, 25])
    return (q75 - q25) / 1.349


@pytest.fixture
def samples():
    rng = np.random.default_rng(0)
    return {
        "normal": rng.normal(2, 3, size=150),
        "heavy": rng.standard_t(1.5, size=150),  # IQR branch: sd inflated by the tails
        "bimodal": np.concatenate([rng.normal(-3, 0.5, 75), rng.normal(3, 0.5, 75)]),  # sd branch
    }


# ---------------------------------------------------------------------------------------------
# rules of thumb
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["normal", "heavy", "bimodal"])
def test_scott(samples, kind):
    x = samples[kind]
    n, sd = x.size, np.std(x, ddof=1)
    assert rule_bandwidth(x, "scott", 1) == pytest.approx(sd * n ** (-1 / 5), rel=1e-12)
    assert rule_bandwidth(x, "scott", 2) == pytest.approx(sd * n ** (-1 / 6), rel=1e-12)


@pytest.mark.parametrize("kind", ["normal", "heavy", "bimodal"])
def test_silverman_robust_rule(samples, kind):
    x = samples[kind]
    n = x.size
    scale = min(np.std(x, ddof=1), iqr_scale(x))
    assert rule_bandwidth(x, "silverman", 1) == pytest.approx(
        0.9 * scale * n ** (-1 / 5), rel=1e-12
    )
    assert rule_bandwidth(x, "silverman", 2) == pytest.approx(scale * n ** (-1 / 6), rel=1e-12)
    assert robust_scale(x) == pytest.approx(scale, rel=1e-12)


def test_silverman_branches_are_exercised(samples):
    assert iqr_scale(samples["heavy"]) < np.std(samples["heavy"], ddof=1)
    assert np.std(samples["bimodal"], ddof=1) < iqr_scale(samples["bimodal"])


# ---------------------------------------------------------------------------------------------
# likelihood cross-validation
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["normal", "bimodal"])
def test_lcv_maximises_leave_one_out_likelihood(samples, kind):
    x = samples[kind][::2]  # 75 points: the reference loop stays fast
    n = x.size
    h0 = 0.9 * robust_scale(x) * n ** (-0.2)
    grid = np.geomspace(0.1 * h0, 4 * h0, 300)
    ll = np.array([loo_loglik(x, h) for h in grid])
    h_grid = grid[np.argmax(ll)]
    h_lcv = rule_bandwidth(x, "lcv", 1)
    assert h_lcv == pytest.approx(h_grid, rel=0.02)
    assert loo_loglik(x, h_lcv) >= ll.max() - 1e-3
    # Pairs: rescaled from the 1-d rate n^(-1/5) to the 2-d rate n^(-1/6).
    assert rule_bandwidth(x, "lcv", 2) == pytest.approx(h_lcv * n ** (1 / 5 - 1 / 6), rel=1e-9)


def test_lcv_adapts_to_bimodal_data(samples):
    # The rule of thumb oversmooths two narrow modes; LCV picks a much smaller bandwidth.
    x = samples["bimodal"]
    assert rule_bandwidth(x, "lcv", 1) < 0.6 * rule_bandwidth(x, "silverman", 1)


def test_unknown_rule_and_dim():
    x = np.arange(10.0)
    with pytest.raises(ValueError, match="foo"):
        rule_bandwidth(x, "foo")
    with pytest.raises(ValueError, match="dim"):
        rule_bandwidth(x, "scott", dim=3)


# ---------------------------------------------------------------------------------------------
# per class, multiplier, overrides, floor
# ---------------------------------------------------------------------------------------------
def _two_class(seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(120, 3)) * [1.0, 5.0, 0.2]
    y = np.repeat([0, 1], [50, 70])
    X[y == 1] *= 2.0
    return X, y


@pytest.mark.parametrize("rule", BANDWIDTH_RULES)
@pytest.mark.parametrize("dim", [1, 2])
def test_class_bandwidths_per_class_and_feature(rule, dim):
    X, y = _two_class()
    h = class_bandwidths(X, y, rule=rule, dim=dim)
    assert h.shape == (2, 3)
    for c in (0, 1):
        for i in range(3):
            assert h[c, i] == pytest.approx(rule_bandwidth(X[y == c, i], rule, dim), rel=1e-12)


def test_multiplier_and_overrides():
    X, y = _two_class()
    base = class_bandwidths(X, y, rule="scott")
    np.testing.assert_allclose(class_bandwidths(X, y, rule="scott", multiplier=2.5), 2.5 * base)
    ov = np.array([np.nan, 0.5, np.nan])  # feature 1 replaced, others keep the global 2.0
    got = class_bandwidths(X, y, rule="scott", multiplier=2.0, overrides=ov)
    np.testing.assert_allclose(got[:, [0, 2]], 2.0 * base[:, [0, 2]])
    np.testing.assert_allclose(got[:, 1], 0.5 * base[:, 1])


def test_transformer_applies_multiplier_and_named_overrides(pima):
    X, y = pima
    X, y = X.iloc[:300], y.iloc[:300]
    base = LogDensityTransformer(pairs=[]).fit(X, y)
    t = LogDensityTransformer(
        pairs=[], bandwidth_multiplier=1.5, bandwidth_overrides={"glucose": 0.5, 5: 3.0}
    ).fit(X, y)
    gi = list(X.columns).index("glucose")
    expected = 1.5 * base.bandwidths_
    expected[:, gi] = 0.5 * base.bandwidths_[:, gi]
    expected[:, 5] = 3.0 * base.bandwidths_[:, 5]  # bmi, by index
    np.testing.assert_allclose(t.bandwidths_, expected)
    np.testing.assert_allclose(t.pair_bandwidths_[:, gi], 0.5 * base.pair_bandwidths_[:, gi])
    with pytest.raises(ValueError, match="nosuch"):
        LogDensityTransformer(bandwidth_overrides={"nosuch": 2.0}).fit(X, y)
    with pytest.raises(ValueError, match="positive"):
        LogDensityTransformer(bandwidth_overrides={"glucose": -1.0}).fit(X, y)


def test_floor_for_constant_and_tied_features():
    rng = np.random.default_rng(2)
    n = 80
    y = np.repeat([0, 1], n // 2)
    X = np.column_stack(
        [
            np.full(n, 7.0),  # constant everywhere
            np.where(y == 0, 3.0, rng.normal(size=n)),  # constant within class 0 only
            np.where(rng.uniform(size=n) < 0.9, 0.0, rng.integers(1, 4, size=n)),  # tied
            rng.normal(size=n),
        ]
    )
    for rule in BANDWIDTH_RULES:
        for dim in (1, 2):
            h = class_bandwidths(X, y, rule=rule, dim=dim, min_bandwidth=1e-3)
            assert np.all(np.isfinite(h)) and np.all(h > 0), (rule, dim, h)
            pooled = np.array([robust_scale(X[:, i]) or 1.0 for i in range(4)])
            assert np.all(h >= 1e-3 * pooled - 1e-15)
    # a huge min_bandwidth is the binding floor
    h = class_bandwidths(X, y, rule="scott", min_bandwidth=10.0)
    np.testing.assert_allclose(h[:, 3], 10.0 * robust_scale(X[:, 3]))
    # and the log-densities stay finite, at the training rows and far away
    for rule in BANDWIDTH_RULES:
        t = LogDensityTransformer(bandwidth=rule).fit(X, y)
        assert np.all(t.bandwidths_ > 0) and np.all(t.pair_bandwidths_ > 0)
        assert np.all(np.isfinite(t.fit_transform(X, y)))
        assert np.all(np.isfinite(t.transform(np.vstack([X[:5], X[:5] + 1e4]))))


# ---------------------------------------------------------------------------------------------
# vectorised class_bandwidths == the former per-feature loop
# ---------------------------------------------------------------------------------------------
def _old_robust_scale(x):
    if x.size < 2:
        return 0.0
    sd = float(np.std(x, ddof=1))
    q75, q25 = np.percentile(x, [75, 25])
    iqr = float(q75 - q25) / 1.349
    positive = [s for s in (sd, iqr) if s > 0]
    return min(positive) if positive else 0.0


def _old_rule_bandwidth(x, rule, dim, fallback_scale):
    """The scalar code class_bandwidths looped over before it was vectorised (one feature)."""
    n = max(x.size, 2)
    sd = float(np.std(x, ddof=1)) if x.size > 1 else 0.0
    rscale = _old_robust_scale(x)
    if rule == "scott":
        scale = sd if sd > 0 else fallback_scale
        return scale * n ** (-1.0 / (dim + 4))
    scale = rscale if rscale > 0 else fallback_scale
    silverman = (0.9 if dim == 1 else 1.0) * scale * n ** (-1.0 / (dim + 4))
    if rule == "silverman" or rscale == 0:
        return silverman
    if rule == "lcv":
        h1 = bandwidth_module._lcv_bandwidth(x, 0.9 * scale * n ** (-0.2))
        return h1 if dim == 1 else h1 * n ** (0.2 - 1.0 / 6.0)
    h = bandwidth_module._plugin_bandwidth(x, dim, sd)
    return h if np.isfinite(h) and h > 0 else silverman


def _old_class_bandwidths(X, y_index, rule, dim, multiplier=1.0, min_bandwidth=1e-3):
    n_features = X.shape[1]
    pooled = np.array([_old_robust_scale(X[:, i]) for i in range(n_features)])
    pooled = np.where(pooled > 0, pooled, 1.0)
    n_classes = int(np.max(y_index)) + 1
    h = np.empty((n_classes, n_features))
    for c in range(n_classes):
        Xc = X[y_index == c]
        for i in range(n_features):
            h[c, i] = _old_rule_bandwidth(Xc[:, i], rule, dim, fallback_scale=pooled[i])
    h *= multiplier
    return np.maximum(h, min_bandwidth * pooled)


def _messy_data(seed):
    rng = np.random.default_rng(seed)
    n = 90
    y = rng.integers(0, 3, size=n)
    y[:3] = [0, 1, 2]
    X = rng.normal(size=(n, 7)) * rng.uniform(0.01, 100, size=7)
    X[:, 1] = 4.0  # constant everywhere
    X[:, 2] = np.where(y == 0, -1.0, X[:, 2])  # constant within class 0
    X[:, 3] = np.where(rng.uniform(size=n) < 0.85, 0.0, rng.integers(1, 4, size=n))  # ties
    X[:, 4] = np.round(X[:, 4])
    X[:, 5] = rng.standard_t(1.5, size=n)
    return X, y


@pytest.mark.parametrize("rule", BANDWIDTH_RULES)
@pytest.mark.parametrize("dim", [1, 2])
@pytest.mark.parametrize("seed", [0, 1])
def test_vectorised_class_bandwidths_equal_the_per_feature_loop(rule, dim, seed):
    X, y = _messy_data(seed)
    got = class_bandwidths(X, y, rule=rule, dim=dim, multiplier=1.3)
    np.testing.assert_array_equal(got, _old_class_bandwidths(X, y, rule, dim, multiplier=1.3))


def test_vectorised_class_bandwidths_single_row_class():
    X, y = _messy_data(2)
    y = y.copy()
    y[y == 2] = 1
    y[0] = 2  # class 2 has one row
    for rule in ("scott", "silverman"):
        got = class_bandwidths(X, y, rule=rule, dim=1)
        np.testing.assert_array_equal(got, _old_class_bandwidths(X, y, rule, 1))


# ---------------------------------------------------------------------------------------------
# the lattice floor (Protocol 4, docs/defaults.md)
# ---------------------------------------------------------------------------------------------
def lattice_step_by_search(x):
    """The lattice step by brute force: the largest candidate step (a gap between distinct
    values, divided by 1..20) of which every distinct value's offset from the smallest is a
    multiple to 1e-9; NaN when none is."""
    u = np.unique(x[np.isfinite(x)])
    if u.size < 2:
        return np.nan
    offsets = u - u[0]
    for k in range(1, 21):
        step = np.min(np.diff(u)) / k
        if np.all(np.abs(offsets / step - np.round(offsets / step)) < 1e-6):
            return step if k == 1 else np.nan  # the smallest gap is the step on a lattice
    return np.nan


@pytest.mark.parametrize(
    "values, step",
    [
        ([3, 1, 1, 7, 5], 2.0),  # odd integers
        ([0.1, 0.3, 0.4, 0.4, 1.0], 0.1),  # recorded to one decimal (inexact in binary)
        ([0, 1, 0, 0, 1], 1.0),  # a one-hot code
        ([2.5, 2.5, 2.5], np.nan),  # constant: no step
        ([0.0, 0.3, 1.7, 2.9], np.nan),  # gaps not multiples of one step
        ([1.0, np.nan, 4.0, np.inf, 7.0], 3.0),  # non-finite values ignored
    ],
)
def test_lattice_spacing_known_steps(values, step):
    got = bandwidth_module.lattice_spacing(np.asarray(values, dtype=float)[:, None])[0]
    assert np.isnan(got) if np.isnan(step) else got == pytest.approx(step, rel=1e-12)


def test_lattice_spacing_matches_a_search_and_rejects_continuous_columns():
    rng = np.random.default_rng(4)
    cols = [
        rng.integers(0, 6, 200) * 0.25,  # quarter steps
        rng.poisson(0.3, 200),  # sparse counts
        np.round(rng.normal(size=200), 2),  # two decimals
        rng.normal(size=200),  # continuous
        np.r_[rng.exponential(size=30), np.full(170, np.nan)],  # continuous, 30 values
    ]
    X = np.column_stack(cols).astype(float)
    got = bandwidth_module.lattice_spacing(X)
    want = np.array([lattice_step_by_search(c) for c in X.T])
    np.testing.assert_allclose(got, want, rtol=1e-9)
    assert np.isnan(got[3:]).all() and np.isfinite(got[:3]).all()


def _lattice_spacing_one_column_at_a_time(X):
    """The per-column loop lattice_spacing was before it was vectorised (a slow reference)."""
    X = np.asarray(X, dtype=float)
    out = np.full(X.shape[1], np.nan)
    for j in range(X.shape[1]):
        u = np.unique(X[:, j][np.isfinite(X[:, j])])
        if u.size < 2:
            continue
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            gaps = np.diff(u)
            step = float(gaps.min())
            k = gaps / step
        if not np.isfinite(k).all() or k.sum() > 1e9:
            continue
        ulps = 8 * np.finfo(float).eps * float(np.abs(u).max())
        if ulps > 1e-3 * step:
            continue
        if np.all(np.abs(gaps - np.round(k) * step) <= max(1e-6 * step, ulps)):
            out[j] = step
    return out


@pytest.mark.parametrize("seed", range(6))
def test_lattice_spacing_equals_the_one_column_loop(seed):
    """All columns at once give each column's value of the loop, bit for bit, on lattices,
    continuous columns, constant ones, non-finite values, near-lattices and extreme values."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 300))
    cols = [
        rng.integers(-5, 6, n) * 0.25,
        rng.poisson(0.3, n).astype(float),
        np.round(rng.normal(size=n), int(rng.integers(0, 4))),
        rng.normal(size=n),
        np.full(n, 2.5),
        np.where(rng.random(n) < 0.3, np.nan, rng.integers(0, 4, n) * 3.0),
        np.where(rng.random(n) < 0.2, rng.choice([np.inf, -np.inf], n), rng.integers(0, 9, n)),
        rng.integers(0, 4, n) * 1e-3 + 1e12,  # a step below the values' rounding
        rng.integers(0, 3, n) * 2.0**-33 + rng.integers(0, 2, n),  # 8.6e9 steps across
        np.where(rng.random(n) < 0.5, 0.0, 1.0) + rng.normal(size=n) * 1e-13,  # near-lattice
        rng.choice([1.7e308, -1.7e308, 0.0], n),
        rng.choice([0.0, 5.24288e5, 2.91644881e-303], n),
        np.full(n, np.nan),
    ]
    X = np.column_stack(cols)
    got = bandwidth_module.lattice_spacing(X)
    want = _lattice_spacing_one_column_at_a_time(X)
    np.testing.assert_array_equal(got, want)
    assert np.isfinite(got[:3]).all() and np.isnan(got[3:5]).all()
    one = bandwidth_module.lattice_spacing(X[:1])
    assert np.isnan(one).all() and one.shape == (X.shape[1],)


def test_lattice_floor_floors_lattice_features_only():
    rng = np.random.default_rng(5)
    y = np.repeat([0, 1], 100)
    # feature 0: nearly all zeros in class 0 (Scott's bandwidth far below the step of 1);
    # feature 1: continuous
    x0 = np.where(rng.random(200) < 0.95 - 0.5 * y, 0.0, rng.integers(1, 4, 200))
    X = np.column_stack([x0, rng.normal(size=200)])
    for dim in (1, 2):
        h0 = class_bandwidths(X, y, dim=dim)
        h1 = class_bandwidths(X, y, dim=dim, lattice_floor=1.0)
        assert h0[0, 0] < 0.5  # the spike the floor is for
        np.testing.assert_array_equal(h1[:, 0], np.maximum(h0[:, 0], 1.0))
        np.testing.assert_array_equal(h1[:, 1], h0[:, 1])  # continuous: untouched
        h_half = class_bandwidths(X, y, dim=dim, lattice_floor=0.5)
        np.testing.assert_array_equal(h_half[:, 0], np.maximum(h0[:, 0], 0.5))


def test_lattice_floor_reaches_every_density_estimator_and_uses_training_rows_only():
    from slb import SLBClassifier
    from slb.peers.naive_bayes import KDENaiveBayes
    from slb.peers.tan import TANClassifier

    rng = np.random.default_rng(6)
    y = np.repeat([0, 1], 60)
    X = np.column_stack([2 * rng.poisson(0.2 + 0.5 * y), rng.normal(size=120) + y])
    X[:, 0] += 4 * (rng.random(120) < 0.1)  # even values: step 2
    est = [
        KDENaiveBayes(lattice_floor=1.0),
        TANClassifier(lattice_floor=1.0),
        SLBClassifier(lattice_floor=1.0, threshold=0.0, C=1.0),
        LogDensityTransformer(lattice_floor=1.0),
    ]
    for e in est:
        e.fit(X, y)
        tr = getattr(e, "transformer_", e)
        assert tr.bandwidths_[:, 0].min() >= 2.0 - 1e-12, type(e).__name__
        assert tr.pair_bandwidths_[:, 0].min() >= 2.0 - 1e-12, type(e).__name__
    off = KDENaiveBayes(lattice_floor=0).fit(X, y).transformer_.bandwidths_[:, 0]
    assert off.min() < 2.0  # without the floor the bandwidth is below the step


def test_lattice_step_comes_from_the_training_rows_only(monkeypatch):
    """Rows never fitted on (test rows with odd values, which would halve the step) do not
    reach lattice_spacing: during a nested default SLB fit on 96 of 120 rows it only ever sees
    training rows (the 96, or an inner fold's), and a transform does not change the floor."""
    from slb import SLBClassifier

    rng = np.random.default_rng(6)
    y = np.repeat([0, 1], 60)
    X = np.column_stack([2 * rng.poisson(0.2 + 0.5 * y), rng.normal(size=120) + y])
    X[::5, 0] = 1.0  # odd values, all of them in the rows held out below
    test = np.zeros(120, dtype=bool)
    test[::5] = True
    assert bandwidth_module.lattice_spacing(X)[0] == 1.0  # with the held-out rows: step 1
    assert bandwidth_module.lattice_spacing(X[~test])[0] == 2.0  # training rows: step 2
    seen = []
    real = bandwidth_module.lattice_spacing

    def spy(Z):
        seen.append(np.asarray(Z).shape[0])
        return real(Z)

    monkeypatch.setattr(bandwidth_module, "lattice_spacing", spy)
    clf = SLBClassifier(random_state=0).fit(X[~test], y[~test])
    assert seen and max(seen) == 96  # the training rows, and inner folds' subsets of them
    tr = LogDensityTransformer().fit(X[~test], y[~test])  # the default floor: 1 step
    h = tr.bandwidths_.copy()
    tr.transform(X[test])
    clf.predict(X[test])
    np.testing.assert_array_equal(tr.bandwidths_, h)
    assert h[:, 0].min() >= 2.0 - 1e-12  # the training rows' step (2), not the data's (1)


def test_lattice_floor_is_a_no_op_on_continuous_data():
    from slb.peers.naive_bayes import KDENaiveBayes

    rng = np.random.default_rng(7)
    y = np.repeat([0, 1], 50)
    X = rng.normal(size=(100, 4)) + 0.5 * y[:, None]
    a = KDENaiveBayes().fit(X, y).predict_proba(X)
    b = KDENaiveBayes(lattice_floor=1.0).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(a, b)


def test_lattice_floor_rejects_a_negative_value():
    with pytest.raises(ValueError, match="lattice_floor"):
        LogDensityTransformer(lattice_floor=-1.0).fit(np.eye(4), [0, 0, 1, 1])


@pytest.mark.parametrize(
    "values",
    [
        [0.0, 0.0, 5.24288e5, 2.91644881e-303],  # a subnormal step beside a large gap
        [1.7e308, -1.7e308],  # a gap beyond the float range
        [0.0, 1e-12, 1.0],  # a trillion steps across the range
    ],
)
def test_lattice_spacing_extreme_values_are_no_lattice_and_warn_nothing(values):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow warning would fail here (the fuzz test's)
        got = bandwidth_module.lattice_spacing(np.asarray(values, dtype=float)[:, None])
    assert np.isnan(got).all()
