"""The module import graph of slb/ and dashboard/ has no cycle (issue 30, item 7).

Two graphs: the module-level imports, and every import including those inside functions (which
some modules use for optional dependencies); neither has a cycle (``KNOWN_CYCLES`` would list one
still to be broken: the test fails on any other, and when a listed one is gone).  A package's ``__init__`` re-exports
its modules, so ``__init__`` files are left out as sources (they only gather names).  slb never
imports streamlit nor the dashboard.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]


def _module_name(path):
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _resolve(module, level, current, is_package):
    if level == 0:
        return module
    base = current.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


#: Cycles through imports inside functions still to be broken (issue 30, item 7).
KNOWN_CYCLES: list = []


def _graph(packages=("slb", "dashboard"), inside_functions=False):
    g = nx.DiGraph()
    files = [p for pkg in packages for p in (ROOT / pkg).rglob("*.py")]
    known = {_module_name(p) for p in files}
    for path in files:
        if path.name == "__init__.py":
            continue
        name = _module_name(path)
        g.add_node(name)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree) if inside_functions else tree.body:
            targets = []
            if isinstance(node, ast.ImportFrom):
                mod = _resolve(node.module, node.level, name, False)
                targets = [f"{mod}.{a.name}" for a in node.names] + [mod]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for t in targets:
                if t in known and t != name:
                    g.add_edge(name, t)
                    break
    return g


def test_no_import_cycle():
    cycles = list(nx.simple_cycles(_graph()))
    assert cycles == [], f"import cycles: {cycles[:5]}"


def test_no_new_cycle_through_imports_inside_functions():
    cycles = [set(c) for c in nx.simple_cycles(_graph(inside_functions=True))]
    new = [c for c in cycles if c not in KNOWN_CYCLES]
    gone = [c for c in KNOWN_CYCLES if c not in cycles]
    assert new == [], f"new import cycles: {new}"
    assert gone == [], f"these cycles are gone, remove them from KNOWN_CYCLES: {gone}"


def test_the_check_finds_a_cycle():
    g = nx.DiGraph([("a", "b"), ("b", "a")])
    assert list(nx.simple_cycles(g))


def test_slb_never_imports_streamlit_or_the_dashboard():
    for path in (ROOT / "slb").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            bad = [n for n in names if n.split(".")[0] in ("streamlit", "dashboard")]
            assert not bad, f"{path.relative_to(ROOT)} imports {bad}"
