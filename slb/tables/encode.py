"""The feature columns as numbers: numbers stored as text, dates, booleans and categories.

Step 3 of the cleaning (:func:`_convert_features`): every feature column becomes ``float64``
columns.  Numbers, booleans (1/0) and numbers stored as text
(:func:`slb.tables.numbers.parse_numeric`, when at least :data:`NUMERIC_TEXT_FRACTION` of the
filled cells are numbers) stay one column; dates and durations become days; text columns are
dropped or, with ``non_numeric="encode"``, one-hot encoded when they have at most
:data:`MAX_CATEGORIES` categories (one 0/1 column for two categories).  Row numbers and
likely identifiers are set aside.  Each kept column gets a *spec* (:func:`_spec`) saying how to
compute it again from a raw column at predict time (:mod:`slb.tables.apply`), and the notes of
the report are written here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._messages import _join, _n, _names, _q
from .budget import Budget
from .distinct import category_codes
from .numbers import NumericParse, parse_numeric
from .records import Change
from .scalars import _category_text

__all__ = ["MAX_CATEGORIES", "NUMERIC_TEXT_FRACTION"]


#: Largest number of categories a text column may have to be one-hot encoded.
MAX_CATEGORIES = 10


#: Share of filled cells that must be numbers for a text column to count as numeric.
NUMERIC_TEXT_FRACTION = 0.9


@dataclass
class _Features:
    names: list[str] = field(default_factory=list)
    columns: list[np.ndarray] = field(default_factory=list)
    dropped: dict[str, list[str]] = field(default_factory=dict)
    #: per column, how to compute it from a raw column again (:meth:`TableCleaner.transform`)
    specs: list[dict] = field(default_factory=list)

    def add(self, name: str, values: np.ndarray, spec: dict) -> None:
        self.names.append(name)
        self.columns.append(values)
        self.specs.append(spec)

    def drop(self, reason: str, name: str) -> None:
        self.dropped.setdefault(reason, []).append(name)


def _spec(source: str, kind: str, **extra) -> dict:
    """How one cleaned column is computed from the raw column ``source``.

    ``kind`` is ``"number"`` (numbers, booleans, numbers stored as text; ``comma`` says how
    commas were read), ``"date"`` (days since 1970-01-01) or ``"category"`` (the 0/1 indicator
    of ``level`` among the training ``levels``).
    """
    return {"source": source, "kind": kind, "comma": None, "levels": [], "level": "", **extra}


def _categories(values: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Category texts of the non-missing cells; codes array (-1 for missing)."""
    fast = category_codes(values, _category_text)  # long text columns: once per text
    if fast is not None:
        codes, levels = fast
    else:
        codes = np.full(len(values), -1, dtype=np.int64)
        index: dict[str, int] = {}
        for i, v in enumerate(values):
            t = _category_text(v)
            if t is not None:
                codes[i] = index.setdefault(t, len(index))
        levels = list(index)
    if not levels:
        return [], codes
    order = sorted(range(len(levels)), key=lambda k: levels[k])
    remap = np.empty(len(levels), dtype=np.int64)
    remap[order] = np.arange(len(levels))
    codes = np.where(codes >= 0, remap[np.maximum(codes, 0)], -1)
    return [levels[k] for k in order], codes


@dataclass
class _Notes:
    """What the conversion of the feature columns did, for the report."""

    text_numbers: list[tuple[str, NumericParse]] = field(default_factory=list)
    partly: list[tuple[str, NumericParse]] = field(default_factory=list)
    booleans: list[str] = field(default_factory=list)
    encoded: list[tuple[str, list[str], list[str]]] = field(default_factory=list)
    row_numbers: list[str] = field(default_factory=list)
    identifiers: list[tuple[str, str]] = field(default_factory=list)
    dates: list[str] = field(default_factory=list)
    durations: list[str] = field(default_factory=list)


