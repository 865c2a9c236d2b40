"""Turn a raw table into clean classifier inputs ``X``, ``y`` and a readable report.

:func:`prepare_table` is the single validation layer between whatever a user uploads (read
with :func:`slb.tables.read.read_table`) and the estimators of :mod:`slb`.  It never guesses silently:
every change it makes to the data is recorded as a :class:`Change` whose ``message`` is a
self-contained plain-text sentence (no HTML, no Markdown) that a dashboard can show as is, and
every problem it cannot repair raises a :class:`ValueError` whose message says what is wrong
and what to do about it.

:class:`TableCleaner` is the same cleaning as a fitted scikit-learn transformer:
``prepare_table(frame, label, ...)`` is ``TableCleaner(label, ...).fit_prepare(frame)``.  The
fitted cleaner remembers every data-dependent choice (columns, category levels, comma readings,
medians, dropped columns, the label coding) and :meth:`TableCleaner.transform` applies them to
new raw rows, so it is saved with a model (``Pipeline(TableCleaner, model)``) and new files are
cleaned the way the training file was.  The steps run in this order: column names, label and
features (:func:`_column_positions`), label rows and classes (:func:`_label_rows`,
:func:`_positive_class`), conversion to numbers (:func:`_convert_features`), infinities, empty
columns, missing values, row limit, constant and duplicate columns, feature limit, size checks.

Choices made here (and why)
---------------------------
* **Label.**  Rows whose label is missing (empty, ``None``, ``NaN``, ``"NA"``, ``"?"``, ...)
  are dropped.  A label with two classes is kept as is; ``positive`` says which class is the
  positive one (default: ``1``/``True`` for 0/1 or boolean labels, otherwise the smaller class,
  as the rarer class is usually the one of interest, e.g. a disease or a fault; ties go to the
  class that sorts last).  A label with more than two classes needs ``positive``: that class
  keeps its name and all the others are merged into one negative class named
  ``"not <positive>"`` (then both labels are strings).
* **Numbers stored as text** (``" 3 "``, ``"1,5"``, ``"1.234,5"``, ``"1,234.5"``, ``"12%"``)
  are read as numbers; percentages become fractions (``"12%"`` -> 0.12).  A comma is a decimal
  comma only if that reading is the one consistent with every value of the column (``"1,5"``,
  ``"0,125"``); when every comma is followed by groups of exactly three digits (``"2,928"``,
  ``"1,517"``, beside ``"718"``) the commas are thousands separators, and a column where both
  readings fit gets a note.  A text column in which at least 90 % of the filled cells are numbers
  is numeric; its other cells (e.g. ``"n.a."``, ``"<0.1"``) become missing, with a note.
* **Other text columns** are dropped (``non_numeric="drop"``), or, with
  ``non_numeric="encode"``, one-hot encoded when they have at most :data:`MAX_CATEGORIES`
  categories: a two-category column becomes one 0/1 column, a column with k > 2 categories
  becomes k 0/1 columns.  One-hot rather than ordinal codes because ordinal codes invent an
  order and distances between categories that the data do not have.  Columns with more
  categories look like identifiers or free text and are dropped even then.  Date/time columns
  become numbers (days since 1970-01-01), with a note.  Boolean columns become 0/1.
* **Missing values and ±inf** (inf is treated as missing).  Feature columns that are more than
  half empty are dropped first (otherwise they would cost most of the rows, or be mostly
  invented by imputation).  Then ``missing="drop"`` drops the rows that still have a missing
  value and ``missing="impute"`` fills them with the column median, computed over all rows
  without looking at the label.
* **Constant columns** and **columns identical to an earlier column** carry no information and
  are dropped.  A numeric column equal to the row numbers 0..n-1 or 1..n (an exported index)
  is dropped too, and so are likely **identifiers** (``keep_identifiers=False``): integer
  columns whose values are all different and that increase (or decrease) down the file, at
  least 95 % of the steps, and integer columns named like an identifier (``id``,
  ``patient_id``, ``index``, ``key``, ``number``, ``no``, ``sample_code``) whose values are
  all different, shuffled or not.  Such a column tells the rows apart, not the classes; when
  the file is sorted by class it predicts the class perfectly and makes results meaningless.
* **Stray classes.**  When no positive class is given and the label has more than two classes,
  classes with fewer than ``max(3, 1 %)`` of the rows (a repeated header line, a "Total" row, a
  typo) are dropped with a warning if exactly two classes remain.
* **Size limits.**  ``max_rows`` keeps a stratified random sample (fixed seed
  ``random_state``).  ``max_features`` keeps the features with the largest *communality*: the
  share of each feature's variance explained by the principal components of the
  rank-transformed, standardised features that stand out from noise (eigenvalue of the rank
  correlation matrix above the Marchenko-Pastur edge ``(1 + sqrt(d/n))**2`` of independent
  features; at most ten, at least one).  This criterion is scale free (raw variances depend
  on the units), robust to outliers (ranks), and ignores the label, so it does not make
  cross-validated accuracies optimistic the way a label-based screening would; it favours
  features that take part in the main patterns of the data over isolated noise.  To choose
  the features yourself, pass ``features``.
* **Size checks.**  Each class needs at least :data:`MIN_ROWS_PER_CLASS` rows.  If a class has
  fewer rows than ``n_folds``, the number of folds is reduced (to at least 2).  More features
  than rows is allowed, with a warning that results will be noisy.

Everything is deterministic given ``random_state``.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ._messages import _join, _n, _names, _q, _row_list
from .apply import _apply_spec
from .budget import DEFAULT_TIME_LIMIT, Budget, as_budget
from .columns import _column_positions, _normalise_columns, _unique_names
from .encode import MAX_CATEGORIES, _convert_features, _Features, _no_features_error
from .labels import _final_y, _label_rows, _match_class, _positive_class, stray_classes
from .records import Change, PreparedData
from .scalars import _category_text, _label_text
from .tokens import MISSING_TOKENS

__all__ = [
    "Change",
    "PreparedData",
    "TableCleaner",
    "prepare_table",
    "MIN_ROWS_PER_CLASS",
    "MAX_CATEGORIES",
    "MISSING_TOKENS",
    "stray_classes",
]

#: Smallest number of rows each class must have after cleaning.
MIN_ROWS_PER_CLASS = 5
#: Feature columns with a larger share of missing cells are dropped before rows are.
MOSTLY_MISSING_FRACTION = 0.5
#: Largest number of principal components used by the ``max_features`` criterion.
N_COMPONENTS_FOR_SELECTION = 10
#: Largest number of rows used to compute the ``max_features`` criterion.
SELECTION_SAMPLE_ROWS = 2000


# --------------------------------------------------------------------------------------------
# Public records
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Formatting helpers (plain text only)
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Scalar helpers
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Reading numbers stored as text (shared with slb.tables.read)
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Column names
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Label
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Features
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Sampling and feature selection
# --------------------------------------------------------------------------------------------
def _stratified_sample(
    y: np.ndarray, classes: list[Any], size: int, minimum: int, rng: np.random.Generator
) -> np.ndarray:
    counts = np.array([int(np.sum(y == c)) for c in classes])
    n = int(counts.sum())
    exact = counts * size / n
    alloc = np.floor(exact).astype(np.int64)
    remainder = size - int(alloc.sum())
    order = np.argsort(-(exact - alloc), kind="stable")
    alloc[order[:remainder]] += 1
    floor = np.minimum(counts, minimum)
    for k in range(len(classes)):
        while alloc[k] < floor[k]:
            donor = int(np.argmax(alloc - floor))
            if alloc[donor] - floor[donor] <= 0:
                break
            alloc[donor] -= 1
            alloc[k] += 1
    chosen = []
    for k, c in enumerate(classes):
        idx = np.flatnonzero(y == c)
        chosen.append(rng.choice(idx, size=int(alloc[k]), replace=False))
    return np.sort(np.concatenate(chosen))


def _communality(F: np.ndarray, random_state: int | None) -> np.ndarray:
    """Share of each column's rank variance explained by the components that exceed noise.

    Components count when their eigenvalue (of the rank correlation matrix) exceeds the
    Marchenko-Pastur upper edge ``(1 + sqrt(d / n))**2``, the largest eigenvalue expected from
    ``d`` independent features and ``n`` rows; at most :data:`N_COMPONENTS_FOR_SELECTION`
    components, and at least one.
    """
    from scipy.stats import rankdata

    n, d = F.shape
    rng = np.random.default_rng(random_state)
    if n > SELECTION_SAMPLE_ROWS:
        F = F[np.sort(rng.choice(n, SELECTION_SAMPLE_ROWS, replace=False))]
        n = F.shape[0]
    R = rankdata(F, axis=0)
    R -= R.mean(axis=0)
    sd = R.std(axis=0)
    sd[sd == 0] = 1.0
    Z = R / sd
    k = min(N_COMPONENTS_FOR_SELECTION, n - 1, d)
    if k < 1:
        return np.zeros(d)
    # Eigen-decomposition of the smaller Gram matrix (n <= SELECTION_SAMPLE_ROWS rows).
    if n <= d:
        w, u = np.linalg.eigh(Z @ Z.T)
        top = np.argsort(-w, kind="stable")[:k]
        w = np.clip(w[top], 0.0, None)
        s = np.sqrt(w)
        vt = (u[:, top].T @ Z) / np.where(s > 0, s, 1.0)[:, None]
    else:
        w, v = np.linalg.eigh(Z.T @ Z)
        top = np.argsort(-w, kind="stable")[:k]
        w = np.clip(w[top], 0.0, None)
        vt = v[:, top].T
    eigenvalues = w / n
    edge = (1.0 + math.sqrt(d / n)) ** 2
    k = max(1, int(np.sum(eigenvalues > edge)))
    explained = eigenvalues[:k, None] * vt[:k] ** 2
    return explained.sum(axis=0)


# --------------------------------------------------------------------------------------------
# The main entry point
# --------------------------------------------------------------------------------------------
# Over 80 lines only through its numpydoc docstring (53 lines: one entry per parameter);
# the code is 31 lines.
def prepare_table(
    frame: pd.DataFrame,
    label: Hashable,
    *,
    positive: Any = None,
    features: Sequence[Hashable] | None = None,
    non_numeric: str = "drop",
    missing: str = "drop",
    max_rows: int | None = None,
    max_features: int | None = None,
    n_folds: int | None = None,
    random_state: int | None = 0,
    min_class_size: int = MIN_ROWS_PER_CLASS,
    keep_identifiers: bool = False,
    time_limit: float | None | Budget = DEFAULT_TIME_LIMIT,
) -> PreparedData:
    """Validate a raw table and turn it into a clean two-class problem.

    Parameters
    ----------
    frame : pandas.DataFrame
        The raw table, e.g. ``slb.tables.read.read_table(...).frame``.  It is not modified.
    label : hashable
        Name of the label (class) column.  Matched against the cleaned column names, then the
        original names, then case-insensitively.
    positive : object, optional
        The positive class.  Required when the label has more than two classes (the others are
        merged into ``"not <positive>"``).  With two classes, defaults to ``1``/``True`` for
        0/1 or boolean labels, otherwise to the smaller class.  Matched by value, then by text
        (so ``"1"`` finds the class ``1``).
    features : sequence of hashable, optional
        Columns to use as features (default: every column except the label).
    non_numeric : {"drop", "encode"}
        What to do with text columns that do not hold numbers: drop them, or one-hot encode
        those with at most :data:`MAX_CATEGORIES` categories (others are dropped).
    missing : {"drop", "impute"}
        What to do with rows that have missing feature values: drop the rows, or fill the gaps
        with the column median.
    max_rows : int, optional
        Keep at most this many rows (stratified random sample, seed ``random_state``).
    max_features : int, optional
        Keep at most this many features (largest communality, see the module notes).
    n_folds : int, optional
        Number of cross-validation folds planned; reduced (with a note) when the smaller class
        is too small for it.
    random_state : int or None
        Seed for the row sample and the feature-selection SVD.
    min_class_size : int
        Smallest number of rows each class must have (default :data:`MIN_ROWS_PER_CLASS`).
    keep_identifiers : bool
        Keep numeric columns that look like identifiers (all-different whole numbers rising down
        the file, or named like ``id``/``index``/``key``/``number``/``no``/``sample_code``) as
        features.  By default they are dropped with a note; exact row numbers 0..n-1 / 1..n
        are always dropped.
    time_limit : float, None or slb.tables.budget.Budget
        Seconds the cleaning may take (default :data:`slb.tables.budget.DEFAULT_TIME_LIMIT`);
        ``None`` for no limit.  Checked between the steps and every few hundred columns; when
        it passes, a ``ValueError`` says so.  A :class:`~slb.tables.budget.Budget` shares one
        deadline with :func:`slb.tables.read.read_table`.

    Returns
    -------
    PreparedData
        ``X``, ``y``, the class names and counts, and the report of every change.

    Raises
    ------
    ValueError
        With a plain-language message, when the table cannot be turned into a usable
        two-class problem (label column missing, one class, too few rows, no usable feature,
        ...) or an option is invalid.
    TypeError
        If ``frame`` is not a pandas DataFrame.
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"prepare_table expects a pandas DataFrame, not {type(frame).__name__}.")
    cleaner = TableCleaner(
        label,
        positive=positive,
        features=features,
        non_numeric=non_numeric,
        missing=missing,
        max_rows=max_rows,
        max_features=max_features,
        n_folds=n_folds,
        random_state=random_state,
        min_class_size=min_class_size,
        keep_identifiers=keep_identifiers,
    )
    return cleaner.fit_prepare(frame, time_limit=time_limit)


