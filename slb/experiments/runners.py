"""Experiments of the SLB paper's section 5, and the DISCRETE paper's label-noise protocol.

Three experiments, each a pure function that returns pandas DataFrames (wrapped in a small
result object), seeds everything, and reports progress through an optional
``progress(done, total, message)`` callback, so that the command line and the dashboard's
Experiments page share one implementation:

* :func:`run_real` -- the paper's Table 4 protocol (section 5.2): stratified K-fold
  cross-validation (optionally repeated) on identical folds for every classifier, balanced error
  rate (BER), mean +- sd over the folds, the best classifier and those statistically tied with it
  (two-sided Wilcoxon signed-rank test against the best, Bonferroni-corrected) in bold.  Bundled
  datasets or any table (:func:`load_csv`).
* :func:`run_synthetic` -- the paper's factorial designs (section 5.1, Tables 1-3): forest or
  general Bayesian networks, normal or complex CPDs, balanced (50/50) or imbalanced (75/25)
  training sets, independent or partly shared structure, a grid of training sizes, replicates;
  each classifier's BER on an independent balanced test set of 1000 rows.  Tables in the paper's
  layout (mean +- sd per n and classifier; best and tied in bold, Wilcoxon over the replicates)
  and learning curves (:func:`learning_curve_figure`).
* :func:`run_label_noise` -- the DISCRETE paper's Figure 1 (Liu, Petterson and Caetano): flip
  every training label with probability ``p``, train, and score on clean test labels.

Seeding.  Every random choice derives from ``random_state`` through
:class:`numpy.random.SeedSequence`: identical arguments give identical tables (only the
``seconds`` columns, wall-clock times, differ between runs).  In :func:`run_synthetic` the
replicate ``r`` uses the same pair of networks and the same test set for every training size
``n`` (a paired learning curve); in :func:`run_label_noise` one uniform number per training row
decides its flip at every ``p`` (row ``i`` is flipped when ``u_i < p``), so the noisy sets are
nested and the curves paired.

Command line (``python -m slb.experiments --help``)::

    python -m slb.experiments real --datasets pima sonar --repeats 5 --out experiment-output
    python -m slb.experiments real --csv my.csv --label outcome --positive yes
    python -m slb.experiments synthetic --design forest --cpd normal complex --replicates 20
    python -m slb.experiments noise --dataset pima --classifiers SLB NB "SVM(linear)" DISCRETE

The paper's numbers (:data:`PAPER_TABLE1` .. :data:`PAPER_TABLE4`) are transcribed from the JMLR
version (Tables 1, 2, 3 and 4); column ``SLB-`` of Table 2 follows the arXiv preprint's header
(the JMLR text lost the minus sign): SLB-'s errors are the larger ones, as the paper's text says.
"""

from __future__ import annotations

import argparse
import math
import re
import shlex
import shutil
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.model_selection import StratifiedShuffleSplit

from ..data.bundled import BUNDLED_DATASETS, load_dataset
from ..data.synthetic import make_forest_bn, make_general_bn
from ..evaluation.comparison import compare_estimators
from ..evaluation.metrics import balanced_error_rate
from ..evaluation.registry import CLASSIFIERS, make_classifier, resolve_name
from ..evaluation.resampling import stratified_folds
from ..evaluation.significance import friedman_nemenyi, wilcoxon_against_best

if TYPE_CHECKING:
    import plotly.graph_objects as go


def __getattr__(name):
    # learning_curve_figure and noise_figure moved to slb.viz.figures and are re-exported here, but
    # imported on first use: plotly (the [app] extra) is not needed for tables and CSV files.
    if name in ("learning_curve_figure", "noise_figure"):
        from ..viz import figures

        return getattr(figures, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_REAL_CLASSIFIERS",
    "DEFAULT_SYNTHETIC_CLASSIFIERS",
    "DEFAULT_NOISE_CLASSIFIERS",
    "FLIP_PROBS",
    "N_GRID",
    "PAPER_TABLE1",
    "PAPER_TABLE2",
    "PAPER_TABLE3",
    "PAPER_TABLE4",
    "Design",
    "NoiseResults",
    "RealResults",
    "SyntheticResults",
    "TerminalProgress",
    "classifier_names",
    "learning_curve_figure",  # noqa: F822 (module __getattr__)
    "load_csv",
    "main",
    "make_estimator",
    "noise_figure",  # noqa: F822 (module __getattr__)
    "paper_synthetic",
    "run_label_noise",
    "run_real",
    "run_synthetic",
]

#: Table 4 columns plus the two SLB variants (the paper reports SLB- on synthetic data only).
DEFAULT_REAL_CLASSIFIERS = (
    "SLB",
    "SLB(Pearson)",
    "SLB-",
    "LU",
    "TAN",
    "NB",
    "RF",
    "SVM(RBF)",
    "5NN",
)
#: The eight classifiers of the paper's Table 2 (Table 1 has no SLB-).
DEFAULT_SYNTHETIC_CLASSIFIERS = ("SLB", "SLB-", "LU", "TAN", "NB", "RF", "SVM(RBF)", "5NN")
#: The DISCRETE paper compares DISCRETE with a linear SVM; SLB and NB for our own question.
DEFAULT_NOISE_CLASSIFIERS = ("SLB", "NB", "SVM(linear)", "DISCRETE")
#: Training sizes of the paper's synthetic designs.
N_GRID = (200, 400, 600, 800, 1000)
#: Label-flip probabilities of the DISCRETE paper's Figure 1.
FLIP_PROBS = (0.0, 0.1, 0.2, 0.3, 0.4)

ProgressFn = Callable[[int, int, str], None]


# ----------------------------------------------------------------------------------------------
# The paper's numbers (BER or misclassification error, %, mean and sd)
# ----------------------------------------------------------------------------------------------
#: SLB paper, Table 4 (5-fold CV, BER %, mean and sd over the folds), bundled datasets only.
PAPER_TABLE4 = {
    "sonar": {
        "SLB": (18.1, 6.5),
        "LU": (52.9, 5.1),
        "TAN": (20.5, 4.9),
        "NB": (26.2, 9.2),
        "RF": (19.6, 9.8),
        "SVM(RBF)": (20.1, 5.9),
        "5NN": (22.9, 2.7),
    },
    "ionosphere": {
        "SLB": (7.5, 5.0),
        "LU": (45.4, 5.4),
        "TAN": (7.6, 4.1),
        "NB": (10.2, 4.3),
        "RF": (7.9, 4.4),
        "SVM(RBF)": (8.0, 4.3),
        "5NN": (22.1, 7.4),
    },
    "pima": {
        "SLB": (28.6, 3.8),
        "LU": (49.2, 1.5),
        "TAN": (34.5, 6.6),
        "NB": (27.4, 4.9),
        "RF": (26.8, 2.4),
        "SVM(RBF)": (29.0, 1.4),
        "5NN": (31.2, 2.6),
    },
    "wdbc": {
        "SLB": (4.52, 2.2),
        "LU": (47.9, 4.7),
        "TAN": (11.5, 2.1),
        "NB": (6.3, 3.0),
        "RF": (4.8, 2.3),
        "SVM(RBF)": (2.9, 2.4),
        "5NN": (4.0, 2.6),
    },
}