def _convert_features(
    frame: pd.DataFrame,
    positions: list[int],
    names: list[str],
    rows: np.ndarray,
    non_numeric: str,
    report: list[Change],
    keep_identifiers: bool = False,
    budget: Budget | None = None,
) -> _Features:
    """Step 3: the feature columns as numbers (see the module notes), with their report."""
    feats, notes = _Features(), _Notes()
    n_all = len(frame)
    dtypes = list(frame.dtypes)
    plain = [j for j in positions if isinstance(dtypes[j], np.dtype) and dtypes[j].kind in "iuf"]
    block: dict[int, np.ndarray] = {}
    if plain:
        with np.errstate(all="ignore"):
            values = frame.iloc[:, plain].to_numpy(dtype=np.float64)
        block = {j: values[:, k] for k, j in enumerate(plain)}
    for k, j in enumerate(positions):
        if budget is not None and k % 256 == 0:
            budget.check("cleaning")
        if j in block:
            _add_numbers(names[j], block[j], rows, n_all, keep_identifiers, feats, notes)
        else:
            column = frame.iloc[:, j]
            _convert_column(column, names[j], rows, non_numeric, keep_identifiers, feats, notes)
    _report_set_aside(notes, report)
    _report_converted(notes, report)
    _report_categories(notes, feats, non_numeric, report)
    return feats


def _add_numbers(
    name: str,
    values: np.ndarray,
    rows: np.ndarray,
    n_all: int,
    keep_identifiers: bool,
    feats: _Features,
    notes: _Notes,
) -> None:
    """A numeric column (all rows of the file): row numbers and identifiers are set aside."""
    if n_all >= 10 and _is_row_number(values):
        notes.row_numbers.append(name)
    elif not keep_identifiers and (why := _identifier_reason(name, values)):
        notes.identifiers.append((name, why))
        feats.drop("identifier", name)
    else:
        feats.add(name, values[rows], _spec(name, "number"))


def _convert_column(
    series: pd.Series,
    name: str,
    rows: np.ndarray,
    non_numeric: str,
    keep_identifiers: bool,
    feats: _Features,
    notes: _Notes,
) -> None:
    """One feature column that is not a plain numpy number column."""
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)[rows]
        feats.add(name, values, _spec(name, "number"))
        notes.booleans.append(name)
    elif pd.api.types.is_datetime64_any_dtype(dtype) or pd.api.types.is_timedelta64_dtype(dtype):
        feats.add(name, _days(series)[rows], _spec(name, "date"))
        # durations (Parquet's duration type, pandas' timedelta) are not dates
        (notes.durations if pd.api.types.is_timedelta64_dtype(dtype) else notes.dates).append(name)
    elif isinstance(dtype, (pd.PeriodDtype, pd.IntervalDtype)):
        feats.drop("datetime", name)
    elif pd.api.types.is_complex_dtype(dtype):
        feats.drop("text", name)
    elif pd.api.types.is_numeric_dtype(dtype) and not isinstance(dtype, pd.CategoricalDtype):
        with np.errstate(all="ignore"):
            values = series.to_numpy(dtype=np.float64, na_value=np.nan)
        _add_numbers(name, values, rows, len(series), keep_identifiers, feats, notes)
    else:
        _convert_text(series, name, rows, non_numeric, feats, notes)


def _convert_text(
    series: pd.Series,
    name: str,
    rows: np.ndarray,
    non_numeric: str,
    feats: _Features,
    notes: _Notes,
) -> None:
    """A text column: numbers stored as text, else categories (encoded or dropped)."""
    raw = series.to_numpy(dtype=object)[rows]
    parsed = parse_numeric(
        # the Series only where its Arrow fast path pays (a take per column costs on 9,000)
        series.iloc[rows]
        if isinstance(series.dtype, pd.StringDtype) and len(rows) >= 2000
        else raw,
        max_bad=int((1 - NUMERIC_TEXT_FRACTION) * len(raw)),
    )
    if parsed.n_present == 0:
        feats.add(name, parsed.values, _spec(name, "number"))  # all missing: dropped later
        return
    if parsed.fraction >= NUMERIC_TEXT_FRACTION:
        if parsed.n_bool == parsed.n_numbers:
            notes.booleans.append(name)
        elif parsed.n_text:
            notes.text_numbers.append((name, parsed))
        if parsed.n_bad:
            notes.partly.append((name, parsed))
        feats.add(name, parsed.values, _spec(name, "number", comma=parsed.comma))
        return
    if non_numeric == "drop":
        feats.drop("text", name)
        return
    _encode_categories(name, raw, feats, notes)


