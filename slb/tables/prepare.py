"""The steps of the cleaning after the features are numbers (steps 3-7), on one work table.

:class:`_Work` is the table between two steps: the feature matrix of the rows still in use,
their labels and which converted columns are kept.  In the order
:meth:`slb.tables.cleaner.TableCleaner.fit_prepare` runs them: the feature matrix
(:func:`_feature_matrix`), infinities, empty and mostly empty columns (more than
:data:`MOSTLY_MISSING_FRACTION` missing), missing values (rows dropped or medians imputed),
rows per class, constant and duplicate columns, duplicate rows, and the size checks (at least
:data:`MIN_ROWS_PER_CLASS` rows per class, the number of folds); the row and feature limits are
in :mod:`slb.tables.selection`.  Each step writes its note in the report.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ._messages import _join, _n, _names, _q, _row_list
from .columns import _unique_names
from .encode import _convert_features, _Features, _no_features_error
from .labels import _final_y
from .records import Change, PreparedData
from .scalars import _label_text

__all__ = ["MIN_ROWS_PER_CLASS", "MOSTLY_MISSING_FRACTION"]


#: Smallest number of rows each class must have after cleaning.
MIN_ROWS_PER_CLASS = 5


#: Feature columns with a larger share of missing cells are dropped before rows are.
MOSTLY_MISSING_FRACTION = 0.5


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


def _drop_constant_columns(w: _Work, feats: _Features, report: list) -> None:
    """Step 5a: columns with one value in every row."""
    F, fnames = w.F, w.names
    # Not VarianceThreshold(0): same columns kept, but it raises when all are constant and peaks
    # at 100 MB against this mask's 10 MB on a 200,000 x 50 matrix (measured, tracemalloc).
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


def _report_duplicate_rows(w: _Work, report: list, drop: bool = False, labels=None) -> bool:
    """Step 5c: rows whose features equal an earlier row's, value for value (issue 26).

    By default they stay (a table may hold real repeats), but every cross-validation of the
    library keeps a row and its copies in one fold (:mod:`slb._folds`), since copies on both
    sides of a split flatter every classifier; the note names them.  With ``drop`` the copies
    that also repeat the row's label are removed (the first of each kept); copies with another
    label stay.  ``labels``: the rows' labels as read (before classes are merged: two rows of
    different classes merged into "not <positive>" are not copies of each other); default
    ``w.y``.  Returns whether rows were removed.
    """
    from .._folds import duplicate_groups  # a leaf module of the library

    groups = duplicate_groups(w.F)
    if groups is None:
        return False
    read = w.y if labels is None else labels
    first, labelled = {}, set()
    copies, conflicts, same = [], 0, []  # same: the copies of an earlier row with its label
    for k, g in enumerate(groups.tolist()):
        if g in first:
            copies.append(k)
            conflicts += bool(w.y[k] != w.y[first[g]])
        else:
            first[g] = k
        if (g, read[k]) in labelled:
            same.append(k)
        labelled.add((g, read[k]))
    rows = w.rows[copies]
    text = (
        f"{_n(len(rows), 'row')} {'repeats' if len(rows) == 1 else 'repeat'} an earlier row's "
        f"features value for value ({_row_list(rows.astype(int), limit=8)}). "
    )
    if drop:
        text += (
            f"{_n(len(same), 'copy', 'copies')} with the label of the row repeated "
            f"{'was' if len(same) == 1 else 'were'} dropped (duplicate_rows='drop')."
        )
        stay = len(copies) - len(same)
        if stay:
            text += (
                f" {_n(stay, 'copy', 'copies')} with a different label "
                f"{'stays' if stay == 1 else 'stay'}: every cross-validation keeps "
                f"{'it' if stay == 1 else 'them'} in the fold of the row repeated."
            )
    else:
        text += (
            "Every cross-validation keeps a row and its copies in the same fold, so the copies "
            "cannot flatter the scores; drop them (duplicate_rows='drop') if they are not real "
            "repeats."
        )
        if conflicts:
            text += (
                f" {_n(conflicts, 'copy', 'copies')} carry a different label than the row they "
                "repeat."
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
    if drop and same:
        keep = np.ones(len(w.F), dtype=bool)
        keep[same] = False
        w.keep_rows(keep)
        return True
    return False


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


# Not SimpleImputer(strategy="median"): its middle-value mean overflows (measured: inf, not 1.35e308,
# for a column [1e308, 1.7e308]; prepare_table must return finite X).
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
