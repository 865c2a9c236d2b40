"""The dashboard in a real browser (issue 3): ``streamlit run app.py`` driven by Debian's
headless Chromium through Playwright.

One user session: open the app, upload a bad file (an error message, no traceback) and a .json
(refused by the widget), upload a CSV through the real file widget, move λ on Dependencies with
the keyboard, visit Densities, Compare (wait for the BER chart and table), Explain and
Experiments (without running one).  Every page must show the uploaded data's n and d in the
sidebar and no exception box.  Screenshots of every page and the server's
log go to ``test-artifacts/``.

Widget keys relied on (``.st-key-<key>`` classes in the page): ``data_source``,
``upload_file``, ``dep_lambda``, ``cmp_lambda``, ``cmp_ber_bars``, ``dens_figure``,
``explain_figure``, ``exp_run``; page links are found by their titles in the sidebar navigation.
"""

from __future__ import annotations

import re
import time
from contextlib import contextmanager
from functools import partial

import browser_support
import pytest
from browser_support import (
    artifacts_dir,
    browser_fixture,
    needs_browser,
    new_page,
    server_fixture,
    synthetic_csv,
)

from dashboard.data import SOURCES

pytestmark = [pytest.mark.browser, pytest.mark.slow, needs_browser]

LONG = 240_000  # ms: Compare fits several classifiers; CI machines are slow and shared
N, D = 240, 6  # the uploaded table (Sonar, the default, has n = 208, d = 60)
NAME = "clinic_browser_test.csv"


wait_idle = partial(browser_support.wait_idle, timeout_s=240.0, quiet_s=1.0)


def assert_no_exception(page, where: str) -> None:
    from playwright.sync_api import expect

    expect(page.get_by_test_id("stException"), f"exception box on {where}").to_have_count(0)
    body = page.get_by_test_id("stMain").inner_text()
    assert "Traceback" not in body, f"a traceback is shown on {where}"


def goto_page(page, title: str) -> None:
    """Click the page's link in the sidebar navigation (a new URL would start a new session)."""
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title).click()
    path = "" if title == "Data" else title.lower()
    # (?data=upload: the tab's upload mark, dashboard.state.URL_MARK)
    page.wait_for_url(re.compile(r"127\.0\.0\.1:\d+/" + path + r"(\?.*)?$"), timeout=LONG)


def shot(page, name: str) -> None:
    """Screenshot of the whole page (Streamlit scrolls inside its main area, not the window)."""
    size = page.viewport_size
    height = page.get_by_test_id("stMain").evaluate("e => e.scrollHeight")
    page.set_viewport_size({"width": size["width"], "height": min(max(height, 600), 8000)})
    page.wait_for_timeout(500)  # let the charts redraw at the new size
    try:
        page.screenshot(path=str(artifacts_dir() / name), full_page=True)
    finally:
        page.set_viewport_size(size)


@contextmanager
def shot_on_failure(ctx, page, name: str):
    """Run a test's steps; on any failure screenshot the page as ``name``; close ``ctx``."""
    try:
        yield
    except BaseException:
        shot(page, name)
        raise
    finally:
        ctx.close()


server = server_fixture("browser-server.log")


browser = browser_fixture()