# --------------------------------------------------------------------------------------------
# The steps of the cleaning, in order (TableCleaner.fit_prepare runs them)
# --------------------------------------------------------------------------------------------
@dataclass
class _Work:
    """The table between two cleaning steps.

    ``F`` holds the converted features of the rows still in use (``rows``: positions in the
    input frame, ``y``: their labels); ``names`` the current column names, ``cols`` each
    column's index among the converted columns (so the fitted cleaner knows which ones were
    kept) and ``medians`` each column's imputation value once it is known.
    """

    F: np.ndarray
    names: list[str]
    rows: np.ndarray
    y: np.ndarray
    cols: np.ndarray
    medians: np.ndarray | None = None

    def keep_columns(self, keep: np.ndarray) -> None:
        """Keep the columns selected by a boolean mask or an index array."""
        keep = np.asarray(keep)
        idx = np.flatnonzero(keep) if keep.dtype == bool else keep
        if len(idx) == self.F.shape[1] and np.array_equal(idx, np.arange(len(idx))):
            return  # every column kept: no copy of the matrix
        self.F, self.cols = self.F[:, idx], self.cols[idx]
        self.names = [self.names[k] for k in idx]
        if self.medians is not None:
            self.medians = self.medians[idx]

    def keep_rows(self, keep: np.ndarray) -> None:
        """Keep the rows selected by a boolean mask or an index array."""
        keep = np.asarray(keep)
        if keep.dtype == bool and len(keep) == len(self.F) and keep.all():
            return  # every row kept: no copy of the matrix
        self.F, self.rows, self.y = self.F[keep], self.rows[keep], self.y[keep]


