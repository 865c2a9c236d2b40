"""Cross-validated balanced error of SLB along the threshold path, densities computed per fold.

Moving the threshold ``lambda`` (or the SVM's ``C``) changes only which columns of the
log-density feature map enter the SVM, or the SVM itself.  :class:`ThresholdPath` computes, once
per fold and **from that fold's training rows only**, the per-class dependence of every pair and
the feature map of every candidate pair (cross-fitted on the training rows, plain on the test
rows); afterwards the cross-validated BER at any threshold costs one SVM fit per fold.

It is the engine of every honest number about SLB:

* :meth:`ThresholdPath.fold_ber` gives exactly what cross-validating
  ``SLBClassifier(threshold=lambda, C=C)`` on the same folds gives (the tests check this);
* :meth:`ThresholdPath.grid_ber` scores a whole grid of (pair selector, ``C``) candidates on
  the same folds, sharing each fold's densities across the grid; :class:`slb.SLBClassifier`
  uses it on its *inner* folds to choose ``lambda`` and ``C`` without looking at the rows it is
  scored on (nested selection).

At scale (see ``benchmarks/scale.py``) the selection is bounded in both directions:

* **wide tables**: the candidate pairs of the inner folds are the top ``K`` by screening score,
  ``K`` from a memory budget for the folds' feature maps (:func:`pairs_for_budget`); the final
  model chooses among the same ``K`` (:func:`cap_screen`);
* **tall tables**: the inner CV runs on a stratified subsample of at most
  ``max_search_rows`` rows (an estimator parameter, default :data:`MAX_SEARCH_ROWS`;
  :func:`search_rows`); the final fit uses every row;
* **beyond one machine**: the folds' densities and SVM grids are independent joblib tasks
  (:func:`slb._parallel.run_tasks` with ``distribute=True``), so under
  ``joblib.parallel_backend("dask")`` they run on the cluster, with identical results.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._metrics import balanced_error_rate
from .._parallel import distributed_backend, resolve_n_jobs, run_tasks
from .._utils import all_pairs, check_binary_target, check_magnitude, overrides_by_index
from ..density.features import LogDensityTransformer, class_order
from ..dependence.hsic import DEPENDENCE_MEASURES, dependence_matrix
from ..dependence.screening import (
    check_pair_rule,
    check_screening_score,
    fdr_terms,
    kept_terms,
    pair_scores,
    screening_statistic,
    top_fraction_threshold,
)
from .svm import (
    DEFAULT_LOSS,
    fit_linear_model,
    grid_mask_predictions,
    index_class_weight,
    linear_decision,
)

#: Fixed SVM cost used where no inner CV selects it (the dashboard's hand-set lambda, and
#: ``ThresholdPath``).  e1071's default, the paper's; see ``docs/defaults.md`` for the protocol
#: that compared it with the alternatives on synthetic designs.
FIXED_C = 1.0

#: Folds run in threads when their training rows exceed this (the working-set SVM path of
#: :mod:`slb.model.svm`).  Smaller folds gained little from threads while per-thread allocator
#: arenas doubled the peak memory of a 5-fold CV (432 -> 877 MB on Hill-valley).
THREADED_MIN_ROWS = 3000

CANDIDATE_MODES = ("screened", "all", "none")

#: The two-class SVM losses of the SLB family (``loss`` of the estimators and of
#: :class:`ThresholdPath`), passed explicitly to every :mod:`slb.model.svm` call.
LOSSES = ("hinge", "squared_hinge")
#: The ``anchor`` every SLB-family call passes to :mod:`slb.model.svm`: none (the penalty is
#: ``||w||``; Protocol 2 did not adopt the naive-Bayes anchor).
NO_ANCHOR = "none"

#: Default ``max_search_rows`` of the estimators: rows of the nested selection's inner CV;
#: above, it runs on a stratified subsample of this many rows (the final fit uses every row).  Its cost is then bounded whatever ``n``.  What
#: the subsample changes, measured against the selection on every row (``benchmarks/scale.py
#: --case subsample --reference``, n = 4000, held-out BER on 4000 new rows): Ringnorm-like
#: (d = 20) 1.30 % vs 1.37 %, the paper's forest design (d = 20) 1.22 % vs 1.12 %; the
#: selected cell differed in both ((0, 0.32) vs (0.05, 0.32); (0.5, 0.03) vs (0.35, 0.1)):
#: the held-out BER stayed within 0.1 percentage point, the chosen cell did not.
MAX_SEARCH_ROWS = 2000

#: Default ``search_memory_mb`` of SLB: memory budget (MB) of the inner folds' candidate
#: feature maps; it sets how many candidate pairs the selection considers on wide tables
#: (:func:`pairs_for_budget`).
SEARCH_MEMORY_MB = 256


#: Rows of each class a subsample of :func:`search_rows` keeps at least (all of a smaller
#: class): enough for five inner folds (H53: 2 of a class's 6 rows were kept, too few to
#: cross-validate, and the selection was skipped).
MIN_SEARCH_ROWS_PER_CLASS = 10


def search_rows(y_index, max_rows, seed):
    """Rows of the inner CV: all, or a stratified subsample of ``max_rows`` (sorted), which
    keeps at least :data:`MIN_SEARCH_ROWS_PER_CLASS` rows of every class (all of a smaller
    class; the subsample then holds more than ``max_rows``: a rare class's rows, or, when
    ``max_rows`` is small, up to that many of every class).

    Parameters
    ----------
    y_index : ndarray of shape (n_samples,)
    max_rows : int or None
        None: every row.
    seed : int

    Returns
    -------
    rows : ndarray of int

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.path import search_rows
    >>> y_index = np.array([0] * 600 + [1] * 400)
    >>> rows = search_rows(y_index, 100, seed=0)
    >>> rows.size, np.bincount(y_index[rows]).tolist()  # the class shares kept
    (100, [60, 40])
    >>> search_rows(y_index, None, seed=0).size
    1000
    >>> rare = np.array([0] * 994 + [1] * 6)
    >>> np.bincount(rare[search_rows(rare, 200, seed=0)]).tolist()  # all 6 kept, not 1
    [199, 6]
    """
    n = y_index.size
    classes = np.unique(y_index)
    K = classes.size
    # StratifiedShuffleSplit needs a row of every class on both sides (H55: 2,001 rows of two
    # classes failed): dropping fewer rows than there are classes keeps them all, and fewer
    # kept rows than classes start from none (the floor below adds every class's)
    if max_rows is None or n - int(max_rows) < K:
        return np.arange(n)
    chosen = np.zeros(n, dtype=bool)
    if int(max_rows) >= K:
        from sklearn.model_selection import StratifiedShuffleSplit

        split = StratifiedShuffleSplit(1, train_size=int(max_rows), random_state=seed)
        rows, _ = next(split.split(np.zeros((n, 1)), y_index))
        chosen[rows] = True
    rng = np.random.default_rng(seed)
    for c in classes:
        mine = np.flatnonzero(y_index == c)
        short = min(mine.size, MIN_SEARCH_ROWS_PER_CLASS) - int(chosen[mine].sum())
        if short > 0:  # a rare class: more of its rows, drawn at random
            chosen[rng.choice(mine[~chosen[mine]], size=short, replace=False)] = True
    return np.flatnonzero(chosen)


def pairs_for_budget(memory_mb, n_rows, n_features, n_folds):
    """Candidate pairs whose feature maps fit ``memory_mb`` over ``n_folds`` folds.

    Every fold holds the map of all ``n_rows`` rows (its training and test rows): ``2 d``
    univariate and ``2 K`` pair columns of doubles.

    Parameters
    ----------
    memory_mb : float or None
        None: no cap.
    n_rows, n_features, n_folds : int

    Returns
    -------
    max_pairs : int or None
        ``K`` (at least 0), or None without a budget.

    Examples
    --------
    >>> from slb.model.path import pairs_for_budget
    >>> pairs_for_budget(256, n_rows=1000, n_features=20, n_folds=5)
    3335
    >>> pairs_for_budget(None, n_rows=1000, n_features=20, n_folds=5) is None
    True
    """
    if memory_mb is None:
        return None
    columns = memory_mb * 2**20 / (8.0 * max(n_rows, 1) * max(n_folds, 1))
    return max(0, int((columns - 2 * n_features) // 2))


def cap_screen(screen, max_pairs):
    """``screen`` restricted to its ``max_pairs`` highest-scoring pairs (ties: the first).

    The score of a pair is its larger class score; the candidates keep their order.  The
    inner folds of the selection and the final fit apply the same cap, so the final model can
    keep only what the inner folds could.

    Parameters
    ----------
    screen : Screen
    max_pairs : int or None
        None: ``screen`` itself.

    Returns
    -------
    screen : Screen

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.path import cap_screen, screen_pairs
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(80, 3))
    >>> X[:, 1] = X[:, 0] + 0.1 * rng.normal(size=80)  # x0 and x1 depend in both classes
    >>> screen = screen_pairs(X, np.array([0, 1] * 40), dependence="pearson")
    >>> screen.pairs.tolist(), cap_screen(screen, 1).pairs.tolist()
    ([[0, 1], [0, 2], [1, 2]], [[0, 1]])
    """
    P = screen.pairs.shape[0]
    if max_pairs is None or P <= max_pairs:
        return screen
    keep = np.sort(np.argsort(-screen.score.max(axis=0), kind="stable")[:max_pairs])
    s = screen
    return Screen(
        s.pairs[keep],
        s.stat[:, keep],
        s.pvalue[:, keep],
        s.score[:, keep],
        s.counts,
        s.n_all_pairs,
    )


@dataclass
class Screen:
    """Per-class dependence of candidate pairs on one set of rows.

    Attributes
    ----------
    pairs : ndarray of shape (P, 2)
        Candidate pairs (all pairs unless capped).
    stat, pvalue, score : ndarray of shape (n_classes, P)
        Raw statistic, p-value and screening score (row ``c``: ``classes_[c]``).
    counts : ndarray of shape (n_classes,)
        Rows of each class.
    n_all_pairs : int
        ``d (d - 1) / 2``.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.path import screen_pairs
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(80, 3))
    >>> X[:, 1] = X[:, 0] + 0.1 * rng.normal(size=80)  # x0 and x1 depend in both classes
    >>> screen = screen_pairs(X, np.array([0, 1] * 40), dependence="pearson")
    >>> screen.score.shape, screen.counts.tolist(), screen.n_all_pairs
    ((2, 3), [40, 40], 3)
    """

    pairs: np.ndarray
    stat: np.ndarray
    pvalue: np.ndarray
    score: np.ndarray
    counts: np.ndarray
    n_all_pairs: int


def screen_pairs(
    X,
    y_index,
    *,
    dependence="hsic",
    screening_score="statistic",
    candidates="screened",
    max_pairs=None,
    n_jobs=None,
    pvalues=True,
    n_classes=None,
):
    """Dependence of every pair in each class, keeping the ``max_pairs`` highest-scoring ones.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y_index : ndarray of shape (n_samples,)
        Class indices 0 .. n_classes - 1.
    dependence : {"hsic", "pearson", "spearman"}
    screening_score : {"statistic", "scaled", "pvalue"}
    candidates : {"screened", "all", "none"}
        "all": every pair without measuring dependence (SLB-); "none": no pair (LU).
    max_pairs : int or None
    n_jobs : int or None
    pvalues : bool, default=True
        HSIC: also compute the p-values (about half the cost of the exact statistic); False:
        ``pvalue`` is NaN (the statistic is the same).  Needed only by ``"pvalue"`` scores and
        FDR selection.
    n_classes : int or None
        None: ``max(2, y_index.max() + 1)``.

    Returns
    -------
    screen : Screen

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.path import screen_pairs
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(80, 3))
    >>> X[:, 1] = X[:, 0] + 0.1 * rng.normal(size=80)  # x0 and x1 depend in both classes
    >>> screen = screen_pairs(X, np.array([0, 1] * 40), dependence="pearson")
    >>> screen.pairs.tolist()
    [[0, 1], [0, 2], [1, 2]]
    >>> screen.score.round(1).tolist()  # |correlation| per class (rows) and pair (columns)
    [[1.0, 0.3, 0.2], [1.0, 0.1, 0.1]]
    """
    d = X.shape[1]
    pairs = all_pairs(d)
    K = max(2, int(np.max(y_index)) + 1) if n_classes is None else int(n_classes)
    counts = np.bincount(y_index, minlength=K)
    if candidates != "screened":
        pairs = pairs if candidates == "all" else pairs[:0]
        zero = np.zeros((K, pairs.shape[0]))
        return Screen(pairs, zero, zero + 1.0, zero, counts, d * (d - 1) // 2)
    res = [
        dependence_matrix(X[y_index == c], dependence, pvalues=pvalues, n_jobs=n_jobs)
        for c in range(K)
    ]
    stat = np.stack([r.statistic for r in res])[:, pairs[:, 0], pairs[:, 1]]
    pval = np.stack([r.pvalue for r in res])[:, pairs[:, 0], pairs[:, 1]]
    score = screening_statistic(stat, pval, counts, dependence, screening_score)
    return cap_screen(Screen(pairs, stat, pval, score, counts, len(stat[0])), max_pairs)


# -- pair selectors: Screen -> (n_classes, P) flags of kept bivariate terms --------------------------------
def path_loss(path):
    """The two-class loss of a fitted :class:`ThresholdPath`: its ``loss``, or the hinge for
    paths pickled before the option existed (they were all fitted with it).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from slb.model.path import ThresholdPath, path_loss
    >>> path_loss(ThresholdPath()), path_loss(SimpleNamespace())  # an old pickle: no attribute
    ('squared_hinge', 'hinge')
    """
    return getattr(path, "loss", "hinge")


def threshold_selector(threshold, pair_rule):
    """Keep the terms whose screening score is at least ``threshold``.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.path import threshold_selector, screen_pairs
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(80, 3))
    >>> X[:, 1] = X[:, 0] + 0.1 * rng.normal(size=80)  # x0 and x1 depend in both classes
    >>> screen = screen_pairs(X, np.array([0, 1] * 40), dependence="pearson")
    >>> threshold_selector(0.5, "either")(screen).tolist()  # per class (rows) and pair
    [[True, False, False], [True, False, False]]
    """
    return lambda s: kept_terms(s.score, threshold, pair_rule)


def fraction_selector(fraction, pair_rule):
    """Keep the top ``fraction`` of all pairs (or class terms, for "per_class") by score.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.path import fraction_selector, screen_pairs
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(80, 3))
    >>> X[:, 1] = X[:, 0] + 0.1 * rng.normal(size=80)  # x0 and x1 depend in both classes
    >>> screen = screen_pairs(X, np.array([0, 1] * 40), dependence="pearson")
    >>> fraction_selector(1 / 3, "either")(screen).any(axis=0).tolist()  # one pair of three
    [True, False, False]
    """

    def select(s):
        t = top_fraction_threshold(s.score, fraction, pair_rule, n_total=s.n_all_pairs)
        return kept_terms(s.score, t, pair_rule)

    return select


def fdr_selector(alpha, pair_rule):
    """Keep the terms Benjamini-Hochberg rejects at level ``alpha`` (all terms tested at once).

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.path import fdr_selector, screen_pairs
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(80, 3))
    >>> X[:, 1] = X[:, 0] + 0.1 * rng.normal(size=80)  # x0 and x1 depend in both classes
    >>> screen = screen_pairs(X, np.array([0, 1] * 40), dependence="pearson")
    >>> fdr_selector(0.05, "either")(screen).any(axis=0).tolist()
    [True, False, False]
    """
    return lambda s: fdr_terms(s.score, s.pvalue, alpha, pair_rule)[0]


def fixed_selector(keep):
    """Keep every candidate pair (``keep=True``: SLB-) or none (LU).

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.path import fixed_selector, screen_pairs
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(80, 3))
    >>> X[:, 1] = X[:, 0] + 0.1 * rng.normal(size=80)  # x0 and x1 depend in both classes
    >>> screen = screen_pairs(X, np.array([0, 1] * 40), dependence="pearson")
    >>> int(fixed_selector(True)(screen).sum()), int(fixed_selector(False)(screen).sum())
    (6, 0)
    """
    return lambda s: np.full(s.score.shape, bool(keep))


def column_mask(keep_c, n_features):
    """Feature-map columns (univariate terms, then each class's pair terms) kept by flags.

    Parameters
    ----------
    keep_c : ndarray of bool, shape (n_classes, P)
        Row ``c``: the pair terms of ``classes_[c]``.  Two classes: row 0 is ``-``, row 1 is
        ``+``, and the map has the ``+`` block first (:func:`slb.density.features.class_order`).
    n_features : int

    Returns
    -------
    mask : ndarray of bool, shape (n_classes * (n_features + P),)

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.path import column_mask
    >>> keep = np.array([[True, False, False], [False, False, True]])  # 3 features, 3 pairs
    >>> column_mask(keep, n_features=3).astype(int).tolist()  # 6 univariate, + pairs, - pairs
    [1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 0]
    """
    K, P = keep_c.shape
    order, _ = class_order(range(K))
    m = np.zeros(K * n_features + K * P, dtype=bool)
    m[: K * n_features] = True
    for pos, c in enumerate(order):
        m[K * n_features + pos * P : K * n_features + (pos + 1) * P] = keep_c[c]
    return m


@dataclass
class _Fold:
    train: np.ndarray
    test: np.ndarray
    screen: Screen
    T_train: np.ndarray
    T_test: np.ndarray

    @property
    def stat(self):
        return self.screen.stat

    @property
    def score(self):
        return self.screen.score


def _grid_fold(
    fold, y_index, selectors, Cs, class_weight, n_features, n_classes=2, loss=DEFAULT_LOSS
):
    """BERs (n_selectors, n_C) and kept-pair counts (n_selectors,) of one fold."""
    keeps = [sel(fold.screen) for sel in selectors]
    masks = [column_mask(k, n_features) for k in keeps]
    # Selectors that keep the same terms (few pairs, or tied scores) share one SVM per C.
    unique, which = np.unique(np.array(masks).reshape(len(masks), -1), axis=0, return_inverse=True)
    y_te = y_index[fold.test]
    preds = grid_mask_predictions(
        fold.T_train,
        y_index[fold.train],
        fold.T_test,
        list(unique),
        Cs,
        class_weight,
        n_classes,
        loss=loss,
        anchor=NO_ANCHOR,
        n_features=n_features,
    )
    ber = np.empty((len(selectors), len(Cs)))
    for j, per_mask in enumerate(preds):
        ber[:, j] = np.array([balanced_error_rate(y_te, p) for p in per_mask])[which.ravel()]
    return ber, np.array([int(k.any(axis=0).sum()) for k in keeps])


class ThresholdPath:
    """SLB's cross-validated BER for any threshold and C, refitting only the SVM.

    Parameters
    ----------
    dependence : {"hsic", "pearson", "spearman"}, default="hsic"
    pair_rule : {"either", "both", "per_class"}, default="either"
    screening_score : {"statistic", "scaled", "pvalue"}, default="statistic"
        What ``lambda`` is compared with (see :mod:`slb.dependence.screening`).
    C : float, default=FIXED_C
        SVM cost of :meth:`fold_ber` and :meth:`curve`.
    loss : {"hinge", "squared_hinge"}, default="hinge"
        The two-class SVM's loss (:func:`slb.model.svm.fit_linear_model`); K > 2 classes use
        the multinomial model whatever it is.
    class_weight : "balanced", dict or None, default="balanced"
    max_pairs : int or None, default=5000
        Keep at most this many candidate pairs per fold (the most dependent ones), bounding
        memory for wide tables; thresholds below the cut behave like the cut.
    candidates : {"screened", "all", "none"}, default="screened"
        "all" (SLB-) and "none" (LU) skip the dependence step.
    pvalues : bool, default=True
        Compute the folds' dependence p-values (False: NaN, for selectors that use only the
        scores of ``screening_score="statistic"`` or ``"scaled"``; half the HSIC cost).
    n_jobs : int or None, default=None
        Threads for the dependence matrices and densities, and over big folds.
    **density_params
        Passed to :class:`slb.density.features.LogDensityTransformer` (bandwidth rule, multiplier,
        overrides, floors, training_features, random_state, ...).

    Attributes
    ----------
    folds_ : list
        Per-fold screening and feature maps (``.screen``, ``.T_train``, ``.T_test``).
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int

    Examples
    --------
    >>> from slb import ThresholdPath
    >>> from slb.data.toy import xor
    >>> from slb.evaluation import stratified_folds
    >>> X, y = xor(n=120, noise=0.05, random_state=0)
    >>> path = ThresholdPath(random_state=0).fit(X, y, stratified_folds(y, 3))
    >>> ber, n_pairs = path.fold_ber(0.0)  # the pair (x1, x2) kept in every fold
    >>> round(float(ber.mean()), 3), n_pairs.tolist()
    (0.058, [1, 1, 1])
    >>> ber, n_pairs = path.fold_ber(1e9)  # no pair: LU, near chance on XOR
    >>> round(float(ber.mean()), 3), n_pairs.tolist()
    (0.5, [0, 0, 0])
    """

    def __init__(
        self,
        *,
        dependence="hsic",
        pair_rule="either",
        screening_score="statistic",
        C=FIXED_C,
        loss=DEFAULT_LOSS,
        class_weight="balanced",
        max_pairs=5000,
        candidates="screened",
        pvalues=True,
        n_jobs=None,
        **density_params,
    ):
        if dependence not in DEPENDENCE_MEASURES:
            raise ValueError(f"dependence must be one of {', '.join(DEPENDENCE_MEASURES)}.")
        check_pair_rule(pair_rule)
        check_screening_score(screening_score)
        if candidates not in CANDIDATE_MODES:
            raise ValueError(f"candidates must be one of {', '.join(CANDIDATE_MODES)}.")
        if loss not in LOSSES:
            raise ValueError(f"loss must be one of {', '.join(LOSSES)}, got {loss!r}.")
        self.dependence = dependence
        self.pair_rule = pair_rule
        self.screening_score = screening_score
        self.C = C
        self.loss = loss
        self.class_weight = class_weight
        self.max_pairs = max_pairs
        self.candidates = candidates
        self.pvalues = pvalues
        self.n_jobs = n_jobs
        self.density_params = density_params

    def fit(self, X, y, folds, progress=None):
        """Screen the pairs and compute the candidate feature maps of every fold.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        folds : list of (train_index, test_index)
        progress : callable or None
            Called as ``progress(done, total, message)`` after each fold.

        Returns
        -------
        self : ThresholdPath
        """
        names = [str(c) for c in X.columns] if hasattr(X, "columns") else None
        X = np.asarray(X, dtype=float)
        if names is None:
            names = [f"x{i}" for i in range(X.shape[1])]
        self.classes_, y_index = check_binary_target(np.asarray(y), binary=False)
        check_magnitude(X, names)
        self.n_features_in_ = X.shape[1]
        self._y_index = y_index
        params = dict(self.density_params)
        params["bandwidth_overrides"] = overrides_by_index(params.get("bandwidth_overrides"), names)
        folds = [(np.asarray(tr), np.asarray(te)) for tr, te in folds]
        if distributed_backend():
            # One task per fold on the caller's joblib backend (e.g. a Dask cluster).
            tasks = [(self._fit_fold, (X, y_index, tr, te, params)) for tr, te in folds]
            self.folds_ = run_tasks(tasks, 1, distribute=True)
            if progress is not None:
                progress(len(folds), len(folds), f"densities of {len(folds)} folds")
            return self
        self.folds_ = []
        for k, (tr, te) in enumerate(folds):
            self.folds_.append(self._fit_fold(X, y_index, tr, te, params))
            if progress is not None:
                progress(k + 1, len(folds), f"densities of fold {k + 1}/{len(folds)}")
        return self

    def _fit_fold(self, X, y_index, tr, te, params):
        screen = screen_pairs(
            X[tr],
            y_index[tr],
            dependence=self.dependence,
            screening_score=self.screening_score,
            candidates=self.candidates,
            max_pairs=self.max_pairs,
            n_jobs=self.n_jobs,
            pvalues=getattr(self, "pvalues", True),
            n_classes=len(self.classes_),
        )
        tf = LogDensityTransformer(pairs=screen.pairs, n_jobs=self.n_jobs, **params)
        T_train = tf.fit_transform(X[tr], y_index[tr])
        return _Fold(np.asarray(tr), np.asarray(te), screen, T_train, tf.transform(X[te]))

    def _score(self, score):
        """Pair scores (one per candidate pair) from per-class scores, by the pair rule."""
        return pair_scores(score, self.pair_rule)

    def _class_weight(self):
        return index_class_weight(self.class_weight, self.classes_)

    def _loss(self):
        return path_loss(self)

    def fold_ber(self, threshold):
        """BER of each fold at ``threshold`` (SVM cost ``C``), and the kept pairs per fold.

        Parameters
        ----------
        threshold : float

        Returns
        -------
        ber : ndarray of shape (n_folds,)
        n_pairs : ndarray of shape (n_folds,)
        """
        return self.fold_ber_selected(threshold_selector(threshold, self.pair_rule))

    def fold_ber_selected(self, selector):
        """BER of each fold when each fold selects its pairs from its own training rows.

        ``fraction_selector(q)`` keeps each fold's own top ``q`` of the pairs, and
        ``fdr_selector(alpha)`` runs Benjamini-Hochberg on each fold's own p-values: an
        automatic ``lambda`` recomputed inside every fold, as cross-validating
        ``SLBClassifier`` with that rule would.

        Parameters
        ----------
        selector : callable
            ``selector(screen) -> (n_classes, P)`` kept-term flags.

        Returns
        -------
        ber : ndarray of shape (n_folds,)
        n_pairs : ndarray of shape (n_folds,)
        """
        ber, n_pairs = [], []
        K = len(self.classes_)
        for f in self.folds_:
            keep_c = selector(f.screen)
            m = column_mask(keep_c, self.n_features_in_)
            yi_tr, yi_te = self._y_index[f.train], self._y_index[f.test]
            coef, b = fit_linear_model(
                f.T_train[:, m],
                yi_tr,
                C=self.C,
                class_weight=self._class_weight(),
                n_classes=K,
                loss=self._loss(),
                anchor=NO_ANCHOR,
                n_features=self.n_features_in_,
            )
            dec = linear_decision(f.T_test[:, m], coef, b)
            pred = (dec > 0).astype(int) if dec.ndim == 1 else dec.argmax(axis=1)
            ber.append(balanced_error_rate(yi_te, pred))
            n_pairs.append(int(keep_c.any(axis=0).sum()))
        return np.array(ber), np.array(n_pairs)

    def grid_ber(self, selectors, Cs):
        """BER of every (pair selector, C) candidate on every fold.

        Each fold's densities are shared by the whole grid; nested selectors (sparsest first)
        share the SVM kernels too (:func:`slb.model.svm.nested_mask_predictions`).

        Parameters
        ----------
        selectors : list of callable
            ``selector(screen) -> (n_classes, P)`` kept-term flags (see :func:`threshold_selector`,
            :func:`fraction_selector`, :func:`fdr_selector`, :func:`fixed_selector`).
        Cs : array-like of float

        Returns
        -------
        ber : ndarray of shape (n_selectors, n_C, n_folds)
        n_pairs : ndarray of shape (n_selectors, n_folds)
        """
        Cs = [float(c) for c in Cs]
        cw = self._class_weight()
        tasks = [
            (
                _grid_fold,
                (
                    f,
                    self._y_index,
                    selectors,
                    Cs,
                    cw,
                    self.n_features_in_,
                    len(self.classes_),
                    self._loss(),
                ),
            )
            for f in self.folds_
        ]
        big = bool(self.folds_) and min(f.train.size for f in self.folds_) > THREADED_MIN_ROWS
        out = run_tasks(tasks, resolve_n_jobs(self.n_jobs) if big else 1, distribute=True)
        ber = np.stack([b for b, _ in out], axis=-1)
        n_pairs = np.stack([k for _, k in out], axis=-1)
        return ber, n_pairs

    def candidate_thresholds(self, n=25):
        """A grid spanning all pairs kept (0) to none kept, at quantiles of the pair scores.

        Parameters
        ----------
        n : int

        Returns
        -------
        thresholds : ndarray
        """
        scores = np.concatenate([self._score(f.score) for f in self.folds_])
        if scores.size == 0:
            return np.array([0.0])
        q = np.quantile(scores, np.linspace(0, 1, n))
        return np.unique(np.concatenate([[0.0], q, [scores.max() * 1.0001 + 1e-12]]))

    def curve(self, thresholds=None):
        """Cross-validated BER along a grid of thresholds.

        Parameters
        ----------
        thresholds : array-like or None
            None: :meth:`candidate_thresholds`.

        Returns
        -------
        curve : DataFrame
            Columns ``threshold``, ``mean_ber``, ``sd_ber`` (ddof=1), ``mean_pairs``.
        """
        grid = self.candidate_thresholds() if thresholds is None else np.asarray(thresholds)
        rows = []
        for t in grid:
            ber, k = self.fold_ber(float(t))
            rows.append(
                {
                    "threshold": float(t),
                    "mean_ber": ber.mean(),
                    "sd_ber": ber.std(ddof=1) if ber.size > 1 else 0.0,
                    "mean_pairs": k.mean(),
                }
            )
        return pd.DataFrame(rows)