def _encode_categories(name: str, raw: np.ndarray, feats: _Features, notes: _Notes) -> None:
    """One-hot 0/1 columns of a text column's categories (one column for two categories)."""
    # Not OneHotEncoder(max_categories=10, drop="if_binary"): measured, it makes a missing cell a
    # category ('x_None', not NaN), names columns 'x_a' (not 'x=a') and merges rare levels into
    # 'x_infrequent_sklearn' where a column of more than MAX_CATEGORIES levels is dropped here.
    levels, codes = _categories(raw)
    if len(levels) <= 1:
        feats.add(  # constant or empty: dropped later
            name,
            np.where(codes >= 0, 0.0, np.nan),
            _spec(name, "category", levels=levels, level=levels[0] if levels else ""),
        )
        return
    if len(levels) > MAX_CATEGORIES:
        feats.drop("many_categories", name)
        return
    used = levels[1:] if len(levels) == 2 else levels
    new_names = []
    for level in used:
        k = levels.index(level)
        indicator = np.where(codes < 0, np.nan, (codes == k).astype(np.float64))
        new_name = f"{name}={level}"
        feats.add(new_name, indicator, _spec(name, "category", levels=levels, level=level))
        new_names.append(new_name)
    notes.encoded.append((name, levels, new_names))


def _report_set_aside(notes: _Notes, report: list[Change]) -> None:
    """Notes on row-number and identifier columns."""
    row_numbers, identifiers = notes.row_numbers, notes.identifiers
    if row_numbers:
        report.append(
            Change(
                "dropped_row_numbers",
                f"{_names(row_numbers)} {'is' if len(row_numbers) == 1 else 'are'} just the row "
                "numbers (0, 1, 2, ... or 1, 2, 3, ...), probably an index saved with the table, "
                f"and {'was' if len(row_numbers) == 1 else 'were'} not used as a feature.",
                columns=tuple(row_numbers),
                count=len(row_numbers),
            )
        )
    if identifiers:
        cols = [n for n, _ in identifiers]
        whys = {
            "monotone": "all different whole numbers that rise (or fall) down the file",
            "name": "all different whole numbers in a column named like an identifier",
        }
        detail = "; ".join(
            f"{_names([n for n, w in identifiers if w == key])}: {text}"
            for key, text in whys.items()
            if any(w == key for _, w in identifiers)
        )
        report.append(
            Change(
                "dropped_identifiers",
                f"{_n(len(cols), 'column')} ({detail}) {'looks' if len(cols) == 1 else 'look'} "
                "like an identifier (row, sample or patient numbers) and "
                f"{'was not used as a feature' if len(cols) == 1 else 'were not used as features'}"
                ": an identifier tells the rows apart, not the classes, and in a file sorted by "
                "class it would predict the class by its position alone. To use "
                f"{'it' if len(cols) == 1 else 'them'} anyway, choose to keep identifier "
                "columns (keep_identifiers=True).",
                columns=tuple(cols),
                count=len(cols),
                severity="warning",
            )
        )


