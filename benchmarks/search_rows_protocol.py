"""The protocol for ``max_search_rows`` (the rule is in ``docs/defaults.md``, written before the runs).

``SLBClassifier(max_search_rows=R)`` runs the nested selection of (lambda, C) on a stratified
subsample of ``R`` rows when the table is taller (the final fit uses every row).  This script
fits the default estimator with each ``R`` on the 22 datasets of ``defaults_protocol.py`` (its
11 designs, two seeds) at ``n`` training rows, scores it on the design's independent test set,
and prints the paired comparison against ``R = 2000`` that the rule reads: mean test BER,
mean difference, its standard error, the one-sided 95 % upper bound, the worst single
dataset, and the decision.  ``--permuted R`` runs the permuted-label check for one ``R``.

Raw runs go to ``docs/defaults/search_rows_runs.csv`` (one row per dataset and ``R``: test BER,
selected fraction and C, fit CPU seconds); a rerun skips the rows already there, so an
interrupted run resumes; once R = 2000 has run, the datasets are taken cheapest first (by that
fit's CPU), so a reference run cut short covers as many as possible.  No bundled dataset is used.
Seeds: 0 and 1 (``--seeds``) for the data and the estimator's ``random_state``; the permuted-label
check uses seed 0 and a shuffled stratified 5-fold split (seed 0).

Usage::

    python benchmarks/search_rows_protocol.py                     # R = 500, 1000, 2000
    python benchmarks/search_rows_protocol.py --rows none         # the every-row reference
    python benchmarks/search_rows_protocol.py --report            # the table and the decision
    python benchmarks/search_rows_protocol.py --permuted 500      # chance on permuted labels
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from defaults_protocol import extra_shapes, paper_designs  # noqa: E402

import slb  # noqa: E402
from slb.evaluation import balanced_error_rate  # noqa: E402

OUT = ROOT / "docs" / "defaults" / "search_rows_runs.csv"
BASELINE = 2000
MARGIN_PP, WORST_PP, Z95 = 0.3, 1.0, 1.645


def _parse_rows(v: str):
    """A command-line R: an int, or None for "none" (every row)."""
    return None if v.lower() == "none" else int(v)


def _key(r) -> str:
    return "none" if r is None else str(int(r))


def datasets(n: int, seeds: int):
    """``(name, seed, X, y, X_test, y_test)`` of the protocol's 22 datasets."""
    for seed in range(seeds):
        for name, data in {**paper_designs(n, seed), **extra_shapes(n, seed)}.items():
            yield (name, seed, *data)


def run(rows_list, n: int, seeds: int) -> None:
    done = pd.read_csv(OUT) if OUT.exists() else pd.DataFrame(columns=["dataset", "seed", "R"])
    have = {(d, int(s), str(r)) for d, s, r in zip(done.dataset, done.seed, done.R, strict=True)}
    todo = list(datasets(n, seeds))
    if not done.empty:  # cheapest first (by the R = 2000 fit's CPU), so a cut-off run covers most
        cost = {
            (d, int(s)): c
            for d, s, r, c in done[["dataset", "seed", "R", "fit_cpu_s"]].values
            if str(r) == str(BASELINE)
        }
        todo.sort(key=lambda t: cost.get((t[0], t[1]), np.inf))
    for name, seed, X, y, Xt, yt in todo:
        for r in rows_list:
            if (name, seed, _key(r)) in have:
                continue
            t = time.process_time()
            m = slb.SLBClassifier(random_state=seed, max_search_rows=r, n_jobs=1).fit(X, y)
            cpu = time.process_time() - t
            ber = balanced_error_rate(yt, m.predict(Xt))
            row = {
                "dataset": name,
                "seed": seed,
                "R": _key(r),
                "n": n,
                "test_ber": ber,
                "fraction": m.fraction_,
                "C": m.C_,
                "fit_cpu_s": cpu,
                "load": os.getloadavg()[0],
            }
            pd.DataFrame([row]).to_csv(OUT, mode="a", header=not OUT.exists(), index=False)
            print(
                f"{seed} {name:22s} R={_key(r):>5s} BER {100 * ber:5.2f} % "
                f"fraction {m.fraction_:.2f} C {m.C_:.3g}  {cpu:5.1f} s CPU  "
                f"load {row['load']:.1f}",
                flush=True,
            )


