"""Balanced error rates of the Rényi and DISCRETE classifiers on the four bundled datasets.

Stratified 5-fold cross-validation, ``StratifiedKFold(5, shuffle=True, random_state=0)``, the
same folds for every row; BER = 1 - balanced accuracy; the table shows mean +- sd (ddof=1)
over the 5 folds, in percent.

Rows
----
* ``Renyi default`` -- the catalogue's ``Rényi`` (``slb.evaluation.registry.make_classifier``):
  ``RenyiClassifier(random_state=0)`` (5 quantile bins, ridge alpha = 0.01, MAP rule).
* ``Renyi tuned`` -- ``RenyiClassifier(pairwise=True, n_bins=8, alpha=0.1)``: the best average
  of a 32-setting grid (pairwise in {False, True} x n_bins in {3, 5, 8, 10} x alpha in
  {0.001, 0.01, 0.1, 1}) run on these same folds, so slightly optimistic.
* ``Renyi inner-CV`` (``--nested``) -- an honest version: in every outer fold, GridSearchCV
  (inner stratified 3-fold) picks pairwise / n_bins / alpha from a smaller grid.
* ``DISCRETE default`` -- the catalogue's ``DISCRETE``: ``DiscreteMAPClassifier(random_state=0)``
  (B = 11, one random chain, shared offset, lambda = 0).
* ``DISCRETE tuned`` -- ``DiscreteMAPClassifier(graph="2-chain", n_chains=5, random_state=0)``:
  the best of about ten settings tried on these folds (more chains, l0 penalties 5/20/50,
  projection, offset node, 2-chain), so slightly optimistic.  It is the slowest row.
* ``SVM(linear)`` -- the catalogue's ``SVM(linear)``: standardised features + ``LinearSVC(C=1)``,
  the DISCRETE paper's comparator.  Named rows come from ``slb.evaluation.registry`` (the one registry of the
  dashboard and the experiments); the tuned rows are this benchmark's own settings.

Run from the project root::

    python benchmarks/literature_classifiers.py                # all rows, all datasets
    python benchmarks/literature_classifiers.py --nested       # + the inner-CV Rényi row
    python benchmarks/literature_classifiers.py --datasets pima --rows "Renyi default"
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from slb import load_dataset  # noqa: E402
from slb.evaluation.registry import make_classifier  # noqa: E402
from slb.peers.discrete_map import DiscreteMAPClassifier  # noqa: E402
from slb.peers.renyi import RenyiClassifier  # noqa: E402

DATASETS = ["sonar", "ionosphere", "pima", "wdbc"]


def _renyi_inner_cv():
    grid = {"pairwise": [False, True], "n_bins": [3, 5, 8], "alpha": [0.01, 0.1, 1.0]}
    inner = StratifiedKFold(3, shuffle=True, random_state=1)
    return GridSearchCV(RenyiClassifier(), grid, cv=inner, scoring="balanced_accuracy")


ROWS = {
    "Renyi default": lambda: make_classifier("Rényi", random_state=0),
    "Renyi tuned": lambda: RenyiClassifier(pairwise=True, n_bins=8, alpha=0.1),
    "Renyi inner-CV": _renyi_inner_cv,
    "DISCRETE default": lambda: make_classifier("DISCRETE", random_state=0),
    "DISCRETE tuned": lambda: DiscreteMAPClassifier(graph="2-chain", n_chains=5, random_state=0),
    "SVM(linear)": lambda: make_classifier("SVM(linear)", random_state=0),
}


def load(name):
    """Features and labels of a bundled dataset, as arrays."""
    return load_dataset(name, as_frame=False)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", default=DATASETS, choices=DATASETS)
    ap.add_argument("--rows", nargs="+", default=None, choices=list(ROWS))
    ap.add_argument("--nested", action="store_true", help="add the inner-CV Rényi row")
    args = ap.parse_args(argv)
    rows = args.rows or [r for r in ROWS if r != "Renyi inner-CV" or args.nested]

    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    table = pd.DataFrame(index=rows, columns=args.datasets, dtype=object)
    seconds = pd.DataFrame(index=rows, columns=args.datasets, dtype=float)
    for name in args.datasets:
        X, y = load(name)
        for row in rows:
            t0 = time.perf_counter()
            acc = cross_val_score(ROWS[row](), X, y, cv=cv, scoring="balanced_accuracy")
            ber = 100.0 * (1.0 - acc)
            seconds.loc[row, name] = time.perf_counter() - t0
            table.loc[row, name] = f"{ber.mean():.1f} ± {ber.std(ddof=1):.1f}"
            print(
                f"{name:11s} {row:17s} {table.loc[row, name]:>12s}  ({seconds.loc[row, name]:.1f} s)",
                file=sys.stderr,
                flush=True,
            )

    print("\nBalanced error rate (%), stratified 5-fold CV (shuffle, random_state=0), mean ± sd\n")
    print("| classifier | " + " | ".join(args.datasets) + " |")
    print("|---|" + "---:|" * len(args.datasets))
    for row in rows:
        print(f"| {row} | " + " | ".join(table.loc[row]) + " |")
    total = np.nansum(seconds.to_numpy())
    print(f"\n(total {total:.0f} s of cross-validation on this machine)")


if __name__ == "__main__":
    main()
