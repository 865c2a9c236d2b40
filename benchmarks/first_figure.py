"""First paint in a real browser: the app's first figure as a ratio to a trivial page (issue 27).

One run starts two Streamlit servers from the repository root (so both use its
``.streamlit/config.toml``) on free ports:

* a **trivial page** (a temporary file) showing one small plotly figure: the framework's and
  the browser's own cost, the floor no change to the app can beat;
* a **rich static page** (:data:`RICH_PAGE`): the home page's elements (sidebar navigation and
  controls, two columns of widgets, metrics, the small chart, a 200 x 60 table) with nothing
  computed, measured warm like the trivial page: the floor for a page of the home page's size;
* the **app** (``streamlit run app.py``, headless, warm-up on as in production).

Each measure opens a fresh browser context (no HTTP cache, no session) in Debian's headless
Chromium (``/usr/bin/chromium``, never a downloaded browser) and records, in the page itself,
the time from navigation start until the first plotly figure's SVG is in the page's main area
(``performance.now()`` when a ``.js-plotly-plot .main-svg`` appears under ``stMain``):

* ``trivial``: the trivial page (its server warm: one visit before the first measure);
* ``fresh home``: the app's home page as the first visitor of a freshly started server;
* ``fresh home, launcher``: the same when the server was started by the README's first
  command, ``python -m slb_explorer``, whose pre-run has finished (its own server, started
  before the plain one in every round; the seconds until the launcher said so are printed);
* ``warm home``: the home page for a new visitor after the server's warm-up has finished
  (its server process CPU quiet) and ``--idle`` seconds of idleness (default 120);
* ``warm Compare``: Compare's first figure for a new visitor, loaded by its address;
* ``upload -> Compare``: a new visitor uploads a 208 x 60 CSV of new random values on the
  home page, then clicks Compare in the sidebar: seconds from the click until the BER bars
  are drawn and the "mean BER" numbers shown (issue 14 row 1, target <= 2 s).

Every round starts a new app server (the fresh measure needs one).  Medians over ``--rounds``
rounds are printed, each as a ratio to the trivial page's median in the same run, with the
load average.  Issue 27's targets: warm home <= 1.1x, warm Compare <= 1.25x, fresh home
<= 1.3x, upload -> Compare numbers <= 2 s.

``--baseline REV`` also measures the app of git revision ``REV`` (``git archive`` to a
temporary directory; the working tree is not touched) in the same run, the two alternating
round by round, each with its own fresh server.

Usage::

    nice python benchmarks/first_figure.py                  # 3 rounds, 120 s idle
    nice python benchmarks/first_figure.py --rounds 1 --idle 10   # a quick look
    nice python benchmarks/first_figure.py --baseline HEAD~1 --idle 30   # before / after
    nice python benchmarks/first_figure.py --static-only --rounds 8   # the static pages only:
    # the rich page and variants of it without its table, its sidebar's controls or its
    # navigation, and with its figure sent first (what the home page's elements cost)
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

from browser_support import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    StreamlitServer,
    synthetic_csv,
)

TIMEOUT_MS = 300_000

TRIVIAL_PAGE = """\
import plotly.graph_objects as go
import streamlit as st

st.title("One figure")
st.plotly_chart(go.Figure(go.Bar(x=["a", "b", "c"], y=[3, 1, 2])), key="only")
"""

#: The home page's elements without its computations (``--rich``): a floor for a page of that
#: size.  Sidebar navigation of seven pages, a sidebar of controls, the title, the two columns
#: of widgets, four metrics, a small plotly bar chart and a 200 x 60 table, as on Data.
RICH_PAGE = """\
import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

st.set_page_config(page_title="Rich", layout="wide")


