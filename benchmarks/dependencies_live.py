"""Speed of the Dependencies page while λ moves, in a real browser (issue 13, item 1).

Starts ``streamlit run app.py`` (Sonar, d = 60), opens Dependencies in Debian's headless
Chromium through Playwright, and moves λ ``--moves`` times: by dragging the live slider (mouse
button held, one step at a time, waiting for the heatmap before the next step) or, with
``SLB_LIVE_SLIDER=0`` in the environment, by the keyboard on Streamlit's own slider.  Prints,
with the load average:

* browser seconds from the input (mouse move or key press) to the heatmap showing the new
  outlined-cell count (median, max);
* server CPU seconds per λ change (``utime + stime`` of the server process, from /proc, over
  all the moves, divided by their number).

Usage::

    python benchmarks/dependencies_live.py              # live slider, 8 moves
    SLB_LIVE_SLIDER=0 python benchmarks/dependencies_live.py   # st.slider on release
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

from browser_support import StreamlitServer, chromium  # noqa: E402

HEAT = ".st-key-dep_heatmap_- .js-plotly-plot"  # class "+" ("+" is "-" in the class name)

POLL = """(sel) => {
    // the outlined-cell count of the first heatmap, and when it last changed (Date.now())
    window.__outl = window.__outl || {n: null, t: 0};
    const tick = () => {
        const el = document.querySelector(sel);
        const n = el && el.layout && el.layout.meta ? el.layout.meta.n_outlined : null;
        if (n !== window.__outl.n) window.__outl = {n: n, t: Date.now()};
        requestAnimationFrame(tick);
    };
    if (!window.__outlOn) { window.__outlOn = true; tick(); }
}"""


def server_cpu(pid: int) -> float:
    """utime + stime (s) of process ``pid`` and its waited-for children."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(v) for v in fields[11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


def idle(page, quiet_s: float = 1.5, timeout_s: float = 300) -> None:
    status = page.get_by_test_id("stStatusWidget")
    end, since = time.monotonic() + timeout_s, None
    while time.monotonic() < end:
        if status.count() == 0 or not status.first.is_visible():
            since = since or time.monotonic()
            if time.monotonic() - since >= quiet_s:
                return
        else:
            since = None
        page.wait_for_timeout(100)
    raise TimeoutError("the app kept running")


def outlined(page) -> tuple[int | None, float]:
    o = page.evaluate("() => window.__outl")
    return o["n"], o["t"] / 1000


def wait_change(page, before: int | None, timeout_s: float = 60) -> float | None:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        n, t = outlined(page)
        if n != before:
            return t
        page.wait_for_timeout(10)
    return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--moves", type=int, default=8)
    ap.add_argument("--width", type=int, default=1440)
    ap.add_argument("--height", type=int, default=900)
    args = ap.parse_args()
    live = os.environ.get("SLB_LIVE_SLIDER", "1") != "0"
    warm = {"SLB_WARMUP": "0"}  # the server-start warm-up would run in the measured CPU
    with StreamlitServer("bench-dependencies-live.log", env=warm) as srv, chromium() as browser:
        page = browser.new_page(viewport={"width": args.width, "height": args.height})
        page.set_default_timeout(300_000)
        page.goto(srv.url + "/dependencies")
        page.locator(HEAT).first.wait_for()
        idle(page, quiet_s=3)
        page.evaluate(POLL, HEAT)
        if live:
            slider = page.frame_locator(".st-key-dep_lambda iframe").locator("input[type=range]")
        else:
            slider = page.locator('.st-key-dep_lambda input[type="range"]')
        box = slider.bounding_box()
        lat, y = [], box["y"] + box["height"] / 2
        x0 = box["x"] + 0.2 * box["width"]
        if live:
            page.mouse.move(x0, y)
            page.mouse.down()
        cpu0, t0 = server_cpu(srv.proc.pid), time.monotonic()
        load0 = os.getloadavg()
        for k in range(args.moves):
            before, _ = outlined(page)
            t_in = time.time()
            if live:
                page.mouse.move(x0 + (k + 1) * 0.05 * box["width"], y, steps=2)
            else:
                slider.focus()
                slider.press("PageUp")
            t_out = wait_change(page, before)
            lat.append(float("nan") if t_out is None else t_out - t_in)
            if not live:
                idle(page, quiet_s=0.5)
        if live:
            page.mouse.up()
        idle(page, quiet_s=2)
        cpu = server_cpu(srv.proc.pid) - cpu0
        wall = time.monotonic() - t0
    mode = "live slider (mouse drag)" if live else "st.slider (keyboard)"
    ok = [v for v in lat if v == v]
    print(
        f"{mode}: {args.moves} λ changes at {args.width}x{args.height}; load before "
        f"{load0[0]:.2f}, after {os.getloadavg()[0]:.2f}\n"
        f"  browser, input -> heatmap updated: median {statistics.median(ok):.3f} s, "
        f"max {max(ok):.3f} s ({len(lat) - len(ok)} never updated)\n"
        f"  server CPU per λ change: {cpu / args.moves:.3f} s (wall {wall:.1f} s in all, "
        f"includes the release's final run)"
    )


if __name__ == "__main__":
    main()
