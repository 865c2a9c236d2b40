"""How the SLB family picks one candidate from its nested inner-CV table.

Two rules (the estimators' ``selection`` parameter) read the same table:

* ``"min"``: the candidate of lowest mean inner BER (ties: the least complex, below);
* ``"one_se"``: the one-standard-error rule (Breiman et al. 1984; Hastie, Tibshirani and
  Friedman, *Elements of Statistical Learning*, 7.10): among the candidates whose mean inner
  BER is at most ``m + s``, where ``m`` is the mean BER of the ``"min"`` candidate and ``s`` its
  standard error over the inner folds (sample standard deviation, ``ddof=1``, over
  ``sqrt(n_folds)``), the least complex;
* ``"corrected"``: the minimum within each group of candidates (the SVM grid is one group;
  with ``generative_candidates=True`` naive Bayes and TAN are a group each), and between the
  groups the lowest minimum *after* Tibshirani and Tibshirani's bias correction of a minimum
  over cross-validated candidates (Ann. Appl. Stat. 3(2), 2009): the group's minimum plus the
  mean over the inner folds of (the minimum cell's BER on the fold - the fold's own smallest
  BER in the group).  A group of one candidate needs no correction; a grid of 70 cells on a
  small table gets a large one (every fold has a lucky cell of its own), a large table a small
  one.  Without generative candidates it is ``"min"``.  The scores it compared are reported
  as ``cv_results_["corrected_ber"]`` (NaN on the rows no group picked), so a pick whose
  ``rank_ber`` is above 1 shows the number it won on.

**Complexity order** (least complex first): fewer pairs (the candidate's mean number of kept
pairs over the inner folds), then fixed weights before fitted ones (KDE naive Bayes and TAN,
whose weights are fixed by their densities, count as less complex than any SVM on as many
pairs), then the grid's own order (the sparser selector, then the smaller ``C``).  For the
nested pair grids of SLB (top fractions or thresholds, sparsest first) the mean number of
pairs never decreases along the grid, so this is the grid's row-major order, the tie rule
``"min"`` had always used.

With ``generative_candidates=True`` KDE naive Bayes and TAN (:mod:`slb.peers`) join the table:
:func:`generative_fold_scores` fits them inside every inner fold from that fold's training rows
only (nested, as the SVM candidates' densities), and scores them on the fold's test rows with
the decision priors the SVMs' class weights stand for.
"""

from __future__ import annotations

import functools
import hashlib
import warnings

import numpy as np
import pandas as pd

from .._metrics import balanced_error_rate
from ..density.features import BANDWIDTH_CONSTRAINTS

#: Values of the estimators' ``selection`` parameter.
SELECTION_RULES = ("min", "one_se", "corrected")
#: The generative candidates, in the order their rows follow the grid in ``cv_results_``.
GENERATIVE = ("naive_bayes", "tan")
#: Tolerance of "equal" mean BERs (the rules' ties), as the grid rule has always used.
TIE = 1e-9

__all__ = [
    "GENERATIVE",
    "SELECTION_RULES",
    "choose",
    "corrected_minimum",
    "decision_prior",
    "generative_fold_scores",
    "path_generative_scores",
    "select_row",
    "standard_errors",
]


def _select_best(mean):
    """(selector, C) index of the lowest mean BER; ties go to the sparser, then the smaller C."""
    best = np.nanmin(mean)
    i, j = np.argwhere(mean <= best + TIE)[0]  # row-major: sparsest selector, then smallest C
    return int(i), int(j)