#: SLB paper, Table 1 (forest BNs): {(cpd, balance): {classifier: ((mean, sd) for n in N_GRID)}}.
PAPER_TABLE1 = {
    ("normal", "balanced"): {
        "SLB": ((15.4, 2.98), (9.37, 2.34), (6.91, 1.76), (5.82, 1.82), (5.11, 1.36)),
        "LU": ((21.2, 3.64), (19.4, 3.5), (17.6, 3.45), (18.3, 3.19), (17.3, 3.46)),
        "TAN": ((8.17, 3.78), (6.68, 3.88), (4.98, 2.64), (5.56, 4.02), (4.66, 2.87)),
        "NB": ((23, 3.75), (21.8, 3.66), (20.3, 3.36), (21, 3.14), (20.7, 3.44)),
        "RF": ((15, 2.54), (11.6, 2.08), (9.73, 1.55), (8.87, 1.67), (8.23, 1.63)),
        "SVM(RBF)": ((11.9, 2.36), (8.07, 2.02), (6.34, 1.42), (5.46, 1.54), (4.84, 1.16)),
        "5NN": ((13.8, 2.65), (11.4, 2.56), (9.91, 2.1), (8.89, 2.22), (8.37, 1.93)),
    },
    ("normal", "imbalanced"): {
        "SLB": ((20.4, 4.7), (13.2, 3.71), (9.48, 2.98), (7.43, 2), (7.04, 2.12)),
        "LU": ((24.6, 4.57), (22.7, 4.88), (21.5, 4.04), (21.3, 3.99), (20.5, 3.6)),
        "TAN": ((11.4, 5.51), (7.37, 4.32), (6.52, 3.96), (6.13, 4.05), (6.56, 4.54)),
        "NB": ((26.1, 4.41), (25.1, 4.29), (23.7, 4.25), (23.4, 3.74), (22.6, 3.86)),
        "RF": ((30.3, 4.6), (25.5, 4.08), (22, 3.65), (20.3, 2.71), (18.9, 2.61)),
        "SVM(RBF)": ((25.8, 4.83), (18.7, 3.43), (14.7, 2.79), (12.7, 2.43), (11.6, 2.23)),
        "5NN": ((24.3, 3.89), (19.2, 3.72), (17.2, 3.71), (15.9, 2.95), (15, 3.18)),
    },
    ("complex", "balanced"): {
        "SLB": ((33.3, 3.23), (31.1, 3.71), (29.4, 3.34), (27.7, 3.13), (27.6, 3.33)),
        "LU": ((33.3, 3.23), (30.7, 3.97), (29.5, 3.46), (28.1, 3.32), (28.1, 3.65)),
        "TAN": ((35.5, 3.16), (32.8, 3.85), (30.8, 4.93), (28.4, 4.83), (27.8, 4.79)),
        "NB": ((33.1, 3.38), (30.8, 3.66), (29.7, 3.37), (27.9, 3.34), (28.1, 3.68)),
        "RF": ((30.8, 2.89), (26.8, 2.87), (25.5, 2.49), (24.2, 2.28), (23.8, 2.41)),
        "SVM(RBF)": ((37.2, 2.92), (33.9, 3.18), (31.7, 3.19), (29.3, 2.62), (28.7, 2.61)),
        "5NN": ((38.2, 2.38), (36.1, 2.95), (34.8, 2.91), (33.5, 2.64), (33.1, 2.65)),
    },
    ("complex", "imbalanced"): {
        "SLB": ((37.1, 3.72), (34.9, 3.71), (32.7, 3.66), (32.2, 3.59), (31.6, 3.68)),
        "LU": ((37.1, 3.86), (35.3, 3.87), (33, 3.72), (33.2, 3.75), (32.9, 3.93)),
        "TAN": ((38, 3.41), (33.3, 4.05), (31.2, 4.65), (30.5, 4.71), (29, 5.04)),
        "NB": ((37.9, 3.35), (35.6, 3.6), (33.6, 3.58), (33.5, 3.65), (33.1, 3.7)),
        "RF": ((43.2, 3.13), (39.7, 3.12), (37.6, 3.07), (36.4, 3.13), (35.7, 3.32)),
        "SVM(RBF)": ((48.3, 1.57), (45.9, 2.69), (43.7, 2.93), (42.5, 2.99), (41.4, 3.03)),
        "5NN": ((43.8, 1.75), (41.3, 2.48), (39.9, 2.26), (39.3, 2.06), (38.7, 2.68)),
    },
}
#: SLB paper, Table 2 (general BNs): {(cpd, balance, shared): {classifier: ((mean, sd), ...)}}.
PAPER_TABLE2 = {
    ("normal", "balanced", False): {
        "SLB": ((11.7, 2.92), (7.3, 2.04), (5.24, 1.46), (4.21, 1.32), (3.67, 1.24)),
        "SLB-": ((12.3, 3.23), (7.53, 2.1), (5.4, 1.53), (4.24, 1.31), (3.73, 1.22)),
        "LU": ((15.2, 4.33), (13.2, 3.83), (12.9, 3.54), (11.7, 3.3), (11.7, 3.79)),
        "TAN": ((16.8, 6.81), (12, 6.83), (12.9, 7.59), (9.96, 5.22), (10.8, 7.81)),
        "NB": ((28.7, 6.45), (26.4, 6.13), (26.7, 5.72), (24.4, 6.18), (24.8, 6.82)),
        "RF": ((15, 3.68), (10.3, 2.82), (8.92, 2.17), (7.47, 2.24), (6.5, 1.91)),
        "SVM(RBF)": ((17.8, 2.66), (12.5, 2.74), (10.4, 2.46), (8.83, 2.49), (7.75, 2.33)),
        "5NN": ((17.1, 3.09), (13, 2.76), (10.9, 2.3), (9.26, 2.09), (8.89, 2.47)),
    },
    ("normal", "imbalanced", False): {
        "SLB": ((15.1, 3.73), (8.87, 2.51), (6.31, 1.72), (4.99, 1.77), (4.11, 1.18)),
        "SLB-": ((15.1, 4.52), (10.4, 2.61), (7.69, 2.12), (6.21, 1.78), (5.29, 1.54)),
        "LU": ((17.1, 4.27), (14.9, 3.95), (13.3, 3.94), (13.3, 4.02), (13, 4.09)),
        "TAN": ((16.2, 8.36), (14.4, 8.41), (12.7, 7.66), (10.5, 6.41), (10.7, 6.8)),
        "NB": ((29.6, 6.7), (27.8, 6.93), (25.8, 5.67), (26.1, 5.41), (25, 5.01)),
        "RF": ((25.7, 6.07), (20.3, 5.39), (16.9, 4.44), (16, 4.21), (13.9, 3.87)),
        "SVM(RBF)": ((30.1, 5.86), (25.3, 4.21), (20.9, 3.81), (19, 2.93), (18.2, 3.45)),
        "5NN": ((26.1, 5.24), (20.5, 4.43), (17.6, 4.01), (16.2, 3.31), (14.4, 3.44)),
    },
    ("normal", "balanced", True): {
        "SLB": ((14.3, 3.59), (9.42, 2.53), (6.92, 1.74), (5.82, 1.69), (5.57, 1.9)),
        "SLB-": ((14.8, 3.71), (9.56, 2.59), (7.02, 1.79), (5.91, 1.73), (5.59, 1.85)),
        "LU": ((17.9, 4.57), (15.5, 4.93), (14.6, 4.24), (13.7, 4.21), (14.2, 4.03)),
        "TAN": ((18.7, 8.01), (16.5, 7.97), (13.8, 7.56), (14.1, 7.37), (14.4, 7.91)),
        "NB": ((31.2, 6.77), (29, 7.08), (27.7, 6.55), (26.7, 6.21), (27.6, 6.39)),
        "RF": ((17.6, 4.31), (12.6, 3.42), (10.5, 2.62), (9.28, 2.8), (8.78, 2.77)),
        "SVM(RBF)": ((20.3, 3.71), (14.8, 3.03), (11.7, 3.05), (10.7, 2.45), (9.61, 2.56)),
        "5NN": ((21.4, 4.26), (15.9, 3.52), (13.7, 3.13), (12.5, 2.98), (12.1, 3.15)),
    },
    ("normal", "imbalanced", True): {
        "SLB": ((17.7, 5.18), (11.6, 3.33), (8.97, 2.82), (7.8, 2.16), (6.67, 2.21)),
        "SLB-": ((19, 5.44), (12, 3.52), (9.16, 2.87), (7.96, 2.24), (6.77, 2.2)),
        "LU": ((21.4, 5.66), (18.8, 5.04), (18.1, 5.73), (18, 5.4), (17.7, 5.45)),
        "TAN": ((21.2, 9.18), (19.6, 9.23), (17.1, 8.19), (17.1, 8.3), (16, 8.13)),
        "NB": ((32.9, 6.1), (31.2, 6.95), (29.7, 6.59), (30.2, 5.85), (29.8, 6.65)),
        "RF": ((29.5, 6.45), (24, 5.6), (21.1, 5.89), (20, 5.04), (18.4, 5.49)),
        "SVM(RBF)": ((35.2, 6.87), (28.3, 5.26), (24.7, 5.29), (22.9, 4.03), (21, 4.28)),
        "5NN": ((31, 4.89), (25.6, 4.79), (23, 4.79), (21.3, 3.95), (20, 4.73)),
    },
    ("complex", "balanced", False): {
        "SLB": ((13.5, 3.13), (8.32, 1.86), (6.24, 1.69), (5.13, 1.42), (4.48, 1.13)),
        "SLB-": ((14, 3.29), (8.54, 1.84), (6.37, 1.65), (5.17, 1.44), (4.55, 1.15)),
        "LU": ((17.9, 4.71), (15.3, 3.71), (15.1, 3.93), (14.5, 3.63), (13.5, 3.96)),
        "TAN": ((16.9, 7.79), (13.6, 6.91), (13.2, 7.49), (13.4, 7.52), (11.2, 7.45)),
        "NB": ((30.1, 6.54), (27.7, 5.61), (27.1, 5.46), (27, 5.52), (25.8, 6.1)),
        "RF": ((16.6, 3.78), (11.8, 2.69), (10, 2.58), (8.86, 2.12), (7.76, 1.95)),
        "SVM(RBF)": ((18.7, 3.33), (13.3, 2.67), (10.4, 2.57), (9.01, 2.37), (8.08, 2.31)),
        "5NN": ((18.9, 3.47), (14.6, 2.45), (12.2, 2.73), (11.1, 2.24), (10.3, 2.13)),
    },
    ("complex", "imbalanced", False): {
        "SLB": ((17.1, 4.98), (10.6, 2.83), (8, 2.34), (6.89, 1.82), (5.69, 1.61)),
        "SLB-": ((18.3, 5), (10.9, 2.76), (8.18, 2.29), (7.04, 1.8), (5.77, 1.62)),
        "LU": ((21, 4.73), (18.7, 4.88), (18.1, 5.08), (18.3, 4.5), (17.4, 4.74)),
        "TAN": ((18.4, 7.8), (14.8, 7.45), (13, 8.36), (15, 8.81), (13.1, 7.98)),
        "NB": ((31.4, 5.6), (29.5, 5.15), (29, 5.8), (28.8, 5.6), (27.7, 5.63)),
        "RF": ((29.4, 5.07), (23.6, 5.19), (20.6, 4.82), (19.8, 4.2), (17.8, 4.18)),
        "SVM(RBF)": ((32.4, 5.79), (25.8, 4.17), (23.2, 4.31), (20.9, 3.38), (18.9, 2.84)),
        "5NN": ((29.3, 4.43), (23.4, 3.91), (20.6, 4.09), (19.5, 3.5), (18.1, 3.81)),
    },
    ("complex", "balanced", True): {
        "SLB": ((16.5, 3.86), (11.1, 2.92), (8.58, 2.57), (7.36, 2.17), (6.34, 1.7)),
        "SLB-": ((17.3, 4.02), (11.5, 2.94), (8.64, 2.6), (7.43, 2.22), (6.38, 1.73)),
        "LU": ((20.9, 5.39), (19, 4.63), (16.7, 4.61), (17.1, 4.77), (15.9, 4.18)),
        "TAN": ((19.7, 7.28), (18.3, 9), (15.8, 8.03), (15.3, 7.53), (14.9, 8.07)),
        "NB": ((32.8, 6.65), (30.9, 5.29), (28.6, 6.21), (29.6, 6.41), (28, 5.81)),
        "RF": ((19.4, 4.26), (14.6, 3.48), (11.8, 3.06), (11, 2.96), (9.83, 2.42)),
        "SVM(RBF)": ((21.1, 3.89), (15.6, 3.53), (13, 3.11), (11.2, 2.79), (10.1, 2.57)),
        "5NN": ((22.5, 3.8), (18.3, 3.73), (16.1, 3.51), (14.7, 3.04), (13.5, 3.02)),
    },
    ("complex", "imbalanced", True): {
        "SLB": ((19.7, 5.58), (13.7, 3.59), (11.2, 2.78), (9.18, 2.63), (8.18, 2.69)),
        "SLB-": ((20.8, 5.64), (14.2, 3.76), (11.5, 2.95), (9.22, 2.59), (8.26, 2.73)),
        "LU": ((24.1, 6.42), (21.6, 5.17), (21.6, 5.24), (20.5, 5.99), (20, 5.79)),
        "TAN": ((23.3, 8.8), (19.9, 9.47), (19.6, 8.94), (17.8, 9.27), (17.2, 8.01)),
        "NB": ((35.1, 5.91), (32.5, 6), (32.5, 5.23), (30.8, 6.51), (30.8, 5.53)),
        "RF": ((32.6, 6.77), (26.8, 5.86), (24.4, 4.92), (22, 5.65), (20.6, 5.7)),
        "SVM(RBF)": ((37.1, 7.2), (29.7, 5.18), (26.5, 4.72), (23.6, 4.14), (21.7, 4.25)),
        "5NN": ((32.9, 5), (27.4, 4.23), (25.5, 4.09), (23.1, 4.47), (21.9, 4.49)),
    },
}
#: SLB paper, Table 3 (general BNs, independent structure): SLB with HSIC vs Pearson screening.
#: The paper prints fractions with two decimals; here in %.
PAPER_TABLE3 = {
    ("normal", "balanced"): {
        "SLB": ((12, 3), (7, 2), (5, 1), (4, 1), (4, 1)),
        "SLB(Pearson)": ((12, 3), (8, 2), (6, 2), (5, 2), (5, 1)),
    },
    ("normal", "imbalanced"): {
        "SLB": ((16, 5), (10, 3), (7, 2), (6, 2), (6, 2)),
        "SLB(Pearson)": ((16, 4), (11, 3), (8, 2), (7, 2), (6, 2)),
    },
    ("complex", "balanced"): {
        "SLB": ((14, 3), (8, 2), (6, 2), (5, 1), (5, 1)),
        "SLB(Pearson)": ((15, 3), (10, 2), (8, 2), (7, 1), (6, 1)),
    },
    ("complex", "imbalanced"): {
        "SLB": ((19, 5), (11, 3), (8, 2), (7, 2), (6, 1)),
        "SLB(Pearson)": ((19, 4), (12, 3), (10, 3), (8, 1), (7, 1)),
    },
}


