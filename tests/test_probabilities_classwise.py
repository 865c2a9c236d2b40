"""The K-class reliability diagram (issue 28): one class against the rest.

:func:`slb.probabilities.one_vs_rest_reliability` is checked against bins counted by hand (a
plain loop over classes, bins and rows), against the two-class diagram and scikit-learn's
``calibration_curve`` for two classes, and on probabilities calibrated or overconfident by
construction; its figure writes 14 px text and escapes every user string.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.calibration import calibration_curve

from slb.evaluation.predictions import class_column
from slb.probabilities import one_vs_rest_reliability
from slb.viz.calibration import reliability_table
from slb.viz.classwise import classwise_reliability_figure, classwise_reliability_table


def _calibrated(n=6000, K=4, seed=0):
    """Rows whose class is drawn from their own probability vector: calibrated by design."""
    rng = np.random.default_rng(seed)
    proba = rng.dirichlet(np.full(K, 0.6), size=n)
    y = np.array([rng.choice(K, p=p) for p in proba])
    return proba, y


def _by_hand(proba, y, n_bins):
    # the edges are the fractions j / n_bins (0.7 is in bin 7; scikit-learn's calibration_curve
    # cuts at linspace(0, 1, 11), whose 0.7000000000000001 put 0.7 in bin 6: H51)
    edges = [j / n_bins for j in range(n_bins + 1)]
    rows = []
    for c in range(proba.shape[1]):
        for j in range(n_bins):
            lo, hi = edges[j], edges[j + 1]
            inside = [
                i
                for i in range(len(y))
                if lo <= proba[i, c] < hi or (j == n_bins - 1 and proba[i, c] == 1.0)
            ]
            if inside:
                rows.append(
                    (
                        c,
                        j,
                        sum(proba[i, c] for i in inside) / len(inside),
                        sum(y[i] == c for i in inside) / len(inside),
                        len(inside),
                    )
                )
    return rows


def test_bins_equal_bins_counted_by_hand():
    proba, y = _calibrated(n=900, K=3, seed=1)
    proba[:5] = [[1.0, 0.0, 0.0], [0.0, 0.5, 0.5], [0.25, 0.25, 0.5], [0.1, 0.2, 0.7], [0, 1, 0]]
    for n_bins in (4, 10):
        r = one_vs_rest_reliability(proba, y, n_bins=n_bins)
        got = list(
            zip(
                r["class_index"],
                r["bin"],
                r["mean_predicted"],
                r["observed"],
                r["count"],
                strict=True,
            )
        )
        want = _by_hand(proba, y, n_bins)
        assert [(c, j, n) for c, j, _, _, n in got] == [(c, j, n) for c, j, _, _, n in want]
        np.testing.assert_allclose([g[2] for g in got], [w[2] for w in want], rtol=1e-12)
        np.testing.assert_allclose([g[3] for g in got], [w[3] for w in want], rtol=1e-12)
        # every row lies in one bin of every class
        for c in range(3):
            assert r["count"][r["class_index"] == c].sum() == len(y)


def test_two_classes_give_the_two_class_diagram_and_sklearns_curve():
    rng = np.random.default_rng(2)
    p1 = rng.uniform(0, 1, 3000)
    y = (rng.random(3000) < p1**2).astype(int)  # miscalibrated: the truth is p1 squared
    r = one_vs_rest_reliability(np.column_stack([1 - p1, p1]), y, n_bins=10)
    one = r["class_index"] == 1
    observed, predicted = calibration_curve(y, p1, n_bins=10, strategy="uniform")
    np.testing.assert_allclose(r["observed"][one], observed, rtol=1e-12)
    np.testing.assert_allclose(r["mean_predicted"][one], predicted, rtol=1e-12)
    two = reliability_table(pd.DataFrame({"classifier": "A", "y_true": y, "proba": p1}), 1)
    np.testing.assert_array_equal(r["count"][one], two["count"])
    np.testing.assert_allclose(r["observed"][one], two["observed"], rtol=1e-12)
    # and the diagram sees the miscalibration: observed ≈ predicted², far below the diagonal
    mid = (r["mean_predicted"] > 0.4) & (r["mean_predicted"] < 0.6) & one
    assert np.all(r["observed"][mid] < r["mean_predicted"][mid] - 0.15)


def test_calibrated_probabilities_lie_on_the_diagonal_overconfident_ones_do_not():
    proba, y = _calibrated()
    r = one_vs_rest_reliability(proba, y)
    se = np.sqrt(r["mean_predicted"] * (1 - r["mean_predicted"]) / r["count"])
    big = r["count"] >= 50
    assert np.all(np.abs(r["observed"] - r["mean_predicted"])[big] < 4 * se[big] + 0.01)
    sharp = proba**4 / (proba**4).sum(axis=1, keepdims=True)  # overconfident
    s = one_vs_rest_reliability(sharp, y)
    top = (s["bin"] == 9) & (s["count"] >= 50)
    assert top.any() and np.all(s["observed"][top] < s["mean_predicted"][top] - 0.05)


@pytest.mark.parametrize(
    "proba, y",
    [
        ([[0.5, 0.5]], [0, 1]),  # rows disagree
        ([[0.5, 0.5]], [2]),  # not a class index
        ([[np.nan, 1.0]], [0]),
        ([[1.5, -0.5]], [0]),
        ([0.5, 0.5], [0]),  # not one column per class
    ],
)
def test_bad_input_is_a_clear_value_error(proba, y):
    with pytest.raises(ValueError):
        one_vs_rest_reliability(proba, y)


def _pred(classes=("a", "<b>x</b>", "c")):
    proba, y = _calibrated(n=1200, K=len(classes), seed=3)
    frames = []
    for name, p in (("NB", proba), ("<i>T</i>", proba**3 / (proba**3).sum(1, keepdims=True))):
        f = pd.DataFrame({"classifier": name, "y_true": np.asarray(classes, object)[y]})
        for k, c in enumerate(classes):
            f[class_column("proba", c)] = p[:, k]
        frames.append(f)
    f = frames[0].copy()  # a classifier without probabilities (SLB's decision values only)
    f["classifier"] = "SLB"
    for c in classes:
        f[class_column("proba", c)] = np.nan
    frames.append(f)
    return pd.concat(frames, ignore_index=True), proba, y


def test_table_and_figure_of_a_prediction_table():
    classes = ["a", "<b>x</b>", "c"]
    pred, proba, y = _pred(classes)
    table = classwise_reliability_table(pred, classes)
    assert list(dict.fromkeys(table["classifier"])) == ["NB", "<i>T</i>"]  # SLB: no proba
    nb = table[(table["classifier"] == "NB") & (table["class"] == "<b>x</b>")]
    r = one_vs_rest_reliability(proba, y)
    np.testing.assert_allclose(nb["observed"], r["observed"][r["class_index"] == 1])
    fig = classwise_reliability_figure(pred, classes, "<b>x</b>")
    meta = fig.layout.meta
    assert meta["kind"] == "classwise_reliability" and meta["classifiers"] == ["NB", "<i>T</i>"]
    names = [t.name for t in fig.data]
    assert "&lt;i&gt;T&lt;/i&gt;" in names and "<i>T</i>" not in names
    assert "<b>" not in fig.layout.title.text and "<b>" not in fig.layout.xaxis.title.text
    for trace in fig.data[1:]:
        assert sum(int(c) for c in trace.customdata) == len(y)  # every row in one bin
        assert not (trace.mode and "text" in trace.mode)  # counts not printed over each other
    assert fig.layout.font.size >= 14
    assert fig.layout.xaxis.tickfont.size >= 14 and fig.layout.yaxis.tickfont.size >= 14
    assert fig.layout.legend.font.size >= 14
    with pytest.raises(ValueError, match="not one of the classes"):
        classwise_reliability_figure(pred, classes, "zzz")


@pytest.mark.parametrize("n_bins", [5, 10, 20])
def test_probabilities_on_inner_edges_go_to_the_upper_bin(n_bins):
    """H51: the edges came from ``np.linspace``, which stores 0.3, 0.6 and 0.7 (of ten bins)
    one step too high, so 5-NN's and a forest's probabilities of 0.6 fell into [0.5, 0.6)
    in both diagrams, against their documented rule.  Independent reference: exact fractions."""
    from fractions import Fraction

    import pandas as pd

    from slb.viz.calibration import reliability_table

    k = np.arange(n_bins)
    p = np.concatenate([k / n_bins, [1.0]])  # every edge, as a computed probability would be
    want = [min(int(Fraction(v).limit_denominator(1000) * n_bins), n_bins - 1) for v in p]
    y = np.r_[np.zeros(len(p), int), np.ones(len(p), int)]
    P = np.r_[p, p]
    ovr = one_vs_rest_reliability(np.c_[1 - P, P], y, n_bins=n_bins)
    got = ovr["bin"][ovr["class_index"] == 1]
    counts = ovr["count"][ovr["class_index"] == 1]
    assert dict(zip(got.tolist(), counts.tolist(), strict=True)) == {
        b: 2 * want.count(b) for b in set(want)
    }
    # every bin's mean lies inside its own edges
    assert np.all(ovr["lower"] <= ovr["mean_predicted"] + 1e-12)
    table = reliability_table(
        pd.DataFrame({"classifier": "A", "y_true": y, "proba": P}), 1, n_bins=n_bins
    )
    assert sorted(table["bin"].astype(int).tolist()) == sorted(set(want))
    assert np.all(table["lower"] <= table["mean_predicted"] + 1e-12)
    assert np.all(table["mean_predicted"] < table["upper"] + (table["upper"] == 1.0))
