"""Server-start warm-up: the bundled datasets' default results are computed before anyone asks.

A class opening the app at once should wait only for the browser.  :func:`start` (called by
:func:`dashboard.shell.setup` on every run, but started once per server process through
``st.cache_resource``) launches one background thread that starts the worker processes of
:func:`dashboard.workqueue.offload` (their imports take seconds) and computes, for every
bundled dataset with the default settings, what the first visit of each page computes: the
screening, the clustering and layouts of the Dependencies page, the bandwidths, SLB's
per-fold path and CV BER at the default λ, the other default classifiers' CV, the full-data
SLB and TAN fits.  Each result lands in the same ``st.cache_data``/``st.cache_resource``
entry a page would fill, because the calls below are exactly the pages' calls with the
default settings (``tests/test_warmup.py`` checks that the Compare page computes nothing
after :func:`build`).

The warm-up yields to users: before each step (and before starting the worker processes) it
waits until no session's computation is running or waiting (:data:`dashboard.workqueue.QUEUE`)
and no page has been built for :data:`GRACE_S` seconds (:func:`page_run`, around every run of
``app.py``: the seconds after a run are the browser's, drawing what it received), and its steps
go through the same queue.  So the first visitor of a fresh server, who arrives while the
warm-up would start its workers and their imports, has the machine to themselves until their
page is drawn (issue 27; ``benchmarks/first_figure.py``).
``SLB_WARMUP=0`` turns it off (the test suite's AppTest runs do); ``SLB_WARMUP_DATASETS`` lists
the datasets to warm (comma-separated; default: all bundled ones, the default dataset first).

Page modules with their own cached computations add them with :func:`register`:
``register(fn)`` where ``fn(ds, ctx)`` calls them with the defaults in ``ctx``
(:class:`Defaults`).
"""

from __future__ import annotations

import atexit
import copy
import logging
import os
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

import streamlit as st

from slb import BUNDLED_DATASETS

from . import compute, controls, data, evaluation, models, state, workqueue
from .workqueue import QUEUE, quiet_thread_logs

_LOG = logging.getLogger(__name__)

#: Extra warm-up steps of page modules: ``fn(ds, ctx)``.
_EXTRA: list[Callable] = []


@dataclass(frozen=True)
class Defaults:
    """The settings of a fresh session, as the pages pass them to :mod:`dashboard.compute`."""

    measure: str
    rule: str
    seed: int
    dens: tuple
    n_folds: int
    reps: int
    lam: float


def register(step: Callable) -> Callable:
    """Add ``step(ds, ctx)`` to the warm-up of every bundled dataset; returns ``step``."""
    if step not in _EXTRA:
        _EXTRA.append(step)
    return step


def enabled() -> bool:
    """Off with ``SLB_WARMUP=0``, and by default inside pytest (tests warm what they need)."""
    return workqueue.switch("SLB_WARMUP")


def dataset_names() -> list[str]:
    default = state.DEFAULTS["bundled_name"]
    env = os.environ.get("SLB_WARMUP_DATASETS", "").strip()
    names = [n.strip() for n in env.split(",") if n.strip()] if env else list(BUNDLED_DATASETS)
    names = [n for n in names if n in BUNDLED_DATASETS]
    return sorted(names, key=lambda n: n != default)  # the default dataset first


def default_dataset(name: str):
    """The :class:`dashboard.data.Dataset` a fresh session shows for a bundled dataset."""
    cfg = copy.deepcopy(state.DEFAULTS)
    cfg["bundled_name"] = name
    return data.build(cfg, None).dataset


def defaults_for(ds) -> Defaults:
    d = state.DEFAULTS
    scr = compute.screening(ds.key, ds, d["measure"])
    return Defaults(
        measure=d["measure"],
        rule=d["pair_rule"],
        seed=int(d["seed"]),
        dens=(str(d["bw_rule"]), float(d["bw_mult"]), ()),  # state.density_key(), no overrides
        n_folds=int(ds.n_folds),
        reps=compute.affordable_repeats(ds.n, ds.d, int(d["cv_repeats"])),
        lam=controls.default_lambda(scr, d["pair_rule"]),  # controls.sync_lambda_context
    )


def _steps(ds, x: Defaults) -> list[tuple[str, Callable]]:
    """The pages' cached calls with the defaults (same positional/keyword form as the pages)."""
    key = ds.key
    out = [
        ("screening", lambda: compute.screening(key, ds, x.measure)),
        ("feature order", lambda: compute.feature_order(key, ds, x.measure)),
        ("pair graph", lambda: compute.graph_positions(key, ds, x.measure)),
        ("bandwidths", lambda: compute.bandwidths(key, ds, x.dens)),
    ]
    if getattr(ds, "multiclass", False):  # K classes: the two-class pages' paths do not apply
        return out
    out += [
        (
            "SLB's CV",
            lambda: evaluation.slb_fold_ber(
                key, ds, x.measure, x.rule, x.dens, x.n_folds, x.seed, x.lam, n_repeats=x.reps
            ),
        ),
    ]
    for name in models.DEFAULT_MODELS[1:]:
        out.append(
            (
                f"{name}'s CV",
                lambda name=name: evaluation.classifier_fold_ber(
                    ds, name, x.dens, x.n_folds, x.seed, x.reps, x.measure, x.rule
                ),
            )
        )
    out += [
        ("SLB", lambda: compute.fit_slb(key, ds, x.lam, x.measure, x.rule, x.dens, x.seed)),
        (
            "SLB's contributions",
            lambda: compute.slb_contributions(key, ds, x.lam, x.measure, x.rule, x.dens, x.seed),
        ),
        ("TAN", lambda: compute.fit_tan(key, ds, x.dens)),
        ("TAN's layout", lambda: compute.tan_tree_positions(key, ds, x.dens)),
    ]
    out += [(getattr(f, "__name__", "extra"), lambda f=f: f(ds, x)) for f in _EXTRA]
    return out


