"""Speed of the dashboard as users feel it: server seconds of the Compare page under AppTest.

Every measurement runs in a fresh Python process (Streamlit's caches are process-wide, so a
fresh process is a fresh server) and prints the server's wall seconds, its CPU seconds and the
one-minute load average before and after.  With ``--baseline REV`` the same measurements run,
in the same invocation, on the code of git revision ``REV`` (extracted with ``git archive`` to a
temporary directory), and the results are printed as ratios ``baseline / now``.

Measures (issue 14):

* ``cold``: a fresh server, the home page, then Compare on Sonar (the numbers a first visitor
  waits for), and the λ change on Compare (median of 5 moves of the λ slider);
* ``started``: the same, with the worker processes of ``dashboard.workqueue.offload``
  already running and their imports done, and no warm-up: what a visitor's own Sonar-sized
  table waits for on a running server (the worker start is measured by ``cold``, whose
  warm-up thread starts the workers at the home page and works beside it);
* ``warm``: the same after the server-start warm-up of Sonar (``dashboard.warmup.build``) has
  finished, what a class opening the app after the server started waits for;
* the CPU of one full ``gc.collect()`` at the end (what ``runner.postScriptGC`` adds to every
  rerun of every session) and the number of objects on the heap;
* ``--profile N``: the N most expensive functions of the cold Compare run (cProfile of the
  script thread, cumulative seconds);
* ``session``: the server CPU of classroom sessions (each uploads a small table of its own and
  opens Compare with the default settings), one after the other, after a first visit paid the
  process's imports: CPU of the page runs' own threads (the server's work, not AppTest's) and of
  the whole process;
* ``class``: ``--sessions`` such sessions at once in one process (threads, as a Streamlit
  server runs them): median wall time and CPU per session, no browsers (AppTest's per-run
  process-wide state is set once for the process, so concurrent sessions do not reset each
  other's, and each session has its own id, which the heavy-work line ranks by);
  both session modes count the CPU of the threads a page run starts, the worker processes'
  CPU and the path, TAN and warm-fold fits of each session; ``--profile N`` profiles them;
* ``heavy``: light sessions (96 x 6 upload + Compare) alone, then beside one heavy session
  (a 7,400 x 20 upload + Compare): the slowdown ratio beside / alone (target <= 1.5x).

Usage::

    python benchmarks/dashboard_speed.py                      # cold and warm, this checkout
    python benchmarks/dashboard_speed.py --baseline HEAD~3    # also the code of HEAD~3, ratios
    python benchmarks/dashboard_speed.py --profile 25         # and the cold run's profile
    python benchmarks/dashboard_speed.py --rev HEAD --baseline 8313bc9   # committed code only
    python benchmarks/dashboard_speed.py --modes session class heavy --sessions 8
    python benchmarks/dashboard_speed.py --modes session class --sessions 30 --baseline c7e9a49
    python benchmarks/dashboard_speed.py --modes session --sessions 30 --profile 40
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# --------------------------------------------------------------------------------------------
# the child: one fresh "server" (AppTest process), timed
# --------------------------------------------------------------------------------------------
CHILD = r"""
import cProfile, io, json, os, pstats, statistics, sys, time
os.environ["STREAMLIT_CLIENT_SHOW_ERROR_DETAILS"] = "full"
root, mode, n_profile = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, root)
os.chdir(root)
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1 import local_script_runner as lsr

prof = cProfile.Profile()
profiling = {"on": False}
_orig = lsr.LocalScriptRunner._run_script_thread

SCRIPT_CPU = []  # CPU seconds of each page run's own thread (the server's work, no harness)

def _profiled(self):  # AppTest runs the page in a thread: profile that thread
    if profiling["on"]:
        prof.enable()
    t = time.thread_time()
    try:
        _orig(self)
    finally:
        SCRIPT_CPU.append(time.thread_time() - t)
        if profiling["on"]:
            prof.disable()

lsr.LocalScriptRunner._run_script_thread = _profiled
out = {"load_before": os.getloadavg()[0]}