def test_upload_lambda_and_compare_in_chromium(server, browser, tmp_path):
    from playwright.sync_api import expect

    for old in artifacts_dir().glob("browser-*.png"):
        old.unlink()
    csv = synthetic_csv(tmp_path / NAME, N, D, seed=11)
    bad = tmp_path / "picture.csv"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(300))

    ctx, page = new_page(browser, {"width": 1400, "height": 1000}, LONG)
    with shot_on_failure(ctx, page, "browser-failure.png"):
        page.goto(server.url)
        sidebar = page.get_by_test_id("stSidebar")
        expect(sidebar).to_contain_text("n = 208 rows · d = 60 features", timeout=LONG)
        wait_idle(page)
        assert_no_exception(page, "the first page")

        # --- Data: a bad file first (a reason, no traceback), then the CSV ---------------------
        page.locator(".st-key-data_source").get_by_text(SOURCES["upload"]).click()
        file_input = page.locator('.st-key-upload_file input[type="file"]')
        file_input.wait_for(state="attached")
        file_input.set_input_files(str(bad))
        error = page.get_by_test_id("stAlertContentError")
        expect(error).to_contain_text("PNG image", timeout=LONG)
        expect(sidebar).to_contain_text("n = 208 rows · d = 60 features")  # still Sonar
        wait_idle(page)
        assert_no_exception(page, "the Data page after a bad upload")
        shot(page, "browser-0-data-bad-upload.png")

        # a type the uploader does not accept is refused by the widget itself
        json_file = tmp_path / "table.json"
        json_file.write_text('{"x": [1, 2]}')
        file_input.set_input_files(str(json_file))
        expect(page.locator(".st-key-upload_file")).to_contain_text("not allowed")
        expect(sidebar).to_contain_text("n = 208 rows · d = 60 features")
        assert_no_exception(page, "the Data page after a .json upload")

        file_input.set_input_files(str(csv))
        expect(sidebar).to_contain_text(f"Data: {NAME}", timeout=LONG)
        expect(sidebar).to_contain_text(f"n = {N} rows · d = {D} features")
        expect(error).to_have_count(0)
        metrics = page.get_by_test_id("stMetric")
        expect(metrics.filter(has_text="rows n")).to_contain_text(str(N))
        expect(metrics.filter(has_text="features d")).to_contain_text(str(D))
        wait_idle(page)
        assert_no_exception(page, "the Data page")
        shot(page, "browser-1-data.png")

        # --- Dependencies: move λ with the keyboard --------------------------------------------
        goto_page(page, "Dependencies")
        slider = live_lambda(page)
        slider.wait_for(state="attached")
        wait_idle(page)
        expect(sidebar).to_contain_text(f"n = {N} rows · d = {D} features")
        k0 = int(slider.input_value())
        kept0 = int(re.search(r"(\d+) / \d+ pairs kept", sidebar.inner_text()).group(1))
        assert live_lambda_shown(slider)[1] == kept0
        slider.focus()
        # 15 pairs: 16 positions (the distinct scores, then ∞), the default λ near the top;
        # one large step down (a tenth of the positions) and one small one: a smaller λ
        slider.press("PageDown")
        slider.press("ArrowLeft")
        expect(slider).not_to_have_value(str(k0))
        wait_idle(page)
        assert int(slider.input_value()) < k0
        lam1, shown1 = live_lambda_shown(slider)
        expect(sidebar).to_contain_text(f"λ = {lam1} (by value)")
        kept1 = int(re.search(r"(\d+) / \d+ pairs kept", sidebar.inner_text()).group(1))
        assert kept1 == shown1 > kept0  # every position keeps another set of pairs
        expect(page.get_by_test_id("stMetric").filter(has_text="pairs kept")).to_contain_text(
            re.compile(rf"(?<!\d){kept1}\s*of {D * (D - 1) // 2}\b")
        )
        page.locator(".st-key-dep_pair_graph .js-plotly-plot").wait_for()
        assert_no_exception(page, "Dependencies")
        shot(page, "browser-2-dependencies.png")

        # --- Densities ------------------------------------------------------------------------
        goto_page(page, "Densities")
        page.locator(".st-key-dens_figure .js-plotly-plot").wait_for()
        wait_idle(page)
        expect(sidebar).to_contain_text(f"n = {N} rows · d = {D} features")
        assert_no_exception(page, "Densities")
        shot(page, "browser-3-densities.png")

        # --- Compare: the BER chart and table of SLB, TAN and NB at the λ set above ------------
        goto_page(page, "Compare")
        chart = page.locator(".st-key-cmp_ber_bars .js-plotly-plot")
        chart.wait_for()
        wait_idle(page)
        ticks = chart.locator(".xtick text").all_text_contents()
        assert {"SLB", "TAN", "NB"} <= set(ticks), ticks
        table = page.get_by_test_id("stDataFrame").filter(has_text="mean BER (%)").first
        cells = [c.strip() for c in table.locator('[role="gridcell"]').all_text_contents()]
        assert {"SLB", "TAN", "NB"} <= set(cells), cells
        cmp_slider = page.locator('.st-key-cmp_lambda input[type="range"]')
        # λ set on Dependencies is the one compared (Compare's st.select_slider shows the same)
        assert live_lambda_shown(cmp_slider) == (lam1, kept1)
        expect(sidebar).to_contain_text(f"n = {N} rows · d = {D} features")
        expect(page.get_by_test_id("stMain")).to_contain_text(f"Data: {NAME}.")
        assert_no_exception(page, "Compare")
        shot(page, "browser-4-compare.png")

        # --- Explain ---------------------------------------------------------------------------
        goto_page(page, "Explain")
        page.locator(".st-key-explain_figure .js-plotly-plot").wait_for()
        wait_idle(page)
        expect(sidebar).to_contain_text(f"n = {N} rows · d = {D} features")
        assert_no_exception(page, "Explain")
        shot(page, "browser-5-explain.png")

        # --- Experiments (nothing runs until "Run" is pressed: only the page is checked) -----
        goto_page(page, "Experiments")
        page.locator(".st-key-exp_run button").wait_for()
        wait_idle(page)
        expect(sidebar).to_contain_text(f"n = {N} rows · d = {D} features")
        assert_no_exception(page, "Experiments")
        shot(page, "browser-6-experiments.png")

        # --- back on Data: still the uploaded table --------------------------------------------
        goto_page(page, "Data")
        expect(metrics.filter(has_text="rows n")).to_contain_text(str(N))
        assert_no_exception(page, "the Data page (again)")

    problems = server.log_problems()
    assert not problems, "server log:\n" + server.log_text()