def _cv_table(grid_values, Cs, ber, n_pairs):
    """scikit-learn-style ``cv_results_``: one entry per (selector, C) candidate, row-major."""
    n_sel, n_C, n_folds = ber.shape
    flat = ber.reshape(n_sel * n_C, n_folds)
    mean = flat.mean(axis=1)
    res = {f"param_{k}": np.repeat(np.asarray(v), n_C) for k, v in grid_values.items()}
    res["param_C"] = np.tile(np.asarray(Cs, dtype=float), n_sel)
    res["mean_n_pairs"] = np.repeat(n_pairs.mean(axis=1), n_C)
    res["mean_ber"] = mean
    res["std_ber"] = flat.std(axis=1, ddof=1) if n_folds > 1 else np.zeros_like(mean)
    for f in range(n_folds):
        res[f"split{f}_ber"] = flat[:, f]
    res["rank_ber"] = pd.Series(mean).rank(method="min").to_numpy(dtype=int)
    return res


def corrected_minimum(fold_ber, best):
    """Tibshirani and Tibshirani's (2009) estimate of the error of the candidate that minimises
    the mean cross-validated error: its mean plus the mean over the folds of (its error on the
    fold - the fold's smallest error).

    Parameters
    ----------
    fold_ber : ndarray of shape (n_candidates, n_folds)
        Every candidate's BER on every inner fold (NaN: not computed, left out).
    best : int
        The row of the minimum (chosen on the means).

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.selection import corrected_minimum
    >>> ber = np.array([[0.2, 0.4], [0.4, 0.2], [0.25, 0.3]])  # each fold has its own winner
    >>> round(corrected_minimum(ber, 2), 3)  # 0.275 + mean(0.05, 0.1)
    0.35
    >>> corrected_minimum(ber[2:], 0)  # one candidate: nothing was selected
    0.275
    """
    fold_ber = np.asarray(fold_ber, dtype=float)
    row = fold_ber[best]
    return float(np.nanmean(row) + np.nanmean(row - np.nanmin(fold_ber, axis=0)))


def choose(mean, se, complexity, rule="min", *, fold_ber=None, groups=None):
    """Index of the candidate a selection rule picks.

    Parameters
    ----------
    mean : array-like of shape (n_candidates,)
        Mean inner-CV BER of each candidate.
    se : array-like of shape (n_candidates,)
        Its standard error over the inner folds.
    complexity : list of tuple
        Sort keys, least complex first (see the module docstring).
    rule : {"min", "one_se", "corrected"}
    fold_ber : array-like of shape (n_candidates, n_folds), optional
        Every candidate's BER on each inner fold (``"corrected"`` only).
    groups : array-like of shape (n_candidates,), optional
        The group of each candidate (``"corrected"`` only; default: one group, i.e. ``"min"``).

    Returns
    -------
    index : int

    Examples
    --------
    >>> from slb.model.selection import choose
    >>> mean, se = [0.30, 0.25, 0.20], [0.02, 0.02, 0.06]
    >>> keys = [(0,), (1,), (2,)]  # the first is the least complex
    >>> choose(mean, se, keys, "min"), choose(mean, se, keys, "one_se")  # 0.25 <= 0.20 + 0.06
    (2, 1)
    >>> folds = [[0.30, 0.30], [0.05, 0.45], [0.40, 0.00]]  # the last two won one fold each
    >>> choose(mean, se, keys, "corrected", fold_ber=folds, groups=[0, 1, 1])  # 0.2 + 0.175 > 0.3
    0
    """
    mean = np.asarray(mean, dtype=float)
    se = np.asarray(se, dtype=float)
    if rule not in SELECTION_RULES:
        raise ValueError(f"selection must be one of {', '.join(SELECTION_RULES)}, got {rule!r}.")

    least_complex = functools.partial(_least_complex, complexity=complexity)
    best = least_complex(mean <= np.nanmin(mean) + TIE)
    if rule == "min" or (rule == "corrected" and groups is None):
        return int(best)
    if rule == "corrected":
        return _corrected_pick(mean, np.asarray(fold_ber, dtype=float), groups, least_complex)[0]
    bound = mean[best] + (se[best] if np.isfinite(se[best]) else 0.0)
    return int(least_complex(mean <= bound + TIE))


