"""Opening a workbook with a bounded, faster reading of its shared strings.

openpyxl reads the whole shared-strings table of a workbook (``xl/sharedStrings.xml``, every
distinct text of every sheet) when the workbook is opened, building an object per string:
about 20 microseconds each, so that a 5 MB upload holding two million short strings kept
``load_workbook`` busy for a minute, before any sheet was read and out of reach of the time
budget.  :func:`open_workbook` opens the workbook as ``openpyxl.load_workbook(...,
read_only=True, data_only=True, keep_links=False)`` does, but reads the shared strings itself:
a plain ElementTree pass that keeps the same texts (the ``<t>`` of each ``<si>`` and of its
rich-text runs, phonetic runs left out, openpyxl's ``x005F_`` unescaping), refuses more than
:data:`MAX_SHARED_STRINGS` strings and checks the budget as it goes.
"""

from __future__ import annotations

import io
from typing import Any
from xml.etree.ElementTree import iterparse

from ._messages import _q
from .budget import Budget

#: Most distinct texts a workbook may hold (no sheet is read beyond
#: :data:`slb.tables.limits.MAX_EXCEL_CELLS` cells, so more strings cannot all be used).
MAX_SHARED_STRINGS = 500_000

_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_SI, _T, _R = _NS + "si", _NS + "t", _NS + "r"


def read_shared_strings(source: Any, name: str, budget: Budget | None = None) -> list[str]:
    """The texts of a shared-strings part, in order.

    Parameters
    ----------
    source : file-like
        The ``xl/sharedStrings.xml`` member, opened for reading.
    name : str
        The file's name, for the messages.
    budget : Budget, optional
        Checked every 20,000 strings.

    Returns
    -------
    list of str

    Raises
    ------
    ValueError
        When the workbook holds more than :data:`MAX_SHARED_STRINGS` texts, or the time
        budget runs out.

    Examples
    --------
    >>> import io
    >>> from slb.tables.xlsx_strings import read_shared_strings
    >>> xml = (b'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
    ...        b'<si><t>age</t></si><si><r><t>la</t></r><r><t>bel</t></r></si></sst>')
    >>> read_shared_strings(io.BytesIO(xml), "book.xlsx")
    ['age', 'label']
    """
    strings: list[str] = []
    for _, node in iterparse(source, events=("end",)):
        if node.tag != _SI:
            continue
        parts = []
        plain = node.find(_T)
        if plain is not None and plain.text:
            parts.append(plain.text)
        for run in node.findall(_R):
            t = run.find(_T)
            if t is not None and t.text:
                parts.append(t.text)
        strings.append("".join(parts).replace("x005F_", ""))
        node.clear()
        if len(strings) % 20_000 == 0:
            if len(strings) > MAX_SHARED_STRINGS:
                raise ValueError(
                    f"{_q(name, 60)} holds more than {MAX_SHARED_STRINGS:,} different texts, "
                    "more than the cells this tool reads from a workbook. Delete the unused "
                    "sheets, rows and columns in Excel, or save the table as CSV and upload that."
                )
            if budget is not None:
                budget.check("reading")
    if len(strings) > MAX_SHARED_STRINGS:
        raise ValueError(
            f"{_q(name, 60)} holds {len(strings):,} different texts, more than the "
            f"{MAX_SHARED_STRINGS:,} this tool reads from a workbook. Delete the unused sheets, "
            "rows and columns in Excel, or save the table as CSV and upload that."
        )
    return strings


def _count_strings(source: Any, name: str) -> None:
    """Refuse a shared-strings part with more than MAX_SHARED_STRINGS ``<si>`` tags, counted
    in the raw bytes (about 50 ms for 50 MB) before anything is parsed."""
    count = 0
    tail = b""
    while True:
        chunk = source.read(1 << 22)
        if not chunk:
            return
        block = tail + chunk
        count += block.count(b"<si>") + block.count(b"<si ")
        tail = block[-3:]  # a tag cut by the boundary is completed in the next block
        if count > MAX_SHARED_STRINGS:
            raise ValueError(
                f"{_q(name, 60)} holds more than {MAX_SHARED_STRINGS:,} different texts, more "
                "than the cells this tool reads from a workbook. Delete the unused sheets, rows "
                "and columns in Excel, or save the table as CSV and upload that."
            )


def open_workbook(data: bytes, name: str, budget: Budget | None = None) -> Any:
    """``openpyxl.load_workbook`` in read-only, cached-values mode, with bounded shared strings.

    Parameters
    ----------
    data : bytes
        The workbook.
    name : str
        The file's name, for the messages.
    budget : Budget, optional
        Checked while the shared strings are read.

    Returns
    -------
    openpyxl.workbook.Workbook

    Examples
    --------
    >>> import io
    >>> import openpyxl
    >>> workbook = openpyxl.Workbook()
    >>> workbook.active["A1"] = "label"
    >>> buffer = io.BytesIO()
    >>> workbook.save(buffer)
    >>> book = open_workbook(buffer.getvalue(), "book.xlsx")
    >>> [sheet.title for sheet in book.worksheets], book.active["A1"].value
    (['Sheet'], 'label')
    >>> book.close()
    """
    from openpyxl.reader.excel import SHARED_STRINGS, ExcelReader
    from openpyxl.utils.indexed_list import IndexedList

    class _Reader(ExcelReader):
        def read_strings(self) -> None:
            ct = self.package.find(SHARED_STRINGS)
            if ct is None:
                self.shared_strings = IndexedList([])
                return
            try:
                with self.archive.open(ct.PartName[1:]) as src:
                    _count_strings(src, name)
                with self.archive.open(ct.PartName[1:]) as src:
                    strings = read_shared_strings(src, name, budget)
            except ValueError as exc:
                self.refusal = exc  # openpyxl wraps it in its own message: keep ours
                raise
            self.shared_strings = IndexedList(strings)

    reader = _Reader(io.BytesIO(data), read_only=True, data_only=True, keep_links=False)
    try:
        reader.read()
    except Exception:
        refusal = getattr(reader, "refusal", None)
        if refusal is not None:
            raise WorkbookRefused(str(refusal)) from None
        raise
    return reader.wb


class WorkbookRefused(Exception):
    """A workbook refused with a plain-language message (too many texts, out of time).

    Not a ``ValueError``, so that callers which turn openpyxl's own errors into a generic
    message can tell it apart and pass the message on.

    Examples
    --------
    >>> issubclass(WorkbookRefused, ValueError)
    False
    """
