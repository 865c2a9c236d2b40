"""The small dashboard defects of issue 13 (item 6), one test (or more) each.

1. "automatic" positive class = the smaller class, also for 0/1 labels, and says which;
2. the feature expander counts what the models get, and notes name the controls, not the API;
3. the Data page shows the uploaded file in use after a page change;
4. one colour convention: the class colours, also for the push direction on Explain;
5. Explain's figure is a waterfall whose steps add up to the decision value;
6. the page icon is a local file (a material name is fetched from fonts.gstatic.com);
7. a sentence under each figure of Explain and Densities.

Browser-free: AppTest (as ``tests/test_app.py``) and plain tests of the figure builder.
"""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

os.environ["STREAMLIT_CLIENT_SHOW_ERROR_DETAILS"] = "full"

import streamlit  # noqa: E402
from browser_support import StreamlitServer, launch_chromium, needs_browser  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402
from test_app import assert_ok, new_app  # noqa: E402  (the AppTest helpers, one copy)

from dashboard import data as ddata  # noqa: E402
from dashboard.data import make_upload  # noqa: E402
from dashboard.safety import escape_markdown  # noqa: E402
from slb import SLBClassifier  # noqa: E402
from slb.viz import figures  # noqa: E402


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------
def upload(at: AppTest, name: str, payload: bytes) -> AppTest:
    """What the file uploader's callback does, then "Upload a file" as the source."""
    at.session_state["upload"] = make_upload(name, payload)
    at.radio(key="data_source").set_value("upload").run()
    assert_ok(at)
    return at


def metric(at: AppTest, label: str) -> str:
    for m in at.metric:
        if m.label == label:
            return m.value
    raise AssertionError(f"no metric {label!r}: {[m.label for m in at.metric]}")


def texts(at: AppTest) -> str:
    """Every text shown (Markdown, captions, alerts), unescaped."""
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += (
        [e.value for e in at.info] + [e.value for e in at.warning] + [e.value for e in at.error]
    )
    return re.sub(r"\\(.)", r"\1", "\n".join(parts))  # Markdown escapes removed


def chart(at: AppTest, key: str) -> dict:
    for el in at.get("plotly_chart"):
        if el.proto.id.endswith("-" + key):
            return json.loads(el.proto.spec)
    raise AssertionError(f"no plotly chart with key {key!r}")


def heart_csv(n1=70, n0=30, seed=0) -> bytes:
    """0/1 labels where 1 is the LARGER class, plus a text column (encoded or dropped)."""
    rng = np.random.default_rng(seed)
    y = np.r_[np.ones(n1, int), np.zeros(n0, int)]
    df = pd.DataFrame(
        {
            "age": rng.normal(55, 9, y.size).round(1),
            "chol": rng.normal(240, 40, y.size).round(0) + 15 * y,
            "thalach": rng.normal(150, 20, y.size).round(0),
            "oldpeak": rng.gamma(2.0, 0.5, y.size).round(2),
            "sex": rng.choice(["male", "female"], y.size),  # text: dropped by default
            "target": y,
        }
    )
    return df.to_csv(index=False).encode()


# --------------------------------------------------------------------------------------------
# 1. the automatic positive class
# --------------------------------------------------------------------------------------------
def test_smaller_class_rule_and_ties():
    assert ddata.smaller_class(["0", "1"], {"0": 30, "1": 70}) == "0"
    assert ddata.smaller_class(["0", "1"], {"0": 70, "1": 30}) == "1"
    assert ddata.smaller_class(["0", "1"], {"0": 50, "1": 50}) == "1"  # tie: listed last
    assert ddata.smaller_class(["a", "b"], {"a": 5, "b": 5}) == "b"


@pytest.mark.slow
def test_automatic_positive_class_is_the_smaller_one_for_01_labels():
    at = upload(new_app(), "heart.csv", heart_csv())
    assert not at.error, [e.value for e in at.error]
    # 0 has 30 rows, 1 has 70: "automatic (the smaller class)" must make 0 positive
    assert metric(at, r"\+ 0") == "30" and metric(at, r"− 1") == "70"
    box = at.selectbox(key="positive_class")
    assert box.options[box.index] == "automatic: 0"  # short: the reason in a caption
    assert "automatic: 0 (the smaller class, 30 rows in the table as read)" in texts(at)
    assert "'0' (30 rows) is treated as the positive class and '1' (70 rows)" in texts(at)
    assert 'because "automatic" picks the smaller class.' in texts(at)  # nothing dropped
    # choosing a class by hand still wins
    box.set_value("1").run()
    assert_ok(at)
    assert metric(at, r"\+ 1") == "70"