def _feature_matrix(
    frame: pd.DataFrame,
    feature_pos: list[int],
    names: list[str],
    label_name: str,
    rows: np.ndarray,
    y_values: np.ndarray,
    options: dict,
    report: list,
) -> tuple[_Work, _Features]:
    """Step 3: the feature columns as numbers (text, categories, dates, booleans converted)."""
    feats = _convert_features(
        frame,
        feature_pos,
        names,
        rows,
        options["non_numeric"],
        report,
        options["keep_identifiers"],
        options.get("budget"),
    )
    if not feats.names:
        raise _no_features_error(feats)
    # one float64 matrix (column_stack then astype held three copies: 0.9 GB for a million
    # rows of 36 encoded categories); the separate columns are freed
    F = np.column_stack(feats.columns) if feats.columns else np.empty((len(rows), 0))
    if F.dtype != np.float64:
        F = F.astype(np.float64)
    feats.columns.clear()
    fnames, _ = _unique_names(list(feats.names), reserved=[label_name])
    return _Work(F, fnames, rows, y_values, np.arange(F.shape[1])), feats


def _infinite_to_missing(w: _Work, report: list) -> None:
    """Step 3b: ±inf is treated as missing."""
    F, fnames = w.F, w.names
    infinite = np.isinf(F)
    if infinite.any():
        per_col = infinite.sum(axis=0)
        cols = [fnames[k] for k in np.flatnonzero(per_col)]
        total = int(per_col.sum())
        report.append(
            Change(
                "infinite_to_missing",
                f"{_n(total, 'cell')} in {_names(cols)} held an infinite value (inf or -inf, "
                "often the result of a division by zero); they are treated as missing values.",
                columns=tuple(cols),
                count=total,
                severity="warning",
            )
        )
        F[infinite] = np.nan