#: Seconds after the end of a page run during which the warm-up starts nothing: the browser
#: is drawing the page (plotly's first figure: 1-2 s after the run's last message on two cores).
GRACE_S = 3.0


class PageRuns:
    """How many runs of the app script are under way in this process, and when one last ended.

    Every session's run counts (a visitor's, the launcher's pre-run); fragment reruns do not
    (they do not run ``app.py``).
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._active = 0
        self._last_end = -float("inf")

    @contextmanager
    def run(self):
        with self._lock:
            self._active += 1
        try:
            yield
        finally:  # also when Streamlit stops or reruns the script (an exception through here)
            with self._lock:
                self._active -= 1
                self._last_end = time.monotonic()

    def quiet(self, grace: float, now: float | None = None) -> bool:
        """No run under way, and none ended in the last ``grace`` seconds."""
        now = time.monotonic() if now is None else now
        with self._lock:
            return self._active == 0 and now - self._last_end >= grace


#: This process's page runs (:func:`page_run`).
RUNS = PageRuns()


def page_run():
    """Context manager around one run of ``app.py`` (the warm-up waits for it and its grace)."""
    return RUNS.run()


def _idle() -> bool:
    return QUEUE.snapshot() == (0, 0) and RUNS.quiet(GRACE_S)


def _wait_until_idle(poll: float = 0.25) -> None:
    """Let every session's computation and page go first."""
    while not _idle() and not _STOP.is_set():
        time.sleep(poll)


#: Set when the server process exits (:func:`stop`): the warm-up ends after its current step.
_STOP = threading.Event()


def stop(timeout: float = 15.0) -> bool:
    """End the warm-up after its current step and wait up to ``timeout`` seconds for it.

    Registered with :mod:`atexit` when the thread starts: a daemon thread still inside numpy
    or a worker call while the interpreter shuts down can abort the process (exit -6 seen
    when a test stopped a server during its warm-up); between two steps it holds nothing.
    Returns whether no warm-up thread is running any more.
    """
    _STOP.set()
    t = _RUNNING.get("thread")
    if t is not None and t.is_alive() and t is not threading.current_thread():
        t.join(timeout)
    return t is None or not t.is_alive()


def build(name: str, *, yield_to_users: bool = True) -> dict[str, float]:
    """Compute one bundled dataset's defaults; returns seconds per step."""
    ds = default_dataset(name)
    x = defaults_for(ds)
    seconds = {}
    for what, step in _steps(ds, x):
        if yield_to_users:
            _wait_until_idle()
        if _STOP.is_set():
            break
        t0 = time.perf_counter()
        try:
            step()
        except Exception:  # a failed warm-up step only means that page computes it itself
            _LOG.exception("Warm-up of %s failed at %s", name, what)
        seconds[what] = time.perf_counter() - t0
    return seconds


def build_all(*, yield_to_users: bool = True) -> dict[str, dict[str, float]]:
    """Start the worker processes (:func:`dashboard.workqueue.start_workers`), then
    :func:`build` every dataset of :func:`dataset_names`, the default one first."""
    if yield_to_users:  # the workers' start is the warm-up's heaviest second or two
        _wait_until_idle()
    if _STOP.is_set():
        return {}
    try:
        workqueue.start_workers()
    except Exception:  # no pool: offload computes in the server, as it would anyway
        _LOG.exception("Starting the worker processes failed")
    out = {}
    for name in dataset_names():
        if _STOP.is_set():
            return out
        t0 = time.perf_counter()
        out[name] = build(name, yield_to_users=yield_to_users)
        _LOG.info("Warm-up of %s done in %.1f s", name, time.perf_counter() - t0)
    STATUS["done"] = True
    return out


#: ``{"started": bool, "done": bool}`` of this process's warm-up.
STATUS = {"started": False, "done": False}


THREAD_NAME = "slb-warmup"
#: The running warm-up thread (``"thread"``), for :func:`stop`.
_RUNNING: dict = {}


@st.cache_resource(show_spinner=False)
def _thread() -> threading.Thread:
    quiet_thread_logs(THREAD_NAME)  # it calls the cached functions outside any session
    t = threading.Thread(target=build_all, name=THREAD_NAME, daemon=True)
    STATUS["started"] = True
    _RUNNING["thread"] = t
    atexit.register(stop)
    t.start()
    return t


def start() -> None:
    """Start the warm-up thread once per server process (no-op when :func:`enabled` is False)."""
    if enabled():
        _thread()
