"""Compare in Chromium: a click on a cell of the operating point's confusion matrix lists that
cell's rows (issue 28), and the keyboard's selectbox follows the click.

Synthetic data (200 rows, 6 features, one repeat of 3-fold CV) keeps the page quick; the test
waits on the page's state (the caption of the listing), never on a fixed time.  A screenshot
goes to ``test-artifacts/browser-compare-cell-click.png``.
"""

from __future__ import annotations

from functools import partial

import browser_support
import pytest
from browser_support import artifacts_dir, chromium, needs_browser, new_page, server_fixture

pytestmark = [pytest.mark.browser, pytest.mark.slow, needs_browser]

LONG = 300_000  # ms: a busy 2-core machine
QUERY = "?source=synthetic&n=200&d=6&repeats=1&folds=3"
CHART = ".st-key-cmp_op_confusion .js-plotly-plot"

CELL = browser_support.CONFUSION_CELL


wait_idle = partial(browser_support.wait_idle, timeout_s=300.0, quiet_s=1.5)


server = server_fixture("browser-cells-server.log", env={"SLB_WARMUP": "0"})


def test_clicking_a_confusion_cell_lists_its_rows(server):
    from playwright.sync_api import expect

    with chromium() as browser:
        ctx, page = new_page(browser, {"width": 1440, "height": 900}, LONG)
        try:
            page.goto(server.url + "/compare" + QUERY)
            page.locator(".st-key-cmp_ber_bars .js-plotly-plot").wait_for(timeout=LONG)
            wait_idle(page)
            page.locator(".st-key-cmp_eval_open summary").click()  # open the evaluation
            page.locator(CHART).wait_for(timeout=LONG)
            wait_idle(page)
            expect(
                page.get_by_text("predictions in the cell true + predicted + (TP)")
            ).to_be_visible()
            for (row, col), name in (
                ((1, 0), "true − predicted + (FP)"),
                ((0, 1), "true + predicted − (FN)"),
            ):
                page.locator(CHART).scroll_into_view_if_needed()
                page.wait_for_timeout(500)  # plotly's layout after the scroll
                cell = page.evaluate(CELL, [CHART, row, col])
                assert cell["targets"] == 1
                page.mouse.move(cell["x"], cell["y"])
                page.mouse.click(cell["x"], cell["y"])
                caption = page.get_by_text(f"{cell['count']} predictions in the cell {name}")
                expect(caption).to_be_visible(timeout=LONG)
                wait_idle(page)
                # the keyboard's fallback shows the clicked cell, and the listing is there
                box = page.locator(".st-key-cmp_op_cell").get_by_role("combobox")
                expect(box).to_have_value(name)
                table = caption.locator(
                    "xpath=ancestor::div[@data-testid='stElementContainer'][1]"
                    "/following-sibling::div[1]//*[@data-testid='stDataFrame']"
                )
                expect(table).to_be_visible()
            expect(page.get_by_test_id("stException")).to_have_count(0)
        finally:
            page.screenshot(path=str(artifacts_dir() / "browser-compare-cell-click.png"))
            ctx.close()
    assert not [ln for ln in server.log_problems() if "cell" in ln.lower()]
