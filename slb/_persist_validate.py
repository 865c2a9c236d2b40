"""Checks of a loaded model's fitted state: names, numbers, shapes, class counts and cost.

:func:`slb.persistence.load_model` rebuilds estimators from a file anyone may have written.
Before a rebuilt estimator is handed out, this module checks what its methods will trust:

* **names** (:func:`check_state_names`): only the fitted attributes the class declares (the
  ``Attributes`` section of its docstring, or of a base class) and the few private ones listed
  in :data:`UNDECLARED` are accepted; a name that would shadow a method or property (a state key
  ``predict``) or a constructor parameter is refused;
* **numbers** (:func:`check_fitted_state`): every fitted array has the expected type and shape
  and is finite, bandwidths, variances and scales are positive, indices point inside what they
  index, class counts agree with ``len(classes_)`` (any number of classes: a linear model's
  ``coef_`` has ``K`` rows, or one for two classes), derived arrays agree with what they are
  derived from (naive Bayes' and TAN's linear form, DISCRETE's coefficients, an SVM's public
  and private duals);
* **cost**: the rows of every kernel density estimate are capped (:data:`MAX_KDE_ROWS`) and so
  is the cost of its first prediction (:data:`MAX_DENSITY_WORK`: rows, terms and the binned
  path's grids), so that a small file
  whose density training rows compress to nothing cannot make ``predict`` run for minutes;
* **behaviour** (:func:`probe`): the final classifier predicts two probe rows, and every
  output must be finite and a known class; anything else is refused at load instead of
  surfacing as a crash or a wrong answer later.

Every failure is a ``ValueError`` that names the estimator and attribute and says what to do.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import math
import re
import warnings

import numpy as np
import pandas as pd

from ._persist_numbers import (
    _array,
    _classes,
    _fail,
    _features,
    _linear,
    _log_priors,
    _number,
    _pairs,
    _platt,
    _probability_convention,
    _same_classes,
    _terms,
)

#: Kernel density training rows allowed in one transformer (all classes together).
MAX_KDE_ROWS = 1_000_000
#: The cost of a transformer's first prediction, in units of ~250 ns (measured on this
#: project's machines): a class evaluated on the binned path (>= 1,000 rows by default) costs
#: ``n_c (d + p)`` for binning its rows plus ``6,000 p + 1,200 d`` for its grids (1.1-1.6 ms
#: per pair, 0.3 ms per feature); an exact class costs ``n_c (d + p) / 20`` for the two probe
#: rows (its kernels are evaluated in bounded chunks).  6e6 units keep a hostile file's
#: prediction under ~1.5 s; the cv7400 benchmark's SLB (2 x 3,700 binned rows, 20 features,
#: 190 pairs) costs 3.9e6, Sonar's SLB- (exact, 60 features, 1,770 pairs) 1.9e4.
#: :func:`slb.persistence.load_model` takes a larger ``max_density_work`` for a trusted file.
MAX_DENSITY_WORK = 6_000_000
#: Binned rows x terms are also held to 0.35 of that cap: binning and evaluating take up to
#: ~107 bytes per row and term (SLB, 800,000 zero rows, 3 features and a pair: 342 MB traced),
#: so 2.1e6 stay under ~230 MB (measured: 2.4e6 took +252 MB resident to load and predict).
BINNED_MEMORY_SHARE = 0.35
#: Training values (rows x features) of a k-NN model: its search tree is rebuilt at load
#: (1.7 s for a million rows of 8 features), so they are capped like the densities' work.
MAX_KNN_VALUES = 2_500_000
#: The cap in force for the current :func:`slb.persistence.load_model` call.
density_work_limit = contextvars.ContextVar("density_work_limit", default=MAX_DENSITY_WORK)


#: Fitted attributes a class uses without declaring them in its docstring.
UNDECLARED = {
    "SLBClassifier": {"_terms"},
    "ForestDensityClassifier": {"_terms"},
    "LUClassifier": {"_terms"},
    "TANClassifier": {"_edge_index"},
    "LogDensityTransformer": {"_clip", "_kde", "scale_"},
    "DiscreteMAPClassifier": {"mean_", "scale_"},
    "TableCleaner": {
        "class_counts_",
        "negative_label_",
        "original_class_counts_",
        "positive_label_",
        "changes_",
    },
    "RandomForestClassifier": {
        "_n_samples",
        "_n_samples_bootstrap",
        "_sample_weight",
        "estimator",
        "estimator_params",
    },
    "SVC": {
        "_dual_coef_",
        "_effective_probability",
        "_gamma",
        "_intercept_",
        "_n_support",
        "_num_iter",
        "_probA",
        "_probB",
        "_sparse",
        "epsilon",
        "nu",
    },
    "KNeighborsClassifier": {"_fit_X", "_fit_method", "_y", "radius"},
}
#: The attributes of ``slb.density.kde.ClassConditionalKDE`` (required ones first).
KDE_REQUIRED = ("X", "h1", "h2", "floor1", "floor2")
KDE_OPTIONAL = ("method", "binned_min_samples", "grid_ratio", "n_jobs")

_ATTR_SECTION = re.compile(
    r"\n\s*Attributes\n\s*-+\n(.*?)(?=\n\s*(?:See Also|Notes|Examples|References|Methods)\n\s*-+|\Z)",
    re.S,
)


# --------------------------------------------------------------------------------------------
# Names
# --------------------------------------------------------------------------------------------
@functools.cache
def declared_attributes(cls) -> frozenset:
    """Fitted attributes ``cls`` declares: its docstring's ``Attributes`` section (numpydoc),
    its base classes' and :data:`UNDECLARED`."""
    names = set(UNDECLARED.get(cls.__name__, ()))
    for k in cls.__mro__:
        m = _ATTR_SECTION.search(k.__doc__ or "")
        if m:
            names |= set(re.findall(r"^\s{0,8}([A-Za-z_][A-Za-z0-9_]*)\s*:", m.group(1), re.M))
    return frozenset(names)


