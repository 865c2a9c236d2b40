"""Tests of the synthetic Bayesian-network designs (slb.data.synthetic).

The checks recompute what they test independently of the module where they can: correlations
predicted from the graph alone, a small HSIC written here, Gaussian marginals from scipy, and
the complex CPDs' distribution functions written out by hand.
"""

import dataclasses

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

from slb.data.synthetic import (
    bayes_error,
    gaussian_parameters,
    log_likelihood_ratio,
    make_forest_bn,
    make_general_bn,
    oracle_coefficients,
    sample,
    term_name,
    true_log_density_terms,
)

COLS20 = [f"x{k}" for k in range(1, 21)]


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------
def _class_frame(ds, label):
    return ds.X_train[ds.y_train == label]


def _root_of(g, node):
    while True:
        ps = list(g.predecessors(node))
        if not ps:
            return node
        node = ps[0]


def _depth(g, node):
    return nx.shortest_path_length(g, _root_of(g, node), node)


def _tree_id(g):
    return {c: _root_of(g, c) for c in g.nodes}


def _centred_gram(v):
    """H K H for a Gaussian kernel with the median heuristic sigma^2 = median|vi - vj|^2 / 2."""
    n = len(v)
    d2 = (v[:, None] - v[None, :]) ** 2
    K = np.exp(-d2 / np.median(d2[np.triu_indices(n, 1)]))
    return K - K.mean(0) - K.mean(1)[:, None] + K.mean()


def _hsic_matrix(X):
    """Biased HSIC 1/n^2 tr(K H L H) = <HKH, HLH>_F / n^2 of every pair of columns."""
    G = np.stack([_centred_gram(X[:, k]) for k in range(X.shape[1])]).reshape(X.shape[1], -1)
    return G @ G.T / len(X) ** 2


def _complex_forest_cdf(r):
    """CDF of X - z under the complex forest CPD: 1/2 t_5 + 1/4 N(1, 1) + 1/4 N(-1, 1)."""
    return 0.5 * stats.t.cdf(r, 5) + 0.25 * stats.norm.cdf(r - 1) + 0.25 * stats.norm.cdf(r + 1)


# ---------------------------------------------------------------------------------------------
# shapes, labels, balance, seeds
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("maker", [make_forest_bn, make_general_bn])
def test_shapes_labels_and_names(maker):
    ds = maker(n_train=400, random_state=1)
    assert isinstance(ds.X_train, pd.DataFrame) and isinstance(ds.X_test, pd.DataFrame)
    assert list(ds.X_train.columns) == COLS20 == list(ds.X_test.columns)
    assert ds.X_train.shape == (400, 20) and ds.X_test.shape == (1000, 20)
    for y in (ds.y_train, ds.y_test):
        assert isinstance(y, np.ndarray) and np.issubdtype(y.dtype, np.integer)
        assert set(np.unique(y)) == {-1, 1}
    assert (ds.y_test == 1).sum() == 500 and (ds.y_test == -1).sum() == 500
    assert np.isfinite(ds.X_train.to_numpy()).all()
    for label in (1, -1):
        g = ds.graphs[label]
        assert isinstance(g, nx.DiGraph) and list(g.nodes) == COLS20
    # rows are shuffled, not sorted by class
    assert 50 < (ds.y_train[:200] == 1).sum() < 150


@pytest.mark.parametrize("balance", [0.75, "imbalanced"])
@pytest.mark.parametrize("n_train", [200, 1000])
def test_imbalanced_split_is_exact(balance, n_train):
    ds = make_forest_bn(n_train=n_train, balance=balance, random_state=3)
    assert (ds.y_train == 1).sum() == round(0.75 * n_train)
    assert (ds.y_train == -1).sum() == n_train - round(0.75 * n_train)
    assert (ds.y_test == 1).sum() == (ds.y_test == -1).sum() == 500  # test stays 50/50
    assert ds.design["n_train_pos"] == round(0.75 * n_train)


