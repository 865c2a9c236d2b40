"""Property: a model file with one fitted array damaged is refused, or answers as before.

For every classifier of :data:`slb.evaluation.registry.CLASSIFIERS` (and the density family's
three-class models), Hypothesis picks one array
of its saved file (coefficients, bandwidths, density training rows, tree nodes, support vectors,
bin edges, ...) and one mutation: an entry set to NaN or +-infinity (integers: to 2**31 - 1), an
entry made negative where every entry is non-negative by nature (bandwidths, variances, scales,
counts, indices), the array reshaped (same entries, other shape) or truncated by its last
entry along the first axis.  :func:`slb.persistence.load_model` must then raise a
``ValueError``, or -- when the damaged array is not used for predictions (a display-only
diagnostic such as ``cv_results_``, an iteration count) -- load a model whose predictions,
decision values and probabilities are exactly those of the original.  Any other exception, or
any other answer, fails the test.

A second property does the same to the fitted *numbers and strings* stored in the JSON (counts,
thresholds, kernel widths, seeds, labels of a tree's edges, ...): each is replaced by -1, 0,
10**12, NaN, infinity, text, ``None``, 2.5 or ``True``.  (Constructor parameters are left out:
another valid parameter is another valid model, and scikit-learn's parameter validation checks
their types and ranges.)

One mutation is left out on purpose: dropping a training row of a kernel density.  The result
is a valid model of one row fewer, and a file records no row count that could tell (inside a
``Pipeline`` the cleaner's class counts bound the rows from above; see
``tests/test_hostile_models.py``).
"""

from __future__ import annotations

import io
import json
import os
import sys
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent / "data"))
from make_hostile_fitted import _data, fitted, pack  # noqa: E402

from slb.evaluation.registry import CLASSIFIERS  # noqa: E402
from slb.persistence import load_model, save_model  # noqa: E402

#: Arrays whose entries are all >= 0 by nature: a negative entry is damage.
NON_NEGATIVE = {
    "bandwidths_",
    "pair_bandwidths_",
    "h1",
    "h2",
    "floor1",
    "floor2",
    "scale_",
    "var_",
    "class_count_",
    "class_prior_",
    "class_weight_",
    "support_",
    "_n_support",
    "_y",
    "pairs_",
    "_edge_index",
    "n_levels_",
    "blocks_",
    "block_sizes_",
    "selected_features_",
    "chain_orders_",
    "left_child",
    "right_child",
    "n_node_samples",
    "weighted_n_node_samples",
    "impurity",
    "values",
    "n_classes",
    "feature_importances_",
}
MUTATIONS = ("nan", "inf", "negative", "reshape", "truncate")
#: Examples per classifier (about 0.02-0.1 s each); raise it to search longer.
EXAMPLES = int(os.environ.get("SLB_MUTATION_EXAMPLES", "12"))


def _document(model):
    buf = io.BytesIO()
    save_model(model, buf)
    with zipfile.ZipFile(buf) as zf:
        doc = json.loads(zf.read("model.json"))
        npz = np.load(io.BytesIO(zf.read("arrays.npz")), allow_pickle=False)
        arrays = {k: npz[k] for k in npz.files}
    return doc, arrays


def _array_names(obj, owner=None, out=None):
    """``{array key: attribute name}``: the state or tree field each stored array belongs to."""
    out = {} if out is None else out
    if isinstance(obj, dict):
        if "__array__" in obj:
            out[obj["__array__"]] = owner
            return out
        if "__dict__" in obj:
            for k, v in obj["__dict__"]:
                _array_names(v, k if isinstance(k, str) else owner, out)
            return out
        for v in obj.values():
            _array_names(v, owner, out)
    elif isinstance(obj, list):
        for v in obj:
            _array_names(v, owner, out)
    return out


_CACHE = {}


#: Three-class models of the density family (the checks follow ``len(classes_)``).
THREE_CLASS = ("SLB", "LU", "TAN", "NB")


def _three_class(name):
    from sklearn.datasets import load_iris

    from slb.evaluation.registry import make_classifier

    X, y = load_iris(return_X_y=True)
    y = np.array(["setosa", "versicolor", "virginica"], dtype=object)[y]
    return make_classifier(name, random_state=0).fit(X, y), X


def _original(name):
    if name not in _CACHE:
        if name.endswith(" (3 classes)"):
            model, X = _three_class(name.split(" ")[0])
        else:
            model, (X, _) = fitted(name), _data()
        doc, arrays = _document(model)
        names = _array_names(doc)
        keys = sorted(k for k in arrays if arrays[k].size > 0)
        X = np.vstack([X, X[:5] * 3 + 1])  # also rows beyond the training range
        _CACHE[name] = (model, doc, arrays, names, keys, X, _answers(model, X))
    return _CACHE[name]


