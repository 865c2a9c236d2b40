"""Reading numbers stored as text: :func:`parse_numeric` and its :class:`NumericParse`.

A column of mixed cells (numbers, booleans, texts such as ``" 3 "``, ``"1,5"``, ``"1.234,5"``,
``"1,234.5"``, ``"1 234"``, ``"12%"``, missing tokens) is read as ``float64``.  Whether a comma is
a decimal comma or a thousands separator is decided once per column, from every value of it
(:func:`_decide_comma`).  Shared by the table readers (:mod:`slb.tables.cells`,
:mod:`slb.tables.excel`) and the cleaning (:mod:`slb.tables.encode`, :mod:`slb.tables.apply`);
nothing here decides whether a column *is* numeric.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ._messages import _CONTROL_RE
from .distinct import parse_by_distinct, parse_scalar_numbers
from .scalars import _is_missing_scalar, _is_number, _label_text
from .tokens import _INFINITIES, MISSING_TOKENS

__all__ = ["NumericParse", "parse_numeric"]


_NUM_RE = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


_COMMA_DECIMAL_RE = re.compile(r"[+-]?(?:\d+,\d+|,\d+)(?:[eE][+-]?\d+)?")


_EN_THOUSANDS_RE = re.compile(r"[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?")


#: "1,517", "12,345,678": a leading group of 1-3 digits (not starting with 0) and groups of 3.
_GROUPED_RE = re.compile(r"[+-]?[1-9]\d{0,2}(?:,\d{3})+")


_PERCENT_RE = re.compile(r"[+-]?(?:\d+(?:[.,]\d*)?|[.,]\d+)\s*%")


_EU_THOUSANDS_RE = re.compile(r"[+-]?\d{1,3}(?:\.\d{3})+(?:,\d+)?")


_SPACE_SEPARATORS = str.maketrans("", "", "\u00a0\u202f\u2009\u2007")


# "1 234" / "12 345 678,5": groups of three digits after plain spaces (one space each)
_SPACE_GROUPED_RE = re.compile(r"[+-]?\d{1,3}(?: \d{3})+(?:[.,]\d+)?")


@dataclass
class NumericParse:
    """Result of :func:`parse_numeric`: a column of mixed values read as numbers.

    Attributes
    ----------
    values : numpy.ndarray
        ``float64``; ``NaN`` where the cell is missing or could not be read as a number.
    n_present : int
        Cells that are not missing.
    n_numbers : int
        Cells read as numbers (booleans included).
    n_text : int
        Text cells that were read as numbers.
    n_bool : int
        Boolean cells (read as 1/0).
    bad_values : list of str
        Up to ten distinct texts that could not be read as numbers.
    n_bad : int
        Number of cells that could not be read as numbers.
    comma : {None, "decimal", "thousands"}
        How commas inside numbers were read.
    comma_ambiguous : bool
        True when every comma could be read either way (e.g. ``"1,517"`` alone): the
        thousands reading was used unless ``comma_hint`` said otherwise.
    n_percent : int
        Text cells written as percentages (``"12%"``), read as fractions (0.12).
    examples : list of tuple
        Up to three ``(text, number)`` pairs of text cells that were converted.

    Examples
    --------
    >>> result = parse_numeric(["3", "n.a.", None])
    >>> result.n_present, result.n_numbers, result.n_bad, result.fraction
    (2, 1, 1, 0.5)
    """

    values: np.ndarray
    n_present: int = 0
    n_numbers: int = 0
    n_text: int = 0
    n_bool: int = 0
    bad_values: list[str] = field(default_factory=list)
    n_bad: int = 0
    comma: str | None = None
    examples: list[tuple[str, float]] = field(default_factory=list)
    comma_ambiguous: bool = False
    n_percent: int = 0

    @property
    def fraction(self) -> float:
        """Share of the non-missing cells that are numbers (1.0 for an all-missing column)."""
        return self.n_numbers / self.n_present if self.n_present else 1.0


def _classify_text(text: str) -> tuple[str, Any]:
    """('missing'|'number'|'comma'|'bad', payload) for one text cell."""
    s = text.strip()
    low = s.lower()
    if low in MISSING_TOKENS:
        return "missing", None
    s = s.translate(_SPACE_SEPARATORS)
    if " " in s and _SPACE_GROUPED_RE.fullmatch(s):
        s = s.replace(" ", "")  # "1 234": a space as thousands separator, as the no-break one
    if _NUM_RE.fullmatch(s):
        return "number", float(s)
    if low in _INFINITIES:
        return "number", _INFINITIES[low]
    if low in ("true", "false"):
        return "bool", 1.0 if low == "true" else 0.0
    if s.endswith("%") and _PERCENT_RE.fullmatch(s):
        return "percent", float(s[:-1].strip().replace(",", ".")) / 100.0
    if "," in s and (
        _COMMA_DECIMAL_RE.fullmatch(s)
        or _EN_THOUSANDS_RE.fullmatch(s)
        or _EU_THOUSANDS_RE.fullmatch(s)
    ):
        return "comma", s
    if re.fullmatch(r"[+-]?\d{1,3}(?:\.\d{3})+", s):
        # "1.234.567": dots as thousands separators; only unambiguous with two or more dots
        return "comma", s
    return "bad", s


def _decide_comma(
    candidates: list[str],
    has_point_decimals: bool,
    plain_ints: list[float],
    hint: str | None = None,
) -> tuple[str, bool]:
    """Decide whether the commas inside the numbers of one column are decimal or thousands marks.

    Returns ``(mode, ambiguous)``.  The decimal-comma reading is chosen only when it is the
    one consistent with every value: a comma followed by anything but groups of exactly three
    digits ("1,5", "0,125") can only be a decimal comma.  When every comma is followed by groups
    of three digits with a leading group that does not start with 0 ("2,928", "1,517"), the
    commas are thousands separators; this is certain when the column also holds numbers with a
    decimal point, and consistent when its numbers written without a comma are all below 1000
    (e.g. "718"); otherwise it is ambiguous and ``hint`` (the reading of the file's other
    columns) decides, else thousands.
    """
    for s in candidates:
        body = s.lstrip("+-")
        if "," in body and "." in body:
            return ("decimal" if body.rfind(",") > body.rfind(".") else "thousands"), False
        if body.count(",") >= 2:
            return "thousands", False
        if "," not in body and body.count(".") >= 2:
            return "decimal", False  # "1.234.567": dots are thousands marks, so commas are decimal
    if not all(_GROUPED_RE.fullmatch(s) for s in candidates):
        return "decimal", False
    if has_point_decimals:
        return "thousands", False
    if plain_ints and max(abs(v) for v in plain_ints) < 1000:
        return "thousands", False
    return (hint if hint in ("decimal", "thousands") else "thousands"), True


def _convert_comma(s: str, mode: str) -> float | None:
    body = s
    if mode == "decimal":
        if (
            _COMMA_DECIMAL_RE.fullmatch(s)
            or _EU_THOUSANDS_RE.fullmatch(s)
            or ("," not in s and re.fullmatch(r"[+-]?\d{1,3}(?:\.\d{3})+", s))
        ):
            body = s.replace(".", "").replace(",", ".")
            return float(body)
        return None
    if _EN_THOUSANDS_RE.fullmatch(s):
        return float(s.replace(",", ""))
    return None


def parse_numeric(
    values: Iterable[Any], max_bad: int | None = None, comma_hint: str | None = None
) -> NumericParse:
    """Read a column of mixed Python values (numbers, booleans, texts, missing) as numbers.

    Parameters
    ----------
    values : iterable
        The cells of one column.
    max_bad : int, optional
        Stop early once more than this many cells could not be read as numbers (the result is
        then partial, with ``n_bad == max_bad + 1``); ``None`` reads every cell.
    comma_hint : {None, "decimal", "thousands"}
        How to read commas when the column alone cannot tell ("1,517" could be either);
        e.g. the reading found in the other columns of the same file.

    Returns
    -------
    NumericParse
        The numbers and counts of what was converted; ``fraction`` tells how numeric the
        column is.  Nothing is decided here about whether the column *is* numeric.

    Examples
    --------
    >>> parsed = parse_numeric(["1,5", " 2 ", "12%", "n/a", "abc"])
    >>> parsed.values.tolist()
    [1.5, 2.0, 0.12, nan, nan]
    >>> parsed.comma, parsed.bad_values, parsed.fraction
    ('decimal', ['abc'], 0.75)

    Commas followed by groups of three digits, beside numbers below 1000, are thousands
    separators:

    >>> parse_numeric(["1,517", "2,928", "718"]).values.tolist()
    [1517.0, 2928.0, 718.0]
    """
    if isinstance(values, (pd.Series, np.ndarray)) and len(values) >= 2000:
        # a long column of few distinct texts: each text read once (slb.tables.distinct)
        few = parse_by_distinct(
            np.asarray(values, dtype=object), max_bad, comma_hint, parse_numeric
        )
        if few is not None:
            return few
        few = parse_scalar_numbers(np.asarray(values, dtype=object), NumericParse)
        if few is not None:
            return few
    vals, fast = _object_cells(values)
    if fast is not None:
        return fast
    out = np.full(len(vals), np.nan)
    result = NumericParse(values=out)
    state = _ParseState()
    for i, v in enumerate(vals):
        if isinstance(v, str):
            _read_text_cell(result, state, i, v)
        elif _is_missing_scalar(v):
            continue
        else:
            _read_scalar_cell(result, state, i, v)
        if max_bad is not None and result.n_bad > max_bad:
            break
    if state.comma_cells:
        _read_comma_cells(result, state, comma_hint)
    result.bad_values = list(state.bad_seen)
    return result


@dataclass
class _ParseState:
    """What :func:`parse_numeric` remembers across the cells of one column."""

    comma_cells: list = field(default_factory=list)  # (index, original text, payload)
    bad_seen: dict = field(default_factory=dict)  # up to 10 unreadable values, in order
    has_point_decimals: bool = False
    plain_ints: list = field(default_factory=list)

    def bad(self, result, text):
        result.n_bad += 1
        if len(self.bad_seen) < 10:
            self.bad_seen.setdefault(text[:60], None)


def _object_cells(values):
    """The cells as an object array, or (for long text columns) the fast parse's result."""
    if isinstance(values, pd.Series):
        if len(values) >= 2000 and isinstance(values.dtype, pd.StringDtype):
            fast = _parse_numeric_fast(values.reset_index(drop=True))
            if fast is not None:
                return None, fast
        vals = values.to_numpy(dtype=object)
    elif isinstance(values, np.ndarray):
        vals = values if values.dtype == object else values.astype(object)
    else:
        vals = np.asarray(list(values), dtype=object)
    if len(vals) >= 2000:
        series = pd.Series(vals, dtype=object)
        if pd.api.types.infer_dtype(series, skipna=True) == "string":
            fast = _parse_numeric_fast(series)
            if fast is not None:
                return None, fast
    return vals, None


