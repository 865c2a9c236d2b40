"""Tests of the plotly figure builders (slb.viz.figures) and the dashboard's safety helpers."""

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from dashboard.safety import escape_markdown, neutralise_csv_cell, safe_csv_bytes
from slb import SLBClassifier, TANClassifier, dependence_matrix, make_forest_bn
from slb._utils import all_pairs
from slb.density.kde import kde_pdf_1d
from slb.viz import figures


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(0)
    n, d = 80, 5
    X = rng.normal(size=(n, d))
    y = (rng.random(n) < 0.5).astype(int)
    X[y == 1, 1] = X[y == 1, 0] + 0.3 * rng.normal(size=(y == 1).sum())  # a + dependence
    X[y == 0, 3] = -X[y == 0, 2] + 0.3 * rng.normal(size=(y == 0).sum())  # a - dependence
    names = ["alpha", "beta", "gamma", "delta", "<b>eps</b>"]
    return pd.DataFrame(X, columns=names), y


def _bars(fig):
    return [t for t in fig.data if isinstance(t, go.Bar)]


def test_heatmap_axes_are_feature_names(small):
    X, y = small
    res = dependence_matrix(X.to_numpy()[y == 1])
    fig = figures.dependence_heatmap(res.statistic, res.pvalue, list(X.columns), title="+")
    hm = fig.data[0]
    expected = [figures.escape_text(n) for n in X.columns]
    assert list(hm.x) == expected and list(hm.y) == expected
    assert np.asarray(hm.customdata).shape == (5, 5)
    assert "p-value" in hm.hovertemplate and "HSIC" in hm.hovertemplate
    # user HTML never reaches the figure unescaped
    assert "<b>eps</b>" not in fig.to_json()


def test_heatmap_cluster_order_is_a_permutation(small):
    X, y = small
    res = dependence_matrix(X.to_numpy()[y == 0])
    order = figures.cluster_order(res.statistic)
    assert sorted(order.tolist()) == list(range(5))
    fig = figures.dependence_heatmap(res.statistic, res.pvalue, list(X.columns), order=order)
    assert list(fig.data[0].x) == [figures.escape_text(X.columns[i]) for i in order]
    # the dependent pair (gamma, delta) ends up adjacent
    pos = {int(v): k for k, v in enumerate(order)}
    assert abs(pos[2] - pos[3]) == 1


