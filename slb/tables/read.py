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

  Every error of a parser (pyarrow, openpyxl, zipfile, csv, decoding, memory) ends as a
  ``ValueError`` with a plain message.

Text files
----------
The encoding is UTF-8 (with or without byte-order mark), UTF-16 with byte-order mark (Excel's
"Unicode text") or without one (recognised by its zero bytes at every other position), else
Windows-1252/Latin-1.  The separator is chosen among ``,`` ``;`` tab and
``|`` (``csv.Sniffer`` breaks ties), falling back to runs of spaces; it is the one that splits
the most rows into the same number of fields.  Title lines above the table are skipped: the
header is the first row that has the table's number of fields, mostly non-empty, and is
followed by rows of the same shape.  Cells are read as text, missing-value markers
(``""``, ``NA``, ``?``, ``#N/A``, ...) become missing, and columns whose cells are all numbers
become numeric, including numbers written with a decimal comma (``1,5``), thousands separators
(``2,928``: see :func:`slb.tables.clean.parse_numeric`) or a percent sign (``12%`` -> 0.12).  Columns
of ISO dates (``2024-01-31``, optionally with a time) become dates.  Lines inside the data
that repeat the header row, and "Total"/"Sum" rows, are removed with a note.
"""

from __future__ import annotations

import csv
import io as _io
import math
import re
import warnings
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .clean import MISSING_TOKENS, parse_numeric

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
]

#: Upload size limit in megabytes: the same number as ``server.maxUploadSize`` in the
#: dashboard's ``.streamlit/config.toml`` (a test checks that they agree).
MAX_UPLOAD_MB = 50
#: Default upload size limit, in bytes.  The browser's uploader counts a megabyte as
#: 1,000,000 bytes (1,048,576 on Windows); the smaller reading is used so that the library, the
#: dashboard and every browser refuse the same files.
DEFAULT_MAX_BYTES = MAX_UPLOAD_MB * 1000 * 1000
#: Largest number of cells (rows x columns) read from any file (about 1 GB of memory at most
#: once the cells are text).
MAX_CELLS = 10_000_000
#: Largest number of data rows read from any file.
MAX_ROWS = 1_000_000
#: Largest number of columns read from any file.
MAX_COLUMNS = 10_000
#: Largest number of cell positions streamed from an Excel sheet (empty styled cells count:
#: they cost as much to parse as filled ones).
MAX_EXCEL_CELLS = 500_000
#: Largest uncompressed size of an Excel archive or of the data of a Parquet file.
MAX_UNPACKED_BYTES = 400 * 1000 * 1000
#: Largest uncompressed size of an Excel archive, as a multiple of ``max_bytes`` (the smaller
#: of this and :data:`MAX_UNPACKED_BYTES` applies).
EXCEL_EXPANSION_LIMIT = 20

TEXT_EXTENSIONS = (".csv", ".tsv", ".tab", ".txt", ".dat", ".data")
EXCEL_EXTENSIONS = (".xlsx", ".xlsm")
PARQUET_EXTENSIONS = (".parquet", ".pq")
#: File-name extensions :func:`read_table` accepts.
SUPPORTED_EXTENSIONS = TEXT_EXTENSIONS + EXCEL_EXTENSIONS + PARQUET_EXTENSIONS

_SUPPORTED_TEXT = (
    "CSV or other delimited text (.csv, .tsv, .txt, .tab, .dat, .data), Excel (.xlsx, .xlsm) "
    "or Parquet (.parquet)"
)
_CANDIDATE_DELIMITERS = (",", ";", "\t", "|")
_DELIMITER_NAMES = {
    ",": "commas",
    ";": "semicolons",
    "\t": "tabs",
    "|": "'|' characters",
    " ": "spaces",
}
_SAMPLE_CHARS = 200_000
_SAMPLE_ROWS = 500


@dataclass
class TableRead:
    """The result of :func:`read_table`.

    Attributes
    ----------
    frame : pandas.DataFrame
        The table: unique string column names, a ``RangeIndex``, numeric columns as ``int64``
        or ``float64``, other columns as text (missing cells are ``NaN``).
    notes : list of str
        Plain-text sentences describing what was detected or changed while reading.
    sheets : list of str or None
        For Excel files, the names of all worksheets (the caller may offer a choice);
        ``None`` for other formats.
    encoding : str or None
        The text encoding used (``"utf-8"``, ``"utf-8-sig"``, ``"utf-16"``, ``"cp1252"`` or
        ``"latin-1"``); ``None`` for Excel and Parquet.
    delimiter : str or None
        The field separator of a text file (``" "`` means runs of spaces); ``None`` otherwise.
    sheet : str or None
        The worksheet that was read (Excel only).
    header_row : int or None
        1-based line (text) or row (Excel) number of the header; ``None`` when the file has no
        header row or for Parquet.
    format : str
        ``"text"``, ``"excel"`` or ``"parquet"``.
    """

    frame: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    sheets: list[str] | None = None
    encoding: str | None = None
    delimiter: str | None = None
    sheet: str | None = None
    header_row: int | None = None
    format: str = "text"


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------
def _size(n: float) -> str:
    """Human-readable size in SI units (1 MB = 1,000,000 bytes, as the browser's uploader)."""
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}".replace(".0 ", " ")
        n /= 1000
    return f"{n:,.1f} GB"  # pragma: no cover


def _q(value: Any, limit: int = 40) -> str:
    text = re.sub(r"[\x00-\x1f\x7f-\x9f]+", " ", str(value))
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f"'{text}'"


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _names(names: list[str], limit: int = 8) -> str:
    shown = [_q(n) for n in names[:limit]]
    if len(names) > limit:
        shown.append(f"{len(names) - limit:,} more")
    return _join(shown)


def _extension(filename: str) -> str:
    name = str(filename or "").strip().lower()
    name = re.split(r"[\\/]", name)[-1]
    return "." + name.rsplit(".", 1)[-1] if "." in name else ""


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


def _not_a_table(filename: str, what: str, extra: str = "") -> ValueError:
    return ValueError(
        f"{_q(filename, 60)} is {what}, not a table.{extra} Please upload {_SUPPORTED_TEXT}."
    )


def _limit_cells(n_rows: int, n_cols: int, filename: str) -> None:
    """Refuse a table that has (or declares) too many rows, columns or cells."""
    if n_cols > MAX_COLUMNS:
        raise ValueError(
            f"{_q(filename, 60)} has {n_cols:,} columns, more than the {MAX_COLUMNS:,} this tool "
            "can handle. Please upload a table with fewer columns (one column per feature)."
        )
    if n_rows > MAX_ROWS:
        raise ValueError(
            f"{_q(filename, 60)} has about {n_rows:,} rows, more than the {MAX_ROWS:,} this tool "
            "can handle. Please upload a sample of the rows."
        )
    if n_rows * n_cols > MAX_CELLS:
        raise ValueError(
            f"{_q(filename, 60)} has about {n_rows:,} rows and {n_cols:,} columns, more than the "
            f"{MAX_CELLS:,} cells this tool can handle. Please upload a smaller table."
        )


# --------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------
def read_table(
    data: bytes,
    filename: str,
    *,
    sheet: str | int | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
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

    Returns
    -------
    TableRead
        The table and notes about how it was read.

    Raises
    ------
    ValueError
        With a plain-language message if the file is empty, too large, of an unsupported
        type, not a table, or unreadable.
    """
    if isinstance(data, (bytearray, memoryview)):
        data = bytes(data)
    if not isinstance(data, bytes):
        raise TypeError(f"read_table expects the file content as bytes, not {type(data).__name__}.")
    name = str(filename or "upload")
    ext = _extension(name)
    if ext not in SUPPORTED_EXTENSIONS:
        hint = ""
        if ext == ".xls":
            hint = (
                " The old Excel format .xls is not supported: open the file in Excel or "
                "LibreOffice and save it as .xlsx or .csv."
            )
        elif ext == ".ods":
            hint = " OpenDocument spreadsheets are not supported: save the file as .xlsx or .csv."
        elif ext in (".pkl", ".pickle", ".joblib", ".npy", ".npz", ".h5", ".hdf5", ".feather"):
            hint = " Files of this kind can run code when opened and are never read, for safety."
        raise ValueError(
            f"{_q(name, 60)} has "
            + (f"the extension {_q(ext)}" if ext else "no file extension")
            + f", which is not supported.{hint} Supported files are {_SUPPORTED_TEXT}."
        )
    if len(data) == 0:
        raise ValueError(f"{_q(name, 60)} is empty (0 bytes): there is no table in it.")
    if max_bytes is not None and len(data) > max_bytes:
        raise ValueError(
            f"{_q(name, 60)} is {_size(len(data))}, larger than the limit of {_size(max_bytes)}. "
            "Please upload a smaller file, for example with fewer rows or columns."
        )

    notes: list[str] = []
    kind = "text" if ext in TEXT_EXTENSIONS else "excel" if ext in EXCEL_EXTENSIONS else "parquet"
    # Recognise the content from its first bytes, whatever the extension says.
    if data[:4] == b"PK\x03\x04" or data[:4] == b"PK\x05\x06":
        zkind = _zip_kind(data)
        if zkind == "excel":
            if kind != "excel":
                notes.append(
                    f"{_q(name, 60)} is an Excel workbook although its name ends in {ext}; "
                    "it was read as Excel."
                )
            kind = "excel"
        elif zkind == "ods":
            raise _not_a_table(
                name, "an OpenDocument spreadsheet", " Save it as .xlsx or .csv first."
            )
        elif zkind == "word":
            raise _not_a_table(name, "a Word document")
        elif zkind == "powerpoint":
            raise _not_a_table(name, "a PowerPoint presentation")
        elif zkind == "zip":
            raise _not_a_table(name, "a ZIP archive", " Extract it and upload the table inside.")
        elif kind == "excel":
            raise ValueError(
                f"{_q(name, 60)} could not be read as an Excel workbook: the file is damaged or "
                "incomplete. Open it in Excel or LibreOffice and save it again as .xlsx, or save it as CSV."
            )
    elif data[:4] == b"PAR1":
        if kind != "parquet":
            notes.append(
                f"{_q(name, 60)} is a Parquet file although its name ends in {ext}; it was read as Parquet."
            )
        kind = "parquet"
    else:
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

    try:
        if kind == "excel":
            result = _read_excel(data, name, sheet, max_bytes)
        elif kind == "parquet":
            result = _read_parquet(data, name)
        else:
            result = _read_text(data, name)
        result.notes[:0] = notes
        result.frame = _finish_frame(result.frame, result.notes)
    except ValueError as exc:
        if type(exc) is ValueError:  # our own, plain-language messages
            raise
        raise _parser_error(name, exc) from None  # UnicodeDecodeError, ArrowInvalid, ...
    except MemoryError:
        raise ValueError(
            f"{_q(name, 60)} needs more memory to read than this tool has. Please upload a "
            "smaller table (fewer rows or columns)."
        ) from None
    except Exception as exc:  # noqa: BLE001 - any parser error must reach the user as a message
        raise _parser_error(name, exc) from None
    if result.frame.shape[0] == 0:
        raise ValueError(
            f"{_q(name, 60)} has a header row but no data rows: the table is empty."
            if result.frame.shape[1]
            else f"{_q(name, 60)} contains no table."
        )
    return result


def _parser_error(name: str, exc: BaseException) -> ValueError:
    return ValueError(
        f"{_q(name, 60)} could not be read ({type(exc).__name__}: {_q(str(exc), 120)}). The "
        "file may be damaged: save the table again as CSV (UTF-8) and upload that."
    )


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
    """
    wb = _open_workbook(data, "workbook", DEFAULT_MAX_BYTES)
    try:
        return [ws.title for ws in wb.worksheets]
    finally:
        wb.close()


# --------------------------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------------------------
def _decode(data: bytes, name: str, notes: list[str]) -> tuple[str, str]:
    if data.startswith(b"\xef\xbb\xbf"):
        try:
            text = data[3:].decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            notes.append(
                "The file is UTF-8 text with a byte-order mark (BOM); the mark was ignored."
            )
            return text, "utf-8-sig"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) and not data.startswith(b"\xff\xfe\x00\x00"):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise ValueError(
                f"{_q(name, 60)} looks like UTF-16 text but could not be decoded ({exc.reason}). "
                "Save it as CSV (UTF-8) and upload it again."
            ) from None
        notes.append("The file is UTF-16 text (as saved by Excel's 'Unicode text' option).")
        return text, "utf-16"
    if b"\x00" in data[:65536]:
        utf16 = _utf16_without_bom(data)
        if utf16 is not None:
            try:
                text = data.decode(utf16)
            except UnicodeDecodeError:
                pass
            else:
                notes.append(
                    f"The file is UTF-16 text without a byte-order mark ({utf16.upper()}); it was "
                    "recognised by the zero byte beside every plain letter."
                )
                return text, utf16
        raise _not_a_table(name, "binary data (it contains zero bytes, which text never does)")
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        text, encoding = data.decode("cp1252"), "cp1252"
    except UnicodeDecodeError:
        text, encoding = data.decode("latin-1"), "latin-1"
    notes.append(
        "The file is not UTF-8; it was read as Latin-1 (Windows-1252), the usual encoding of "
        "files saved by older Windows programs. If accented letters look wrong, save the file "
        "as 'CSV UTF-8' and upload it again."
    )
    return text, encoding


def _utf16_without_bom(data: bytes) -> str | None:
    """'utf-16-le' or 'utf-16-be' if the bytes look like UTF-16 text without a byte-order mark.

    Text in UTF-16 stores every ASCII character (digits, separators, line ends) as that byte
    next to a zero byte: little-endian puts the zeros at odd positions, big-endian at even
    ones.  Binary data does not show that pattern.
    """
    sample = data[: 65536 - (65536 % 2)]
    if len(sample) < 4:
        return None
    half = len(sample) // 2
    odd = sample[1::2].count(0) / half
    even = sample[0::2].count(0) / half
    if odd >= 0.6 and even <= 0.05:
        return "utf-16-le"
    if even >= 0.6 and odd <= 0.05:
        return "utf-16-be"
    return None


def _looks_binary(text: str) -> bool:
    sample = text[:65536]
    if not sample:
        return False
    control = sum(
        1 for ch in sample if (ord(ch) < 32 and ch not in "\t\n\r\f\v") or 0x7F <= ord(ch) < 0xA0
    )
    return control / len(sample) > 0.01


@dataclass
class _Layout:
    delimiter: str
    width: int
    header: int  # index into records
    consistent: int
    records: list[tuple[int, list[str]]]  # (first line number, 0-based; fields)


def _records(sample: str, delimiter: str) -> list[tuple[int, list[str]]]:
    out = []
    if delimiter == " ":
        for i, line in enumerate(sample.split("\n")[:_SAMPLE_ROWS]):
            fields = line.split()
            if fields:
                out.append((i, fields))
        return out
    reader = csv.reader(_io.StringIO(sample), delimiter=delimiter)
    start = 0
    try:
        for fields in reader:
            if any(f.strip() for f in fields):
                out.append((start, fields))
            start = reader.line_num
            if len(out) >= _SAMPLE_ROWS:
                break
    except csv.Error:
        pass
    return out


def _filled(fields: list[str]) -> int:
    return sum(1 for f in fields if f.strip())


def _layout(sample: str, delimiter: str) -> _Layout | None:
    records = _records(sample, delimiter)
    if len(records) < 1:
        return None
    counts = [len(f) for _, f in records]
    tally = Counter(counts)
    width = max(tally, key=lambda w: (tally[w], w))
    if width < 2:
        return None
    need = max(2, math.ceil(width / 2)) if width >= 3 else 1
    for h, (_, fields) in enumerate(records):
        if len(fields) != width or _filled(fields) < need:
            continue
        rest = counts[h:]
        same = sum(1 for c in rest if c == width)
        fits = sum(1 for c in rest if c <= width)
        if same / len(rest) >= 0.6 and fits / len(rest) >= 0.8:
            return _Layout(delimiter, width, h, same, records)
        break
    return None


def _choose_layout(sample: str) -> _Layout | None:
    try:
        sniffed = (
            csv.Sniffer()
            .sniff(sample[:50_000], delimiters="".join(_CANDIDATE_DELIMITERS))
            .delimiter
        )
    except csv.Error:
        sniffed = None
    order = list(_CANDIDATE_DELIMITERS)
    if sniffed in order:
        order.remove(sniffed)
        order.insert(0, sniffed)
    best: _Layout | None = None
    for d in order:
        lay = _layout(sample, d)
        if lay is not None and (best is None or lay.consistent > best.consistent):
            best = lay
    if best is None:
        best = _layout(sample, " ")
    return best


def _read_text(data: bytes, name: str) -> TableRead:
    notes: list[str] = []
    text, encoding = _decode(data, name, notes)
    if _looks_binary(text):
        raise _not_a_table(name, "binary data (it is not readable text)")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise ValueError(f"{_q(name, 60)} contains only blank lines: there is no table in it.")
    head = text.lstrip()[:200].lower()
    if head.startswith(("<!doctype html", "<html", "<head", "<body")):
        raise _not_a_table(
            name,
            "a web page (HTML)",
            " Perhaps the download failed or saved the page around the table.",
        )
    if head.startswith("<?xml"):
        raise _not_a_table(name, "an XML document")
    if re.match(r"[\[{]\s*[\"{\[]", head):
        raise _not_a_table(name, "JSON data")

    _limit_columns_before_parsing(text, name)
    sample = text[:_SAMPLE_CHARS]
    if len(text) > _SAMPLE_CHARS and "\n" in sample:
        sample = sample[: sample.rfind("\n")]
    layout = _choose_layout(sample)
    if layout is None:
        lines = [ln for ln in sample.split("\n") if ln.strip()]
        if lines and all(not re.search(r"[,;\t|]", ln) for ln in lines) and len(lines) > 1:
            words = sum(len(ln.split()) for ln in lines) / len(lines)
            if words <= 1.5:
                raise ValueError(
                    f"{_q(name, 60)} has a single column (no commas, semicolons, tabs or '|' "
                    "separate the values). A classifier needs a label column and at least one "
                    "feature column."
                )
        for d in _CANDIDATE_DELIMITERS:
            records = _records(sample, d)
            with_d = [(line, len(f)) for line, f in records if len(f) > 1]
            if records and len(with_d) >= 0.8 * len(records) and len(records) >= 2:
                (l1, c1), (l2, c2) = (
                    with_d[0],
                    next(((ln, c) for ln, c in with_d if c != with_d[0][1]), with_d[-1]),
                )
                raise ValueError(
                    f"{_q(name, 60)} looks like a table with values separated by "
                    f"{_DELIMITER_NAMES[d]}, but its rows do not have the same number of values "
                    f"(for example line {l1 + 1} has {c1} and line {l2 + 1} has {c2}). Check that "
                    "every row has one value per column and that text containing the separator "
                    "is in double quotes."
                )
        raise ValueError(
            f"No table was found in {_q(name, 60)}: its lines do not split into the same number "
            "of columns with any of the usual separators (comma, semicolon, tab, '|' or spaces). "
            "It looks like running text. Please upload a table with one row per line, for "
            "example a CSV file saved from a spreadsheet."
        )

    d = layout.delimiter
    header_line, header_fields = layout.records[layout.header]
    # first line after the header record
    data_start = _line_after(sample, layout, header_line)
    skipped_lines = header_line
    if skipped_lines:
        notes.append(
            f"The table starts at line {header_line + 1}: "
            f"{'the line' if skipped_lines == 1 else f'the {skipped_lines} lines'} above it "
            f"({_line_preview(text, header_line)}) {'does' if skipped_lines == 1 else 'do'} not "
            "belong to the table (titles or comments) and "
            f"{'was' if skipped_lines == 1 else 'were'} skipped."
        )
    if d != ",":
        notes.append(f"Columns are separated by {_DELIMITER_NAMES[d]}.")

    header = [h.strip() for h in header_fields]
    # cheap bound before pandas parses: lines below the header x columns of the header
    _limit_cells(_lines_from(text, data_start), layout.width, name)
    frame, bad_lines = _parse_body(
        _text_from_line(text, data_start), d, len(header), name, data_start
    )
    has_header = not _header_is_data(header, frame)
    if not has_header:
        notes.append(_NO_HEADER_NOTE.format(where="file"))
        header = [""] * layout.width
        frame, bad_lines = _parse_body(
            _text_from_line(text, header_line), d, len(header), name, header_line
        )
    n_rows = len(frame)
    if bad_lines:
        if len(bad_lines) > max(2, 0.2 * (n_rows + len(bad_lines))):
            raise ValueError(
                f"{_q(name, 60)} could not be read as a table: {len(bad_lines):,} lines (for "
                f"example line {bad_lines[0]:,}) have more values than the header row has "
                f"columns ({len(header)}). Check that the file uses one separator throughout, "
                "and that text containing the separator is in double quotes."
            )
        shown = _join(
            [f"{n:,}" for n in bad_lines[:5]] + (["others"] if len(bad_lines) > 5 else [])
        )
        notes.append(
            (
                f"Line {shown} has"
                if len(bad_lines) == 1
                else f"{len(bad_lines):,} lines ({shown}) have"
            )
            + f" more values than the header row has columns ({len(header)}) and "
            + ("was" if len(bad_lines) == 1 else "were")
            + " skipped."
        )
    frame.columns = header[: frame.shape[1]] + [""] * max(0, frame.shape[1] - len(header))
    if has_header:
        frame = _drop_junk_rows(frame, notes, "data row", 1)
    frame = _convert_cells(frame, notes, comma_hint="decimal" if d == ";" else None)
    return TableRead(
        frame=frame,
        notes=notes,
        encoding=encoding,
        delimiter=d,
        header_row=header_line + 1 if has_header else None,
        format="text",
    )


def _limit_columns_before_parsing(text: str, name: str) -> None:
    """Refuse text whose first lines have more than MAX_COLUMNS fields, before any parsing.

    A single very long line (megabytes of separators) would otherwise take minutes to sniff,
    parse and type.  The count of separators over-estimates the fields of quoted text, which
    only makes the check stricter for absurd files.
    """
    head = text[: 4 * _SAMPLE_CHARS]
    for line in head.split("\n", 5)[:5]:
        widest = max(line.count(d) for d in _CANDIDATE_DELIMITERS) + 1
        if widest > MAX_COLUMNS:
            raise ValueError(
                f"{_q(name, 60)} has a line with {widest:,} or more values, more than the "
                f"{MAX_COLUMNS:,} columns this tool can handle. Please upload a table with one "
                "row per line and fewer columns."
            )
    if len(text) > len(head) and "\n" not in head:
        raise ValueError(
            f"{_q(name, 60)} has a first line longer than {len(head):,} characters; a table "
            "has one row per line. Please upload a table with fewer columns."
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


def _drop_junk_rows(frame: pd.DataFrame, notes: list[str], unit: str, first: int) -> pd.DataFrame:
    """Drop rows that repeat the header and "Total"/"Sum" rows (cells still raw).

    ``frame`` has the header texts as column names; ``first`` is the 1-based line (or sheet
    row) number of its first row, for the note.
    """
    if frame.empty:
        return frame
    header = [str(c).strip() for c in frame.columns]
    named = [j for j, h in enumerate(header) if h]
    if len(named) < 2:
        return frame
    # exact, hash-based comparisons only (isin): a few passes over the columns, no per-cell
    # Python work, so that this stays cheap on a million rows
    same = np.zeros(len(frame), dtype=int)
    filled = np.zeros(len(frame), dtype=int)
    for j in named:
        col = frame.iloc[:, j]
        h = header[j]
        same += col.isin([h, h.lower(), h.upper()]).to_numpy()
        filled += col.notna().to_numpy() & ~col.isin(["", None]).to_numpy()
    repeated = (same >= np.maximum(2, 0.8 * filled)) & (filled > 0)
    total = np.zeros(len(frame), dtype=bool)
    for j in range(frame.shape[1]):
        hit = frame.iloc[:, j].isin(_JUNK_ROW_CELLS).to_numpy()
        if hit.any() and hit.sum() <= 3 and hit.sum() < 0.05 * len(frame) + 1:
            total |= hit
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


_NO_HEADER_NOTE = (
    "The first row holds data, not column names, so the {where} seems to have no header row; "
    "the columns were named column_1, column_2, ... ."
)


def _header_is_data(header: list[Any], body: pd.DataFrame) -> bool:
    """True if the candidate header row looks like one more data row.

    That is the case when every column whose data are numbers has a number in the header row,
    and every other header cell is one of the values of its column (e.g. 'yes' in a yes/no
    label column).  Real headers ('age', 'label') fail one of these tests.
    """
    sample = body.head(200)
    numeric = 0
    for j, h in enumerate(header):
        if j >= sample.shape[1]:
            return False
        cells = sample.iloc[:, j].to_numpy(dtype=object)
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


def _line_after(sample: str, layout: _Layout, header_line: int) -> int:
    """0-based line number of the first line after the header record."""
    h = layout.header
    if h + 1 < len(layout.records):
        # lines between the header record and the next record are blank or part of the header
        if layout.delimiter == " ":
            return header_line + 1
        reader = csv.reader(
            _io.StringIO(_text_from_line(sample, header_line)), delimiter=layout.delimiter
        )
        next(reader, None)
        return header_line + reader.line_num
    return header_line + 1


def _lines_from(text: str, line: int) -> int:
    """Number of lines from 0-based line ``line`` to the end (without copying the text)."""
    pos = 0
    for _ in range(line):
        nxt = text.find("\n", pos)
        if nxt < 0:
            return 0
        pos = nxt + 1
    return text.count("\n", pos) + (0 if text.endswith("\n") else 1)


def _text_from_line(text: str, line: int) -> str:
    pos = 0
    for _ in range(line):
        nxt = text.find("\n", pos)
        if nxt < 0:
            return ""
        pos = nxt + 1
    return text[pos:]


def _line_preview(text: str, n_lines: int) -> str:
    lines = [ln.strip() for ln in text.split("\n", n_lines)[:n_lines] if ln.strip(" ,;\t|")]
    if not lines:
        return "blank"
    first = lines[0].strip(" ,;\t|")
    return "starting with " + _q(first, 50)


def _parse_body(
    body: str, delimiter: str, width: int, name: str, offset: int
) -> tuple[pd.DataFrame, list[int]]:
    if not body.strip():
        return pd.DataFrame({i: pd.Series([], dtype=object) for i in range(width)}), []
    kwargs: dict[str, Any] = dict(
        header=None,
        names=list(range(width)),
        dtype=str,
        keep_default_na=False,
        na_filter=False,
        skip_blank_lines=True,
        on_bad_lines="warn",
        engine="c",
        index_col=False,
    )
    if delimiter == " ":
        kwargs["sep"] = r"\s+"
    else:
        kwargs["sep"] = delimiter
    bad: list[int] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            frame = pd.read_csv(_io.StringIO(body), **kwargs)
        except (pd.errors.ParserError, ValueError, csv.Error) as exc:
            raise ValueError(
                f"{_q(name, 60)} could not be read as a table: {str(exc).strip()[:200]}. Check "
                "that quotation marks are balanced and that every row uses the same separator."
            ) from None
    for w in caught:
        for m in re.finditer(r"Skipping line (\d+)", str(w.message)):
            bad.append(int(m.group(1)) + offset)
    return frame, sorted(set(bad))


# --------------------------------------------------------------------------------------------
# Cells -> typed columns (shared by text and Excel)
# --------------------------------------------------------------------------------------------
_ISO_DATE_RE = r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?"


def _convert_cells(
    frame: pd.DataFrame, notes: list[str], comma_hint: str | None = None
) -> pd.DataFrame:
    """Turn columns of raw cells (text, numbers, dates) into typed columns.

    ``comma_hint`` says how to read commas in columns where both readings fit ("1,517"):
    "decimal" for files separated by semicolons (the convention where the comma is the decimal
    mark); otherwise the reading of the file's other, unambiguous columns decides.
    """
    parses = {}
    for j in range(frame.shape[1]):
        parses[j] = parse_numeric(frame.iloc[:, j], max_bad=0)
    sure = {p.comma for p in parses.values() if p.comma and not p.comma_ambiguous and not p.n_bad}
    hint = comma_hint or (next(iter(sure)) if len(sure) == 1 else None)
    columns: dict[int, pd.Series] = {}
    decimal_comma: list[str] = []
    thousands: list[str] = []
    ambiguous: list[str] = []
    percent: list[str] = []
    dates: list[str] = []
    for j in range(frame.shape[1]):
        column = frame.iloc[:, j]
        parsed = parses[j]
        if parsed.comma_ambiguous and hint == "decimal":
            parsed = parse_numeric(column, max_bad=0, comma_hint=hint)
        if parsed.n_present and parsed.n_bad == 0 and parsed.n_bool == parsed.n_numbers:
            flags = pd.array(
                [None if np.isnan(v) else bool(v) for v in parsed.values], dtype="boolean"
            )
            columns[j] = pd.Series(flags if pd.isna(flags).any() else flags.to_numpy(dtype=bool))
            continue
        if parsed.n_present and parsed.n_bad == 0:
            values = parsed.values
            if parsed.comma == "decimal":
                decimal_comma.append(str(frame.columns[j]))
            elif parsed.comma == "thousands":
                thousands.append(str(frame.columns[j]))
            if parsed.comma_ambiguous:
                ambiguous.append(str(frame.columns[j]))
            if parsed.n_percent:
                percent.append(str(frame.columns[j]))
            finite = values[np.isfinite(values)]
            if (
                not np.isnan(values).any()
                and len(finite) == len(values)
                and np.all(np.mod(finite, 1) == 0)
                and np.all(np.abs(finite) < 2**53)
            ):
                columns[j] = pd.Series(values.astype(np.int64))
            else:
                columns[j] = pd.Series(values)
            continue
        if pd.api.types.infer_dtype(column, skipna=True) == "string":
            # all texts (a text file): the same cleaning, vectorised
            stripped = column.astype(object).str.strip()
            missing = (
                column.isna().to_numpy() | stripped.str.lower().isin(MISSING_TOKENS).to_numpy()
            )
            stripped = stripped.where(~missing, None)
            present_texts = stripped[~missing]
            if len(present_texts) and present_texts.str.fullmatch(_ISO_DATE_RE).all():
                try:
                    columns[j] = pd.Series(pd.to_datetime(stripped.reset_index(drop=True)))
                    dates.append(str(frame.columns[j]))
                    continue
                except (ValueError, TypeError, OverflowError):
                    pass
            columns[j] = stripped.reset_index(drop=True).astype(_text_dtype())
            continue
        raw = column.to_numpy(dtype=object)
        cells = []
        for v in raw:
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
            try:
                columns[j] = pd.Series(pd.to_datetime(pd.Series(cells, dtype=object)))
                dates.append(str(frame.columns[j]))
                continue
            except (ValueError, TypeError, OverflowError):
                pass
        if present and all(
            isinstance(c, (pd.Timestamp, np.datetime64)) or hasattr(c, "isoformat") for c in present
        ):
            try:
                columns[j] = pd.Series(pd.to_datetime(pd.Series(cells, dtype=object)))
                continue
            except (ValueError, TypeError, OverflowError):
                pass
        columns[j] = pd.Series([None if c is None else str(c) for c in cells], dtype=object).astype(
            _text_dtype()
        )
    out = pd.DataFrame(columns)
    out.columns = list(frame.columns)
    if decimal_comma:
        notes.append(
            f"Numbers with a decimal comma (such as 1,5) were read as numbers in {_names(decimal_comma)}."
        )
    if thousands:
        notes.append(
            f"Commas in {_names(thousands)} were read as thousands separators (1,500 = 1500)."
        )
    if ambiguous:
        notes.append(
            f"In {_names(ambiguous)} every comma is followed by exactly three digits, so it could "
            "be a decimal comma or a thousands separator; "
            + (
                "it was read like the decimal commas of the rest of the file"
                if hint == "decimal"
                else "it was read as a thousands separator"
            )
            + ". Check these values."
        )
    if percent:
        notes.append(f"Percentages in {_names(percent)} were read as fractions (12% = 0.12).")
    if dates:
        notes.append(
            f"{_names(dates)} {'holds' if len(dates) == 1 else 'hold'} dates (year-month-day) "
            f"and {'was' if len(dates) == 1 else 'were'} read as dates."
        )
    return out


def _text_dtype() -> Any:
    try:
        return pd.StringDtype(na_value=np.nan)
    except TypeError:  # pandas < 2.3
        return object


def _finish_frame(frame: pd.DataFrame, notes: list[str]) -> pd.DataFrame:
    """Unique, non-blank string column names; drop fully empty unnamed columns and empty rows."""
    names = []
    for c in frame.columns:
        if c is None or (isinstance(c, float) and math.isnan(c)):
            names.append("")
        else:
            names.append(str(c).strip())
    frame = frame.copy()
    frame.columns = range(frame.shape[1])
    empty_unnamed = [j for j, n in enumerate(names) if not n and frame.iloc[:, j].isna().all()]
    if empty_unnamed and len(empty_unnamed) < frame.shape[1]:
        frame = frame.drop(columns=empty_unnamed)
        names = [n for j, n in enumerate(names) if j not in set(empty_unnamed)]
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
    seen: set[str] = set()
    all_names = set(names)
    renamed = []
    for j, n in enumerate(names):
        if n in seen:
            k = 2
            while f"{n}_{k}" in seen or f"{n}_{k}" in all_names:
                k += 1
            names[j] = f"{n}_{k}"
            renamed.append((n, names[j]))
        seen.add(names[j])
    if renamed:
        notes.append(
            "Several columns had the same name, so "
            f"{len(renamed)} {'was' if len(renamed) == 1 else 'were'} renamed with a number suffix: "
            + _join([f"{_q(new)} (a second {_q(old)})" for old, new in renamed[:8]])
            + (f" and {len(renamed) - 8} more" if len(renamed) > 8 else "")
            + "."
        )
    frame.columns = names
    if frame.shape[1]:
        empty_rows = frame.isna().all(axis=1).to_numpy()
        if empty_rows.any():
            frame = frame.loc[~empty_rows]
            notes.append(
                f"{int(empty_rows.sum()):,} empty row{'s' if empty_rows.sum() > 1 else ''} "
                f"(every cell blank) {'were' if empty_rows.sum() > 1 else 'was'} removed."
            )
    return frame.reset_index(drop=True)


# --------------------------------------------------------------------------------------------
# Excel
# --------------------------------------------------------------------------------------------
def _open_workbook(data: bytes, name: str, max_bytes: int | None):
    try:
        import openpyxl
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
            return openpyxl.load_workbook(
                _io.BytesIO(data), read_only=True, data_only=True, keep_links=False
            )
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


def _sheet_rows(ws, name: str) -> list[list[Any]]:
    """The values of a sheet, streamed, with trailing blanks removed.

    The declared dimension has been checked; it is then ignored (``reset_dimensions``) so
    that openpyxl neither pads rows to a made-up width nor cuts rows beyond a dimension that
    is too small, and the stream stops after :data:`MAX_EXCEL_CELLS` cell positions whatever the
    dimension said.
    """
    _check_dimension(ws, name)
    ws.reset_dimensions()
    rows: list[list[Any]] = []
    positions = 0
    for row in ws.iter_rows(values_only=True):
        positions += max(1, len(row))
        if positions > MAX_EXCEL_CELLS:
            raise ValueError(
                f"The sheet {_q(ws.title)} of {_q(name, 60)} holds more than {MAX_EXCEL_CELLS:,} "
                f"cells (after {len(rows):,} rows; empty cells that only carry formatting count "
                "too), more than this tool reads from a workbook. Delete the unused rows and "
                "columns in Excel, or save the table as CSV and upload that."
            )
        values = list(row)
        while values and (
            values[-1] is None or (isinstance(values[-1], str) and not values[-1].strip())
        ):
            values.pop()
        rows.append(values)
    while rows and not rows[-1]:
        rows.pop()
    return rows


_SHEET_XML_LIMIT = 50 * 1000 * 1000


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


def _read_excel(
    data: bytes, name: str, sheet: str | int | None, max_bytes: int | None
) -> TableRead:
    notes: list[str] = []
    wb = _open_workbook(data, name, max_bytes)
    try:
        worksheets = list(wb.worksheets)
        titles = [ws.title for ws in worksheets]
        if not worksheets:
            raise ValueError(f"{_q(name, 60)} has no worksheets.")
        hidden = [k for k, ws in enumerate(worksheets) if ws.sheet_state != "visible"]
        if sheet is None:
            order = [k for k in range(len(worksheets)) if k not in hidden] or [0]
            chosen = order[0]
            rows = _sheet_rows(worksheets[chosen], name)
            if not any(rows):
                for k in order[1:]:
                    rows_k = _sheet_rows(worksheets[k], name)
                    if any(rows_k):
                        notes.append(
                            f"The first sheet, {_q(titles[chosen])}, is empty, so the sheet "
                            f"{_q(titles[k])} was read."
                        )
                        chosen, rows = k, rows_k
                        break
        else:
            if isinstance(sheet, (int, np.integer)) and not isinstance(sheet, bool):
                if not 0 <= int(sheet) < len(worksheets):
                    raise ValueError(
                        f"The workbook has {len(worksheets)} sheet(s) ({_names(titles)}); there is "
                        f"no sheet number {int(sheet) + 1}."
                    )
                chosen = int(sheet)
            elif str(sheet) in titles:
                chosen = titles.index(str(sheet))
            else:
                raise ValueError(
                    f"There is no sheet named {_q(sheet)} in {_q(name, 60)}. Its sheets are "
                    f"{_names(titles, limit=20)}."
                )
            rows = _sheet_rows(worksheets[chosen], name)
        xml = _sheet_xml(data, worksheets[chosen])
    finally:
        wb.close()
    if len(titles) > 1:
        notes.append(
            f"The workbook has {len(titles)} sheets ({_names(titles)}); the sheet "
            f"{_q(titles[chosen])} was read. Choose another sheet to read it instead."
        )
    if hidden:
        shown = [titles[k] for k in hidden]
        notes.append(
            f"The sheet{'s' if len(shown) > 1 else ''} {_names(shown)} "
            f"{'are' if len(shown) > 1 else 'is'} hidden in Excel"
            + (" and was read because it was chosen" if chosen in hidden else " and not read")
            + "."
        )
    unsaved = _unsaved_formulas(xml) if xml else 0
    formula_hint = (
        f"The sheet {_q(titles[chosen])} has {unsaved:,} cell{'s' if unsaved > 1 else ''} with "
        "formulas without saved values (the workbook was written by a program that does not "
        "compute formulas), and this tool never computes formulas. Open the file in Excel or "
        "LibreOffice and save it (this stores the values), or export the sheet as CSV."
    )
    if not any(rows):
        if unsaved:
            raise ValueError(formula_hint)
        raise ValueError(
            f"The sheet {_q(titles[chosen])} of {_q(name, 60)} is empty."
            + (" Choose another sheet." if len(titles) > 1 else "")
        )
    frame, header_row = _grid_to_frame(rows, titles[chosen], notes, _merged_title_rows(xml))
    if unsaved:
        if frame.dropna(how="all").empty:
            raise ValueError(formula_hint)
        notes.append(formula_hint.replace(", and this tool", "; they are missing, as this tool"))
    if header_row is not None:
        frame = _drop_junk_rows(frame, notes, "sheet row", header_row + 1)
    frame = _convert_cells(frame, notes)
    return TableRead(
        frame=frame,
        notes=notes,
        sheets=titles,
        sheet=titles[chosen],
        header_row=header_row,
        format="excel",
    )


def _is_blank(v: Any) -> bool:
    return v is None or (isinstance(v, str) and not v.strip())


def _grid_to_frame(
    rows: list[list[Any]], sheet: str, notes: list[str], merged_rows: set[int] | None = None
) -> tuple[pd.DataFrame, int | None]:
    filled = [sum(1 for v in r if not _is_blank(v)) for r in rows]
    # a title: one filled cell over a merged range (e.g. "Blood tests" across A1:D1)
    titles = {k for k in (merged_rows or set()) if k < len(rows) and filled[k] == 1}
    widths = [len(r) for r in rows]
    nonblank = [k for k, f in enumerate(filled) if f]
    tally = Counter(widths[k] for k in nonblank[: _SAMPLE_ROWS * 2])
    width = max(tally, key=lambda w: (tally[w], w))
    need = max(2, math.ceil(width / 2)) if width >= 3 else 1
    header = next(
        (
            k
            for k in nonblank
            if filled[k] >= need and widths[k] >= min(width, 2) and k not in titles
        ),
        None,
    )
    if header is None or width < 2:
        raise ValueError(
            f"The sheet {_q(sheet)} does not contain a table with at least two columns (a label "
            "and a feature)."
        )
    if header > 0:
        above = [r for r in rows[:header] if any(not _is_blank(v) for v in r)]
        what = (
            "starting with " + _q(next(str(v) for v in above[0] if not _is_blank(v)), 50)
            if above
            else "blank"
        )
        merged = any(k in titles for k in range(header))
        notes.append(
            f"The table starts at row {header + 1} of the sheet: the {header} row"
            f"{'s' if header > 1 else ''} above it ({what}"
            + (", a title over merged cells" if merged else "")
            + f") {'were' if header > 1 else 'was'} skipped as titles or comments."
        )
    ncols = max(widths[header:]) if rows[header:] else width
    head = [rows[header][j] if j < len(rows[header]) else None for j in range(ncols)]
    head_texts = ["" if _is_blank(h) else str(h).strip() for h in head]
    probe = [list(r) + [None] * (ncols - len(r)) for r in rows[header + 1 : header + 201]]
    has_header = not (probe and _header_is_data(head, pd.DataFrame(probe, dtype=object)))
    body_rows = rows[header + 1 :] if has_header else rows[header:]
    if not has_header:
        notes.append(_NO_HEADER_NOTE.format(where="sheet"))
        head_texts = [""] * ncols
    grid = [list(r) + [None] * (ncols - len(r)) for r in body_rows]
    _limit_cells(len(grid), ncols, sheet)
    frame = (
        pd.DataFrame(grid, columns=range(ncols), dtype=object)
        if grid
        else pd.DataFrame({j: pd.Series([], dtype=object) for j in range(ncols)})
    )
    frame.columns = head_texts
    errors = sum(
        1
        for r in body_rows
        for v in r
        if isinstance(v, str) and v.strip().startswith("#") and v.strip().lower() in MISSING_TOKENS
    )
    if errors:
        notes.append(
            f"{errors:,} cell{'s' if errors > 1 else ''} held a formula error such as #DIV/0! or "
            f"#N/A; {'they are' if errors > 1 else 'it is'} treated as missing."
        )
    return frame, (header + 1 if has_header else None)


# --------------------------------------------------------------------------------------------
# Parquet
# --------------------------------------------------------------------------------------------
def _parquet_error(name: str, exc: BaseException) -> ValueError:
    return ValueError(
        f"{_q(name, 60)} could not be read as a Parquet file ({type(exc).__name__}: "
        f"{_q(str(exc), 120)}). The file may be damaged; upload it again or save the table as CSV."
    )


def _parquet_too_big(name: str, size: int) -> ValueError:
    return ValueError(
        f"{_q(name, 60)} would take {_size(size)} once unpacked (its data are stored "
        f"compressed), more than the {_size(MAX_UNPACKED_BYTES)} this tool reads. Please upload "
        "fewer rows or columns, or shorter text values."
    )


def _read_parquet(data: bytes, name: str) -> TableRead:
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - pyarrow is a dependency
        raise ValueError("Parquet files cannot be read because pyarrow is not installed.") from exc
    notes: list[str] = []
    try:
        pf = pq.ParquetFile(pa.BufferReader(data))
        meta = pf.metadata
        schema = pf.schema_arrow
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several error kinds
        raise _parquet_error(name, exc) from None
    _limit_cells(meta.num_rows, meta.num_columns, name)
    unpacked = sum(
        meta.row_group(g).column(c).total_uncompressed_size
        for g in range(meta.num_row_groups)
        for c in range(meta.row_group(g).num_columns)
    )
    if unpacked > MAX_UNPACKED_BYTES:
        raise _parquet_too_big(name, unpacked)
    # Text and binary columns are read as dictionaries (one copy of each distinct value plus
    # small indices), so that a few long values repeated millions of times stay small; their
    # expanded size is checked below before they are expanded.
    texts = [
        f.name
        for f in schema
        if pa.types.is_string(f.type)
        or pa.types.is_large_string(f.type)
        or pa.types.is_binary(f.type)
        or pa.types.is_large_binary(f.type)
    ]
    try:
        table = pq.ParquetFile(pa.BufferReader(data), read_dictionary=texts or None).read()
    except Exception as exc:  # noqa: BLE001
        raise _parquet_error(name, exc) from None
    expanded = 0
    for col in table.columns:
        for chunk in col.chunks:
            if pa.types.is_dictionary(chunk.type) and len(chunk):
                lengths = (
                    pc.binary_length(chunk.dictionary).fill_null(0).to_numpy(zero_copy_only=False)
                )
                idx = chunk.indices.fill_null(0).to_numpy(zero_copy_only=False)
                expanded += int(lengths[idx].sum(dtype=np.int64)) + 60 * len(chunk)
            else:
                expanded += chunk.nbytes
    if expanded > MAX_UNPACKED_BYTES:
        raise _parquet_too_big(name, expanded)
    decimals = [f.name for f in table.schema if pa.types.is_decimal(f.type)]
    for col_name in decimals:
        i = table.schema.get_field_index(col_name)
        try:
            # through the decimal text: Arrow's direct cast divides in floating point and is
            # not correctly rounded (60.30 -> 60.300000000000004); parsing the text is
            as_text = pc.cast(table.column(i), pa.string())
            table = table.set_column(i, col_name, pc.cast(as_text, pa.float64()))
        except Exception:  # noqa: BLE001 - e.g. decimal256 beyond float range
            continue
    if decimals:
        notes.append(
            f"{_names(decimals)} {'holds' if len(decimals) == 1 else 'hold'} exact decimal "
            "numbers, which were converted to ordinary (floating-point) numbers."
        )
    nested = [
        f.name
        for f in table.schema
        if pa.types.is_nested(f.type)
        or pa.types.is_dictionary(f.type)
        and pa.types.is_nested(f.type.value_type)
    ]
    if nested:
        table = table.drop_columns(nested)
        notes.append(
            f"{len(nested)} column{'s' if len(nested) > 1 else ''} ({_names(nested)}) "
            f"{'hold' if len(nested) > 1 else 'holds'} lists or records instead of single values "
            f"and {'were' if len(nested) > 1 else 'was'} left out."
        )
    try:
        frame = table.to_pandas()
    except Exception as exc:  # noqa: BLE001
        raise ValueError(
            f"{_q(name, 60)} could not be converted to a table ({type(exc).__name__})."
        ) from None
    if not isinstance(frame.index, pd.RangeIndex):
        index_names = [n for n in frame.index.names if n is not None]
        frame = frame.reset_index()
        notes.append(
            "The file stored a row index"
            + (f" ({_names(index_names)})" if index_names else "")
            + "; it was turned into an ordinary column."
        )
    for j in range(frame.shape[1]):
        col = frame.iloc[:, j]
        if isinstance(col.dtype, pd.CategoricalDtype):
            values = [
                None if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)) else v
                for v in col.to_numpy(dtype=object)
            ]
            plain = pd.Series(values, dtype=object).infer_objects()
            if plain.dtype == object:
                plain = plain.astype(_text_dtype())
            frame.isetitem(j, plain)
    frame.columns = [str(c) for c in frame.columns]
    return TableRead(frame=frame, notes=notes, format="parquet")