def test_balanced_split_and_odd_sizes():
    ds = make_general_bn(n_train=600, n_test=301, balance="balanced", random_state=3)
    assert (ds.y_train == 1).sum() == 300 and (ds.y_train == -1).sum() == 300
    assert len(ds.y_test) == 301 and abs((ds.y_test == 1).sum() - (ds.y_test == -1).sum()) == 1
    with pytest.raises(ValueError):
        make_forest_bn(balance=1.5)
    with pytest.raises(ValueError):
        make_forest_bn(cpd="gamma")


@pytest.mark.parametrize(
    "maker, kw",
    [(make_forest_bn, {"cpd": "complex"}), (make_general_bn, {"cpd": "complex", "shared": True})],
)
def test_same_seed_same_data_different_seed_different_data(maker, kw):
    a, b, c = (maker(n_train=300, random_state=s, **kw) for s in (7, 7, 8))
    pd.testing.assert_frame_equal(a.X_train, b.X_train)
    pd.testing.assert_frame_equal(a.X_test, b.X_test)
    np.testing.assert_array_equal(a.y_train, b.y_train)
    for label in (1, -1):
        assert sorted(a.graphs[label].edges) == sorted(b.graphs[label].edges)
    assert not np.allclose(a.X_train.to_numpy(), c.X_train.to_numpy())
    assert any(sorted(a.graphs[k].edges) != sorted(c.graphs[k].edges) for k in (1, -1))
    # the networks depend on the seed only: a learning curve over n uses one design
    d = maker(n_train=1000, random_state=7, **kw)
    for label in (1, -1):
        assert sorted(a.graphs[label].edges) == sorted(d.graphs[label].edges)
    # a Generator is accepted and consumed
    rng = np.random.default_rng(5)
    e, f = maker(n_train=50, random_state=rng, **kw), maker(n_train=50, random_state=rng, **kw)
    assert not np.allclose(e.X_train.to_numpy(), f.X_train.to_numpy())


# ---------------------------------------------------------------------------------------------
# forests: structure and dependence
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_forest_graphs_are_forests_with_own_structure(seed):
    ds = make_forest_bn(random_state=seed)
    for label in (1, -1):
        g = ds.graphs[label]
        assert nx.is_forest(g.to_undirected())
        assert nx.number_connected_components(g.to_undirected()) == ds.design["n_trees"] == 4
        assert all(g.in_degree(c) <= 1 for c in g.nodes)
        assert g.number_of_edges() == 20 - 4
    assert set(map(frozenset, ds.graphs[1].edges)) != set(map(frozenset, ds.graphs[-1].edges))


def test_forest_normal_edges_match_linear_gaussian_and_trees_are_independent():
    ds = make_forest_bn(n_train=8000, n_test=0, cpd="normal", random_state=11)
    for label in (1, -1):
        g, X = ds.graphs[label], _class_frame(ds, label)
        n = len(X)
        R = X.corr().to_numpy()
        pos = {c: k for k, c in enumerate(COLS20)}
        for parent, child in g.edges:
            var_p = _depth(g, parent) + 1.0  # Var = depth + 1 along a chain of N(z, 1)
            r_pred = np.sqrt(var_p / (var_p + 1.0))
            assert abs(R[pos[parent], pos[child]] - r_pred) < 0.03, (label, parent, child)
            slope, intercept = np.polyfit(X[parent], X[child], 1)
            resid = X[child] - slope * X[parent] - intercept
            assert abs(slope - 1) < 0.06 and abs(resid.var() - 1) < 0.1
        tree = _tree_id(g)
        cross = [
            (a, b) for i, a in enumerate(COLS20) for b in COLS20[i + 1 :] if tree[a] != tree[b]
        ]
        assert len(cross) > 50
        worst = max(abs(R[pos[a], pos[b]]) for a, b in cross)
        assert worst < 5 / np.sqrt(n), worst