def timed(fn):
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c

def check(at):
    assert not at.exception, [e.value for e in at.exception]

if mode == "started":  # worker processes running, imports done, no dataset computed
    os.environ["SLB_WARMUP"] = "0"
    from dashboard import workqueue
    # the same for every revision (older code has no start_workers): each worker takes one
    # task (the sleep keeps it busy while the others take theirs) and imports what
    # offloaded work unpickles
    ex = workqueue._executor()
    probe = ("__import__('time').sleep(2) or [__import__(m) for m in ('slb.model.path', "
             "'slb.model.classifier', 'slb.evaluation.comparison', 'slb.peers')] "
             "and __import__('os').getpid()")
    tasks = [ex.submit(eval, probe) for _ in range(os.cpu_count() or 1)]
    out["workers_started"] = len({t.result() for t in tasks})
if mode.startswith("warm"):
    from dashboard import warmup
    w, c = timed(lambda: warmup.build("sonar", yield_to_users=False))
    out["warmup"] = [w, c]
import gc
gc.collect()
out["heap_objects"] = len(gc.get_objects())
at = AppTest.from_file(os.path.join(root, "app.py"), default_timeout=900)
out["home"] = timed(at.run); check(at)
at.switch_page("pages/compare.py")
profiling["on"] = n_profile > 0 and mode in ("cold", "started")
out["compare"] = timed(at.run); check(at)
profiling["on"] = n_profile > 0 and mode.startswith("warm")  # the λ changes
s = at.select_slider(key="cmp_lambda")  # positions: the distinct pair scores, then ∞
moves = []
for f in (0.30, 0.45, 0.60, 0.40, 0.55):  # five new λ values, none cached
    values = [v for v in s.format_func.values if v != float("inf")]
    s.set_value(min(values, key=lambda v: abs(v - f * values[-1])))  # nearest to f x max
    moves.append(timed(at.run)); check(at)
    s = at.select_slider(key="cmp_lambda")
out["lambda_median"] = [statistics.median(m[0] for m in moves),
                        statistics.median(m[1] for m in moves)]
out["lambda_max"] = [max(m[0] for m in moves), max(m[1] for m in moves)]
out["lambda_script_cpu"] = statistics.median(SCRIPT_CPU[-5:])
profiling["on"] = False
out["load_after"] = os.getloadavg()[0]
# what runner.postScriptGC costs every rerun of every session: one full collection
gcs = []
for _ in range(5):
    t = time.process_time(); gc.collect(2); gcs.append(time.process_time() - t)
out["gc_full"] = statistics.median(gcs)
out["heap_objects_end"] = len(gc.get_objects())
import resource
out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
if n_profile:
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(n_profile)
    out["profile"] = buf.getvalue()
print("RESULT " + json.dumps(out))
"""


# --------------------------------------------------------------------------------------------
# classroom children: sessions that upload their own small table and open Compare (issue 14)
# --------------------------------------------------------------------------------------------
SESSIONS = r"""
import contextlib, cProfile, io, json, os, pstats, statistics, sys, threading, time
os.environ["STREAMLIT_CLIENT_SHOW_ERROR_DETAILS"] = "full"
os.environ["SLB_WARMUP"] = "0"  # the sessions' work only (the warm-up is measured above)
root, mode, n_sessions = sys.argv[1], sys.argv[2], int(sys.argv[3])
n_profile = int(os.environ.get("SLB_BENCH_PROFILE", "0"))
sys.path.insert(0, root)
os.chdir(root)
import numpy as np, pandas as pd
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1 import local_script_runner as lsr
from dashboard.data import make_upload

# AppTest is made for one app at a time: every run sets process-wide state (the Runtime
# instance, PagesManager.uses_pages_directory, a patched config.get_option) and resets it at
# its end, so concurrent sessions in threads saw each other's resets (a session ran the home
# page instead of Compare, or lost its run's bookkeeping).  The class modes set that state
# once, as one server process has it, and make AppTest's per-run set/reset touch a copy.
from unittest.mock import MagicMock
from streamlit.runtime import Runtime
from streamlit.runtime.caching.storage.dummy_cache_storage import MemoryCacheStorageManager
from streamlit.runtime.dataframe_source_manager import DataframeSourceManager
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import app_test as _app_test
from streamlit.testing.v1.util import patch_config_options

