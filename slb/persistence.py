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
import sys
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
from ._persist_read import (  # noqa: F401 - the limits are part of this module's interface
    MAX_ARRAY_BYTES,
    MAX_ARRAY_DIRECTORY_BYTES,
    MAX_DIRECTORY_BYTES,
    MAX_ESTIMATORS,
    MAX_FILE_BYTES,
    MAX_JSON_BYTES,
    MAX_JSON_DEPTH,
    MAX_JSON_ITEMS,
    MAX_LOAD_SECONDS,
    MAX_TREE_NODES,
    MAX_TREES,
    _Load,
    _not_a_model,
    _read_arrays,
    _read_container,
    _read_limited,
)
from ._sklearn_compat import NODE_DTYPE, Tree
from .density.features import LogDensityTransformer
from .density.kde import ClassConditionalKDE
from .model.classifier import ForestDensityClassifier, LUClassifier, SLBClassifier
from .peers.discrete_map import DiscreteMAPClassifier
from .peers.naive_bayes import KDENaiveBayes
from .peers.renyi import RenyiClassifier
from .peers.tan import TANClassifier
from .tables.cleaner import TableCleaner
from .tables.records import Change

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
    """A fitted scikit-learn ``Tree`` (:data:`slb._sklearn_compat.Tree`) as plain numbers and
    one array per node field."""
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

    Examples
    --------
    >>> import warnings
    >>> from slb.persistence import ModelVersionWarning
    >>> w = ModelVersionWarning("Saved by numpy 1.26.4.", {"numpy": ("1.26.4", "2.3.0")})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn(w)
    >>> caught[0].message.differences, issubclass(ModelVersionWarning, UserWarning)
    ({'numpy': ('1.26.4', '2.3.0')}, True)
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

    Examples
    --------
    >>> import io
    >>> import numpy as np
    >>> from slb import SLBClassifier
    >>> from slb.data.toy import xor
    >>> from slb.persistence import load_model, save_model
    >>> X, y = xor(n=100, noise=0.05, random_state=0)
    >>> clf = SLBClassifier(threshold=0.05, random_state=0).fit(X, y)
    >>> buffer = io.BytesIO()  # or a path such as "model.zip"
    >>> save_model(clf, buffer)
    >>> again = load_model(buffer.getvalue())
    >>> type(again).__name__, bool(np.array_equal(again.predict(X), clf.predict(X)))
    ('SLBClassifier', True)
    >>> save_model(SLBClassifier(), io.BytesIO())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: save_model writes fitted models only: this SLBClassifier was never fitted. ...
    """
    # refused here, not at load (H53: an unfitted model, a string or None were written, and
    # the file could never be loaded)
    if type(model) not in EXPORTABLE.values():
        raise ValueError(
            f"save_model writes these models only: {', '.join(EXPORTABLE)} (a Pipeline of "
            f"them); got {type(model).__name__}."
        )
    for step in [s for _, s in model.steps] if isinstance(model, Pipeline) else [model]:
        if not hasattr(step, "fit"):  # "passthrough", None (H55: a TypeError)
            raise ValueError(
                f"save_model writes fitted models only: the Pipeline step {str(step)[:40]!r} "
                "is not a model. Drop it from the Pipeline."
            )
        try:
            check_is_fitted(step)
        except NotFittedError:
            raise ValueError(
                f"save_model writes fitted models only: this {type(step).__name__} was never "
                "fitted. Call its fit first."
            ) from None
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
        Largest cost of the kernel densities' first prediction (about 250 ns a unit: training
        rows x (features + pairs) and the binned path's grids, see
        :data:`slb._persist_validate.MAX_DENSITY_WORK`, the default).  Raise it only for a
        file you trust.

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

    Examples
    --------
    >>> import io
    >>> import numpy as np
    >>> from slb import SLBClassifier
    >>> from slb.data.toy import xor
    >>> from slb.persistence import load_model, save_model
    >>> X, y = xor(n=100, noise=0.05, random_state=0)
    >>> clf = SLBClassifier(threshold=0.05, random_state=0).fit(X, y)
    >>> buffer = io.BytesIO()  # or a path such as "model.zip"
    >>> save_model(clf, buffer)
    >>> again = load_model(buffer.getvalue())
    >>> bool(np.allclose(again.predict_proba(X), clf.predict_proba(X)))
    True
    >>> load_model(b"not a zip file")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: This is not an SLB Explorer model file ...
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

    Examples
    --------
    >>> from slb import SLBClassifier
    >>> from slb.data.toy import xor
    >>> from slb.persistence import model_settings
    >>> X, y = xor(n=100, noise=0.05, random_state=0)
    >>> s = model_settings(SLBClassifier(threshold=0.05, random_state=0).fit(X, y))
    >>> s["estimator"], s["threshold"], s["pairs"], s["classes"], s["params"]["dependence"]
    ('SLBClassifier', 0.05, ['x1, x2'], [0, 1], 'hsic')
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