def _least_complex(ok, complexity):
    """The least complex row where ``ok`` holds (ties: the first)."""
    return int(min(np.flatnonzero(ok), key=lambda i: (complexity[i], i)))


def _corrected_pick(mean, fold_ber, groups, least_complex):
    """``"corrected"``: the least complex of the groups' picks with the lowest score of
    :func:`_group_scores`, and those scores."""
    score = _group_scores(mean, fold_ber, groups, least_complex)
    return int(least_complex(score <= np.nanmin(score) + TIE)), score


def _group_scores(mean, fold_ber, groups, least_complex):
    """Each group's least complex minimum scored by :func:`corrected_minimum` over the group's
    rows that can be picked (a finite mean: a row that cannot be picked does not lower the
    folds' minima); NaN on every other row."""
    groups = np.asarray(groups)
    score = np.full(mean.size, np.nan)
    for g in dict.fromkeys(groups.tolist()):  # in order of first appearance
        mask = (groups == g) & np.isfinite(mean)
        if mask.any():
            pick = least_complex(mask & (mean <= mean[mask].min() + TIE))
            score[pick] = corrected_minimum(fold_ber[mask], int(np.sum(mask[:pick])))
    return score


def select_row(table, se, complexity, rule, *, fold_ber, groups):
    """:func:`choose` on ``table["mean_ber"]``; with ``rule="corrected"`` it also records
    every group's corrected score in ``table["corrected_ber"]`` (NaN on the other rows), the
    number the pick was made on.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.selection import select_row
    >>> table = {"mean_ber": np.array([0.30, 0.25, 0.20])}
    >>> folds = np.array([[0.30, 0.30], [0.05, 0.45], [0.40, 0.00]])
    >>> select_row(table, [0.0] * 3, [(0,), (1,), (2,)], "corrected", fold_ber=folds,
    ...            groups=[0, 1, 1])
    0
    >>> table["corrected_ber"].round(3).tolist()  # the grid's minimum pays its optimism
    [0.3, nan, 0.375]
    """
    mean = np.asarray(table["mean_ber"], dtype=float)
    if rule != "corrected" or groups is None:
        return choose(mean, se, complexity, rule, fold_ber=fold_ber, groups=groups)
    least_complex = functools.partial(_least_complex, complexity=complexity)
    best, table["corrected_ber"] = _corrected_pick(
        mean, np.asarray(fold_ber, dtype=float), groups, least_complex
    )
    return best


def standard_errors(ber):
    """Standard error over the inner folds of each candidate: ``std(ddof=1) / sqrt(k)``.

    Parameters
    ----------
    ber : ndarray of shape (..., n_folds)

    Returns
    -------
    se : ndarray of shape ber.shape[:-1]
        Zero with one fold.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.selection import standard_errors
    >>> float(standard_errors(np.array([0.1, 0.3, 0.2, 0.2])).round(4))
    0.0408
    """
    k = ber.shape[-1]
    if k < 2:
        return np.zeros(ber.shape[:-1])
    return ber.std(axis=-1, ddof=1) / np.sqrt(k)


def decision_prior(y_index, class_weight, n_classes):
    """The priors whose Bayes rule a class-weighted linear model approximates: ``class
    weight x frequency``, normalised (equal priors for "balanced").

    Parameters
    ----------
    y_index : ndarray of int
    class_weight : "balanced", dict keyed by class index, or None
    n_classes : int

    Returns
    -------
    prior : ndarray of shape (n_classes,)

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.selection import decision_prior
    >>> y = np.array([0, 0, 0, 1])
    >>> decision_prior(y, "balanced", 2).tolist(), decision_prior(y, None, 2).tolist()
    ([0.5, 0.5], [0.75, 0.25])
    """
    prevalence = np.bincount(y_index, minlength=n_classes) / y_index.size
    if isinstance(class_weight, str):
        weights = 1.0 / np.maximum(prevalence, 1e-300)
    elif class_weight is None:
        weights = np.ones(n_classes)
    else:
        weights = np.array([float(class_weight.get(k, 1.0)) for k in range(n_classes)])
    prior = weights * prevalence
    return prior / prior.sum()


