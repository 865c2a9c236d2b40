"""SLB's per-fold SVMs on a fitted :class:`~slb.model.path.ThresholdPath`, kept warm as λ moves.

A slider moves λ both ways by a few pairs at a time: each fold's linear kernel follows the kept
columns (the entering columns' products added, the leaving ones' subtracted) instead of being
rebuilt, and a fold whose kept set did not change keeps its decision values.  The fits are
those of :func:`slb.model.svm.fit_linear_svm` (libsvm's C-SVC on the kernel for the hinge; a
warm exact Newton path per fold for the squared hinge).
"""

from __future__ import annotations

import threading

import numpy as np

from .kernel import IncrementalKernel
from .path import NO_ANCHOR, column_mask, path_loss
from .primal import SquaredHingePath
from .svm import (
    GRAM_MAX_SAMPLES,
    PRIMAL_INTERCEPT_SCALING,
    class_weights,
    column_scaling,
    fit_linear_model,
    index_class_weight,
    linear_decision,
)

__all__ = ["WarmFolds"]

#: The warm per-fold kernels of :class:`WarmFolds` are kept between λ changes only while all
#: of them fit in this many MB (Sonar's 25 folds of 166 training rows: 7 MB); beyond, every
#: λ builds each fold's kernel afresh (still without refitting the densities).
WARM_KERNEL_MB = 64
#: Incremental kernel updates of one fold before it is rebuilt from scratch (bounds rounding).
_MAX_UPDATES = 25