def _report_converted(notes: _Notes, report: list[Change]) -> None:
    """Notes on dates, booleans and numbers stored as text."""
    dates, booleans = notes.dates, notes.booleans
    text_numbers, partly = notes.text_numbers, notes.partly
    if dates:
        report.append(
            Change(
                "converted_dates",
                f"Dates and times in {_names(dates)} were converted to numbers: days since "
                "1970-01-01 (a time of day is a fraction of a day).",
                columns=tuple(dates),
                count=len(dates),
            )
        )
    if notes.durations:
        report.append(
            Change(
                "converted_durations",
                f"Durations (lengths of time, not dates) in {_names(notes.durations)} were "
                "converted to numbers of days (12 hours -> 0.5).",
                columns=tuple(notes.durations),
                count=len(notes.durations),
            )
        )
    if booleans:
        report.append(
            Change(
                "converted_booleans",
                f"True/False values in {_names(booleans)} were converted to 1/0.",
                columns=tuple(booleans),
                count=len(booleans),
            )
        )
    if text_numbers:
        cells = sum(p.n_text for _, p in text_numbers)
        examples = [f"{_q(s)} -> {x:g}" for _, p in text_numbers for s, x in p.examples][:3]
        commas = sorted({p.comma for _, p in text_numbers if p.comma})
        comma_text = ""
        if "decimal" in commas:
            comma_text = " A comma between digits was read as a decimal comma."
        if "thousands" in commas:
            comma_text += " In some columns commas were read as thousands separators."
        unsure = [n for n, p in text_numbers if p.comma_ambiguous]
        unsure_mode = next((p.comma for _, p in text_numbers if p.comma_ambiguous), None)
        if unsure:
            comma_text += (
                f" In {_names(unsure)} every comma is followed by three digits, so it could be a "
                f"decimal comma or a thousands separator; it was read as a "
                f"{'decimal comma' if unsure_mode == 'decimal' else 'thousands separator'}"
                ": check these values."
            )
        percent = [n for n, p in text_numbers if p.n_percent]
        if percent:
            comma_text += f" Percentages in {_names(percent)} were read as fractions (12% -> 0.12)."
        report.append(
            Change(
                "converted_text_numbers",
                f"{_n(len(text_numbers), 'column')} ({_names([n for n, _ in text_numbers])}) "
                f"stored numbers as text; {_n(cells, 'cell')} were read as numbers"
                + (f" (for example {_join(examples)})" if examples else "")
                + "."
                + comma_text,
                columns=tuple(n for n, _ in text_numbers),
                count=cells,
            )
        )
    for name, parsed in partly:
        report.append(
            Change(
                "unreadable_numbers_missing",
                f"The column {_q(name)} holds numbers, but {_n(parsed.n_bad, 'cell')} could not "
                f"be read as a number ({_names(parsed.bad_values, limit=5)}); "
                f"{'it is' if parsed.n_bad == 1 else 'they are'} treated as missing values.",
                columns=(name,),
                count=parsed.n_bad,
                severity="warning",
            )
        )


def _report_categories(
    notes: _Notes, feats: _Features, non_numeric: str, report: list[Change]
) -> None:
    """Notes on encoded categories and dropped text, many-category and date columns."""
    encoded = notes.encoded
    for name, levels, new_names in encoded:
        if len(levels) == 2:
            how = (
                f"a single 0/1 column {_q(new_names[0])} (1 means {_q(levels[1])}, "
                f"0 means {_q(levels[0])})"
            )
        else:
            how = f"{len(new_names)} 0/1 columns, one per category ({_names(new_names, limit=4)})"
        report.append(
            Change(
                "encoded_categories",
                f"The text column {_q(name)} has {len(levels)} categories "
                f"({_names(levels, limit=6)}) and was turned into {how}.",
                columns=tuple(new_names),
                count=len(new_names),
            )
        )
    if feats.dropped.get("text"):
        cols = feats.dropped["text"]
        hint = (
            " To use text columns with a few categories, choose to encode them "
            "(non_numeric='encode')."
            if non_numeric == "drop"
            else ""
        )
        report.append(
            Change(
                "dropped_text_columns",
                f"{_n(len(cols), 'column')} ({_names(cols)}) "
                f"{'contains' if len(cols) == 1 else 'contain'} text rather than numbers and "
                f"{'was not used as a feature' if len(cols) == 1 else 'were not used as features'}.{hint}",
                columns=tuple(cols),
                count=len(cols),
            )
        )
    if feats.dropped.get("many_categories"):
        cols = feats.dropped["many_categories"]
        report.append(
            Change(
                "dropped_many_categories",
                f"{_n(len(cols), 'text column')} ({_names(cols)}) "
                f"{'has' if len(cols) == 1 else 'have'} more than {MAX_CATEGORIES} different "
                "values, which looks like identifiers or free text rather than categories, and "
                f"{'was not used as a feature' if len(cols) == 1 else 'were not used as features'}.",
                columns=tuple(cols),
                count=len(cols),
            )
        )
    if feats.dropped.get("datetime"):
        cols = feats.dropped["datetime"]
        report.append(
            Change(
                "dropped_datetime_columns",
                f"{_n(len(cols), 'column')} ({_names(cols)}) "
                f"{'holds' if len(cols) == 1 else 'hold'} dates or times and "
                f"{'was not used as a feature' if len(cols) == 1 else 'were not used as features'}.",
                columns=tuple(cols),
                count=len(cols),
            )
        )


