"""Helpers that keep user-provided strings harmless (no streamlit import: unit-testable).

* :func:`escape_markdown` — Streamlit renders Markdown in ``st.markdown``, ``st.error``,
  ``st.caption``, widget labels, ...; a column named ``[click](http://evil)`` or ``![](...)``
  must show up as text.  Every user string that goes into such an element is escaped first.
  (The dashboard never uses ``unsafe_allow_html``.)
* :func:`neutralise_csv_cell` / :func:`safe_csv_bytes` — spreadsheet programs execute cells
  starting with ``=``, ``+``, ``-`` or ``@`` (and tab / carriage return) as formulas ("CSV
  injection"); such text cells get a leading single quote.
"""

from __future__ import annotations

import re

import pandas as pd

__all__ = ["escape_markdown", "neutralise_csv_cell", "neutralise_frame", "safe_csv_bytes"]

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=^&\"'])")
# GitHub-flavoured Markdown turns bare "http://...", "www...." into links even in escaped
# text (the autolink pass runs on the rendered text); a zero-width space breaks the pattern.
_AUTOLINK = re.compile(r"(?i)(?<=:)(?=//)|(?<=www)(?=\.)")
ZERO_WIDTH = "\u200b"
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def escape_markdown(text) -> str:
    """``str(text)`` with every Markdown/HTML-significant character backslash-escaped.

    Newlines become spaces, so a value cannot start a new Markdown block, and a zero-width
    space goes after the colon of ``://`` and after ``www`` so no bare URL becomes a link.
    """
    s = str(text).replace("\r", " ").replace("\n", " ")
    s = _AUTOLINK.sub(ZERO_WIDTH, s)
    return _MD_SPECIAL.sub(r"\\\1", s)


def neutralise_csv_cell(value):
    """Prefix text starting with ``= + - @`` (or tab / CR) with ``'``; other values unchanged."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def neutralise_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` with every text cell, column name and index label neutralised."""
    out = frame.copy()
    for col in out.columns:
        s = out[col]
        if not (pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s)):
            out[col] = s.map(neutralise_csv_cell).astype(object)
    out.columns = [neutralise_csv_cell(str(c)) for c in out.columns]
    if not isinstance(out.index, pd.RangeIndex):
        out.index = pd.Index(
            [neutralise_csv_cell(v) for v in out.index], name=neutralise_csv_cell(out.index.name)
        )
    return out


#: A table's file extension, taken out of a download's name (H47: "a.csv_SLB.slbmodel").
_TABLE_EXTENSION = re.compile(r"\.(csv|tsv|txt|xlsx|xls|parquet|pq)(?=_|$)", re.IGNORECASE)


def safe_file_stem(text: str, fallback: str) -> str:
    """A download's file name stem from user text: letters, digits, ``_.-`` only, at most 80
    characters, without a table file's extension (``fallback`` when nothing is left).

    Examples
    --------
    >>> safe_file_stem("my data/<b>NB</b>", "model"), safe_file_stem("???", "model")
    ('my_data_b_NB_b', 'model')
    >>> safe_file_stem("a_three_class.csv_SLB", "model")  # not "a_three_class.csv_SLB"
    'a_three_class_SLB'
    """
    text = _TABLE_EXTENSION.sub("", str(text))
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")[:80] or fallback


def safe_csv_bytes(frame: pd.DataFrame, *, index: bool = False) -> bytes:
    """UTF-8 CSV of ``frame`` with formula-like text cells neutralised."""
    return neutralise_frame(frame).to_csv(index=index).encode("utf-8")
