"""Behaviour tests of slb.density.features.LogDensityTransformer: names, the three training-row modes
against references built here from scipy normal densities, and the density floor."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.model_selection import StratifiedKFold

from slb import LogDensityTransformer

PAIRS = [("bmi", "glucose"), ("age", "pregnancies"), ("insulin", "skin_thickness")]


def ref_scale(x):
    """min(sd, IQR/1.349) ignoring a zero one; 1 for a constant feature."""
    sd = np.std(x, ddof=1)
    q75, q25 = np.percentile(x, [75, 25])
    pos = [s for s in (sd, (q75 - q25) / 1.349) if s > 0]
    return min(pos) if pos else 1.0


def kde1(train, e, h):
    return stats.norm.pdf(e[:, None], loc=train[None, :], scale=h).mean(axis=1)


def kde2(train, E, h):
    return (
        stats.norm.pdf(E[:, :1], loc=train[None, :, 0], scale=h[0])
        * stats.norm.pdf(E[:, 1:], loc=train[None, :, 1], scale=h[1])
    ).mean(axis=1)


def ref_map(X_tr, yi_tr, E, h1, h2, pairs, floor, loo_class=None):
    """The feature map by hand: (+ uni, - uni, + pairs, - pairs), floored logs.

    ``loo_class[r]`` is the class of row r of E when E's rows are the training rows (their own
    class's densities leave them out), -1 otherwise.
    """
    d = X_tr.shape[1]
    scale = np.array([ref_scale(X_tr[:, i]) for i in range(d)])
    blocks_u, blocks_b = [], []
    for c in (1, 0):  # "+" is classes_[1]
        Xc = X_tr[yi_tr == c]
        n_c = Xc.shape[0]
        own = np.zeros(len(E), bool) if loo_class is None else loo_class == c
        U = np.empty((len(E), d))
        for i in range(d):
            p = kde1(Xc[:, i], E[:, i], h1[c, i])
            k0 = 1 / (np.sqrt(2 * np.pi) * h1[c, i])
            p[own] = (n_c * p[own] - k0) / (n_c - 1)
            U[:, i] = np.log(np.maximum(p, floor / scale[i]))
        B = np.empty((len(E), len(pairs)))
        for k, (i, j) in enumerate(pairs):
            hh = h2[c, [i, j]]
            p = kde2(Xc[:, [i, j]], E[:, [i, j]], hh)
            k0 = 1 / (2 * np.pi * hh[0] * hh[1])
            p[own] = (n_c * p[own] - k0) / (n_c - 1)
            B[:, k] = np.log(np.maximum(p, floor / (scale[i] * scale[j])))
        blocks_u.append(U)
        blocks_b.append(B)
    return np.hstack(blocks_u + blocks_b)


@pytest.fixture
def pima_small(pima):
    X, y = pima
    return X.iloc[::2].reset_index(drop=True), y.iloc[::2].reset_index(drop=True)  # 384 rows


def _yi(t, y):
    return np.searchsorted(t.classes_, np.asarray(y))


def _pair_idx(t):
    return [tuple(p) for p in t.pairs_]


# ---------------------------------------------------------------------------------------------
# names
# ---------------------------------------------------------------------------------------------
def test_feature_names_with_dataframe(pima_small):
    X, y = pima_small
    t = LogDensityTransformer(pairs=PAIRS[:1]).fit(X, y)
    cols = list(X.columns)
    assert list(t.classes_) == ["diabetic", "healthy"]  # "+" is classes_[1]
    expected = (
        [f"log p+({c})" for c in cols]
        + [f"log p-({c})" for c in cols]
        + ["log p+(glucose, bmi)", "log p-(glucose, bmi)"]  # column order, not the given order
    )
    assert list(t.get_feature_names_out()) == expected
    assert "log p+(glucose)" in expected and "log p-(glucose, bmi)" in expected
    np.testing.assert_array_equal(t.pairs_, [[1, 5]])
    assert t.fit_transform(X, y).shape == (len(X), len(expected))
    assert t.transform(X.iloc[:3]).shape == (3, len(expected))


def test_feature_names_default_and_multiclass():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    t = LogDensityTransformer(pairs=[(0, 2)]).fit(X, np.repeat([0, 1], 30))
    assert list(t.get_feature_names_out()) == [
        "log p+(x0)",
        "log p+(x1)",
        "log p+(x2)",
        "log p-(x0)",
        "log p-(x1)",
        "log p-(x2)",
        "log p+(x0, x2)",
        "log p-(x0, x2)",
    ]
    t3 = LogDensityTransformer(pairs=[]).fit(X, np.repeat(["u", "v", "w"], 20))
    assert list(t3.get_feature_names_out())[:4] == [
        "log p[u](x0)",
        "log p[u](x1)",
        "log p[u](x2)",
        "log p[v](x0)",
    ]
    assert t3.transform(X).shape == (60, 9)


def test_pair_specifications(pima_small):
    X, y = pima_small
    t = LogDensityTransformer().fit(X, y)
    assert len(t.pairs_) == 28
    assert LogDensityTransformer(pairs=[]).fit(X, y).transform(X).shape[1] == 16
    with pytest.raises(ValueError, match="nosuch"):
        LogDensityTransformer(pairs=[("glucose", "nosuch")]).fit(X, y)
    with pytest.raises(ValueError, match="different"):
        LogDensityTransformer(pairs=[("bmi", "bmi")]).fit(X, y)


def test_index_pair_arrays_resolve_as_the_pair_loop_does():
    # resolve_pairs takes integer arrays vectorised: the same pairs (sorted, deduplicated, in
    # order) and the same first error as the general loop over tuples
    from slb._utils import resolve_pairs

    names = [f"x{i}" for i in range(9)]
    rng = np.random.default_rng(0)
    for k in (0, 1, 5, 80):
        a = rng.integers(0, 9, size=(k, 2))
        a = a[a[:, 0] != a[:, 1]]
        got = resolve_pairs(a, names)
        want = resolve_pairs([tuple(int(f) for f in p) for p in a], names)
        assert got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)
        if k > 1:
            assert got.shape[0] >= 1 and np.all(got[:, 0] < got[:, 1])
    for bad, msg in [
        ([[0, 1], [2, 2], [0, 9]], r"two different features, got \(2, 2\)"),
        ([[0, 1], [0, 9], [2, 2]], "index 9 is out of range for 9 features"),
        ([[-1, 2]], "index -1 is out of range"),
    ]:
        for form in (np.array(bad), [tuple(p) for p in bad]):
            with pytest.raises(ValueError, match=msg):
                resolve_pairs(form, names)


def test_feature_scales_are_the_robust_scale_of_every_column(pima_small):
    X, y = pima_small
    Xa = X.to_numpy(dtype=float).copy()
    Xa[:, 1] = 3.0  # constant: scale 1
    Xa[:, 2] = np.where(np.arange(len(Xa)) % 7 == 0, 1.0, 0.0)  # IQR 0: the sd
    t = LogDensityTransformer(pairs=[]).fit(Xa, y)
    want = np.array([ref_scale(Xa[:, i]) for i in range(Xa.shape[1])])
    assert np.array_equal(t.scale_, want)  # bit for bit


# ---------------------------------------------------------------------------------------------
# values: transform, LOO, k-fold, in-sample
# ---------------------------------------------------------------------------------------------
def test_transform_equals_reference(pima_small):
    X, y = pima_small
    t = LogDensityTransformer(pairs=PAIRS).fit(X, y)
    Xa = X.to_numpy()
    E = Xa[:50] + np.random.default_rng(1).normal(size=(50, 8))
    ref = ref_map(Xa, _yi(t, y), E, t.bandwidths_, t.pair_bandwidths_, _pair_idx(t), 1e-6)
    np.testing.assert_allclose(t.transform(pd.DataFrame(E, columns=X.columns)), ref, rtol=1e-9)


def test_fit_transform_uses_loo_for_own_class_columns(pima_small):
    X, y = pima_small
    t = LogDensityTransformer(pairs=PAIRS, training_features="loo")
    T_loo = t.fit_transform(X, y)
    T_in = t.transform(X)
    Xa, yi = X.to_numpy(), _yi(t, y)
    ref = ref_map(Xa, yi, Xa, t.bandwidths_, t.pair_bandwidths_, _pair_idx(t), 1e-6, loo_class=yi)
    np.testing.assert_allclose(T_loo, ref, rtol=1e-9, atol=1e-9)
    # Columns of the other class are the in-sample transform; own-class columns are lower
    # (the self-kernel is gone) unless floored.
    d, P = 8, len(PAIRS)
    plus_cols = np.r_[0:d, 2 * d : 2 * d + P]
    minus_cols = np.r_[d : 2 * d, 2 * d + P : 2 * d + 2 * P]
    pos, neg = yi == 1, yi == 0
    np.testing.assert_allclose(T_loo[np.ix_(neg, plus_cols)], T_in[np.ix_(neg, plus_cols)])
    np.testing.assert_allclose(T_loo[np.ix_(pos, minus_cols)], T_in[np.ix_(pos, minus_cols)])
    assert np.all(T_loo[np.ix_(pos, plus_cols)] <= T_in[np.ix_(pos, plus_cols)] + 1e-12)
    assert np.mean(T_loo[np.ix_(pos, plus_cols)] < T_in[np.ix_(pos, plus_cols)]) > 0.9


def test_insample_equals_transform(pima_small):
    X, y = pima_small
    t = LogDensityTransformer(pairs=PAIRS, training_features="insample")
    np.testing.assert_allclose(t.fit_transform(X, y), t.transform(X), rtol=1e-12)


@pytest.mark.parametrize("k", [3, 5])
def test_kfold_equals_manual_cross_fitting(pima_small, k):
    X, y = pima_small
    t = LogDensityTransformer(
        pairs=PAIRS, training_features="kfold", n_crossfit_folds=k, random_state=7
    )
    T = t.fit_transform(X, y)
    Xa, yi = X.to_numpy(), _yi(t, y)
    ref = np.empty_like(T)
    # Each fold's rows: densities of the other folds' rows, with the bandwidths and floor
    # scales of the whole training set (the fitted transformer's ones).
    scale_full = np.array([ref_scale(Xa[:, i]) for i in range(8)])
    folds = StratifiedKFold(k, shuffle=True, random_state=7).split(Xa, yi)
    for tr, te in folds:
        # ref_map's floor uses the scale of its training rows: rescale the floor to the
        # full-data scale instead by evaluating with floor 0 and flooring here.
        raw = ref_map(
            Xa[tr], yi[tr], Xa[te], t.bandwidths_, t.pair_bandwidths_, _pair_idx(t), 1e-300
        )
        fl_u = np.log(1e-6 / scale_full)
        fl_b = np.log([1e-6 / (scale_full[i] * scale_full[j]) for i, j in _pair_idx(t)])
        ref[te] = np.maximum(raw, np.concatenate([fl_u, fl_u, fl_b, fl_b]))
    np.testing.assert_allclose(T, ref, rtol=1e-9, atol=1e-9)
    # and it is not the LOO map
    T_loo = LogDensityTransformer(pairs=PAIRS).fit_transform(X, y)
    assert not np.allclose(T, T_loo)


def test_density_floor(pima_small):
    X, y = pima_small
    for floor in (1e-6, 1e-2):
        t = LogDensityTransformer(pairs=PAIRS, density_floor=floor)
        T = t.fit_transform(X, y)
        scale = np.array([ref_scale(X.iloc[:, i].to_numpy()) for i in range(8)])
        fl_u = np.log(floor / scale)
        fl_b = np.log([floor / (scale[i] * scale[j]) for i, j in _pair_idx(t)])
        lower = np.concatenate([fl_u, fl_u, fl_b, fl_b])
        assert np.all(T >= lower - 1e-12)
        far = t.transform(X.iloc[:4] * 0 + 1e6)  # far from every kernel: exactly the floor
        np.testing.assert_allclose(far, np.tile(lower, (4, 1)), rtol=1e-12)
        if floor == 1e-2:
            assert np.any(np.isclose(T, lower))  # the larger floor binds somewhere


def test_invalid_transformer_parameters(pima_small):
    X, y = pima_small
    for kw, word in [
        ({"bandwidth": "foo"}, "bandwidth"),
        ({"training_features": "foo"}, "training_features"),
        ({"density_floor": 0.0}, "density_floor"),
        ({"bandwidth_multiplier": -1.0}, "bandwidth_multiplier"),
    ]:
        with pytest.raises(ValueError, match=word):
            LogDensityTransformer(**kw).fit(X, y)
    t = LogDensityTransformer().fit(X.to_numpy(), y)
    with pytest.raises(ValueError, match="5 features.*expecting 8"):
        t.transform(X.iloc[:, :5].to_numpy())