def home():
    st.title("A page the size of the home page")
    st.caption("Nothing is computed: the elements only.")
    left, right = st.columns([2, 3], gap="large")
    with left:
        st.radio("Data source", ["bundled", "synthetic", "toy", "upload"], horizontal=True)
        st.selectbox("Dataset", ["Sonar", "Pima", "WDBC", "Ionosphere"])
        st.subheader("Table")
        st.selectbox("Label column", ["label"])
        st.radio("Non-numeric columns", ["drop", "encode"])
        st.radio("Missing values", ["drop", "impute"])
        st.subheader("Evaluation")
        a, b = st.columns(2)
        a.number_input("Cross-validation folds", 2, 10, 5)
        b.number_input("Seed", 0, 2**31 - 1, 0)
    with right:
        st.subheader("Sonar")
        st.caption("208 sonar returns, 60 energies per frequency band.")
        m = st.columns(4)
        for col, (k, v) in zip(m, [("rows n", 208), ("features d", 60), ("+ M", 111), ("- R", 97)]):
            col.metric(k, v)
        st.plotly_chart(go.Figure(go.Bar(x=["M", "R"], y=[111, 97])), key="only")
        st.caption("Class shares.")
        st.markdown("**Preview** (first 200 rows)")
        X = np.random.default_rng(0).random((200, 60))
        st.dataframe(pd.DataFrame(X, columns=[f"f{i}" for i in range(60)]), height=320)


with st.sidebar:
    st.markdown("**Sonar**, n = 208, d = 60")
    st.radio("Dependence measure", ["HSIC", "Pearson", "Spearman"], horizontal=True)
    st.selectbox("A pair is kept when it is", ["either", "both", "per class"])
    st.radio("λ chosen by", ["value", "quantile", "FDR", "CV"], horizontal=True)
    st.select_slider("λ", options=[round(0.001 * k, 3) for k in range(60)], value=0.02)
    st.selectbox("Bandwidth rule", ["Scott", "Silverman", "plug-in"])
    st.slider("Bandwidth multiplier", 0.25, 4.0, 1.0)
