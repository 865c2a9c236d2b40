"""Issue 25's closing-note table: macro BER (stratified 5-fold CV, seed 0) and fit times of the
native K-class SLB, one-vs-rest SLB, KDE naive Bayes, TAN, random forest and logistic
regression on iris, wine, digits {0..4}, the bundled penguins and two K-class synthetic designs.

    python benchmarks/multiclass_report.py            # writes docs/multiclass/report.csv

Every number is a plain outer CV estimate of each classifier at its defaults (SLB's own
(lambda, C) selection is nested inside each outer training set); nothing here was tuned on
these tables.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sklearn.datasets import load_digits, load_iris, load_wine  # noqa: E402
from sklearn.ensemble import RandomForestClassifier  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.multiclass import OneVsRestClassifier  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from slb import KDENaiveBayes, SLBClassifier, TANClassifier, compare_estimators, load_dataset  # noqa: E402
from slb.data.multiclass import make_multiclass_forest, make_pairwise_classes  # noqa: E402


def datasets():
    X, y = load_digits(return_X_y=True)
    keep = y <= 4
    Xd, yd = X[keep], y[keep]
    Xd = Xd[:, Xd.std(axis=0) > 0]  # constant pixels carry no density
    pen = load_dataset("penguins")
    forest = make_multiclass_forest(4, n_train=600, n_test=10, d=10, random_state=0)
    pairs = make_pairwise_classes(3, n_train=600, n_test=10, d=8, random_state=0)
    return {
        "iris": load_iris(return_X_y=True),
        "wine": load_wine(return_X_y=True),
        "digits 0-4": (Xd, yd),
        "penguins": (pen[0].to_numpy(), pen[1].to_numpy()),
        "forest K=4 (d=10, n=600)": (forest.X_train.to_numpy(), forest.y_train),
        "pairwise K=3 (d=8, n=600)": (pairs.X_train.to_numpy(), pairs.y_train),
    }


def classifiers():
    return {
        "SLB (native K-class)": SLBClassifier(random_state=0),
        "SLB (one-vs-rest)": OneVsRestClassifier(SLBClassifier(random_state=0)),
        "KDE-NB": KDENaiveBayes(),
        "TAN": TANClassifier(),
        "RF (500 trees)": RandomForestClassifier(500, random_state=0),
        "logistic regression": make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)),
    }


def main(argv=None):
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", help="re-run these classifiers, keep the file's others")
    args = ap.parse_args(argv)
    print(f"load average {os.getloadavg()}", flush=True)
    models = classifiers()
    if args.only:
        models = {k: v for k, v in models.items() if k in args.only}
    rows = []
    for name, (X, y) in datasets().items():
        t0 = time.perf_counter()
        cmp = compare_estimators(models, X, y, n_splits=5, random_state=0)
        for clf in cmp.per_fold.columns:
            rows.append(
                {
                    "dataset": name,
                    "n": len(y),
                    "d": X.shape[1],
                    "K": len(np.unique(y)),
                    "classifier": clf,
                    "macro BER %": 100 * cmp.per_fold[clf].mean(),
                    "sd %": 100 * cmp.per_fold[clf].std(ddof=1),
                    "fit s (5 folds)": cmp.fit_seconds[clf],
                }
            )
        print(f"{name} done ({time.perf_counter() - t0:.0f} s)", flush=True)
    out = ROOT / "docs" / "multiclass" / "report.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame(rows)
    if args.only and out.exists():
        old = pd.read_csv(out)
        frame = pd.concat([old[~old["classifier"].isin(args.only)], frame], ignore_index=True)
    frame.to_csv(out, index=False)
    print(f"load average {os.getloadavg()}")
    table = frame.pivot(index="dataset", columns="classifier", values="macro BER %")
    print(table.round(2).to_string())
    print(
        frame.pivot(index="dataset", columns="classifier", values="fit s (5 folds)")
        .round(1)
        .to_string()
    )


if __name__ == "__main__":
    main()
