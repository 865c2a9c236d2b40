"""Hostile model files of issue 29: bombs with truthful-looking headers, predict-time bombs,
fitted numbers that load and then answer wrongly or crash, version stamps, too much work.

``hostile_fitted_models()`` returns ``{name: (bytes, expected message fragment)}``;
``tests/test_hostile_models.py`` loads each one and expects a ``ValueError`` matching the
fragment within the loader's own time budget and 300 MB.  Every file starts from a real model
saved by ``slb.persistence.save_model`` with one thing changed, so each refusal is due to that
change (``tests/test_hostile_models.py`` also loads the untouched files).  Run this file to
write the corpus to ``tests/data/hostile_fitted/`` (``python tests/data/make_hostile_fitted.py``).
Deterministic: fixed data, seeds and zip timestamps.
"""

from __future__ import annotations

import copy
import functools
import io
import json
import sys
import zipfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_hostile_models import STAMP, _shrink_declared, _zip  # noqa: E402

OUT = Path(__file__).resolve().parent / "hostile_fitted"
MIB = 2**20
BOMB_BYTES = 400 * MIB  # each bomb inflates to this (more than the 300 MB the test allows)


# --------------------------------------------------------------------------------------------
# Real models and their documents
# --------------------------------------------------------------------------------------------
def _data(d=3, n=90):
    rng = np.random.default_rng(0)
    y = np.array(["no", "yes"] * (n // 2), dtype=object)
    X = rng.normal(size=(n, d)) + (y == "yes")[:, None] * 1.0
    return X, y


@functools.cache
def fitted(name: str):
    """A small fitted model by name (cached: the generator and the tests share them)."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import Pipeline
    from sklearn.tree import DecisionTreeClassifier

    from slb import KDENaiveBayes, SLBClassifier, TableCleaner, TANClassifier
    from slb.evaluation.registry import make_classifier

    X, y = _data()
    if name == "slb":
        return SLBClassifier(random_state=0).fit(X, y)
    if name == "nb":
        return KDENaiveBayes().fit(X, y)
    if name == "nb_empirical":
        return KDENaiveBayes(priors="empirical").fit(X[:70], y[:70])
    if name == "tan":
        return TANClassifier().fit(X, y)
    if name == "gnb":
        return GaussianNB().fit(X, y)
    if name == "tree":
        return DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    if name == "forest":
        return RandomForestClassifier(n_estimators=3, max_depth=3, random_state=0).fit(X, y)
    if name == "wide_slb-":  # 46 features, all 1,035 pairs
        from slb import ForestDensityClassifier

        Xw = np.random.default_rng(1).normal(size=(60, 46))
        return ForestDensityClassifier(random_state=0, C=1.0).fit(Xw, y[:60])
    if name == "pipeline_nb":
        import pandas as pd

        frame = pd.DataFrame(X, columns=["a", "b", "c"])
        cleaner = TableCleaner(non_numeric="encode", missing="impute")
        return Pipeline([("clean", cleaner), ("model", KDENaiveBayes())]).fit(frame, y)
    return make_classifier(name, random_state=0).fit(X, y)


def saved(name: str) -> tuple[dict, dict]:
    """``(document, arrays)`` of :func:`fitted` ``(name)`` as ``save_model`` writes it."""
    from slb.persistence import save_model

    buf = io.BytesIO()
    save_model(fitted(name), buf)
    with zipfile.ZipFile(buf) as zf:
        doc = json.loads(zf.read("model.json"))
        npz = np.load(io.BytesIO(zf.read("arrays.npz")), allow_pickle=False)
        arrays = {k: npz[k] for k in npz.files}
    return doc, arrays


def pack(doc, arrays, json_text=None) -> bytes:
    """A model file of ``doc`` and ``arrays`` (compressed, as ``save_model`` writes)."""
    npz = io.BytesIO()
    np.savez_compressed(npz, **arrays)
    text = json_text if json_text is not None else json.dumps(doc).encode()
    return _zip([("model.json", text), ("arrays.npz", npz.getvalue())])


def estimators(obj, name=None):
    """Every estimator entry of a document (``name``: only that class), depth first."""
    if isinstance(obj, dict):
        if "__estimator__" in obj and name in (None, obj["__estimator__"]):
            yield obj
        for v in obj.values():
            yield from estimators(v, name)
    elif isinstance(obj, list):
        for v in obj:
            yield from estimators(v, name)


def state_entry(est: dict, key: str):
    for pair in est["state"]["__dict__"]:
        if pair[0] == key:
            return pair
    raise KeyError(key)


def array_of(doc, arrays, cls, key, index=0):
    """The array name of ``cls``'s fitted attribute ``key`` (the index-th such estimator)."""
    having = [e for e in estimators(doc, cls) if any(k == key for k, _ in e["state"]["__dict__"])]
    return state_entry(having[index], key)[1]["__array__"]


def with_array(name, cls, key, change, index=0) -> bytes:
    """The model file of ``name`` with ``change(array)`` applied to ``cls.key``."""
    doc, arrays = saved(name)
    a = array_of(doc, arrays, cls, key, index)
    arrays[a] = change(arrays[a].copy())
    return pack(doc, arrays)


def with_state(name, cls, key, value, index=0) -> bytes:
    """The model file of ``name`` with ``cls.key`` set to the JSON ``value`` (added if new)."""
    doc, arrays = saved(name)
    doc = copy.deepcopy(doc)
    est = list(estimators(doc, cls))[index]
    try:
        state_entry(est, key)[1] = value
    except KeyError:
        est["state"]["__dict__"].append([key, value])
    return pack(doc, arrays)


def kde_array(doc, key, c=None):
    """The array name of the (first) KDE's ``key`` (``X``: class ``c``'s rows)."""
    kde = _find(doc, "__kde__")
    for k, v in kde["__dict__"]:
        if k == key:
            return v["__list__"][c]["__array__"] if c is not None else v["__array__"]
    raise KeyError(key)


def _find(obj, marker):
    if isinstance(obj, dict):
        if marker in obj:
            return obj[marker]
        children = obj.values()
    elif isinstance(obj, list):
        children = obj
    else:
        return None
    for child in children:
        hit = _find(child, marker)
        if hit is not None:
            return hit
    return None


def with_kde(name, key, change, c=None) -> bytes:
    doc, arrays = saved(name)
    a = kde_array(doc, key, c)
    arrays[a] = change(arrays[a].copy())
    return pack(doc, arrays)


# --------------------------------------------------------------------------------------------
# Bombs whose headers tell the truth about a small size
# --------------------------------------------------------------------------------------------
def _streamed_member(name: str, head: bytes, total: int) -> bytes:
    """A one-member deflated zip of ``head`` and zeros up to ``total`` bytes (streamed)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        info = zipfile.ZipInfo(name, STAMP)
        info.compress_type = zipfile.ZIP_DEFLATED
        with zf.open(info, "w") as fh:
            fh.write(head)
            zero = bytes(MIB)
            left = total - len(head)
            while left > 0:
                fh.write(zero[: min(MIB, left)])
                left -= MIB
    return buf.getvalue()


def _member_bytes(zip_bytes: bytes, name: str) -> tuple[zipfile.ZipInfo, bytes]:
    """A member's raw (compressed) bytes, to splice into another zip."""
    with zipfile.ZipFile(io.BytesIO(zip_bytes)) as zf:
        info = zf.getinfo(name)
    raw = zip_bytes[info.header_offset :]
    n, m = int.from_bytes(raw[26:28], "little"), int.from_bytes(raw[28:30], "little")
    return info, raw[30 + n + m : 30 + n + m + info.compress_size]


def truthful_bomb(member: str, declared: int) -> bytes:
    """A model file whose ``member`` declares ``declared`` bytes but inflates to 400 MiB."""
    doc, arrays = saved("nb")
    text = json.dumps(doc).encode()
    npz = io.BytesIO()
    np.savez_compressed(npz, **arrays)
    parts = {"model.json": text, "arrays.npz": npz.getvalue()}
    bomb = _streamed_member(member, parts[member][:declared], BOMB_BYTES)
    bomb = _shrink_declared(bomb, member, declared)
    other = [(k, v) for k, v in parts.items() if k != member]
    # the bomb member first, then the other member appended to the same archive
    out = io.BytesIO(bomb)
    with zipfile.ZipFile(out, "a", zipfile.ZIP_DEFLATED) as zf:
        for k, v in other:
            zf.writestr(zipfile.ZipInfo(k, STAMP), v, compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


def npy_bomb() -> bytes:
    """An ``.npz`` member whose ``.npy`` header declares 1,000 floats and whose member declares
    the matching 8,128 bytes, but whose data inflates to 400 MiB."""
    doc, arrays = saved("nb")
    name = kde_array(doc, "X", 0)
    head = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        head, {"descr": "<f8", "fortran_order": False, "shape": (1000,)}
    )
    header = head.getvalue()
    inner = _streamed_member(f"{name}.npy", header, BOMB_BYTES)
    inner = _shrink_declared(inner, f"{name}.npy", len(header) + 8000)
    out = io.BytesIO(inner)
    with zipfile.ZipFile(out, "a", zipfile.ZIP_DEFLATED) as zf:
        for k, v in arrays.items():
            if k != name:
                b = io.BytesIO()
                np.lib.format.write_array(b, v, allow_pickle=False)
                zf.writestr(zipfile.ZipInfo(f"{k}.npy", STAMP), b.getvalue())
    return _zip([("model.json", json.dumps(doc).encode()), ("arrays.npz", out.getvalue())])


def _many_entries(n: int) -> bytes:
    """A stored zip of ``n`` empty members (its central directory is what costs)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        for i in range(n):
            zf.writestr(zipfile.ZipInfo(f"a{i}.npy", STAMP), b"")
    return buf.getvalue()


def bzip2_member() -> bytes:
    doc, arrays = saved("nb")
    npz = io.BytesIO()
    np.savez(npz, **arrays)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(zipfile.ZipInfo("model.json", STAMP), json.dumps(doc), zipfile.ZIP_BZIP2)
        zf.writestr(zipfile.ZipInfo("arrays.npz", STAMP), npz.getvalue())
    return buf.getvalue()


# --------------------------------------------------------------------------------------------
# The corpus
# --------------------------------------------------------------------------------------------
NOT_FITTED = "damaged or was altered"


def hostile_fitted_models() -> dict[str, tuple[bytes, str]]:
    """Every hostile file of issue 29 by name, with a fragment of the expected message."""
    f = {}
    # --- 1. bombs with truthful-looking headers -------------------------------------------
    f["bomb_json_declares_8KB_inflates_400MiB"] = (
        truthful_bomb("model.json", 8000),
        "damaged",
    )
    f["bomb_npz_declares_8KB_inflates_400MiB"] = (truthful_bomb("arrays.npz", 8000), "damaged")
    f["bomb_npy_declares_8KB_inflates_400MiB"] = (npy_bomb(), "damaged")
    f["member_compressed_bzip2"] = (bzip2_member(), "compressed")
    f["archive_of_1000_entries"] = (_many_entries(1000), "entries")
    doc, arrays = saved("nb")
    f["npz_of_45k_entries"] = (
        _zip([("model.json", json.dumps(doc).encode()), ("arrays.npz", _many_entries(45_000))]),
        "entries",
    )

    # --- 2. predict-time bombs -------------------------------------------------------------
    zeros = lambda n: lambda a: np.zeros((n, a.shape[1]))  # noqa: E731
    doc, arrays = saved("nb")
    for c in (0, 1):
        arrays[kde_array(doc, "X", c)] = np.zeros((3_000_000, 3))
    f["predict_bomb_kde_6M_zero_rows"] = (pack(doc, arrays), "training rows")
    f["predict_bomb_kde_work"] = (with_kde("slb", "X", zeros(800_000), c=0), "units of work")
    # 1,000 rows per class put both classes on the binned path: 2 x 1,035 pair grids (~3 s)
    doc, arrays = saved("wide_slb-")
    for c in (0, 1):
        a = kde_array(doc, "X", c)
        arrays[a] = arrays[a][np.arange(1000) % arrays[a].shape[0]]
    f["predict_bomb_binned_grids"] = (pack(doc, arrays), "units of work")
    f["predict_bomb_kde_rows_beyond_cleaner_counts"] = (
        with_kde("pipeline_nb", "X", zeros(20_000), c=1),
        "recorded at fit",
    )
    f["kde_rows_doubled_against_empirical_priors"] = (
        with_kde("nb_empirical", "X", lambda a: np.vstack([a, a]), c=0),
        "priors='empirical'",
    )
    f["knn_rows_and_codes_disagree"] = (
        with_array("5NN", "KNeighborsClassifier", "_fit_X", lambda a: np.vstack([a, a])),
        "_y",
    )

    doc, arrays = saved("5NN")
    for key, n in (("_fit_X", 1_000_000), ("_y", 1_000_000)):
        a = array_of(doc, arrays, "KNeighborsClassifier", key)
        arrays[a] = np.zeros((n,) + arrays[a].shape[1:], arrays[a].dtype)
    doc = copy.deepcopy(doc)
    knn = next(estimators(doc, "KNeighborsClassifier"))
    state_entry(knn, "n_samples_fit_")[1] = 1_000_000
    f["knn_1M_zero_rows"] = (pack(doc, arrays), "search tree")

    # --- 3. fitted numbers that load and then answer wrongly or crash ----------------------
    nan = lambda a: a * np.nan  # noqa: E731
    f["slb_coef_all_nan"] = (with_array("slb", "SLBClassifier", "coef_", nan), "NaN")
    f["slb_intercept_inf"] = (
        with_array("slb", "SLBClassifier", "intercept_", lambda a: a + np.inf),
        "NaN or infinite",
    )
    for label, value in (("zero", 0.0), ("inf", np.inf), ("minus_one", -1.0), ("nan", np.nan)):
        f[f"bandwidth_{label}"] = (
            with_array("nb", "LogDensityTransformer", "bandwidths_", lambda a, v=value: a * 0 + v),
            "bandwidths_",
        )
        f[f"kde_bandwidth_{label}"] = (
            with_kde("tan", "h2", lambda a, v=value: a * 0 + v),
            "_kde.h2",
        )
    f["kde_floor_negative"] = (with_kde("nb", "floor1", lambda a: -a), "floor1")
    f["kde_rows_nan"] = (with_kde("nb", "X", lambda a: a * np.nan, c=0), "NaN")
    f["kde_rows_outside_clip"] = (with_kde("nb", "X", lambda a: a + 1e6, c=0), "_clip")
    f["gaussian_nb_var_minus_one"] = (
        with_array("Gaussian NB", "GaussianNB", "var_", lambda a: a * 0 - 1),
        "var_",
    )
    f["gaussian_nb_prior_not_summing_to_one"] = (
        with_array("Gaussian NB", "GaussianNB", "class_prior_", lambda a: a / 2),
        "sum to 1",
    )
    doc, arrays = saved("slb")
    doc = copy.deepcopy(doc)
    top = next(estimators(doc, "SLBClassifier"))
    state_entry(top, "classes_")[1]["__objarray__"].append("maybe")
    state_entry(top, "classes_")[1]["shape"] = [3]
    f["three_classes_on_a_two_class_model"] = (pack(doc, arrays), "classes")
    text = json.dumps(saved("slb")[0]).replace('["alpha", 0.05]', '["alpha", NaN]')
    assert "NaN" in text
    f["json_bare_nan_parameter"] = (pack(None, saved("slb")[1], text.encode()), "NaN")
    text = json.dumps(saved("nb")[0]).replace(
        '["density_floor", 1e-06]', '["density_floor", Infinity]'
    )
    assert "Infinity" in text
    f["json_bare_infinity_parameter"] = (pack(None, saved("nb")[1], text.encode()), "Infinity")
    f["state_key_predict"] = (with_state("nb", "KDENaiveBayes", "predict", 1), "replace a method")
    f["state_key_dunder_class"] = (
        with_state("nb", "KDENaiveBayes", "__class__", "SVC"),
        "replace a method",
    )
    f["state_key_undeclared"] = (
        with_state("nb", "KDENaiveBayes", "_cache", {"__dict__": []}),
        "not a fitted attribute",
    )
    f["state_key_parameter"] = (
        with_state("nb", "KDENaiveBayes", "priors", "empirical"),
        "parameter",
    )
    doc, arrays = saved("tan")
    kde = _find(doc, "__kde__")
    kde["__dict__"].append(["evaluate", 1])
    f["kde_unknown_attribute"] = (pack(doc, arrays), "not a known attribute")
    f["tree_classes_too_short"] = (
        with_state(
            "tree", "DecisionTreeClassifier", "classes_", {"__objarray__": ["no"], "shape": [1]}
        ),
        "classes",
    )
    f["forest_tree_classes_too_short"] = (
        with_array("forest", "DecisionTreeClassifier", "classes_", lambda a: a[:1]),
        "classes",
    )
    f["tree_threshold_nan"] = (_tree_field("threshold", np.nan), "threshold")
    f["tree_value_negative"] = (_tree_values(-1.0), "negative")
    f["tan_edge_outside"] = (
        with_state(
            "tan",
            "TANClassifier",
            "_edge_index",
            {"__list__": [{"__list__": []}, {"__list__": []}]},
        ),
        "_edge_index",
    )
    f["nb_coef_tampered"] = (
        with_array("nb", "KDENaiveBayes", "coef_", lambda a: -a),
        "does not follow",
    )
    f["nb_log_prior_positive"] = (
        with_array("nb", "KDENaiveBayes", "class_log_prior_", lambda a: a * 0 + 0.5),
        "class_log_prior_",
    )
    f["discrete_theta_tampered"] = (
        with_array("DISCRETE", "DiscreteMAPClassifier", "theta_", lambda a: a * 3),
        "does not follow",
    )
    f["renyi_levels_short"] = (
        with_array("Rényi", "RenyiClassifier", "n_levels_", lambda a: a[:-1]),
        "n_levels_",
    )
    f["svc_dual_sign_flipped"] = (
        with_array("SVM(RBF)", "SVC", "dual_coef_", lambda a: -a),
        "dual_coef_",
    )
    f["svc_gamma_nan"] = (with_state("SVM(RBF)", "SVC", "_gamma", {"__float__": "nan"}), "_gamma")
    f["scaler_scale_zero"] = (
        with_array("5NN", "StandardScaler", "scale_", lambda a: a * 0),
        "scale_",
    )
    f["linear_svc_coef_inf"] = (
        with_array("SVM(linear)", "LinearSVC", "coef_", lambda a: a + np.inf),
        "NaN or infinite",
    )

    # --- 4. version stamps -----------------------------------------------------------------
    doc, arrays = saved("nb")
    f["format_version_2"] = (pack(dict(doc, version=2), arrays), "format version")
    f["version_stamps_damaged"] = (
        pack(dict(doc, versions={"numpy": ["2"]}), arrays),
        "version stamps",
    )

    # --- 5. work ---------------------------------------------------------------------------
    doc, arrays = saved("forest")
    doc = copy.deepcopy(doc)
    forest = next(estimators(doc, "RandomForestClassifier"))
    trees = state_entry(forest, "estimators_")[1]["__list__"]
    trees[:] = [trees[i % len(trees)] for i in range(900)]
    for pair in forest["params"]["__dict__"]:
        if pair[0] == "n_estimators":
            pair[1] = 900
    f["forest_of_900_trees"] = (pack(doc, arrays), "estimators")
    f["tree_of_1_2M_nodes"] = (_big_tree(1_200_000), "nodes")
    return f


def _tree_arrays(change):
    doc, arrays = saved("tree")
    tree = _find(doc, "__tree__")
    change(doc, tree, arrays)
    return pack(doc, arrays)


def _tree_field(field, value):
    def change(doc, tree, arrays):
        nodes = dict((k, v) for k, v in tree["__dict__"])["nodes"]
        name = dict((k, v) for k, v in nodes["__dict__"])[field]["__array__"]
        arrays[name] = arrays[name].copy()
        arrays[name][0] = value  # the root splits

    return _tree_arrays(change)


def _tree_values(value):
    def change(doc, tree, arrays):
        name = dict((k, v) for k, v in tree["__dict__"])["values"]["__array__"]
        arrays[name] = arrays[name].copy()
        arrays[name][-1, 0, 0] = value

    return _tree_arrays(change)


def _big_tree(n):
    def change(doc, tree, arrays):
        fields = dict((k, v) for k, v in tree["__dict__"])
        for pair in tree["__dict__"]:
            if pair[0] == "node_count":
                pair[1] = n
        nodes = dict((k, v) for k, v in fields["nodes"]["__dict__"])
        for entry in nodes.values():
            a = arrays[entry["__array__"]]
            arrays[entry["__array__"]] = np.full(n, -1 if a.dtype.kind == "i" else 0, a.dtype)
        v = arrays[fields["values"]["__array__"]]
        arrays[fields["values"]["__array__"]] = np.zeros((n,) + v.shape[1:])

    return _tree_arrays(change)


def main() -> None:
    OUT.mkdir(exist_ok=True)
    corpus = hostile_fitted_models()
    for name, (data, _) in sorted(corpus.items()):
        (OUT / f"{name}.slbmodel").write_bytes(data)
    print(f"wrote {len(corpus)} files to {OUT}")


if __name__ == "__main__":
    main()