@pytest.mark.slow
def test_automatic_positive_class_note_counts_the_prepared_rows():
    """Rows dropped for missing values: the note gives the prepared rows' counts (the page's
    metrics) and the table-as-read counts the choice was made on (H28 found them mixed up)."""
    df = pd.read_csv(io.BytesIO(heart_csv()))
    df.loc[df.index[::10], "chol"] = np.nan  # 10 rows dropped: 7 of class 1, 3 of class 0
    at = upload(new_app(), "gaps.csv", df.to_csv(index=False).encode())
    assert not at.error, [e.value for e in at.error]
    n0, n1 = metric(at, r"\+ 0"), metric(at, r"− 1")
    assert (n0, n1) == ("27", "63")
    assert (
        "'0' (27 rows) is treated as the positive class and '1' (63 rows) as the negative "
        'class, because "automatic" picks the smaller class (30 and 70 in the table as read)'
    ) in texts(at)


@pytest.mark.slow
def test_automatic_positive_class_on_a_tie_says_so():
    at = upload(new_app(), "even.csv", heart_csv(n1=50, n0=50))
    assert metric(at, r"\+ 1") == "50"  # equal sizes: the class listed last
    box = at.selectbox(key="positive_class")
    assert box.options[box.index] == "automatic: 1"
    assert "automatic: 1 (both classes have 50 rows: the one listed last)" in texts(at)


# --------------------------------------------------------------------------------------------
# 2. the feature count and the notes' wording
# --------------------------------------------------------------------------------------------
def test_notes_name_the_controls_not_the_api():
    msg = "Choose to encode them (non_numeric='encode'). Or fill them (missing='impute')."
    out = ddata.control_words(msg)
    assert "non_numeric" not in out and "missing='impute'" not in out
    assert ddata.TEXT_COLUMNS_LABEL in out and ddata.MISSING_LABEL in out


@pytest.mark.slow
def test_feature_expander_counts_what_the_models_get_and_names_the_control():
    at = upload(new_app(), "heart.csv", heart_csv())
    assert metric(at, "features d") == "4"  # "sex" is text: dropped
    labels = [e.label for e in at.expander]
    feat = next(lab for lab in labels if lab.startswith("Feature columns"))
    assert "5 of 5 chosen" in feat and "the models get d = 4" in feat, feat
    shown = texts(at)
    assert "non_numeric" not in shown, shown
    assert ddata.TEXT_COLUMNS_LABEL in shown
    # encoding the text column: the models get one more column, and the title follows
    at.radio(key="non_numeric").set_value("encode").run()
    assert_ok(at)
    d = int(metric(at, "features d"))
    assert d == 5
    feat = next(e.label for e in at.expander if e.label.startswith("Feature columns"))
    assert f"the models get d = {d}" in feat, feat


# --------------------------------------------------------------------------------------------
# 3. the file in use, after leaving the Data page and coming back
# --------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_data_page_shows_the_upload_in_use_after_a_page_change():
    payload = heart_csv()
    at = upload(new_app(), "heart_*disease*.csv", payload)
    at.switch_page("pages/densities.py").run()
    assert_ok(at)
    at.switch_page("app.py").run()
    assert_ok(at)
    info = "\n".join(e.value for e in at.info)
    # the name is escaped (no accidental Markdown), with size and shape as read
    assert f"In use: **{escape_markdown('heart_*disease*.csv')}**" in info, info
    assert r"heart\_\*disease\*" in info  # the Markdown characters are escaped
    assert f"{len(payload) / 1000:.1f} kB" in info and "100 rows × 6 columns" in info, info
    assert "upload another file below" in info
    assert at.file_uploader(key="upload_file") is not None  # the way to replace it


# --------------------------------------------------------------------------------------------
# 4 and 5. Explain's waterfall and its colours
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(3)
    n, d = 120, 6
    X = rng.normal(size=(n, d))
    y = (rng.random(n) < 0.5).astype(int)
    X[y == 1, 1] = X[y == 1, 0] + 0.3 * rng.normal(size=(y == 1).sum())
    X[y == 0, 4] += 1.0
    X = pd.DataFrame(X, columns=[f"f{k}" for k in range(d)])
    clf = SLBClassifier(threshold=0.0, random_state=0).fit(X, y)
    return clf, X


