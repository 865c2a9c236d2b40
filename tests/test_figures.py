"""Tests of the plotly figure builders (slb.viz.figures) and the dashboard's safety helpers."""

import html

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from conftest import make_two_class

from dashboard.safety import escape_markdown, neutralise_csv_cell, safe_csv_bytes
from slb import SLBClassifier, TANClassifier, dependence_matrix, load_dataset, make_forest_bn
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
    cells = next(t for t in fig.data if t.name == "cells")
    cd = np.asarray(cells.customdata)
    assert cd.shape == (20, 4)  # (i, j, statistic, p-value) of every off-diagonal cell
    i, j = cd[:, 0].astype(int), cd[:, 1].astype(int)
    np.testing.assert_allclose(cd[:, 2], res.statistic[i, j])
    np.testing.assert_allclose(cd[:, 3], res.pvalue[i, j])
    assert "p-value" in cells.hovertemplate and "HSIC" in cells.hovertemplate
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


def test_clickable_pairs_name_each_clicked_point(small):
    """Issue 30 item 7: the pair of a clicked heatmap cell or graph edge comes from a library
    function, equal to the pair the point's own customdata carries, also after the figure went
    through JSON (plotly's base64 arrays are never decoded by the page)."""
    import json

    X, y = small
    res = dependence_matrix(X.to_numpy()[y == 1])
    order = np.array([3, 0, 4, 1, 2])
    fig = figures.dependence_heatmap(res.statistic, res.pvalue, list(X.columns), order=order)
    for f in (fig, json.loads(fig.to_json())):
        k, pairs = figures.clickable_pairs(f)
        cells = next(t for t in fig.data if t.name == "cells")
        assert fig.data[k].name == "cells"
        assert pairs.tolist() == np.asarray(cells.customdata)[:, :2].astype(int).tolist()
        assert len({tuple(p) for p in pairs}) == 20 and (pairs[:, 0] != pairs[:, 1]).all()
    kept = np.array([[0, 4], [2, 3]])
    g = figures.pair_graph(
        list(X.columns), kept, np.ones((2, 2)), np.ones((2, 2), bool), res.statistic[:, :2]
    )
    k, pairs = figures.clickable_pairs(json.loads(g.to_json()))
    assert g.data[k].name == "pair hover" and pairs.tolist() == kept.tolist()
    assert figures.clickable_pairs(figures.class_balance(3, 4))[0] is None


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


def test_ber_bars_error_bars_stay_between_0_and_100():
    """H43: on 15 rows TAN's mean BER 78% ± 30 drew a bar past 100%; the bar stops at 100% (and
    at 0%), the hover keeps the whole sd."""
    pf = pd.DataFrame({"SLB": [0.9, 0.3, 1.0, 0.9], "TAN": [0.0, 0.3, 0.0, 0.1]})
    bar = figures.ber_bars(pf).data[0]
    mean, sd = 100 * pf.mean().to_numpy(), 100 * pf.std().to_numpy()
    top, bottom = mean + np.asarray(bar.error_y.array), mean - np.asarray(bar.error_y.arrayminus)
    assert np.all(top <= 100 + 1e-9) and np.all(bottom >= -1e-9)
    assert top[0] == pytest.approx(100) and bottom[1] == pytest.approx(0)
    assert (mean + sd)[0] > 100 and (mean - sd)[1] < 0  # unclipped, both would cross
    np.testing.assert_allclose(bar.customdata, sd)


def test_ber_bars_turn_horizontal_when_the_names_do_not_fit_side_by_side():
    """H33: with every peer classifier added, plotly rotated the twelve names under the bars;
    the bars are horizontal then (SLB on top), names level, the per-fold points on their bar."""
    names = ["SLB", "TAN", "NB", "SLB-", "LU", "RF", "SVM(RBF)", "SVM(linear)", "5NN"]
    names += ["SVM(RBF, balanced)", "Gaussian NB", "Rényi", "DISCRETE"]
    pf = pd.DataFrame(np.random.default_rng(0).uniform(0.05, 0.4, (25, 13)), columns=names)
    fig = figures.ber_bars(pf)
    bar, pts = fig.data
    assert fig.layout.meta["orientation"] == "h" and bar.orientation == "h"
    assert list(bar.y) == names  # the catalogue's order, never re-sorted
    np.testing.assert_allclose(bar.x, 100 * pf.mean().to_numpy())
    np.testing.assert_allclose(bar.error_x.array, 100 * pf.std().to_numpy())
    np.testing.assert_allclose(bar.customdata, 100 * pf.std().to_numpy())  # hover: the sd
    assert tuple(fig.layout.yaxis.range) == tuple(fig.layout.yaxis2.range) == (12.5, -0.5)
    assert pts.yaxis == "y2" and pts.xaxis is None
    k = np.repeat(np.arange(13), 25)
    assert np.all(np.abs(np.asarray(pts.y) - k) < 0.2)  # each fold's point on its own bar
    np.testing.assert_allclose(pts.x, 100 * pf.to_numpy().T.ravel())
    assert fig.layout.xaxis.title.text == "balanced error rate (%)"
    assert fig.layout.height >= 30 * 13  # a readable row per classifier
    assert _small_texts(fig) == []
    # the default three (and with SLB's nested estimate) still stand side by side
    for few in (["SLB", "TAN", "NB"], ["SLB", "SLB (nested λ, C)", "TAN", "NB"]):
        v = figures.ber_bars(pd.DataFrame(np.full((3, len(few)), 0.2), columns=few))
        assert v.layout.meta["orientation"] == "v" and list(v.data[0].x) == few


def _ber_steps(first=0.0):
    """A three-step BER-along-lambda table starting at ``first`` (the part computed)."""
    steps = pd.DataFrame(
        {
            "threshold": [first, 0.1, 0.2],
            "lower": [0.0, first, 0.1],
            "mean_ber": [0.2, 0.15, 0.3],
            "sd_ber": [0.01, 0.02, 0.03],
            "mean_pairs": [10, 5, 0],
        }
    )
    steps.attrs.update({"lo": first, "requested_lo": 0.0, "hi": 0.2})
    return steps


def test_ber_curve_marks_current_lambda():
    steps = _ber_steps()
    fig = figures.ber_curve(steps, 0.15, 0.3, lam_range=(0.0, 0.25), nested_ber=0.18)
    assert any(s.type == "line" and s.x0 == 0.15 for s in fig.layout.shapes)
    star = next(t for t in fig.data if t.name == "current λ")
    assert star.y[0] == pytest.approx(30.0)
    meta = fig.layout.meta
    # λ = 0.15 lies in (0.1, 0.2]: the step of threshold 0.2, drawn "vh" (held up to its λ)
    assert meta["current"]["curve_ber"] == pytest.approx(0.3)
    assert meta["steps"]["ber"] == [0.2, 0.15, 0.3]
    assert tuple(fig.layout.xaxis.range) == (0.0, 0.25) and meta["nested_ber"] == 0.18
    line = next(t for t in fig.data if t.name.startswith("SLB CV BER"))
    assert line.line.shape == "vh"