def _drop_empty_columns(w: _Work, feats: _Features, report: list) -> None:
    """Step 3c: empty and mostly empty columns go before any row is dropped."""
    F, fnames = w.F, w.names
    miss_frac = np.isnan(F).mean(axis=0) if len(F) else np.zeros(F.shape[1])
    empty = miss_frac == 1.0
    mostly = (miss_frac > MOSTLY_MISSING_FRACTION) & ~empty
    if empty.any():
        cols = [fnames[k] for k in np.flatnonzero(empty)]
        feats.dropped["empty"] = cols
        report.append(
            Change(
                "dropped_empty_columns",
                f"{_n(len(cols), 'column')} ({_names(cols)}) "
                f"{'has' if len(cols) == 1 else 'have'} no values and "
                f"{'was' if len(cols) == 1 else 'were'} removed.",
                columns=tuple(cols),
                count=len(cols),
            )
        )
    if mostly.any():
        cols = [fnames[k] for k in np.flatnonzero(mostly)]
        feats.dropped["mostly_missing"] = cols
        pct = ", ".join(f"{_q(fnames[k])}: {miss_frac[k]:.0%}" for k in np.flatnonzero(mostly)[:8])
        report.append(
            Change(
                "dropped_mostly_missing_columns",
                f"{_n(len(cols), 'column')} ({pct}) "
                f"{'is' if len(cols) == 1 else 'are'} more than half empty and "
                f"{'was' if len(cols) == 1 else 'were'} removed, since "
                f"{'it' if len(cols) == 1 else 'they'} would otherwise cost most of the rows or "
                "be mostly made-up values.",
                columns=tuple(cols),
                count=len(cols),
                severity="warning",
            )
        )
    keep_cols = ~(empty | mostly)
    w.keep_columns(keep_cols)
    if not w.names:
        raise _no_features_error(feats)


def _handle_missing(w: _Work, missing: str, report: list) -> None:
    """Step 3d: rows with missing values are dropped or their gaps filled with medians; the
    medians (of the rows kept) are remembered for new rows either way."""
    F, fnames, rows = w.F, w.names, w.rows
    medians = None
    holes = np.isnan(F)
    if holes.any():
        per_col = holes.sum(axis=0)
        col_text = ", ".join(
            f"{_q(fnames[k])}: {per_col[k]:,}"
            for k in np.argsort(-per_col, kind="stable")[:6]
            if per_col[k]
        )
        n_cols = int(np.count_nonzero(per_col))
        if n_cols > 6:
            col_text += f" and {n_cols - 6:,} more columns"
        if missing == "drop":
            bad = holes.any(axis=1)
            lost = rows[bad]
            report.append(
                Change(
                    "dropped_missing_rows",
                    f"{_n(int(bad.sum()), 'row')} of {len(rows):,} ({_row_list(lost)}) had missing "
                    f"values in the features ({col_text} missing cells) and "
                    f"{'was' if bad.sum() == 1 else 'were'} removed. Choose to fill in missing "
                    "values (missing='impute') to keep these rows.",
                    columns=tuple(fnames[k] for k in np.flatnonzero(per_col)),
                    rows=tuple(int(r) for r in lost),
                    count=int(bad.sum()),
                    severity="warning" if bad.mean() > 0.1 else "info",
                )
            )
            w.keep_rows(~bad)
            F, rows = w.F, w.rows
            if len(rows) == 0:
                raise ValueError(
                    "Every row has at least one missing feature value, so no row is left after "
                    "removing them. Choose to fill in missing values (missing='impute') or "
                    "select fewer feature columns."
                )
        else:
            medians = _column_medians(F)
            w.F = np.where(holes, medians[None, :], F)
            report.append(
                Change(
                    "imputed_missing",
                    f"{_n(int(holes.sum()), 'missing value')} ({col_text}) "
                    f"{'was' if holes.sum() == 1 else 'were'} filled in with the median of "
                    f"{'its' if holes.sum() == 1 else 'their'} column, computed from all rows "
                    "without looking at the label.",
                    columns=tuple(fnames[k] for k in np.flatnonzero(per_col)),
                    rows=tuple(int(r) for r in rows[holes.any(axis=1)]),
                    count=int(holes.sum()),
                    severity="warning" if holes.mean() > 0.05 else "info",
                )
            )
    w.medians = _column_medians(w.F) if medians is None else medians


def _class_counts(w: _Work, classes: list) -> dict:
    """Rows per class; a class left without rows is an error."""
    final_classes = classes
    y_values = w.y
    counts = {c: int(np.sum(y_values == c)) for c in final_classes}
    for c in final_classes:
        if counts[c] == 0:
            raise ValueError(
                f"After removing rows with missing values, no row of the class "
                f"{_q(_label_text(c))} is left. Choose to fill in missing values "
                "(missing='impute') instead."
            )
    return counts


def _limit_rows(w: _Work, classes: list, options: dict, report: list) -> dict:
    """Step 4: a stratified sample when there are more rows than ``max_rows``."""
    max_rows, random_state = options["max_rows"], options["random_state"]
    min_class_size, n_folds = options["min_class_size"], options["n_folds"]
    final_classes, y_values = classes, w.y
    counts = {c: int(np.sum(y_values == c)) for c in final_classes}
    if max_rows is not None and len(w.rows) > max_rows:
        rng = np.random.default_rng(random_state)
        minimum = max(min_class_size, n_folds or 0)
        pick = _stratified_sample(y_values, final_classes, max_rows, minimum, rng)
        before = dict(counts)
        w.keep_rows(pick)
        rows, y_values = w.rows, w.y
        counts = {c: int(np.sum(y_values == c)) for c in final_classes}
        detail = "; ".join(
            f"{_q(_label_text(c))}: {before[c]:,} -> {counts[c]:,}" for c in final_classes
        )
        report.append(
            Change(
                "subsampled_rows",
                f"The table has {sum(before.values()):,} usable rows, more than the limit of "
                f"{max_rows:,}, so a random sample of {len(rows):,} rows is used, keeping the "
                f"class proportions ({detail}). The sample is drawn with a fixed seed "
                f"({random_state}), so it is the same every time, but results describe this sample.",
                rows=tuple(int(r) for r in rows),
                count=int(len(rows)),
                severity="warning",
            )
        )
    return counts


