"""Reading delimited text (CSV, TSV, ...): decoding, layout detection and parsing.

:func:`_read_text` decodes the bytes (:func:`_decode`), refuses text that is not a table
(binary data, HTML, XML, JSON, a single column), finds the separator and the header line
(:func:`_choose_layout`), checks the size before parsing, parses the body with pandas' C
parser (:func:`_parse_body`) and hands the raw cells to :mod:`slb.tables.cells`.  The rules
are described in :mod:`slb.tables.read`.
"""

from __future__ import annotations

import csv
import io as _io
import math
import re
import warnings
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ._messages import _join, _not_a_table, _q
from .budget import Budget, TimeLimitExceeded
from .cells import _NO_HEADER_NOTE, _SAMPLE_ROWS, _convert_cells, _drop_junk_rows, _header_is_data
from .limits import MAX_COLUMNS, _limit_cells
from .result import TableRead

_CANDIDATE_DELIMITERS = (",", ";", "\t", "|")
_DELIMITER_NAMES = {
    ",": "commas",
    ";": "semicolons",
    "\t": "tabs",
    "|": "'|' characters",
    " ": "spaces",
}
_SAMPLE_CHARS = 200_000
#: Characters given to csv.Sniffer (which is quadratic in its input on quoted text).
_SNIFF_CHARS = 4_000
#: Cells parsed between two checks of the time budget.
_CHUNK_CELLS = 1_000_000


# --------------------------------------------------------------------------------------------
# Decoding
# --------------------------------------------------------------------------------------------
def _decode(data: bytes, name: str, notes: list[str]) -> tuple[str, str]:
    """The text and its encoding: UTF-8 (with or without BOM), UTF-16, else Windows-1252."""
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
        return _decode_with_zeros(data, name, notes)
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    mixed = _decode_mixed_lines(data, notes)
    if mixed is not None:
        return mixed, "mixed"
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


def _decode_mixed_lines(data: bytes, notes: list[str]) -> str | None:
    """Text whose lines are partly UTF-8 and partly Latin-1, decoded line by line; or None.

    Files pasted together from several sources may hold lines of accented UTF-8 text
    ("pós") beside lines in Windows-1252 ("p\xf3s"); decoding the whole file as either one
    garbles half of the lines ("pÃ³s").  When some lines are valid UTF-8 with non-ASCII
    letters and others are not UTF-8, each line is decoded in its own encoding, with a note.
    Returns None when the file is simply not UTF-8 (no line is UTF-8 beyond ASCII).
    """
    if not re.search(rb"[\xc2-\xf4][\x80-\xbf]", data):
        return None  # no UTF-8 sequence anywhere: plain Latin-1, decoded as a whole
    lines = data.split(b"\n")
    utf8_accented = 0
    latin: list[int] = []
    out = []
    for i, line in enumerate(lines):
        if line.isascii():
            out.append(line.decode("ascii"))
            continue
        try:
            out.append(line.decode("utf-8"))
            utf8_accented += 1
        except UnicodeDecodeError:
            try:
                out.append(line.decode("cp1252"))
            except UnicodeDecodeError:
                out.append(line.decode("latin-1"))
            latin.append(i + 1)
    if not utf8_accented or not latin:
        return None
    shown = _join([f"{n:,}" for n in latin[:5]] + (["others"] if len(latin) > 5 else []))
    notes.append(
        f"The file mixes two text encodings: {utf8_accented:,} line"
        f"{'s' if utf8_accented > 1 else ''} with accented letters {'are' if utf8_accented > 1 else 'is'} "
        f"UTF-8, and {len(latin):,} line{'s' if len(latin) > 1 else ''} ({shown}) "
        f"{'are' if len(latin) > 1 else 'is'} Latin-1 (Windows-1252); each line was decoded in "
        "its own encoding. Check the accented letters of those lines, and save the file as "
        "'CSV UTF-8' to avoid this."
    )
    return "\n".join(out)


def _decode_with_zeros(data: bytes, name: str, notes: list[str]) -> tuple[str, str]:
    """Bytes with zeros: UTF-16 without a byte-order mark, else binary data (refused)."""
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
    """True if more than 1 % of the first characters are control characters."""
    sample = text[:65536]
    if not sample:
        return False
    control = sum(
        1 for ch in sample if (ord(ch) < 32 and ch not in "\t\n\r\f\v") or 0x7F <= ord(ch) < 0xA0
    )
    return control / len(sample) > 0.01


def _check_is_table_text(text: str, name: str) -> str:
    """Refuse binary data, blank text, HTML, XML and JSON; return the text with ``\\n`` lines."""
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
    return text


