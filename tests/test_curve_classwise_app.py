"""Compare with three classes shows the one-vs-rest reliability diagram (issue 28), of the
class the one-vs-rest curves show, for every classifier with probabilities (AppTest)."""

from __future__ import annotations

import json

import pytest
from test_multiclass_dashboard import assert_ok, chart_with_key, goto, three_class_frame, upload_app

pytestmark = pytest.mark.slow


def test_three_class_compare_draws_the_reliability_of_the_chosen_class():
    at = upload_app(three_class_frame())
    goto(at, "pages/compare.py")
    assert not at.error, [e.value for e in at.error]
    meta = chart_with_key(at, "cmp_reliability_k")["layout"]["meta"]
    assert meta["kind"] == "classwise_reliability"
    # SLB at a hand-set λ gives decision values only: not drawn, and the caption says so
    assert "SLB" not in meta["classifiers"] and {"NB", "TAN"} <= set(meta["classifiers"])
    caption = next(c.value for c in at.caption if "Not drawn (no out-of-fold" in c.value)
    assert "probabilities here): SLB." in caption
    # ... without suggesting SLB has none (H28): the page skips its calibration
    assert "SLBClassifier itself gives calibrated probabilities" in caption
    first = meta["class"]
    reps = int(at.session_state["cfg"]["cv_repeats"])
    for bins in meta["bins"].values():  # every out-of-fold prediction in one bin
        assert sum(n for _, _, n in bins) == 150 * reps
        assert all(0 <= p <= 1 and 0 <= o <= 1 for p, o, _ in bins)
    seen = {}
    for k in (1, 2, 0):  # the class of the one-vs-rest curves is the class of the diagram
        at.radio(key="cmp_roc_class").set_value(k).run()
        assert_ok(at)
        spec = chart_with_key(at, "cmp_reliability_k")
        seen[spec["layout"]["meta"]["class"]] = json.dumps(spec["layout"]["title"])
    assert set(seen) == {"alpha", "beta", "<b>c</b>"} and first in seen
    assert "<b>c</b>" not in seen["<b>c</b>"] and "&lt;b&gt;c&lt;/b&gt;" in seen["<b>c</b>"]