def _make_generative(name, bandwidth_settings, seed):
    """An unfitted KDE naive Bayes or TAN on the SLB model's bandwidth settings (equal priors,
    no calibration: the SLB estimator calibrates it as it calibrates its SVM)."""
    from ..peers.naive_bayes import KDENaiveBayes
    from ..peers.tan import TANClassifier

    cls = {"naive_bayes": KDENaiveBayes, "tan": TANClassifier}[name]
    params = {k: v for k, v in bandwidth_settings.items() if k in BANDWIDTH_CONSTRAINTS}
    return cls(priors="balanced", calibrate=False, random_state=seed, **params)


def _generative_decision(class_ll, log_prior):
    """Decision values at the priors ``exp(log_prior)`` from the class log-likelihoods
    ``log p_y(x)``: the log posterior odds for two classes, the joint log-likelihoods for more
    (argmax: prediction)."""
    ll = class_ll + log_prior
    return ll[:, 1] - ll[:, 0] if ll.shape[1] == 2 else ll


def _test_log_likelihood(name, model, X_test, test_map):
    """``log p_y(x)`` of a fold's test rows under the fitted generative ``model``.

    ``test_map``: None, or ``(T, pairs)``, the fold's SLB feature map of the same rows
    (univariate terms, then each class's terms of ``pairs``: :func:`column_mask`'s layout) from
    densities fitted on the same training rows with the same bandwidth settings.  Its columns
    are the model's own terms, so they are read from it instead of being evaluated again (on
    800 training rows x 20 features: naive Bayes's 14 ms per fold and TAN's 29 ms of test
    densities, out of its 75 ms).  TAN evaluates its own map when an edge is
    outside ``pairs`` (a capped wide table) or a class's densities are binned (a binned pair
    density's grids depend on the other pairs evaluated with it: equal only to the binning's
    accuracy, so not read across).
    """
    if test_map is not None:
        T, pairs = test_map
        d, K = model.n_features_in_, len(model.classes_)
        if name == "naive_bayes":
            return model._class_log_likelihood(T[:, : K * d])
        index = {(int(a), int(b)): k for k, (a, b) in enumerate(pairs)}
        own = [index.get((int(a), int(b))) for a, b in model.transformer_.pairs_]
        kde = model.transformer_._kde
        if None not in own and not any(kde.binned(c) for c in range(K)):
            P = len(pairs)
            cols = np.arange(K * d).tolist() + [K * d + p * P + k for p in range(K) for k in own]
            return model._class_log_likelihood(T[:, cols])
    return model.joint_log_likelihood(X_test) - model.class_log_prior_


def _prior_intercept(log_prior):
    """The linear form's intercept for priors ``exp(log_prior)`` (two classes: the log odds)."""
    log_prior = np.asarray(log_prior, dtype=float)
    return np.array([log_prior[1] - log_prior[0]]) if log_prior.size == 2 else log_prior.copy()


def _predict(dec):
    return (dec > 0).astype(int) if dec.ndim == 1 else dec.argmax(axis=1)