def check_state_names(cls, state, params) -> None:
    """Refuse state keys ``cls`` does not declare, or that would shadow its methods.

    Parameters
    ----------
    cls : type
    state : dict
        The fitted attributes read from the file.
    params : iterable of str
        Constructor parameters (they are restored through the constructor, never the state).
    """
    if not isinstance(state, dict):
        _fail(cls.__name__, "state", "is not a mapping of attributes")
    allowed = declared_attributes(cls)
    for key in state:
        if not isinstance(key, str) or not key.isidentifier():
            _fail(cls.__name__, repr(key)[:60], "is not an attribute name")
        if hasattr(cls, key) or key in params or key.startswith("__"):
            _fail(
                cls.__name__,
                key,
                "would replace a method, property or parameter of the estimator",
            )
        if key not in allowed:
            _fail(cls.__name__, key, "is not a fitted attribute this estimator declares")


def check_kde_names(state) -> None:
    """The attributes of a ``ClassConditionalKDE``: the required ones and no others."""
    if not isinstance(state, dict):
        _fail("ClassConditionalKDE", "state", "is not a mapping of attributes")
    extra = set(state) - set(KDE_REQUIRED) - set(KDE_OPTIONAL)
    if extra:
        _fail("ClassConditionalKDE", sorted(map(str, extra))[0][:60], "is not a known attribute")
    for key in KDE_REQUIRED:
        if key not in state:
            _fail("ClassConditionalKDE", key, "is missing")


# --------------------------------------------------------------------------------------------
# slb's estimators
# --------------------------------------------------------------------------------------------
def _check_transformer(est):
    K, d = _classes(est), _features(est)
    pairs = _pairs(est, "pairs_", d)
    for attr in ("bandwidths_", "pair_bandwidths_"):
        _array(est, attr, shape=(K, d), gt=0.0)
    _array(est, "scale_", shape=(d,), gt=0.0)
    clip = getattr(est, "_clip", None)
    if not isinstance(clip, (tuple, list)) or len(clip) != 2:
        _fail(est, "_clip", "is not a pair of bounds")
    lo = _array(est, "_clip", clip[0], shape=(d,))
    hi = _array(est, "_clip", clip[1], shape=(d,))
    if np.any(lo > hi):
        _fail(est, "_clip", "has a lower bound above its upper bound")
    kde = getattr(est, "_kde", None)
    if kde is None or type(kde).__name__ != "ClassConditionalKDE":
        _fail(est, "_kde", "is not a kernel density estimate")
    X = kde.X
    if not isinstance(X, (list, tuple)) or len(X) != K:
        _fail(est, "_kde.X", f"does not hold the training rows of {K} classes")
    rows = 0
    for c, Xc in enumerate(X):
        _array(est, f"_kde.X[{c}]", Xc, shape=(None, d), kind="f")
        if Xc.shape[0] < 1:
            _fail(est, f"_kde.X[{c}]", "holds no training rows")
        if np.any(Xc < lo) or np.any(Xc > hi):
            _fail(est, f"_kde.X[{c}]", "holds rows outside the range recorded at fit (_clip)")
        rows += Xc.shape[0]
    if rows > MAX_KDE_ROWS:
        _fail(est, "_kde.X", f"holds {rows:,} training rows; at most {MAX_KDE_ROWS:,} are loaded")
    from .density.kde import KDE_METHODS

    method = getattr(kde, "method", "auto")
    if method not in KDE_METHODS:
        _fail(est, "_kde.method", f"is not one of {', '.join(KDE_METHODS)}")
    for attr, low in (("binned_min_samples", 1), ("n_jobs", -(2**31))):
        v = getattr(kde, attr, None)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < low):
            _fail(est, f"_kde.{attr}", "is not a valid integer or None")
    _check_density_cost(est, X, d, pairs.shape[0], method, kde)
    for attr, want in (("h1", est.bandwidths_), ("h2", est.pair_bandwidths_)):
        h = _array(est, f"_kde.{attr}", getattr(kde, attr), shape=(K, d), gt=0.0)
        if not np.array_equal(h, want):
            _fail(est, f"_kde.{attr}", "differs from the transformer's bandwidths")
    # the floors are density_floor / scale (features.py): a floor of 0 let log(0) through,
    # and predict_proba returned NaN (H53)
    f1 = _array(est, "_kde.floor1", kde.floor1, shape=(d,), gt=0.0)
    f2 = _array(est, "_kde.floor2", kde.floor2, shape=(d, d), gt=0.0)
    floor, scale = float(est.density_floor), np.asarray(est.scale_, dtype=float)
    if not np.allclose(f1, floor / scale, rtol=1e-9, atol=0.0):
        _fail(est, "_kde.floor1", "does not follow from density_floor and scale_")
    if not np.allclose(f2, floor / np.outer(scale, scale), rtol=1e-9, atol=0.0):
        _fail(est, "_kde.floor2", "does not follow from density_floor and scale_")
    g = getattr(kde, "grid_ratio", None)
    if g is not None and (
        isinstance(g, bool) or not isinstance(g, (int, float)) or not (0 < g < 1e3)
    ):
        _fail(est, "_kde.grid_ratio", "is not a positive number or None")


