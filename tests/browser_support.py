"""Helpers for the real-browser tests: a ``streamlit run app.py`` server on a free port,
Debian's headless Chromium (never a downloaded browser) and small uploadable tables.

Used by the ``tests/test_browser*.py`` files (issues 3, 28) and ``tests/test_concurrency.py`` (issue 7).
Artefacts (screenshots, the server's log) go to ``test-artifacts/`` at the repository root.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
]


def _browser_missing() -> str | None:
    if not os.access(CHROMIUM, os.X_OK):
        return f"{CHROMIUM} is not installed (scripts/run-tests.sh installs Debian's chromium)"
    return None


#: Skip marker of the browser tests: only when Debian's Chromium is missing (a missing
#: playwright package is an error: requirements-dev.txt lists it).
SKIP_REASON = _browser_missing()
needs_browser = pytest.mark.skipif(SKIP_REASON is not None, reason=SKIP_REASON or "")

#: Lines of the server log that mean something went wrong in a session.
LOG_PROBLEM = re.compile(r"Traceback|Error|Exception|CRITICAL", re.IGNORECASE)


def artifacts_dir() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class StreamlitServer:
    """``streamlit run app.py`` from the repository root on 127.0.0.1:<free port>.

    Use as a context manager; the server (its whole process group) is stopped on exit, also
    when the test fails.  stdout and stderr go to ``log_path``.
    """

    def __init__(self, log_name: str, *, startup_timeout: float = 180.0, env: dict | None = None):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = artifacts_dir() / log_name
        self.startup_timeout = startup_timeout
        self.proc: subprocess.Popen | None = None
        self._log = None
        self.extra_env = dict(env or {})

    def start(self) -> StreamlitServer:
        self._log = open(self.log_path, "wb")  # noqa: SIM115 (closed in stop)
        env = dict(os.environ)
        env.setdefault("PYTHONUNBUFFERED", "1")
        env.update(self.extra_env)
        cmd = [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.headless",
            "true",
            "--server.port",
            str(self.port),
            "--server.address",
            "127.0.0.1",
            "--browser.gatherUsageStats",
            "false",
            # another developer may be editing the sources: never rerun on their saves
            "--server.fileWatcherType",
            "none",
        ]
        self.proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,  # its own process group, so stop() ends all its children
        )
        self.wait_healthy()
        return self

    def wait_healthy(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"streamlit exited with code {self.proc.returncode}:\n{self.log_text()}"
                )
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=5) as r:
                    if r.status == 200 and r.read().strip() == b"ok":
                        return
            except OSError:
                pass
            time.sleep(0.5)
        raise TimeoutError(f"streamlit did not become healthy in {self.startup_timeout} s")

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=20)
        if self._log is not None:
            self._log.close()
            self._log = None

    def log_text(self) -> str:
        if self._log is not None:
            self._log.flush()
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def log_problems(self) -> list[str]:
        """Log lines that look like an error (a traceback, an exception, an error message)."""
        return [ln for ln in self.log_text().splitlines() if LOG_PROBLEM.search(ln)]

    def __enter__(self) -> StreamlitServer:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc) -> None:
        self.stop()


# --------------------------------------------------------------------------------------------
# Uploadable tables
# --------------------------------------------------------------------------------------------
def synthetic_csv(path: Path, n: int, d: int, seed: int) -> Path:
    """A two-class CSV with ``n`` rows, ``d`` numeric features and a ``label`` column.

    Classes ``pos``/``neg`` alternate (balanced); ``neg`` has a mean shift and a dependent pair,
    so every classifier has something to find.  Every feature is continuous and non-constant,
    so ``prepare_table`` keeps exactly ``n`` rows and ``d`` features.
    """
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(n) % 2 == 0, "pos", "neg")
    X = rng.normal(size=(n, d))
    neg = y == "neg"
    X[neg, 0] += 1.0
    X[neg, 1] = 0.8 * X[neg, 0] + 0.6 * X[neg, 1]
    frame = pd.DataFrame(X.round(5), columns=[f"s{seed}_f{j + 1}" for j in range(d)])
    frame["label"] = y
    frame.to_csv(path, index=False)
    return path


@contextmanager
def chromium():
    """A headless Debian Chromium under sync Playwright, closed on exit."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = launch_chromium(p)
        try:
            yield b
        finally:
            b.close()


