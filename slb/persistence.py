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

Since issue 29 a file is also held to what it says about itself: zip members are inflated in
1 MiB chunks and stop at their declared size (a member declaring 8 KB that inflates to 900 MB
costs 8 KB); every fitted attribute must be one its class declares (no state key named
``predict``), and every fitted number is checked by :mod:`slb._persist_validate` (finite, in
range, shapes and class counts consistent for any number of classes, derived arrays derived
again, density training rows within the cleaner's class counts and a prediction cost cap); the
final classifier predicts two probe rows before it is returned; the number of trees and nodes
and the loading time are capped; and files record the slb, scikit-learn and numpy versions
that wrote them (:class:`ModelVersionWarning` when they differ, a refusal for another format
version).

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
import struct
import sys
import time
import warnings
import zipfile

import numpy as np
import pandas as pd
import sklearn
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.validation import check_is_fitted

from . import _persist_validate as _valid
from ._sklearn_compat import NODE_DTYPE, Tree
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


class _Load:
    """What one :func:`load_model` call has read and spent: arrays, time, estimators, nodes."""

    def __init__(self, max_seconds=None):
        self.arrays = {}
        self.max_seconds = MAX_LOAD_SECONDS if max_seconds is None else float(max_seconds)
        self.deadline = time.monotonic() + self.max_seconds
        self.steps = 0
        self.tree_nodes = 0

    def check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise ValueError(
                f"Loading the model file took more than {self.max_seconds:g} s, the time "
                "load_model allows (max_seconds): the file is too large or too complex. Refit "
                "a smaller model, or pass a larger max_seconds if you trust the file."
            )

    def tick(self) -> None:
        self.steps += 1
        if self.steps % 256 == 0:
            self.check_time()

    def add_tree(self, n_nodes: int) -> None:
        self.tree_nodes += n_nodes
        if self.tree_nodes > MAX_TREE_NODES:
            raise ValueError(
                f"The model file's trees have more than {MAX_TREE_NODES:,} nodes in all, more "
                "than load_model reads (slb.persistence.MAX_TREE_NODES): refit the forest with "
                "fewer or shallower trees (n_estimators, max_depth)."
            )
        self.check_time()


def _decode(obj, ctx):
    ctx.tick()
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, list):
        raise ValueError("Malformed model file: bare list.")
    if not isinstance(obj, dict) or len(obj) == 0:
        raise ValueError("Malformed model file.")
    arrays = ctx.arrays
    if "__float__" in obj:
        v = obj["__float__"]
        if v not in ("nan", "inf", "-inf"):
            raise ValueError("Malformed model file: bad float.")
        return float(v)
    if "__array__" in obj:
        key = obj["__array__"]
        if not isinstance(key, str) or key not in arrays:
            raise ValueError(f"Malformed model file: array {str(key)[:40]!r} is missing.")
        return arrays[key]
    if "__objarray__" in obj:
        vals = [_decode(v, ctx) for v in obj["__objarray__"]]
        out = np.empty(len(vals), dtype=object)
        out[:] = vals
        return out.reshape(obj.get("shape", [len(vals)]))
    if "__series__" in obj:
        s = obj["__series__"]
        return pd.Series(
            _decode(s["values"], ctx),
            index=pd.Index([_decode(v, ctx) for v in s["index"]]),
            name=_decode(s["name"], ctx),
        )
    if "__frame__" in obj:
        f = obj["__frame__"]
        return pd.DataFrame(
            {_decode(c, ctx): _decode(v, ctx) for c, v in f["columns"]},
            index=pd.Index(
                [_decode(v, ctx) for v in f["index"]], name=_decode(f["index_name"], ctx)
            ),
        )
    if "__list__" in obj:
        return [_decode(v, ctx) for v in obj["__list__"]]
    if "__tuple__" in obj:
        return tuple(_decode(v, ctx) for v in obj["__tuple__"])
    if "__dict__" in obj:
        return {_hashable(_decode(k, ctx)): _decode(v, ctx) for k, v in obj["__dict__"]}
    if "__kde__" in obj:
        state = _decode(obj["__kde__"], ctx)
        _valid.check_kde_names(state)
        kde = ClassConditionalKDE.__new__(ClassConditionalKDE)
        kde.__dict__.update(state)
        return kde
    if "__estimator__" in obj:
        name = obj["__estimator__"]
        if not isinstance(name, str) or name not in EXPORTABLE:
            raise ValueError(f"Model files may only contain slb models; found {str(name)[:80]!r}.")
        cls = EXPORTABLE[name]
        params = _decode(obj["params"], ctx)
        if not isinstance(params, dict) or not all(isinstance(k, str) for k in params):
            raise ValueError(f"Malformed model file: the parameters of {name} are damaged.")
        state = _decode(obj["state"], ctx)
        _valid.check_state_names(cls, state, _valid.constructor_params(cls))
        est = cls(**params)
        est.__dict__.update(state)
        est = _after_load(est)
        ctx.check_time()
        return est
    if "__tree__" in obj:
        return _tree_from_state(_decode(obj["__tree__"], ctx), ctx)
    if "__change__" in obj:
        fields = _decode(obj["__change__"], ctx)
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