# --- issue 13: controls beside their pictures, outlines that match, a truthful curve -------------
def plot_state(page, key: str, nth: int = 0) -> dict:
    """The layout.meta and the outline path(s) of a chart, read from plotly's own graph div."""
    sel = f".st-key-{key} .js-plotly-plot"
    page.locator(sel).nth(nth).wait_for()
    return page.evaluate(
        """([sel, nth]) => {
            const el = document.querySelectorAll(sel)[nth];
            const paths = (el.layout.shapes || []).filter(s => s.type === "path");
            const bars = (el.data || []).filter(t => t.type === "bar");
            return {meta: el.layout.meta, paths: paths.map(s => s.path),
                    bars: bars.map(t => ({x: t.x, y: t.y}))};
        }""",
        [sel, nth],
    )


def kept_shown(page) -> int:
    metric = page.get_by_test_id("stMetric").filter(has_text="pairs kept")
    return int(re.search(r"(\d+)\s+of \d+", metric.inner_text()).group(1))


def live_lambda(page):
    """The ``<input type=range>`` of Dependencies' live λ slider (a Components v2 component: in
    the page, under a shadow root that Playwright's CSS locators pierce).  Its value is the
    position among the distinct kept sets; ``aria-valuetext`` says λ and the pairs kept."""
    return page.locator('.st-key-dep_lambda input[type="range"]')


def live_lambda_shown(slider) -> tuple[str, int]:
    """(λ as the slider shows it, pairs kept) from "λ = 0.01234 · 45 of 1770 pairs kept" (the
    live slider) or "λ = 0.01234 · 45 pairs" (the select slider of Compare and Surface)."""
    m = re.fullmatch(
        r"λ = (.+?) · (\d+)(?: of \d+ pairs kept| pairs?)",
        slider.get_attribute("aria-valuetext") or "",
    )
    assert m, slider.get_attribute("aria-valuetext")
    return m.group(1), int(m.group(2))


