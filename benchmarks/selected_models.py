"""Which model SLB's nested selection picks on the paper's synthetic designs, under two rules.

Usage::

    python benchmarks/selected_models.py [--design forest] [--cpd complex] [--n 200 400]
                                         [--replicates 10] [--variant calibrated]

For each replicate of ``python -m slb.experiments synthetic`` (the same seeds, training and test
sets) it fits ``SLBClassifier`` with ``selection="min"`` and ``"corrected"`` and prints each
one's ``selected_model_`` (the grid's SVM "slb", "naive_bayes" or "tan") and test BER, then
counts the pairs.  docs/results.md quotes it for the calibrated complex-CPD forests.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from slb.evaluation import balanced_error_rate  # noqa: E402
from slb.experiments.common import make_estimator  # noqa: E402
from slb.experiments.synthetic import Design, _seeds  # noqa: E402

RULES = ("min", "corrected")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--design", default="forest", choices=["forest", "bn"])
    ap.add_argument("--cpd", default="complex", choices=["normal", "complex"])
    ap.add_argument("--balance", type=float, default=0.5)
    ap.add_argument("--n", type=int, nargs="+", default=[200, 400])
    ap.add_argument("--replicates", type=int, default=10)
    ap.add_argument("--variant", default="calibrated", choices=["calibrated", "uncalibrated"])
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    spec = Design(args.design, args.cpd, args.balance).with_variant(args.variant)
    print(f"{spec.name}, {args.variant}; per replicate: (selected model, test BER %) by rule")
    for n in args.n:
        pairs = collections.Counter()
        for r, seed in enumerate(_seeds(args.seed, args.replicates)):
            ds = spec.make(n, seed)
            out = []
            for rule in RULES:
                m = make_estimator("SLB", random_state=seed).set_params(selection=rule)
                m.fit(ds.X_train, ds.y_train)
                ber = 100 * balanced_error_rate(ds.y_test, m.predict(ds.X_test))
                out.append((m.selected_model_, round(ber, 2)))
            pairs[tuple(o[0] for o in out)] += 1
            print(
                f"n = {n}, replicate {r}: "
                + ", ".join(f"{k}: {o}" for k, o in zip(RULES, out, strict=True))
            )
        print(f"n = {n}, ({' -> '.join(RULES)}): {dict(pairs)}")


if __name__ == "__main__":
    main()