def _balance_name(balance) -> str:
    share = _share(balance)
    if share == 0.5:
        return "balanced"
    if share == 0.75:
        return "imbalanced"
    return f"pos{share:g}"


def _share(balance) -> float:
    if isinstance(balance, str):
        key = balance.strip().lower()
        if key == "balanced":
            return 0.5
        if key in ("imbalanced", "unbalanced"):
            return 0.75
        try:
            balance = float(key)
        except ValueError:
            raise ValueError(
                f"balance must be 'balanced', 'imbalanced' or a share in (0, 1); got {balance!r}"
            ) from None
    share = float(balance)
    if not 0.0 < share < 1.0:
        raise ValueError(f"balance (the share of positives) must lie in (0, 1); got {balance!r}")
    return share


def paper_synthetic(design) -> pd.DataFrame:
    """The paper's numbers for a synthetic design, in long form.

    Parameters
    ----------
    design : Design or str
        E.g. ``Design("forest", "normal", 0.5)`` or ``"bn-normal-balanced-independent"``.

    Returns
    -------
    DataFrame
        Columns ``n``, ``classifier``, ``paper_mean``, ``paper_sd`` (%), ``table`` (1, 2 or 3);
        empty when the paper has no such design (e.g. another ``d`` or balance).  For general
        BNs with independent structure, SLB(Pearson) comes from Table 3.
    """
    design = Design.coerce(design)
    rows = []
    bal = _balance_name(design.balance)
    if design.d != 20:
        return pd.DataFrame(columns=["n", "classifier", "paper_mean", "paper_sd", "table"])
    sources = []
    if design.family == "forest":
        sources.append((1, PAPER_TABLE1.get((design.cpd, bal), {})))
    else:
        sources.append((2, PAPER_TABLE2.get((design.cpd, bal, design.shared), {})))
        if not design.shared:
            t3 = PAPER_TABLE3.get((design.cpd, bal), {})
            sources.append((3, {k: v for k, v in t3.items() if k == "SLB(Pearson)"}))
    for table, block in sources:
        for clf, values in block.items():
            for n, (m, s) in zip(N_GRID, values, strict=True):
                rows.append(
                    {
                        "n": n,
                        "classifier": clf,
                        "paper_mean": float(m),
                        "paper_sd": float(s),
                        "table": table,
                    }
                )
    return pd.DataFrame(rows, columns=["n", "classifier", "paper_mean", "paper_sd", "table"])


# ----------------------------------------------------------------------------------------------
# classifiers, seeds, progress
# ----------------------------------------------------------------------------------------------
def classifier_names() -> list:
    """Every classifier name the experiments accept: the keys of :data:`slb.evaluation.registry.CLASSIFIERS`."""
    return list(CLASSIFIERS)


def make_estimator(name, random_state=None, density_params=None):
    """A fresh classifier by name: :func:`slb.evaluation.registry.make_classifier`.

    Parameters
    ----------
    name : str
        See :func:`classifier_names`.
    random_state : int or None
    density_params : dict or None
        Shared bandwidth settings for the density-based classifiers.

    Returns
    -------
    estimator
    """
    return make_classifier(name, random_state=random_state, **dict(density_params or {}))


def _check_classifiers(classifiers) -> list:
    if isinstance(classifiers, str):
        classifiers = [classifiers]
    names = list(dict.fromkeys(_resolve_name(str(c)) for c in classifiers))
    if not names:
        raise ValueError("Give at least one classifier.")
    known = set(classifier_names())
    bad = [c for c in names if c not in known]
    if bad:
        raise ValueError(
            f"Unknown classifier(s) {', '.join(map(repr, bad))}; choose from "
            f"{', '.join(classifier_names())}."
        )
    return names


def _seeds(random_state, n, key=0) -> list:
    """``n`` independent 31-bit integer seeds derived from ``random_state`` (and a stream key)."""
    if random_state is None:
        raise ValueError("random_state must be an integer: experiments must be reproducible.")
    ss = np.random.SeedSequence([int(random_state), int(key)])
    return [int(child.generate_state(1)[0] & 0x7FFFFFFF) for child in ss.spawn(n)]


class _Progress:
    """Counts work units and forwards them to an optional user callback."""

    def __init__(self, callback, total):
        self.callback = callback
        self.total = int(total)
        self.done = 0

    def step(self, message, k=1):
        self.done += k
        if self.callback is not None:
            self.callback(self.done, self.total, message)


class TerminalProgress:
    """A ``progress(done, total, message)`` callback drawing a one-line bar on stderr.

    On a terminal the line is redrawn in place; otherwise (a log file under ``nohup``) one line
    is written every ``every`` percent, so logs stay short.

    Parameters
    ----------
    stream : file-like, default sys.stderr
    width : int, default 30
        Characters of the bar.
    every : float, default 5
        Percent between two lines when the stream is not a terminal.
    """

    def __init__(self, stream=None, width=30, every=5.0):
        self.stream = stream if stream is not None else sys.stderr
        self.width = int(width)
        self.every = float(every)
        self.t0 = time.perf_counter()
        self._last_pct = -math.inf
        self._last_done, self._last_total = 0, None
        try:
            self.tty = bool(self.stream.isatty())
        except (AttributeError, ValueError):
            self.tty = False

    @staticmethod
    def _clock(seconds):
        seconds = int(round(seconds))
        h, rem = divmod(seconds, 3600)
        m, s = divmod(rem, 60)
        return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"

    def __call__(self, done, total, message=""):
        total = max(int(total), 1)
        if self._last_total is not None and (done < self._last_done or total != self._last_total):
            # a new run: start over
            self.t0 = time.perf_counter()
            self._last_pct = -math.inf
        self._last_done, self._last_total = done, total
        frac = min(max(done / total, 0.0), 1.0)
        elapsed = time.perf_counter() - self.t0
        eta = elapsed / frac * (1 - frac) if frac > 0 else float("nan")
        bar = "#" * int(round(frac * self.width))
        left = self._clock(eta) if math.isfinite(eta) else "--:--"
        line = (
            f"[{bar:<{self.width}}] {done}/{total} {100 * frac:5.1f}%  "
            f"{self._clock(elapsed)} elapsed, ~{left} left  {message}"
        )
        if self.tty:
            width = max(shutil.get_terminal_size((100, 20)).columns - 1, 20)
            self.stream.write("\r" + line[:width].ljust(width))
            if done >= total:
                self.stream.write("\n")
        elif 100 * frac - self._last_pct >= self.every or done >= total:
            self._last_pct = 100 * frac
            self.stream.write(line + "\n")
        self.stream.flush()


