"""Issue 25's K = 2 regression: two-class outputs equal the ones recorded before multiclass.

``tests/data/binary_regression/outputs.npz`` was written by ``make_fixtures.py`` (beside it) on
the code before the K-class generalisation; every classifier is refitted here on the same rows
and must give the same predictions, and the same decision values and probabilities up to
floating-point reordering (1e-9 relative).  A changed two-class decision fails this test.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent / "data" / "binary_regression"
_spec = importlib.util.spec_from_file_location("binary_fixtures", HERE / "make_fixtures.py")
fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fixtures)

RECORDED = np.load(HERE / "outputs.npz")
CASES = {case: (Xtr, ytr, Xte) for case, Xtr, ytr, Xte in fixtures.cases()}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("key", sorted(fixtures.CLASSIFIERS))
def test_two_class_outputs_unchanged(case, key):
    Xtr, ytr, Xte = CASES[case]
    est = fixtures.build(key).fit(Xtr, ytr)
    now = fixtures.outputs(est, Xte)
    recorded = {
        k.split("|")[2]: RECORDED[k] for k in RECORDED.files if k.startswith(f"{case}|{key}|")
    }
    assert set(now) == set(recorded)
    np.testing.assert_array_equal(now["predict"], recorded["predict"])
    for what in ("decision", "proba"):
        if what in now:
            assert now[what].shape == recorded[what].shape, what
            np.testing.assert_allclose(now[what], recorded[what], rtol=1e-9, atol=1e-12)