def test_coefficient_bars_match_coef(small):
    X, y = small
    clf = SLBClassifier(threshold=0.0, random_state=0).fit(X, y)
    coef = clf.coef_series_
    fig = figures.coefficient_figure(coef, feature_names=list(X.columns), n_visible=10)
    bars = _bars(fig)
    assert sum(len(b.x) for b in bars) == len(clf.coef_series_) == fig.layout.meta["n_terms"]
    shown = {lab: v for b in bars for lab, v in zip(b.y, b.x, strict=True)}
    for term, w in clf.coef_series_.items():
        assert shown[figures.escape_text(figures.term_text(term))] == pytest.approx(w)
    # univariate and bivariate terms of both classes are distinct traces
    assert {b.name.split(" terms")[0] + b.name.split("class ")[1][0] for b in bars} == {
        "univariate+",
        "univariate−",
        "bivariate+",
        "bivariate−",
    }
    assert "<b>eps</b>" not in fig.to_json()


def test_coefficient_figure_draws_the_largest_weights(small):
    X, y = small
    coef = SLBClassifier(threshold=0.0, random_state=0).fit(X, y).coef_series_
    fig = figures.coefficient_figure(coef, feature_names=list(X.columns), max_bars=7)
    drawn = {lab: v for b in _bars(fig) for lab, v in zip(b.y, b.x, strict=True)}
    # an independent top 7 of |weight|: the drawn bars are exactly those, with their weights
    top = coef.abs().sort_values(ascending=False).index[:7]
    assert drawn == {figures.escape_text(figures.term_text(t)): pytest.approx(coef[t]) for t in top}
    assert fig.layout.meta["n_drawn"] == 7 and fig.layout.meta["n_terms"] == coef.size
    # the axis shows n_visible rows of them (what the Experiments caption says)
    few = figures.coefficient_figure(coef, feature_names=list(X.columns), n_visible=3)
    assert (few.layout.meta["n_in_view"], few.layout.meta["n_rows"]) == (3, coef.size)
    assert tuple(few.layout.yaxis.range) == (2.5, -0.5)
    assert list(fig.layout.yaxis.categoryarray) == [
        figures.escape_text(figures.term_text(t)) for t in top
    ]


def test_coefficients_with_oracle():
    syn = make_forest_bn(n_train=200, n_test=0, d=6, random_state=1)
    clf = SLBClassifier(threshold=0.0, random_state=0).fit(syn.X_train, syn.y_train)
    fig = figures.coefficient_figure(clf.coef_series_, oracle=syn.oracle_coef)
    s = fig.layout.meta["scale"]
    assert s == pytest.approx(figures.oracle_scale(clf.coef_series_, syn.oracle_coef))
    assert s > 0  # SLB's weights point the oracle's way
    oracle_trace = next(t for t in fig.data if t.name.startswith("oracle"))
    assert len(oracle_trace.x) == len(syn.oracle_coef)
    assert sum(len(b.x) for b in _bars(fig)) == len(clf.coef_series_)


def test_fixed_weights_against_the_oracle_are_not_rescaled():
    """When SLB's nested CV chose naive Bayes (or TAN) its weights are that model's fixed ones,
    in the oracle's units: the figures drew them times a least-squares factor (here -0.67,
    which flipped naive Bayes' +1 and -1) under the axis title 'learned × -0.667'."""
    syn = make_forest_bn(n_train=150, n_test=0, d=6, random_state=2)
    clf = SLBClassifier(generative_candidates=True, random_state=0)
    clf.fit(syn.X_train[:30], syn.y_train[:30])
    assert clf.selected_model_ == "naive_bayes"
    assert figures.oracle_scale(clf.coef_series_, syn.oracle_coef) != pytest.approx(1.0)
    fig = figures.coefficient_figure(
        clf.coef_series_, oracle=syn.oracle_coef, selected_model=clf.selected_model_
    )
    assert fig.layout.meta["scale"] == 1.0
    shown = {lab: v for b in _bars(fig) for lab, v in zip(b.y, b.x, strict=True)}
    assert shown == {
        figures.escape_text(figures.term_text(t)): w for t, w in clf.coef_series_.items()
    }
    title = fig.layout.xaxis.title.text
    assert title.startswith("naive Bayes' fixed weight") and "learned" not in title
    assert all("learned" not in b.hovertemplate for b in _bars(fig))
    ratio = figures.ratio_figure(
        clf.ratio_coefficients(),
        oracle=figures.ratio_form(syn.oracle_coef, syn.columns),
        selected_model=clf.selected_model_,
    )
    assert ratio.layout.meta["scale"] == 1.0
    terms = ratio.layout.meta["terms"]
    log_ratio = next(t for t in ratio.data if t.name.startswith("log-"))
    np.testing.assert_allclose(log_ratio.x, clf.ratio_coefficients().loc[terms, "ratio"])
    assert "×" not in ratio.layout.xaxis.title.text
    assert _small_texts(fig) == [] and _small_texts(ratio) == []


def test_coefficient_legend_names_each_class_once():
    """Class names that are the signs themselves gave 'class + (+)' and 'class − (-)'."""
    coef = pd.Series(
        {"log p+(a)": 1.0, "log p-(a)": -1.0, "log p+(a, b)": 0.5, "log p-(a, b)": -0.5}
    )
    names = [t.name for t in _bars(figures.coefficient_figure(coef, feature_names=["a", "b"]))]
    assert names == [
        "univariate terms of class +",
        "bivariate terms of class +",
        "univariate terms of class −",
        "bivariate terms of class −",
    ]
    named = figures.coefficient_figure(coef, pos_name="M", neg_name="R")
    assert [t.name for t in _bars(named)][::2] == [
        "univariate terms of class + (M)",
        "univariate terms of class − (R)",
    ]


def test_ber_curve_names_its_marks_in_the_legend_not_over_the_lines():
    """H33: 'not computed yet' sat under the current λ's dashed line, and the nested
    estimate's label lay over the curve and its band; both are legend entries now."""
    steps = _ber_steps(0.05)
    fig = figures.ber_curve(steps, 0.04, 0.3, lam_range=(0.0, 0.25), nested_ber=0.18)
    assert len(fig.layout.annotations) == 0  # no text in the plot area
    names = [t.name for t in fig.data if t.showlegend is not False]
    assert "not computed yet" in names and "nested CV estimate: 18.0%" in names
    nested = next(t for t in fig.data if t.name.startswith("nested"))
    assert list(nested.y) == [18.0, 18.0] and list(nested.x) == [0.0, 0.25]
    grey = [s for s in fig.layout.shapes if s.type == "rect"]
    assert [(s.x0, s.x1) for s in grey] == [(0.0, 0.05), (0.2, 0.25)]
    assert fig.layout.meta["uncomputed"] == [[0.0, 0.05], [0.2, 0.25]]
    assert _small_texts(fig) == []
    # without grey parts or a nested estimate: no such legend entries
    steps.attrs.update({"lo": 0.0, "requested_lo": 0.0})
    plain = figures.ber_curve(steps, 0.1, 0.15, lam_range=(0.0, 0.2))
    assert {t.name for t in plain.data if t.showlegend is not False} == {
        "± 1 sd over folds",
        "SLB CV BER (exact steps)",
        "current λ",
    }
    assert plain.layout.height < fig.layout.height  # room for the second legend row


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


