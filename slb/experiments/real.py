"""The paper's Table 4 protocol on real data: stratified (repeated) K-fold CV on identical folds."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..data.bundled import BUNDLED_DATASETS, load_dataset
from ..evaluation.comparison import compare_estimators
from ..evaluation.resampling import stratified_folds
from ..evaluation.significance import friedman_nemenyi
from .common import (
    DEFAULT_REAL_CLASSIFIERS,
    ProgressFn,
    _cell,
    _check_classifiers,
    _paper_cell,
    _Progress,
    make_estimator,
    markdown_table,
)
from .paper import PAPER_TABLE4


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

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> labels = ["no", "yes"] * 5
    >>> rows = [f"{i * 0.7 % 3:.2f},{i * 1.3 % 2:.2f},{c}" for i, c in enumerate(labels)]
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "toy.csv"
    ...     _ = path.write_text("a,b,cls\\n" + "\\n".join(rows))
    ...     X, y, notes = load_csv(path, "cls", positive="yes", n_splits=2)
    >>> X.shape, sorted(set(y.tolist())), notes
    ((10, 2), ['no', 'yes'], [])
    """
    from ..tables.cleaner import prepare_table
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

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 2))
    >>> results = run_real((X, np.where(X[:, 0] > 0, 1, -1)), ["Gaussian NB"], n_splits=2)
    >>> results.per_fold.shape, results.settings["n_splits"]
    ((2, 5), 2)
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


# Over 80 lines only through its numpydoc docstring (31 lines: one entry per parameter);
# the code is 71 lines.
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

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 2))
    >>> results = run_real((X, np.where(X[:, 0] > 0, 1, -1)), ["Gaussian NB"], n_splits=2)
    >>> results.summary[["dataset", "classifier", "best"]].to_dict("records")
    [{'dataset': 'data', 'classifier': 'Gaussian NB', 'best': True}]
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
