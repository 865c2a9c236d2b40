"""The linear kernel of SLB's SVM on a changing set of columns, kept between fits.

The exact BER-vs-λ steps (:mod:`slb.model.steps`) and the warm folds of the dashboard's λ
slider (:mod:`slb.model.warm`) fit one SVM per kept set of columns, and consecutive kept sets
differ by a few pair terms.  :class:`IncrementalKernel` keeps the training kernel
``K = Z Z^T`` and the test-by-training kernel ``Kx = Z_test Z^T`` (``Z`` the map standardised
column by column on the training rows, restricted to the current columns) and moves them to new
columns by adding the entering columns' products and subtracting the leaving ones', instead of
rebuilding them; :meth:`IncrementalKernel.fit` is libsvm's C-SVC on ``K``
(:func:`slb._sklearn_compat.libsvm_fit`, the call ``SVC(kernel="precomputed")`` makes), so the
model is that of :func:`slb.model.svm.fit_linear_svm` on the same columns.
"""

from __future__ import annotations

import numpy as np

from .._sklearn_compat import libsvm_fit

__all__ = ["IncrementalKernel"]


class IncrementalKernel:
    """Training and test kernels of the standardised map on a changing set of columns.

    Parameters
    ----------
    T_train : ndarray of shape (n_train, n_columns)
        The raw feature map of the training rows (all candidate columns).
    T_test : ndarray of shape (n_test, n_columns) or None
        The raw map of the rows to score (None: no test kernel).
    center, scale : ndarray of shape (n_columns,)
        The training rows' column means and scales (``StandardScaler``'s; only the entries of
        columns that are ever used are read).
    removals : bool, default=True
        Move to a set that lacks some current columns by subtracting their products (False:
        rebuild the kernels whenever a column leaves, so that a sequence of growing sets is
        summed in one order only).
    max_updates : int or None, default=None
        Rebuild from scratch after this many updates (bounds the rounding of long add/subtract
        sequences); None: never.
    rows : ndarray of int or None, default=None
        The training rows the kernel is over (a working set, in this order; :meth:`add_rows`
        extends it); None: every row of ``T_train`` in order.  With rows, no test kernel.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.kernel import IncrementalKernel
    >>> rng = np.random.default_rng(0)
    >>> T = rng.normal(size=(30, 5))
    >>> y = (T[:, 0] > 0).astype(float)
    >>> ik = IncrementalKernel(T, T[:4], T.mean(axis=0), T.std(axis=0))
    >>> ik.set_columns(np.array([True, True, False, False, False]))
    >>> dual, support, b = ik.fit(y, 1.0, [1.0, 1.0])
    >>> ik.decision(dual, support, b).shape
    (4,)
    """

    def __init__(
        self, T_train, T_test, center, scale, *, removals=True, max_updates=None, rows=None
    ):
        self.T_train, self.T_test = T_train, T_test
        self.center, self.scale = center, scale
        self.removals, self.max_updates = removals, max_updates
        self.rows = None if rows is None else np.asarray(rows)
        n = T_train.shape[0] if rows is None else self.rows.size
        self.K = np.zeros((n, n))
        self.Kx = None if T_test is None else np.zeros((T_test.shape[0], n))
        self.cols = np.zeros(T_train.shape[1], dtype=bool)
        self.n_updates = 0

    def _std(self, T, cols, rows=None):
        """Standardised columns ``cols`` of ``T`` (of its ``rows``), in one copy."""
        idx = np.flatnonzero(cols)
        B = T[:, idx] if rows is None else T[np.ix_(rows, idx)]
        return (B - self.center[idx]) / self.scale[idx]

    def set_columns(self, cols):
        """Move the kernels to the column mask ``cols`` (boolean over ``T_train``'s columns)."""
        m = np.asarray(cols, dtype=bool)
        gone, new = self.cols & ~m, m & ~self.cols
        rebuild = gone.sum() + new.sum() >= m.sum() or (gone.any() and not self.removals)
        if rebuild or (self.max_updates is not None and self.n_updates >= self.max_updates):
            self.K[:] = 0.0
            if self.Kx is not None:
                self.Kx[:] = 0.0
            self.n_updates = 0
            gone, new = np.zeros_like(m), m
        for part, sign in ((gone, -1.0), (new, 1.0)):
            if part.any():
                A = self._std(self.T_train, part, self.rows)
                self.K += sign * (A @ A.T)
                if self.Kx is not None:
                    self.Kx += sign * (self._std(self.T_test, part) @ A.T)
        self.cols = m.copy()
        self.n_updates += 1

    def add_rows(self, rows):
        """Extend the training kernel (no test kernel) by the rows ``rows`` of ``T_train``,
        on the current columns: ``[[K, A B^T], [B A^T, B B^T]]``."""
        rows = np.asarray(rows)
        old = np.arange(self.T_train.shape[0]) if self.rows is None else self.rows
        A_old = self._std(self.T_train, self.cols, self.rows)
        A_new = self._std(self.T_train, self.cols, rows)
        cross = A_old @ A_new.T
        self.K = np.block([[self.K, cross], [cross.T, A_new @ A_new.T]])
        self.rows = np.concatenate([old, rows])
        self.Kx = None

    def fit(self, y, C, weights):
        """libsvm's C-SVC on the current kernel: (dual coefficients, support, intercept).

        Parameters
        ----------
        y : ndarray of shape (n_train,)
            0/1 labels.
        C : float
        weights : array-like of shape (2,)
            Cost weights of class 0 and class 1.
        """
        return libsvm_fit(self.K, np.asarray(y, dtype=np.float64), C, weights)

    def decision(self, dual, support, intercept):
        """Decision values of the test rows: ``Kx[:, support] @ dual + intercept``."""
        return self.Kx[:, support] @ dual + intercept