def report() -> int:
    """Print the paired table against R = 2000 and return the R the rule picks."""
    df = pd.read_csv(OUT, dtype={"R": str})
    ber = df.pivot_table(index=["dataset", "seed"], columns="R", values="test_ber") * 100
    cpu = df.pivot_table(index=["dataset", "seed"], columns="R", values="fit_cpu_s")
    base = ber[str(BASELINE)]
    print(
        f"{len(base.dropna())} datasets with R = {BASELINE}; loads {df.load.min():.1f}-"
        f"{df.load.max():.1f}\n"
    )
    print(
        "| R | datasets | mean test BER (%) | difference to 2000 (pp) | se | upper 95 % | "
        "worst dataset (pp) | fit CPU (s, mean over those datasets) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    passed = {}
    for r in sorted(ber.columns, key=lambda k: float("inf") if k == "none" else int(k)):
        both = pd.DataFrame({"r": ber[r], "base": base}).dropna()
        diff = both["r"] - both["base"]
        k = len(diff)
        se = diff.std(ddof=1) / np.sqrt(k) if k > 1 else np.nan
        up = diff.mean() + Z95 * se
        worst, at = diff.max(), diff.idxmax()
        if r == str(BASELINE):
            print(
                f"| **{r}** | {k} | **{both['r'].mean():.2f}** | 0 | – | – | – | "
                f"{cpu[r][both.index].mean():.1f} |"
            )
            continue
        print(
            f"| {r} | {k} | {both['r'].mean():.2f} | {diff.mean():+.2f} | {se:.2f} | "
            f"{up:+.2f} | {worst:+.2f} ({at[0]}, seed {at[1]}) | {cpu[r][both.index].mean():.1f} |"
        )
        if r != "none" and k == len(base.dropna()):
            passed[int(r)] = bool(up <= MARGIN_PP and worst <= WORST_PP)
    pick = min((r for r, ok in passed.items() if ok), default=BASELINE)
    print(
        f"\nrule: upper bound <= {MARGIN_PP} pp and no dataset worse by > {WORST_PP} pp; "
        f"passed: {passed}; default: {pick}"
    )
    return pick


def permuted(r, n: int = 4000) -> None:
    from scale import permuted as make_permuted
    from sklearn.model_selection import StratifiedKFold

    X, y = make_permuted(n)
    bers, inner = [], []
    t = time.process_time()
    for tr, te in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        m = slb.SLBClassifier(random_state=0, max_search_rows=r, n_jobs=1).fit(X[tr], y[tr])
        bers.append(balanced_error_rate(y[te], m.predict(X[te])))
        inner.append(float(np.min(m.cv_results_["mean_ber"])))
    print(
        f"permuted labels, n = {n}, R = {_key(r)}: 5-fold CV BER {100 * np.mean(bers):.1f} % "
        f"(folds {', '.join(f'{100 * b:.1f}' for b in bers)}); smallest inner-CV mean BER "
        f"{100 * np.mean(inner):.1f} % on average (optimistic by construction); "
        f"{time.process_time() - t:.0f} s CPU, load {os.getloadavg()[0]:.1f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", nargs="*", default=["500", "1000", "2000"])
    ap.add_argument("--n", type=int, default=4000)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--permuted", help="R of the permuted-label check")
    a = ap.parse_args()
    if a.permuted:
        permuted(_parse_rows(a.permuted))
    elif a.report:
        report()
    else:
        run([_parse_rows(v) for v in a.rows], a.n, a.seeds)
        report()


if __name__ == "__main__":
    main()