def _days(series: pd.Series) -> np.ndarray:
    """Dates as days since 1970-01-01 (time zones: UTC); durations as days; NaT -> NaN."""
    if pd.api.types.is_datetime64_any_dtype(series.dtype):
        if getattr(series.dt, "tz", None) is not None:
            series = series.dt.tz_convert("UTC").dt.tz_localize(None)
        delta = series - pd.Timestamp("1970-01-01")
    else:
        delta = series
    return (delta / pd.Timedelta(days=1)).to_numpy(dtype=np.float64, na_value=np.nan)


def _is_row_number(values: np.ndarray) -> bool:
    n = len(values)
    if not np.all(np.isfinite(values)):
        return False
    start = values[0]
    if start not in (0.0, 1.0):
        return False
    return bool(np.array_equal(values, np.arange(start, start + n, dtype=np.float64)))


# 'code' alone may name a measured category ("code" 1-60 of a test): only 'sample_code',
# 'patient_code', ... (a thing's code) count as identifiers
_ID_NAME_RE = re.compile(
    r"(?:^|_)(?:id|ids|idx|index|key|number|num|nr|no|uid|uuid)(?:_|$)|[a-z0-9]_codes?(?:_|$)"
)


def _identifier_name(name: str) -> bool:
    """True for names like 'id', 'patient_id', 'PatientID', 'sample no', 'Index'."""
    snake = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", str(name)).replace("ID", "_id")
    snake = re.sub(r"[^0-9a-z]+", "_", snake.lower()).strip("_")
    return bool(_ID_NAME_RE.search(snake))


def _identifier_reason(name: str, values: np.ndarray) -> str | None:
    """Why a numeric column looks like an identifier (row ids, patient numbers), or None.

    ``values`` are the column's values over all rows of the file, in file order.
    """
    n = len(values)
    if n < 10 or not np.all(np.isfinite(values)) or not np.all(np.mod(values, 1) == 0):
        return None
    if len(np.unique(values)) != n:
        return None
    steps = np.diff(values)
    up = float(np.mean(steps > 0))
    if max(up, 1.0 - up) >= 0.95:
        return "monotone"
    if _identifier_name(name):
        return "name"
    return None


def _no_features_error(feats: _Features, extra: dict[str, list[str]] | None = None) -> ValueError:
    reasons = {
        "text": "contain text",
        "many_categories": "have too many different text values",
        "datetime": "hold dates or times",
        "empty": "are empty",
        "mostly_missing": "are mostly empty",
        "constant": "have the same value in every row",
        "duplicate": "repeat another column",
        "row_numbers": "are row numbers",
        "identifier": "look like identifiers",
    }
    parts = []
    dropped = {**feats.dropped, **(extra or {})}
    for key, cols in dropped.items():
        if cols:
            parts.append(f"{_names(cols, limit=5)} ({reasons.get(key, key)})")
    detail = (" Columns set aside: " + "; ".join(parts) + ".") if parts else ""
    hint = ""
    if feats.dropped.get("text"):
        hint = (
            " If some text columns hold a few categories, choose to encode them "
            "(non_numeric='encode')."
        )
    return ValueError(
        "No usable feature column is left: a classifier needs at least one column of numbers "
        f"besides the label.{detail}{hint}"
    )
