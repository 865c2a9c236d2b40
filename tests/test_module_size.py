"""Issue 30 item 6: modules of one concern, none over 1,000 lines (the project's rule)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 1000


def _sources():
    for folder in ("slb", "dashboard", "pages", "slb_explorer"):
        yield from sorted((ROOT / folder).rglob("*.py"))
    yield ROOT / "app.py"


def test_no_module_over_the_limit():
    sizes = {p.relative_to(ROOT).as_posix(): len(p.read_text().splitlines()) for p in _sources()}
    assert len(sizes) > 50  # the walk found the tree
    over = {k: v for k, v in sizes.items() if v > LIMIT}
    assert not over, f"modules over {LIMIT} lines: {over}"