@pytest.mark.parametrize("cpd", ["normal", "complex"])
def test_forest_hsic_separates_edges_from_cross_tree_pairs(cpd):
    ds = make_forest_bn(n_train=1000, n_test=0, cpd=cpd, random_state=4)
    for label in (1, -1):
        g, X = ds.graphs[label], _class_frame(ds, label)
        tree, pos = _tree_id(g), {c: k for k, c in enumerate(COLS20)}
        S = _hsic_matrix(X.to_numpy())
        edge_h = [S[pos[a], pos[b]] for a, b in g.edges]
        cross_h = [
            S[pos[a], pos[b]]
            for i, a in enumerate(COLS20)
            for b in COLS20[i + 1 :]
            if tree[a] != tree[b]
        ]
        assert min(edge_h) > 2 * max(cross_h), (min(edge_h), max(cross_h))


def test_forest_complex_residuals_follow_the_cpd():
    ds = make_forest_bn(n_train=4000, n_test=0, cpd="complex", random_state=5)
    resid, parents = [], []
    for label in (1, -1):
        g, X = ds.graphs[label], _class_frame(ds, label)
        for parent, child in g.edges:
            resid.append((X[child] - X[parent]).to_numpy())
            parents.append(X[parent].to_numpy())
        roots = [c for c in COLS20 if g.in_degree(c) == 0]
        assert stats.kstest(X[roots].to_numpy().ravel(), "norm").pvalue > 1e-3
    resid, parents = np.concatenate(resid), np.concatenate(parents)
    assert stats.kstest(resid, _complex_forest_cdf).pvalue > 1e-3
    assert abs(np.corrcoef(resid, parents)[0, 1]) < 0.02
    # the check has power: Gaussian residuals of the same variance are rejected
    assert stats.kstest(resid, "norm", args=(0, resid.std())).pvalue < 1e-3


# ---------------------------------------------------------------------------------------------
# Lemma 1: oracle coefficients
# ---------------------------------------------------------------------------------------------
def _true_terms_scipy(ds, X, names):
    """log-density terms from the exact Gaussian marginals, via scipy."""
    pos = {c: k for k, c in enumerate(COLS20)}
    out = {}
    for name in names:
        sign = 1 if name.startswith("log p+") else -1
        cols = name[name.index("(") + 1 : -1].split(", ")
        _, cov = gaussian_parameters(ds, sign)
        idx = [pos[c] for c in cols]
        out[name] = stats.multivariate_normal(np.zeros(len(idx)), cov[np.ix_(idx, idx)]).logpdf(
            X[cols].to_numpy()
        )
    return pd.DataFrame(out)


@pytest.mark.parametrize("seed", [0, 9])
def test_oracle_coefficients_reproduce_the_log_likelihood_ratio(seed):
    ds = make_forest_bn(n_train=50, n_test=200, cpd="normal", random_state=seed)
    coef = ds.oracle_coef
    # layout: every univariate term of both classes, and exactly the edges
    assert all(term_name(s, c) in coef.index for s in (1, -1) for c in COLS20)
    n_pairs = sum(", " in k for k in coef.index)
    assert n_pairs == ds.graphs[1].number_of_edges() + ds.graphs[-1].number_of_edges() == 32
    for label, sign in ((1, 1), (-1, -1)):
        g = ds.graphs[label].to_undirected()
        for c in COLS20:
            assert coef[term_name(label, c)] == sign * (1 - g.degree(c))
        for a, b in g.edges:
            a, b = sorted((a, b), key=COLS20.index)
            assert coef[term_name(label, a, b)] == sign
    assert coef.equals(oracle_coefficients(ds.graphs, COLS20))

    rng = np.random.default_rng(seed)
    X = pd.concat(
        [ds.X_test, pd.DataFrame(rng.normal(scale=3.0, size=(100, 20)), columns=COLS20)],
        ignore_index=True,
    )
    terms = _true_terms_scipy(ds, X, coef.index)
    llr = log_likelihood_ratio(ds, X)
    # the exact LLR is the linear-Gaussian one
    mvn = {s: stats.multivariate_normal(*gaussian_parameters(ds, s)) for s in (1, -1)}
    np.testing.assert_allclose(llr, mvn[1].logpdf(X) - mvn[-1].logpdf(X), rtol=1e-9, atol=1e-7)
    assert np.std(llr) > 1.0  # a non-trivial ratio
    combo = terms.to_numpy() @ coef.to_numpy()
    gap = llr - combo
    assert np.ptp(gap) < 1e-7 and abs(np.mean(gap)) < 1e-7  # Lemma 1, intercept 0
    # the library's own true terms agree with scipy
    lib = true_log_density_terms(ds, X)[list(coef.index)]
    np.testing.assert_allclose(lib.to_numpy(), terms.to_numpy(), rtol=1e-9, atol=1e-9)
    # and the check has power: one wrong univariate weight breaks it
    bad = coef.copy()
    bad[term_name(1, "x1")] += 1
    assert np.ptp(llr - terms.to_numpy() @ bad.to_numpy()) > 1.0


