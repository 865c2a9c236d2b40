"""The dashboard with K > 2 classes (issue 25): the classes are never merged by default.

AppTest: a 3-class CSV upload goes through every page with no merge (one heatmap per class,
one density curve per class, a 3 x 3 confusion matrix on Compare, every class's score on
Explain); merging (one class vs the rest) and dropping classes are explicit choices; the
"automatic" positive class of one-vs-rest is the smaller class; the bundled penguins dataset
is selectable; binary-only classifiers are not offered for three classes.  Unit tests of the
K-class figures of :mod:`slb.viz.multiclass`.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

os.environ["STREAMLIT_CLIENT_SHOW_ERROR_DETAILS"] = "full"

from streamlit.testing.v1 import AppTest  # noqa: E402

from dashboard.data import SMALLER_VS_REST, make_upload  # noqa: E402
from dashboard.safety import escape_markdown as esc  # noqa: E402
from slb import KDENaiveBayes, SLBClassifier  # noqa: E402
from slb.evaluation import compare_estimators, stratified_folds  # noqa: E402
from slb.evaluation.registry import CLASSIFIERS as CATALOG  # noqa: E402
from slb.model.path import FIXED_C  # noqa: E402
from slb.viz import multiclass as mfig  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
TIMEOUT = 600  # a busy 2-core machine: generous

pytestmark = pytest.mark.slow


def assert_ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def goto(at: AppTest, page: str) -> AppTest:
    at.switch_page(page)
    at.run()
    assert_ok(at)
    return at


def metric(at: AppTest, label: str) -> str:
    for m in at.metric:
        if m.label == label:
            return m.value
    raise AssertionError(f"no metric {label!r}: {[m.label for m in at.metric]}")


def three_class_frame(n: int = 150, seed: int = 0) -> pd.DataFrame:
    """Three species-like classes in 4 features; the class "<b>c</b>" tests escaping."""
    rng = np.random.default_rng(seed)
    names = np.array(["alpha", "beta", "<b>c</b>"])
    sizes = [60, 50, 40]
    rows = []
    for k, m in enumerate(sizes):
        mu = np.array([k * 1.5, -k, 0.5 * k, 0.0])
        Z = rng.normal(size=(m, 4)) + mu
        Z[:, 3] = Z[:, 2] * (1 if k == 1 else -1) + 0.3 * rng.normal(size=m)
        rows.append(pd.DataFrame(Z, columns=["u", "v", "w", "z"]).assign(species=names[k]))
    return pd.concat(rows, ignore_index=True).sample(frac=1.0, random_state=seed)


def upload_app(df: pd.DataFrame, name: str = "three.csv") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    assert_ok(at)
    at.session_state["upload"] = make_upload(name, df.to_csv(index=False).encode())
    at.session_state["cfg"]["source"] = "upload"
    at.run()
    assert_ok(at)
    return at


def charts(at: AppTest) -> dict:
    out = {}
    for el in at.get("plotly_chart"):
        out[el.proto.id.rsplit("-", 1)[-1]] = json.loads(el.proto.spec)
    return out


def chart_with_key(at: AppTest, key: str) -> dict:
    for el in at.get("plotly_chart"):
        if el.proto.id.endswith("-" + key):
            return json.loads(el.proto.spec)
    raise AssertionError(
        f"no chart {key!r}; charts: {[e.proto.id for e in at.get('plotly_chart')]}"
    )


@pytest.fixture(scope="module")
def three():
    return three_class_frame()


def test_three_class_upload_every_page_no_merge(three):
    at = upload_app(three)
    assert not at.error, [e.value for e in at.error]
    # the Data page: the label and its three classes, nothing merged
    assert metric(at, "classes K") == "3"
    assert metric(at, "rows n") == "150"
    box = at.selectbox(key="positive_class")
    assert box.value is None or "all 3 classes" in box.format_func(box.value)
    assert "all 3 classes" in box.options[0]
    balance = chart_with_key(at, "data_class_balance")
    assert sorted(balance["layout"]["meta"]["counts"]) == [40, 50, 60]
    text = "\n".join(m.value for m in at.markdown)
    assert "&lt;b&gt;" in text or "\\<b\\>" in text or "<b>c</b>" not in text
    assert not any("merged" in m.value for m in at.markdown)

    # Dependencies: one class's heatmap at a time (a picker), the pair graph (union by default)
    goto(at, "pages/dependencies.py")
    assert not at.error, [e.value for e in at.error]
    # H45: an outlined pale cell read as a contradiction; the caption says why under "any class"
    assert any("a pale cell can be outlined" in c.value for c in at.caption)
    for k in range(3):
        at.radio(key="dep_class_k").set_value(k).run()
        assert_ok(at)
        shown = [el.proto.id for el in at.get("plotly_chart") if "dep_heatmap_k" in el.proto.id]
        assert len(shown) == 1 and shown[0].endswith(f"dep_heatmap_k{k}")
        chart_with_key(at, f"dep_heatmap_k{k}")
    graph = chart_with_key(at, "dep_pair_graph")
    assert graph["layout"]["meta"]["kind"] == "pair_graph_k"
    assert len(graph["layout"]["meta"]["n_edges"]) == 3
    at.radio(key="dep_graph_class").set_value(1).run()
    assert_ok(at)
    assert len(chart_with_key(at, "dep_pair_graph")["layout"]["meta"]["n_edges"]) == 1
    pair = chart_with_key(at, "dep_pair_density")  # the most dependent kept pair
    assert sum(t["type"] == "contour" for t in pair["data"]) == 3

    # Densities: one curve per class
    goto(at, "pages/densities.py")
    assert not at.error, [e.value for e in at.error]
    fig = chart_with_key(at, "dens_figure")
    kde = [t for t in fig["data"] if str(t.get("name", "")).startswith("KDE")]
    assert len(kde) == 3
    assert any("&lt;b&gt;c&lt;/b&gt;" in t["name"] for t in kde)  # escaped in the figure
    at.radio(key="dens_view").set_value("pair").run()
    assert_ok(at)
    fig = chart_with_key(at, "dens_figure")
    assert sum(t["type"] == "contour" for t in fig["data"]) == 3

    # Compare: macro BER for every classifier, a 3 x 3 confusion matrix
    goto(at, "pages/compare.py")
    assert not at.error, [e.value for e in at.error]
    cm = chart_with_key(at, "cmp_confusion_k")
    counts = np.asarray(cm["layout"]["meta"]["counts"])
    assert counts.shape == (3, 3)
    assert counts.sum() % 150 == 0  # every row once per repeat
    # issue 28: the matrix is clickable (a click is a selection event on its cell targets);
    # the keyboard's selectbox lists a cell's rows, as many as the cell counts
    el = next(e for e in at.get("plotly_chart") if e.proto.id.endswith("-cmp_confusion_k"))
    assert list(el.proto.selection_mode)
    assert [t.get("name") for t in cm["data"]][1] == "cells"
    assert cm["layout"]["meta"]["cells"][7] == [2, 1]
    at.selectbox(key="cmp_cell_k").set_value(7).run()  # true class 2, predicted class 1
    assert_ok(at)
    classes = at.session_state["dataset"].classes
    t, p = esc(str(classes[2])), esc(str(classes[1]))
    shown = f"{counts[2, 1]} predictions of SLB in the cell true {t}, predicted {p}"
    assert any(shown in c.value for c in at.caption), [
        c.value for c in at.caption if "predictions of" in c.value
    ]
    # the recall of each class: a row per class (H41: classes as columns scrolled sideways with
    # long names), a column per classifier whose mean is 100 minus the pooled macro BER
    recall = next(df for df in at.dataframe if "class" in df.value.columns).value
    assert recall["class"].tolist() == [str(c) for c in classes]
    pooled = at.session_state["cmp_pred_model_k"]
    share = counts / counts.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(recall[pooled].to_numpy(), 100 * np.diag(share))
    table = next(df for df in at.dataframe if "mean BER (%)" in df.value.columns).value
    assert {"SLB", "TAN", "NB"} <= set(table.index)
    # H43: SLB's log-loss read "None"; what does not apply is "—", and the columns past the
    # fourth are named in a caption (hidden at 1024 px unless the table is scrolled)
    assert table.loc["SLB", "log-loss"] == "—" and float(table.loc["NB", "log-loss"]) > 0
    assert any("More columns to the right" in c.value and "log-loss" in c.value for c in at.caption)
    assert table["mean BER (%)"].between(0, 100).all()
    # H45: the bars are shaded by the verdict as on the two-class page (all one blue before),
    # and the caption gives the seed
    bars = next(t for t in chart_with_key(at, "cmp_ber_bars_k")["data"] if t["type"] == "bar")
    names = bars["y"] if bars.get("orientation") == "h" else bars["x"]
    colour = dict(zip(names, bars["marker"]["color"], strict=True))
    worse = table["vs best"] == "significantly worse"
    assert {n: colour[n] == "#9DB9D6" for n in table.index} == worse.to_dict()
    assert any("seed 0" in c.value and "darker bars" in c.value for c in at.caption)
    # SLB's BER (from the cached per-fold densities) is that of cold SLBClassifier fits at λ
    # on the same folds, and NB's that of KDENaiveBayes
    ds, cfg = at.session_state["dataset"], at.session_state["cfg"]
    folds = stratified_folds(ds.y, n_splits=ds.n_folds, n_repeats=5, random_state=0)
    ref = compare_estimators(
        {
            "SLB": SLBClassifier(
                threshold=float(cfg["lam_value"]), C=FIXED_C, random_state=0, probability=False
            ),
            "NB": KDENaiveBayes(),
        },
        ds.X,
        ds.y,
        folds=folds,
    )
    for name in ("SLB", "NB"):
        assert table.loc[name, "mean BER (%)"] == pytest.approx(
            100 * ref.per_fold[name].mean(), abs=1e-9
        )
    # the classifiers' lines take no class's colour, nor one that reads as it (H48: TAN's
    # orange and NB's green on the ROC curves read as the second and third classes)
    taken = {mfig.class_color(k).upper() for k in range(3)} | {"#E69F00", "#56B4E9"}
    for key in ("cmp_roc_k", "cmp_pr_k", "cmp_reliability_k"):
        lines = [
            t for t in chart_with_key(at, key)["data"] if t.get("mode", "").startswith("lines")
        ]
        colors = {t["line"]["color"].upper() for t in lines if "color" in t.get("line", {})}
        assert len(colors) >= 2 and not colors & taken, (key, colors)
    at.radio(key="cmp_roc_class").set_value(2).run()
    assert_ok(at)
    chart_with_key(at, "cmp_pr_k")
    at.session_state["cmp_tan_open_k"] = True  # what opening the expander does
    at.run()
    assert_ok(at)
    chart_with_key(at, "cmp_tan_k")  # TAN's tree of the first class
    at.radio(key="cmp_tan_class").set_value(2).run()
    assert_ok(at)
    assert "Chow-Liu tree of" in json.dumps(chart_with_key(at, "cmp_tan_k")["layout"]["title"])
    coef = next(df for df in at.dataframe if "term of class" in df.value.columns).value
    assert coef["term"].str.startswith("log p[").all()
    # a pair written "a × b" as in the caption (H50: the table wrote "(a, b)")
    pairs = coef[coef["term"].str.contains("×")]
    assert len(pairs) and not coef["term"].str.contains(", ").any()
    # binary-only classifiers are not offered for three classes, and the page says why
    binary_only = [n for n, i in CATALOG.items() if i.binary_only]
    offered = at.multiselect(key="cmp_models_k").options
    assert binary_only and not set(binary_only) & set(offered)
    assert any("Not offered for more than two classes" in c.value for c in at.caption)

    # Explain: every class's score and the winner's margin
    goto(at, "pages/explain.py")
    assert not at.error, [e.value for e in at.error]
    scores = chart_with_key(at, "explain_scores_k")
    assert len(scores["data"][0]["y"]) == 3
    # the table below writes the figure's numbers as the figure does (H48: "-1.086" and
    # "4.9596" under "−1.086" and "+4.960")
    table = next(df for df in at.dataframe if "decision value" in df.value.columns).value
    assert table["decision value"].tolist() == scores["data"][0]["text"]
    assert any("seed 0 (the folds" in c.value for c in at.caption)  # H45: no seed shown
    margin = float(metric(at, "margin"))  # over the runner-up (short: cut at 1024 px, H30)
    assert margin >= 0
    assert abs(margin - scores["layout"]["meta"]["margin"]) < 1e-3
    # the waterfall draws steps toward the decided class in that class's colour, the colour
    # of its bar above (H28: it was the two-class + colour whatever the class)
    from slb.viz.multiclass import REST_GREY, class_color

    winner = int(scores["layout"]["meta"]["winner"])
    fall = chart_with_key(at, "explain_figure")["data"]
    assert fall[0]["increasing"]["marker"]["color"] == class_color(winner)
    assert fall[0]["decreasing"]["marker"]["color"] == REST_GREY
    assert [t["marker"]["color"] for t in fall[1:]] == [class_color(winner), REST_GREY]
    # a class score: the legend says raises / lowers it, the axis names it (H30: it spoke of
    # "< 0: − the rest · > 0: + class", which a multinomial score's sign does not decide)
    up, down = (t["name"] for t in fall[1:])
    assert up.startswith("raises ") and down == up.replace("raises ", "lowers ", 1)
    layout = chart_with_key(at, "explain_figure")["layout"]
    title = layout["xaxis"]["title"]["text"]
    assert title == f"{up[len('raises ') : -len(' value')]} decision value"
    assert "the rest" not in title
    assert not at.exception


def test_merge_and_drop_are_explicit_choices(three):
    at = upload_app(three)
    assert metric(at, "classes K") == "3"
    # one vs the rest, "automatic": the smaller class ("<b>c</b>", 40 rows)
    at.selectbox(key="positive_class").set_value(SMALLER_VS_REST).run()
    assert_ok(at)
    assert not at.error
    assert metric(at, esc("+ <b>c</b>")) == "40"
    goto(at, "pages/explain.py")  # the model file repeats this one-vs-rest cleaning
    at.selectbox(key="dl_model_name").set_value("NB")
    at.button(key="dl_model_fit").click().run()
    assert_ok(at)
    assert not at.error, [e.value for e in at.error]
    assert at.session_state["dl_model_file"]
    at.switch_page("app.py").run()
    # back to all classes
    at.selectbox(key="positive_class").set_value("\x00automatic").run()
    assert metric(at, "classes K") == "3"
    # a chosen class vs the rest
    at.selectbox(key="positive_class").set_value("beta").run()
    assert metric(at, esc("+ beta")) == "50"
    at.selectbox(key="positive_class").set_value("\x00automatic").run()
    # dropping a class leaves two: the two-class page, "automatic" = the smaller one
    at.multiselect(key="drop_classes").set_value(["alpha"]).run()
    assert_ok(at)
    assert not at.error
    assert metric(at, esc("+ <b>c</b>")) == "40"
    assert metric(at, esc("− beta")) == "50"
    at.multiselect(key="drop_classes").set_value([]).run()
    assert metric(at, "classes K") == "3"


def test_smaller_class_vs_rest_is_the_smaller_class_on_wine():
    """Issue 25: wine's "automatic" positive class was class_0 (59 rows), not the smaller
    class_2 (48 rows) its help promised; by default its three classes are kept."""
    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True, as_frame=True)
    df = X.assign(cultivar=[f"class_{v}" for v in y])
    at = upload_app(df, "wine.csv")
    assert not at.error
    assert metric(at, "classes K") == "3"
    box = at.selectbox(key="positive_class")
    assert "class_2 (48 rows as read)" in box.format_func(SMALLER_VS_REST)
    box.set_value(SMALLER_VS_REST).run()
    assert_ok(at)
    assert metric(at, esc("+ class_2")) == "48"
    assert metric(at, esc("− not class_2")) == "130"
    goto(at, "pages/compare.py")  # two classes now: the two-class page
    assert not at.error
    assert any(el.proto.id.endswith("-cmp_ber_bars") for el in at.get("plotly_chart"))


def test_compare_ber_curve_and_experiments_with_three_classes(three):
    at = upload_app(three)
    goto(at, "pages/compare.py")
    at.toggle(key="cmp_curve_on").set_value(True).run()
    assert_ok(at)
    assert not at.error, [e.value for e in at.error]
    curve = chart_with_key(at, "cmp_ber_curve")
    assert curve["data"]
    at.radio(key="cmp_lam_mode").set_value("cv").run()  # λ by SLB's inner CV, K classes
    assert_ok(at)
    assert not at.error, [e.value for e in at.error]
    assert any("cross-validation" in c.value for c in at.caption)
    assert any("nested" in c.value for c in at.caption)  # SLB's λ chosen inside every fold
    chart_with_key(at, "cmp_confusion_k")
    at.radio(key="cmp_lam_mode").set_value("value").run()
    at.button(key="cmp_nested_button_k").click().run()  # λ and C chosen inside every fold
    assert_ok(at)
    assert not at.error, [e.value for e in at.error]
    table = next(df for df in at.dataframe if "mean BER (%)" in df.value.columns).value
    assert "SLB (nested λ, C)" in table.index
    assert table["mean BER (%)"].between(0, 100).all()
    goto(at, "pages/experiments.py")
    assert not at.error, [e.value for e in at.error]
    at.radio(key="noise_source").set_value("data").run()
    assert_ok(at)
    assert any("needs two classes" in i.value for i in at.info)
    # nothing is announced as "Will run" beside the disabled button (H50)
    captions = " ".join(c.value for c in at.caption)
    assert " at p = " not in captions and "Nothing will run on" in captions
    assert at.button(key="noise_run").disabled


def test_explain_offers_a_k_class_model_file(three):
    from slb import KDENaiveBayes
    from slb.persistence import load_model

    at = upload_app(three)
    goto(at, "pages/explain.py")
    box = at.selectbox(key="dl_model_name")
    assert not {n for n, i in CATALOG.items() if i.binary_only} & set(box.options)
    box.set_value("NB")
    at.button(key="dl_model_fit").click().run()
    assert_ok(at)
    assert not at.error, [e.value for e in at.error]
    _, payload = at.session_state["dl_model_file"]
    model = load_model(payload)
    assert type(model[-1]) is KDENaiveBayes
    assert sorted(model[-1].classes_) == sorted(["alpha", "beta", "<b>c</b>"])
    ds = at.session_state["dataset"]
    # the file repeats the Data page's cleaning and predicts the three class names
    np.testing.assert_array_equal(model[0].transform(three).to_numpy(), ds.X.to_numpy())
    pred = model.predict(three.drop(columns="species"))
    assert set(pred) <= {"alpha", "beta", "<b>c</b>"} and len(set(pred)) == 3
    assert np.mean(pred == three["species"].to_numpy()) > 0.8


def test_five_classes_pickers_lambda_modes_and_an_added_classifier():
    rng = np.random.default_rng(5)
    parts = []
    for k in range(5):
        Z = rng.normal(size=(30, 3)) + np.array([k, -0.5 * k, 0.3 * k])
        parts.append(pd.DataFrame(Z, columns=["p", "q", "r"]).assign(label=f"k{k}"))
    at = upload_app(pd.concat(parts, ignore_index=True), "five.csv")
    assert metric(at, "classes K") == "5"
    goto(at, "pages/dependencies.py")
    assert not at.error, [e.value for e in at.error]
    # one heatmap at a time, chosen with a class picker (above four choices a selectbox)
    shown = [el.proto.id for el in at.get("plotly_chart") if "dep_heatmap_k" in el.proto.id]
    assert len(shown) == 1 and shown[0].endswith("dep_heatmap_k0")
    at.selectbox(key="dep_class_k").set_value(3).run()  # five classes: a selectbox
    assert_ok(at)
    chart_with_key(at, "dep_heatmap_k3")
    at.selectbox(key="dep_graph_class").set_value(4).run()  # six choices: a selectbox
    assert_ok(at)
    assert list(chart_with_key(at, "dep_pair_graph")["layout"]["meta"]["n_edges"]) == ["k4"]
    for mode in ("quantile", "fdr"):
        at.radio(key="dep_lam_mode").set_value(mode).run()
        assert_ok(at)
        assert not at.error
    at.radio(key="dep_lam_mode").set_value("value").run()
    goto(at, "pages/compare.py")
    at.multiselect(key="cmp_models_k").set_value(["RF"]).run()
    assert_ok(at)
    assert not at.error, [e.value for e in at.error]
    table = next(df for df in at.dataframe if "mean BER (%)" in df.value.columns).value
    assert {"SLB", "TAN", "NB", "RF"} <= set(table.index)
    cm = chart_with_key(at, "cmp_confusion_k")
    assert np.asarray(cm["layout"]["meta"]["counts"]).shape == (5, 5)
    at.selectbox(key="cmp_roc_class").set_value(4).run()
    assert_ok(at)
    chart_with_key(at, "cmp_roc_k")
    # H43: the two-class page's bandwidth and repeats controls are here too, and act
    counts = np.asarray(cm["layout"]["meta"]["counts"])
    at.number_input(key="cmp_repeats").set_value(1).run()
    at.slider(key="cmp_bw_mult").set_value(2.0).run()
    assert_ok(at)
    assert any("(1 repeat of 5-fold CV)" in c.value for c in at.caption)
    assert "× 2" in "\n".join(m.value for m in at.markdown)  # the sidebar's bandwidth line
    fewer = np.asarray(chart_with_key(at, "cmp_confusion_k")["layout"]["meta"]["counts"])
    assert fewer.sum() == 150 < counts.sum()  # one repeat of the 150 rows, not several


def test_a_too_small_class_says_how_to_leave_it_out():
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(63, 3)), columns=["a", "b", "c"])
    df["label"] = ["x"] * 30 + ["y"] * 30 + ["z"] * 3
    at = upload_app(df, "small_class.csv")
    assert at.error and "Classes to drop" in at.error[0].value
    assert "Traceback" not in at.error[0].value
    at.multiselect(key="drop_classes").set_value(["z"]).run()
    assert_ok(at)
    assert not at.error
    assert metric(at, "rows n") == "60"


def test_a_class_of_few_rows_is_flagged_on_dependencies():
    """H43: a 6-row class of independent features decided all 3 kept pairs of a 4-class table
    (its HSIC 0.07-0.09, the others' 0.004-0.016); the page now says why and what to do."""
    rng = np.random.default_rng(1)
    df = pd.DataFrame(rng.normal(size=(96, 4)), columns=["a", "b", "c", "d"])
    df["label"] = ["x"] * 45 + ["y"] * 45 + ["tiny"] * 6
    at = goto(upload_app(df, "tiny_class.csv"), "pages/dependencies.py")
    assert not at.error, [e.value for e in at.error]
    warned = [w.value for w in at.warning if "Few rows in class tiny (6 rows)" in w.value]
    assert warned and "dependent in every class" in warned[0] and "HSIC of independent" in warned[0]
    at.radio(key="dep_measure").set_value("pearson").run()  # HSIC's numbers only for HSIC
    warned = [w.value for w in at.warning if "Few rows in class tiny (6 rows)" in w.value]
    assert warned and "HSIC" not in warned[0]
    # without a small class, nothing is said
    at = goto(upload_app(three_class_frame()), "pages/dependencies.py")
    assert not [w for w in at.warning if "Few rows" in w.value]


@pytest.mark.parametrize(
    "counts, advice",
    [
        ({"x": 30, "y": 30, "z": 3}, ["leave the small classes out", "one large class"]),
        ({"x": 10, "y": 3, "z": 3}, ["one large class"]),  # one class vs the other six rows
        ({"x": 5, "y": 2, "z": 2}, []),  # x against 4 rows: still too small
        ({"setosa": 4, "versicolor": 3, "virginica": 3}, []),  # H30's tiny10.csv
    ],
)
def test_the_advice_for_small_classes_is_only_what_can_work(counts, advice):
    from dashboard.data import _class_advice

    text = _class_advice(counts)
    for phrase in ["leave the small classes out", "one large class"]:
        assert (phrase in text) == (phrase in advice), text
    assert ("No choice of classes helps" in text) == (not advice)


def test_penguins_is_selectable():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    assert_ok(at)
    assert metric(at, "rows n") == "208"  # Sonar stays the default
    box = at.selectbox(key="bundled_name")
    assert "penguins" in box.options or any("penguins" in o.lower() for o in box.options)
    box.set_value("penguins").run()
    assert_ok(at)
    assert not at.error
    assert metric(at, "classes K") == "3"
    goto(at, "pages/dependencies.py")
    assert not at.error
    for k in range(3):
        at.radio(key="dep_class_k").set_value(k).run()
        chart_with_key(at, f"dep_heatmap_k{k}")


def test_hostile_class_labels_and_columns_are_shown_literally_on_every_page():
    """Issue 15's walk over every element of every page (tests/test_markdown_safety.py), with
    three hostile class labels kept apart (the K-class pages' own captions, pickers, tables)."""
    sys.path.insert(0, str(ROOT / "tests"))
    sys.path.insert(0, str(ROOT / "tests" / "data"))
    from make_hostile_uploads import EVIL_COLUMN, IMG_LABEL, LINK_LABEL
    from test_markdown_safety import offending

    df = three_class_frame(seed=2)
    df["species"] = df["species"].map(
        {"alpha": IMG_LABEL, "beta": LINK_LABEL, "<b>c</b>": "<script>x</script>"}
    )
    df = df.rename(columns={"u": EVIL_COLUMN})
    at = upload_app(df, "[f](http://127.0.0.1:9/f).csv")
    assert not at.error, [e.value for e in at.error]
    assert metric(at, "classes K") == "3"
    problems = {"Data": offending(at)}
    for page in ["pages/dependencies.py", "pages/densities.py", "pages/compare.py"]:
        goto(at, page)
        problems[page] = offending(at)
    at.radio(key="cmp_roc_class").set_value(1).run()
    problems["compare, class 1"] = offending(at)
    goto(at, "pages/densities.py")
    at.radio(key="dens_view").set_value("pair").run()
    problems["densities (pair)"] = offending(at)
    goto(at, "pages/explain.py")
    problems["explain"] = offending(at)
    assert not at.exception
    bad = {k: v for k, v in problems.items() if v}
    assert not bad, "\n".join(f"{k}: {e}" for k, v in bad.items() for e in v)


# --------------------------------------------------------------------------------------------
# figures
# --------------------------------------------------------------------------------------------
def test_multiclass_figures_escape_and_shape():
    rng = np.random.default_rng(0)
    names = ["a<script>", "b", "c", "d"]
    y = np.repeat(np.arange(4), 25)
    x = rng.normal(size=100) + y
    f1 = mfig.density_1d_k(x, y, [0.4] * 4, names, feature="<i>x</i>")
    assert sum(t.name.startswith("KDE") for t in f1.data) == 4
    assert all("<script>" not in (t.name or "") for t in f1.data)
    f2 = mfig.density_2d_k(x, -x, y, np.full((4, 2), 0.5), names)
    assert sum(t.type == "contour" for t in f2.data) == 4
    cm = pd.DataFrame(np.eye(4, dtype=int) * 5 + 1, index=names, columns=names)
    fc = mfig.confusion_figure_k(cm, title="<b>t</b>")
    assert np.asarray(fc.layout.meta["counts"]).shape == (4, 4)
    assert "<script>" not in json.dumps(fc.to_plotly_json()["layout"]["meta"])
    sc = mfig.class_scores_figure([0.2, -1.0, 0.9, 0.1], names)
    assert sc.layout.meta["winner"] == 2 and abs(sc.layout.meta["margin"] - 0.7) < 1e-12
    # H43: labels 0/1/2 made plotly draw a numeric axis, on which the winner "★ 0" had no place
    num = mfig.class_scores_figure([1.4, 1.0, -2.4], ["0", "1", "2"])
    assert num.layout.yaxis.type == "category"
    assert list(num.data[0].y) == ["★ 0", "1", "2"]
    pairs = np.array([[0, 1], [1, 2], [2, 3]])
    kept = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 0]], bool)
    g = mfig.pair_graph_k(names, pairs, rng.random((4, 3)), kept, rng.random((4, 2)), names)
    assert g.layout.meta["n_edges"] == {"a&lt;script&gt;": 1, "b": 1, "c": 2, "d": 0}
    assert all("<script>" not in (t.name or "") for t in g.data)
    g1 = mfig.pair_graph_k(
        names, pairs, rng.random((4, 3)), kept, rng.random((4, 2)), names, show=2
    )
    assert list(g1.layout.meta["n_edges"].values()) == [2]
    bal = mfig.class_balance_k({"x": 3, "<y>": 1})
    assert bal.layout.meta["counts"] == [3, 1]
    assert "<y>" not in bal.layout.annotations[1].text
    assert "&lt;y&gt;" in bal.data[0].customdata[1]


