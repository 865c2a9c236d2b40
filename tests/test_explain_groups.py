"""Explain by feature and pair (issue 28 item 3): slb.evaluation.explain."""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from slb import SLBClassifier, load_dataset
from slb.evaluation.explain import explained_groups, group_contributions
from slb.model.path import FIXED_C

ROOT = Path(__file__).resolve().parent.parent
TERM = re.compile(r"^log p[+-]\((.*)\)$")


@pytest.fixture(scope="module")
def sonar_fit():
    X, y = load_dataset("sonar")
    # λ as the dashboard starts it on Sonar: the 90 % quantile of the pair scores (HSIC)
    clf = SLBClassifier(threshold=0.0197, C=FIXED_C, random_state=0, probability=False)
    clf.fit(X, y)
    contrib, baseline = clf.contributions(X)
    return clf, contrib, baseline, clf.decision_function(X)


def _by_name(row: pd.Series, names: list[str]) -> dict[str, float]:
    """An independent grouping from the term names alone: ``log p±(a)`` -> a,
    ``log p±(a, b)`` -> "a × b" (Sonar's names hold no ", ")."""
    out: dict[str, list[float]] = {}
    for term, v in row.items():
        inner = TERM.match(term).group(1)
        key = inner if inner in names else " × ".join(inner.split(", "))
        out.setdefault(key, []).append(v)
    return {k: math.fsum(v) for k, v in out.items()}


@pytest.mark.slow
def test_groups_sum_to_every_decision_and_match_a_grouping_by_name(sonar_fit):
    clf, contrib, baseline, decision = sonar_fit
    names = list(map(str, clf.feature_names_in_))
    for i in range(0, len(contrib), 7):
        g = group_contributions(contrib.iloc[i], clf.term_table_)
        assert baseline + math.fsum(g.to_numpy()) == pytest.approx(decision[i], abs=1e-12)
        assert g.to_dict() == pytest.approx(_by_name(contrib.iloc[i], names), abs=1e-15)
        kinds = clf.term_table_["kind"].value_counts()
        n_pairs = kinds.get("bivariate", 0) // 2  # one term per class
        assert len(g) == clf.n_features_in_ + n_pairs


@pytest.mark.slow
def test_on_sonars_first_row_the_shown_bars_account_for_80_percent(sonar_fit):
    clf, contrib, baseline, decision = sonar_fit
    g = group_contributions(contrib.iloc[0], clf.term_table_)
    e = explained_groups(g, share=0.8, min_shown=12)
    assert e.share >= 0.8
    total = decision[0] - baseline
    assert e.total == pytest.approx(total, abs=1e-12)
    assert abs(e.other) <= 0.2 * abs(total)
    assert abs(e.other) < e.shown.abs().max()  # the "other" bar is not the largest
    assert math.fsum(e.shown.to_numpy()) + e.other == pytest.approx(total, abs=1e-12)
    # ungrouped, the 12 terms left the rest as the largest bar
    top = contrib.iloc[0].abs().sort_values(ascending=False).index[:12]
    rest = contrib.iloc[0].drop(top).sum()
    assert abs(rest) > contrib.iloc[0][top].abs().max()