def test_general_bn_has_no_oracle_and_forest_llr_matches_for_complex():
    assert make_general_bn(n_train=20, random_state=0).oracle_coef is None
    ds = make_forest_bn(n_train=20, cpd="complex", random_state=0)
    assert ds.oracle_coef is not None  # Lemma 1 holds for any forest, complex marginals too
    with pytest.raises(ValueError):
        gaussian_parameters(ds, 1)


# ---------------------------------------------------------------------------------------------
# general Bayesian networks
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shared", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_general_bn_structure(shared, seed):
    ds = make_general_bn(n_train=20, n_test=0, shared=shared, random_state=seed)
    same = []
    for label in (1, -1):
        g = ds.graphs[label]
        assert nx.is_directed_acyclic_graph(g)
        indeg = dict(g.in_degree())
        assert set(indeg.values()) <= {0, 3}
        assert sum(v == 0 for v in indeg.values()) == 3
        for c in COLS20:
            assert set(g.nodes[c]["parents"]) == set(g.predecessors(c))
    for c in COLS20:
        p1, p2 = ds.graphs[1].nodes[c]["parents"], ds.graphs[-1].nodes[c]["parents"]
        if p1 and p1 == p2:
            same.append(c)
    if shared:
        assert sorted(same, key=COLS20.index) == ds.design["shared_nodes"]
        assert len(same) == 7  # round(20 / 3)
    else:
        assert len(same) <= 1 and ds.design["shared_nodes"] == []


@pytest.mark.parametrize(
    "cpd, slopes", [("normal", (1.0, 1.0, 1.0)), ("complex", (0.75, 1.0, 0.75))]
)
def test_general_bn_children_regress_on_their_parents(cpd, slopes):
    # E[X | z] = z1 + z2 + z3 (normal) or 1/2 (z1+z2+z3) + 1/4 (z1+z2) + 1/4 (z2+z3) (complex)
    ds = make_general_bn(n_train=6000, n_test=0, cpd=cpd, random_state=21)
    ses = []
    for label in (1, -1):
        g, X = ds.graphs[label], _class_frame(ds, label)
        for c in COLS20:
            ps = list(g.nodes[c]["parents"])
            if not ps:
                assert abs(X[c].var() - 1) < 0.1
                continue
            A = np.column_stack([X[ps].to_numpy(), np.ones(len(X))])
            beta, *_ = np.linalg.lstsq(A, X[c].to_numpy(), rcond=None)
            resid = X[c].to_numpy() - A @ beta
            # heteroscedasticity-robust (sandwich) standard errors: parents can be collinear
            bread = np.linalg.inv(A.T @ A)
            se = np.sqrt(np.diag(bread @ (A.T * resid**2) @ A @ bread))[:3]
            assert np.all(np.abs(beta[:3] - slopes) < np.maximum(0.05, 5 * se)), (
                label,
                c,
                beta,
                se,
            )
            ses.append(se)
            if cpd == "normal":
                assert abs(np.var(resid) - 1) < 0.12
    assert np.median(ses) < 0.06  # the check has power against a 0.25 change of slope


