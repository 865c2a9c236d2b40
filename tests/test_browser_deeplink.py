"""A fresh server whose first visitor opens a page's own address (a shared link to Compare):
the sidebar's navigation is the app's (titles and icons), not the ``pages/`` folder's file
names that Streamlit's fallback for such apps shows until ``st.navigation`` has run once in
the process (``dashboard.shell.ensure``)."""

from __future__ import annotations

import re
from functools import partial

import browser_support
import pytest
from browser_support import browser_fixture, needs_browser, new_page, server_fixture

pytestmark = [pytest.mark.browser, pytest.mark.slow, needs_browser]

LONG = 240_000  # ms

server = server_fixture("browser-deeplink-server.log")
browser = browser_fixture()
wait_idle = partial(browser_support.wait_idle, timeout_s=240.0, quiet_s=2.0)


def test_a_first_visitors_link_to_a_page_gets_the_apps_navigation(server, browser):
    from playwright.sync_api import expect

    ctx, page = new_page(browser, {"width": 1024, "height": 768}, LONG)
    try:
        page.goto(server.url + "/compare?source=bundled&dataset=pima&folds=4")
        nav = page.get_by_test_id("stSidebarNav")
        expect(nav.get_by_role("link", name="Decision surface")).to_be_visible(timeout=LONG)
        wait_idle(page)
        links = nav.get_by_role("link").all_inner_texts()
        assert not any(t.strip() in ("app", "compare", "surface") for t in links), links
        expect(page.get_by_role("heading", name="Compare", exact=True)).to_be_visible()
        side = page.get_by_test_id("stSidebar").inner_text()
        assert "pima" in side.lower() and "4-fold stratified CV" in side  # the link's settings
        assert re.search(r"/compare\?.*dataset=pima", page.url)
    finally:
        ctx.close()


def test_a_pair_rule_change_moves_lambda_at_once_everywhere(server, browser):
    """H48: the Dependencies page is a fragment, so its rerun after "dependent in every
    class" skipped the app's λ reset: it showed the old rule's λ snapped (0.01985, 68 pairs),
    and the next page the new rule's default (0.01075, 177 pairs).  Now the page, the address
    and the next page agree at once."""
    ctx, page = new_page(browser, {"width": 1024, "height": 768}, LONG)

    def lam_shown() -> tuple[str, str]:
        body = page.inner_text("body")
        m = re.search(r"λ = ([0-9.]+) \(by value\) · (\d+) / \d+ pairs kept", body)
        assert m, body[:400]
        return m.group(1), m.group(2)

    try:
        page.goto(server.url + "/dependencies?source=bundled&dataset=sonar")
        page.locator(".st-key-dep_pair_graph .js-plotly-plot").first.wait_for()
        wait_idle(page)
        before = lam_shown()
        page.get_by_text("λ settings").first.click()
        browser_support.choose_option(
            page, page.locator(".st-key-dep_pair_rule").first, "dependent in every class"
        )
        page.wait_for_function("() => location.search.includes('pairs=both')", timeout=LONG)
        wait_idle(page)
        page.wait_for_timeout(1000)
        wait_idle(page)
        here = lam_shown()
        assert here != before and here[1] == before[1], (before, here)  # the default's share
        lam_url = re.search(r"lam=([0-9.e-]+)", page.url).group(1)
        assert float(lam_url) == pytest.approx(float(here[0]), rel=1e-3), (lam_url, here)
        page.keyboard.press("Escape")
        page.get_by_test_id("stSidebarNav").get_by_text("Densities").click()
        page.wait_for_function("() => location.pathname.endsWith('/densities')", timeout=LONG)
        wait_idle(page)
        assert lam_shown() == here
    finally:
        ctx.close()


def test_the_feature_columns_box_stays_open_while_columns_are_removed(server, browser):
    """H50: its title counts the chosen columns, so every removal made it a new, closed box;
    it has to stay open for the next removal (keyed: ``features_expander``)."""
    from playwright.sync_api import expect

    ctx, page = new_page(browser, {"width": 1024, "height": 768}, LONG)
    try:
        page.goto(server.url + "/?source=bundled&dataset=pima")
        box = page.locator(".st-key-features_expander")
        expect(box).to_contain_text("8 of 8 chosen", timeout=LONG)
        wait_idle(page)
        box.get_by_text("Feature columns (8 of 8").click()
        chooser = page.locator(".st-key-features input").first
        expect(chooser).to_be_visible(timeout=LONG)
        for left in (7, 6):
            chooser.click()
            page.keyboard.press("Backspace")  # removes the last chosen column
            page.keyboard.press("Escape")
            expect(box).to_contain_text(f"{left} of 8 chosen", timeout=LONG)
            wait_idle(page)
            expect(chooser).to_be_visible(timeout=LONG)  # still open
        assert "cols=" in page.url
    finally:
        ctx.close()