def generative_fold_scores(
    X, y_index, folds, bandwidth_settings, class_weight, n_classes, seed, test_maps=None
):
    """KDE naive Bayes and TAN fitted on every inner fold's training rows, scored on its test rows.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y_index : ndarray of shape (n_samples,)
        Class indices.
    folds : list of (train_index, test_index)
    bandwidth_settings : dict
        The SLB model's density settings (index-keyed overrides); only the bandwidth ones are used.
    class_weight : "balanced", dict keyed by class index, or None
        As the SVMs': the decision priors of each fold's model (:func:`decision_prior`).
    n_classes : int
    seed : int
    test_maps : list of (ndarray, ndarray) or None
        Per fold, SLB's feature map of the fold's test rows and its pairs (a
        :class:`~slb.model.path.ThresholdPath` fold's ``T_test`` and ``screen.pairs``), fitted
        on the same training rows with the same bandwidth settings: the models' test
        log-densities are read from it (the same numbers) instead of being evaluated again.

    Returns
    -------
    scores : dict
        ``{name: {"ber": (n_folds,), "n_pairs": (n_folds,), "decision": [per fold]}}`` for
        ``name`` in :data:`GENERATIVE`.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.selection import generative_fold_scores
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 30)
    >>> X = rng.normal(size=(60, 3)) + y[:, None]
    >>> tests = [np.arange(k, 60, 3) for k in range(3)]
    >>> folds = [(np.setdiff1d(np.arange(60), te), te) for te in tests]
    >>> out = generative_fold_scores(X, y, folds, {}, "balanced", 2, seed=0)
    >>> sorted(out), out["naive_bayes"]["n_pairs"].tolist()  # naive Bayes: no pair
    (['naive_bayes', 'tan'], [0, 0, 0])
    >>> bool(out["tan"]["n_pairs"].min() >= 2), bool(out["naive_bayes"]["ber"].mean() < 0.4)
    (True, True)
    """
    out = {g: {"ber": [], "n_pairs": [], "decision": []} for g in GENERATIVE}
    maps = [None] * len(folds) if test_maps is None else test_maps
    for (tr, te), test_map in zip(folds, maps, strict=True):
        log_prior = np.log(decision_prior(y_index[tr], class_weight, n_classes))
        for g in GENERATIVE:
            model = _make_generative(g, bandwidth_settings, seed).fit(X[tr], y_index[tr])
            dec = _generative_decision(_test_log_likelihood(g, model, X[te], test_map), log_prior)
            out[g]["decision"].append(dec)
            out[g]["ber"].append(balanced_error_rate(y_index[te], _predict(dec)))
            out[g]["n_pairs"].append(int(model.transformer_.pairs_.shape[0]))
    for g in GENERATIVE:
        out[g]["ber"] = np.array(out[g]["ber"], dtype=float)
        out[g]["n_pairs"] = np.array(out[g]["n_pairs"], dtype=int)
    return out


def path_generative_scores(path, X, y_index, bandwidth_settings, class_weight, n_classes, seed):
    """:func:`generative_fold_scores` on the inner folds of a fitted threshold path.

    The folds' own test maps give the models' test log-densities (``test_maps``).

    Parameters
    ----------
    path : ThresholdPath
        Fitted on ``X`` and the labels of ``y_index`` with the bandwidth settings
        ``bandwidth_settings`` (else ValueError).
    X, y_index, bandwidth_settings, class_weight, n_classes, seed
        As :func:`generative_fold_scores`.

    Returns
    -------
    folds : list of (train_index, test_index)
    scores : dict
        As :func:`generative_fold_scores`.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.path import ThresholdPath
    >>> from slb.model.selection import generative_fold_scores, path_generative_scores
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 30)
    >>> X = rng.normal(size=(60, 3)) + y[:, None]
    >>> tests = [np.arange(k, 60, 3) for k in range(3)]
    >>> folds = [(np.setdiff1d(np.arange(60), te), te) for te in tests]
    >>> path = ThresholdPath().fit(X, y, folds)
    >>> _, shared = path_generative_scores(path, X, y, {}, "balanced", 2, seed=0)
    >>> alone = generative_fold_scores(X, y, folds, {}, "balanced", 2, seed=0)
    >>> [np.allclose(alone[g]["decision"], shared[g]["decision"]) for g in alone]
    [True, True]
    """

    def bandwidths(settings):
        return repr(sorted((k, v) for k, v in settings.items() if k in BANDWIDTH_CONSTRAINTS))

    if bandwidths(bandwidth_settings) != bandwidths(path.density_params):
        raise ValueError(
            "The path's bandwidth settings differ from bandwidth_settings, so its maps are not "
            "the generative models' densities: pass the settings the path was fitted with."
        )
    folds = [(f.train, f.test) for f in path.folds_]
    maps = [(f.T_test, f.screen.pairs) for f in path.folds_]
    scores = generative_fold_scores(
        X, y_index, folds, bandwidth_settings, class_weight, n_classes, seed, test_maps=maps
    )
    return folds, scores


