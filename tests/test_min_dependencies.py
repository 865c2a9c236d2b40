"""slb/_min_dependencies.py is the one source of truth of the floors, the ruff pin and the version.

Every place that spells a requirement (pyproject.toml's dependencies and extras,
requirements.txt, requirements-dev.txt, .pre-commit-config.yaml's ruff ``rev``) must say exactly
what the module says; the installed packages must satisfy it; every third-party module that
``slb``, ``dashboard`` and the pages import must be declared there; and the package version is
written once (slb/__init__.py), read by hatchling.
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import re
import subprocess
import sys
from pathlib import Path

import pytest

from slb import _min_dependencies as mind

tomllib = pytest.importorskip("tomllib", reason="Python 3.11+")

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SPEC = re.compile(r"([A-Za-z0-9_.\-\[\]]+)\s*((?:==|>=)[^\s#;]+)?")


def _spec_map(lines) -> dict[str, str]:
    """name -> 'name<op><version>' of requirement lines (comments, -r and slb-explorer out)."""
    out = {}
    for line in lines:
        line = line.split("#")[0].strip()
        if not line or line.startswith("-") or line.startswith("slb-explorer"):
            continue
        name, spec = SPEC.match(line).groups()
        out[name.lower()] = f"{name.lower()}{spec or ''}"
    return out


def _file(name: str) -> dict[str, str]:
    return _spec_map((ROOT / name).read_text(encoding="utf-8").splitlines())


def _expected(*tags) -> dict[str, str]:
    return _spec_map(r for tag in tags for r in mind.requirements(tag))


def test_pyproject_spells_the_floors():
    project = PYPROJECT["project"]
    extras = project["optional-dependencies"]
    assert _spec_map(project["dependencies"]) == _expected("install")
    assert _spec_map(extras["app"]) == _expected("app")
    assert _spec_map(extras["dev"]) == _expected("dev")


def test_requirements_files_spell_the_floors():
    assert _file("requirements.txt") == _expected("install", "app")
    assert _file("requirements-dev.txt") == _expected("dev")
    assert "-r requirements.txt" in (ROOT / "requirements-dev.txt").read_text(encoding="utf-8")


def test_ruff_is_pinned_exactly_and_pre_commit_uses_it():
    assert mind.specifier("ruff") == f"ruff=={mind.RUFF_VERSION}"
    assert re.fullmatch(r"\d+\.\d+\.\d+", mind.RUFF_VERSION)
    config = (ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    assert "https://github.com/astral-sh/ruff-pre-commit" in config
    revs = re.findall(r"^\s*rev:\s*(\S+)\s*$", config, flags=re.M)
    assert revs == [f"v{mind.RUFF_VERSION}"], revs
    assert re.findall(r"- id:\s*(\S+)", config) == ["ruff", "ruff-format"]


def test_ci_lints_with_the_pinned_ruff():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "ruff check ." in ci and "ruff format --check ." in ci
    assert "bash scripts/run-tests.sh" in ci  # the README's test command
    assert "_min_dependencies.py pinned" in ci  # the job at the minimum versions
    assert "-W error::DeprecationWarning" in ci  # deprecations as errors in one step


def test_installed_versions_satisfy_the_floors():
    """The environment running the suite is one the floors allow (a stale venv fails here)."""
    from packaging.version import Version

    for name, (floor, _, _) in mind.DEPENDENT_PACKAGES.items():
        dist = name.split("[")[0]
        try:
            installed = Version(md.version(dist))
        except md.PackageNotFoundError:
            continue  # e.g. playwright or dask absent: their tests skip themselves
        if name in mind.EXACT:
            assert installed == Version(floor), f"{dist} {installed} != pinned {floor}"
        else:
            assert installed >= Version(floor), f"{dist} {installed} < floor {floor}"


def test_the_pinned_list_is_every_floor_exactly():
    pins = mind.pinned()
    assert len(pins) == len(mind.DEPENDENT_PACKAGES)
    assert "streamlit==1.56" in pins and "scikit-learn==1.6" in pins
    assert mind.pinned("install") == [s.replace(">=", "==") for s in mind.requirements("install")]
    # runnable before anything is installed: the script imports the standard library only
    res = subprocess.run(
        [sys.executable, "-I", str(ROOT / "slb" / "_min_dependencies.py"), "pinned", "app"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == mind.pinned("app")
    tree = ast.parse((ROOT / "slb" / "_min_dependencies.py").read_text(encoding="utf-8"))
    imported = {
        a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
    } | {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported


#: import name -> distribution name, where they differ
DISTRIBUTION = {"sklearn": "scikit-learn"}


def _third_party_imports(paths, module_level_only=False) -> set[str]:
    """Distributions imported by these files (only the module-level imports, if asked: an
    import inside a function runs on demand, as the uploads' openpyxl and pyarrow)."""
    local = {"slb", "dashboard", "pages", "app", "tests"}
    found = set()
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        nodes = list(ast.walk(tree))
        if module_level_only:
            in_functions = {  # and under "if TYPE_CHECKING:" (never run)
                id(inner)
                for n in nodes
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                or (isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test))
                for inner in ast.walk(n)
            }
            nodes = [n for n in nodes if id(n) not in in_functions]
        for node in nodes:
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in local | {"__future__"}:
                    found.add(DISTRIBUTION.get(top, top))
    return found


@pytest.mark.slow  # >= 1.4 s in the development tier (stop 43, --durations)
def test_every_imported_package_is_declared():
    """The library's module-level imports are dependencies ("install"); its on-demand imports
    (plotly for slb.viz, openpyxl/pyarrow for uploads) and the app's imports may be [app]."""
    declared = {n.split("[")[0]: tags for n, (_, tags, _) in mind.DEPENDENT_PACKAGES.items()}
    runtime = {n for n, t in declared.items() if t == "install"}
    with_app = {n for n, t in declared.items() if t in ("install", "app")}
    library = sorted((ROOT / "slb").rglob("*.py"))
    app_files = [
        ROOT / "app.py",
        *(ROOT / "pages").rglob("*.py"),
        *(ROOT / "dashboard").rglob("*.py"),
    ]
    # slb.viz (the figures) needs the [app] extra and is imported only on demand ("import slb"
    # loads neither streamlit nor plotly: tests/test_packaging.py)
    core = [p for p in library if "viz" not in p.relative_to(ROOT / "slb").parts]
    top_level = _third_party_imports(core, module_level_only=True)
    assert top_level <= runtime, top_level - runtime
    everything = _third_party_imports([*library, *app_files])
    assert everything <= with_app, everything - with_app
    assert {"numpy", "scikit-learn", "streamlit", "plotly"} <= everything  # the check sees imports


def test_the_version_is_written_once():
    """pyproject's version is dynamic, read by hatchling from slb/__init__.py's __version__."""
    import slb

    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert PYPROJECT["tool"]["hatch"]["version"] == {"path": "slb/__init__.py"}
    source = (ROOT / "slb" / "__init__.py").read_text(encoding="utf-8")
    assert len(re.findall(r"^__version__\s*=", source, flags=re.M)) == 1
    hatch_regex = pytest.importorskip("hatchling.version.source.regex")
    read = hatch_regex.RegexSource(str(ROOT), {"path": "slb/__init__.py"}).get_version_data()
    assert read["version"] == slb.__version__
    from packaging.version import Version

    assert str(Version(slb.__version__)) == slb.__version__  # a valid, normalised version