def inside_viewport(page, key: str) -> bool:
    box = page.locator(f".st-key-{key}").first.bounding_box()
    view = page.viewport_size
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= view["height"]


def open_dependencies(browser, server, width: int, height: int):
    """A new visitor's Dependencies page at ``width`` x ``height``, drawn and idle:
    (context, page, live λ slider)."""
    ctx, page = new_page(browser, {"width": width, "height": height}, LONG)
    page.goto(server.url + "/dependencies")
    slider = live_lambda(page)
    slider.wait_for(state="attached")
    page.locator(".st-key-dep_pair_graph .js-plotly-plot").wait_for()
    page.locator(".st-key-dep_heatmap_- .js-plotly-plot").wait_for()
    wait_idle(page, quiet_s=2.0)
    return ctx, page, slider


def open_ber_curve(page, where: str):
    """Switch Compare's BER curve on and read it: (its graph element, the SLB bar in %, the
    curve's layout.meta)."""
    page.locator(".st-key-cmp_curve_on label").click()  # the curve is drawn on demand
    curve_el = page.locator(".st-key-cmp_ber_curve .js-plotly-plot")
    curve_el.wait_for(timeout=600_000)
    wait_idle(page, timeout_s=600)
    assert_no_exception(page, where)
    bars = plot_state(page, "cmp_ber_bars")["bars"][0]
    slb_bar = dict(zip(bars["x"], bars["y"], strict=True))["SLB"]
    return curve_el, slb_bar, plot_state(page, "cmp_ber_curve")["meta"]


def test_dependencies_layout_outlines_and_ber_curve(server, browser):
    ctx, page, slider = open_dependencies(browser, server, 1440, 900)
    with shot_on_failure(ctx, page, "browser-failure-dependencies.png"):
        assert_no_exception(page, "Dependencies")
        # the λ control and the pair graph it moves are both on the first screen
        assert inside_viewport(page, "dep_lambda") and inside_viewport(page, "dep_pair_graph")
        page.screenshot(path=str(artifacts_dir() / "browser-dependencies-1440.png"))

        k0, (_, kept0) = int(slider.input_value()), live_lambda_shown(slider)
        slider.focus()
        # the positions are Sonar's 1770 distinct scores, then ∞, the default λ (the 90 %
        # quantile) at about 1593: twenty steps up keep about 20 pairs fewer
        for _ in range(20):
            slider.press("ArrowRight")
        sidebar = page.get_by_test_id("stSidebar")
        lam1, deadline = None, time.monotonic() + 180
        while time.monotonic() < deadline and lam1 is None:
            # settled: the app has rerun for the slider's value and the value no longer moves
            wait_idle(page, quiet_s=2.0)
            k, (v, _) = int(slider.input_value()), live_lambda_shown(slider)
            if k != k0 and f"λ = {v} (by value)" in sidebar.inner_text():
                wait_idle(page, quiet_s=2.0)
                lam1 = v if int(slider.input_value()) == k else None
        assert lam1 is not None and int(slider.input_value()) == k0 + 20
        wait_idle(page)
        n_kept = kept_shown(page)
        assert n_kept == live_lambda_shown(slider)[1] < kept0
        heat = plot_state(page, "dep_heatmap_-", 0)  # "+" is "-" in Streamlit's class name
        assert heat["meta"]["kind"] == "dependence_heatmap"
        n_squares = sum(p.count("M") for p in heat["paths"])
        assert heat["meta"]["n_outlined"] == n_squares == n_kept > 0
        assert plot_state(page, "dep_pair_graph")["meta"]["n_edges"] == n_kept

        # clicking a graph edge opens that pair's bivariate density below
        sel = ".st-key-dep_pair_graph .js-plotly-plot"
        point = page.evaluate(
            """(sel) => {
                const el = document.querySelector(sel), xa = el._fullLayout.xaxis,
                    ya = el._fullLayout.yaxis, r = el.getBoundingClientRect();
                const t = el._fullData.find(t => t.name === "pair hover");
                return {x: r.left + xa._offset + xa.l2p(t.x[0]),
                        y: r.top + ya._offset + ya.l2p(t.y[0]), pair: t.customdata[0]};
            }""",
            sel,
        )
        page.mouse.move(point["x"], point["y"])
        page.mouse.click(point["x"], point["y"])
        page.locator(".st-key-dep_pair_density .js-plotly-plot").wait_for()
        wait_idle(page)
        assert_no_exception(page, "Dependencies after a click on an edge")
        names = [f"band_{int(i) + 1}" for i in point["pair"]]  # Sonar's columns band_1..band_60
        heading = page.get_by_test_id("stHeading").filter(has_text="Bivariate density of")
        assert heading.inner_text().strip() == f"Bivariate density of {names[0]} × {names[1]}"

        # --- Compare: the exact BER curve at the current λ is the bar's SLB value -----------
        goto_page(page, "Compare")
        page.locator(".st-key-cmp_ber_bars .js-plotly-plot").wait_for()
        wait_idle(page)
        shown = live_lambda_shown(page.locator('.st-key-cmp_lambda input[type="range"]'))[0]
        assert shown == lam1
        curve_el, slb_bar, meta = open_ber_curve(page, "Compare with the BER curve")
        lam1 = meta["current"]["threshold"]  # the exact λ (the slider shows 4 digits)
        assert f"{lam1:.4g}" == shown
        steps = meta["steps"]
        # the step holding λ: threshold[k - 1] < λ <= threshold[k], read independently here
        k = next(i for i, t in enumerate(steps["threshold"]) if lam1 <= t)
        assert k == 0 or steps["threshold"][k - 1] < lam1
        assert 100 * steps["ber"][k] == pytest.approx(slb_bar, abs=1e-9)
        assert 100 * meta["current"]["curve_ber"] == pytest.approx(slb_bar, abs=1e-9)
        assert meta["range"][0] <= lam1 <= meta["range"][1]
        assert max(steps["threshold"]) <= meta["range"][1]  # clipped to the slider's range
        curve_el.scroll_into_view_if_needed()
        curve_el.screenshot(path=str(artifacts_dir() / "browser-compare-ber-curve-moved-1440.png"))


