"""The paper's synthetic factorial designs (Tables 1-3) and learning curves."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..evaluation.metrics import balanced_error_rate
from ..evaluation.significance import wilcoxon_against_best

if TYPE_CHECKING:
    import plotly.graph_objects as go
from .common import (
    DEFAULT_SYNTHETIC_CLASSIFIERS,
    ProgressFn,
    _cell,
    _check_classifiers,
    _paper_cell,
    _Progress,
    _seeds,
    make_estimator,
    markdown_table,
)
from .designs import Design
from .paper import N_GRID, paper_synthetic


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

    Examples
    --------
    >>> results = run_synthetic(
    ...     n_grid=(20, 40), n_replicates=2, classifiers=["Gaussian NB"], d=4, n_test=50
    ... )
    >>> results.design.d, results.long.shape, results.bayes.empty
    (4, (4, 7), True)
    """

    design: Design
    long: pd.DataFrame
    summary: pd.DataFrame
    bayes: pd.DataFrame
    settings: dict = field(default_factory=dict)

    def table(self, paper=True, bold=True, digits=2, paper_digits=None) -> pd.DataFrame:
        """Table-1/2/3-style: one row per ``n`` (plus the paper's row when it has values),
        columns the classifiers (and ``Bayes`` when computed), cells ``mean ± sd`` in %
        (``digits`` decimals; the paper's as printed there, or ``paper_digits`` decimals)."""
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
                    _paper_cell(b.loc[c, "paper_mean"], b.loc[c, "paper_sd"], paper_digits)
                    for c in classifiers
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
        if self.design.variant != "uncalibrated":
            caption += (
                f" Design variant {self.design.variant}: n_trees {self.design.n_trees}, coef "
                f"{self.design.coef:g}, spacing {self.design.spacing:g}."
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


# Over 80 lines only through its numpydoc docstring (33 lines: one entry per parameter);
# the code is 48 lines.
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
        A :class:`Design` overrides ``cpd``, ``balance``, ``shared``, ``d`` and ``n_test``
        (and carries the unstated choices: its ``variant``, "uncalibrated" or "calibrated").
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

    Examples
    --------
    >>> results = run_synthetic(
    ...     n_grid=(20, 40), n_replicates=2, classifiers=["Gaussian NB"], d=4, n_test=50
    ... )
    >>> results.summary[["n", "classifier"]].to_dict("records")
    [{'n': 20, 'classifier': 'Gaussian NB'}, {'n': 40, 'classifier': 'Gaussian NB'}]
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
    long, bayes = _synthetic_runs(spec, names, n_grid, seeds, bayes_mc, progress, density_params)
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
        "variant": spec.variant,
        "n_trees": spec.n_trees,
        "coef": spec.coef,
        "spacing": spec.spacing,
    }
    return SyntheticResults(
        design=spec,
        long=long,
        summary=summary,
        bayes=pd.DataFrame(bayes, columns=["replicate", "seed", "bayes_error"]),
        settings=settings,
    )


def _synthetic_runs(spec, names, n_grid, seeds, bayes_mc, progress, density_params):
    """Test BER of every (replicate, n, classifier), and each replicate's Bayes error."""
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
            err = ds.bayes_error(n_mc=int(bayes_mc), random_state=seed)
            bayes.append({"replicate": r, "seed": seed, "bayes_error": float(err)})
    return pd.DataFrame(rows), bayes


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
