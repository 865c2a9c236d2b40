"""SLB and its log-density SVM relatives: SLB, SLB- (all pairs) and LU (univariate only).

All three train a linear SVM (K > 2 classes: a multinomial logistic model) on the log-density
feature map of :mod:`slb.density.features`; they differ only in which pairs enter it:

* :class:`SLBClassifier` screens pairs by their per-class dependence (HSIC by default) against a
  threshold ``lambda`` (SLB paper, Algorithm 1), chosen by hand, by internal cross-validation
  or by Benjamini-Hochberg on the HSIC p-values;
* :class:`ForestDensityClassifier` (SLB-) keeps every pair;
* :class:`LUClassifier` keeps none (Fan et al. 2016, with an SVM).

The SVM sees standardised log-densities, class weights "balanced" by default because the metric
is the balanced error rate; the squared-hinge SVM by default (``loss="hinge"``: e1071's, the
paper's), see :mod:`slb.model.svm`.  Its cost ``C`` (and SLB's ``lambda``) are selected by nested
inner cross-validation by default (see :class:`SLBClassifier`).  ``coef_`` is reported in
the units of the log-densities themselves, so ``decision_function(X) = T(X) @ coef_ +
intercept_``, and on forest-structured data it can be compared with the integer oracle weights
of the paper's Lemma 1 (up to a positive factor).
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.base import ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data

from .._folds import duplicate_groups, stratified_splits
from .._sklearn_compat import Interval, StrOptions
from .._utils import (
    DecisionPredictMixin,
    LinearTermsMixin,
    PlattProbaMixin,
    check_binary_target,
    check_magnitude,
    default_feature_names,
    pinned_platt,
    validate_training_data,
)
from ..density.features import (
    FEATURE_MAP_CONSTRAINTS,
    RUN_CONSTRAINTS,
    FeatureMapParams,
    LogDensityTransformer,
    class_order,
    term_names,
)
from ..dependence.hsic import DEPENDENCE_MEASURES
from ..dependence.screening import (
    PAIR_RULES,
    SCREENING_SCORES,
    fdr_terms,
    pair_scores,
    top_fraction_threshold,
)
from ..probabilities import decision_offsets, fit_logit_scale
from . import path as _path
from ._docstrings import _doc
from .path import (
    DEFAULT_LOSS,
    LOSSES,
    NO_ANCHOR,
    ThresholdPath,
    cap_screen,
    column_mask,
    fdr_selector,
    fixed_selector,
    fraction_selector,
    pairs_for_budget,
    screen_pairs,
    search_rows,
    threshold_selector,
)
from .selection import (
    GENERATIVE,
    SELECTION_RULES,
    _cv_table,
    _data_key,
    _inner_folds,
    _make_generative,
    _prior_intercept,
    _search_folds,
    _select_best,
    _with_generative_rows,
    path_generative_scores,
    select_row,
    standard_errors,
)
from .svm import fit_linear_model, index_class_weight, linear_decision
from .terms import _feature_importances, _term_table

#: Default grid of SVM costs searched by ``C="cv"``: 0.01 ... 10, log-spaced (7 values).
DEFAULT_CS = np.logspace(-2, 1, 7)
#: Default grid of ``threshold="cv"``: the fraction of all pairs kept, sparsest first (0: LU).
DEFAULT_FRACTIONS = np.array([0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0])


@dataclass(eq=False, repr=False)
class _LogDensitySVM(
    LinearTermsMixin, PlattProbaMixin, DecisionPredictMixin, ClassifierMixin, FeatureMapParams
):
    """Shared machinery: feature map on a set of pairs + linear SVM(s) + calibration."""

    _: KW_ONLY
    C: float | str = "cv"
    Cs: object = None
    cv: int = 5
    class_weight: str | dict | None = "balanced"
    random_state: object = None
    warm_start: bool = False
    n_jobs: int | None = None
    max_search_rows: int | None = _path.MAX_SEARCH_ROWS
    probability: bool = True
    loss: str = DEFAULT_LOSS
    selection: str = "min"
    generative_candidates: bool = False

    _parameter_constraints = {
        **FEATURE_MAP_CONSTRAINTS,
        **RUN_CONSTRAINTS,
        "C": [Interval(Real, 0, np.inf, closed="neither"), StrOptions({"cv"})],
        "Cs": ["array-like", None],
        "cv": [Interval(Integral, 2, None, closed="left")],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "warm_start": ["boolean"],
        "probability": ["boolean"],
        "max_search_rows": [Interval(Integral, 4, None, closed="left"), None],
        "loss": [StrOptions(set(LOSSES))],
        "selection": [StrOptions(set(SELECTION_RULES))],
        "generative_candidates": ["boolean"],
    }

    # -- what the subclasses decide ---------------------------------------------------------------
    def _generative(self):
        return self.generative_candidates

    def _path_params(self):
        """Screening settings of the inner folds and the final fit (LU, SLB-: no screening)."""
        return {"candidates": "none"}

    def _selectors(self):
        """Candidate pair selectors, sparsest first, and their grid values for ``cv_results_``."""
        return [fixed_selector(False)], {}

    def _record_selection(self, screen, i, candidates):
        """Set the screening attributes of the fitted model for selector ``i``.

        ``screen``: every pair on all the rows; ``candidates``: the pairs selection chose from.
        """

    def _search_max_pairs(self, n_rows, n_features, n_folds):
        """Cap on the candidate pairs of the nested selection (None: every pair)."""
        return None

    def _inner_pvalues(self):
        """Whether the inner folds' selectors read dependence p-values (else not computed)."""
        return False

    def _check_grids(self):
        """Checks of the grids' contents (their types are in ``_parameter_constraints``)."""

    # -- shared -------------------------------------------------------------------------------------
    def _C_grid(self):
        if self.C != "cv":
            return np.array([float(self.C)])
        grid = DEFAULT_CS if self.Cs is None else np.unique(np.asarray(self.Cs, dtype=float))
        if grid.size == 0 or not np.all(np.isfinite(grid) & (grid > 0)):
            raise ValueError("Cs must be a non-empty list of positive numbers.")
        return grid

    def _class_weight_index(self):
        return index_class_weight(self.class_weight, self.classes_)

    def fit(self, X, y):
        """Select (by nested inner CV, where asked), fit the feature map, the SVM and Platt.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Labels of any type, two classes or more; with two, ``classes_[1]`` is the
            positive class (``+``).

        Returns
        -------
        self
        """
        self._validate_params()
        X, y = validate_training_data(self, X, y, dtype=np.float64)
        self.classes_, y_index = check_binary_target(y, binary=False)
        self._class_weight_index()  # a bad class_weight fails before any work
        names = default_feature_names(self, X.shape[1])
        check_magnitude(X, names)
        Cs = self._C_grid()
        self._check_grids()
        selectors, grid_values = self._selectors()
        seed = self._seed()
        dens = self._density_settings(X.shape[1], random_state=seed)
        cache = self._warm_cache(X, y_index, dens)
        cache["seed"] = seed
        if "groups" not in cache:  # identical rows stay in one fold of every split below
            cache["groups"] = duplicate_groups(X)

        for stale in ("cv_results_", "best_index_", "n_search_rows_", "platt_"):
            self.__dict__.pop(stale, None)
        i, j, model = 0, 0, "slb"
        if len(selectors) > 1 or len(Cs) > 1 or self._generative():
            i, j, model = self._inner_cv(X, y_index, dens, selectors, grid_values, Cs, seed, cache)
        self.selected_model_ = model
        self.C_ = float(Cs[j]) if model == "slb" else float("nan")
        if "screen" not in cache:
            params = {k: v for k, v in self._path_params().items() if k != "pair_rule"}
            cache["screen"] = screen_pairs(X, y_index, n_jobs=self.n_jobs, **params)
        # The candidates the inner folds had (the top K by score on wide tables), all rows.
        screen = cap_screen(cache["screen"], cache.get("max_pairs"))
        self.n_candidate_pairs_ = int(screen.pairs.shape[0])
        keep_c = selectors[i](screen)
        self._record_selection(cache["screen"], i, screen)
        if model != "slb":
            return self._fit_generative(X, y_index, names, model, seed, dens, cache)
        used = keep_c.any(axis=0)
        pairs = screen.pairs[used]
        transformer, T = self._candidate_features(X, y_index, pairs, dens, cache)
        mask = column_mask(keep_c[:, used], X.shape[1])
        K = len(self.classes_)
        coef, intercept = fit_linear_model(
            T[:, mask],
            y_index,
            C=self.C_,
            class_weight=self._class_weight_index(),
            n_classes=K,
            loss=self.loss,
            anchor=NO_ANCHOR,
            n_features=X.shape[1],
        )
        self._set_model(names, pairs, mask, T, coef, intercept, transformer)
        self._set_priors(y_index)
        if self.probability:
            scores, labels = self._calibration_scores(
                cache, selectors[i], T[:, mask], y_index, seed
            )
            self.platt_ = self._pinned_calibration(scores, labels)
        return self._keep_cache(cache)

    def _fit_generative(self, X, y_index, names, model, seed, dens, cache):
        """The selected KDE naive Bayes or TAN, fitted on all the rows and written as the
        linear model on its own log-density map that it is (``coef_``: its fixed weights,
        ``intercept_``: the log odds of ``decision_prior_``); ``platt_`` from its inner folds'
        decision values (fitted without the rows they score), by the same convention."""
        if hasattr(self, "fraction_"):  # SLB: no threshold chose the pairs
            self.fraction_ = None
            self.threshold_ = float("inf")  # no pair by screening (TAN's are its trees')
        gen = _make_generative(model, dens, seed).fit(X, y_index)
        tf = gen.transformer_
        tf.classes_ = self.classes_
        pairs = np.asarray(tf.pairs_, dtype=int).reshape(-1, 2)
        mask = np.ones(gen.coef_.shape[1], dtype=bool)
        self._set_priors(y_index)
        intercept = _prior_intercept(np.log(self.decision_prior_))
        self._set_model(names, pairs, mask, tf.transform(X), gen.coef_, intercept, tf)
        if self.probability:
            folds, scores = cache["generative"][2:]
            dec = scores[model]["decision"]
            labels = np.concatenate([y_index[te] for _, te in folds])
            self.platt_ = self._pinned_calibration(np.concatenate(dec), labels)
        return self._keep_cache(cache)

    def _keep_cache(self, cache):
        if getattr(self, "warm_start", False):
            self._cache = cache
        elif hasattr(self, "_cache"):
            del self._cache
        return self

    def _set_priors(self, y_index):
        """``training_prevalence_`` and ``decision_prior_``: the class frequencies and the
        priors whose Bayes rule the (class-weighted) linear model approximates, ``class
        weight x frequency`` normalised (equal priors for "balanced")."""
        K = len(self.classes_)
        prevalence = np.bincount(y_index, minlength=K) / y_index.size
        cw = self._class_weight_index()
        if isinstance(cw, str):  # "balanced": the BER rule
            weights = 1.0 / prevalence
        elif cw is None:
            weights = np.ones(K)
        else:
            weights = np.array([float(cw.get(k, 1.0)) for k in range(K)])
        prior = weights * prevalence
        self.training_prevalence_ = prevalence
        self.decision_prior_ = prior / prior.sum()

    def _pinned_calibration(self, scores, labels):
        """``platt_`` of the convention (``docs/probabilities.md``): one positive factor on the
        decision values fitted to cross-fitted ones, the offset pinned at
        ``log training_prevalence_ - log decision_prior_``, so that ``predict`` (the sign or
        the largest decision value) is ``argmax(predict_proba * decision_prior_ /
        training_prevalence_)``.  Two classes: Platt's ``(a, b)`` with ``a = -scale``; more:
        ``[scale * I | offsets]`` for :func:`slb._utils.apply_calibration`."""
        offsets = decision_offsets(self.training_prevalence_, self.decision_prior_)
        K = len(self.classes_)
        if K == 2:
            return pinned_platt(scores, labels, offsets)
        scale = fit_logit_scale(scores, labels, offsets)
        return np.hstack([scale * np.eye(K), offsets[:, None]])

    def _check_proba(self):
        if not self.probability:
            raise AttributeError(
                "predict_proba is not available when probability=False: refit with "
                "probability=True (the default) to calibrate the decision values."
            )
        return True

    # The mixin's methods (and docstrings), present only with probability=True (as SVC's).
    predict_proba = available_if(_check_proba)(PlattProbaMixin.predict_proba)
    predict_log_proba = available_if(_check_proba)(PlattProbaMixin.predict_log_proba)

    def _calibration_scores(self, cache, selector, T, y_index, seed):
        """Decision values of rows that did not train the SVM that scored them, with labels.

        After a nested selection: the inner folds' SVMs of the selected candidate (screening,
        densities and SVM all refitted without the scored rows; 5 small SVM fits, no new
        densities).  Without one (``C`` and ``lambda`` fixed): the SVM cross-fitted on the
        training feature map ``T``, whose densities are already cross-fitted
        (``training_features="kfold"``).  With fewer than 2 rows of a class per fold: the
        training decision values themselves.
        """
        cw = self._class_weight_index()
        K = len(self.classes_)
        k = _inner_folds(self.cv, np.bincount(y_index, minlength=K).min())
        path = cache.get(("path", cache.get("inner_folds", k)))

        def fit(T_tr, y_tr):
            return fit_linear_model(
                T_tr,
                y_tr,
                C=self.C_,
                class_weight=cw,
                n_classes=K,
                loss=self.loss,
                anchor=NO_ANCHOR,
                n_features=self.n_features_in_,
            )

        if getattr(self, "cv_results_", None) is not None and path is not None:
            scores, labels = [], []
            for f in path.folds_:
                m = column_mask(selector(f.screen), self.n_features_in_)
                scores.append(
                    linear_decision(f.T_test[:, m], *fit(f.T_train[:, m], y_index[f.train]))
                )
                labels.append(y_index[f.test])
            return np.concatenate(scores), np.concatenate(labels)
        if k < 2:
            return linear_decision(T, self.coef_, self.intercept_), y_index
        scores = np.empty((y_index.size,) if K == 2 else (y_index.size, K))
        groups = cache.get("groups")
        for tr, te in stratified_splits(y_index, k, random_state=seed, groups=groups):
            scores[te] = linear_decision(T[te], *fit(T[tr], y_index[tr]))
        return scores, y_index

    def _seed(self):
        """One integer seed for the inner folds and the cross-fitting (an int is used as is)."""
        rs = self.random_state
        if isinstance(rs, (int, np.integer)) and not isinstance(rs, bool):
            return int(rs)
        cache = getattr(self, "_cache", None) if getattr(self, "warm_start", False) else None
        if rs is None and cache is not None and "seed" in cache:
            return cache["seed"]  # a warm refit keeps the folds whose densities it reuses
        return int(check_random_state(rs).randint(np.iinfo(np.int32).max))

    def _warm_cache(self, X, y_index, dens):
        key = _data_key(X, y_index, sorted(dens.items()) + sorted(self._path_params().items()))
        cache = getattr(self, "_cache", None) if getattr(self, "warm_start", False) else None
        return cache if cache is not None and cache.get("key") == key else {"key": key}

    def _inner_cv(self, X, y_index, dens, selectors, grid_values, Cs, seed, cache):
        """Nested selection: screening, densities and SVMs refitted inside every inner split."""
        # Tall tables: a stratified subsample of the rows; wide: the top pairs within a budget.
        max_rows = self.max_search_rows
        rows = search_rows(y_index, max_rows, seed)
        k = _search_folds(self.cv, y_index[rows], self.classes_)
        if k < 2:
            # Too few rows of a class to cross-validate: the sparsest model, the middle C.
            self.cv_results_ = None
            return 0, len(Cs) // 2, "slb"
        path_key = ("path", k)
        cache["inner_folds"] = k
        max_pairs = self._search_max_pairs(rows.size, X.shape[1], k)
        search = (max_rows, max_pairs, self._inner_pvalues())
        if path_key not in cache or cache.get("search") != search:
            groups = cache.get("groups")
            split = stratified_splits(
                y_index[rows], k, random_state=seed, groups=None if groups is None else groups[rows]
            )
            cache[path_key] = ThresholdPath(
                class_weight=self.class_weight,
                loss=self.loss,
                max_pairs=max_pairs,
                pvalues=search[2],
                n_jobs=self.n_jobs,
                **self._path_params(),
                **dens,
            )
            folds = [(rows[tr], rows[te]) for tr, te in split]
            cache[path_key].fit(X, self.classes_[y_index], folds)
            cache["search"], cache["max_pairs"] = search, max_pairs
            cache.pop("generative", None)
            cache.pop("grid", None)
        self.n_search_rows_ = int(rows.size)
        path = cache[path_key]
        path.loss, path.class_weight = self.loss, self.class_weight  # a warm path's may differ
        grid_key = (k, self.loss, repr(self.class_weight), repr(list(Cs)), self._selector_key())
        if cache.get("grid", (None,))[0] != grid_key:
            cache["grid"] = (grid_key, *path.grid_ber(selectors, Cs))
        ber, n_pairs = cache["grid"][1:]
        table = _cv_table(grid_values, Cs, ber, n_pairs)
        if self.selection == "min" and not self._generative():
            i, j = _select_best(ber.mean(axis=2))  # the grid's row-major tie order
            best = i * len(Cs) + j
        else:
            n_grid = ber.shape[0] * ber.shape[1]
            se = standard_errors(ber.reshape(n_grid, -1))
            keys = [(table["mean_n_pairs"][r], 1, r) for r in range(n_grid)]
            fold_ber, groups = ber.reshape(n_grid, -1), [0] * n_grid
            if self._generative():
                scores = self._generative_scores(X, y_index, dens, path, seed, cache)
                table = _with_generative_rows(table, scores)
                se = np.concatenate([se, [standard_errors(scores[g]["ber"]) for g in GENERATIVE]])
                keys += [(scores[g]["n_pairs"].mean(), 0, k) for k, g in enumerate(GENERATIVE)]
                fold_ber = np.vstack([fold_ber, [scores[g]["ber"] for g in GENERATIVE]])
                groups += [1 + k for k in range(len(GENERATIVE))]  # each its own group
            best = select_row(table, se, keys, self.selection, fold_ber=fold_ber, groups=groups)
            i, j = divmod(best, len(Cs)) if best < n_grid else (0, 0)
        self.cv_results_ = table
        self.best_index_ = int(best)
        n_grid = ber.shape[0] * ber.shape[1]
        return i, j, ("slb" if best < n_grid else GENERATIVE[best - n_grid])

    def _selector_key(self):  # the settings that define the inner table's pair selectors
        keys = ("threshold", "thresholds", "alpha", "pair_rule")
        return repr([(k, np.asarray(getattr(self, k, None)).tolist()) for k in keys])

    def _generative_scores(self, X, y_index, dens, path, seed, cache):
        """KDE naive Bayes and TAN on the inner folds of ``path`` (cached with them)."""
        key = (repr(self.class_weight), seed)
        if cache.get("generative", (None,))[:2] != key:
            cw, K = self._class_weight_index(), len(self.classes_)
            folds, scores = path_generative_scores(path, X, y_index, dens, cw, K, seed)
            cache["generative"] = (*key, folds, scores)
        return cache["generative"][3]

    def _set_model(self, names, pairs, mask, T, coef, intercept, transformer):
        self.transformer_ = transformer
        self.pairs_ = pairs
        self._terms = mask
        all_names = np.asarray(
            term_names(names, pairs, class_order(self.classes_)[1]), dtype=object
        )
        self.terms_ = all_names[mask]
        self.term_table_ = _term_table(names, pairs, self.classes_).loc[mask]
        self.term_table_.index = pd.Index(self.terms_, name="term")
        self.coef_ = np.asarray(coef, dtype=float).reshape(-1, int(mask.sum()))
        self.intercept_ = np.asarray(intercept, dtype=float).reshape(-1)
        self.term_means_ = T[:, mask].mean(axis=0)
        self.n_terms_ = int(mask.sum())
        # K classes: the mean over the classes' scores of each one's importances
        self.feature_importances_ = np.mean(
            [
                _feature_importances(T[:, mask] * w, self.term_table_, self.n_features_in_)
                for w in self.coef_
            ],
            axis=0,
        )

    def _candidate_features(self, X, y_index, pairs, dens, cache):
        """Training feature map for ``pairs``, reusing cached columns when possible."""
        if "T" in cache and {tuple(p) for p in pairs} <= cache["pair_set"]:
            col = cache["pair_col"]
            d = X.shape[1]
            P = cache["n_pairs"]
            idx = np.array([col[tuple(p)] for p in pairs], dtype=int)
            K = len(self.classes_)
            cols = np.concatenate([np.arange(K * d)] + [K * d + k * P + idx for k in range(K)])
            transformer = cache["transformer"]
            return transformer, cache["T"][:, cols]
        transformer = LogDensityTransformer(pairs=pairs, n_jobs=self.n_jobs, **dens)
        T = transformer.fit_transform(X, y_index)
        transformer.classes_ = self.classes_
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
            Columns named by ``terms_``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return pd.DataFrame(self._terms_of(X), columns=pd.Index(self.terms_, name="term"))

    def decision_function(self, X):
        """Two classes: the signed distance to the SVM hyperplane, positive for ``classes_[1]``.
        More: each class's multinomial score (the prediction is the largest).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return linear_decision(self._terms_of(X), self.coef_, self.intercept_)

    def ratio_coefficients(self):
        """The two-class weights in an identifiable form: per log-density ratio and common part.

        A feature's two terms ``log p+(a)`` and ``log p-(a)`` are nearly collinear when the
        feature is useless (both densities alike), so the SVM may give them large weights of
        opposite signs that cancel.  Rewritten on ``log p+ - log p-`` (the log-density ratio)
        and ``log p+ + log p-`` (their common part), ``w+ log p+ + w- log p- = ratio (log p+ -
        log p-) + common (log p+ + log p-)`` with ``ratio = (w+ - w-) / 2`` and
        ``common = (w+ + w-) / 2``.  Lemma 1's oracle for forest-structured classes has
        ``ratio = 1`` on every pair in both classes' forests and, for a feature of degrees
        ``deg+`` and ``deg-``, ``ratio = 1 - (deg+ + deg-) / 2`` and ``common = (deg- - deg+) / 2``
        (so ``ratio = 1, common = 0`` for a feature without edges): compare up to the SVM's
        positive scale.  A term whose partner was not kept (``pair_rule="per_class"``) counts
        its partner's weight as 0.

        Returns
        -------
        table : DataFrame
            One row per feature and per kept pair (index ``a`` or ``a, b``): ``kind``,
            ``ratio``, ``common``, ``coef_plus``, ``coef_minus``, and ``importance`` (the
            feature's ``feature_importances_``; NaN for pairs).

        Raises
        ------
        ValueError
            With more than two classes (see ``coef_series_``: one column per class).
        """
        check_is_fitted(self)
        if len(self.classes_) != 2:
            raise ValueError(
                "ratio_coefficients is the two-class form (log p+ - log p-); with "
                f"{len(self.classes_)} classes use coef_series_ (one column of weights per class)."
            )
        t = self.term_table_
        rows = {}
        for sign, kind, i, j, fi, fj, w in zip(
            t["class"],
            t["kind"],
            t["i"],
            t["j"],
            t["feature_i"],
            t["feature_j"],
            self.coef_[0],
            strict=True,
        ):
            key = fi if kind == "univariate" else f"{fi}, {fj}"
            row = rows.setdefault(
                key, {"kind": kind, "i": i, "j": j, "coef_plus": 0.0, "coef_minus": 0.0}
            )
            row["coef_plus" if sign == "+" else "coef_minus"] = float(w)
        out = pd.DataFrame.from_dict(rows, orient="index")
        out["ratio"] = (out["coef_plus"] - out["coef_minus"]) / 2
        out["common"] = (out["coef_plus"] + out["coef_minus"]) / 2
        uni = out["kind"] == "univariate"
        out["importance"] = np.nan
        out.loc[uni, "importance"] = self.feature_importances_[out.loc[uni, "i"].to_numpy()]
        out.index.name = "term"
        return out[["kind", "ratio", "common", "coef_plus", "coef_minus", "importance"]]

    def contributions(self, X, target=None):
        """How much each log-density term pushed each decision, relative to the training mean.

        ``contribution = coef * (T(x) - mean of T on the training rows)``; the row sums plus
        ``baseline`` equal :meth:`decision_function` (with more than two classes: the
        ``target`` class's column of it).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        target : label or None, default=None
            With more than two classes, the class whose decision value is explained (a label
            of ``classes_``); None: ``classes_[0]``.  Ignored for two classes (the one
            decision value, positive for ``classes_[1]``).

        Returns
        -------
        contributions : DataFrame of shape (n_samples, n_terms)
        baseline : float
            The decision value of a sample whose terms all equal their training means.
        """
        T = self.log_density_features(X)
        k = 0
        if self.coef_.shape[0] > 1 and target is not None:
            hits = np.flatnonzero(np.asarray(self.classes_) == target)
            if hits.size != 1:
                raise ValueError(
                    f"target must be one of the classes {list(self.classes_)!r}, got {target!r}."
                )
            k = int(hits[0])
        contrib = (T - self.term_means_) * self.coef_[k]
        baseline = float(self.intercept_[k] + self.coef_[k] @ self.term_means_)
        return contrib, baseline

    def __getstate__(self):
        # a copy: on Python >= 3.11 object.__getstate__ returns the live __dict__, and popping
        # from it would empty the cache of the model being pickled or copied
        state = dict(super().__getstate__())
        state.pop("_cache", None)  # a warm cache is a speed aid, never part of the model
        return state


class LUClassifier(_LogDensitySVM):
    __doc__ = _doc("""LU: a linear SVM on the univariate log-densities only (Fan et al. 2016, with an SVM).

    Parameters
    ----------
    %(params)s

    Attributes
    ----------
    %(attrs)s

    Examples
    --------
    >>> import numpy as np
    >>> from slb import LUClassifier
    >>> from slb.data.toy import xor
    >>> X, y = xor(n=200, noise=0.05, random_state=0)  # y is 1 where x1 * x2 > 0
    >>> X["z"] = np.random.RandomState(0).normal(size=200)  # a noise feature
    >>> X_new, y_new = xor(n=200, noise=0.05, random_state=1)
    >>> X_new["z"] = np.random.RandomState(1).normal(size=200)
    >>> clf = LUClassifier(random_state=0).fit(X, y)
    >>> clf.pairs_.tolist(), round(clf.score(X_new, y_new), 2)  # no pair: blind to XOR
    ([], 0.51)
    """)


class ForestDensityClassifier(LUClassifier):
    """SLB-: the linear SVM on all univariate and all bivariate log-densities.

    Equivalent to SLB with threshold 0; the Forest Density Classifier of the project's papers.
    Parameters and attributes as in :class:`LUClassifier`; ``pairs_`` holds every pair.

    Examples
    --------
    >>> import numpy as np
    >>> from slb import ForestDensityClassifier
    >>> from slb.data.toy import xor
    >>> X, y = xor(n=200, noise=0.05, random_state=0)  # y is 1 where x1 * x2 > 0
    >>> X["z"] = np.random.RandomState(0).normal(size=200)  # a noise feature
    >>> X_new, y_new = xor(n=200, noise=0.05, random_state=1)
    >>> X_new["z"] = np.random.RandomState(1).normal(size=200)
    >>> clf = ForestDensityClassifier(random_state=0).fit(X, y)
    >>> clf.pairs_.tolist(), round(clf.score(X_new, y_new), 2)
    ([[0, 1], [0, 2], [1, 2]], 0.93)
    """

    def _path_params(self):
        return {"candidates": "all"}

    def _selectors(self):
        return [fixed_selector(True)], {}


@dataclass(eq=False, repr=False)
class SLBClassifier(_LogDensitySVM):
    __doc__ = _doc("""The Sparse Log-Bivariate density classifier (Tenzer et al., JMLR 2020, Algorithm 1).

    1. For each class, measure the dependence of every feature pair (HSIC by default).
    2. Keep the pairs whose screening score reaches the threshold ``lambda``.
    3. Estimate per-class univariate and (kept) bivariate KDE densities; the feature map is their
       logarithm, floored (see :class:`slb.density.features.LogDensityTransformer`).
    4. Fit a linear SVM on the standardised feature map (K > 2 classes: a multinomial logistic
       model, one score per class).

    Whatever is chosen automatically (``lambda`` by ``"cv"`` or ``"fdr"``, ``C`` by ``"cv"``)
    is chosen by **nested** selection: inside every inner split the dependence, the densities
    and the SVMs are refitted from the inner training rows only (:class:`slb.ThresholdPath`),
    so the rows a candidate is scored on never shaped it.  ``lambda`` and ``C`` are selected
    jointly on the same inner folds.  The defaults are chosen by the protocol in
    ``docs/defaults.md`` (synthetic designs of the SLB paper and principles, never the bundled
    datasets).

    Parameters
    ----------
    threshold : float, "cv" or "fdr", default="cv"
        The screening threshold ``lambda``.  A number: keep the terms whose screening score
        is at least it (+inf: none, LU).  ``"cv"``: choose by the inner CV among ``thresholds``
        or, by default, among the models keeping the top 0, 1, 2, 5, 10, 20, 35, 50, 75 and
        100 % of the pairs (a label-free grid: in each inner split the top fraction is taken
        of that split's own scores; ``threshold_`` is then the score that keeps the chosen
        fraction on all the data).  ``"fdr"``: keep the terms whose dependence p-value is
        rejected by Benjamini-Hochberg at level ``alpha`` (all terms of both classes together).
    dependence : {"hsic", "pearson", "spearman"}, default="hsic"
        HSIC with Gaussian kernels (median heuristic, see :mod:`slb.dependence.hsic`), or ``|r|``.
    pair_rule : {"either", "both", "per_class"}, default="either"
        "either": a pair's two terms enter when it is dependent in either class; "both":
        dependent in both; "per_class" (the paper's Algorithm 1 and Lemma 1): class y's term
        enters when the pair is dependent in class y.
    screening_score : {"statistic", "scaled", "pvalue"}, default="statistic"
        What ``lambda`` is compared with (see :mod:`slb.dependence.screening`): the raw statistic,
        ``n_y`` times it (null level free of the class size), or ``-log10`` p-value.
    alpha : float, default=0.05
        FDR level for ``threshold="fdr"``.
    thresholds : array-like or None, default=None
        Candidate thresholds (in screening-score units) for ``threshold="cv"``, applied in
        every inner split to that split's scores; None: the fraction grid above.
    search_memory_mb : float or None, default=256
        Memory budget (MB) of the inner folds' candidate feature maps.  On wide tables it caps
        the candidate pairs of the selection (``threshold="cv"`` or a number) at the top ``K``
        by screening score, ``K`` the most whose maps fit the budget over the inner folds;
        the final model chooses among the same ``K`` (``n_candidate_pairs_``).  None: every
        pair.  ``threshold="fdr"`` always tests every pair.
    %(params)s

    Attributes
    ----------
    dependence_ : ndarray of shape (n_classes, n_features, n_features)
        Raw dependence within each class ``classes_[k]`` on all its rows (NaN diagonal).
    hsic_ : ndarray of shape (n_classes, n_features, n_features)
        Same object as ``dependence_``.
    pvalues_ : ndarray of shape (n_classes, n_features, n_features)
    pair_scores_ : ndarray of shape (n_all_pairs,)
        Screening score of every pair (max or min over classes, by ``pair_rule``).
    threshold_ : float
        The threshold used, in screening-score units (for "cv" with the fraction grid and for
        "fdr": the smallest kept score; +inf when no pair is kept).
    fraction_ : float or None
        The fraction of pairs selected by the default ``"cv"`` grid.
    %(attrs)s

    Examples
    --------
    >>> import numpy as np
    >>> from slb import SLBClassifier
    >>> from slb.data.toy import xor
    >>> X, y = xor(n=200, noise=0.05, random_state=0)  # y is 1 where x1 * x2 > 0
    >>> X["z"] = np.random.RandomState(0).normal(size=200)  # a noise feature
    >>> X_new, y_new = xor(n=200, noise=0.05, random_state=1)
    >>> X_new["z"] = np.random.RandomState(1).normal(size=200)
    >>> clf = SLBClassifier(random_state=0).fit(X, y)  # lambda and C by nested CV
    >>> clf.pairs_.tolist(), round(clf.score(X_new, y_new), 2)  # the dependent pair only
    ([[0, 1]], 0.93)
    >>> clf.predict_proba(X_new).shape
    (200, 2)
    """)

    threshold: float | str = "cv"
    _: KW_ONLY
    dependence: str = "hsic"
    pair_rule: str = "either"
    screening_score: str = "statistic"
    alpha: float = 0.05
    thresholds: object = None
    search_memory_mb: float | None = _path.SEARCH_MEMORY_MB
    generative_candidates: bool = True  # Protocol 3 of docs/defaults.md (SLB only)
    selection: str = "corrected"  # Protocol 5 of docs/defaults.md (SLB only)

    _parameter_constraints = {
        **_LogDensitySVM._parameter_constraints,
        # Any number but NaN: +inf keeps no pair (LU), and "cv" may choose it.
        "threshold": [Interval(Real, None, None, closed="both"), StrOptions({"cv", "fdr"})],
        "dependence": [StrOptions(set(DEPENDENCE_MEASURES))],
        "pair_rule": [StrOptions(set(PAIR_RULES))],
        "screening_score": [StrOptions(set(SCREENING_SCORES))],
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "thresholds": ["array-like", None],
        "search_memory_mb": [Interval(Real, 0, None, closed="neither"), None],
    }

    def _check_grids(self):
        self._threshold_grid()

    def _generative(self):  # a hand-set lambda asks for SLB at that lambda
        return (
            self.generative_candidates
            and isinstance(self.threshold, str)
            and self.threshold == "cv"
        )

    def _path_params(self):
        keys = ("dependence", "pair_rule", "screening_score")
        return {"candidates": "screened", **{k: getattr(self, k) for k in keys}}

    def _threshold_grid(self):
        if self.thresholds is None:
            return None
        try:  # H53: ['a'] gave numpy's bare "could not convert string to float"
            grid = np.unique(np.asarray(self.thresholds, dtype=float))[::-1]  # sparsest first
        except (TypeError, ValueError):
            grid = np.array([np.nan])
        if grid.size == 0 or np.isnan(grid).any():
            raise ValueError(
                f"thresholds must be a non-empty list of numbers; got {self.thresholds!r}."
            )
        return grid

    def _selectors(self):
        rule = self.pair_rule
        if self.threshold == "fdr":
            return [fdr_selector(self.alpha, rule)], {}
        if self.threshold != "cv":
            return [threshold_selector(float(self.threshold), rule)], {}
        grid = self._threshold_grid()
        if grid is not None:
            return [threshold_selector(t, rule) for t in grid], {"threshold": grid}
        return [fraction_selector(q, rule) for q in DEFAULT_FRACTIONS], {
            "fraction": DEFAULT_FRACTIONS
        }

    def _inner_pvalues(self):
        return self.threshold == "fdr" or self.screening_score == "pvalue"

    def _search_max_pairs(self, n_rows, n_features, n_folds):
        # FDR tests every pair (Benjamini-Hochberg over a top subset would not control it).
        if self.threshold == "fdr":
            return None
        return pairs_for_budget(self.search_memory_mb, n_rows, n_features, n_folds)

    def _record_selection(self, screen, i, candidates):
        d = self.n_features_in_
        K = len(self.classes_)
        self.dependence_ = np.full((K, d, d), np.nan)
        self.pvalues_ = np.full((K, d, d), np.nan)
        iu = (screen.pairs[:, 0], screen.pairs[:, 1])
        for c in range(K):
            self.dependence_[c][iu] = self.dependence_[c].T[iu] = screen.stat[c]
            self.pvalues_[c][iu] = self.pvalues_[c].T[iu] = screen.pvalue[c]
        self.hsic_ = self.dependence_
        self.pair_scores_ = pair_scores(screen.score, self.pair_rule)
        self.fraction_ = None
        if self.threshold == "fdr":
            _, self.threshold_ = fdr_terms(screen.score, screen.pvalue, self.alpha, self.pair_rule)
        elif self.threshold != "cv":
            self.threshold_ = float(self.threshold)
        elif self.thresholds is not None:
            self.threshold_ = float(self._threshold_grid()[i])
        else:
            self.fraction_ = float(DEFAULT_FRACTIONS[i])
            self.threshold_ = top_fraction_threshold(
                candidates.score, self.fraction_, self.pair_rule, n_total=screen.n_all_pairs
            )
