"""Compare's HTML report (issue 28): one self-contained file, every user text escaped."""

from __future__ import annotations

import copy
import io
import re
from html.parser import HTMLParser
from types import SimpleNamespace

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from dashboard import compute, data, report, state, urlstate
from slb import SLBClassifier

HOSTILE = '<script>alert("x")</script>'
IMG = "<img src=x onerror=alert(1)>"

#: Tags a report may contain: its own layout, pandas' tables, plotly's divs and scripts.
ALLOWED = {
    "html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "code", "table",
    "thead", "tbody", "tr", "th", "td", "figure", "figcaption", "div", "script",
}  # fmt: skip


class Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.text, self.attrs, self.scripts = [], [], [], 0
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += [a for a, _ in attrs]
        if tag == "script":
            self.scripts += 1
            self._in_script = True

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, d):
        if not self._in_script:
            self.text.append(d)


def _check_safe(doc: str, n_figures: int) -> Collect:
    p = Collect()
    p.feed(doc)
    assert set(p.tags) <= ALLOWED, set(p.tags) - ALLOWED
    assert not [a for a in p.attrs if a.lower().startswith("on")]  # no event handlers
    outside = re.sub(r"<script[^>]*>.*?</script>", "", doc, flags=re.DOTALL)
    assert "<img" not in outside  # the hostile tag is text
    assert not re.search(r"<script[^>]*\bsrc=", doc)  # nothing fetched: plotly.js is inline
    # plotly.js inlined exactly once (with the first figure), plus one script per other figure
    assert len(re.findall(r"\* plotly\.js v\d", doc)) == 1
    first = go.Figure().to_html(full_html=False, include_plotlyjs=True).count("<script")
    assert p.scripts == first + n_figures - 1
    assert doc.count("</script>") == p.scripts  # no script closed early by a label
    return p


def test_a_report_escapes_every_user_text_and_inlines_plotly_once():
    fig = go.Figure(go.Bar(x=[HOSTILE, IMG], y=[1, 2], name=HOSTILE))
    fig2 = go.Figure(go.Scatter(x=[1], y=[2], text=[HOSTILE]))
    table = pd.DataFrame({HOSTILE: [1.5], IMG: ["**x**"]}, index=[IMG])
    doc = report.build_report(
        title=f"comparison on {HOSTILE}.csv",
        subtitle=IMG,
        sections=[
            report.Section(
                HOSTILE,
                [f"class {IMG}"],
                tables=[(HOSTILE, table)],
                figures=[(fig, HOSTILE), (fig2, IMG)],
            )
        ],
        settings={"dataset": {"name": HOSTILE, "features": [IMG, "a"]}, HOSTILE: 1},
    )
    p = _check_safe(doc, n_figures=2)
    text = "".join(p.text)
    assert HOSTILE in text and IMG in text  # shown as text, escaped in the file
    assert "&lt;script&gt;" in doc


def _dataset(names: list[str], labels=("<b>pos</b>", "neg & co")):
    rng = np.random.default_rng(0)
    n = 80
    X = rng.normal(size=(n, len(names)))
    y = np.where(np.arange(n) % 2 == 0, labels[0], labels[1])
    X[y == labels[0], 0] += 1.5
    frame = pd.DataFrame(X.round(4), columns=names)
    frame["label"] = y
    buf = io.StringIO()
    frame.to_csv(buf, index=False)
    cfg = copy.deepcopy(state.DEFAULTS) | {"source": "upload"}
    build = data.build(cfg, data.make_upload(f"{HOSTILE}.csv", buf.getvalue().encode()))
    assert build.dataset is not None, build.error
    return build.dataset


