"""The squared-hinge linear SVM by an exact finite Newton method, warm-started along a path.

The problem is liblinear's ``LinearSVC(loss="squared_hinge", dual=False)`` on standardised
columns with the intercept as one more column of constant value ``a``
(:data:`slb.model.svm.PRIMAL_INTERCEPT_SCALING`, so the intercept ``b = a v`` carries the
negligible penalty ``v^2 / 2``)::

    min_v  1/2 |v|^2 + C sum_i c_i max(0, 1 - s_i x_i . v)^2,      s_i = +-1,

with per-row costs ``c_i`` (the class weights).  The objective is strictly convex and piecewise
quadratic: on a fixed set ``S`` of rows inside the margin it is a ridge regression, so the
modified finite Newton method of Keerthi & DeCoste (JMLR 2005, "L2-SVM-MFN") solves that
regression, searches exactly along the step (the objective is a piecewise quadratic in the
step length), and stops when the set no longer changes: the solution is exact, not a
tolerance away (tested against liblinear at a tight tolerance in ``tests/test_primal.py``).

Why by hand: SLB's nested selection fits the same problem for 10 column masks x 7 costs on
each of 5 inner folds (350 fits).  liblinear starts every fit from zero and rebuilds its
Hessian-vector products from the rows; on one inner fold of a 1,000 x 20 table (800 rows,
41-421 columns) it took 74 ms per fit, 26 s for a default fit (``benchmarks/speed.py``,
section "squared-hinge path").  Here one fold's whole grid is one path:

* the costs are visited in a snake order (increasing on one mask, decreasing on the next), so
  every fit starts at the previous solution and the set ``S`` changes by a few rows;
* the Gram matrix ``X_S^T diag(c) X_S`` of the rows in the set does not depend on ``C``, so it
  is kept and updated by the rows that enter or leave the set (rank-``k`` updates) instead of
  being rebuilt, and grown by bordering when the next mask adds columns (a column that leaves
  takes its row and column with it), so a lambda slider moving both ways stays warm too;
* each Newton step is one Cholesky solve of ``I + 2 C A``.

When there are more columns than rows the step is solved in its dual form (an ``|S| x |S|``
system), which is the cheaper one there.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve

#: Newton steps allowed per fit before giving up (the finite method needs a handful; a fit that
#: needs more is ill-conditioned and its last iterate is returned, as liblinear does).
MAX_NEWTON_STEPS = 200
#: Rows entering or leaving the set above this fraction of the set rebuild the Gram matrix
#: instead of updating it.
_REBUILD_FRACTION = 0.5
#: Column updates of the kernel before it is rebuilt from scratch (bounds the rounding of
#: repeated additions and subtractions).
_MAX_KERNEL_UPDATES = 25


def _line_search(vd, dd, o, delta, s, cost, C):
    """The exact minimiser ``t >= 0`` of ``phi(t) = |v + t d|^2 / 2 + C sum c_i
    max(0, 1 - s_i (o_i + t delta_i))^2`` (convex, piecewise quadratic in ``t``), given
    ``vd = v . d`` and ``dd = d . d``.

    ``phi'`` is piecewise linear and increasing: Newton on one piece jumps to that piece's
    root; when the root lies in the same piece (the same rows inside the margin) it is the
    minimiser.  A bracket guards against cycling between pieces."""
    sd = s * delta
    lo, hi = 0.0, np.inf
    t = 1.0
    for _ in range(100):
        r = 1.0 - s * (o + t * delta)
        act = r > 0
        g = vd + t * dd - 2.0 * C * float(np.sum(cost[act] * sd[act] * r[act]))
        h = dd + 2.0 * C * float(np.sum(cost[act] * sd[act] ** 2))
        if g < 0:
            lo = t
        else:
            hi = t
        if h <= 0:
            break
        t_new = t - g / h
        r_new = 1.0 - s * (o + t_new * delta)
        if np.array_equal(r_new > 0, act):
            return max(t_new, 0.0)
        if not (lo < t_new < hi):
            t_new = 0.5 * (lo + hi) if np.isfinite(hi) else 2.0 * max(t, lo)
        t = t_new
    return max(t, 0.0)


class SquaredHingePath:
    """Squared-hinge SVMs on one training set for nested column sets and a grid of costs.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_columns)
        Features (the intercept column is added here), standardised by ``center`` and
        ``scale`` block by block as they are read (never copied whole).
    y : ndarray of shape (n_samples,)
        Class indices 0 / 1.
    weights : sequence of two floats
        Cost weight of class 0 and class 1.
    intercept_scaling : float, default=10.0
        Value of the intercept column.
    center, scale : ndarray of shape (n_columns,) or None
        The columns are ``(Z - center) / scale``; None: 0 and 1 (``Z`` already standardised).

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.primal import SquaredHingePath
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 50)
    >>> Z = rng.normal(size=(100, 3))
    >>> Z[:, 0] += 1.5 * y
    >>> path = SquaredHingePath(Z, y, (1.0, 1.0))
    >>> w1, b1 = path.fit(np.array([0]), C=1.0)  # the first column only
    >>> w, b = path.fit(np.array([0, 1, 2]), C=1.0)  # then all three, warm-started
    >>> from sklearn.svm import LinearSVC  # the same problem, solved by liblinear
    >>> ref = LinearSVC(C=1.0, dual=False, intercept_scaling=10.0, tol=1e-10).fit(Z, y)
    >>> bool(np.allclose(Z @ w + b, ref.decision_function(Z), atol=1e-6))
    True
    """

    def __init__(self, Z, y, weights, intercept_scaling=10.0, *, center=None, scale=None):
        self.T = np.asarray(Z, dtype=float)
        n, P = self.T.shape
        # Standardised on the fly, block by block (a fold's map is never copied whole).
        self.center = np.zeros(P) if center is None else np.asarray(center, dtype=float)
        self.scale = np.ones(P) if scale is None else np.asarray(scale, dtype=float)
        self.s = np.where(np.asarray(y) == 1, 1.0, -1.0)
        self.cost = np.where(np.asarray(y) == 1, float(weights[1]), float(weights[0]))
        self.a = float(intercept_scaling)
        self.cols = np.zeros(0, dtype=int)  # the current columns of Z, in their internal order
        self.slot = np.full(P, -1)  # position of each column of Z in self.cols (-1: absent)
        self.kernel = False  # the mode: primal (p <= n) or kernel (p > n)
        self.v = np.zeros(1)  # primal: [intercept column, the columns in self.cols]
        self.beta = np.zeros(n)  # kernel mode: v = X^T beta
        self.K = None  # kernel mode: X X^T on [intercept, cols]
        self.k_updates = 0  # column updates of K since it was built (bounds rounding)
        self.o = np.zeros(n)  # X v
        self.A = None  # primal: X_S^T diag(c) X_S on [intercept, cols], or None (stale)
        self.S = None  # the rows A is built on
        self.n_steps = 0
        self.n_fits = 0
        self._design = None  # primal mode: the design on [intercept, cols], all rows (cached)

    def _Z(self, rows, cols):
        """Standardised block ``Z[rows][:, cols]`` (a new array; ``rows`` None: all)."""
        block = self.T[:, cols] if rows is None else self.T[np.ix_(np.asarray(rows), cols)]
        block -= self.center[cols]
        block /= self.scale[cols]
        return block

    def _X(self, rows=None, cols=None):
        """The design on ``[intercept, cols]`` (a new array), for ``rows`` (all when None)."""
        cols = self.cols if cols is None else cols
        Z = self._Z(rows, cols)
        return np.hstack([np.full((Z.shape[0], 1), self.a), Z])

    def _set_columns(self, cols):
        """Make ``cols`` the current columns and choose the mode, keeping the solution as the
        warm start: ``K`` (kernel mode) gains the entering columns' products and loses the
        leaving ones'; ``A`` (primal) keeps the shared columns' block and is bordered by the
        entering ones."""
        n = self.T.shape[0]
        kernel = cols.size + 1 > n
        pos = self.slot[cols]
        new = cols[pos < 0]
        shared = cols[pos >= 0]
        gone = self.cols[~np.isin(self.cols, cols, assume_unique=True)]
        if not new.size and not gone.size and self.kernel == kernel:
            return  # the same columns (perhaps listed in another order)
        order = cols
        if (
            kernel
            and self.kernel
            and new.size + gone.size <= max(cols.size // 2, 1)
            and (self.k_updates < _MAX_KERNEL_UPDATES)
        ):
            for c, sign in ((new, 1.0), (gone, -1.0)):
                if c.size:
                    Zc = self._Z(None, c)
                    self.K += sign * (Zc @ Zc.T)
            self.k_updates += 1
            self.o = self.K @ self.beta
        elif kernel:
            if not self.kernel:  # from the primal: a cold start (any start is exact)
                self.beta = np.zeros(n)
            self.kernel, self.A, self.S = True, None, None
            X = self._X(cols=cols)
            self.K, self.k_updates = X @ X.T, 0
            self.o = self.K @ self.beta
        elif self.kernel:  # kernel -> primal: v = X^T beta on the new columns
            self.kernel, self.K = False, None
            X = self._X(cols=cols)
            self.v = X.T @ self.beta
            self.o = X @ self.v
        else:  # primal -> primal: the shared columns keep their weights and their block of A
            keep = np.r_[0, 1 + self.slot[shared]]
            order = np.concatenate([shared, new])
            self.v = np.concatenate([self.v[keep], np.zeros(new.size)])
            if gone.size:
                self.o = self._X(cols=order) @ self.v
            if self.A is not None:
                same = keep.size == self.A.shape[0] and np.array_equal(keep, np.arange(keep.size))
                A = self.A if same else self.A[np.ix_(keep, keep)]
                if new.size:
                    S = self.S
                    ZS_new = self._Z(S, new)
                    cZ = ZS_new * self.cost[S, None]
                    B = self._X(S, shared).T @ cZ
                    m = A.shape[0]
                    grown = np.empty((m + new.size,) * 2)
                    grown[:m, :m] = A
                    grown[:m, m:] = B
                    grown[m:, :m] = B.T
                    grown[m:, m:] = ZS_new.T @ cZ
                    A = grown
                self.A = A
        self.slot[self.cols] = -1
        self.cols = order
        self.slot[order] = np.arange(order.size)
        self._design = None

    def _gram(self, S):
        """``A`` for the row set ``S`` (bool), updated from the previous set when cheaper."""
        if self.A is not None:
            enter = S & ~self.S
            leave = self.S & ~S
            k = int(enter.sum() + leave.sum())
            if k == 0:
                return self.A
            if k <= _REBUILD_FRACTION * max(int(S.sum()), 1):
                for rows, sign in ((enter, 1.0), (leave, -1.0)):
                    if rows.any():
                        Xr = self._full()[rows]
                        self.A += sign * (Xr.T @ (Xr * self.cost[rows, None]))
                self.S = S.copy()
                return self.A
        X = self._full()[S]
        self.A = X.T @ (X * self.cost[S, None])
        self.S = S.copy()
        return self.A

    def _full(self):
        """The design on ``[intercept, cols]`` for every row, built once per column set."""
        if self._design is None:
            self._design = self._X()
        return self._design

    def _primal_step(self, S, C, X_all):
        """Newton target of the primal (the ridge solution on ``S``), the step and its
        products."""
        p = 1 + self.cols.size
        if S.any():
            H = 2.0 * C * self._gram(S)
            H[np.diag_indices(p)] += 1.0
            rhs = 2.0 * C * (X_all.T @ np.where(S, self.cost * self.s, 0.0))
            try:
                target = cho_solve(cho_factor(H, check_finite=False), rhs, check_finite=False)
            except LinAlgError:  # pragma: no cover - H >= I is positive definite
                target = np.linalg.solve(H, rhs)
        else:
            target = np.zeros(p)
        d = target - self.v
        return d, X_all @ d, float(self.v @ d), float(d @ d)

    def _kernel_step(self, S, C):
        """The same in the kernel form: ``v = X^T beta``, ``beta`` zero outside ``S``."""
        target = np.zeros_like(self.beta)
        if S.any():
            M = self.K[np.ix_(S, S)]
            M[np.diag_indices(M.shape[0])] += 1.0 / (2.0 * C * self.cost[S])
            target[S] = cho_solve(cho_factor(M, check_finite=False), self.s[S], check_finite=False)
        d = target - self.beta
        delta = self.K @ d
        return d, delta, float(self.beta @ delta), float(d @ delta)

    def fit(self, cols, C):
        """Solve at cost ``C`` on the columns ``cols`` (indices of ``Z``), starting from the
        previous solution.  Returns ``(w, b)``: weights on ``cols`` (in the order given) and
        the intercept, in the standardised units of ``Z``."""
        cols = np.asarray(cols, dtype=int)
        self._set_columns(cols)
        X_all = None if self.kernel else self._full()
        for _ in range(MAX_NEWTON_STEPS):
            S = self.s * self.o < 1.0
            if self.kernel:
                d, delta, vd, dd = self._kernel_step(S, C)
            else:
                d, delta, vd, dd = self._primal_step(S, C, X_all)
            t = _line_search(vd, dd, self.o, delta, self.s, self.cost, C)
            if self.kernel:
                self.beta = self.beta + t * d
            else:
                self.v = self.v + t * d
            self.o = self.o + t * delta
            self.n_steps += 1
            # The rows inside the margin did not change: v minimises the ridge problem of its
            # own set, which is the objective near v, so it is the exact solution.
            if np.array_equal(self.s * self.o < 1.0, S):
                break
        self.n_fits += 1
        if self.kernel:
            return self._Z(None, cols).T @ self.beta, self.a * self.a * float(self.beta.sum())
        return self.v[1:][self.slot[cols]], self.a * float(self.v[0])


def fit_squared_hinge(Z, y, C, weights, intercept_scaling=10.0):
    """One squared-hinge SVM on standardised ``Z`` (see :class:`SquaredHingePath`).

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.primal import fit_squared_hinge
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 50)
    >>> Z = rng.normal(size=(100, 2))
    >>> Z[:, 0] += 1.5 * y
    >>> w, b = fit_squared_hinge(Z, y, 1.0, (1.0, 1.0))
    >>> bool(w[0] > 0.3 and abs(w[1]) < 0.2)
    True
    """
    path = SquaredHingePath(Z, y, weights, intercept_scaling)
    return path.fit(np.arange(np.asarray(Z).shape[1]), C)
