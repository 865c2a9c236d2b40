"""The Decision surface page in Chromium at a projector's 1024 x 768 and at 1440 x 900.

With the sidebar open, on Sonar (the default, 60 features) and on the toy XOR data: every
panel's plot area is at least 260 x 200 px and every text of the figure at least 14 px.
Screenshots go to ``test-artifacts/surface-<data>-<width>x<height>.png``.
"""

from __future__ import annotations

from functools import partial

import browser_support
import pytest
from browser_support import artifacts_dir, browser_fixture, needs_browser, new_page, server_fixture

from dashboard.data import SOURCES

pytestmark = [pytest.mark.browser, pytest.mark.slow, needs_browser]

LONG = 240_000  # ms: a busy 2-core machine
SIZES = [(1024, 768), (1440, 900)]

#: Each plotly figure's plot areas (its drag rectangles), its smallest text and its width.
MEASURE = """() => [...document.querySelectorAll('.js-plotly-plot')].map(p => ({
  areas: [...p.querySelectorAll('.nsewdrag')].map(r => {
    const b = r.getBoundingClientRect(); return [b.width, b.height]; }),
  fonts: [...p.querySelectorAll('text')].filter(t => t.textContent.trim())
    .map(t => parseFloat(getComputedStyle(t).fontSize)),
}))"""


wait_idle = partial(browser_support.wait_idle, timeout_s=240.0, quiet_s=1.5)


server = server_fixture("browser-surface-server.log", env={"SLB_WARMUP": "0"})


browser = browser_fixture()


@pytest.mark.parametrize("width, height", SIZES)
@pytest.mark.parametrize("data", ["sonar", "xor"])
def test_surface_readable(server, browser, data, width, height):
    from playwright.sync_api import expect

    ctx, page = new_page(browser, {"width": width, "height": height}, LONG)
    name = f"surface-{data}-{width}x{height}.png"
    try:
        page.goto(server.url)
        page.wait_for_selector(".js-plotly-plot", timeout=LONG)
        wait_idle(page)
        if data == "xor":  # the Toy 2-D source (XOR is its default)
            page.locator(".st-key-data_source").get_by_text(SOURCES["toy"]).click()
            expect(page.get_by_test_id("stSidebar")).to_contain_text("toy xor", timeout=LONG)
            wait_idle(page)
        page.get_by_test_id("stSidebarNav").get_by_role("link", name="Decision surface").click()
        page.wait_for_selector(".js-plotly-plot .nsewdrag", timeout=LONG)
        wait_idle(page)
        page.wait_for_timeout(1000)  # plotly's layout after the last rerun
        expect(page.get_by_test_id("stException")).to_have_count(0)
        expect(page.get_by_test_id("stSidebar")).to_be_visible()
        figures = page.evaluate(MEASURE)
        assert len(figures) == 1, figures
        fig = figures[0]
        assert len(fig["areas"]) == 3  # SLB, NB, TAN
        for w, h in fig["areas"]:
            assert w >= 260 and h >= 200, fig["areas"]
        assert fig["fonts"] and min(fig["fonts"]) >= 14, sorted(fig["fonts"])[:5]
    finally:
        page.screenshot(path=str(artifacts_dir() / name))
        ctx.close()
    assert not [ln for ln in server.log_problems() if "surface" in ln.lower()]
