"""SLB and its log-density SVM relatives: SLB, SLB- (all pairs) and LU (univariate only).

All three train a linear SVM on the log-density feature map of :mod:`slb.features`; they differ
only in which pairs enter it:

* :class:`SLBClassifier` screens pairs by their per-class dependence (HSIC by default) against a
  threshold ``lambda`` (SLB paper, Algorithm 1), chosen by hand, by internal cross-validation
  or by Benjamini-Hochberg on the HSIC p-values;
* :class:`ForestDensityClassifier` (SLB-) keeps every pair;
* :class:`LUClassifier` keeps none (Fan et al. 2016, with an SVM).

The SVM sees standardised log-densities, class weights "balanced" by default because the metric
is the balanced error rate; it is e1071's hinge-loss SVM with an unpenalised intercept at every
sample size (:mod:`slb.svm`).  ``coef_`` is reported in
the units of the log-densities themselves, so ``decision_function(X) = T(X) @ coef_ +
intercept_``, and on forest-structured data it can be compared with the integer oracle weights
of the paper's Lemma 1 (up to a positive factor).
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import StratifiedKFold
from sklearn.utils.validation import check_is_fitted, validate_data

from ._utils import (
    SignPredictMixin,
    all_pairs,
    check_binary_target,
    check_magnitude,
    default_feature_names,
    overrides_by_index,
)
from .approx import check_n_jobs, resolve_n_jobs, run_tasks
from .dependence import DEPENDENCE_MEASURES, dependence_matrix
from .evaluation import balanced_error_rate
from .features import LogDensityTransformer, term_names
from .screening import check_pair_rule, combine, fdr_terms, pair_scores
from .svm import fit_linear_svm, index_class_weight, nested_mask_predictions

_DENSITY_PARAMS = (
    "bandwidth",
    "bandwidth_multiplier",
    "bandwidth_overrides",
    "min_bandwidth",
    "density_floor",
    "training_features",
    "n_crossfit_folds",
    "random_state",
)


#: Internal-CV folds run in threads when their training rows exceed this (the working-set SVM
#: path of :mod:`slb.svm`, ~0.1-0.2 s per fold and threshold).  Smaller folds, on the
#: full-kernel path, gained little from threads (Hill-valley: 1.96 vs 1.91 s per fit) while
#: per-thread allocator arenas doubled the peak memory of a 5-fold CV (432 -> 877 MB).
_THREADED_CV_MIN_ROWS = 3000


def _cv_fold_bers(T, y_index, tr, te, masks, C, class_weight):
    """BER on the rows ``te`` of the SVM fitted on ``tr`` for each column mask."""
    preds = nested_mask_predictions(T, y_index, tr, te, masks, C, class_weight)
    return [balanced_error_rate(y_index[te], p) for p in preds]


def _data_key(X, y_index, params):
    h = hashlib.blake2b(digest_size=16)
    h.update(np.ascontiguousarray(X).tobytes())
    h.update(np.ascontiguousarray(y_index).tobytes())
    h.update(repr(X.shape).encode())
    h.update(repr(params).encode())
    return h.hexdigest()


class _LogDensitySVM(SignPredictMixin, ClassifierMixin, BaseEstimator):
    """Shared machinery: feature map on a set of pairs + linear SVM."""

    # Subclasses set which parameters exist; the ones below are shared.
    def _density_params(self):
        # Inner transformers see arrays: name-keyed bandwidth overrides become index-keyed.
        params = {k: getattr(self, k) for k in _DENSITY_PARAMS}
        names = default_feature_names(self, self.n_features_in_)
        params["bandwidth_overrides"] = overrides_by_index(self.bandwidth_overrides, names)
        return params

    def _check_common(self):
        if not (np.isscalar(self.C) and np.isfinite(self.C) and self.C > 0):
            raise ValueError(f"C must be a positive number, got {self.C!r}.")
        check_n_jobs(self.n_jobs)

    def _class_weight_index(self):
        return index_class_weight(self.class_weight, self.classes_)

    def _candidate_pairs(self, X, y_index, names):
        """Pairs whose features must be computed, and the state needed to select among them."""
        raise NotImplementedError

    def _select_terms(self, T, y_index, state):
        """Boolean mask over the columns of T (candidate feature map) kept for the SVM."""
        raise NotImplementedError

    def fit(self, X, y):
        """Fit the feature map and the linear SVM.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Binary labels of any type; ``classes_[1]`` is the positive class (``+``).

        Returns
        -------
        self
        """
        self._check_common()
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.classes_, y_index = check_binary_target(y)
        self._class_weight_index()  # a bad class_weight fails before any work
        names = default_feature_names(self, X.shape[1])
        check_magnitude(X, names)

        key = _data_key(X, y_index, sorted(self._density_params().items()))
        cache = getattr(self, "_cache", None) if getattr(self, "warm_start", False) else None
        if cache is None or cache.get("key") != key:
            cache = {"key": key}
        pairs, state = self._candidate_pairs(X, y_index, names, cache)
        transformer, T = self._candidate_features(X, y, y_index, pairs, cache)
        mask = self._select_terms(T, y_index, state)
        coef, intercept = fit_linear_svm(
            T[:, mask], y_index, C=self.C, class_weight=self._class_weight_index()
        )

        # Keep only the pairs that carry a selected term for prediction.
        d = X.shape[1]
        n_p = pairs.shape[0]
        pair_used = mask[2 * d : 2 * d + n_p] | mask[2 * d + n_p :]
        kept_pairs = pairs[pair_used]
        self.transformer_ = transformer
        self.pairs_ = kept_pairs
        self._terms = np.concatenate(
            [mask[: 2 * d], mask[2 * d : 2 * d + n_p][pair_used], mask[2 * d + n_p :][pair_used]]
        )
        all_names = np.asarray(term_names(names, kept_pairs), dtype=object)
        self.terms_ = _term_table(names, kept_pairs, self.classes_).loc[self._terms]
        self.terms_.index = pd.Index(all_names[self._terms], name="term")
        self.coef_ = pd.Series(coef, index=self.terms_.index.copy(), name="coef")
        self.intercept_ = intercept
        self.term_means_ = T[:, mask].mean(axis=0)
        if getattr(self, "warm_start", False):
            self._cache = cache
        elif hasattr(self, "_cache"):
            del self._cache
        return self

    def _candidate_features(self, X, y, y_index, pairs, cache):
        """Training feature map for ``pairs``, reusing cached columns when possible."""
        if "T" in cache and {tuple(p) for p in pairs} <= cache["pair_set"]:
            col = cache["pair_col"]
            d = X.shape[1]
            P = cache["n_pairs"]
            idx = np.array([col[tuple(p)] for p in pairs], dtype=int)
            cols = np.concatenate([np.arange(2 * d), 2 * d + idx, 2 * d + P + idx])
            transformer = cache["transformer"]
            return transformer, cache["T"][:, cols]
        transformer = LogDensityTransformer(
            pairs=pairs, n_jobs=self.n_jobs, **self._density_params()
        )
        T = transformer.fit_transform(X, y)
        cache.update(
            T=T,
            transformer=transformer,
            pair_set={tuple(p) for p in pairs},
            pair_col={tuple(p): k for k, p in enumerate(pairs)},
            n_pairs=pairs.shape[0],
        )
        return transformer, T

    def _terms_of(self, X):
        # Densities of the kept pairs only: transformer_ may hold more candidate pairs (the
        # threshold CV's, or a warm cache's), and the pair densities are most of the cost.
        tf = self.transformer_
        return tf._features(tf._kde, X, pairs=self.pairs_)[:, self._terms]

    def log_density_features(self, X):
        """The feature map the SVM uses (selected terms only), as a DataFrame.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        T : DataFrame of shape (n_samples, n_terms)
            Columns named like ``coef_.index``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return pd.DataFrame(self._terms_of(X), columns=self.coef_.index)

    def decision_function(self, X):
        """Signed distance to the SVM hyperplane; positive means ``classes_[1]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self._terms_of(X) @ self.coef_.to_numpy() + self.intercept_


    def contributions(self, X):
        """How much each log-density term pushed each decision, relative to the training mean.

        ``contribution = coef * (T(x) - mean of T on the training rows)``; the row sums plus
        ``baseline`` equal :meth:`decision_function`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        contributions : DataFrame of shape (n_samples, n_terms)
        baseline : float
            The decision value of a sample whose terms all equal their training means.
        """
        T = self.log_density_features(X)
        contrib = (T - self.term_means_) * self.coef_.to_numpy()
        baseline = float(self.intercept_ + self.coef_.to_numpy() @ self.term_means_)
        return contrib, baseline

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_cache", None)  # a warm cache is a speed aid, never part of the model
        return state


def _term_table(names, pairs, classes):
    """One row per column of the feature map: class symbol and label, kind, feature indices."""
    d = len(names)
    rows = []
    for kind, items in (("univariate", [(i, -1) for i in range(d)]), ("bivariate", pairs)):
        for sign, c in (("+", 1), ("-", 0)):
            for i, j in items:
                rows.append(
                    {
                        "class": sign,
                        "label": classes[c],
                        "kind": kind,
                        "i": int(i),
                        "j": int(j),
                        "feature_i": names[i],
                        "feature_j": names[j] if j >= 0 else None,
                    }
                )
    return pd.DataFrame(rows)


def _uni_mask(d, n_p):
    m = np.zeros(2 * d + 2 * n_p, dtype=bool)
    m[: 2 * d] = True
    return m


class LUClassifier(_LogDensitySVM):
    """LU: a linear SVM on the univariate log-densities only (Fan et al. 2016, with an SVM).

    Parameters
    ----------
    C : float, default=0.03
        SVM regularisation (larger: less regularised).  The default is measured, not
        inherited: on standardised log-density maps with hundreds to thousands of columns,
        e1071's cost 1 (the paper's) nearly interpolates; 0.03 lowered the 5-fold BER on all four
        bundled datasets and left the synthetic forests unchanged (benchmarks/accuracy.py).
    class_weight : "balanced", dict or None, default="balanced"
    bandwidth, bandwidth_multiplier, bandwidth_overrides, min_bandwidth, density_floor, \