@pytest.mark.parametrize("seed", range(12))
def test_explained_groups_is_the_fewest_largest_groups_that_meet_both_rules(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    g = pd.Series(rng.standard_t(2, size=n), index=[f"g{k}" for k in range(n)])
    e = explained_groups(g, share=0.8)
    total = math.fsum(g.to_numpy())
    order = g.abs().sort_values(ascending=False, kind="stable").index
    assert list(e.shown.index) == list(order[: len(e.shown)])
    assert e.n_other == n - len(e.shown)
    assert e.other == pytest.approx(g.drop(e.shown.index).sum(), abs=1e-12)
    assert e.total == pytest.approx(total)

    def ok(k):
        rest = math.fsum(g.loc[order[k:]].to_numpy())
        return k == n or (abs(rest) <= 0.2 * abs(total) and abs(rest) < abs(g[order[0]]))

    k = len(e.shown)
    assert ok(k) and not any(ok(j) for j in range(1, k))
    assert e.share >= 0.8 - 1e-12


def test_every_group_shown_accounts_for_everything():
    e = explained_groups(pd.Series({"a": 1.0, "b": -1.0}), share=1.0)
    assert e.n_other == 0 and e.other == 0.0 and e.share == 1.0


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan")])
def test_a_share_outside_0_1_is_refused(bad):
    with pytest.raises(ValueError, match="share"):
        explained_groups(pd.Series({"a": 1.0}), share=bad)


def test_an_unknown_term_is_refused():
    table = pd.DataFrame(
        {"kind": ["univariate"], "feature_i": ["a"], "feature_j": [None]}, index=["log p+(a)"]
    )
    with pytest.raises(ValueError, match="not in the term table"):
        group_contributions(pd.Series({"log p+(b)": 1.0}), table)


def _explain_page():
    """The Explain page of a new session (Sonar, the default data), run in AppTest."""
    os.environ["STREAMLIT_CLIENT_SHOW_ERROR_DETAILS"] = "full"
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.run()
    at.switch_page("pages/explain.py").run()
    return at


def _explain_figure(at) -> dict:
    """The waterfall's plotly spec (no exception on the page)."""
    assert not at.exception, [x.value for x in at.exception]
    return next(
        json.loads(el.proto.spec)
        for el in at.get("plotly_chart")
        if el.proto.id.endswith("-explain_figure")
    )


@pytest.mark.slow
def test_the_explain_page_shows_groups_that_account_for_80_percent():
    at = _explain_page()
    spec = _explain_figure(at)
    meta, w = spec["layout"]["meta"], spec["data"][0]
    assert meta["grouped"] and meta["share"] >= 0.8
    steps = w["x"][1:-1]  # between the baseline and the decision value
    assert w["y"][-2].endswith("other features and pairs")
    assert abs(steps[-1]) < max(abs(v) for v in steps[:-1])
    assert w["x"][0] + math.fsum(steps) == pytest.approx(w["x"][-1], abs=1e-9)
    assert any(re.search(r"\d+ bars? accounts? for", m.value) for m in at.markdown)


@pytest.mark.slow
def test_the_explain_pages_slider_sets_the_share_and_so_the_bars():
    """H35: the grouped waterfall's control is the share it accounts for (a count of bars did
    nothing below the count that share needed); every position that needs another number of
    bars draws it, and "one bar per term" gets the count back."""
    at = _explain_page()

    def bars():
        spec = _explain_figure(at)
        meta, w = spec["layout"]["meta"], spec["data"][0]
        other = w["y"][-2].endswith("other features and pairs")
        return len(w["x"]) - 2 - other, meta["share"], other

    n = {}
    for share in (80, 90, 100):
        at.slider(key="explain_share").set_value(share).run()
        n[share], covered, other = bars()
        assert covered >= share / 100 - 1e-12
    assert n[80] < n[90] < n[100] and not other  # 100 %: every feature and pair, no "other"
    at.radio(key="explain_grouping").set_value("term").run()
    at.slider(key="explain_top").set_value(7).run()
    assert (
        len(_explain_figure(at)["data"][0]["x"]) - 3 == 7
    )  # baseline, 7 terms, "other", decision value


def test_the_share_is_the_shown_bars_sum_over_the_move():
    """H52: "3 bars account for 99% of this decision's move (+0.866); the other 8 add −0.005"
    while the 3 bars summed to +0.871, 101% of it: the share ignored the rest's sign."""
    g = pd.Series({"a": 0.6, "b": 0.3, "c": -0.01, "d": -0.005})
    e = explained_groups(g, share=0.8)
    assert e.shown.sum() / e.total == pytest.approx(e.share) and e.share > 1
    # with the rest pushing the same way the share is below 1, as before
    same = explained_groups(pd.Series({"a": 0.6, "b": 0.2, "c": 0.1, "d": 0.05}), share=0.8)
    assert same.shown.sum() / same.total == pytest.approx(same.share) and same.share < 1


@pytest.mark.slow
def test_one_bar_per_term_names_terms_as_the_figure_and_says_when_the_rest_is_larger():
    """H52 3 and 11: on Sonar's row 100 with 5 terms drawn, the "other" step (hundreds of
    small terms) moves the decision more than any bar drawn, and the page says so with the
    step's own number; the table names the terms as the figure does ("a × b", "log p−"); the
    "Terms shown" slider ends at the model's own number of terms."""
    at = _explain_page()
    at.radio(key="explain_grouping").set_value("term").run()
    at.number_input(key="explain_row").set_value(100).run()
    at.slider(key="explain_top").set_value(5).run()
    w = _explain_figure(at)["data"][0]
    shown, other = w["x"][1:-2], w["x"][-2]
    assert w["y"][-2].endswith("other terms")
    text = " ".join(c.value for c in at.caption)
    said = "more than any term shown" in text
    assert said == (abs(other) > max(abs(v) for v in shown))
    assert said, "Sonar's row 100 no longer has a large 'other' step: pick another row"
    table = next(d.value for d in at.dataframe if "term" in d.value.columns)
    assert table["term"].tolist() == [t.replace("<br>", "") for t in w["y"][1:-2]]
    assert not table["term"].str.contains(", |log p-", regex=True).any()
    n_terms = int(re.search(r"The model has (\d+) terms", at.slider(key="explain_top").help)[1])
    assert at.slider(key="explain_top").max == min(40, n_terms)
    # a row where the terms drawn dominate: no such sentence
    at.slider(key="explain_top").set_value(at.slider(key="explain_top").max).run()
    w = _explain_figure(at)["data"][0]
    assert abs(w["x"][-2]) < max(abs(v) for v in w["x"][1:-2])
    assert "more than any term shown" not in " ".join(c.value for c in at.caption)


@pytest.mark.slow
def test_the_terms_slider_ends_at_a_small_models_terms():
    """XOR (d = 2): 4 univariate and 2 bivariate terms at most; the slider ends there (H52 11:
    it ran to 40), and the figure draws every term without an "other" step at its end."""
    os.environ["STREAMLIT_CLIENT_SHOW_ERROR_DETAILS"] = "full"
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.run()
    at.radio(key="data_source").set_value("toy").run()
    at.selectbox(key="toy_kind").set_value("xor").run()
    at.switch_page("pages/explain.py").run()
    at.radio(key="explain_grouping").set_value("term").run()
    assert not at.exception, [x.value for x in at.exception]
    s = at.slider(key="explain_top")
    assert s.min == 5 and s.max == 6 == int(re.search(r"has (\d+) terms", s.help)[1])
    s.set_value(s.max).run()
    w = _explain_figure(at)["data"][0]
    assert len(w["x"]) == 6 + 2 and not w["y"][-2].endswith(("other terms", "other term"))
