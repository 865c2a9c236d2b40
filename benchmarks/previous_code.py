"""A module of the library as of another git revision, imported beside this checkout's, so a
benchmark can time the previous code and the current one in the same process and run."""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def module_at(rev: str, path: str) -> types.ModuleType:
    """``path`` (e.g. ``"slb/model/steps.py"``) as of git revision ``rev``, as a module of its
    package (its relative imports resolve to this tree's modules), named ``<module>_at_rev``."""
    src = subprocess.run(
        ["git", "show", f"{rev}:{path}"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    package = ".".join(Path(path).with_suffix("").parts[:-1])
    module = types.ModuleType(f"{package}._{Path(path).stem}_at_rev")
    module.__package__ = package
    sys.modules[module.__name__] = module  # dataclasses look their module up there
    exec(compile(src, f"{rev}:{path}", "exec"), module.__dict__)  # noqa: S102
    return module
