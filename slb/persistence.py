"""Safe export and import of fitted models: JSON for structure, ``.npz`` for arrays, no pickle.

A model file is a zip archive holding ``model.json`` and ``arrays.npz``.  Reading it never
unpickles or evaluates anything: the JSON is parsed with :mod:`json`, the arrays are loaded with
``numpy.load(..., allow_pickle=False)``, and only the classes in :data:`EXPORTABLE` can be
rebuilt (by name, through their constructors).  Anything else in a file is refused with a
``ValueError``.

Every classifier of :data:`slb.evaluation.registry.CLASSIFIERS` is saved, and so is a
``Pipeline`` of a fitted :class:`~slb.tables.TableCleaner` and one of them (the dashboard's
"Download model").  scikit-learn's parts are rebuilt from plain arrays too: a tree's nodes are
stored one array per field and checked (children after their parent and inside the tree,
split features that exist) before scikit-learn's Cython code sees them; an SVM's array sizes
are checked before libsvm indexes them; k-NN's search tree is not stored but refitted from the
saved training rows (deterministic); every estimator's parameters pass its own
``_parameter_constraints``.

Why not skops (measured with skops 0.16.0, ``benchmarks/skops_vs_json.py``, 300 Pima rows):
``skops.io.dumps`` cannot save the SLB family at all (a pandas attribute has no ``__reduce__``);
loading any slb model, a random forest (its ``Tree``) or 5-NN (its ``KDTree``) is refused
unless the caller trusts those types by name, which for a user's file means trusting what the
file asks for; its files are 5-10 times larger (random forest 1,305 kB against 124 kB here,
naive Bayes 54 kB against 8 kB); and a 261 kB skops file whose ``schema.json`` inflates to
256 MiB made it allocate 585 MB before failing, where :func:`load_model` checks every declared
size first (``tests/test_hostile_models.py``).  Our format needs no new dependency and keeps
one reader whose whole attack surface is in this module.

>>> buf = io.BytesIO(); save_model(model, buf)           # doctest: +SKIP
>>> same = load_model(buf.getvalue())                    # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import re
import zipfile

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC
from sklearn.tree import DecisionTreeClassifier
from sklearn.tree._tree import NODE_DTYPE, Tree
from sklearn.utils.validation import check_is_fitted

from .density.features import LogDensityTransformer
from .density.kde import ClassConditionalKDE
from .model.classifier import ForestDensityClassifier, LUClassifier, SLBClassifier
from .peers.discrete_map import DiscreteMAPClassifier
from .peers.naive_bayes import KDENaiveBayes
from .peers.renyi import RenyiClassifier
from .peers.tan import TANClassifier
from .tables.clean import Change, TableCleaner

FORMAT = "slb-model"
VERSION = 1

#: The only classes a model file may name.
EXPORTABLE = {
    cls.__name__: cls
    for cls in (
        SLBClassifier,
        ForestDensityClassifier,
        LUClassifier,
        KDENaiveBayes,
        TANClassifier,
        LogDensityTransformer,
        RenyiClassifier,
        DiscreteMAPClassifier,
        TableCleaner,
        # scikit-learn: the catalogue's peers and their parts, rebuilt from plain arrays
        Pipeline,
        StandardScaler,
        RandomForestClassifier,
        DecisionTreeClassifier,
        SVC,
        LinearSVC,
        KNeighborsClassifier,
        GaussianNB,
        LogisticRegression,
    )
}


class _Encoder:
    def __init__(self):
        self.arrays = {}

    def __call__(self, obj):
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, (int, np.integer)) and not isinstance(obj, bool):
            return int(obj)
        if isinstance(obj, (float, np.floating)):
            f = float(obj)
            return f if math.isfinite(f) else {"__float__": repr(f)}
        if isinstance(obj, np.bool_):
            return bool(obj)
        if isinstance(obj, np.ndarray):
            if obj.dtype.kind in "biuf":
                key = f"a{len(self.arrays)}"
                self.arrays[key] = obj
                return {"__array__": key}
            if obj.dtype.kind in "OUS":
                return {"__objarray__": [self(v) for v in obj.tolist()], "shape": list(obj.shape)}
            raise ValueError(f"Cannot export an array of dtype {obj.dtype}.")
        if isinstance(obj, pd.Series):
            return {
                "__series__": {
                    "index": [self(v) for v in obj.index.tolist()],
                    "values": self(obj.to_numpy()),
                    "name": self(obj.name),
                }
            }
        if isinstance(obj, pd.DataFrame):
            return {
                "__frame__": {
                    "index": [self(v) for v in obj.index.tolist()],
                    "index_name": self(obj.index.name),
                    "columns": [
                        [
                            self(c),
                            self(
                                obj[c].to_numpy(
                                    dtype=object
                                    if obj[c].dtype == object or obj[c].dtype.kind not in "biuf"
                                    else None
                                )
                            ),
                        ]
                        for c in obj.columns
                    ],
                }
            }
        if isinstance(obj, (list, tuple)):
            return {"__list__" if isinstance(obj, list) else "__tuple__": [self(v) for v in obj]}
        if isinstance(obj, dict):
            return {"__dict__": [[self(k), self(v)] for k, v in obj.items()]}
        if isinstance(obj, ClassConditionalKDE):
            return {"__kde__": self(vars(obj))}
        if type(obj) is Tree:
            return {"__tree__": self(_tree_state(obj))}
        if type(obj) is Change:
            return {"__change__": self(dataclasses.asdict(obj))}
        name = type(obj).__name__
        if name in EXPORTABLE and type(obj) is EXPORTABLE[name]:
            params = obj.get_params(deep=False)
            state = {k: v for k, v in vars(obj).items() if k not in params and k not in _NOT_SAVED}
            return {"__estimator__": name, "params": self(params), "state": self(state)}
        raise ValueError(
            f"Cannot export an object of type {type(obj).__name__}: only the classifiers of "
            f"slb's catalogue, their parts and TableCleaner ({', '.join(EXPORTABLE)}) with "
            "plain parameters can be saved."
        )


def _decode(obj, arrays):
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, list):
        raise ValueError("Malformed model file: bare list.")
    if not isinstance(obj, dict) or len(obj) == 0:
        raise ValueError("Malformed model file.")
    if "__float__" in obj:
        v = obj["__float__"]
        if v not in ("nan", "inf", "-inf"):
            raise ValueError("Malformed model file: bad float.")
        return float(v)
    if "__array__" in obj:
        key = obj["__array__"]
        if key not in arrays:
            raise ValueError(f"Malformed model file: array {key!r} is missing.")
        return arrays[key]
    if "__objarray__" in obj:
        vals = [_decode(v, arrays) for v in obj["__objarray__"]]
        out = np.empty(len(vals), dtype=object)
        out[:] = vals
        return out.reshape(obj.get("shape", [len(vals)]))
    if "__series__" in obj:
        s = obj["__series__"]
        return pd.Series(
            _decode(s["values"], arrays),
            index=pd.Index([_decode(v, arrays) for v in s["index"]]),
            name=_decode(s["name"], arrays),
        )
    if "__frame__" in obj:
        f = obj["__frame__"]
        return pd.DataFrame(
            {_decode(c, arrays): _decode(v, arrays) for c, v in f["columns"]},
            index=pd.Index(
                [_decode(v, arrays) for v in f["index"]], name=_decode(f["index_name"], arrays)
            ),
        )
    if "__list__" in obj:
        return [_decode(v, arrays) for v in obj["__list__"]]
    if "__tuple__" in obj:
        return tuple(_decode(v, arrays) for v in obj["__tuple__"])
    if "__dict__" in obj:
        return {_hashable(_decode(k, arrays)): _decode(v, arrays) for k, v in obj["__dict__"]}
    if "__kde__" in obj:
        kde = ClassConditionalKDE.__new__(ClassConditionalKDE)
        kde.__dict__.update(_decode(obj["__kde__"], arrays))
        return kde
    if "__estimator__" in obj:
        name = obj["__estimator__"]
        if name not in EXPORTABLE:
            raise ValueError(f"Model files may only contain slb models; found {name!r}.")
        est = EXPORTABLE[name](**_decode(obj["params"], arrays))
        est.__dict__.update(_decode(obj["state"], arrays))
        return _after_load(est)
    if "__tree__" in obj:
        return _tree_from_state(_decode(obj["__tree__"], arrays))
    if "__change__" in obj:
        fields = _decode(obj["__change__"], arrays)
        if not isinstance(fields, dict) or not set(fields) <= set(_CHANGE_FIELDS):
            raise ValueError("Malformed model file: bad report entry.")
        return Change(**fields)
    raise ValueError("Malformed model file: unknown entry.")


def _hashable(v):
    return tuple(v) if isinstance(v, list) else v


# --------------------------------------------------------------------------------------------
# Types beyond plain attributes: scikit-learn's Cython trees, k-NN search trees, the cleaner
# --------------------------------------------------------------------------------------------
#: Attributes never written: caches, and k-NN's search tree (rebuilt from the training rows).
_NOT_SAVED = frozenset({"_cache", "_tree"})
_CHANGE_FIELDS = tuple(f.name for f in dataclasses.fields(Change))
_SVM_KERNELS = ("linear", "poly", "rbf", "sigmoid")


def _tree_state(tree) -> dict:
    """A fitted ``sklearn.tree._tree.Tree`` as plain numbers and one array per node field."""
    _, (n_features, n_classes, n_outputs), state = tree.__reduce__()
    nodes = state["nodes"]
    return {
        "n_features": int(n_features),
        "n_classes": np.asarray(n_classes, dtype=np.int64),
        "n_outputs": int(n_outputs),
        "max_depth": int(state["max_depth"]),
        "node_count": int(state["node_count"]),
        "nodes": {f: np.ascontiguousarray(nodes[f]) for f in nodes.dtype.names},
        "values": np.ascontiguousarray(state["values"], dtype=np.float64),
    }


def _tree_from_state(st) -> Tree:
    """The ``Tree`` of :func:`_tree_state`, after checking every index the Cython code follows.

    The tree's ``apply`` walks child indices and reads feature columns without bounds checks,
    so a crafted file could read outside memory or loop forever: children must come after
    their parent (as scikit-learn's builders write them) and inside the tree, internal nodes
    must split on an existing feature, and the value array must match the node count.
    """
    if not isinstance(st, dict) or not isinstance(st.get("nodes"), dict):
        raise ValueError("Malformed model file: bad tree.")
    n, n_features, n_outputs = st["node_count"], st["n_features"], st["n_outputs"]
    n_classes = np.asarray(st["n_classes"])
    if not all(isinstance(v, int) and v >= 1 for v in (n, n_features, n_outputs)):
        raise ValueError("Malformed model file: bad tree sizes.")
    if n_classes.shape != (n_outputs,) or n_classes.dtype.kind not in "iu" or n_classes.min() < 1:
        raise ValueError("Malformed model file: bad tree classes.")
    if set(st["nodes"]) != set(NODE_DTYPE.names):
        raise ValueError("Malformed model file: bad tree node fields.")
    nodes = np.zeros(n, dtype=NODE_DTYPE)
    for f in NODE_DTYPE.names:
        col = np.asarray(st["nodes"][f])
        if col.shape != (n,) or col.dtype.kind not in "biuf":
            raise ValueError("Malformed model file: bad tree nodes.")
        nodes[f] = col
    idx = np.arange(n)
    left, right, feature = nodes["left_child"], nodes["right_child"], nodes["feature"]
    leaf = (left == -1) & (right == -1)
    inner_ok = (left > idx) & (left < n) & (right > idx) & (right < n)
    inner_ok &= (feature >= 0) & (feature < n_features)
    if not np.all(leaf | inner_ok):
        raise ValueError("Malformed model file: a tree node points outside the tree.")
    values = np.ascontiguousarray(st["values"], dtype=np.float64)
    if values.shape != (n, n_outputs, int(n_classes.max())):
        raise ValueError("Malformed model file: bad tree values.")
    tree = Tree(n_features, n_classes.astype(np.intp), n_outputs)
    tree.__setstate__(
        {"max_depth": int(st["max_depth"]), "node_count": n, "nodes": nodes, "values": values}
    )
    return tree


def _after_load(est):
    """Check (and where needed rebuild) a decoded estimator before anyone calls it."""
    _upgrade_coef(est)
    if hasattr(est, "_parameter_constraints") and hasattr(est, "_validate_params"):
        est._validate_params()  # InvalidParameterError is a ValueError
    if isinstance(est, DecisionTreeClassifier) and hasattr(est, "tree_"):
        if not isinstance(est.tree_, Tree) or est.tree_.n_features != est.n_features_in_:
            raise ValueError("Malformed model file: a tree does not match its features.")
    elif isinstance(est, SVC) and hasattr(est, "support_vectors_"):
        _check_svc(est)
    elif isinstance(est, KNeighborsClassifier) and hasattr(est, "_fit_X"):
        _rebuild_knn(est)
    elif isinstance(est, TableCleaner) and hasattr(est, "columns_"):
        est._check_fitted_state()
    return est


def _upgrade_coef(est) -> None:
    """Files written before the ``coef_`` convention (up to commit 8313bc9) in today's terms.

    SLB, SLB- and LU then kept ``coef_`` as a Series indexed by term name, ``terms_`` as the
    term DataFrame and ``intercept_`` as a float; now ``coef_`` has shape (1, n_terms),
    ``intercept_`` shape (1,), the names are ``terms_`` and the DataFrame ``term_table_``.
    Naive Bayes and TAN had no ``coef_``: it is derived from their densities and priors.
    Such files have no Platt scaling: their ``predict_proba`` asks for a refit.
    """
    coef = est.__dict__.get("coef_")
    if isinstance(coef, pd.Series):
        table = est.__dict__.get("terms_")
        if isinstance(table, pd.DataFrame):
            est.term_table_ = table
        est.terms_ = np.asarray([str(t) for t in coef.index], dtype=object)
        est.coef_ = np.asarray(coef.to_numpy(), dtype=float).reshape(1, -1)
        est.intercept_ = np.asarray(est.intercept_, dtype=float).reshape(1)
    elif coef is None and hasattr(est, "_set_linear_model") and hasattr(est, "transformer_"):
        est._set_linear_model()


def _check_svc(est) -> None:
    """The array sizes libsvm's prediction relies on (it indexes them without checks)."""
    sv = est.support_vectors_
    n_class = len(est.classes_)
    n_sv = sv.shape[0] if sv.ndim == 2 else -1
    n_pairs = n_class * (n_class - 1) // 2
    nsup = np.asarray(est._n_support)
    ok = (
        est.kernel in _SVM_KERNELS
        and est._sparse is False
        and sv.dtype == np.float64
        and sv.ndim == 2
        and sv.shape[1] == est.n_features_in_
        and tuple(est.shape_fit_) == (est.shape_fit_[0], est.n_features_in_)
        and nsup.shape == (n_class,)
        and nsup.dtype == np.int32
        and nsup.min() >= 0
        and int(nsup.sum()) == n_sv
        and np.asarray(est.support_).shape == (n_sv,)
        and np.asarray(est.support_).dtype == np.int32
        and np.asarray(est._dual_coef_).shape == (n_class - 1, n_sv)
        and np.asarray(est._intercept_).shape == (n_pairs,)
        and all(np.asarray(p).shape in ((0,), (n_pairs,)) for p in (est._probA, est._probB))
    )
    if not ok:
        raise ValueError("Malformed model file: the SVM's arrays do not fit together.")
    for attr in ("support_vectors_", "_dual_coef_", "_intercept_", "_probA", "_probB"):
        setattr(est, attr, np.ascontiguousarray(getattr(est, attr), dtype=np.float64))


def _rebuild_knn(est) -> None:
    """k-NN's search tree is not saved: refit it on the saved training rows (deterministic)."""
    saved = dict(vars(est))
    fit_X, codes = np.asarray(saved["_fit_X"]), np.asarray(saved["_y"])
    if fit_X.ndim != 2 or codes.shape != (fit_X.shape[0],) or codes.dtype.kind not in "iu":
        raise ValueError("Malformed model file: bad nearest-neighbour data.")
    est.fit(fit_X, np.asarray(saved["classes_"])[codes])
    est.__dict__.update({k: v for k, v in saved.items() if k != "_tree"})


def save_model(model, file):
    """Write a fitted slb model as a zip of ``model.json`` and ``arrays.npz``.

    Parameters
    ----------
    model : estimator
        A fitted model of :data:`EXPORTABLE`: any classifier of
        :data:`slb.evaluation.registry.CLASSIFIERS`, or a ``Pipeline`` of a fitted
        :class:`~slb.tables.TableCleaner` and such a classifier.
    file : path or binary file object
    """
    enc = _Encoder()
    doc = {"format": FORMAT, "version": VERSION, "model": enc(model)}
    arrays = io.BytesIO()
    np.savez_compressed(arrays, **enc.arrays)
    with zipfile.ZipFile(file, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("model.json", json.dumps(doc, indent=1, allow_nan=False))
        zf.writestr("arrays.npz", arrays.getvalue())


def load_model(file):
    """Read a model written by :func:`save_model` (no pickle, no evaluation).

    Every size is checked against what the file declares *before* anything is decompressed or
    allocated: the file itself, each zip member, each member of the nested ``.npz`` and the
    shape and dtype in each ``.npy`` header (object arrays, which would need pickle, are
    refused).  The JSON part is capped in size and nesting depth, and its top level must be one
    of the estimators in :data:`EXPORTABLE`.

    Parameters
    ----------
    file : bytes, path or binary file object

    Returns
    -------
    model : estimator

    Raises
    ------
    ValueError
        The file is not a model file of this library, is damaged, or is too large.  Every
        failure is a ``ValueError``.
    """
    try:
        data = _read_limited(file)
        doc, arrays = _read_container(data)
        model = _decode_document(doc, arrays)
    except ValueError:
        raise
    except (RecursionError, MemoryError) as exc:
        raise ValueError(
            f"The model file is nested too deeply or too large to load ({type(exc).__name__})."
        ) from None
    except Exception as exc:  # any other parser error: the file is damaged, never a traceback
        raise ValueError(
            f"This is not a readable SLB Explorer model file ({type(exc).__name__}: {exc})."
        ) from None
    return model


#: Limits of :func:`load_model` (bytes).  A model's arrays (training data of the densities)
#: are the big part; its JSON holds names and parameters only.
MAX_FILE_BYTES = 200 * 2**20
MAX_ARRAY_BYTES = 200 * 2**20
MAX_JSON_BYTES = 64 * 2**20  # SLB with all 124,750 pairs of 500 features: about 45 MB
MAX_JSON_DEPTH = 64
MAX_JSON_ITEMS = 5_000_000  # commas: bounds the objects json.loads creates
_MEMBERS = {"model.json", "arrays.npz"}


def _read_limited(file) -> bytes:
    """The file's bytes, refusing more than :data:`MAX_FILE_BYTES`."""
    if isinstance(file, (bytes, bytearray, memoryview)):
        data = bytes(file)
    elif hasattr(file, "read"):
        data = file.read(MAX_FILE_BYTES + 1)
    else:
        with open(file, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"The model file is larger than {MAX_FILE_BYTES // 2**20} MiB.")
    return data


def _not_a_model(why: str) -> ValueError:
    return ValueError(f"This is not an SLB Explorer model file ({why}).")


def _read_container(data: bytes):
    """``(document, arrays)`` of a model file, every size checked before it is inflated."""
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise _not_a_model(str(exc)) from None
    with zf:
        infos = zf.infolist()
        names = [i.filename for i in infos]
        if sorted(names) != sorted(_MEMBERS):
            raise _not_a_model(f"unexpected contents {names[:5]!r}")
        sizes = {i.filename: i.file_size for i in infos}
        if sizes["model.json"] > MAX_JSON_BYTES:
            raise ValueError(
                f"The model file's description is {sizes['model.json']:,} bytes unpacked; at "
                f"most {MAX_JSON_BYTES:,} are allowed."
            )
        if sizes["arrays.npz"] > MAX_ARRAY_BYTES:
            raise ValueError(
                f"The model file's arrays are {sizes['arrays.npz']:,} bytes unpacked; at most "
                f"{MAX_ARRAY_BYTES:,} are allowed."
            )
        # zipfile stops at the declared size, so these reads are bounded by the checks above.
        text = zf.read("model.json")
        npz = zf.read("arrays.npz")
    doc = _parse_json(text)
    return doc, _read_arrays(npz)


def _parse_json(raw: bytes):
    """``json.loads`` after a bracket-depth scan (deep nesting would exhaust the stack)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _not_a_model(f"the description is not UTF-8: {exc}") from None
    depth, items = _json_extent(raw)
    if depth > MAX_JSON_DEPTH:
        raise ValueError(
            f"The model file's description is nested more than {MAX_JSON_DEPTH} levels deep."
        )
    if items > MAX_JSON_ITEMS:
        raise ValueError(f"The model file's description has more than {MAX_JSON_ITEMS:,} entries.")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise _not_a_model(f"the description is not valid JSON: {exc}") from None


def _json_extent(raw: bytes, chunk: int = 2**20) -> tuple[int, int]:
    """Largest bracket depth and number of commas of a JSON text, scanned with numpy.

    Hand-written because :mod:`json` has neither a depth limit (it recurses once per level)
    nor a size limit.  Brackets and commas inside strings only make the estimates larger,
    which errs on the safe side; UTF-8 multi-byte characters never contain ASCII bytes.
    """
    depth = peak = commas = 0
    for start in range(0, len(raw), chunk):
        b = np.frombuffer(raw, dtype=np.uint8, count=min(chunk, len(raw) - start), offset=start)
        step = np.isin(b, (91, 123)).astype(np.int64) - np.isin(b, (93, 125))
        run = np.cumsum(step) + depth
        commas += int(np.count_nonzero(b == 44))
        if run.size:
            peak, depth = max(peak, int(run.max())), int(run[-1])
    return peak, commas


def _read_arrays(npz: bytes) -> dict:
    """The arrays of the nested ``.npz``; each ``.npy`` header is checked before reading."""
    if not npz.startswith(b"PK"):
        raise _not_a_model("the arrays part is not an .npz archive")
    try:
        inner = zipfile.ZipFile(io.BytesIO(npz))
    except zipfile.BadZipFile as exc:
        raise _not_a_model(f"the arrays part is damaged: {exc}") from None
    arrays, budget = {}, MAX_ARRAY_BYTES
    with inner:
        infos = inner.infolist()
        declared = sum(i.file_size for i in infos)
        if declared > MAX_ARRAY_BYTES:
            raise ValueError(
                f"The model file's arrays declare {declared:,} bytes unpacked; at most "
                f"{MAX_ARRAY_BYTES:,} are allowed."
            )
        for info in infos:
            if not re.fullmatch(r"a\d{1,9}\.npy", info.filename):
                raise _not_a_model(f"unexpected array member {info.filename[:80]!r}")
            with inner.open(info) as fh:
                arr = _read_npy(fh, info.file_size, budget)
            budget -= arr.nbytes
            arrays[info.filename[: -len(".npy")]] = arr
    return arrays


def _read_npy(fh, member_size: int, budget: int) -> np.ndarray:
    """One ``.npy`` stream: numeric dtype and a size within the member and the budget."""
    version = np.lib.format.read_magic(fh)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
    elif version == (2, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
    else:
        raise _not_a_model(f"unsupported .npy version {version}")
    if dtype.kind not in "biuf" or dtype.hasobject:
        raise ValueError(f"The model file holds an array of type {dtype}; only numbers load.")
    if any(k < 0 for k in shape):
        raise _not_a_model(f"an array declares the shape {tuple(shape)}")
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes > min(member_size, budget):
        raise ValueError(
            f"An array of the model file declares shape {tuple(shape)} ({nbytes:,} bytes), more "
            "than the file holds or than is allowed."
        )
    return _read_body(fh, shape, fortran, dtype, nbytes)


def _read_body(fh, shape, fortran, dtype, nbytes) -> np.ndarray:
    # numpy.lib.format.read_array would read the header again; the body is plain bytes.
    body = fh.read(nbytes)
    if len(body) != nbytes:
        raise _not_a_model("an array is truncated")
    arr = np.frombuffer(body, dtype=dtype).copy()
    return arr.reshape(shape, order="F" if fortran else "C")


def _decode_document(doc, arrays):
    """The estimator described by a parsed ``model.json``."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise _not_a_model("wrong format tag")
    if doc.get("version") != VERSION:
        raise ValueError(f"Unsupported model file version {doc.get('version')!r}.")
    top = doc.get("model")
    if not isinstance(top, dict) or top.get("__estimator__") not in EXPORTABLE:
        found = top.get("__estimator__") if isinstance(top, dict) else type(top).__name__
        raise ValueError(
            f"Model files may only contain slb models ({', '.join(EXPORTABLE)}); "
            f"found {str(found)[:80]!r}."
        )
    try:
        model = _decode(top, arrays)
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        raise ValueError(f"The model file is damaged ({type(exc).__name__}: {exc}).") from None
    if type(model) not in EXPORTABLE.values():  # pragma: no cover - guarded above
        raise ValueError("The model file does not hold an slb model.")
    # A Pipeline reports only its last step: every step of a model file must be fitted.
    steps = [s for _, s in model.steps] if isinstance(model, Pipeline) else [model]
    try:
        for step in steps:
            check_is_fitted(step)
    except NotFittedError:
        raise ValueError("The model file holds a model that was never fitted.") from None
    return model


def model_settings(model):
    """The settings of a fitted model as a JSON-ready dict (parameters and chosen values).

    Parameters
    ----------
    model : estimator

    Returns
    -------
    settings : dict
    """
    params = {}
    for k, v in model.get_params(deep=False).items():
        if isinstance(v, (np.integer, np.floating)):
            v = v.item()
        if isinstance(v, float) and not math.isfinite(v):
            v = repr(v)
        params[k] = v if isinstance(v, (str, int, float, bool, type(None), dict, list)) else repr(v)
    out = {"estimator": type(model).__name__, "params": params}
    for attr in ("threshold_", "intercept_"):
        if hasattr(model, attr):
            v = float(np.ravel(getattr(model, attr))[0])  # intercept_ has shape (1,)
            out[attr.rstrip("_")] = v if math.isfinite(v) else repr(v)
    if hasattr(model, "classes_"):
        out["classes"] = [c.item() if hasattr(c, "item") else c for c in model.classes_]
    if hasattr(model, "term_table_"):  # the SLB family
        out["n_terms"] = int(model.coef_.size)
        out["pairs"] = [
            t[len("log p+(") : -1] for t in model.terms_ if ", " in t and t.startswith("log p+")
        ]
    return out
