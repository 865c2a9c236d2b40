"""λ by value steps between distinct kept sets and shows the pairs kept (issue 28 item 4); the
live slider is a Streamlit Components v2 component with an ``st.select_slider`` fallback over
the same positions (issue 30 item 1)."""

from __future__ import annotations

import doctest
import json
import os

import numpy as np
import pytest

from dashboard import lambda_steps as ls
from slb import SLBClassifier, dependence_matrix, load_dataset
from slb._utils import all_pairs
from slb.dependence.screening import kept_terms
from slb.model.path import FIXED_C

RULES = ("either", "both", "per_class")


def _pair_stat(X, y):
    """(K, P) dependence of every pair in each class, as the dashboard's screening."""
    X = np.asarray(X, dtype=float)
    pairs = all_pairs(X.shape[1])
    stats = [dependence_matrix(X[y == c], "hsic").statistic for c in np.unique(y)]
    return np.stack([s[pairs[:, 0], pairs[:, 1]] for s in stats])


@pytest.fixture(scope="module")
def sonar_stat():
    X, y = load_dataset("sonar")
    return _pair_stat(X.to_numpy(), (y == "rock").to_numpy().astype(int))


def _check_steps(stat, rule):
    steps = ls.lambda_steps(stat, rule)
    assert steps.values[-1] == np.inf and np.all(np.diff(steps.values) > 0)
    kept = [kept_terms(stat, v, rule) for v in steps.values]
    for i, k in enumerate(kept):
        assert steps.pairs[i] == int(k.any(axis=0).sum())
        assert steps.terms[i] == int(k.sum())
        if i:  # every step changes the kept set: strictly fewer terms, a subset
            assert k.sum() < kept[i - 1].sum() and not (k & ~kept[i - 1]).any()
    assert steps.pairs[-1] == 0 and steps.pairs[0] == int(np.isfinite(stat).any(axis=0).sum())
    return steps


@pytest.mark.parametrize("rule", RULES)
def test_every_step_changes_the_kept_set_on_sonar(sonar_stat, rule):
    steps = _check_steps(sonar_stat, rule)
    # far fewer dead steps than a uniform grid: one position per distinct score
    assert (
        len(steps)
        == np.unique(sonar_stat.ravel() if rule == "per_class" else steps.values[:-1]).size + 1
    )
    # any λ keeps exactly the terms of the position it snaps to
    rng = np.random.default_rng(0)
    top = float(np.nanmax(sonar_stat))
    for lam in np.concatenate([rng.uniform(-0.01, 1.1 * top, 200), steps.values[:50]]):
        i = ls.snap(steps, lam)
        np.testing.assert_array_equal(
            kept_terms(sonar_stat, lam, rule), kept_terms(sonar_stat, steps.values[i], rule)
        )


@pytest.mark.parametrize("rule", RULES)
def test_ties_and_missing_scores(rule):
    # tied scores (one position for all of them) and a NaN score (never kept)
    stat = np.array([[0.2, 0.2, 0.5, np.nan, 0.1], [0.1, 0.3, 0.5, np.nan, 0.2]])
    steps = _check_steps(stat, rule)
    assert steps.n_pairs == 5 and steps.pairs[0] == 4
    assert [steps.label(i).split(" · ")[1] for i in (0, len(steps) - 2)] == ["4 pairs", "1 pair"]
    assert steps.label(len(steps) - 2) == "λ = 0.5 · 1 pair"
    assert steps.label(len(steps) - 1) == "λ = ∞ (no pairs)"  # as the sidebar


def test_refuses_an_unknown_rule():
    with pytest.raises(ValueError, match="pair_rule"):
        ls.lambda_steps(np.zeros((2, 3)), "any")


def test_labels_say_lambda_as_the_sidebar_does():
    from dashboard.controls import format_lambda

    for lam in (0.0123456, 1.5e-5, 2.0, float("inf")):
        assert ls.format_value(lam) == format_lambda(lam)
    assert ls.format_value(float("inf")) == "∞ (no pairs)"


def test_module_examples():
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner()
    tests = [t for t in finder.find(ls, "dashboard.lambda_steps") if t.examples]
    assert len(tests) >= 3
    for t in tests:
        assert runner.run(t).failed == 0, t.name


