"""Calibrate the synthetic designs' unstated choices on the classifiers the paper is not about.

The SLB paper (section 5.1) does not say how many trees its forests have, nor how it scaled the
CPDs (a coefficient on the parents, the spacing of the complex CPD's mixture).  These choices set
the error *levels* of every classifier.  We fit them so that NB, RF, SVM(RBF) and 5NN (not SLB,
TAN or LU, which stay out of sample) match the paper's Table 1 at one training size.

Loss.  With ``m_c`` our mean BER (%) of classifier ``c`` over the calibration replicates and
``(p_c, s_c)`` the paper's mean and sd (%) over its 100 replicates,

    loss = mean over c of ((m_c - p_c) / (s_c / sqrt(100)))**2,

the squared error in BER points weighted by the paper's standard errors (a chi-square per
classifier).  :func:`calibration_targets` keeps only the calibration classifiers' rows of the
paper's table at the chosen size, and :func:`calibration_loss` and the search see only those
rows: the SLB, TAN and LU columns are never read.  The search is an exhaustive grid with common
random numbers (the same replicate seeds at every grid point, drawn from their own stream, so the
calibration networks are not those of the out-of-sample runs).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from ..evaluation.metrics import balanced_error_rate
from .common import ProgressFn, _check_classifiers, _Progress, _seeds, make_estimator
from .designs import UNSTATED_DEFAULTS, Design
from .paper import paper_synthetic

#: The classifiers the paper is not about: the only ones the calibration uses.
CALIBRATION_CLASSIFIERS = ("NB", "RF", "SVM(RBF)", "5NN")
#: Classifiers that must never enter the fit (they are tested out of sample).
HELD_OUT_CLASSIFIERS = ("SLB", "SLB-", "SLB(Pearson)", "TAN", "LU")
#: Replicates per cell in the paper (its sd over these gives the standard errors of the loss).
PAPER_REPLICATES = 100
#: Seed stream of the calibration replicates (the out-of-sample runs use stream 0).
CALIBRATION_STREAM = 1


def calibration_targets(
    paper: pd.DataFrame, n: int, classifiers=CALIBRATION_CLASSIFIERS
) -> pd.DataFrame:
    """The paper's values the calibration may read: the calibration classifiers at one ``n``.

    Parameters
    ----------
    paper : DataFrame
        Long table with columns ``n``, ``classifier``, ``paper_mean``, ``paper_sd`` (%), as
        :func:`slb.experiments.paper_synthetic` returns.
    n : int
        Training size to calibrate at.
    classifiers : sequence of str
        Must not contain SLB, SLB-, SLB(Pearson), TAN or LU.

    Returns
    -------
    DataFrame
        Index ``classifier`` (in the order given), columns ``paper_mean``, ``paper_sd``.

    Examples
    --------
    >>> from slb.experiments import paper_synthetic
    >>> calibration_targets(paper_synthetic("forest-normal-balanced"), 600)["paper_mean"].tolist()
    [20.3, 9.73, 6.34, 9.91]
    """
    names = _check_classifiers(classifiers)
    held = [c for c in names if c in HELD_OUT_CLASSIFIERS]
    if held:
        raise ValueError(f"{', '.join(held)} must stay out of the calibration.")
    rows = paper[(paper["n"] == int(n)) & paper["classifier"].isin(names)]
    rows = rows.set_index("classifier").reindex(names)[["paper_mean", "paper_sd"]]
    if rows.isna().any().any():
        raise ValueError(f"The paper's table lacks {', '.join(names)} at n = {int(n)}.")
    return rows.astype(float)


def calibration_loss(ours: Mapping, targets: pd.DataFrame, n_paper=PAPER_REPLICATES) -> float:
    """Mean squared error in BER points, each weighted by the paper's standard error.

    Parameters
    ----------
    ours : mapping
        ``{classifier: our mean BER in %}`` for every classifier of ``targets``.
    targets : DataFrame
        From :func:`calibration_targets`.
    n_paper : int, default 100
        The paper's replicates (its standard error is ``sd / sqrt(n_paper)``).

    Returns
    -------
    float

    Examples
    --------
    >>> t = pd.DataFrame({"paper_mean": [20.0], "paper_sd": [3.0]}, index=["NB"])
    >>> round(calibration_loss({"NB": 20.6}, t), 9)  # 0.6 points, standard error 0.3
    4.0
    """
    se = targets["paper_sd"].to_numpy(float) / np.sqrt(float(n_paper))
    mine = np.array([float(ours[c]) for c in targets.index])
    return float(np.mean(((mine - targets["paper_mean"].to_numpy(float)) / se) ** 2))


def design_errors(design, n, seeds, classifiers=CALIBRATION_CLASSIFIERS, progress=None):
    """Test BER (%) of each classifier on each replicate of a design at one training size.

    Parameters
    ----------
    design : Design or str
    n : int
        Training rows.
    seeds : sequence of int
        One replicate (networks, training and test rows) per seed.
    classifiers : sequence of str
    progress : callable or None
        ``progress(message)`` after every fit.

    Returns
    -------
    DataFrame
        One row per seed, one column per classifier (BER in %).

    Examples
    --------
    >>> design_errors("forest-normal-balanced", 100, [1], ["NB"]).shape
    (1, 1)
    """
    design = Design.coerce(design)
    names = _check_classifiers(classifiers)
    rows = []
    for seed in seeds:
        ds = design.make(int(n), int(seed))
        row = {}
        for c in names:
            model = make_estimator(c, random_state=int(seed)).fit(ds.X_train, ds.y_train)
            row[c] = 100.0 * float(balanced_error_rate(ds.y_test, model.predict(ds.X_test)))
            if progress is not None:
                progress(f"seed {seed} {c}")
        rows.append(row)
    return pd.DataFrame(rows, index=pd.Index(list(seeds), name="seed"), columns=names)


@dataclass
class CalibrationResult:
    """Result of :func:`calibrate_design`.

    Attributes
    ----------
    design : Design
        The calibrated design (``variant="calibrated"``, the best grid point's parameters).
    parameters : dict
        The fitted values of the gridded parameters.
    loss : float
        Its loss (:func:`calibration_loss`).
    grid : DataFrame
        One row per grid point: the parameters, each classifier's mean BER (%) and ``loss``.
    targets : DataFrame
        The paper's values that were used (:func:`calibration_targets`).
    settings : dict
        ``n``, ``n_replicates``, ``random_state``, ``classifiers``, ``grid``, ``seconds``.

    Examples
    --------
    >>> res = calibrate_design(
    ...     "forest-normal-balanced", {"coef": [1.0]}, n=200, n_replicates=1, classifiers=["NB"]
    ... )
    >>> res.parameters, res.grid.columns.tolist(), res.to_entry()["n"]
    ({'coef': 1.0}, ['coef', 'NB', 'loss'], 200)
    """

    design: Design
    parameters: dict
    loss: float
    grid: pd.DataFrame
    targets: pd.DataFrame
    settings: dict = field(default_factory=dict)

    def to_entry(self) -> dict:
        """The JSON record saved in ``calibrated_designs.json``."""
        best = self.grid.loc[self.grid["loss"].idxmin()]
        return {
            "parameters": {
                **UNSTATED_DEFAULTS,
                **{k: _plain(v) for k, v in self.parameters.items()},
            },
            "loss": round(float(self.loss), 4),
            "fitted_ber": {c: round(float(best[c]), 3) for c in self.targets.index},
            "paper_ber": {c: float(self.targets.loc[c, "paper_mean"]) for c in self.targets.index},
            "calibrated_on": self.design.with_variant("uncalibrated").name,
            **{k: v for k, v in self.settings.items() if k != "seconds"},
        }


def _plain(v):
    if isinstance(v, (np.integer, int)) and not isinstance(v, bool):
        return int(v)
    return float(v)


# Over 60 lines only through its numpydoc docstring; the code is 35 lines.
def calibrate_design(
    design,
    grid: Mapping,
    paper: pd.DataFrame | None = None,
    n: int = 600,
    n_replicates: int = 6,
    random_state: int = 0,
    classifiers=CALIBRATION_CLASSIFIERS,
    progress: ProgressFn | None = None,
) -> CalibrationResult:
    """Fit a design's unstated choices to the paper's errors of the calibration classifiers.

    Every point of the grid (the product of the values given per parameter) is evaluated on the
    same ``n_replicates`` replicate seeds (common random numbers): the mean test BER of each
    classifier at training size ``n`` is compared with the paper by :func:`calibration_loss`;
    the grid point with the smallest loss wins (ties: the first in grid order).

    Parameters
    ----------
    design : Design or str
        The cell to calibrate, e.g. ``"forest-normal-balanced"``.
    grid : mapping
        ``{parameter: values}`` over ``n_trees``, ``coef``, ``spacing``.
    paper : DataFrame, optional
        The paper's long table (default :func:`slb.experiments.paper_synthetic` of ``design``).
        Only :func:`calibration_targets` reads it.
    n : int, default 600
    n_replicates : int, default 6
    random_state : int, default 0
        Seeds of the replicates (stream :data:`CALIBRATION_STREAM`).
    classifiers : sequence of str, default NB, RF, SVM(RBF), 5NN
    progress : callable or None
        ``progress(done, total, message)`` after every fit.

    Returns
    -------
    CalibrationResult

    Examples
    --------
    >>> res = calibrate_design("forest-normal-balanced", {"coef": [0.5, 1.0]}, n=600,
    ...                        n_replicates=1, classifiers=["NB"])
    >>> res.parameters["coef"] in (0.5, 1.0), res.design.variant
    (True, 'calibrated')
    """
    design = Design.coerce(design).with_variant("uncalibrated")
    unknown = set(grid) - set(UNSTATED_DEFAULTS)
    if unknown or not grid:
        raise ValueError(f"grid takes some of {sorted(UNSTATED_DEFAULTS)}; got {sorted(grid)}")
    targets = calibration_targets(
        paper_synthetic(design) if paper is None else paper, n, classifiers
    )
    del paper  # from here on only the calibration classifiers' values at n exist
    names = list(targets.index)
    keys = list(grid)
    points = list(itertools.product(*(list(grid[k]) for k in keys)))
    seeds = _seeds(random_state, int(n_replicates), key=CALIBRATION_STREAM)
    tracker = _Progress(progress, len(points) * len(seeds) * len(names))
    rows, t0 = [], time.perf_counter()
    for point in points:
        params = dict(zip(keys, point, strict=True))
        cell = replace(design, **params)
        errs = design_errors(
            cell, n, seeds, names, progress=lambda m, p=params: tracker.step(f"{p} {m}")
        )
        means = errs.mean(axis=0)
        rows.append({**params, **means.to_dict(), "loss": calibration_loss(means, targets)})
    table = pd.DataFrame(rows)
    best = int(table["loss"].to_numpy().argmin())
    params = {k: _plain(table.loc[best, k]) for k in keys}
    fitted = replace(design, **params, variant="calibrated")
    settings = {
        "n": int(n),
        "n_replicates": len(seeds),
        "random_state": int(random_state),
        "seed_stream": CALIBRATION_STREAM,
        "classifiers": names,
        "grid": {k: [_plain(v) for v in grid[k]] for k in keys},
        "seconds": time.perf_counter() - t0,
    }
    return CalibrationResult(
        fitted, params, float(table.loc[best, "loss"]), table, targets, settings
    )


def compare_with_paper(summary: pd.DataFrame, n_paper=PAPER_REPLICATES) -> pd.DataFrame:
    """Our means against the paper's, per training size and classifier.

    Parameters
    ----------
    summary : DataFrame
        :attr:`SyntheticResults.summary` (columns ``n``, ``classifier``, ``mean``, ``se``
        as fractions, ``paper_mean``, ``paper_sd`` in %).
    n_paper : int, default 100

    Returns
    -------
    DataFrame
        ``n``, ``classifier``, ``ours``, ``paper`` (%), ``diff`` (ours - paper, points),
        ``in_spread`` (the difference within the paper's replicate sd) and ``z`` (the
        difference over the standard error of the difference of the two means, ours from
        its ``se`` column, 0 when absent).

    Examples
    --------
    >>> s = pd.DataFrame({"n": [600], "classifier": ["SLB"], "mean": [0.08], "se": [0.005],
    ...                   "paper_mean": [6.91], "paper_sd": [1.76]})
    >>> row = compare_with_paper(s, n_paper=100).iloc[0]
    >>> round(float(row["diff"]), 2), bool(row["in_spread"])
    (1.09, True)
    """
    s = summary.dropna(subset=["paper_mean"]).copy()
    ours = 100.0 * s["mean"].astype(float)
    se_ours = 100.0 * s["se"].astype(float) if "se" in s else pd.Series(0.0, index=s.index)
    diff = ours - s["paper_mean"]
    se = np.sqrt(se_ours.fillna(0.0) ** 2 + (s["paper_sd"] / np.sqrt(float(n_paper))) ** 2)
    return pd.DataFrame(
        {
            "n": s["n"].astype(int),
            "classifier": s["classifier"],
            "ours": ours,
            "paper": s["paper_mean"].astype(float),
            "diff": diff,
            "in_spread": diff.abs() <= s["paper_sd"],
            "z": diff / se,
        }
    ).reset_index(drop=True)