def _waterfall(fig):
    return next(t for t in fig.data if isinstance(t, go.Waterfall))


@pytest.mark.parametrize("top", [1, 5, 12, 1000])
def test_waterfall_steps_add_up_to_the_decision_value(fitted, top):
    clf, X = fitted
    contrib, baseline = clf.contributions(X.iloc[:4])
    decision = clf.decision_function(X.iloc[:4])
    for i in range(4):
        row = contrib.iloc[i]
        fig = figures.contributions_figure(row, baseline=baseline, top=top, pos_name="P")
        wf = _waterfall(fig)
        measure = list(wf.measure)
        assert measure[0] == "absolute" and measure[-1] == "total"
        assert wf.x[0] == pytest.approx(baseline)
        steps = np.asarray(wf.x[1:-1], dtype=float)
        # baseline + every step (shown terms + the "others" step) = the decision value
        assert baseline + steps.sum() == pytest.approx(decision[i], abs=1e-9)
        assert fig.layout.meta["decision"] == pytest.approx(decision[i], abs=1e-9)
        n_terms = row.size
        shown = min(top, n_terms)
        # the shown terms are the largest |contribution|, in that order
        expect = row.abs().sort_values(ascending=False, kind="stable").index[:shown]
        np.testing.assert_allclose(steps[:shown], row[expect].to_numpy())
        assert np.all(np.diff(np.abs(steps[:shown])) <= 1e-12)
        if n_terms > shown:
            rest = n_terms - shown
            assert wf.y[-2] == ("1 other term" if rest == 1 else f"{rest} other terms")
            assert steps[-1] == pytest.approx(row.drop(expect).sum())
            assert len(steps) == shown + 1
        else:
            assert len(steps) == shown


def test_explain_colours_are_the_class_colours(fitted):
    clf, X = fitted
    contrib, baseline = clf.contributions(X.iloc[:1])
    fig = figures.contributions_figure(
        contrib.iloc[0], baseline=baseline, pos_name="sick", neg_name="healthy"
    )
    wf = _waterfall(fig)
    # the colour of the + class on Densities and Compare (its KDE curve / its weights)
    dens = figures.density_1d(
        X["f0"].to_numpy(), np.r_[np.ones(60), np.zeros(60)], [0.5, 0.5], pos_name="sick"
    )
    kde = {t.name: t.line.color for t in dens.data if (t.name or "").startswith("KDE")}
    assert wf.increasing.marker.color == kde["KDE +"]  # a push toward + in the + colour
    assert wf.decreasing.marker.color == kde["KDE −"]
    legend = {t.name: t.marker.color for t in fig.data if t.showlegend is not False}
    assert legend == {
        "pushes toward + (sick): that class's colour": kde["KDE +"],
        "pushes toward − (healthy): that class's colour": kde["KDE −"],
    }


# --------------------------------------------------------------------------------------------
# 5 and 7 in the app: the waterfall and the teaching sentences
# --------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_explain_and_densities_pages_explain_their_figures():
    at = new_app()
    at.switch_page("pages/densities.py").run()
    assert_ok(at)
    shown = texts(at)
    assert "What it shows" in shown and "bandwidth multiplier up smooths" in shown
    at.radio(key="dens_view").set_value("pair").run()
    assert_ok(at)
    assert "smooths the contours" in texts(at)
    at.switch_page("pages/explain.py").run()
    assert_ok(at)
    spec = chart(at, "explain_figure")
    assert spec["data"][0]["type"] == "waterfall"
    shown = texts(at)
    assert "a positive weight on log p−(x) means" in shown
    assert "pushes toward +" in shown and "Share of the decision shown" in shown


# --------------------------------------------------------------------------------------------
# 6. the page icon is served by the app
# --------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_page_icon_is_a_local_file_not_a_name(monkeypatch):
    calls = []
    real = streamlit.set_page_config

    def spy(*args, **kwargs):
        calls.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(streamlit, "set_page_config", spy)
    new_app()
    assert calls, "the app sets its page config"
    for kw in calls:
        icon = kw.get("page_icon")
        # a ":material/...:" name or an emoji is fetched by the browser from a CDN
        assert isinstance(icon, (str, Path, bytes)), icon
        if not isinstance(icon, bytes):
            assert not str(icon).startswith(":"), icon
            path = Path(icon)
            assert path.is_file() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", icon