pages = [st.Page(home, title="Data", default=True)] + [
    st.Page(lambda: st.write(name), title=name, url_path=name.lower())
    for name in ["Dependencies", "Densities", "Compare", "Explain", "Surface", "Experiments"]
]
st.navigation(pages).run()
"""

_TABLE_LINE = (
    '        st.dataframe(pd.DataFrame(X, columns=[f"f{i}" for i in range(60)]), height=320)\n'
)
_FIGURE_LINE = '        st.plotly_chart(go.Figure(go.Bar(x=["M", "R"], y=[111, 97])), key="only")\n'


def static_variants() -> dict[str, str]:
    """``--static-only``: the rich page and variants of it without one group of elements, to
    find what separates it from the trivial page (no computing in any of them)."""
    assert _TABLE_LINE in RICH_PAGE and _FIGURE_LINE in RICH_PAGE
    no_table = RICH_PAGE.replace(_TABLE_LINE, "")
    head, nav = no_table.split("with st.sidebar:")[0], no_table.split("pages = ")[1]
    # the figure sent before every other element (a placeholder holds its place in the layout)
    first = RICH_PAGE.replace("def home():\n", "def home():\n    slot = None\n").replace(
        _FIGURE_LINE, "        slot = st.empty()\n"
    )
    first = first.replace(
        "        st.dataframe(", _FIGURE_LINE.replace("st.", "slot.", 1) + "        st.dataframe("
    )
    # the table in a collapsed expander: does a hidden grid still cost the first figure?
    folded = RICH_PAGE.replace(
        _TABLE_LINE,
        '        with st.expander("Preview (first 200 rows)", expanded=False):\n    ' + _TABLE_LINE,
    )
    return {
        "rich static page": RICH_PAGE,
        "rich, table in a collapsed expander": folded,
        "rich, figure sent first": first,
        "rich without its table": no_table,
        "... and without the sidebar's controls": head + "pages = " + nav,
        "... and without the navigation": head + "home()\n",
    }


#: Records, in the page, when the first plotly figure's SVG appears in the main area
#: (milliseconds since navigation start).
FIRST_FIGURE_JS = """
(() => {
  const sel = '[data-testid="stMain"] .js-plotly-plot .main-svg';
  const check = () => {
    if (window.__firstFigure === undefined && document.querySelector(sel)) {
      window.__firstFigure = performance.now();
      obs.disconnect();
    }
  };
  const obs = new MutationObserver(check);
  const start = () => obs.observe(document, {childList: true, subtree: true});
  start();
})();
"""


class Server(StreamlitServer):
    """``streamlit run <script>`` with ``cwd`` as the working directory (its
    ``.streamlit/config.toml`` applies), on a free port, output to ``log_name``."""

    def __init__(self, script: str, cwd: Path, log_name: str):
        super().__init__(log_name)
        self.script, self.cwd = script, cwd

    #: What follows ``python -m`` (the launcher's subclass starts the README's command).
    MODULE = ["streamlit", "run", "{script}"]

    def start(self):
        self._log = open(self.log_path, "wb")  # noqa: SIM115 (closed in stop)
        cmd = [
            sys.executable, "-m", *[a.format(script=self.script) for a in self.MODULE],
            "--server.headless", "true", "--server.port", str(self.port),
            "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
            "--server.fileWatcherType", "none",
        ]  # fmt: skip
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        self.proc = subprocess.Popen(
            cmd,
            cwd=self.cwd,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env={**env, "PYTHONUNBUFFERED": "1"},
            start_new_session=True,  # its own process group: stop() ends its workers too
        )
        self.wait_healthy()
        return self


class LauncherServer(Server):
    """The README's first command, ``python -m slb_explorer`` (the launcher that pre-runs the
    app once the server answers), from ``cwd``; :meth:`start` returns when the launcher says
    the pre-run is done (what a teacher starting the server waits for before the class)."""

    MODULE = ["slb_explorer"]

    def start(self):
        t0 = time.monotonic()
        super().start()
        while "first run is done" not in self.log_text():
            if self.proc.poll() is not None or time.monotonic() - t0 > TIMEOUT_MS / 1000:
                raise RuntimeError(f"the launcher's pre-run did not finish:\n{self.log_text()}")
            time.sleep(0.1)
        self.ready_s = time.monotonic() - t0
        return self


def export(rev: str, into: Path) -> Path:
    """The files of git revision ``rev`` in ``into`` (``git archive``; the tree is untouched)."""
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(
        ["git", "archive", "--format=tar", rev], cwd=ROOT, check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    # compiled now, as the working tree's modules are: not by its first fresh server
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(into)], check=False)
    return into


def tree_cpu(pid: int) -> float:
    """CPU seconds of a process and its descendants (reaped children included)."""
    import psutil

    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0.0
    total = 0.0
    for q in procs:
        try:
            t = q.cpu_times()
            total += t.user + t.system + t.children_user + t.children_system
        except psutil.NoSuchProcess:
            pass
    return total


def wait_quiet(pid: int, *, window: float = 3.0, below: float = 0.15, max_s: float = 900.0):
    """Wait until the server's process tree used < ``below`` s of CPU in two windows in a row
    (the warm-up has finished); returns the seconds waited."""
    t0 = time.monotonic()
    quiet = 0
    while time.monotonic() - t0 < max_s and quiet < 2:
        a = tree_cpu(pid)
        time.sleep(window)
        quiet = quiet + 1 if tree_cpu(pid) - a < below else 0
    return time.monotonic() - t0


def first_figure(browser, url: str) -> float:
    """Seconds from navigation start to the first plotly SVG in the main area (new context)."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    ctx.set_default_timeout(TIMEOUT_MS)
    ctx.add_init_script(FIRST_FIGURE_JS)
    try:
        page = ctx.new_page()
        page.goto(url)
        page.wait_for_function("window.__firstFigure !== undefined", timeout=TIMEOUT_MS)
        return page.evaluate("window.__firstFigure") / 1000.0
    finally:
        ctx.close()


