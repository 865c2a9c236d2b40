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
