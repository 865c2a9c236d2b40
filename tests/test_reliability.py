"""The reliability diagram and the operating point of Compare (issues 26 item 2 and 28).

Checked against scikit-learn: the bins equal ``sklearn.calibration.calibration_curve``
(uniform strategy), the operating point's counts equal ``confusion_matrix`` of the thresholded
probabilities; the figure's text is at least 14 px and user strings are escaped.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.calibration import calibration_curve
from sklearn.metrics import confusion_matrix

from slb.viz.calibration import (
    operating_point,
    reliability_counts,
    reliability_figure,
    reliability_table,
)


def _pred(seed=0, n=3000):
    rng = np.random.default_rng(seed)
    good = rng.uniform(0, 1, n)
    y = (rng.random(n) < good).astype(int)  # calibrated by construction
    bad = np.where(good > 0.5, 0.999, 0.001)  # overconfident
    frames = [
        pd.DataFrame({"classifier": name, "y_true": np.where(y == 1, "yes", "no"), "proba": p})
        for name, p in (("good", good), ("<b>bad</b>", bad))
    ]
    frames.append(
        pd.DataFrame({"classifier": "no-proba", "y_true": "yes", "proba": np.full(5, np.nan)})
    )
    return pd.concat(frames, ignore_index=True), y, good, bad


def test_bins_equal_scikit_learns_calibration_curve():
    pred, y, good, bad = _pred()
    table = reliability_table(pred, "yes", n_bins=10)
    assert set(table["classifier"]) == {"good", "<b>bad</b>"}  # no probabilities: left out
    for name, p in (("good", good), ("<b>bad</b>", bad)):
        t = table[table["classifier"] == name]
        observed, predicted = calibration_curve(y, p, n_bins=10, strategy="uniform")
        np.testing.assert_allclose(t["observed"], observed, rtol=1e-12)
        np.testing.assert_allclose(t["mean_predicted"], predicted, rtol=1e-12)
        assert t["count"].sum() == y.size


def _written_labels(fig):
    """(x, y, text) of every number written on the plot (traces drawn with text)."""
    return [
        (round(float(x), 6), round(float(y), 6), str(t), trace.name)
        for trace in fig.data
        if trace.mode and "text" in trace.mode and trace.text is not None
        for x, y, t in zip(trace.x, trace.y, trace.text, strict=True)
    ]


def test_counts_of_coinciding_classifiers_are_not_printed_over_each_other():
    """H37: when two classifiers' bins coincide (SLB choosing TAN; near (0, 0) on penguins)
    their counts were written at the same place; the counts are read from the hover and
    from one table instead, which sums every classifier's rows."""
    pred, *_ = _pred()
    twin = pred[pred["classifier"] == "good"].assign(classifier="twin")
    pred = pd.concat([pred, twin], ignore_index=True)
    fig = reliability_figure(pred, "yes")
    labels = _written_labels(fig)
    places = [(x, y) for x, y, *_ in labels]
    assert len(places) == len(set(places)), "two counts written at the same place"
    counts = reliability_counts(reliability_table(pred, "yes"))
    assert counts.index.tolist() == ["good", "<b>bad</b>", "twin"]
    assert counts.shape[1] == 10 and counts.columns[0] == "0–0.1"
    assert (counts.sum(axis=1) == 3000).all()
    assert counts.loc["good"].tolist() == counts.loc["twin"].tolist()


def test_figure_draws_the_counts_readably_and_escapes_names():
    pred, *_ = _pred()
    fig = reliability_figure(pred, "yes")
    meta = fig.layout.meta
    assert meta["kind"] == "reliability"
    assert meta["classifiers"] == ["good", "<b>bad</b>"]
    names = [t.name for t in fig.data]
    assert "&lt;b&gt;bad&lt;/b&gt;" in names and "<b>bad</b>" not in names
    bad = fig.data[names.index("&lt;b&gt;bad&lt;/b&gt;")]
    assert sum(int(c) for c in bad.customdata) == 3000  # the counts, in the hover
    assert "rows" in bad.hovertemplate
    assert fig.layout.font.size >= 14
    assert fig.layout.xaxis.tickfont.size >= 14 and fig.layout.yaxis.tickfont.size >= 14
    # the overconfident classifier's bins sit far from the diagonal, the calibrated ones near
    gap = {n: max(abs(a - b) for a, b, _ in bins) for n, bins in meta["bins"].items()}
    assert gap["good"] < 0.15 < 0.2 < gap["<b>bad</b>"]