def upload_to_compare(browser, url: str, csv: Path) -> float:
    """Seconds from the click on Compare (after uploading ``csv``) to its BER bars and numbers."""
    from playwright.sync_api import expect

    from dashboard.data import SOURCES

    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    ctx.set_default_timeout(TIMEOUT_MS)
    try:
        page = ctx.new_page()
        page.goto(url)
        main = page.get_by_test_id("stMain")
        expect(page.get_by_test_id("stSidebar")).to_contain_text("n = 208", timeout=TIMEOUT_MS)
        page.locator(".st-key-data_source").get_by_text(SOURCES["upload"]).click()
        file_input = page.locator('.st-key-upload_file input[type="file"]')
        file_input.wait_for(state="attached")
        file_input.set_input_files(str(csv))
        expect(main).to_contain_text(csv.name, timeout=TIMEOUT_MS)
        expect(main).to_contain_text("208 rows × 61 columns", timeout=TIMEOUT_MS)
        page.wait_for_timeout(500)  # let the page settle
        t0 = time.monotonic()
        page.get_by_test_id("stSidebarNav").get_by_role("link", name="Compare").click()
        page.locator(".st-key-cmp_ber_bars .js-plotly-plot .main-svg").first.wait_for(
            timeout=TIMEOUT_MS
        )
        expect(main).to_contain_text("mean BER", timeout=TIMEOUT_MS)
        return time.monotonic() - t0
    finally:
        ctx.close()


def load() -> float:
    return os.getloadavg()[0]


MEASURES = ("fresh home", "fresh home, launcher", "warm home", "warm Compare", "upload -> Compare")
TARGETS = {"warm home": 1.1, "warm Compare": 1.25, "fresh home": 1.3, "fresh home, launcher": 1.3}


def app_round(browser, trivial_url, tree: Path, label: str, r: int, idle: float, csv, fresh_only):
    """One fresh app server: its measures (and the trivial page's, after the idle time)."""
    out = {}
    if (tree / "slb_explorer").is_dir() and "prewarm" in (
        tree / "slb_explorer" / "__init__.py"
    ).read_text(encoding="utf-8"):
        with LauncherServer("app.py", tree, f"first-figure-{label}-{r}-launcher.log") as app:
            out["fresh home, launcher"] = first_figure(browser, app.url)
            out["launcher ready after"] = app.ready_s
    with Server("app.py", tree, f"first-figure-{label}-{r}.log") as app:
        out["fresh home"] = first_figure(browser, app.url)
        if fresh_only:  # the trivial page is measured at the start of each round
            out["load"] = load()
            return out
        out["warm-up until quiet"] = wait_quiet(app.proc.pid)
        time.sleep(idle)
        out["trivial"] = first_figure(browser, trivial_url)
        out["warm home"] = first_figure(browser, app.url)
        out["warm Compare"] = first_figure(browser, app.url + "/compare")
        if csv is not None:
            out["upload -> Compare"] = upload_to_compare(browser, app.url, csv)
    out["load"] = load()
    return out


def report(label: str, res: dict, base: float) -> dict:
    print(f"## {label}")
    medians = {}
    for k in ("trivial", *MEASURES):
        v = res.get(k) or []
        if not v:
            continue
        m = medians[k] = statistics.median(v)
        cells = ", ".join(f"{x:.2f}" for x in v)
        if k == "upload -> Compare":
            print(f"{k:18s} median {m:6.2f} s [{cells}]  target <= 2 s (not a ratio)")
            continue
        tgt = f"  target <= {TARGETS[k]}x" if k in TARGETS else ""
        print(f"{k:18s} median {m:6.2f} s  {m / base:5.2f}x [{cells}]{tgt}")
    return medians