@pytest.mark.parametrize("rule", RULES)
def test_shown_count_is_the_models_number_of_kept_pairs(rule):
    rng = np.random.default_rng(3)
    n, d = 90, 6
    z = rng.normal(size=(n, 1))
    X = rng.normal(size=(n, d)) + np.hstack([z, z, np.zeros((n, d - 2))])  # one strong pair
    y = (X[:, 0] + rng.normal(size=n) > 0).astype(int)
    steps = ls.lambda_steps(_pair_stat(X, y), rule)
    for i in sorted({0, 1, len(steps) // 2, len(steps) - 2, len(steps) - 1}):
        clf = SLBClassifier(
            threshold=float(steps.values[i]),
            pair_rule=rule,
            C=FIXED_C,
            probability=False,
            random_state=0,
        ).fit(X, y)
        assert len(clf.pairs_) == steps.pairs[i], (rule, i)


# --- the dashboard: the fallback control and the live slider under AppTest -----------------
@pytest.mark.slow
def test_fallback_select_slider_steps_and_counts():
    from test_app import assert_ok, goto, metric, new_app, sidebar_text

    at = goto(new_app(), "pages/dependencies.py")
    s = at.select_slider(key="dep_lambda")
    assert s.label == "λ (dependence threshold)"
    labels = s.options
    assert len(labels) == len(set(labels)) == 1771  # Sonar's distinct scores, then ∞
    counts = [int(t.split(" · ")[1].split()[0]) for t in labels[:-1]] + [0]
    assert counts[0] == 1770 and counts[-2] == 1 and all(np.diff(counts) < 0)
    assert labels[-1] == "λ = ∞ (no pairs)"  # as the sidebar writes it
    steps = ls.lambda_steps(_sonar_screening_stat("hsic"), "either")
    assert _options(at) == steps.values.tolist()  # the page's positions: Sonar's scores, ∞
    X, y = load_dataset("sonar")
    for i in (1000, 1765, 1770):
        values = _options(at)
        at.select_slider(key="dep_lambda").set_value(values[i]).run()
        assert_ok(at)
        shown = at.select_slider(key="dep_lambda")
        assert shown.value == values[i]
        kept = int(metric(at, "pairs kept").split()[0])
        assert kept == counts[i]
        assert f"{kept} / 1770 pairs kept" in sidebar_text(at)
        if i == 1770:  # "∞ (no pairs) (by value) · 0 / 1770" said it twice (H54)
            assert "λ = **∞** (by value) · 0 / 1770 pairs kept" in sidebar_text(at)
        if i == 1765:  # the model fitted at that λ keeps the same number of pairs
            clf = SLBClassifier(threshold=values[i], C=FIXED_C, probability=False)
            assert len(clf.fit(X, (y == "rock").astype(int)).pairs_) == kept == 5


def _options(at):
    """The select slider's option values (the λ positions), as the page built them."""
    return at.select_slider(key="dep_lambda").format_func.values


_SONAR = {}


def _sonar_screening_stat(measure):
    assert measure == "hsic"
    if measure not in _SONAR:
        X, y = load_dataset("sonar")
        _SONAR[measure] = _pair_stat(X.to_numpy(), (y == "rock").to_numpy().astype(int))
    return _SONAR[measure]


@pytest.mark.slow
def test_live_slider_mounts_as_a_v2_component(monkeypatch):
    from test_app import assert_ok, goto, new_app

    monkeypatch.setenv("SLB_LIVE_SLIDER", "1")  # AppTest has no browser: force the live path
    at = goto(new_app(), "pages/dependencies.py")
    assert_ok(at)
    with pytest.raises(KeyError):
        at.select_slider(key="dep_lambda")  # no fallback drawn
    protos = [e.proto for e in at.get("bidi_component") if "slb_live_slider" in str(e.proto)]
    assert len(protos) == 1
    data = json.loads(protos[0].json)
    steps = ls.lambda_steps(_sonar_screening_stat("hsic"), "either")
    assert data["n"] == len(steps) - 1 and data["count"] == steps.pairs.tolist()
    assert data["index"] == ls.snap(steps, at.session_state["cfg"]["lam_value"])
    assert data["count_text"] == "of 1770 pairs kept" and data["text"][-1] == "λ = ∞ (no pairs)"
    assert os.environ["SLB_LIVE_SLIDER"] == "1"