class _SessionRuntime(Runtime):  # AppTest's per-run `Runtime._instance = ...` lands here
    pass

class _SessionPages(PagesManager):  # and its per-run `uses_pages_directory = None` here
    pass

_rt = MagicMock(spec=Runtime)
_rt.media_file_mgr = MediaFileManager(MemoryMediaFileStorage("/mock/media"))
_rt.dataframe_source_mgr = DataframeSourceManager()
_rt.cache_storage_manager = MemoryCacheStorageManager()
Runtime._instance = _rt
_app_test.Runtime = _SessionRuntime
_app_test.PagesManager = _SessionPages
_APP_TEST_CONFIG = patch_config_options({"global.appTest": True})  # kept: the whole process
_APP_TEST_CONFIG.__enter__()
_app_test.patch_config_options = lambda overrides: contextlib.nullcontext()
# one compiled copy of each page for the process, as a server's Runtime keeps (AppTest compiles
# every page again in every run: 4 ms per run of app.py and compare.py)
from streamlit.runtime.scriptrunner.script_cache import ScriptCache
_SCRIPT_CACHE = ScriptCache()
_app_test.ScriptCache = lsr.ScriptCache = lambda: _SCRIPT_CACHE
# AppTest polls for the end of a run every millisecond: 30 waiting sessions would spend the
# cores on polling; 20 ms adds at most that to a run's wall time and nothing to its CPU
def _wait_end(runner, timeout=3):
    t0 = time.time()
    while time.time() - t0 < timeout:
        if runner.script_stopped():
            return
        time.sleep(0.02)
    runner.request_stop()
    runner.join()
    raise RuntimeError(f"AppTest script run timed out after {timeout}(s)")
lsr.require_widgets_deltas = _wait_end

CPU = {}  # script-thread CPU seconds of every page run, by session name
HELPERS = {}  # CPU seconds of the threads a session's page runs started (prefetch, notices)
_LOCK = threading.Lock()
_orig = lsr.LocalScriptRunner._run_script_thread
tag = threading.local()
# sessions one at a time: wall clock (low overhead); at once: each thread's CPU (not GIL waits)
PROFILE = {"on": False, "stats": [], "timer": () if mode == "session" else (time.thread_time,)}

def _add(book, name, seconds):
    with _LOCK:
        book[name] = book.get(name, 0.0) + seconds

def _timed(self):  # AppTest runs each page run in a thread: its CPU is the server's work
    tag.script = getattr(self, "_slb_session", "?")
    prof = cProfile.Profile(*PROFILE["timer"]) if PROFILE["on"] else None
    if prof:
        prof.enable()
    t = time.thread_time()
    try:
        _orig(self)
    finally:
        _add(CPU, tag.script, time.thread_time() - t)
        if prof:
            prof.disable()
            with _LOCK:
                PROFILE["stats"].append(prof)

lsr.LocalScriptRunner._run_script_thread = _timed

_thread_init, _thread_run = threading.Thread.__init__, threading.Thread.run
def _helper_init(self, *a, **k):
    _thread_init(self, *a, **k)
    self._slb_owner = getattr(tag, "script", None)  # started from a session's page run

def _helper_run(self):
    owner = getattr(self, "_slb_owner", None)
    if owner is None:
        return _thread_run(self)
    tag.script = owner
    prof = cProfile.Profile(*PROFILE["timer"]) if PROFILE["on"] else None
    if prof:
        prof.enable()
    t = time.thread_time()
    try:
        _thread_run(self)
    finally:
        _add(HELPERS, owner, time.thread_time() - t)
        if prof:
            prof.disable()
            with _LOCK:
                PROFILE["stats"].append(prof)

threading.Thread.__init__, threading.Thread.run = _helper_init, _helper_run

