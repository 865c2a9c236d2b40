"""Balanced error rates on the bundled datasets next to the SLB paper's Table 4.

Stratified 5-fold cross-validation repeated ``--repeats`` times (identical folds for every
classifier), default settings for every classifier, mean +- sd of the BER over all folds.

    python benchmarks/accuracy.py                      # 5 x 5-fold, all four datasets
    python benchmarks/accuracy.py --repeats 1 --datasets pima
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from slb import load_dataset  # noqa: E402
from slb.evaluation import compare_estimators  # noqa: E402
from slb.evaluation.registry import make_classifier  # noqa: E402

#: SLB paper, Table 4 (BER %, mean over 5 folds).
PAPER = {
    "sonar": {
        "SLB": 18.1,
        "LU": 52.9,
        "TAN": 20.5,
        "NB": 26.2,
        "RF": 19.6,
        "SVM(RBF)": 20.1,
        "5NN": 22.9,
    },
    "ionosphere": {
        "SLB": 7.5,
        "LU": 45.4,
        "TAN": 7.6,
        "NB": 10.2,
        "RF": 7.9,
        "SVM(RBF)": 8.0,
        "5NN": 22.1,
    },
    "pima": {
        "SLB": 28.6,
        "LU": 49.2,
        "TAN": 34.5,
        "NB": 27.4,
        "RF": 26.8,
        "SVM(RBF)": 29.0,
        "5NN": 31.2,
    },
    "wdbc": {
        "SLB": 4.52,
        "LU": 47.9,
        "TAN": 11.5,
        "NB": 6.3,
        "RF": 4.8,
        "SVM(RBF)": 2.9,
        "5NN": 4.0,
    },
}
DEFAULT = ["SLB", "LU", "SLB-", "TAN", "NB", "RF", "SVM(RBF)", "5NN"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", default=list(PAPER))
    ap.add_argument("--classifiers", nargs="+", default=DEFAULT)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    t_all = time.perf_counter()
    lines = [
        "| dataset | " + " | ".join(args.classifiers) + " |",
        "|---|" + "---|" * len(args.classifiers),
    ]
    for name in args.datasets:
        X, y = load_dataset(name)
        t0 = time.perf_counter()
        est = {c: make_classifier(c, random_state=args.seed) for c in args.classifiers}
        comp = compare_estimators(
            est, X, y, n_splits=5, n_repeats=args.repeats, random_state=args.seed
        )
        s = comp.summary
        cells = []
        for c in args.classifiers:
            cell = f"{100 * s.loc[c, 'mean']:.1f} ± {100 * s.loc[c, 'sd']:.1f}"
            if s.loc[c, "tied_with_best"]:
                cell = f"**{cell}**"
            paper = PAPER.get(name, {}).get(c)
            cell += f" ({paper})" if paper is not None else ""
            cells.append(cell)
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
        print(lines[-1], f"  [{time.perf_counter() - t0:.0f} s]", flush=True)
    print()
    print(
        f"BER % (mean ± sd over {args.repeats} x 5 folds, seed {args.seed}); paper's Table 4 in "
        "parentheses; bold = best or tied with it (Nadeau-Bengio corrected resampled t-test "
        "against the best, Holm-adjusted, alpha 0.05)."
    )
    print("\n".join(lines))
    print(f"\nwall time: {time.perf_counter() - t_all:.0f} s")


if __name__ == "__main__":
    main()
