"""The library at scale (issue 14, items 4-6): wide tables, tall tables, beyond one machine.

Each case runs in a fresh subprocess (wall time, peak RSS of that process), with the
one-minute load average before and after: the development machine is a shared 2-core box, so
absolute times are noisy; where the previous code path can still be run (the nested selection
on every row, every candidate pair) it is run in the same invocation and printed as a ratio.

Cases (the targets' rows of issue 14)
-------------------------------------
* ``cv7400``: 5-fold CV of ``SLBClassifier()`` on Ringnorm-like data (d = 20, n = 7,400);
* ``wide``: one default fit at d = 1,000, n = 500 (a forest-like dependence in each class);
* ``tall``: one default fit at d = 20, n = 100,000 (Ringnorm-like);
* ``dask``: the same fit locally and on a ``dask.distributed.LocalCluster`` (2 worker
  processes) through ``joblib.parallel_backend("dask")``: identical or not;
* ``subsample``: what the row subsample of the selection changes: the selection on a
  ``max_search_rows`` subsample vs on every row, on synthetic data (Ringnorm-like and the SLB
  paper's forest design): the selected (fraction, C) and the held-out BER of both final models;
* ``permuted``: one default fit on permuted labels (n = 3,000, d = 8; the true BER is 50 %),
  where libsvm at large C is slowest; with the inner CV's smallest BER.

Every case prints wall and CPU seconds (``cpu_s``, all threads of the case's process) and peak
RSS.  ``--previous DIR`` also runs each case on the code in ``DIR`` (e.g. ``git worktree add
/tmp/prev HEAD~1``, or ``git archive``), in the same invocation, and prints the ratios: on a
shared machine the CPU ratio is the number to trust.

References (``--reference``): ``cv7400`` and ``subsample`` with the selection on every row (the
code path before the subsample), ``wide`` at d = 300 with and without the pair cap (the
uncapped selection at d = 1,000 needed 11.7 GB).

Measured on the shared 2-core machine, 2026-11-23 (load average in brackets)
-----------------------------------------------------------------------------
* cv7400: 84 s, 576 MB, BER 1.58 % [1.1-1.9]; one outer fold's fit (n = 5,920): 21 s vs 79 s
  with the selection on every row (3.7x), same fraction 0.5 (C 0.03 vs 0.1) [2.0];
* wide (d = 1,000, n = 500): 95 s, 972 MB, 5,710 candidate pairs [2.1-2.5] (before: 170-260 s,
  11.7 GB, issue 14); 300 s at load 9-13;
* tall (d = 20, n = 100,000): 33 s, 939 MB [9-13];
* dask: identical model; 47 s local, 61 s on the LocalCluster [1.9-2.9];
* subsample at n = 4,000 (held-out BER, subsample vs every row): Ringnorm-like 1.30 vs 1.37 %,
  forest 1.22 vs 1.12 %; the selected cells differed.

After the faster exact paths (``--previous`` = the code before them, same invocation;
CPU seconds, load average in brackets), 2026-11-23 afternoon:

* wide: 96 s, 85 s CPU, 970 MB [1.6-3.2] vs 120 s, 102 s CPU [3.2-4.7]: CPU ratio 1.21x
  (1.39x and 1.47x in two runs at load 4-20); same selection;
* cv7400: 87 s, 86 s CPU, 519 MB [1.2-2.0] vs 132 s, 103 s CPU [2.0-2.9]: CPU ratio 1.20x,
  time 1.51x (0.96x and 1.01x in runs at load 4-11), BER 1.58 % both;
* permuted (n = 3,000, d = 8): 94 s, 93 s CPU vs 141 s, 103 s CPU (1.11x); the same cell
  (fraction 0.5, C = 0.01), inner minimum BER 48.7 %.

After the cache-sized KDE chunks (2026-11-26, load 0.8-1.5): cv7400 53.5 s, 56.6 s CPU, 479 MB;
with ``--cv-jobs 2`` 34.6 s; BER 1.58 %.  wide: 47.4 s, 68.6 s CPU, 1.17 GB [1.3-1.4], the previous
session's code 47.8 s in the same run (the 95 s above were at load 2.1-2.5).  With the KDE's
in-place floors and logs (2026-11-26 afternoon): wide 45.9 s, 1.15 GB [1.0-1.2] against
48.1 s, 1.19 GB for the code before them [1.2-1.5].

Run from the project root::

    python benchmarks/scale.py                  # the targets' rows (about 10 minutes, idle)
    python benchmarks/scale.py --reference      # plus the previous code paths (much longer)
    python benchmarks/scale.py --case wide      # one case
    python benchmarks/scale.py --case wide --previous /tmp/prev   # ratio to older code
    python benchmarks/scale.py --case cv7400 --cv-jobs 2   # outer folds in 2 processes
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
#: The library the cases import: this checkout, or (``--previous DIR``, set for the case
#: subprocesses) another tree, e.g. ``git worktree add /tmp/prev HEAD~1``, for ratios measured
#: in the same run.
CODE = Path(os.environ.get("SLB_BENCH_CODE", ROOT))
sys.path.insert(0, str(CODE))


# ---------------------------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------------------------
def ringnorm(n, d=20, seed=0):
    """Breiman's Ringnorm: class 0 ~ N(0, 4 I), class 1 ~ N(a 1, I) with a = 2 / sqrt(d)."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = rng.normal(size=(n, d))
    X[y == 0] *= 2.0
    X[y == 1] += 2.0 / np.sqrt(d)
    return X, y