# --------------------------------------------------------------------------------------------
# Layout: separator and header line
# --------------------------------------------------------------------------------------------
@dataclass
class _Layout:
    """A separator's reading of the sample: the usual width and the header record."""

    delimiter: str
    width: int
    header: int  # index into records
    consistent: int
    records: list[tuple[int, list[str]]]  # (first line number, 0-based; fields)


def _sample(text: str) -> str:
    """The first :data:`_SAMPLE_CHARS` characters of the text, cut at a line end."""
    sample = text[:_SAMPLE_CHARS]
    if len(text) > _SAMPLE_CHARS and "\n" in sample:
        sample = sample[: sample.rfind("\n")]
    return sample


def _records(sample: str, delimiter: str) -> list[tuple[int, list[str]]]:
    """The non-blank records of the sample (at most :data:`_SAMPLE_ROWS`) with their lines."""
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
    """Number of non-blank fields."""
    return sum(1 for f in fields if f.strip())


def _layout(sample: str, delimiter: str) -> _Layout | None:
    """The table the separator makes of the sample: its usual width and its header record."""
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
    """The separator that splits the most rows alike (``csv.Sniffer`` breaks ties)."""
    try:
        # csv.Sniffer's quote-finding regular expressions backtrack: quadratic in the text
        # (6 s on 50,000 characters of quoted cells); it only breaks ties, so a few
        # thousand characters are enough
        head = sample[:_SNIFF_CHARS]
        if len(sample) > _SNIFF_CHARS and "\n" in head:
            head = head[: head.rfind("\n")]
        sniffed = csv.Sniffer().sniff(head, delimiters="".join(_CANDIDATE_DELIMITERS)).delimiter
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