def _with_generative_rows(table, scores):
    """``cv_results_`` of the grid with one row per generative candidate appended.

    The grid's ``param_*`` values are NaN on the new rows, ``param_model`` names every row's
    model ("slb" on the grid's), and ``rank_ber`` ranks all rows together.
    """
    n_grid = len(table["mean_ber"])
    extra = [scores[g] for g in GENERATIVE]
    out = {}
    for key, col in table.items():
        col = np.asarray(col)
        if key.startswith("param_"):
            out[key] = np.concatenate([col.astype(float), np.full(len(extra), np.nan)])
        elif key == "mean_n_pairs":
            out[key] = np.concatenate([col, [s["n_pairs"].mean() for s in extra]])
        elif key == "mean_ber":
            out[key] = np.concatenate([col, [s["ber"].mean() for s in extra]])
        elif key == "std_ber":
            k = extra[0]["ber"].size
            out[key] = np.concatenate(
                [col, [s["ber"].std(ddof=1) if k > 1 else 0.0 for s in extra]]
            )
        elif key.startswith("split") and key.endswith("_ber"):
            f = int(key[len("split") : -len("_ber")])
            out[key] = np.concatenate([col, [s["ber"][f] for s in extra]])
        elif key != "rank_ber":
            raise ValueError(f"unexpected cv_results_ key {key!r}")
    out["param_model"] = np.array(["slb"] * n_grid + list(GENERATIVE), dtype=object)
    mean = out["mean_ber"]
    # ties share the lowest rank, as the grid table's (pandas' "min" method)
    out["rank_ber"] = np.array([1 + int(np.sum(mean < m)) for m in mean], dtype=int)
    return out


def _data_key(X, y_index, params):
    """Digest of the data and settings a warm refit may reuse its inner table for."""
    h = hashlib.blake2b(digest_size=16)
    h.update(np.ascontiguousarray(X).tobytes())
    h.update(np.ascontiguousarray(y_index).tobytes())
    h.update(repr(X.shape).encode())
    h.update(repr(params).encode())
    return h.hexdigest()


def _search_folds(cv, y_index, classes):
    """:func:`_inner_folds` of the selection's rows, with a warning when a class has too few
    rows for any (H53: the selection was skipped without a word)."""
    counts = np.bincount(y_index, minlength=len(classes))
    k = _inner_folds(cv, counts.min())
    if k < 2:
        c = int(counts.argmin())
        label = classes[c].item() if hasattr(classes[c], "item") else classes[c]
        need = next(m for m in range(2, 10) if _inner_folds(cv, m) >= 2)  # 3, or 4 for cv=2
        warnings.warn(  # what is used instead, whatever the settings (H55)
            f"Class {label!r} has {counts[c]} row(s) among the rows of the selection: too few "
            f"for two inner folds ({need} are needed with cv={cv}). Nothing is "
            "cross-validated: the sparsest candidate of the screening (the given threshold "
            "when it is a number) and the middle of Cs (the given C when it is a number) are "
            "used; cv_results_ is None.",
            UserWarning,
            stacklevel=4,
        )
    return k


def _inner_folds(cv, smallest_class):
    """Number of inner folds: at most ``cv``, 2 rows of each class in every inner train."""
    k = int(min(cv, smallest_class))  # at most cv, 2 rows of each class in every inner train
    while k >= 2 and smallest_class - -(-smallest_class // k) < 2:
        k -= 1
    return k