def _drop_constant_columns(w: _Work, feats: _Features, report: list) -> None:
    """Step 5a: columns with one value in every row."""
    F, fnames = w.F, w.names
    constant = np.all(F == F[:1], axis=0)
    if constant.any():
        cols = [fnames[k] for k in np.flatnonzero(constant)]
        feats.dropped["constant"] = cols
        report.append(
            Change(
                "dropped_constant_columns",
                f"{_n(len(cols), 'column')} ({_names(cols)}) "
                f"{'has' if len(cols) == 1 else 'have'} the same value in every row and "
                f"{'was' if len(cols) == 1 else 'were'} removed, since a value that never "
                "changes cannot tell the classes apart.",
                columns=tuple(cols),
                count=len(cols),
            )
        )
        w.keep_columns(~constant)
    if not w.names:
        raise _no_features_error(feats)


def _drop_duplicate_columns(w: _Work, feats: _Features, report: list) -> None:
    """Step 5b: columns equal, value for value, to an earlier column."""
    F, fnames = w.F, w.names
    seen: dict[bytes, str] = {}
    duplicate = np.zeros(len(fnames), dtype=bool)
    pairs = []
    for k in range(len(fnames)):
        key = np.ascontiguousarray(F[:, k] + 0.0).tobytes()
        if key in seen:
            duplicate[k] = True
            pairs.append((fnames[k], seen[key]))
        else:
            seen[key] = fnames[k]
    if duplicate.any():
        feats.dropped["duplicate"] = [a for a, _ in pairs]
        shown = [f"{_q(a)} (same as {_q(b)})" for a, b in pairs[:8]]
        if len(pairs) > 8:
            shown.append(f"{len(pairs) - 8:,} more")
        report.append(
            Change(
                "dropped_duplicate_columns",
                f"{_n(len(pairs), 'column')} repeated an earlier column value for value and "
                f"{'was' if len(pairs) == 1 else 'were'} removed: {_join(shown)}.",
                columns=tuple(a for a, _ in pairs),
                count=len(pairs),
            )
        )
        w.keep_columns(~duplicate)


def _report_duplicate_rows(w: _Work, report: list) -> None:
    """Step 5c: rows whose features equal an earlier row's, value for value (issue 26).

    They stay (a table may hold real repeats), but every cross-validation of the library keeps
    a row and its copies in one fold (:mod:`slb._folds`), since copies on both sides of a split
    flatter every classifier; the note names them so the user can drop them.
    """
    from .._folds import duplicate_groups  # a leaf module of the library

    groups = duplicate_groups(w.F)
    if groups is None:
        return
    first = {}
    copies, conflicts = [], 0
    for k, g in enumerate(groups.tolist()):
        if g in first:
            copies.append(k)
            conflicts += bool(w.y[k] != w.y[first[g]])
        else:
            first[g] = k
    rows = w.rows[copies]
    shown = [str(int(r) + 1) for r in rows[:8]] + (
        [f"{len(rows) - 8:,} more"] if len(rows) > 8 else []
    )
    text = (
        f"{_n(len(rows), 'row')} {'repeats' if len(rows) == 1 else 'repeat'} an earlier row's "
        f"features value for value (data rows {_join(shown)}, counting from 1). "
        "Every cross-validation keeps a row and its copies in the same fold, so the copies "
        "cannot flatter the scores; drop them from the file if they are not real repeats."
    )
    if conflicts:
        text += (
            f" {_n(conflicts, 'copy', 'copies')} carry a different label than the row they repeat."
        )
    report.append(
        Change(
            "duplicate_rows",
            text,
            rows=tuple(int(r) for r in rows),
            count=len(rows),
            severity="warning" if conflicts or len(rows) > 0.05 * len(groups) else "info",
        )
    )


def _limit_features(w: _Work, max_features: int | None, random_state, report: list) -> None:
    """Step 6: at most ``max_features`` columns, by communality (label-blind)."""
    F, fnames = w.F, w.names
    if max_features is not None and len(fnames) > max_features:
        score = _communality(F, random_state)
        order = np.argsort(-score, kind="stable")[:max_features]
        keep_idx = np.sort(order)
        d_before = len(fnames)
        w.keep_columns(keep_idx)
        fnames = w.names
        report.append(
            Change(
                "selected_features",
                f"The table has {d_before:,} usable features, more than the limit of "
                f"{max_features:,}. The {max_features:,} features that share the most variation "
                "with the others were kept (largest share of variance explained by the main "
                "principal components of the rank-transformed data). This choice ignores the label, so it does not make cross-validated "
                "results look better than they are. To choose the features yourself, select them "
                "explicitly.",
                columns=tuple(fnames),
                count=d_before - max_features,
                severity="warning",
            )
        )


def _size_checks(w: _Work, counts: dict, classes: list, options: dict, report: list) -> int | None:
    """Step 7: enough rows per class; the number of folds the data allow."""
    final_classes, F = classes, w.F
    min_class_size, missing, n_folds = (
        options["min_class_size"],
        options["missing"],
        options["n_folds"],
    )
    small = [c for c in final_classes if counts[c] < min_class_size]
    if small:
        detail = _join([f"{_q(_label_text(c))} has {_n(counts[c], 'row')}" for c in small])
        raise ValueError(
            f"Too few rows: {detail} after cleaning, but each class needs at least "
            f"{min_class_size} rows to train and test a classifier. Add more rows"
            + (
                ", or choose to fill in missing values (missing='impute') to keep rows with gaps"
                if missing == "drop" and any(c.kind == "dropped_missing_rows" for c in report)
                else ""
            )
            + "."
        )
    folds = n_folds
    if n_folds is not None:
        smallest = min(counts.values())
        if smallest < n_folds:
            if smallest < 2:
                raise ValueError(
                    f"The smaller class has only {_n(smallest, 'row')}; cross-validation needs at "
                    "least 2 rows of each class."
                )
            folds = smallest
            small_class = min(final_classes, key=lambda c: counts[c])
            report.append(
                Change(
                    "reduced_folds",
                    f"The class {_q(_label_text(small_class))} has only {_n(smallest, 'row')}, too "
                    f"few for {n_folds}-fold cross-validation (every fold needs a row of each "
                    f"class), so {folds} folds will be used instead.",
                    count=folds,
                    severity="warning",
                )
            )
    n, d = F.shape
    if d > n:
        report.append(
            Change(
                "more_features_than_rows",
                f"There are more features ({d:,}) than rows ({n:,}). This is allowed, but with so "
                "few rows per feature any classifier can find patterns that are due to chance: "
                "expect noisy, unstable results.",
                count=d,
                severity="warning",
            )
        )
    return folds


