"""The Experiments page measured in a real browser (issue 28): after a run of both protocols,
at a projector's 1024 × 768 and at 1440 × 900 with the sidebar open, every figure's plot area is
at least 260 × 200 px and its text at least 14 px and inside the figure, every caption has WCAG
AA contrast (4.5:1), no select box shows a cut value, and axe-core finds nothing serious or
critical.

The page computes nothing until Run is pressed, so the test sets small runs through the widgets
(d = 5, the smallest sizes, two classifiers, two flip probabilities; the label noise on the
synthetic design) and presses both Run buttons; the rules and the JavaScript that measures them
are the other browser tests' (``tests/test_browser_readability.py``,
``tests/test_browser_a11y.py``).  Screenshots and numbers: ``test-artifacts/experiments-*``.
"""

from __future__ import annotations

import json

import pytest
from browser_support import artifacts_dir, chromium, needs_browser, new_page, server_fixture
from test_browser_a11y import CONTRAST_JS, TRUNCATED_JS, serious
from test_browser_readability import MEASURE_JS, problems, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.slow, needs_browser]

LONG = 600_000  # ms: the runs fit several classifiers on a shared 2-core machine
SIZES = [(1024, 768), (1440, 900)]
#: Figures of a run: the two true networks, SLB's kept pairs, the coefficients against the
#: oracle (and their ratio form), the importances, the learning curve, the label-noise curves.
EXPECTED_KEYS = {
    "exp_graph_pos",
    "exp_graph_neg",
    "exp_graph_kept",
    "exp_coef",
    "exp_ratio",
    "exp_importance",
    "exp_curve",
    "noise_fig",
}


server = server_fixture("browser-experiments-server.log", env={"SLB_WARMUP": "0"})


def _to_lowest(page, key: str) -> None:
    """A slider (or select slider) at its smallest value, by keyboard as a user would."""
    page.locator(f".st-key-{key} input[type='range']").first.focus()
    page.keyboard.press("Home")
    wait_idle(page, quiet_s=1.0)


def _remove(page, key: str, *items: str) -> None:
    """Unselect ``items`` of a multi-select pills widget (a click on each chosen pill, whose
    ``aria-pressed`` then turns false)."""
    from playwright.sync_api import expect

    for item in items:
        pill = page.locator(f".st-key-{key}").get_by_role("button", name=item, exact=True)
        expect(pill).to_have_attribute("aria-pressed", "true")
        pill.click()
        wait_idle(page, quiet_s=1.0)
        expect(pill).to_have_attribute("aria-pressed", "false")


