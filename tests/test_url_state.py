"""Shareable state (issue 28): the address carries the settings, a reload restores them, bad
values are ignored with a warning, and a tab opened before a server restart says so."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

os.environ["STREAMLIT_CLIENT_SHOW_ERROR_DETAILS"] = "full"

from streamlit.testing.v1 import AppTest  # noqa: E402

from dashboard import state, urlstate  # noqa: E402
from dashboard.state import LOST_MESSAGE, URL_MARK  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
TIMEOUT = 300

#: Settings the address restores, and what each test session sets them to.
SHARED = {
    "bundled_name": "pima",
    "n_folds": 4,
    "seed": 7,
    "cv_repeats": 3,
    "measure": "spearman",
    "pair_rule": "both",
    "bw_rule": "silverman",
    "bw_mult": 1.35,
    "extra_models": ["RF", "SVM(linear)"],
    "positive": "healthy",  # automatic: diabetic, the smaller class (H45: a link lost it)
}


# --------------------------------------------------------------------------------------------
# the parameters alone (no app run)
# --------------------------------------------------------------------------------------------
def _params(want: dict) -> dict[str, list[str]]:
    return {k: v if isinstance(v, list) else [v] for k, v in want.items()}


@pytest.mark.parametrize(
    "cfg",
    [
        {**state.DEFAULTS, **SHARED, "lam_value": 0.0123456789012345},
        {  # H48: the classes left out, the feature columns, the per-feature multipliers
            **state.DEFAULTS,
            "bundled_name": "penguins",
            "drop_classes": ["Chinstrap", "a class: with a colon"],
            "features": ["bill_length_mm", "x:y"],
            "bw_overrides": {"bill_length_mm": 1.6, "x:y": 0.75},
        },
        {
            **state.DEFAULTS,
            "source": "synthetic",
            "syn_family": "bn",
            "syn_n": 1250,
            "syn_d": 33,
            "syn_balance": 0.75,
            "syn_cpd": "complex",
            "syn_shared": True,
            "syn_seed": 123456,
            "lam_mode": "fdr",
            "fdr_alpha": 0.01,
        },
        {**state.DEFAULTS, "lam_mode": "quantile", "lam_quantile": 0.8125},
    ],
)
def test_the_parameters_written_for_settings_read_back_as_the_same_settings(cfg):
    values, problems = urlstate.parse_params(_params(urlstate.wanted(cfg)))
    assert problems == []
    restored = {**state.DEFAULTS, **values}
    for f in urlstate.FIELDS.values():
        if f.when(cfg):
            assert restored[f.key] == cfg[f.key], f.key
    # and only what applies is written: no synthetic design with a bundled dataset, etc.
    assert ("dataset" in urlstate.wanted(cfg)) == (cfg["source"] == "bundled")
    assert ("design" in urlstate.wanted(cfg)) == (cfg["source"] == "synthetic")


def test_defaults_write_only_the_data_and_lambda():
    assert set(urlstate.wanted(dict(state.DEFAULTS))) == {"source", "dataset", "lam"}


def test_an_upload_writes_no_data_settings():
    want = urlstate.wanted({**state.DEFAULTS, "source": "upload"})
    assert "source" not in want and "dataset" not in want and "lam" not in want
    # what the upload box's help says an address keeps of an upload, and what it does not
    # (H50: the help promised "every setting", and the classes, columns and λ were lost)
    cfg = {
        **state.DEFAULTS,
        **SHARED,
        "source": "upload",
        "lam_value": 0.0123,
        "drop_classes": ["a"],
        "features": ["x"],
        "bw_overrides": {"x": 1.5},
    }
    want = urlstate.wanted(cfg)
    kept = {"folds", "seed", "repeats", "measure", "pairs", "bw", "bwx", "model"}
    assert kept <= set(want)
    assert not {"pos", "drop", "cols", "lam", "bwf", "dataset", "source"} & set(want)
    help_text = Path(__file__).parents[1].joinpath("app.py").read_text()
    assert "carries every setting" not in help_text
    assert "classes, feature columns, " in help_text and "(folds, seed, screening" in help_text


@pytest.mark.parametrize(
    ("param", "value"),
    [
        ("dataset", "<script>alert(1)</script>"),
        ("dataset", "upload"),
        ("source", "upload"),  # an upload cannot come from an address
        ("source", "**bold**"),
        ("n", "1e9"),
        ("n", "125"),  # not on the slider's step
        ("d", "-3"),
        ("folds", "nan"),
        ("lam", "nan"),
        ("lam", "-1"),
        ("lam", "[x](javascript:alert(1))"),
        ("bwx", "inf"),
        ("bwx", "9"),
        ("bw", "scott "),
        ("alpha", "0.3"),
        ("shared", "yes"),
        ("model", "SLB"),  # always compared, not an extra
        ("model", "x" * 10_000),
    ],
)
def test_a_bad_value_is_ignored_and_named(param, value):
    values, problems = urlstate.parse_params({param: [value]})
    assert values == {} or values == {"extra_models": []}
    assert len(problems) == 1 and problems[0].startswith(f"{param} = “")
    assert len(problems[0]) < 400  # a long value is cut


def test_good_models_are_kept_beside_a_bad_one():
    values, problems = urlstate.parse_params({"model": ["RF", "nope", "RF", "LU"]})
    assert values == {"extra_models": ["RF", "LU"]}
    assert len(problems) == 1 and "nope" in problems[0]


def test_the_positive_class_reads_back_and_one_against_the_rest_has_a_word():
    from dashboard import data

    for value in ("mine", "R&D / ü", data.SMALLER_VS_REST):
        cfg = {**state.DEFAULTS, "positive": value}
        want = urlstate.wanted(cfg)
        assert "\x00" not in want["pos"]  # the constant's NUL never reaches an address
        assert urlstate.parse_params(_params(want))[0]["positive"] == value
    assert "pos" not in urlstate.wanted(dict(state.DEFAULTS))  # automatic: not written
    values, problems = urlstate.parse_params({"pos": ["x" * 201]})
    assert values == {} and problems[0].startswith("pos = “")


def test_unknown_parameters_are_left_alone():
    assert urlstate.parse_params({"utm_source": ["x"], "embed": ["true"]}) == ({}, [])


def test_register_refuses_a_setting_that_does_not_exist():
    with pytest.raises(ValueError, match="not a setting"):
        urlstate.register("toy", urlstate.Field("toy_nonexistent", str))


# --------------------------------------------------------------------------------------------
# the app (AppTest)
# --------------------------------------------------------------------------------------------
def _app(params: dict | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for k, v in (params or {}).items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _all(at: AppTest, key: str) -> list[str]:
    v = at.query_params.get(key, [])
    return [v] if isinstance(v, str) else list(v)


def _query(at: AppTest) -> dict:
    return {k: at.query_params[k] for k in at.query_params}


@pytest.mark.slow
def test_changing_settings_updates_the_address_and_a_new_session_restores_them():
    a = _app()
    assert a.query_params.get(urlstate.SERVER_PARAM) in (
        urlstate.SERVER_ID,
        [urlstate.SERVER_ID],
    )
    assert "dataset" in a.query_params and "bw" not in a.query_params  # a default is not
    # through the Data page's widgets
    a.selectbox(key="bundled_name").set_value("pima").run()
    a.number_input(key="n_folds").set_value(4).run()
    a.number_input(key="seed").set_value(7).run()
    assert not a.exception
    q = _query(a)
    assert q["dataset"] in ("pima", ["pima"]) and q["folds"] in ("4", ["4"])
    # settings of other pages' widgets, as their callbacks write them
    c = a.session_state["cfg"]
    for k, v in SHARED.items():
        c[k] = v
    a.run()
    assert not a.exception
    lam = float(a.session_state["cfg"]["lam_value"])
    q = _query(a)
    assert q["bwx"] in ("1.35", ["1.35"]) and q["bw"] in ("silverman", ["silverman"])
    assert set(_all(a, "model")) == {"RF", "SVM(linear)"}

    # a new session (another browser, a reload) with that address
    b = _app(q)
    cb = b.session_state["cfg"]
    for k, v in SHARED.items():
        assert cb[k] == v, k
    assert cb["lam_value"] == lam and cb["lam_last"] == lam  # not reset to the new data's default
    assert b.session_state["dataset"].name == a.session_state["dataset"].name
    assert b.session_state["dataset"].positive_label == "healthy"
    assert b.selectbox(key="positive_class").value == "healthy"
    assert b.selectbox(key="bundled_name").value == "pima"
    assert b.number_input(key="seed").value == 7
    assert not b.warning, [w.value for w in b.warning]
    assert _query(b) == q  # the same address, nothing lost or added


@pytest.mark.slow
def test_bad_address_values_are_ignored_with_an_escaped_warning():
    at = _app(
        {
            "dataset": "<img src=x onerror=alert(1)>",
            "bwx": "**9**",
            "model": ["RF", "[link](javascript:alert(1))"],
            "seed": "12",
        }
    )
    c = at.session_state["cfg"]
    assert c["bundled_name"] == "sonar" and c["bw_mult"] == 1.0  # defaults kept
    assert c["extra_models"] == ["RF"] and c["seed"] == 12  # the good values applied
    warn = [w.value for w in at.warning if "not understood" in w.value]
    assert len(warn) == 1
    text = warn[0]
    assert "\\<img" in text and "\\*\\*9\\*\\*" in text and "\\[link\\]" in text  # escaped
    # the address now holds the settings in use: the bad values are gone
    assert at.query_params["dataset"] == "sonar" and "bwx" not in at.query_params
    at.run()  # the warning belongs to the run that read the address
    assert not [w.value for w in at.warning if "not understood" in w.value]


@pytest.mark.slow
def test_a_tab_from_before_a_server_restart_gets_a_notice():
    at = _app({urlstate.SERVER_PARAM: "0123456789", "dataset": "pima"})
    side = [w.value for w in at.sidebar.warning]
    assert urlstate.RESTART_MESSAGE in side
    assert at.session_state["cfg"]["bundled_name"] == "pima"  # its settings restored
    assert at.query_params.get(urlstate.SERVER_PARAM) in (
        urlstate.SERVER_ID,
        [urlstate.SERVER_ID],
    )
    at.button(key="restart_notice_ok").click().run()
    assert urlstate.RESTART_MESSAGE not in [w.value for w in at.sidebar.warning]
    # this server's own id: no notice
    same = _app({urlstate.SERVER_PARAM: urlstate.SERVER_ID})
    assert urlstate.RESTART_MESSAGE not in [w.value for w in same.sidebar.warning]
    # a fresh visit without an id: no notice
    fresh = _app()
    assert urlstate.RESTART_MESSAGE not in [w.value for w in fresh.sidebar.warning]


@pytest.mark.slow
def test_an_upload_lost_in_a_restart_says_both():
    at = _app({URL_MARK: "upload", urlstate.SERVER_PARAM: "0123456789"})
    side = [w.value for w in at.sidebar.warning]
    assert urlstate.RESTART_MESSAGE in side and LOST_MESSAGE in side
    assert "source" not in at.query_params  # an upload's source is never written


@pytest.mark.slow
@pytest.mark.parametrize("says", [True, None, False])
def test_an_address_from_the_browsers_history_is_applied(monkeypatch, says):
    """Back or Forward (H35): a run whose address is not the one the session wrote applies it
    as the settings (a setting it leaves out at its default).  Where Streamlit says the run is
    not a history step (False), a stale address is not applied; where it cannot say (None,
    the Streamlit floor), the address alone decides."""
    from dashboard import _streamlit_compat

    at = _app({"dataset": "pima"})
    before = _query(at)
    at.number_input(key="n_folds").set_value(4).run()
    at.number_input(key="seed").set_value(7).run()
    assert _query(at)["folds"] in ("4", ["4"]) and not at.exception
    monkeypatch.setattr(_streamlit_compat, "history_navigation", lambda: says)
    for k in list(at.query_params):  # the browser's Back: the address of the first run
        del at.query_params[k]
    for k, v in before.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception
    c = at.session_state["cfg"]
    if says is False:  # not a history step: the session's settings stand, and are written
        assert (c["n_folds"], c["seed"]) == (4, 7)
        assert _query(at)["folds"] in ("4", ["4"])
    else:
        assert (c["n_folds"], c["seed"], c["bundled_name"]) == (5, 0, "pima")
        assert at.number_input(key="n_folds").value == 5
        assert _query(at) == before  # the address stays the entry Back reached


@pytest.mark.slow
def test_a_pair_rule_change_starts_lambda_at_that_rules_default():
    # A newcomer's λ became ∞ (no pair) under "dependent in every class" and stayed ∞ after
    # switching back: a λ of one rule is on another scale (smallest vs largest class score).
    a = _app()
    c = a.session_state["cfg"]
    start = float(c["lam_value"])
    assert math.isfinite(start)
    c["lam_value"] = start * 1.0001  # a hand-set value: kept while the rule stays
    a.run()
    assert a.session_state["cfg"]["lam_value"] == start * 1.0001
    a.session_state["cfg"]["pair_rule"] = "both"
    a.run()
    both = float(a.session_state["cfg"]["lam_value"])
    assert math.isfinite(both) and both < start  # smallest class scores: a smaller λ
    a.session_state["cfg"]["pair_rule"] = "either"
    a.run()
    assert not a.exception
    assert a.session_state["cfg"]["lam_value"] == start


@pytest.mark.slow
def test_an_address_restores_the_classes_left_out_the_columns_and_the_multipliers():
    """H48: a link pasted in a new tab gave penguins' three classes where the teacher had
    left Chinstrap out, and Scott x 1 where a feature had its own multiplier (other BERs)."""
    at = _app({"dataset": "penguins", "drop": "Chinstrap"})
    ds = at.session_state["dataset"]
    assert sorted(map(str, ds.class_counts)) == ["Adelie", "Gentoo"] and ds.n == 274
    assert _all(at, "drop") == ["Chinstrap"]
    cols = ["bill_length_mm", "flipper_length_mm", "body_mass_g"]
    at = _app({"dataset": "penguins", "cols": cols, "bwf": ["body_mass_g:1.6"]})
    ds = at.session_state["dataset"]
    assert list(ds.feature_names) == cols and ds.multiclass
    assert at.session_state["cfg"]["bw_overrides"] == {"body_mass_g": 1.6}
    assert _all(at, "cols") == cols and _all(at, "bwf") == ["body_mass_g:1.6"]
    assert not [w.value for w in at.warning if "not understood" in w.value]


@pytest.mark.slow
def test_address_names_the_data_lacks_are_named_and_ignored():
    at = _app({"dataset": "sonar", "drop": "<b>x</b>", "cols": ["band_1", "nope"], "bwf": "zz:1.5"})
    warn = [w.value for w in at.warning if "not understood" in w.value]
    assert len(warn) == 1, warn
    assert "drop \\= “\\<b\\>x\\</b\\>”\\: not a class" in warn[0]  # escaped
    assert "cols \\= “nope”\\: not a feature column" in warn[0]
    assert "bwf \\= “zz”\\: not a feature of this data" in warn[0]
    assert at.session_state["cfg"]["bw_overrides"] == {} and "bwf" not in at.query_params
    assert list(at.session_state["dataset"].feature_names) == ["band_1"]


@pytest.mark.slow
def test_an_address_positive_class_the_data_lacks_is_named_and_ignored():
    at = _app({"dataset": "pima", "pos": "<b>nope</b>"})
    assert at.session_state["cfg"]["positive"] is None
    assert at.session_state["dataset"].positive_label == "diabetic"  # automatic
    warn = [w.value for w in at.warning if "not understood" in w.value]
    assert len(warn) == 1 and "“\\<b\\>nope\\</b\\>”" in warn[0]  # escaped
    assert "not a class of this data" in warn[0]
    assert "pos" not in at.query_params


@pytest.mark.slow
def test_choosing_the_positive_class_keeps_a_lambda_set_by_hand():
    """Swapping the two classes keeps every pair's per-class scores, so λ stays (H45: it went
    back to the default); one class against the rest is other data, so λ starts again."""
    at = _app({"dataset": "sonar", "lam": "0.03"})
    assert at.session_state["cfg"]["lam_value"] == 0.03
    at.selectbox(key="positive_class").set_value("mine").run()
    assert not at.exception
    assert at.session_state["dataset"].positive_label == "mine"
    assert at.session_state["cfg"]["lam_value"] == 0.03
    assert at.query_params["lam"] in ("0.03", ["0.03"])
    assert at.query_params["pos"] in ("mine", ["mine"])
    # a new seed or fold count is the same data too; another dataset is not
    at.selectbox(key="bundled_name").set_value("pima").run()
    assert at.session_state["cfg"]["lam_value"] != 0.03


@pytest.mark.slow
def test_an_address_lambda_above_every_score_says_it_keeps_no_pair():
    at = _app({"dataset": "pima", "lam": "0.5"})
    note = [i.value for i in at.info if "above every pair's score" in i.value]
    assert len(note) == 1 and "λ = 0.5 from the address" in note[0], [i.value for i in at.info]
    at.run()  # said once
    assert not [i.value for i in at.info if "above every pair's score" in i.value]
    # a λ that keeps pairs gets no note
    ok = _app({"dataset": "pima", "lam": "0.001"})
    assert not [i.value for i in ok.info if "above every pair's score" in i.value]
