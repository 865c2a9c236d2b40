"""Reading Excel workbooks (``.xlsx``/``.xlsm``) safely with openpyxl.

Formulas are never computed and macros never run: the cached cell values are read.  The
archive's unpacked size and each sheet's declared ``<dimension>`` are checked before a sheet
is read, and sheets are streamed (openpyxl's read-only mode) up to :data:`MAX_EXCEL_CELLS`
cell positions.  :func:`_read_excel` chooses the sheet, :func:`_grid_to_frame` finds the table
in it (title rows, header row) and :mod:`slb.tables.cells` types the cells.
"""

from __future__ import annotations

import contextlib
import io as _io
import math
import re
import warnings
import zipfile
from collections import Counter
from typing import Any

import numpy as np
import pandas as pd

from ._messages import _names, _q, _size
from .budget import Budget, TimeLimitExceeded
from .cells import _NO_HEADER_NOTE, _SAMPLE_ROWS, _convert_cells, _drop_junk_rows, _header_is_data
from .limits import (
    DEFAULT_MAX_BYTES,
    EXCEL_EXPANSION_LIMIT,
    MAX_COLUMNS,
    MAX_EXCEL_CELLS,
    MAX_ROWS,
    MAX_UNPACKED_BYTES,
    _limit_cells,
)
from .numbers import parse_numeric
from .result import TableRead
from .tokens import MISSING_TOKENS
from .xlsx_strings import WorkbookRefused, open_workbook

_SHEET_XML_LIMIT = 50 * 1000 * 1000