class WarmFolds:
    """SLB's per-fold SVMs on a cached :class:`slb.ThresholdPath`, kept warm across λ.

    At a new λ each fold's kept columns change by a few pair terms: the fold's linear kernels
    ``K = Z Z^T`` and ``Kx = Z_test Z^T`` (``Z`` the training map standardised on the training
    rows, on the kept columns) gain the entering columns' products and lose the leaving ones'
    instead of being rebuilt, and a fold whose kept set did not change reuses its decision
    values.  The SVM is libsvm's C-SVC on ``K`` (:class:`slb.model.kernel.IncrementalKernel`, the call
    ``SVC(kernel="precomputed")`` makes, as the exact BER-vs-λ steps use it), i.e. the
    estimator of ``fit_linear_svm``; the test decisions are ``Kx[:, support] @ dual + b``.
    Folds above :data:`slb.model.svm.GRAM_MAX_SAMPLES` training rows are fitted cold by
    ``fit_linear_svm`` (its working-set solver; their kernels would not be kept anyway).  With
    the squared hinge (the default ``loss``) each fold keeps its exact Newton path instead
    (:class:`slb.model.primal.SquaredHingePath`: columns bordered in and dropped as λ moves,
    warm-started at the last solution).  ``tests/test_compare_evaluation.py`` checks BERs and
    labels bit for bit against one cold ``fit_linear_svm`` per fold and λ.

    Hand-written rather than :func:`slb.model.svm.nested_mask_predictions`: that one grows
    kernels along an increasing list of masks and returns labels only; a slider moves both
    ways and the page needs the decision values (AUC, Platt).  One lock serialises the
    sessions that share the path.

    Examples
    --------
    >>> import numpy as np
    >>> from slb import ThresholdPath
    >>> from slb.evaluation import path_predictions, stratified_folds
    >>> from slb.model.path import threshold_selector
    >>> from slb.model.warm import WarmFolds
    >>> rng = np.random.RandomState(0)
    >>> X, y = rng.normal(size=(60, 4)), np.array([0, 1] * 30)
    >>> X[y == 1, 1] = X[y == 1, 0] + 0.3 * rng.normal(size=30)  # x0, x1 depend in class 1
    >>> path = ThresholdPath(dependence="pearson", random_state=0)
    >>> path = path.fit(X, y, stratified_folds(y, 3))
    >>> warm = WarmFolds(path, y)
    >>> decisions, n_pairs = warm.decisions(threshold_selector(0.5, "either"))
    >>> [d.shape for d in decisions], n_pairs.tolist()  # one fold's test rows each
    ([(20,), (20,), (20,)], [1, 1, 1])
    >>> decisions, n_pairs = warm.decisions(threshold_selector(0.0, "either"))  # λ moves
    >>> cold, _ = path_predictions(path, y, threshold_selector(0.0, "either"), calibration=None)
    >>> n_pairs.tolist(), bool(np.allclose(np.concatenate(decisions), cold["score"]))
    ([6, 6, 6], True)
    """

    def __init__(self, path, y):
        self.path = path
        # class indices (two classes: 1 for classes_[1], the binary SVM's positive class)
        self.y_index = np.searchsorted(path.classes_, np.asarray(y))
        self.n_classes = len(path.classes_)
        self.cw = index_class_weight(path.class_weight, path.classes_)
        self.loss = path_loss(path)
        self.lock = threading.Lock()
        kernel_bytes = sum(8.0 * f.train.size * (f.train.size + f.test.size) for f in path.folds_)
        self.keep_warm = kernel_bytes <= WARM_KERNEL_MB * 2**20
        self._scaling: dict = {}
        self._kernels: dict = {}
        self._paths: dict = {}  # the squared hinge's per-fold Newton paths
        self._last: dict = {}

    def _problems(self, k: int) -> list:
        """Fold ``k``'s two-class SVM problem: (0/1 labels, class weights of the cost),
        computed once (scikit-learn's ``compute_class_weight`` validates its input at every
        call, ~3 ms)."""
        if ("w", k) not in self._scaling:
            yi = self.y_index[self.path.folds_[k].train]
            self._scaling[("w", k)] = [(yi, class_weights(self.cw, yi))]
        return self._scaling[("w", k)]

    def _scale(self, k: int):
        if k not in self._scaling:
            self._scaling[k] = column_scaling(self.path.folds_[k].T_train)
        return self._scaling[k]

    def _kernel(self, k: int, m) -> IncrementalKernel:
        """Fold ``k``'s kernels on the columns ``m``, moved from the last ones when cheaper."""
        fk = self._kernels.get(k)
        if fk is None:
            f = self.path.folds_[k]
            center, scale = self._scale(k)
            fk = IncrementalKernel(f.T_train, f.T_test, center, scale, max_updates=_MAX_UPDATES)
        fk.set_columns(m)
        if self.keep_warm:
            self._kernels[k] = fk
        return fk

    def _decision(self, k: int, m) -> np.ndarray:
        last = self._last.get(k)
        if last is not None and np.array_equal(last[0], m):
            return last[1]
        f = self.path.folds_[k]
        yi = self.y_index[f.train]
        if self.n_classes == 2 and self.loss == "squared_hinge":
            d = self._squared_hinge_decision(k, m)
        elif f.train.size > GRAM_MAX_SAMPLES or self.n_classes > 2:
            # the working-set solver or the K-class multinomial model: cold, as
            # path_predictions fits them
            coef, b = fit_linear_model(
                f.T_train[:, m],
                yi,
                C=self.path.C,
                class_weight=self.cw,
                n_classes=self.n_classes,
                loss=self.loss,
                anchor=NO_ANCHOR,
            )
            d = linear_decision(f.T_test[:, m], coef, b)
        else:
            fk = self._kernel(k, m)
            ((yk, w),) = self._problems(k)
            d = fk.decision(*fk.fit(yk, self.path.C, w))
        if self.keep_warm:
            self._last[k] = (m, d)
        return d

    def _squared_hinge_decision(self, k: int, m) -> np.ndarray:
        """Fold ``k``'s squared-hinge SVM on the columns ``m``: its Newton path
        (:class:`slb.model.primal.SquaredHingePath`) moved from the last kept set (entering
        columns bordered in, leaving ones dropped) and warm-started at the last solution; the
        solution is exact, so it equals the cold ``fit_linear_model``."""
        f = self.path.folds_[k]
        cols = np.flatnonzero(m)
        if not cols.size:
            return np.zeros(f.test.size)  # no column: a zero decision (the first class)
        path = self._paths.get(k)
        center, scale = self._scale(k)
        if path is None:
            ((yk, w),) = self._problems(k)
            path = SquaredHingePath(
                f.T_train, yk, w, PRIMAL_INTERCEPT_SCALING, center=center, scale=scale
            )
        w, b = path.fit(cols, self.path.C)
        if self.keep_warm:
            self._paths[k] = path
        Zte = f.T_test[:, cols]
        Zte -= center[cols]
        Zte /= scale[cols]
        return Zte @ w + b

    def decisions(self, selector) -> tuple[list, np.ndarray]:
        """Each fold's test decision values with the terms ``selector`` keeps (shape (n_test,)
        for two classes, (n_test, n_classes) for more), and the pairs kept per fold."""
        d = self.path.n_features_in_
        out, n_pairs = [], []
        with self.lock:
            for k, f in enumerate(self.path.folds_):
                keep = selector(f.screen)
                out.append(self._decision(k, column_mask(keep, d)))
                n_pairs.append(int(keep.any(axis=0).sum()))
        return out, np.array(n_pairs)