# ----------------------------------------------------------------------------------------------
# formatting
# ----------------------------------------------------------------------------------------------
def _cell(mean, sd, digits=1, bold=False):
    """``"12.3 ± 4.5"`` in percent from fractions; bold in Markdown when asked."""
    if mean is None or not np.isfinite(mean):
        return "–"
    text = f"{100 * mean:.{digits}f}"
    if sd is not None and np.isfinite(sd):
        text += f" ± {100 * sd:.{digits}f}"
    return f"**{text}**" if bold else text


def _paper_cell(mean, sd):
    if mean is None or not np.isfinite(mean):
        return "–"
    return f"{mean:g} ± {sd:g}" if sd is not None and np.isfinite(sd) else f"{mean:g}"


def markdown_table(frame: pd.DataFrame, index=True) -> str:
    """A plain GitHub-flavoured Markdown table of a DataFrame (no extra dependency)."""
    cols = ([frame.index.name or ""] if index else []) + [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for idx, row in frame.iterrows():
        cells = ([str(idx)] if index else []) + ["" if pd.isna(v) else str(v) for v in row]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------
# synthetic designs
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Design:
    """One cell of the paper's factorial synthetic designs.

    Parameters
    ----------
    family : {"forest", "bn"}
        Forest-structured (Table 1) or general Bayesian networks with three parents (Table 2).
    cpd : {"normal", "complex"}
    balance : float or {"balanced", "imbalanced"}
        Share of positives in the training sets (0.5 or the paper's 0.75).
    shared : bool
        General BNs only: about a third of the nodes share parents and CPDs across the classes.
    d : int
        Number of variables (the paper: 20).
    n_test : int
        Test rows, half per class (the paper: 1000).
    """

    family: str = "forest"
    cpd: str = "normal"
    balance: float = 0.5
    shared: bool = False
    d: int = 20
    n_test: int = 1000

    def __post_init__(self):
        family = {"general": "bn", "general bn": "bn"}.get(self.family, self.family)
        if family not in ("forest", "bn"):
            raise ValueError(f"design must be 'forest' or 'bn'; got {self.family!r}")
        if self.cpd not in ("normal", "complex"):
            raise ValueError(f"cpd must be 'normal' or 'complex'; got {self.cpd!r}")
        if family == "forest" and self.shared:
            raise ValueError("shared structure exists for general BNs (design='bn') only")
        object.__setattr__(self, "family", family)
        object.__setattr__(self, "balance", _share(self.balance))
        object.__setattr__(self, "shared", bool(self.shared))

    @property
    def name(self) -> str:
        """``forest-normal-balanced``, ``bn-complex-imbalanced-shared``, ... (as
        :attr:`slb.data.synthetic.SyntheticDataset.name`)."""
        name = f"{self.family}-{self.cpd}-{_balance_name(self.balance)}"
        if self.family == "bn":
            name += "-shared" if self.shared else "-independent"
        return name

    @classmethod
    def from_name(cls, name: str, **kw) -> Design:
        """Parse a name such as ``"forest-complex-imbalanced"`` or ``"bn-normal-balanced"``
        (structure ``independent`` by default); omitted parts take the defaults."""
        parts = [p for p in str(name).strip().lower().split("-") if p]
        if not parts or parts[0] not in ("forest", "bn"):
            raise ValueError(
                f"A synthetic design name starts with 'forest' or 'bn' (e.g. "
                f"'forest-normal-balanced'); got {name!r}"
            )
        args = {"family": parts[0]}
        for p in parts[1:]:
            if p in ("normal", "complex"):
                args["cpd"] = p
            elif p in ("balanced", "imbalanced", "unbalanced"):
                args["balance"] = p
            elif p in ("shared", "independent"):
                args["shared"] = p == "shared"
            else:
                raise ValueError(f"Unknown part {p!r} in the design name {name!r}")
        args.update(kw)
        return cls(**args)

    @classmethod
    def coerce(cls, design) -> Design:
        if isinstance(design, Design):
            return design
        if isinstance(design, str):
            return cls.from_name(design)
        if isinstance(design, Mapping):
            return cls(**design)
        raise TypeError(f"Expected a Design, a design name or a dict; got {type(design).__name__}")

    def make(self, n_train, random_state):
        """One draw: :class:`slb.data.synthetic.SyntheticDataset` with ``n_train`` training rows.

        The networks and the test set depend on ``random_state`` only, not on ``n_train``.
        """
        if self.family == "forest":
            return make_forest_bn(
                n_train=n_train,
                n_test=self.n_test,
                d=self.d,
                cpd=self.cpd,
                balance=self.balance,
                random_state=random_state,
            )
        return make_general_bn(
            n_train=n_train,
            n_test=self.n_test,
            d=self.d,
            cpd=self.cpd,
            shared=self.shared,
            balance=self.balance,
            random_state=random_state,
        )


# ----------------------------------------------------------------------------------------------
# real data (Table 4)
# ----------------------------------------------------------------------------------------------
def load_csv(path, label, positive=None, n_splits=5, random_state=0):
    """Read a table file and make it a clean two-class problem.

    Uses :func:`slb.tables.read.read_table` (encoding, delimiter and header sniffing; CSV, TSV, Excel,
    Parquet) and :func:`slb.tables.clean.prepare_table` (drops text columns and rows with missing
    values, merges the other classes into ``"not <positive>"`` when ``positive`` is given).

    Parameters
    ----------
    path : str or Path
    label : str
        The label column.
    positive : object, optional
        The positive class; required when the label has more than two classes.
    n_splits : int
        Folds planned (checked against the smaller class).
    random_state : int

    Returns
    -------
    X : DataFrame
    y : ndarray
    notes : list of str
        What was read and changed, in plain language.
    """
    from ..tables.clean import prepare_table
    from ..tables.read import read_table

    path = Path(path)
    read = read_table(path.read_bytes(), path.name, max_bytes=None)
    prepared = prepare_table(
        read.frame, label, positive=positive, n_folds=n_splits, random_state=random_state
    )
    notes = list(read.notes) + prepared.messages
    return prepared.X, prepared.y, notes


def _as_datasets(datasets_or_frames) -> dict:
    """Normalise the first argument of :func:`run_real` to ``{name: (X, y)}``."""
    obj = datasets_or_frames
    if isinstance(obj, str):
        obj = [obj]
    if isinstance(obj, Mapping):
        items = list(obj.items())
    elif isinstance(obj, tuple) and len(obj) == 2 and not isinstance(obj[0], str):
        items = [("data", obj)]
    else:
        items = []
        for item in obj:
            if isinstance(item, str):
                items.append((item, item))
            elif isinstance(item, tuple) and len(item) == 3:
                items.append((item[0], (item[1], item[2])))
            elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
                items.append(item)
            else:
                raise TypeError(
                    "Each dataset is a bundled name, (name, X, y) or (name, (X, y)); got "
                    f"{type(item).__name__}"
                )
    out = {}
    for name, value in items:
        if isinstance(value, str):
            if value not in BUNDLED_DATASETS:
                raise ValueError(
                    f"Unknown dataset {value!r}; the bundled ones are "
                    f"{', '.join(BUNDLED_DATASETS)} (use load_csv for a file)."
                )
            value = load_dataset(value)
        X, y = value
        if str(name) in out:
            raise ValueError(f"Two datasets are called {name!r}")
        out[str(name)] = (X, np.asarray(y))
    if not out:
        raise ValueError("Give at least one dataset.")
    return out


@dataclass
class RealResults:
    """Result of :func:`run_real`.

    Attributes
    ----------
    per_fold : DataFrame
        One row per dataset, fold and classifier: ``dataset``, ``repeat``, ``fold``,
        ``classifier``, ``ber`` (fraction).
    summary : DataFrame
        One row per dataset and classifier (in the order given): ``dataset``, ``classifier``,
        ``mean``, ``sd`` (fractions, sd over all folds, ddof 1), ``p_value`` and
        ``p_bonferroni`` (two-sided Wilcoxon against the best), ``best``, ``tied_with_best``,
        ``seconds`` (fit + predict, all folds), ``paper_mean``, ``paper_sd`` (the paper's
        Table 4, %, NaN when it has no value).
    settings : dict
        ``n_splits``, ``n_repeats``, ``random_state``, ``alpha``, ``classifiers``, ``datasets``
        (name -> rows, features, class counts).
    """

    per_fold: pd.DataFrame
    summary: pd.DataFrame
    settings: dict = field(default_factory=dict)

    def table(self, paper=True, bold=True, digits=1) -> pd.DataFrame:
        """The Table-4-style table: one row per dataset (and one for the paper's values,
        when it has them), one column per classifier, cells ``mean ± sd`` in %; the best and
        the statistically tied in Markdown bold."""
        classifiers = self.settings.get("classifiers") or list(
            dict.fromkeys(self.summary["classifier"])
        )
        rows, index = [], []
        for name, block in self.summary.groupby("dataset", sort=False):
            b = block.set_index("classifier")
            rows.append(
                [
                    _cell(
                        b.loc[c, "mean"],
                        b.loc[c, "sd"],
                        digits,
                        bold and bool(b.loc[c, "tied_with_best"]),
                    )
                    for c in classifiers
                ]
            )
            index.append(f"{name} (ours)" if paper else name)
            if paper and b["paper_mean"].notna().any():
                rows.append(
                    [_paper_cell(b.loc[c, "paper_mean"], b.loc[c, "paper_sd"]) for c in classifiers]
                )
                index.append(f"{name} (paper)")
        out = pd.DataFrame(rows, index=pd.Index(index, name="dataset"), columns=classifiers)
        return out

    def to_markdown(self, paper=True) -> str:
        """The table in Markdown with a caption stating the protocol."""
        s = self.settings
        caption = (
            f"BER % (mean ± sd over {s.get('n_repeats', 1)} x {s.get('n_splits', 5)}-fold "
            f"stratified CV, identical folds for every classifier, seed "
            f"{s.get('random_state')}). Bold: the best and those not significantly worse "
            f"({s.get('test', 'two-sided Wilcoxon signed-rank test against the best, Bonferroni')}"
            f", alpha {s.get('alpha', 0.05)})."
        )
        if paper:
            caption += " Rows '(paper)': the SLB paper's Table 4 (one 5-fold CV)."
        out = markdown_table(self.table(paper=paper)) + "\n\n" + caption + "\n"
        return out + self.friedman_markdown()

    def friedman(self, alpha=None):
        """Friedman test and Nemenyi critical difference of the mean BERs across data sets.

        Returns
        -------
        FriedmanResult or None
            None with fewer than 2 data sets or 3 classifiers.
        """
        means = self.summary.pivot(index="dataset", columns="classifier", values="mean")
        if means.shape[0] < 2 or means.shape[1] < 3:
            return None
        return friedman_nemenyi(means, self.settings.get("alpha", 0.05) if alpha is None else alpha)

    def friedman_markdown(self) -> str:
        """Average ranks, the Friedman p-value and the Nemenyi critical difference, or ''."""
        f = self.friedman()
        if f is None:
            return ""
        ranks = ", ".join(f"{c} {r:.2f}" for c, r in f.ranks.items())
        return (
            f"\nAcross the {f.n_datasets} data sets: average ranks (1 = best) {ranks}. "
            f"Friedman chi2 = {f.statistic:.2f}, p = {f.p_value:.3g}; Nemenyi critical "
            f"difference of average ranks CD = {f.cd:.2f} (alpha {f.alpha}); two classifiers "
            "whose average ranks differ by less than CD are not significantly different.\n"
        )


def run_real(
    datasets_or_frames,
    classifiers=DEFAULT_REAL_CLASSIFIERS,
    n_splits=5,
    n_repeats=1,
    random_state=0,
    progress: ProgressFn | None = None,
    *,
    alpha=0.05,
    density_params=None,
    test="corrected_t",
) -> RealResults:
    """The SLB paper's real-data protocol (section 5.2, Table 4), with a test that can reject.

    Stratified ``n_splits``-fold cross-validation repeated ``n_repeats`` times, the same folds
    for every classifier, balanced error rate per fold; per dataset the classifier of lowest
    mean BER and those not significantly worse are marked.  ``test="corrected_t"`` (default):
    the Nadeau-Bengio corrected resampled t-test against the best, Holm-adjusted (the folds of
    repeated CV overlap, so a plain paired test is anti-conservative); ``test="wilcoxon"``: the
    paper's two-sided Wilcoxon signed-rank test, Bonferroni-adjusted, which on a single 5-fold
    CV can never reject (its smallest two-sided p-value on 5 pairs is 0.0625).

    Parameters
    ----------
    datasets_or_frames : str, list or dict
        Bundled dataset names (``"sonar"``, ``"pima"``, ...), ``(name, X, y)`` tuples,
        ``{name: (X, y)}``, or one ``(X, y)`` pair (called ``"data"``).
    classifiers : sequence of str
        Names (see :func:`classifier_names`).
    n_splits, n_repeats : int
    random_state : int
        Seeds the folds and every classifier.
    progress : callable or None
        ``progress(done, total, message)`` after every fit.
    alpha : float
    density_params : dict or None
        Shared bandwidth settings passed to the density-based classifiers.
    test : {"corrected_t", "wilcoxon"}

    Returns
    -------
    RealResults
    """
    names = _check_classifiers(classifiers)
    data = _as_datasets(datasets_or_frames)
    folds = {
        name: stratified_folds(y, n_splits, n_repeats, random_state)
        for name, (X, y) in data.items()
    }
    tracker = _Progress(progress, sum(len(f) for f in folds.values()) * len(names))
    per_fold, summaries, info = [], [], {}
    for name, (X, y) in data.items():
        estimators = {
            c: make_estimator(c, random_state=random_state, density_params=density_params)
            for c in names
        }

        def report(done, total, message, _name=name):
            tracker.step(f"{_name}: {message}")

        comp = compare_estimators(
            estimators, X, y, folds=folds[name], alpha=alpha, test=test, progress=report
        )
        test_name = comp.test
        pf = comp.per_fold.reset_index(drop=True)
        k = np.arange(len(pf))
        long = pf.assign(dataset=name, repeat=k // n_splits, fold=k % n_splits).melt(
            id_vars=["dataset", "repeat", "fold"], var_name="classifier", value_name="ber"
        )
        per_fold.append(long)
        s = comp.summary.reindex(names).reset_index().rename(columns={"index": "classifier"})
        s.insert(0, "dataset", name)
        s["seconds"] = comp.fit_seconds.reindex(names).to_numpy()
        paper = PAPER_TABLE4.get(name, {})
        s["paper_mean"] = [paper.get(c, (np.nan, np.nan))[0] for c in names]
        s["paper_sd"] = [paper.get(c, (np.nan, np.nan))[1] for c in names]
        summaries.append(s)
        values, counts = np.unique(y, return_counts=True)
        info[name] = {
            "rows": int(len(y)),
            "features": int(np.shape(X)[1]),
            "classes": {str(v): int(c) for v, c in zip(values, counts, strict=True)},
        }
    per_fold = pd.concat(per_fold, ignore_index=True)
    per_fold = per_fold.sort_values(
        ["dataset", "repeat", "fold", "classifier"],
        key=_order_key(list(data), names),
        kind="stable",
    ).reset_index(drop=True)
    summary = pd.concat(summaries, ignore_index=True)
    summary["best"] = summary["best"].astype(bool)
    summary["tied_with_best"] = summary["tied_with_best"].astype(bool)
    settings = {
        "n_splits": int(n_splits),
        "n_repeats": int(n_repeats),
        "random_state": random_state,
        "alpha": alpha,
        "classifiers": names,
        "datasets": info,
        "test": test_name,
    }
    return RealResults(per_fold=per_fold, summary=summary, settings=settings)


def _order_key(datasets, classifiers):
    """Sort key keeping datasets and classifiers in the order the user gave."""
    rank = {
        "dataset": {d: i for i, d in enumerate(datasets)},
        "classifier": {c: i for i, c in enumerate(classifiers)},
    }

    def key(col):
        if col.name in rank:
            return col.map(rank[col.name])
        return col

    return key


# ----------------------------------------------------------------------------------------------
# synthetic designs (Tables 1-3)
# ----------------------------------------------------------------------------------------------
def _tests_over(frame: pd.DataFrame, alpha) -> pd.DataFrame:
    """:func:`wilcoxon_against_best` when there are at least 2 paired rows, else means only."""
    if len(frame) >= 2:
        return wilcoxon_against_best(frame, alpha)
    mean = frame.mean(axis=0)
    best = mean.idxmin()
    return pd.DataFrame(
        {
            "mean": mean,
            "sd": np.nan,
            "p_value": np.nan,
            "p_bonferroni": np.nan,
            "best": mean.index == best,
            "tied_with_best": mean.index == best,
        },
        index=mean.index,
    )


@dataclass
class SyntheticResults:
    """Result of :func:`run_synthetic`.

    Attributes
    ----------
    design : Design
    long : DataFrame
        One row per replicate, training size and classifier: ``design`` (name), ``n``,
        ``replicate``, ``seed`` (of the replicate's networks and data), ``classifier``,
        ``ber`` (fraction, on the balanced test set, hence also the misclassification rate),
        ``seconds`` (fit + predict; the only column that differs between identical runs).
    summary : DataFrame
        One row per ``n`` and ``classifier``: ``mean``, ``sd`` (over replicates, ddof 1),
        ``se``, ``p_bonferroni``, ``best``, ``tied_with_best`` (Wilcoxon over the paired
        replicates against the best at that ``n``, Bonferroni), ``seconds`` (mean per fit),
        ``paper_mean``, ``paper_sd`` (%, the paper's Tables 1-3; NaN when absent).
    bayes : DataFrame
        ``replicate``, ``seed``, ``bayes_error`` (Monte Carlo Bayes BER of the replicate's
        networks); empty when ``bayes_mc=0``.
    settings : dict
    """

    design: Design
    long: pd.DataFrame
    summary: pd.DataFrame
    bayes: pd.DataFrame
    settings: dict = field(default_factory=dict)

    def table(self, paper=True, bold=True, digits=2) -> pd.DataFrame:
        """Table-1/2/3-style: one row per ``n`` (plus the paper's row when it has values),
        columns the classifiers (and ``Bayes`` when computed), cells ``mean ± sd`` in %."""
        classifiers = self.settings.get("classifiers") or list(
            dict.fromkeys(self.summary["classifier"])
        )
        show_bayes = len(self.bayes) > 0
        rows, index = [], []
        for n, block in self.summary.groupby("n", sort=True):
            b = block.set_index("classifier")
            row = [
                _cell(
                    b.loc[c, "mean"],
                    b.loc[c, "sd"],
                    digits,
                    bold and bool(b.loc[c, "tied_with_best"]),
                )
                for c in classifiers
            ]
            if show_bayes:
                row.append(
                    _cell(
                        self.bayes["bayes_error"].mean(),
                        self.bayes["bayes_error"].std(ddof=1) if len(self.bayes) > 1 else np.nan,
                        digits,
                    )
                )
            rows.append(row)
            index.append(f"{n} (ours)" if paper else str(n))
            if paper and b["paper_mean"].notna().any():
                row = [
                    _paper_cell(b.loc[c, "paper_mean"], b.loc[c, "paper_sd"]) for c in classifiers
                ]
                rows.append(row + (["–"] if show_bayes else []))
                index.append(f"{n} (paper)")
        columns = classifiers + (["Bayes"] if show_bayes else [])
        return pd.DataFrame(rows, index=pd.Index(index, name="n"), columns=columns)

    def to_markdown(self, paper=True) -> str:
        s = self.settings
        caption = (
            f"{self.design.name}: BER % on a balanced test set of {self.design.n_test} rows, "
            f"mean ± sd over {s.get('n_replicates')} replicate networks (seed "
            f"{s.get('random_state')}). Bold: the best and those tied with it (two-sided "
            f"Wilcoxon signed-rank test over the paired replicates, Bonferroni, alpha "
            f"{s.get('alpha', 0.05)})."
        )
        if len(self.bayes):
            caption += (
                f" Bayes: the Bayes error of our networks (Monte Carlo, {s.get('bayes_mc')} "
                "rows), mean ± sd over replicates."
            )
        if paper and self.summary["paper_mean"].notna().any():
            caption += " Rows '(paper)': the SLB paper (100 replicates)."
        return markdown_table(self.table(paper=paper)) + "\n\n" + caption + "\n"

    def figure(self, paper=True, title=None) -> go.Figure:
        """Learning curves; see :func:`learning_curve_figure`."""
        from ..viz.figures import learning_curve_figure

        return learning_curve_figure(
            self.long,
            paper=paper_synthetic(self.design) if paper else None,
            bayes=self.bayes["bayes_error"].mean() if len(self.bayes) else None,
            title=title or f"Learning curves: {self.design.name}",
        )


def run_synthetic(
    design="forest",
    cpd="normal",
    balance=0.5,
    shared=False,
    n_grid=N_GRID,
    n_replicates=10,
    classifiers=DEFAULT_SYNTHETIC_CLASSIFIERS,
    random_state=0,
    progress: ProgressFn | None = None,
    *,
    d=20,
    n_test=1000,
    bayes_mc=0,
    alpha=0.05,
    density_params=None,
) -> SyntheticResults:
    """One cell of the paper's synthetic factorial design, over a grid of training sizes.

    For each replicate ``r`` a seed draws the two classes' networks and a balanced test set of
    ``n_test`` rows; for every ``n`` in ``n_grid`` a training set of ``n`` rows (share
    ``balance`` positive) is drawn from the same networks, every classifier is trained on it
    and its BER measured on the test set.  The paper uses 100 replicates per cell.

    Parameters
    ----------
    design : {"forest", "bn"} or Design
        Forest BNs (paper 5.1.1, Table 1) or general BNs with three parents (5.1.2, Table 2).
        A :class:`Design` overrides ``cpd``, ``balance``, ``shared``, ``d`` and ``n_test``.
    cpd : {"normal", "complex"}
    balance : float or {"balanced", "imbalanced"}
        0.5 or the paper's 0.75.
    shared : bool
        ``design="bn"`` only: a third of the nodes share parents and CPDs across classes.
    n_grid : sequence of int
    n_replicates : int
    classifiers : sequence of str
    random_state : int
    progress : callable or None
        ``progress(done, total, message)`` after every fit.
    d, n_test : int
    bayes_mc : int
        Monte Carlo rows for each replicate's Bayes error (0: skip).
    alpha : float
    density_params : dict or None

    Returns
    -------
    SyntheticResults
    """
    if isinstance(design, Design):
        spec = design
    else:
        spec = Design(design, cpd, balance, shared, d, n_test)
    names = _check_classifiers(classifiers)
    n_grid = [int(n) for n in n_grid]
    if not n_grid or min(n_grid) < 10:
        raise ValueError("n_grid needs training sizes of at least 10 rows.")
    if int(n_replicates) < 1:
        raise ValueError("n_replicates must be at least 1.")
    seeds = _seeds(random_state, int(n_replicates))
    tracker = _Progress(progress, len(seeds) * len(n_grid) * len(names))
    rows, bayes = [], []
    for r, seed in enumerate(seeds):
        for n in n_grid:
            ds = spec.make(n, seed)
            for c in names:
                t0 = time.perf_counter()
                model = make_estimator(c, random_state=seed, density_params=density_params)
                model.fit(ds.X_train, ds.y_train)
                ber = balanced_error_rate(ds.y_test, model.predict(ds.X_test))
                rows.append(
                    {
                        "design": spec.name,
                        "n": n,
                        "replicate": r,
                        "seed": seed,
                        "classifier": c,
                        "ber": float(ber),
                        "seconds": time.perf_counter() - t0,
                    }
                )
                tracker.step(f"{spec.name} rep {r + 1}/{len(seeds)} n={n} {c}")
        if bayes_mc:
            ds = spec.make(0, seed)
            bayes.append(
                {
                    "replicate": r,
                    "seed": seed,
                    "bayes_error": float(ds.bayes_error(n_mc=int(bayes_mc), random_state=seed)),
                }
            )
    long = pd.DataFrame(rows)
    summary = _synthetic_summary(long, names, spec, alpha)
    settings = {
        "design": spec.name,
        "n_grid": n_grid,
        "n_replicates": len(seeds),
        "classifiers": names,
        "random_state": random_state,
        "alpha": alpha,
        "bayes_mc": int(bayes_mc),
        "d": spec.d,
        "n_test": spec.n_test,
    }
    return SyntheticResults(
        design=spec,
        long=long,
        summary=summary,
        bayes=pd.DataFrame(bayes, columns=["replicate", "seed", "bayes_error"]),
        settings=settings,
    )


def _synthetic_summary(long, names, spec, alpha) -> pd.DataFrame:
    out = []
    paper = paper_synthetic(spec).set_index(["n", "classifier"])
    for n, block in long.groupby("n", sort=True):
        wide = block.pivot(index="replicate", columns="classifier", values="ber")[names]
        s = _tests_over(wide, alpha).reindex(names)
        secs = block.groupby("classifier")["seconds"].mean().reindex(names)
        for c in names:
            pm, ps = (
                paper.loc[(n, c), ["paper_mean", "paper_sd"]]
                if (n, c) in paper.index
                else (np.nan, np.nan)
            )
            out.append(
                {
                    "n": n,
                    "classifier": c,
                    "mean": s.loc[c, "mean"],
                    "sd": s.loc[c, "sd"],
                    "se": s.loc[c, "sd"] / np.sqrt(len(wide)) if len(wide) > 1 else np.nan,
                    "p_bonferroni": s.loc[c, "p_bonferroni"],
                    "best": bool(s.loc[c, "best"]),
                    "tied_with_best": bool(s.loc[c, "tied_with_best"]),
                    "seconds": secs[c],
                    "paper_mean": float(pm),
                    "paper_sd": float(ps),
                }
            )
    return pd.DataFrame(out)


# ----------------------------------------------------------------------------------------------
# label noise (DISCRETE paper, Figure 1)
# ----------------------------------------------------------------------------------------------
@dataclass
class NoiseResults:
    """Result of :func:`run_label_noise`.

    Attributes
    ----------
    long : DataFrame
        One row per replicate, flip probability and classifier: ``source``, ``replicate``,
        ``p``, ``flipped`` (share of training labels actually flipped), ``classifier``,
        ``accuracy`` and ``ber`` on the clean test labels (fractions), ``seconds``.
    summary : DataFrame
        One row per ``p`` and classifier: ``accuracy``, ``accuracy_se``, ``ber``, ``ber_se``
        (mean and standard error over replicates), ``flipped`` (mean share flipped).
    settings : dict
    """

    long: pd.DataFrame
    summary: pd.DataFrame
    settings: dict = field(default_factory=dict)

    def table(self, metric="accuracy", digits=1) -> pd.DataFrame:
        """Rows: flip probability; columns: classifiers; cells ``mean ± se`` in %."""
        if metric not in ("accuracy", "ber"):
            raise ValueError("metric must be 'accuracy' or 'ber'")
        classifiers = self.settings.get("classifiers") or list(
            dict.fromkeys(self.summary["classifier"])
        )
        rows, index = [], []
        for p, block in self.summary.groupby("p", sort=True):
            b = block.set_index("classifier")
            best = b[metric].idxmax() if metric == "accuracy" else b[metric].idxmin()
            rows.append(
                [
                    _cell(b.loc[c, metric], b.loc[c, f"{metric}_se"], digits, c == best)
                    for c in classifiers
                ]
            )
            index.append(f"{p:g}")
        return pd.DataFrame(rows, index=pd.Index(index, name="flip p"), columns=classifiers)

    def to_markdown(self, metric="accuracy") -> str:
        s = self.settings
        what = "accuracy" if metric == "accuracy" else "balanced error rate"
        caption = (
            f"{s.get('source')}: clean-test {what} % (mean ± standard error over "
            f"{s.get('n_replicates')} replicates, seed {s.get('random_state')}) after flipping "
            f"each training label with probability p; {s.get('split')}. Bold: the best mean."
        )
        return markdown_table(self.table(metric)) + "\n\n" + caption + "\n"

    def figure(self, metric="accuracy", title=None) -> go.Figure:
        from ..viz.figures import noise_figure

        return noise_figure(self, metric=metric, title=title)


def _as_noise_source(data):
    """``("real", name, X, y)`` or ``("synthetic", name, Design)``."""
    if isinstance(data, Design):
        return ("synthetic", data.name, data)
    if isinstance(data, Mapping):
        d = Design(**data)
        return ("synthetic", d.name, d)
    if isinstance(data, str):
        if data in BUNDLED_DATASETS:
            X, y = load_dataset(data)
            return ("real", data, X, np.asarray(y))
        d = Design.from_name(data)
        return ("synthetic", d.name, d)
    if isinstance(data, tuple) and len(data) == 2:
        X, y = data
        return ("real", "data", X, np.asarray(y))
    if isinstance(data, tuple) and len(data) == 3 and isinstance(data[0], str):
        return ("real", data[0], data[1], np.asarray(data[2]))
    raise TypeError(
        "data must be a bundled dataset name, (X, y), (name, X, y), a design name such as "
        "'forest-normal-balanced', a Design or a dict of Design fields"
    )


def _flip(y, mask):
    classes = np.unique(y)
    if len(classes) != 2:
        raise ValueError(f"Label noise needs two classes; the training labels have {len(classes)}.")
    other = np.where(y == classes[0], classes[1], classes[0])
    return np.where(mask, other, y)


def run_label_noise(
    data,
    classifiers=DEFAULT_NOISE_CLASSIFIERS,
    flip_probs=FLIP_PROBS,
    n_replicates=5,
    random_state=0,
    progress: ProgressFn | None = None,
    *,
    test_size=0.3,
    n_train=1000,
    density_params=None,
) -> NoiseResults:
    """The DISCRETE paper's Figure 1 protocol: train on noisy labels, test on clean ones.

    Each replicate draws a train/test split (real data: a stratified split with ``test_size``
    of the rows held out; a synthetic design: fresh networks, ``n_train`` training rows and the
    design's balanced test set), then for every ``p`` in ``flip_probs`` flips each training
    label with probability ``p`` (nested across ``p``: one uniform number per row), fits every
    classifier on the noisy labels and scores it on the clean test labels.

    Parameters
    ----------
    data : str, tuple, Design or dict
        A bundled dataset name, ``(X, y)``, ``(name, X, y)``, a synthetic design name
        (``"forest-normal-balanced"``, ``"bn-complex-imbalanced-shared"``, ...), a
        :class:`Design` or a dict of its fields.
    classifiers : sequence of str
    flip_probs : sequence of float in [0, 0.5)
    n_replicates : int
    random_state : int
    progress : callable or None
    test_size : float
        Real data only.
    n_train : int
        Synthetic designs only.
    density_params : dict or None

    Returns
    -------
    NoiseResults
    """
    names = _check_classifiers(classifiers)
    probs = [float(p) for p in flip_probs]
    if not probs or any(not 0.0 <= p < 0.5 for p in probs):
        raise ValueError("flip probabilities must lie in [0, 0.5).")
    if int(n_replicates) < 1:
        raise ValueError("n_replicates must be at least 1.")
    source = _as_noise_source(data)
    R = int(n_replicates)
    seeds = _seeds(random_state, R, key=1)
    flip_seeds = _seeds(random_state, R, key=2)
    if source[0] == "real":
        _, name, X, y = source
        sss = StratifiedShuffleSplit(
            n_splits=R, test_size=test_size, random_state=_seeds(random_state, 1, key=3)[0]
        )
        splits = list(sss.split(np.zeros(len(y)), y))
        take = (lambda idx: X.iloc[idx]) if hasattr(X, "iloc") else (lambda idx: X[idx])

        def draw(r):
            tr, te = splits[r]
            return take(tr), y[tr], take(te), y[te]

        split = f"stratified {1 - test_size:.0%}/{test_size:.0%} train/test splits"
    else:
        _, name, spec = source

        def draw(r):
            ds = spec.make(int(n_train), seeds[r])
            return ds.X_train, ds.y_train, ds.X_test, ds.y_test

        split = (
            f"fresh networks per replicate, {int(n_train)} training and "
            f"{spec.n_test} balanced test rows"
        )
    tracker = _Progress(progress, R * len(probs) * len(names))
    rows = []
    for r in range(R):
        X_tr, y_tr, X_te, y_te = draw(r)
        u = np.random.default_rng(flip_seeds[r]).random(len(y_tr))
        for p in probs:
            y_noisy = _flip(y_tr, u < p)
            for c in names:
                t0 = time.perf_counter()
                model = make_estimator(c, random_state=seeds[r], density_params=density_params)
                pred = clone(model).fit(X_tr, y_noisy).predict(X_te)
                rows.append(
                    {
                        "source": name,
                        "replicate": r,
                        "p": p,
                        "flipped": float(np.mean(u < p)),
                        "classifier": c,
                        "accuracy": float(np.mean(pred == y_te)),
                        "ber": float(balanced_error_rate(y_te, pred)),
                        "seconds": time.perf_counter() - t0,
                    }
                )
                tracker.step(f"{name} rep {r + 1}/{R} p={p:g} {c}")
    long = pd.DataFrame(rows)
    g = long.groupby(["p", "classifier"], sort=False)
    summary = g.agg(
        accuracy=("accuracy", "mean"),
        accuracy_sd=("accuracy", "std"),
        ber=("ber", "mean"),
        ber_sd=("ber", "std"),
        flipped=("flipped", "mean"),
    ).reset_index()
    summary["accuracy_se"] = summary.pop("accuracy_sd") / np.sqrt(R)
    summary["ber_se"] = summary.pop("ber_sd") / np.sqrt(R)
    summary = summary[["p", "classifier", "accuracy", "accuracy_se", "ber", "ber_se", "flipped"]]
    settings = {
        "source": name,
        "kind": source[0],
        "classifiers": names,
        "flip_probs": probs,
        "n_replicates": R,
        "random_state": random_state,
        "split": split,
        "test_size": test_size if source[0] == "real" else None,
        "n_train": int(n_train) if source[0] == "synthetic" else None,
    }
    return NoiseResults(long=long, summary=summary, settings=settings)


# ----------------------------------------------------------------------------------------------
# command line
# ----------------------------------------------------------------------------------------------
def _resolve_name(name: str) -> str:
    """Catalogue name for a user spelling; see :func:`slb.evaluation.registry.resolve_name`."""
    return resolve_name(name)


def _write(path: Path, text: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _slug(text) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", str(text)).strip("_") or "data"


def _command_line(argv) -> str:
    return "python -m slb.experiments " + " ".join(shlex.quote(a) for a in argv)


def _report_header(title, argv, seconds) -> str:
    return f"# {title}\n\nCommand: `{_command_line(argv)}`  \nWall time: {seconds:.0f} s\n\n"


def _save_figure(fig, path: Path, embed: bool):
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.write_html(str(path), include_plotlyjs=True if embed else "cdn", full_html=True)
    return path


def _cmd_real(args, argv, progress, out: Path):
    datasets = []
    if args.csv:
        if not args.label:
            raise SystemExit("--csv needs --label (the name of the label column)")
        for path in args.csv:
            X, y, notes = load_csv(
                path, args.label, args.positive, n_splits=args.folds, random_state=args.seed
            )
            for note in notes:
                print(f"[{Path(path).name}] {note}", file=sys.stderr)
            datasets.append((Path(path).stem, X, y))
    names = (
        args.datasets if args.datasets is not None else ([] if args.csv else list(BUNDLED_DATASETS))
    )
    datasets = list(names) + datasets
    t0 = time.perf_counter()
    res = run_real(
        datasets,
        args.classifiers,
        n_splits=args.folds,
        n_repeats=args.repeats,
        random_state=args.seed,
        progress=progress,
        test=args.test,
    )
    seconds = time.perf_counter() - t0
    md = res.to_markdown(paper=not args.no_paper)
    secs = res.summary.pivot(index="dataset", columns="classifier", values="seconds")
    secs = secs.reindex(
        index=list(dict.fromkeys(res.summary["dataset"])), columns=res.settings["classifiers"]
    ).map(lambda v: f"{v:.1f}")
    timing = "Fit + predict seconds, all folds:\n\n" + markdown_table(secs) + "\n"
    print(md)
    print(timing)
    res.per_fold.to_csv(out / "real_per_fold.csv", index=False)
    res.summary.to_csv(out / "real_summary.csv", index=False)
    _write(
        out / "real_table.md",
        _report_header("Real data: Table-4-style comparison", argv, seconds) + md + "\n" + timing,
    )
    print(
        f"wrote {out / 'real_table.md'}, real_summary.csv, real_per_fold.csv ({seconds:.0f} s)",
        file=sys.stderr,
    )
    return res


def _cmd_synthetic(args, argv, progress, out: Path):
    if args.design == "forest" and "shared" in args.structure:
        raise SystemExit("--structure shared exists for --design bn only")
    cells = [
        Design(args.design, cpd, bal, st == "shared", args.d, args.n_test)
        for cpd in args.cpd
        for bal in args.balance
        for st in (args.structure if args.design == "bn" else ["independent"])
    ]
    results = []
    for k, spec in enumerate(cells):
        if len(cells) > 1:
            print(f"== {spec.name} ({k + 1}/{len(cells)})", file=sys.stderr)
        t0 = time.perf_counter()
        res = run_synthetic(
            spec,
            n_grid=args.n,
            n_replicates=args.replicates,
            classifiers=args.classifiers,
            random_state=args.seed,
            progress=progress,
            bayes_mc=args.bayes_mc,
        )
        seconds = time.perf_counter() - t0
        md = res.to_markdown(paper=not args.no_paper)
        secs = res.summary.pivot(index="n", columns="classifier", values="seconds")
        secs = secs[res.settings["classifiers"]].map(lambda v: f"{v:.2f}")
        timing = "Mean fit + predict seconds per training set:\n\n" + markdown_table(secs) + "\n"
        print(md)
        print(timing)
        stem = f"synthetic_{spec.name}"
        res.long.to_csv(out / f"{stem}_long.csv", index=False)
        res.summary.to_csv(out / f"{stem}_summary.csv", index=False)
        if len(res.bayes):
            res.bayes.to_csv(out / f"{stem}_bayes.csv", index=False)
        _write(
            out / f"{stem}.md",
            _report_header(f"Synthetic design {spec.name}", argv, seconds) + md + "\n" + timing,
        )
        _save_figure(
            res.figure(paper=not args.no_paper), out / f"{stem}_curve.html", args.embed_plotlyjs
        )
        print(
            f"wrote {out / stem}.md, _long.csv, _summary.csv, _curve.html ({seconds:.0f} s)",
            file=sys.stderr,
        )
        results.append(res)
    return results


def _cmd_noise(args, argv, progress, out: Path):
    given = [x for x in (args.dataset, args.csv, args.design) if x]
    if len(given) != 1:
        raise SystemExit("noise: give exactly one of --dataset, --csv or --design")
    if args.csv:
        if not args.label:
            raise SystemExit("--csv needs --label")
        X, y, notes = load_csv(args.csv, args.label, args.positive, random_state=args.seed)
        for note in notes:
            print(f"[{Path(args.csv).name}] {note}", file=sys.stderr)
        data = (Path(args.csv).stem, X, y)
    elif args.design:
        data = Design.from_name(args.design, d=args.d, n_test=args.n_test)
    else:
        data = args.dataset
    t0 = time.perf_counter()
    res = run_label_noise(
        data,
        args.classifiers,
        flip_probs=args.flip,
        n_replicates=args.replicates,
        random_state=args.seed,
        progress=progress,
        test_size=args.test_size,
        n_train=args.n_train,
    )
    seconds = time.perf_counter() - t0
    md = res.to_markdown(args.metric)
    other = "ber" if args.metric == "accuracy" else "accuracy"
    md2 = res.to_markdown(other)
    print(md)
    stem = f"noise_{_slug(res.settings['source'])}"
    res.long.to_csv(out / f"{stem}_long.csv", index=False)
    res.summary.to_csv(out / f"{stem}_summary.csv", index=False)
    _write(
        out / f"{stem}.md",
        _report_header(f"Label noise: {res.settings['source']}", argv, seconds) + md + "\n" + md2,
    )
    _save_figure(res.figure(args.metric), out / f"{stem}.html", args.embed_plotlyjs)
    print(
        f"wrote {out / stem}.md, _long.csv, _summary.csv, .html ({seconds:.0f} s)", file=sys.stderr
    )
    return res


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m slb.experiments",
        description="The SLB paper's experiments (real data, synthetic designs) and the "
        "DISCRETE paper's label-noise experiment. Results are identical for identical seeds.",
    )
    sub = ap.add_subparsers(dest="command", required=True)

    def common(p, default_classifiers):
        p.add_argument(
            "--classifiers",
            nargs="+",
            default=list(default_classifiers),
            metavar="NAME",
            help=f"any of: {', '.join(classifier_names())} "
            f"(default: {' '.join(default_classifiers)})",
        )
        p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
        p.add_argument(
            "--out",
            type=Path,
            default=Path("experiment-output"),
            help="output folder (default experiment-output/)",
        )
        p.add_argument("--quiet", action="store_true", help="no progress bar")

    p = sub.add_parser(
        "real", help="stratified K-fold CV on bundled datasets or a CSV (the paper's Table 4)"
    )
    p.add_argument(
        "--datasets",
        nargs="+",
        choices=list(BUNDLED_DATASETS),
        default=None,
        help="bundled datasets (default: all four, unless --csv is given)",
    )
    p.add_argument(
        "--csv",
        action="append",
        type=Path,
        metavar="PATH",
        help="a table file (CSV, TSV, Excel, Parquet); repeatable",
    )
    p.add_argument("--label", help="label column of --csv")
    p.add_argument("--positive", help="positive class of --csv (the others are merged)")
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--repeats", type=int, default=1, help="repeats of the K-fold CV")
    p.add_argument(
        "--test",
        choices=["corrected_t", "wilcoxon"],
        default="corrected_t",
        help="significance against the best: Nadeau-Bengio corrected resampled t-test, Holm "
        "(default), or the paper's Wilcoxon signed-rank test, Bonferroni",
    )
    p.add_argument("--no-paper", action="store_true", help="leave out the paper's values")
    common(p, DEFAULT_REAL_CLASSIFIERS)

    p = sub.add_parser(
        "synthetic", help="the paper's synthetic factorial designs (Tables 1-3, learning curves)"
    )
    p.add_argument("--design", choices=["forest", "bn"], default="forest")
    p.add_argument("--cpd", nargs="+", choices=["normal", "complex"], default=["normal"])
    p.add_argument(
        "--balance",
        nargs="+",
        default=["balanced"],
        help="balanced, imbalanced (75/25) or a share of positives",
    )
    p.add_argument(
        "--structure",
        nargs="+",
        choices=["independent", "shared"],
        default=["independent"],
        help="--design bn only",
    )
    p.add_argument("--n", nargs="+", type=int, default=list(N_GRID), help="training sizes")
    p.add_argument("--replicates", type=int, default=10, help="(the paper: 100)")
    p.add_argument(
        "--bayes-mc",
        type=int,
        default=100_000,
        help="Monte Carlo rows for the Bayes error (0: skip)",
    )
    p.add_argument("--d", type=int, default=20, help=argparse.SUPPRESS)
    p.add_argument("--n-test", type=int, default=1000, help=argparse.SUPPRESS)
    p.add_argument("--no-paper", action="store_true", help="leave out the paper's values")
    p.add_argument(
        "--embed-plotlyjs",
        action="store_true",
        help="self-contained HTML figures (default: load plotly.js from its CDN)",
    )
    common(p, DEFAULT_SYNTHETIC_CLASSIFIERS)

    p = sub.add_parser("noise", help="label-noise robustness (the DISCRETE paper's Figure 1)")
    p.add_argument("--dataset", choices=list(BUNDLED_DATASETS))
    p.add_argument("--csv", type=Path, metavar="PATH")
    p.add_argument("--label")
    p.add_argument("--positive")
    p.add_argument(
        "--design",
        help="a synthetic design, e.g. forest-normal-balanced, bn-complex-balanced-shared",
    )
    p.add_argument(
        "--flip",
        nargs="+",
        type=float,
        default=list(FLIP_PROBS),
        help="label-flip probabilities (default 0 0.1 0.2 0.3 0.4)",
    )
    p.add_argument("--replicates", type=int, default=5)
    p.add_argument("--test-size", type=float, default=0.3, help="real data: held-out share")
    p.add_argument("--n-train", type=int, default=1000, help="synthetic: training rows")
    p.add_argument("--d", type=int, default=20, help=argparse.SUPPRESS)
    p.add_argument("--n-test", type=int, default=1000, help=argparse.SUPPRESS)
    p.add_argument("--metric", choices=["accuracy", "ber"], default="accuracy")
    p.add_argument(
        "--embed-plotlyjs",
        action="store_true",
        help="self-contained HTML figure (default: load plotly.js from its CDN)",
    )
    common(p, DEFAULT_NOISE_CLASSIFIERS)
    return ap


def main(argv=None):
    """Entry point of ``python -m slb.experiments``; returns the result object(s).

    Parameters
    ----------
    argv : list of str or None
        Arguments without the program name (default ``sys.argv[1:]``).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(argv)
    args.classifiers = [_resolve_name(c) for c in args.classifiers]
    try:
        _check_classifiers(args.classifiers)
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    progress = None if args.quiet else TerminalProgress()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    commands = {"real": _cmd_real, "synthetic": _cmd_synthetic, "noise": _cmd_noise}
    try:
        return commands[args.command](args, argv, progress, out)
    except ValueError as exc:  # plain-language errors from the library
        raise SystemExit(f"error: {exc}") from None
    except ModuleNotFoundError as exc:  # the figures need plotly, of the [app] extra
        if (exc.name or "").partition(".")[0] != "plotly":
            raise
        raise SystemExit(
            f"error: the tables and CSV files are in {out}/, but the figures need plotly: "
            "pip install 'slb-explorer[app]' (or pip install plotly)"
        ) from None


if __name__ == "__main__":
    main()