def test_dependencies_heatmap_cell_hover_and_click(server, browser):
    """Issue 14: the heatmap's hover/click points are not drawn (one SVG node, not 3,540), yet
    hovering any cell (here one below the diagonal) names its pair, and a click opens it."""
    ctx, page, _ = open_dependencies(browser, server, 1440, 900)
    sel = ".st-key-dep_heatmap_- .js-plotly-plot"  # class "+" ("+" is "-" in the class name)
    with shot_on_failure(ctx, page, "browser-failure-heatmap-click.png"):
        nodes = page.evaluate(
            "(sel) => document.querySelectorAll(sel + ' .scatterlayer path.point').length", sel
        )
        assert nodes <= 1, f"{nodes} marker nodes drawn: the click points cost the browser again"
        page.locator(sel).scroll_into_view_if_needed()  # under the pair graph (issue 28)
        page.wait_for_timeout(500)
        row, col = 40, 2  # display order, below the diagonal, away from the mode bar
        cell = page.evaluate(
            """([sel, row, col]) => {
                const el = document.querySelector(sel), xa = el._fullLayout.xaxis,
                    ya = el._fullLayout.yaxis, r = el.getBoundingClientRect();
                const t = el._fullData.find(t => t.name === "cells"), d = el._fullData[0].x.length;
                const k = row * (d - 1) + col - (col > row ? 1 : 0);  // row-major, no diagonal
                return {x: r.left + xa._offset + xa.c2p(col), y: r.top + ya._offset + ya.c2p(row),
                        xname: t.x[k], yname: t.y[k], gridx: el._fullData[0].x[col],
                        gridy: el._fullData[0].y[row]};
            }""",
            [sel, row, col],
        )
        assert (cell["yname"], cell["xname"]) == (cell["gridy"], cell["gridx"])  # that cell
        pair = f"{cell['yname']} × {cell['xname']}"
        page.mouse.move(cell["x"], cell["y"])
        hover, deadline = "", time.monotonic() + 60
        while pair not in hover and time.monotonic() < deadline:
            page.wait_for_timeout(100)
            hover = page.evaluate(
                "(sel) => (document.querySelector(sel + ' .hoverlayer') || {}).textContent", sel
            )
        assert hover and hover.startswith(pair) and "p-value" in hover, hover
        page.mouse.click(cell["x"], cell["y"])
        page.locator(".st-key-dep_pair_density .js-plotly-plot").wait_for()
        wait_idle(page)
        assert_no_exception(page, "Dependencies after a click on a heatmap cell")
        heading = page.get_by_test_id("stHeading").filter(has_text="Bivariate density of")
        assert heading.inner_text().strip() == f"Bivariate density of {pair}"


