"""Hostile labels in a real browser, and a reload after an upload (issue 15, findings 1, 10).

``streamlit run app.py`` driven by Debian's headless Chromium (Playwright, as
``tests/test_browser.py``).  The upload ``tests/data/hostile_uploads/markdown_labels.csv`` has
class labels ``![p](http://127.0.0.1:9/x.png)`` and ``[neg](http://127.0.0.1:9/)`` and a column
named ``<img src=x onerror=alert(1)>**b**``.  On every page the DOM must hold no ``<img>`` with
that source and no link to ``127.0.0.1:9``, the browser must not request that address, and the
labels must be visible as text.  Then the tab is reloaded: the new session says the upload is
gone.  Every wait is on page state (generous timeouts), never a fixed sleep.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser_support import artifacts_dir, browser_fixture, needs_browser, new_page, server_fixture
from test_browser import LONG, assert_no_exception, goto_page, wait_idle

from dashboard.data import SOURCES
from dashboard.state import LOST_MESSAGE

pytestmark = [pytest.mark.browser, pytest.mark.slow, needs_browser]

CSV = Path(__file__).resolve().parent / "data" / "hostile_uploads" / "markdown_labels.csv"
HOSTILE_HOST = "127.0.0.1:9"
# the labels as text (a zero-width space after "http:" keeps Markdown from linking the URL)
IMG_SHOWN = re.compile(r"\+ !\[p\]\(http:\u200b?//127\.0\.0\.1:9/x\.png\)")
LINK_SHOWN = re.compile(r"− \[neg\]\(http:\u200b?//127\.0\.0\.1:9/\)")


server = server_fixture("browser-safety-server.log")


browser = browser_fixture()


def assert_no_live_markup(page, where: str) -> None:
    from playwright.sync_api import expect

    expect(page.locator(f'img[src*="{HOSTILE_HOST}"]'), f"<img> on {where}").to_have_count(0)
    expect(page.locator(f'a[href*="{HOSTILE_HOST}"]'), f"link on {where}").to_have_count(0)
    expect(page.locator('img[src="x"]'), f"column-name <img> on {where}").to_have_count(0)


def test_hostile_labels_stay_text_in_chromium_and_a_reload_says_the_upload_is_gone(server, browser):
    from playwright.sync_api import expect

    assert CSV.is_file(), CSV
    ctx, page = new_page(browser, {"width": 1400, "height": 1000}, LONG)
    requested = []
    page.on("request", lambda r: requested.append(r.url) if HOSTILE_HOST in r.url else None)
    try:
        page.goto(server.url)
        sidebar = page.get_by_test_id("stSidebar")
        expect(sidebar).to_contain_text("n = 208 rows · d = 60 features", timeout=LONG)
        wait_idle(page)
        page.locator(".st-key-data_source").get_by_text(SOURCES["upload"]).click()
        file_input = page.locator('.st-key-upload_file input[type="file"]')
        file_input.wait_for(state="attached")
        file_input.set_input_files(str(CSV))
        expect(sidebar).to_contain_text("Data: markdown_labels.csv", timeout=LONG)
        metrics = page.get_by_test_id("stMetric")
        expect(metrics.filter(has_text=IMG_SHOWN)).to_have_count(1)
        expect(metrics.filter(has_text=LINK_SHOWN)).to_have_count(1)
        wait_idle(page)
        assert_no_exception(page, "Data")
        assert_no_live_markup(page, "Data")
        page.wait_for_url(re.compile(r"[?&]data=upload"))  # the tab is marked (for a reload)

        waits = {
            "Dependencies": ".st-key-dep_pair_graph .js-plotly-plot",
            "Densities": ".st-key-dens_figure .js-plotly-plot",
            "Compare": ".st-key-cmp_ber_bars .js-plotly-plot",
            "Explain": ".st-key-explain_figure .js-plotly-plot",
            "Experiments": ".st-key-exp_run button",
        }
        for title, selector in waits.items():
            goto_page(page, title)
            page.locator(selector).first.wait_for()
            wait_idle(page)
            expect(sidebar).to_contain_text("Data: markdown_labels.csv")
            assert_no_exception(page, title)
            assert_no_live_markup(page, title)
        expect(sidebar).to_contain_text(IMG_SHOWN)  # shown as text
        assert not requested, requested

        # --- a reload starts a new session: the upload is gone, and the page says so ----------
        page.reload()
        expect(sidebar).to_contain_text(LOST_MESSAGE[:60], timeout=LONG)
        wait_idle(page)
        expect(sidebar).to_contain_text("n = 208 rows · d = 60 features")
        assert_no_exception(page, "Experiments after a reload")
        goto_page(page, "Data")
        page.locator('.st-key-upload_file input[type="file"]').wait_for(state="attached")
        expect(page.get_by_test_id("stMain")).to_contain_text(LOST_MESSAGE[:60])
        assert_no_exception(page, "Data after a reload")
    except BaseException:
        page.screenshot(path=str(artifacts_dir() / "browser-safety-failure.png"), full_page=True)
        raise
    finally:
        ctx.close()
    assert not requested, requested
    problems = server.log_problems()
    assert not problems, "server log:\n" + server.log_text()
