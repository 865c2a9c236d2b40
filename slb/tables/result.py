"""The result of reading an uploaded table: :class:`TableRead`."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

__all__ = ["TableRead"]


@dataclass
class TableRead:
    """The result of :func:`slb.tables.read.read_table`.

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
        The text encoding used (``"utf-8"``, ``"utf-8-sig"``, ``"utf-16"``, ``"cp1252"``,
        ``"latin-1"``, or ``"mixed"`` when lines of UTF-8 and of Windows-1252 were decoded
        each in its own encoding); ``None`` for Excel and Parquet.
    delimiter : str or None
        The field separator of a text file (``" "`` means runs of spaces); ``None`` otherwise.
    sheet : str or None
        The worksheet that was read (Excel only).
    header_row : int or None
        1-based line (text) or row (Excel) number of the header; ``None`` when the file has no
        header row or for Parquet.
    format : str
        ``"text"``, ``"excel"`` or ``"parquet"``.

    Examples
    --------
    >>> from slb.tables import read_table
    >>> read = read_table(b"x;label\\n1,5;a\\n2,5;b\\n", "table.csv")
    >>> read.format, read.delimiter, read.encoding, read.header_row
    ('text', ';', 'utf-8', 1)
    >>> read.frame["x"].tolist()
    [1.5, 2.5]
    >>> read.notes[0]
    'Columns are separated by semicolons.'
    """

    frame: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    sheets: list[str] | None = None
    encoding: str | None = None
    delimiter: str | None = None
    sheet: str | None = None
    header_row: int | None = None
    format: str = "text"
