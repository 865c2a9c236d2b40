"""Safe reading of uploaded tables (CSV/TSV/text, Excel ``.xlsx``, Parquet).

:func:`read_table` turns the raw bytes of an uploaded file into a :class:`pandas.DataFrame`
and a list of plain-text notes describing what it had to work out (encoding, separator,
header position, sheet, ...).  Anything it cannot read raises a :class:`ValueError` whose
message a non-expert can act on.

Safety
------
* Nothing is ever unpickled or evaluated.  Only text, ``.xlsx``/``.xlsm`` (read with openpyxl,
  formulas are never computed, macros never run; the cached cell values are read) and Parquet
  (read with pyarrow, which refuses pickle-based extension types since version 14.0.1) are
  supported; pickle, ``.npy``/``.npz``, HDF5, feather-with-pandas-objects and similar formats
  are rejected by extension.
* The content is checked against the extension: images, PDFs, archives, executables and
  other binary data are recognised by their first bytes and rejected with a clear message.
* Size limits, all checked from what the file declares *before* it is parsed, so that a small
  file cannot expand into gigabytes ("decompression bombs"):

  - ``max_bytes`` for the upload (default :data:`DEFAULT_MAX_BYTES`, the dashboard's
    ``server.maxUploadSize`` of ``.streamlit/config.toml``, :data:`MAX_UPLOAD_MB` megabytes);
  - at most :data:`MAX_COLUMNS` columns, :data:`MAX_ROWS` rows and :data:`MAX_CELLS` cells:
    for text, from a cheap scan (number of lines x number of separators of the header line);
    for Parquet, from the file's metadata (row count, and the uncompressed size of the column
    chunks, at most :data:`MAX_UNPACKED_BYTES`); for Excel, from each sheet's declared
    ``<dimension>`` and the uncompressed sizes of the archive members;
  - while reading, Excel sheets are streamed (openpyxl's read-only mode) and stop after
    :data:`MAX_EXCEL_CELLS` cell positions (empty styled cells included), so a sheet whose
    dimension lies cannot get round the limit; Parquet text columns are read as dictionaries
    and their expanded size is checked before they are expanded.

* Time: reading takes at most ``time_limit`` seconds (default :data:`DEFAULT_TIME_LIMIT`,
  see :mod:`slb.tables.budget`); the readers' costs grow linearly with the file, and the
  deadline, checked while parsing, is the safety net.

  Every error of a parser (pyarrow, openpyxl, zipfile, csv, decoding, memory) ends as a
  ``ValueError`` with a plain message.

Text files
----------
The encoding is UTF-8 (with or without byte-order mark), UTF-16 with byte-order mark (Excel's
"Unicode text") or without one (recognised by its zero bytes at every other position), else
Windows-1252/Latin-1; a file whose lines are partly UTF-8 and partly Windows-1252 is decoded
line by line, each line in its own encoding, with a note.  The separator is chosen among ``,`` ``;`` tab and
``|`` (``csv.Sniffer`` breaks ties), falling back to runs of spaces; it is the one that splits
the most rows into the same number of fields.  Title lines above the table are skipped: the
header is the first row that has the table's number of fields, mostly non-empty, and is
followed by rows of the same shape.  Cells are read as text, missing-value markers
(``""``, ``NA``, ``?``, ``#N/A``, ...) become missing, and columns whose cells are all numbers
become numeric, including numbers written with a decimal comma (``1,5``), thousands separators
(``2,928``: see :func:`slb.tables.numbers.parse_numeric`) or a percent sign (``12%`` -> 0.12).  Columns
of ISO dates (``2024-01-31``, optionally with a time) become dates.  Lines inside the data
that repeat the header row, and "Total"/"Sum" rows, are removed with a note.

Column names
------------
Every format's names lose invisible characters (byte-order marks, zero-width spaces, ...)
and take Unicode NFKC form (full-width letters become ordinary ones); names that still look
alike (a Cyrillic "а" for a Latin "a") or repeat get a number suffix, with a note
(:mod:`slb.tables.names`).  In Excel, a header of two rows under titles merged across
columns ("Group of features" over f1, f2, f3) takes its names from the second row.

Modules
-------
This module detects the file's real kind and dispatches; the readers live beside it:
:mod:`slb.tables.text` (decoding, layout, parsing), :mod:`slb.tables.excel`,
:mod:`slb.tables.parquet`, and :mod:`slb.tables.cells` (header row, junk rows, typed columns,
column names) shared by them, with :mod:`slb.tables.bulk` (wide tables typed at once),
:mod:`slb.tables.names` and :mod:`slb.tables.budget` (the time limit).  The limits are in
:mod:`slb.tables.limits`, the result type in :mod:`slb.tables.result`; every public name is
importable from here.
"""

