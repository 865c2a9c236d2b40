"""DISCRETE: learning a linear classifier as MAP inference (Liu, Petterson and Caetano, 2012).

For students
------------
Instead of nudging continuous weights downhill like an SVM, DISCRETE lets every weight take
only a few values (by default 11 values between -1 and 1, including 0) and scores each
choice by counting training mistakes.  Counting mistakes of the whole model at once is too
hard, so it links the features in a random chain and counts the mistakes of small linear
classifiers that see only two (or three) neighbouring features; the best weights for all
these overlapping pieces are then found exactly, like the best path through a maze, by
dynamic programming.  Because a mistake costs 1 however badly it is misclassified, a few
wrong labels cannot drag the boundary far: the method is robust to label noise, and a
penalty on the number of non-zero weights switches useless features off.

Method (the paper's sections 4 and 7)
-------------------------------------
Pre-processing.  The features are standardised (mean and standard deviation of the training
data; a choice of ours, the paper does not say how features are scaled).  With ``projection``
set they are mapped to ``x = R x_std`` with ``R`` a seeded random matrix of i.i.d. N(0, 1)
entries ("Random Projections", section 4).  ``x`` has ``D`` coordinates, one weight each.

Weights.  Every weight takes one of ``B = n_weight_values`` values; we use the grid
``{-m, ..., -1, 0, 1, ..., m} / m`` with ``m = B // 2`` (for even ``B`` the value ``+1`` is left
out so that 0 stays in).  Its range does not matter: the 0/1 loss is scale invariant.

Objective (eq. 7), as written::

    min_theta  sum_{c in cliques} sum_{n=1..N} l_c(y_n, f_c(x_n; theta_c))  +  lambda * sum_i 1[theta_i != 0]

with the clique predictor ``f_c(x; theta_c) = sign(<x_c, theta_c>)`` (eq. 4) and the clique
loss ``l_c = (1 - y f_c) / 2`` (eq. 5), ``y`` in {-1, +1} (``+1`` for ``classes_[1]``).  So the
potential of clique ``c`` is the number of training samples that the linear classifier
restricted to the features of ``c`` gets wrong: each clique counts all ``N`` samples, and the
cliques' counts are added (not averaged over cliques, not weighted by how many cliques share a
weight).  It is computed by enumerating all configurations of the clique's weights (``B^k``,
``k`` = 2 for the chain and 3 for the 2-chain, times ``B`` for the offset, see below).  The
final classifier is the full linear predictor ``sign(<x, theta> + theta_0)`` with the MAP weights.

Choices the paper leaves open, made here:

* Offset.  Footnote 1 says "an offset parameter is already included in theta_c and a
  corresponding entry of 1 is appended to the vector x_c".  ``offset="shared"`` (default)
  reads this literally: one offset weight ``theta_0`` (same ``B`` values) is part of every
  clique, so every clique's classifier has an offset.  The graph is then the chain plus one
  node joined to all cliques (treewidth one higher), and the MAP stays exact by conditioning
  on the ``B`` values of ``theta_0`` (one chain DP each).  ``offset="node"`` instead appends the
  entry 1 to ``x`` as an ordinary coordinate (projected too, when ``projection`` is set), which
  keeps the paper's O(D B^2) but lets the offset enter only the one or two cliques that the
  random chain gives it.  Both count ``1[theta_0 != 0]`` in the ``l_0`` term, since the offset is
  a component of ``theta`` and eq. 6 sums over all of them.
* ``sign(0) = 0``: a sample on a clique's boundary (e.g. all weights of the clique zero)
  costs 1/2, the literal value of eq. 5 (the clique abstains, like a coin flip).
* ``lambda`` (``l0_penalty``) is in the units of eq. 7: a weight is non-zero only if that saves
  at least ``lambda`` clique mistakes on the training set (mistakes of all cliques added).
* Ties.  Many configurations have the same energy (the loss is scale invariant, and a zero
  weight splits the chain into pieces whose scales are free).  Among the exact minimisers we
  take the one with the fewest non-zero weights, then the largest ``sum |theta_i|`` (each free
  piece uses the full range of the grid), by a lexicographic min-sum DP that stays exact.
* ``n_chains > 1``: the MAP weights of several random chains (one shared projection) are each
  scaled to unit Euclidean norm and averaged into one linear classifier (the paper only
  reports the average accuracy over 20 chains).

Graph and inference.  ``graph="chain"``: a random permutation ``pi`` of the ``D`` coordinates and
the cliques ``{pi_t, pi_t+1}``; exact MAP by min-sum dynamic programming (Viterbi).
``graph="2-chain"``: cliques ``{pi_t, pi_t+1, pi_t+2}`` (a random junction tree), exact MAP by the
same DP over pairs of consecutive weights.

Time complexity (``N`` samples, ``d`` input features, ``D`` coordinates, ``B`` values per weight,
one chain).  Dynamic programming: O(D B^2) for the chain, as stated in the paper ("2(D-1)
messages are passed, each with worst-case runtime of O(B^2)"; we pass the D - 1 forward
messages and backtrack), and O(D B^3) for the 2-chain (the paper: the larger clique
"increases the memory and runtime cost by O(B)"); ``offset="shared"`` runs it for each of the
``B`` offset values, O(D B^3) and O(D B^4).  Potentials: O(N D B^k) by enumeration (``k`` = 2 or
3; ``B^(k+1)`` configurations with the shared offset).  Projection: O(N d D).  Everything is
multiplied by ``n_chains``; the run time does not depend on ``lambda``.  Memory: the clique
tables, O(D B^(k+1)) numbers (about 12 MB for the 2-chain with the shared offset at D = 100).
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from .._sklearn_compat import Interval, StrOptions
from .._utils import (
    LinearTermsMixin,
    PlattProbaMixin,
    SignPredictMixin,
    check_binary_target,
    default_feature_names,
    pinned_platt,
    validate_training_data,
)

__all__ = ["DiscreteMAPClassifier", "clique_loss_table", "chain_map", "weight_grid"]

_STUDENT_SUMMARY = (
    "DISCRETE lets every weight of a linear classifier take only a few values (by default 11 "
    "values between -1 and 1, including 0) and scores each choice by counting training "
    "mistakes. Counting the mistakes of the whole model at once is too hard, so it links the "
    "features in a random chain and counts the mistakes of small classifiers that see only two "
    "(or three) neighbouring features; the best weights for all these overlapping pieces are "
    "found exactly by dynamic programming, like the shortest path through a maze. Because a "
    "mistake costs 1 however far it is from the boundary, a few wrong labels cannot drag the "
    "boundary far, so the method is robust to label noise, and a penalty on the number of "
    "non-zero weights switches useless features off."
)

_CHUNK = 2**21  # entries of the (samples x configurations) sign array evaluated at once


def weight_grid(n_values):
    """The ``B`` allowed values of every weight, including 0.

    Parameters
    ----------
    n_values : int
        ``B >= 2``.

    Returns
    -------
    grid : ndarray of shape (B,)
        ``{-m, ..., -1, 0, 1, ..., m} / m`` with ``m = B // 2``, increasing; for even ``B`` the
        value ``+1`` is left out so that 0 stays in.

    Examples
    --------
    >>> from slb.peers.discrete_map import weight_grid
    >>> weight_grid(5).tolist()
    [-1.0, -0.5, 0.0, 0.5, 1.0]
    >>> weight_grid(4).tolist()  # even: +1 is dropped, 0 stays
    [-1.0, -0.5, 0.0, 0.5]
    """
    m = n_values // 2
    grid = np.arange(-m, m + 1) / m
    return grid[:n_values]


def clique_loss_table(Xc, y_pm, grid):
    """Number of training mistakes of the clique's linear classifier, for every configuration.

    Parameters
    ----------
    Xc : ndarray of shape (N, k)
        The clique's features.
    y_pm : ndarray of shape (N,)
        Labels in {-1, +1}.
    grid : ndarray of shape (B,)
        Allowed weight values.

    Returns
    -------
    table : ndarray of shape (B,) * k
        ``table[a_1, ..., a_k] = sum_n (1 - y_n sign(sum_j grid[a_j] Xc[n, j])) / 2``
        (eq. 5 summed over the samples; ``sign(0) = 0`` costs 1/2).

    Examples
    --------
    >>> import numpy as np
    >>> from slb.peers.discrete_map import clique_loss_table, weight_grid
    >>> Xc = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    >>> y_pm = np.array([1, -1, -1])
    >>> table = clique_loss_table(Xc, y_pm, weight_grid(3))  # weights in {-1, 0, 1}
    >>> table.tolist()
    [[2.0, 2.5, 3.0], [1.0, 1.5, 2.0], [0.0, 0.5, 1.0]]
    >>> float(table[2, 0])  # theta = (1, -1): no mistakes
    0.0
    """
    N, k = Xc.shape
    B = grid.size
    configs = np.stack(np.meshgrid(*([grid] * k), indexing="ij"), axis=-1).reshape(-1, k)
    C = configs.shape[0]
    # On a symmetric grid, flat index C-1-i is the configuration -theta of index i, whose
    # predictions are all flipped: loss(-theta) = N - loss(theta).  Only half is computed.
    symmetric = np.allclose(grid[::-1], -grid)
    n_eval = C // 2 + 1 if symmetric else C
    cfg_t = configs[:n_eval].T.copy()
    total = np.zeros(n_eval)
    step = max(1, _CHUNK // n_eval)
    # Elementwise numpy rather than a (multi-threaded) BLAS product: with an inner dimension of
    # 2 to 4 the product is memory bound, and BLAS threads only oversubscribe shared CPUs.
    for s in range(0, N, step):
        Xs = Xc[s : s + step]
        M = Xs[:, 0, None] * cfg_t[0]
        for j in range(1, k):
            M += Xs[:, j, None] * cfg_t[j]
        total += np.einsum("n,nc->c", y_pm[s : s + step], np.sign(M, out=M))
    half = 0.5 * (N - total)
    n_loss = np.concatenate([half, N - half[: C - n_eval][::-1]]) if symmetric else half
    return n_loss.reshape((B,) * k)


def chain_map(tables, unary, secondary=None, rtol=1e-9):
    """Exact MAP of a k-chain by min-sum dynamic programming.

    The energy is ``sum_t tables[t][theta_t, ..., theta_{t+k-1}] + sum_i unary[i][theta_i]``
    over the variables ``0..D-1`` in chain order, with ``D = len(tables) + k - 1``.  Among the
    minimisers, the one with the smallest ``sum_i secondary[i][theta_i]`` is returned
    (lexicographic min-sum, still exact; primary energies within ``rtol`` count as equal).

    Parameters
    ----------
    tables : list of ndarray, each of shape (B,) * k
        Clique potentials of the consecutive windows of ``k`` variables.
    unary : ndarray of shape (D, B)
        Unary potentials.
    secondary : ndarray of shape (D, B) or None
        Tie-breaking unary potentials (``None``: ties go to the lowest index).
    rtol : float
        Relative tolerance for equal primary energies (floating-point sums).

    Returns
    -------
    labels : ndarray of shape (D,)
        Indices of the minimising values.
    energy : float
        The minimum energy.

    Examples
    --------
    The dynamic program finds the minimum of a brute-force search:

    >>> import itertools
    >>> import numpy as np
    >>> from slb.peers.discrete_map import chain_energy, chain_map
    >>> rng = np.random.default_rng(0)
    >>> tables = [rng.integers(0, 5, size=(3, 3)).astype(float) for _ in range(2)]
    >>> unary = np.zeros((3, 3))
    >>> labels, energy = chain_map(tables, unary)
    >>> labels.tolist(), energy
    ([2, 1, 0], 2.0)
    >>> min(chain_energy(c, tables, unary) for c in itertools.product(range(3), repeat=3))
    2.0
    """
    k = tables[0].ndim
    D, B = unary.shape
    if len(tables) != D - k + 1:
        raise ValueError("chain_map: need D - k + 1 clique tables.")
    if secondary is None:
        secondary = np.zeros_like(unary)
    # M[s_1..s_{k-1}] = best (primary, secondary) energy of the variables so far, given the
    # last k - 1 of them.
    M = np.zeros((B,) * (k - 1))
    S = np.zeros((B,) * (k - 1))
    for j in range(k - 1):
        shape = [1] * (k - 1)
        shape[j] = B
        M = M + unary[j].reshape(shape)
        S = S + secondary[j].reshape(shape)
    back = []
    new_shape = (1,) * (k - 1) + (B,)
    for t, T in enumerate(tables):
        # Add the new variable t + k - 1 and minimise out variable t (axis 0).
        full = M[..., None] + T + unary[t + k - 1].reshape(new_shape)
        full_s = S[..., None] + secondary[t + k - 1].reshape(new_shape)
        full_s = np.broadcast_to(full_s, full.shape)
        best = full.min(axis=0, keepdims=True)
        tied = full <= best + rtol * np.maximum(1.0, np.abs(best))
        arg = np.argmin(np.where(tied, full_s, np.inf), axis=0)
        back.append(arg)
        M = np.take_along_axis(full, arg[None], axis=0)[0]
        S = np.take_along_axis(full_s, arg[None], axis=0)[0]
    # Best final (k-1)-tuple, then recover each eliminated variable.
    best = M.min()
    tied = M <= best + rtol * max(1.0, abs(best))
    last = np.unravel_index(int(np.argmin(np.where(tied, S, np.inf))), M.shape)
    energy = float(M[last])
    labels = np.empty(D, dtype=np.int64)
    labels[D - (k - 1) :] = last
    for t in range(len(tables) - 1, -1, -1):
        labels[t] = back[t][tuple(labels[t + 1 : t + k])]
    return labels, energy


def chain_energy(theta_idx, tables, unary):
    """Energy of one configuration (variables in chain order), for checks.

    Parameters
    ----------
    theta_idx : sequence of int of length D
        Index of every variable's value.
    tables : list of ndarray, each of shape (B,) * k
    unary : ndarray of shape (D, B)

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from slb.peers.discrete_map import chain_energy
    >>> tables = [np.array([[0.0, 1.0], [2.0, 3.0]])]  # one clique of two binary variables
    >>> unary = np.array([[0.0, 0.5], [0.0, 0.25]])
    >>> chain_energy([1, 1], tables, unary)  # 3 + 0.5 + 0.25
    3.75
    """
    k = tables[0].ndim
    e = float(sum(unary[i, a] for i, a in enumerate(theta_idx)))
    for t, T in enumerate(tables):
        e += float(T[tuple(theta_idx[t : t + k])])
    return e


def tie_break_potentials(grid, n_weights):
    """Secondary unary potentials: fewest non-zero weights first, then largest magnitudes.

    ``(n_weights + 1) * 1[theta != 0] - |theta|``: one more non-zero weight always costs more
    than any gain in total magnitude (which is at most ``n_weights``), so minimising the sum
    is the lexicographic order (number of non-zeros, then ``-sum |theta_i|``).

    Parameters
    ----------
    grid : ndarray of shape (B,)
        Allowed weight values.
    n_weights : int

    Returns
    -------
    ndarray of shape (n_weights, B)

    Examples
    --------
    >>> import numpy as np
    >>> from slb.peers.discrete_map import tie_break_potentials
    >>> tie_break_potentials(np.array([-1.0, -0.5, 0.0, 0.5, 1.0]), 2)[0].tolist()
    [2.0, 2.5, 0.0, 2.5, 2.0]
    """
    return np.tile((n_weights + 1.0) * (grid != 0) - np.abs(grid), (n_weights, 1))


@dataclass(eq=False, repr=False)
class DiscreteMAPClassifier(
    LinearTermsMixin, PlattProbaMixin, SignPredictMixin, ClassifierMixin, BaseEstimator
):
    """DISCRETE: discrete weights, clique-wise 0/1 losses, exact MAP on a random chain.

    Parameters
    ----------
    n_weight_values : int, default=11
        ``B``, the number of values of every weight (including 0).
    l0_penalty : float, default=0.0
        ``lambda`` of eq. 7: the cost of a non-zero weight, in training mistakes (summed over
        samples and cliques).
    graph : {"chain", "2-chain"}, default="chain"
        Cliques of two consecutive weights of a random chain, or of three (random 2-chain).
    offset : {"shared", "node"}, default="shared"
        How the offset enters the cliques (see the module docstring): one offset weight in
        every clique, or the entry 1 as an ordinary feature of the chain.
    n_chains : int, default=1
        Number of random chains; their normalised MAP weights are averaged.
    projection : None, "auto" or int, default=None
        Dimension ``D`` of the random Gaussian projection of the standardised features;
        ``"auto"`` keeps their number; ``None`` means no projection.
    random_state : int, RandomState instance or None, default=None
        Seeds the projection and the chain orders.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Sorted labels; ``classes_[1]`` is the positive class.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when ``X`` has string column names.
    mean_, scale_ : ndarray of shape (n_features_in_,)
        Standardisation of the inputs.
    projection_matrix_ : ndarray of shape (D, n_inputs) or None
        ``n_inputs`` is ``n_features_in_`` (+1 with ``offset="node"``).
    weight_grid_ : ndarray of shape (B,)
    weights_ : ndarray of shape (n_chains, D + 1)
        The MAP weights of every chain (values of ``weight_grid_``); the last column is the
        offset weight (0 with ``offset="node"``, where the offset is among the first ``D``).
    chain_orders_ : ndarray of shape (n_chains, D)
        The random chain order of the ``D`` weights, for every chain.
    energies_ : ndarray of shape (n_chains,)
        The minimum of eq. 7 for every chain.
    theta_ : ndarray of shape (D + 1,)
        The weights of the final classifier (``weights_[0]`` for one chain, else the mean of
        the unit-norm rows of ``weights_``).
    coef_ : ndarray of shape (1, n_features_in_)
    intercept_ : ndarray of shape (1,)
        The final classifier in the original feature space:
        ``decision_function(X) = X @ coef_[0] + intercept_[0]``.
    terms_ : ndarray of str of shape (n_features_in_,)
        The input feature names (``coef_series_``: ``coef_[0]`` indexed by them).
    platt_ : ndarray of shape (2,)
        Platt's ``(a, b)`` of ``predict_proba = 1 / (1 + exp(a * decision_function + b))``,
        fitted on the training decision values (in-sample: the few discrete weights overfit
        little, and cross-fitting would multiply the cost of the fit), ``b = 0`` so that
        ``predict`` is ``argmax(predict_proba)`` (``docs/probabilities.md``), clipped to
        ``[1e-6, 1 - 1e-6]``.
    n_nonzero_ : int
        Number of non-zero entries of ``theta_``.

    Notes
    -----
    Time: O(N D B^(k+1)) for the potentials plus O(B D B^k) for the dynamic programs with
    ``offset="shared"`` (O(N D B^k) and O(D B^k) with ``offset="node"``), ``k = 2`` for the
    chain and 3 for the 2-chain, per chain; see the module docstring.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.peers.discrete_map import DiscreteMAPClassifier
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 50)
    >>> X = rng.normal(size=(100, 3)) + 3.0 * np.outer(y, [1, 0, 0])  # x0 separates the classes
    >>> clf = DiscreteMAPClassifier(random_state=0).fit(X, y)
    >>> bool(np.isin(clf.theta_, clf.weight_grid_).all()), clf.coef_.shape  # discrete weights
    (True, (1, 3))
    >>> clf.predict([[-3.0, 0.0, 0.0], [6.0, 0.0, 0.0]]).tolist(), bool(clf.score(X, y) > 0.8)
    ([0, 1], True)
    """

    student_summary = _STUDENT_SUMMARY  # a class attribute, not a parameter

    n_weight_values: int = 11
    l0_penalty: float = 0.0
    graph: str = "chain"
    offset: str = "shared"
    n_chains: int = 1
    projection: int | str | None = None
    random_state: object = None

    _parameter_constraints = {
        "n_weight_values": [Interval(Integral, 2, None, closed="left")],
        "l0_penalty": [Interval(Real, 0, np.inf, closed="left")],
        "graph": [StrOptions({"chain", "2-chain"})],
        "offset": [StrOptions({"shared", "node"})],
        "n_chains": [Interval(Integral, 1, None, closed="left")],
        "projection": [None, StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def _transform(self, X):
        """The features the weights act on: standardised, (1-augmented,) projected."""
        Z = (X - self.mean_) / self.scale_
        if self.offset == "node":
            Z = np.column_stack([Z, np.ones(X.shape[0])])
        if self.projection_matrix_ is not None:
            Z = Z @ self.projection_matrix_.T
        return Z

    def _map_one_chain(self, Z, y_pm, order, grid, k):
        """Exact MAP weights (D + 1 values, the last one the shared offset) of one chain."""
        n, D = Z.shape
        B = grid.size
        lam = float(self.l0_penalty)
        shared = self.offset == "shared"
        n_weights = D + 1 if shared else D
        unary = np.tile(lam * (grid != 0), (D, 1))
        secondary = tie_break_potentials(grid, n_weights)
        windows = [order[t : t + k] for t in range(D - k + 1)]
        if not shared:
            tables = [clique_loss_table(Z[:, w], y_pm, grid) for w in windows]
            labels, energy = chain_map(tables, unary, secondary[:D])
            theta = np.zeros(D + 1)
            theta[order] = grid[labels]
            return theta, energy
        # Shared offset: the offset weight is the last variable of every clique table.  The
        # graph is the chain plus one node joined to every clique, so we condition on the
        # offset value (B exact chain MAPs) and keep the best, ties broken as in chain_map.
        ones = np.ones((n, 1))
        tables = [clique_loss_table(np.hstack([Z[:, w], ones]), y_pm, grid) for w in windows]
        sec_offset = (n_weights + 1.0) * (grid != 0) - np.abs(grid)
        best = None
        for b in range(B):
            labels, energy = chain_map([T[..., b] for T in tables], unary, secondary[:D])
            energy += lam * (grid[b] != 0)
            sec = float(secondary[np.arange(D), labels].sum() + sec_offset[b])
            if (
                best is None
                or energy < best[0] - 1e-9 * max(1.0, abs(best[0]))
                or (energy <= best[0] + 1e-9 * max(1.0, abs(best[0])) and sec < best[1])
            ):
                best = (energy, sec, labels, b)
        energy, _, labels, b = best
        theta = np.empty(D + 1)
        theta[order] = grid[labels]
        theta[D] = grid[b]
        return theta, energy

    def fit(self, X, y):
        """Compute the clique potentials and the exact MAP weights of the random chain(s).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric features (no NaN or infinite values).
        y : array-like of shape (n_samples,)
            Binary labels of any type.

        Returns
        -------
        self : DiscreteMAPClassifier
        """
        self._validate_params()
        X, y = validate_training_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        self.classes_, y01 = check_binary_target(y, estimator="DISCRETE")
        y_pm = 2.0 * y01 - 1.0
        rng = check_random_state(self.random_state)
        d = X.shape[1]

        self.mean_ = X.mean(axis=0)
        scale = X.std(axis=0)
        # Constant columns (std 0, or rounding noise relative to the mean) are left unscaled.
        self.scale_ = np.where(scale > 1e-10 * np.abs(self.mean_) + 1e-300, scale, 1.0)
        n_inputs = d + 1 if self.offset == "node" else d
        if self.projection is None:
            self.projection_matrix_ = None
        else:
            D = n_inputs if self.projection == "auto" else int(self.projection)
            self.projection_matrix_ = rng.standard_normal((D, n_inputs))
        Z = self._transform(X)
        D = Z.shape[1]
        k = min(2 if self.graph == "chain" else 3, D)

        grid = weight_grid(self.n_weight_values)
        self.weight_grid_ = grid
        orders, weights, energies = [], [], []
        for _ in range(self.n_chains):
            order = rng.permutation(D)
            theta, energy = self._map_one_chain(Z, y_pm, order, grid, k)
            orders.append(order)
            weights.append(theta)
            energies.append(energy)
        self.chain_orders_ = np.asarray(orders)
        self.weights_ = np.asarray(weights)
        self.energies_ = np.asarray(energies)
        if self.n_chains == 1:
            theta = self.weights_[0].copy()
        else:
            norms = np.linalg.norm(self.weights_, axis=1, keepdims=True)
            theta = np.mean(self.weights_ / np.where(norms > 0, norms, 1.0), axis=0)
        self.theta_ = theta
        self.n_nonzero_ = int(np.count_nonzero(theta))

        # The same linear function in the original feature space.
        w = theta[:D] if self.projection_matrix_ is None else self.projection_matrix_.T @ theta[:D]
        coef = w[:d] / self.scale_
        b = theta[D] + (w[d] if self.offset == "node" else 0.0)
        self.coef_ = coef.reshape(1, -1)
        self.intercept_ = np.array([b - coef @ self.mean_])
        self.terms_ = np.asarray(default_feature_names(self, d), dtype=object)
        # the offset pinned at 0: predict (the sign) = argmax(predict_proba), docs/probabilities.md
        self.platt_ = pinned_platt(self._transform(X) @ theta[:D] + theta[D], y01, (0.0, 0.0))
        return self

    def decision_function(self, X):
        """``<x, theta> + theta_0`` of the standardised (projected) sample; > 0 means ``classes_[1]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self._transform(X) @ self.theta_[:-1] + self.theta_[-1]
