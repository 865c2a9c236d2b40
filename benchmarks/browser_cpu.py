"""Where a classroom session's CPU goes: the browser's and the server's, step by step (issue 14).

Issue 14's "8 sessions, browsers at nice 19, median <= 20 s" runs eight Chromium sessions and
the server on the same two cores.  This benchmark measures what one such session costs each
side, so that the floor of that test can be computed: it starts ``streamlit run app.py``
(``SLB_WARMUP=0``, as ``tests/test_concurrency.py``), opens one browser context at a time in
Debian's headless Chromium and walks the classroom session of that test:

1. **home**: load the app until the sidebar shows Sonar, then the seconds after it until the
   browser is quiet (the page goes on drawing after its sidebar is shown);
2. **upload**: choose "Upload a file" (the uploader appears), upload a small table of its own
   (``tests/browser_support.synthetic_csv``, 84 x 6, new values in every session, so nothing
   is cached from the session before) until the sidebar shows it;
3. **Compare**: open Compare from the sidebar until the BER bars are drawn, then until quiet.

For each step it prints the wall seconds, the CPU seconds of every Chromium process (browser,
renderers, GPU and utility processes, each counted once, reaped children included) and of the
server process with its workers.  The first context pays for the server's imports and the
browser's start; the later ones (``--rounds``) are what each further session of a class costs.

``--attribute`` also loads the home page with the plotly chunk, then the data-grid chunk, of
Streamlit's frontend blocked (``page.route``): the browser CPU each of them adds to the home
page.

Usage::

    python benchmarks/browser_cpu.py               # 3 sessions one after the other
    python benchmarks/browser_cpu.py --attribute   # and what plotly and the data grid cost

Measured 2026-11-26: see ``benchmarks/README.md`` (issue 14, ninth session).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

from browser_support import StreamlitServer, launch_chromium, synthetic_csv  # noqa: E402

TIMEOUT_MS = 300_000
QUIET_CPU_S = 0.15  # a second of browser CPU below this: the page has finished drawing


def tree_cpu(root_pids) -> float:
    """CPU seconds (user + system, reaped children included) of processes and descendants,
    each process counted once."""
    import psutil

    procs = {}
    for pid in root_pids:
        try:
            root = psutil.Process(pid)
            for q in [root, *root.children(recursive=True)]:
                procs[q.pid] = q
        except psutil.NoSuchProcess:
            continue
    total = 0.0
    for q in procs.values():
        try:
            t = q.cpu_times()
            total += t.user + t.system + t.children_user + t.children_system
        except psutil.NoSuchProcess:
            pass
    return total


class Meter:
    """Browser and server CPU and wall time between marks."""

    def __init__(self, browser_pids, server_pid):
        self.browser_pids, self.server_pid = browser_pids, server_pid

    def now(self) -> tuple[float, float, float]:
        return tree_cpu(self.browser_pids), tree_cpu([self.server_pid]), time.monotonic()

    async def until_quiet(self, page, max_s: float = 30.0) -> None:
        """Wait until a whole second passes with less than QUIET_CPU_S of browser CPU."""
        end = time.monotonic() + max_s
        while time.monotonic() < end:
            a = tree_cpu(self.browser_pids)
            await page.wait_for_timeout(1000)
            if tree_cpu(self.browser_pids) - a < QUIET_CPU_S:
                return


async def session(browser, meter: Meter, url: str, csv: Path) -> dict[str, tuple]:
    """One classroom session; ``{step: (wall, browser CPU, server CPU)}``."""
    from playwright.async_api import expect

    from dashboard.data import SOURCES

    ctx = await browser.new_context(viewport={"width": 1400, "height": 1000})
    ctx.set_default_timeout(TIMEOUT_MS)
    page = await ctx.new_page()
    sidebar = page.get_by_test_id("stSidebar")
    marks = [("start", meter.now())]
    await page.goto(url)
    await expect(sidebar).to_contain_text("n = 208 rows", timeout=TIMEOUT_MS)
    marks.append(("home: sidebar shown", meter.now()))
    await meter.until_quiet(page)
    marks.append(("home: drawing after it", meter.now()))
    await page.locator(".st-key-data_source").get_by_text(SOURCES["upload"]).click()
    file_input = page.locator('.st-key-upload_file input[type="file"]')
    await file_input.wait_for(state="attached")
    await file_input.set_input_files(str(csv))
    await expect(sidebar).to_contain_text("n = 84 rows", timeout=TIMEOUT_MS)
    marks.append(("upload: table shown", meter.now()))
    await meter.until_quiet(page)
    marks.append(("upload: drawing after it", meter.now()))
    await page.get_by_test_id("stSidebarNav").get_by_role("link", name="Compare").click()
    await page.locator(".st-key-cmp_ber_bars .js-plotly-plot").wait_for(timeout=TIMEOUT_MS)
    await expect(page.get_by_test_id("stMain")).to_contain_text("mean BER", timeout=TIMEOUT_MS)
    marks.append(("Compare: BER bars shown", meter.now()))
    await meter.until_quiet(page)
    marks.append(("Compare: drawing after it", meter.now()))
    await ctx.close()
    out = {}
    for (_, a), (name, b) in zip(marks, marks[1:], strict=False):
        out[name] = (b[2] - a[2], b[0] - a[0], b[1] - a[1])
    return out


async def home_cost(browser, meter: Meter, url: str, block: str | None) -> float:
    """Browser CPU of loading the home page until quiet, with one frontend chunk blocked."""
    from playwright.async_api import expect

    ctx = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await ctx.new_page()
    if block:
        await page.route(block, lambda route: route.abort())
    a = meter.now()
    await page.goto(url)
    await expect(page.get_by_test_id("stSidebar")).to_contain_text("n = 208", timeout=TIMEOUT_MS)
    await meter.until_quiet(page)
    b = meter.now()
    await ctx.close()
    return b[0] - a[0]


async def main(rounds: int, attribute: bool) -> None:
    import psutil
    from playwright.async_api import async_playwright

    tmp = Path(os.environ.get("TMPDIR", "/tmp"))
    # a table of its own per session (different values: nothing cached from the one before)
    csvs = [synthetic_csv(tmp / f"browser_cpu_{k}_84x6.csv", 84, 6, 100 + k) for k in range(rounds)]
    load0 = os.getloadavg()[0]
    with StreamlitServer("browser-cpu-server.log", env={"SLB_WARMUP": "0"}) as server:
        async with async_playwright() as p:
            browser = await launch_chromium(p)
            chromium_pids = [c.pid for c in psutil.Process().children()]
            meter = Meter(chromium_pids, server.proc.pid)
            runs = [await session(browser, meter, server.url, csv) for csv in csvs]
            blocked = {}
            if attribute:
                for label, pattern in (
                    ("nothing blocked", None),
                    ("plotly chunk blocked", "**/PlotlyChart*.js"),
                    ("data-grid chunk blocked", "**/DataFrame*.js"),
                ):
                    blocked[label] = [
                        await home_cost(browser, meter, server.url, pattern) for _ in range(2)
                    ]
            await browser.close()
    print(f"# one classroom session in Chromium, step by step ({time.strftime('%Y-%m-%d %H:%M')})")
    print(f"load average {load0:.1f} -> {os.getloadavg()[0]:.1f}; {os.cpu_count()} CPUs")
    print(
        f"{'step':28s} "
        + "  ".join(f"session {k + 1}: wall / browser / server" for k in range(rounds))
    )
    for step in runs[0]:
        cells = "  ".join(
            f"{r[step][0]:8.2f} s / {r[step][1]:5.2f} s / {r[step][2]:5.2f} s" for r in runs
        )
        print(f"{step:28s} {cells}")
    totals = [tuple(sum(v[i] for v in r.values()) for i in range(3)) for r in runs]
    print(
        f"{'whole session':28s} "
        + "  ".join(f"{t[0]:8.2f} s / {t[1]:5.2f} s / {t[2]:5.2f} s" for t in totals)
    )
    later = totals[1:] or totals
    browser_s = statistics.median(t[1] for t in later)
    server_s = statistics.median(t[2] for t in later)
    cores = os.cpu_count() or 1
    print(
        f"a further session: {browser_s:.1f} s of browser CPU, {server_s:.1f} s of server CPU; "
        f"8 such sessions on {cores} cores need at least {8 * (browser_s + server_s) / cores:.0f} s "
        f"of wall time ({8 * browser_s / cores:.0f} s for the browsers alone)"
    )
    for label, values in blocked.items():
        print(
            f"home page until quiet, {label:24s} browser CPU "
            + ", ".join(f"{v:.2f} s" for v in values)
        )


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3, help="sessions, one after the other")
    ap.add_argument("--attribute", action="store_true", help="home page with chunks blocked")
    a = ap.parse_args()
    asyncio.run(main(a.rounds, a.attribute))
