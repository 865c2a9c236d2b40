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

With ``--figures``: no server; the browser milliseconds of ``Plotly.newPlot`` for each of the
page's figures on Sonar (plotly.js from the plotly package, median of 9, the figures drawn in
turn after one warm-up round): the heatmap as the page draws it, the same with every one of its
3,540 hover/click markers drawn (as before issue 14) and without them, to show where the
browser's time goes.

Usage::

    python benchmarks/dependencies_live.py              # live slider, 8 moves
    SLB_LIVE_SLIDER=0 python benchmarks/dependencies_live.py   # st.slider on release
    python benchmarks/dependencies_live.py --figures    # browser cost of each figure

Measured 2026-11-23 on the shared 2-core machine (load average 4-7, other engineers' tests
running); "before" is commit 0b798d1 (st.slider, both class heatmaps in tabs, nothing cached):

* server CPU per λ change, real server (two runs, load 4-7 and 2-3): live slider 0.170 /
  0.207 s, st.slider (keyboard) 0.120 / 0.180 s; before 0.325 / 0.340 s (st.slider).  Under
  AppTest (the page's own CPU, median of 6 changes, load 7): 0.093 s, before 0.327 s.
* browser, input to heatmap updated (same two runs): st.slider (keyboard) 1.15 / 1.51 s median,
  before 2.80 / 1.30 s; live drag 2.34 / 2.27 s median (each step also waits for the previous
  step's figures: flow control).  The browser and the server share the 2 cores.
* ``--figures`` (load 2-8, four runs): heatmap 325-446 ms, of which the 3,540 invisible
  hover/click markers ~300 ms (the heatmap without them: 20-100 ms); pair graph 60-200 ms;
  histogram 60-110 ms.

Issue 14 (commit f73b9e6: the heatmap's markers are kept for hover and click, but the browser
draws one of them, ``marker.maxdisplayed=1``), measured 2026-11-23, "before" = the commit
before it run from a clean copy in the same session:

* ``--figures`` (two runs, load 3.8-4.2): heatmap 48 / 46 ms; with all its markers drawn
  517 / 424 ms; without markers 44 / 54 ms; pair graph 74 / 84 ms; histogram 92 / 90 ms.
* live slider, browser input -> heatmap updated: median 0.66 / 0.52 s (max 1.05 / 0.77 s,
  load 3.0-3.2), before 1.64 s (max 2.40 s, load 3.0-3.3); st.slider (keyboard): 0.44 / 0.37 s
  (load 3.7-3.9 / 7-9), before 1.51 s (load 11-15; a run at load 3.7-11.6 gave 2.15 s).
* server CPU per λ change: 0.13-0.14 s after, 0.14-0.16 s before (unchanged: the figure sent is
  the same size, ~296 kB for the heatmap, ~10-17 ms of it plotly's JSON encoding).
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
        page.wait_for_timeout(50)  # (the page itself timestamps the change)
    return None


def _sonar_figures() -> dict:
    """The page's three figures on Sonar at the 90 % quantile λ, as plotly JSON."""
    import json

    import numpy as np
    import plotly.graph_objects as go

    from slb import dependence_matrix, load_dataset
    from slb._utils import all_pairs
    from slb.viz import figures

    X, y = load_dataset("sonar")
    names, X = list(X.columns), X.to_numpy()
    dm = [dependence_matrix(X[y == c], "hsic") for c in np.unique(y)]
    d = X.shape[1]
    pairs = all_pairs(d)
    ps = np.vstack([m.statistic[pairs[:, 0], pairs[:, 1]] for m in dm])
    lam = float(np.quantile(ps.max(0), 0.9))
    k = ps.max(0) >= lam
    kept = np.zeros((d, d), bool)
    kept[pairs[k, 0], pairs[k, 1]] = True
    kept |= kept.T
    both = np.fmax(dm[0].statistic, dm[1].statistic)
    heat = figures.dependence_heatmap(
        dm[1].statistic, dm[1].pvalue, names, order=figures.cluster_order(both), kept=kept
    )
    bare = go_copy_without(heat, "cells")
    drawn = go.Figure(heat)  # as before issue 14: every hover/click marker drawn (and styled)
    drawn.update_traces(
        marker_maxdisplayed=0,
        selected={"marker": {"opacity": 0.35}},
        unselected={"marker": {"opacity": 0.0}},
        selector={"name": "cells"},
    )
    idx = np.flatnonzero(k)
    pos = figures.pair_graph_layout(d, pairs, ps.max(0))
    graph = figures.pair_graph(names, pairs[idx], ps[:, idx], ps[:, idx] >= lam, pos)
    graph.update_layout(height=400)
    hist = figures.dependence_histogram(ps[1], ps[0], lam)
    out = {"heatmap": heat, "heatmap, all markers drawn": drawn}
    out |= {"heatmap without its markers": bare, "pair graph": graph}
    out["histogram"] = hist
    return {name: json.loads(f.to_json()) for name, f in out.items()}


def go_copy_without(fig, trace_name: str):
    import plotly.graph_objects as go

    return go.Figure([t for t in fig.data if t.name != trace_name], fig.layout)


def figures_in_browser() -> None:
    import plotly

    pjs = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    figs = _sonar_figures()
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.set_content("<html><body><div id='g' style='width:480px'></div></body></html>")
        page.add_script_tag(path=str(pjs))
        load0 = os.getloadavg()[0]
        # one warm-up round, then 9 rounds taking the figures in turn (the JIT warms up on
        # the first figure drawn; in turn, the machine's load falls on all of them alike)
        ms = page.evaluate(
            """async (figs) => {
                const el = document.getElementById("g"), names = Object.keys(figs), out = {};
                names.forEach(n => out[n] = []);
                for (let r = 0; r < 10; r++) {
                    for (const n of names) {
                        Plotly.purge(el);
                        const t0 = performance.now();
                        await Plotly.newPlot(el, figs[n].data, figs[n].layout, {displaylogo: false});
                        if (r > 0) out[n].push(performance.now() - t0);
                    }
                }
                names.forEach(n => out[n] = out[n].sort((a, b) => a - b)[4]);
                return out;
            }""",
            figs,
        )
    print(
        f"Plotly.newPlot, median of 9 (ms); load {load0:.2f} before, {os.getloadavg()[0]:.2f} after"
    )
    for name, v in ms.items():
        print(f"  {name:30s} {v:7.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--moves", type=int, default=8)
    ap.add_argument("--width", type=int, default=1440)
    ap.add_argument("--height", type=int, default=900)
    ap.add_argument("--figures", action="store_true", help="browser cost of each figure")
    args = ap.parse_args()
    if args.figures:
        figures_in_browser()
        return
    live = os.environ.get("SLB_LIVE_SLIDER", "1") != "0"
    warm = {"SLB_WARMUP": "0"}  # the server-start warm-up would run in the measured CPU
    with StreamlitServer("bench-dependencies-live.log", env=warm) as srv, chromium() as browser:
        page = browser.new_page(viewport={"width": args.width, "height": args.height})
        page.set_default_timeout(300_000)
        page.goto(srv.url + "/dependencies")
        page.locator(HEAT).first.wait_for()
        idle(page, quiet_s=3)
        page.evaluate(POLL, HEAT)
        # the live slider (Components v2, under a shadow root) and st.select_slider alike
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