@pytest.mark.parametrize("threshold", [0.0, 0.3, 0.5, 0.8, 1.01])
def test_operating_point_equals_confusion_matrix(threshold):
    pred, y, good, _ = _pred(seed=1)
    point = operating_point(pred, "good", "yes", threshold)
    (tn, fp), (fn, tp) = confusion_matrix(y, (good >= threshold).astype(int), labels=[0, 1])
    assert (point["tp"], point["fn"], point["fp"], point["tn"]) == (tp, fn, fp, tn)
    assert point["tpr"] == pytest.approx(tp / (tp + fn))
    assert point["fpr"] == pytest.approx(fp / (fp + tn))
    assert point["ber"] == pytest.approx(0.5 * (fn / (tp + fn) + fp / (fp + tn)))
    if tp + fp:
        assert point["precision"] == pytest.approx(tp / (tp + fp))
    else:
        assert np.isnan(point["precision"])


def test_operating_point_refuses_an_unknown_classifier():
    pred, *_ = _pred()
    with pytest.raises(ValueError, match="No predictions"):
        operating_point(pred, "missing", "yes", 0.5)
    with pytest.raises(ValueError, match="no probability"):
        operating_point(pred.assign(score=np.nan), "no-proba", "yes", 0.5)


# --- the Compare page (AppTest) -------------------------------------------------------------
@pytest.mark.slow
def test_compare_page_shows_reliability_and_a_moving_operating_point():
    """On an uploaded CSV: the reliability diagram of SLB, TAN and NB; the threshold moves
    the confusion matrix and rates as operating_point computes them from the page's own
    predictions; a cell lists exactly its rows, through st.dataframe only."""
    from test_app import chart, csv_upload, goto, new_app, small_csv

    at = goto(csv_upload(new_app(), "patients.csv", small_csv()), "pages/compare.py")
    at.session_state["cmp_eval_open"] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    rel = chart(at, "cmp_reliability")
    assert rel["layout"]["meta"]["kind"] == "reliability"
    assert {"SLB", "TAN", "NB"} <= set(rel["layout"]["meta"]["classifiers"])
    scores = next(el.value for el in at.dataframe if "Brier" in el.value.columns)
    assert scores.loc[["SLB", "TAN", "NB"], "Brier"].between(0, 0.5).all()
    at.selectbox(key="cmp_eval_model").set_value("NB").run()
    preds = next(el.value for el in at.dataframe if "P(+)" in el.value.columns)
    # the default threshold is the share of + rows to three decimals (the balanced-error rule)
    share = preds["true class"].str.startswith("+").mean()
    assert at.slider(key="cmp_op_threshold_p").value == pytest.approx(round(share, 3))
    p = preds["P(+)"].to_numpy(dtype=float)
    y = preds["true class"].str.startswith("+").to_numpy()
    counts = []
    for threshold in (0.2, 0.7):
        at.slider(key="cmp_op_threshold_p").set_value(threshold).run()
        assert not at.exception, [e.value for e in at.exception]
        cm = chart(at, "cmp_op_confusion")["layout"]["meta"]["counts"]  # [[TP, FN], [FP, TN]]
        hit = p >= threshold
        assert cm == [
            [int((hit & y).sum()), int((~hit & y).sum())],
            [int((hit & ~y).sum()), int((~hit & ~y).sum())],
        ]
        op = chart(at, "cmp_op_roc")["layout"]["meta"]
        assert op["tpr"] == pytest.approx((hit & y).sum() / y.sum())
        counts.append(cm)
    assert counts[0] != counts[1]  # the matrix follows the threshold
    at.selectbox(key="cmp_op_cell").set_value("true − predicted + (FP)").run()
    listing = next(
        el.value
        for el in at.dataframe
        if "decision score" in el.value.columns and "age" in el.value.columns
    )
    assert len(listing) == counts[1][1][0]
    assert (listing["P(+)"] >= 0.7).all()
    ds = at.session_state["data_build"].dataset
    np.testing.assert_allclose(listing["age"], ds.X["age"].to_numpy()[listing["row"]])