# --------------------------------------------------------------------------------------------
# Workbook and sheets
# --------------------------------------------------------------------------------------------
def _open_workbook(data: bytes, name: str, max_bytes: int | None, budget: Budget | None = None):
    """The workbook in read-only mode, once its unpacked size is known to be within limits.

    Opened by :func:`slb.tables.xlsx_strings.open_workbook` (openpyxl, with the shared strings
    read in bounded time).
    """
    try:
        import openpyxl  # noqa: F401 - checked here for the message
    except ImportError as exc:  # pragma: no cover - openpyxl is a dependency
        raise ValueError("Excel files cannot be read because openpyxl is not installed.") from exc
    limit = min(EXCEL_EXPANSION_LIMIT * (max_bytes or DEFAULT_MAX_BYTES), MAX_UNPACKED_BYTES)
    try:
        with zipfile.ZipFile(_io.BytesIO(data)) as zf:
            # the sizes the archive declares; zipfile also stops reading a member that
            # unpacks to more than it declared, so a lying entry cannot get round this
            total = sum(info.file_size for info in zf.infolist())
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        raise ValueError(
            f"{_q(name, 60)} could not be read as an Excel workbook: the file is damaged or not "
            "an .xlsx file. Open it in Excel or LibreOffice and save it again as .xlsx, or save "
            "it as CSV."
        ) from None
    if total > limit:
        raise ValueError(
            f"{_q(name, 60)} would take {_size(total)} once unpacked, more than the "
            f"{_size(limit)} allowed. Please upload a smaller workbook or a CSV file."
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return open_workbook(data, name, budget)
        except WorkbookRefused as exc:  # our own message (too many texts, out of time)
            raise ValueError(str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - openpyxl raises many kinds of errors
            raise ValueError(
                f"{_q(name, 60)} could not be read as an Excel workbook ({type(exc).__name__}). "
                "Open it in Excel or LibreOffice and save it again as .xlsx, or save it as CSV."
            ) from None


def _check_dimension(ws, name: str) -> None:
    """Refuse a sheet whose declared size (``<dimension ref="A1:T1000121"/>``) is too large."""
    rows, cols = ws.max_row, ws.max_column
    if rows is None or cols is None:
        return
    if rows * cols > MAX_EXCEL_CELLS or rows > MAX_ROWS or cols > MAX_COLUMNS:
        raise ValueError(
            f"The sheet {_q(ws.title)} of {_q(name, 60)} declares {rows:,} rows and {cols:,} "
            f"columns ({rows * cols:,} cells, counting empty cells that only carry formatting), "
            f"more than the {MAX_EXCEL_CELLS:,} cells this tool reads from a workbook. Delete the "
            "unused rows and columns in Excel (select them, right-click, Delete), or save the "
            "table as CSV and upload that."
        )


def _too_many_cells(ws, name: str, after: str) -> ValueError:
    """The error for a sheet that holds more than MAX_EXCEL_CELLS cell positions."""
    return ValueError(
        f"The sheet {_q(ws.title)} of {_q(name, 60)} holds more than {MAX_EXCEL_CELLS:,} "
        f"cells ({after}; empty cells that only carry formatting count "
        "too), more than this tool reads from a workbook. Delete the unused rows and "
        "columns in Excel, or save the table as CSV and upload that."
    )


def _count_cells(data: bytes, ws, limit: int, budget: Budget | None) -> tuple[int, int]:
    """Lower bounds of the cells and rows a worksheet's XML holds, counted without parsing.

    The member is unpacked in chunks (never more than its declared size) and its ``<c`` and
    ``<row`` tags counted, stopping once either passes ``limit``: a sheet whose
    ``<dimension>`` claims A1:B2 but holds 400,000 rows is refused in a fraction of a second
    instead of being streamed cell by cell.  Returns ``(0, 0)`` if the member cannot be read
    (openpyxl's own stream, with its cap, then decides).
    """
    path = getattr(ws, "_worksheet_path", None)
    if not path or data is None:
        return 0, 0
    cells = rows = 0
    tail = b""
    # the read-only workbook's open archive: opening the ZIP again for each of 3,000 sheets
    # re-read its directory each time (quadratic)
    archive = getattr(getattr(ws, "parent", None), "_archive", None)
    try:
        with contextlib.ExitStack() as stack:
            zf = archive
            if not isinstance(zf, zipfile.ZipFile):
                zf = stack.enter_context(zipfile.ZipFile(_io.BytesIO(data)))
            info = zf.getinfo(path.lstrip("/"))
            with zf.open(info) as member:
                while True:
                    chunk = member.read(1 << 22)
                    if not chunk:
                        break
                    block = tail + chunk
                    # tags cut by the chunk boundary are in the next block's tail
                    cells += block.count(b"<c ") + block.count(b"<c>") + block.count(b"<c/>")
                    rows += block.count(b"<row ") + block.count(b"<row>")
                    tail = block[-5:]
                    cells -= tail.count(b"<c ") + tail.count(b"<c>") + tail.count(b"<c/>")
                    rows -= tail.count(b"<row ") + tail.count(b"<row>")
                    if cells > limit or rows > limit:
                        break
                    if budget is not None:
                        budget.check("reading")
    except (KeyError, zipfile.BadZipFile, OSError, ValueError, EOFError, RuntimeError) as exc:
        if isinstance(exc, TimeLimitExceeded):
            raise
        return 0, 0
    return cells, rows


def _sheet_rows(
    ws, name: str, data: bytes | None = None, budget: Budget | None = None
) -> list[list[Any]]:
    """The values of a sheet, streamed, with trailing blanks removed.

    The declared dimension has been checked, and the cells of the sheet's XML counted
    (:func:`_count_cells`); the dimension is then ignored (``reset_dimensions``) so
    that openpyxl neither pads rows to a made-up width nor cuts rows beyond a dimension that
    is too small, and the stream stops after :data:`MAX_EXCEL_CELLS` cell positions whatever the
    dimension said.  ``budget`` is checked every few thousand rows.
    """
    _check_dimension(ws, name)
    cells, n_rows = _count_cells(data, ws, MAX_EXCEL_CELLS, budget)
    if cells > MAX_EXCEL_CELLS or n_rows > MAX_EXCEL_CELLS:
        raise _too_many_cells(ws, name, f"{max(cells, n_rows):,} or more, counted before reading")
    ws.reset_dimensions()
    rows: list[list[Any]] = []
    positions = 0
    for row in ws.iter_rows(values_only=True):
        positions += max(1, len(row))
        if positions > MAX_EXCEL_CELLS:
            raise _too_many_cells(ws, name, f"after {len(rows):,} rows")
        if budget is not None and len(rows) % 2000 == 0:
            budget.check("reading")
        values = list(row)
        while values and (
            values[-1] is None or (isinstance(values[-1], str) and not values[-1].strip())
        ):
            values.pop()
        rows.append(values)
    while rows and not rows[-1]:
        rows.pop()
    return rows


def _sheet_xml(data: bytes, ws) -> bytes:
    """The XML of a worksheet (empty if it is too large to scan cheaply or unreadable)."""
    path = getattr(ws, "_worksheet_path", None)
    if not path:
        return b""
    try:
        with zipfile.ZipFile(_io.BytesIO(data)) as zf:
            info = zf.getinfo(path.lstrip("/"))
            if info.file_size > _SHEET_XML_LIMIT:
                return b""
            return zf.read(info)
    except (KeyError, zipfile.BadZipFile, OSError, ValueError, EOFError):
        return b""


def _unsaved_formulas(xml: bytes) -> int:
    """Cells that hold a formula but no saved (cached) value.

    Linear scan (a regular expression over ``<c ...>...</c>`` would backtrack across the many
    self-closing empty cells of a formatted sheet): each piece before a ``</c>`` ends with the
    body of one cell, which starts at the last ``<c`` of the piece.
    """
    if b"<f" not in xml:
        return 0
    count = 0
    for piece in xml.split(b"</c>")[:-1]:
        start = max(piece.rfind(b"<c "), piece.rfind(b"<c>"))
        body = piece[start:]
        if b"<f" in body and not re.search(rb"<v>[^<]", body):
            count += 1
    return count


def _merged_title_rows(xml: bytes) -> set[int]:
    """0-based rows where a merged range spanning several columns starts."""
    out: set[int] = set()
    for a_col, a_row, b_col, _ in re.findall(rb'<mergeCell ref="([A-Z]+)(\d+):([A-Z]+)(\d+)"', xml):
        if a_col != b_col:
            out.add(int(a_row) - 1)
    return out


def _column_number(letters: bytes) -> int:
    """0-based column of Excel letters (b'A' -> 0, b'AA' -> 26)."""
    n = 0
    for ch in letters:
        n = n * 26 + (ch - 64)
    return n - 1


def _merged_ranges(xml: bytes) -> list[tuple[int, int, int, int]]:
    """The merged ranges of a sheet as 0-based (first row, first column, last row, last column)."""
    return [
        (int(r0) - 1, _column_number(c0), int(r1) - 1, _column_number(c1))
        for c0, r0, c1, r1 in re.findall(
            rb'<mergeCell ref="([A-Z]{1,3})(\d{1,7}):([A-Z]{1,3})(\d{1,7})"', xml
        )[:10_000]
    ]


def _two_row_header(
    rows: list[list[Any]], header: int, merged: list[tuple[int, int, int, int]] | None
) -> list[Any] | None:
    """The column names of a header that spans two rows over merged group titles, or None.

    A sheet such as::

        | label | Group of features      |
        |       | f1    | f2    | f3     |
        | yes   | 1.2   | 3.4   | 5.6    |

    has group titles merged across several columns in its first header row and the real
    names in the second.  The names are taken from the second row, and from the first where
    the second is blank (a name merged down over both rows, such as "label").
    """
    if not merged or header + 2 >= len(rows):
        return None
    across = [m for m in merged if m[0] == header and m[2] == header and m[3] > m[1]]
    if not across:
        return None
    second = rows[header + 1]
    names = [v for v in second if not _is_blank(v)]
    if len(names) < 2 or not all(isinstance(v, str) for v in names):
        return None
    if any(parse_numeric([v]).n_numbers for v in names):
        return None  # the second row holds numbers: it is data, not names
    # every column under a merged group title must have its own name in the second row
    for _, c0, _, c1 in across:
        if any(c >= len(second) or _is_blank(second[c]) for c in range(c0, c1 + 1)):
            return None
    first = rows[header]
    width = max(len(first), len(second))
    return [
        second[j]
        if j < len(second) and not _is_blank(second[j])
        else (first[j] if j < len(first) else None)
        for j in range(width)
    ]


# --------------------------------------------------------------------------------------------
# Choosing the sheet
# --------------------------------------------------------------------------------------------
def _first_filled_sheet(
    worksheets: list,
    hidden: list[int],
    name: str,
    notes: list[str],
    data: bytes | None = None,
    budget: Budget | None = None,
) -> tuple[int, list[list[Any]]]:
    """The first visible sheet that is not empty (or the first visible one) and its rows.

    When every sheet is hidden, the first non-empty one (hidden sheets are still read).
    """
    titles = [ws.title for ws in worksheets]
    order = [k for k in range(len(worksheets)) if k not in hidden] or list(range(len(worksheets)))
    chosen = order[0]
    rows = _sheet_rows(worksheets[chosen], name, data, budget)
    if not any(rows):
        for k in order[1:]:
            rows_k = _sheet_rows(worksheets[k], name, data, budget)
            if any(rows_k):
                notes.append(
                    f"The first sheet, {_q(titles[chosen])}, is empty, so the sheet "
                    f"{_q(titles[k])} was read."
                )
                return k, rows_k
    return chosen, rows


def _sheet_index(sheet: str | int, titles: list[str], name: str) -> int:
    """The position of the sheet asked for, by 0-based number or by name."""
    if isinstance(sheet, (int, np.integer)) and not isinstance(sheet, bool):
        if not 0 <= int(sheet) < len(titles):
            raise ValueError(
                f"The workbook has {len(titles)} sheet(s) ({_names(titles)}); there is "
                f"no sheet number {int(sheet) + 1}."
            )
        return int(sheet)
    if str(sheet) in titles:
        return titles.index(str(sheet))
    raise ValueError(
        f"There is no sheet named {_q(sheet)} in {_q(name, 60)}. Its sheets are "
        f"{_names(titles, limit=20)}."
    )


def _sheet_notes(
    titles: list[str], hidden: list[int], chosen: int, asked: bool = True
) -> list[str]:
    """Notes on the other sheets of the workbook and on hidden sheets.

    ``asked``: the sheet was chosen by the caller (not picked by default).
    """
    notes = []
    if len(titles) > 1:
        notes.append(
            f"The workbook has {len(titles)} sheets ({_names(titles)}); the sheet "
            f"{_q(titles[chosen])} was read. Choose another sheet to read it instead."
        )
    if hidden and len(hidden) == len(titles) and not asked:
        notes.append(
            (
                "Every sheet of the workbook is hidden in Excel"
                if len(titles) > 1
                else f"The only sheet, {_q(titles[chosen])}, is hidden in Excel"
            )
            + (
                f"; the first one with data, {_q(titles[chosen])}, was read anyway"
                if len(titles) > 1
                else "; it was read anyway"
            )
            + ". Check that it is the table you meant to upload."
        )
    elif hidden:
        shown = [titles[k] for k in hidden]
        notes.append(
            f"The sheet{'s' if len(shown) > 1 else ''} {_names(shown)} "
            f"{'are' if len(shown) > 1 else 'is'} hidden in Excel"
            + (" and was read because it was chosen" if chosen in hidden else " and not read")
            + "."
        )
    return notes


def _formula_hint(title: str, unsaved: int) -> str:
    """The message about cells with formulas but no saved values."""
    return (
        f"The sheet {_q(title)} has {unsaved:,} cell{'s' if unsaved > 1 else ''} with "
        "formulas without saved values (the workbook was written by a program that does not "
        "compute formulas), and this tool never computes formulas. Open the file in Excel or "
        "LibreOffice and save it (this stores the values), or export the sheet as CSV."
    )


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------
def _read_excel(
    data: bytes,
    name: str,
    sheet: str | int | None,
    max_bytes: int | None,
    budget: Budget | None = None,
) -> TableRead:
    """Read one sheet of a workbook: choose it, find the table in it, type the cells.

    ``budget`` (:class:`slb.tables.budget.Budget`) is checked while the sheet is counted,
    streamed and typed.
    """
    notes: list[str] = []
    wb = _open_workbook(data, name, max_bytes, budget)
    try:
        worksheets = list(wb.worksheets)
        titles = [ws.title for ws in worksheets]
        if not worksheets:
            raise ValueError(f"{_q(name, 60)} has no worksheets.")
        hidden = [k for k, ws in enumerate(worksheets) if ws.sheet_state != "visible"]
        if sheet is None:
            chosen, rows = _first_filled_sheet(worksheets, hidden, name, notes, data, budget)
        else:
            chosen = _sheet_index(sheet, titles, name)
            rows = _sheet_rows(worksheets[chosen], name, data, budget)
        xml = _sheet_xml(data, worksheets[chosen])
    finally:
        wb.close()
    notes.extend(_sheet_notes(titles, hidden, chosen, asked=sheet is not None))
    unsaved = _unsaved_formulas(xml) if xml else 0
    formula_hint = _formula_hint(titles[chosen], unsaved)
    if not any(rows):
        if unsaved:
            raise ValueError(formula_hint)
        raise ValueError(
            f"The sheet {_q(titles[chosen])} of {_q(name, 60)} is empty."
            + (" Choose another sheet." if len(titles) > 1 else "")
        )
    if budget is not None:
        budget.check("reading")
    frame, header_row = _grid_to_frame(
        rows, titles[chosen], notes, _merged_title_rows(xml), _merged_ranges(xml)
    )
    if unsaved:
        if frame.dropna(how="all").empty:
            raise ValueError(formula_hint)
        notes.append(formula_hint.replace(", and this tool", "; they are missing, as this tool"))
    if header_row is not None:
        frame = _drop_junk_rows(frame, notes, "sheet row", header_row + 1, budget)
    frame = _convert_cells(frame, notes, budget=budget)
    return TableRead(
        frame=frame,
        notes=notes,
        sheets=titles,
        sheet=titles[chosen],
        header_row=header_row,
        format="excel",
    )


def _is_blank(v: Any) -> bool:
    """True for an empty cell or one holding only spaces."""
    return v is None or (isinstance(v, str) and not v.strip())


def _find_header(
    rows: list[list[Any]], sheet: str, merged_rows: set[int] | None
) -> tuple[int, int, set[int]]:
    """The 0-based header row, the table's usual width and the title rows over merged cells."""
    cache: dict[int, int] = {}

    def filled(k: int) -> int:  # counted only for the rows looked at (not 500,000 rows)
        if k not in cache:
            cache[k] = sum(1 for v in rows[k] if not _is_blank(v))
        return cache[k]

    # a title: one filled cell over a merged range (e.g. "Blood tests" across A1:D1)
    titles = {k for k in (merged_rows or set()) if k < len(rows) and filled(k) == 1}
    widths = [len(r) for r in rows]
    nonblank = [k for k, r in enumerate(rows) if r and not all(_is_blank(v) for v in r)]
    tally = Counter(widths[k] for k in nonblank[: _SAMPLE_ROWS * 2])
    width = max(tally, key=lambda w: (tally[w], w))
    need = max(2, math.ceil(width / 2)) if width >= 3 else 1
    header = next(
        (
            k
            for k in nonblank
            if widths[k] >= min(width, 2) and k not in titles and filled(k) >= need
        ),
        None,
    )
    if header is None or width < 2:
        raise ValueError(
            f"The sheet {_q(sheet)} does not contain a table with at least two columns (a label "
            "and a feature)."
        )
    return header, width, titles


def _rows_above_note(rows: list[list[Any]], header: int, titles: set[int]) -> str:
    """The note on the rows skipped above the header row."""
    above = [r for r in rows[:header] if any(not _is_blank(v) for v in r)]
    what = (
        "starting with " + _q(next(str(v) for v in above[0] if not _is_blank(v)), 50)
        if above
        else "blank"
    )
    merged = any(k in titles for k in range(header))
    return (
        f"The table starts at row {header + 1} of the sheet: the {header} row"
        f"{'s' if header > 1 else ''} above it ({what}"
        + (", a title over merged cells" if merged else "")
        + f") {'were' if header > 1 else 'was'} skipped as titles or comments."
    )


def _formula_errors_note(body_rows: list[list[Any]]) -> str | None:
    """The note on cells holding a formula error (#DIV/0!, #N/A, ...), or None."""
    errors = sum(
        1
        for r in body_rows
        for v in r
        if isinstance(v, str) and v.strip().startswith("#") and v.strip().lower() in MISSING_TOKENS
    )
    if not errors:
        return None
    return (
        f"{errors:,} cell{'s' if errors > 1 else ''} held a formula error such as #DIV/0! or "
        f"#N/A; {'they are' if errors > 1 else 'it is'} treated as missing."
    )


def _grid_to_frame(
    rows: list[list[Any]],
    sheet: str,
    notes: list[str],
    merged_rows: set[int] | None = None,
    merged: list[tuple[int, int, int, int]] | None = None,
) -> tuple[pd.DataFrame, int | None]:
    """The table of a sheet's rows (raw cells) and its 1-based header row (None if none).

    A header of two rows over merged group titles (:func:`_two_row_header`) is read as one.
    """
    header, width, titles = _find_header(rows, sheet, merged_rows)
    if header > 0:
        notes.append(_rows_above_note(rows, header, titles))
    combined = _two_row_header(rows, header, merged)
    if combined is not None:
        groups = [
            str(rows[header][c0]).strip()
            for r0, c0, _, c1 in merged or []
            if r0 == header
            and c1 > c0
            and c0 < len(rows[header])
            and not _is_blank(rows[header][c0])
        ]
        notes.append(
            f"The header spans rows {header + 1} and {header + 2} of the sheet: row "
            f"{header + 1} holds titles merged across several columns ({_names(groups)}), "
            f"so the column names were taken from row {header + 2}, and from row "
            f"{header + 1} where row {header + 2} is blank."
        )
        rows = list(rows[:header]) + [combined] + list(rows[header + 2 :])
    ncols = max(len(r) for r in rows[header:]) if rows[header:] else width
    head = [rows[header][j] if j < len(rows[header]) else None for j in range(ncols)]
    head_texts = ["" if _is_blank(h) else str(h).strip() for h in head]
    probe = [list(r) + [None] * (ncols - len(r)) for r in rows[header + 1 : header + 201]]
    has_header = not (probe and _header_is_data(head, pd.DataFrame(probe, dtype=object)))
    body_rows = rows[header + 1 :] if has_header else rows[header:]
    if not has_header:
        notes.append(_NO_HEADER_NOTE.format(where="sheet"))
        head_texts = [""] * ncols
    grid = [r if len(r) == ncols else list(r) + [None] * (ncols - len(r)) for r in body_rows]
    _limit_cells(len(grid), ncols, sheet)
    frame = (
        pd.DataFrame(grid, columns=range(ncols), dtype=object)
        if grid
        else pd.DataFrame({j: pd.Series([], dtype=object) for j in range(ncols)})
    )
    frame.columns = head_texts
    errors_note = _formula_errors_note(body_rows)
    if errors_note:
        notes.append(errors_note)
    return frame, (header + 1 if has_header else None)