def _tree_from_state(st, ctx) -> Tree:
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
    ctx.add_tree(n)
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
    _valid.check_tree_values(nodes, values, n_outputs, n_classes)
    if not isinstance(st["max_depth"], int) or not 0 <= st["max_depth"] < n:
        raise ValueError("Malformed model file: bad tree depth.")
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
        if not isinstance(est.tree_, Tree):
            raise ValueError("Malformed model file: a tree does not match its features.")
    _valid.check_fitted_state(est)
    if isinstance(est, KNeighborsClassifier) and hasattr(est, "_fit_X"):
        _rebuild_knn(est)
    _valid.check_derived(est)
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


def _rebuild_knn(est) -> None:
    """k-NN's search tree is not saved: refit it on the saved training rows (deterministic)."""
    saved = dict(vars(est))
    fit_X, codes = np.asarray(saved["_fit_X"]), np.asarray(saved["_y"])
    if fit_X.ndim != 2 or codes.shape != (fit_X.shape[0],) or codes.dtype.kind not in "iu":
        raise ValueError("Malformed model file: bad nearest-neighbour data.")
    est.fit(fit_X, np.asarray(saved["classes_"])[codes])
    est.__dict__.update({k: v for k, v in saved.items() if k != "_tree"})


class ModelVersionWarning(UserWarning):
    """A model file was written by other versions of slb, scikit-learn or numpy.

    Like scikit-learn's ``InconsistentVersionWarning``: the file loads (its structure and every
    number were checked), but a model saved by other library versions may predict slightly
    differently.  ``differences`` maps each library to ``(version in the file, version now)``;
    files written before versions were recorded give ``{"file": ("unrecorded", ...)}``.

    Parameters
    ----------
    message : str
    differences : dict
    """

    def __init__(self, message, differences=None):
        super().__init__(message)
        self.differences = dict(differences or {})


def _versions() -> dict:
    slb = sys.modules.get(__package__)
    return {
        "slb": str(getattr(slb, "__version__", "unknown")),
        "scikit-learn": sklearn.__version__,
        "numpy": np.__version__,
    }