def test_tree_graph_names_more_nodes_across_a_page():
    """H50: Compare draws TAN's trees across the page (about 510 px at 1024) but their names
    were placed for half a page (260 px): on Pima two leaves of one tree and one of the other
    had no name.  At the page's width every one of the 8 is named, without overlaps."""
    X, y = load_dataset("pima")
    tan = TANClassifier().fit(X, y)
    for k, label in enumerate(tan.classes_):
        args = (list(X.columns), tan.trees_[label], tan.mutual_info_[k])
        half = figures.tree_graph(*args)
        page = figures.tree_graph(*args, width_px=480)
        assert half.layout.meta["n_labels"] < 8 == page.layout.meta["n_labels"]


def test_figures_module_does_not_import_streamlit():
    import pathlib

    import slb.viz.figures as f

    modules = sorted(pathlib.Path(f.__file__).parent.glob("*.py"))
    assert len(modules) >= 10  # the facade and the modules it gathers
    for path in modules:
        assert "import streamlit" not in path.read_text(encoding="utf-8"), path.name


def test_figure_modules_stay_small_and_the_facade_keeps_every_name():
    """Issue 30 item 6: one concern per module, each well under 1,000 lines; the names that
    were importable from slb.viz.figures before the split still are."""
    import pathlib

    import slb.viz.figures as f

    for path in pathlib.Path(f.__file__).parent.glob("*.py"):
        assert len(path.read_text(encoding="utf-8").splitlines()) < 700, path.name
    for name in [*f.__all__, "threshold_line", "kept_outline", "MAX_LABELLED"]:
        assert callable(getattr(f, name)) or name in {
            "COLORS",
            "MAX_LABELLED",
            "FIXED_WEIGHTS",
        }, name
    layout_src = pathlib.Path(f.__file__).with_name("layout.py").read_text(encoding="utf-8")
    assert "import plotly" not in layout_src  # the layout algorithms are numpy/networkx only


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