from __future__ import annotations

import io as _io
import re
import zipfile

from ._messages import _SUPPORTED_TEXT, _not_a_table, _parser_error, _q, _size
from .budget import DEFAULT_TIME_LIMIT, Budget, TimeLimitExceeded, as_budget
from .cells import _finish_frame
from .excel import _open_workbook, _read_excel
from .limits import (
    DEFAULT_MAX_BYTES,
    EXCEL_EXTENSIONS,
    MAX_CELLS,
    MAX_COLUMNS,
    MAX_EXCEL_CELLS,
    MAX_ROWS,
    MAX_UNPACKED_BYTES,
    MAX_UPLOAD_MB,
    SUPPORTED_EXTENSIONS,
    TEXT_EXTENSIONS,
)
from .parquet import _read_parquet
from .result import TableRead
from .text import _read_text

__all__ = [
    "TableRead",
    "read_table",
    "list_excel_sheets",
    "SUPPORTED_EXTENSIONS",
    "DEFAULT_MAX_BYTES",
    "MAX_UPLOAD_MB",
    "MAX_CELLS",
    "MAX_ROWS",
    "MAX_COLUMNS",
    "MAX_EXCEL_CELLS",
    "MAX_UNPACKED_BYTES",
    "DEFAULT_TIME_LIMIT",
    "Budget",
]

# Extensions of files that can run code when opened: named in the refusal.
_UNSAFE_EXTENSIONS = (".pkl", ".pickle", ".joblib", ".npy", ".npz", ".h5", ".hdf5", ".feather")

_SIGNATURES: list[tuple[bytes, str]] = [
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"\x1f\x8b", "a gzip-compressed file"),
    (b"BZh", "a bzip2-compressed file"),
    (b"\xfd7zXZ\x00", "an xz-compressed file"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old-style Microsoft Office file (.xls/.doc)"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\x7fELF", "a program (executable)"),
    (b"\x93NUMPY", "a NumPy array file"),
    (b"\x89HDF\r\n\x1a\n", "an HDF5 file"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"ARROW1", "an Arrow/Feather file"),
]


# --------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------
def read_table(
    data: bytes,
    filename: str,
    *,
    sheet: str | int | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    time_limit: float | None | Budget = DEFAULT_TIME_LIMIT,
) -> TableRead:
    """Read an uploaded table safely.

    Parameters
    ----------
    data : bytes
        The raw content of the file.
    filename : str
        The file's name; its extension chooses the reader (see
        :data:`SUPPORTED_EXTENSIONS`).  Only used for that and in messages.
    sheet : str or int, optional
        Excel only: the worksheet to read, by name or 0-based position.  Default: the first
        visible (not hidden) worksheet that is not empty; hidden sheets are named in a note.
    max_bytes : int or None
        Reject files larger than this (default :data:`DEFAULT_MAX_BYTES`); ``None`` for no
        limit.
    time_limit : float, None or slb.tables.budget.Budget
        Seconds the reading may take (default :data:`DEFAULT_TIME_LIMIT`); ``None`` for no
        limit.  The deadline is checked between the steps and every few thousand rows or
        columns while parsing; when it passes, a ``ValueError`` says so.  A
        :class:`~slb.tables.budget.Budget` may be given instead, to share one deadline with
        the cleaning (:func:`slb.tables.clean.prepare_table`).

    Returns
    -------
    TableRead
        The table and notes about how it was read.

    Raises
    ------
    ValueError
        With a plain-language message if the file is empty, too large, of an unsupported
        type, not a table, unreadable, or too slow to read within ``time_limit``.

    Examples
    --------
    >>> from slb.tables import read_table
    >>> read = read_table(b"age,label\\n31,yes\\n45,no\\n", "patients.csv", time_limit=5)
    >>> read.frame.shape
    (2, 2)
    """
    if isinstance(data, (bytearray, memoryview)):
        data = bytes(data)
    if not isinstance(data, bytes):
        raise TypeError(f"read_table expects the file content as bytes, not {type(data).__name__}.")
    name = str(filename or "upload")
    ext = _extension(name)
    _check_extension(name, ext)
    _check_size(data, name, max_bytes)
    budget = as_budget(time_limit, name)
    notes: list[str] = []
    kind = _detect_kind(data, name, ext, notes)
    result = _dispatch(kind, data, name, sheet, max_bytes, notes, budget)
    if result.frame.shape[0] == 0:
        raise ValueError(
            f"{_q(name, 60)} has a header row but no data rows: the table is empty."
            if result.frame.shape[1]
            else f"{_q(name, 60)} contains no table."
        )
    return result


