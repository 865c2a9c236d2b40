"""Speed of a λ change on the Compare page, in a real browser (issue 14: "a live Compare").

Starts ``streamlit run app.py`` (Sonar, 5-fold CV repeated 5 times: 25 folds), opens Compare
in Debian's headless Chromium through Playwright, waits until the page is idle, then moves λ
``--moves`` times by the keyboard on the λ slider (one ``PageUp``/``PageDown`` per move,
waiting until the app is idle before the next).  Prints, with the load average:

* browser seconds from the key press to the BER caption showing the new λ ("SLB at λ = …",
  written after SLB's 25 fold fits) and to the coefficient figure showing the new model
  (its ``layout.meta.n_terms``; moves that keep the same terms do not count there);
* browser seconds from the key press to the rerun request leaving the browser (Streamlit's
  slider) and to the server's first message back: the rest of the wait is the server's rerun
  and the browser's drawing;
* server CPU seconds per λ change (``utime + stime`` of the server process from /proc, over
  all the moves, divided by their number): the page's whole rerun, as a user's browser
  triggers it, Streamlit's own work included.

The server-start warm-up is off (``SLB_WARMUP=0``) so that its CPU is not counted; the page's
first visit pays for the cross-validation, and the moves after it are what a user feels.

``--first-visit``: what a class opening Compare waits for.  The warm-up is on; a first visitor
opens the home page (which starts it) and the benchmark waits until the server and its workers
are idle (the warm-up of every bundled dataset done); then two new browser contexts open
Compare, one by loading ``/compare``, one from the home page by the sidebar's link (as a class
does: no page load), and the benchmark prints the seconds until the page shell (the "Compare"
title), the BER numbers, the BER bars and the coefficient figure (plotly), and the app idle.

Usage::

    python benchmarks/compare_live.py             # 8 moves at 1440 x 900
    python benchmarks/compare_live.py --moves 12
    python benchmarks/compare_live.py --first-visit

Measured 2026-11-23 on the shared 2-core machine: see ``benchmarks/README.md`` (issue 14).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT), str(ROOT / "benchmarks")]

from browser_support import StreamlitServer, chromium  # noqa: E402
from dependencies_live import idle, server_cpu  # noqa: E402

SLIDER = '.st-key-cmp_lambda input[type="range"], .st-key-cmp_lambda [role="slider"]'

POLL = r"""() => {
    // when the BER caption's λ and the coefficient figure's term count last changed
    window.__cmp = window.__cmp || {lam: null, tl: 0, terms: null, tt: 0, sent: 0, first: null, last: 0};
    const tick = () => {
        // textContent of the captions only: innerText of the body forced a layout at every
        // frame, and that slowed the very redraw being timed
        let lam = null;
        for (const c of document.querySelectorAll('[data-testid="stCaptionContainer"]')) {
            const m = c.textContent.match(/SLB at λ = (\S+) keeps/);
            if (m) { lam = m[1]; break; }
        }
        if (lam !== window.__cmp.lam) { window.__cmp.lam = lam; window.__cmp.tl = Date.now(); }
        const el = document.querySelector(".st-key-cmp_coef .js-plotly-plot");
        const n = el && el.layout && el.layout.meta ? el.layout.meta.n_terms : null;
        if (n !== window.__cmp.terms) { window.__cmp.terms = n; window.__cmp.tt = Date.now(); }
        requestAnimationFrame(tick);
    };
    if (!window.__cmpOn) { window.__cmpOn = true; tick(); }
    // the rerun request leaving the browser, and the server's first and last messages after it
    if (!window.__cmpWs) {
        window.__cmpWs = true;
        const send = WebSocket.prototype.send;
        WebSocket.prototype.send = function (data) {
            if (!this.__cmpHooked) {
                this.__cmpHooked = true;
                this.addEventListener("message", () => {
                    const now = Date.now();
                    if (window.__cmp.sent && window.__cmp.first === null) window.__cmp.first = now;
                    window.__cmp.last = now;
                });
            }
            if (!window.__cmp.sent) window.__cmp.sent = Date.now();
            return send.call(this, data);
        };
    }
}"""


def state(page) -> dict:
    return page.evaluate("() => window.__cmp")


def wait_caption(page, before: str | None, timeout_s: float = 120) -> dict | None:
    """The poll state once the caption's λ differs from ``before`` (None: timed out)."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        s = state(page)
        if s["lam"] != before:
            return s
        page.wait_for_timeout(50)  # (the page itself timestamps the change)
    return None


def tree_cpu(pid: int) -> float:
    """CPU seconds of the server and its live children (the warm-up's worker processes)."""
    import psutil

    total = server_cpu(pid)
    for child in psutil.Process(pid).children(recursive=True):
        try:
            total += sum(child.cpu_times()[:2])
        except psutil.NoSuchProcess:
            pass
    return total


def wait_server_idle(pid: int, quiet_s: float = 10.0, timeout_s: float = 1800) -> float:
    """Wait until the server and its workers used < 2 % of a CPU for ``quiet_s`` seconds (the
    warm-up yields to sessions, so it also pauses); returns the wait."""
    t0 = time.monotonic()
    last, since = tree_cpu(pid), time.monotonic()
    while time.monotonic() - t0 < timeout_s:
        time.sleep(1.0)
        now = tree_cpu(pid)
        if now - last > 0.02:
            since = time.monotonic()
        last = now
        if time.monotonic() - since >= quiet_s:
            return time.monotonic() - t0
    raise TimeoutError("the server never went idle")