# --- issue 13: readable figures at any d, a truthful BER curve ----------------------------------
def _random_dependence(d, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.random((d, d))
    S = (A + A.T) / 2
    np.fill_diagonal(S, np.nan)
    return S, np.clip(1 - S, 0, 1)


@pytest.mark.parametrize("d, step", [(13, 1), (60, 3)])
def test_heatmap_sized_to_d_and_labelled_at_14_px(d, step):
    """Every name up to 30 features; Sonar's 60: every 3rd name (6 px cells, names >= 16 px
    apart at 14 px), in the clustered display order; the hover names every cell."""
    S, P = _random_dependence(d)
    names = [f"feature_{i}" for i in range(d)]
    order = figures.cluster_order(S)
    fig = figures.dependence_heatmap(S, P, names, order=order)
    shown = [names[i] for i in order][::step]
    assert fig.layout.meta["n_labels"] == len(shown) == -(-d // step)
    assert list(fig.layout.xaxis.tickvals) == shown == list(fig.layout.yaxis.tickvals)
    assert fig.layout.xaxis.tickfont.size >= 14 and fig.layout.yaxis.tickfont.size >= 14
    px = figures.heatmap_cell_px(d)
    assert px * step >= 16  # the written names do not overlap at 14 px
    assert fig.layout.yaxis.scaleanchor == "x"  # square cells
    cells = next(t for t in fig.data if t.name == "cells")
    assert len(cells.x) == d * (d - 1)  # one hover/click target per off-diagonal cell ...
    assert cells.marker.maxdisplayed == 1  # ... of which the browser draws one (issue 14)
    small = figures.dependence_heatmap(*_random_dependence(5), names[:5])
    assert fig.layout.height > small.layout.height  # grows with d


@pytest.mark.parametrize("q", [0.0, 0.5, 0.9, 1.1])
def test_heatmap_outlines_exactly_the_kept_pairs(q):
    d = 17
    S, P = _random_dependence(d, seed=3)
    lam = np.nanquantile(S, q) if q <= 1 else np.inf
    kept = np.nan_to_num(S, nan=-1.0) >= lam
    order = np.random.default_rng(1).permutation(d)
    fig = figures.dependence_heatmap(S, P, list("abcdefghijklmnopq"), kept=kept, order=order)
    n_pairs = sum(kept[i, j] for i in range(d) for j in range(i + 1, d))  # slow reference
    assert fig.layout.meta["n_outlined"] == n_pairs
    squares = sum(s.path.count("M") for s in fig.layout.shapes if s.type == "path")
    assert squares == n_pairs


def test_tree_layout_children_strictly_below_parents():
    import networkx as nx

    for d, seed in ((2, 0), (13, 1), (60, 2)):
        rng = np.random.default_rng(seed)
        tree = nx.from_prufer_sequence(rng.integers(0, d, d - 2).tolist()) if d > 2 else None
        edges = list(tree.edges()) if tree is not None else [(0, 1)]
        pos = figures.tree_layout(d, edges)
        root = int(np.argmax(pos[:, 1]))
        depth = nx.single_source_shortest_path_length(nx.Graph(edges), root)
        for i, j in edges:
            parent, child = (i, j) if depth[i] < depth[j] else (j, i)
            assert pos[child, 1] == pos[parent, 1] - 1  # one row below its parent
        assert sum(pos[:, 1] == pos[root, 1]) == 1  # a single root on top
        assert len({tuple(p) for p in pos.round(9)}) == d  # no two nodes on one spot


def _label_boxes(fig, plot_px):
    """Pixel boxes of a graph figure's written node names, estimated independently of the
    library: 0.6 em per character plus 4 px, 1.3 em high, at the text's size, placed by its
    ``textposition`` beside the node, on the figure's (equal-scale) axis ranges drawn in a plot
    area of ``plot_px``; and whether each box lies inside the ranges."""
    import re

    nodes = next(t for t in fig.data if t.name == "features")
    xr, yr = fig.layout.xaxis.range, fig.layout.yaxis.range
    scale = min(plot_px[0] / (xr[1] - xr[0]), plot_px[1] / (yr[1] - yr[0]))  # px per unit
    size = nodes.textfont.size
    places = nodes.textposition
    places = [places] * len(nodes.x) if isinstance(places, str) else list(places)
    boxes = []
    marker = np.broadcast_to(np.asarray(nodes.marker.size, dtype=float), (len(nodes.x),))
    for x, y, text, where, m in zip(nodes.x, nodes.y, nodes.text, places, marker, strict=True):
        if not text:
            continue
        w = len(re.sub("<[^>]+>", "", text)) * 0.6 * size + 4
        h = 1.3 * size
        cx, cy = (x - xr[0]) * scale, (y - yr[0]) * scale
        off = m / 2 + 2  # plotly writes the text beside the marker
        dx = {"left": -w / 2 - off, "right": w / 2 + off}.get(where.split()[1], 0.0)
        dy = {"top": h / 2 + off, "bottom": -h / 2 - off}.get(where.split()[0], 0.0)
        box = (cx + dx - w / 2, cy + dy - h / 2, cx + dx + w / 2, cy + dy + h / 2)
        inside = box[0] >= -1 and box[1] >= -1
        inside &= box[2] <= (xr[1] - xr[0]) * scale + 1 and box[3] <= (yr[1] - yr[0]) * scale + 1
        boxes.append((box, inside))
    return boxes


def _overlaps(boxes) -> int:
    return sum(
        a[0] < b[2] - 1 and b[0] < a[2] - 1 and a[1] < b[3] - 1 and b[1] < a[3] - 1
        for k, (a, _) in enumerate(boxes)
        for b, _ in boxes[k + 1 :]
    )


def test_tree_and_pair_graph_labels():
    X, y = make_two_class(n_per_class=40, d=35, seed=2)
    tan = TANClassifier().fit(X, y)
    names = [f"f{i}" for i in range(35)]
    fig = figures.tree_graph(names, tan.trees_["a"], highlight=7)
    assert fig.layout.meta["n_edges"] == 34
    nodes = next(t for t in fig.data if t.name == "features")
    assert "<b>f7</b>" in nodes.text  # the searched feature: named (in bold) and ringed
    assert sum(bool(t) for t in nodes.text) == fig.layout.meta["n_labels"] >= 12
    assert nodes.textfont.size >= 14 and list(nodes.hovertext) == names  # the rest: hover
    assert any(t.name == "searched feature" for t in fig.data)
    boxes = _label_boxes(fig, (260, fig.layout.height - 90))
    assert _overlaps(boxes) == 0 and all(inside for _, inside in boxes)
    small = figures.tree_graph(names[:6], [(0, 1), (1, 2), (1, 3), (3, 4), (3, 5)])
    assert small.layout.meta["n_labels"] == 6
    pairs = np.array([[0, 1], [0, 2], [0, 3], [4, 5]])
    strength = np.ones((2, 4))
    g = figures.pair_graph(
        names, pairs, strength, strength > 0, np.random.default_rng(0).random((35, 2))
    )
    assert g.layout.meta["n_labels"] == 6  # the 6 connected nodes (fewer than the top 10)
    text = next(t for t in g.data if t.name == "features").text
    assert text[0] == "f0" and text[10] == ""
    hover = next(t for t in g.data if t.name == "pair hover")
    assert np.asarray(hover.customdata).tolist() == pairs.tolist()  # a click names the pair


def _graph_of(X, y, quantile):
    d = X.shape[1]
    stat = np.stack([dependence_matrix(X[y == c]).statistic for c in np.unique(y)])
    pairs = all_pairs(d)
    ps = stat[:, pairs[:, 0], pairs[:, 1]]
    pos = figures.pair_graph_layout(d, pairs, ps.max(axis=0))
    lam = np.quantile(ps.max(axis=0), quantile)
    idx = np.flatnonzero((ps >= lam).any(axis=0))
    return pairs[idx], ps[:, idx], ps[:, idx] >= lam, pos


@pytest.mark.slow
def test_sonar_pair_graph_labels_do_not_overlap():
    """Issue 28: Sonar's pair graph names its best-connected features without stacking the
    names (box estimate at the smallest plot area the page draws, 260 px), inside the plot."""
    from slb import load_dataset

    X, y = load_dataset("sonar")
    names = list(X.columns)
    for q in (0.5, 0.9, 0.97):
        pairs, strength, dep, pos = _graph_of(X.to_numpy(), y, q)
        fig = figures.pair_graph(names, pairs, strength, dep, pos)
        boxes = _label_boxes(fig, (260, 260))
        assert 3 <= fig.layout.meta["n_labels"] == len(boxes) <= 10
        assert _overlaps(boxes) == 0, q
        assert all(inside for _, inside in boxes), q


def test_pair_graph_names_more_nodes_across_a_page():
    """H52 5: the Dependencies page draws the pair graph across the page (about 510 x 260 px
    of plot at 1024) but its names were placed for 260 x 260: Pima's graph named 6 of its 8
    features.  At the page's size every one is named, inside the plot, without overlaps."""
    from slb import load_dataset

    X, y = load_dataset("pima")
    names = list(X.columns)
    for q in (0.5, 0.8, 0.9, 0.95):
        pairs, strength, dep, pos = _graph_of(X.to_numpy(), y, q)
        half = figures.pair_graph(names, pairs, strength, dep, pos)
        page = figures.pair_graph(names, pairs, strength, dep, pos, height=420, width_px=480)
        boxes = _label_boxes(page, (480, 420 - 160))
        assert page.layout.meta["n_labels"] == len(boxes) >= half.layout.meta["n_labels"]
        assert _overlaps(boxes) == 0 and all(inside for _, inside in boxes), q
        if q in (0.8, 0.9):
            assert half.layout.meta["n_labels"] < 8 == page.layout.meta["n_labels"]


def test_small_pair_graph_keeps_long_names_inside():
    """Iris-like names on a small graph: every name written, none cut at the figure's edge."""
    rng = np.random.default_rng(0)
    names = ["sepal length (cm)", "sepal width (cm)", "petal length (cm)", "petal width (cm)"]
    pos = rng.random((4, 2))
    pairs = all_pairs(4)
    s = np.ones((2, len(pairs)))
    fig = figures.pair_graph(names, pairs, s, s > 0, pos)
    boxes = _label_boxes(fig, (260, 260))
    assert fig.layout.meta["n_labels"] == 4 == len(boxes)
    assert _overlaps(boxes) == 0 and all(inside for _, inside in boxes)


def _edge_crossings(fig, boxes, plot_px, pairs) -> int:
    """How many (label, edge) pairs meet: points sampled along every edge between two nodes of
    the ``"features"`` trace, in the pixel frame of :func:`_label_boxes`, inside a label's box
    (its own node's edges included; the marker's own disc excluded by the box offset)."""
    nodes = next(t for t in fig.data if t.name == "features")
    xr, yr = fig.layout.xaxis.range, fig.layout.yaxis.range
    scale = min(plot_px[0] / (xr[1] - xr[0]), plot_px[1] / (yr[1] - yr[0]))
    px = np.column_stack([(np.asarray(nodes.x) - xr[0]), (np.asarray(nodes.y) - yr[0])]) * scale
    t = np.linspace(0, 1, 200)[:, None]
    n = 0
    for box, _ in boxes:
        for i, j in pairs:
            pts = px[i] + t * (px[j] - px[i])
            inside = (pts[:, 0] > box[0]) & (pts[:, 0] < box[2])
            inside &= (pts[:, 1] > box[1]) & (pts[:, 1] < box[3])
            n += bool(inside.any())
    return n


def test_graph_names_keep_off_the_edges_where_they_can():
    """H33: names were written above their node whatever crossed there (edges through the
    names on the pair graphs); now a name takes a free place beside its node when there is one,
    and has a white halo where there is none."""
    pos = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.5, 0.5], [0.5, 1.0]])
    # a vertical edge from the centre up: the centre's name went above it, the top node's below
    pairs = np.array([[4, 5]])
    names = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
    s = np.ones((2, 1))
    fig = figures.pair_graph(names, pairs, s, s > 0, pos)
    boxes = _label_boxes(fig, (260, 260))
    assert fig.layout.meta["n_labels"] == 6 == len(boxes)
    assert _overlaps(boxes) == 0 and all(inside for _, inside in boxes)
    assert _edge_crossings(fig, boxes, (260, 260), pairs) == 0
    tree = figures.tree_graph(names, pairs.tolist(), positions=pos)
    tree_px = (260, tree.layout.height - 90)
    tboxes = _label_boxes(tree, tree_px)
    assert len(tboxes) == 6 and _edge_crossings(tree, tboxes, tree_px, pairs) == 0
    # Experiments' true networks and recovered pairs (names were always above their node)
    net = figures.network_graph(names, [(5, 4)], pos)
    rec = figures.recovery_graph(names, [(4, 5)], [(4, 5)], pos)
    for f in (net, rec):
        nboxes = _label_boxes(f, (300, 300))
        assert len(nboxes) == 6 and _overlaps(nboxes) == 0
        assert _edge_crossings(f, nboxes, (300, 300), pairs) == 0
        assert all(inside for _, inside in nboxes)
    for f in (fig, tree, net, rec):
        assert "#fff" in next(t for t in f.data if t.name == "features").textfont.shadow