training_features, n_crossfit_folds, random_state
        As in :class:`slb.features.LogDensityTransformer`.
    warm_start : bool, default=False
        Reuse the previous fit's densities when the data and density settings are unchanged.
    n_jobs : int or None, default=None
        Threads for the binned densities (SLB: also the dependence matrices and the internal
        CV folds).
        None: two when the one-minute load average leaves a CPU free, else one
        (:func:`slb.approx.resolve_n_jobs`); -1: all CPUs.  Results do not depend on it.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : Series
        One weight per log-density term, indexed by term name.
    terms_ : DataFrame
        One row per term (same index as ``coef_``): ``class`` ("+"/"-"), ``label`` (the class
        label), ``kind`` ("univariate"/"bivariate"), feature indices ``i``, ``j`` (-1 for
        univariate) and names ``feature_i``, ``feature_j``.
    intercept_ : float
    pairs_ : ndarray of shape (0, 2)
    transformer_ : LogDensityTransformer
    term_means_ : ndarray
        Training means of the terms (baseline of :meth:`contributions`).
    n_features_in_ : int
    feature_names_in_ : ndarray
    """

    def __init__(
        self,
        *,
        C=0.03,
        class_weight="balanced",
        bandwidth="scott",
        bandwidth_multiplier=1.0,
        bandwidth_overrides=None,
        min_bandwidth=1e-3,
        density_floor=1e-6,
        training_features="loo",
        n_crossfit_folds=5,
        random_state=None,
        warm_start=False,
        n_jobs=None,
    ):
        self.C = C
        self.class_weight = class_weight
        self.bandwidth = bandwidth
        self.bandwidth_multiplier = bandwidth_multiplier
        self.bandwidth_overrides = bandwidth_overrides
        self.min_bandwidth = min_bandwidth
        self.density_floor = density_floor
        self.training_features = training_features
        self.n_crossfit_folds = n_crossfit_folds
        self.random_state = random_state
        self.warm_start = warm_start
        self.n_jobs = n_jobs

    def _candidate_pairs(self, X, y_index, names, cache):
        return np.zeros((0, 2), dtype=int), None

    def _select_terms(self, T, y_index, state):
        return np.ones(T.shape[1], dtype=bool)


class ForestDensityClassifier(LUClassifier):
    """SLB-: the linear SVM on all univariate and all bivariate log-densities.

    Equivalent to SLB with threshold 0; the Forest Density Classifier of the project's papers.
    Parameters and attributes as in :class:`LUClassifier`; ``pairs_`` holds every pair.
    """

    def _candidate_pairs(self, X, y_index, names, cache):
        return all_pairs(X.shape[1]), None


class SLBClassifier(_LogDensitySVM):
    """The Sparse Log-Bivariate density classifier (Tenzer et al., JMLR 2020, Algorithm 1).

    1. For each class, measure the dependence of every feature pair (HSIC by default).
    2. Keep the pairs whose dependence reaches the threshold ``lambda``.
    3. Estimate per-class univariate and (kept) bivariate KDE densities; the feature map is their
       logarithm, floored (see :class:`slb.features.LogDensityTransformer`).
    4. Fit a linear SVM on the standardised feature map.

    Parameters
    ----------
    threshold : float, "cv" or "fdr", default="cv"
        The screening threshold ``lambda``.  A number: keep pairs with dependence >= it.
        ``"cv"``: choose among ``thresholds`` by internal stratified ``cv``-fold cross-validation
        of the balanced error rate (ties go to the sparser model).  The internal folds reuse the
        training feature map (leave-one-out densities), so only the SVM is refitted per
        candidate.  ``"fdr"``: keep the pairs whose dependence p-value is rejected by
        Benjamini-Hochberg at level ``alpha`` (all pairs of both classes tested together).
    dependence : {"hsic", "pearson", "spearman"}, default="hsic"
        Dependence measure: HSIC with the median heuristic, or ``|r|``.
    pair_rule : {"either", "both", "per_class"}, default="either"
        "either": a pair is kept when it is dependent in either class (both classes' bivariate
        terms enter); "both": dependent in both classes; "per_class": class y's bivariate term
        enters when the pair is dependent in class y.
    alpha : float, default=0.05
        FDR level for ``threshold="fdr"``.
    thresholds : array-like or None, default=None
        Candidate thresholds for ``threshold="cv"``.  None: the dependence values at which
        0, 1, 2, 5, 10, 20, 35, 50, 75 and 100 % of the pairs are kept.
    cv : int, default=5
        Internal folds for ``threshold="cv"``.
    C : float, default=0.03
        SVM regularisation (see :class:`LUClassifier`).
    class_weight : "balanced", dict or None, default="balanced"
    bandwidth : {"scott", "silverman", "lcv"}, default="scott"
    bandwidth_multiplier : float, default=1.0
    bandwidth_overrides : dict or None, default=None
    min_bandwidth : float, default=1e-3
    density_floor : float, default=1e-6
    training_features : {"loo", "kfold", "insample"}, default="loo"
    n_crossfit_folds : int, default=5
        See :class:`slb.features.LogDensityTransformer` for these six.
    random_state : int, RandomState instance or None, default=None
        Seeds the internal CV folds and cross-fitting.
    warm_start : bool, default=False
        Reuse the previous fit's dependence matrices and densities when the data and density
        settings are unchanged, so that ``set_params(threshold=...)`` or ``set_params(C=...)``
        followed by ``fit`` refits only the SVM.
    n_jobs : int or None, default=None
        Threads for the dependence matrices, the binned densities and the internal CV folds.
        None: two when the one-minute load average leaves a CPU free, else one
        (:func:`slb.approx.resolve_n_jobs`); -1: all CPUs.  Results do not depend on it.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Sorted labels; ``classes_[1]`` is ``+``.
    dependence_ : ndarray of shape (2, n_features, n_features)
        Dependence matrices of ``classes_[0]`` and ``classes_[1]`` (NaN diagonal).
    hsic_ : ndarray of shape (2, n_features, n_features)
        Same object as ``dependence_`` (named after the default measure).
    pvalues_ : ndarray of shape (2, n_features, n_features)
    pair_scores_ : ndarray of shape (n_all_pairs,)
        Screening score of every pair (max or min over classes, by ``pair_rule``).
    threshold_ : float
        The threshold used (chosen one for "cv"; for "fdr" the smallest kept score).
    pairs_ : ndarray of shape (n_kept_pairs, 2)
        Kept pairs (feature indices).
    cv_results_ : dict
        For ``threshold="cv"``: ``thresholds``, ``n_pairs``, ``mean_ber``, ``std_ber``.
    coef_ : Series
        SVM weights in log-density units, indexed by term name (``log p+(a)``,
        ``log p-(a, b)``, ...).
    terms_ : DataFrame
        What each term is, without parsing names: ``class`` ("+"/"-"), ``label``, ``kind``
        ("univariate"/"bivariate"), indices ``i``, ``j`` (-1 for univariate), ``feature_i``,
        ``feature_j``.
    intercept_ : float
    term_means_ : ndarray
    transformer_ : LogDensityTransformer
    n_features_in_ : int
    feature_names_in_ : ndarray
    """

    def __init__(
        self,
        threshold="cv",
        *,
        dependence="hsic",
        pair_rule="either",
        alpha=0.05,
        thresholds=None,
        cv=5,
        C=0.03,
        class_weight="balanced",
        bandwidth="scott",
        bandwidth_multiplier=1.0,
        bandwidth_overrides=None,
        min_bandwidth=1e-3,
        density_floor=1e-6,
        training_features="loo",
        n_crossfit_folds=5,
        random_state=None,
        warm_start=False,
        n_jobs=None,
    ):
        self.threshold = threshold
        self.dependence = dependence
        self.pair_rule = pair_rule
        self.alpha = alpha
        self.thresholds = thresholds
        self.cv = cv
        self.C = C
        self.class_weight = class_weight
        self.bandwidth = bandwidth
        self.bandwidth_multiplier = bandwidth_multiplier
        self.bandwidth_overrides = bandwidth_overrides
        self.min_bandwidth = min_bandwidth
        self.density_floor = density_floor
        self.training_features = training_features
        self.n_crossfit_folds = n_crossfit_folds
        self.random_state = random_state
        self.warm_start = warm_start
        self.n_jobs = n_jobs

    def _check_common(self):
        super()._check_common()
        if self.dependence not in DEPENDENCE_MEASURES:
            raise ValueError(
                f"dependence must be one of {', '.join(DEPENDENCE_MEASURES)}, "
                f"got {self.dependence!r}."
            )
        check_pair_rule(self.pair_rule)
        t = self.threshold
        if isinstance(t, str):
            if t not in ("cv", "fdr"):
                raise ValueError(f"threshold must be a number, 'cv' or 'fdr', got {t!r}.")
        elif not (np.isscalar(t) and isinstance(t, (int, float, np.number)) and not np.isnan(t)):
            # +inf is allowed (no pair kept: LU), and "cv" may choose it.
            raise ValueError(f"threshold must be a number, 'cv' or 'fdr', got {t!r}.")
        if self.threshold == "cv" and not (
            isinstance(self.cv, (int, np.integer)) and not isinstance(self.cv, bool) and self.cv >= 2
        ):
            raise ValueError(f"cv must be an integer >= 2 (internal folds), got {self.cv!r}.")
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha must be in (0, 1), got {self.alpha!r}.")

    # -- screening ----------------------------------------------------------------------------
    def _candidate_pairs(self, X, y_index, names, cache):
        if cache.get("dep_measure") != self.dependence:
            res = [
                dependence_matrix(X[y_index == c], self.dependence, n_jobs=self.n_jobs)
                for c in (0, 1)
            ]
            cache["dep_measure"] = self.dependence
            cache["dep"] = np.stack([r.statistic for r in res])
            cache["pval"] = np.stack([r.pvalue for r in res])
        self.dependence_ = cache["dep"]
        self.hsic_ = self.dependence_
        self.pvalues_ = cache["pval"]
        pairs = all_pairs(X.shape[1])
        stat = self.dependence_[:, pairs[:, 0], pairs[:, 1]]  # (2, P)
        self.pair_scores_ = pair_scores(stat, self.pair_rule)

        if self.threshold == "fdr":
            pval = self.pvalues_[:, pairs[:, 0], pairs[:, 1]]
            keep_c, self.threshold_ = fdr_terms(stat, pval, self.alpha, self.pair_rule)
            used = keep_c.any(axis=0)
            return pairs[used], ("mask", keep_c[:, used])
        if self.threshold == "cv":
            grid = self._threshold_grid()
            needed = self.pair_scores_ >= grid.min()
            return pairs[needed], ("cv", grid, stat[:, needed])
        self.threshold_ = float(self.threshold)
        keep_c = combine(stat >= self.threshold_, self.pair_rule)
        used = keep_c.any(axis=0)
        return pairs[used], ("mask", keep_c[:, used])

    def _threshold_grid(self):
        if self.thresholds is not None:
            grid = np.unique(np.asarray(self.thresholds, dtype=float))
            if grid.size == 0 or not np.all(np.isfinite(grid)):
                raise ValueError("thresholds must be a non-empty list of finite numbers.")
            return grid
        s = np.sort(self.pair_scores_)[::-1]
        if s.size == 0:
            return np.array([np.inf])
        fractions = np.array([0.01, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0])
        k = np.unique(np.ceil(fractions * s.size).astype(int))
        return np.unique(np.concatenate([[np.inf], s[k - 1]]))

    def _term_mask(self, keep_c, d):
        # keep_c: (2, P) over the candidate pairs, rows = classes_[0] ("-"), classes_[1] ("+")
        n_p = keep_c.shape[1]
        m = _uni_mask(d, n_p)
        m[2 * d : 2 * d + n_p] = keep_c[1]
        m[2 * d + n_p :] = keep_c[0]
        return m

    def _select_terms(self, T, y_index, state):
        d = self.n_features_in_
        if state[0] == "mask":
            return self._term_mask(state[1], d)
        _, grid, stat = state
        masks = [self._term_mask(combine(stat >= t, self.pair_rule), d) for t in grid]
        counts = np.bincount(y_index, minlength=2)
        k = int(min(self.cv, counts.min()))
        scores = np.zeros((len(grid), max(k, 1)))
        if k >= 2:
            folds = StratifiedKFold(k, shuffle=True, random_state=self.random_state)
            splits = [
                (f, tr, te)
                for f, (tr, te) in enumerate(folds.split(T, y_index))
                if np.unique(y_index[tr]).size == 2
            ]
            class_weight = self._class_weight_index()
            tasks = [
                (_cv_fold_bers, (T, y_index, tr, te, masks, self.C, class_weight))
                for _, tr, te in splits
            ]
            # Folds in threads when they are big enough to repay it (libsvm and BLAS release
            # the GIL; libsvm draws no random numbers, so the result does not depend on it).
            big = min(tr.size for _, tr, _ in splits) > _THREADED_CV_MIN_ROWS if splits else False
            n_jobs = resolve_n_jobs(self.n_jobs) if big else 1
            for (f, _, _), bers in zip(splits, run_tasks(tasks, n_jobs), strict=True):
                scores[:, f] = bers
        mean = scores.mean(axis=1)
        # Ties (within 1e-9) go to the largest threshold, i.e. the sparsest model.
        best = int(np.flatnonzero(mean <= mean.min() + 1e-9).max())
        self.threshold_ = float(grid[best])
        self.cv_results_ = {
            "thresholds": grid,
            "n_pairs": np.array(
                [int(combine(stat >= t, self.pair_rule).any(axis=0).sum()) for t in grid]
            ),
            "mean_ber": mean,
            "std_ber": scores.std(axis=1, ddof=1) if scores.shape[1] > 1 else np.zeros_like(mean),
        }
        return masks[best]