def main(rounds: int, idle: float, upload: bool, baseline: str | None, fresh_only: bool) -> None:
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="first_figure_"))
    trees = {"working tree": ROOT}
    if baseline:
        trees[f"baseline {baseline}"] = export(baseline, tmp / "baseline")
    res = {label: {} for label in trees}
    trivial: list[float] = []
    loads = [load()]
    script = tmp / "trivial.py"
    script.write_text(TRIVIAL_PAGE, encoding="utf-8")
    seed0 = int(time.time()) % 100_000
    rich_script = tmp / "rich.py"
    rich_script.write_text(RICH_PAGE, encoding="utf-8")
    rich_res: list[float] = []
    with (
        Server(script, ROOT, "first-figure-trivial.log") as triv,
        Server(rich_script, ROOT, "first-figure-rich.log") as rich,
        sync_playwright() as p,
    ):
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        first_figure(browser, triv.url)  # its server's imports, not counted
        first_figure(browser, rich.url)
        for r in range(rounds):
            trivial.append(first_figure(browser, triv.url))
            rich_res.append(first_figure(browser, rich.url))
            # the trees alternate, the baseline first in every other round
            order = list(trees) if r % 2 == 0 else list(trees)[::-1]
            for k, label in enumerate(order):
                seed = seed0 + 10 * r + k  # new values: nothing cached from before
                csv = None
                if upload and not fresh_only:
                    csv = synthetic_csv(tmp / f"upload_{seed}.csv", 208, 60, seed)
                tag = "base" if label != "working tree" else "now"
                got = app_round(browser, triv.url, trees[label], tag, r, idle, csv, fresh_only)
                if "trivial" in got:
                    trivial.append(got.pop("trivial"))
                loads.append(got["load"])
                for key, v in got.items():
                    res[label].setdefault(key, []).append(v)
                print(
                    f"round {r + 1}, {label}: "
                    + ", ".join(f"{key} {v:.2f}" for key, v in got.items())
                    + f"; trivial (last) {trivial[-1]:.2f} s",
                    flush=True,
                )
        browser.close()
    base = statistics.median(trivial)
    print(f"# first figure in Chromium ({time.strftime('%Y-%m-%d %H:%M')}), {rounds} rounds")
    print(
        f"load average (1 min) {min(loads):.1f}-{max(loads):.1f}; {os.cpu_count()} CPUs; "
        f"idle before the warm measures {idle:.0f} s"
    )
    cells = ", ".join(f"{x:.2f}" for x in trivial)
    print(f"{'trivial page':18s} median {base:6.2f} s  1.00x [{cells}]")
    m = statistics.median(rich_res)
    cells = ", ".join(f"{x:.2f}" for x in rich_res)
    print(f"{'rich static page':18s} median {m:6.2f} s  {m / base:5.2f}x [{cells}]  (no computing)")
    for label in trees:
        q = res[label].get("warm-up until quiet", [])
        print(f"(warm-up until the server was quiet: {', '.join(f'{x:.0f} s' for x in q)})")
        report(label, res[label], base)


def main_static(rounds: int) -> None:
    """``--static-only``: the trivial page and :func:`static_variants`, interleaved per round."""
    from contextlib import ExitStack

    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="first_figure_static_"))
    pages = {"trivial page": TRIVIAL_PAGE, **static_variants()}
    times: dict[str, list[float]] = {k: [] for k in pages}
    loads = [load()]
    with ExitStack() as stack:
        servers = {}
        for i, (label, src) in enumerate(pages.items()):
            (tmp / f"page{i}.py").write_text(src, encoding="utf-8")
            servers[label] = stack.enter_context(
                Server(tmp / f"page{i}.py", ROOT, f"first-figure-static-{i}.log")
            )
        p = stack.enter_context(sync_playwright())
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for srv in servers.values():
            first_figure(browser, srv.url)  # the servers' imports, not counted
        for _ in range(rounds):
            for label, srv in servers.items():
                times[label].append(first_figure(browser, srv.url))
            loads.append(load())
        browser.close()
    base = statistics.median(times["trivial page"])
    print(f"# static pages, first figure in Chromium, {rounds} rounds")
    print(f"load average (1 min) {min(loads):.1f}-{max(loads):.1f}; {os.cpu_count()} CPUs")
    for label, v in times.items():
        m = statistics.median(v)
        cells = ", ".join(f"{x:.2f}" for x in v)
        print(f"{label:42s} median {m:5.2f} s  {m / base:5.2f}x [{cells}]")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3, help="fresh app servers, one per round")
    ap.add_argument(
        "--idle", type=float, default=120.0, help="seconds idle after the warm-up (default 120)"
    )
    ap.add_argument("--no-upload", action="store_true", help="skip the upload -> Compare measure")
    ap.add_argument(
        "--baseline", metavar="REV", help="also measure git revision REV, alternating with it"
    )
    ap.add_argument(
        "--fresh-only", action="store_true", help="only the fresh server's first figure per round"
    )
    ap.add_argument(
        "--static-only",
        action="store_true",
        help="only the trivial page, the rich static page and variants of it without one "
        "group of elements (what separates the home page's elements from the trivial page)",
    )
    a = ap.parse_args()
    if a.static_only:
        main_static(a.rounds)
    else:
        main(a.rounds, a.idle, not a.no_upload, a.baseline, a.fresh_only)
