"""The protocol that chooses SLB's defaults (written up in ``docs/defaults.md``).

No bundled dataset is used: defaults are chosen on data whose truth is known and that nobody
reports, so that they are not tuned on the numbers ``docs/results.md`` publishes.

Designs (training rows ``n``, test BER on an independent test set of 2000 rows):

* the SLB paper's section 5.1 designs, d = 20: forest BNs (normal / complex CPDs, balanced /
  imbalanced 75:25) and 3-parent BNs (normal / complex, independent / shared networks);
* shapes beyond the paper: ``make_classification`` (continuous), the same rounded to a few
  integer levels (tied features, like lab values), and a one-hot categorical mix.

Each setting is varied one at a time from the baseline (C and lambda chosen jointly by nested
5-fold CV, floor 1e-6, pair rule "either", raw statistic, cross-fitted training features).

Usage::

    python benchmarks/defaults_protocol.py [--n 300] [--seeds 2] [--out results.csv]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import pandas as pd
from sklearn.datasets import make_classification

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import slb  # noqa: E402
from slb.evaluation import balanced_error_rate  # noqa: E402

BASE = {
    "C": "cv",
    "density_floor": 1e-6,
    "pair_rule": "either",
    "screening_score": "statistic",
    "training_features": "kfold",
    "bandwidth": "scott",
}

VARIANTS = {
    "baseline (C by nested CV)": {},
    "C = 0.03 fixed": {"C": 0.03},
    "C = 0.3 fixed": {"C": 0.3},
    "C = 1 fixed": {"C": 1.0},
    "C = 3 fixed": {"C": 3.0},
    "floor 1e-4": {"density_floor": 1e-4},
    "floor 1e-2": {"density_floor": 1e-2},
    "pair rule per_class": {"pair_rule": "per_class"},
    "per_class + scaled": {"pair_rule": "per_class", "screening_score": "scaled"},
    "scaled score": {"screening_score": "scaled"},
    "p-value score": {"screening_score": "pvalue"},
    "LOO training features": {"training_features": "loo"},
    "bandwidth plugin": {"bandwidth": "plugin"},
    "bandwidth silverman": {"bandwidth": "silverman"},
}


def paper_designs(n, seed):
    out = {}
    for cpd in ("normal", "complex"):
        for bal in (0.5, 0.75):
            ds = slb.make_forest_bn(n_train=n, n_test=2000, cpd=cpd, balance=bal, random_state=seed)
            out[f"forest-{cpd}-{'bal' if bal == 0.5 else 'imb'}"] = ds
        for shared in (False, True):
            ds = slb.make_general_bn(
                n_train=n, n_test=2000, cpd=cpd, shared=shared, random_state=seed
            )
            out[f"bn-{cpd}-{'shared' if shared else 'indep'}"] = ds
    return {
        k: (v.X_train.to_numpy(), v.y_train, v.X_test.to_numpy(), v.y_test) for k, v in out.items()
    }


def extra_shapes(n, seed):
    X, y = make_classification(
        n_samples=n + 2000,
        n_features=20,
        n_informative=6,
        n_redundant=4,
        flip_y=0.05,
        class_sep=0.8,
        random_state=seed,
    )
    out = {"make_classification": (X, y), "integer-tied": (np.round(X * 1.2), y)}
    rng = np.random.default_rng(seed)
    m = n + 2000
    cats = [rng.integers(0, k, size=m) for k in (3, 4, 5)]
    cont = rng.normal(size=(m, 4))
    logit = (
        0.8 * (cats[0] == 1)
        - 0.9 * (cats[1] >= 2)
        + 0.7 * cont[:, 0] * (cats[2] > 2)
        + 0.5 * cont[:, 1]
    )
    yc = (logit + rng.logistic(size=m) * 0.7 > 0).astype(int)
    Xc = np.hstack([np.eye(k)[c] for k, c in zip((3, 4, 5), cats, strict=True)] + [cont])
    out["one-hot mix"] = (Xc, yc)
    return {k: (X[:n], y[:n], X[n:], y[n:]) for k, (X, y) in out.items()}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=300)
    p.add_argument("--seeds", type=int, default=2)
    p.add_argument("--variants", nargs="*", default=list(VARIANTS))
    p.add_argument("--out", default="defaults_protocol.csv")
    a = p.parse_args()
    rows = []
    for seed in range(a.seeds):
        data = {**paper_designs(a.n, seed), **extra_shapes(a.n, seed)}
        for dname, (Xtr, ytr, Xte, yte) in data.items():
            for vname in a.variants:
                params = {**BASE, **VARIANTS[vname]}
                t = time.perf_counter()
                m = slb.SLBClassifier(random_state=seed, **params).fit(Xtr, ytr)
                ber = balanced_error_rate(yte, m.predict(Xte))
                rows.append(
                    {
                        "design": dname,
                        "seed": seed,
                        "variant": vname,
                        "ber": ber,
                        "C_": m.C_,
                        "n_pairs": len(m.pairs_),
                        "seconds": time.perf_counter() - t,
                    }
                )
                print(
                    f"{seed} {dname:22s} {vname:28s} BER {100 * ber:5.1f}  C={m.C_:.3g} "
                    f"pairs={len(m.pairs_):3d}  {rows[-1]['seconds']:.1f}s",
                    flush=True,
                )
            pd.DataFrame(rows).to_csv(a.out, index=False)
    df = pd.DataFrame(rows)
    table = df.pivot_table(index="design", columns="variant", values="ber", aggfunc="mean") * 100
    print(table.round(1).to_string())
    regret = table.sub(table.min(axis=1), axis=0)
    print("\nmean BER (%):\n" + table.mean().sort_values().round(2).to_string())
    print(
        "\nworst regret vs the best variant per design (pp):\n"
        + regret.max().sort_values().round(2).to_string()
    )


if __name__ == "__main__":
    main()