def open_compare(browser, server):
    """A new visitor's Compare page at 1440x900, its charts drawn and the app idle:
    (context, page)."""
    ctx, page = new_page(browser, {"width": 1440, "height": 900}, LONG)
    page.goto(server.url + "/compare")
    page.locator(".st-key-cmp_ber_bars .js-plotly-plot").wait_for()
    page.locator(".st-key-cmp_coef .js-plotly-plot").wait_for()
    wait_idle(page, quiet_s=2.0)
    return ctx, page


def test_ber_curve_at_the_default_lambda(server, browser):
    """A new visitor's Compare page: the curve is computed around the default λ first, so the
    star is on a computed step and equals the SLB bar without pressing anything."""
    ctx, page = open_compare(browser, server)
    with shot_on_failure(ctx, page, "browser-failure-ber-curve-default.png"):
        shown = live_lambda_shown(page.locator('.st-key-cmp_lambda input[type="range"]'))[0]
        assert "(by value)" in page.get_by_test_id("stSidebar").inner_text()
        where = "Compare with the BER curve at the default λ"
        curve_el, slb_bar, meta = open_ber_curve(page, where)
        steps = meta["steps"]
        lam = meta["current"]["threshold"]  # the exact λ (the slider shows 4 digits)
        assert f"{lam:.4g}" == shown
        assert not any(a < lam < b for a, b in meta["uncomputed"])  # not in a grey band
        # the step holding λ: threshold[k - 1] < λ <= threshold[k], read independently here
        k = next(i for i, t in enumerate(steps["threshold"]) if lam <= t)
        assert k > 0 and steps["threshold"][k - 1] < lam
        assert 100 * steps["ber"][k] == pytest.approx(slb_bar, abs=1e-9)
        assert 100 * meta["current"]["curve_ber"] == pytest.approx(slb_bar, abs=1e-9)
        assert 100 * meta["current"]["marker_ber"] == pytest.approx(slb_bar, abs=1e-9)
        curve_el.scroll_into_view_if_needed()
        curve_el.screenshot(path=str(artifacts_dir() / "browser-compare-ber-curve-1440.png"))


