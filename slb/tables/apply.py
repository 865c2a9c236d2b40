"""Predict-time application of a fitted cleaning to new raw rows.

:meth:`slb.tables.cleaner.TableCleaner.transform` computes each cleaned column of new rows from
its raw column with :func:`_apply_spec`, following the column's *spec* (see
:func:`slb.tables.encode._spec`): numbers read with the training file's comma reading, dates as
days, categories as the 0/1 indicators of the training levels (unknown ones refused or treated
as missing).  Cells that cannot be read become ``NaN`` with a warning; the caller fills them with
the training medians.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ._messages import _n, _names, _q, _row_list
from .encode import _days
from .numbers import parse_numeric
from .scalars import _category_text


def _apply_spec(spec: dict, series: pd.Series, cache: dict, handle_unknown: str) -> np.ndarray:
    """One cleaned column of new rows (NaN where missing), as :meth:`TableCleaner.fit` read it."""
    key = (spec["source"], spec["kind"])
    if key not in cache:
        if spec["kind"] == "number":
            cache[key] = _new_numbers(series, spec["source"], spec["comma"])
        elif spec["kind"] == "date":
            cache[key] = _new_dates(series, spec["source"])
        else:
            cache[key] = _new_categories(series, spec, handle_unknown)
    values = cache[key]
    if spec["kind"] != "category":
        return values
    return np.where(pd.isna(values), np.nan, (values == spec["level"]).astype(np.float64))


def _new_numbers(series: pd.Series, name: str, comma: str | None) -> np.ndarray:
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype) or (
        pd.api.types.is_numeric_dtype(dtype) and not isinstance(dtype, pd.CategoricalDtype)
    ):
        with np.errstate(all="ignore"):
            return series.to_numpy(dtype=np.float64, na_value=np.nan)
    parsed = parse_numeric(series.to_numpy(dtype=object), comma_hint=comma)
    if parsed.n_bad:
        warnings.warn(
            f"{_n(parsed.n_bad, 'cell')} of the column {_q(name)} could not be read as numbers "
            f"({_names(parsed.bad_values, limit=5)}); they are treated as missing and filled "
            "with the training median.",
            UserWarning,
            stacklevel=4,
        )
    return parsed.values


def _new_dates(series: pd.Series, name: str) -> np.ndarray:
    dtype = series.dtype
    if pd.api.types.is_datetime64_any_dtype(dtype) or pd.api.types.is_timedelta64_dtype(dtype):
        return _days(series)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dates = pd.to_datetime(series, errors="coerce", utc=True)
    bad = dates.isna().to_numpy() & ~np.array([_category_text(v) is None for v in series])
    if bad.any():
        warnings.warn(
            f"{_n(int(bad.sum()), 'cell')} of the date column {_q(name)} could not be read as "
            "dates; they are treated as missing and filled with the training median.",
            UserWarning,
            stacklevel=4,
        )
    return _days(dates)


def _new_categories(series: pd.Series, spec: dict, handle_unknown: str) -> np.ndarray:
    """Category texts of new cells (None where missing); unknown ones refused or missing."""
    texts = np.array([_category_text(v) for v in series.to_numpy(dtype=object)], dtype=object)
    known = set(spec["levels"])
    unknown = np.array([t is not None and t not in known for t in texts], dtype=bool)
    if unknown.any():
        if handle_unknown == "error":
            values = list(dict.fromkeys(texts[unknown]))
            raise ValueError(
                f"The column {_q(spec['source'])} holds {_n(len(values), 'category', 'categories')} "
                f"the training rows did not have ({_names(values, limit=5)}, in "
                f"{_row_list(np.flatnonzero(unknown))}). The known categories are "
                f"{_names(spec['levels'], limit=10)}. Fix these cells, or clean with "
                "handle_unknown='impute' to treat unknown categories as missing."
            )
        texts[unknown] = None
    return texts
