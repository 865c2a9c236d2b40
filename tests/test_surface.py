"""Decision surfaces (slb.evaluation.surface, slb.viz.surface): the regions are ``predict``.

The reference is built here independently of the library's grid: for every node, the full
feature vector is assembled from the two grid coordinates and the held values (medians or the
chosen row, computed here), and the classifier's own ``predict`` is called on those vectors (in
a shuffled order).  The region at every node must equal it exactly, for SLB, KDE naive Bayes
and TAN, with two and three classes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from slb import KDENaiveBayes, SLBClassifier, TANClassifier
from slb.data.toy import spirals, xor
from slb.evaluation.surface import decision_surface, predict_surface, surface_axes, surface_grid
from slb.viz.surface import FONT_PX, decision_surface_figure

MODELS = {
    "SLB": lambda: SLBClassifier(threshold=0.0, random_state=0),
    "NB": lambda: KDENaiveBayes(),
    "TAN": lambda: TANClassifier(),
}


def _data(k: int) -> tuple[pd.DataFrame, pd.Series]:
    """Two (XOR) or three (spiral arms) classes, with a third feature that is held."""
    if k == 2:
        X, y = xor(n=160, noise=0.1, random_state=0)
    else:
        X, y = spirals(n=150, noise=0.05, random_state=0, n_classes=3)
    rng = np.random.default_rng(1)
    X = X.assign(x3=X["x1"] * 0.5 + rng.normal(0, 0.3, len(X)))  # held: it matters to SLB/TAN
    return X, y


@pytest.fixture(scope="module", params=[2, 3], ids=["K=2", "K=3"])
def fitted(request):
    X, y = _data(request.param)
    return X, y, {name: make().fit(X, y) for name, make in MODELS.items()}


def _reference(clf, X: pd.DataFrame, features, xs, ys, held: pd.Series) -> np.ndarray:
    """predict of every node's full feature vector, assembled here, in a shuffled order."""
    rows = []
    for yv in ys:
        for xv in xs:
            v = held.copy()
            v[features[0]] = xv
            v[features[1]] = yv
            rows.append(v[list(X.columns)].to_numpy(dtype=float))
    rows = np.array(rows)
    order = np.random.default_rng(0).permutation(len(rows))
    pred = np.empty(len(rows), dtype=object)
    pred[order] = clf.predict(pd.DataFrame(rows[order], columns=X.columns))
    return pred.reshape(len(ys), len(xs))


@pytest.mark.parametrize("held", ["median", 17])
def test_regions_equal_predict_on_every_node(fitted, held):
    X, y, models = fitted
    features = ["x1", "x2"]
    s = decision_surface(models, X, features, held=held, resolution=(23, 19))
    # the grid, computed independently: the data's range widened by 5 % on each side
    lo, hi = X["x1"].min(), X["x1"].max()
    np.testing.assert_allclose(
        s.grid.x, np.linspace(lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo), 23)
    )
    lo, hi = X["x2"].min(), X["x2"].max()
    np.testing.assert_allclose(
        s.grid.y, np.linspace(lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo), 19)
    )
    held_values = (
        pd.Series(np.median(X.to_numpy(), axis=0), index=X.columns)
        if held == "median"
        else X.iloc[held].astype(float)
    )
    assert s.grid.held["x3"] == pytest.approx(held_values["x3"])
    assert sorted(s.classes.tolist()) == sorted(np.unique(y).tolist())
    for name, clf in models.items():
        ref = _reference(clf, X, features, s.grid.x, s.grid.y, held_values)
        assert s.labels[name].shape == (19, 23)
        assert (s.labels[name] == ref).all(), name
        # the codes index the classes
        assert (s.classes[s.codes[name]] == ref).all(), name
        # the regions are not trivial: every class wins somewhere on the grid
        assert np.unique(s.codes[name]).size == len(s.classes), name


def test_other_pair_and_held_values(fitted):
    """The varying pair can be any two columns (by position too), the rest given as values."""
    X, _, models = fitted
    held = {"x1": 0.3, "x2": -0.4, "x3": 0.1}
    s = decision_surface(models, X, [2, 0], held=held, resolution=7)  # x3 along x, x1 along y
    assert s.grid.features == ("x3", "x1") and s.grid.held_from == "values"
    for name, clf in models.items():
        ref = _reference(clf, X, ["x3", "x1"], s.grid.x, s.grid.y, pd.Series(held))
        assert (s.labels[name] == ref).all(), name