def _read_text_cell(result, state, i, v):
    """One text cell: a number, a percentage, a boolean, a comma number (decided later) or bad."""
    kind, payload = _classify_text(v)
    if kind == "missing":
        return
    result.n_present += 1
    out = result.values
    if kind == "number":
        out[i] = payload
        result.n_numbers += 1
        result.n_text += 1
        if len(result.examples) < 3 and v.strip() != _label_text(payload):
            result.examples.append((v, payload))
        if "." in v:
            state.has_point_decimals = True
        elif math.isfinite(payload) and len(state.plain_ints) < 10_000:
            state.plain_ints.append(payload)
    elif kind == "percent":
        out[i] = payload
        result.n_numbers += 1
        result.n_text += 1
        result.n_percent += 1
        if len(result.examples) < 3:
            result.examples.append((v, payload))
    elif kind == "bool":
        out[i] = payload
        result.n_numbers += 1
        result.n_bool += 1
    elif kind == "comma":
        state.comma_cells.append((i, v, payload))
    else:
        state.bad(result, payload)


def _read_scalar_cell(result, state, i, v):
    """One non-text, non-missing cell: a boolean, a number or something unreadable."""
    result.n_present += 1
    if isinstance(v, (bool, np.bool_)):
        result.n_numbers += 1
        result.n_bool += 1
        result.values[i] = 1.0 if v else 0.0
    elif _is_number(v):
        result.n_numbers += 1
        try:
            result.values[i] = float(v)
        except OverflowError:  # Python ints beyond float range
            result.values[i] = math.inf if v > 0 else -math.inf
    else:
        state.bad(result, _CONTROL_RE.sub(" ", str(v)))