def wide(n, d, seed=0):
    """Chains x_{2k+1} = 0.8 x_{2k} + noise in class 1 only (for 10 % of the features)."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = rng.normal(size=(n, d))
    for k in range(0, d // 10, 2):
        X[y == 1, k + 1] = 0.8 * X[y == 1, k] + 0.6 * X[y == 1, k + 1]
    X[y == 1, -1] += 0.5
    return X, y


# ---------------------------------------------------------------------------------------------
# one case in this process (called by the subprocess)
# ---------------------------------------------------------------------------------------------
def permuted(n, seed=0):
    """Labels independent of the features (true BER 50 %): ``tests/test_nested_selection``'s
    continuous shape (d = 8: a linear and a sine dependence), 40 % / 60 % classes."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 8))
    X[:, 1] += 0.8 * X[:, 0]
    X[:, 3] += np.sin(2 * X[:, 2])
    y = rng.permutation(np.r_[np.zeros(n * 2 // 5, int), np.ones(n - n * 2 // 5, int)])
    return X, y


def _slb(full):
    """The default SLB; ``full``: the selection on every row and every candidate pair."""
    from slb import SLBClassifier

    if not full:
        rows = os.environ.get("SLB_BENCH_SEARCH_ROWS")  # --search-rows: a user's setting
        return SLBClassifier(random_state=0, **({"max_search_rows": int(rows)} if rows else {}))
    try:
        return SLBClassifier(random_state=0, max_search_rows=None, search_memory_mb=None)
    except TypeError:  # code before the settings were parameters: the module settings
        import slb.model.path as path_module

        path_module.MAX_SEARCH_ROWS = None
        path_module.SEARCH_MEMORY_MB = None
        return SLBClassifier(random_state=0)


def _summary(clf):
    return {
        "fraction": clf.fraction_,
        "C": clf.C_,
        "n_pairs": int(len(clf.pairs_)),
        "n_candidate_pairs": getattr(clf, "n_candidate_pairs_", None),
        "n_search_rows": getattr(clf, "n_search_rows_", None),
    }


def run_case(case, full, n=None, d=None):
    from sklearn.model_selection import StratifiedKFold

    out = {}
    t, cpu = time.perf_counter(), time.process_time()
    if case == "cv7400":
        X, y = ringnorm(7400)
        split = list(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
        jobs = int(os.environ.get("SLB_BENCH_CV_JOBS", "1"))
        if jobs > 1:  # the outer folds in processes, as cross_val_score(n_jobs=jobs) runs them
            from joblib import Parallel, delayed

            with Parallel(n_jobs=jobs) as par:
                bers = par(delayed(_outer_fold)(X, y, tr, te, full) for tr, te in split)
                out["workers_cpu_s"] = _children_cpu()
        else:
            bers = [_outer_fold(X, y, tr, te, full) for tr, te in split]
        out["ber"] = float(np.mean(bers))
    elif case in ("wide", "tall"):
        n = n or (500 if case == "wide" else 100_000)
        d = d or (1000 if case == "wide" else 20)
        X, y = wide(n, d) if case == "wide" else ringnorm(n, d)
        out.update(_summary(_slb(full).fit(X, y)))
    elif case == "permuted":
        X, y = permuted(n or 3000)
        m = _slb(full).fit(X, y)
        out.update(_summary(m))
        out["inner_min_ber"] = float(np.min(m.cv_results_["mean_ber"]))
    elif case.startswith("subsample"):
        out.update(_subsample_case(case.split(":")[1], n or 4000, full))
    elif case == "dask":
        out.update(_dask_case())
    out["seconds"] = time.perf_counter() - t
    out["cpu_s"] = time.process_time() - cpu  # every thread of this process
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def _outer_fold(X, y, train, test, full):
    from slb.evaluation import balanced_error_rate

    m = _slb(full).fit(X[train], y[train])
    return balanced_error_rate(y[test], m.predict(X[test]))


def _children_cpu():
    """CPU seconds of this process's live worker processes (joblib's loky workers)."""
    import psutil

    return sum(sum(c.cpu_times()[:2]) for c in psutil.Process().children(recursive=True))


def _subsample_case(data, n, full):
    from slb.data.synthetic import make_forest_bn
    from slb.evaluation import balanced_error_rate

    if data == "ringnorm":
        X, y = ringnorm(n, seed=1)
        E, f = ringnorm(4000, seed=2)
    else:
        ds = make_forest_bn(n_train=n, n_test=4000, d=20, random_state=1)
        X, y, E, f = ds.X_train.to_numpy(), ds.y_train, ds.X_test.to_numpy(), ds.y_test
    clf = _slb(full).fit(X, y)
    out = _summary(clf)
    out["test_ber"] = balanced_error_rate(f, clf.predict(E))
    out["inner_ber"] = float(np.min(clf.cv_results_["mean_ber"]))
    return out


def _dask_case():
    import joblib
    from distributed import Client, LocalCluster

    from slb import SLBClassifier

    X, y = wide(600, 30, seed=4)
    t = time.perf_counter()
    local = SLBClassifier(random_state=0).fit(X, y)
    t_local = time.perf_counter() - t
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        client.run(lambda root: sys.path.insert(0, root), str(ROOT))
        t = time.perf_counter()
        with joblib.parallel_backend("dask"):
            remote = SLBClassifier(random_state=0).fit(X, y)
        t_dask = time.perf_counter() - t
    same = bool(
        np.array_equal(local.cv_results_["mean_ber"], remote.cv_results_["mean_ber"])
        and np.array_equal(np.asarray(local.coef_), np.asarray(remote.coef_))
        and np.array_equal(local.decision_function(X), remote.decision_function(X))
    )
    return {"identical": same, "local_s": t_local, "dask_s": t_dask}


# ---------------------------------------------------------------------------------------------
# driver
# ---------------------------------------------------------------------------------------------
def subprocess_case(case, full=False, n=None, d=None, code=None):
    args = [sys.executable, __file__, "--one", case] + (["--full"] if full else [])
    args += (["--n", str(n)] if n else []) + (["--d", str(d)] if d else [])
    env = dict(os.environ, SLB_BENCH_CODE=str(code or ROOT))
    load0 = os.getloadavg()[0]
    res = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, env=env, check=False)
    if res.returncode != 0:
        return {"error": res.stderr.strip().splitlines()[-1:], "load": load0}
    out = json.loads(res.stdout.strip().splitlines()[-1])
    out["load"] = f"{load0:.1f}-{os.getloadavg()[0]:.1f}"
    return out


def _fmt(v):
    if isinstance(v, float):
        return f"{v:.3g}"
    return str(v)


def show(label, res, ref=None, what="previous path"):
    keys = [k for k in res if k not in ("load",)]
    line = f"{label:<46} load {res.get('load')}  " + "  ".join(f"{k}={_fmt(res[k])}" for k in keys)
    if ref is not None and "seconds" in ref and "seconds" in res:
        line += f"  | {what} [load {ref.get('load')}]: {ref['seconds']:.1f} s"
        if "cpu_s" in ref and "cpu_s" in res:
            line += f", CPU {ref['cpu_s']:.1f} s (CPU ratio {ref['cpu_s'] / res['cpu_s']:.2f}x)"
        line += f", {ref.get('peak_rss_mb', 0):.0f} MB (time ratio {ref['seconds'] / res['seconds']:.2f}x)"
        extra = {k: ref[k] for k in ("fraction", "C", "ber", "test_ber") if k in ref}
        if extra:
            line += "  previous " + " ".join(f"{k}={_fmt(v)}" for k, v in extra.items())
    print(line, flush=True)


TARGETS = {
    "cv7400": "5-fold CV d=20, n=7,400 (target <= 8 s)",
    "wide": "one default fit d=1,000, n=500 (<= 60 s, <= 2 GB)",
    "tall": "one default fit d=20, n=100,000 (<= 60 s)",
    "dask": "Dask LocalCluster run (identical result)",
    "permuted": "one default fit, permuted labels d=8, n=3,000",
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--case", choices=[*TARGETS, "subsample"], action="append")
    ap.add_argument("--reference", action="store_true", help="also run the previous code paths")
    ap.add_argument(
        "--previous",
        type=Path,
        help="a tree of the previous code (e.g. a git worktree of HEAD~1): each case is also "
        "run on it, in the same invocation, and printed as a ratio",
    )
    ap.add_argument(
        "--search-rows",
        type=int,
        help="max_search_rows of the fits (a user's speed setting; default: the estimator's)",
    )
    ap.add_argument(
        "--cv-jobs",
        type=int,
        help="cv7400: outer folds in this many processes, as cross_val_score(n_jobs=...) "
        "(default 1: one after another); CPU of the workers printed as workers_cpu_s",
    )
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--full", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--d", type=int, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        print(json.dumps(run_case(a.one, a.full, a.n, a.d), default=float))
        return
    if a.search_rows:
        os.environ["SLB_BENCH_SEARCH_ROWS"] = str(a.search_rows)
    if a.cv_jobs:
        os.environ["SLB_BENCH_CV_JOBS"] = str(a.cv_jobs)
    print(f"cores {os.cpu_count()}, load average {os.getloadavg()}")
    if a.search_rows:
        print(f"max_search_rows={a.search_rows} (not the default)")
    for case in a.case or [*TARGETS, "subsample"]:
        if case == "subsample":
            for data in ("ringnorm", "forest"):
                res = subprocess_case(f"subsample:{data}")
                ref = subprocess_case(f"subsample:{data}", full=True) if a.reference else None
                show(f"selection on 2000 of 4000 rows ({data})", res, ref)
            continue
        if case == "wide" and a.reference:
            show(
                "one default fit d=300, n=500 (capped pairs)",
                subprocess_case("wide", d=300),
                subprocess_case("wide", full=True, d=300),
            )
        if a.previous is not None and case != "dask":
            res = subprocess_case(case)
            show(TARGETS[case], res, subprocess_case(case, code=a.previous), "previous code")
            continue
        ref = subprocess_case(case, full=True) if a.reference and case == "cv7400" else None
        show(TARGETS[case], subprocess_case(case), ref)


if __name__ == "__main__":
    main()