def test_xor_structure_is_seen_by_slb_not_by_naive_bayes():
    """Known structure: on XOR the quadrant rule is a pair effect.  SLB (with the pair) follows
    it on most of the grid; naive Bayes, which sees only the marginals, cannot."""
    X, y = xor(n=400, noise=0.05, random_state=0)
    models = {n: MODELS[n]().fit(X, y) for n in ("SLB", "NB")}
    s = decision_surface(models, X, ["x1", "x2"], resolution=41, margin=0.0)
    gx, gy = np.meshgrid(s.grid.x, s.grid.y)
    truth = (gx * gy > 0).astype(int)
    away = (np.abs(gx) > 0.2) & (np.abs(gy) > 0.2)  # off the axes, where the noise blurs it
    assert (s.labels["SLB"][away] == truth[away]).mean() > 0.95
    assert (s.labels["NB"][away] == truth[away]).mean() < 0.8


def test_numpy_input_and_sklearn_estimators():
    from sklearn.neighbors import KNeighborsClassifier

    X, y = xor(n=100, noise=0.0, random_state=0)
    knn = KNeighborsClassifier(3).fit(X.to_numpy(), y.to_numpy())
    s = decision_surface(knn, X.to_numpy(), [0, 1], resolution=6)
    assert list(s.codes) == ["KNeighborsClassifier"]
    nodes = np.column_stack([np.tile(s.grid.x, 6), np.repeat(s.grid.y, 6)])
    assert (s.labels["KNeighborsClassifier"].ravel() == knn.predict(nodes)).all()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"features": ["x1"]}, "two features"),
        ({"features": ["x1", "x1"]}, "must differ"),
        ({"features": ["x1", "nope"]}, "Unknown feature"),
        ({"held": 999}, "Row 999 does not exist"),
        ({"held": "mean"}, "held must be"),
        ({"held": {"x1": 0.0}}, "no value for"),
        ({"resolution": 1}, "between 2 and 400"),
        ({"resolution": 2.5}, "whole number"),
        ({"margin": -1}, "margin"),
    ],
)
def test_bad_input(kwargs, match):
    X, _ = xor(n=20, random_state=0)
    args = {"features": ["x1", "x2"], **kwargs}
    with pytest.raises(ValueError, match=match):
        surface_grid(X, args.pop("features"), **args)


def test_bad_data_and_estimators():
    X, y = xor(n=20, random_state=0)
    with pytest.raises(ValueError, match="at least two features"):
        surface_grid(X[["x1"]], [0, 1])
    with pytest.raises(ValueError, match="missing or infinite"):
        surface_grid(X.assign(x1=np.nan), ["x1", "x2"])
    with pytest.raises(ValueError, match="no predict"):
        predict_surface(object(), surface_grid(X, ["x1", "x2"], resolution=3))
    with pytest.raises(ValueError, match="not among the classes"):
        decision_surface(KDENaiveBayes().fit(X, y), X, ["x1", "x2"], classes=[0])
    with pytest.raises(ValueError, match="No classifier"):
        decision_surface({}, X, ["x1", "x2"])