def test_three_class_graph_names_every_node():
    """H33 (Wine, three classes): the best-connected node's long name fitted nowhere inside
    the drawing's margin and was left to the hover; with more room every name is written."""
    from slb.viz.multiclass import pair_graph_k

    names = ["alcohol", "malic_acid", "ash", "flavanoids", "color_intensity", "proline"]
    pos = np.array([[252, -35], [452, -364], [108, -176], [455, -121], [389, -57], [294, -222]])
    pairs = all_pairs(6)
    stat = np.zeros((3, len(pairs)))
    edges = [k for k, p in enumerate(pairs.tolist()) if sorted(p) in ([0, 4], [3, 4])]
    stat[:, edges] = 0.5
    fig = pair_graph_k(names, pairs, stat, stat > 0, pos.astype(float), ["a", "b", "c"])
    nodes = next(t for t in fig.data if t.name == "features")
    assert list(nodes.text) == names
    boxes = _label_boxes(fig, (300, 300))
    assert _overlaps(boxes) == 0 and all(inside for _, inside in boxes)
    assert "#fff" in nodes.textfont.shadow


def test_label_box_check_catches_overlap():
    """The box estimate can fail: two names written on one spot overlap."""
    names = ["a long feature name", "another long name"]
    fig = go.Figure(
        go.Scatter(
            x=[0, 0.01],
            y=[0, 0],
            text=names,
            textposition="top center",
            textfont={"size": 14},
            marker={"size": 8},
            name="features",
        )
    )
    fig.update_layout(xaxis={"range": [-1, 1]}, yaxis={"range": [-1, 1]})
    assert _overlaps(_label_boxes(fig, (260, 260))) == 1


@pytest.fixture(scope="module")
def path_data():
    from slb import ThresholdPath
    from slb.evaluation import stratified_folds

    X, y = make_two_class(n_per_class=40, d=5, seed=21)
    folds = stratified_folds(y, n_splits=3, random_state=4)
    return X, y, folds, ThresholdPath(C=0.5, random_state=3).fit(X, y, folds)


def test_ber_steps_are_exact_and_constant_between_breakpoints(path_data):
    from slb.evaluation import compare_estimators
    from slb.model.steps import ber_steps, step_at

    X, y, folds, path = path_data
    scores = [path._score(f.score) for f in path.folds_]
    hi = float(max(s.max() for s in scores)) * 1.01
    steps = ber_steps(path, 0.0, hi)
    t = steps["threshold"].to_numpy()
    # breakpoints: exactly 0, every fold's pair scores, and the top of the range
    assert np.array_equal(t, np.unique(np.concatenate([[0.0, hi], *scores])))
    rng = np.random.default_rng(0)
    for k in rng.choice(np.arange(1, len(t)), size=5, replace=False):
        a, b = steps["lower"].iloc[k], t[k]
        inside = [a + f * (b - a) for f in (0.25, 0.5, 0.75)]
        vals = [path.fold_ber(lam)[0].mean() for lam in inside]
        assert vals[0] == vals[1] == vals[2]  # constant inside the step
        row = step_at(steps, inside[1])
        assert row.mean_ber == pytest.approx(steps["mean_ber"].iloc[k], abs=1e-15)
        # an independent refit: SLBClassifier(threshold=λ) cross-validated on the same folds
        slb = SLBClassifier(threshold=float(inside[1]), C=0.5, random_state=3)
        ref = compare_estimators({"slb": slb}, X, y, folds=folds).per_fold["slb"].mean()
        assert steps["mean_ber"].iloc[k] == pytest.approx(ref, abs=1e-12)
    fig = figures.ber_curve(steps, float(t[3]), None, lam_range=(0.0, hi))
    assert fig.layout.meta["current"]["curve_ber"] == pytest.approx(steps["mean_ber"].iloc[3])


def test_ber_steps_budget_starts_higher_and_says_so(path_data):
    from slb.model.steps import ber_steps

    _, _, _, path = path_data
    full = ber_steps(path, 0.0, None)
    cut = ber_steps(path, 0.0, None, max_fits=12)
    assert cut.attrs["lo"] > 0.0 == cut.attrs["requested_lo"]
    assert cut.attrs["n_fits"] <= 12 < full.attrs["n_fits"]
    # where both are computed they agree
    for _, row in cut.iloc[1:].iterrows():
        ref = full.loc[full["threshold"] == row.threshold, "mean_ber"]
        assert ref.iloc[0] == pytest.approx(row.mean_ber, abs=1e-15)
    fig = figures.ber_curve(cut, 0.0, 0.2, lam_range=(0.0, cut.attrs["hi"]))
    assert fig.layout.meta["current"]["curve_ber"] is None  # λ below the computed steps
    assert any(s.type == "rect" for s in fig.layout.shapes)  # the grey "not computed" band