def save_model(model, file):
    """Write a fitted slb model as a zip of ``model.json`` and ``arrays.npz``.

    The file records the format version (:data:`VERSION`) and the versions of slb,
    scikit-learn and numpy that wrote it; :func:`load_model` warns
    (:class:`ModelVersionWarning`) when they differ from the reader's.

    Parameters
    ----------
    model : estimator
        A fitted model of :data:`EXPORTABLE`: any classifier of
        :data:`slb.evaluation.registry.CLASSIFIERS`, or a ``Pipeline`` of a fitted
        :class:`~slb.tables.TableCleaner` and such a classifier.
    file : path or binary file object
    """
    enc = _Encoder()
    doc = {"format": FORMAT, "version": VERSION, "versions": _versions(), "model": enc(model)}
    arrays = io.BytesIO()
    np.savez_compressed(arrays, **enc.arrays)
    with zipfile.ZipFile(file, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("model.json", json.dumps(doc, indent=1, allow_nan=False))
        zf.writestr("arrays.npz", arrays.getvalue())


def load_model(file, *, max_seconds=None, max_density_work=None):
    """Read a model written by :func:`save_model` (no pickle, no evaluation).

    Every size is checked against what the file declares *before* anything is decompressed or
    allocated: the file itself, each zip member, each member of the nested ``.npz`` and the
    shape and dtype in each ``.npy`` header (object arrays, which would need pickle, are
    refused); members are then inflated in bounded chunks that stop at the declared size.  The
    JSON part is capped in size and nesting depth, holds no bare ``NaN``/``Infinity``, and its
    top level must be one of the estimators in :data:`EXPORTABLE`.  The work is capped too: the
    number of trees and estimators (:data:`MAX_TREES`, :data:`MAX_ESTIMATORS`) and of tree
    nodes (:data:`MAX_TREE_NODES`), the
    kernel densities' training rows and prediction cost
    (:data:`slb._persist_validate.MAX_DENSITY_WORK`), and the time (``max_seconds``).  Every
    rebuilt estimator then passes :mod:`slb._persist_validate`: only the fitted attributes it
    declares, every number finite and in range, shapes and class counts consistent, and a
    prediction of two probe rows that must give finite outputs and known classes.

    Parameters
    ----------
    file : bytes, path or binary file object
    max_seconds : float, optional
        Time allowed for loading (checked while reading, decoding and checking);
        :data:`MAX_LOAD_SECONDS` when ``None``.
    max_density_work : int, optional
        Largest prediction cost of the kernel densities (training rows x (features + pairs),
        summed over classes); :data:`slb._persist_validate.MAX_DENSITY_WORK` when ``None``.
        Raise it only for a file you trust.

    Returns
    -------
    model : estimator

    Raises
    ------
    ValueError
        The file is not a model file of this library, is damaged, altered, too large or too
        slow to load.  Every failure is a ``ValueError``.

    Warns
    -----
    ModelVersionWarning
        The file was written by other versions of slb, scikit-learn or numpy, or before
        versions were recorded.
    """
    ctx = _Load(max_seconds)
    limit = _valid.density_work_limit.set(
        _valid.MAX_DENSITY_WORK if max_density_work is None else int(max_density_work)
    )
    try:
        data = _read_limited(file)
        doc = _read_container(data, ctx)
        model = _decode_document(doc, ctx)
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
    finally:
        _valid.density_work_limit.reset(limit)
    return model


#: Limits of :func:`load_model` (bytes).  A model's arrays (training data of the densities)
#: are the big part; its JSON holds names and parameters only.
MAX_FILE_BYTES = 200 * 2**20
MAX_ARRAY_BYTES = 200 * 2**20
MAX_JSON_BYTES = 64 * 2**20  # SLB with all 124,750 pairs of 500 features: about 45 MB
MAX_JSON_DEPTH = 64
MAX_JSON_ITEMS = 5_000_000  # commas: bounds the objects json.loads creates
#: Trees in one file (a forest's), and estimators in all (the trees, the forest, its template
#: trees, a pipeline's steps): rebuilding one costs 2-4 ms.
MAX_TREES = 300
MAX_ESTIMATORS = MAX_TREES + 16
#: Nodes of all trees together (64 bytes each, plus the class weights).
MAX_TREE_NODES = 1_000_000
#: Default time budget of one :func:`load_model` call, in seconds.
MAX_LOAD_SECONDS = 10.0
_MEMBERS = {"model.json", "arrays.npz"}
#: Central directory sizes (bytes) of the model file and of its arrays' ``.npz``: zipfile
#: builds one object per entry before anything is checked (200,000 empty entries, 17 MB of
#: file: 105 MB and seconds), so the directory is measured first.  An entry takes at least 46
#: bytes; the ``.npz`` of a 300-tree forest has ~3,300 entries of ~100 bytes.
MAX_DIRECTORY_BYTES = 4096
MAX_ARRAY_DIRECTORY_BYTES = 2 * 2**20
_CHUNK = 2**20  # members are inflated this many bytes at a time
_COMPRESSIONS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)


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
    return ValueError(
        f"This is not an SLB Explorer model file ({why}). Choose a file saved by the "
        'dashboard\'s "Download model" or by slb.persistence.save_model.'
    )


def _damaged(why: str) -> ValueError:
    return ValueError(
        f"The model file is damaged ({why}). Download or save the model again and load the new "
        "file."
    )


def _read_member(zf, info, ctx, out=None):
    """A zip member's bytes, inflated :data:`_CHUNK` bytes at a time.

    ``ZipExtFile.read()`` without a size asks zlib for up to 2 GiB at once and only then cuts
    the result to the declared size, so a member that declares 8 KB but inflates to 900 MB
    would cost 900 MB first.  Here every read asks for at most one chunk and the total stops at
    the declared size + 1; a member that is longer or shorter than it declares is refused.
    """
    if info.compress_type not in _COMPRESSIONS or info.flag_bits & 0x1:
        raise _not_a_model(f"{info.filename[:80]!r} is encrypted or compressed in an unknown way")
    limit = info.file_size
    out = io.BytesIO() if out is None else out
    got = 0
    try:
        with zf.open(info) as fh:
            while got <= limit:
                block = fh.read(min(_CHUNK, limit + 1 - got))
                if not block:
                    break
                out.write(block)
                got += len(block)
                ctx.check_time()
    except zipfile.BadZipFile as exc:
        raise _damaged(str(exc)) from None
    if got != limit:
        raise _damaged(f"{info.filename[:80]!r} holds {got:,} bytes, not the {limit:,} it declares")
    return out


