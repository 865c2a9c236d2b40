"""Speed of the exact BER-vs-λ steps (``slb.model.steps.ber_steps``) on Sonar's folds.

The Compare page's curve fits one SVM per fold and per distinct kept set: about 44,000 fits
on Sonar's 5 x 5 folds.  This benchmark times the same ranges of breakpoints with this
checkout's ``ber_steps`` and with the one of a baseline git revision (default: 28bfcb0, before
the nested kernels were handed straight to libsvm), in the same process, alternating, and
prints fits per CPU second, the ratio now / baseline and the load average.  It also checks that
both give identical steps.

Ranges (breakpoints of all folds together, counted from the top of the slider's range):

* ``top``: the first 1000 (what the page drew before, down to λ ≈ 0.045);
* ``default λ``: 1000 around Sonar's default λ = 0.0197;
* ``low``: 1000 near λ = 0 (the most columns per kernel);
* ``--full``: the whole range, this checkout only (the page's "Compute every step" button).

Usage::

    python benchmarks/ber_steps.py                  # the three ranges, now vs 28bfcb0
    python benchmarks/ber_steps.py --baseline HEAD~3 --full

Measured 2026-11-23 on the shared 2-core machine (load 4.2-4.9; CPU seconds, baseline 28bfcb0;
``--full``)::

    top        1025 fits: baseline 183 fits/s (5.59 s), now 490 fits/s (2.09 s), ratio 2.68
    default λ  1025 fits: baseline 210 fits/s (4.87 s), now 837 fits/s (1.23 s), ratio 3.98
    low        1025 fits: baseline 186 fits/s (5.51 s), now 657 fits/s (1.56 s), ratio 3.53
    whole range: 44274 fits, 45.7 s CPU, 969 fits/s

Identical steps (every column, bit for bit) in all three ranges.  libsvm's own solve is now
most of a fit (about 0.7-1 ms on Sonar's 166 training rows); the rest of the old cost was
``SVC``'s per-call validation.  The ratio, not the absolute speed, carries over between machines.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from previous_code import module_at  # noqa: E402

from slb import ThresholdPath  # noqa: E402
from slb.data.bundled import load_dataset  # noqa: E402
from slb.evaluation import stratified_folds  # noqa: E402
from slb.model import steps as now  # noqa: E402


def baseline_module(rev: str) -> types.ModuleType:
    """``slb/model/steps.py`` of git revision ``rev``, imported beside this checkout's."""
    return module_at(rev, "slb/model/steps.py")


def sonar_path() -> ThresholdPath:
    """The Compare page's defaults on Sonar: HSIC, "either", 5 x 5 folds, seed 0."""
    X, y = load_dataset("sonar")
    y = (y == "rock").astype(int)
    folds = stratified_folds(y, n_splits=5, n_repeats=5, random_state=0)
    return ThresholdPath(dependence="hsic", pair_rule="either", random_state=0).fit(X, y, folds)


def timed(mod, path, lo, hi):
    c = time.process_time()
    steps = mod.ber_steps(path, lo, hi)
    return steps, time.process_time() - c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", default="28bfcb0", help="git revision to compare with")
    ap.add_argument("--full", action="store_true", help="also the whole range (this checkout)")
    args = ap.parse_args()
    old = baseline_module(args.baseline)
    path = sonar_path()
    values = np.sort(np.concatenate([now._fold_values(f, "either") for f in path.folds_]))[::-1]
    at = int(np.searchsorted(-values, -0.0197))
    ranges = {"top": (0, 1000), "default λ": (at - 500, at + 500), "low": (43000, 44000)}
    print(f"Sonar, {len(path.folds_)} folds, {values.size} breakpoints; load {os.getloadavg()}")
    for name, (a, b) in ranges.items():
        lo, hi = float(values[b]), float(values[a])
        s_old, t_old = timed(old, path, lo, hi)
        s_new, t_new = timed(now, path, lo, hi)
        same = all(np.array_equal(s_old[c], s_new[c]) for c in s_old.columns)
        n = s_new.attrs["n_fits"]
        print(
            f"{name:10s} λ in [{lo:.4f}, {hi:.4f}]: {n} fits; baseline {n / t_old:7.0f} fits/s "
            f"({t_old:.2f} s CPU), now {n / t_new:7.0f} fits/s ({t_new:.2f} s CPU), "
            f"ratio {t_old / t_new:.2f}; identical steps: {same}; load {os.getloadavg()[0]:.2f}"
        )
    if args.full:
        s, t = timed(now, path, 0.0, float(values[0]))
        n = s.attrs["n_fits"]
        print(
            f"whole range: {n} fits, {t:.1f} s CPU, {n / t:.0f} fits/s; "
            f"load {os.getloadavg()[0]:.2f}"
        )


if __name__ == "__main__":
    main()
