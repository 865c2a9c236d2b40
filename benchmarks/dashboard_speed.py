"""Speed of the dashboard as users feel it: server seconds of the Compare page under AppTest.

Every measurement runs in a fresh Python process (Streamlit's caches are process-wide, so a
fresh process is a fresh server) and prints the server's wall seconds, its CPU seconds and the
one-minute load average before and after.  With ``--baseline REV`` the same measurements run,
in the same invocation, on the code of git revision ``REV`` (extracted with ``git archive`` to a
temporary directory), and the results are printed as ratios ``baseline / now``.

Measures (issue 14):

* ``cold``: a fresh server, the home page, then Compare on Sonar (the numbers a first visitor
  waits for), and the λ change on Compare (median of 5 moves of the λ slider);
* ``warm``: the same after the server-start warm-up (``dashboard.warmup``) has finished, what a
  class opening the app after the server started waits for;
* ``--profile N``: the N most expensive functions of the cold Compare run (cProfile of the
  script thread, cumulative seconds).

Usage::

    python benchmarks/dashboard_speed.py                      # cold and warm, this checkout
    python benchmarks/dashboard_speed.py --baseline HEAD~3    # also the code of HEAD~3, ratios
    python benchmarks/dashboard_speed.py --profile 25         # and the cold run's profile
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

if mode == "warm":
    w, c = timed(lambda: __import__("dashboard.warmup", fromlist=["x"]).build_all())
    out["warmup"] = [w, c]
at = AppTest.from_file(os.path.join(root, "app.py"), default_timeout=900)
out["home"] = timed(at.run); check(at)
at.switch_page("pages/compare.py")
profiling["on"] = n_profile > 0
out["compare"] = timed(at.run); check(at)
profiling["on"] = False
s = at.slider(key="cmp_lambda")
moves = []
for f in (0.30, 0.45, 0.60, 0.40, 0.55):  # five new λ values, none cached
    s.set_value(round(s.max * f, 4))
    moves.append(timed(at.run)); check(at)
    s = at.slider(key="cmp_lambda")
out["lambda_median"] = [statistics.median(m[0] for m in moves),
                        statistics.median(m[1] for m in moves)]
out["lambda_max"] = [max(m[0] for m in moves), max(m[1] for m in moves)]
out["load_after"] = os.getloadavg()[0]
if n_profile:
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(n_profile)
    out["profile"] = buf.getvalue()
print("RESULT " + json.dumps(out))
"""


def run_child(root: Path, mode: str, n_profile: int = 0) -> dict:
    env = dict(os.environ, PYTHONPATH=str(root))
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
    ap.add_argument("--modes", nargs="+", default=["cold", "warm"], choices=["cold", "warm"])
    args = ap.parse_args()
    print(f"# dashboard speed ({time.strftime('%Y-%m-%d %H:%M')}), {os.cpu_count()} CPUs")
    print("command: python benchmarks/dashboard_speed.py " + " ".join(sys.argv[1:]))
    trees = [("now", ROOT)]
    tmp = None
    if args.baseline:
        tmp = tempfile.TemporaryDirectory()
        trees.append((f"baseline {args.baseline}", extract(args.baseline, Path(tmp.name))))
    results = {}
    for label, root in trees:
        for mode in args.modes:
            if mode == "warm" and not (root / "dashboard" / "warmup.py").exists():
                continue  # that revision has no server-start warm-up
            r = run_child(root, mode, args.profile if mode == "cold" else 0)
            results[(label, mode)] = r
            print(f"\n## {label}, {mode} (load average {r['load_before']:.1f} -> "
                  f"{r['load_after']:.1f})")
            if "warmup" in r:
                print(f"server-start warm-up (background)  {fmt(r['warmup'])}")
            print(f"home page                          {fmt(r['home'])}")
            print(f"Compare on Sonar                   {fmt(r['compare'])}")
            print(f"λ change on Compare, median of 5   {fmt(r['lambda_median'])}")
            print(f"λ change on Compare, max of 5      {fmt(r['lambda_max'])}")
            if r.get("profile"):
                print("\ncProfile of the Compare run (script thread, cumulative):")
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
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