def test_the_pair_rule_names_no_number_of_classes(three):
    """H47: with three classes the rule read "dependent in any class (either of two)"."""
    at = upload_app(three)
    at.switch_page("pages/dependencies.py").run()
    assert_ok(at)
    box = at.selectbox(key="dep_pair_rule")
    shown = list(box.options)  # as displayed
    assert shown[:2] == ["dependent in any class", "dependent in every class"], shown
    assert not any("two" in s or "both" in s or "either" in s for s in shown), shown


def test_compare_offers_the_comparison_table_and_settings(three):
    """H47: the K-class Compare page had the coefficients' download only; it has the
    two-class page's comparison table (every BER in percent) and settings too."""
    at = upload_app(three)
    at.switch_page("pages/compare.py").run()
    assert_ok(at)
    assert not at.error, [e.value for e in at.error]
    labels = {b.label for b in at.get("download_button")}
    assert {"Comparison table (CSV)", "Settings (JSON)"} <= labels, labels
    # the two-class page's report and operating point: the page says where they are (H50)
    assert "HTML report are for two classes" in " ".join(c.value for c in at.caption)


def test_the_comparison_export_is_in_percent_throughout():
    from dashboard import compute
    from slb.evaluation import stratified_folds

    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 30)
    folds = stratified_folds(y, 5, n_repeats=2, random_state=0)
    per_fold = pd.DataFrame({"SLB": rng.uniform(0.1, 0.3, 10), "NB": rng.uniform(0.2, 0.4, 10)})
    table = compute.comparison(per_fold, folds)
    out = compute.comparison_export(table, per_fold)
    cols = [f"BER (%) fold {k}" for k in range(1, 11)]
    assert list(out.columns[-10:]) == cols
    np.testing.assert_allclose(out[cols].mean(axis=1), out["mean BER (%)"], rtol=1e-12)