def run_small_experiments(page) -> None:
    """Small settings through the widgets, then both Run buttons, waiting for the figures."""
    from playwright.sync_api import expect

    for key in ("exp_d", "exp_n", "exp_test"):
        _to_lowest(page, key)
    _remove(page, "exp_grid", "600")  # 200, 400
    _remove(page, "exp_models", "SLB-", "NB")  # SLB, TAN
    page.locator(".st-key-exp_run button").click()
    page.locator(".st-key-exp_curve .js-plotly-plot").wait_for(timeout=LONG)
    wait_idle(page, timeout_s=LONG / 1000)
    page.locator(".st-key-noise_source [data-testid='stRadioOption']").nth(1).click()
    wait_idle(page, quiet_s=1.0)  # the synthetic design above, not Sonar
    _remove(page, "noise_models", "DISCRETE", "SVM(linear)")  # SLB, NB
    _remove(page, "noise_probs", "0.4", "0.3", "0.2")  # 0.0, 0.1
    page.locator(".st-key-noise_run button").click()
    page.locator(".st-key-noise_fig .js-plotly-plot").wait_for(timeout=LONG)
    expect(page.locator(".st-key-noise_fig")).to_contain_text("forest-")  # the design's name
    wait_idle(page, timeout_s=LONG / 1000)
    page.wait_for_timeout(1000)  # plotly's last relayout


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_experiments_page_is_readable_and_accessible(server, width, height):
    from axe_playwright_python.sync_playwright import Axe
    from playwright.sync_api import expect

    tag = f"experiments-{width}x{height}"
    with chromium() as browser:
        ctx, page = new_page(browser, {"width": width, "height": height}, LONG)
        page.goto(server.url + "/experiments?source=bundled&dataset=sonar&repeats=1")
        page.locator(".st-key-exp_run button").wait_for()
        wait_idle(page)
        try:
            run_small_experiments(page)
        finally:  # what the page showed, also when a step failed
            page.screenshot(path=str(artifacts_dir() / f"{tag}-run.png"), full_page=True)
        expect(page.get_by_test_id("stException")).to_have_count(0)
        sidebar = page.get_by_test_id("stSidebar")
        assert sidebar.is_visible() and sidebar.bounding_box()["width"] > 150  # open

        for k, chart in enumerate(page.locator(".js-plotly-plot").all()):
            chart.scroll_into_view_if_needed()
            page.wait_for_timeout(300)
            chart.screenshot(path=str(artifacts_dir() / f"{tag}-{k}.png"))
        figs = page.evaluate(MEASURE_JS)
        captions = page.evaluate(CONTRAST_JS)
        cut = page.evaluate(TRUNCATED_JS)
        axe = Axe().run(page).response
        page.screenshot(path=str(artifacts_dir() / f"{tag}.png"), full_page=True)
        (artifacts_dir() / f"{tag}.json").write_text(
            json.dumps({"figures": figs, "captions": captions, "axe": axe["violations"]}, indent=1),
            encoding="utf-8",
        )
        ctx.close()

    assert EXPECTED_KEYS <= {f["key"] for f in figs}, [f["key"] for f in figs]
    found = {
        "figures": problems(figs),
        "captions below 4.5:1": [c for c in captions if c["ratio"] < 4.5],
        "cut select boxes": cut,
        "axe": serious(axe),
    }
    assert not any(found.values()), json.dumps(found, indent=1, ensure_ascii=False)


def test_the_selection_is_readable_in_full_at_1024_before_run(server):
    """H37: at 1024 px the multiselects cut their chips ("SLB × TA…", "200 × 40…", the fourth
    label-noise classifier DISCRETE out of sight) and the checkbox read "Bayes error line
    (M…": a caption under the selections lists all of it, and no checkbox label is cut.  H39:
    chosen items still hid; the selections are pills, every one whole and on screen."""
    from test_browser_a11y import CUT_JS

    with chromium() as browser:
        ctx, page = new_page(browser, {"width": 1024, "height": 768}, LONG)
        page.goto(server.url + "/experiments?source=bundled&dataset=sonar&repeats=1")
        page.locator(".st-key-exp_run button").wait_for()
        wait_idle(page)
        cut = page.evaluate(CUT_JS, '[data-testid="stMain"] [data-testid="stCheckbox"] *')
        # H39: the multiselects still hid chosen items; every pill is whole and on screen
        pills = ", ".join(
            f".st-key-{k} button, .st-key-{k} button *"
            for k in ("exp_grid", "exp_models", "noise_models", "noise_probs")
        )
        cut += page.evaluate(CUT_JS, pills)
        chosen = page.evaluate(
            """(sel) => [...document.querySelectorAll(sel)]
                 .filter(b => b.getAttribute('aria-pressed') === 'true')
                 .map(b => { const r = b.getBoundingClientRect();
                             return [b.innerText, r.left >= 0 && r.right <= innerWidth
                                     && r.width > 0]; })""",
            ", ".join(f".st-key-{k} button" for k in ("exp_models", "noise_models")),
        )
        runs = [
            t.replace("\\", "")
            for t in page.get_by_test_id("stCaptionContainer").all_inner_texts()
            if t.startswith("Will run:")
        ]
        page.screenshot(path=str(artifacts_dir() / "experiments-selection-1024.png"))
        ctx.close()
    assert not cut, cut
    assert sorted(t for t, _ in chosen) == sorted(
        ["SLB", "TAN", "NB", "SLB-", "SLB", "NB", "SVM(linear)", "DISCRETE"]
    ), chosen
    assert all(whole for _, whole in chosen), chosen
    assert "Will run: SLB, SLB-, TAN, NB at n = 200, 400, 600." in runs, runs
    assert any("DISCRETE at p = 0, 0.1, 0.2, 0.3, 0.4." in t for t in runs), runs
