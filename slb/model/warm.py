"""SLB's per-fold SVMs on a fitted :class:`~slb.model.path.ThresholdPath`, kept warm as λ moves.

A slider moves λ both ways by a few pairs at a time: each fold's linear kernel follows the kept
columns (the entering columns' products added, the leaving ones' subtracted) instead of being
rebuilt, and a fold whose kept set did not change keeps its decision values.  The fits are
those of :func:`slb.model.svm.fit_linear_svm` (libsvm's C-SVC on the kernel).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from .path import column_mask
from .steps import _libsvm_fit
from .svm import GRAM_MAX_SAMPLES, class_weights, column_scaling, fit_linear_svm, index_class_weight

__all__ = ["WarmFolds"]

#: The warm per-fold kernels of :class:`WarmFolds` are kept between λ changes only while all
#: of them fit in this many MB (Sonar's 25 folds of 166 training rows: 7 MB); beyond, every
#: λ builds each fold's kernel afresh (still without refitting the densities).
WARM_KERNEL_MB = 64
#: Incremental kernel updates of one fold before it is rebuilt from scratch (bounds rounding).
_MAX_UPDATES = 25


@dataclass
class _FoldKernel:
    """One fold's linear kernels on the columns ``cols``: training ``K`` and test-by-training
    ``Kx`` of the standardised feature map."""

    K: np.ndarray
    Kx: np.ndarray
    cols: np.ndarray
    n_updates: int = 0


class WarmFolds:
    """SLB's per-fold SVMs on a cached :class:`slb.ThresholdPath`, kept warm across λ.

    At a new λ each fold's kept columns change by a few pair terms: the fold's linear kernels
    ``K = Z Z^T`` and ``Kx = Z_test Z^T`` (``Z`` the training map standardised on the training
    rows, on the kept columns) gain the entering columns' products and lose the leaving ones'
    instead of being rebuilt, and a fold whose kept set did not change reuses its decision
    values.  The SVM is libsvm's C-SVC on ``K`` (:func:`slb.model.steps._libsvm_fit`, the call
    ``SVC(kernel="precomputed")`` makes, as the exact BER-vs-λ steps use it), i.e. the
    estimator of ``fit_linear_svm``; the test decisions are ``Kx[:, support] @ dual + b``.
    Folds above :data:`slb.model.svm.GRAM_MAX_SAMPLES` training rows are fitted cold by
    ``fit_linear_svm`` (its working-set solver; their kernels would not be kept anyway).  ``tests/test_compare_evaluation.py`` checks BERs and
    labels bit for bit against one cold ``fit_linear_svm`` per fold and λ.

    Hand-written rather than :func:`slb.model.svm.nested_mask_predictions`: that one grows
    kernels along an increasing list of masks and returns labels only; a slider moves both
    ways and the page needs the decision values (AUC, Platt).  One lock serialises the
    sessions that share the path.
    """

    def __init__(self, path, y):
        self.path = path
        self.y_index = (np.asarray(y) == path.classes_[1]).astype(int)
        self.cw = index_class_weight(path.class_weight, path.classes_)
        self.lock = threading.Lock()
        kernel_bytes = sum(8.0 * f.train.size * (f.train.size + f.test.size) for f in path.folds_)
        self.keep_warm = kernel_bytes <= WARM_KERNEL_MB * 2**20
        self._scaling: dict = {}
        self._kernels: dict = {}
        self._last: dict = {}

    def _weights(self, k: int) -> np.ndarray:
        """Class weights of fold ``k``'s SVM cost (computed once: scikit-learn's
        ``compute_class_weight`` validates its input at every call, ~3 ms)."""
        if ("w", k) not in self._scaling:
            yi = self.y_index[self.path.folds_[k].train]
            self._scaling[("w", k)] = class_weights(self.cw, yi)
        return self._scaling[("w", k)]

    def _scale(self, k: int):
        if k not in self._scaling:
            self._scaling[k] = column_scaling(self.path.folds_[k].T_train)
        return self._scaling[k]

    def _std(self, k: int, T, cols):
        """Standardised columns ``cols`` of ``T`` (fold ``k``'s training or test map)."""
        center, scale = self._scale(k)
        idx = np.flatnonzero(cols)
        return (T[:, idx] - center[idx]) / scale[idx]

    def _kernel(self, k: int, m) -> _FoldKernel:
        """Fold ``k``'s kernels on the columns ``m``, updated from the last ones if cheaper."""
        f = self.path.folds_[k]
        fk = self._kernels.get(k)
        if fk is None:
            n_tr = f.train.size
            empty = np.zeros(m.size, dtype=bool)
            fk = _FoldKernel(np.zeros((n_tr, n_tr)), np.zeros((f.test.size, n_tr)), empty)
        gone, new = fk.cols & ~m, m & ~fk.cols
        if fk.n_updates >= _MAX_UPDATES or gone.sum() + new.sum() >= m.sum():
            fk.K[:], fk.Kx[:], fk.n_updates = 0.0, 0.0, 0  # cheaper (or safer) to rebuild
            gone, new = np.zeros_like(m), m
        for cols, sign in ((gone, -1.0), (new, 1.0)):
            if cols.any():
                A = self._std(k, f.T_train, cols)
                fk.K += sign * (A @ A.T)
                fk.Kx += sign * (self._std(k, f.T_test, cols) @ A.T)
        fk.cols, fk.n_updates = m, fk.n_updates + 1
        if self.keep_warm:
            self._kernels[k] = fk
        return fk

    def _decision(self, k: int, m) -> np.ndarray:
        last = self._last.get(k)
        if last is not None and np.array_equal(last[0], m):
            return last[1]
        f = self.path.folds_[k]
        yi = self.y_index[f.train]
        if f.train.size > GRAM_MAX_SAMPLES:  # the working-set solver: cold, as path_predictions
            w, b = fit_linear_svm(f.T_train[:, m], yi, C=self.path.C, class_weight=self.cw)
            d = f.T_test[:, m] @ w + b
        else:
            weights = self._weights(k)
            fk = self._kernel(k, m)
            dual, support, b = _libsvm_fit(fk.K, yi.astype(np.float64), self.path.C, weights)
            d = fk.Kx[:, support] @ dual + b
        if self.keep_warm:
            self._last[k] = (m, d)
        return d

    def decisions(self, selector) -> tuple[list, np.ndarray]:
        """Each fold's test decision values with the terms ``selector`` keeps, and the pairs
        kept per fold."""
        d = self.path.n_features_in_
        out, n_pairs = [], []
        with self.lock:
            for k, f in enumerate(self.path.folds_):
                keep = selector(f.screen)
                out.append(self._decision(k, column_mask(keep, d)))
                n_pairs.append(int(keep.any(axis=0).sum()))
        return out, np.array(n_pairs)
