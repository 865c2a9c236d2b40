"""Hostile model files for ``slb.persistence.load_model`` (issue 15, finding 7).

``hostile_models()`` returns ``{name: bytes}``; ``tests/test_hostile_models.py`` loads each one
and expects a ``ValueError`` within generous time and memory bounds.  Run this file to write the
corpus to ``tests/data/hostile_models/`` (``python tests/data/make_hostile_models.py``); the
output is deterministic (fixed zip timestamps, no randomness).

Every file is small on disk; many *declare* or *inflate to* gigabytes.
"""

from __future__ import annotations

import io
import json
import pickle
import struct
import warnings
import zipfile
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "hostile_models"
STAMP = (2024, 1, 1, 12, 0, 0)
GIB = 2**30


def _zip(members, compression=zipfile.ZIP_DEFLATED) -> bytes:
    """A zip of ``[(name, bytes), ...]`` with fixed timestamps."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=compression) as zf:
        for name, data in members:
            zf.writestr(zipfile.ZipInfo(name, STAMP), data, compress_type=compression)
    return buf.getvalue()


def _npy_header(shape, descr="<f8", fortran=False) -> bytes:
    """A version-1.0 ``.npy`` header declaring ``shape`` and ``descr`` (no body)."""
    head = repr({"descr": descr, "fortran_order": fortran, "shape": tuple(shape)}).encode()
    pad = 64 - (10 + len(head) + 1) % 64
    head += b" " * pad + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head


def _npz(members) -> bytes:
    return _zip(members, zipfile.ZIP_STORED)


def _empty_npz() -> bytes:
    return _npz([])


def _doc(model=None, **extra) -> dict:
    doc = {"format": "slb-model", "version": 1, "model": model}
    doc.update(extra)
    return doc


def _model_file(doc, npz=None, json_bytes=None) -> bytes:
    text = json_bytes if json_bytes is not None else json.dumps(doc).encode()
    return _zip([("model.json", text), ("arrays.npz", _empty_npz() if npz is None else npz)])


def _estimator(name="KDENaiveBayes", params=None, state=None) -> dict:
    return {
        "__estimator__": name,
        "params": {"__dict__": [[k, v] for k, v in (params or {}).items()]},
        "state": {"__dict__": [[k, v] for k, v in (state or {}).items()]},
    }


def _lying_zip(name: str, data: bytes, declared: int) -> bytes:
    """A one-member zip whose headers declare ``declared`` bytes unpacked for ``data``."""
    raw = bytearray(_zip([(name, data)]))
    # local header: uncompressed size at offset 22; central directory entry: at offset 24
    struct.pack_into("<I", raw, 22, declared)
    cd = raw.rfind(b"PK\x01\x02")
    struct.pack_into("<I", raw, cd + 24, declared)
    return bytes(raw)


def hostile_models() -> dict[str, bytes]:
    """Every hostile model file by name."""
    est = _estimator()
    good_doc = _doc(est)
    f = {}
    # --- not a zip / damaged container -----------------------------------------------------
    f["empty.slbmodel"] = b""
    f["png_magic.slbmodel"] = b"\x89PNG\r\n\x1a\n" + b"\0" * 64
    f["pickle_disguised_as_npz.slbmodel"] = pickle.dumps({"a0": [1, 2, 3]}, protocol=4)
    whole = _model_file(good_doc)
    f["truncated_zip.slbmodel"] = whole[: len(whole) // 2]
    f["truncated_end.slbmodel"] = whole[:-10]
    stored = _zip(
        [("model.json", json.dumps(good_doc).encode()), ("arrays.npz", _empty_npz())],
        zipfile.ZIP_STORED,
    )
    assert b'"slb-model"' in stored
    f["zip_bad_crc.slbmodel"] = stored.replace(b'"slb-model"', b'"slb-modeX"')
    f["unfitted_model.slbmodel"] = stored
    f["extra_member.slbmodel"] = _zip(
        [("model.json", json.dumps(good_doc).encode()), ("arrays.npz", _empty_npz()), ("x", b"")]
    )
    f["path_traversal_member.slbmodel"] = _zip(
        [("../../model.json", json.dumps(good_doc).encode()), ("arrays.npz", _empty_npz())]
    )
    f["absolute_path_member.slbmodel"] = _zip(
        [("/etc/model.json", json.dumps(good_doc).encode()), ("arrays.npz", _empty_npz())]
    )
    with warnings.catch_warnings():  # zipfile warns about the duplicate, on purpose here
        warnings.simplefilter("ignore", UserWarning)
        f["duplicate_members.slbmodel"] = _duplicate_members(good_doc)
    # --- bombs -----------------------------------------------------------------------------
    zeros_json = b"[" + b"0," * (95 * 10**6 // 1000) + b"0]"  # ~190 KB of text
    f["json_wide_list_of_zeros.slbmodel"] = _model_file(
        None,
        json_bytes=b'{"format":"slb-model","version":1,"model":{"__list__":' + zeros_json + b"}}",
    )
    f["json_bomb_64MB_zeros.slbmodel"] = _zip(
        [("model.json", b"[" + b"0," * (32 * 2**20) + b"0]"), ("arrays.npz", _empty_npz())]
    )
    f["json_6M_items.slbmodel"] = _zip(  # under the size cap, over the item cap
        [("model.json", b"[" + b"0," * 6_000_000 + b"0]"), ("arrays.npz", _empty_npz())]
    )
    f["json_deep_lists.slbmodel"] = _model_file(
        None,
        json_bytes=b'{"format":"slb-model","version":1,"model":'
        + b"[" * 100_000
        + b"]" * 100_000
        + b"}",
    )
    f["json_deep_objects.slbmodel"] = _model_file(
        None, json_bytes=b'{"a":' * 50_000 + b"1" + b"}" * 50_000
    )
    deep = {"__list__": []}
    node = deep
    for _ in range(60):  # under the bracket limit, but nested estimator-free lists
        child = {"__list__": []}
        node["__list__"].append(child)
        node = child
    f["json_nested_lists_in_state.slbmodel"] = _model_file(
        _doc(_estimator(state={"classes_": deep}))
    )
    f["zip_bomb_member_2GiB.slbmodel"] = _lying_zip("model.json", b"{}", 2 * GIB - 1)
    npz_bomb_inner = _zip([("a0.npy", _npy_header((2**28,)) + b"\0" * 64)])
    f["nested_npz_declares_2GiB.slbmodel"] = _zip(
        [
            ("model.json", json.dumps(good_doc).encode()),
            ("arrays.npz", _lying_zip_member(npz_bomb_inner, 2 * GIB - 1)),
        ],
        zipfile.ZIP_STORED,
    )
    big = _npz([("a0.npy", _npy_header((2**28,)) + b"\0" * 64)])
    f["npy_huge_declared_shape.slbmodel"] = _model_file(_doc({"__array__": "a0"}), big)
    f["npy_shape_overflow.slbmodel"] = _model_file(
        _doc({"__array__": "a0"}), _npz([("a0.npy", _npy_header((2**40, 2**40)) + b"\0" * 8)])
    )
    f["npy_negative_shape.slbmodel"] = _model_file(
        _doc({"__array__": "a0"}), _npz([("a0.npy", _npy_header((-1,)) + b"\0" * 8)])
    )
    # A real deflate bomb inside the nested npz: 256 MiB of zeros in 260 KB, declared.
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
        with zf.open(zipfile.ZipInfo("a0.npy", STAMP), "w", force_zip64=True) as out:
            out.write(_npy_header((2**25,)))
            chunk = b"\0" * 2**22
            for _ in range(2**28 // len(chunk)):
                out.write(chunk)
    f["npz_deflate_bomb_256MiB.slbmodel"] = _model_file(_doc({"__array__": "a0"}), bomb.getvalue())
    lies = _zip([("model.json", b"[" + b"0," * (16 * 2**20) + b"0]"), ("arrays.npz", _empty_npz())])
    f["json_member_lies_small.slbmodel"] = _shrink_declared(lies, "model.json", 1000)
    # --- arrays that would need pickle, or are not numbers -------------------------------
    obj = io.BytesIO()
    np.save(obj, np.array([{"x": 1}], dtype=object), allow_pickle=True)
    f["npy_object_dtype.slbmodel"] = _model_file(
        _doc({"__array__": "a0"}), _npz([("a0.npy", obj.getvalue())])
    )
    f["npy_pickle_payload.slbmodel"] = _model_file(
        _doc({"__array__": "a0"}),
        _npz([("a0.npy", _npy_header((1,), descr="|O") + pickle.dumps(print))]),
    )
    f["npy_structured_dtype.slbmodel"] = _model_file(
        _doc({"__array__": "a0"}),
        _npz([("a0.npy", _npy_header((1,), descr=[("a", "<f8")]) + b"\0" * 8)]),
    )
    f["npy_truncated_body.slbmodel"] = _model_file(
        _doc({"__array__": "a0"}), _npz([("a0.npy", _npy_header((1000,)) + b"\0" * 80)])
    )
    f["npy_bad_magic.slbmodel"] = _model_file(
        _doc({"__array__": "a0"}), _npz([("a0.npy", b"NOTNUMPY" + b"\0" * 120)])
    )
    f["npz_traversal_member.slbmodel"] = _model_file(
        good_doc, _npz([("../a0.npy", _npy_header((1,)) + b"\0" * 8)])
    )
    f["npz_not_a_zip.slbmodel"] = _model_file(good_doc, b"\x80\x04not a zip")
    # --- wrong structure, types and classes ----------------------------------------------
    f["plain_list.slbmodel"] = _model_file(None, json_bytes=b"[1, 2, 3]")
    f["plain_array_model.slbmodel"] = _model_file(
        _doc({"__array__": "a0"}), _npz([("a0.npy", _npy_bytes(np.arange(3.0)))])
    )
    f["model_is_list.slbmodel"] = _model_file(_doc({"__list__": [1, 2]}))
    f["model_is_number.slbmodel"] = _model_file(_doc(3))
    f["unknown_class.slbmodel"] = _model_file(_doc(_estimator("os.system")))
    f["sklearn_class_not_exportable.slbmodel"] = _model_file(
        _doc(_estimator("FunctionTransformer", params={"func": "os.system"}))
    )
    f["class_name_not_a_string.slbmodel"] = _model_file(_doc({"__estimator__": ["SLB"]}))
    f["unknown_param.slbmodel"] = _model_file(
        _doc(_estimator(params={"__init__": 1, "no_such_param": 2}))
    )
    f["params_not_a_dict.slbmodel"] = _model_file(
        _doc({"__estimator__": "KDENaiveBayes", "params": {"__list__": [1]}, "state": {}})
    )
    f["missing_state.slbmodel"] = _model_file(
        _doc({"__estimator__": "KDENaiveBayes", "params": {"__dict__": []}})
    )
    f["unhashable_dict_key.slbmodel"] = _model_file(
        _doc(_estimator(state={"x": {"__dict__": [[{"__dict__": []}, 1]]}}))
    )
    f["missing_array.slbmodel"] = _model_file(_doc(_estimator(state={"x": {"__array__": "a9"}})))
    f["bad_float.slbmodel"] = _model_file(_doc(_estimator(state={"x": {"__float__": "1e999"}})))
    f["objarray_bad_shape.slbmodel"] = _model_file(
        _doc(_estimator(state={"x": {"__objarray__": [1, 2], "shape": [2**40, 2**40]}}))
    )
    f["wrong_version.slbmodel"] = _model_file(_doc(_estimator(), version=99))
    f["wrong_format.slbmodel"] = _model_file({"format": "other", "version": 1, "model": est})
    f["json_not_utf8.slbmodel"] = _model_file(None, json_bytes=b"\xff\xfe{\x00}\x00")
    f["json_invalid.slbmodel"] = _model_file(None, json_bytes=b'{"format": "slb-model",')
    f["json_nan_constant.slbmodel"] = _model_file(
        None, json_bytes=b'{"format":"slb-model","version":1,"model":NaN}'
    )
    f.update(_hostile_fitted_models())
    return f


# --------------------------------------------------------------------------------------------
# Real model files of the new exportable types (trees, SVMs, k-NN, the table cleaner,
# pipelines) with one field falsified: what scikit-learn's native code would trust.
# --------------------------------------------------------------------------------------------
def _saved(model) -> tuple[dict, dict]:
    """``(document, arrays)`` of a fitted model as ``save_model`` writes it."""
    from slb.persistence import save_model

    buf = io.BytesIO()
    save_model(model, buf)
    with zipfile.ZipFile(buf) as zf:
        doc = json.loads(zf.read("model.json"))
        npz = np.load(io.BytesIO(zf.read("arrays.npz")), allow_pickle=False)
        arrays = {k: npz[k] for k in npz.files}
    return doc, arrays


def _repack(doc, arrays) -> bytes:
    npz = io.BytesIO()
    np.savez(npz, **arrays)
    return _model_file(doc, npz.getvalue())


def _entry(obj, key):
    """The value of the first ``[key, value]`` pair of a ``__dict__`` under ``obj``."""
    if isinstance(obj, dict):
        for k, v in obj.get("__dict__", []):
            if k == key:
                return v
        children = list(obj.values())
    elif isinstance(obj, list):
        children = obj
    else:
        return None
    for child in children:
        hit = _entry(child, key)
        if hit is not None:
            return hit
    return None


def _set_array(doc, arrays, key, change) -> bytes:
    """The model file with ``change(array)`` applied to the array stored under ``key``."""
    arrays = dict(arrays)
    name = _entry(doc, key)["__array__"]
    arrays[name] = change(arrays[name].copy())
    return _repack(doc, arrays)


def _hostile_fitted_models() -> dict[str, bytes]:
    import pandas as pd
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.svm import SVC
    from sklearn.tree import DecisionTreeClassifier

    from slb.tables.clean import TableCleaner

    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 1.0], [4.0, 3.0], [5.0, 0.5]] * 2)
    y = np.array([0, 0, 1, 1, 0, 1] * 2)
    f = {}
    tree = _saved(DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y))

    def poke(index, value):
        def change(a):
            a[index] = value
            return a

        return change

    f["tree_child_outside.slbmodel"] = _set_array(*tree, "left_child", poke(0, 10**6))
    f["tree_child_loops_to_root.slbmodel"] = _set_array(*tree, "left_child", poke(0, 0))
    f["tree_feature_outside.slbmodel"] = _set_array(*tree, "feature", poke(0, 99))
    f["tree_values_short.slbmodel"] = _set_array(*tree, "values", lambda a: a[:1])
    forest = _saved(RandomForestClassifier(n_estimators=2, random_state=0).fit(X, y))
    f["forest_tree_child_negative.slbmodel"] = _set_array(*forest, "right_child", poke(0, -7))
    svc = _saved(SVC().fit(X, y))
    f["svc_n_support_lies.slbmodel"] = _set_array(*svc, "_n_support", lambda a: a * 0 + 1000)
    f["svc_dual_coef_short.slbmodel"] = _set_array(*svc, "_dual_coef_", lambda a: a[:, :1])
    doc, arrays = svc
    bad = json.loads(json.dumps(doc).replace('"rbf"', '"precomputed"'))
    f["svc_kernel_precomputed.slbmodel"] = _repack(bad, arrays)
    bad = json.loads(json.dumps(doc).replace('["C", 1.0]', '["C", -1.0]'))
    f["svc_negative_C.slbmodel"] = _repack(bad, arrays)
    knn = _saved(KNeighborsClassifier(n_neighbors=3).fit(X, y))
    f["knn_codes_outside.slbmodel"] = _set_array(*knn, "_y", lambda a: a + 50)
    f["knn_rows_one_dimensional.slbmodel"] = _set_array(*knn, "_fit_X", lambda a: a.ravel())
    frame = pd.DataFrame({"x": X[:, 0], "c": ["a", "b"] * 6, "label": y})
    doc, arrays = _saved(TableCleaner("label", non_numeric="encode").fit(frame))
    bad = json.loads(json.dumps(doc).replace('"category"', '"__import__"'))
    f["cleaner_unknown_kind.slbmodel"] = _repack(bad, arrays)
    pipeline = {
        "__estimator__": "Pipeline",
        "params": {
            "__dict__": [
                [
                    "steps",
                    {
                        "__list__": [
                            {"__tuple__": ["clean", doc["model"]]},
                            {"__tuple__": ["run", _estimator("FunctionTransformer")]},
                        ]
                    },
                ]
            ]
        },
        "state": {"__dict__": []},
    }
    f["pipeline_with_foreign_step.slbmodel"] = _repack(_doc(pipeline), arrays)
    # a Pipeline reports only its last step as fitted: here the cleaner before it is not
    knn_doc, knn_arrays = _saved(KNeighborsClassifier(n_neighbors=3).fit(X, y))
    pipeline["params"]["__dict__"][0][1]["__list__"] = [
        {"__tuple__": ["clean", _estimator("TableCleaner")]},
        {"__tuple__": ["model", knn_doc["model"]]},
    ]
    f["pipeline_with_unfitted_cleaner.slbmodel"] = _repack(_doc(pipeline), knn_arrays)
    return f


def _duplicate_members(doc) -> bytes:
    return _zip(
        [
            ("model.json", json.dumps(doc).encode()),
            ("model.json", b"{}"),
            ("arrays.npz", _empty_npz()),
        ]
    )


def _npy_bytes(arr) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=False)
    return buf.getvalue()


def _lying_zip_member(zip_bytes: bytes, declared: int) -> bytes:
    """``zip_bytes`` (a one-member zip) with its member's unpacked size set to ``declared``."""
    raw = bytearray(zip_bytes)
    struct.pack_into("<I", raw, 22, declared)
    cd = raw.rfind(b"PK\x01\x02")
    struct.pack_into("<I", raw, cd + 24, declared)
    return bytes(raw)


def _shrink_declared(zip_bytes: bytes, name: str, declared: int) -> bytes:
    """``zip_bytes`` with member ``name``'s unpacked size set to ``declared`` in both headers."""
    raw = bytearray(zip_bytes)
    with zipfile.ZipFile(io.BytesIO(zip_bytes)) as zf:
        info = zf.getinfo(name)
    struct.pack_into("<I", raw, info.header_offset + 22, declared)
    pos = 0
    while (pos := raw.find(b"PK\x01\x02", pos)) >= 0:
        n = struct.unpack_from("<H", raw, pos + 28)[0]
        if raw[pos + 46 : pos + 46 + n] == name.encode():
            struct.pack_into("<I", raw, pos + 24, declared)
        pos += 4
    return bytes(raw)


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name, data in sorted(hostile_models().items()):
        (OUT / name).write_bytes(data)
    print(f"wrote {len(hostile_models())} files to {OUT}")


if __name__ == "__main__":
    main()
