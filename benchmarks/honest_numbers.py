"""Before/after numbers for the honest-numbers issue: stratified 5-fold BER (seed 0) of the
default SLB (and LU, KDE naive Bayes for reference) on the bundled datasets and on synthetic
data the defaults were not tuned on, plus the wall time of one default SLB fit.

Usage::

    python benchmarks/honest_numbers.py [--quick] [--out FILE.json]

The bundled datasets are reported, never tuned on.  The synthetic sets: ``make_classification``
(continuous; and the same rounded to integers, a tied-feature shape like the liver data), the SLB
paper's forest-normal-balanced and BN-normal-balanced-independent designs (training rows only,
cross-validated), and Sonar with permuted labels (true BER 50 %).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import StratifiedKFold

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import slb  # noqa: E402
from slb.evaluation import balanced_error_rate  # noqa: E402


def datasets(quick=False):
    out = {}
    for name in ("sonar", "ionosphere", "pima", "wdbc"):
        X, y = slb.load_dataset(name, as_frame=False)
        out[name] = (X, y)
    X, y = make_classification(
        n_samples=400, n_features=20, n_informative=5, n_redundant=5, flip_y=0.05, random_state=0
    )
    out["make_classification"] = (X, y)
    Xi = np.round(X * 1.5)  # integer-valued, heavily tied (5-10 distinct values per column)
    out["make_classification_int"] = (Xi, y)
    ds = slb.make_forest_bn(n_train=400, n_test=2, cpd="normal", random_state=0)
    out["forest_normal_balanced_400"] = (ds.X_train.to_numpy(), ds.y_train)
    ds = slb.make_general_bn(n_train=400, n_test=2, cpd="normal", random_state=0)
    out["bn_normal_independent_400"] = (ds.X_train.to_numpy(), ds.y_train)
    X, y = out["sonar"]
    out["sonar_permuted"] = (X, np.random.default_rng(0).permutation(y))
    if quick:
        out = {k: out[k] for k in ("sonar", "make_classification_int", "sonar_permuted")}
    return out


def cv_ber(make, X, y, seed=0):
    folds = StratifiedKFold(5, shuffle=True, random_state=seed).split(X, y)
    return [balanced_error_rate(y[te], make().fit(X[tr], y[tr]).predict(X[te])) for tr, te in folds]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out", default=None)
    a = p.parse_args()
    makers = {
        "SLB": lambda: slb.SLBClassifier(random_state=0),
        "LU": lambda: slb.LUClassifier(random_state=0),
        "NB": lambda: slb.KDENaiveBayes(),
    }
    res = {"load_average": os.getloadavg()[0], "ber": {}, "fit_seconds": {}}
    for name, (X, y) in datasets(a.quick).items():
        for cname, make in makers.items():
            t = time.perf_counter()
            b = cv_ber(make, X, y)
            res["ber"][f"{name}/{cname}"] = [float(np.mean(b)), float(np.std(b, ddof=1))]
            print(
                f"{name:28s} {cname:4s} BER {100 * np.mean(b):5.1f} ± {100 * np.std(b, ddof=1):4.1f} %"
                f"  ({time.perf_counter() - t:.1f} s)",
                flush=True,
            )
    X, y = slb.load_dataset("sonar", as_frame=False)
    rng = np.random.default_rng(1)
    Xr = rng.normal(size=(7400, 20))
    yr = np.arange(7400) % 2
    Xr[yr == 0] *= 2.0
    Xr[yr == 1] += 2.0 / np.sqrt(20)
    for name, (Xf, yf) in {"sonar": (X, y), "ringnorm_7400": (Xr, yr)}.items():
        t = time.perf_counter()
        slb.SLBClassifier(random_state=0).fit(Xf, yf)
        res["fit_seconds"][name] = time.perf_counter() - t
        print(
            f"one default SLB fit, {name}: {res['fit_seconds'][name]:.1f} s "
            f"(load {os.getloadavg()[0]:.1f})",
            flush=True,
        )
    if a.out:
        with open(a.out, "w") as fh:
            json.dump(res, fh, indent=1)


if __name__ == "__main__":
    main()