def _no_table_error(sample: str, name: str) -> ValueError:
    """Why no layout was found: a single column, rows of different lengths, or running text."""
    lines = [ln for ln in sample.split("\n") if ln.strip()]
    if lines and all(not re.search(r"[,;\t|]", ln) for ln in lines) and len(lines) > 1:
        words = sum(len(ln.split()) for ln in lines) / len(lines)
        if words <= 1.5:
            return ValueError(
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
            return ValueError(
                f"{_q(name, 60)} looks like a table with values separated by "
                f"{_DELIMITER_NAMES[d]}, but its rows do not have the same number of values "
                f"(for example line {l1 + 1} has {c1} and line {l2 + 1} has {c2}). Check that "
                "every row has one value per column and that text containing the separator "
                "is in double quotes."
            )
    return ValueError(
        f"No table was found in {_q(name, 60)}: its lines do not split into the same number "
        "of columns with any of the usual separators (comma, semicolon, tab, '|' or spaces). "
        "It looks like running text. Please upload a table with one row per line, for "
        "example a CSV file saved from a spreadsheet."
    )


def _layout_notes(text: str, header_line: int, delimiter: str) -> list[str]:
    """Notes on the lines skipped above the header and on a separator other than commas."""
    notes = []
    skipped_lines = header_line
    if skipped_lines:
        notes.append(
            f"The table starts at line {header_line + 1}: "
            f"{'the line' if skipped_lines == 1 else f'the {skipped_lines} lines'} above it "
            f"({_line_preview(text, header_line)}) {'does' if skipped_lines == 1 else 'do'} not "
            "belong to the table (titles or comments) and "
            f"{'was' if skipped_lines == 1 else 'were'} skipped."
        )
    if delimiter != ",":
        notes.append(f"Columns are separated by {_DELIMITER_NAMES[delimiter]}.")
    return notes


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------
def _read_text(data: bytes, name: str, budget: Budget | None = None) -> TableRead:
    """Read delimited text: decode, find the layout, check the size, parse, type the cells.

    ``budget`` (:class:`slb.tables.budget.Budget`) is checked between the steps and while
    the body is parsed and typed.
    """
    budget = budget if budget is not None else Budget(None, name)
    notes: list[str] = []
    text, encoding = _decode(data, name, notes)
    text = _check_is_table_text(text, name)
    _limit_columns_before_parsing(text, name)
    budget.check("reading")
    sample = _sample(text)
    layout = _choose_layout(sample)
    budget.check("reading")
    if layout is None:
        raise _no_table_error(sample, name)

    d = layout.delimiter
    header_line, header_fields = layout.records[layout.header]
    # first line after the header record
    data_start = _line_after(sample, layout, header_line)
    notes.extend(_layout_notes(text, header_line, d))

    header = [h.strip() for h in header_fields]
    # cheap bound before pandas parses: lines below the header x columns of the header
    _limit_cells(_lines_from(text, data_start), layout.width, name)
    frame, bad_lines = _parse_body(
        _text_from_line(text, data_start), d, len(header), name, data_start, budget
    )
    has_header = not _header_is_data(header, frame)
    if not has_header:
        notes.append(_NO_HEADER_NOTE.format(where="file"))
        header = [""] * layout.width
        frame, bad_lines = _parse_body(
            _text_from_line(text, header_line), d, len(header), name, header_line, budget
        )
    if bad_lines:
        notes.append(_bad_lines_note(bad_lines, len(frame), len(header), name))
    frame.columns = header[: frame.shape[1]] + [""] * max(0, frame.shape[1] - len(header))
    if has_header:
        frame = _drop_junk_rows(frame, notes, "data row", 1, budget)
    budget.check("reading")
    frame = _convert_cells(frame, notes, comma_hint="decimal" if d == ";" else None, budget=budget)
    return TableRead(
        frame=frame,
        notes=notes,
        encoding=encoding,
        delimiter=d,
        header_row=header_line + 1 if has_header else None,
        format="text",
    )


def _bad_lines_note(bad_lines: list[int], n_rows: int, width: int, name: str) -> str:
    """The note on lines skipped for having too many values; an error if there are many."""
    if len(bad_lines) > max(2, 0.2 * (n_rows + len(bad_lines))):
        raise ValueError(
            f"{_q(name, 60)} could not be read as a table: {len(bad_lines):,} lines (for "
            f"example line {bad_lines[0]:,}) have more values than the header row has "
            f"columns ({width}). Check that the file uses one separator throughout, "
            "and that text containing the separator is in double quotes."
        )
    shown = _join([f"{n:,}" for n in bad_lines[:5]] + (["others"] if len(bad_lines) > 5 else []))
    return (
        (f"Line {shown} has" if len(bad_lines) == 1 else f"{len(bad_lines):,} lines ({shown}) have")
        + f" more values than the header row has columns ({width}) and "
        + ("was" if len(bad_lines) == 1 else "were")
        + " skipped."
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
    """The text from 0-based line ``line`` on."""
    pos = 0
    for _ in range(line):
        nxt = text.find("\n", pos)
        if nxt < 0:
            return ""
        pos = nxt + 1
    return text[pos:]


def _line_preview(text: str, n_lines: int) -> str:
    """'starting with ...' the first non-blank of the first ``n_lines`` lines, or 'blank'."""
    lines = [ln.strip() for ln in text.split("\n", n_lines)[:n_lines] if ln.strip(" ,;\t|")]
    if not lines:
        return "blank"
    first = lines[0].strip(" ,;\t|")
    return "starting with " + _q(first, 50)


def _parse_body(
    body: str,
    delimiter: str,
    width: int,
    name: str,
    offset: int,
    budget: Budget | None = None,
) -> tuple[pd.DataFrame, list[int]]:
    """The body's cells as text (pandas' C parser), and the lines with too many values.

    A long body is parsed in chunks of about :data:`_CHUNK_CELLS` cells, with the ``budget``
    checked between them.
    """
    if not body.strip():
        return pd.DataFrame({i: pd.Series([], dtype=object) for i in range(width)}), []
    kwargs: dict[str, Any] = dict(
        header=None,
        names=list(range(width)),
        dtype=object,  # Python str cells (pandas 3 would build Arrow strings, then convert back)
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
            if budget is None or len(body) < 1_000_000:
                frame = pd.read_csv(_io.StringIO(body), **kwargs)
            else:
                frame = _read_chunks(body, kwargs, max(1000, _CHUNK_CELLS // max(1, width)), budget)
        except (pd.errors.ParserError, ValueError, csv.Error) as exc:
            if isinstance(exc, TimeLimitExceeded):
                raise  # the budget's own message
            raise ValueError(
                f"{_q(name, 60)} could not be read as a table: {str(exc).strip()[:200]}. Check "
                "that quotation marks are balanced and that every row uses the same separator."
            ) from None
    for w in caught:
        for m in re.finditer(r"Skipping line (\d+)", str(w.message)):
            bad.append(int(m.group(1)) + offset)
    return frame, sorted(set(bad))


def _read_chunks(body: str, kwargs: dict[str, Any], rows: int, budget: Budget) -> pd.DataFrame:
    """``pd.read_csv`` of the body in chunks of ``rows`` rows, checking the budget between them."""
    parts = []
    with pd.read_csv(_io.StringIO(body), chunksize=rows, **kwargs) as reader:
        for part in reader:
            parts.append(part)
            budget.check("reading")
    if not parts:
        return pd.read_csv(_io.StringIO(body), **kwargs)
    return pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
