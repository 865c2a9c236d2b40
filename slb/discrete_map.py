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
data; a choice of ours, the paper does not say how features are scaled), and the entry ``1``
is appended to every sample so that the offset is one of the weights (the paper's footnote 1:
"an offset parameter is already included in theta_c and a corresponding entry of 1 is
appended to x_c").  With ``projection`` set, the augmented vector ``x' = (x_std, 1)`` is mapped
to ``x = R x'`` with ``R`` a seeded random matrix of i.i.d. N(0, 1) entries ("Random
Projections", section 4), so every projected coordinate carries its own random offset.  ``D``
below is the dimension of ``x`` (``d + 1`` without projection).

Weights.  Every weight ``theta_i`` takes one of ``B = n_weight_values`` values; we use the
grid ``{-m, ..., -1, 0, 1, ..., m} / m`` with ``m = B // 2`` (for even ``B`` the value ``+1`` is
dropped so that 0 stays in).  Its range does not matter: the 0/1 loss is scale invariant.

Objective (eq. 7), exactly as written::

    min_theta   sum_{c in cliques} sum_{n=1..N} l_c(y_n, f_c(x_n; theta_c))  +  lambda * sum_{i=1..D} 1[theta_i != 0]

with the clique predictor ``f_c(x; theta_c) = sign(<x_c, theta_c>)`` (eq. 4) and the clique
loss ``l_c = (1 - y f_c) / 2`` (eq. 5), ``y`` in {-1, +1} (``+1`` for ``classes_[1]``).  So the
potential of clique ``c`` is the number of training samples that the linear classifier
restricted to the features of ``c`` gets wrong; each clique counts all ``N`` samples, and the
cliques' counts are added (they are not divided by the number of cliques).  It is computed by
enumerating the ``B^k`` weight configurations of the clique (``k`` = 2 for the chain, 3 for the
2-chain).  Choices the paper leaves open, made here:

* ``sign(0) = 0``: a sample on a clique's boundary (e.g. all weights of the clique zero)
  costs 1/2, the literal value of eq. 5 (the clique abstains, like a coin flip).
* The offset entry is an ordinary weight: it lies in the cliques the random chain gives it
  (without projection) and its ``l_0`` term is counted like the others, as eq. 6 sums over
  all ``i``.  ``lambda`` (``l0_penalty``) is in the units of eq. 7: a weight is non-zero only
  if that saves at least ``lambda`` clique mistakes on the training set.
* Ties between MAP configurations (frequent: the loss is scale invariant) are broken towards
  weights of smaller magnitude (0 first, then +v before -v), a deterministic rule.

Graph and inference.  ``graph="chain"``: a random permutation ``pi`` of the ``D`` weights and the
cliques ``{pi_t, pi_t+1}``; exact MAP by min-sum dynamic programming (Viterbi).
``graph="2-chain"``: cliques ``{pi_t, pi_t+1, pi_t+2}`` (a random junction tree), exact MAP by the
same DP over pairs of consecutive weights.  The classifier is ``sign(<x, theta>)`` with the
MAP ``theta``.  With ``n_chains > 1`` the MAP weights of several random chains (one shared
projection) are each scaled to unit Euclidean norm and averaged (our choice; the paper only
reports the average accuracy over 20 chains).

