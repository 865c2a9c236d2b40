"""Export -> import round trips give identical predictions; hostile files are refused."""

import io
import json
import zipfile

import numpy as np
import pytest

from slb import (
    ForestDensityClassifier,
    KDENaiveBayes,
    LUClassifier,
    SLBClassifier,
    TANClassifier,
    load_dataset,
)
from slb.persistence import load_model, model_settings, save_model


@pytest.fixture(scope="module")
def pima():
    X, y = load_dataset("pima")
    return X.iloc[:300], y.iloc[:300]


@pytest.mark.parametrize(
    "model",
    [
        SLBClassifier(random_state=0),
        SLBClassifier(threshold="fdr", bandwidth_overrides={"glucose": 1.5}),
        SLBClassifier(threshold=0.01, pair_rule="per_class", dependence="spearman"),
        LUClassifier(bandwidth="silverman"),
        ForestDensityClassifier(),
        KDENaiveBayes(priors="empirical"),
        TANClassifier(),
    ],
    ids=lambda m: type(m).__name__,
)
def test_round_trip_identical_predictions(pima, model):
    X, y = pima
    model.fit(X, y)
    buf = io.BytesIO()
    save_model(model, buf)
    again = load_model(buf.getvalue())
    assert type(again) is type(model)
    assert again.get_params() == model.get_params()
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    assert list(again.classes_) == list(model.classes_)
    if hasattr(model, "coef_"):
        np.testing.assert_array_equal(np.asarray(again.coef_), np.asarray(model.coef_))
    if hasattr(model, "terms_"):
        np.testing.assert_array_equal(
            np.asarray(again.terms_, dtype=object), np.asarray(model.terms_, dtype=object)
        )


def test_file_holds_only_json_and_npz(pima):
    X, y = pima
    buf = io.BytesIO()
    save_model(LUClassifier().fit(X, y), buf)
    with zipfile.ZipFile(buf) as zf:
        assert sorted(zf.namelist()) == ["arrays.npz", "model.json"]
        doc = json.loads(zf.read("model.json"))
    assert doc["format"] == "slb-model"
    assert doc["model"]["__estimator__"] == "LUClassifier"


def _empty_npz():
    buf = io.BytesIO()
    np.savez(buf)
    return buf.getvalue()


def _zip(doc, arrays=None):
    arrays = _empty_npz() if arrays is None else arrays
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("model.json", json.dumps(doc))
        zf.writestr("arrays.npz", arrays)
    return buf.getvalue()


@pytest.mark.parametrize(
    "payload, message",
    [
        (b"", "not an SLB Explorer model file"),
        (b"\x89PNG\r\n\x1a\n0000", "not an SLB Explorer model file"),
        (_zip({"format": "other"}), "not an SLB Explorer model file"),
        (
            _zip({"format": "slb-model", "version": 1, "model": {"__estimator__": "os.system"}}),
            "only contain slb models",
        ),
    ],
    ids=["empty", "png", "other-format", "foreign-class"],
)
def test_hostile_files_are_refused(payload, message):
    with pytest.raises(ValueError, match=message):
        load_model(payload)


def test_pickled_arrays_are_refused(pima):
    # An .npz holding an object array would need pickle to load: refused, never executed.
    arrays = io.BytesIO()
    np.savez(arrays, a0=np.array([{"x": 1}], dtype=object))
    doc = {"format": "slb-model", "version": 1, "model": {"__array__": "a0"}}
    with pytest.raises(ValueError):
        load_model(_zip(doc, arrays.getvalue()))


def test_settings_are_json(pima):
    X, y = pima
    model = SLBClassifier(threshold="fdr").fit(X, y)
    s = model_settings(model)
    json.dumps(s)
    assert s["estimator"] == "SLBClassifier"
    assert s["params"]["threshold"] == "fdr"
    assert s["n_terms"] == model.coef_.size
    assert len(s["pairs"]) == model.pairs_.shape[0]


@pytest.mark.parametrize(
    "arr",
    [
        np.arange(12.0).reshape(3, 4),
        np.asfortranarray(np.arange(12.0).reshape(3, 4)),
        np.arange(6, dtype=">i4").reshape(2, 3),
        np.array([True, False]),
        np.zeros((0, 5), dtype=np.float32),
        np.array(3.5),
    ],
    ids=["c-order", "fortran", "big-endian-int", "bool", "empty", "scalar"],
)
def test_checked_npy_reader_matches_numpy(arr):
    # load_model reads each .npy header itself (to check sizes first); numpy is the reference.
    from slb.persistence import _read_arrays

    buf = io.BytesIO()
    np.savez_compressed(buf, a0=arr)
    got = _read_arrays(buf.getvalue())["a0"]
    ref = np.load(io.BytesIO(buf.getvalue()), allow_pickle=False)["a0"]
    assert got.dtype == ref.dtype and got.shape == ref.shape
    np.testing.assert_array_equal(got, ref)