def test_ber_steps_in_chunks_join_to_the_whole(path_data):
    from slb.model.steps import ber_steps, chunk_bounds, join_steps

    _, _, _, path = path_data
    full = ber_steps(path, 0.0, 0.5)
    bounds = chunk_bounds(path, 0.0, 0.5, 7)
    assert bounds[0] == 0.5 and bounds[-1] == 0.0 and len(bounds) >= 4
    assert all(a > b for a, b in zip(bounds, bounds[1:], strict=False))
    frames = [ber_steps(path, b, a) for a, b in zip(bounds, bounds[1:], strict=False)]
    joined = join_steps(frames[::-1], 0.0)
    for col in ("threshold", "lower", "mean_ber", "mean_pairs"):
        np.testing.assert_allclose(joined[col], full[col], rtol=0, atol=1e-15)
    assert joined.attrs["lo"] == 0.0 and joined.attrs["hi"] == 0.5


def test_class_balance_shares_and_escaped_names():
    fig = figures.class_balance(30, 90, pos_name="<b>sick</b>", neg_name="well")
    (bars,) = fig.data
    assert bars.x == pytest.approx((25.0, 75.0))
    notes = [a.text for a in fig.layout.annotations]
    assert notes == ["+ &lt;b&gt;sick&lt;/b&gt;: 30 (25%)", "− well: 90 (75%)"]
    assert all(a.font.size >= 14 for a in fig.layout.annotations)
    assert tuple(bars.marker.color) == (figures.COLORS["+"], figures.COLORS["-"])
    assert dict(fig.layout.meta) == {"kind": "class_balance", "n_pos": 30, "n_neg": 90}
    assert "sick" not in bars.hovertemplate  # labels reach the hover through customdata
    # class + on top: the y axis runs downwards, each note just above its own bar (y grows
    # downwards: the note's bottom a little above the bar's top, below the bar above)
    assert fig.layout.yaxis.range[0] > fig.layout.yaxis.range[1]
    for k, note in enumerate(fig.layout.annotations):
        top = bars.y[k] - bars.width / 2
        assert top - 0.1 < note.y < top and note.yanchor == "bottom"
        assert note.y > (bars.y[k - 1] + bars.width / 2 if k else fig.layout.yaxis.range[1])
    # a labelled full scale under the bars, two or K classes (a lone "50 %" tick: H30;
    # an unlabelled axis: H39), and a plot, not a 178 px strip (H39): at least 300 px high
    from slb.viz.multiclass import class_balance_k

    for f in (fig, class_balance_k({"a": 1, "b": 2, "c": 3})):
        assert list(f.layout.xaxis.tickvals) == [0, 25, 50, 75, 100]
        assert f.layout.xaxis.title.text == "share of the rows (%)"
        assert f.layout.height >= 300
    # many classes: the figure grows so that every bar keeps its row and its note
    assert class_balance_k({str(k): 1 for k in range(12)}).layout.height >= 12 * 50


def test_class_balance_wraps_long_names_and_keeps_them_apart():
    """Long names are wrapped, not cut (H41: two names cut at 20 characters read the same,
    "Patient group wit…"), and every row grows to hold the longest note."""
    from slb.viz.multiclass import class_balance_k

    a, b = "Patient group with diabetes type 1", "Patient group with diabetes type 2"
    fig = class_balance_k({a: 3, b: 1})
    notes = [n.text.replace("<br>", " ") for n in fig.layout.annotations]
    assert notes == [f"{a}: 3 (75%)", f"{b}: 1 (25%)"]
    assert all("<br>" in n.text for n in fig.layout.annotations)  # two lines each
    assert fig.data[0].customdata[0] == f"{a}: 3 (75%)"  # the whole name in the hover
    one_line = class_balance_k({"a": 3, "b": 1})
    assert fig.data[0].width < one_line.data[0].width  # taller rows, the same 24 px bars
    # a name past three lines ends in "…"
    many = class_balance_k({"word " * 40: 1, "b": 1}).layout.annotations[0].text
    assert many.count("<br>") == 2 and many.endswith("…")


# --- readability on a projector (issue 28) --------------------------------------------------
def _small_texts(fig, minimum=14) -> list:
    """Every explicit text size of a figure under ``minimum`` px (ticks, axis titles, legend,
    colour bars, annotations, trace text); hover labels are exempt.  Unset sizes inherit
    ``layout.font.size`` (checked too) except the axes' and the legend's, which Streamlit's
    chart theme would set to 12 px: those must be explicit."""
    lay = fig.layout
    bad = []
    if (lay.font.size or 0) < minimum:
        bad.append(("font", lay.font.size))
    for name in lay:
        if name.startswith(("xaxis", "yaxis")) and lay[name] is not None:
            ax = lay[name]
            if ax.visible is False:
                continue
            if (ax.tickfont.size or 0) < minimum:
                bad.append((name + ".tickfont", ax.tickfont.size))
            if ax.title.text and (ax.title.font.size or 0) < minimum:
                bad.append((name + ".title", ax.title.font.size))
    if any(t.showlegend is not False for t in fig.data) and (lay.legend.font.size or 0) < minimum:
        bad.append(("legend", lay.legend.font.size))
    for a in lay.annotations:
        if a.font.size is not None and a.font.size < minimum:
            bad.append(("annotation", a.font.size))
    for t in fig.data:
        tf = getattr(t, "textfont", None)
        if getattr(t, "text", None) is not None and tf is not None:
            if tf.size is not None and np.min(tf.size) < minimum:
                bad.append((t.name, tf.size))
        cb = getattr(t, "colorbar", None)
        if cb is not None and getattr(t, "showscale", None) is not False and t.type == "heatmap":
            if (cb.tickfont.size or 0) < minimum:
                bad.append((t.name, "colorbar", cb.tickfont.size))
    return bad


