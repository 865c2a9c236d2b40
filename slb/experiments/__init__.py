"""The SLB paper's experiments (section 5) and the DISCRETE paper's label-noise protocol.

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
    python -m slb.experiments synthetic --design bn --variant uncalibrated   # default: calibrated
    python -m slb.experiments noise --dataset pima --classifiers SLB NB "SVM(linear)" DISCRETE

The paper's numbers (:data:`PAPER_TABLE1` .. :data:`PAPER_TABLE4`) are in :mod:`slb.experiments.paper`.
Modules: ``paper``, ``designs``, ``common``, ``real``, ``synthetic``, ``noise``, ``cli``.
"""

from .cli import (
    main,
)
from .common import (
    DEFAULT_NOISE_CLASSIFIERS,
    DEFAULT_REAL_CLASSIFIERS,
    DEFAULT_SYNTHETIC_CLASSIFIERS,
    FLIP_PROBS,
    TerminalProgress,
    classifier_names,
    make_estimator,
)
from .designs import (
    Design,
)
from .noise import (
    NoiseResults,
    run_label_noise,
)
from .paper import (
    N_GRID,
    PAPER_TABLE1,
    PAPER_TABLE2,
    PAPER_TABLE3,
    PAPER_TABLE4,
    paper_synthetic,
)
from .real import (
    RealResults,
    load_csv,
    run_real,
)
from .synthetic import (
    SyntheticResults,
    run_synthetic,
)


def __getattr__(name):
    # The two experiment figures live in slb.viz and are re-exported here on first use: plotly
    # (the [app] extra) is not needed for the tables and CSV files.
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
