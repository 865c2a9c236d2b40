"""Compare's HTML report opened in Chromium with no network (issue 28): the ROC,
precision-recall and confusion figures are drawn, and the file asks for nothing outside itself.

The report is built from out-of-fold evaluations (``tests/test_report.py::_evals``); every
request the page makes is recorded and any that is not the file itself is aborted.
"""

from __future__ import annotations

import pytest
from browser_support import artifacts_dir, chromium, needs_browser
from test_report import _evals

from dashboard import report

pytestmark = [pytest.mark.browser, needs_browser]

LONG = 120_000  # ms: a busy 2-core machine


def test_report_draws_roc_pr_confusion_offline(tmp_path):
    evals = _evals(("SLB", "NB"))
    sec = report.curves_section(evals, "stratified 3-fold CV", 0, "yes", "no")
    doc = report.build_report(title="report", subtitle="offline", sections=[sec], settings={})
    path = tmp_path / "report.html"
    path.write_text(doc, encoding="utf-8")
    requests = []
    with chromium() as b:
        ctx = b.new_context(viewport={"width": 1024, "height": 768}, offline=True)
        ctx.set_default_timeout(LONG)

        def route(r):
            requests.append(r.request.url)
            if r.request.url.startswith(("file://", "data:", "blob:")):
                r.continue_()
            else:
                r.abort()

        ctx.route("**/*", route)
        page = ctx.new_page()
        try:
            page.goto(path.as_uri())
            page.wait_for_function(
                "n => document.querySelectorAll('.js-plotly-plot .main-svg').length >= n",
                arg=len(sec.figures),
                timeout=LONG,
            )
            titles = page.evaluate(
                "() => [...document.querySelectorAll('.js-plotly-plot .gtitle')]"
                ".map(t => t.textContent)"
            )
        finally:
            page.screenshot(path=str(artifacts_dir() / "report-offline.png"), full_page=True)
            ctx.close()
    assert any("ROC" in t for t in titles), titles
    assert any("recision" in t for t in titles), titles
    assert sum("Confusion matrix" in t for t in titles) == 2, titles
    outside = [u for u in requests if not u.startswith(("file://", "data:", "blob:"))]
    assert outside == [], outside