def list_excel_sheets(data: bytes) -> list[str]:
    """Names of the worksheets of an ``.xlsx`` workbook, in order.

    Parameters
    ----------
    data : bytes
        The content of the workbook.

    Returns
    -------
    list of str

    Raises
    ------
    ValueError
        If the bytes are not a readable Excel workbook.

    Examples
    --------
    >>> import io
    >>> import openpyxl
    >>> workbook = openpyxl.Workbook()
    >>> workbook.active.title = "data"
    >>> _ = workbook.create_sheet("notes")
    >>> buffer = io.BytesIO()
    >>> workbook.save(buffer)
    >>> list_excel_sheets(buffer.getvalue())
    ['data', 'notes']
    """
    wb = _open_workbook(data, "workbook", DEFAULT_MAX_BYTES)
    try:
        return [ws.title for ws in wb.worksheets]
    finally:
        wb.close()


# --------------------------------------------------------------------------------------------
# The steps of read_table
# --------------------------------------------------------------------------------------------
def _extension(filename: str) -> str:
    """The lower-case extension of the file's name (with its dot), or ''."""
    name = str(filename or "").strip().lower()
    name = re.split(r"[\\/]", name)[-1]
    return "." + name.rsplit(".", 1)[-1] if "." in name else ""


def _check_extension(name: str, ext: str) -> None:
    """Refuse an extension outside :data:`SUPPORTED_EXTENSIONS`, saying what to do."""
    if ext in SUPPORTED_EXTENSIONS:
        return
    hint = ""
    if ext == ".xls":
        hint = (
            " The old Excel format .xls is not supported: open the file in Excel or "
            "LibreOffice and save it as .xlsx or .csv."
        )
    elif ext == ".ods":
        hint = " OpenDocument spreadsheets are not supported: save the file as .xlsx or .csv."
    elif ext in _UNSAFE_EXTENSIONS:
        hint = " Files of this kind can run code when opened and are never read, for safety."
    raise ValueError(
        f"{_q(name, 60)} has "
        + (f"the extension {_q(ext)}" if ext else "no file extension")
        + f", which is not supported.{hint} Supported files are {_SUPPORTED_TEXT}."
    )


def _check_size(data: bytes, name: str, max_bytes: int | None) -> None:
    """Refuse an empty file and a file larger than ``max_bytes``."""
    if len(data) == 0:
        raise ValueError(f"{_q(name, 60)} is empty (0 bytes): there is no table in it.")
    if max_bytes is not None and len(data) > max_bytes:
        raise ValueError(
            f"{_q(name, 60)} is {_size(len(data))}, larger than the limit of {_size(max_bytes)}. "
            "Please upload a smaller file, for example with fewer rows or columns."
        )