def test_a_cleaning_option_keeps_a_lambda_set_by_hand(three):
    """H47: "Drop repeated rows" put a λ set by hand back to the default without a word (a
    positive class did not).  A hand-set λ stays through a cleaning change of the same table;
    an untouched default follows the new rows' default; a new table starts at its default."""
    from tests.test_app import set_lambda

    frame = pd.concat([three, three.head(12)], ignore_index=True)  # 12 repeated rows
    at = upload_app(frame, "twelve_twice.csv")
    at.switch_page("pages/dependencies.py").run()
    assert_ok(at)
    default = at.session_state["cfg"]["lam_value"]
    values = np.asarray(at.select_slider(key="dep_lambda").format_func.values)
    mine = set_lambda(at, "dep_lambda", float(np.quantile(values[np.isfinite(values)], 0.4)))
    assert mine != default
    at.switch_page("app.py").run()
    at.checkbox(key="drop_duplicates").set_value(True).run()
    assert_ok(at)
    assert at.session_state["data_build"].dataset.n == len(three)
    at.switch_page("pages/dependencies.py").run()
    kept = at.session_state["cfg"]["lam_value"]
    steps = np.asarray(at.select_slider(key="dep_lambda").format_func.values)
    assert kept == steps[steps >= mine].min()  # the same λ, at the new rows' position
    # untouched: the default of the new rows
    at2 = upload_app(frame, "twelve_twice.csv")
    at2.switch_page("pages/dependencies.py").run()
    at2.switch_page("app.py").run()
    at2.checkbox(key="drop_duplicates").set_value(True).run()
    at2.switch_page("pages/dependencies.py").run()
    again = upload_app(three, "three.csv")
    again.switch_page("pages/dependencies.py").run()
    assert at2.session_state["cfg"]["lam_value"] == again.session_state["cfg"]["lam_value"]