# AppTest gives every session the same id ("test session id"); a server gives each its own,
# which the heavy-work line ranks by (dashboard.workqueue.SessionRanks): the sessions here get
# theirs, the harness's tag (older revisions without the ranks ignore it).
from dashboard import workqueue as _wq

if hasattr(_wq, "current_session"):
    _wq.current_session = lambda: getattr(tag, "script", None)

# the expensive computations a session's Compare pays, counted (a cache entry evicted by other
# sessions and computed again shows as a count above 1)
FITS = {}
from slb.model.path import ThresholdPath
from slb.model.warm import WarmFolds
from slb.peers.tan import TANClassifier

def _counted(cls, method, what):
    orig = getattr(cls, method)
    def wrapper(self, *a, **k):
        name = getattr(tag, "script", "?")
        with _LOCK:
            book = FITS.setdefault(name, {})
            book[what] = book.get(what, 0) + 1
        return orig(self, *a, **k)
    setattr(cls, method, wrapper)

_counted(ThresholdPath, "fit", "path fits")
_counted(WarmFolds, "__init__", "warm folds")
_counted(TANClassifier, "fit", "TAN fits")
_init = lsr.LocalScriptRunner.__init__
def _init_tagged(self, *a, **k):
    _init(self, *a, **k)
    self._slb_session = getattr(tag, "name", "?")
lsr.LocalScriptRunner.__init__ = _init_tagged

def table(n, d, seed):
    # a small table of its own: d features, two of them dependent in the positive class
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = rng.random(n) < 0.45
    X[y, 1] = 0.8 * X[y, 0] + 0.5 * X[y, 1]
    X[:, 2] += 0.8 * y
    df = pd.DataFrame(X.round(4), columns=[f"s{seed}_f{j}" for j in range(d)])
    df["label"] = np.where(y, "sick", "healthy")
    return df.to_csv(index=False).encode()

