"""The cleaning as a fitted transformer (:class:`TableCleaner`) and :func:`prepare_table`.

:meth:`TableCleaner.fit_prepare` runs the steps in order: column names, label and features
(:func:`slb.tables.columns._column_positions`), label rows and classes
(:func:`slb.tables.labels._label_rows`, :func:`slb.tables.labels._positive_class`), conversion to
numbers (:func:`slb.tables.encode._convert_features`), then infinities, empty columns, missing
values, row limit, constant and duplicate columns, feature limit and size checks
(:mod:`slb.tables.prepare`, :mod:`slb.tables.selection`); the fitted cleaner remembers every
data-dependent choice and :meth:`TableCleaner.transform` applies them to new rows
(:mod:`slb.tables.apply`).  What each step does and why: :mod:`slb.tables.clean`.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ._messages import _n, _names, _q
from .apply import _apply_spec
from .budget import DEFAULT_TIME_LIMIT, Budget, as_budget
from .columns import _column_positions, _normalise_columns
from .labels import _final_y, _label_rows, _match_class, _positive_class
from .prepare import (
    MIN_ROWS_PER_CLASS,
    _check_options,
    _class_counts,
    _drop_constant_columns,
    _drop_duplicate_columns,
    _drop_empty_columns,
    _feature_matrix,
    _handle_missing,
    _infinite_to_missing,
    _prepared,
    _report_duplicate_rows,
    _size_checks,
    _Work,
)
from .records import Change, PreparedData
from .scalars import _category_text, _label_text
from .selection import _limit_features, _limit_rows

__all__ = ["TableCleaner", "prepare_table"]


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
    duplicate_rows: str = "keep",
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
        Keep at most this many features (largest communality, see :mod:`slb.tables.selection`).
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
    duplicate_rows : {"keep", "drop"}
        Rows whose features and label equal an earlier row's, value for value: ``"keep"``
        (default) keeps them, reported (the library's cross-validations keep a row and its
        copies in one fold); ``"drop"`` keeps only the first of each, reported.  Copies with a
        different label than the row they repeat are kept either way (and reported).
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

    Examples
    --------
    A text number with a decimal comma is read, a rising whole-number column is set aside as
    an identifier, and the classes (same size) are named:

    >>> import pandas as pd
    >>> frame = pd.DataFrame({
    ...     "x": [1.5, 2.0, "3,5", 4.0, 5.5, 6.0, 7.5, 8.0, 9.5, 10.0, 11.0, 12.5],
    ...     "id": list(range(100, 112)),
    ...     "label": ["yes", "no"] * 6,
    ... })
    >>> prepared = prepare_table(frame, "label")
    >>> prepared.feature_names, prepared.positive_label, prepared.class_counts
    (['x'], 'yes', {'yes': 6, 'no': 6})
    >>> prepared.X["x"].tolist()[:3]
    [1.5, 2.0, 3.5]
    >>> [change.kind for change in prepared.report]
    ['chose_positive_class', 'dropped_identifiers', 'converted_text_numbers']
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
        duplicate_rows=duplicate_rows,
    )
    return cleaner.fit_prepare(frame, time_limit=time_limit)


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
min_class_size, keep_identifiers, duplicate_rows
        As in :func:`prepare_table` (``duplicate_rows`` acts on :meth:`fit`'s rows only:
        :meth:`transform` never drops a row).
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
    >>> import pandas as pd
    >>> train = pd.DataFrame({
    ...     "x": [0.5, 2.5, 1.5, 3.5, 2.0, 4.5, 1.0, 5.0, 3.0, 4.0],
    ...     "colour": ["red", "blue", "red", "blue", "blue", "red", "red", "blue", "red", "blue"],
    ...     "label": ["a", "b"] * 5,
    ... })
    >>> cleaner = TableCleaner("label", non_numeric="encode").fit(train)
    >>> cleaner.get_feature_names_out().tolist()
    ['x', 'colour=red']
    >>> new = pd.DataFrame({"x": [2.25, None], "colour": ["blue", "red"]})
    >>> cleaner.transform(new).to_numpy().tolist()  # the missing x: the training median
    [[2.25, 0.0], [2.75, 1.0]]
    >>> cleaner.encode_labels(["b", "a"]).tolist()
    ['b', 'a']

    In a ``Pipeline`` the labels come as ``y`` (``label=None``):

    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> model = make_pipeline(TableCleaner(non_numeric="encode"), LogisticRegression())
    >>> model.fit(train.drop(columns="label"), train["label"]).predict(new).shape
    (2,)
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
        duplicate_rows="keep",
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
        self.duplicate_rows = duplicate_rows

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

        Examples
        --------
        With a positive class, the other classes are merged into one:

        >>> import pandas as pd
        >>> rows = pd.DataFrame({
        ...     "x": [0.5, 2.5, 1.5, 3.5, 2.0, 4.5, 1.0, 5.0, 3.0, 4.0, 6.0],
        ...     "species": ["cat", "dog", "cat", "dog", "bird", "dog", "cat", "dog", "cat",
        ...                 "dog", "bird"],
        ... })
        >>> cleaner = TableCleaner("species", positive="dog")
        >>> cleaner.fit_prepare(rows).class_counts
        {'dog': 5, 'not dog': 6}
        >>> cleaner.merged_
        True
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
        as_read = np.empty(len(frame), dtype=object)  # each row's label before any merge
        as_read[rows] = labels
        drop = self._duplicate_rows() == "drop"
        if _report_duplicate_rows(w, report, drop=drop, labels=as_read[w.rows]):
            counts = _class_counts(w, [pos, neg])
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
        self._duplicate_rows()
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

    def _duplicate_rows(self) -> str:
        # cleaners saved before the option have no attribute: they kept the copies
        value = getattr(self, "duplicate_rows", "keep")
        if value not in ("keep", "drop"):
            raise ValueError(f"duplicate_rows must be 'keep' or 'drop', not {value!r}.")
        return value

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

        Examples
        --------
        >>> import pandas as pd
        >>> train = pd.DataFrame({
        ...     "x": [0.5, 2.5, 1.5, 3.5, 2.0, 4.5, 1.0, 5.0, 3.0, 4.0],
        ...     "colour": ["red", "blue"] * 5,
        ...     "label": ["a", "a", "b", "b", "a", "b", "a", "b", "b", "a"],
        ... })
        >>> new = pd.DataFrame({"x": [1.0], "colour": ["green"]})  # an unknown category
        >>> cleaner = TableCleaner("label", non_numeric="encode").fit(train)
        >>> cleaner.transform(new)
        Traceback (most recent call last):
            ...
        ValueError: The column 'colour' holds 1 category the training rows did not have ...
        >>> cleaner.set_params(handle_unknown="impute").fit(train)
        TableCleaner(handle_unknown='impute', label='label', non_numeric='encode')
        >>> cleaner.transform(new).to_numpy().tolist()  # 'green' as missing: the median
        [[1.0, 0.5]]
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

        Examples
        --------
        >>> import pandas as pd
        >>> rows = pd.DataFrame({
        ...     "x": [0.5, 2.5, 1.5, 3.5, 2.0, 4.5, 1.0, 5.0, 3.0, 4.0, 6.0],
        ...     "species": ["cat", "dog", "cat", "dog", "bird", "dog", "cat", "dog", "cat",
        ...                 "dog", "bird"],
        ... })
        >>> cleaner = TableCleaner("species", positive="dog").fit(rows)
        >>> cleaner.encode_labels(["bird", "dog", "cat"]).tolist()
        ['not dog', 'dog', 'not dog']
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
