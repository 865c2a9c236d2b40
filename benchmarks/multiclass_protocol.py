"""Issue 25's protocol: which linear model the K-class SLB puts on its K-block log-density map.

The rule, the designs and the score are written in ``docs/multiclass.md`` (fixed before the
run).  Three formulations are fitted on the **same** map of every design (so the comparison
isolates the linear model):

* ``ovr``: one-vs-rest hinge-loss SVMs, each balanced between its class and the rest
  (:func:`slb.model.svm.fit_linear_model` with ``formulation="ovr"``; for K = 2 it is the
  binary SLB itself);
* ``crammer_singer``: the Crammer-Singer multiclass SVM (``LinearSVC``), balanced weights;
* ``multinomial``: multinomial logistic regression, balanced weights.

Each one's cost C is chosen from SLB's grid (0.01 ... 10) by 5-fold CV on the training map
(the same folds for all three); the score is the macro-averaged error (BER) on 2,000 fresh test
rows.  Designs are the units: the seeds of a design are averaged before any test.

    python benchmarks/multiclass_protocol.py --seeds 2      # about 10-20 minutes on 2 cores

Writes ``docs/multiclass/protocol_runs.csv`` and prints the summary table and the tests.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scipy.stats import wilcoxon  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import StratifiedKFold  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.svm import LinearSVC  # noqa: E402

from slb.data.multiclass import make_multiclass_forest, make_pairwise_classes  # noqa: E402
from slb.density.features import LogDensityTransformer  # noqa: E402
from slb.evaluation.metrics import balanced_error_rate  # noqa: E402
from slb.model.classifier import DEFAULT_CS  # noqa: E402
from slb.model.path import fraction_selector, screen_pairs  # noqa: E402
from slb.model.svm import fit_linear_model, linear_decision  # noqa: E402

FORMULATIONS = ("ovr", "crammer_singer", "multinomial")
FRACTION = 0.2  # the map's pairs: the top 20 % by HSIC ("either"), the same for every model
N_TEST = 2000


def designs():
    """(name, factory(seed)) of every design: 3 families x K in {3, 5} x (n, d)."""
    out = []
    for family, K, (n, d) in itertools.product(
        ("forest-normal", "forest-complex", "pairwise"), (3, 5), ((300, 10), (1000, 10), (300, 20))
    ):
        name = f"{family}-K{K}-n{n}-d{d}"
        if family == "pairwise":
            out.append(
                (
                    name,
                    lambda s, K=K, n=n, d=d: make_pairwise_classes(K, n, N_TEST, d, random_state=s),
                )
            )
        else:
            cpd = family.split("-")[1]
            out.append(
                (
                    name,
                    lambda s, K=K, n=n, d=d, cpd=cpd: make_multiclass_forest(
                        K, n, N_TEST, d, cpd=cpd, random_state=s
                    ),
                )
            )
    return out


def _fit(kind, T, y, C, K):
    """A fitted model's decision function ``f(T) -> (n, K)`` scores."""
    if kind == "ovr":
        coef, b = fit_linear_model(
            T, y, C=C, class_weight="balanced", n_classes=K, formulation="ovr"
        )
        return lambda Z: linear_decision(Z, coef, b)
    if kind == "crammer_singer":
        est = LinearSVC(C=C, multi_class="crammer_singer", class_weight="balanced", max_iter=20000)
    else:
        est = LogisticRegression(C=C, class_weight="balanced", max_iter=5000)
    model = make_pipeline(StandardScaler(), est).fit(T, y)
    return model.decision_function


def _select_and_score(kind, T, y, T_test, y_test, K, seed):
    folds = list(StratifiedKFold(5, shuffle=True, random_state=seed).split(T, y))
    cv = []
    for C in DEFAULT_CS:
        errs = []
        for tr, te in folds:
            f = _fit(kind, T[tr], y[tr], C, K)
            errs.append(balanced_error_rate(y[te], f(T[te]).argmax(axis=1)))
        cv.append(np.mean(errs))
    C = float(DEFAULT_CS[int(np.argmin(cv))])
    f = _fit(kind, T, y, C, K)
    return balanced_error_rate(y_test, f(T_test).argmax(axis=1)), C


def run_one(name, factory, seed):
    ds = factory(seed)
    classes = np.array(ds.classes, dtype=object)
    y = np.searchsorted(classes, ds.y_train)
    y_test = np.searchsorted(classes, ds.y_test)
    X, X_test = ds.X_train.to_numpy(), ds.X_test.to_numpy()
    K = len(classes)
    screen = screen_pairs(X, y, pvalues=False, n_classes=K)
    keep = fraction_selector(FRACTION, "either")(screen).any(axis=0)
    tf = LogDensityTransformer(pairs=screen.pairs[keep], random_state=seed)
    T = tf.fit_transform(X, y)
    T_test = tf.transform(X_test)
    rows = []
    for kind in FORMULATIONS:
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            ber, C = _select_and_score(kind, T, y, T_test, y_test, K, seed)
        rows.append(
            {
                "design": name,
                "seed": seed,
                "formulation": kind,
                "test_ber": ber,
                "C": C,
                "seconds": time.perf_counter() - t0,
            }
        )
    return rows


def summarise(runs):
    per_design = runs.groupby(["design", "formulation"])["test_ber"].mean().unstack()
    per_design = per_design[list(FORMULATIONS)] * 100
    print("\nBER % per design (seeds averaged):")
    print(per_design.round(2).to_string())
    print("\nmean BER % over designs:")
    print(per_design.mean().round(2).to_string())
    base = per_design["ovr"]
    tests = []
    for alt in FORMULATIONS[1:]:
        diff = per_design[alt] - base
        p = wilcoxon(per_design[alt], base).pvalue if (diff != 0).any() else 1.0
        tests.append((alt, diff.mean(), p, diff.max(), diff.min()))
    # Holm over the two comparisons
    order = np.argsort([t[2] for t in tests])
    m = len(tests)
    adj = {}
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * tests[i][2]))
        adj[tests[i][0]] = running
    print("\nalternative - ovr (pp): mean, Wilcoxon p, Holm-adjusted p, worst, best")
    for alt, mean, p, worst, best in tests:
        print(
            f"{alt:15s} {mean:+.2f}  p={p:.3g}  holm={adj[alt]:.3g}  worst={worst:+.2f}  best={best:+.2f}"
        )
    return per_design, tests, adj


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--out", default=str(ROOT / "docs" / "multiclass" / "protocol_runs.csv"))
    ap.add_argument("--summary-only", action="store_true", help="re-read --out and summarise")
    args = ap.parse_args(argv)
    out = Path(args.out)
    if not args.summary_only:
        print(f"load average {os.getloadavg()}", flush=True)
        rows = []
        t0 = time.perf_counter()
        for name, factory in designs():
            for seed in range(args.seeds):
                rows += run_one(name, factory, seed)
                print(f"{name} seed {seed} done ({time.perf_counter() - t0:.0f} s)", flush=True)
        out.parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame(rows).to_csv(out, index=False)
        print(f"load average {os.getloadavg()}; wrote {out}")
    summarise(pd.read_csv(out))


if __name__ == "__main__":
    main()