def _check_directory(fh, limit: int, what: str) -> None:
    """Refuse a zip whose central directory is larger than ``limit`` bytes, or zip64 (which
    model files never use), before :class:`zipfile.ZipFile` parses it."""
    fh.seek(0, io.SEEK_END)
    size = fh.tell()
    fh.seek(max(0, size - 22 - 65535))
    tail = fh.read()
    fh.seek(0)
    i = tail.rfind(b"PK\x05\x06")
    if i < 0 or len(tail) - i < 22:
        raise _not_a_model(f"{what} is not a zip archive")
    entries, cd_size = struct.unpack_from("<HI", tail, i + 10)
    if i >= 20 and tail[i - 20 : i - 16] == b"PK\x06\x07":
        raise _not_a_model(f"{what} is a zip64 archive")
    if cd_size > limit or entries * 46 > limit:
        raise ValueError(
            f"The model file's {what} lists {entries:,} entries in {cd_size:,} bytes; at most "
            f'{limit:,} bytes are read. Choose a file saved by the dashboard\'s "Download model" '
            "or by slb.persistence.save_model."
        )


def _read_container(data: bytes, ctx=None):
    """The parsed ``model.json`` of a model file (its arrays go to ``ctx.arrays``), every size
    checked before it is inflated."""
    ctx = _Load() if ctx is None else ctx
    _check_directory(io.BytesIO(data), MAX_DIRECTORY_BYTES, "archive")
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise _not_a_model(str(exc)) from None
    with zf:
        infos = zf.infolist()
        names = [i.filename for i in infos]
        if sorted(names) != sorted(_MEMBERS):
            raise _not_a_model(f"unexpected contents {names[:5]!r}")
        by_name = {i.filename: i for i in infos}
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
        text = _read_member(zf, by_name["model.json"], ctx).getvalue()
        doc = _parse_json(text)
        if b'"__tree__"' in text:
            _count_tree_nodes(doc)  # before the arrays are inflated
        del text
        npz = _read_member(zf, by_name["arrays.npz"], ctx)
    ctx.arrays = _read_arrays(npz, ctx)
    return doc


def _count_tree_nodes(doc) -> None:
    """Refuse a document whose trees declare more than :data:`MAX_TREE_NODES` nodes."""
    total, stack = 0, [doc]
    while stack:
        obj = stack.pop()
        if isinstance(obj, dict):
            tree = obj.get("__tree__")
            if isinstance(tree, dict) and isinstance(tree.get("__dict__"), list):
                for pair in tree["__dict__"]:
                    if isinstance(pair, list) and pair[:1] == ["node_count"]:
                        n = pair[1] if len(pair) == 2 else 0
                        total += n if isinstance(n, int) and n > 0 else 0
            stack.extend(obj.values())
        elif isinstance(obj, list):
            stack.extend(obj)
    if total > MAX_TREE_NODES:
        _Load().add_tree(total)


def _refuse_constant(name):
    raise ValueError(
        f"The model file's description holds the bare constant {name}, which is not JSON; "
        "model files write non-finite numbers differently. Save the model again with "
        "slb.persistence.save_model."
    )


def _parse_json(raw: bytes):
    """``json.loads`` after a bracket-depth scan (deep nesting would exhaust the stack);
    bare ``NaN``/``Infinity`` (Python's JSON extension) are refused."""
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
    # strings that merely contain the markers only overcount
    n_trees, n_est = raw.count(b'"__tree__"'), raw.count(b'"__estimator__"')
    if n_trees > MAX_TREES or n_est > MAX_ESTIMATORS:
        raise ValueError(
            f"The model file holds {n_trees:,} trees and {n_est:,} estimators in all; at most "
            f"{MAX_TREES} trees and {MAX_ESTIMATORS} estimators are loaded "
            "(slb.persistence.MAX_TREES, MAX_ESTIMATORS). Refit the forest with fewer trees "
            "(n_estimators)."
        )
    try:
        return json.loads(text, parse_constant=_refuse_constant)
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


