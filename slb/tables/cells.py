"""From raw cells to a typed table, for text files and Excel sheets alike.

The readers of :mod:`slb.tables.text` and :mod:`slb.tables.excel` find the rows and the header
row; this module then decides whether the header row is one more data row
(:func:`_header_is_data`), removes rows that repeat the header and "Total"/"Sum" rows
(:func:`_drop_junk_rows`), types the columns (:func:`_convert_cells`: numbers, yes/no flags,
ISO dates, text) and gives every reader's result unique, non-blank column names
(:func:`_finish_frame`).  Each step appends plain-text notes saying what it changed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ._messages import _join, _names
from .budget import Budget
from .bulk import bulk_text
from .distinct import factorize_texts, parse_by_distinct
from .names import tidy_names, unique_names
from .numbers import NumericParse, parse_numeric
from .tokens import MISSING_TOKENS

#: Rows examined to find the width of a table (text and Excel).
_SAMPLE_ROWS = 500

_NO_HEADER_NOTE = (
    "The first row holds data, not column names, so the {where} seems to have no header row; "
    "the columns were named column_1, column_2, ... ."
)

_JUNK_ROW_WORDS = (
    "total",
    "totals",
    "grand total",
    "sum",
    "subtotal",
    "sub-total",
    "summe",
    "gesamt",
)
#: The cells that mark a total row, as written ("Total", "TOTAL", "Total:", ...).
_JUNK_ROW_CELLS = sorted(
    {
        form + end
        for w in _JUNK_ROW_WORDS
        for form in (w, w.upper(), w.capitalize(), w.title())
        for end in ("", ":")
    }
)

_ISO_DATE_RE = r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?"


# --------------------------------------------------------------------------------------------
# Header row and junk rows
# --------------------------------------------------------------------------------------------
def _header_is_data(header: list[Any], body: pd.DataFrame) -> bool:
    """True if the candidate header row looks like one more data row.

    That is the case when every column whose data are numbers has a number in the header row,
    and every other header cell is one of the values of its column (e.g. 'yes' in a yes/no
    label column).  Real headers ('age', 'label') fail one of these tests.
    """
    sample = body.head(200)
    bulk = bulk_text(sample, MISSING_TOKENS)  # a wide sample: plain numbers found at once
    plain = bulk.number_parses(NumericParse) if bulk is not None else {}
    grid = sample.to_numpy(dtype=object)  # columns as arrays without a Series each
    numeric = 0
    for j, h in enumerate(header):
        if j >= sample.shape[1]:
            return False
        cells = grid[:, j]
        parsed = plain.get(j)
        if parsed is None:
            parsed = parse_numeric(cells, max_bad=0)
        blank = h is None or (isinstance(h, str) and not h.strip())
        if blank:
            continue
        h_number = (
            isinstance(h, (int, float))
            and not isinstance(h, bool)
            or (isinstance(h, str) and parse_numeric([h]).n_numbers == 1)
        )
        if parsed.n_present and parsed.n_bad == 0:
            if not h_number:
                return False
            numeric += 1
        else:
            values = {str(c).strip() for c in cells if c is not None}
            if str(h).strip() not in values:
                return False
    return numeric > 0


def _drop_junk_rows(
    frame: pd.DataFrame, notes: list[str], unit: str, first: int, budget: Budget | None = None
) -> pd.DataFrame:
    """Drop rows that repeat the header and "Total"/"Sum" rows (cells still raw).

    ``frame`` has the header texts as column names; ``first`` is the 1-based line (or sheet
    row) number of its first row, for the note.  The comparisons run on the whole table at
    once (one object array, hash-based ``isin`` on its flattened cells), so that the cost
    grows with the number of cells, not with a per-column overhead (9,000 columns).
    """
    if frame.empty:
        return frame
    header = [str(c).strip() for c in frame.columns]
    named = [j for j, h in enumerate(header) if h]
    if len(named) < 2:
        return frame
    n, p = frame.shape
    heads = np.array([header[j] for j in named], dtype=object)
    lower = np.array([h.lower() for h in heads], dtype=object)
    upper = np.array([h.upper() for h in heads], dtype=object)
    # one hash-based pass over the cells finds the rows holding a cell spelled like a header
    # name or a total; only those rows are then examined cell by cell (dtype=object: pandas 3
    # would otherwise copy the cells into Arrow strings first)
    wanted = {*heads, *lower, *upper, *_JUNK_ROW_CELLS}
    if p <= 64:  # a column at a time: no copy of the whole table into one array
        flagged = np.zeros(n, dtype=bool)
        for j in range(p):
            flagged |= (
                pd.Series(frame.iloc[:, j].to_numpy(dtype=object), dtype=object)
                .isin(wanted)
                .to_numpy()
            )
    else:
        cells = frame.to_numpy(dtype=object)
        flagged = pd.Series(cells.ravel(), dtype=object).isin(wanted).to_numpy()
        flagged = flagged.reshape(n, p).any(axis=1)
    if budget is not None:
        budget.check("reading")
    candidates = np.flatnonzero(flagged)
    few = frame.iloc[candidates].to_numpy(dtype=object)  # the flagged rows only
    rows = few[:, named]
    # a cell equal to two variants ('ID' == 'ID'.upper()) counts once, as with isin
    same = ((rows == heads) | (rows == lower) | (rows == upper)).sum(axis=1)
    filled = (~pd.isna(rows) & (rows != "")).sum(axis=1)
    repeated = np.zeros(n, dtype=bool)
    repeated[candidates] = (same >= np.maximum(2, 0.8 * filled)) & (filled > 0)
    hits = np.zeros((n, p), dtype=bool)
    if len(candidates):
        hits[candidates] = (
            pd.Series(few.ravel(), dtype=object).isin(_JUNK_ROW_CELLS).to_numpy().reshape(few.shape)
        )
    per_col = hits.sum(axis=0)
    ok = (per_col > 0) & (per_col <= 3) & (per_col < 0.05 * n + 1)
    total = hits[:, ok].any(axis=1) if ok.any() else np.zeros(n, dtype=bool)
    total &= ~repeated
    for mask, what in (
        (repeated, "the header row again (as when tables are pasted together)"),
        (total, "a total ('Total', 'Sum', ...) rather than data"),
    ):
        if mask.any():
            k = int(mask.sum())
            where = [f"{first + int(i):,}" for i in np.flatnonzero(mask)[:5]]
            if k > 5:
                where.append("others")
            notes.append(
                f"{k:,} {unit}{'s' if k > 1 else ''} ({_join(where)}) held {what} and "
                f"{'were' if k > 1 else 'was'} removed."
            )
    drop = repeated | total
    return frame.loc[~drop].reset_index(drop=True) if drop.any() else frame


# --------------------------------------------------------------------------------------------
# Cells -> typed columns
# --------------------------------------------------------------------------------------------
@dataclass
class _Readings:
    """Names of the columns read in a way the user should be told about."""

    decimal_comma: list[str] = field(default_factory=list)
    thousands: list[str] = field(default_factory=list)
    ambiguous: list[str] = field(default_factory=list)
    percent: list[str] = field(default_factory=list)
    dates: list[str] = field(default_factory=list)


def _convert_cells(
    frame: pd.DataFrame,
    notes: list[str],
    comma_hint: str | None = None,
    budget: Budget | None = None,
) -> pd.DataFrame:
    """Turn columns of raw cells (text, numbers, dates) into typed columns.

    ``comma_hint`` says how to read commas in columns where both readings fit ("1,517"):
    "decimal" for files separated by semicolons (the convention where the comma is the decimal
    mark); otherwise the reading of the file's other, unambiguous columns decides.  Columns of
    plain numbers and of words in a wide table of texts are typed all at once
    (:mod:`slb.tables.bulk`), long text columns once per distinct text
    (:mod:`slb.tables.distinct`); the others one by one, with the ``budget`` checked every
    few hundred columns.
    """
    if len(frame) == 0:  # nothing to type (the reader then says the table is empty)
        return frame.reset_index(drop=True)
    parses: dict[int, Any] = {}
    text_block: dict[int, Any] = {}
    plain: set[int] = set()  # columns of plain numbers typed in bulk
    bulk = bulk_text(frame, MISSING_TOKENS)
    if bulk is not None:  # a wide table of texts: most columns typed at once
        parses.update(bulk.number_parses(NumericParse))
        plain = set(parses)
        dates = bulk.iso_date_columns(_ISO_DATE_RE)
        words = {j: p for j, p in bulk.text_parses(NumericParse).items() if j not in dates}
        parses.update(words)
        text_block = bulk.text_columns(sorted(words), _text_dtype())
        if budget is not None:
            budget.check("reading")
    factorized: dict[int, Any] = {}  # long text columns of few distinct texts
    for j in range(frame.shape[1]):
        if j not in parses:
            if budget is not None and j % 256 == 0:
                budget.check("reading")
            column = frame.iloc[:, j]
            fact = factorize_texts(column.to_numpy(dtype=object)) if len(column) >= 2000 else None
            if fact is not None:
                factorized[j] = fact
                parses[j] = parse_by_distinct(None, 0, None, parse_numeric, factorized=fact)
            else:
                parses[j] = parse_numeric(column, max_bad=0)
    sure = {p.comma for p in parses.values() if p.comma and not p.comma_ambiguous and not p.n_bad}
    hint = comma_hint or (next(iter(sure)) if len(sure) == 1 else None)
    readings = _Readings()
    columns = {}
    for j in range(frame.shape[1]):
        if budget is not None and j % 256 == 0:
            budget.check("reading")
        if j in text_block:
            columns[j] = text_block[j]
        elif j in plain:
            columns[j] = _numbers_column(parses[j].values)  # plain numbers, typed in bulk
        else:
            columns[j] = _convert_column(
                frame.iloc[:, j],
                str(frame.columns[j]),
                parses[j],
                hint,
                readings,
                factorized.get(j),
            )
    # arrays, not Series: no index alignment per column (a cost on 9,000 columns)
    arrays = {j: (c.array if isinstance(c, pd.Series) else c) for j, c in columns.items()}
    out = pd.DataFrame(arrays, copy=False) if columns else pd.DataFrame(index=frame.index)
    out.columns = list(frame.columns)
    notes.extend(_conversion_notes(readings, hint))
    return out


def _convert_column(
    column: pd.Series,
    label: str,
    parsed: Any,
    hint: str | None,
    readings: _Readings,
    factorized: Any = None,
) -> pd.Series | np.ndarray:
    """One typed column: flags, numbers, dates or text (``parsed``: its numeric reading)."""
    if parsed.comma_ambiguous and hint == "decimal":
        parsed = parse_numeric(column, max_bad=0, comma_hint=hint)
    if parsed.n_present and parsed.n_bad == 0 and parsed.n_bool == parsed.n_numbers:
        gaps = np.isnan(parsed.values)
        truth = parsed.values == 1.0
        if gaps.any():
            return pd.Series(pd.arrays.BooleanArray(truth, gaps))
        return truth
    if parsed.n_present and parsed.n_bad == 0:
        _record_number_reading(parsed, label, readings)
        return _numbers_column(parsed.values)
    if factorized is not None or pd.api.types.infer_dtype(column, skipna=True) == "string":
        return _texts_column(column, label, readings, factorized)
    return _mixed_column(column, label, readings)


def _record_number_reading(parsed: Any, label: str, readings: _Readings) -> None:
    """Note how the commas and percent signs of a numeric column were read."""
    if parsed.comma == "decimal":
        readings.decimal_comma.append(label)
    elif parsed.comma == "thousands":
        readings.thousands.append(label)
    if parsed.comma_ambiguous:
        readings.ambiguous.append(label)
    if parsed.n_percent:
        readings.percent.append(label)


def _numbers_column(values: np.ndarray) -> np.ndarray:
    """``int64`` if every value is a whole number that float64 holds exactly, else float64."""
    finite = values[np.isfinite(values)]
    if (
        not np.isnan(values).any()
        and len(finite) == len(values)
        and np.all(np.mod(finite, 1) == 0)
        and np.all(np.abs(finite) < 2**53)
    ):
        return values.astype(np.int64)
    return values


def _texts_column(
    column: pd.Series, label: str, readings: _Readings, factorized: Any = None
) -> pd.Series:
    """A column whose cells are all texts (a text file): :func:`_mixed_column`, vectorised.

    A long column of few distinct texts (a label) is cleaned once per distinct text
    (``factorized``: its :func:`slb.tables.distinct.factorize_texts`, if known) and spread
    back with a take of its codes.
    """
    if factorized is None and len(column) >= 2000:
        factorized = factorize_texts(column.to_numpy(dtype=object))
    if factorized is not None:
        codes, uniques = factorized
        cleaned = _texts_column(
            pd.Series(np.append(uniques, None), dtype=object), label, _Readings()
        )
        if isinstance(cleaned.dtype, pd.DatetimeTZDtype) or cleaned.dtype.kind == "M":
            readings.dates.append(label)
        # code -1 takes the added None (the last element)
        return pd.Series(cleaned.array.take(np.where(codes < 0, len(uniques), codes)))
    stripped = column.astype(object).str.strip()
    missing = column.isna().to_numpy() | stripped.str.lower().isin(MISSING_TOKENS).to_numpy()
    stripped = stripped.where(~missing, None)
    present_texts = stripped[~missing]
    if len(present_texts) and present_texts.str.fullmatch(_ISO_DATE_RE).all():
        try:
            dates = pd.Series(pd.to_datetime(stripped.reset_index(drop=True)))
        except (ValueError, TypeError, OverflowError):
            pass
        else:
            readings.dates.append(label)
            return dates
    return stripped.reset_index(drop=True).astype(_text_dtype())


def _mixed_column(column: pd.Series, label: str, readings: _Readings) -> pd.Series:
    """A column of cells of several types (an Excel sheet): dates or text."""
    cells = []
    for v in column.to_numpy(dtype=object):
        if v is None or (isinstance(v, float) and math.isnan(v)):
            cells.append(None)
        elif isinstance(v, str):
            s = v.strip()
            cells.append(None if s.lower() in MISSING_TOKENS else s)
        else:
            cells.append(v)
    present = [c for c in cells if c is not None]
    if (
        present
        and all(isinstance(c, str) for c in present)
        and pd.Series(present, dtype=object).str.fullmatch(_ISO_DATE_RE).all()
    ):
        dates = _to_dates(cells)
        if dates is not None:
            readings.dates.append(label)
            return dates
    if present and all(
        isinstance(c, (pd.Timestamp, np.datetime64)) or hasattr(c, "isoformat") for c in present
    ):
        dates = _to_dates(cells)
        if dates is not None:
            return dates
    return pd.Series([None if c is None else str(c) for c in cells], dtype=object).astype(
        _text_dtype()
    )


def _to_dates(cells: list[Any]) -> pd.Series | None:
    """The cells as a datetime column, or None if pandas cannot read them as dates."""
    try:
        return pd.Series(pd.to_datetime(pd.Series(cells, dtype=object)))
    except (ValueError, TypeError, OverflowError):
        return None


def _conversion_notes(readings: _Readings, hint: str | None) -> list[str]:
    """The notes on decimal commas, thousands separators, percentages and dates."""
    notes = []
    if readings.decimal_comma:
        notes.append(
            "Numbers with a decimal comma (such as 1,5) were read as numbers in "
            f"{_names(readings.decimal_comma)}."
        )
    if readings.thousands:
        notes.append(
            f"Commas in {_names(readings.thousands)} were read as thousands separators "
            "(1,500 = 1500)."
        )
    if readings.ambiguous:
        notes.append(
            f"In {_names(readings.ambiguous)} every comma is followed by exactly three digits, "
            "so it could be a decimal comma or a thousands separator; "
            + (
                "it was read like the decimal commas of the rest of the file"
                if hint == "decimal"
                else "it was read as a thousands separator"
            )
            + ". Check these values."
        )
    if readings.percent:
        notes.append(
            f"Percentages in {_names(readings.percent)} were read as fractions (12% = 0.12)."
        )
    dates = readings.dates
    if dates:
        notes.append(
            f"{_names(dates)} {'holds' if len(dates) == 1 else 'hold'} dates (year-month-day) "
            f"and {'was' if len(dates) == 1 else 'were'} read as dates."
        )
    return notes


def _text_dtype() -> Any:
    """pandas' string dtype with NaN for missing cells, or ``object`` on old pandas."""
    try:
        return pd.StringDtype(na_value=np.nan)
    except TypeError:  # pandas < 2.3
        return object


