"""Issue 25 in a real browser: a 3-class CSV uploaded through the real file widget goes through
every page with its three classes kept apart (no merge), and Compare shows a 3 x 3 confusion
matrix.  ``streamlit run app.py`` driven by Debian's headless Chromium through Playwright
(see ``tests/browser_support.py``); every wait is on the page's state (an element, a text,
Streamlit's "running" indicator), never a fixed sleep.

Widget keys relied on (``.st-key-<key>``): ``data_source``, ``upload_file``,
``data_class_balance``, ``dep_heatmap_k0``, ``dep_pair_graph``, ``dens_figure``,
``cmp_confusion_k``, ``cmp_roc_k``, ``explain_scores_k``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from browser_support import (
    CONFUSION_CELL,
    artifacts_dir,
    chromium,
    needs_browser,
    new_page,
    server_fixture,
)

from dashboard.data import SOURCES

pytestmark = [pytest.mark.browser, pytest.mark.slow, needs_browser]

LONG = 300_000  # ms: a busy, shared 2-core machine
NAME = "three_species_browser_test.csv"
SIZES = {"alpha": 50, "beta": 45, "gamma": 40}


def three_class_csv(path) -> str:
    rng = np.random.default_rng(3)
    parts = []
    for k, (name, m) in enumerate(SIZES.items()):
        Z = rng.normal(size=(m, 4)) + np.array([1.2 * k, -k, 0.4 * k, 0.0])
        Z[:, 3] = Z[:, 2] * (1.0 if k == 1 else -1.0) + 0.3 * rng.normal(size=m)
        parts.append(pd.DataFrame(Z.round(5), columns=["a", "b", "c", "e"]).assign(kind=name))
    frame = pd.concat(parts, ignore_index=True).sample(frac=1.0, random_state=1)
    frame.to_csv(path, index=False)
    return str(path)


def wait_idle(page, timeout_s: float = 300.0) -> None:
    """Wait until Streamlit's "running" indicator is gone (polled state, not a fixed time)."""
    status = page.get_by_test_id("stStatusWidget")
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " || document.querySelector('[data-testid=\"stStatusWidget\"]').offsetParent === null",
        timeout=timeout_s * 1000,
    )
    assert status.count() == 0 or not status.first.is_visible()


def goto_page(page, title: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title).click()


def assert_no_exception(page, where: str) -> None:
    from playwright.sync_api import expect

    expect(page.get_by_test_id("stException"), f"exception box on {where}").to_have_count(0)
    assert "Traceback" not in page.get_by_test_id("stMain").inner_text(), where


def meta(page, key: str) -> dict:
    """``layout.meta`` of a chart, read from plotly's own graph div once it is drawn."""
    sel = f".st-key-{key} .js-plotly-plot"
    page.locator(sel).first.wait_for()
    page.wait_for_function(
        "sel => { const el = document.querySelector(sel); return el && el.layout; }", arg=sel
    )
    return page.evaluate("sel => document.querySelector(sel).layout.meta || {}", sel)


server = server_fixture("browser-multiclass-server.log")


