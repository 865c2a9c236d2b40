"""Hostile model files end in a ValueError, quickly and without inflating (issue 15, 7).

The files come from ``tests/data/make_hostile_models.py`` (zip and JSON bombs, nested zips,
``.npy`` headers declaring gigabytes, object arrays, path traversal names, pickles, wrong
structures and classes, and real files of scikit-learn's trees, forests, SVMs and k-NN, of the
table cleaner and of pipelines with one field falsified where native code would trust it).  Each must be refused with a ``ValueError`` -- never another exception,
never a model -- and loading it may allocate at most a fraction of what it declares (peak traced
memory, a generous bound; no timing assertions).
"""

from __future__ import annotations

import io
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "data"))
from make_hostile_models import _repack, _saved, hostile_models  # noqa: E402

from slb import KDENaiveBayes, load_dataset  # noqa: E402
from slb.persistence import load_model, save_model  # noqa: E402

FILES = hostile_models()
PEAK_BYTES = 300 * 10**6  # generous: the bombs declare 0.25-2 GiB, or 10**24 bytes


def test_the_corpus_is_large_enough():
    assert len(FILES) >= 30


@pytest.mark.parametrize("name", sorted(FILES))
def test_hostile_model_file_is_refused(name):
    data = FILES[name]
    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as info:
            load_model(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    msg = str(info.value)
    assert msg and "Traceback" not in msg
    assert peak < PEAK_BYTES, f"{name}: peak {peak / 1e6:.0f} MB"


def test_a_real_model_still_loads_under_the_same_measurement():
    # The bound above is meaningful: a genuine file loads, and the measurement sees its arrays.
    X, y = load_dataset("pima")
    model = KDENaiveBayes().fit(X.iloc[:200], y.iloc[:200])
    buf = io.BytesIO()
    save_model(model, buf)
    tracemalloc.start()
    try:
        again = load_model(buf.getvalue())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert type(again) is KDENaiveBayes
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    assert peak > 200 * 8  # at least the 200 training rows were read


def test_the_falsified_files_come_from_files_that_load():
    # The refusals above are due to the falsified field: the same files, untouched, load.
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.svm import SVC
    from sklearn.tree import DecisionTreeClassifier

    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 1.0], [4.0, 3.0], [5.0, 0.5]] * 2)
    y = np.array([0, 0, 1, 1, 0, 1] * 2)
    for model in (
        DecisionTreeClassifier(max_depth=2, random_state=0),
        RandomForestClassifier(n_estimators=2, random_state=0),
        SVC(),
        KNeighborsClassifier(n_neighbors=3),
    ):
        model.fit(X, y)
        again = load_model(_repack(*_saved(model)))
        np.testing.assert_array_equal(again.predict(X), model.predict(X))