@pytest.mark.slow
def test_the_comparison_report_of_an_upload_with_hostile_names():
    names = [HOSTILE, IMG, "a,b", "plain"]
    ds = _dataset(names)
    clf = SLBClassifier(threshold=0.0, C=1.0, random_state=0, probability=False).fit(ds.X, ds.y)
    folds = compute.folds(ds.key, ds, 3, 0, 1)
    per_fold = pd.DataFrame(
        {"SLB": [0.075, 0.07536, 0.1477], "TAN": [0.3, 0.35, 0.09809], "NB": [0.25, 0.2, 0.3]}
    )
    table = compute.comparison(per_fold, folds)
    lam = SimpleNamespace(value=0.0, mode="value", n_kept=6, n_pairs=6)
    v = SimpleNamespace(ds=ds, lam=lam, seed=0, cv_text="stratified 3-fold CV", c=state.DEFAULTS)
    res = SimpleNamespace(
        per_fold=per_fold,
        table=table,
        slb_how="the exact path",
        runs={"SLB": SimpleNamespace(n_pairs=np.array([6, 6, 6]))},
    )
    settings = {"slb_version": "x", "dataset": {"name": ds.name, "features": ds.feature_names}}
    query = urlstate.wanted({**state.DEFAULTS, "bundled_name": "pima"})
    doc = report.comparison_report(v, res, clf, settings, query=query)
    p = _check_safe(doc, n_figures=2)
    # with the page's out-of-fold evaluations: ROC, precision-recall and each confusion matrix
    with_curves = report.comparison_report(
        v, res, clf, settings, query=query, evals=_evals(("SLB", "TAN", "NB"))
    )
    q = _check_safe(with_curves, n_figures=2 + 2 + 3)
    curves_text = "".join(q.text)
    assert "Out-of-fold curves and confusion matrices" in curves_text
    assert "ROC curves from the out-of-fold predictions of stratified 3-fold CV" in curves_text
    assert "Confusion matrix of NB from the out-of-fold predictions" in curves_text
    text = "".join(p.text)
    assert f"comparison on {HOSTILE}.csv" in text  # the file name, as text
    assert "<b>pos</b>" in text and "neg & co" in text  # class labels, as text
    assert "seed 0" in text and "stratified 3-fold CV" in text and "the exact path" in text
    # an upload's address carries no λ: the report says which λ to set (a newcomer's link
    # restored the default λ, not the reported one)
    up = urlstate.wanted({**state.DEFAULTS, "source": "upload", "bw_rule": "silverman"})
    assert "lam" not in up
    u = "".join(_check_safe(report.comparison_report(v, res, clf, settings, query=up), 2).text)
    assert "set λ = 0 by value" in u
    assert "upload the same file again on the Data page" in u and "address ending below" in u
    # an upload at the defaults has an empty address: the report still says how to get the
    # same comparison again (H50: it had no "Reproduce" section at all)
    bare = "".join(_check_safe(report.comparison_report(v, res, clf, settings, query={}), 2).text)
    assert "Reproduce" in bare and "set λ = 0 by value" in bare
    assert "every other setting of this comparison is the dashboard's default" in bare
    assert "own bandwidth multiplier" not in bare
    # per-feature multipliers cannot travel with an upload either: named, as text
    name = ds.feature_names[0]
    multi = {**settings, "densities": {"bandwidth_overrides": {name: 1.5}}}
    m = "".join(_check_safe(report.comparison_report(v, res, clf, multi, query={}), 2).text)
    assert f"own bandwidth multiplier (Densities page): {name} × 1.5." in m
    assert "set λ =" not in text  # a bundled dataset's address has it
    assert "dataset=pima" in text  # how to get the same settings again
    for col in ("mean BER (%)", "sd (%)"):
        assert col in text
    # the numbers are the results' numbers, with the page's one decimal throughout (H48: a
    # column read "23.21" above "8.524", the folds "7.5", "7.536", "14.77")
    assert f"{table.loc['SLB', 'mean BER (%)']:.1f}" in text
    cells = [t.strip() for t in p.text]
    assert {"7.5", "14.8", "9.8", "35.0"} <= set(cells), cells  # the folds, in percent
    assert not {"7.536", "14.77", "9.809"} & set(cells), cells
    assert f"{table.loc['SLB', 'sd (%)']:.1f}" in cells


def _evals(names=("SLB", HOSTILE), n=120, seed=0):
    """Out-of-fold evaluations of ``names`` on 3 folds: a noisy score per classifier."""
    from dashboard.evaluation import fold_eval

    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    fold = np.arange(n) % 3
    out = {}
    for i, name in enumerate(names):
        proba = np.clip(0.5 + (y - 0.5) * (0.6 - 0.2 * i) + rng.normal(0, 0.25, n), 0.01, 0.99)
        pred = pd.DataFrame(
            {
                "classifier": name,
                "row": np.arange(n),
                "fold": fold,
                "repeat": 0,
                "y_true": y,
                "y_pred": (proba >= 0.5).astype(int),
                "proba": proba,
                "score": np.nan,
            }
        )
        out[name] = fold_eval(pred)
    return out