def test_three_class_upload_through_every_page(server, tmp_path):
    from playwright.sync_api import expect

    csv = three_class_csv(tmp_path / NAME)
    with chromium() as browser:
        ctx, page = new_page(browser, {"width": 1400, "height": 1000}, LONG)
        try:
            page.goto(server.url)
            sidebar = page.get_by_test_id("stSidebar")
            expect(sidebar).to_contain_text("n = 208 rows", timeout=LONG)
            page.locator(".st-key-data_source").get_by_text(SOURCES["upload"]).click()
            file_input = page.locator('.st-key-upload_file input[type="file"]')
            file_input.wait_for(state="attached")
            file_input.set_input_files(csv)
            expect(sidebar).to_contain_text(f"Data: {NAME}", timeout=LONG)
            expect(sidebar).to_contain_text("3 classes: alpha: 50 · beta: 45 · gamma: 40")
            metrics = page.get_by_test_id("stMetric")
            expect(metrics.filter(has_text="classes K")).to_contain_text("3")
            assert sorted(meta(page, "data_class_balance")["counts"]) == [40, 45, 50]
            assert "all 3 classes" in page.locator(".st-key-positive_class").aria_snapshot()
            wait_idle(page)
            assert_no_exception(page, "Data")
            page.screenshot(path=str(artifacts_dir() / "browser-multiclass-data.png"))

            goto_page(page, "Dependencies")
            page.locator(".st-key-dep_heatmap_k0 .js-plotly-plot").wait_for()  # one at a time
            assert meta(page, "dep_pair_graph")["kind"] == "pair_graph_k"
            expect(sidebar).to_contain_text("3 classes")
            wait_idle(page)
            assert_no_exception(page, "Dependencies")
            page.screenshot(path=str(artifacts_dir() / "browser-multiclass-dependencies.png"))

            goto_page(page, "Densities")
            m = meta(page, "dens_figure")
            assert m["n_classes"] == 3
            wait_idle(page)
            assert_no_exception(page, "Densities")
            page.screenshot(path=str(artifacts_dir() / "browser-multiclass-densities.png"))

            goto_page(page, "Compare")
            cm = meta(page, "cmp_confusion_k")
            counts = np.asarray(cm["counts"])
            assert counts.shape == (3, 3)
            assert counts.sum() % sum(SIZES.values()) == 0
            expect(page.locator(".st-key-cmp_confusion_k")).to_contain_text("3 × 3")
            page.locator(".st-key-cmp_roc_k .js-plotly-plot").wait_for()
            table = page.get_by_test_id("stDataFrame").filter(has_text="mean BER (%)").first
            table.wait_for()
            wait_idle(page)
            assert_no_exception(page, "Compare")
            page.screenshot(path=str(artifacts_dir() / "browser-multiclass-compare.png"))

            goto_page(page, "Explain")
            scores = meta(page, "explain_scores_k")
            assert scores["kind"] == "class_scores" and scores["margin"] >= 0
            expect(metrics.filter(has_text="margin")).to_have_count(1)
            wait_idle(page)
            assert_no_exception(page, "Explain")
            page.screenshot(path=str(artifacts_dir() / "browser-multiclass-explain.png"))
        except BaseException:
            page.screenshot(path=str(artifacts_dir() / "browser-multiclass-failure.png"))
            raise
        finally:
            ctx.close()
    problems = server.log_problems()
    assert not problems, "server log:\n" + server.log_text()


CELL = CONFUSION_CELL


def test_clicking_a_k_class_confusion_cell_lists_its_rows(server):
    """Issue 28 on penguins (3 species): a click on an off-diagonal cell of Compare's 3 x 3
    matrix lists that cell's rows, as many as the cell counts; the selectbox follows."""
    from playwright.sync_api import expect

    chart = ".st-key-cmp_confusion_k .js-plotly-plot"
    with chromium() as browser:
        ctx, page = new_page(browser, {"width": 1440, "height": 900}, LONG)
        try:
            page.goto(server.url + "/compare?source=bundled&dataset=penguins&repeats=1")
            page.locator(chart).wait_for()
            page.get_by_text("predictions of SLB in the cell").wait_for()
            wait_idle(page)
            m = meta(page, "cmp_confusion_k")
            counts, names = np.asarray(m["counts"]), m["classes"]
            assert counts.shape == (3, 3)
            # the listed cell at first: the largest confusion; click another off-diagonal one
            off = np.where(np.eye(3, dtype=bool), -1, counts)
            first = divmod(int(np.argmax(off)), 3)
            off[first] = -1
            row, col = divmod(int(np.argmax(off)), 3)
            page.locator(chart).scroll_into_view_if_needed()
            page.wait_for_timeout(500)  # plotly's layout after the scroll
            cell = page.evaluate(CELL, [chart, row, col])
            assert cell["targets"] == 1 and cell["count"] == counts[row, col]
            page.mouse.move(cell["x"], cell["y"])
            page.mouse.click(cell["x"], cell["y"])
            said = f"in the cell true {names[row]}, predicted {names[col]}"
            caption = page.get_by_text(f"{cell['count']} predictions of SLB {said}")
            expect(caption).to_be_visible()
            wait_idle(page)
            box = page.locator(".st-key-cmp_cell_k").get_by_role("combobox")
            expect(box).to_have_value(f"true {names[row]}, predicted {names[col]}")
            grid = caption.locator(  # the listing: the data frame right after the caption
                "xpath=ancestor::div[@data-testid='stElementContainer'][1]"
                "/following-sibling::div[1]//*[@data-testid='stDataFrame']//table[@role='grid']"
            )
            expect(grid).to_have_attribute("aria-rowcount", str(cell["count"] + 1))  # + header
            assert_no_exception(page, "Compare (penguins)")
        except BaseException:
            page.screenshot(path=str(artifacts_dir() / "browser-multiclass-cell-failure.png"))
            raise
        finally:
            page.screenshot(path=str(artifacts_dir() / "browser-multiclass-cell-click.png"))
            ctx.close()