def session(name, n, d, seed, out):
    tag.name = name
    t0 = time.perf_counter()
    at = AppTest.from_file(os.path.join(root, "app.py"), default_timeout=1800)
    at.run()
    at.session_state["upload"] = make_upload(f"{name}.csv", table(n, d, seed))
    at.radio(key="data_source").set_value("upload").run()
    at.switch_page("pages/compare.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    ds = at.session_state["data_build"].dataset
    assert ds.n == min(n, 1000) and ds.d == d, (ds.n, ds.d)  # its own data
    out[name] = time.perf_counter() - t0

ERRORS = []

def guarded(*args):
    try:
        session(*args)
    except BaseException as e:  # reported, not swallowed by the thread
        import traceback
        ERRORS.append(f"{args[0]}: {traceback.format_exc()[-1500:]}")

def run_all(specs):
    out, threads = {}, []
    for name, n, d, seed in specs:
        th = threading.Thread(target=guarded, args=(name, n, d, seed, out))
        threads.append(th); th.start()
    for th in threads:
        th.join()
    return out

res = {"load_before": os.getloadavg()[0]}
# one first visit pays the process's imports (a running server has paid them)
session("first", 90, 4, 999, {})
CPU.clear()
HELPERS.clear()
FITS.clear()
import psutil
_me = psutil.Process()

def _children_cpu():  # worker processes (joblib's when cores are idle, the niced pool)
    total = 0.0
    for ch in _me.children(recursive=True):
        try:
            t = ch.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            pass
    return total

children0 = _children_cpu()
CHILDREN = {}  # session mode: the worker processes' CPU during each session
PROFILE["on"] = n_profile > 0 and mode in ("session", "class")  # a profile per thread
cpu0 = time.process_time()
if mode == "session":  # one after the other: server CPU per session
    walls = {}
    for i in range(n_sessions):
        c0 = _children_cpu()
        walls.update(run_all([(f"s{i}", 60 + 12 * i, 4 + i % 4, i)]))
        CHILDREN[f"s{i}"] = max(0.0, _children_cpu() - c0)  # joblib's workers, when idle cores
elif mode == "class":  # all at once, like a class opening the page together
    walls = run_all([(f"s{i}", 60 + 12 * i, 4 + i % 4, i) for i in range(n_sessions)])
else:  # heavy: light sessions alone, then the same light sessions beside one big upload
    alone = {}
    for i in range(n_sessions):
        alone.update(run_all([(f"alone{i}", 96, 6, 100 + i)]))
    res["light_alone"] = alone
    heavy_out = {}
    heavy_d = int(os.environ.get("SLB_BENCH_HEAVY_FEATURES", "20"))
    heavy = threading.Thread(target=guarded, args=("heavy", 7400, heavy_d, 7, heavy_out))
    heavy.start()
    time.sleep(5.0)  # the big upload is being read and cross-validated
    beside = {}
    for i in range(n_sessions):
        if not heavy.is_alive():
            break
        beside.update(run_all([(f"beside{i}", 96, 6, 200 + i)]))  # new data: no cache hits
    res["heavy_running_at_end"] = heavy.is_alive()
    heavy.join()
    res["light_beside_heavy"] = beside
    res["heavy_wall"] = heavy_out.get("heavy")
    walls = {**alone, **beside}
res["cpu_process"] = time.process_time() - cpu0
res["cpu_children"] = _children_cpu() - children0  # those alive at the end
PROFILE["on"] = False
res["cpu_script"] = dict(CPU)
res["cpu_helpers"] = dict(HELPERS)
res["cpu_children_by_session"] = CHILDREN
res["fits"] = {k: v for k, v in FITS.items() if k != "first"}
if PROFILE["stats"]:
    buf = io.StringIO()
    st_ = pstats.Stats(PROFILE["stats"][0], stream=buf)
    for p in PROFILE["stats"][1:]:
        st_.add(p)
    st_.sort_stats("cumulative").print_stats(n_profile)
    res["profile"] = buf.getvalue()
    if os.environ.get("SLB_BENCH_PROFILE_OUT"):  # the raw statistics, for pstats
        st_.dump_stats(os.environ["SLB_BENCH_PROFILE_OUT"])
    res["profile_sessions"] = n_sessions
res["walls"] = walls
res["load_after"] = os.getloadavg()[0]
from dashboard.workqueue import WAITED
res["queue_waits"] = sorted(WAITED.seconds)[-5:]
res["errors"] = ERRORS
print("RESULT " + json.dumps(res))
print("CPU", json.dumps(CPU), file=sys.stderr)
"""


def _run_fresh(code: str, root: Path, mode: str, arg: int, timeout: int, **env_extra) -> dict:
    """Run ``code`` in a fresh Python process on the code at ``root``; its ``RESULT`` line."""
    env = dict(os.environ, PYTHONPATH=str(root), **env_extra)
    res = subprocess.run(
        [sys.executable, "-c", code, str(root), mode, str(arg)],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )
    for line in res.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"measurement failed in {root} ({mode}):\n{res.stderr[-3000:]}")


def run_sessions(
    root: Path,
    mode: str,
    n_sessions: int,
    heavy_features: int = 20,
    n_profile: int = 0,
) -> dict:
    return _run_fresh(
        SESSIONS,
        root,
        mode,
        n_sessions,
        timeout=3600,
        SLB_BENCH_HEAVY_FEATURES=str(heavy_features),
        SLB_BENCH_PROFILE=str(n_profile),
    )


def report_sessions(label: str, mode: str, r: dict) -> None:
    import statistics

    cpu = {k: v for k, v in r["cpu_script"].items() if k != "heavy"}
    helpers = r.get("cpu_helpers", {})
    server = {k: v + helpers.get(k, 0.0) for k, v in cpu.items()}
    children = r.get("cpu_children_by_session") or {}
    for err in r.get("errors", []):
        print(f"session failed: {err}")
    print(f"\n## {label}, {mode} (load average {r['load_before']:.1f} -> {r['load_after']:.1f})")
    if mode in ("session", "class"):
        n = len(r["walls"])
        print(f"sessions                           {n} ({len(r.get('errors', []))} failed)")
        print(
            f"server CPU per session (script)    {statistics.median(cpu.values()):7.2f} s "
            f"median, {max(cpu.values()):.2f} s max"
        )
        print(
            f"  + threads its runs started       {statistics.median(server.values()):7.2f} s "
            f"median, {max(server.values()):.2f} s max (the prefetch: target <= 0.7 s)"
        )
        if children:
            total = {k: v + children.get(k, 0.0) for k, v in server.items()}
            print(
                f"  + worker processes meanwhile     {statistics.median(total.values()):7.2f} s "
                f"median, {max(total.values()):.2f} s max (joblib's folds when a core is idle)"
            )
        print(f"server CPU per session (process)   {r['cpu_process'] / n:7.2f} s (all threads)")
        if "cpu_children" in r:
            print(
                f"  + its worker processes           "
                f"{(r['cpu_process'] + r['cpu_children']) / n:7.2f} s (joblib's when cores are "
                "idle; the process CPU includes AppTest's own work)"
            )
        print(
            f"wall time per session              {statistics.median(r['walls'].values()):7.2f} s "
            f"median, {max(r['walls'].values()):.2f} s max"
        )
        if r.get("fits"):
            counts = {}
            for book in r["fits"].values():
                for what, c in book.items():
                    counts.setdefault(what, []).append(c)
            print(
                "computed per session (median, max): "
                + ", ".join(
                    f"{what} {statistics.median(c):g}, {max(c)}"
                    for what, c in sorted(counts.items())
                )
            )
        if r.get("profile"):
            print(
                f"\ncProfile of {r['profile_sessions']} sessions' page runs and the threads "
                "they started (cumulative):"
            )
            print(r["profile"])
        return
    alone = statistics.median(r["light_alone"].values())
    beside = r["light_beside_heavy"]
    print(f"light session alone (wall)         {alone:7.2f} s median of {len(r['light_alone'])}")
    if beside:
        b = statistics.median(beside.values())
        print(f"light session beside the heavy one {b:7.2f} s median of {len(beside)}")
        print(f"ratio beside / alone               {b / alone:7.2f}x (target <= 1.5x)")
    else:
        print("light session beside the heavy one: the heavy session ended first")
    print(
        f"heavy session (7,400-row upload + Compare) {r['heavy_wall']:.1f} s wall, "
        f"{r['cpu_script'].get('heavy', float('nan')):.1f} s script CPU"
    )
    print(f"longest waits in the heavy-work line: {[round(w, 2) for w in r['queue_waits']]} s")


def run_child(root: Path, mode: str, n_profile: int = 0) -> dict:
    gc_after = "false" if mode == "warm-nogc" else "true"
    return _run_fresh(
        CHILD, root, mode, n_profile, timeout=1800, STREAMLIT_RUNNER_POST_SCRIPT_GC=gc_after
    )


def extract(rev: str, into: Path) -> Path:
    """The tree of git revision ``rev`` in a new directory (``git archive``; the repository
    and its working tree are not touched)."""
    tar = into / "tree.tar"
    with open(tar, "wb") as fh:
        subprocess.run(["git", "-C", str(ROOT), "archive", rev], stdout=fh, check=True)
    dest = into / "tree"
    dest.mkdir()
    with tarfile.open(tar) as tf:
        tf.extractall(dest, filter="data")
    return dest


def fmt(pair) -> str:
    return f"{pair[0]:7.2f} s ({pair[1]:6.2f} s CPU)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--baseline", help="git revision to measure in the same run (ratios)")
    ap.add_argument("--profile", type=int, default=0, help="print the top N of the cold profile")
    ap.add_argument(
        "--modes",
        nargs="+",
        default=["cold", "warm", "warm-nogc"],
        choices=["cold", "started", "warm", "warm-nogc", "session", "class", "heavy"],
        help="warm-nogc: warm with runner.postScriptGC = false (the setting's measurement); "
        "session: server CPU per classroom session (own small upload + Compare), one after the "
        "other; class: --sessions of them at once; heavy: light sessions alone and beside one "
        "7,400 x 20 upload on Compare (the slowdown ratio)",
    )
    ap.add_argument("--sessions", type=int, default=8, help="sessions of the classroom modes")
    ap.add_argument(
        "--heavy-features",
        type=int,
        default=20,
        help="features of the heavy mode's upload (its 7,400 rows are sampled to the upload "
        "limit, 1,000 by default; 60 puts it above the Compare page's CV budget)",
    )
    ap.add_argument(
        "--rev",
        help="measure this git revision as 'now' instead of the working tree (others' "
        "uncommitted edits then do not enter the numbers)",
    )
    args = ap.parse_args()
    print(f"# dashboard speed ({time.strftime('%Y-%m-%d %H:%M')}), {os.cpu_count()} CPUs")
    print("command: python benchmarks/dashboard_speed.py " + " ".join(sys.argv[1:]))
    tmp = tempfile.TemporaryDirectory()
    now_root = ROOT
    if args.rev:
        (Path(tmp.name) / "now").mkdir()
        now_root = extract(args.rev, Path(tmp.name) / "now")
    trees = [("now", now_root)]
    if args.baseline:
        (Path(tmp.name) / "base").mkdir()
        base_root = extract(args.baseline, Path(tmp.name) / "base")
        trees.append((f"baseline {args.baseline}", base_root))
    results = {}
    for label, root in trees:
        for mode in args.modes:
            if mode in ("session", "class", "heavy"):
                r = run_sessions(root, mode, args.sessions, args.heavy_features, args.profile)
                results[(label, mode)] = r
                report_sessions(label, mode, r)
                continue
            if mode.startswith("warm") and not (root / "dashboard" / "warmup.py").exists():
                continue  # that revision has no server-start warm-up
            r = run_child(root, mode, args.profile)
            results[(label, mode)] = r
            print(
                f"\n## {label}, {mode} (load average {r['load_before']:.1f} -> "
                f"{r['load_after']:.1f})"
            )
            if "workers_started" in r:
                print(f"worker processes started before    {r['workers_started']}")
            if "warmup" in r:
                print(f"server-start warm-up (background)  {fmt(r['warmup'])}")
            print(f"home page                          {fmt(r['home'])}")
            print(f"Compare on Sonar                   {fmt(r['compare'])}")
            print(f"λ change on Compare, median of 5   {fmt(r['lambda_median'])}")
            print(f"λ change on Compare, max of 5      {fmt(r['lambda_max'])}")
            if "lambda_script_cpu" in r:
                print(
                    f"λ change, page thread's CPU, median {r['lambda_script_cpu']:6.3f} s "
                    "(profiler off in warm modes)"
                )
            print(
                f"one full gc.collect (postScriptGC)  {1000 * r['gc_full']:7.1f} ms CPU, "
                f"{r['heap_objects_end']:,} objects on the heap"
            )
            if "peak_rss_mb" in r:
                print(f"peak RSS of the process           {r['peak_rss_mb']:7.0f} MB")
            if r.get("profile"):
                what = "the five λ changes" if mode.startswith("warm") else "the Compare run"
                print(f"\ncProfile of {what} (script thread, cumulative):")
                print("\n".join(r["profile"].splitlines()[: 12 + args.profile]))
    if args.baseline:
        print(f"\n## ratios, baseline {args.baseline} / now (wall seconds)")
        base = f"baseline {args.baseline}"
        for mode in args.modes:
            if mode in ("session", "class", "heavy"):
                continue
            now_r = results.get(("now", mode))
            ref = results.get((base, mode)) or results.get((base, "cold"))
            if now_r is None or ref is None:
                continue
            for what in ("home", "compare", "lambda_median"):
                ratio = ref[what][0] / max(now_r[what][0], 1e-9)
                print(
                    f"{what:14s} now {mode:4s} {now_r[what][0]:7.2f} s, baseline {mode} "
                    f"{ref[what][0]:7.2f} s: {ratio:5.1f}x"
                )
    tmp.cleanup()


if __name__ == "__main__":
    main()