def test_general_bn_normal_covariance_matches_sample():
    ds = make_general_bn(n_train=8000, n_test=0, cpd="normal", shared=True, random_state=2)
    for label in (1, -1):
        _, cov = gaussian_parameters(ds, label)
        sd = np.sqrt(np.diag(cov))
        X = _class_frame(ds, label)
        np.testing.assert_allclose(X.corr().to_numpy(), cov / np.outer(sd, sd), atol=0.06)
        np.testing.assert_allclose(X.std().to_numpy() / sd, 1, atol=0.08)


def test_general_bn_complex_conditional_matches_density():
    """Probability integral transform of a three-parent node under its explicit CPD."""
    ds = make_general_bn(n_train=0, n_test=0, d=4, cpd="complex", random_state=0)
    X, y = sample(ds, 6000, 0, random_state=1)
    g = ds.graphs[1]
    (child,) = [c for c in g.nodes if g.in_degree(c) == 3]
    z1, z2, z3 = (X[p].to_numpy() for p in g.nodes[child]["parents"])
    x = X[child].to_numpy()
    u = (
        0.5 * stats.t.cdf(x - z1 - z2 - z3, 5)
        + 0.25 * stats.norm.cdf(x - z1 - z2)
        + 0.25 * stats.norm.cdf(x - z2 - z3)
    )
    assert stats.kstest(u, "uniform").pvalue > 1e-3
    # the conditional density integrates to one: joint / roots, on a grid in the child
    grid = np.linspace(-60, 60, 24001)
    roots = [c for c in ds.columns if c != child]
    for row in range(3):
        pts = pd.DataFrame(np.repeat(X.iloc[[row]].to_numpy(), len(grid), 0), columns=ds.columns)
        pts[child] = grid + z1[row] + z2[row] + z3[row]
        logc = ds.models[1].logpdf(pts) - stats.norm.logpdf(pts[roots]).sum(axis=1)
        # scipy's trapezoid: numpy's exists only from numpy 2.0 (the floor is 1.26)
        assert abs(integrate.trapezoid(np.exp(logc), grid) - 1) < 1e-4


# ---------------------------------------------------------------------------------------------
# Bayes error
# ---------------------------------------------------------------------------------------------
def test_bayes_error_of_forest_normal_balanced_is_sensible():
    ds = make_forest_bn(cpd="normal", balance="balanced", random_state=0)
    ber, se = bayes_error(ds, n_mc=200_000, random_state=0, return_se=True)
    print(
        f"\nBayes BER, forest-normal-balanced, d=20, seed 0: {100 * ber:.2f}% (MC se {100 * se:.2f}%)"
    )
    assert 0.001 < ber < 0.045  # the paper's best classifiers reach ~4.5-5% at n = 1000
    assert se < 0.001
    # the test set classified by the exact LLR agrees with it, up to sampling noise
    pred = np.where(log_likelihood_ratio(ds, ds.X_test) > 0, 1, -1)
    test_ber = 0.5 * (np.mean(pred[ds.y_test == 1] != 1) + np.mean(pred[ds.y_test == -1] != -1))
    assert abs(test_ber - ber) < 0.02
    # same seed, same estimate; imbalance does not change the design's Bayes BER
    assert bayes_error(ds, n_mc=200_000, random_state=0) == ber
    imb = make_forest_bn(cpd="normal", balance="imbalanced", random_state=0)
    assert bayes_error(imb, n_mc=200_000, random_state=0) == ber


def test_bayes_error_is_one_half_for_identical_classes_and_small_for_bn():
    ds = make_forest_bn(n_train=10, cpd="complex", random_state=3)
    twin = dataclasses.replace(ds, models={1: ds.models[1], -1: ds.models[1]})
    assert bayes_error(twin, n_mc=20_000) == 0.5
    # two different forests that share nothing: the Bayes classifier is far from chance
    assert bayes_error(ds, n_mc=50_000) < 0.05
    bn = make_general_bn(n_train=10, cpd="normal", random_state=3)
    assert bayes_error(bn, n_mc=50_000) < 0.01
