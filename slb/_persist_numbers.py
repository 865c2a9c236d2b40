"""The number checks of :mod:`slb._persist_validate`: one fitted array or number at a time.

Each helper reads an attribute of a rebuilt estimator, checks its type, shape, finiteness and
bounds (or its agreement with the class count, the terms, the priors) and raises
:func:`_fail`'s ``ValueError`` naming the estimator and the attribute.  Kept apart from the
estimators' checks so that neither module outgrows one concern (about 1,000 lines).
"""

from __future__ import annotations

import math

import numpy as np

_MISSING = object()


def _fail(owner, attr, problem):
    name = owner if isinstance(owner, str) else type(owner).__name__
    raise ValueError(
        f"The model file's {name}.{attr} {problem}; the file is damaged or was altered. "
        "Save the model again with slb.persistence.save_model (or refit it) and load that file."
    )


def _array(
    est,
    attr,
    value=_MISSING,
    *,
    shape=None,
    ndim=None,
    kind="biuf",
    finite=True,
    gt=None,
    ge=None,
    le=None,
    optional=False,
):
    """``getattr(est, attr)`` (or ``value``) checked: an ndarray of the given kind and shape,
    finite, within bounds.  ``None`` in ``shape`` accepts any length."""
    v = getattr(est, attr, _MISSING) if value is _MISSING else value
    if v is _MISSING or (optional and v is None):
        if optional:
            return None
        _fail(est, attr, "is missing")
    if not isinstance(v, np.ndarray):
        _fail(est, attr, f"is a {type(v).__name__}, not an array")
    if v.dtype.kind not in kind:
        _fail(est, attr, f"has type {v.dtype}, not {'integers' if kind == 'iu' else 'numbers'}")
    if ndim is not None and v.ndim != ndim:
        _fail(est, attr, f"has {v.ndim} dimensions, not {ndim}")
    if shape is not None:
        if v.ndim != len(shape) or any(
            s is not None and s != n for s, n in zip(shape, v.shape, strict=True)
        ):
            want = "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"
            _fail(est, attr, f"has shape {v.shape}, not {want}")
    if v.size and v.dtype.kind == "f":
        if finite and not np.isfinite(v).all():
            _fail(est, attr, "holds NaN or infinite values")
        if not finite and np.isinf(v).any():
            _fail(est, attr, "holds infinite values")
    if v.size:
        with np.errstate(invalid="ignore"):
            ok = ~np.isnan(v) if v.dtype.kind == "f" else np.ones(v.shape, bool)
            if gt is not None and not np.all(v[ok] > gt):
                _fail(est, attr, f"holds values <= {gt}; they must be > {gt}")
            if ge is not None and not np.all(v[ok] >= ge):
                _fail(est, attr, f"holds values < {ge}; they must be >= {ge}")
            if le is not None and not np.all(v[ok] <= le):
                _fail(est, attr, f"holds values > {le}; they must be <= {le}")
    return v


def _number(est, attr, *, integer=False, gt=None, ge=None, le=None, optional=False, nan=False):
    v = getattr(est, attr, _MISSING)
    if v is _MISSING or (optional and v is None):
        if optional:
            return None
        _fail(est, attr, "is missing")
    ok_types = (int, np.integer) if integer else (int, float, np.integer, np.floating)
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, ok_types):
        _fail(est, attr, f"is a {type(v).__name__}, not {'an integer' if integer else 'a number'}")
    if nan and v != v:  # allowed NaN (no such number: SLB's C_ when naive Bayes is selected)
        return float(v)
    if not math.isfinite(float(v)):
        _fail(est, attr, f"is {v}, not a finite number")
    if (
        (gt is not None and not v > gt)
        or (ge is not None and not v >= ge)
        or (le is not None and not v <= le)
    ):
        bounds = ", ".join(
            f"{op} {b}" for op, b in ((">", gt), (">=", ge), ("<=", le)) if b is not None
        )
        _fail(est, attr, f"is {v}; it must be {bounds}")
    return int(v) if integer else float(v)


def _classes(est, min_k=2):
    """``len(classes_)`` after checking the labels: 1-D, distinct, plain values."""
    c = getattr(est, "classes_", _MISSING)
    if not isinstance(c, np.ndarray) or c.ndim != 1:
        _fail(est, "classes_", "is not a one-dimensional array of labels")
    if c.size < min_k:
        _fail(est, "classes_", f"has {c.size} class(es); at least {min_k} are needed")
    values = c.tolist()
    if not all(isinstance(v, (str, int, float, bool)) for v in values):
        _fail(est, "classes_", "holds values that are not plain labels")
    if any(isinstance(v, float) and not math.isfinite(v) for v in values):
        _fail(est, "classes_", "holds NaN or infinite labels")
    if len(set(values)) != len(values):
        _fail(est, "classes_", "names a class twice")
    return c.size


def _features(est):
    d = _number(est, "n_features_in_", integer=True, ge=1)
    names = getattr(est, "feature_names_in_", None)
    if names is not None:
        if not isinstance(names, np.ndarray) or names.shape != (d,):
            _fail(est, "feature_names_in_", f"does not hold n_features_in_ = {d} names")
        if not all(isinstance(v, str) for v in names.tolist()):
            _fail(est, "feature_names_in_", "holds names that are not text")
    return d


