"""Discrete Rényi classifier (Razaviyayn, Farnia and Tse, "Discrete Rényi Classifiers", NIPS 2015).

For students
------------
The Rényi classifier cuts every feature into a few ranges ("bins"), turns each sample into
a long row of 0/1 switches saying which bin each feature fell into, and fits an ordinary
(ridge) least-squares line from those switches to the label coded as -1/2 and +1/2.  The
fitted value is an estimate of P(Y = 1 | x) - 1/2, so its sign gives the prediction.  The
method only needs the one- and two-variable tables of the data (low-order marginals), and
the paper proves that its randomised version errs at most twice as often as the best rule
that could be built from those tables.  It is fast (one linear solve), copes with discrete
and many-valued features, and has a built-in group-lasso feature selection.

Method (the paper's sections 3, 5 and 6)
----------------------------------------
Each feature ``X_i`` is discretised to ``m_i`` levels (``n_bins`` equal-frequency bins fitted
on the training data; a feature with at most ``n_bins`` distinct values keeps its values as
levels).  ``W`` is the one-hot indicator matrix: ``W[s, (i, k)] = 1`` if feature ``i`` of sample
``s`` falls in level ``k``.  The label is coded ``c = +1/2`` for the positive class
(``classes_[1]``) and ``c = -1/2`` otherwise (the label centred at 1/2, the paper's random
variable ``C``).  Section 5 ("Inexact knowledge of marginal distribution") estimates the
minimiser of ``z'Qz - d'z`` by sample average approximation,

    z_hat = argmin_z  (1/n) * sum_s (w_s' z - c_s)^2 + alpha * ||z||_2^2,

a ridge regression with the closed form ``z_hat = (W'W + n*alpha*I)^(-1) W'c`` (computed in its
dual form ``W'(WW' + n*alpha*I)^(-1) c`` when there are more columns than samples; for
``alpha = 0`` the minimum-norm least-squares solution).  No separate intercept is fitted: every
one-hot block sums to one, so a constant already lies in the span of ``W``.

Under the separability condition ``E[Y | X = x] = sum_i zeta_i(x_i)`` (eq. 10), eq. 11 gives
``P~(Y = 1 | x) = 1/2 + w(x)'z`` and ``P~(Y = 0 | x) = 1/2 - w(x)'z``.  The two decision rules:

* ``decision="map"`` -- delta~_map (Theorem 1): predict ``classes_[1]`` iff ``w(x)'z > 0``.
* ``decision="randomized"`` -- delta~ (Theorem 2): predict ``classes_[1]`` with probability
  ``p1^2 / (p0^2 + p1^2)``, ``p1 = clip(1/2 + w(x)'z, 0, 1)``, ``p0 = 1 - p1``.  Its worst-case
  error is at most twice the optimal one.  The coin of row ``x`` is a keyed hash of the row and
  of a seed drawn from ``random_state`` in ``fit``, so the same row always gets the same
  decision, whatever batch it is predicted in.

``pairwise=True`` replaces the features by all pairs ``X~_ij = (X_i, X_j)``, ``i < j``, with
``m_i * m_j`` levels each ("Beyond pairwise marginals", section 5); the classifier then uses the
marginals ``P(X_i, X_j, X_k, X_l)`` and ``P(X_i, X_j, Y)``.

``group_lasso=lam`` runs the paper's Algorithm 1 (robust Rényi feature selection): it minimises
``(1/n) ||Wz - c||^2 + alpha ||z||^2 + lam * sum_g ||z_g||_inf``, the sample version of
``z'Qz - d'z + lam * h(|z|)`` (``h`` the sum over feature blocks of the largest entry) with the
same ridge term as the classifier (``alpha = 0`` gives Algorithm 1 literally; ``alpha > 0``
makes the problem strongly convex, so its solution and the selected set are unique and the
solver converges fast even with the strongly collinear pair blocks).  It keeps the blocks ``g``
with ``z_g != 0`` and refits the ridge solution on them ("we first select a subset ... and then
find the maximum correlation classifier for the selected features", section 7).  The solver is
accelerated proximal gradient (FISTA with adaptive restart; the paper's Remark 2 suggests ADMM)
in a diagonal metric that majorises the Hessian because every sample has exactly one
indicator per block; each block's prox in that metric is exact.  ``group_norm="l2"`` uses the
standard Euclidean group lasso instead.  A block ``g`` stays out iff
``||(2/n) W_g'(c - Wz)||_1 <= lam`` (``||.||_2`` for the l2 norm); at ``z = 0`` this is
``sum_k |P^(X_g = k, Y = 1) - P^(X_g = k, Y = 0)|``, so ``lam`` lives on a [0, 1] scale and
``lam >= 1`` removes every feature.

Cost: with ``p`` blocks (``d``, or ``d(d-1)/2`` pairs) and ``q`` indicator columns, building ``W`` is
O(n p), its Gram matrix (``W'W`` or ``WW'``, whichever is smaller) O(n p min(n, p)) and the solve
O(min(n, q)^3); a group-lasso iteration is O(n p + q log q).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from .._sklearn_compat import Interval, StrOptions
from .._utils import (
    BinaryClassifierMixin,
    LinearTermsMixin,
    LogProbaMixin,
    binary_proba,
    check_binary_target,
    default_feature_names,
    validate_training_data,
)

__all__ = ["RenyiClassifier"]

_STUDENT_SUMMARY = (
    "The Rényi classifier cuts every feature into a few ranges (bins), turns each sample into "
    "a row of 0/1 switches saying which bin each feature fell into, and fits an ordinary "
    "least-squares line from those switches to the label coded as -1/2 and +1/2. The fitted "
    "value estimates P(Y = 1 | x) - 1/2, so its sign is the prediction. It only needs one- and "
    "two-variable tables of the data, and the paper proves that its randomised version errs at "
    "most twice as often as the best rule built from those tables. It is fast (a single linear "
    "solve), handles discrete and many-valued features, and can select features with a group "
    "lasso."
)


# --------------------------------------------------------------------------------------------
# Discretisation and indicator matrices
# --------------------------------------------------------------------------------------------


def quantile_bin_edges(x, n_bins):
    """Cut points of equal-frequency bins for one feature, placed between distinct values.

    Parameters
    ----------
    x : ndarray of shape (n_samples,)
        Training values of the feature.
    n_bins : int
        Largest number of levels.

    Returns
    -------
    edges : ndarray of shape (m - 1,)
        Increasing cut points; a value ``v`` gets level ``searchsorted(edges, v, "right")``.
        A feature with at most ``n_bins`` distinct values keeps one level per value (cut
        points half-way between consecutive values, so an unseen value goes to the nearest
        level).  Otherwise the ``k / n_bins`` quantiles are moved half-way between the two
        distinct values around them and duplicates are dropped, so ties never create empty
        bins (a heavily tied feature gets fewer levels).  Values outside the training range
        fall in the first or last bin.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.peers.renyi import quantile_bin_edges
    >>> quantile_bin_edges(np.arange(10.0), 3).tolist()  # three levels of 3-4 values
    [3.5, 6.5]
    >>> quantile_bin_edges(np.array([1.0, 1.0, 2.0, 3.0]), 5).tolist()  # one per value
    [1.5, 2.5]
    """
    v = np.unique(x)
    if v.size <= 1:
        return np.empty(0)
    if v.size <= n_bins:
        return (v[:-1] + v[1:]) / 2.0
    q = np.quantile(x, np.arange(1, n_bins) / n_bins)
    idx = np.clip(np.searchsorted(v, q, side="right"), 1, v.size - 1)
    idx = np.unique(idx)
    return (v[idx - 1] + v[idx]) / 2.0


def _bin_codes(X, edges):
    """Level of every entry of ``X`` (int array of the same shape)."""
    codes = np.empty(X.shape, dtype=np.int64)
    for j, e in enumerate(edges):
        codes[:, j] = np.searchsorted(e, X[:, j], side="right")
    return codes


def _block_codes(codes, n_levels, pairs):
    """Per-block level codes: the features themselves or the joint level of each pair."""
    if pairs is None:
        return codes, np.asarray(n_levels, dtype=np.int64)
    i, j = pairs[:, 0], pairs[:, 1]
    sizes = np.asarray(n_levels, dtype=np.int64)
    return codes[:, i] * sizes[j] + codes[:, j], sizes[i] * sizes[j]


def indicator_matrix(block_codes, block_sizes):
    """Sparse one-hot indicator matrix ``W`` (CSR, shape (n_samples, sum(block_sizes))).

    Column ``offset[g] + k`` is the indicator of block ``g`` taking level ``k``.

    Parameters
    ----------
    block_codes : ndarray of int, shape (n_samples, n_blocks)
        Level of every block (feature or pair) for every sample.
    block_sizes : ndarray of int, shape (n_blocks,)
        Number of levels of every block.

    Returns
    -------
    W : scipy.sparse.csr_matrix of shape (n_samples, sum(block_sizes))

    Examples
    --------
    >>> import numpy as np
    >>> from slb.peers.renyi import indicator_matrix
    >>> W = indicator_matrix(np.array([[0, 1], [1, 0], [0, 0]]), np.array([2, 2]))
    >>> W.toarray().astype(int).tolist()  # one 1 per block in every row
    [[1, 0, 0, 1], [0, 1, 1, 0], [1, 0, 1, 0]]
    """
    n, n_blocks = block_codes.shape
    if n_blocks == 0:
        return sp.csr_matrix((n, 0))
    offsets = np.concatenate([[0], np.cumsum(block_sizes)[:-1]]).astype(np.int64)
    cols = (block_codes + offsets[None, :]).ravel()
    indptr = np.arange(0, n * n_blocks + 1, n_blocks, dtype=np.int64)
    data = np.ones(n * n_blocks)
    return sp.csr_matrix((data, cols, indptr), shape=(n, int(np.sum(block_sizes))))


# --------------------------------------------------------------------------------------------
# Solvers
# --------------------------------------------------------------------------------------------


def ridge_indicator_solution(W, c, alpha):
    """Closed-form ``argmin_z (1/n) ||W z - c||^2 + alpha ||z||^2``.

    Parameters
    ----------
    W : sparse matrix of shape (n, q)
    c : ndarray of shape (n,)
    alpha : float
        Ridge parameter (>= 0).  ``alpha = 0`` returns the minimum-norm least-squares
        solution (``W`` is rank deficient: every one-hot block sums to one).

    Returns
    -------
    z : ndarray of shape (q,)

    Examples
    --------
    The label follows the first feature's level; the second is noise:

    >>> import numpy as np
    >>> from slb.peers.renyi import indicator_matrix, ridge_indicator_solution
    >>> W = indicator_matrix(np.array([[0, 0], [1, 0], [0, 1], [1, 1]]), np.array([2, 2]))
    >>> c = np.array([1.0, -1.0, 1.0, -1.0])
    >>> (ridge_indicator_solution(W, c, 0.0).round(3) + 0.0).tolist()  # fits c exactly
    [1.0, -1.0, 0.0, 0.0]
    >>> (ridge_indicator_solution(W, c, 0.1).round(3) + 0.0).tolist()  # shrunk
    [0.833, -0.833, 0.0, 0.0]
    """
    n, q = W.shape
    if q == 0:
        return np.zeros(0)
    primal = q <= n
    G = (W.T @ W) if primal else (W @ W.T)
    G = G.toarray() if sp.issparse(G) else np.asarray(G)
    if alpha > 0:
        G = G + n * alpha * np.eye(G.shape[0])
        rhs = W.T @ c if primal else c
        sol = scipy.linalg.solve(G, rhs, assume_a="pos", check_finite=False)
    else:
        # Minimum-norm solution through the pseudo-inverse of the (symmetric) Gram matrix:
        # pinv(W) = pinv(W'W) W' = W' pinv(WW').
        s, V = np.linalg.eigh(G)
        keep = s > s.max() * max(G.shape) * np.finfo(float).eps if s.size else s > 0
        rhs = W.T @ c if primal else c
        sol = V[:, keep] @ ((V[:, keep].T @ rhs) / s[keep])
    return np.asarray(sol) if primal else np.asarray(W.T @ sol)


def _weighted_prox_linf(U, H, lam):
    """Row-wise ``argmin_z sum_k H_k (z_k - U_k)^2 + lam * max_k |z_k|`` (entries with
    ``H_k = 0`` are padding and stay 0).

    The solution clips ``U`` at the level ``t`` where ``sum_k H_k (|U_k| - t)_+ = lam / 2``, or
    is 0 if ``sum_k H_k |U_k| <= lam / 2``.
    """
    A = np.where(H > 0, np.abs(U), 0.0)
    out = np.zeros_like(U)
    active = np.sum(H * A, axis=1) > 0.5 * lam
    if not np.any(active):
        return out
    Aa, Ha = A[active], H[active]
    order = np.argsort(-Aa, axis=1)
    As = np.take_along_axis(Aa, order, axis=1)
    Hs = np.take_along_axis(Ha, order, axis=1)
    cw = np.cumsum(Hs, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (np.cumsum(Hs * As, axis=1) - 0.5 * lam) / cw
    a_next = np.concatenate([As[:, 1:], np.zeros((As.shape[0], 1))], axis=1)
    j = np.argmax((cw > 0) & (t >= a_next), axis=1)
    level = np.maximum(t[np.arange(j.size), j], 0.0)
    out[active] = np.sign(U[active]) * np.minimum(Aa, level[:, None])
    return out


def _weighted_prox_l2(U, H, lam):
    """Row-wise ``argmin_z sum_k H_k (z_k - U_k)^2 + lam * ||z||_2`` (``H_k = 0``: padding).

    ``z_k = V_k rho / (2 H_k rho + lam)`` with ``V = 2 H U`` and ``rho = ||z||`` the root of
    ``sum_k (V_k / (2 H_k rho + lam))^2 = 1`` (decreasing in ``rho``), found by bisection.
    """
    V = 2.0 * H * U
    out = np.zeros_like(U)
    active = np.sqrt(np.sum(V * V, axis=1)) > lam
    if not np.any(active):
        return out
    Va, Ha = V[active], H[active]
    lo = np.zeros(Va.shape[0])
    hi = np.sqrt(np.sum(np.where(Ha > 0, U[active], 0.0) ** 2, axis=1))
    for _ in range(60):
        rho = 0.5 * (lo + hi)
        g = np.sum((Va / (2.0 * Ha * rho[:, None] + lam)) ** 2, axis=1)
        lo = np.where(g > 1.0, rho, lo)
        hi = np.where(g > 1.0, hi, rho)
    rho = 0.5 * (lo + hi)
    out[active] = Va * rho[:, None] / (2.0 * Ha * rho[:, None] + lam)
    return out


def group_lasso_indicator(
    block_codes, block_sizes, c, lam, *, alpha=0.0, norm="linf", max_iter=5000, tol=1e-6
):
    """The paper's Algorithm 1 on the sample: accelerated proximal gradient.

    Minimises ``F(z) = (1/n) ||W z - c||^2 + alpha ||z||^2 + lam * sum_g ||z_g||`` over the
    one-hot indicator matrix ``W`` of the blocks, with ``||.||`` the l-infinity norm (the
    paper's ``h(|z|)``) or the l2 norm, by FISTA with adaptive restart in the diagonal metric
    ``D = diag(2 G n_k / n + 2 alpha)`` (``G`` blocks, ``n_k`` samples in level ``k``).  Every
    sample has exactly one indicator per block, so ``||W z||^2 <= G sum_k n_k z_k^2``: ``D``
    majorises the Hessian of the smooth part and the steps need no line search.  The prox of
    each block in that metric is exact (weighted l-infinity or l2 prox).

    Parameters
    ----------
    block_codes : ndarray of shape (n, n_blocks)
        Level of every block for every sample.
    block_sizes : ndarray of shape (n_blocks,)
        Number of levels of every block.
    c : ndarray of shape (n,)
        Coded labels.
    lam : float
        Penalty (>= 0).
    alpha : float
        Ridge term (>= 0); ``alpha > 0`` makes the problem strongly convex.
    norm : {"linf", "l2"}
    max_iter : int
        Largest number of iterations.
    tol : float
        Stop when the largest coefficient change is below ``tol`` (relative).

    Returns
    -------
    z : ndarray of shape (sum(block_sizes),)
        Block by block; exact zeros on the removed blocks.
    n_iter : int

    Examples
    --------
    >>> import numpy as np
    >>> from slb.peers.renyi import group_lasso_indicator
    >>> codes = np.array([[0, 0], [1, 0], [0, 1], [1, 1]])  # the label follows block 0
    >>> z, n_iter = group_lasso_indicator(codes, np.array([2, 2]), np.array([1.0, -1, 1, -1]), 0.1)
    >>> (z.round(3) + 0.0).tolist()  # block 1 is removed
    [0.95, -0.95, 0.0, 0.0]
    """
    n, n_blocks = block_codes.shape
    sizes = np.asarray(block_sizes, dtype=np.int64)
    width = int(sizes.max())
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    rows = np.repeat(np.arange(n_blocks), sizes)
    cols = np.arange(int(sizes.sum())) - np.repeat(starts, sizes)
    prox = _weighted_prox_linf if norm == "linf" else _weighted_prox_l2
    W = indicator_matrix(block_codes, sizes)
    counts = np.asarray(W.sum(axis=0)).ravel()
    d = 2.0 * n_blocks * counts / n + 2.0 * alpha  # the metric D (0 on empty levels)
    H = np.zeros((n_blocks, width))
    H[rows, cols] = 0.5 * d
    inv_d = np.divide(1.0, d, out=np.zeros_like(d), where=d > 0)
    Wt_c = np.asarray(W.T @ c)

    z = np.zeros(d.size)
    yk = z.copy()
    tk = 1.0
    U = np.zeros((n_blocks, width))
    n_iter = 0
    for _ in range(max_iter):
        n_iter += 1
        grad = (2.0 / n) * (np.asarray(W.T @ (W @ yk)) - Wt_c) + 2.0 * alpha * yk
        U[rows, cols] = yk - grad * inv_d
        z_new = prox(U, H, lam)[rows, cols]
        step = z_new - z
        if np.dot(d * (yk - z_new), step) > 0:  # momentum points uphill: restart
            tk = 1.0
            yk = z_new.copy()
        else:
            t_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * tk * tk))
            yk = z_new + ((tk - 1.0) / t_new) * step
            tk = t_new
        z = z_new
        if np.max(np.abs(step), initial=0.0) <= tol * max(1.0, np.max(np.abs(z), initial=0.0)):
            break
    return z, n_iter


def _level_labels(edges):
    """Readable ranges of a feature's levels: ``<= a``, ``(a, b]``, ..., ``> z``."""
    if edges.size == 0:
        return ["(any)"]
    e = [f"{v:.4g}" for v in edges]
    inner = [f"({a}, {b}]" for a, b in zip(e[:-1], e[1:], strict=True)]
    return [f"<= {e[0]}", *inner, f"> {e[-1]}"]


def indicator_names(blocks, bin_edges, names):
    """One name per indicator column, block by block: ``glucose (99.5, 117]`` or, for a pair
    block, ``glucose <= 99.5 & bmi > 30.1`` (levels in the order of :func:`_block_codes`).

    Parameters
    ----------
    blocks : sequence of tuple of int
        The feature (or the two features) of every block.
    bin_edges : list of ndarray
        Cut points of every feature.
    names : list of str
        Feature names.

    Returns
    -------
    list of str

    Examples
    --------
    >>> import numpy as np
    >>> from slb.peers.renyi import indicator_names
    >>> indicator_names([(0,), (0, 1)], [np.array([99.5]), np.array([30.1])], ["glucose", "bmi"])
    ... # doctest: +NORMALIZE_WHITESPACE
    ['glucose <= 99.5', 'glucose > 99.5',
     'glucose <= 99.5 & bmi <= 30.1', 'glucose <= 99.5 & bmi > 30.1',
     'glucose > 99.5 & bmi <= 30.1', 'glucose > 99.5 & bmi > 30.1']
    """
    labels = [
        [f"{n} {lab}" for lab in _level_labels(e)] for n, e in zip(names, bin_edges, strict=True)
    ]
    out = []
    for block in blocks:
        if len(block) == 1:
            out += labels[block[0]]
        else:
            out += [f"{a} & {b}" for a in labels[block[0]] for b in labels[block[1]]]
    return out


def _row_uniforms(X, seed):
    """One uniform number per row, a keyed hash of the row's bytes (deterministic per row)."""
    X = np.ascontiguousarray(X, dtype=np.float64) + 0.0  # turns -0.0 into 0.0
    key = int(seed).to_bytes(8, "little")
    out = np.empty(X.shape[0])
    for r in range(X.shape[0]):
        h = hashlib.blake2b(X[r].tobytes(), digest_size=8, key=key).digest()
        out[r] = (int.from_bytes(h, "little") + 0.5) / 2.0**64
    return out


# --------------------------------------------------------------------------------------------
# Estimator
# --------------------------------------------------------------------------------------------


@dataclass(eq=False, repr=False)
class RenyiClassifier(
    LinearTermsMixin, LogProbaMixin, BinaryClassifierMixin, ClassifierMixin, BaseEstimator
):
    """Discrete Rényi classifier: ridge least squares on bin indicators (Razaviyayn et al. 2015).

    Parameters
    ----------
    n_bins : int, default=5
        Largest number of levels per feature (equal-frequency bins fitted on the training
        data; features with at most ``n_bins`` distinct values keep their values as levels).
    alpha : float, default=1e-2
        Ridge parameter ``lambda_ridge`` of section 5, for the objective
        ``(1/n) sum (w'z - c)^2 + alpha ||z||^2``.  ``0`` gives the minimum-norm least-squares
        solution.
    pairwise : bool, default=False
        Use the joint indicators of all feature pairs ``(X_i, X_j)`` instead of the single
        features (the paper's delta~_2 classifiers).  With a single feature there are no
        pairs and the single feature is used.
    group_lasso : float or None, default=None
        If set, the penalty ``lambda`` of Algorithm 1 (robust Rényi feature selection, on a
        [0, 1] scale; see the module docstring): blocks whose coefficients are all zero are
        dropped and the ridge solution is refitted on the rest.
    group_norm : {"linf", "l2"}, default="linf"
        Group norm of the selection penalty: the paper's ``h(|z|)`` (sum of block maxima) or
        the Euclidean group lasso.
    decision : {"map", "randomized"}, default="map"
        ``"map"``: the sign rule delta~_map.  ``"randomized"``: the randomised rule delta~ of
        Theorem 2 (coins seeded by ``random_state``).
    group_lasso_max_iter : int, default=5000
        Largest number of iterations of the group-lasso solver.
    group_lasso_tol : float, default=1e-6
        Relative tolerance of the group-lasso solver (largest coefficient change).
    random_state : int, RandomState instance or None, default=None
        Seeds the coins of ``decision="randomized"`` (drawn once in ``fit``).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Sorted labels; ``classes_[1]`` is the positive class.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when ``X`` has string column names.
    bin_edges_ : list of ndarray
        Cut points of every feature.
    n_levels_ : ndarray of shape (n_features_in_,)
        Number of levels of every feature.
    blocks_ : ndarray of shape (n_blocks, 1) or (n_blocks, 2)
        The feature (or feature pair) of every indicator block kept in the model.
    block_sizes_ : ndarray of shape (n_blocks,)
    coef_ : ndarray of shape (1, sum(block_sizes_))
        The fitted ``z``: one coefficient per level of every kept block, block by block, so
        ``decision_function(X) = W(X) @ coef_[0] + intercept_[0]`` with ``W`` the indicators.
    intercept_ : ndarray of shape (1,)
        Always 0: every block's indicators sum to one, so ``W`` already spans a constant.
    terms_ : ndarray of str of shape (sum(block_sizes_),)
        The indicator of each coefficient, e.g. ``glucose (99.5, 117]`` or
        ``glucose <= 99.5 & bmi > 30.1``; ``coef_series_`` is ``coef_[0]`` indexed by them.
    selected_features_ : ndarray of int
        Features used by the model (all of them without ``group_lasso``).
    group_lasso_n_iter_ : int or None
        Iterations of the selection solver (None without ``group_lasso``).
    decision_seed_ : int
        Seed of the randomised rule's coins.

    Notes
    -----
    ``decision_function`` returns ``w(x)'z = P~(Y = 1 | x) - 1/2``; ``predict_proba`` the
    posterior ``P~(Y | x)`` for both decision rules, clipped to ``[1e-6, 1 - 1e-6]``.  With
    ``decision="randomized"`` ``predict`` does not always follow the sign of
    ``decision_function`` (that is the point of the randomised rule).

    Examples
    --------
    >>> import numpy as np
    >>> from slb.peers.renyi import RenyiClassifier
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 50)
    >>> X = rng.normal(size=(100, 3)) + 2.0 * np.outer(y, [1, 0, 0])  # only x0 is informative
    >>> clf = RenyiClassifier().fit(X, y)
    >>> clf.coef_.shape, clf.terms_[0]  # 3 features x 5 bins
    ((1, 15), 'x0 <= -0.5646')
    >>> RenyiClassifier(group_lasso=0.2).fit(X, y).selected_features_.tolist()
    [0]
    """

    student_summary = _STUDENT_SUMMARY  # a class attribute, not a parameter

    n_bins: int = 5
    alpha: float = 1e-2
    pairwise: bool = False
    group_lasso: float | None = None
    group_norm: str = "linf"
    decision: str = "map"
    group_lasso_max_iter: int = 5000
    group_lasso_tol: float = 1e-6
    random_state: object = None

    _parameter_constraints = {
        "n_bins": [Interval(Integral, 2, None, closed="left")],
        "alpha": [Interval(Real, 0, np.inf, closed="left")],
        "pairwise": ["boolean"],
        "group_lasso": [Interval(Real, 0, np.inf, closed="left"), None],
        "group_norm": [StrOptions({"linf", "l2"})],
        "decision": [StrOptions({"map", "randomized"})],
        "group_lasso_max_iter": [Interval(Integral, 1, None, closed="left")],
        "group_lasso_tol": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    def fit(self, X, y):
        """Discretise the features, optionally select blocks, and fit the ridge solution.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric features (no NaN or infinite values).
        y : array-like of shape (n_samples,)
            Binary labels of any type.

        Returns
        -------
        self : RenyiClassifier
        """
        self._validate_params()
        X, y = validate_training_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        self.classes_, y01 = check_binary_target(y, estimator="The Rényi classifier")
        n, d = X.shape
        c = y01 - 0.5

        self.bin_edges_ = [quantile_bin_edges(X[:, j], self.n_bins) for j in range(d)]
        self.n_levels_ = np.array([e.size + 1 for e in self.bin_edges_], dtype=np.int64)
        codes = _bin_codes(X, self.bin_edges_)

        if self.pairwise and d >= 2:
            iu = np.triu_indices(d, k=1)
            blocks = np.column_stack(iu).astype(np.int64)
            bcodes, bsizes = _block_codes(codes, self.n_levels_, blocks)
        else:
            blocks = np.arange(d, dtype=np.int64)[:, None]
            bcodes, bsizes = _block_codes(codes, self.n_levels_, None)

        self.group_lasso_n_iter_ = None
        if self.group_lasso is not None:
            z, self.group_lasso_n_iter_ = group_lasso_indicator(
                bcodes,
                bsizes,
                c,
                float(self.group_lasso),
                alpha=float(self.alpha),
                norm=self.group_norm,
                max_iter=self.group_lasso_max_iter,
                tol=self.group_lasso_tol,
            )
            ends = np.cumsum(bsizes)
            block_max = np.maximum.reduceat(np.abs(z), ends - bsizes) if z.size else z
            keep = block_max > 0
            blocks, bcodes, bsizes = blocks[keep], bcodes[:, keep], bsizes[keep]

        self.blocks_ = blocks
        self.block_sizes_ = bsizes
        W = indicator_matrix(bcodes, bsizes)
        self.coef_ = ridge_indicator_solution(W, c, float(self.alpha)).reshape(1, -1)
        self.intercept_ = np.zeros(1)
        names = default_feature_names(self, d)
        self.terms_ = np.asarray(indicator_names(blocks, self.bin_edges_, names), dtype=object)
        self.selected_features_ = np.unique(blocks).astype(np.int64)
        self.decision_seed_ = int(check_random_state(self.random_state).randint(2**31 - 1))
        return self

    def _indicator(self, X):
        codes = _bin_codes(X, self.bin_edges_)
        if self.blocks_.shape[1] == 2:
            bcodes, _ = _block_codes(codes, self.n_levels_, self.blocks_)
        else:
            bcodes = codes[:, self.blocks_[:, 0]]
        return indicator_matrix(bcodes, self.block_sizes_)

    def decision_function(self, X):
        """Estimated ``P~(Y = classes_[1] | x) - 1/2``; positive means ``classes_[1]`` (MAP rule).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        if self.coef_.size == 0:
            return np.zeros(X.shape[0])
        return np.asarray(self._indicator(X) @ self.coef_[0], dtype=np.float64)

    def predict_proba(self, X):
        """Estimated posterior ``P~(Y | x)`` (eq. 11), clipped to ``[1e-6, 1 - 1e-6]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, 2)
            Columns follow ``classes_``.
        """
        return self._proba_from_decision(self.decision_function(X))

    def _proba_from_decision(self, score):
        """:meth:`predict_proba` from decision values already computed
        (:func:`slb.evaluation.predictions.model_outputs`)."""
        return binary_proba(0.5 + np.asarray(score, dtype=float))

    def predict(self, X):
        """Predicted labels by delta~_map (default) or the randomised rule delta~.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        scores = self.decision_function(X)
        if self.decision == "map":
            return self.classes_[(scores > 0).astype(int)]
        p1 = np.clip(0.5 + scores, 0.0, 1.0)
        p0 = 1.0 - p1
        q1 = p1 * p1 / (p0 * p0 + p1 * p1)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        u = _row_uniforms(X, self.decision_seed_)
        return self.classes_[(u < q1).astype(int)]