def test_pair_graph_edges_are_kept_pairs(small):
    X, y = small
    d = X.shape[1]
    stat = np.stack([dependence_matrix(X.to_numpy()[y == c]).statistic for c in (0, 1)])
    pairs = all_pairs(d)
    ps = stat[:, pairs[:, 0], pairs[:, 1]]
    pos = figures.pair_graph_layout(d, pairs, ps.max(axis=0))
    assert pos.shape == (d, 2)
    for lam in (0.0, np.quantile(ps.max(axis=0), 0.7), ps.max() + 1):
        keep = (ps >= lam).any(axis=0)
        idx = np.flatnonzero(keep)
        fig = figures.pair_graph(list(X.columns), pairs[idx], ps[:, idx], ps[:, idx] >= lam, pos)
        assert fig.layout.meta["n_edges"] == keep.sum()
        hover = next(t for t in fig.data if t.name == "pair hover")
        assert len(hover.x) == keep.sum()
        # every edge is drawn exactly once: 3 coordinates (a, b, None) per edge
        n_seg = sum(len(t.x) // 3 for t in fig.data if t.mode == "lines")
        assert n_seg == keep.sum()


def test_pair_graph_edge_colours_by_class():
    names = ["a", "b", "c", "d"]
    pairs = np.array([[0, 1], [1, 2], [2, 3]])
    strength = np.array([[0.1, 0.9, 0.8], [0.9, 0.1, 0.8]])  # rows: -, +
    dep = strength >= 0.5
    fig = figures.pair_graph(names, pairs, strength, dep, np.random.default_rng(0).random((4, 2)))
    colours = {t.legendgroup: t.line.color for t in fig.data if t.mode == "lines"}
    assert colours == {
        "+": figures.COLORS["+"],
        "-": figures.COLORS["-"],
        "both": figures.COLORS["both"],
    }


def test_histogram_has_threshold_line():
    fig = figures.dependence_histogram([0.1, 0.2, 0.3], [0.05, 0.4], 0.25)
    assert len([t for t in fig.data if isinstance(t, go.Histogram)]) == 2
    assert any(s.type == "line" and s.x0 == 0.25 for s in fig.layout.shapes)


def test_density_1d_changes_with_bandwidth(small):
    X, y = small
    x = X["alpha"].to_numpy()
    f1 = figures.density_1d(x, y, [0.3, 0.3], feature="alpha")
    f2 = figures.density_1d(x, y, [0.6, 0.6], feature="alpha")
    k1 = next(t for t in f1.data if t.name == "KDE +")
    k2 = next(t for t in f2.data if t.name == "KDE +")
    assert not np.allclose(k1.y, k2.y)
    # the curve is slb's KDE of the positive class
    np.testing.assert_allclose(k1.y, kde_pdf_1d(x[y == 1], np.asarray(k1.x), 0.3))
    assert f1.layout.meta["bandwidth_pos"] == 0.3


def test_density_2d_has_contours_and_scatter(small):
    X, y = small
    f = figures.density_2d(
        X["alpha"], X["beta"], y, [0.4, 0.4], [0.5, 0.5], feature_a="alpha", feature_b="beta"
    )
    assert {t.name for t in f.data if isinstance(t, go.Contour)} == {"KDE +", "KDE −"}
    n_points = sum(len(t.x) for t in f.data if isinstance(t, go.Scatter))
    assert n_points == len(y)


def test_ber_bars_one_bar_per_classifier():
    pf = pd.DataFrame({"SLB": [0.1, 0.2, 0.15], "TAN": [0.2, 0.25, 0.3], "NB": [0.3, 0.2, 0.4]})
    fig = figures.ber_bars(pf)
    bar = _bars(fig)[0]
    assert list(bar.x) == ["SLB", "TAN", "NB"]  # sorted by mean BER
    np.testing.assert_allclose(bar.y, 100 * pf.mean()[["SLB", "TAN", "NB"]].to_numpy())
    pts = next(t for t in fig.data if t.name == "per fold")
    assert len(pts.y) == pf.size


def test_ber_curve_marks_current_lambda():
    curve = pd.DataFrame(
        {
            "threshold": [0.0, 0.1, 0.2],
            "mean_ber": [0.2, 0.15, 0.3],
            "sd_ber": [0.01, 0.02, 0.03],
            "mean_pairs": [10, 5, 0],
        }
    )
    fig = figures.ber_curve(curve, 0.1, 0.15)
    assert any(s.type == "line" and s.x0 == 0.1 for s in fig.layout.shapes)
    assert any(t.name == "current λ" for t in fig.data)


def test_coefficient_bars_match_coef(small):
    X, y = small
    clf = SLBClassifier(threshold=0.0, random_state=0).fit(X, y)
    fig = figures.coefficient_figure(clf.coef_, feature_names=list(X.columns), n_visible=10)
    bars = _bars(fig)
    assert sum(len(b.x) for b in bars) == len(clf.coef_) == fig.layout.meta["n_terms"]
    shown = {lab: v for b in bars for lab, v in zip(b.y, b.x, strict=True)}
    for term, w in clf.coef_.items():
        assert shown[figures.escape_text(term)] == pytest.approx(w)
    # univariate and bivariate terms of both classes are distinct traces
    assert {b.name.split(" terms")[0] + b.name.split("class ")[1][0] for b in bars} == {
        "univariate+",
        "univariate−",
        "bivariate+",
        "bivariate−",
    }
    assert "<b>eps</b>" not in fig.to_json()


def test_coefficients_with_oracle():
    syn = make_forest_bn(n_train=200, n_test=0, d=6, random_state=1)
    clf = SLBClassifier(threshold=0.0, random_state=0).fit(syn.X_train, syn.y_train)
    fig = figures.coefficient_figure(clf.coef_, oracle=syn.oracle_coef)
    s = fig.layout.meta["scale"]
    assert s == pytest.approx(figures.oracle_scale(clf.coef_, syn.oracle_coef))
    assert s > 0  # SLB's weights point the oracle's way
    oracle_trace = next(t for t in fig.data if t.name.startswith("oracle"))
    assert len(oracle_trace.x) == len(syn.oracle_coef)
    assert sum(len(b.x) for b in _bars(fig)) == len(clf.coef_)


def test_oracle_scale_is_least_squares():
    c = pd.Series({"a": 1.0, "b": 2.0})
    o = pd.Series({"a": 2.0, "b": 4.0, "c": 1.0})
    assert figures.oracle_scale(c, o) == pytest.approx(2.0)


def test_term_kind_handles_commas_in_names():
    names = ["x, y", "z"]
    assert figures.term_kind("log p+(x, y)", names) == ("+", "univariate")
    assert figures.term_kind("log p-(x, y, z)", names) == ("-", "bivariate")
    assert figures.term_kind("log p-(z)") == ("-", "univariate")


def test_contributions_figure_sums_to_decision(small):
    X, y = small
    clf = SLBClassifier(threshold=0.0, random_state=0).fit(X, y)
    contrib, baseline = clf.contributions(X.iloc[:3])
    fig = figures.contributions_figure(contrib.iloc[0], baseline=baseline, top=5)
    wf = next(t for t in fig.data if isinstance(t, go.Waterfall))
    assert len(wf.x) == 8  # baseline, 5 terms, "others", total (a waterfall since issue 13)
    assert sum(wf.x[:-1]) == pytest.approx(clf.decision_function(X.iloc[:1])[0])
    assert fig.layout.meta["decision"] == pytest.approx(clf.decision_function(X.iloc[:1])[0])


def test_tree_graph_has_tan_edges(small):
    X, y = small
    tan = TANClassifier().fit(X, y)
    for label in tan.trees_:
        fig = figures.tree_graph(list(X.columns), tan.trees_[label], tan.mutual_info_[label])
        assert fig.layout.meta["n_edges"] == X.shape[1] - 1
        edges = next(t for t in fig.data if t.name == "edges")
        assert len(edges.x) == 3 * (X.shape[1] - 1)


def test_figures_module_does_not_import_streamlit():
    import slb.viz.figures as f

    src = open(f.__file__, encoding="utf-8").read()
    assert "import streamlit" not in src


# --- dashboard.safety -----------------------------------------------------------------------
@pytest.mark.parametrize("cell", ["=1+1", "+cmd", "-2+3", "@SUM(A1)", "\t=x", "\r=x"])
def test_formula_cells_are_neutralised(cell):
    assert neutralise_csv_cell(cell) == "'" + cell


def test_csv_neutralises_text_not_numbers():
    df = pd.DataFrame({"=name": ['=HYPERLINK("x")', "ok"], "w": [-1.5, 2.0]})
    text = safe_csv_bytes(df).decode()
    assert "'=HYPERLINK" in text and "'=name" in text
    assert "-1.5" in text and "'-1.5" not in text


def test_escape_markdown():
    s = escape_markdown("[click](http://evil) <b>x</b> *y*\n# z")
    assert "](" not in s.replace("\\](", "").replace("\\(", "")
    assert "<b>" not in s and "\n" not in s