def _answers(model, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = {"predict": np.asarray(model.predict(X))}
        for m in ("decision_function", "predict_proba"):
            if hasattr(model, m):
                try:
                    out[m] = np.asarray(getattr(model, m)(X), dtype=float)
                except ValueError as exc:  # e.g. predict_proba of a model without it
                    out[m] = str(exc)
    return out


def _mutate(a, kind, where):
    """``a`` damaged by ``kind`` at the entry at fraction ``where`` of its flat index."""
    a = a.copy()
    flat = a.reshape(-1)
    i = min(int(where * flat.size), flat.size - 1)
    if kind in ("nan", "inf"):
        if a.dtype.kind == "f":
            flat[i] = np.nan if kind == "nan" else (np.inf if where < 0.5 else -np.inf)
        elif a.dtype.kind == "b":
            flat[i] = not flat[i]
        else:
            flat[i] = min(2**31 - 1, np.iinfo(a.dtype).max)
        return a
    if kind == "negative":
        flat[i] = -abs(flat[i]) - 1
        return a
    if kind == "reshape":
        return a.reshape(-1) if a.ndim > 1 else a.reshape(1, -1) if where < 0.5 else a[:, None]
    return a[:-1]  # truncate


@pytest.mark.slow
@pytest.mark.parametrize("name", [*CLASSIFIERS, *(f"{n} (3 classes)" for n in THREE_CLASS)])
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors],
)
@given(data=st.data())
def test_a_damaged_array_is_refused_or_changes_nothing(name, data):
    model, doc, arrays, names, keys, X, want = _original(name)
    key = data.draw(st.sampled_from(keys), label="array")
    attr = names.get(key)
    allowed = [
        k
        for k in MUTATIONS
        if not (k == "negative" and attr not in NON_NEGATIVE)
        and not (k == "truncate" and attr == "X")  # one density row fewer: see the docstring
        and not (k == "reshape" and arrays[key].ndim == 0)
    ]
    kind = data.draw(st.sampled_from(allowed), label=f"mutation of {attr}")
    where = data.draw(st.floats(0, 1), label="entry")
    damaged = dict(arrays)
    damaged[key] = _mutate(arrays[key], kind, where)
    blob = pack(doc, damaged)
    try:
        again = load_model(blob)
    except ValueError as exc:
        assert str(exc) and "Traceback" not in str(exc)
        return
    got = _answers(again, X)
    assert set(got) == set(want), f"{kind} of {attr}: other methods"
    for method, value in want.items():
        if isinstance(value, str):
            assert got[method] == value, f"{kind} of {attr}: {method} message changed"
        else:
            np.testing.assert_array_equal(
                got[method], value, err_msg=f"{kind} of {attr} ({key}) changed {method}"
            )


def _state_scalars(doc):
    """Every ``[name, value]`` pair of a fitted state whose value is a number, text or None."""
    out, stack = [], [doc]
    while stack:
        obj = stack.pop()
        if isinstance(obj, dict):
            if "__estimator__" in obj:
                stack.append(obj["state"])  # never the parameters
                for v in obj["params"]["__dict__"]:
                    stack.append(v[1])  # but estimators nested in them (a forest's template)
                continue
            if "__dict__" in obj:
                for pair in obj["__dict__"]:
                    v = pair[1]
                    if v is None or isinstance(v, (int, float, str)) or "__float__" in str(v)[:12]:
                        out.append(pair)
                    stack.append(v)
                continue
            stack.extend(obj.values())
        elif isinstance(obj, list):
            stack.extend(obj)
    return out


SCALARS = (-1, 0, 10**12, {"__float__": "nan"}, {"__float__": "inf"}, "x", None, 2.5, True)
#: Fitted numbers any positive finite value of which is a valid model (like a coefficient):
#: an SVM's kernel width under gamma="scale" depends on the training rows' variance, which the
#: file does not keep; naive Bayes's and TAN's calibration factor ``logit_scale_`` was fitted on
#: cross-fitted log-likelihoods the file does not keep either.  They get only invalid
#: replacements.
FREE = {"_gamma", "logit_scale_"}
INVALID = (-1, 0, {"__float__": "nan"}, {"__float__": "inf"}, "x", None)


@pytest.mark.slow
@pytest.mark.parametrize("name", [*CLASSIFIERS, *(f"{n} (3 classes)" for n in THREE_CLASS)])
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors],
)
@given(data=st.data())
def test_a_damaged_fitted_scalar_is_refused_or_changes_nothing(name, data):
    model, doc, arrays, names, keys, X, want = _original(name)
    doc = json.loads(json.dumps(doc))
    pairs = _state_scalars(doc)
    pair = data.draw(st.sampled_from(pairs), label="attribute")
    old = pair[1]
    choices = INVALID if pair[0] in FREE else SCALARS
    pair[1] = data.draw(st.sampled_from([v for v in choices if v != old]), label=str(pair[0]))
    try:
        again = load_model(pack(doc, arrays))
    except ValueError as exc:
        assert str(exc) and "Traceback" not in str(exc)
        return
    got = _answers(again, X)
    assert set(got) == set(want), f"{pair[0]}: other methods"
    for method, value in want.items():
        if isinstance(value, str):
            assert got[method] == value, f"{pair[0]} = {pair[1]!r}: {method} message changed"
        else:
            np.testing.assert_array_equal(
                got[method], value, err_msg=f"{pair[0]} = {pair[1]!r} changed {method}"
            )