def _read_comma_cells(result, state, comma_hint):
    """Decide the column's comma reading (decimal or thousands) and convert those cells."""
    mode, result.comma_ambiguous = _decide_comma(
        [c[2] for c in state.comma_cells], state.has_point_decimals, state.plain_ints, comma_hint
    )
    result.comma = mode
    for i, original, s in state.comma_cells:
        x = _convert_comma(s, mode)
        if x is None:
            state.bad(result, s)
        else:
            result.values[i] = x
            result.n_numbers += 1
            result.n_text += 1
            if len(result.examples) < 3:
                result.examples.append((original, x))


def _arrow_numbers(texts: pd.Series) -> np.ndarray | None:
    """Texts -> float64 with Arrow's parser (correctly rounded, about 8x faster than
    ``pd.to_numeric`` on long columns); None if a text is not a plain number or Arrow is
    unavailable.  Only plain decimal or scientific notation passes, plus inf/Infinity, which
    the careful path reads the same way."""
    try:
        import pyarrow as pa

        return np.asarray(
            pa.array(texts, type=pa.string()).cast(pa.float64()).to_numpy(zero_copy_only=False),
            dtype=np.float64,
        )
    except Exception:  # noqa: BLE001 - ArrowInvalid, ImportError, odd objects: the slow path
        return None