def test_members_are_inflated_in_bounded_chunks(monkeypatch, pima):
    # ZipExtFile.read() without a size asks zlib for up to 2 GiB at once; load_model asks for
    # one chunk at a time, never more than the declared size + 1 in all.
    from slb import _persist_read

    X, y = pima
    buf = io.BytesIO()
    save_model(KDENaiveBayes().fit(X, y), buf)
    asked = []
    real_read = zipfile.ZipExtFile.read

    def read(self, n=-1):
        asked.append(n)
        return real_read(self, n)

    monkeypatch.setattr(zipfile.ZipExtFile, "read", read)
    load_model(buf.getvalue())
    assert asked and all(0 <= n <= _persist_read._CHUNK for n in asked)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_bare_json_constants_are_refused(constant):
    text = (
        '{"format": "slb-model", "version": 1, "model": {"__estimator__": "KDENaiveBayes", '
        '"params": {"__dict__": [["density_floor", ' + constant + ']]}, "state": {"__dict__": []}}}'
    )
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("model.json", text)
        zf.writestr("arrays.npz", _empty_npz())
    with pytest.raises(ValueError, match=f"bare constant {constant}, which"):
        load_model(buf.getvalue())


@pytest.mark.parametrize("name", ["predict", "fit", "get_params", "__dict__", "priors", "_cache"])
def test_state_may_not_shadow_methods_or_hold_undeclared_names(pima, name):
    X, y = pima
    buf = io.BytesIO()
    save_model(KDENaiveBayes().fit(X, y), buf)
    with zipfile.ZipFile(buf) as zf:
        doc = json.loads(zf.read("model.json"))
        arrays = zf.read("arrays.npz")
    doc["model"]["state"]["__dict__"].append([name, 1])
    with pytest.raises(ValueError, match=f"KDENaiveBayes.{name} "):
        load_model(_zip(doc, arrays))


def test_declared_attributes_come_from_the_docstrings():
    from slb._persist_validate import declared_attributes

    names = declared_attributes(SLBClassifier)
    assert {"coef_", "intercept_", "classes_", "transformer_", "_terms"} <= names
    assert "predict" not in names and "C" not in names


@pytest.fixture(scope="module")
def three_class_files():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    y = np.array(["setosa", "versicolor", "virginica"], dtype=object)[y]
    out = {}
    for est in (KDENaiveBayes(), TANClassifier(), SLBClassifier(threshold=0.01, random_state=0)):
        est.fit(X, y)
        buf = io.BytesIO()
        save_model(est, buf)
        with zipfile.ZipFile(buf) as zf:
            doc = json.loads(zf.read("model.json"))
            npz = np.load(io.BytesIO(zf.read("arrays.npz")), allow_pickle=False)
            arrays = {k: npz[k] for k in npz.files}
        out[type(est).__name__] = (est, doc, arrays, X)
    return out


def _npz(arrays):
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _state_array(doc, key, cls=None):
    """The array name of the first fitted attribute ``key`` (of an estimator ``cls``)."""
    stack = [doc]
    while stack:
        obj = stack.pop(0)
        if isinstance(obj, dict):
            if "__estimator__" in obj and cls in (None, obj["__estimator__"]):
                for k, v in obj["state"]["__dict__"]:
                    if k == key and isinstance(v, dict) and "__array__" in v:
                        return v["__array__"]
            stack.extend(obj.values())
        elif isinstance(obj, list):
            stack.extend(obj)
    raise KeyError(key)


@pytest.mark.parametrize("name", ["KDENaiveBayes", "TANClassifier", "SLBClassifier"])
@pytest.mark.parametrize(
    "attr, cls, change, message",
    [
        ("coef_", None, lambda a: a[:-1], "coef_ has shape"),
        ("intercept_", None, lambda a: a[:-1], "intercept_ has shape"),
        ("bandwidths_", "LogDensityTransformer", lambda a: a[:-1], "bandwidths_ has shape"),
        ("coef_", None, lambda a: a * np.nan, "NaN"),
    ],
    ids=["coef-rows", "intercept-rows", "bandwidth-rows", "coef-nan"],
)
def test_k_class_files_are_checked_against_len_classes(
    three_class_files, name, attr, cls, change, message
):
    est, doc, arrays, X = three_class_files[name]
    np.testing.assert_array_equal(load_model(_zip(doc, _npz(arrays))).predict(X), est.predict(X))
    damaged = dict(arrays)
    key = _state_array(doc, attr, cls)
    damaged[key] = change(arrays[key].copy())
    with pytest.raises(ValueError, match=message):
        load_model(_zip(doc, _npz(damaged)))


def test_k_class_file_with_a_fourth_class_name_is_refused(three_class_files):
    est, doc, arrays, X = three_class_files["KDENaiveBayes"]
    doc = json.loads(json.dumps(doc))
    for k, v in doc["model"]["state"]["__dict__"]:
        if k == "classes_":
            v["__objarray__"].append("extra")
            v["shape"] = [4]
    with pytest.raises(ValueError, match="classes"):
        load_model(_zip(doc, _npz(arrays)))
