"""Typing a wide table of texts all at once (for :func:`slb.tables.cells._convert_cells`).

A table read from a text file holds only texts.  Reading its columns one at a time costs a
fixed overhead per column (a pandas Series, a few string operations), which dominated wide
files: 40 rows x 9,000 columns took a minute.  :class:`BulkText` examines every cell of the
table in one pass over the flattened cells (strip, missing-value markers, the plain-number
pattern, texts that cannot be numbers), so that the per-column work left is a few numpy
reductions:

* columns whose cells are all plain numbers (or missing) get their numeric reading here
  (:meth:`BulkText.number_parses`), converted with Arrow's correctly rounded parser;
* columns holding a cell that cannot be any kind of number (a word) are text for sure
  (:meth:`BulkText.text_parses`) and their cleaned cells come from one block
  (:meth:`BulkText.text_columns`);
* the rest (decimal commas, percentages, true/false, ISO dates, ...) keep the careful
  column-by-column reading of :func:`slb.tables.numbers.parse_numeric`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

#: Plain decimal or scientific numbers (what Arrow's cast reads exactly as Python's float).
PLAIN_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
#: Characters of every number form parse_numeric reads (digits, signs, marks, spaces, %, e).
_NUMBERISH = r"[\d+\-.,%eE \u00a0\u202f\u2009\u2007]+"
#: Words parse_numeric reads as numbers.
_NUMBER_WORDS = ["inf", "+inf", "-inf", "infinity", "+infinity", "-infinity", "true", "false"]
#: Tables narrower than this are typed column by column (the per-column cost is small).
MIN_COLUMNS = 32
#: Largest table examined at once (cells); larger ones are typed column by column.
MAX_CELLS = 20_000_000


class BulkText:
    """Every cell of a table of texts examined at once.

    Parameters
    ----------
    flat : pandas.Series
        The raw cells, column after column (texts and missing values only).
    shape : tuple of int
        The table's (rows, columns).
    missing_tokens : frozenset of str
        The lower-case texts that mean "missing" (:data:`slb.tables.tokens.MISSING_TOKENS`).

    Use :func:`bulk_text` to build one only where it applies.

    Examples
    --------
    >>> import pandas as pd
    >>> from slb.tables.numbers import NumericParse
    >>> from slb.tables.tokens import MISSING_TOKENS
    >>> frame = pd.DataFrame([["1", "x"] * 16, ["2", "NA"] * 16], dtype=object)
    >>> cells = bulk_text(frame, MISSING_TOKENS)
    >>> cells.shape, cells.missing[:, 1].tolist(), cells.plain[:, 0].tolist()
    ((2, 32), [False, True], [True, True])
    >>> parses = cells.number_parses(NumericParse)  # the columns of plain numbers
    >>> sorted(parses)[:3], parses[0].values.tolist()
    ([0, 2, 4], [1.0, 2.0])
    """

    def __init__(self, flat: pd.Series, shape: tuple[int, int], missing_tokens: frozenset):
        n, p = shape
        self.shape = (n, p)
        text = flat.str.strip()
        low = text.str.lower()
        missing = (flat.isna() | low.isin(missing_tokens)).to_numpy(dtype=bool)
        plain = text.str.fullmatch(PLAIN_NUMBER).fillna(False).to_numpy(dtype=bool)
        numberish = low.str.fullmatch(_NUMBERISH).fillna(False).to_numpy(dtype=bool) | low.isin(
            _NUMBER_WORDS
        ).to_numpy(dtype=bool)
        self.text = text
        self.missing = missing.reshape((n, p), order="F")
        self.present = ~self.missing
        self.plain = plain.reshape((n, p), order="F")
        #: cells that no reading of parse_numeric turns into a number (words, dates, ...)
        self.word = (~numberish & ~missing).reshape((n, p), order="F")

    def number_parses(self, result_type: Any) -> dict[int, Any]:
        """``{column: NumericParse}`` for the columns of plain numbers (and missing cells).

        Parameters
        ----------
        result_type : type
            The class of each reading (:class:`slb.tables.numbers.NumericParse`).

        Returns
        -------
        dict of int to result_type
            Empty when no column qualifies (or pyarrow cannot read the numbers).

        Examples
        --------
        >>> import pandas as pd
        >>> from slb.tables.numbers import NumericParse
        >>> from slb.tables.tokens import MISSING_TOKENS
        >>> frame = pd.DataFrame([["1.5", "x"] * 16, ["NA", "y"] * 16], dtype=object)
        >>> parses = bulk_text(frame, MISSING_TOKENS).number_parses(NumericParse)
        >>> len(parses), parses[0].values.tolist(), parses[0].n_present
        (16, [1.5, nan], 1)
        """
        n, p = self.shape
        good = (self.plain | self.missing).all(axis=0) & self.present.any(axis=0)
        if not good.any():
            return {}
        take = np.repeat(good, n) & ~self.missing.ravel(order="F")
        numbers = _arrow_floats(self.text[take])
        if numbers is None:
            return {}
        values = np.full(n * p, np.nan)
        values[take] = numbers
        values = values.reshape((n, p), order="F")
        counts = self.present.sum(axis=0)
        return {
            int(j): result_type(
                values=values[:, j].copy(),
                n_present=int(counts[j]),
                n_numbers=int(counts[j]),
                n_text=int(counts[j]),
            )
            for j in np.flatnonzero(good)
        }

    def text_parses(self, result_type: Any) -> dict[int, Any]:
        """``{column: NumericParse}`` saying "not numbers" for the columns holding a word.

        The reading is what ``parse_numeric(column, max_bad=0)`` returns in substance: at
        least one cell cannot be read as a number (``n_bad`` = 1), which is all that decides
        that the column is text.

        Parameters
        ----------
        result_type : type
            The class of each reading (:class:`slb.tables.numbers.NumericParse`).

        Returns
        -------
        dict of int to result_type

        Examples
        --------
        >>> import pandas as pd
        >>> from slb.tables.numbers import NumericParse
        >>> from slb.tables.tokens import MISSING_TOKENS
        >>> frame = pd.DataFrame([["1", "x"] * 16, ["2", "NA"] * 16], dtype=object)
        >>> parses = bulk_text(frame, MISSING_TOKENS).text_parses(NumericParse)
        >>> sorted(parses)[:3], parses[1].n_present, parses[1].n_bad
        ([1, 3, 5], 1, 1)
        """
        n, _ = self.shape
        words = self.word.any(axis=0)
        counts = self.present.sum(axis=0)
        return {
            int(j): result_type(values=np.full(n, np.nan), n_present=int(counts[j]), n_bad=1)
            for j in np.flatnonzero(words)
        }

    def text_columns(self, columns: list[int], text_dtype: Any) -> dict[int, Any]:
        """The cleaned cells (stripped, missing markers as missing) of the given columns.

        Each column is one array of ``text_dtype`` built straight from its slice of the
        cleaned cells (no intermediate frame: 9,000 pandas operations cost seconds).

        Parameters
        ----------
        columns : list of int
            Positions of the columns wanted.
        text_dtype : pandas dtype
            The dtype of each returned array (e.g. ``"string"``).

        Returns
        -------
        dict of int to pandas array

        Examples
        --------
        >>> import pandas as pd
        >>> from slb.tables.tokens import MISSING_TOKENS
        >>> frame = pd.DataFrame([["1", " x "] * 16, ["2", "NA"] * 16], dtype=object)
        >>> cells = bulk_text(frame, MISSING_TOKENS).text_columns([1], "string")
        >>> cells[1].tolist()
        ['x', <NA>]
        """
        if not columns:
            return {}
        n, p = self.shape
        cells = self.text.to_numpy(dtype=object).reshape((n, p), order="F")
        gaps = self.missing
        out = {}
        for j in columns:
            col = cells[:, j].copy()
            col[gaps[:, j]] = None
            out[j] = pd.array(col, dtype=text_dtype)
        return out

    def iso_date_columns(self, pattern: str) -> set[int]:
        """Columns whose present cells all look like ISO dates (typed column by column).

        Parameters
        ----------
        pattern : str
            A regular expression a whole ISO date matches.

        Returns
        -------
        set of int

        Examples
        --------
        >>> import pandas as pd
        >>> from slb.tables.tokens import MISSING_TOKENS
        >>> frame = pd.DataFrame([["2024-01-31", "x"] * 16, ["NA", "y"] * 16], dtype=object)
        >>> dates = bulk_text(frame, MISSING_TOKENS).iso_date_columns("[0-9]{4}-[0-9]{2}-[0-9]{2}")
        >>> sorted(dates)[:3]
        [0, 2, 4]
        """
        n, p = self.shape
        maybe = self.word.any(axis=0)
        if not maybe.any():
            return set()
        iso = self.text.str.fullmatch(pattern).fillna(False).to_numpy(dtype=bool)
        iso = iso.reshape((n, p), order="F") | self.missing
        return {int(j) for j in np.flatnonzero(iso.all(axis=0) & self.present.any(axis=0))}


def bulk_text(frame: pd.DataFrame, missing_tokens: frozenset) -> BulkText | None:
    """A :class:`BulkText` of the frame, or None if it is narrow, huge or not all texts.

    Parameters
    ----------
    frame : pandas.DataFrame
        The raw cells of a table (texts and missing values).
    missing_tokens : frozenset of str
        The lower-case texts that mean "missing".

    Returns
    -------
    BulkText or None
        None for fewer than :data:`MIN_COLUMNS` columns, more than :data:`MAX_CELLS` cells,
        no rows, or cells other than texts: the caller then types the columns one by one.

    Examples
    --------
    >>> import pandas as pd
    >>> from slb.tables.tokens import MISSING_TOKENS
    >>> frame = pd.DataFrame([["1", "x"] * 16, ["2", "NA"] * 16], dtype=object)
    >>> bulk_text(frame, MISSING_TOKENS).shape
    (2, 32)
    >>> bulk_text(frame.iloc[:, :4], MISSING_TOKENS) is None  # narrow: column by column
    True
    """
    n, p = frame.shape
    if p < MIN_COLUMNS or n == 0 or n * p > MAX_CELLS:
        return None
    flat = pd.Series(frame.to_numpy(dtype=object).ravel(order="F"), dtype=object)
    if pd.api.types.infer_dtype(flat, skipna=True) != "string":
        return None
    return BulkText(flat, (n, p), missing_tokens)


def _arrow_floats(texts: pd.Series) -> np.ndarray | None:
    """Plain number texts as float64 (Arrow's correctly rounded parser), or None."""
    try:
        import pyarrow as pa

        return np.asarray(
            pa.array(texts.to_numpy(dtype=object), type=pa.string())
            .cast(pa.float64())
            .to_numpy(zero_copy_only=False),
            dtype=np.float64,
        )
    except Exception:  # noqa: BLE001 - no pyarrow, or a text Arrow does not read: slow path
        return None