Time complexity (``N`` samples, ``d`` input features, ``D`` weights, ``B`` values per weight):
the projection costs O(N d D); the potentials cost O(N D B^2) for the chain and O(N D B^3)
for the 2-chain (enumeration of the ``B^k`` configurations of each of the ``D - k + 1``
cliques); the MAP costs O(D B^2) for the chain -- "2(D-1) messages are passed, each with
worst-case runtime O(B^2)" in the paper; we pass the D - 1 forward messages and backtrack --
and O(D B^3) for the 2-chain ("increases the memory and runtime cost by O(B)"); all times
``n_chains``.  The run time does not depend on ``lambda``.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from .renyi import check_binary_target

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
    """The ``B`` allowed weight values, including 0, in tie-breaking order.

    Parameters
    ----------
    n_values : int
        ``B >= 2``.

    Returns
    -------
    grid : ndarray of shape (B,)
        ``0, +1/m, -1/m, +2/m, -2/m, ...`` with ``m = B // 2`` (for even ``B`` the last value
        ``+1`` is left out).  The dynamic program keeps the first of equal-cost values, so
        ties go to the smaller magnitude.
    """
    m = n_values // 2
    vals = [0.0]
    for k in range(1, m + 1):
        vals.extend([k / m, -k / m])
    return np.asarray(vals[:n_values])


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
    """
    N, k = Xc.shape
    B = grid.size
    # Margins of all configurations: (N, B^k), built as sum_j Xc[:, j] * grid[a_j].
    configs = np.stack(np.meshgrid(*([grid] * k), indexing="ij"), axis=-1).reshape(-1, k)
    total = np.zeros(configs.shape[0])
    step = max(1, _CHUNK // configs.shape[0])
    for s in range(0, N, step):
        M = Xc[s : s + step] @ configs.T
        total += y_pm[s : s + step] @ np.sign(M)
    n_loss = 0.5 * (N - total)
    return n_loss.reshape((B,) * k)


def chain_map(tables, unary):
    """Exact MAP of a k-chain by min-sum dynamic programming.

    The energy is ``sum_t tables[t][theta_t, ..., theta_{t+k-1}] + sum_i unary[i][theta_i]``
    over the variables ``0..D-1`` in chain order, with ``D = len(tables) + k - 1``.

    Parameters
    ----------
    tables : list of ndarray, each of shape (B,) * k
        Clique potentials of the consecutive windows of ``k`` variables.
    unary : ndarray of shape (D, B)
        Unary potentials.

    Returns
    -------
    labels : ndarray of shape (D,)
        Indices of the minimising values (ties: the lowest index).
    energy : float
        The minimum energy.
    """
    k = tables[0].ndim
    D, B = unary.shape
    if len(tables) != D - k + 1:
        raise ValueError("chain_map: need D - k + 1 clique tables.")
    # M[s_1..s_{k-1}] = best energy of the variables so far, given the last k - 1 of them.
    M = np.zeros((B,) * (k - 1))
    for j in range(k - 1):
        shape = [1] * (k - 1)
        shape[j] = B
        M = M + unary[j].reshape(shape)
    back = []
    for t, T in enumerate(tables):
        # Add the new variable t + k - 1, minimise out variable t (axis 0).
        full = M[..., None] + T + unary[t + k - 1].reshape((1,) * (k - 1) + (B,))
        arg = np.argmin(full, axis=0)
        back.append(arg)
        M = np.take_along_axis(full, arg[None], axis=0)[0]
    # Backtrack: best final (k-1)-tuple, then recover each eliminated variable.
    last = np.unravel_index(int(np.argmin(M)), M.shape)
    energy = float(M[last])
    labels = np.empty(D, dtype=np.int64)
    labels[D - (k - 1) :] = last
    for t in range(len(tables) - 1, -1, -1):
        labels[t] = back[t][tuple(labels[t + 1 : t + k])]
    return labels, energy


def chain_energy(theta_idx, tables, unary):
    """Energy of one configuration (variables in chain order), for checks."""
    k = tables[0].ndim
    e = float(sum(unary[i, a] for i, a in enumerate(theta_idx)))
    for t, T in enumerate(tables):
        e += float(T[tuple(theta_idx[t : t + k])])
    return e


class DiscreteMAPClassifier(ClassifierMixin, BaseEstimator):
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
    n_chains : int, default=1
        Number of random chains; their normalised MAP weights are averaged.
    projection : None, "auto" or int, default=None
        Dimension ``D`` of the random Gaussian projection of the (standardised,
        1-augmented) features; ``"auto"`` keeps the dimension ``d + 1``; ``None`` means no
        projection.
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
    projection_matrix_ : ndarray of shape (D, n_features_in_ + 1) or None
    weight_grid_ : ndarray of shape (B,)
    weights_ : ndarray of shape (n_chains, D)
        The MAP weights of every chain (values of ``weight_grid_``).
    chain_orders_ : ndarray of shape (n_chains, D)
        The random chain order of every chain.
    energies_ : ndarray of shape (n_chains,)
        The minimum of eq. 7 for every chain.
    theta_ : ndarray of shape (D,)
        The weights of the final classifier (``weights_[0]`` for one chain).
    coef_ : ndarray of shape (1, n_features_in_)
    intercept_ : ndarray of shape (1,)
        The final classifier in the original feature space:
        ``decision_function(X) = X @ coef_[0] + intercept_[0]``.
    n_nonzero_ : int
        Number of non-zero entries of ``theta_``.

    Notes
    -----
    See the module docstring for the objective, the choices made where the paper is silent,
    and the time complexity: O(N D B^k) for the potentials plus O(D B^k) for the dynamic
    program, ``k = 2`` (chain) or 3 (2-chain), per chain.
    """

    student_summary: str = _STUDENT_SUMMARY

    def __init__(
        self,
        n_weight_values=11,
        l0_penalty=0.0,
        graph="chain",
        n_chains=1,
        projection=None,
        random_state=None,
    ):
        self.n_weight_values = n_weight_values
        self.l0_penalty = l0_penalty
        self.graph = graph
        self.n_chains = n_chains
        self.projection = projection
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _check_params(self):
        B = self.n_weight_values
        if not isinstance(B, numbers.Integral) or B < 2:
            raise ValueError(f"n_weight_values must be an integer >= 2, got {B!r}.")
        lam = self.l0_penalty
        if not isinstance(lam, numbers.Real) or not np.isfinite(lam) or lam < 0:
            raise ValueError(f"l0_penalty must be a finite number >= 0, got {lam!r}.")
        if self.graph not in ("chain", "2-chain"):
            raise ValueError(f"graph must be 'chain' or '2-chain', got {self.graph!r}.")
        if not isinstance(self.n_chains, numbers.Integral) or self.n_chains < 1:
            raise ValueError(f"n_chains must be a positive integer, got {self.n_chains!r}.")
        p = self.projection
        if not (
            p is None
            or (isinstance(p, str) and p == "auto")
            or (isinstance(p, numbers.Integral) and not isinstance(p, bool) and p >= 2)
        ):
            raise ValueError(f"projection must be None, 'auto' or an integer >= 2, got {p!r}.")

    def _transform(self, X):
        Z = np.column_stack([(X - self.mean_) / self.scale_, np.ones(X.shape[0])])
        if self.projection_matrix_ is not None:
            Z = Z @ self.projection_matrix_.T
        return Z

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
        self._check_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        self.classes_, y01 = check_binary_target(y)
        y_pm = 2.0 * y01 - 1.0
        rng = check_random_state(self.random_state)
        n, d = X.shape

        self.mean_ = X.mean(axis=0)
        scale = X.std(axis=0)
        self.scale_ = np.where(scale > 1e-12 * np.maximum(1.0, np.abs(self.mean_)), scale, 1.0)
        if self.projection is None:
            self.projection_matrix_ = None
        else:
            D = d + 1 if self.projection == "auto" else int(self.projection)
            self.projection_matrix_ = rng.standard_normal((D, d + 1))
        Z = self._transform(X)
        D = Z.shape[1]
        k = min(2 if self.graph == "chain" else 3, D)

        grid = weight_grid(self.n_weight_values)
        self.weight_grid_ = grid
        unary = np.tile(float(self.l0_penalty) * (grid != 0), (D, 1))
        orders, weights, energies = [], [], []
        for _ in range(self.n_chains):
            order = rng.permutation(D)
            tables = [
                clique_loss_table(Z[:, order[t : t + k]], y_pm, grid) for t in range(D - k + 1)
            ]
            labels, energy = chain_map(tables, unary)
            theta = np.empty(D)
            theta[order] = grid[labels]
            orders.append(order)
            weights.append(theta)
            energies.append(energy)
        self.chain_orders_ = np.asarray(orders)
        self.weights_ = np.asarray(weights)
        self.energies_ = np.asarray(energies)
        if self.n_chains == 1:
            theta = self.weights_[0]
        else:
            norms = np.linalg.norm(self.weights_, axis=1, keepdims=True)
            theta = np.mean(self.weights_ / np.where(norms > 0, norms, 1.0), axis=0)
        self.theta_ = theta
        self.n_nonzero_ = int(np.count_nonzero(theta))

        # The same linear function in the original feature space.
        w_aug = theta if self.projection_matrix_ is None else self.projection_matrix_.T @ theta
        coef = w_aug[:d] / self.scale_
        self.coef_ = coef.reshape(1, -1)
        self.intercept_ = np.array([w_aug[d] - coef @ self.mean_])
        return self

    def decision_function(self, X):
        """``<x, theta>`` of the (projected) sample; positive means ``classes_[1]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self._transform(X) @ self.theta_

    def predict(self, X):
        """Predicted labels, ``sign(<x, theta>)`` (ties go to ``classes_[0]``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(int)]