def launch_chromium(playwright):
    """Debian's Chromium through a (sync or async) Playwright instance."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


# --------------------------------------------------------------------------------------------
# Shared fixtures and page waits
# --------------------------------------------------------------------------------------------
def server_fixture(log_name: str, *, env: dict | None = None):
    """A module-scoped pytest fixture ``server``: a :class:`StreamlitServer` logging to
    ``test-artifacts/<log_name>``, stopped after the module's last test.

    Use as ``server = server_fixture("browser-x-server.log", env={"SLB_WARMUP": "0"})``.
    """

    @pytest.fixture(scope="module", name="server")
    def _server():
        with StreamlitServer(log_name, env=env) as srv:
            yield srv

    return _server


def browser_fixture():
    """A module-scoped pytest fixture ``browser``: one headless Chromium (:func:`chromium`)."""

    @pytest.fixture(scope="module", name="browser")
    def _browser():
        with chromium() as b:
            yield b

    return _browser


def wait_idle(page, timeout_s: float = 300.0, quiet_s: float = 1.5, poll_ms: int = 200) -> None:
    """Wait until Streamlit's "running" indicator has been gone for ``quiet_s`` seconds.

    Polls the page's state every ``poll_ms`` ms (never a fixed wait); an AssertionError after
    ``timeout_s`` seconds of a running app.  Each test file fixes its own defaults with
    ``functools.partial``.
    """
    status = page.get_by_test_id("stStatusWidget")
    deadline = time.monotonic() + timeout_s
    quiet_since = None
    while time.monotonic() < deadline:
        if status.count() == 0 or not status.first.is_visible():
            quiet_since = quiet_since or time.monotonic()
            if time.monotonic() - quiet_since >= quiet_s:
                return
        else:
            quiet_since = None
        page.wait_for_timeout(poll_ms)
    raise AssertionError(f"the app kept running for more than {timeout_s} s")


def new_page(browser, viewport: dict, timeout_ms: float):
    """A new browser context of size ``viewport`` whose actions wait up to ``timeout_ms`` ms,
    and a page in it: ``(context, page)``."""
    ctx = browser.new_context(viewport=viewport)
    ctx.set_default_timeout(timeout_ms)
    return ctx, ctx.new_page()


#: Viewport position of a drawn cell (row, column) of a confusion chart (``slb.viz.cells``:
#: its counts in ``layout.meta``, its invisible click targets named "cells"), the cell's count
#: and the number of target traces; ``page.evaluate(CONFUSION_CELL, [selector, row, col])``.
CONFUSION_CELL = """([sel, row, col]) => {
    const el = document.querySelector(sel), xa = el._fullLayout.xaxis,
        ya = el._fullLayout.yaxis, r = el.getBoundingClientRect();
    return {x: r.left + xa._offset + xa.c2p(col), y: r.top + ya._offset + ya.c2p(row),
            count: el.layout.meta.counts[row][col],
            targets: el._fullData.filter(t => t.name === "cells").length};
}"""


def choose_option(page, box, name: str, *, attempts: int = 5, wait_ms: float = 30_000) -> None:
    """Open the selectbox ``box`` (a locator) and click its option ``name``, opening it again
    when a rerun closed the list before the option showed (a busy machine: the click on an
    expander before it starts a rerun, which redraws the box under an open list).  Waits on
    the page's state, never on time; an AssertionError after ``attempts`` tries."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    option = page.get_by_role("option", name=name)
    for _ in range(attempts):
        wait_idle(page)
        box.click()
        try:
            option.wait_for(state="visible", timeout=wait_ms)
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
            continue
        option.click()
        return
    raise AssertionError(f"the option {name!r} did not show after {attempts} tries")
