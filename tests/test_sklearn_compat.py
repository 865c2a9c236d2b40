"""The one module of private scikit-learn names (slb._sklearn_compat): each still resolves and
behaves as written for, and no other module imports a private scikit-learn name.

These tests fail loudly when a scikit-learn release moves or changes one of the names: the
fix is in ``slb/_sklearn_compat.py`` alone.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
from sklearn.svm import SVC

from slb import _sklearn_compat as compat
from slb.model.svm import class_weights

ROOT = Path(__file__).resolve().parents[1]


def test_the_private_names_resolve():
    assert compat.Interval.__module__.startswith("sklearn.utils")
    assert callable(compat.sigmoid_calibration)
    assert compat.Tree.__module__ == "sklearn.tree._tree"
    assert "left_child" in compat.NODE_DTYPE.names


def test_direct_libsvm_entry_is_still_svc():
    """If this fails, scikit-learn changed sklearn.svm._libsvm.fit: every SLB fit now goes
    through SVC (the same numbers, about 3x slower); update _direct_fit."""
    compat.LIBSVM_DIRECT = None
    assert compat.libsvm_direct(), "scikit-learn's private libsvm entry moved or changed"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_libsvm_fit_is_svc_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(70, 9))
    y = (Z[:, 0] + rng.normal(size=70) > 0.3).astype(int)
    K = Z @ Z.T
    w = class_weights("balanced", y) if seed else np.array([1.0, 2.5])
    for C in (0.05, 1.0):
        svc = SVC(kernel="precomputed", C=C, class_weight={0: w[0], 1: w[1]}, tol=1e-3).fit(K, y)
        dual, support, b = compat.libsvm_fit(K, y.astype(float), C, w)
        assert np.array_equal(support, svc.support_)
        assert np.array_equal(dual, svc.dual_coef_.ravel())
        assert b == float(svc.intercept_[0])


class _MovedLibsvm:
    """A scikit-learn whose private libsvm entry takes other arguments."""

    @staticmethod
    def set_verbosity_wrap(_):
        pass

    @staticmethod
    def fit(*args, **kwargs):
        raise TypeError("fit() got an unexpected keyword argument 'svm_type'")


def test_a_moved_libsvm_entry_falls_back_to_svc(monkeypatch):
    rng = np.random.default_rng(3)
    Z = rng.normal(size=(60, 5))
    y = (Z[:, 1] > 0).astype(float)
    K, w = Z @ Z.T, np.array([1.0, 1.5])
    expected = compat.libsvm_fit(K, y, 0.5, w)
    monkeypatch.setattr(compat, "_libsvm", _MovedLibsvm())
    monkeypatch.setattr(compat, "LIBSVM_DIRECT", None)
    dual, support, b = compat.libsvm_fit(K, y, 0.5, w)
    assert compat.LIBSVM_DIRECT is False  # decided once by the probe, not by an error text
    assert np.array_equal(support, expected[1]) and np.allclose(dual, expected[0], atol=1e-12)
    assert b == pytest.approx(expected[2], abs=1e-12)
    # a real error of the (public) fit surfaces
    with pytest.raises(ValueError):
        compat.libsvm_fit(np.full((2, 2), np.nan), np.array([0.0, 1.0]), 1.0, w)


def _private_sklearn_imports(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("sklearn"):
            private_module = any(part.startswith("_") for part in node.module.split("."))
            private_name = any(a.name.startswith("_") for a in node.names)
            if private_module or private_name:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("sklearn") and any(
                    p.startswith("_") for p in a.name.split(".")
                ):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


@pytest.mark.slow  # >= 1.4 s in the development tier (stop 43, --durations)
def test_no_private_sklearn_import_outside_the_compat_module():
    files = [
        p
        for folder in ("slb", "dashboard", "pages", "tests", "benchmarks", "scripts")
        for p in (ROOT / folder).rglob("*.py")
    ] + [ROOT / "app.py"]
    offenders = [
        hit
        for p in files
        if p.name != "_sklearn_compat.py" and p.name != "test_sklearn_compat.py"
        for hit in _private_sklearn_imports(p)
    ]
    assert offenders == [], (
        f"private scikit-learn imports outside slb/_sklearn_compat.py: {offenders}"
    )