def _check_density_cost(est, X, d, p, method, kde):
    """Refuse densities whose first prediction would cost more than the cap in force."""
    from .density.kde import KDE_BINNED_MIN_SAMPLES

    threshold = getattr(kde, "binned_min_samples", None) or KDE_BINNED_MIN_SAMPLES
    binned_rows = cost = 0
    for Xc in X:
        n = Xc.shape[0]
        if method == "binned" or (method == "auto" and n >= threshold):
            binned_rows += n * (d + p)
            cost += n * (d + p) + 6000 * p + 1200 * d
        else:
            cost += n * (d + p) // 20
    limit = density_work_limit.get()
    if cost > limit or binned_rows > BINNED_MEMORY_SHARE * limit:
        rows = sum(Xc.shape[0] for Xc in X)
        raise ValueError(
            f"The model file's densities hold {rows:,} training rows of {d} features and {p} "
            f"pairs: a prediction would cost about {max(cost, binned_rows):,} units of work, "
            f"more than the {limit:,} load_model allows. If you trust the file, load it with a "
            "larger max_density_work; otherwise refit the model on fewer rows or pairs."
        )


def _check_density_parent(est):
    """What the SLB family, naive Bayes and TAN share: classes, features, the transformer."""
    K, d = _classes(est), _features(est)
    tr = getattr(est, "transformer_", None)
    if type(tr).__name__ != "LogDensityTransformer":
        _fail(est, "transformer_", "is not a fitted LogDensityTransformer")
    _same_classes(est, tr, "transformer_")
    if tr.n_features_in_ != d:
        _fail(est, "transformer_", f"has {tr.n_features_in_} features, not {d}")
    return K, d, tr


