"""The SLB paper's experiments (real data, synthetic designs) and the DISCRETE paper's label-noise
experiment, with their command line (``python -m slb.experiments``).
"""

from .runners import (
    DEFAULT_NOISE_CLASSIFIERS,
    DEFAULT_REAL_CLASSIFIERS,
    DEFAULT_SYNTHETIC_CLASSIFIERS,
    FLIP_PROBS,
    N_GRID,
    PAPER_TABLE1,
    PAPER_TABLE2,
    PAPER_TABLE3,
    PAPER_TABLE4,
    Design,
    NoiseResults,
    RealResults,
    SyntheticResults,
    TerminalProgress,
    classifier_names,
    load_csv,
    main,
    make_estimator,
    paper_synthetic,
    run_label_noise,
    run_real,
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