def test_compare_lambda_move_reruns_the_page_fragment(server, browser):
    """Compare is one fragment: moving λ or the bandwidth reruns only the page, and the
    sidebar's λ and bandwidth lines (drawn by the app's setup) still follow."""
    ctx, page = open_compare(browser, server)
    with shot_on_failure(ctx, page, "browser-failure-compare-fragment.png"):
        sidebar = page.get_by_test_id("stSidebar")
        slider = page.locator('.st-key-cmp_lambda input[type="range"]')
        k0, n_terms0 = (
            int(slider.input_value()),
            plot_state(page, "cmp_coef")["meta"]["n_terms"],
        )
        slider.focus()
        # one position up (one pair fewer). Not PageUp: it moves a tenth of the 1,771
        # positions, which from the default (177 pairs kept) lands on λ = ∞.
        slider.press("ArrowRight")
        k1, deadline = k0, time.monotonic() + 180
        while time.monotonic() < deadline and k1 == k0:
            wait_idle(page, quiet_s=1.5)
            k1 = int(slider.input_value())
        wait_idle(page, quiet_s=2.0)
        assert_no_exception(page, "Compare after a λ move")
        shown = live_lambda_shown(slider)[0]
        assert k1 > k0
        assert f"λ = {shown} (by value)" in sidebar.inner_text()
        assert f"SLB at λ = {shown} keeps" in page.get_by_test_id("stMain").inner_text()
        assert (
            f"SLB fitted on all 208 rows at λ = {shown}"
            in page.get_by_test_id("stMain").inner_text()
        )
        assert plot_state(page, "cmp_coef")["meta"]["n_terms"] < n_terms0  # larger λ, fewer pairs

        # the bandwidth multiplier (a control of the same fragment) reaches the sidebar too
        assert "bandwidth Scott × 1" in sidebar.inner_text()
        mult = page.locator('.st-key-cmp_bw_mult input[type="range"]')
        mult.focus()
        mult.press("ArrowRight")
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and "× 1.05" not in sidebar.inner_text():
            wait_idle(page, quiet_s=1.5)
        assert "bandwidth Scott × 1.05" in sidebar.inner_text()
        wait_idle(page, quiet_s=2.0)
        assert_no_exception(page, "Compare after a bandwidth move")


# --- issue 13: the figures follow λ while the slider is dragged; 1024x768 fits --------------
def outlined_now(page) -> int | None:
    """The shown heatmap's outlined-cell count (None while it is being redrawn)."""
    return page.evaluate(
        """() => {
            const el = document.querySelector(".st-key-dep_heatmap_- .js-plotly-plot");
            return el && el.layout && el.layout.meta ? el.layout.meta.n_outlined : null;
        }"""
    )