def _visit(page, marks: dict, t0: float) -> None:
    """Wait for Compare's numbers, charts and the end of the run, noting the seconds."""
    page.get_by_text("How SLB's BER was obtained").first.wait_for()
    marks["BER numbers shown"] = time.monotonic() - t0
    page.locator(".st-key-cmp_ber_bars .js-plotly-plot").wait_for()
    marks["BER bars drawn (plotly)"] = time.monotonic() - t0
    page.locator(".st-key-cmp_coef .js-plotly-plot").wait_for()
    marks["coefficient figure drawn"] = time.monotonic() - t0
    idle(page, quiet_s=1.0)
    marks["app idle (+1 s quiet)"] = time.monotonic() - t0 - 1.0


def first_visit(width: int, height: int) -> None:
    """Compare on a bundled dataset after the server's warm-up: the browser's wait, opened
    directly (a new page load of ``/compare``) and as a class does (the home page, then the
    sidebar's Compare link: no page load)."""
    with StreamlitServer("bench-compare-first.log") as srv, chromium() as browser:
        home = browser.new_context().new_page()
        home.set_default_timeout(300_000)
        home.goto(srv.url)
        home.get_by_test_id("stSidebar").wait_for()
        warm = wait_server_idle(srv.proc.pid)
        load0, cpu0 = os.getloadavg(), server_cpu(srv.proc.pid)
        runs = {}
        for how in ("direct: new page load of /compare", "home page, then the Compare link"):
            page = browser.new_context(viewport={"width": width, "height": height}).new_page()
            page.set_default_timeout(300_000)
            marks, t0 = {}, time.monotonic()
            if how.startswith("direct"):
                page.goto(srv.url + "/compare")
                page.get_by_role("heading", name="Compare").first.wait_for()
            else:
                page.goto(srv.url)
                page.get_by_test_id("stSidebar").wait_for()
                idle(page, quiet_s=1.0)
                marks["home page idle"] = time.monotonic() - t0 - 1.0
                t0 = time.monotonic()
                page.get_by_test_id("stSidebarNav").get_by_role("link", name="Compare").click()
                page.get_by_role("heading", name="Compare").first.wait_for()
            marks["page shell (title)"] = time.monotonic() - t0
            _visit(page, marks, t0)
            runs[how] = marks
        cpu = server_cpu(srv.proc.pid) - cpu0
    print(
        f"Compare on Sonar, first visit after the warm-up ({warm:.0f} s until the server was "
        f"idle) at {width}x{height}; load before {load0[0]:.2f}, after {os.getloadavg()[0]:.2f}; "
        f"server CPU of both visits {cpu:.2f} s"
    )
    for how, marks in runs.items():
        print(f"  {how}:")
        shell = marks["page shell (title)"]
        for what, t in marks.items():
            after = f"({t - shell:+.2f} s after the shell)" if what != "home page idle" else ""
            print(f"    {what:28s} {t:6.2f} s  {after}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--moves", type=int, default=8)
    ap.add_argument("--width", type=int, default=1440)
    ap.add_argument("--height", type=int, default=900)
    ap.add_argument("--first-visit", action="store_true", help="the wait after the warm-up")
    args = ap.parse_args()
    if args.first_visit:
        first_visit(args.width, args.height)
        return
    env = {"SLB_WARMUP": "0"}
    with StreamlitServer("bench-compare-live.log", env=env) as srv, chromium() as browser:
        page = browser.new_page(viewport={"width": args.width, "height": args.height})
        page.set_default_timeout(300_000)
        page.goto(srv.url + "/compare")
        page.locator(".st-key-cmp_coef .js-plotly-plot").wait_for()
        idle(page, quiet_s=3)
        page.evaluate(POLL)
        slider = page.locator(SLIDER).first
        caption, figure, sent, first = [], [], [], []
        cpu0, t0, load0 = server_cpu(srv.proc.pid), time.monotonic(), os.getloadavg()
        for k in range(args.moves):
            before = state(page)
            page.evaluate("() => { window.__cmp.sent = 0; window.__cmp.first = null; }")
            t_in = time.time()
            slider.focus()
            slider.press("PageUp" if k % 2 == 0 else "PageDown")
            after = wait_caption(page, before["lam"])
            idle(page, quiet_s=0.5)
            if after is None:
                caption.append(float("nan"))
                continue
            caption.append(after["tl"] / 1000 - t_in)
            end = state(page)
            if end["sent"] and end["first"]:
                sent.append(end["sent"] / 1000 - t_in)
                first.append(end["first"] / 1000 - t_in)
            if end["terms"] != before["terms"]:
                figure.append(end["tt"] / 1000 - t_in)
        cpu = server_cpu(srv.proc.pid) - cpu0
        wall = time.monotonic() - t0
    ok = [v for v in caption if v == v]
    print(
        f"Compare on Sonar, {args.moves} λ changes (keyboard) at {args.width}x{args.height}; "
        f"load before {load0[0]:.2f}, after {os.getloadavg()[0]:.2f}\n"
        f"  browser, key -> BER caption at the new λ: median {statistics.median(ok):.3f} s, "
        f"max {max(ok):.3f} s ({len(caption) - len(ok)} never updated)\n"
        f"  browser, key -> coefficient figure with the new terms: "
        + (
            f"median {statistics.median(figure):.3f} s, max {max(figure):.3f} s "
            f"({len(figure)} moves changed the terms)"
            if figure
            else "no move changed the terms"
        )
        + (
            f"\n  browser, key -> rerun request sent: median {statistics.median(sent):.3f} s; "
            f"-> the server's first message back: median {statistics.median(first):.3f} s"
            if sent
            else ""
        )
        + f"\n  server CPU per λ change: {cpu / args.moves:.3f} s (wall {wall:.1f} s in all)"
    )


if __name__ == "__main__":
    main()
