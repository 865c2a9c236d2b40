"""Permuted-label checks: with labels shuffled, the true BER is 50 %, so an honest selector's
inner-CV table must not report much less, and the outer CV of the whole estimator must be near
50 %.

Usage::

    python benchmarks/permuted_labels.py [--out FILE.csv]

For each data shape (the four bundled datasets' features, and three synthetic shapes:
continuous, integer-tied, one-hot categorical; n = 300) the labels are permuted with seed 0,
then: the minimum and median of ``SLBClassifier(random_state=0).cv_results_["mean_ber"]`` fitted
on all rows, and the stratified 5-fold outer CV BER (seed 1) of the whole estimator.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import slb  # noqa: E402
from slb.evaluation import balanced_error_rate  # noqa: E402


def shapes():
    rng = np.random.default_rng(0)
    out = {}
    for name in ("sonar", "ionosphere", "pima", "wdbc"):
        X, y = slb.load_dataset(name, as_frame=False)
        out[name] = (X, y)
    n = 300
    Z = rng.normal(size=(n, 8))
    Z[:, 1] += 0.8 * Z[:, 0]
    out["continuous (n=300, d=8)"] = (Z, np.arange(n) % 2)
    out["integer-tied (n=300, d=8)"] = (np.round(Z * 1.2), np.arange(n) % 2)
    cats = [np.eye(k)[rng.integers(0, k, size=n)] for k in (3, 4, 3)]
    out["one-hot (n=300, d=12)"] = (np.hstack(cats + [rng.normal(size=(n, 2))]), np.arange(n) % 2)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=None)
    a = p.parse_args()
    rows = []
    for name, (X, y) in shapes().items():
        y = np.random.default_rng(0).permutation(y)
        inner = np.asarray(slb.SLBClassifier(random_state=0).fit(X, y).cv_results_["mean_ber"])
        folds = StratifiedKFold(5, shuffle=True, random_state=1).split(X, y)
        outer = [
            balanced_error_rate(
                y[te], slb.SLBClassifier(random_state=0).fit(X[tr], y[tr]).predict(X[te])
            )
            for tr, te in folds
        ]
        rows.append(
            {
                "data (labels permuted)": name,
                "inner-CV min BER %": 100 * inner.min(),
                "inner-CV median BER %": 100 * np.median(inner),
                "outer 5-fold CV BER %": 100 * np.mean(outer),
                "outer sd %": 100 * np.std(outer, ddof=1),
            }
        )
        print(rows[-1], flush=True)
    df = pd.DataFrame(rows).round(1)
    print(df.to_string(index=False))
    if a.out:
        df.to_csv(a.out, index=False)


if __name__ == "__main__":
    main()