# --------------------------------------------------------------------------------------------
# The fitted cleaner
# --------------------------------------------------------------------------------------------
class TableCleaner(TransformerMixin, BaseEstimator):
    """The cleaning of :func:`prepare_table` as a fitted scikit-learn transformer.

    :meth:`fit` runs the steps of :func:`prepare_table` on a raw table and remembers everything
    that depends on the data: which raw columns are used and how each is read (numbers,
    numbers stored as text with their comma reading, dates, booleans, the 0/1 indicators of
    text categories with their levels), the columns dropped (empty, constant, duplicate,
    identifiers, over ``max_features``), each kept column's imputation value (its median over
    the training rows kept) and the coding of the label.  :meth:`transform` applies exactly
    that to new raw rows, so a model fitted on the cleaned table can be used on a new file of
    the same layout.  Saved with the model by :func:`slb.persistence.save_model` (as the first
    step of a ``Pipeline``).

    Parameters
    ----------
    label : hashable or None
        The label column of the table given to :meth:`fit`.  ``None``: the labels are passed
        separately as ``y`` (as a ``Pipeline`` does) and ``X`` holds only feature columns.
    positive, features, non_numeric, missing, max_rows, max_features, n_folds, random_state, \
min_class_size, keep_identifiers
        As in :func:`prepare_table`.
    handle_unknown : {"error", "impute"}
        What :meth:`transform` does with a category that was not in the training rows:
        ``"error"`` raises a ``ValueError`` naming the column and the values; ``"impute"``
        treats it as missing (its indicators get their training medians).

    Attributes
    ----------
    feature_names_in_ : ndarray of str
        The raw column names seen by :meth:`fit` (cleaned names; without the label).
    n_features_in_ : int
    columns_ : list of dict
        One entry per output column: ``name``, the raw column it comes from (``source``), how
        it is computed (``kind``: ``"number"``, ``"date"`` or ``"category"``; ``comma``,
        ``levels``, ``level``) and its imputation value ``fill``.
    label_ : str
        The label column's cleaned name.
    positive_label_, negative_label_ : object
        The two classes of the cleaned label.
    merged_ : bool
        True when the label had more than two classes and all but ``positive_label_`` were
        merged into ``negative_label_``.
    class_counts_, original_class_counts_ : dict
        Rows per class after cleaning, and per original class before merging.
    n_folds_ : int or None
        The number of folds the training data allow (see :func:`prepare_table`).
    report_ : list of Change
        Every change made to the training table, in order (what ``prepare_table`` reports).

    Notes
    -----
    :meth:`transform` never drops rows (a ``Pipeline`` passes ``y`` on unchanged): missing,
    infinite and unreadable cells are filled with the column's training median, whatever
    ``missing`` was at fit time (with ``missing="drop"`` the medians are those of the complete
    rows).  Unreadable cells in a number column (e.g. ``"<0.1"``) are treated as missing with
    a warning, as :meth:`fit` treats them.  A column needed by the fitted cleaner that is
    absent from the new rows is a ``ValueError``; extra columns (the label among them) are
    ignored.  In a ``Pipeline`` the model receives ``y`` unchanged: give it two clean
    classes, or code them first with :meth:`encode_labels`.

    Examples
    --------
    >>> from sklearn.pipeline import make_pipeline                    # doctest: +SKIP
    >>> from slb import SLBClassifier                                 # doctest: +SKIP
    >>> model = make_pipeline(TableCleaner(missing="impute"), SLBClassifier())  # doctest: +SKIP
    >>> model.fit(raw_rows, labels).predict(new_raw_rows)             # doctest: +SKIP
    """

    def __init__(
        self,
        label=None,
        *,
        positive=None,
        features=None,
        non_numeric="drop",
        missing="drop",
        max_rows=None,
        max_features=None,
        n_folds=None,
        random_state=0,
        min_class_size=MIN_ROWS_PER_CLASS,
        keep_identifiers=False,
        handle_unknown="error",
    ):
        self.label = label
        self.positive = positive
        self.features = features
        self.non_numeric = non_numeric
        self.missing = missing
        self.max_rows = max_rows
        self.max_features = max_features
        self.n_folds = n_folds
        self.random_state = random_state
        self.min_class_size = min_class_size
        self.keep_identifiers = keep_identifiers
        self.handle_unknown = handle_unknown

    # -- fitting -------------------------------------------------------------------------
    def fit(self, X, y=None):
        """Learn the cleaning of a raw table.

        Parameters
        ----------
        X : pandas.DataFrame
            The raw table: with the ``label`` column, or (``label=None``) without it.
        y : array-like, optional
            The raw labels when ``label`` is None; must be None otherwise.

        Returns
        -------
        self
        """
        self.fit_prepare(X, y)
        return self

    def fit_prepare(self, X, y=None, *, time_limit=None) -> PreparedData:
        """Fit, and return the cleaned training table (what :func:`prepare_table` returns).

        Parameters
        ----------
        X : pandas.DataFrame
        y : array-like, optional
            See :meth:`fit`.
        time_limit : float, None or slb.tables.budget.Budget
            Seconds the cleaning may take (default ``None``: no limit); see
            :func:`prepare_table`.

        Returns
        -------
        PreparedData
        """
        budget = as_budget(time_limit, "the table")
        frame, label = self._training_frame(X, y)
        opts = self._options()
        opts["budget"] = budget
        report: list[Change] = []
        names, label_pos, feature_pos = _column_positions(frame, label, self.features, report)
        label_name = names[label_pos]
        rows, labels, counter, classes, original = _label_rows(
            frame, label_pos, label_name, self.positive, report
        )
        y_values, pos, neg, merged = _positive_class(
            labels, counter, classes, original, self.positive, label_name, report
        )
        budget.check("cleaning")
        w, feats = _feature_matrix(
            frame, feature_pos, names, label_name, rows, y_values, opts, report
        )
        budget.check("cleaning")
        _infinite_to_missing(w, report)
        _drop_empty_columns(w, feats, report)
        _handle_missing(w, self.missing, report)
        _class_counts(w, [pos, neg])
        counts = _limit_rows(w, [pos, neg], opts, report)
        budget.check("cleaning")
        _drop_constant_columns(w, feats, report)
        _drop_duplicate_columns(w, feats, report)
        _report_duplicate_rows(w, report)
        budget.check("cleaning")
        _limit_features(w, self.max_features, self.random_state, report)
        folds = _size_checks(w, counts, [pos, neg], opts, report)
        prepared = _prepared(w, pos, neg, report, label_name, original, folds)
        self._remember(names, label_pos, feats.specs, w, prepared, merged)
        return prepared

    def _training_frame(self, X, y) -> tuple[pd.DataFrame, Hashable]:
        """The table with its label column, and that column's name."""
        if not isinstance(X, pd.DataFrame):
            raise TypeError(
                f"TableCleaner expects a pandas DataFrame (a raw table), not {type(X).__name__}."
            )
        _check_options(
            self.non_numeric,
            self.missing,
            self.max_rows,
            self.max_features,
            self.n_folds,
            self.min_class_size,
        )
        if self.handle_unknown not in ("error", "impute"):
            raise ValueError(
                f"handle_unknown must be 'error' or 'impute', not {self.handle_unknown!r}."
            )
        if X.shape[1] == 0:
            raise ValueError("The table has no columns.")
        if X.shape[0] == 0:
            raise ValueError("The table has no rows: there is nothing to learn from.")
        if self.label is not None:
            if y is not None:
                raise ValueError(
                    "Give the labels either as the label column of the table (label=...) or "
                    "as y with label=None, not both."
                )
            return X, self.label
        if y is None:
            raise ValueError(
                "TableCleaner needs the labels: name the label column (label=...) or pass y."
            )
        y = np.asarray(y, dtype=object).ravel()
        if len(y) != len(X):
            raise ValueError(f"X has {len(X):,} rows but y has {len(y):,} labels.")
        taken = set(_normalise_columns(X.columns, []))
        label, k = "label", 1
        while label in taken:
            k += 1
            label = f"label_{k}"
        frame = X.copy(deep=False)
        frame[label] = y
        return frame, label

    def _options(self) -> dict:
        return {
            "non_numeric": self.non_numeric,
            "missing": self.missing,
            "max_rows": self.max_rows,
            "n_folds": self.n_folds,
            "random_state": self.random_state,
            "min_class_size": self.min_class_size,
            "keep_identifiers": self.keep_identifiers,
        }

    def _remember(self, names, label_pos, specs, w: _Work, prepared, merged) -> None:
        """Store what :meth:`transform` and :meth:`encode_labels` need (plain data only)."""
        inputs = [n for j, n in enumerate(names) if j != label_pos]
        self.feature_names_in_ = np.asarray(inputs, dtype=object)
        self.n_features_in_ = len(inputs)
        self.columns_ = [
            {**specs[c], "name": name, "fill": float(fill)}
            for c, name, fill in zip(w.cols, w.names, w.medians, strict=True)
        ]
        self.label_ = prepared.label
        self.positive_label_ = prepared.positive_label
        self.negative_label_ = prepared.negative_label
        self.merged_ = bool(merged)
        self.class_counts_ = dict(prepared.class_counts)
        self.original_class_counts_ = dict(prepared.original_class_counts)
        self.n_folds_ = prepared.n_folds
        self.report_ = list(prepared.report)

    # -- using the fitted cleaner ----------------------------------------------------------
    @property
    def changes_(self) -> pd.DataFrame:
        """The report as a table: ``kind``, ``severity``, ``message`` (one row per change)."""
        check_is_fitted(self, "columns_")
        return pd.DataFrame(
            [(c.kind, c.severity, c.message) for c in self.report_],
            columns=["kind", "severity", "message"],
        )

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """Names of the cleaned columns :meth:`transform` returns."""
        check_is_fitted(self, "columns_")
        return np.asarray([c["name"] for c in self.columns_], dtype=object)

    def transform(self, X) -> pd.DataFrame:
        """Clean new raw rows exactly as the training rows were cleaned.

        Parameters
        ----------
        X : pandas.DataFrame
            Raw rows with (at least) the columns the cleaner uses; read e.g. with
            :func:`slb.tables.read.read_table`.

        Returns
        -------
        pandas.DataFrame
            ``float64``, one row per row of ``X`` (same index), columns
            :meth:`get_feature_names_out`.

        Raises
        ------
        ValueError
            A needed column is missing, or (``handle_unknown="error"``) a text column holds
            a category the training rows did not have.
        """
        check_is_fitted(self, "columns_")
        if not isinstance(X, pd.DataFrame):
            raise ValueError(
                f"TableCleaner.transform expects a pandas DataFrame with the columns "
                f"{_names(list(self.feature_names_in_))}, not {type(X).__name__}."
            )
        positions = self._source_positions(X)
        raw_cache: dict[str, Any] = {}
        out = np.empty((len(X), len(self.columns_)))
        for k, spec in enumerate(self.columns_):
            series = X.iloc[:, positions[spec["source"]]]
            out[:, k] = _apply_spec(spec, series, raw_cache, self.handle_unknown)
        with np.errstate(invalid="ignore"):
            out[~np.isfinite(out)] = np.nan
        fill = np.array([c["fill"] for c in self.columns_], dtype=np.float64)
        out = np.where(np.isnan(out), fill[None, :], out)
        return pd.DataFrame(out, columns=pd.Index(self.get_feature_names_out()), index=X.index)

    def _source_positions(self, X: pd.DataFrame) -> dict[str, int]:
        """Position in ``X`` of each raw column the cleaner needs (matched by cleaned name)."""
        names = _normalise_columns(X.columns, [])
        where = {}
        for j, name in enumerate(names):
            where.setdefault(name, j)
        needed = list(dict.fromkeys(c["source"] for c in self.columns_))
        missing = [s for s in needed if s not in where]
        if missing:
            raise ValueError(
                f"The new rows lack {_n(len(missing), 'column')} the model was trained with: "
                f"{_names(missing, limit=15)}. Give a table with the training columns (same "
                "names; extra columns are ignored)."
            )
        return {s: where[s] for s in needed}

    def encode_labels(self, y) -> np.ndarray:
        """Raw labels coded as the fitted cleaner codes them (merged classes included).

        Parameters
        ----------
        y : array-like
            Raw labels (values of the label column).

        Returns
        -------
        numpy.ndarray
            ``positive_label_`` or ``negative_label_`` for every label.

        Raises
        ------
        ValueError
            A label is missing, or (two-class labels) is neither of the two classes.
        """
        check_is_fitted(self, "columns_")
        pos, neg = self.positive_label_, self.negative_label_
        out = np.empty(len(y), dtype=object)
        for i, v in enumerate(np.asarray(y, dtype=object).ravel()):
            t = _category_text(v)
            if t is None:
                raise ValueError(f"Label {i + 1:,} is missing; every row needs a class.")
            if self.merged_:
                out[i] = pos if t == _label_text(pos) else neg
                continue
            hit = _match_class(v if not isinstance(v, str) else t, [pos, neg])
            if hit is None:
                raise ValueError(
                    f"Label {i + 1:,} is {_q(t)}, which is neither {_q(_label_text(pos))} nor "
                    f"{_q(_label_text(neg))}."
                )
            out[i] = hit
        if self.merged_ or isinstance(pos, str) or isinstance(neg, str):
            return _final_y(out)
        return np.asarray(out.tolist())

    def _check_fitted_state(self) -> None:
        """Refuse a fitted state that :meth:`transform` could not use (loaded files)."""
        ok = isinstance(self.columns_, list) and all(
            isinstance(c, dict)
            and c.get("kind") in ("number", "date", "category")
            and isinstance(c.get("source"), str)
            and isinstance(c.get("name"), str)
            and isinstance(c.get("fill"), float)
            and isinstance(c.get("levels"), list)
            and all(isinstance(v, str) for v in c["levels"])
            and isinstance(c.get("level"), str)
            and c.get("comma") in (None, "decimal", "thousands")
            for c in self.columns_
        )
        if not ok or not isinstance(self.report_, list):
            raise ValueError("Malformed model file: the table cleaner's columns are damaged.")