def _check_slb(est):
    K, d, tr = _check_density_parent(est)
    pairs = _pairs(est, "pairs_", d)
    if not np.array_equal(pairs, tr.pairs_):
        _fail(est, "pairs_", "differs from the transformer's pairs")
    n_map = K * (d + pairs.shape[0])
    mask = getattr(est, "_terms", None)
    if mask is not None:
        _array(est, "_terms", mask, shape=(n_map,), kind="b")
        n_terms = int(mask.sum())
    else:  # files before the mask: the terms are the feature map's
        n_terms = _terms(est)
    _terms(est, n_terms)
    _linear(est, n_terms, K)
    if getattr(est, "n_terms_", None) is not None:
        if _number(est, "n_terms_", integer=True, ge=0) != n_terms:
            _fail(est, "n_terms_", f"is not the number of terms ({n_terms})")
    _array(est, "term_means_", shape=(n_terms,), optional=True)
    _array(est, "feature_importances_", shape=(d,), ge=0.0, optional=True)
    _platt(est)
    table = getattr(est, "term_table_", None)
    if table is not None and (not isinstance(table, pd.DataFrame) or len(table) != n_terms):
        _fail(est, "term_table_", f"does not have one row per term ({n_terms})")
    _number(est, "C_", gt=0.0, optional=True, nan=getattr(est, "selected_model_", "slb") != "slb")
    _number(est, "n_search_rows_", integer=True, ge=1, optional=True)
    _number(est, "n_candidate_pairs_", integer=True, ge=0, le=d * (d - 1) // 2, optional=True)
    _number(est, "best_index_", integer=True, ge=0, optional=True)
    _number(est, "fraction_", ge=0.0, le=1.0, optional=True)
    t = getattr(est, "threshold_", None)
    if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float)) or t != t):
        _fail(est, "threshold_", "is not a number")
    if t is not None:  # the given threshold, a value of the given grid, or a score (>= 0)
        given, grid = getattr(est, "threshold", None), getattr(est, "thresholds", None)
        if t == float("inf") and getattr(est, "selected_model_", "slb") != "slb":
            ok = True  # naive Bayes or TAN selected: no screened pair (H55)
        elif isinstance(given, (int, float)) and not isinstance(given, bool):
            ok = t == float(given)
        elif given == "cv" and grid is not None:
            ok = bool(np.isin(t, np.asarray(grid, dtype=float)))
        else:
            ok = t >= 0.0
        if not ok:
            _fail(est, "threshold_", "is not the threshold the model's settings give")
    for attr in ("dependence_", "hsic_", "pvalues_"):
        a = _array(est, attr, finite=False, optional=True)
        if a is not None and (a.ndim != 3 or a.shape[1:] != (d, d)):
            _fail(est, attr, f"has shape {a.shape}, not (n_classes, {d}, {d})")
    scores = _array(est, "pair_scores_", shape=(d * (d - 1) // 2,), finite=False, optional=True)
    if scores is not None and (np.isinf(scores).any() or (scores < 0).any()):
        _fail(est, "pair_scores_", "holds a score that is negative or infinite")
    cv = getattr(est, "cv_results_", None)
    if cv is not None and not (
        isinstance(cv, dict) and all(isinstance(v, np.ndarray) for v in cv.values())
    ):
        _fail(est, "cv_results_", "is not a table of arrays")


def _check_derived_linear(est):
    """Naive Bayes' and TAN's ``coef_``/``intercept_`` are derived: derive them again."""
    coef, icpt = est.coef_, est.intercept_
    try:
        est._set_linear_model()
        same = (
            est.coef_.shape == coef.shape
            and np.allclose(est.coef_, coef, rtol=1e-12, atol=1e-12)
            and np.allclose(est.intercept_, icpt, rtol=1e-12, atol=1e-12)
        )
    except (ValueError, IndexError, TypeError, AttributeError):
        same = False
    if not same:
        _fail(est, "coef_", "does not follow from the model's densities and priors")


def _check_nb(est):
    K, d, tr = _check_density_parent(est)
    _log_priors(est, K)
    _probability_convention(est, K, est.class_log_prior_)
    n_terms = _terms(est, K * (d + tr.pairs_.shape[0]))
    _linear(est, n_terms, K)


def _check_tan(est):
    K, d, tr = _check_density_parent(est)
    _log_priors(est, K)
    _probability_convention(est, K, est.class_log_prior_)
    # the trees are Chow-Liu's of mutual_info_ (tan.py): derive them again (H53: an entry of
    # 1e200 loaded and was shown); a KDE estimate is far below 1e4 nats
    mi = _array(est, "mutual_info_", shape=(K, d, d), ge=-1e4, le=1e4)
    if not np.array_equal(mi, mi.transpose(0, 2, 1)):
        _fail(est, "mutual_info_", "is not symmetric")
    P = tr.pairs_.shape[0]
    edges = getattr(est, "_edge_index", None)
    if not isinstance(edges, (list, tuple)) or len(edges) != K:
        _fail(est, "_edge_index", f"does not hold the tree edges of {K} classes")
    for c, e in enumerate(edges):
        e = _array(est, f"_edge_index[{c}]", e, ndim=1, kind="iu")
        if e.size and (e.min() < 0 or e.max() >= P or np.unique(e).size != e.size):
            _fail(est, f"_edge_index[{c}]", f"points outside the {P} tree pairs")
        if e.size >= d:
            _fail(est, f"_edge_index[{c}]", f"has {e.size} edges; a tree of {d} features has fewer")
    for attr in ("trees_", "tree_names_"):
        v = getattr(est, attr, None)
        if not isinstance(v, dict) or len(v) != K:
            _fail(est, attr, f"does not hold the trees of {K} classes")
    labels = np.asarray(est.classes_).tolist()
    for attr, ok in (
        ("trees_", lambda i: isinstance(i, int) and 0 <= i < d),
        ("tree_names_", lambda i: isinstance(i, str)),
    ):
        tree = getattr(est, attr)
        if sorted(map(str, tree)) != sorted(map(str, labels)):
            _fail(est, attr, "names other classes than classes_")
        for lab, edge_list in tree.items():
            if not isinstance(edge_list, list) or len(edge_list) >= d:
                _fail(est, attr, f"does not hold a tree of {d} features for class {lab!r}")
            for edge in edge_list:
                if not isinstance(edge, (tuple, list)) or len(edge) != 2 or not all(map(ok, edge)):
                    _fail(est, attr, f"has an edge of class {str(lab)[:40]!r} that is not a pair")
    from .peers.tan import chow_liu_tree

    for c, lab in enumerate(labels):
        want = chow_liu_tree(mi[c]) if d > 1 else []
        got = next(v for k, v in est.trees_.items() if str(k) == str(lab))
        if [tuple(e) for e in got] != [tuple(e) for e in want]:
            _fail(est, "trees_", f"is not the tree of mutual_info_ for class {str(lab)[:40]!r}")
    n_terms = _terms(est, K * (d + P))
    _linear(est, n_terms, K)


def _check_renyi(est):
    K, d = _classes(est), _features(est)
    edges = getattr(est, "bin_edges_", None)
    if not isinstance(edges, (list, tuple)) or len(edges) != d:
        _fail(est, "bin_edges_", f"does not hold the bin edges of {d} features")
    for j, e in enumerate(edges):
        e = _array(est, f"bin_edges_[{j}]", e, ndim=1)
        if e.size > 1 and not np.all(np.diff(e) > 0):
            _fail(est, f"bin_edges_[{j}]", "is not increasing")
    levels = _array(est, "n_levels_", shape=(d,), kind="iu")
    if levels.tolist() != [np.asarray(e).size + 1 for e in edges]:
        _fail(est, "n_levels_", "does not match the bin edges")
    blocks = _array(est, "blocks_", ndim=2, kind="iu")
    if blocks.shape[1] not in (1, 2) or (blocks.size and (blocks.min() < 0 or blocks.max() >= d)):
        _fail(est, "blocks_", f"names features outside 0..{d - 1}")
    want = (
        levels[blocks[:, 0]]
        if blocks.shape[1] == 1
        else levels[blocks[:, 0]] * levels[blocks[:, 1]]
    )
    sizes = _array(est, "block_sizes_", shape=(blocks.shape[0],), kind="iu")
    if not np.array_equal(sizes, want):
        _fail(est, "block_sizes_", "does not match the blocks' levels")
    n_terms = int(sizes.sum())
    _terms(est, n_terms)
    _linear(est, n_terms, K)
    sel = _array(est, "selected_features_", ndim=1, kind="iu")
    if sel.size and (sel.min() < 0 or sel.max() >= d):
        _fail(est, "selected_features_", f"names features outside 0..{d - 1}")
    _number(est, "decision_seed_", integer=True, ge=0)
    _number(est, "group_lasso_n_iter_", integer=True, ge=0, optional=True)


def _check_discrete(est):
    K, d = _classes(est), _features(est)
    mean = _array(est, "mean_", shape=(d,))
    scale = _array(est, "scale_", shape=(d,), gt=0.0)
    proj = _array(est, "projection_matrix_", ndim=2, optional=True)
    D = d + (1 if est.offset == "node" else 0)
    if proj is not None:
        if proj.shape[1] != D:
            _fail(est, "projection_matrix_", f"has {proj.shape[1]} columns, not {D}")
        D = proj.shape[0]
    theta = _array(est, "theta_", shape=(D + 1,))
    weights = _array(est, "weights_", shape=(None, D + 1))
    energies = _array(est, "energies_", shape=(weights.shape[0],), finite=False)
    if np.isnan(energies).any():
        _fail(est, "energies_", "holds NaN")
    orders = _array(est, "chain_orders_", shape=(weights.shape[0], None), kind="iu")
    if orders.size and (orders.min() < 0 or orders.max() >= D):
        _fail(est, "chain_orders_", f"names coordinates outside 0..{D - 1}")
    from .peers.discrete_map import weight_grid

    grid = _array(est, "weight_grid_", ndim=1)
    if not np.array_equal(grid, weight_grid(est.n_weight_values)):
        _fail(est, "weight_grid_", "is not the grid of n_weight_values")
    if not np.isin(weights, grid).all():
        _fail(est, "weights_", "holds a weight outside weight_grid_")
    _number(est, "n_nonzero_", integer=True, ge=0, le=D + 1)
    _terms(est, d)
    coef = _linear(est, d, K)
    _platt(est)
    # The public linear form is derived from theta_: it must be the same function.
    w = theta[:D] if proj is None else proj.T @ theta[:D]
    want = w[:d] / scale
    b = theta[D] + (w[d] if est.offset == "node" else 0.0)
    if not (
        np.allclose(coef[0], want, rtol=1e-9, atol=1e-12)
        and np.allclose(est.intercept_[0], b - want @ mean, rtol=1e-9, atol=1e-9)
    ):
        _fail(est, "coef_", "does not follow from theta_, mean_ and scale_")


# --------------------------------------------------------------------------------------------
# scikit-learn's parts
# --------------------------------------------------------------------------------------------
def _check_scaler(est):
    d = _features(est)
    _array(est, "mean_", shape=(d,), optional=not est.with_mean)
    _array(est, "var_", shape=(d,), ge=0.0, optional=not est.with_std)
    _array(est, "scale_", shape=(d,), gt=0.0, optional=not est.with_std)
    n = getattr(est, "n_samples_seen_", None)
    if isinstance(n, np.ndarray):
        _array(est, "n_samples_seen_", shape=(d,), ge=1)
    else:
        _number(est, "n_samples_seen_", ge=1)


def _check_gaussian_nb(est):
    K, d = _classes(est), _features(est)
    _array(est, "theta_", shape=(K, d))
    _array(est, "var_", shape=(K, d), gt=0.0)
    _array(est, "class_count_", shape=(K,), ge=0.0)
    prior = _array(est, "class_prior_", shape=(K,), ge=0.0, le=1.0)
    if abs(float(prior.sum()) - 1.0) > 1e-6:
        _fail(est, "class_prior_", "does not sum to 1")
    _number(est, "epsilon_", ge=0.0)


def _check_linear_sklearn(est):
    K, d = _classes(est), _features(est)
    _linear(est, d, K)


def _check_svc(est) -> None:
    """The array sizes libsvm's prediction relies on (it indexes them without checks)."""
    K, d = _classes(est), _features(est)
    sv = _array(est, "support_vectors_", ndim=2, kind="f")
    n_sv = sv.shape[0]
    n_pairs = K * (K - 1) // 2
    nsup = np.asarray(est._n_support)
    shape_fit = getattr(est, "shape_fit_", None)
    ok = (
        est.kernel in ("linear", "poly", "rbf", "sigmoid")
        and est._sparse is False
        and sv.dtype == np.float64
        and sv.shape[1] == d
        and isinstance(shape_fit, tuple)
        and len(shape_fit) == 2
        and all(isinstance(v, int) for v in shape_fit)
        and shape_fit[1] == d
        and nsup.shape == (K,)
        and nsup.dtype == np.int32
        and nsup.min() >= 0
        and int(nsup.sum()) == n_sv
        and np.asarray(est.support_).shape == (n_sv,)
        and np.asarray(est.support_).dtype == np.int32
        and np.asarray(est._dual_coef_).shape == (K - 1, n_sv)
        and np.asarray(est._intercept_).shape == (n_pairs,)
        and all(np.asarray(p).shape in ((0,), (n_pairs,)) for p in (est._probA, est._probB))
    )
    if not ok:
        _fail(est, "support_vectors_", "and the SVM's other arrays do not fit together")
    support = _array(est, "support_", kind="iu", ge=0)
    if n_sv and support.max() >= shape_fit[0]:
        _fail(est, "support_", f"points beyond the {shape_fit[0]} training rows")
    for attr in ("_dual_coef_", "_intercept_", "_probA", "_probB", "dual_coef_", "intercept_"):
        _array(est, attr)
    gamma = _number(est, "_gamma", gt=0.0)
    # The kernel width in force is the parameter itself, or 1/d for "auto" ("scale" depends on
    # the training rows' variance, which the file does not keep).
    want = est.gamma if not isinstance(est.gamma, str) else 1.0 / d if est.gamma == "auto" else None
    if want is not None and not math.isclose(gamma, want, rel_tol=1e-12):
        _fail(est, "_gamma", f"is {gamma}, not the gamma the SVM was fitted with ({want})")
    _array(est, "class_weight_", shape=(K,), ge=0.0)
    sign = -1.0 if K == 2 else 1.0  # scikit-learn flips the binary duals' public signs
    if not (
        np.array_equal(np.asarray(est.dual_coef_), sign * np.asarray(est._dual_coef_))
        and np.array_equal(np.asarray(est.intercept_), sign * np.asarray(est._intercept_))
    ):
        _fail(est, "dual_coef_", "and intercept_ differ from the SVM's internal ones")
    if getattr(est, "fit_status_", 0) != 0:
        _fail(est, "fit_status_", "says the SVM did not converge to a solution")
    for attr in ("support_vectors_", "_dual_coef_", "_intercept_", "_probA", "_probB"):
        setattr(est, attr, np.ascontiguousarray(getattr(est, attr), dtype=np.float64))


def _check_knn(est):
    K, d = _classes(est), _features(est)
    X = _array(est, "_fit_X", shape=(None, d), kind="f")
    codes = _array(est, "_y", shape=(X.shape[0],), kind="iu", ge=0)
    if codes.size and codes.max() >= K:
        _fail(est, "_y", f"holds class codes beyond the {K} classes")
    if X.size > MAX_KNN_VALUES:
        raise ValueError(
            f"The model file's nearest-neighbour model holds {X.shape[0]:,} training rows of "
            f"{d} features, more than the {MAX_KNN_VALUES:,} values load_model rebuilds a search "
            "tree for. Refit it on fewer rows (or use another classifier for large tables)."
        )
    n = _number(est, "n_samples_fit_", integer=True, ge=1)
    if n != X.shape[0]:
        _fail(est, "n_samples_fit_", f"is {n}, but the file holds {X.shape[0]} training rows")
    if est.n_neighbors > n:
        _fail(est, "n_neighbors", f"is {est.n_neighbors}, more than the {n} training rows")
    if getattr(est, "outputs_2d_", False):
        _fail(est, "outputs_2d_", "is set; only one label column is supported")


def check_tree_values(nodes, values, n_outputs, n_classes) -> None:
    """A tree's numbers: finite thresholds on split nodes, finite non-negative values."""
    leaf = (nodes["left_child"] == -1) & (nodes["right_child"] == -1)
    thr = nodes["threshold"][~leaf]
    if not np.isfinite(thr).all():
        _fail("Tree", "nodes", "hold a split threshold that is NaN or infinite")
    for f in ("impurity", "weighted_n_node_samples"):
        col = nodes[f]
        if not np.isfinite(col).all() or np.any(col < 0):
            _fail("Tree", "nodes", f"hold a {f} that is negative, NaN or infinite")
    if np.any(nodes["n_node_samples"] < 0):
        _fail("Tree", "nodes", "hold a negative sample count")
    if "missing_go_to_left" in nodes.dtype.names and np.any(nodes["missing_go_to_left"] > 1):
        _fail("Tree", "nodes", "hold a missing-value direction that is not 0 or 1")
    if not np.isfinite(values).all() or np.any(values < 0):
        _fail("Tree", "values", "hold a class weight that is negative, NaN or infinite")


def _check_tree_estimator(est):
    K, d = _classes(est, min_k=1), _features(est)
    tree = est.tree_
    if tree.n_features != d:
        _fail(est, "tree_", f"splits on {tree.n_features} features, not {d}")
    if _number(est, "n_outputs_", integer=True, ge=1) != 1 or tree.n_outputs != 1:
        _fail(est, "n_outputs_", "is not 1; only one label column is supported")
    if _number(est, "n_classes_", integer=True, ge=1) != K or int(tree.n_classes[0]) != K:
        _fail(est, "classes_", f"has {K} classes but the tree has {int(tree.n_classes[0])}")
    _number(est, "max_features_", integer=True, ge=1, le=d)


def _check_forest(est):
    K, d = _classes(est, min_k=1), _features(est)
    trees = getattr(est, "estimators_", None)
    if not isinstance(trees, list) or not trees:
        _fail(est, "estimators_", "is not a list of trees")
    if len(trees) != est.n_estimators:
        _fail(est, "estimators_", f"has {len(trees)} trees, not n_estimators = {est.n_estimators}")
    if _number(est, "n_outputs_", integer=True) != 1:
        _fail(est, "n_outputs_", "is not 1; only one label column is supported")
    if _number(est, "n_classes_", integer=True) != K:
        _fail(est, "n_classes_", f"is not the number of classes ({K})")
    for t in trees:
        if type(t).__name__ != "DecisionTreeClassifier" or not hasattr(t, "tree_"):
            _fail(est, "estimators_", "holds something that is not a fitted tree")
        if t.n_features_in_ != d or len(t.classes_) != K:
            _fail(est, "estimators_", f"holds a tree not fitted on {d} features and {K} classes")
    if type(getattr(est, "estimator_", None)).__name__ != "DecisionTreeClassifier":
        _fail(est, "estimator_", "is not a decision tree")
    params = getattr(est, "estimator_params", ())
    if not isinstance(params, tuple) or not all(
        isinstance(p, str) and p in est.estimator_.get_params() for p in params
    ):
        _fail(est, "estimator_params", "names parameters a decision tree does not have")


def _check_pipeline(est):
    steps = [s for _, s in est.steps]
    for a, b in zip(steps[:-1], steps[1:], strict=True):
        if type(a).__name__ == "TableCleaner":
            n_out = len(a.get_feature_names_out())
        elif type(a).__name__ == "StandardScaler":
            n_out = a.n_features_in_
        else:
            _fail(est, "steps", f"has {type(a).__name__} before its last step")
        if getattr(b, "n_features_in_", n_out) != n_out:
            _fail(est, "steps", f"pass {n_out} columns to a step fitted on {b.n_features_in_}")
    if steps and type(steps[0]).__name__ == "TableCleaner" and hasattr(steps[-1], "classes_"):
        _check_fitted_on(steps[-1], steps[0])


def _check_fitted_on(est, cleaner):
    """The classifier's training rows against the cleaner's class counts (what it was fitted
    on): a density's rows per class, k-NN's, an SVM's, a forest's and Gaussian NB's counts."""
    counts = {}
    for attr in ("class_counts_", "original_class_counts_"):
        for label, n in (getattr(cleaner, attr, None) or {}).items():
            if isinstance(n, (int, np.integer)) and not isinstance(n, bool):
                counts[label] = max(counts.get(label, 0), int(n))
    if not counts:
        return
    total = sum(counts.values())
    labels = np.asarray(est.classes_).tolist()
    kde = getattr(getattr(est, "transformer_", None), "_kde", None)
    if kde is not None:
        for label, Xc in zip(labels, kde.X, strict=True):
            if Xc.shape[0] > counts.get(label, total):
                _fail(
                    est,
                    "transformer_._kde.X",
                    f"holds {Xc.shape[0]:,} rows of class {str(label)[:40]!r}, more than the "
                    f"{counts.get(label, total):,} the table cleaner recorded at fit",
                )
    n_fit = None
    if hasattr(est, "_fit_X"):
        n_fit, attr = est._fit_X.shape[0], "_fit_X"
    elif isinstance(getattr(est, "shape_fit_", None), tuple):
        n_fit, attr = est.shape_fit_[0], "shape_fit_"
    elif isinstance(getattr(est, "_n_samples", None), int):
        n_fit, attr = est._n_samples, "_n_samples"
    elif isinstance(getattr(est, "class_count_", None), np.ndarray):
        n_fit, attr = float(est.class_count_.sum()), "class_count_"
    if n_fit is not None and n_fit > total:
        _fail(est, attr, f"says {n_fit:,} training rows, more than the {total:,} the cleaner saw")


def _check_cleaner(est):
    est._check_fitted_state()
    for col in est.columns_:
        if not math.isfinite(col["fill"]):
            _fail(est, "columns_", f"fills column {col['name'][:40]!r} with {col['fill']}")


CHECKS = {
    "SLBClassifier": _check_slb,
    "ForestDensityClassifier": _check_slb,
    "LUClassifier": _check_slb,
    "KDENaiveBayes": _check_nb,
    "TANClassifier": _check_tan,
    "LogDensityTransformer": _check_transformer,
    "RenyiClassifier": _check_renyi,
    "DiscreteMAPClassifier": _check_discrete,
    "TableCleaner": _check_cleaner,
    "Pipeline": _check_pipeline,
    "StandardScaler": _check_scaler,
    "RandomForestClassifier": _check_forest,
    "DecisionTreeClassifier": _check_tree_estimator,
    "SVC": _check_svc,
    "LinearSVC": _check_linear_sklearn,
    "LogisticRegression": _check_linear_sklearn,
    "KNeighborsClassifier": _check_knn,
    "GaussianNB": _check_gaussian_nb,
}


def check_fitted_state(est) -> None:
    """Check a decoded estimator's fitted numbers (see the module docstring).

    Parameters
    ----------
    est : estimator
        A fitted estimator of :data:`slb.persistence.EXPORTABLE` just rebuilt from a file (an
        unfitted one, which the file may hold as a pipeline step, is left to the caller).

    Raises
    ------
    ValueError
        Something the estimator's methods would trust is wrong.
    """
    fitted = [k for k in vars(est) if k.endswith("_") and not k.startswith("__")]
    if not fitted and type(est).__name__ != "Pipeline":
        return
    try:
        CHECKS[type(est).__name__](est)
    except ValueError:
        raise
    except (TypeError, AttributeError, IndexError, KeyError) as exc:
        raise ValueError(
            f"The model file's {type(est).__name__} is damaged ({type(exc).__name__}: "
            f"{str(exc)[:200]}). Save the model again with slb.persistence.save_model (or refit "
            "it) and load that file."
        ) from None


def check_derived(est) -> None:
    """Naive Bayes and TAN: the saved linear form agrees with the densities it comes from."""
    if type(est).__name__ in ("KDENaiveBayes", "TANClassifier") and hasattr(est, "coef_"):
        _check_derived_linear(est)


# --------------------------------------------------------------------------------------------
# Behaviour
# --------------------------------------------------------------------------------------------
def _probe_rows(est, d):
    rows = np.zeros((2, d))
    tr = getattr(est, "transformer_", None)
    clip = getattr(tr, "_clip", None)
    if clip is not None:  # the middle of the training range
        rows[1] = (np.asarray(clip[0]) + np.asarray(clip[1])) / 2
    else:
        rows[1] = 1.0
    names = getattr(est, "feature_names_in_", None)
    return pd.DataFrame(rows, columns=list(names)) if names is not None else rows


def probe(model) -> None:
    """Predict two probe rows with the final classifier: finite outputs, known classes.

    Parameters
    ----------
    model : estimator
        A loaded classifier or a ``Pipeline`` ending in one (the probe goes to its last step,
        whose input is numeric).

    Raises
    ------
    ValueError
        The classifier fails on the probe rows or answers NaN, infinity or an unknown class.
    """
    est = model.steps[-1][1] if hasattr(model, "steps") else model
    if not hasattr(est, "predict") or not hasattr(est, "classes_"):
        return
    X = _probe_rows(est, int(est.n_features_in_))
    name = type(est).__name__
    # A density model evaluates its densities once per call: its probe is one call, whose
    # sign is the prediction (the other methods are functions of it).
    dens = hasattr(est, "transformer_") and hasattr(est, "decision_function")
    methods = ("decision_function",) if dens else ("decision_function", "predict_proba")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outputs = [
                np.asarray(getattr(est, m)(X), dtype=float)
                for m in methods
                if hasattr(est, m) and not _needs_refit(est, m)
            ]
            labels = (
                np.asarray(est.classes_)[(outputs[0] > 0).astype(int)]
                if dens and outputs[0].ndim == 1
                else np.asarray(est.predict(X))
            )
    except ValueError as exc:
        raise ValueError(
            f"The model file's {name} cannot predict ({str(exc)[:200]}): the file is damaged "
            "or was altered. Save the model again with slb.persistence.save_model (or refit it)."
        ) from None
    except Exception as exc:
        raise ValueError(
            f"The model file's {name} fails when it predicts ({type(exc).__name__}: "
            f"{str(exc)[:200]}): the file is damaged or was altered. Save the model again with "
            "slb.persistence.save_model (or refit it)."
        ) from None
    known = set(np.asarray(est.classes_).tolist())
    if labels.shape != (2,) or not set(labels.tolist()) <= known:
        _fail(est, "classes_", "do not include what the model predicts")
    for out in outputs:
        if out.shape[0] != 2 or not np.isfinite(out).all():
            _fail(est, "state", "makes the model answer NaN or infinity")


def _needs_refit(est, method):
    # Models saved before Platt scaling (old files) refuse predict_proba with a clear message.
    return method == "predict_proba" and "platt_" not in vars(est) and hasattr(est, "terms_")


@functools.cache
def constructor_params(cls) -> frozenset:
    """The parameter names of ``cls.__init__``."""
    return frozenset(inspect.signature(cls.__init__).parameters) - {"self"}