def _detect_kind(data: bytes, name: str, ext: str, notes: list[str]) -> str:
    """'text', 'excel' or 'parquet' from the first bytes, whatever the extension says.

    A workbook or Parquet file under another supported extension is read as what it is, with
    a note; images, archives, documents and other binary data are refused.
    """
    kind = "text" if ext in TEXT_EXTENSIONS else "excel" if ext in EXCEL_EXTENSIONS else "parquet"
    if data[:4] == b"PK\x03\x04" or data[:4] == b"PK\x05\x06":
        return _zip_based_kind(data, name, ext, kind, notes)
    if data[:4] == b"PAR1":
        if kind != "parquet":
            notes.append(
                f"{_q(name, 60)} is a Parquet file although its name ends in {ext}; it was read as Parquet."
            )
        return "parquet"
    what = _sniff_binary(data)
    if what is not None:
        raise _not_a_table(name, what)
    if kind == "excel":
        raise ValueError(
            f"{_q(name, 60)} is not a valid Excel workbook (.xlsx files are ZIP archives, and "
            "this one is not). If it is a CSV file, rename it to .csv; otherwise open it in "
            "Excel or LibreOffice and save it again as .xlsx."
        )
    if kind == "parquet":
        raise ValueError(
            f"{_q(name, 60)} is not a valid Parquet file (it does not start with the Parquet "
            "marker). Upload the original file, or save the table as CSV."
        )
    return kind


def _zip_based_kind(data: bytes, name: str, ext: str, kind: str, notes: list[str]) -> str:
    """The kind of a ZIP-based file: 'excel', or the kind the extension says if damaged."""
    zkind = _zip_kind(data)
    if zkind == "excel":
        if kind != "excel":
            notes.append(
                f"{_q(name, 60)} is an Excel workbook although its name ends in {ext}; "
                "it was read as Excel."
            )
        return "excel"
    if zkind == "ods":
        raise _not_a_table(name, "an OpenDocument spreadsheet", " Save it as .xlsx or .csv first.")
    if zkind == "word":
        raise _not_a_table(name, "a Word document")
    if zkind == "powerpoint":
        raise _not_a_table(name, "a PowerPoint presentation")
    if zkind == "zip":
        raise _not_a_table(name, "a ZIP archive", " Extract it and upload the table inside.")
    if kind == "excel":
        raise ValueError(
            f"{_q(name, 60)} could not be read as an Excel workbook: the file is damaged or "
            "incomplete. Open it in Excel or LibreOffice and save it again as .xlsx, or save it as CSV."
        )
    return kind


def _sniff_binary(data: bytes) -> str | None:
    """Describe the kind of a non-table file from its first bytes, or None."""
    for magic, what in _SIGNATURES:
        if data.startswith(magic):
            return what
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "a WebP image"
    if data[:1] == b"\x80" and len(data) > 1 and 2 <= data[1] <= 5:
        return "a Python pickle file (never opened, for safety)"
    return None


def _zip_kind(data: bytes) -> str:
    """'excel', 'ods', 'word', 'powerpoint', 'zip' or 'broken' for a ZIP-based file."""
    try:
        with zipfile.ZipFile(_io.BytesIO(data)) as zf:
            names = set(zf.namelist())
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return "broken"
    if "xl/workbook.xml" in names or any(n.startswith("xl/") for n in names):
        return "excel"
    if "content.xml" in names and "mimetype" in names:
        return "ods"
    if any(n.startswith("word/") for n in names):
        return "word"
    if any(n.startswith("ppt/") for n in names):
        return "powerpoint"
    return "zip"


def _dispatch(
    kind: str,
    data: bytes,
    name: str,
    sheet: str | int | None,
    max_bytes: int | None,
    notes: list[str],
    budget: Budget | None = None,
) -> TableRead:
    """Run the reader of ``kind`` and tidy its frame; every parser error becomes a ValueError.

    The readers are looked up in this module's namespace at call time (tests replace them).
    """
    try:
        if kind == "excel":
            result = _read_excel(data, name, sheet, max_bytes, budget=budget)
        elif kind == "parquet":
            result = _read_parquet(data, name, budget=budget)
        else:
            result = _read_text(data, name, budget=budget)
        result.notes[:0] = notes
        if budget is not None:
            budget.check("reading")
        result.frame = _finish_frame(result.frame, result.notes, budget)
    except ValueError as exc:
        if type(exc) is ValueError or isinstance(exc, TimeLimitExceeded):
            raise  # our own, plain-language messages
        raise _parser_error(name, exc) from None  # UnicodeDecodeError, ArrowInvalid, ...
    except MemoryError:
        raise ValueError(
            f"{_q(name, 60)} needs more memory to read than this tool has. Please upload a "
            "smaller table (fewer rows or columns)."
        ) from None
    except Exception as exc:  # noqa: BLE001 - any parser error must reach the user as a message
        raise _parser_error(name, exc) from None
    return result
