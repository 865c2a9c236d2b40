"""Helpers that write the plain-language messages of :mod:`slb.tables.read` and the cleaning.

Every error and note of the readers and of the cleaning (:mod:`slb.tables.clean`) quotes file
names, column names and cell values through :func:`_q` (control characters removed, long texts
cut), lists names with :func:`_names`, counts with :func:`_n`, rows with :func:`_row_list` and
sizes with :func:`_size`, so that all messages read alike.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

_SUPPORTED_TEXT = (
    "CSV or other delimited text (.csv, .tsv, .txt, .tab, .dat, .data), Excel (.xlsx, .xlsm) "
    "or Parquet (.parquet)"
)
#: Control characters, removed from quoted values (a message is one line of plain text).
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f-\x9f]+")


def _size(n: float) -> str:
    """Human-readable size in SI units (1 MB = 1,000,000 bytes, as the browser's uploader)."""
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}".replace(".0 ", " ")
        n /= 1000
    return f"{n:,.1f} GB"  # pragma: no cover


def _q(value: Any, limit: int = 40) -> str:
    """``value`` in single quotes, without control characters, cut to ``limit`` characters."""
    text = _CONTROL_RE.sub(" ", str(value))
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f"'{text}'"


def _join(items: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _names(names: Sequence[Any], limit: int = 8) -> str:
    """The quoted names, at most ``limit`` of them, then how many more."""
    names = list(names)
    shown = [_q(n) for n in names[:limit]]
    if len(names) > limit:
        shown.append(f"{len(names) - limit:,} more")
    return _join(shown)


def _n(count: int, word: str, plural: str | None = None) -> str:
    """'1 row', '2 rows', '1,234 cells' (``plural`` for irregular words)."""
    return f"{count:,} {word if count == 1 else (plural or word + 's')}"


def _row_list(positions: Sequence[int], limit: int = 5) -> str:
    """The file's data rows as a spreadsheet numbers them, from 1, and saying so (the
    dashboard's tables count the prepared rows from 0; H35), e.g. 'data rows 3, 8 and 12 more
    of the file, counting from 1'."""
    positions = list(positions)
    shown = [f"{p + 1:,}" for p in positions[:limit]]
    if len(positions) > limit:
        shown.append(f"{len(positions) - limit:,} more")
    rows = "data row " if len(positions) == 1 else "data rows "
    return rows + _join(shown) + " of the file, counting from 1"


def _not_a_table(filename: str, what: str, extra: str = "") -> ValueError:
    """The error for a file that is something else (``what``) than a table."""
    return ValueError(
        f"{_q(filename, 60)} is {what}, not a table.{extra} Please upload {_SUPPORTED_TEXT}."
    )


def _parser_error(name: str, exc: BaseException) -> ValueError:
    """The error for an unexpected exception of a parser (pyarrow, openpyxl, csv, ...)."""
    return ValueError(
        f"{_q(name, 60)} could not be read ({type(exc).__name__}: {_q(str(exc), 120)}). The "
        "file may be damaged: save the table again as CSV (UTF-8) and upload that."
    )
