"""The numpydoc Examples of slb's modules, and of the dashboard's, run as doctests (issue 30,
item 4).

Every module of the library is imported and its docstrings' examples executed; an example
whose output changed fails here.  Examples print plain Python values (not numpy scalars), so
they read the same at the minimum numpy version.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import dashboard
import slb

# Modules whose import needs an optional dependency (the [app] extra) are still collected:
# the suite installs it.
MODULES = sorted(
    m.name for m in pkgutil.walk_packages(slb.__path__, prefix="slb.") if ".tests" not in m.name
)
#: The dashboard's modules (their examples were not run before: dashboard.fold_tasks, H43).
DASHBOARD = sorted(m.name for m in pkgutil.iter_modules(dashboard.__path__, prefix="dashboard."))


@pytest.mark.parametrize("name", MODULES + DASHBOARD)
def test_module_examples(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    failures = []
    for test in finder.find(module, name):
        if test.examples:
            result = runner.run(test, out=lambda text: failures.append(text))
            assert result.failed == 0 or failures, name
    assert not failures, "".join(failures)


def test_some_examples_exist():
    """The check runs on something: the public estimators and functions carry examples."""
    finder = doctest.DocTestFinder(exclude_empty=True)
    n = sum(
        len(t.examples)
        for name in MODULES
        for t in finder.find(importlib.import_module(name), name)
    )
    assert n >= 20
    assert (
        sum(
            len(t.examples)
            for name in DASHBOARD
            for t in finder.find(importlib.import_module(name), name)
        )
        >= 30
    )