@pytest.mark.slow
@needs_browser
def test_the_browser_fetches_nothing_from_other_hosts_and_the_icon_is_local():
    """In Chromium: every request of the first page load goes to the app's own server."""
    from playwright.sync_api import expect, sync_playwright

    with StreamlitServer("defects-icon-server.log") as srv, sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page()
            hosts = []
            page.on("request", lambda r: hosts.append(urlsplit(r.url).hostname))
            page.goto(srv.url)
            expect(page.get_by_test_id("stSidebar")).to_contain_text("d = 60", timeout=120_000)
            icon = page.locator("link[rel='shortcut icon'], link[rel='icon']").first
            expect(icon).to_have_attribute("href", re.compile(r"media/.*\.png"), timeout=30_000)
            href = icon.get_attribute("href")
        finally:
            browser.close()
    assert urlsplit(href).hostname in (None, "127.0.0.1"), href
    others = sorted({h for h in hosts if h not in ("127.0.0.1", "localhost", None)})
    assert not others, f"requests to other hosts: {others}"


def test_csv_downloads_write_classes_without_a_formula_apostrophe():
    # A newcomer's CSVs held "'+ fraud" and "'+": a cell starting with "+" reads as a formula,
    # so the writer neutralised it, and Excel and pandas kept the apostrophe.
    from types import SimpleNamespace

    from dashboard import compute, evaluation
    from dashboard.safety import safe_csv_bytes
    from slb import SLBClassifier

    ds = SimpleNamespace(
        negative_label="ok",
        positive_label="fraud",
        multiclass=False,
        class_texts=("− ok", "+ fraud"),
    )
    pred = pd.DataFrame(
        {
            "classifier": "SLB",
            "row": [0, 1],
            "repeat": 0,
            "fold": 0,
            "y_true": [1, 0],
            "y_pred": [1, 1],
            "proba": [0.9, 0.6],
            "score": [1.2, 0.3],
        }
    )
    evals = {"SLB": SimpleNamespace(predictions=pred)}
    read = pd.read_csv(io.BytesIO(safe_csv_bytes(evaluation.predictions_display(evals, ds, True))))
    assert read["true class"].tolist() == ["fraud (+)", "ok (−)"]
    assert read["predicted class"].tolist() == ["fraud (+)", "fraud (+)"]
    # the page's table keeps the signs first, as everywhere on screen
    assert evaluation.predictions_display(evals, ds)["true class"].tolist() == ["+ fraud", "− ok"]
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 30)
    X = rng.normal(size=(60, 3)) + y[:, None]
    clf = SLBClassifier(threshold=0.0, C=1.0, random_state=0).fit(X, y)
    coef = pd.read_csv(io.BytesIO(safe_csv_bytes(compute.coefficient_table(ds, clf, csv=True))))
    assert set(coef["class"]) == {"positive (+)", "negative (−)"}
    assert not coef.astype(str).apply(lambda c: c.str.startswith("'")).to_numpy().any()


@pytest.mark.slow
def test_the_note_counts_the_prepared_rows_when_the_smaller_class_is_the_librarys_pick_too():
    """H47: string labels whose smaller class prepare_table picks too kept prepare_table's
    note, which counts the file's rows: "'fault' (22 rows)" above "+ fault: 21" once a row
    was dropped for an unreadable value.  The page's own note gives the prepared counts."""
    rng = np.random.default_rng(4)
    y = np.array(["fault"] * 22 + ["ok"] * 128)
    df = pd.DataFrame(
        {"x1": rng.normal(size=150).round(3).astype(object), "x2": rng.normal(size=150)}
    )
    df["state"] = y
    df.loc[3, "x1"] = "n/a?"  # a fault row, dropped with the default "drop the rows"
    at = upload(new_app(), "junk.csv", df.to_csv(index=False).encode())
    assert not at.error, [e.value for e in at.error]
    assert (metric(at, r"\+ fault"), metric(at, r"− ok")) == ("21", "128")
    text = texts(at)
    assert "'fault' (21 rows) is treated as the positive class and 'ok' (128 rows)" in text
    assert "(22 and 128 in the table as read)" in text
    assert "(22 rows" not in text.replace("(22 and 128", "")