def test_dependencies_live_slider_drag_at_1024(server, browser):
    from playwright.sync_api import expect

    ctx, page, slider = open_dependencies(browser, server, 1024, 768)
    with shot_on_failure(ctx, page, "browser-failure-live-slider.png"):
        assert_no_exception(page, "Dependencies at 1024x768")
        # the λ control and the pair graph it moves are both on the first screen, no sideways
        # scrolling
        assert inside_viewport(page, "dep_lambda") and inside_viewport(page, "dep_pair_graph")
        widths = page.evaluate(
            "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert widths[0] <= widths[1], widths
        page.screenshot(path=str(artifacts_dir() / "browser-dependencies-1024.png"))

        # drag the thumb to the right with the button held: the heatmap follows before release
        n0, k0 = outlined_now(page), int(slider.input_value())
        assert n0 == kept_shown(page) == live_lambda_shown(slider)[1] > 0
        box = slider.bounding_box()
        lo, hi = float(slider.get_attribute("min")), float(slider.get_attribute("max"))
        x = box["x"] + 8 + (box["width"] - 16) * (k0 - lo) / (hi - lo)  # the thumb's centre
        y = box["y"] + box["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        # the positions are the distinct pair scores (one a kept set): the default λ, the 90 %
        # quantile, sits at about 90 % of the width, and 5 % of the width more keeps about
        # half as many pairs; five moves of 1 %
        for step in range(1, 6):
            page.mouse.move(x + step * 0.01 * box["width"], y, steps=3)
            page.wait_for_timeout(100)  # a person's pace; the test waits on the page below
        changed, deadline = None, time.monotonic() + 180
        while changed is None and time.monotonic() < deadline:
            n = outlined_now(page)
            changed = n if n is not None and n != n0 else None
            page.wait_for_timeout(100)
        moving = int(slider.input_value())
        page.mouse.up()
        assert changed is not None, "the heatmap did not change while the slider was held"
        assert moving > k0

        # after release: λ settles; the outlines, the graph and the count agree with it
        sidebar = page.get_by_test_id("stSidebar")
        lam1, deadline = None, time.monotonic() + 180
        while lam1 is None and time.monotonic() < deadline:
            wait_idle(page, quiet_s=2.0)
            v, _ = live_lambda_shown(slider)
            if f"λ = {v} (by value)" in sidebar.inner_text():
                lam1 = v
        assert lam1 is not None and int(slider.input_value()) > k0
        expect(sidebar).to_contain_text(f"λ = {lam1} (by value)")
        n_kept = kept_shown(page)
        assert n_kept == live_lambda_shown(slider)[1]
        heat = plot_state(page, "dep_heatmap_-")
        assert heat["meta"]["n_outlined"] == sum(p.count("M") for p in heat["paths"]) == n_kept
        assert plot_state(page, "dep_pair_graph")["meta"]["n_edges"] == n_kept
        assert 0 < n_kept < n0
        assert_no_exception(page, "Dependencies after a drag")


def test_back_and_forward_step_through_pages_and_settings(server, browser):
    """The browser's history (H35): one entry per change of settings or page, and Back and
    Forward bring back the settings of the entry they reach (the address is applied, not
    overwritten by the session's newer settings)."""
    from playwright.sync_api import expect

    ctx, page = new_page(browser, {"width": 1024, "height": 768}, LONG)
    with shot_on_failure(ctx, page, "browser-failure-history.png"):
        page.goto(server.url + "/?dataset=pima")
        folds = page.locator(".st-key-n_folds input")
        folds.wait_for()
        wait_idle(page, quiet_s=2.0)
        side = page.get_by_test_id("stSidebar")
        expect(side).to_contain_text("5-fold stratified CV", timeout=LONG)
        start = page.evaluate("history.length")
        folds.fill("4")
        folds.press("Enter")
        page.wait_for_url(re.compile(r"[?&]folds=4(&|$)"), timeout=LONG)
        expect(side).to_contain_text("4-fold stratified CV", timeout=LONG)
        wait_idle(page)
        goto_page(page, "Dependencies")
        wait_idle(page)
        assert "folds=4" in page.url and "/dependencies" in page.url
        assert page.evaluate("history.length") == start + 2  # the settings, then the page

        page.go_back()  # the Data page, 4 folds
        page.wait_for_url(re.compile(r"127\.0\.0\.1:\d+/\?"), timeout=LONG)
        expect(folds).to_have_value("4", timeout=LONG)
        wait_idle(page)
        page.go_back()  # before the change: 5 folds, in the page and in the address
        expect(side).to_contain_text("5-fold stratified CV", timeout=LONG)
        expect(folds).to_have_value("5", timeout=LONG)
        wait_idle(page)
        assert "folds=" not in page.url and "dataset=pima" in page.url
        page.go_forward()
        expect(side).to_contain_text("4-fold stratified CV", timeout=LONG)
        wait_idle(page)
        assert "folds=4" in page.url
        assert_no_exception(page, "the Data page after Back and Forward")


def test_compare_table_shows_the_verdict_and_the_detectable_difference_at_1024(server, browser):
    """H35: at 1024 x 768 with the sidebar open the BER table showed four columns, not the
    "detectable (pp)" its caption explains.  The grid puts only the columns in view into the
    page (the rest are drawn when scrolled to), so their headers say what a reader sees."""
    ctx, page = new_page(browser, {"width": 1024, "height": 768}, LONG)
    with shot_on_failure(ctx, page, "browser-failure-compare-table-1024.png"):
        page.goto(server.url + "/compare")
        page.locator(".st-key-cmp_ber_bars .js-plotly-plot").wait_for()
        table = page.get_by_test_id("stDataFrame").first
        table.wait_for()
        wait_idle(page, quiet_s=2.0)
        assert page.get_by_test_id("stSidebar").is_visible()
        heads = table.evaluate(
            """t => [...t.querySelectorAll('[role="columnheader"]')].map(h => h.innerText)"""
        )
        for col in ("classifier", "mean BER (%)", "sd (%)", "vs best", "detectable (pp)"):
            assert col in heads, heads
