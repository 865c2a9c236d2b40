"""One way of writing a share everywhere the user reads it (H41: "82%" beside "80 %"; the
metrics' minus sign, "-1.086" beside the figure's "−1.0", is checked in tests/test_app.py).

The texts are the string literals of the pages, the dashboard and the figures (read with
:mod:`ast`, so comments and docstrings, which the user does not see, are left out).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(
    [ROOT / "app.py"]
    + list((ROOT / "pages").glob("*.py"))
    + list((ROOT / "dashboard").glob("*.py"))
    + list((ROOT / "slb" / "viz").glob("*.py"))
)

#: A number, or a formatted value, then a space and a percent sign ("80 %", "{s:.0f} %").
SPACED_PERCENT = re.compile(r"\d %(?![sdfgrx({])")


def _docstrings(tree) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def _texts(path: Path):
    """(line, text) of every string literal but the docstrings; in an f-string, a formatted
    value is written as "0" so that "{share} %" reads as "0 %"."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstrings(tree)
    inner = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            inner.update(id(v) for v in node.values)
            text = "".join(v.value if isinstance(v, ast.Constant) else "0" for v in node.values)
            yield node.lineno, text
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in skip | inner
        ):
            yield node.lineno, node.value


def test_the_checker_sees_both_forms(tmp_path):
    """The check can fail: it finds the old forms in a sample source, and passes plotly's
    "%{y:.1f}%" and printf's "%.1f"."""
    path = tmp_path / "sample.py"
    path.write_text(
        'x = f"({s:.0f} %)"\ny = "with 80 % power"\nz = "82%"\nw = "%{y:.1f}% in %.1f s"\n',
        encoding="utf-8",
    )
    found = sorted(t for _, t in _texts(path) if SPACED_PERCENT.search(t))
    assert found == ["(0 %)", "with 80 % power"]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_share_is_written_without_a_space_before_the_percent_sign(path):
    spaced = [(line, t) for line, t in _texts(path) if SPACED_PERCENT.search(t)]
    assert not spaced, spaced