def _every_figure(small):
    """One of each two-class builder (a fitted SLB, TAN, the evaluation figures)."""
    from slb.viz import evaluation as ev

    X, y = small
    Xn = X.to_numpy()
    res = dependence_matrix(Xn[y == 1])
    pairs = all_pairs(X.shape[1])
    s = np.ones((2, len(pairs)))
    pos = figures.pair_graph_layout(X.shape[1], pairs, s[0])
    clf = SLBClassifier(random_state=0).fit(X, y)
    tan = TANClassifier().fit(X, y)
    pf = pd.DataFrame(np.random.default_rng(0).random((5, 3)), columns=["NB", "SLB", "TAN"])
    curve = pd.DataFrame({"fpr": [0, 0.5, 1], "tpr": [0, 0.8, 1]})
    prc = pd.DataFrame({"recall": [0, 0.5, 1], "precision": [1, 0.8, 0.5]})
    figs = {
        "heatmap": figures.dependence_heatmap(res.statistic, res.pvalue, list(X.columns)),
        "histogram": figures.dependence_histogram([0.1, 0.2], [0.3], 0.15),
        "pair_graph": figures.pair_graph(list(X.columns), pairs, s, s > 0, pos),
        "tree": figures.tree_graph(list(X.columns), tan.trees_[tan.classes_[0]]),
        "density_1d": figures.density_1d(Xn[:, 0], y, [0.3, 0.3], feature="alpha"),
        "density_2d": figures.density_2d(
            Xn[:, 0], Xn[:, 1], y, [0.3, 0.3], [0.3, 0.3], feature_a="alpha", feature_b="beta"
        ),
        "ber_bars": figures.ber_bars(pf),
        "coefficients": figures.coefficient_figure(clf.coef_series_),
        "contributions": figures.contributions_figure(
            clf.contributions(X.iloc[:1])[0].iloc[0], baseline=clf.contributions(X.iloc[:1])[1]
        ),
        "roc": ev.roc_figure({"SLB": curve, "NB": curve}, pd.Series({"SLB": 0.8, "NB": 0.7})),
        "pr": ev.pr_figure({"SLB": prc}, pd.Series({"SLB": 0.8}), 0.5),
        "confusion": ev.confusion_figure(
            pd.DataFrame([[40, 10], [5, 45]]), pos_name="p", neg_name="n"
        ),
        "class_balance": figures.class_balance(3, 4),
    }
    return figs


def test_every_figure_writes_14_px_text_and_puts_its_legend_below(small):
    for name, fig in _every_figure(small).items():
        assert _small_texts(fig) == [], name
        legend = fig.layout.legend
        if any(t.showlegend is not False for t in fig.data):
            # below the plot, in the figure's bottom margin: never over a title or the plot
            assert (legend.yref, legend.y, legend.yanchor) == ("container", 0, "bottom"), name
        if fig.layout.title.text:
            assert fig.layout.title.yref == "container" and fig.layout.title.automargin, name


def test_small_text_check_can_fail():
    fig = figures.ber_bars(pd.DataFrame({"SLB": [0.1, 0.2]}))
    assert _small_texts(fig) == []
    fig.update_xaxes(tickfont={"size": 12})
    assert _small_texts(fig) == [("xaxis.tickfont", 12)]


def test_confusion_cells_are_written_at_14_px():
    from slb.viz import evaluation as ev

    fig = ev.confusion_figure(pd.DataFrame([[40, 10], [5, 45]]), pos_name="p", neg_name="n")
    assert fig.data[0].textfont.size >= 14


def test_ber_bars_keep_their_order_whatever_the_values():
    """Issue 28 item 4: the bars never re-sort by value; SLB is first."""
    rng = np.random.default_rng(1)
    orders = set()
    for seed in range(5):
        pf = pd.DataFrame(
            np.random.default_rng(seed).random((4, 4)), columns=["TAN", "SLB", "NB", "RF"]
        )
        fig = figures.ber_bars(pf)
        bar = fig.data[0]
        orders.add(tuple(bar.x))
        np.testing.assert_allclose(bar.y, 100 * pf.mean()[list(bar.x)].to_numpy())
    assert orders == {("SLB", "TAN", "NB", "RF")}
    del rng


def test_ratio_form_of_the_oracle_follows_lemma_1():
    """Issue 26 item 8: Lemma 1's weights per log-density ratio and common part are, for a
    feature of degrees deg+ and deg- in the two forests, ratio 1 - (deg+ + deg-)/2 and common
    (deg- - deg+)/2; a pair in one forest has |ratio| = |common| = 1/2 (degrees from networkx)."""
    syn = make_forest_bn(n_train=200, n_test=0, d=6, random_state=1)
    form = figures.ratio_form(syn.oracle_coef, syn.columns)
    g = {k: syn.graphs[k].to_undirected() for k in (1, -1)}
    for a in syn.columns:
        dp, dm = g[1].degree(a), g[-1].degree(a)
        assert form.loc[a, "ratio"] == 1 - (dp + dm) / 2
        assert form.loc[a, "common"] == (dm - dp) / 2
    pairs = form[form["kind"] == "bivariate"]
    edges = {k: {frozenset(e) for e in g[k].edges()} for k in (1, -1)}
    assert len(pairs) == len(edges[1] | edges[-1])
    for term, row in pairs.iterrows():
        e = frozenset(term.split(", "))
        if e in edges[1] and e in edges[-1]:  # in both forests: one log-density ratio
            assert (row["ratio"], row["common"]) == (1.0, 0.0)
        else:  # in one forest only: half ratio, half common part
            assert row["ratio"] == 0.5 and row["common"] == (0.5 if e in edges[1] else -0.5)


def test_ratio_figure_draws_the_models_ratio_coefficients(small):
    X, y = small
    clf = SLBClassifier(threshold=0.0, random_state=0).fit(X, y)
    table = clf.ratio_coefficients()
    # two implementations of the rewriting agree: the model's and the one from term names
    form = figures.ratio_form(clf.coef_series_, list(X.columns)).loc[table.index]
    np.testing.assert_allclose(form[["ratio", "common"]], table[["ratio", "common"]], atol=1e-12)
    fig = figures.ratio_figure(table, max_bars=6)
    terms = fig.layout.meta["terms"]
    mag = table[["ratio", "common"]].abs().max(axis=1)
    assert terms == mag.sort_values(ascending=False, kind="stable").index[:6].tolist()
    ratio, common = (next(t for t in fig.data if t.name.startswith(s)) for s in ("log-", "common"))
    np.testing.assert_allclose(ratio.x, table.loc[terms, "ratio"])
    np.testing.assert_allclose(common.x, table.loc[terms, "common"])
    # one panel (H47: a second one beside the term names was 147 px wide at 1024 px)
    assert {t.xaxis for t in fig.data} <= {None, "x"} and "xaxis2" not in fig.layout
    assert _small_texts(fig) == []


def test_importance_figure_draws_every_features_importance_largest_first(small):
    X, y = small
    clf = SLBClassifier(threshold=0.0, random_state=0).fit(X, y)
    imp = pd.Series(clf.feature_importances_, index=X.columns)
    fig = figures.importance_figure(imp, max_bars=3)
    drawn = fig.layout.meta["features"]
    assert drawn == imp.sort_values(ascending=False).index[:3].tolist()
    assert list(fig.data[0].x) == imp[drawn].tolist() and fig.layout.meta["n_features"] == 5
    # the univariate rows of the ratio table carry the same numbers (the Experiments page's)
    table = clf.ratio_coefficients()
    uni = table.loc[table["kind"] == "univariate", "importance"]
    np.testing.assert_array_equal(uni.reindex(imp.index), imp)
    assert _small_texts(fig) == []
    with pytest.raises(ValueError, match="non-negative"):
        figures.importance_figure(pd.Series([0.1, float("nan")], index=["a", "b"]))


