"""The minimum versions of every dependency: the one source of truth (as imbalanced-learn's).

``pyproject.toml`` (dependencies and the ``[app]``/``[dev]`` extras), ``requirements.txt`` and
``requirements-dev.txt`` spell exactly these specifiers, and ``.pre-commit-config.yaml`` uses the
same ruff: ``tests/test_min_dependencies.py`` fails when one of them drifts.  CI installs every
floor exactly (``python slb/_min_dependencies.py pinned``) in a fresh virtual environment and
runs the fast tests there (``.ci/run``), so a floor is a version the suite has passed on.

This file imports nothing beyond the standard library and is run as a script (``python
slb/_min_dependencies.py ...``) before anything is installed, so it must stay that way.
"""

from __future__ import annotations

import sys

#: ruff is pinned exactly (lint and format results change between releases); everything else
#: is a floor.  Raise the pin here, then in requirements-dev.txt, pyproject.toml's [dev] extra and
#: .pre-commit-config.yaml's ``rev`` (the test names any file left behind).
RUFF_VERSION = "0.17.6"

#: name -> (minimum version, tags, why this floor).  Tags: "install" (pyproject's dependencies),
#: "app" (the [app] extra: the dashboard), "dev" (the [dev] extra: the test suite and tooling).
DEPENDENT_PACKAGES: dict[str, tuple[str, str, str]] = {
    "numpy": ("1.26", "install", "Python 3.12 wheels; tested at this floor in CI"),
    "scipy": ("1.11.1", "install", "1.11.0 was yanked from PyPI"),
    "scikit-learn": ("1.6", "install", "estimator tags API (__sklearn_tags__)"),
    "pandas": ("2.2", "install", "read_csv(on_bad_lines='warn') warns (ParserWarning) since 2.2"),
    "networkx": ("3.2", "install", "Chow-Liu trees (TAN) and pair-graph layouts"),
    "joblib": ("1.3", "install", "parallel blocks in the all-pairs HSIC"),
    "threadpoolctl": ("3.1", "install", "single-threaded BLAS in the dashboard"),
    "tqdm": ("4.66", "install", "progress bars of the experiments command line"),
    "plotly": (
        "5.23",
        "app",
        "the dashboard's figures (5.23: font shadows, the graphs' node names)",
    ),
    "streamlit": (
        "1.56",
        "app",
        "AppTest.file_uploader (tests) 1.56, st.expander(key=) 1.55, st.metric(delta_arrow=) 1.52, "
        'width="stretch" 1.49',
    ),
    "openpyxl": ("3.1", "app", "Excel uploads"),
    "pyarrow": ("14", "app", "Parquet uploads"),
    "pytest": ("8", "dev", "the test runner"),
    "hypothesis": ("6.100", "dev", "property-based tests of the validation layer"),
    "playwright": ("1.45", "dev", "real-browser tests, driving Debian's /usr/bin/chromium"),
    "axe-playwright-python": ("0.1.8", "dev", "tests/test_browser_a11y.py: axe-core, bundled"),
    "ruff": (RUFF_VERSION, "dev", "lint and format, pinned exactly"),
    "hatchling": ("1.18", "dev", "the build backend: tests/test_packaging.py builds the wheel"),
    "dask[distributed]": ("2024.1", "dev", "tests/test_distributed.py: joblib on dask"),
}

#: Packages whose specifier is an exact pin rather than a floor.
EXACT = {"ruff"}


def specifier(name: str) -> str:
    """``name>=floor`` (or ``name==version`` for an exact pin) as pyproject and pip spell it."""
    version = DEPENDENT_PACKAGES[name][0]
    return f"{name}{'==' if name in EXACT else '>='}{version}"


def requirements(tag: str) -> list[str]:
    """The specifiers of the packages with this tag, in this file's order."""
    return [specifier(n) for n, (_, tags, _) in DEPENDENT_PACKAGES.items() if tag in tags]


def pinned(*tags: str) -> list[str]:
    """Every floor as an exact pin (``numpy==1.26``...): what CI's minimum-versions job installs."""
    tags = tags or ("install", "app", "dev")
    return [
        f"{n}=={version}"
        for n, (version, t, _) in DEPENDENT_PACKAGES.items()
        if any(tag in t for tag in tags)
    ]


def _main(argv: list[str]) -> int:
    """``python slb/_min_dependencies.py pinned [TAG...]`` prints one requirement a line."""
    if not argv or argv[0] != "pinned":
        print(__doc__.strip().splitlines()[0])
        print("usage: python slb/_min_dependencies.py pinned [install] [app] [dev]")
        return 2
    print("\n".join(pinned(*argv[1:])))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
