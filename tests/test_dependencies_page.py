"""The Dependencies page of issue 13 under AppTest: outlines that follow λ, the feature search,
and a clicked pair's bivariate density (the click itself is tested in tests/test_browser.py;
here the page's callback is fed the selection event Streamlit would store)."""

from __future__ import annotations

import base64

import numpy as np
import pytest
from test_app import assert_ok, chart, goto, lambda_max, metric, new_app, set_lambda

from slb import dependence_matrix, load_dataset
from slb._utils import all_pairs

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def at():
    return goto(new_app(), "pages/dependencies.py")


def _kept_reference(lam: float) -> int:
    """Pairs kept at λ, from the library directly (the page's rule "either": max over classes)."""
    X, y = load_dataset("sonar")
    X = X.to_numpy()
    pairs = all_pairs(X.shape[1])
    stat = [dependence_matrix(X[y == c], "hsic").statistic for c in np.unique(y)]
    scores = np.fmax(stat[0][pairs[:, 0], pairs[:, 1]], stat[1][pairs[:, 0], pairs[:, 1]])
    return int((scores >= lam).sum())


def _typed_array(spec) -> np.ndarray:
    """A plotly JSON array: a list, or plotly's base64 typed array ``{dtype, bdata, shape}``."""
    if not isinstance(spec, dict):
        return np.asarray(spec)
    flat = np.frombuffer(base64.b64decode(spec["bdata"]), dtype=spec["dtype"])
    shape = [int(v) for v in str(spec.get("shape", flat.size)).split(",")]
    return flat.reshape(shape)


def test_outlines_follow_lambda(at):
    for frac in (0.3, 0.6):
        lam = set_lambda(at, "dep_lambda", lambda_max(at, "dep_lambda") * frac)
        assert_ok(at)
        kept = int(metric(at, "pairs kept").split()[0])
        assert (
            kept
            == _kept_reference(lam)
            == _kept_reference(at.select_slider(key="dep_lambda").value)
        )
        for sym in "-+":  # one class's heatmap at a time, chosen by the class switch
            at.radio(key="dep_class").set_value(sym).run()
            meta = chart(at, f"dep_heatmap_{sym}")["layout"]["meta"]
            assert meta["n_outlined"] == kept
            assert meta["n_labels"] == 20  # d = 60: every 3rd name at 14 px, all on hover
            other = "+" if sym == "-" else "-"
            with pytest.raises(AssertionError, match="no plotly chart"):
                chart(at, f"dep_heatmap_{other}")  # the hidden class is not drawn


def test_search_rings_the_feature(at):
    at.text_input(key="dep_search").set_value("BAND_7").run()  # case-insensitive
    assert_ok(at)
    graph = chart(at, "dep_pair_graph")
    ring = [t for t in graph["data"] if t.get("name") == "searched feature"]
    nodes = next(t for t in graph["data"] if t.get("name") == "features")
    assert len(ring) == 1 and "<b>band_7</b>" in nodes["text"]
    at.text_input(key="dep_search").set_value("no such feature").run()
    assert not [
        t for t in chart(at, "dep_pair_graph")["data"] if t.get("name") == "searched feature"
    ]
    assert any("No feature name contains" in c.value for c in at.caption)


def test_picked_pair_shows_its_density(at):
    graph = chart(at, "dep_pair_graph")
    hover = next(t for t in graph["data"] if t.get("name") == "pair hover")
    i, j = _typed_array(hover["customdata"])[0]  # a kept pair, as a click reports it
    names = load_dataset("sonar")[0].columns.tolist()
    at.session_state["dep_pair_pick"] = (at.session_state["dataset"].key, i, j)
    at.run()
    assert_ok(at)
    dens = chart(at, "dep_pair_density")
    assert dens["layout"]["meta"]["kind"] == "density_2d"
    assert dens["layout"]["xaxis"]["title"]["text"] == names[i]
    assert dens["layout"]["yaxis"]["title"]["text"] == names[j]
    assert any(f"{names[i]} × {names[j]}" in h.value.replace("\\", "") for h in at.subheader)
    at.button(key="dep_pair_close").click().run()
    assert_ok(at)
    with pytest.raises(AssertionError, match="no plotly chart"):
        chart(at, "dep_pair_density")


def test_cached_heatmap_is_the_figure_built_afresh(at):
    """The page draws the cached λ-free heatmap plus the current outline: it must be exactly
    the figure ``figures.dependence_heatmap`` builds from slb's own numbers at that λ."""
    import json

    from slb.viz import figures

    at.radio(key="dep_class").set_value("+").run()
    lam = at.select_slider(key="dep_lambda").value
    ds = at.session_state["dataset"]
    X = ds.X.to_numpy()
    res = [dependence_matrix(X[ds.y == c], "hsic") for c in (0, 1)]
    both = np.fmax(res[0].statistic, res[1].statistic)
    kept = np.nan_to_num(both, nan=-np.inf) >= lam  # rule "either": the larger class score
    np.fill_diagonal(kept, False)
    fresh = figures.dependence_heatmap(
        res[1].statistic,
        res[1].pvalue,
        list(ds.feature_names),
        order=figures.cluster_order(both),
        zmax=float(np.nanmax([r.statistic for r in res])),
        measure="hsic",
        color=figures.COLORS["+"],
        kept=kept,
    )
    shown = chart(at, "dep_heatmap_+")
    assert shown["layout"]["meta"]["n_outlined"] == _kept_reference(lam) > 0
    assert shown == json.loads(fresh.to_json())


def test_cached_histogram_is_the_figure_built_afresh(at):
    """The cached λ-free histogram plus the λ line is the figure built afresh at that λ."""
    import json

    from slb.viz import figures

    lam = at.select_slider(key="dep_lambda").value
    ds = at.session_state["dataset"]
    X = ds.X.to_numpy()
    pairs = all_pairs(ds.d)
    stat = [dependence_matrix(X[ds.y == c], "hsic").statistic for c in (0, 1)]
    fresh = figures.dependence_histogram(
        stat[1][pairs[:, 0], pairs[:, 1]],
        stat[0][pairs[:, 0], pairs[:, 1]],
        lam,
        measure="hsic",
        pos_name=ds.positive_label,
        neg_name=ds.negative_label,
    )
    shown = chart(at, "dep_histogram")
    assert shown["layout"]["meta"]["threshold"] == lam
    assert [s["x0"] for s in shown["layout"]["shapes"]] == [lam]
    fresh = json.loads(fresh.to_json())
    assert shown["data"] == fresh["data"]  # (the page sets its own height and margins)
    for part in ("shapes", "annotations", "meta", "xaxis", "yaxis", "barmode"):
        assert shown["layout"][part] == fresh["layout"][part], part