def _same_classes(est, other, attr):
    a, b = np.asarray(est.classes_), np.asarray(getattr(other, "classes_", []))
    if a.shape != b.shape or a.tolist() != b.tolist():
        _fail(est, attr, "has other classes than the estimator itself")


def _linear(est, n_terms, K, *, optional=False):
    """``coef_`` of shape (K, n_terms) (or (1, n_terms) for two classes), ``intercept_``."""
    coef = _array(est, "coef_", ndim=2, optional=optional)
    if coef is None:
        return None
    rows = {1, K} if K == 2 else {K}
    if coef.shape[0] not in rows or coef.shape[1] != n_terms:
        _fail(
            est,
            "coef_",
            f"has shape {coef.shape}; {len(est.classes_)} classes and {n_terms} terms need "
            f"({' or '.join(map(str, sorted(rows)))}, {n_terms})",
        )
    _array(est, "intercept_", shape=(coef.shape[0],))
    return coef


def _terms(est, n_terms=None, optional=False):
    t = getattr(est, "terms_", None)
    if t is None and optional:
        return None
    if not isinstance(t, np.ndarray) or t.ndim != 1:
        _fail(est, "terms_", "is not a one-dimensional array of term names")
    if not all(isinstance(v, str) for v in t.tolist()):
        _fail(est, "terms_", "holds names that are not text")
    if n_terms is not None and t.size != n_terms:
        _fail(est, "terms_", f"has {t.size} names for {n_terms} terms")
    if len(set(t.tolist())) != t.size:  # fit refuses repeated column names (H53)
        _fail(est, "terms_", "names a term twice")
    return t.size


def _pairs(est, attr, d, value=_MISSING):
    p = _array(est, attr, value, kind="iu", ndim=2)
    if p.shape[1] != 2:
        _fail(est, attr, f"has shape {p.shape}, not (n_pairs, 2)")
    if p.size and (p.min() < 0 or p.max() >= d or np.any(p[:, 0] == p[:, 1])):
        _fail(est, attr, f"names features outside 0..{d - 1} or a feature paired with itself")
    return p


def _platt(est):
    # two classes: Platt's (a, b); K classes: the multinomial map [A | b] of shape (K, K + 1)
    p = _array(est, "platt_", optional=True)
    K = len(getattr(est, "classes_", ()))
    ok = p is None or (p.shape == (2,) if K == 2 else p.shape == (K, K + 1))
    if not ok:
        want = "(2,)" if K == 2 else f"({K}, {K + 1})"
        _fail(est, "platt_", f"has shape {p.shape}, not {want} for {K} classes")
    prevalence, prior = _probability_convention(est, K)
    if p is None or prevalence is None or prior is None:
        return
    # The convention pins the map: one positive factor, offsets from the two vectors.
    offsets = np.log(prevalence) - np.log(prior)
    offsets -= offsets.mean()
    if K == 2:
        ok = p[0] < 0 and abs(p[1] + (offsets[1] - offsets[0])) <= 1e-9 * max(1.0, abs(p[1]))
    else:
        A, b = p[:, :K], p[:, K]
        scale = A[0, 0]
        ok = scale > 0 and np.allclose(A, scale * np.eye(K), rtol=0, atol=1e-12)
        ok = ok and np.allclose(b, offsets, rtol=0, atol=1e-9)
    if not ok:
        _fail(est, "platt_", "does not follow from training_prevalence_ and decision_prior_")


def _probability_convention(est, K, log_prior=None):
    """``docs/probabilities.md``'s attributes: two probability vectors (NB's and TAN's decision
    prior is ``exp(class_log_prior_)``), a positive factor; absent from older files."""
    vecs = dict.fromkeys(("training_prevalence_", "decision_prior_"))
    for attr in vecs:  # absent from older files; present, each must be valid (None is not)
        if attr in vars(est):
            vecs[attr] = v = _array(est, attr, shape=(K,), gt=0.0, le=1.0)
            if abs(float(v.sum()) - 1.0) > 1e-9:
                _fail(est, attr, "does not sum to 1")
    prior = vecs["decision_prior_"]
    if prior is not None and log_prior is not None:
        if not np.allclose(prior, np.exp(log_prior), rtol=0, atol=1e-9):
            _fail(est, "decision_prior_", "is not exp(class_log_prior_)")
    if "logit_scale_" in vars(est):
        _number(est, "logit_scale_", gt=0.0)
    return vecs["training_prevalence_"], prior


def _log_priors(est, K):
    """``class_log_prior_``: log probabilities; equal ones for ``priors="balanced"``, the
    density training rows' class shares for ``"empirical"`` (the rows' recorded counts)."""
    lp = _array(est, "class_log_prior_", shape=(K,), le=0.0)
    if abs(float(np.logaddexp.reduce(lp))) > 1e-6:
        _fail(est, "class_log_prior_", "is not the logarithm of probabilities summing to 1")
    priors = getattr(est, "priors", None)
    if priors == "balanced":
        want = np.full(K, -math.log(K))
    elif priors == "empirical":
        rows = np.array([Xc.shape[0] for Xc in est.transformer_._kde.X], dtype=float)
        want = np.log(rows / rows.sum())
    else:
        return
    if not np.allclose(lp, want, rtol=0, atol=1e-9):
        _fail(
            est,
            "class_log_prior_",
            f"does not match priors={priors!r} and the {K} classes' training rows",
        )