def test_ratio_figure_with_the_oracle_is_scaled_to_it():
    syn = make_forest_bn(n_train=300, n_test=0, d=6, random_state=2)
    clf = SLBClassifier(random_state=0).fit(syn.X_train, syn.y_train)
    oracle = figures.ratio_form(syn.oracle_coef, syn.columns)
    fig = figures.ratio_figure(clf.ratio_coefficients(), oracle=oracle)
    diamonds = next(t for t in fig.data if t.name.startswith("oracle"))
    terms = fig.layout.meta["terms"]
    np.testing.assert_allclose(diamonds.x, oracle["ratio"].reindex(terms).fillna(0.0))
    s = fig.layout.meta["scale"]
    assert s > 0  # the learned weights point the oracle's way
    ratio = next(t for t in fig.data if t.name.startswith("log-"))
    np.testing.assert_allclose(ratio.x, s * clf.ratio_coefficients().loc[terms, "ratio"])


def test_experiment_figures_keep_titles_off_their_legends():
    """Issue 28 item 2: on Experiments a title was drawn over its legend; now the title sits in
    the top margin and the legend below the plot, at 14 px, the classifiers SLB first."""
    rng = np.random.default_rng(0)
    long = pd.DataFrame(
        [
            {"n": n, "replicate": r, "classifier": c, "ber": rng.random() / 2}
            for n in (50, 100)
            for r in range(2)
            for c in ("NB", "TAN", "SLB", "SVM(RBF)")
        ]
    )
    curve = figures.learning_curve_figure(long, bayes=0.1, title="A long title of a learning curve")
    summary = (
        long.rename(columns={"n": "p", "ber": "accuracy"})
        .groupby(["classifier", "p"], as_index=False)["accuracy"]
        .mean()
        .assign(accuracy_se=0.01)
    )
    noise = figures.noise_figure(summary, title="Label noise")
    pos = np.random.default_rng(1).random((3, 2))
    net = figures.network_graph(["a", "b", "c"], [(0, 1), (1, 2)], pos, title="t")
    for fig in (curve, noise, net):
        assert _small_texts(fig) == []
        assert fig.layout.title.yref == "container" and fig.layout.title.automargin
        assert fig.layout.legend.yref == "container" and fig.layout.legend.y == 0
    assert curve.layout.meta["classifiers"] == ["SLB", "NB", "TAN", "SVM(RBF)"]
    assert [t.name for t in curve.data] == ["SLB", "NB", "TAN", "SVM(RBF)", "Bayes error 10.00%"]


def test_pairs_are_written_a_times_b_on_every_chart_as_on_explain(small):
    """H37: Explain names a pair "a × b" (its grouped waterfall) while the coefficient and
    ratio charts of Compare and Experiments (and Explain's one-bar-per-term waterfall) wrote
    "a, b". Every chart now writes Explain's "a × b"; the model's term names keep the comma."""
    from slb.evaluation.explain import PAIR_SEP, group_contributions

    X, y = small
    clf = SLBClassifier(threshold=0.0, random_state=0).fit(X, y)
    names = list(X.columns)
    pairs = {
        f"{a}{PAIR_SEP}{b}"
        for a, b in zip(clf.term_table_["feature_i"], clf.term_table_["feature_j"], strict=True)
        if isinstance(b, str) and b
    }
    assert pairs  # the fixture's dependences are kept
    assert any(", " in str(t) for t in clf.coef_series_.index)  # the library's names

    def shown(labels):
        """Labels of pair terms, as drawn (plotly's escaping and line breaks undone)."""
        text = [html.unescape(str(v)).replace("<br>", "") for v in labels]
        return {v for v in text if any(p in v for p in pairs) or ", " in v}

    fig = figures.coefficient_figure(clf.coef_series_, feature_names=names)
    coef = {v for b in _bars(fig) for v in shown(b.y)}
    ratio = shown(figures.ratio_figure(clf.ratio_coefficients()).layout.yaxis.categoryarray)
    c = clf.contributions(X.iloc[:1])[0].iloc[0]
    wf = figures.contributions_figure(c, baseline=0.0, top=c.size, feature_names=names).data[0]
    water = shown(wf.y if wf.orientation == "h" else wf.x)
    grouped = {str(k) for k in group_contributions(c, clf.term_table_).index if PAIR_SEP in k}
    for labels in (coef, ratio, water):
        assert labels, "no pair drawn"
        assert not [v for v in labels if ", " in v], labels  # no "a, b"
    assert ratio == grouped  # the same words as Explain's grouped waterfall
    assert {v.split("(", 1)[1].rstrip(")") for v in coef} == pairs


def test_confusion_axes_wrap_long_class_names():
    """H41: three class names of 43 characters left Compare's K x K matrix a 213 x 35 px plot
    (turned, cut column names).  The names are wrapped on lines of at most 16 characters,
    three lines at most, every axis label distinct; two or K classes."""
    import re

    from slb.viz.evaluation import TICK_LINE_CHARS, TICK_MAX_LINES, confusion_figure
    from slb.viz.multiclass import confusion_figure_k

    names = [
        "Another very long class name for beta group",
        "Another very long class name for beta group, too",
        "short",
    ]
    cm = pd.DataFrame(np.arange(9).reshape(3, 3), index=names, columns=names)
    two = confusion_figure(pd.DataFrame([[9, 1], [2, 8]]), pos_name=names[0], neg_name=names[1])
    for fig in (confusion_figure_k(cm), two):
        ticks = list(fig.data[0].x)
        assert ticks == list(fig.data[0].y) and len(set(ticks)) == len(ticks)
        for tick in ticks:
            lines = [re.sub(r"<[^>]+>", "", line) for line in tick.split("<br>")]
            assert len(lines) <= TICK_MAX_LINES
            assert all(len(line.strip("\u200b")) <= TICK_LINE_CHARS + 2 for line in lines), lines
    assert (
        confusion_figure_k(cm).layout.height
        > confusion_figure_k(
            pd.DataFrame(np.eye(3), index=list("abc"), columns=list("abc"))
        ).layout.height
    )  # room for the lines under the columns


def test_waterfall_titles_shorten_long_class_names():
    """H41: a class name of 44 characters cut Explain's axis title at the figure's edge; the
    title and the legend now carry at most 24 characters of a name, ended by "…"."""
    c = pd.Series({"log p+(a)": 0.6, "log p-(a)": -0.2})
    long = "Another very long class name for beta group"
    k = figures.contributions_figure(c, baseline=0.0, score_of=long)
    assert k.layout.xaxis.title.text == "Another very long…'s decision value"
    two = figures.contributions_figure(c, baseline=0.0, pos_name=long, neg_name="Patient_" * 6)
    title = two.layout.xaxis.title.text
    assert "Another very long…" in title and "Patient_Patient_Patient…" in title
    assert all(long not in (t.name or "") for t in two.data)