def _parse_numeric_fast(series: pd.Series) -> NumericParse | None:
    """Vectorised path for long columns of plain numeric texts; None if it does not apply.

    ``series`` holds only texts and missing values (object or string dtype, RangeIndex).
    """
    text = series.str.strip()
    missing = series.isna() | text.str.lower().isin(MISSING_TOKENS)
    present = text[~missing]
    comma = None
    if present.str.contains(",", regex=False).any():
        # only the plain decimal-comma form ("1,5"), in a column without any ".", is fast
        if (
            present.str.contains(".", regex=False).any()
            or not present.str.fullmatch(r"[+-]?(?:\d+(?:,\d+)?|,\d+)(?:[eE][+-]?\d+)?").all()
        ):
            return None
        with_comma = present[present.str.contains(",", regex=False)]
        if with_comma.str.fullmatch(_GROUPED_RE.pattern).all():
            return None  # "1,517": possibly thousands separators; the careful path decides
        present = present.str.replace(",", ".", regex=False)
        comma = "decimal"
    numbers = _arrow_numbers(present)
    if numbers is None:
        try:
            numbers = pd.to_numeric(present, errors="raise")
        except (ValueError, TypeError, OverflowError):
            return None
    out = np.full(len(series), np.nan)
    out[np.flatnonzero(~missing.to_numpy(dtype=bool))] = np.asarray(numbers, dtype=np.float64)
    shown = text[~missing]
    examples = [
        (t, float(x))
        for t, x in zip(shown[:50], numbers[:50], strict=True)
        if t != _label_text(float(x))
    ]
    return NumericParse(
        values=out,
        n_present=len(present),
        n_numbers=len(present),
        n_text=len(present),
        comma=comma,
        examples=examples[:3],
    )