def _read_arrays(npz, ctx=None) -> dict:
    """The arrays of the nested ``.npz`` (bytes or a binary file object); each ``.npy`` header
    is checked before its body is read, and bodies are read in bounded chunks."""
    ctx = _Load() if ctx is None else ctx
    fh = io.BytesIO(npz) if isinstance(npz, (bytes, bytearray, memoryview)) else npz
    fh.seek(0)
    if fh.read(2) != b"PK":
        raise _not_a_model("the arrays part is not an .npz archive")
    _check_directory(fh, MAX_ARRAY_DIRECTORY_BYTES, "arrays part")
    try:
        inner = zipfile.ZipFile(fh)
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
            if info.compress_type not in _COMPRESSIONS or info.flag_bits & 0x1:
                raise _not_a_model(f"the array {info.filename[:80]!r} is compressed oddly")
            try:
                with inner.open(info) as member:
                    arr = _read_npy(member, info.file_size, budget, ctx)
            except zipfile.BadZipFile as exc:
                raise _damaged(str(exc)) from None
            budget -= arr.nbytes
            arrays[info.filename[: -len(".npy")]] = arr
    return arrays


def _read_npy(fh, member_size: int, budget: int, ctx=None) -> np.ndarray:
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
    return _read_body(fh, shape, fortran, dtype, nbytes, _Load() if ctx is None else ctx)


def _read_body(fh, shape, fortran, dtype, nbytes, ctx) -> np.ndarray:
    """The body of a ``.npy`` stream, read :data:`_CHUNK` bytes at a time into its array
    (``numpy.lib.format.read_array`` would read the header again and the body in one call)."""
    buf = np.empty(nbytes, dtype=np.uint8)
    got = 0
    while got < nbytes:
        block = fh.read(min(_CHUNK, nbytes - got))
        if not block:
            raise _damaged("an array is truncated")
        buf[got : got + len(block)] = np.frombuffer(block, dtype=np.uint8)
        got += len(block)
        ctx.check_time()
    if fh.read(1):
        raise _damaged("an array member holds more bytes than its shape")
    return buf.view(dtype).reshape(shape, order="F" if fortran else "C")


def _check_versions(doc):
    """Refuse another format major; the :class:`ModelVersionWarning` to give (or ``None``)
    when other library versions wrote the file (given once the model has loaded)."""
    version = doc.get("version")
    if version != VERSION:
        raise ValueError(
            f"This model file uses format version {str(version)[:20]!r}; this slb "
            f"({_versions()['slb']}) reads version {VERSION}. Load it with the slb version that "
            "wrote it and save the model again, or refit the model."
        )
    written = doc.get("versions")
    now = _versions()
    if written is None:
        return ModelVersionWarning(
            "This model file does not record the slb, scikit-learn and numpy versions that "
            "wrote it (it predates version stamps). It was checked and loads, but may "
            "predict slightly differently than when it was saved; save it again to record "
            "the versions.",
            {"file": ("unrecorded", now["slb"])},
        )
    if not isinstance(written, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and len(v) < 64 for k, v in written.items()
    ):
        raise _not_a_model("its version stamps are damaged")
    diff = {k: (written[k], now[k]) for k in now if k in written and written[k] != now[k]}
    if diff:
        said = ", ".join(f"{k} {a} (now {b})" for k, a, b in ((k, *v) for k, v in diff.items()))
        return ModelVersionWarning(
            f"This model file was written with {said}. It was checked and loads, but "
            "models may predict slightly differently across versions: compare a few "
            "predictions, or refit and save the model with the versions installed now.",
            diff,
        )
    return None


def _decode_document(doc, ctx):
    """The estimator described by a parsed ``model.json``."""
    if not isinstance(ctx, _Load):  # a dict of arrays (tests, tools)
        arrays, ctx = ctx, _Load()
        ctx.arrays = arrays
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise _not_a_model("wrong format tag")
    version_warning = _check_versions(doc)
    top = doc.get("model")
    if not isinstance(top, dict) or top.get("__estimator__") not in EXPORTABLE:
        found = top.get("__estimator__") if isinstance(top, dict) else type(top).__name__
        raise ValueError(
            f"Model files may only contain slb models ({', '.join(EXPORTABLE)}); "
            f"found {str(found)[:80]!r}."
        )
    try:
        model = _decode(top, ctx)
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        raise ValueError(
            f"The model file is damaged ({type(exc).__name__}: {str(exc)[:200]}). Save the model "
            "again with slb.persistence.save_model (or refit it) and load that file."
        ) from None
    if type(model) not in EXPORTABLE.values():  # pragma: no cover - guarded above
        raise ValueError("The model file does not hold an slb model.")
    # A Pipeline reports only its last step: every step of a model file must be fitted.
    steps = [s for _, s in model.steps] if isinstance(model, Pipeline) else [model]
    try:
        for step in steps:
            check_is_fitted(step)
    except NotFittedError:
        raise ValueError("The model file holds a model that was never fitted.") from None
    _valid.probe(model)
    ctx.check_time()
    if version_warning is not None:
        warnings.warn(version_warning, stacklevel=3)
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