def test_the_curves_section_holds_roc_pr_and_every_confusion_matrix_with_how():
    evals = _evals()
    sec = report.curves_section(evals, "stratified 3-fold CV", 7, IMG, "neg")
    kinds = []
    for fig, cap in sec.figures:
        assert "out-of-fold" in cap and "stratified 3-fold CV" in cap and "seed 7" in cap
        kinds.append(fig.layout.title.text)
    assert len(sec.figures) == 2 + len(evals)  # ROC, PR, one confusion matrix per classifier
    roc, pr = sec.figures[0][0], sec.figures[1][0]
    # the ROC figure draws each classifier's pooled curve (its fpr / tpr), and the PR figure
    # its precision / recall: the same numbers as the page's
    for name, ev in evals.items():
        safe = report._e(name)
        trace = next(t for t in roc.data if t.name and t.name.startswith(safe))
        np.testing.assert_allclose(trace.x, ev.roc["fpr"])
        np.testing.assert_allclose(trace.y, ev.roc["tpr"])
        trace = next(t for t in pr.data if t.name and t.name.startswith(safe))
        np.testing.assert_allclose(trace.x, ev.pr["recall"])
    # the confusion figures' cells are the pooled counts (every row once)
    for (fig, _), ev in zip(sec.figures[2:], evals.values(), strict=True):
        assert ev.confusion.to_numpy().sum() == 120
        c = ev.confusion.to_numpy()  # rows true [0, 1], columns predicted [0, 1]
        assert fig.layout.meta["counts"] == [[c[1, 1], c[1, 0]], [c[0, 1], c[0, 0]]]
    doc = report.build_report(title="t", subtitle="s", sections=[sec], settings={})
    _check_safe(doc, n_figures=len(sec.figures))
    # self-contained: no address the page's own markup would fetch (plotly.js's code holds
    # addresses it never fetches for these figures: tests/test_browser_report.py opens the
    # file offline and records every request)
    outside = re.sub(r"<script[^>]*>.*?</script>", "", doc, flags=re.DOTALL)
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", outside, flags=re.I)
    assert "@import" not in outside and "url(" not in outside


def test_settings_record_names_the_classes_of_two_and_of_k():
    """Both Compare pages' settings download (one builder): the positive and negative class
    for two classes, every class for K, and the same screening, CV and density settings."""
    from types import SimpleNamespace

    from dashboard.report import settings_record

    base = dict(name="t", source="upload", n=10, d=3, label="y", feature_names=["a", "b", "c"])
    base.update(data_seed=None, key="k", n_folds=5)
    two = SimpleNamespace(**base, multiclass=False, positive_label="p", negative_label="n")
    many = SimpleNamespace(**base, multiclass=True, classes=("a", "b", "c"))
    c = dict(seed=3, measure="hsic", pair_rule="either", lam_quantile=0.9, fdr_alpha=0.05)
    lam = SimpleNamespace(mode="value", value=float("inf"), n_kept=0)
    kw = dict(reps=2, wanted=5, test="t-test", classifiers=["SLB", "NB"])
    r2 = settings_record(two, c, lam, {"bandwidth": "scott"}, None, **kw)
    rk = settings_record(many, c, lam, {"bandwidth": "scott"}, None, **kw)
    assert (r2["dataset"]["positive_class"], r2["dataset"]["negative_class"]) == ("p", "n")
    assert rk["dataset"]["classes"] == ["a", "b", "c"] and "positive_class" not in rk["dataset"]
    for r in (r2, rk):
        assert r["screening"]["lambda"] is None and r["screening"]["pairs_kept"] == 0
        assert r["cross_validation"]["n_repeats"] == 2
        assert r["cross_validation"]["n_repeats_requested"] == 5
        assert r["slb_params"] == {} and r["classifiers"] == ["SLB", "NB"]
        __import__("json").dumps(r)  # a JSON document