def _font_sizes(spec) -> list[float]:
    """Every font size set in a figure's layout (ticks, titles, legend, annotations)."""
    out = []

    def walk(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "size" and isinstance(v, (int, float)) and "font" in path[-1:]:
                    out.append(v)
                path.append(k)
                walk(v)
                path.pop()
        elif isinstance(node, list):
            for v in node:
                walk(v)

    path: list = []
    walk(spec)
    return out


def test_figure_draws_the_regions_and_the_data(fitted):
    X, y, models = fitted
    s = decision_surface(models, X, ["x1", "x2"], resolution=15)
    k = len(s.classes)
    names = [f"class <{c}>" for c in s.classes]  # names are escaped
    fig = decision_surface_figure(s, X, y, class_names=names, cols=2)
    meta = fig.layout.meta
    assert meta["kind"] == "decision_surface" and meta["classifiers"] == list(models)
    assert meta["grid"] == [15, 15] and meta["n_points"] == len(X)
    heat = [t for t in fig.data if t.type == "heatmap"]
    assert [t.name for t in heat] == [f"{n} regions" for n in models]
    for t, name in zip(heat, models, strict=True):
        assert (np.asarray(t.z) == s.codes[name]).all()
        assert t.zmin == -0.5 and t.zmax == k - 0.5
    # the boundary: one indicator contour with two classes, one per class with three
    contours = [t for t in fig.data if t.type == "contour"]
    assert len(contours) == len(models) * (1 if k == 2 else k)
    for t in contours:
        name = t.name.removesuffix(" boundary")
        assert {tuple(np.unique(t.z))} == {(0, 1)}
        assert any((np.asarray(t.z) == (s.codes[name] == j)).all() for j in range(k))
    pts = [t for t in fig.data if t.type == "scatter"]
    assert len(pts) == k * len(models)
    assert sum(len(t.x) for t in pts) == len(X) * len(models)
    assert len({t.marker.symbol for t in pts}) == k  # a symbol per class
    legend = [t.name for t in pts if t.showlegend]
    assert legend == [f"class &lt;{c}&gt;" for c in s.classes]
    # 2 panels per row: 2 rows for 3 classifiers
    assert fig.layout.xaxis3.anchor == "y3" and fig.layout.xaxis3.visible is not False
    assert fig.layout.xaxis4.visible is False and fig.layout.yaxis4.visible is False  # empty cell
    assert fig.layout.xaxis2.title.text == "x1"  # under the lowest panel of column 2
    # H43: stacked panels showed tick labels and the title under the lowest panel only, about
    # 1000 px below the first; every panel has its own now
    stacked = decision_surface_figure(s, X, y, class_names=names, cols=1)
    axes = [stacked.layout[f"xaxis{i if i > 1 else ''}"] for i in range(1, len(models) + 1)]
    assert all(a.showticklabels is not False and a.title.text == "x1" for a in axes), axes
    sizes = _font_sizes(fig.to_dict()["layout"])
    assert sizes and min(sizes) >= FONT_PX >= 14
    assert fig.layout.font.size >= 14


def test_figure_subsamples_and_checks():
    X, y = xor(n=300, noise=0.1, random_state=0)
    s = decision_surface({"NB": KDENaiveBayes().fit(X, y)}, X, ["x1", "x2"], resolution=5)
    fig = decision_surface_figure(s, X, y, max_points=100)
    assert fig.layout.meta["n_points"] == 100
    with pytest.raises(ValueError, match="No surface"):
        decision_surface_figure(s, names=["SLB"])
    with pytest.raises(ValueError, match="class_names"):
        decision_surface_figure(s, class_names=["a"])


# --------------------------------------------------------------------------------------------
# The dashboard page (AppTest)
# --------------------------------------------------------------------------------------------
def _surface_page(kind: str):
    """The app on the toy data ``kind``, switched to the Decision surface page."""
    import os

    os.environ["STREAMLIT_CLIENT_SHOW_ERROR_DETAILS"] = "full"
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    app = str(Path(__file__).resolve().parent.parent / "app.py")
    at = AppTest.from_file(app, default_timeout=300)
    at.run()
    at.radio(key="data_source").set_value("toy").run()
    at.selectbox(key="toy_kind").set_value(kind).run()
    assert not at.exception, [e.value for e in at.exception]
    at.switch_page("pages/surface.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def _figure(at) -> dict:
    import json

    for el in at.get("plotly_chart"):
        if el.proto.id.endswith("-srf_figure"):
            return json.loads(el.proto.spec)
    raise AssertionError("no decision-surface figure")


def _arr(v) -> np.ndarray:
    """A plotly JSON array: a list, or a typed array ``{"dtype", "bdata"[, "shape"]}``."""
    import base64

    if isinstance(v, dict) and "bdata" in v:
        a = np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
        if "shape" in v:
            a = a.reshape([int(k) for k in str(v["shape"]).split(",")])
        return a
    return np.asarray(v)


def _regions(spec: dict) -> dict:
    return {t["name"]: _arr(t["z"]) for t in spec["data"] if t["type"] == "heatmap"}


def _largest_lambda(at) -> None:
    """Move the page's λ-by-value control to its end (a slider, or a select slider over the
    distinct kept sets whose options are ``format_func.values``)."""
    try:
        w = at.slider(key="srf_lambda")
        w.set_value(w.max).run()
    except KeyError:
        w = at.select_slider(key="srf_lambda")
        w.set_value(w.format_func.values[-1]).run()


@pytest.mark.slow
def test_page_renders_on_xor_and_follows_lambda():
    at = _surface_page("xor")
    X, y = xor(n=400, noise=0.1, random_state=0)  # the Data page's defaults
    spec = _figure(at)
    meta = spec["layout"]["meta"]
    assert meta["classifiers"] == ["SLB", "NB", "TAN"] and meta["features"] == ["x1", "x2"]
    assert meta["n_points"] == 400 and meta["grid"] == [50, 50]
    # the classes as the other pages write them, + first (H37: the legend read "0 / 1")
    ds = at.session_state["dataset"]
    signed = [f"− {ds.negative_label}", f"+ {ds.positive_label}"]
    assert meta["classes"] == signed
    legend = sorted(
        (t.get("legendrank", 1000), t["name"]) for t in spec["data"] if t.get("showlegend")
    )
    assert [name for _, name in legend] == signed[::-1]
    regions = _regions(spec)
    # NB's regions are predict of naive Bayes fitted here on the same data, node by node
    grid = surface_grid(X, ["x1", "x2"], resolution=50)
    nb = KDENaiveBayes().fit(X, y)
    assert (regions["NB regions"] == predict_surface(nb, grid)).all()
    captions = " ".join(c.value for c in at.caption)
    assert "SLB keeps it (1 of 1 pairs kept)" in captions and "data seed 0" in captions
    # SLB with the pair follows the quadrants off the axes; NB cannot
    gx, gy = np.meshgrid(grid.x, grid.y)
    away = (np.abs(gx) > 0.25) & (np.abs(gy) > 0.25)
    truth = (gx * gy > 0).astype(int)
    assert (regions["SLB regions"][away] == truth[away]).mean() > 0.95
    # λ above the pair's score: SLB drops the pair and its regions change; NB's do not
    _largest_lambda(at)
    assert not at.exception, [e.value for e in at.exception]
    after = _regions(_figure(at))
    assert "SLB does not keep it (0 of 1 pairs kept)" in " ".join(c.value for c in at.caption)
    assert (after["NB regions"] == regions["NB regions"]).all()
    assert (after["SLB regions"] != regions["SLB regions"]).mean() > 0.2
    assert (after["SLB regions"][away] == truth[away]).mean() < 0.8


@pytest.mark.slow
def test_page_renders_three_classes():
    at = _surface_page("spirals3")
    spec = _figure(at)
    assert spec["layout"]["meta"]["classes"] == ["0", "1", "2"]
    for z in _regions(spec).values():
        assert set(np.unique(z)) == {0, 1, 2}
    # each class in its colour of the other K-class pages (class 0 blue, class 1 vermillion)
    from slb.viz.multiclass import class_color

    drawn = {
        t["name"]: t["marker"]["color"]
        for t in spec["data"]
        if t["type"] == "scatter" and t.get("marker", {}).get("color")
    }
    assert drawn == {name: class_color(k) for k, name in enumerate(["0", "1", "2"])}
    at.radio(key="srf_cols").set_value(3).run()
    assert not at.exception and _figure(at)["layout"]["xaxis3"]["anchor"] == "y3"


def _app():
    import os
    from pathlib import Path

    os.environ["STREAMLIT_CLIENT_SHOW_ERROR_DETAILS"] = "full"
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(
        str(Path(__file__).resolve().parent.parent / "app.py"), default_timeout=300
    )
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.slow
def test_page_holds_the_other_features_at_a_row():
    """Penguins (3 species, 4 features): held at row 5, the regions of NB and TAN are predict
    of the same classifiers fitted here, at that row's values."""
    at = _app()
    at.selectbox(key="bundled_name").set_value("penguins").run()
    at.switch_page("pages/surface.py")
    at.run()
    ds = at.session_state["dataset"]
    assert ds.K == 3 and ds.d == 4
    at.selectbox(key="srf_held").set_value("row").run()
    at.number_input(key="srf_row").set_value(5).run()
    assert not at.exception, [e.value for e in at.exception]
    spec = _figure(at)
    fx, fy = spec["layout"]["meta"]["features"]
    assert spec["layout"]["meta"]["held_from"] == "row 5"
    assert "the other features at the values of row 5" in " ".join(c.value for c in at.caption)
    grid = surface_grid(ds.X, [fx, fy], held=5, resolution=50)
    assert grid.held.drop([fx, fy]).equals(ds.X.iloc[5].drop([fx, fy]).astype(float))
    regions = _regions(spec)
    for name, clf in (("NB", KDENaiveBayes()), ("TAN", TANClassifier())):
        ref = predict_surface(clf.fit(ds.X, ds.y), grid)
        assert (regions[f"{name} regions"] == ref).all(), name
    # a pair picked on the page: the x feature's box, swapping when the other one is chosen
    at.selectbox(key="srf_feature_x").set_value(fy).run()
    assert _figure(at)["layout"]["meta"]["features"] == [fy, fx]


@pytest.mark.slow
def test_page_refuses_one_feature():
    from dashboard.data import make_upload

    rng = np.random.default_rng(0)
    csv = pd.DataFrame({"a": rng.normal(size=60), "label": ["x", "y"] * 30}).to_csv(index=False)
    at = _app()
    at.session_state["upload"] = make_upload("one.csv", csv.encode())
    at.radio(key="data_source").set_value("upload").run()
    assert at.session_state["dataset"].d == 1
    at.switch_page("pages/surface.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("at least two features" in e.value for e in at.error)


def test_surface_axes_leave_out_two_valued_columns():
    X = pd.DataFrame(
        {
            "a": [0.1, 0.5, 0.2, 0.9],
            "dummy": [0, 1, 1, 0],
            "const": [3.0] * 4,
            "three": [1, 2, 3, 1],
            "gap": [np.nan, 1.0, 2.0, np.nan],  # two values and missing ones
        }
    )
    assert surface_axes(X) == ["a", "three"]
    assert surface_axes(X, min_values=2) == ["a", "dummy", "three", "gap"]
    assert surface_axes(X.to_numpy()) == [0, 3]
    with pytest.raises(ValueError, match="min_values"):
        surface_axes(X, min_values=0)


def _upload_surface(frame: pd.DataFrame):
    from dashboard.data import make_upload

    at = _app()
    at.session_state["upload"] = make_upload("dummies.csv", frame.to_csv(index=False).encode())
    at.radio(key="data_source").set_value("upload").run()
    at.switch_page("pages/surface.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.slow
def test_page_offers_no_two_valued_axis():
    """A 0/1 dummy is no axis (H39): not in the choices, not the default pair even when it is
    the most dependent feature, and the page says how many were left out."""
    rng = np.random.default_rng(0)
    a = rng.normal(size=120)
    frame = pd.DataFrame(
        {
            "a": a,
            "dummy": (a > 0).astype(int),  # the pair (a, dummy) is by far the most dependent
            "c": rng.normal(size=120),
            "d": rng.normal(size=120),
            "label": np.where(a + rng.normal(size=120) > 0, "yes", "no"),
        }
    )
    at = _upload_surface(frame)
    assert not at.error, [e.value for e in at.error]
    x, y = at.selectbox(key="srf_feature_x"), at.selectbox(key="srf_feature_y")
    assert "dummy" not in x.options and "dummy" not in y.options
    assert sorted(x.options) == ["a", "c", "d"]
    assert "dummy" not in _figure(at)["layout"]["meta"]["features"]
    assert any("1 feature with one or two values" in m.value for m in at.caption)
    # one axis feature left: a clear message, no figure
    at = _upload_surface(frame[["a", "dummy", "label"]])
    assert any("two features with at least three distinct values" in e.value for e in at.error)
    assert not [el for el in at.get("plotly_chart") if el.proto.id.endswith("-srf_figure")]


@pytest.mark.slow
def test_page_refits_only_what_a_control_changes(monkeypatch):
    """λ refits SLB only; the bandwidth refits all three; the layout refits and predicts
    nothing (cached fits and grids).  Counted on the classes' own fit/predict."""
    calls = {}

    def counting(cls, method):
        original = getattr(cls, method)

        def wrapper(self, *args, **kwargs):
            calls[(cls.__name__, method)] = calls.get((cls.__name__, method), 0) + 1
            return original(self, *args, **kwargs)

        monkeypatch.setattr(cls, method, wrapper)

    for cls in (SLBClassifier, KDENaiveBayes, TANClassifier):
        counting(cls, "fit")
        counting(cls, "predict")
    at = _surface_page("moons")
    assert calls  # the page fitted (or found cached) models and drew their grids

    def moved(action) -> dict:
        calls.clear()
        action()
        assert not at.exception, [e.value for e in at.exception]
        return {k: v for k, v in calls.items() if v}

    assert moved(lambda: at.radio(key="srf_cols").set_value(2).run()) == {}
    after_lambda = moved(lambda: _largest_lambda(at))
    assert after_lambda.get(("SLBClassifier", "fit"), 0) >= 1
    assert ("KDENaiveBayes", "fit") not in after_lambda
    assert ("TANClassifier", "fit") not in after_lambda
    assert ("KDENaiveBayes", "predict") not in after_lambda
    after_bw = moved(lambda: at.slider(key="srf_bw_mult").set_value(1.35).run())
    for cls in ("SLBClassifier", "KDENaiveBayes", "TANClassifier"):
        assert after_bw.get((cls, "fit"), 0) >= 1, (cls, after_bw)
        assert after_bw.get((cls, "predict"), 0) >= 1, (cls, after_bw)


@pytest.mark.slow
def test_page_shows_hostile_names_literally():
    """Markdown/HTML in the uploaded column and class names stays text on this page (the walk
    of tests/test_markdown_safety.py over every element), also in the held-row view."""
    from test_markdown_safety import EVIL_FILE, hostile_csv, offending

    from dashboard.data import make_upload

    at = _app()
    at.session_state["upload"] = make_upload(EVIL_FILE, hostile_csv())
    at.radio(key="data_source").set_value("upload").run()
    at.switch_page("pages/surface.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert _figure(at)["layout"]["meta"]["n_points"] > 0
    bad = offending(at)
    at.selectbox(key="srf_held").set_value("row").run()
    assert not at.exception, [e.value for e in at.exception]
    bad += offending(at)
    assert not bad, bad


def test_hover_templates_do_not_substitute_names():
    X, y = xor(n=40, random_state=0)
    X = X.rename(columns={"x1": "%{y}<b>", "x2": "100%"})
    s = decision_surface({"%{x}": KDENaiveBayes().fit(X, y)}, X, list(X.columns), resolution=4)
    fig = decision_surface_figure(s, X, y, class_names=["%{meta}", "b"])
    for t in fig.data:
        tmpl = t.hovertemplate or ""
        assert "%{y}<b>" not in tmpl and "%{x}" not in tmpl.replace("%{x:.3g}", "")
        assert "&#37;{y}&lt;b&gt;" in tmpl or t.type == "contour"


@pytest.mark.slow
def test_page_says_when_a_classifier_draws_one_class_everywhere():
    """Sonar's default plane (H30): a classifier whose regions are one class over the whole
    grid draws no boundary, and the page says so, naming it and the class; the others are not
    named (on XOR every classifier draws a boundary and the sentence is absent)."""
    at = _app()
    at.switch_page("pages/surface.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    ds = at.session_state["dataset"]
    regions = _regions(_figure(at))
    names = [str(v) for v in ds.class_labels]
    flat = {
        n.removesuffix(" regions"): names[int(np.unique(z)[0])]
        for n, z in regions.items()
        if np.unique(z).size == 1
    }
    text = " ".join(c.value for c in at.caption)
    assert flat, "Sonar's default plane no longer has a one-class classifier: pick another case"
    for name, cls in flat.items():
        assert f"{name} predicts {cls} everywhere on this plane" in text
    for name in set(n.removesuffix(" regions") for n in regions) - set(flat):
        assert f"{name} predicts" not in text
    xor = _surface_page("xor")
    assert "everywhere on this plane" not in " ".join(c.value for c in xor.caption)


def test_own_region_shares_follow_predict_at_each_rows_nearest_node(fitted):
    """Each row is placed on its nearest node by brute force (distance to every node, here)
    and the region there is compared with the row's class, class by class."""
    X, y, models = fitted
    s = decision_surface(models, X, ["x1", "x2"], resolution=23)
    gx, gy = np.meshgrid(s.grid.x, s.grid.y)
    nodes = np.column_stack([gx.ravel(), gy.ravel()])
    rows = X[["x1", "x2"]].to_numpy(dtype=float)
    nearest = np.argmin(((rows[:, None, :] - nodes[None]) ** 2).sum(-1), axis=1)
    got = s.own_region_shares(X, np.asarray(y))
    for name, clf in models.items():
        region = predict_surface(clf, s.grid).ravel()[nearest]
        for c in s.classes:
            mine = np.asarray(y) == c
            assert got.loc[name, c] == pytest.approx((region[mine] == c).mean()), (name, c)
    # the third feature, held at its median, matters: some class loses rows to another region
    assert got.to_numpy().min() < 1.0


@pytest.mark.slow
def test_page_says_when_the_held_values_move_a_class_out_of_its_region():
    """Penguins' default plane at the medians (H52 2): most Adelie rows lie in another
    species' region; the page names the class and each classifier's share inside, computed
    here from classifiers fitted on the page's data; on XOR (d = 2) nothing is held and the
    teaching text does not speak of held features."""
    at = _app()
    at.selectbox(key="bundled_name").set_value("penguins").run()
    at.switch_page("pages/surface.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    ds = at.session_state["dataset"]
    fx, fy = _figure(at)["layout"]["meta"]["features"]
    grid = surface_grid(ds.X, [fx, fy], resolution=50)
    text = " ".join(c.value for c in at.caption)
    models = {"NB": KDENaiveBayes().fit(ds.X, ds.y), "TAN": TANClassifier().fit(ds.X, ds.y)}
    own = decision_surface(models, ds.X, [fx, fy], resolution=50).own_region_shares(ds.X, ds.y)
    assert grid.held_from == "median"
    low = [(n, k) for n in own.index for k in own.columns if own.loc[n, k] < 0.5]
    assert low, "penguins' default plane no longer moves a class out of its region"
    for name, k in low:
        label = str(ds.class_labels[k])
        assert f"most rows of {label} lie outside its region".lower() in text.lower()
        assert f"{name} {100 * own.loc[name, k]:.0f}%" in text
    assert "for these rows they decide the class" in text
    xor_text = " ".join(c.value for c in _surface_page("xor").caption)
    assert "lie outside its region" not in xor_text and "held fixed" not in xor_text


def test_a_class_has_one_marker_on_the_densities_and_the_surface():
    """H52 9: the Densities page drew + as circles and − as diamonds, the Decision surface
    − as circles and + as crosses.  Each colour now keeps one symbol on both figures, for
    two classes (the library's default colours) and for three (the K-class pages' colours)."""
    from slb.viz.density import density_2d
    from slb.viz.multiclass import class_color, density_2d_k

    def marks(fig) -> dict:
        return {
            t.marker.color: t.marker.symbol
            for t in fig.data
            if t.type == "scatter" and t.mode == "markers" and t.marker.symbol
        }

    for k in (2, 3):
        X, y = _data(k)
        y = np.asarray(y)
        s = decision_surface({"NB": KDENaiveBayes().fit(X, y)}, X, ["x1", "x2"], resolution=5)
        colors = None if k == 2 else [class_color(c) for c in range(k)]
        surface = marks(decision_surface_figure(s, X, y, colors=colors))
        a, b = X["x1"].to_numpy(), X["x2"].to_numpy()
        if k == 2:
            dens = marks(density_2d(a, b, y, [0.3, 0.3], [0.3, 0.3]))
        else:
            dens = marks(density_2d_k(a, b, y, np.full((k, 2), 0.3), ["0", "1", "2"]))
        assert len(surface) == k and surface == dens, (k, surface, dens)
        # the library's default colours too (H55: at K = 3 class 0 was vermillion)
        assert marks(decision_surface_figure(s, X, y)) == dens, k
