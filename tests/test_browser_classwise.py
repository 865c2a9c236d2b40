"""The K-class reliability diagram on Compare in Chromium (issue 28): on penguins (3 classes)
at a projector's 1024 x 768 with the sidebar open, its plot area is at least 260 x 200 px and
every text of the figure at least 14 px, as the other figures' readability tests ask.
Screenshot: ``test-artifacts/browser-compare-reliability-k-1024x768.png``.
"""

from __future__ import annotations

import pytest
from browser_support import StreamlitServer, artifacts_dir, chromium, needs_browser, new_page
from test_browser_cells import wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.slow, needs_browser]

LONG = 300_000  # ms: a busy 2-core machine
CHART = ".st-key-cmp_reliability_k .js-plotly-plot"

#: The figure's plot area (its drag rectangle), its texts' sizes and its meta.
MEASURE = """(sel) => { const p = document.querySelector(sel);
  return {
    areas: [...p.querySelectorAll('.nsewdrag')].map(r => {
      const b = r.getBoundingClientRect(); return [b.width, b.height]; }),
    fonts: [...p.querySelectorAll('text')].filter(t => t.textContent.trim())
      .map(t => parseFloat(getComputedStyle(t).fontSize)),
    meta: p.layout.meta,
  }; }"""


def test_k_class_reliability_is_readable_at_1024():
    from playwright.sync_api import expect

    with (
        StreamlitServer("browser-classwise-server.log", env={"SLB_WARMUP": "0"}) as server,
        chromium() as browser,
    ):
        ctx, page = new_page(browser, {"width": 1024, "height": 768}, LONG)
        try:
            page.goto(server.url + "/compare?source=bundled&dataset=penguins&repeats=1")
            page.locator(CHART).wait_for(timeout=LONG)
            wait_idle(page)
            expect(page.get_by_test_id("stSidebar")).to_be_visible()
            page.locator(CHART).scroll_into_view_if_needed()
            page.wait_for_timeout(1000)  # plotly's layout after the scroll
            fig = page.evaluate(MEASURE, CHART)
            expect(page.get_by_test_id("stException")).to_have_count(0)
        finally:
            page.screenshot(
                path=str(artifacts_dir() / "browser-compare-reliability-k-1024x768.png")
            )
            ctx.close()
    assert fig["meta"]["kind"] == "classwise_reliability" and fig["meta"]["classifiers"]
    assert len(fig["areas"]) == 1
    w, h = fig["areas"][0]
    assert w >= 260 and h >= 200, fig["areas"]
    assert fig["fonts"] and min(fig["fonts"]) >= 14, sorted(fig["fonts"])[:5]
