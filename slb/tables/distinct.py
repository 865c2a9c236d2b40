"""Reading a long column of texts once per distinct value (for :func:`slb.tables.numbers.parse_numeric`).

A column of a million cells that repeats a few texts ("TRUE"/"FALSE", "yes"/"no", "1,5"...)
does not need a million readings: the texts are factorised (hash-based, in C), each distinct
text is read once by the careful cell-by-cell reader, and the values and counts are spread
back to the cells with the factorisation's codes.  The result is the one the cell-by-cell
reading gives (the same values, counts, comma decision and unreadable examples, which depend
only on which texts occur), at a cost that grows with the number of cells in C and with the
number of *distinct* texts in Python.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .tokens import _INFINITIES, MISSING_TOKENS

#: Columns shorter than this are read cell by cell (factorising costs more than it saves).
MIN_CELLS = 2000
#: The distinct texts must be at most this share of the cells for the shortcut to be taken.
MAX_DISTINCT_SHARE = 0.5


def factorize_texts(values: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """``(codes, distinct texts)`` of a long column of texts with few distinct ones, or None.

    Missing cells get the code -1.  None when the column is short, holds cells other than
    texts, or more than :data:`MAX_DISTINCT_SHARE` of its cells are distinct.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.tables.distinct import factorize_texts
    >>> codes, texts = factorize_texts(np.array(["a", "b", None] * 1000, dtype=object))
    >>> list(texts), codes[:3].tolist()
    (['a', 'b'], [0, 1, -1])
    """
    n = len(values)
    if n < MIN_CELLS:
        return None
    series = pd.Series(np.asarray(values, dtype=object), dtype=object)
    if pd.api.types.infer_dtype(series, skipna=True) != "string":
        return None  # True, 1 and 1.0 would be one value to the hash table
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    if len(uniques) == 0 or len(uniques) > MAX_DISTINCT_SHARE * n:
        return None
    return codes, np.asarray(uniques, dtype=object)


def parse_by_distinct(
    vals: np.ndarray | None,
    max_bad: int | None,
    comma_hint: str | None,
    parse: Any,
    factorized: tuple[np.ndarray, np.ndarray] | None = None,
) -> Any | None:
    """The reading of ``vals`` (texts and missing cells) through its distinct texts, or None.

    Parameters
    ----------
    vals : numpy.ndarray
        The cells, ``object`` dtype.
    max_bad, comma_hint
        As for :func:`slb.tables.numbers.parse_numeric`.
    parse : callable
        ``parse_numeric`` itself (passed in to avoid a circular import), called on the
        distinct texts.
    factorized : tuple, optional
        :func:`factorize_texts` of the cells, when the caller has it already (``vals`` is
        then not used).

    Returns
    -------
    NumericParse or None
        None when the shortcut does not apply (short columns, cells other than texts, or
        mostly distinct texts): the caller then reads the cells one by one.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.tables.numbers import parse_numeric
    >>> cells = np.array(["1,5", "2", "?"] * 1000, dtype=object)
    >>> parsed = parse_by_distinct(cells, None, None, parse_numeric)
    >>> parsed.values[:3].tolist(), parsed.n_present, parsed.comma
    ([1.5, 2.0, nan], 2000, 'decimal')
    >>> parse_by_distinct(cells[:3], None, None, parse_numeric) is None  # short: cell by cell
    True
    """
    if factorized is None:
        factorized = factorize_texts(vals)
        if factorized is None:
            return None
    codes, uniques = factorized
    n, u = len(codes), len(uniques)
    once = parse(uniques, max_bad=None, comma_hint=comma_hint)
    weights = np.bincount(codes[codes >= 0], minlength=u)
    lows = [t.strip().lower() for t in uniques]
    missing = np.array([t in MISSING_TOKENS for t in lows], dtype=bool)
    number = ~np.isnan(once.values)
    boolean = np.array([t in ("true", "false") for t in lows], dtype=bool) & number
    percent = np.array([t.endswith("%") and t not in _INFINITIES for t in lows]) & number
    bad = ~missing & ~number

    def total(mask: np.ndarray) -> int:
        return int(weights[mask].sum())

    values = np.full(n, np.nan)
    present_cells = codes >= 0
    values[present_cells] = once.values[codes[present_cells]]
    once.values = values
    once.n_present = total(~missing)
    once.n_numbers = total(number)
    once.n_bool = total(boolean)
    once.n_percent = total(percent)
    once.n_text = total(number & ~boolean)
    once.n_bad = total(bad)
    if max_bad is not None and once.n_bad > max_bad:
        once.n_bad = max_bad + 1  # as the cell-by-cell reading, which stops there
    return once


def parse_scalar_numbers(vals: np.ndarray, result_type: Any) -> Any | None:
    """The reading of a long column that holds only numbers and missing cells, or None.

    An Excel sheet gives its numbers as Python ``int``/``float`` objects; reading them one by
    one costs about a microsecond each.  When every present cell is an int or a float (no
    booleans, texts or dates), the column is converted at once.

    Parameters
    ----------
    vals : numpy.ndarray
        The cells, ``object`` dtype.
    result_type : type
        :class:`slb.tables.numbers.NumericParse` (passed in to avoid a circular import).

    Returns
    -------
    NumericParse or None

    Examples
    --------
    >>> import numpy as np
    >>> from slb.tables.numbers import NumericParse
    >>> cells = np.array([1, 2.5, None] * 1000, dtype=object)
    >>> parsed = parse_scalar_numbers(cells, NumericParse)
    >>> parsed.values[:3].tolist(), parsed.n_numbers
    ([1.0, 2.5, nan], 2000)
    """
    if len(vals) < MIN_CELLS:
        return None
    series = pd.Series(vals, dtype=object)
    if pd.api.types.infer_dtype(series, skipna=True) not in (
        "integer",
        "floating",
        "mixed-integer-float",
    ):
        return None
    try:
        with np.errstate(all="ignore"):
            values = series.astype(np.float64).to_numpy()
    except (OverflowError, TypeError, ValueError):
        return None  # ints beyond float range, odd objects: the careful reading
    present = int((~np.isnan(values)).sum())
    return result_type(values=values, n_present=present, n_numbers=present)


def category_codes(values: np.ndarray, to_text: Any) -> tuple[np.ndarray, list[str]] | None:
    """Category codes of a long text column through its distinct texts, or None.

    Parameters
    ----------
    values : numpy.ndarray
        The cells (``object``).
    to_text : callable
        The rule that turns one cell into its category text, or None when missing
        (``slb.tables.scalars._category_text``).

    Returns
    -------
    (codes, levels) or None
        ``codes[i]`` indexes ``levels`` (in order of first appearance), -1 where missing;
        None when the column is short or holds cells other than texts (True, 1 and 1.0
        would be one value to the hash table, but not one category text).

    Examples
    --------
    >>> import numpy as np
    >>> from slb.tables.scalars import _category_text
    >>> cells = np.array(["b ", "a", "NA"] * 1000, dtype=object)
    >>> codes, levels = category_codes(cells, _category_text)
    >>> codes[:3].tolist(), levels
    ([0, 1, -1], ['b', 'a'])
    """
    n = len(values)
    if n < MIN_CELLS:
        return None
    series = pd.Series(values, dtype=object)
    if pd.api.types.infer_dtype(series, skipna=True) != "string":
        return None
    raw_codes, uniques = pd.factorize(series, use_na_sentinel=True)
    index: dict[str, int] = {}
    of_unique = np.full(len(uniques) + 1, -1, dtype=np.int64)  # the last one: missing
    for u, value in enumerate(uniques):
        text = to_text(value)
        if text is not None:
            of_unique[u] = index.setdefault(text, len(index))
    return of_unique[raw_codes], list(index)
