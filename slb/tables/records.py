"""The records of a cleaning: :class:`Change` (one change made, and why) and :class:`PreparedData`.

Every step of the cleaning (:mod:`slb.tables.clean`) appends :class:`Change` records to one
report; :class:`PreparedData` carries the clean ``X``, ``y`` and that report.  A leaf module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Change", "PreparedData"]


@dataclass(frozen=True)
class Change:
    """One change made to the data, with the reason for it.

    Attributes
    ----------
    kind : str
        Machine-readable category, e.g. ``"dropped_constant_columns"``.
    message : str
        A self-contained plain-text sentence explaining what was done and why.
    columns : tuple of str
        Names of the columns affected (names as in the cleaned table, or as in the input for
        columns that were dropped).
    rows : tuple of int
        0-based positions, in the input frame, of the rows affected (empty when not
        row-specific).
    count : int
        How many things were affected (rows, columns or cells; the message says which).
    severity : {"info", "warning"}
        ``"warning"`` for changes that may affect the trustworthiness of results.

    Examples
    --------
    >>> change = Change(
    ...     "dropped_constant_columns",
    ...     "1 column ('z') has the same value in every row.",
    ...     columns=("z",),
    ...     count=1,
    ... )
    >>> str(change)
    "1 column ('z') has the same value in every row."
    >>> change.severity
    'info'
    """

    kind: str
    message: str
    columns: tuple[str, ...] = ()
    rows: tuple[int, ...] = ()
    count: int = 0
    severity: str = "info"

    def __str__(self) -> str:
        return self.message


@dataclass
class PreparedData:
    """Clean classifier inputs produced by :func:`prepare_table`.

    Attributes
    ----------
    X : pandas.DataFrame
        Features, ``float64``, finite, with unique string column names and a fresh
        ``RangeIndex``.
    y : numpy.ndarray
        Labels of the rows of ``X``, exactly two distinct values: the original label values
        (numbers, booleans or strings) when the label had two classes; strings (the positive
        class name and ``"not <positive>"``) when several classes were merged.
    positive_label, negative_label : object
        The two values found in ``y``.
    report : list of Change
        Every change made, in the order it was made.
    class_counts : dict
        ``{positive_label: n, negative_label: n}`` for ``y``.
    label : str
        Name of the label column used.
    original_class_counts : dict
        Counts of the label's classes before they were merged into two (after rows with a
        missing label were dropped).
    source_rows : numpy.ndarray
        For each row of ``X``, its 0-based position in the input frame.
    n_folds : int or None
        The number of cross-validation folds the data allow (``n_folds`` possibly reduced), or
        ``None`` if no ``n_folds`` was given.

    Examples
    --------
    >>> import pandas as pd
    >>> from slb.tables import prepare_table
    >>> frame = pd.DataFrame({
    ...     "x": [0.5, 2.5, 1.5, 3.5, 2.0, 4.5, 1.0, 5.0, 3.0, 4.0],
    ...     "z": [1] * 10,
    ...     "label": [0, 1] * 5,
    ... })
    >>> prepared = prepare_table(frame, "label")
    >>> prepared.feature_names, prepared.positive_label, prepared.y01.tolist()[:4]
    (['x'], 1, [0, 1, 0, 1])
    >>> [change.kind for change in prepared.report]
    ['chose_positive_class', 'dropped_constant_columns']
    """

    X: pd.DataFrame
    y: np.ndarray
    positive_label: Any
    negative_label: Any
    report: list[Change]
    class_counts: dict
    label: str
    original_class_counts: dict
    source_rows: np.ndarray
    n_folds: int | None = None

    @property
    def feature_names(self) -> list[str]:
        """Names of the columns of ``X``."""
        return [str(c) for c in self.X.columns]

    @property
    def messages(self) -> list[str]:
        """The ``message`` of every change, in order."""
        return [c.message for c in self.report]

    @property
    def warnings(self) -> list[Change]:
        """The changes with ``severity == "warning"``."""
        return [c for c in self.report if c.severity == "warning"]

    @property
    def y01(self) -> np.ndarray:
        """``y`` as integers: 1 for the positive class, 0 for the negative class."""
        return (self.y == self.positive_label).astype(np.int64)