# --------------------------------------------------------------------------------------------
# Column names and empty rows (every format)
# --------------------------------------------------------------------------------------------
def _finish_frame(
    frame: pd.DataFrame, notes: list[str], budget: Budget | None = None
) -> pd.DataFrame:
    """Unique, non-blank string column names; drop fully empty unnamed columns and empty rows.

    The names lose their invisible characters and take Unicode NFKC form; names that still
    look alike get a number suffix (:mod:`slb.tables.names`).
    """
    names = []
    for c in frame.columns:
        if c is None or (isinstance(c, float) and math.isnan(c)):
            names.append("")
        else:
            names.append(str(c).strip())
    tidied = tidy_names(names, notes)
    changed = {j for j, (a, b) in enumerate(zip(names, tidied, strict=True)) if a != b}
    names = tidied
    frame = frame.copy()
    frame.columns = range(frame.shape[1])
    if budget is not None:
        budget.check("reading")
    unnamed = [j for j, n in enumerate(names) if not n]
    empty_unnamed = (
        [j for j, e in zip(unnamed, frame.iloc[:, unnamed].isna().all(axis=0), strict=True) if e]
        if unnamed
        else []
    )
    if empty_unnamed and len(empty_unnamed) < frame.shape[1]:
        frame = frame.drop(columns=empty_unnamed)
        gone = set(empty_unnamed)
        names = [n for j, n in enumerate(names) if j not in gone]
        kept = [j for j in range(len(tidied)) if j not in gone]
        changed = {k for k, j in enumerate(kept) if j in changed}
        notes.append(
            f"{len(empty_unnamed)} empty column{'s' if len(empty_unnamed) > 1 else ''} without a "
            "name (usually from a separator at the end of each line) "
            f"{'were' if len(empty_unnamed) > 1 else 'was'} removed."
        )
    blank = [j for j, n in enumerate(names) if not n]
    for j in blank:
        names[j] = f"column_{j + 1}"
    if blank and len(blank) < len(names):
        notes.append(
            f"{len(blank)} column{'s' if len(blank) > 1 else ''} had no name and "
            f"{'were' if len(blank) > 1 else 'was'} named after {'their' if len(blank) > 1 else 'its'} "
            f"position: {_names([names[j] for j in blank])}."
        )
    frame.columns = unique_names(names, notes, changed)
    if frame.shape[1]:
        empty_rows = frame.isna().all(axis=1).to_numpy()
        if empty_rows.any():
            frame = frame.loc[~empty_rows]
            notes.append(
                f"{int(empty_rows.sum()):,} empty row{'s' if empty_rows.sum() > 1 else ''} "
                f"(every cell blank) {'were' if empty_rows.sum() > 1 else 'was'} removed."
            )
    return frame.reset_index(drop=True)
