"""Safe export and import of fitted models: JSON for structure, ``.npz`` for arrays, no pickle.

A model file is a zip archive holding ``model.json`` and ``arrays.npz``.  Reading it never
unpickles or evaluates anything: the JSON is parsed with :mod:`json`, the arrays are loaded with
``numpy.load(..., allow_pickle=False)``, and only the classes in :data:`EXPORTABLE` can be
rebuilt (by name, through their constructors).  Anything else in a file is refused with a
``ValueError``.

>>> buf = io.BytesIO(); save_model(model, buf)           # doctest: +SKIP
>>> same = load_model(buf.getvalue())                    # doctest: +SKIP
"""

from __future__ import annotations

import io
import json
import math
import zipfile

import numpy as np
import pandas as pd

from .classifier import ForestDensityClassifier, LUClassifier, SLBClassifier
from .features import LogDensityTransformer
from .kde import ClassConditionalKDE
from .naive_bayes import KDENaiveBayes
from .tan import TANClassifier

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
    )
}

_MAX_BYTES = 200 * 2**20


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
        name = type(obj).__name__
        if name in EXPORTABLE and type(obj) is EXPORTABLE[name]:
            params = obj.get_params(deep=False)
            state = {k: v for k, v in vars(obj).items() if k not in params and k != "_cache"}
            return {"__estimator__": name, "params": self(params), "state": self(state)}
        raise ValueError(
            f"Cannot export an object of type {type(obj).__name__}: only slb's density models "
            f"({', '.join(EXPORTABLE)}) with plain parameters can be saved."
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
        return est
    raise ValueError("Malformed model file: unknown entry.")


def _hashable(v):
    return tuple(v) if isinstance(v, list) else v


def save_model(model, file):
    """Write a fitted slb model as a zip of ``model.json`` and ``arrays.npz``.

    Parameters
    ----------
    model : SLBClassifier, ForestDensityClassifier, LUClassifier, KDENaiveBayes or TANClassifier
        A fitted model.
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

    Parameters
    ----------
    file : bytes, path or binary file object

    Returns
    -------
    model : estimator

    Raises
    ------
    ValueError
        The file is not a model file of this library, or is damaged.
    """
    if isinstance(file, (bytes, bytearray)):
        file = io.BytesIO(file)
    try:
        with zipfile.ZipFile(file) as zf:
            names = set(zf.namelist())
            if names != {"model.json", "arrays.npz"}:
                raise ValueError("This is not an SLB Explorer model file (unexpected contents).")
            if sum(i.file_size for i in zf.infolist()) > _MAX_BYTES:
                raise ValueError("The model file is too large to load safely.")
            doc = json.loads(zf.read("model.json").decode("utf-8"))
            try:
                with np.load(io.BytesIO(zf.read("arrays.npz")), allow_pickle=False) as npz:
                    arrays = {k: npz[k] for k in npz.files}
            except ValueError as exc:  # e.g. an object array, which would need pickle
                raise ValueError(
                    f"The model file's arrays cannot be read safely ({exc})."
                ) from None
    except (zipfile.BadZipFile, UnicodeDecodeError, json.JSONDecodeError, OSError, EOFError) as exc:
        raise ValueError(f"This is not an SLB Explorer model file ({exc}).") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError("This is not an SLB Explorer model file (wrong format tag).")
    if doc.get("version") != VERSION:
        raise ValueError(f"Unsupported model file version {doc.get('version')!r}.")
    try:
        return _decode(doc["model"], arrays)
    except (KeyError, TypeError) as exc:
        raise ValueError(f"The model file is damaged ({exc}).") from None


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
            v = float(getattr(model, attr))
            out[attr.rstrip("_")] = v if math.isfinite(v) else repr(v)
    if hasattr(model, "classes_"):
        out["classes"] = [c.item() if hasattr(c, "item") else c for c in model.classes_]
    if hasattr(model, "coef_") and isinstance(model.coef_, pd.Series):
        out["n_terms"] = int(model.coef_.size)
        out["pairs"] = [
            t[len("log p+(") : -1]
            for t in model.coef_.index
            if ", " in t and t.startswith("log p+")
        ]
    return out
