"""Speed of the dashboard as users feel it: server seconds of the Compare page under AppTest.

Every measurement runs in a fresh Python process (Streamlit's caches are process-wide, so a
fresh process is a fresh server) and prints the server's wall seconds, its CPU seconds and the
one-minute load average before and after.  With ``--baseline REV`` the same measurements run,
in the same invocation, on the code of git revision ``REV`` (extracted with ``git archive`` to a
temporary directory), and the results are printed as ratios ``baseline / now``.

Measures (issue 14):

* ``cold``: a fresh server, the home page, then Compare on Sonar (the numbers a first visitor
  waits for), and the λ change on Compare (median of 5 moves of the λ slider);
* ``warm``: the same after the server-start warm-up of Sonar (``dashboard.warmup.build``) has
  finished, what a class opening the app after the server started waits for;
* the CPU of one full ``gc.collect()`` at the end (what ``runner.postScriptGC`` adds to every
  rerun of every session) and the number of objects on the heap;
* ``--profile N``: the N most expensive functions of the cold Compare run (cProfile of the
  script thread, cumulative seconds).

Usage::

    python benchmarks/dashboard_speed.py                      # cold and warm, this checkout
    python benchmarks/dashboard_speed.py --baseline HEAD~3    # also the code of HEAD~3, ratios
    python benchmarks/dashboard_speed.py --profile 25         # and the cold run's profile
    python benchmarks/dashboard_speed.py --rev HEAD --baseline 8313bc9   # committed code only
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

def _profiled(self):  # AppTest runs the page in a thread: profile that thread
    if profiling["on"]:
        prof.enable()
    try:
        _orig(self)
    finally:
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
profiling["on"] = n_profile > 0 and mode == "cold"
out["compare"] = timed(at.run); check(at)
profiling["on"] = n_profile > 0 and mode != "cold"  # warm: profile the λ changes
s = at.slider(key="cmp_lambda")
moves = []
for f in (0.30, 0.45, 0.60, 0.40, 0.55):  # five new λ values, none cached
    s.set_value(round(s.max * f, 4))
    moves.append(timed(at.run)); check(at)
    s = at.slider(key="cmp_lambda")
out["lambda_median"] = [statistics.median(m[0] for m in moves),
                        statistics.median(m[1] for m in moves)]
out["lambda_max"] = [max(m[0] for m in moves), max(m[1] for m in moves)]
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


def run_child(root: Path, mode: str, n_profile: int = 0) -> dict:
    env = dict(os.environ, PYTHONPATH=str(root))
    env["STREAMLIT_RUNNER_POST_SCRIPT_GC"] = "false" if mode == "warm-nogc" else "true"
    res = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), mode, str(n_profile)],
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
    )
    for line in res.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"measurement failed in {root} ({mode}):\n{res.stderr[-3000:]}")


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
        choices=["cold", "warm", "warm-nogc"],
        help="warm-nogc: warm with runner.postScriptGC = false (the setting's measurement)",
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
            if mode != "cold" and not (root / "dashboard" / "warmup.py").exists():
                continue  # that revision has no server-start warm-up
            r = run_child(root, mode, args.profile)
            results[(label, mode)] = r
            print(f"\n## {label}, {mode} (load average {r['load_before']:.1f} -> "
                  f"{r['load_after']:.1f})")
            if "warmup" in r:
                print(f"server-start warm-up (background)  {fmt(r['warmup'])}")
            print(f"home page                          {fmt(r['home'])}")
            print(f"Compare on Sonar                   {fmt(r['compare'])}")
            print(f"λ change on Compare, median of 5   {fmt(r['lambda_median'])}")
            print(f"λ change on Compare, max of 5      {fmt(r['lambda_max'])}")
            print(f"one full gc.collect (postScriptGC)  {1000 * r['gc_full']:7.1f} ms CPU, "
                  f"{r['heap_objects_end']:,} objects on the heap")
            if "peak_rss_mb" in r:
                print(f"peak RSS of the process           {r['peak_rss_mb']:7.0f} MB")
            if r.get("profile"):
                what = "the Compare run" if mode == "cold" else "the five λ changes"
                print(f"\ncProfile of {what} (script thread, cumulative):")
                print("\n".join(r["profile"].splitlines()[:12 + args.profile]))
    if args.baseline:
        print(f"\n## ratios, baseline {args.baseline} / now (wall seconds)")
        base = f"baseline {args.baseline}"
        for mode in args.modes:
            now_r = results.get(("now", mode))
            ref = results.get((base, mode)) or results.get((base, "cold"))
            if now_r is None or ref is None:
                continue
            for what in ("home", "compare", "lambda_median"):
                ratio = ref[what][0] / max(now_r[what][0], 1e-9)
                print(f"{what:14s} now {mode:4s} {now_r[what][0]:7.2f} s, baseline cold "
                      f"{ref[what][0]:7.2f} s: {ratio:5.1f}x")
    tmp.cleanup()


if __name__ == "__main__":
    main()