def _prepared(w: _Work, pos, neg, report, label_name, original_counts, folds) -> PreparedData:
    """The :class:`PreparedData` of the cleaned table."""
    # the work matrix is not used after this: X takes it over instead of a copy
    X = pd.DataFrame(
        np.ascontiguousarray(w.F, dtype=np.float64),
        columns=pd.Index(w.names, dtype=object),
        copy=False,
    )
    y = _final_y(w.y)
    return PreparedData(
        X=X,
        y=y,
        positive_label=pos,
        negative_label=neg,
        report=report,
        class_counts={pos: int(np.sum(y == pos)), neg: int(np.sum(y == neg))},
        label=label_name,
        original_class_counts=original_counts,
        source_rows=w.rows.astype(np.int64),
        n_folds=folds,
    )


def _column_medians(F: np.ndarray) -> np.ndarray:
    """Median of each column ignoring NaN, without overflow for values near the float limit."""
    counts = np.sum(~np.isnan(F), axis=0)
    ordered = np.sort(F, axis=0)  # NaN sorts last
    lo = np.take_along_axis(ordered, np.maximum((counts - 1) // 2, 0)[None, :], axis=0)[0]
    hi = np.take_along_axis(ordered, np.maximum(counts // 2, 0)[None, :], axis=0)[0]
    return lo / 2 + hi / 2


def _check_options(
    non_numeric: str,
    missing: str,
    max_rows: int | None,
    max_features: int | None,
    n_folds: int | None,
    min_class_size: int,
) -> None:
    if non_numeric not in ("drop", "encode"):
        raise ValueError(f"non_numeric must be 'drop' or 'encode', not {non_numeric!r}.")
    if missing not in ("drop", "impute"):
        raise ValueError(f"missing must be 'drop' or 'impute', not {missing!r}.")

    def is_int(v: Any) -> bool:
        return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))

    if not is_int(min_class_size) or min_class_size < 1:
        raise ValueError(f"min_class_size must be a positive whole number, not {min_class_size!r}.")
    if max_rows is not None and (not is_int(max_rows) or max_rows < 2 * min_class_size):
        raise ValueError(
            f"max_rows must be a whole number of at least {2 * min_class_size} (enough rows for "
            f"two classes), not {max_rows!r}."
        )
    if max_features is not None and (not is_int(max_features) or max_features < 1):
        raise ValueError(f"max_features must be a positive whole number, not {max_features!r}.")
    if n_folds is not None and (not is_int(n_folds) or n_folds < 2):
        raise ValueError(f"n_folds must be a whole number of at least 2, not {n_folds!r}.")
