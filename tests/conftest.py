"""Shared fixtures of the test suite.

Fixtures here are session-scoped and return fresh copies where a test could mutate the data.
Add new shared fixtures at the end of the file.
"""

import numpy as np
import pandas as pd
import pytest

import slb


@pytest.fixture(scope="session")
def _pima_frame():
    return slb.load_dataset("pima")


@pytest.fixture
def pima(_pima_frame):
    """The bundled Pima data set: ``(X, y)`` as a DataFrame (8 named columns) and string labels."""
    X, y = _pima_frame
    return X.copy(), y.copy()


def make_two_class(n_per_class=80, d=5, seed=0):
    """Small two-class Gaussian data with a class-specific dependence structure.

    Class ``"a"``: ``x1 = 0.9 x0 + noise``; class ``"b"``: ``x3 = 0.9 x2 + noise`` and a mean
    shift (and ``x4`` scaled by 1.8 when ``d > 4``); every other coordinate independent standard
    normal.  Returns ``(X, y)`` as ndarrays,
    labels ``"a"``/``"b"`` (so ``classes_ == ["a", "b"]``: ``+`` is ``"b"``).
    """
    rng = np.random.default_rng(seed)
    Xa = rng.normal(size=(n_per_class, d))
    Xa[:, 1] = 0.9 * Xa[:, 0] + 0.45 * Xa[:, 1]
    Xb = rng.normal(size=(n_per_class, d))
    Xb[:, 3] = 0.9 * Xb[:, 2] + 0.45 * Xb[:, 3]
    Xb[:, 0] += 0.7
    if d > 4:
        Xb[:, 4] *= 1.8
    X = np.vstack([Xa, Xb])
    y = np.array(["a"] * n_per_class + ["b"] * n_per_class, dtype=object)
    perm = rng.permutation(2 * n_per_class)
    return X[perm], y[perm]


@pytest.fixture
def two_class():
    """``make_two_class()``: 160 rows, 5 features, labels "a"/"b"."""
    return make_two_class()


@pytest.fixture
def two_class_frame(two_class):
    """``two_class`` as a DataFrame with columns ``f0 .. f4`` and a Series of labels."""
    X, y = two_class
    return pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])]), pd.Series(y, name="y")


# Property-based tests explore new examples locally but replay a fixed sequence in CI, so a CI
# run is reproducible (a failure found locally is kept in .hypothesis/ and replayed first).
try:
    import os

    from hypothesis import settings as _hyp_settings

    _hyp_settings.register_profile("ci", derandomize=True, print_blob=True)
    if os.environ.get("CI"):
        _hyp_settings.load_profile("ci")
except ImportError:  # pragma: no cover - hypothesis is in requirements-dev.txt
    pass
