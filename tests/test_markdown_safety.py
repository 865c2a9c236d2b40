"""Hostile labels, column names and file names are shown as text on every page (issue 15, 1).

Streamlit renders Markdown (and so images and links) in metric labels, captions, widget labels,
help texts, alerts, expander and tab labels.  The test uploads a table whose class labels and
column names are Markdown images, links and HTML, renders every page with AppTest and walks the
whole element tree: every string field of every element is checked, so an element added later
without escaping fails here too.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

os.environ["STREAMLIT_CLIENT_SHOW_ERROR_DETAILS"] = "full"

from streamlit.testing.v1 import AppTest  # noqa: E402

from dashboard.data import make_upload  # noqa: E402
from dashboard.safety import escape_markdown  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent / "data"))
from make_hostile_uploads import EVIL_COLUMN, IMG_LABEL, LINK_LABEL  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
TIMEOUT = 300
EVIL_FILE = "[f](http://127.0.0.1:9/f).csv"
PAGES = [
    "pages/dependencies.py",
    "pages/densities.py",
    "pages/compare.py",
    "pages/explain.py",
    "pages/experiments.py",
]

# Fields whose text Streamlit shows verbatim (no Markdown): selectbox / multiselect options,
# widget values, ids, and the data of dataframes and charts (checked separately for HTML).
_VERBATIM = {
    "id",
    "form_id",
    "options",
    "default",
    "value",
    "raw_value",
    "raw_values",
    "data",
    "arrow_data",
}
_MD_LINK = re.compile(r"(?<!\\)\]\((?!\\)")  # "](" not escaped: a live Markdown link / image
_RAW_TAG = re.compile(r"(?<!\\)<(img|a|script)\b", re.I)
_AUTOLINK = re.compile(r"(?i)\b(https?|ftp)\\?://|\bwww\\?\.")  # GFM links bare URLs


def hostile_csv() -> bytes:
    """The corpus file ``tests/data/hostile_uploads/markdown_labels.csv``."""
    return (ROOT / "tests" / "data" / "hostile_uploads" / "markdown_labels.csv").read_bytes()


def _strings(msg, path=""):
    """(field path, text) of every string field in a protobuf message, recursively."""
    for field, value in msg.ListFields():
        repeated = not isinstance(value, (str, bytes)) and not hasattr(value, "ListFields")
        values = value if repeated and hasattr(value, "__iter__") else [value]
        for v in values:
            if isinstance(v, str):
                yield f"{path}{field.name}", v
            elif hasattr(v, "ListFields"):
                yield from _strings(v, f"{path}{field.name}.")


def _nodes(node):
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _nodes(child)


def offending(at: AppTest) -> list[tuple[str, str, str]]:
    """Elements whose Markdown-rendered text holds a live link/image or a raw HTML tag."""
    bad = []
    for node in _nodes(at._tree):
        proto = getattr(node, "proto", None)
        if proto is None or not hasattr(proto, "ListFields"):
            continue
        kind = type(node).__name__
        for name, text in _strings(proto):
            leaf = name.rsplit(".", 1)[-1]
            if kind in ("PlotlyChart",) or leaf in ("spec", "config"):
                if _RAW_TAG.search(text):  # plotly renders a subset of HTML
                    bad.append((kind, name, text[:200]))
                continue
            if leaf in _VERBATIM:
                continue
            if kind == "Dataframe" and leaf == "columns":  # column config: labels and help only
                cfg = json.loads(text or "{}").values()
                text = " ".join(str(c.get(k, "")) for c in cfg for k in ("label", "help"))
            if _MD_LINK.search(text) or _RAW_TAG.search(text) or _AUTOLINK.search(text):
                bad.append((kind, name, text[:200]))
    return bad


def test_escape_markdown_leaves_no_live_markup():
    for s in [IMG_LABEL, LINK_LABEL, EVIL_COLUMN, "a\n# h", "`x`", "$x$", "<b>", "www.x.org"]:
        e = escape_markdown(s)
        assert not _MD_LINK.search(e) and not _RAW_TAG.search(e) and "\n" not in e
        assert not _AUTOLINK.search(e)
        # removing the escapes (and the autolink breakers) gives the original text back
        assert re.sub(r"\\(.)", r"\1", e).replace("\u200b", "") == s.replace("\n", " ")


@pytest.mark.slow
def test_every_page_shows_hostile_labels_and_columns_literally():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    at.session_state["upload"] = make_upload(EVIL_FILE, hostile_csv())
    at.radio(key="data_source").set_value("upload").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert at.selectbox(key="label_column").value == "label"
    # the class labels reach the home page's metrics (so the walk below sees them)
    assert any("127" in m.label for m in at.metric), [m.label for m in at.metric]
    problems = {"Data": offending(at)}
    for page in PAGES:
        at.switch_page(page).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        problems[page] = offending(at)
        if page == "pages/densities.py":  # the pair view too (other captions and axes)
            at.radio(key="dens_view").set_value("pair").run()
            assert not at.exception, [e.value for e in at.exception]
            problems["densities (pair view)"] = offending(at)
    bad = {k: v for k, v in problems.items() if v}
    assert not bad, "\n".join(f"{k}: {e}" for k, v in bad.items() for e in v)
